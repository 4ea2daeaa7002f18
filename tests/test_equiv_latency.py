"""`fpforge equiv UNIT ... --latency L` (issue 29): a stream unit proved equal to its combinational core followed
by L registers (yosys miter, ``sat -tempinduct``).

- fpforge's generated stream units are proved (an encoder at latency 2, a decoder at latency 1);
- planted mutants of the generated stream unit are caught with a per-cycle counterexample: one pipeline
  register dropped (the payload skips a stage), a flipped payload bit in a stage, the valid bit skipping a
  stage, a reset that no longer clears a stage's valid bit; the counterexample is checked here against the
  golden model (recomputed) and the reference semantics (the output is the input L cycles earlier);
- the miter is not constant and has every input bit (the constant-miter guard of tests/test_equiv.py);
- exit codes 0, 1 and 3 (a timeout); 2 (bad input) in the bad-input tables.
Bad inputs are rows of tests/bad_inputs.py (``_LATENCY_CASES``, ``_latency_api_cases``).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from fpforge.cli import main
from fpforge.golden import decode_bits, encode_with_flags, get_format
from fpforge.hw.generate import build_unit, default_name, to_verilog
from fpforge.sim.equiv import SEQ_ENGINES, equiv

pytestmark = pytest.mark.synth

ENC2 = {"unit": "encoder", "format": "e4m3", "latency": 2}


@pytest.fixture(scope="module")
def stream_rtl():
    unit = build_unit(**ENC2)
    name = default_name(unit)
    return name, to_verilog(unit, name)


def _assign_in_block(text, target, old, new):
    """``text`` with the statement ``old`` replaced by ``new`` in the combinational block that computes the
    next value of the register ``target`` (the block ending with ``target``'s reset)."""
    reg = re.search(rf"always @\(posedge clk\)\s*\n\s*{re.escape(target)} <= (\\\$\d+) ;", text)
    assert reg, f"no register {target}"
    nxt = reg.group(1)
    block = re.search(rf"always @\* begin\n(?:(?!always).)*?{re.escape(nxt)}  = {re.escape(old)}(?:(?!always).)*?end\n  end",
                      text, re.S)
    assert block, f"no block computing {nxt} = {old}"
    stmt = f"{nxt}  = {old}"
    assert block.group(0).count(stmt) == 1
    return text[:block.start()] + block.group(0).replace(stmt, f"{nxt}  = {new}") + text[block.end():]


def _golden_e4m3(a):
    y, flags = encode_with_flags(get_format("e4m3"), np.array([a], np.uint32).view(np.float32), rounding="rne",
                                 saturate=False)
    return {"y": int(y[0]), "flags": int(flags[0])}


def test_generated_stream_units_proved(capsys):
    assert main(["equiv", "encoder", "-f", "e4m3", "--latency", "2"]) == 0
    out = capsys.readouterr().out
    assert "fpforge_enc_fp32_e4m3 + 2 register stages vs generated fpforge_enc_fp32_e4m3_l2" in out
    assert "proved by yosys sat -tempinduct" in out
    r = equiv({"unit": "decoder", "format": "e5m2", "latency": 1})
    assert r.status == "proved" and r.exit_code == 0 and r.engine == "tempinduct", r
    # not a folded miter: AND gates, and every input bit (clk, rst, i_valid, 8 payload bits) is a miter input
    assert r.miter_ands > 100 and r.miter_inputs == 3 + 8


@pytest.mark.parametrize("engine", SEQ_ENGINES)
def test_a_copy_of_the_generated_unit_is_proved(stream_rtl, tmp_path, engine):
    name, verilog = stream_rtl
    path = tmp_path / "mine.v"
    path.write_text(verilog.replace(f"module {name}(", "module my_stream("))
    r = equiv(ENC2, against=path, engine=engine)
    assert r.status == "proved" and r.engine == engine, r
    assert r.gate == "file mine.v: module my_stream" and r.miter_inputs == 3 + 32


@pytest.mark.parametrize("engine", SEQ_ENGINES)
def test_dropped_register_caught(stream_rtl, tmp_path, capsys, engine):
    """The output stage loads the core's result directly (stage s0's payload register dropped): the payload
    leaves one cycle early, the valid bit on time."""
    name, verilog = stream_rtl
    mutant = _assign_in_block(verilog, "o__payload", "s0_payload;", r"\$3 ;")
    path = tmp_path / "dropped.v"
    path.write_text(mutant)
    r = equiv(ENC2, against=path, engine=engine)
    assert r.status == "counterexample" and r.exit_code == 1 and r.engine == engine, r
    cycles = r.cycles
    diff = [c for c in cycles if c["gold"] != c["gate"]]
    assert diff and diff[0] is cycles[-1] and diff[0]["gold"] == r.gold_outputs
    t = diff[0]["cycle"]
    # gold is the reference: when valid, the golden model of the input 2 cycles earlier
    if r.gold_outputs["o_valid"]:
        assert t >= 3 and not any(c["rst"] for c in cycles[t - 3:t - 1])
        expected = _golden_e4m3(cycles[t - 3]["inputs"]["a"])
        assert r.golden == expected == {k: r.gold_outputs[k] for k in ("y", "flags")}
        # the mutant is one cycle early: the core's result of the input 1 cycle earlier (unless reset)
        if not cycles[t - 2]["rst"]:
            assert {k: r.gate_outputs[k] for k in ("y", "flags")} == _golden_e4m3(cycles[t - 2]["inputs"]["a"])
    assert main(["equiv", "encoder", "-f", "e4m3", "--latency", "2", "--against", str(path)]) == 1
    out = capsys.readouterr().out
    assert "counterexample found by yosys sat -tempinduct" in out and "<- differs" in out
    assert re.search(r"cycle 1: rst=\d i_valid=\d a=0x", out)


@pytest.mark.parametrize("what, target, old, new", [
    ("flipped payload bit", "s0_payload", None, None),  # the register's input XOR 4 (y bit 2)
    ("valid skips a stage", "o__valid", "s0_valid;", "i__valid;"),
    ("reset keeps a valid bit", "s0_valid", "1'h0;", "s0_valid;"),
])
def test_mutants_caught(stream_rtl, tmp_path, what, target, old, new):
    name, verilog = stream_rtl
    if what == "flipped payload bit":
        stmt = re.search(r"always @\(posedge clk\)\s*\n\s*s0_payload <= (\\\$\d+) ;", verilog)
        mutant = verilog.replace(stmt.group(0), stmt.group(0).replace(f"{stmt.group(1)} ;",
                                                                       f"{stmt.group(1)} ^ 13'h0004;"))
    else:
        mutant = _assign_in_block(verilog, target, old, new)
    assert mutant != verilog
    path = tmp_path / "mutant.v"
    path.write_text(mutant)
    r = equiv(ENC2, against=path)
    assert r.status == "counterexample", (what, r)
    assert r.gold_outputs != r.gate_outputs and r.cycles[-1]["gate"] == r.gate_outputs
    if what == "flipped payload bit":  # y bit 2 differs while the output is valid
        assert r.gold_outputs["o_valid"] == r.gate_outputs["o_valid"] == 1
        assert r.gold_outputs["y"] ^ r.gate_outputs["y"] == 4
    elif what == "reset keeps a valid bit":
        assert any(c["rst"] for c in r.cycles)


def test_timeout_gives_unknown(capsys):
    assert main(["equiv", "decoder", "-f", "e5m2", "--latency", "1", "--timeout", "0.01"]) == 3
    assert "unknown: yosys sat -tempinduct did not decide within 0.01 s" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("cfg", [
    {"unit": "encoder", "format": "e5m2", "rounding": "rne,rtz", "saturate": "runtime", "latency": 4},
    {"unit": "encoder", "format": "hif8", "latency": 3},
    {"unit": "decoder", "format": "e4m3", "latency": 2},
])
def test_more_units_proved(cfg):
    cfg = dict(cfg)
    if isinstance(cfg.get("rounding"), str):
        cfg["rounding"] = cfg["rounding"].split(",")
    r = equiv(cfg)
    assert r.status == "proved", r


def test_decoder_counterexample_is_golden_checked(tmp_path):
    """A decoder at latency 1 whose output register drops bit 31 (the sign): the gold output is the golden
    model's decode of the input one cycle earlier."""
    cfg = {"unit": "decoder", "format": "e5m2", "latency": 1}
    unit = build_unit(**cfg)
    name = default_name(unit)
    verilog = to_verilog(unit, name)
    stmt = re.search(r"always @\(posedge clk\)\s*\n\s*o__payload <= (\\\$\d+) ;", verilog)
    mutant = verilog.replace(stmt.group(0), stmt.group(0).replace(f"{stmt.group(1)} ;",
                                                                   f"{stmt.group(1)} & 32'h7fffffff;"))
    path = tmp_path / "dec.v"
    path.write_text(mutant)
    r = equiv(cfg, against=path)
    assert r.status == "counterexample", r
    t = r.cycles[-1]["cycle"]
    assert r.gold_outputs["o_valid"] == 1 and r.gate_outputs["y"] == r.gold_outputs["y"] & 0x7FFFFFFF
    a = r.cycles[t - 2]["inputs"]["a"]
    want = int(decode_bits(get_format("e5m2"), np.array([a], np.uint16), "fp32")[0])
    assert r.golden == {"y": want} and r.gold_outputs["y"] == want
