"""The C++ golden dot product (`fpforge.sim.dot_golden`), `fpforge prove dot`'s default golden side.

- against the numpy golden model (`fpforge.golden.dot.dot`) on every scalar operand format the prover covers,
  every select and a set of biases: every code of A's element 0 against corner codes, plus random patterns;
  small windows (f = 8: truncation), f = 32 and wide windows, raw outputs, mixed operand formats; E2M1 at
  r = 2 on every pattern; one-block BDR units (every pattern of the smallest, random patterns of others);
- a divergence of the two oracles fails a chunk, naming the pattern;
- the numpy-only path (`--golden numpy`) still proves and still catches a mutant.
"""

from __future__ import annotations

import numpy as np
import pytest

from fpforge.cli import main
from fpforge.golden.dot import DotConfig
from fpforge.golden.dot.config import operand_format
from fpforge.golden.errors import FpforgeValueError, ToolError
from fpforge.sim.dot_golden import covers, cpp_dot_golden
from fpforge.sim.prove_dot import DotCondition, DotProofUnit, _oracles_agree, dot_golden, golden_of, prove_dot

SCALAR = ("e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz", "hif8", "hif8_literal", "hif8_ascend", "e3m2", "e2m3", "e2m1",
          "cfloat8_143", "cfloat8_152", "cfloat8_143_ieee", "cfloat8_152_ieee", "binary8p1se", "binary8p3sf",
          "binary8p4se", "binary8p7sf", "fp8")
BIASES = (0, 7, 31, 63)


def _cfg(fmt, r=2, f=32, fmt_b=None, raw=False):
    return {"format": fmt, "format_b": fmt_b or fmt, "r": r, "f": f, "raw": raw}


def _conditions(fmt, fmt_b=None):
    sides = []
    for name in (fmt, fmt_b or fmt):
        side = operand_format(name)
        sels = tuple(range(len(side.formats))) if side.select_bits else (None,)
        biases = BIASES if side.bias_bits else (None,)
        sides.append((sels, biases))
    (sa, ba), (sb, bb) = sides
    return [DotCondition(s, t, x, y) for s in sa for t in sb for x in ba for y in bb]


def _patterns(cfg, rng, n_random=2048):
    """Every code of A's element 0 against each corner code of B's element 0 (corner codes in the other
    elements), and random patterns (r = 2)."""
    dc = DotConfig(cfg["format"], cfg["r"], cfg["f"], cfg["format_b"])
    ba, bb = (operand_format(f).bits for f in (dc.a, dc.b))
    corners = lambda bits: np.array(sorted({0, 1, 2, 1 << (bits - 1), (1 << (bits - 1)) | 1, (1 << (bits - 1)) - 1,
                                             (1 << (bits - 1)) - 2, (1 << bits) - 1, (1 << bits) - 2}), np.uint64)
    a0, b0 = (g.ravel() for g in np.meshgrid(np.arange(1 << ba, dtype=np.uint64), corners(bb), indexing="ij"))
    a1, b1 = rng.choice(corners(ba), len(a0)), rng.choice(corners(bb), len(a0))
    a_bits = 2 * ba
    every = a0 | a1 << np.uint64(ba) | b0 << np.uint64(a_bits) | b1 << np.uint64(a_bits + bb)
    rand = rng.integers(0, 1 << (2 * (ba + bb)), n_random, dtype=np.uint64)
    return np.concatenate([every, rand]), a_bits


def _agree(cfg, cond, patterns, a_bits):
    ref = dot_golden(cfg, patterns, a_bits, cond)
    got = cpp_dot_golden(cfg, 0, 0, a_bits, cond, patterns=patterns)
    for name, values in ref.items():
        bad = np.flatnonzero(values != got[name])
        assert not len(bad), (cfg, cond, name, [(hex(int(patterns[i])), hex(int(values[i])), hex(int(got[name][i])))
                                                for i in bad[:3]])


@pytest.mark.parametrize("fmt", SCALAR)
def test_cpp_golden_agrees_with_numpy_on_every_format(fmt):
    rng = np.random.default_rng(29)
    for f in (8, 32, 90):
        cfg = _cfg(fmt, f=f)
        assert covers(cfg)
        patterns, a_bits = _patterns(cfg, rng)
        for cond in _conditions(fmt):
            _agree(cfg, cond, patterns, a_bits)


@pytest.mark.parametrize("fmt, fmt_b", [("e4m3", "e5m2"), ("e2m1", "e3m2"), ("hif8", "cfloat8_143"), ("fp8", "e4m3")])
def test_cpp_golden_agrees_with_numpy_on_mixed_operands_and_raw_outputs(fmt, fmt_b):
    rng = np.random.default_rng(30)
    for f in (8, 16):  # raw: y, sum and exp fit the prover's 64 bits
        cfg = _cfg(fmt, f=f, fmt_b=fmt_b, raw=True)
        patterns, a_bits = _patterns(cfg, rng, 512)
        for cond in _conditions(fmt, fmt_b):
            _agree(cfg, cond, patterns, a_bits)


def test_cpp_golden_agrees_on_every_e2m1_pattern_at_r2_and_a_range_at_r4():
    cfg = _cfg("e2m1", r=2, f=16, raw=True)
    every = np.arange(1 << 16, dtype=np.uint64)
    _agree(cfg, DotCondition(), every, 8)
    cfg4 = _cfg("e2m1", r=4, f=32)
    start = 0x7F000000
    ref = dot_golden(cfg4, np.arange(start, start + (1 << 16), dtype=np.uint64), 16, DotCondition())
    assert np.array_equal(ref["y"], cpp_dot_golden(cfg4, start, 1 << 16, 16, DotCondition())["y"])


def test_cpp_golden_agrees_on_one_block_bdr_units():
    """BDR operands of one block (r = k1): every pattern of the 2^20-pattern unit, random patterns of larger
    ones (the 2^36 unit of the dot record among them), at the narrowest window the C++ golden takes and at f = 32."""
    _agree(_cfg("bdr_m2_k2_d4_k2_d0", r=2, f=32), DotCondition(), np.arange(1 << 20, dtype=np.uint64), 10)
    rng = np.random.default_rng(31)
    for fmt, r in (("bdr_m2_k4_d4_k2_d1", 4), ("bdr_m3_k2_d3_k1_d1", 2), ("bdr_m1_k4_d3_k2_d1", 4),
                   ("bdr_m4_k2_d2_k2_d0", 2)):
        dc, side = DotConfig(fmt, r, 32), operand_format(fmt)
        for f in sorted({dc.W + 1 + 2 * (side.m - 1 + side.beta), 32}):  # the narrowest window covers() takes
            cfg = _cfg(fmt, r=r, f=f)
            assert covers(cfg), (fmt, f)
            bits = sum(DotConfig(fmt, r, f).operand_bits)
            _agree(cfg, DotCondition(), rng.integers(0, 1 << bits, 50_000, dtype=np.uint64), bits // 2)


def test_the_golden_side_is_chosen_and_checked():
    assert golden_of(_cfg("e4m3")) == "cpp"
    assert golden_of(_cfg("bdr_m2_k2_d4_k2_d0", f=16)) == "cpp"  # one BDR block at an exact window
    assert golden_of(_cfg("bdr_m2_k2_d4_k2_d0", r=4, f=16)) == "numpy"  # two blocks: aligned, numpy only
    assert golden_of(_cfg("mx4", r=16, f=16)) == "numpy"  # a 2^52-pattern word: no decode table
    assert golden_of(_cfg("e4m3"), "numpy") == "numpy"
    with pytest.raises(FpforgeValueError, match="the C.. golden computes scalar operand formats"):
        golden_of(_cfg("bdr_m2_k2_d4_k2_d0", r=4, f=16), "cpp")
    with pytest.raises(FpforgeValueError, match="one of cpp, numpy"):
        golden_of(_cfg("e4m3"), "fortran")


def test_a_divergence_of_the_oracles_fails_naming_the_pattern():
    cfg, cond = _cfg("e4m3"), DotCondition()
    patterns = np.array([0x38383838, 0x3C3C3C3C], np.uint64)
    fields = [("y", 0, 32)]
    right = cpp_dot_golden(cfg, 0, 0, 16, cond, patterns=patterns)["y"]
    _oracles_agree(cfg, 16, cond, patterns, right, fields)
    wrong = right.copy()
    wrong[1] ^= np.uint64(1)
    with pytest.raises(ToolError, match="disagree on 1 of 2 sampled patterns, first 0x3c3c3c3c"):
        _oracles_agree(cfg, 16, cond, patterns, wrong, fields)


@pytest.mark.sim
def test_numpy_path_proves_and_catches_a_mutant(tmp_path, capsys):
    from test_prove_dot import FP4, MUTANT_PATTERN, _mutant

    unit = DotProofUnit.generated(FP4)
    (res,) = prove_dot(unit, jobs=1, store=False, progress=False, golden="numpy")
    assert res.passed and res.vectors == 1 << 16
    mutant = DotProofUnit.from_file(FP4, _mutant(tmp_path / "m.v", unit.top))
    for golden in ("numpy", "cpp"):
        (res,) = prove_dot(mutant, jobs=1, store=False, progress=False, golden=golden)
        assert res.mismatches == 1 and res.first[0]["pattern"] == MUTANT_PATTERN
    rc = main(["prove", "dot", "--preset", "e2m1", "--r", "2", "--f", "16", "--jobs", "1", "--golden", "numpy"])
    out = capsys.readouterr().out
    assert rc == 0 and "golden: the numpy golden model" in out and "PROVED: 65,536 vectors" in out
