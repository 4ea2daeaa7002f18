"""QSNR of every format `fpforge formats` lists: a right row or a clear refusal, never a wrong table.

The bug this guards against: ``fpforge qsnr --formats bf16`` printed a mean of 35-39 dB and a minimum of
-0.00 dB because the per-vector scale ``max_value / amax`` overflowed float32 for BF16's max. The scaling is
recomputed here independently — the scale from exact fractions rounded to FP32's 24-bit significand, ``x * s``
rounded once to FP32 through float64 (the product of two 24-bit significands is exact there), the cast by
ml_dtypes where it has the format — and compared bit for bit.
"""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from fpforge.cli import main
from fpforge.golden import get_format, list_formats
from fpforge.golden.minifloat import _TABLES, MAX_TABLE_BITS
from fpforge.golden.qsnr import gaussian_vectors, qsnr, qsnr_table, quantize_scaled

ML_DTYPES = {"fp32": np.float32, "fp16": np.float16, "bf16": ml_dtypes.bfloat16, "e4m3": ml_dtypes.float8_e4m3fn,
             "e5m2": ml_dtypes.float8_e5m2, "e4m3fnuz": ml_dtypes.float8_e4m3fnuz,
             "e5m2fnuz": ml_dtypes.float8_e5m2fnuz, "e3m2": ml_dtypes.float6_e3m2fn, "e2m3": ml_dtypes.float6_e2m3fn,
             "e2m1": ml_dtypes.float4_e2m1fn}


def _scale24(max_value: float, amax: float) -> float:
    """max_value / amax rounded to nearest even at 24 significant bits, exponent unbounded (exact fractions)."""
    s = Fraction(max_value) / Fraction(amax)
    e = math.floor(math.log2(s))
    if Fraction(2) ** e > s:
        e -= 1
    unit = Fraction(2) ** (e - 23)
    q, r = divmod(s, unit)
    q = int(q) + (1 if r > unit / 2 or (r == unit / 2 and int(q) % 2) else 0)
    return float(q * unit)


def _reference(name, x):
    """Per-vector amax scaling into ``name`` computed without fpforge's code: (n, length) float64."""
    fmt = get_format(name)
    out = np.empty(x.shape)
    for v in range(x.shape[0]):
        amax = float(np.abs(x[v].astype(np.float64)).max())
        s = _scale24(fmt.max_value, amax)
        with np.errstate(over="ignore"):
            scaled = (x[v].astype(np.float64) * s).astype(np.float32)  # exact product, rounded once
        # saturating cast: an FP32 product beyond FLT_MAX (only when max_value is FP32's own) gives ±max
        scaled = np.where(np.isinf(scaled), np.copysign(np.float32(fmt.max_value), scaled), scaled)
        out[v] = scaled.astype(ML_DTYPES[name]).astype(np.float64) / s
    return out


@pytest.mark.parametrize("name", sorted(ML_DTYPES))
@pytest.mark.parametrize("log2_sigma", [(-8.0, 8.0), (-120.0, -100.0)], ids=["paper", "tiny-vectors"])
def test_amax_scaling_matches_an_independent_computation(name, log2_sigma):
    """Tiny vectors: the FP32 scale 448 / 2^-110 overflows FP32 itself; the scale keeps its exponent."""
    x = gaussian_vectors(40, 32, seed=5, log2_sigma=log2_sigma)
    got = quantize_scaled(name, x)
    want = _reference(name, x)
    assert np.array_equal(got, want), name


def test_source_format_rows_are_right():
    """BF16 keeps 8 significant bits: about 6 dB per bit; the old overflowing scale gave 35-39 dB, min -0 dB."""
    rows = {r["name"]: r for r in qsnr_table(("bf16", "fp16", "fp32"), n_vectors=200, length=256)}
    x = gaussian_vectors(200, 256, seed=0)
    for name in ("bf16", "fp16"):
        ref = _reference(name, x)
        x64 = x.astype(np.float64)
        want = -10 * np.log10(((x64 - ref) ** 2).sum(-1) / (x64**2).sum(-1))
        assert rows[name]["mean"] == pytest.approx(float(want.mean()), abs=1e-9)
        assert rows[name]["min"] == pytest.approx(float(want.min()), abs=1e-9)
    assert 50 < rows["bf16"]["min"] < rows["bf16"]["mean"] < 57  # 8 bits: 6.02 * 8 + ~4.8 dB for rounding
    assert 68 < rows["fp16"]["min"]
    assert rows["fp32"]["min"] > 140  # only the rounding of x * s to FP32


@pytest.mark.parametrize("name", [n for n in list_formats()])
def test_every_listed_format_has_a_qsnr_row_or_a_clear_refusal(name):
    """Every name `fpforge formats` lists (formats added later too) gives a finite, positive row — or, for an
    unsigned format (UHP), which cannot hold the negative half of a Gaussian, a one-line refusal."""
    fmt = get_format(name)
    x = gaussian_vectors(8, 64, seed=1)
    if not getattr(fmt, "signed", True):
        with pytest.raises(ValueError, match="unsigned"):
            qsnr(fmt, x)
        assert np.isfinite(qsnr(fmt, np.abs(x))).all()  # non-negative vectors it can measure
        return
    q = qsnr(fmt, x)
    assert np.isfinite(q).all() and (q > 0).all(), (name, q)


def test_wide_formats_never_build_a_huge_table():
    before = dict(_TABLES)
    qsnr("fp32", gaussian_vectors(4, 64, seed=2))
    new = [k for k in _TABLES if k not in before]
    assert all(k.bits <= MAX_TABLE_BITS for k in new), [k.name for k in new]


def test_qsnr_command_of_a_source_format(tmp_path, capsys):
    out = tmp_path / "q.txt"
    assert main(["qsnr", "--formats", "bf16,fp32,cfloat8_143", "--vectors", "100", "-o", str(out)]) == 0
    rows = {l.split()[0]: l.split() for l in out.read_text().splitlines() if not l.startswith(("#", "format"))}
    assert set(rows) == {"bf16", "fp32", "cfloat8_143"}
    assert float(rows["bf16"][6]) > 50  # the minimum column
    assert main(["qsnr", "--formats", "e4m3", "--rounding", "foo"]) == 2
    assert "unknown rounding 'foo'" in capsys.readouterr().err
