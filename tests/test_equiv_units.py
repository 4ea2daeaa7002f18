"""`fpforge equiv` for block quantizers and dot-product units (the scalar units: test_equiv.py, test_equiv_latency.py).

- the smallest dot unit's (E2M1, r = 2) fpforge45 netlist is proved; one of its gates flipped (a NAND2 made an
  AND2) is caught by every ABC engine with a counterexample that the golden dot product (recomputed here) and
  the exact sum of the decoded operands confirm for the RTL, not for the mutant;
- a proved netlist stays proved after a no-op resynthesis (yosys reads and writes it again);
- a small BDR block encoder's and block decoder's netlists, and a mutant of the block decoder, golden-checked;
- the pipelined dot unit (stages = 2) against its combinational core followed by 2 registers: proved, and
  with one register dropped (a stage's consumer reads the register's input) a counterexample whose gold
  output is the golden dot product of the operands 2 cycles earlier.
Bad inputs of these units are rows of tests/bad_inputs.py (``_EQUIV_UNIT_CASES``).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from fpforge.cli import main
from fpforge.golden import decode_bits, get_format
from fpforge.golden.block import decode_block_bits, from_block_words
from fpforge.golden.dot import DotConfig, dot, from_operand_words
from fpforge.golden.layout import unpack_lanes
from fpforge.hw.generate import build_unit, default_name, to_verilog
from fpforge.sim.equiv import ENGINES, SEQ_ENGINES, equiv
from fpforge.synth import synthesize

pytestmark = pytest.mark.synth

DOT = {"unit": "dot", "format": "e2m1", "r": 2, "f": 16}
BDR = {"format": "bdr_m2_k2_d2_k2_d0"}


def _netlist(cfg):
    unit = build_unit(**cfg)
    name = default_name(unit)
    return synthesize(to_verilog(unit, name), name, netlist=True)["netlist_verilog"]


_FLIP = {"NAND2_X1": "AND2_X1", "AND2_X1": "NAND2_X1", "NOR2_X1": "OR2_X1", "OR2_X1": "NOR2_X1"}


def _mutant(netlist_text, k):
    """The netlist with its k-th two-input NAND/AND/NOR/OR gate made its complement (same pins, the output
    inverted)."""
    m = list(re.finditer(rf"^(\s*)({'|'.join(_FLIP)}) ", netlist_text, re.M))[k]
    return netlist_text[:m.start()] + m.group(1) + _FLIP[m.group(2)] + " " + netlist_text[m.end():]


@pytest.fixture(scope="module")
def dot_netlist():
    return _netlist(DOT)


def _dot_golden(a, b):
    """The golden dot product of the E2M1 operand words ``a``, ``b`` (2 codes each), and the exact sum of
    the decoded elements (every E2M1 product and their sum are exact in FP32)."""
    cfg = DotConfig("e2m1", 2, 16)
    ea, eb = from_operand_words(cfg.a, [a], 2), from_operand_words(cfg.b, [b], 2)
    y = int(dot(cfg, ea, None, eb).y[0])
    fmt = get_format("e2m1")
    va = decode_bits(fmt, ea.ravel().astype(np.uint8)).view(np.float32).astype(np.float64)
    vb = decode_bits(fmt, eb.ravel().astype(np.uint8)).view(np.float32).astype(np.float64)
    return y, float(np.dot(va, vb))


def test_dot_netlist_proved():
    r = equiv(DOT, netlist=True)
    assert r.status == "proved" and r.exit_code == 0 and r.engine == "staged", r  # a dot unit's default
    assert r.miter_inputs == 16 and r.miter_ands > 100 and r.gate.startswith("netlist (fpforge45.lib")


@pytest.mark.slow
def test_staged_engine_proves_an_r16_dot_netlist_the_monolithic_miter_does_not():
    """MX4, r = 16: the adder trees alumacc reassociates defeat ABC's SAT sweeping on the whole miter (dprove
    undecided at 60 s); the staged engine proves the same netlist step by step."""
    cfg = {"unit": "dot", "format": "mx4", "r": 16, "f": 16}
    assert equiv(cfg, netlist=True, engine="dprove", timeout=60).status == "unknown"
    r = equiv(cfg, netlist=True, engine="staged", timeout=300)
    assert r.status == "proved" and r.engine == "staged", r


def test_staged_port_order_guard(tmp_path):
    """The staged engine pairs AIGER positions: a gate design whose map has a line the gold's has not is
    never compared (unknown), whatever &cec would say."""
    from fpforge.sim.equiv_core import _port_lines

    (tmp_path / "g.map").write_text("input 0 0 a\ninput 1 0 b\noutput 0 0 y\n")
    (tmp_path / "h.map").write_text("input 0 0 b\ninput 1 0 a\noutput 0 0 y\n")
    assert not _port_lines(tmp_path / "h.map") <= _port_lines(tmp_path / "g.map")
    assert _port_lines(tmp_path / "g.map") <= _port_lines(tmp_path / "g.map")


@pytest.mark.parametrize("engine", ENGINES)
def test_dot_mutant_caught_with_a_golden_confirmed_counterexample(engine, dot_netlist, tmp_path):
    path = tmp_path / "mutant.v"
    path.write_text(_mutant(dot_netlist, 5))
    r = equiv(DOT, against=path, liberty="fpforge45", engine=engine)
    assert r.status == "counterexample" and r.exit_code == 1 and r.engine == engine, r
    assert set(r.inputs) == {"a", "b"}
    y, exact = _dot_golden(r.inputs["a"], r.inputs["b"])
    assert r.golden == {"y": y} == r.gold_outputs != r.gate_outputs
    assert np.array([y], np.uint32).view(np.float32)[0] == exact


def test_dot_counterexample_printed_as_values(dot_netlist, tmp_path, capsys):
    path = tmp_path / "mutant.v"
    path.write_text(_mutant(dot_netlist, 5))
    assert main(["equiv", "dot", "--preset", "e2m1", "--r", "2", "--f", "16", "--against", str(path),
                 "--liberty", "fpforge45"]) == 1
    out = capsys.readouterr().out
    m = re.search(r"inputs: +a=(0x[0-9a-f]+) b=(0x[0-9a-f]+)", out)
    assert m, out
    y, exact = _dot_golden(int(m.group(1), 16), int(m.group(2), 16))
    assert f"golden model:  y={y:#010x}" in out
    assert re.search(rf"golden model as values: +y={exact:.6g}\n", out), out
    assert "inputs as values: a=[" in out and "the golden model agrees with gold" in out


def test_dot_proved_after_a_noop_resynthesis(dot_netlist, tmp_path):
    """yosys reads the netlist (cells as liberty blackboxes), cleans it and writes it again: still proved."""
    from fpforge.synth.liberty import DEFAULT_LIBERTY
    from fpforge.synth.yosys import run_script

    (tmp_path / "in.v").write_text(dot_netlist)
    (tmp_path / "run.ys").write_text(f"read_liberty -lib {DEFAULT_LIBERTY}\nread_verilog in.v\nhierarchy -auto-top\n"
                                     "opt_clean -purge\nwrite_verilog -noattr out.v\n")
    proc, log = run_script(tmp_path, "run.ys", 120)
    assert proc.returncode == 0, log[-2000:]
    out = (tmp_path / "out.v").read_text()
    assert out != dot_netlist and "NAND2_X1" in out
    r = equiv(DOT, against=tmp_path / "out.v", liberty="fpforge45", engine="cec")
    assert r.status == "proved", r


def test_block_decoder_netlist_and_mutant(tmp_path):
    cfg = dict(BDR, unit="block-decoder")
    assert equiv(cfg, netlist=True, engine="cec").status == "proved"
    path = tmp_path / "mutant.v"
    path.write_text(_mutant(_netlist(cfg), 2))
    r = equiv(cfg, against=path, liberty="fpforge45")
    assert r.status == "counterexample", r
    fmt = get_format(BDR["format"])
    want = decode_block_bits(fmt, from_block_words(fmt, [r.inputs["a"]])).reshape(fmt.k1)
    assert list(unpack_lanes([r.gold_outputs["y"]], 32, fmt.k1)[0]) == list(want)
    assert r.golden == r.gold_outputs != r.gate_outputs


@pytest.mark.slow
def test_block_encoder_netlist_and_mutant(tmp_path):
    from fpforge.golden.block import block_words, encode_block

    cfg = dict(BDR, unit="block-encoder")
    assert equiv(cfg, netlist=True).status == "proved"
    path = tmp_path / "mutant.v"
    path.write_text(_mutant(_netlist(cfg), 2))
    r = equiv(cfg, against=path, liberty="fpforge45", engine="dprove")
    assert r.status == "counterexample", r
    fmt = get_format(BDR["format"])
    x = unpack_lanes([r.inputs["a"]], 32, fmt.k1).astype(np.uint32).view(np.float32)
    assert r.golden == {"y": int(block_words(fmt, encode_block(fmt, x))[0])} == r.gold_outputs != r.gate_outputs


DOT2 = dict(DOT, stages=2)


@pytest.fixture(scope="module")
def dot2_rtl():
    unit = build_unit(**DOT2)
    name = default_name(unit)
    return name, to_verilog(unit, name)


def test_pipelined_dot_proved_against_its_core(capsys):
    assert main(["equiv", "dot", "--preset", "e2m1", "--r", "2", "--f", "16", "--stages", "2"]) == 0
    out = capsys.readouterr().out
    assert "fpforge_dot_e2m1_r2_f16_anch + 2 register stages vs generated fpforge_dot_e2m1_r2_f16_anch_s2" in out
    assert "proved by yosys sat -tempinduct" in out


@pytest.mark.parametrize("engine", SEQ_ENGINES)
def test_pipelined_dot_dropped_register_caught(dot2_rtl, tmp_path, engine):
    """The register b2_s0 (a block sum, the first stage) dropped: its consumers read its input sp0_0."""
    name, verilog = dot2_rtl
    lines = verilog.splitlines(keepends=True)
    uses = [k for k, ln in enumerate(lines) if ln.lstrip().startswith("assign ") and re.search(r"\bb2_s0\b", ln)]
    assert uses and "sp0_0  = sp0_0" not in verilog and re.search(r"\$\d+  = sp0_0;", verilog)
    for k in uses:
        lines[k] = re.sub(r"\bb2_s0\b", "sp0_0", lines[k])
    path = tmp_path / "dropped.v"
    path.write_text("".join(lines))
    r = equiv(DOT2, against=path, engine=engine)
    assert r.status == "counterexample" and r.exit_code == 1 and r.engine == engine, r
    cycles = r.cycles
    diff = [c for c in cycles if c["gold"] != c["gate"]]
    assert diff and diff[0] is cycles[-1]
    t = diff[0]["cycle"]
    assert r.gold_outputs["o_valid"] and t >= 3  # a payload differs only where it is valid
    if not any(c["rst"] for c in cycles[t - 3:t - 1]):  # else the golden model has no input to replay
        ins = cycles[t - 3]["inputs"]
        y, exact = _dot_golden(ins["a"], ins["b"])
        assert r.golden == {"y": y} == {"y": r.gold_outputs["y"]}, "golden not replayed"
        assert np.array([y], np.uint32).view(np.float32)[0] == exact
