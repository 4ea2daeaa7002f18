"""Validation of the PPA figures (issue 28, item 4; docs/ppa.md "Validation"): real yosys, ABC and OpenSTA on
the osu018 cells, switching activity from the gate-level workload simulation (``activity="workload"``).
Skipped, with the reason, where OpenSTA or the library is missing. The r = 16 checks are marked slow;
bench/ppa_validation.py prints the same measurements for the docs."""

from __future__ import annotations

import numpy as np
import pytest

from fpforge.hw.generate import build_unit, default_name, to_verilog
from fpforge.hw.spec import DecoderSpec, DotSpec, EncoderSpec
from fpforge.synth import read_liberty, synthesize
from fpforge.synth.activity import instance_activities, net_activity
from fpforge.synth.sta import run_sta
from fpforge.synth.tech import resolve_liberty

from helpers import ppa_missing

__all__: list[str] = []

pytestmark = [pytest.mark.synth, pytest.mark.skipif(ppa_missing() is not None, reason=str(ppa_missing()))]


def _verilog(spec):
    unit = build_unit(spec)
    name = default_name(unit)
    return to_verilog(unit, name), name


def _ppa(spec, clock_ns, **kw):
    text, name = _verilog(spec)
    kw.setdefault("workload", spec)
    kw.setdefault("power", True)
    return synthesize(text, name, liberty="osu018", clock_ns=clock_ns, **kw)


@pytest.mark.parametrize("spec", [EncoderSpec(format="e4m3"), DecoderSpec(format="e5m2"),
                                  DotSpec(format="e2m1", r=2, f=16)], ids=["e4m3-encoder", "e5m2-decoder", "e2m1-dot"])
def test_abc_delay_estimate_within_10_percent_of_opensta(spec):
    r = _ppa(spec, 5.0)
    assert r["activity"] == "workload" and r["workload_cycles"] > 1000
    assert r["delay_ns"] > 0.1
    assert abs(r["abc_delay_ns"] / r["delay_ns"] - 1) <= 0.10, (r["abc_delay_ns"], r["delay_ns"])


def _adder_delay(width, clock_ns):
    src = f"module add(input [{width - 1}:0] a, input [{width - 1}:0] b, output [{width}:0] s); assign s = a + b; " \
          "endmodule\n"
    return synthesize(src, "add", liberty="osu018", clock_ns=clock_ns)["delay_ns"]


def _dot_delays(rs, t):
    """The paper's (aligned) datapath: its adder tree is what a doubling of r deepens (the anchored datapath
    of an exact window, auto's choice here, trades the max tree for a wider sum; docs/dot.md)."""
    return [_ppa(DotSpec(format="e2m1", r=r, f=16, datapath="aligned"), t, power=False, workload=None)["delay_ns"]
            for r in rs]


def test_dot_delay_grows_by_about_one_adder_level_per_doubling_of_r():
    """r = 2 -> 4 (E2M1 elements, a 16-bit window): the doubling adds one level to the adder tree; the delay
    grows by between half and 1.5x the delay of a 16-bit adder mapped the same way (a ripple adder on osu018)."""
    t = 10.0
    delays = _dot_delays((2, 4), t)
    level = _adder_delay(16, t)
    assert 0.5 * level <= delays[1] - delays[0] <= 1.5 * level, (delays, level)


@pytest.mark.slow
def test_dot_delay_growth_continues_to_r16():
    """r = 4 -> 8 -> 16: about one adder level per doubling again, from 0.4 adders (the tree's carry chains
    overlap more at r = 16; docs/ppa.md); the fast test covers 2 -> 4."""
    t = 20.0
    delays = _dot_delays((4, 8, 16), t)
    level = _adder_delay(16, t)
    assert all(0.4 * level <= g <= 1.5 * level for g in np.diff(delays)), (delays, level)


def test_all_zero_operands_dynamic_power_below_2_percent_of_gaussian():
    spec = DotSpec(format="e2m1", r=2, f=16)
    gauss = _ppa(spec, 5.0)
    zeros = _ppa(spec, 5.0, workload={p: np.zeros(512, np.uint64) for p in ("a", "b")})
    dyn = lambda r: r["internal_mw"] + r["switching_mw"]  # noqa: E731
    assert dyn(gauss) > 1.0  # mW: the Gaussian workload switches the unit
    assert dyn(zeros) < 0.02 * dyn(gauss)
    assert zeros["leakage_mw"] == pytest.approx(gauss["leakage_mw"], rel=1e-6)  # the same netlist


def test_halving_the_clock_doubles_power_and_keeps_energy():
    """One netlist (the ABC script of T = 5 ns for both), workload activity: power scales as 1/T (leakage, a
    few nW, is the part that does not), the energy per operation stays."""
    spec = DotSpec(format="e2m1", r=2, f=16)
    slow = _ppa(spec, 5.0)
    fast = _ppa(spec, 2.5, abc_script=slow["abc_script"])
    assert fast["cells"] == slow["cells"]
    assert fast["power_mw"] == pytest.approx(2 * slow["power_mw"], rel=1e-3)
    assert fast["energy_pj"] == pytest.approx(slow["energy_pj"], rel=1e-3)


@pytest.mark.slow
def test_mx6_energy_per_dot_product_below_fp8():
    """r = 16 (MX6's block), f = 32, the paper's method (registered inputs and outputs), T = 10 ns."""
    e = {fmt: _ppa(DotSpec(format=fmt, r=16, f=32, io_registers=True), 10.0)["energy_pj"] for fmt in ("fp8", "mx6")}
    assert e["mx6"] < e["fp8"], e


# A 4-bit ripple-carry adder written by hand in osu018 cells: every net has a formula of its own.
_ADDER = """module add4(a, b, s);
  input [3:0] a;
  input [3:0] b;
  output [4:0] s;
  wire [3:0] p;
  wire [3:0] g;
  wire [3:0] t;
  wire [4:0] c;
"""


def _adder_netlist():
    lines = [_ADDER]
    for i in range(4):
        lines.append(f"  XOR2X1 xp{i} (.A(a[{i}]), .B(b[{i}]), .Y(p[{i}]));")
        lines.append(f"  AND2X2 ag{i} (.A(a[{i}]), .B(b[{i}]), .Y(g[{i}]));")
        if i == 0:
            lines.append("  BUFX2 bs0 (.A(p[0]), .Y(s[0]));")
            lines.append("  BUFX2 bc1 (.A(g[0]), .Y(c[1]));")
        else:
            lines.append(f"  XOR2X1 xs{i} (.A(p[{i}]), .B(c[{i}]), .Y(s[{i}]));")
            lines.append(f"  AND2X2 at{i} (.A(p[{i}]), .B(c[{i}]), .Y(t[{i}]));")
            lines.append(f"  OR2X2 oc{i + 1} (.A(g[{i}]), .B(t[{i}]), .Y(c[{i + 1}]));")
    lines.append("  assign s[4] = c[4];\nendmodule\n")
    return "\n".join(lines)


def _toggles(seq):
    return sum(1 for x, y in zip(seq, seq[1:]) if x != y)


def test_hand_counted_adder_toggles_are_the_annotated_activity(tmp_path):
    """16 vectors through the hand-written adder: the toggles of every net, counted here from the vectors by
    integer arithmetic (not by the simulator), are exactly what the simulator counts and what the power
    analysis annotates (toggles / 15 per instance); and OpenSTA's switching power with that annotation is
    sum(1/2 C V^2 activity / T) over the nets, with C the liberty's pin capacitances (and the output load)."""
    a = [3, 12, 7, 0, 15, 9, 6, 1, 10, 5, 14, 2, 8, 11, 4, 13]
    b = [5, 3, 9, 0, 15, 6, 6, 14, 1, 10, 7, 8, 2, 12, 13, 4]
    bit = lambda v, i: (v >> i) & 1  # noqa: E731
    expect = {}
    carry = [0] * 16
    for i in range(4):
        p = [bit(x, i) ^ bit(y, i) for x, y in zip(a, b)]
        g = [bit(x, i) & bit(y, i) for x, y in zip(a, b)]
        expect[f"p[{i}]"], expect[f"g[{i}]"] = p, g
        if i == 0:
            expect["s[0]"], nxt = p, g
        else:
            expect[f"s[{i}]"] = [x ^ c for x, c in zip(p, carry)]
            expect[f"t[{i}]"] = [x & c for x, c in zip(p, carry)]
            nxt = [x | y for x, y in zip(g, expect[f"t[{i}]"])]
        expect[f"c[{i + 1}]"] = carry = nxt
    assert expect["s[3]"] == [bit(x + y, 3) for x, y in zip(a, b)]  # the formulas are an adder
    assert expect["c[4]"] == [bit(x + y, 4) for x, y in zip(a, b)]

    lib = resolve_liberty("osu018")
    text = _adder_netlist()
    stim = {"a": np.array(a, np.uint64), "b": np.array(b, np.uint64)}
    sim = net_activity(text, "add4", lib, stim)
    assert sim["cycles"] == 16
    for net, seq in expect.items():
        assert sim["nets"][net] == (_toggles(seq), sum(seq)), net
    acts, n = instance_activities(text, "add4", lib, stim)
    drives = {"xp": "p", "ag": "g", "xs": "s", "at": "t", "oc": "c", "bs": "s", "bc": "c"}
    assert len(acts) == 4 * 2 + 2 + 3 * 3
    for inst, act in acts.items():
        net = f"{drives[inst[:2]]}[{inst[2:]}]"
        assert act == _toggles(expect[net]) / 15, inst

    # OpenSTA, annotated with those activities: its switching power is the hand formula's.
    (tmp_path / "cells.lib").write_text(lib.read_text())
    (tmp_path / "netlist.v").write_text(text)
    t, load_ff = 5.0, 20.0
    liberty = read_liberty(lib)
    cap_unit = liberty.cap_unit_ff or 1000.0
    out = run_sta(tmp_path, "netlist.v", "add4", "cells.lib", clock_ns=t, clock_port=None, driving_cell="BUFX2",
                  driving_pin="Y", load=load_ff / cap_unit, power=True, timeout=120, activities=acts)
    cells = {"XOR2X1", "AND2X2", "OR2X2", "BUFX2"}
    loads: dict = {}
    for line in text.splitlines():
        parts = line.split()
        if parts and parts[0] in cells:
            for pin, net in (("A", line.split(".A(")[1].split(")")[0]), ("B", (line.split(".B(") + [""])[1].split(")")[0])):
                if net:
                    loads[net] = loads.get(net, 0.0) + liberty.cells[parts[0]].capacitance[pin] * cap_unit
    for i in range(5):
        loads[f"s[{i}]" if i < 4 else "c[4]"] = loads.get(f"s[{i}]" if i < 4 else "c[4]", 0.0) + load_ff
    volt = 1.8
    want_mw = sum(0.5 * loads.get(net, 0.0) * 1e-15 * volt**2 * _toggles(seq) / 15 / (t * 1e-9)
                  for net, seq in expect.items()) * 1e3
    assert out["switching_mw"] == pytest.approx(want_mw, rel=2e-3)


def test_cli_workload_is_the_default_of_power_and_says_how_it_was_measured(tmp_path, capsys):
    """`synth decoder --power`: workload activity by default, said beside the figures (zero delay, no glitch
    power, no parasitics); `--activity vectorless` gives OpenSTA's propagation; a block unit defaults to it."""
    import json

    from fpforge.cli import main

    base = ["synth", "decoder", "-f", "e4m3", "--liberty", "osu018", "--clock-ns", "3", "--power"]
    assert main(base) == 0
    text = capsys.readouterr().out
    assert "workload: toggles of every net in a zero-delay gate-level simulation of 4096 cycles (no glitch power)" \
        in text and "parasitics     none" in text
    assert main([*base, "--json", "--activity", "vectorless", "-o", str(tmp_path / "v.json")]) == 0
    v = json.loads((tmp_path / "v.json").read_text())
    assert v["activity"] == "vectorless" and v["input_activity"] == 0.1 and v["workload_cycles"] is None
    assert main([*base, "--json", "-o", str(tmp_path / "w.json")]) == 0
    w = json.loads((tmp_path / "w.json").read_text())
    assert w["activity"] == "workload" and w["input_activity"] is None and w["workload_cycles"] == 4096
    assert w["cells"] == v["cells"] and w["power_mw"] != v["power_mw"]


def test_sweep_activity_is_in_the_cache_key(tmp_path):
    """`sweep --ppa`: workload activity by default; vectorless is another measurement (another key), not a
    re-reading of the workload's; asking for it again computes nothing."""
    from fpforge.sweep import Space, preset_points
    from fpforge.sweep import run as sweep_run

    store = str(tmp_path / "cache")
    space = Space("pw", preset_points("e4m3"), r=2, f=16, vectors=64, liberty=str(resolve_liberty("osu018")),
                  ppa=True, clock_ns=5.0)
    assert space.activity == "workload"
    work = sweep_run(space, cache=store, progress=False)
    vec = sweep_run(space.with_(activity="vectorless"), cache=store, progress=False)
    again = sweep_run(space.with_(activity="vectorless"), cache=store, progress=False)
    assert vec.stats["computed"] == 1 and again.stats["computed"] == 0
    assert work.row("e4m3")["area_um2"] == vec.row("e4m3")["area_um2"]
    assert work.row("e4m3")["energy_pj"] != vec.row("e4m3")["energy_pj"]
