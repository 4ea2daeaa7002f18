"""`fpforge equiv`: formal equivalence of a unit's RTL with its netlist or a user's Verilog (yosys miter, ABC).

- the FP32 -> E4M3 encoder's fpforge45 netlist is proved by every engine;
- a planted mutant (one NAND2 of that netlist made an AND2) is caught by every engine with a counterexample
  on which the golden model and ml_dtypes (an independent oracle) agree with the RTL, not with the mutant;
- a proved netlist stays proved after a no-op resynthesis (yosys reads and writes it again);
- --against a user's renamed and edited copy of the RTL: proved when the edit keeps the function, a
  counterexample when it does not; exit codes 0, 1, 3 (timeout) and 2 (bad input);
- the constant-miter guard;
- a unit built on a ROM (the UHP decoder's case table, which yosys's ``proc`` turns into a ROM) is proved against its netlist and as a stream unit
  (yosys maps the memory to logic before the AIGER miter).
Bad inputs are also rows of tests/bad_inputs.py (``_EQUIV_CASES``, ``_equiv_api_cases``).
"""

from __future__ import annotations

import json
import re

import ml_dtypes
import numpy as np
import pytest

from fpforge.cli import main
from fpforge.golden import encode_with_flags, get_format
from fpforge.hw.generate import build_unit, default_name, to_verilog
from fpforge.sim.equiv import ENGINES, _aiger_header, _trusted, equiv
from fpforge.synth import synthesize

pytestmark = pytest.mark.synth

E4M3 = {"unit": "encoder", "format": "e4m3"}


@pytest.fixture(scope="module")
def rtl():
    unit = build_unit(**E4M3)
    name = default_name(unit)
    return name, to_verilog(unit, name)


@pytest.fixture(scope="module")
def netlist(rtl):
    name, verilog = rtl
    return synthesize(verilog, name, netlist=True)["netlist_verilog"]


def _mutant(netlist_text, k=3):
    """The netlist with its k-th NAND2_X1 made an AND2_X1 (same pins, the output inverted)."""
    m = list(re.finditer(r"^(\s*)NAND2_X1 ", netlist_text, re.M))[k]
    return netlist_text[:m.start()] + m.group(1) + "AND2_X1 " + netlist_text[m.end():]


@pytest.mark.parametrize("engine", ENGINES)
def test_netlist_proved(engine):
    r = equiv(E4M3, netlist=True, engine=engine)
    assert r.status == "proved", r
    assert r.engine == engine and r.exit_code == 0 and r.miter_ands > 100 and r.miter_inputs == 32
    assert r.gate.startswith("netlist (fpforge45.lib")


def test_a_rom_unit_is_proved_against_its_netlist_and_as_a_stream():
    uhp = {"unit": "decoder", "format": "uhp", "target": "fp32"}
    r = equiv(uhp, netlist=True)
    assert r.status == "proved" and r.miter_inputs == 16 and r.miter_ands > 100, r
    s = equiv({**uhp, "latency": 1})
    assert s.status == "proved" and s.miter_ands > 100, s


@pytest.mark.parametrize("engine", ENGINES)
def test_mutant_caught_with_a_golden_confirmed_counterexample(engine, netlist, tmp_path):
    path = tmp_path / "mutant.v"
    path.write_text(_mutant(netlist))
    r = equiv(E4M3, against=path, liberty="fpforge45", engine=engine)
    assert r.status == "counterexample" and r.exit_code == 1, r
    a = r.inputs["a"]
    assert set(r.inputs) == {"a"} and 0 <= a < 1 << 32
    # the golden model, recomputed here, and ml_dtypes (E4M3 rne, not saturating) agree with the RTL
    x = np.array([a], np.uint32).view(np.float32)
    y, flags = encode_with_flags(get_format("e4m3"), x, rounding="rne", saturate=False)
    assert r.golden == {"y": int(y[0]), "flags": int(flags[0])} == r.gold_outputs
    if not np.isnan(x[0]):
        assert int(x.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)[0]) == r.gold_outputs["y"]
    assert r.gate_outputs != r.gold_outputs


def test_proved_after_a_noop_resynthesis(netlist, tmp_path):
    """yosys reads the netlist (cells as liberty blackboxes), cleans it and writes it again: still proved."""
    from fpforge.synth.liberty import DEFAULT_LIBERTY
    from fpforge.synth.yosys import run_script

    (tmp_path / "in.v").write_text(netlist)
    (tmp_path / "run.ys").write_text(f"read_liberty -lib {DEFAULT_LIBERTY}\nread_verilog in.v\nhierarchy -auto-top\n"
                                     "opt_clean -purge\nwrite_verilog -noattr out.v\n")
    proc, log = run_script(tmp_path, "run.ys", 120)
    assert proc.returncode == 0, log[-2000:]
    out = (tmp_path / "out.v").read_text()
    assert out != netlist and "NAND2_X1" in out
    r = equiv(E4M3, against=tmp_path / "out.v", liberty="fpforge45", engine="cec")
    assert r.status == "proved", r


def _renamed(verilog, name):
    return "// my copy of the encoder\n" + verilog.replace(f"module {name}(", "module my_encoder(")


def test_against_a_users_renamed_file(rtl, tmp_path, capsys):
    name, verilog = rtl
    assert f"module {name}(" in verilog
    same = tmp_path / "mine.v"
    same.write_text(_renamed(verilog, name))
    assert main(["equiv", "encoder", "-f", "e4m3", "--against", str(same)]) == 0
    out = capsys.readouterr().out
    assert "vs file mine.v: module my_encoder" in out and "proved by ABC iprove" in out


def test_against_an_edit_that_changes_the_function(rtl, tmp_path, capsys):
    """The user's edit forces flags bit 0 high: a counterexample, printed with the golden model's values."""
    name, verilog = rtl
    edited = re.sub(r"(\n\s*endmodule)", r"\n  wire unused_edit;\1", _renamed(verilog, name), count=1)
    edited = re.sub(r"assign flags = ([^;]+);", r"assign flags = (\1) | 5'h01;", edited, count=1)
    assert "| 5'h01" in edited
    path = tmp_path / "edited.v"
    path.write_text(edited)
    assert main(["equiv", "encoder", "-f", "e4m3", "--against", str(path), "--engine", "dprove", "--json"]) == 1
    r = json.loads(capsys.readouterr().out)
    assert r["status"] == "counterexample" and r["engine"] == "dprove"
    assert r["golden"] == r["gold_outputs"] and r["gate_outputs"]["flags"] == r["gold_outputs"]["flags"] | 1
    assert main(["equiv", "encoder", "-f", "e4m3", "--against", str(path)]) == 1
    out = capsys.readouterr().out
    assert "counterexample found by ABC iprove" in out and "differs in flags" in out
    assert "the golden model agrees with gold" in out


def test_timeout_gives_unknown(capsys):
    assert main(["equiv", "decoder", "-f", "e5m2", "--netlist", "--timeout", "0.001"]) == 3
    assert "unknown: ABC (iprove) did not decide within 0.001 s" in capsys.readouterr().out


def test_constant_miter_not_trusted(tmp_path):
    """A miter yosys folded to a constant (no AND gate) is refused as a proof, whatever ABC would say."""
    from fpforge.synth.yosys import run_script

    (tmp_path / "run.ys").write_text("read_verilog -sv c.v\nhierarchy -top c\nwrite_aiger c.aig\n")
    (tmp_path / "c.v").write_text("module c(input [3:0] in_a, output trigger); assign trigger = 1'b0; endmodule\n")
    proc, log = run_script(tmp_path, "run.ys", 60)
    assert proc.returncode == 0, log[-2000:]
    n_in, ands, outs = _aiger_header(tmp_path / "c.aig")
    assert (n_in, ands, outs) == (4, 0, [0])
    assert "the miter is constant (0)" in _trusted(n_in, ands, outs, 4)
    assert _trusted(4, 10, [20], 4) is None
    assert "3 input bits, the unit 4" in _trusted(3, 10, [20], 4)
    assert "no AND gate" in _trusted(4, 0, [20], 4)


def test_the_miter_pairs_ports_by_name_when_their_positions_differ(rtl, tmp_path, monkeypatch):
    """ABC's miter pairs the two AIGs' ports by position, so the maps are compared first: a permutation is
    seen, and yosys's miter (ports by name) then decides, with the same verdicts."""
    import shutil

    from fpforge.sim import equiv_core

    name, verilog = rtl
    work = tmp_path / "w"
    work.mkdir()
    (work / "gold.v").write_text(verilog)
    equiv_core._yosys(work, equiv_core._aig_script(name, name, ["gold.v"]), "test")
    assert equiv_core._same_port_order(work, "gold", "gate")
    lines = (work / "gold.map").read_text().splitlines()
    i, j = next(k for k, ln in enumerate(lines) if ln.startswith("input 0 ")), \
        next(k for k, ln in enumerate(lines) if ln.startswith("input 1 "))
    swapped = [*lines]
    swapped[i], swapped[j] = lines[i].replace("input 0 ", "input 1 "), lines[j].replace("input 1 ", "input 0 ")
    shutil.copy(work / "gold.aig", work / "perm.aig")
    (work / "perm.map").write_text("\n".join(swapped) + "\n")
    assert not equiv_core._same_port_order(work, "gold", "perm")

    monkeypatch.setattr(equiv_core, "_same_port_order", lambda *a: False)  # every miter built by yosys
    same = tmp_path / "mine.v"
    same.write_text(_renamed(verilog, name))
    assert equiv({"unit": "encoder", "format": "e4m3"}, against=same).status == "proved"
    edited = re.sub(r"assign flags = ([^;]+);", r"assign flags = (\1) | 5'h01;", _renamed(verilog, name), count=1)
    (tmp_path / "edited.v").write_text(edited)
    r = equiv({"unit": "encoder", "format": "e4m3"}, against=tmp_path / "edited.v")
    assert r.status == "counterexample" and r.gate_outputs["flags"] == r.gold_outputs["flags"] | 1
