"""HiF8 golden model against an independent reference written here from the paper (seed 000, Tables 1–4).

The reference never touches ``fpforge.golden.tapered``: it builds HiF8's values from Table 3 with
``fractions.Fraction``, then rounds to the nearest of them by search (ties away for TA, to the even
significand for RNE), with the Inf code standing where 1.5 × 2^15 would be (SPEC-NOTES §3).
"""

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from fpforge.golden import decode, encode, encode_with_flags

# -- the reference ------------------------------------------------------------------------------------
DOTS = {"11": 4, "10": 3, "01": 2, "001": 1, "0001": 0}  # Table 2


def _table3():
    """{code: Fraction} of the positive finite codes, and the mantissa LSB parity 'even' of each."""
    vals, even = {}, {}
    for code in range(0x80):
        b = format(code, "07b")
        if b.startswith("0000"):  # DML: 2^(M-23), M = 1..7; M = 0 is zero
            m = int(b[4:], 2)
            vals[code] = Fraction(0) if m == 0 else Fraction(2) ** (m - 23)
            even[code] = m == 0  # significand integer 1 (odd) for every denormal
            continue
        dot = next(p for p in DOTS if b.startswith(p))
        d = DOTS[dot]
        rest = b[len(dot):]
        em, man = rest[:d], rest[d:]
        if d == 0:
            e = 0
        else:
            mag = int("1" + em[1:], 2)  # hidden magnitude MSB
            e = -mag if em[0] == "1" else mag
        vals[code] = Fraction(2) ** e * (1 + Fraction(int(man, 2), 2 ** len(man)))
        even[code] = man[-1] == "0"
    return vals, even


VALS, EVEN = _table3()
INF = 0x6F
assert VALS[INF] == Fraction(3, 2) * 2**15  # the Inf code's place
FINITE = sorted((v, c) for c, v in VALS.items() if c != INF)
GRID = np.array([float(v) for v, _ in FINITE] + [1.5 * 2**15])  # every rounding target, Inf slot last
GRID_CODE = np.array([c for _, c in FINITE] + [INF])
GRID_EVEN = np.array([EVEN[c] for _, c in FINITE] + [False])
MAX, MIN_NORMAL = 2.0**15, 2.0**-15


def reference(x, rounding, saturate=False):
    """(codes, flags) of HiF8 encoding by nearest-value search over the Table 3 values."""
    v = np.asarray(x).astype(np.float64).ravel()
    bits = np.asarray(x).ravel().view(np.uint32 if x.dtype == np.float32 else np.uint16).astype(np.int64)
    nbits = 32 if x.dtype == np.float32 else 16
    ebits = {np.dtype(np.float32): 8, np.dtype(np.float16): 5}.get(x.dtype, 8)
    mbits = nbits - 1 - ebits
    subnormal = ((bits >> mbits) & ((1 << ebits) - 1) == 0) & ((bits & ((1 << mbits) - 1)) != 0)
    nan, inf = np.isnan(v), np.isinf(v)
    a = np.where(nan | inf, 0.0, np.abs(v))
    beyond = a > GRID[-1]
    hi = np.minimum(np.searchsorted(GRID, a, side="left"), len(GRID) - 1)
    lo = np.where(GRID[hi] == a, hi, np.maximum(hi - 1, 0))
    mid = (GRID[lo] + GRID[hi]) / 2
    if rounding == "ta":
        pick = np.where(a >= mid, hi, lo)
    elif rounding == "rne":
        pick = np.where(a > mid, hi, np.where(a < mid, lo, np.where(GRID_EVEN[lo], lo, hi)))
    else:  # rtz
        pick = lo
    exact = GRID[pick] == a
    overflow = (GRID_CODE[pick] == INF) | beyond
    code = GRID_CODE[pick].copy()
    code[overflow] = 0x6E if saturate or rounding == "rtz" else INF
    neg = np.signbit(v) & (code != 0)
    code = np.where(neg, code | 0x80, code)
    code = np.where(inf, np.where(np.signbit(v), 0x80, 0) | (0x6E if saturate else INF), code)
    code = np.where(nan, 0x80, code)
    inexact = ~(nan | inf) & (~exact | overflow)
    flags = (nan * 1 | subnormal * 2 | overflow * 4
             | (inexact & ~overflow & (GRID[pick] < MIN_NORMAL)) * 8 | (inexact | inf & saturate) * 16)
    return code.astype(np.uint8), flags.astype(np.uint8)


def _all16(dtype):
    return np.arange(1 << 16, dtype=np.uint16).view(dtype)


def _fp32_sample(n=200_000, seed=5):
    rng = np.random.default_rng(seed)
    uniform = rng.integers(0, 1 << 32, n // 2, dtype=np.uint64).astype(np.uint32)
    near = ((rng.integers(0, 2, n // 2) << 31) | (rng.integers(127 - 26, 127 + 18, n // 2) << 23)
            | rng.integers(0, 1 << 23, n // 2)).astype(np.uint32)
    pos = np.concatenate([GRID, (GRID[:-1] + GRID[1:]) / 2, [2.0**-23, 1.25 * 2**15, 2.0**4, 2.0**3]])
    pos = pos.astype(np.float32)
    directed = np.concatenate([pos, np.nextafter(pos, np.float32(np.inf)), np.nextafter(pos, np.float32(0))])
    return np.concatenate([uniform.view(np.float32), near.view(np.float32), directed, -directed])


SOURCES = {"fp16": lambda: _all16(np.float16), "bf16": lambda: _all16(ml_dtypes.bfloat16), "fp32": _fp32_sample}


@pytest.mark.parametrize("saturate", [False, True])
@pytest.mark.parametrize("rounding", ["ta", "rne", "rtz"])
@pytest.mark.parametrize("source", list(SOURCES))
def test_golden_equals_reference(source, rounding, saturate):
    x = SOURCES[source]()
    want_c, want_f = reference(x, rounding, saturate)
    got_c, got_f = encode_with_flags("hif8", x, rounding=rounding, saturate=saturate)
    bad = np.flatnonzero((got_c != want_c) | (got_f != want_f))
    assert bad.size == 0, [(float(x[i]), hex(got_c[i]), hex(want_c[i]), got_f[i], want_f[i]) for i in bad[:5]]


def test_decode_matches_table3():
    got = decode("hif8", np.arange(256)).astype(np.float64)
    for c, v in VALS.items():
        if c == INF:
            assert got[c] == np.inf and got[c | 0x80] == -np.inf
        elif c == 0:
            assert got[0] == 0 and np.isnan(got[0x80])
        else:
            assert got[c] == float(v) and got[c | 0x80] == -float(v)


def test_table4_examples():
    x = np.float32([2.0**15, 2.0**-15, 2.0**-16, 2.0**-22, np.inf, -np.inf, np.nan, 0.0])
    assert list(encode("hif8", x)) == [0x6E, 0x7E, 0x07, 0x01, 0x6F, 0xEF, 0x80, 0x00]


def test_papers_ta_versus_te_example():
    """§3.1: 00.1, 01.1, 10.1 (in units of the last kept bit): TE gives two results, TA three."""
    ulp = 2.0**-3  # three mantissa bits at E = 0
    x = np.float32([1 + 0.5 * ulp, 1 + 1.5 * ulp, 1 + 2.5 * ulp])
    assert len(set(encode("hif8", x, rounding="rne"))) == 2
    assert len(set(encode("hif8", x, rounding="ta"))) == 3


@pytest.mark.parametrize("source", ["fp32", "fp16", "bf16"])
@pytest.mark.parametrize("rounding", ["ta", "hr", "sr", "rne", "rtz"])
def test_encode_decode_is_identity_on_finite_codes(source, rounding):
    codes = np.array([c for c in range(256) if c not in (0x80, 0x6F, 0xEF)])
    dtype = {"fp32": np.float32, "fp16": np.float16, "bf16": ml_dtypes.bfloat16}[source]
    x = decode("hif8", codes).astype(dtype)
    got, flags = encode_with_flags("hif8", x, rounding=rounding, seed=3)
    assert np.array_equal(got, codes)
    assert not (flags & 0xFD).any()  # exact: only "denormal" (HiF8's smallest values are FP16 subnormals)


def _neighbours(x):
    a = np.abs(x.astype(np.float64))
    hi = np.searchsorted(GRID, a, side="left")
    lo = np.where(GRID[np.minimum(hi, len(GRID) - 1)] == a, hi, hi - 1)
    return GRID[np.maximum(lo, 0)], GRID[np.minimum(hi, len(GRID) - 1)]


@pytest.mark.parametrize("source", ["fp32", "fp16", "bf16"])
def test_hr_gives_a_neighbour_and_ta_below_e4(source):
    x = SOURCES[source]()
    x = x[np.isfinite(x.astype(np.float64)) & (np.abs(x.astype(np.float64)) < 1.2 * 2**15)]
    got = np.abs(decode("hif8", encode("hif8", x, rounding="hr")).astype(np.float64))
    got[np.isinf(got)] = GRID[-1]  # rounding up into the Inf code's place (1.5 × 2^15)
    lo, hi = _neighbours(x)
    assert np.all((got == lo) | (got == hi))
    e = np.floor(np.log2(np.abs(x.astype(np.float64)), where=x != 0, out=np.full(x.shape, -99.0)))
    small = (np.abs(e) < 4) & (x != 0)
    assert np.array_equal(encode("hif8", x[small], rounding="hr"), encode("hif8", x[small], rounding="ta"))


def test_hr_sr2_thresholds_follow_the_source_lsb():
    """SR2 (FP16): round up iff the top two discarded bits F2 >= (LSB, 1)."""
    x = _all16(np.float16)
    v = x.astype(np.float64)
    ok = np.isfinite(v) & (np.abs(v) >= 16) & (np.abs(v) < 2**15)  # |E| >= 4, no overflow
    x, v = x[ok], np.abs(v[ok])
    lo, hi = _neighbours(x)
    f2 = np.floor((v - lo) / (hi - lo) * 4).astype(int)
    t2 = 2 * (x.view(np.uint16) & 1) + 1
    want = np.where((hi > lo) & (f2 >= t2), hi, lo)
    got = np.abs(decode("hif8", encode("hif8", x, rounding="hr")).astype(np.float64))
    assert np.array_equal(got, want)


def test_paper_literal_moves_exact_values_with_zero_low_bits_only():
    x = np.concatenate([decode("hif8", np.arange(1, 0x6F)), _fp32_sample(20_000)]).astype(np.float32)
    x = x[np.isfinite(x)]
    default = encode("hif8", x, rounding="hr")
    literal = encode("hif8", x, rounding="hr", paper_literal=True)
    a = np.abs(x.astype(np.float64))
    e = np.floor(np.log2(a, where=a > 0, out=np.zeros(a.shape)))
    exact = encode("hif8", x, rounding="rtz") == encode("hif8", x, rounding="ta")
    exact &= decode("hif8", default).astype(np.float64) == x
    expected = exact & (a > 0) & (np.abs(e) >= 4) & ((x.view(np.uint32) & 0x3FFF) == 0)
    assert np.array_equal(default != literal, expected)
    assert expected.sum() > 50


def test_sr_mean_approaches_the_input():
    x = np.full(200_000, 1.0 + 2**-6, np.float32)  # between 1 and 1.125: 1/8 of the way up
    got = decode("hif8", encode("hif8", x, rounding="sr", seed=17)).astype(np.float64)
    assert abs(got.mean() - float(x[0])) < 2e-4


@pytest.mark.parametrize("kwargs, match", [
    (dict(rounding="rtn"), "has no rounding 'rtn'; valid choices: ta, hr, sr, rne, rtz"),
    (dict(rounding="ta", paper_literal=True), "paper_literal applies to HiF8 hybrid rounding"),
])
def test_bad_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        encode("hif8", np.float32([1.0]), **kwargs)


def test_documented_paper_literal_example():
    """docs/hif8.md: 24.0 = 1.5 × 2^4 (low 14 bits zero) stays 0x42 by default, becomes 28.0 literally."""
    x = np.float32([24.0])
    assert encode("hif8", x, rounding="hr")[0] == 0x42
    assert encode("hif8", x, rounding="hr", paper_literal=True)[0] == 0x43
    assert decode("hif8", np.array([0x43]))[0] == 28.0
