"""QSNR (golden/qsnr.py): Theorem 1's lower bound holds for every BDR point and distribution hypothesis
tries (nearest roundings against the bound, rtz/sr against the bound less 6.02 dB), the metric itself
against a direct Fraction computation, and the paper's comparisons on the variable-variance Gaussian."""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fpforge.golden import bdr, quantize
from fpforge.golden.qsnr import gaussian_vectors, qsnr, qsnr_bound, qsnr_table, quantize_scaled

__all__: list[str] = []


@st.composite
def bdr_points(draw):
    k1 = draw(st.sampled_from([1, 2, 4, 8, 16, 32]))
    k2 = draw(st.sampled_from([k for k in (1, 2, 4, 8, 16, 32) if k1 % k == 0]))
    return bdr(draw(st.integers(1, 9)), k1, 8, k2, draw(st.integers(0, 3)))


def _vectors(kind, seed, n, k1, scale_exp):
    """Distributions to try, ``(8, n)`` float32 inside FP32's normal range (so E is never clamped)."""
    rng = np.random.default_rng(seed)
    shape = (8, n)
    if kind == "gauss":
        x = rng.standard_normal(shape) * 2.0 ** rng.uniform(-20, 20, (8, 1))
    elif kind == "uniform":
        x = rng.uniform(-1, 1, shape)
    elif kind == "laplace":
        x = rng.laplace(size=shape)
    elif kind == "lognormal-spread":  # magnitudes spread over 2^±12 inside each block
        x = rng.choice([-1, 1], shape) * 2.0 ** rng.uniform(-12, 12, shape)
    elif kind == "near-saturation":  # just below the next power of two: rounds past 2^m - 1
        x = rng.choice([-1, 1], shape) * (2.0 - 2.0 ** -rng.integers(1, 24, shape)) * 2.0 ** rng.integers(-3, 1, shape)
    elif kind == "outlier":
        x = rng.standard_normal(shape)
        x[:, :: max(k1, 1)] *= 2.0**20
    else:  # sparse
        x = rng.standard_normal(shape) * (rng.random(shape) < 0.2)
        x[:, 0] = 1.0
    return (x * 2.0**scale_exp).astype(np.float32)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fmt=bdr_points(), kind=st.sampled_from(["gauss", "uniform", "laplace", "lognormal-spread",
                                               "near-saturation", "outlier", "sparse"]),
       seed=st.integers(0, 2**32 - 1), blocks=st.integers(1, 4), scale_exp=st.integers(-60, 60),
       rounding=st.sampled_from(["ta", "rne", "rtz", "sr"]))
def test_measured_qsnr_is_at_least_the_theorem_1_bound(fmt, kind, seed, blocks, scale_exp, rounding):
    x = _vectors(kind, seed, blocks * fmt.k1, fmt.k1, scale_exp)
    q = qsnr(fmt, x, rounding=rounding, seed=seed)
    bound = qsnr_bound(fmt, rounding)
    assert np.all(q >= bound - 1e-9), (fmt.name, kind, rounding, float(q.min()), bound)


def test_bound_formula_values():
    # m = 7, k1 = 16, k2 = 2, beta = 1: 20*7*log10(2) - 10*log10(2 + 14/4)
    assert qsnr_bound("mx9") == pytest.approx(140 * math.log10(2) - 10 * math.log10(5.5))
    assert qsnr_bound("msfp16") == pytest.approx(140 * math.log10(2) - 10 * math.log10(16))
    assert qsnr_bound("mx9", "sr") == pytest.approx(qsnr_bound("mx9") - 20 * math.log10(2))
    with pytest.raises(ValueError, match="BDR formats"):
        qsnr_bound("mxfp8_e4m3")


def test_qsnr_matches_a_direct_fraction_computation():
    x = gaussian_vectors(3, 32, seed=4)
    for name in ("mx6", "mxfp4_e2m1"):
        q = quantize(name, x)
        for v in range(3):
            noise = sum((Fraction(float(a)) - Fraction(float(b))) ** 2 for a, b in zip(x[v], q[v]))
            signal = sum(Fraction(float(a)) ** 2 for a in x[v])
            assert qsnr(name, x[v]) == pytest.approx(-10 * math.log10(noise / signal), abs=1e-9)
    exact = np.array([1.0, 0.5, -0.25, 0.0] * 4, np.float32)
    assert qsnr("mx9", exact) == np.inf


def test_scalar_formats_use_per_vector_amax_scaling():
    x = gaussian_vectors(50, 64, seed=1)
    # Per-vector scaling makes the QSNR independent of the vector's variance: a power-of-two factor scales
    # the FP32 scale by its inverse exactly, so every quantized value and the QSNR are bit-identical.
    a = qsnr("e4m3", x)
    b = qsnr("e4m3", (x * np.float32(2.0**-30)))
    assert np.array_equal(a, b)
    # The FP8 RFC's scaling, computed independently: s = 448 / amax in FP32, x * s in FP32, cast by
    # ml_dtypes (round to nearest even), divided by s.
    s = np.float32(448.0) / np.abs(x).max(axis=-1, keepdims=True)
    ref = (x * s).astype(ml_dtypes.float8_e4m3fn).astype(np.float64) / s.astype(np.float64)
    assert np.array_equal(quantize_scaled("e4m3", x), ref)
    scaled = (x * s).astype(ml_dtypes.float8_e4m3fn).astype(np.float32)
    assert (np.abs(scaled).max(axis=-1) == 448.0).all()  # amax lands on the format's max


def test_gaussian_vectors_variance_law():
    x = gaussian_vectors(4000, 256, seed=3)
    log_sigma = np.log2(x.astype(np.float64).std(axis=-1))
    assert -8.3 < log_sigma.min() < -7.5 and 7.5 < log_sigma.max() < 8.3
    assert abs(np.mean(log_sigma)) < 0.3


def test_paper_comparisons_hold_on_the_variable_variance_gaussian():
    rows = {r["name"]: r for r in qsnr_table(("mx9", "mx6", "msfp16", "e4m3", "e5m2"), n_vectors=1000)}
    assert rows["mx9"]["mean"] - rows["msfp16"]["mean"] == pytest.approx(3.6, abs=0.25)
    assert rows["e5m2"]["mean"] < rows["mx6"]["mean"] < rows["e4m3"]["mean"]
    assert all(rows[n]["mean"] > rows[n]["bound"] for n in ("mx9", "mx6", "msfp16"))
    # "MX9 is ~16 dB above E4M3": the gap depends on the FP8 baseline's scaling, which the paper leaves open
    # (README). With an exact amax scale per vector (the best case for FP8) the gap is below 16 dB; with one
    # amax scale for all the vectors (a per-tensor scale over vectors of different variance) it is above.
    x = gaussian_vectors(1000, 256, seed=0)
    shared = quantize_scaled("e4m3", x.reshape(1, -1)).reshape(x.shape)
    x64 = x.astype(np.float64)
    e4m3_shared = np.mean(-10 * np.log10(((x64 - shared) ** 2).sum(-1) / (x64**2).sum(-1)))
    assert rows["mx9"]["mean"] - rows["e4m3"]["mean"] < 16 < rows["mx9"]["mean"] - e4m3_shared
