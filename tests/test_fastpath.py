"""The integer-domain encoders (``fpforge.golden.fastpath``) against the exact float64 model, bit for bit,
and against ml_dtypes / numpy casts where a library implements the format.

Every path the fast module serves: stochastic rounding into every scalar format, HiF8 hybrid rounding from
FP32 (default, paper-literal, Ascend), a run-time bias per value (CFloat8, SHP, both denormal styles), and
FP32 into the 7-10-bit mantissas (SHP, UHP, FP16/BF16 as targets). Stimulus: every FP16 and BF16
pattern; FP32 class boundaries (every exponent field, mantissas with 0..23 low bits cleared, set, or a
single bit: ties, sticky bits, subnormals, NaN payloads), the directed corners of ``fpforge.sim.vectors``
and random patterns (uniform and near the format's range). ``make regress`` adds 10M FP32 per path.
"""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

from fpforge.golden import SOURCES, encode, encode_with_flags, fastpath, get_format, minifloat, random_bits, tapered
from fpforge.golden.formats import RUNTIME_BIASES, FloatFormat, resolve_variant

SCALAR = ("e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz", "hif8", "hif8_ascend", "e3m2", "e2m3", "e2m1", "uhp", "fp16", "bf16")
RUNTIME = ("cfloat8_143", "cfloat8_152", "shp")
DTYPES = {"fp32": np.float32, "fp16": np.float16, "bf16": ml_dtypes.bfloat16}


# -- stimulus ------------------------------------------------------------------------------------------
def all16(src):
    return np.arange(1 << 16, dtype=np.uint16).view(DTYPES[src])


def boundary_fp32(seed, exps=range(256)):
    """Class boundaries of every exponent field: random mantissas (plus 0 and all ones) with their k low
    bits cleared, then nothing, the top cleared bit (a tie), all of them, or the lowest one set; both
    signs. Covers exact values, ties, sticky bits, subnormals (field 0), Inf and NaN payloads (field 255)."""
    rng = np.random.default_rng(seed)
    tops = np.concatenate([rng.integers(0, 1 << 23, 6), [0, (1 << 23) - 1]]).astype(np.uint64)
    mants = []
    for k in range(24):
        mask = np.uint64((1 << k) - 1)
        base = tops & ~mask & np.uint64(0x7FFFFF)
        extra = [np.uint64(0), mask, np.uint64(1 if k else 0), np.uint64((1 << (k - 1)) if k else 0)]
        mants += [base | x for x in extra]
    mants = np.unique(np.concatenate(mants))
    ef = np.asarray(list(exps), dtype=np.uint64)
    pats = (ef[:, None] << np.uint64(23)) | mants[None, :]
    pats = np.concatenate([pats.ravel(), pats.ravel() | np.uint64(1 << 31)])
    return pats.astype(np.uint32).view(np.float32)


def random_fp32(fmt, n, seed, golden_fp32_sample):
    """Half uniform over all 2^32 patterns, half near the format's range (``golden_fp32_sample``)."""
    if isinstance(fmt, FloatFormat) and fmt.runtime_bias:
        fmt = fmt.at(15)
    return golden_fp32_sample(fmt, n, seed)


def directed_fp32(fmt, bias=None):
    from fpforge.sim.vectors import directed

    return directed(fmt, "fp32", bias=bias).astype(np.uint32).view(np.float32)


def fp32_stimulus(fmt, seed, golden_fp32_sample, n_random=200_000, bias=None):
    """Boundaries, random operands and the directed corners (of ``bias``, for a run-time-bias format)."""
    fmt = get_format(fmt)
    parts = [boundary_fp32(seed), random_fp32(fmt, n_random, [seed, 1], golden_fp32_sample)]
    if bias is not None or not (isinstance(fmt, FloatFormat) and fmt.runtime_bias):
        parts.append(directed_fp32(fmt, bias))
    return np.concatenate(parts)


# -- checking ------------------------------------------------------------------------------------------
def both_paths(fmt, x, rounding, *, bias=None, rand=None, rand_bits=16, **opts):
    """(fast, exact): ``encode_with_flags`` through the fast path (asserted taken) and the exact model."""
    fmt = tapered.with_compat(get_format(fmt), opts.get("compat"))
    fmt = resolve_variant(fmt, ieee_denormals=opts.get("ieee_denormals", False),
                          paper_literal=opts.get("paper_literal", False))  # variants are descriptors
    opts = {k: v for k, v in opts.items() if k not in ("ieee_denormals", "compat", "paper_literal")}
    src = minifloat.source_of(x)
    fixed, per = minifloat.resolve_bias(fmt, bias, x.shape)
    path = fastpath.fast_path(fixed, src, rounding, per is not None)
    assert path is not None, f"{fmt.name} {rounding} from {src.name} has no fast path"
    o = (rounding, opts.get("saturate", False), opts.get("nan_to_zero", False))
    draws = None
    if rounding == "sr":
        draws = fastpath.Draws(x.size, rand=rand, rand_bits=rand_bits, check=minifloat._check_rand)
    fast = fastpath.encode_fast(fixed if per is None else fixed.at(0), src, x, o, path=path,
                                exact=minifloat._exact, src32=SOURCES["fp32"], bias=per, draws=draws)
    exact = minifloat._exact(fixed, src, x, o, (np.asarray(rand, np.int64), rand_bits) if rounding == "sr" else None,
                             per)
    return fast, exact


def assert_same(fast, exact, x, what):
    for got, want, name in ((fast[0], exact[0], "codes"), (fast[1], exact[1], "flags")):
        assert got.dtype == want.dtype and got.shape == want.shape, f"{what}: {name} dtype/shape"
        bad = np.flatnonzero(got.ravel() != want.ravel())
        if bad.size:
            bits = x.ravel().view(np.uint32 if x.dtype.itemsize == 4 else np.uint16)
            rows = [f"x=0x{int(bits[i]):X}: exact 0x{int(want.ravel()[i]):X}, fast 0x{int(got.ravel()[i]):X}"
                    for i in bad[:8]]
            pytest.fail(f"{what}: {bad.size} of {x.size} {name} differ: " + "; ".join(rows))


def draws_for(n, rand_bits, seed):
    return random_bits(seed, n, rand_bits)


# -- stochastic rounding -----------------------------------------------------------------------------
@pytest.mark.parametrize("saturate", [False, True], ids=["nosat", "sat"])
@pytest.mark.parametrize("src", ["fp16", "bf16"])
@pytest.mark.parametrize("fmt", SCALAR + RUNTIME)
def test_sr_every_16bit_pattern(fmt, src, saturate):
    x = all16(src)
    runs = list(zip((0, 15, 40, 63), (16, 3, 32, 16))) if fmt in RUNTIME else [(None, r) for r in (16, 3, 32)]
    for k, (bias, rand_bits) in enumerate(runs):
        rand = draws_for(x.size, rand_bits, 17 + k)
        fast, exact = both_paths(fmt, x, "sr", bias=bias, rand=rand, rand_bits=rand_bits, saturate=saturate,
                                 nan_to_zero=k % 2 == 1)
        assert_same(fast, exact, x, f"{src}->{fmt} sr R={rand_bits} bias={bias} sat={saturate}")


@pytest.mark.parametrize("fmt", SCALAR + RUNTIME)
def test_sr_fp32_boundaries_directed_and_random(fmt, golden_fp32_sample):
    x = fp32_stimulus(fmt, 5, golden_fp32_sample, bias=20 if fmt in RUNTIME else None)
    for k, rand_bits in enumerate((16, 1, 32, 7)):
        rand = draws_for(x.size, rand_bits, 3 + k)
        for bias in ((20, 63) if fmt in RUNTIME else (None,)):
            fast, exact = both_paths(fmt, x, "sr", bias=bias, rand=rand, rand_bits=rand_bits, saturate=k == 1)
            assert_same(fast, exact, x, f"fp32->{fmt} sr R={rand_bits} bias={bias}")


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz", "e3m2", "e2m3", "e2m1"])
def test_sr_gives_the_ml_dtypes_neighbours_by_the_draw(fmt, golden_fp32_sample):
    """An independent SR reference from ml_dtypes' value grid: the two neighbours ``lo <= |x| < hi`` of
    every finite in-range operand, ``d = (|x| - lo) / (hi - lo)`` (exact in float64), up iff
    ``floor(d * 2^R) + rand >= 2^R``; the code is ml_dtypes' cast of the chosen neighbour."""
    dt = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2, "e4m3fnuz": ml_dtypes.float8_e4m3fnuz,
          "e5m2fnuz": ml_dtypes.float8_e5m2fnuz, "e3m2": ml_dtypes.float6_e3m2fn, "e2m3": ml_dtypes.float6_e2m3fn,
          "e2m1": ml_dtypes.float4_e2m1fn}[fmt]
    bits = get_format(fmt).bits
    grid = np.arange(1 << bits, dtype=np.uint8).view(dt).astype(np.float64)
    grid = np.unique(np.abs(grid[np.isfinite(grid)]))  # (abs: unique may keep -0.0 for zero)
    f = get_format(fmt)
    x = np.concatenate([golden_fp32_sample(f, 1_000_000, [8, bits]), all16("fp16").astype(np.float32),
                        all16("bf16").astype(np.float32)])
    with np.errstate(invalid="ignore"):
        a = np.abs(x.astype(np.float64))
    ok = np.isfinite(a) & (a < grid[-1])  # finite and below the largest value: no overflow handling
    x, a = x[ok], a[ok]
    R = 16
    rand = draws_for(x.size, R, 99)
    assert x.size >= minifloat._LUT_MIN_SIZE
    codes = encode(fmt, x, rounding="sr", rand=rand, rand_bits=R)  # the fast path
    hi_i = np.searchsorted(grid, a, side="right")
    lo, hi = grid[hi_i - 1], grid[hi_i]
    d = (a - lo) / (hi - lo)
    up = np.floor(np.ldexp(d, R)) + rand >= 2**R
    pick = np.where(up, hi, lo) * np.where(np.signbit(x), -1.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = pick.astype(dt).view(np.uint8)
    if not f.has_neg_zero:
        want = np.where(pick == 0, 0, want)
    bad = np.flatnonzero(codes != want)
    assert not bad.size, f"{bad.size} differ, first x={x[bad[:5]]} codes={codes[bad[:5]]} want={want[bad[:5]]}"


# -- HiF8 hybrid rounding ----------------------------------------------------------------------------
def hr_fp32(seed, golden_fp32_sample, n_random=500_000):
    """HR stimulus: boundaries, directed corners, random, and for |E| >= 4 operands whose 14 low bits equal
    their own F14 (and ±1): the threshold comparison at equality."""
    fmt = get_format("hif8")
    x = np.concatenate([boundary_fp32(seed), directed_fp32(fmt),
                        random_fp32(fmt, n_random, [seed, 2], golden_fp32_sample)])
    rng = np.random.default_rng(seed)
    e = rng.integers(-30, 17, 200_000)
    e = e[np.abs(e) >= 4]
    pats = ((e + 127).astype(np.uint32) << np.uint32(23)) | rng.integers(0, 1 << 23, e.size).astype(np.uint32)
    qe = np.array([fastpath._quantum_exponent(fmt, int(v)) for v in range(-40, 20)])[np.clip(e, -40, 19) + 40]
    nd = qe - (e - 23)
    sig = (pats & np.uint32(0x7FFFFF)) | np.uint32(0x800000)
    f14 = ((sig.astype(np.uint64) << np.uint64(32)) >> nd.astype(np.uint64)) & np.uint64(0xFFFFFFFF)
    f14 = (f14 >> np.uint64(18)).astype(np.uint32)
    ties = [(pats & ~np.uint32(0x3FFF)) | ((f14 + np.uint32(d)) & np.uint32(0x3FFF)) for d in (0, 1, 0x3FFF)]
    return np.concatenate([x, *[t.view(np.float32) for t in ties]])


@pytest.mark.parametrize("opts", [dict(), dict(paper_literal=True), dict(saturate=True, nan_to_zero=True),
                                  dict(paper_literal=True, saturate=True), dict(compat="ascend"),
                                  dict(compat="ascend", saturate=True, nan_to_zero=True)],
                         ids=["default", "literal", "sat-ntz", "literal-sat", "ascend", "ascend-sat-ntz"])
def test_hr_fp32_fast_equals_exact(opts, golden_fp32_sample):
    x = hr_fp32(11, golden_fp32_sample)
    fast, exact = both_paths("hif8", x, "hr", **opts)
    assert_same(fast, exact, x, f"fp32->hif8 hr {opts}")


def test_hr_from_16_bit_sources_is_the_pattern_table():
    """FP16/BF16 HR (SR2) reads only the pattern: minifloat's memoised 65,536-entry table serves it (checked
    against the exact model in tests/test_hif8_golden.py); the fast module has no path for it."""
    for src in ("fp16", "bf16"):
        assert fastpath.fast_path(get_format("hif8"), SOURCES[src], "hr", False) is None


# -- run-time bias per value -------------------------------------------------------------------------
@pytest.mark.parametrize("ieee", [False, True], ids=["guide", "ieee"])
@pytest.mark.parametrize("rounding", ["rne", "ta", "rtz", "sr"])
@pytest.mark.parametrize("fmt", RUNTIME)
def test_per_value_bias_every_bias(fmt, rounding, ieee, golden_fp32_sample):
    """Every bias 0..63: the directed corners of each bias with that bias, every FP16/BF16 pattern and
    random FP32 operands with random biases (each of the 64 values)."""
    f = get_format(fmt)
    rng = np.random.default_rng([RUNTIME.index(fmt), ieee])
    directed = [directed_fp32(resolve_variant(f, ieee_denormals=ieee), b) for b in RUNTIME_BIASES]
    xd = np.concatenate(directed)
    bd = np.concatenate([np.full(d.size, b) for b, d in enumerate(directed)])
    xr = random_fp32(f, 200_000, [4, RUNTIME.index(fmt)], golden_fp32_sample)
    xb = boundary_fp32(6, exps=range(60, 200))
    for x, bias in ((xd, bd), (xr, rng.integers(0, 64, xr.size)), (xb, rng.integers(0, 64, xb.size)),
                    (all16("fp16"), rng.integers(0, 64, 1 << 16)), (all16("bf16"), rng.integers(0, 64, 1 << 16))):
        rand = draws_for(x.size, 16, 5) if rounding == "sr" else None
        fast, exact = both_paths(fmt, x, rounding, bias=bias, rand=rand, ieee_denormals=ieee,
                                 saturate=bool(rng.integers(0, 2)))
        assert_same(fast, exact, x, f"{x.dtype}->{fmt} {rounding} per-value bias ieee={ieee}")


@pytest.mark.parametrize("fmt, oracle, at", [("cfloat8_143", ml_dtypes.float8_e4m3fn, 7),
                                             ("cfloat8_152", ml_dtypes.float8_e5m2, 15)])
def test_per_value_bias_matches_ml_dtypes_scaled(fmt, oracle, at, golden_fp32_sample):
    """CFloat8 with IEEE denormals at bias ``b`` is E4M3 (E5M2) on ``x * 2^(b - 7)`` (``b - 15``) away from
    the top binade and NaN: ml_dtypes' cast of the scaled operand gives the codes, independently."""
    rng = np.random.default_rng([21, at])
    n, f0 = 600_000, get_format(fmt).at(0)
    bias = rng.integers(0, 64, n)
    e = rng.integers(1 - f0.mbits - 4, f0.emax, n) - bias  # from below the smallest denormal to the top binade
    mant = rng.integers(0, 1 << 23, n).astype(np.uint32) & (np.uint32(0xFFFFFFFF) << rng.integers(0, 24, n).astype(np.uint32))
    x = ((rng.integers(0, 2, n).astype(np.uint32) << np.uint32(31)) | ((e + 127).astype(np.uint32) << np.uint32(23))
         | mant).view(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = (x.astype(np.float64) * np.ldexp(1.0, bias - at)).astype(np.float32)
        ok = np.isfinite(x) & (np.abs(x.astype(np.float64)) < 0.75 * get_format(fmt).at(0).max_value
                               * 2.0 ** -bias)
    ok &= np.abs(scaled.astype(np.float64)) == np.abs(x.astype(np.float64)) * np.ldexp(1.0, bias - at)
    ok &= np.abs(scaled) < float(ml_dtypes.finfo(oracle).max)  # E5M2's top binade holds Inf/NaN
    codes = encode(fmt, x, rounding="rne", bias=bias, ieee_denormals=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = scaled.astype(oracle).view(np.uint8)
    bad = np.flatnonzero(ok & (codes != want))
    assert ok.sum() > 500_000 and not bad.size, f"{bad.size} differ: x={x[bad[:4]]} bias={bias[bad[:4]]}"


# -- FP32 into 7-10-bit mantissas --------------------------------------------------------------------
@pytest.mark.parametrize("rounding", ["rne", "ta", "rtz"])
@pytest.mark.parametrize("fmt", ["shp", "uhp", "fp16", "bf16"])
def test_wide_formats_from_fp32(fmt, rounding, golden_fp32_sample):
    bias = 37 if get_format(fmt).runtime_bias else None
    x = fp32_stimulus(fmt, 7, golden_fp32_sample, bias=bias)
    for saturate in (False, True):
        fast, exact = both_paths(fmt, x, rounding, bias=bias, saturate=saturate)
        assert_same(fast, exact, x, f"fp32->{fmt} {rounding} sat={saturate}")


@pytest.mark.parametrize("fmt, dtype", [("fp16", np.float16), ("bf16", ml_dtypes.bfloat16)])
def test_fp32_to_fp16_and_bf16_match_numpy_and_ml_dtypes(fmt, dtype, golden_fp32_sample):
    x = np.concatenate([golden_fp32_sample(get_format(fmt), 1_000_000, 31), boundary_fp32(31)])
    with np.errstate(invalid="ignore", over="ignore"):
        want = x.astype(dtype).view(np.uint16)
        nan = np.isnan(x)
    got = encode(fmt, x, rounding="rne")
    assert not np.flatnonzero((got != want) & ~nan).size
    assert np.all((got[nan] & 0x7FFF) == get_format(fmt).nan_code(False))  # the canonical NaN, sign kept


# -- dispatch, memory ----------------------------------------------------------------------------------
def test_the_public_api_takes_the_fast_paths(monkeypatch):
    calls = []
    real = fastpath.encode_fast
    monkeypatch.setattr(fastpath, "encode_fast", lambda *a, **k: calls.append(k["path"]) or real(*a, **k))
    n = minifloat._LUT_MIN_SIZE
    x = np.linspace(-300, 300, n, dtype=np.float32)
    encode("e4m3", x[:-1], rounding="sr", seed=1)  # below the threshold: the exact model
    assert calls == []
    encode("e4m3", x, rounding="sr", seed=1)
    encode("hif8", x, rounding="hr")
    encode("hif8", x.astype(np.float16), rounding="hr")  # minifloat's pattern table
    encode("cfloat8_143", x, rounding="rne", bias=np.arange(n) % 64)
    encode("cfloat8_143", x, rounding="rne", bias=np.full(n, 9))  # one bias: minifloat's table
    encode("shp", x, rounding="rne", bias=9)  # a 2^21-entry table for 2^16 operands: not worth building
    encode("shp", np.resize(x, 1 << 19), rounding="rne", bias=9)
    encode("shp", x, rounding="rne", bias=9)  # built: used from now on
    encode("e4m3", x, rounding="rne")  # minifloat's table
    assert calls == ["sr", "hr", "det", "det", "det"]


def test_seeded_and_explicit_draws_give_the_same_codes():
    x = np.linspace(-3, 3, 1 << 17, dtype=np.float32)
    for rb in (1, 16, 32):
        a = encode_with_flags("hif8", x, rounding="sr", seed=77, rand_bits=rb)
        b = encode_with_flags("hif8", x, rounding="sr", rand=random_bits(77, x.size, rb), rand_bits=rb)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_tables_stay_within_the_memory_limit(monkeypatch):
    monkeypatch.setattr(fastpath, "TABLE_BYTES", 20 << 20)
    monkeypatch.setattr(fastpath, "_TABLES", {})
    x = np.linspace(-3, 3, 1 << 16, dtype=np.float32)
    x = np.resize(x, 1 << 19)  # enough operands for the 10-bit mantissas' tables to be built
    for fmt in ("shp", "uhp", "fp16", "e4m3", "hif8"):
        for rounding in ("sr", "rne"):
            kw = dict(bias=np.arange(x.size) % 64) if fmt == "shp" else {}
            encode(fmt, x, rounding=rounding, seed=1, **kw)
            assert fastpath.table_bytes() <= 20 << 20
    for (fmt, _, path), table in fastpath._TABLES.items():
        # the documented bound: 2^(12 + mbits) entries of at most 8 bytes
        assert table.size <= 1 << (12 + fmt.mbits) and table.itemsize <= 8, (fmt.name, path)


# -- make regress: 10M random FP32 operands per path ---------------------------------------------------
SLOW_PATHS = [("e4m3", "sr", {}), ("hif8", "sr", {}), ("e2m1", "sr", {}), ("uhp", "sr", {}),
              ("hif8", "hr", {}), ("hif8", "hr", dict(paper_literal=True)), ("hif8", "hr", dict(compat="ascend")),
              ("cfloat8_143", "sr", dict(bias="each")), ("shp", "sr", dict(bias="each")),
              ("cfloat8_152", "rne", dict(bias="each")), ("shp", "ta", dict(bias="each", ieee_denormals=True)),
              ("shp", "rne", dict(bias=5)), ("fp16", "rtz", {})]


@pytest.mark.slow
@pytest.mark.parametrize("fmt, rounding, opts", SLOW_PATHS, ids=lambda v: str(v) if not isinstance(v, dict) else
                         "-".join(f"{k}={w}" for k, w in v.items()) or "plain")
def test_fast_equals_exact_ten_million(fmt, rounding, opts, golden_fp32_sample):
    rng = np.random.default_rng([SLOW_PATHS.index((fmt, rounding, opts)), 10])
    for chunk in range(10):
        x = random_fp32(get_format(fmt), 1_000_000, [77, chunk, SLOW_PATHS.index((fmt, rounding, opts))],
                        golden_fp32_sample)
        kw = dict(opts)
        if kw.get("bias") == "each":
            kw["bias"] = rng.integers(0, 64, x.size)
        rand = draws_for(x.size, 16, chunk) if rounding == "sr" else None
        fast, exact = both_paths(fmt, x, rounding, rand=rand, **kw)
        assert_same(fast, exact, x, f"fp32->{fmt} {rounding} {opts} chunk {chunk}")
