"""Tesla CFloat8 / SHP / UHP golden model against an independent reference written here from the guide.

No library implements CFloat, so the reference never touches ``fpforge.golden``'s encoder: it lists every
value a code has straight from the guide's definitions (seed 001: normal ``(-1)^s × 2^(e-bias) × 1.m``,
denormal ``(-1)^s × 2^(-bias) × 0.m``, or IEEE's ``2^(1-bias) × 0.m`` with ``ieee_denormals``; UHP with
Inf, canonical NaN and flush to zero: denormal results, rounded as if denormals existed, become 0), then
rounds each operand to the nearest of those values by search:
ties to the even code for ``rne`` (which sends a tie in the denormal gap to the smallest normal, whose
code is even), away from zero for ``ta``, toward zero for ``rtz``. Beyond the largest value a virtual
point ``max + ulp`` stands for overflow. Flags follow SPEC-NOTES §1 and ``docs/cfloat.md``.

``sr`` is checked against its definition instead: with R random bits, the result is one of the two
neighbours, and over all ``2^R`` draws it rounds up exactly ``floor(d × 2^R)`` times, where
``d = (v - lo) / (hi - lo)`` is computed with ``fractions.Fraction``.

Where a CFloat configuration coincides with a known format, ml_dtypes / numpy are a second oracle:
``cfloat8_152`` at bias 15 with IEEE denormals is ``float8_e5m2`` below e5m2's overflow threshold;
``cfloat8_143`` at bias 7 with IEEE denormals is ``float8_e4m3fn`` up to 464 (above, e4m3fn has its NaN
where CFloat has 480); ``shp`` at bias 15 with IEEE denormals is IEEE ``float16`` below 65520.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from fpforge.golden import decode, decode_bits, encode, encode_with_flags, minifloat

# -- the reference ----------------------------------------------------------------------------------
#: (sign bits, exponent bits, mantissa bits, fixed bias or None) from the guide's Tables 3 and 6.
LAYOUT = {"cfloat8_143": (1, 4, 3, None), "cfloat8_152": (1, 5, 2, None), "shp": (1, 5, 10, None),
          "uhp": (0, 6, 10, 31)}
INVALID, DENORMAL, OVERFLOW, UNDERFLOW, INEXACT = 1, 2, 4, 8, 16
_GRIDS: dict = {}


def grid(fmt, bias, ieee):
    """Sorted non-negative values of ``fmt`` at ``bias`` and their magnitude codes, with a virtual
    overflow point ``max + ulp`` appended (code ``max_code + 1``), and the smallest normal."""
    key = (fmt, bias, ieee)
    if key not in _GRIDS:
        s, E, M, _ = LAYOUT[fmt]
        top = (1 << E) - 1 if fmt != "uhp" else (1 << E) - 2  # UHP: all-ones exponent is Inf/NaN
        codes = np.arange((top + 1) << M, dtype=np.int64)
        e, m = codes >> M, codes & ((1 << M) - 1)
        scale = 1 - bias if ieee or fmt == "uhp" else -bias  # denormal: 2^scale × 0.m
        # Integer significands times powers of two: exact in float64 (at most 11 significant bits).
        vals = np.where(e == 0, np.ldexp(m.astype(np.float64), scale - M),
                        np.ldexp((m + (1 << M)).astype(np.float64), e - bias - M))
        vals = np.append(vals, vals[-1] + 2.0 ** (top - bias - M))  # the virtual overflow point
        codes = np.append(codes, codes[-1] + 1)
        order = np.argsort(vals, kind="stable")
        assert np.all(np.diff(vals[order]) > 0)  # distinct values: the code of a value is unique
        # Spot-check the construction against Fractions from the guide's formula.
        for c in codes[:: max(1, len(codes) // 64)][:-1]:
            ee, mm = int(c) >> M, int(c) & ((1 << M) - 1)
            f = (Fraction(mm, 1 << M) * Fraction(2) ** scale if ee == 0
                 else (1 + Fraction(mm, 1 << M)) * Fraction(2) ** (ee - bias))
            assert Fraction(float(vals[c])) == f
        _GRIDS[key] = (vals[order], codes[order], float(Fraction(2) ** (1 - bias)))
    return _GRIDS[key]


def source_bits(x):
    """(bits, sign, subnormal) of a float32 / float16 / bfloat16 array."""
    if x.dtype == np.float32:
        bits, eb, mb = x.view(np.uint32).astype(np.int64), 8, 23
    elif x.dtype == np.float16:
        bits, eb, mb = x.view(np.uint16).astype(np.int64), 5, 10
    else:
        bits, eb, mb = x.view(np.uint16).astype(np.int64), 8, 7
    sign = bits >> (eb + mb)
    sub = (((bits >> mb) & ((1 << eb) - 1)) == 0) & ((bits & ((1 << mb) - 1)) != 0)
    return bits, sign, sub


def reference(fmt, x, rounding, bias, ieee=False, saturate=False, nan_to_zero=False):
    """(codes, flags) of encoding ``x`` (1-D) into ``fmt`` at ``bias`` (a scalar) by nearest-value search."""
    s, E, M, fixed = LAYOUT[fmt]
    bias = fixed if fixed is not None else bias
    g, gc, min_normal = grid(fmt, bias, ieee)
    _, sign, sub = source_bits(x)
    with np.errstate(invalid="ignore"):
        v = x.astype(np.float64)
    nan, inf = np.isnan(v), np.isinf(v)
    a = np.where(nan | inf, 0.0, np.abs(v))
    hi = np.minimum(np.searchsorted(g, a, side="left"), len(g) - 1)
    lo = np.where(g[hi] == a, hi, np.maximum(hi - 1, 0))
    beyond = a > g[-1]
    mid = (g[lo] + g[hi]) / 2
    if rounding == "rne":
        pick = np.where(a > mid, hi, np.where(a < mid, lo, np.where(gc[lo] % 2 == 0, lo, hi)))
    elif rounding == "ta":
        pick = np.where(a >= mid, hi, lo)
    else:
        pick = lo
    pick = np.where(beyond, len(g) - 1, pick)
    val = g[pick]
    code = gc[pick].copy()
    max_code = gc[-2]
    overflow = code > max_code
    inexact = (val != a) | overflow
    if fmt == "uhp":
        # Flush to zero: the result is rounded as if denormals existed; a denormal result becomes 0.
        tiny = (val > 0) & (val < min_normal)
        val, code, inexact = np.where(tiny, 0.0, val), np.where(tiny, 0, code), inexact | tiny
        inf_code = (63 << M)
        code = np.where(overflow, max_code if (saturate or rounding == "rtz") else inf_code, code)
    else:
        code = np.where(overflow, max_code, code)
    underflow = inexact & ~overflow & (val < min_normal) & (a != 0)
    smask = 1 << (E + M)
    neg = (sign == 1) & (s == 1)
    code = np.where(neg, code | smask, code)
    flags = (np.where(sub, DENORMAL, 0) | np.where(overflow, OVERFLOW, 0) | np.where(underflow, UNDERFLOW, 0)
             | np.where(inexact, INEXACT, 0))
    if fmt == "uhp":
        canon = (63 << M) | (1 << (M - 1))
        bad = nan | ((sign == 1) & (a != 0)) | (inf & (sign == 1))
        code = np.where(inf & (sign == 0), (max_code if saturate else inf_code), code)
        flags = np.where(inf & (sign == 0), INEXACT if saturate else 0, flags)
        code = np.where(bad, 0 if nan_to_zero else canon, code)
        flags = np.where(bad, INVALID | np.where(sub, DENORMAL, 0), flags)
    else:  # no Inf/NaN: ±Inf clamps to ±max (inexact), NaN to ±max with its sign (invalid)
        clamp = max_code | np.where(sign == 1, smask, 0)
        code = np.where(inf, clamp, code)
        flags = np.where(inf, INEXACT, flags)
        code = np.where(nan, 0 if nan_to_zero else clamp, code)
        flags = np.where(nan, INVALID, flags)
    return code.astype(np.int64), flags.astype(np.int64)


def reference_multi(fmt, x, rounding, bias, ieee=False, **kw):
    """:func:`reference` with a bias per element (one search per distinct bias)."""
    codes = np.zeros(x.shape, np.int64)
    flags = np.zeros(x.shape, np.int64)
    for b in np.unique(bias):
        sel = bias == b
        codes[sel], flags[sel] = reference(fmt, x[sel], rounding, int(b), ieee, **kw)
    return codes, flags


def assert_same(got, want, x, bias, what):
    gc, gf = (np.asarray(a).astype(np.int64).ravel() for a in got)
    wc, wf = want
    bad = np.flatnonzero((gc != wc) | (gf != wf))
    if bad.size:
        bits = x.view(np.uint32 if x.dtype.itemsize == 4 else np.uint16)
        b = np.broadcast_to(bias, x.shape)
        rows = [f"  x=0x{int(bits[i]):x} ({float(x[i])!r}) bias {int(b[i])}: golden 0x{gc[i]:x}/{gf[i]:05b}, "
                f"reference 0x{wc[i]:x}/{wf[i]:05b}" for i in bad[:8]]
        pytest.fail(f"{what}: {bad.size} of {x.size} differ\n" + "\n".join(rows))


# -- operands --------------------------------------------------------------------------------------
def all16(dtype):
    return np.arange(1 << 16, dtype=np.uint16).view(dtype)


def fp32_sample(fmt, n, seed, biases):
    """``n`` FP32 operands with a bias each: a quarter uniform over all bit patterns, the rest near the
    range of their own bias (exponent from below the smallest denormal to past the overflow threshold,
    with low mantissa bits often cleared: exact values, ties, the gap's midpoint), plus every value,
    midpoint and ±1 ulp around them for the first biases. Returns (x, bias)."""
    _, E, M, fixed = LAYOUT[fmt]
    rng = np.random.default_rng(seed)
    b = rng.choice(np.asarray(biases), n)
    uni = rng.integers(0, 1 << 32, n // 4, dtype=np.uint64).astype(np.uint32)
    m = n - n // 4
    bb = b[n // 4:]
    top = (1 << E) - 1 - bb
    e = rng.integers(-bb - M - 4, top + 3) + 0
    man = rng.integers(0, 1 << 23, m, dtype=np.uint64).astype(np.uint32)
    k = rng.integers(0, 24, m).astype(np.uint32)
    man = np.where(rng.random(m) < 0.4, man & (np.uint32(0xFFFFFFFF) << k), man)
    near = ((rng.integers(0, 2, m).astype(np.uint32) << 31) | ((e + 127).astype(np.uint32) << 23) | man)
    x = np.concatenate([uni, near]).view(np.float32)
    # Directed: every grid value, midpoint and their FP32 neighbours, for three biases.
    dx, db = [], []
    for bias in (list(biases)[:1] + list(biases)[-1:] + [list(biases)[len(biases) // 2]]):
        pts = []
        for ieee in (False, True):
            g, _, mn = grid(fmt, int(bias), ieee)
            idx = np.arange(len(g) - 1)
            if len(idx) > 2000:  # 16-bit formats: both ends, around the smallest normal, and a sample
                at = np.searchsorted(g, mn)
                idx = np.unique(np.concatenate([idx[:300], idx[-300:], idx[max(at - 100, 0): at + 100],
                                                rng.choice(idx, 2000)]))
            pts += [g[idx], g[idx + 1], (g[idx] + g[idx + 1]) / 2]
        pts = np.concatenate(pts).astype(np.float32)
        pts = np.concatenate([pts, np.nextafter(pts, np.float32(np.inf)), np.nextafter(pts, np.float32(0))])
        pts = np.concatenate([pts, -pts])
        dx.append(pts)
        db.append(np.full(pts.size, bias))
    return np.concatenate([x, *dx]), np.concatenate([b, *db]).astype(np.int64)


FAST_BIASES = (0, 1, 7, 15, 31, 32, 62, 63)
ALL_BIASES = tuple(range(64))
DETERMINISTIC = ("rne", "ta", "rtz")
CFLOAT8 = ("cfloat8_143", "cfloat8_152")


def _biases_for(fmt, full=False):
    return (31,) if fmt == "uhp" else (ALL_BIASES if full else FAST_BIASES)


def _ieee_choices(fmt):
    return (False,) if fmt == "uhp" else (False, True)


def _kw(fmt, bias, ieee):
    kw = {} if fmt == "uhp" else {"bias": bias}
    if ieee:
        kw["ieee_denormals"] = True
    return kw


# -- every 16-bit pattern, every deterministic rounding, scalar biases (memoised path) --------------
CASES16 = [(f, s) for f in ("cfloat8_143", "cfloat8_152", "shp", "uhp") for s in ("bf16", "fp16")]


@pytest.mark.parametrize("rounding", DETERMINISTIC)
@pytest.mark.parametrize("fmt, src", CASES16)
def test_all_16bit_patterns_equal_the_reference(fmt, src, rounding):
    """All FP16/BF16 patterns at each bias of FAST_BIASES (scalar bias: the memoised table path) and once
    more with a different bias per element (the exact path)."""
    x = all16(np.float16 if src == "fp16" else ml_dtypes.bfloat16)
    assert x.size >= minifloat._LUT_MIN_SIZE
    for ieee in _ieee_choices(fmt):
        for b in _biases_for(fmt):
            got = encode_with_flags(fmt, x, rounding=rounding, **_kw(fmt, b, ieee))
            assert_same(got, reference(fmt, x, rounding, b, ieee), x, b, f"{src}->{fmt} bias {b} ieee {ieee}")
        if fmt != "uhp":
            bias = np.random.default_rng(3).choice(np.asarray(FAST_BIASES), x.size)
            got = encode_with_flags(fmt, x, rounding=rounding, **_kw(fmt, bias, ieee))
            assert_same(got, reference_multi(fmt, x, rounding, bias, ieee), x, bias, f"{src}->{fmt} per-element")


@pytest.mark.slow
@pytest.mark.parametrize("rounding", DETERMINISTIC)
@pytest.mark.parametrize("fmt", CFLOAT8 + ("shp",))
def test_all_bf16_and_fp16_patterns_at_every_bias(fmt, rounding):
    for x in (all16(ml_dtypes.bfloat16), all16(np.float16)):
        for ieee in (False, True):
            for b in ALL_BIASES:
                got = encode_with_flags(fmt, x, rounding=rounding, **_kw(fmt, b, ieee))
                assert_same(got, reference(fmt, x, rounding, b, ieee), x, b, f"{fmt} bias {b} ieee {ieee}")


# -- FP32 -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rounding", DETERMINISTIC)
@pytest.mark.parametrize("fmt", ("cfloat8_143", "cfloat8_152", "shp", "uhp"))
def test_fp32_sample_equals_the_reference(fmt, rounding):
    """≥ 200k FP32 operands per format (each with its own bias, all 64 used) plus every value, midpoint
    and ±1 ulp of three biases; per-element biases (exact path) and grouped scalar biases (memoised path
    where the format has one)."""
    for ieee in _ieee_choices(fmt):
        x, bias = fp32_sample(fmt, 200_000, [11, len(fmt), int(ieee)], _biases_for(fmt, full=True))
        want = reference_multi(fmt, x, rounding, bias, ieee)
        assert_same(encode_with_flags(fmt, x, rounding=rounding, **_kw(fmt, bias, ieee)), want, x, bias,
                    f"fp32->{fmt} ieee {ieee} per-element")
        if fmt in CFLOAT8:  # the same operands grouped by bias, padded to take the memoised path
            for b in (0, 31, 63):
                sel = bias == b
                xs = np.resize(x[sel], max(sel.sum(), minifloat._LUT_MIN_SIZE))
                got = encode_with_flags(fmt, xs, rounding=rounding, **_kw(fmt, b, ieee))
                assert_same(got, reference(fmt, xs, rounding, b, ieee), xs, b, f"fp32->{fmt} bias {b} table")


@pytest.mark.slow
@pytest.mark.parametrize("rounding", DETERMINISTIC)
@pytest.mark.parametrize("fmt", ("cfloat8_143", "cfloat8_152", "shp", "uhp"))
def test_fp32_large_sample_equals_the_reference(fmt, rounding):
    for chunk in range(10):
        for ieee in _ieee_choices(fmt):
            x, bias = fp32_sample(fmt, 1_000_000, [12, len(fmt), chunk, int(ieee)], _biases_for(fmt, full=True))
            assert_same(encode_with_flags(fmt, x, rounding=rounding, **_kw(fmt, bias, ieee)),
                        reference_multi(fmt, x, rounding, bias, ieee), x, bias, f"fp32->{fmt} chunk {chunk}")


@pytest.mark.parametrize("fmt", ("cfloat8_143", "shp", "uhp"))
def test_options_saturate_and_nan_to_zero_equal_the_reference(fmt):
    x, bias = fp32_sample(fmt, 40_000, [13, len(fmt)], _biases_for(fmt, full=True))
    x = np.concatenate([x, np.float32([np.inf, -np.inf, np.nan, -np.nan, 0.0, -0.0])])
    bias = np.concatenate([bias, np.full(6, 5)])
    for sat in (False, True):
        for n2z in (False, True):
            for r in DETERMINISTIC:
                got = encode_with_flags(fmt, x, rounding=r, saturate=sat, nan_to_zero=n2z, **_kw(fmt, bias, False))
                want = reference_multi(fmt, x, r, bias, saturate=sat, nan_to_zero=n2z)
                assert_same(got, want, x, bias, f"{fmt} {r} saturate {sat} nan_to_zero {n2z}")


# -- stochastic rounding against its definition --------------------------------------------------------
def _neighbours(fmt, v, bias, ieee):
    g, gc, _ = grid(fmt, bias, ieee)
    hi = np.searchsorted(g, v, side="left")
    return g[hi - 1], g[hi], gc[hi - 1], gc[hi]


@pytest.mark.parametrize("ieee", [False, True])
@pytest.mark.parametrize("fmt", ("cfloat8_143", "cfloat8_152", "shp", "uhp"))
def test_sr_rounds_up_exactly_floor_d_times_2r_of_all_draws(fmt, ieee):
    """R = 6: every operand meets all 64 draws; it rounds up exactly floor(d·64) times, d computed with
    Fractions from the two neighbours (in the denormal gap, hi - lo is not a power of two)."""
    if fmt == "uhp" and ieee:
        pytest.skip("UHP has IEEE denormals (flushed) already")
    R = 6
    rng = np.random.default_rng([17, len(fmt), int(ieee)])
    ops, biases = [], []
    for b in ((31,) if fmt == "uhp" else (0, 9, 40, 63)):
        g, _, mn = grid(fmt, b, ieee)
        g = g[:-1]
        if fmt == "uhp":  # below the smallest normal the result is flushed (checked below)
            g = g[g >= mn]
        lo_idx = rng.integers(0, len(g) - 1, 300)
        pts = g[lo_idx] + rng.random(300) * (g[lo_idx + 1] - g[lo_idx])
        # the gap region (CFloat denormals), half-way points and just above values, near both ends too
        below = g[g < mn]
        extra = [] if len(below) == 0 else [below[-1] + k * (mn - below[-1]) / 7 for k in range(1, 7)]
        pick = np.concatenate([np.arange(min(40, len(g) - 1)), rng.integers(0, len(g) - 1, 200),
                               np.arange(len(g) - 41, len(g) - 1)])
        pts = np.concatenate([pts, extra, (g[pick] + g[pick + 1]) / 2,
                              np.nextafter(g[pick].astype(np.float32), np.float32(np.inf))])
        pts = pts.astype(np.float32)
        pts = pts[(pts > (g[0] if fmt == "uhp" else 0)) & (pts < g[-1])]
        ops.append(pts)
        biases.append(np.full(pts.size, b))
    x, bias = np.concatenate(ops), np.concatenate(biases)
    draws = np.arange(1 << R)
    xx, bb = np.repeat(x, 1 << R), np.repeat(bias, 1 << R)
    rand = np.tile(draws, x.size)
    kw = {} if fmt == "uhp" else {"bias": bb}
    if ieee:
        kw["ieee_denormals"] = True
    codes, flags = encode_with_flags(fmt, xx, rounding="sr", rand=rand, rand_bits=R, **kw)
    codes = codes.astype(np.int64).reshape(x.size, 1 << R)
    flags = flags.reshape(x.size, 1 << R)
    for i in range(x.size):  # per operand (test code): the exact count from Fractions
        lo, hi, lc, hc = _neighbours(fmt, float(x[i]), int(bias[i]), ieee)
        if lo == float(x[i]):
            assert np.all(codes[i] == lc) and np.all(flags[i] & INEXACT == 0)
            continue
        d = (Fraction(float(x[i])) - Fraction(lo)) / (Fraction(hi) - Fraction(lo))
        ups = int(np.sum(codes[i] == hc))
        assert np.all((codes[i] == lc) | (codes[i] == hc)), (float(x[i]), set(codes[i].tolist()))
        assert ups == int(d * (1 << R)), (float(x[i]), int(bias[i]), ups, d)
    if fmt == "uhp":  # below the smallest normal: 0 (flushed) or the smallest normal, nothing else
        mn = grid(fmt, 31, False)[2]
        v = (np.random.default_rng(1).random(2000) * mn).astype(np.float32)
        c, f = encode_with_flags(fmt, v, rounding="sr", seed=5)
        assert set(np.unique(c).tolist()) <= {0, 0x400}
        assert np.all(f[c == 0] == (UNDERFLOW | INEXACT))


def test_sr_is_reproducible_from_the_seed_and_seeds_differ():
    x = (np.random.default_rng(0).standard_normal(50_000) * 2.0**-20).astype(np.float32)
    bias = np.arange(x.size) % 64
    a = encode("cfloat8_143", x, rounding="sr", seed=123, bias=bias)
    assert np.array_equal(a, encode("cfloat8_143", x, rounding="sr", seed=123, bias=bias))
    b = encode("cfloat8_143", x, rounding="sr", seed=124, bias=bias)
    assert 0.05 < np.mean(a != b) < 0.9


@pytest.mark.parametrize("fmt, bias, v", [
    ("cfloat8_143", 20, 1.3 * 2.0**-20),  # in the denormal gap: neighbours 0.875·2^-20 and 2^-19
    ("cfloat8_143", 20, 1.01 * 2.0**-30),
    ("cfloat8_152", 0, 3.3),
    ("shp", 40, 1.00003 * 2.0**-30),
    ("uhp", None, 1.2345678e5),
])
def test_sr_mean_over_seeds_approaches_the_input(fmt, bias, v):
    """50 seeds (spread over 2^32: xorshift32's first draws from small consecutive seeds are small) × 400
    values each: the mean is within 4 standard errors of the input."""
    seeds = np.random.default_rng(99).integers(0, 1 << 32, 50)
    x = np.full(400, v, np.float32)
    kw = {} if bias is None else {"bias": bias}
    vals = np.concatenate([decode(fmt, encode(fmt, x, rounding="sr", seed=int(s), **kw), **kw) for s in seeds])
    vals = vals.astype(np.float64)
    lo, hi = vals.min(), vals.max()
    assert lo < float(x[0]) < hi and len(np.unique(vals)) == 2
    p = (float(x[0]) - lo) / (hi - lo)
    se = (hi - lo) * np.sqrt(p * (1 - p) / vals.size)
    assert abs(vals.mean() - float(x[0])) < 4 * se + (hi - lo) * 2.0**-16


# -- ml_dtypes / numpy where a CFloat configuration is a known format ------------------------------
def _finite_sample(n, seed, scale):
    rng = np.random.default_rng(seed)
    return np.concatenate([
        (rng.standard_normal(n) * scale * 2.0 ** rng.integers(-30, 6, n)).astype(np.float32),
        all16(ml_dtypes.bfloat16).astype(np.float32),
    ])


def _cast(x, dt):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with np.errstate(invalid="ignore", over="ignore"):
            return x.astype(dt)


@pytest.mark.parametrize("fmt, bias, dt, limit", [
    ("cfloat8_152", 15, ml_dtypes.float8_e5m2, 61440.0),  # e5m2 rounds to Inf from 61440 up
    ("cfloat8_143", 7, ml_dtypes.float8_e4m3fn, 464.0),  # e4m3fn: 464 is a tie to 448; above, its NaN
])
def test_ieee_denormals_at_the_matching_bias_equal_ml_dtypes(fmt, bias, dt, limit):
    x = _finite_sample(300_000, 1, limit / 8)
    x = x[np.isfinite(x)]
    ok = np.abs(x) <= limit if dt is ml_dtypes.float8_e4m3fn else np.abs(x) < limit
    want = _cast(x, dt).view(np.uint8)
    for xs in (x, x[:1000]):  # memoised table and exact path
        got = encode(fmt, xs, bias=bias, ieee_denormals=True)
        assert np.array_equal(got[ok[: xs.size]], want[: xs.size][ok[: xs.size]])
    # Every code decodes to the same value wherever the known format has a finite one.
    codes = np.arange(256, dtype=np.uint8)
    ref = codes.view(dt).astype(np.float32)
    fin = np.isfinite(ref)
    got = decode(fmt, codes, bias=bias, ieee_denormals=True)
    assert np.array_equal(got[fin].view(np.uint32), ref[fin].view(np.uint32))
    # ...and the guide's denormals differ from them exactly on the denormal codes (half the value).
    guide = decode(fmt, codes, bias=bias)
    sub = (codes & 0x7F) < (1 << (3 if fmt == "cfloat8_143" else 2))
    assert np.array_equal(guide[sub] * 2, got[sub]) and np.array_equal(guide[~sub], got[~sub])


def test_shp_at_bias_15_with_ieee_denormals_is_float16():
    x = _finite_sample(300_000, 2, 1000.0)
    x = np.concatenate([x, all16(np.float16).astype(np.float32)])
    x = x[np.isfinite(x) & (np.abs(x) < 65520)]
    for xs in (x, x[:1000]):
        got = encode("shp", xs, bias=15, ieee_denormals=True)
        assert np.array_equal(got, xs.astype(np.float16).view(np.uint16))
    codes = np.arange(1 << 16, dtype=np.uint16)
    ref = codes.view(np.float16).astype(np.float32)
    fin = np.isfinite(ref)
    assert np.array_equal(decode("shp", codes, bias=15, ieee_denormals=True)[fin], ref[fin])


# -- decoding: every code, every bias ----------------------------------------------------------------
@pytest.mark.parametrize("ieee", [False, True])
@pytest.mark.parametrize("fmt", ("cfloat8_143", "cfloat8_152", "shp", "uhp"))
def test_decode_every_code_equals_the_reference_values(fmt, ieee):
    if fmt == "uhp" and ieee:
        pytest.skip("UHP has IEEE denormals (flushed) already")
    s, E, M, fixed = LAYOUT[fmt]
    n = 1 << (s + E + M)
    codes = np.arange(n)
    for b in ((31,) if fmt == "uhp" else (ALL_BIASES if s + E + M == 8 else FAST_BIASES)):
        g, gc, _ = grid(fmt, b, ieee)
        want = np.full(n, np.nan)
        mag = codes & ((1 << (E + M)) - 1)
        lookup = dict(zip(gc[:-1].tolist(), g[:-1].tolist()))  # value of each magnitude code
        vals = np.array([lookup.get(int(c), np.nan) for c in mag[: 1 << (E + M)]])
        want[: 1 << (E + M)] = vals
        if s:
            want[1 << (E + M):] = -vals
        if fmt == "uhp":  # denormal codes read as 0; Inf and NaN from the all-ones exponent
            want = np.where((mag >> M) == 0, 0.0, want)
            want = np.where(mag == 63 << M, np.inf, want)
        got = decode(fmt, codes, **_kw(fmt, b, ieee)).astype(np.float64)
        assert np.array_equal(got, want, equal_nan=True), (fmt, b)
        # Per-element biases give the same values.
        if fmt != "uhp":
            bias = np.full(n, b)
            bias[::2] = (b + 1) % 64
            got2 = decode(fmt, codes, **_kw(fmt, bias, ieee))
            assert np.array_equal(got2[1::2].astype(np.float64), want[1::2], equal_nan=True)


@pytest.mark.parametrize("ieee", [False, True])
@pytest.mark.parametrize("fmt", CFLOAT8)
def test_bf16_holds_every_cfloat8_value_at_every_bias(fmt, ieee):
    """Decoding to BF16 is exact: every value of every code at every bias survives FP32 → BF16 unchanged
    (at most 4 significant bits, exponents from -66 to 31, all inside BF16's normal range)."""
    codes = np.repeat(np.arange(256), 64)
    bias = np.tile(np.arange(64), 256)
    kw = dict(bias=bias, ieee_denormals=ieee)
    v32 = decode(fmt, codes, **kw)
    b16 = decode_bits(fmt, codes, "bf16", **kw)
    assert np.array_equal(b16.view(ml_dtypes.bfloat16).astype(np.float32), v32)
    assert np.array_equal(b16, (v32.view(np.uint32) >> 16).astype(np.uint16))  # nothing below bit 16
    small = np.abs(v32[v32 != 0])
    assert small.min() >= 2.0**-126  # BF16 normals
    # FP16 cannot: its smallest subnormal is 2^-24 (and cfloat8_152 reaches 1.75 × 2^31 > 65504).
    assert small.min() < 2.0**-24 and (small.max() > 65504) == (fmt == "cfloat8_152")


def test_uhp_decodes_nan_codes_to_a_positive_quiet_nan_and_denormal_codes_to_zero():
    codes = np.array([0xFE00, 0xFC01, 0xFFFF, 0xFC00, 0x0001, 0x03FF, 0x0400])
    bits = decode_bits("uhp", codes, "fp32")
    assert bits.tolist() == [0x7FC00000, 0x7FC00000, 0x7FC00000, 0x7F800000, 0, 0, 0x30800000]
