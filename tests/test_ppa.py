"""Delay, slack and power of a unit at a clock period (``fpforge synth --clock-ns T --power``): real yosys,
ABC and OpenSTA on the OSU 0.18 um cells of Debian's qflow-tech-osu018 (docs/ppa.md). Skipped, with the
reason, where OpenSTA or the library is not installed (``.ci/run`` and ``make setup`` install them).

One small case (an E4M3 encoder, a few seconds) runs in ``make test``; the others are marked slow."""

from __future__ import annotations

import json
import math
import shutil

import pytest

from fpforge.cli import main
from fpforge.synth import read_liberty, synthesize
from fpforge.synth.flow import check_ppa
from fpforge.synth.sta import run_sta
from fpforge.synth.tech import resolve_liberty

from helpers import ppa_missing

__all__: list[str] = []

pytestmark = [pytest.mark.synth, pytest.mark.skipif(ppa_missing() is not None, reason=str(ppa_missing()))]

_KEYS = ("liberty", "clock_ns", "area_um2", "delay_ns", "slack_ns", "power_mw", "internal_mw", "switching_mw",
         "leakage_mw", "energy_pj", "activity", "ge", "nand2_cell", "cells", "cell_count", "logic_depth")


def _synth_json(tmp_path, *argv, name="r.json"):
    out = tmp_path / name
    assert main(["synth", *argv, "--liberty", "osu018", "--json", "-o", str(out)]) == 0
    return json.loads(out.read_text())


def test_e4m3_encoder_at_osu018_delay_slack_area_power(tmp_path):
    """The make-test case: every key; slack = T - delay; ABC's estimate within 10 % of OpenSTA's; power is the
    sum of its parts and energy per op = power x T; the area is the liberty's areas of the cells counted; and
    the --netlist-out file, read again by OpenSTA on its own, gives the same slack."""
    t = 3.0
    r = _synth_json(tmp_path, "encoder", "-f", "e4m3", "--clock-ns", str(t), "--power",
                    "--netlist-out", str(tmp_path / "n.v"))
    assert all(k in r for k in _KEYS), sorted(set(_KEYS) - set(r))
    lib_path = resolve_liberty("osu018")
    assert r["liberty"] == str(lib_path.resolve())
    assert r["clock_ns"] == t and r["activity"] == "workload" and r["wire_parasitics"] == "none"
    assert r["delay_ns"] > 0.5 and r["critical_path"] and " -> " in r["critical_path"]
    assert r["slack_ns"] == pytest.approx(t - r["delay_ns"], abs=2e-4)
    assert abs(r["abc_delay_ns"] - r["delay_ns"]) <= 0.10 * r["delay_ns"]
    parts = r["internal_mw"] + r["switching_mw"] + r["leakage_mw"]
    assert r["power_mw"] == pytest.approx(parts, rel=1e-4) and r["switching_mw"] > 0 and r["leakage_mw"] > 0
    assert r["energy_pj"] == pytest.approx(r["power_mw"] * t, rel=1e-4)
    lib = read_liberty(lib_path)
    assert r["area_um2"] == pytest.approx(sum(lib.cells[c].area * n for c, n in r["cells"].items()))
    assert r["driving_cell"] in lib.cells
    # the netlist as OpenSTA reads it: the same slack from a separate OpenSTA run
    work = tmp_path / "again"
    work.mkdir()
    shutil.copyfile(lib_path, work / "cells.lib")
    shutil.copyfile(tmp_path / "n.v", work / "n.v")
    driver = check_ppa(lib, lib_path, t, False, "vectorless", 1)
    again = run_sta(work, "n.v", r["config"]["name"] if "name" in r["config"] else r["top"], "cells.lib",
                    clock_ns=t, clock_port=None, driving_cell=driver["driving_cell"],
                    driving_pin=driver["driving_pin"], load=driver["output_load_ff"] / lib.cap_unit_ff,
                    power=False, timeout=120)
    assert again["slack_ns"] == r["slack_ns"]


@pytest.mark.slow
def test_area_only_flow_unchanged_by_the_ppa_keys(tmp_path):
    """Without --clock-ns the report has none of the timing keys and names the liberty file only."""
    r = _synth_json(tmp_path, "decoder", "-f", "e4m3")
    assert r["liberty"] == "osu018_stdcells.lib"
    assert not {"clock_ns", "delay_ns", "power_mw", "netlist_verilog"} & set(r)


@pytest.mark.slow
@pytest.mark.parametrize("argv", [
    ["decoder", "-f", "e5m2"],
    ["encoder", "-f", "hif8", "--source", "fp16"],
    ["encoder", "-f", "e4m3", "--rounding", "sr"],
    ["encoder", "-f", "e5m2", "--latency", "1"],
], ids=["dec-e5m2", "enc-hif8-fp16", "enc-e4m3-sr", "enc-e5m2-pipelined"])
def test_abc_and_opensta_agree_within_10_percent(tmp_path, argv):
    r = _synth_json(tmp_path, *argv, "--clock-ns", "2")
    assert r["delay_ns"] > 0
    assert abs(r["abc_delay_ns"] - r["delay_ns"]) <= 0.10 * r["delay_ns"], (r["abc_delay_ns"], r["delay_ns"])
    if "--latency" in argv:
        assert r["clock_port"] == "clk" and r["flip_flops"] > 0


@pytest.mark.slow
def test_halving_the_clock_doubles_dynamic_power_and_keeps_energy_per_op():
    """One netlist (a fixed ABC script), analysed at T and T/2: internal and switching power double, energy
    per operation stays (leakage, a few nW, is the only part that does not scale)."""
    from fpforge.hw import build_unit, to_verilog

    src = to_verilog(build_unit("encoder", format="e4m3"), "enc")
    script = "strash; &get -n; &dch -f; &nf -D 3000; &put; buffer; upsize -D 3000; dnsize -D 3000; stime -p"
    slow, fast = (synthesize(src, "enc", liberty="osu018", clock_ns=t, power=True, abc_script=script)
                  for t in (4.0, 2.0))
    assert slow["cells"] == fast["cells"]
    for key in ("internal_mw", "switching_mw"):
        assert fast[key] == pytest.approx(2 * slow[key], rel=1e-4), key
    assert fast["leakage_mw"] == pytest.approx(slow["leakage_mw"], rel=1e-4)
    assert fast["energy_pj"] == pytest.approx(slow["energy_pj"], rel=1e-3)
    assert math.isclose(fast["slack_ns"] + 2.0, slow["slack_ns"], abs_tol=2e-4)


def test_timing_tables_abc_cannot_read_are_one_clear_error(tmp_path):
    """A library whose cells have a delay group but no NLDM tables ABC can read: one line naming the library
    and ABC's complaint (not yosys' "Can't open ABC output file")."""
    from fpforge.synth import DEFAULT_LIBERTY, SynthError

    text = DEFAULT_LIBERTY.read_text().replace("direction : input ;", "direction : input ; capacitance : 1.0 ;")
    text = text.replace('function : "!(A1 & A2)" ;', 'function : "!(A1 & A2)" ; timing () { related_pin : "A1" ; '
                        'cell_rise (scalar) { values ("0.1") ; } }', 1)
    (tmp_path / "scalar.lib").write_text(text)
    src = "module x(input a, input b, output y); assign y = a & b; endmodule\n"
    with pytest.raises(SynthError, match=r"ABC could not read the timing tables of liberty scalar\.lib \(ABC: "):
        synthesize(src, "x", liberty=tmp_path / "scalar.lib", clock_ns=2)
