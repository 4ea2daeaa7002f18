"""HiF8 golden encode/decode against a slow exact reference written here from the paper (seed 000).

The reference never imports ``fpforge.golden.tapered`` or its tables:

* HiF8's values are built *forwards* from Tables 2–3 (prefix, sign-magnitude ``Em`` with hidden MSB,
  mantissa) as ``fractions.Fraction``; decoding is checked against a second, *backwards* reading of the
  same tables (parse the prefix, then the fields), and the two readings are checked against each other.
* Encoding is a search: the operand, as an exact ``Fraction``, is placed between its two neighbours on
  the lattice {0, the 126 positive finite values, the Inf slot 1.5 × 2^15} with ``bisect``; ``d`` is its
  exact position in that gap. Every rounding decides "lower or upper neighbour" from ``d`` only:
  ``ta`` d ≥ 1/2; ``rne`` d > 1/2 or (d = 1/2 and the lower neighbour's significand integer is odd);
  ``rtz`` never; ``sr`` floor(d·2^R) + rand ≥ 2^R; ``hr`` TA when |E| < 4 (E = floor(log2|operand|))
  else floor(d·2^K) ≥ T and d ≠ 0 (T = 14 low source bits for FP32 with K = 14; 2·LSB + 1 for FP16/BF16
  with K = 2), or F ≥ T alone with ``paper_literal``. Landing on (or starting at or beyond) the Inf slot
  is overflow.
* Specials and flags as SPEC-NOTES §1/§3 and docs/hif8.md: one zero (negative results that round to 0
  give 0x00), NaN 0x80 (0x00 with ``nan_to_zero``) + invalid, ±Inf stays ±Inf (±2^15 + inexact when
  saturating), overflow → ±Inf (±2^15 when saturating or under ``rtz``); flags invalid 1, denormal 2
  (source subnormal), overflow 4, underflow 8 (non-zero operand, inexact, not overflow, delivered result
  below 2^-15 — zero included, as for FP8), inexact 16.

The Fraction work is done once per distinct magnitude and cached; the per-mode decisions on top of it
are numpy.
"""

from __future__ import annotations

import bisect
import functools
import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fpforge.golden import decode, decode_bits, encode, encode_flags, encode_with_flags

__all__: list[str] = []

NV, DN, OF, UF, NX = 1, 2, 4, 8, 16
DTYPES = {"fp32": np.float32, "fp16": np.float16, "bf16": ml_dtypes.bfloat16}
UINT = {"fp32": np.uint32, "fp16": np.uint16, "bf16": np.uint16}
SRC_MIN_NORMAL = {"fp32": Fraction(2) ** -126, "fp16": Fraction(2) ** -14, "bf16": Fraction(2) ** -126}
ROUNDINGS = ["ta", "hr", "sr", "rne", "rtz"]
HYPOTHESIS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LUT_MIN = 1 << 16  # arrays this large take golden/minifloat.py's memoised path (where it applies)

# -- Tables 2 and 3, forwards ---------------------------------------------------------------------
PREFIX = {4: "11", 3: "10", 2: "01", 1: "001", 0: "0001"}  # Table 2: dot-field code of each D value
DML_PREFIX = "0000"
EXPONENTS = {  # Table 3, "E (decimal)"
    0: [0],
    1: [-1, 1],
    2: [-3, -2, 2, 3],
    3: [*range(-7, -3), *range(4, 8)],
    4: [*range(-15, -7), *range(8, 16)],
}
MANT_WIDTH = {0: 3, 1: 3, 2: 3, 3: 2, 4: 1}  # Table 3, "Mantissa Width"


def _forward_table():
    """{magnitude code: (value, mantissa field or None for denormals)}, built from the fields."""
    out = {}
    for d, prefix in PREFIX.items():
        w = MANT_WIDTH[d]
        assert 1 + len(prefix) + d + w == 8
        for e in EXPONENTS[d]:
            if d == 0:
                em = ""
            else:
                mag = format(abs(e), "b")
                assert len(mag) == d and mag[0] == "1"  # D bits of magnitude, MSB fixed to 1 and hidden
                em = ("1" if e < 0 else "0") + mag[1:]  # Em = {Se, Mag[2:end]}
            for m in range(1 << w):
                code = int(prefix + em + format(m, f"0{w}b"), 2)
                assert code not in out
                out[code] = (Fraction(2) ** e * (1 + Fraction(m, 1 << w)), m)
    for m in range(1, 8):  # eq. (2): 2^(M - 23), M = 1..7
        out[int(DML_PREFIX + format(m, "03b"), 2)] = (Fraction(2) ** (m - 23), None)
    return out


FORWARD = _forward_table()
INF_SLOT = Fraction(3, 2) * 2**15  # eq. (1)'s largest magnitude: the Inf patterns
INF, MAX, NAN = 0x6F, 0x6E, 0x80
assert FORWARD[INF][0] == INF_SLOT and FORWARD[MAX][0] == 2**15 and len(FORWARD) == 127

# The lattice every operand is placed on: 0, the positive finite values, then the Inf slot.
_LAT = [(Fraction(0), 0x00, 0)] + sorted(
    (v, c, m) for c, (v, m) in FORWARD.items() if c != INF
) + [(INF_SLOT, INF, None)]
LAT_VAL = [v for v, _, _ in _LAT]
LAT_CODE = np.array([c for _, c, _ in _LAT], np.int64)
LAT_F64 = np.array([float(v) for v in LAT_VAL])
# rne's "even": the parity of the lower neighbour's significand integer q0 — its mantissa field for a
# normal (Table 3 widths are all >= 1), 1 (odd) for a denormal 2^E (mantissa width 0), 0 for zero.
LAT_EVEN = np.array([m is not None and m % 2 == 0 for _, _, m in _LAT])  # zero's entry has m = 0
LAST = len(_LAT) - 1
assert LAST == 127 and all(a < b for a, b in zip(LAT_VAL, LAT_VAL[1:]))


# -- Table 3, backwards (for decode) --------------------------------------------------------------
def table3_value(code: int) -> float:
    """The value of a code, read field by field as the paper describes it."""
    s, b = code >> 7, format(code & 0x7F, "07b")
    sign = -1.0 if s else 1.0
    if b.startswith(DML_PREFIX):
        m = int(b[4:], 2)
        if m == 0:
            return math.nan if s else 0.0  # Table 4: 0x80 NaN, 0x00 zero
        return sign * 2.0 ** (m - 23)
    d = next(d for d, p in PREFIX.items() if b.startswith(p))
    rest = b[len(PREFIX[d]):]
    em, man = rest[:d], rest[d:]
    assert len(man) == MANT_WIDTH[d]
    e = 0
    if d:
        ei = int("1" + em[1:], 2)  # Ei = {Se, 1, Mag[2:end]}
        e = -ei if em[0] == "1" else ei
    if e == 15 and man == "1" * len(man):
        return sign * math.inf
    return sign * 2.0**e * (1 + int(man, 2) / 2 ** len(man))


# -- the reference encoder ------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def _place(a: Fraction):
    """(i, d, beyond): ``a`` >= 0 lies in [LAT_VAL[i], LAT_VAL[i+1]) at fraction ``d`` of the gap, or at or
    beyond the Inf slot."""
    i = bisect.bisect_right(LAT_VAL, a) - 1
    if i == LAST:
        return i, Fraction(0), True
    return i, (a - LAT_VAL[i]) / (LAT_VAL[i + 1] - LAT_VAL[i]), False


def _exponent(a: Fraction) -> int:
    """floor(log2 a) of a positive dyadic rational."""
    assert a.denominator & (a.denominator - 1) == 0
    return a.numerator.bit_length() - a.denominator.bit_length()


class Operands:
    """Everything the reference needs about an array of source values, computed once, exactly."""

    def __init__(self, x):
        self.x = x
        self.src = next(n for n, dt in DTYPES.items() if x.dtype == dt)
        self.pattern = x.view(UINT[self.src]).astype(np.int64)
        with np.errstate(invalid="ignore"):  # signalling NaN patterns
            v = x.astype(np.float64)
        self.nan, self.inf = np.isnan(v), np.isinf(v)
        self.neg = np.signbit(v)
        self.zero = v == 0
        self.live = ~(self.nan | self.inf | self.zero)  # finite, non-zero
        n = v.size
        self.i = np.zeros(n, np.int64)
        self.d = np.full(n, Fraction(0), object)
        self.beyond = np.zeros(n, bool)
        self.E = np.zeros(n, np.int64)
        self.subnormal = np.zeros(n, bool)
        values = v.tolist()
        for k in np.flatnonzero(self.live).tolist():
            a = abs(Fraction(values[k]))  # float64 holds every source value exactly
            self.i[k], self.d[k], self.beyond[k] = _place(a)
            self.E[k] = _exponent(a)
            self.subnormal[k] = a < SRC_MIN_NORMAL[self.src]
        self.d_zero = np.array([dd == 0 for dd in self.d]) & ~self.beyond
        self.cmp_half = np.array([(dd > Fraction(1, 2)) - (dd < Fraction(1, 2)) for dd in self.d])

    def top_bits(self, k: int) -> np.ndarray:
        """floor(d · 2^k): the top k discarded bits."""
        return np.array([math.floor(dd * (1 << k)) for dd in self.d], np.int64)

    def hr_threshold(self):
        """(K, T): SR14 for FP32, SR2 (thresholds 0.25, 0.75) for FP16/BF16."""
        if self.src == "fp32":
            return 14, self.pattern & 0x3FFF
        return 2, 2 * (self.pattern & 1) + 1


def reference(ops: Operands, rounding, *, saturate=False, nan_to_zero=False, paper_literal=False,
              rand=None, rand_bits=16):
    """(codes, flags) of the paper's encoding of ``ops``."""
    if rounding == "ta":
        up = ops.cmp_half >= 0
    elif rounding == "rne":
        up = (ops.cmp_half > 0) | (ops.cmp_half == 0) & ~LAT_EVEN[ops.i]
    elif rounding == "rtz":
        up = np.zeros(ops.i.shape, bool)
    elif rounding == "sr":
        up = ops.top_bits(rand_bits) + np.asarray(rand, np.int64) >= (1 << rand_bits)
    elif rounding == "hr":
        k, t = ops.hr_threshold()
        sr = ops.top_bits(k) >= t
        if not paper_literal:
            sr &= ~ops.d_zero
        up = np.where(np.abs(ops.E) < 4, ops.cmp_half >= 0, sr)
    else:
        raise AssertionError(rounding)
    idx = np.minimum(ops.i + up, LAST)
    overflow = ops.live & (ops.beyond | (idx == LAST))
    code = LAT_CODE[idx].copy()
    code[overflow] = MAX if saturate or rounding == "rtz" else INF
    code[ops.zero] = 0
    code[ops.inf] = MAX if saturate else INF
    code = np.where(ops.neg & (code != 0), code | 0x80, code)  # one zero: -0 and -tiny give 0x00
    code[ops.nan] = 0x00 if nan_to_zero else NAN

    inexact = ops.live & (~ops.d_zero | up | overflow)
    flags = (NV * ops.nan | DN * ops.subnormal | OF * overflow
             | UF * (inexact & ~overflow & (LAT_F64[idx] < 2.0**-15))
             | NX * (inexact | ops.inf & saturate))
    return code.astype(np.uint8), flags.astype(np.uint8)


# -- operands -------------------------------------------------------------------------------------
def _all16(src):
    return np.arange(1 << 16, dtype=np.uint16).view(DTYPES[src])


def _directed_fp32():
    """Every lattice value and midpoint, each ±1 FP32 ulp, and the named thresholds, both signs."""
    lat = LAT_F64
    points = [*lat, *((lat[:-1] + lat[1:]) / 2),
              1.25 * 2**15, 2.0**-23,  # TA overflow and underflow thresholds (also midpoints above)
              2.0**3, 2.0**4, 2.0**-3, 2.0**-4, 15.5, 15.75,  # |E| = 3 / 4 boundaries of HR
              2.0**16, 2.0**17, 2.0**-24, 2.0**-25, 2.0**-126, 2.0**-149, float(np.finfo(np.float32).max)]
    p = np.array(points, np.float32)
    with np.errstate(over="ignore"):  # FLT_MAX's upper neighbour is Inf: wanted
        p = np.concatenate([p, np.nextafter(p, np.float32(np.inf)), np.nextafter(p, np.float32(0))])
    p = np.concatenate([p, [np.inf, np.nan, 0.0]]).astype(np.float32)
    return np.concatenate([p, -p])


def _random_fp32(n=20_000, seed=2024):
    """Half uniform bit patterns; half in the HiF8 range 2^-26..2^17 with, for a third of them, the k low
    mantissa bits cleared (exact values, ties, SR14 thresholds of zero)."""
    rng = np.random.default_rng(seed)
    uniform = rng.integers(0, 1 << 32, n // 2, dtype=np.uint64).astype(np.uint32)
    m = n - n // 2
    e = rng.integers(-26, 18, m)
    man = rng.integers(0, 1 << 23, m, dtype=np.uint64)
    k = rng.integers(0, 24, m).astype(np.uint64)
    man = np.where(rng.random(m) < 1 / 3, man >> k << k, man)
    ranged = (rng.integers(0, 2, m, dtype=np.uint64) << 31) | ((e + 127).astype(np.uint64) << 23) | man
    return np.concatenate([uniform, ranged.astype(np.uint32)]).view(np.float32)


@functools.lru_cache(maxsize=None)
def operands(source: str) -> Operands:
    if source == "fp32":
        return Operands(np.concatenate([_directed_fp32(), _random_fp32()]))
    return Operands(_all16(source))


def golden(x, path, **kwargs):
    """Golden (codes, flags) through its exact path (small arrays) or its memoised path (≥ 2^16)."""
    if path == "lut":
        reps = -(-LUT_MIN // x.size)
        codes, flags = encode_with_flags("hif8", np.tile(x, reps), **kwargs)
        return codes[: x.size], flags[: x.size]
    codes, flags = [], []
    for chunk in np.array_split(x, -(-x.size // (LUT_MIN - 1))):  # keep each call below the threshold
        c, f = encode_with_flags("hif8", chunk, **kwargs)
        codes.append(c)
        flags.append(f)
    return np.concatenate(codes), np.concatenate(flags)


def assert_same(x, got, want):
    (gc, gf), (wc, wf) = got, want
    bad = np.flatnonzero((gc != wc) | (gf != wf))
    assert bad.size == 0, f"{bad.size} mismatches, first: " + "; ".join(
        f"x={x[k]!r} (0x{int(x.view(UINT['fp32' if x.dtype == np.float32 else 'fp16'])[k]):x}) "
        f"got 0x{gc[k]:02x}/{gf[k]} want 0x{wc[k]:02x}/{wf[k]}" for k in bad[:5])


# -- the reference itself ---------------------------------------------------------------------------
def test_forward_and_backward_readings_of_table3_agree():
    for code in range(256):
        want = table3_value(code)
        mag = code & 0x7F
        if mag == INF:
            assert want == (-math.inf if code & 0x80 else math.inf)
        elif mag == 0:
            assert (code == 0 and want == 0.0) or (code == NAN and math.isnan(want))
        else:
            assert want == (-1) ** (code >> 7) * float(FORWARD[mag][0])


def test_reference_reproduces_the_documented_thresholds():
    ops = Operands(np.float32([40960.0, np.nextafter(np.float32(40960), np.float32(0)), 2.0**-23,
                               np.nextafter(np.float32(2.0**-23), np.float32(0)), 15.5, 0.75 * 2**-19]))
    assert list(reference(ops, "ta")[0]) == [INF, MAX, 0x01, 0x00, 0x40, 0x04]
    assert list(reference(ops, "rne")[0]) == [MAX, MAX, 0x00, 0x00, 0x40, 0x04]


# -- decode ----------------------------------------------------------------------------------------
def test_decode_every_code_matches_table3():
    got = decode("hif8", np.arange(256)).astype(np.float64)
    want = np.array([table3_value(c) for c in range(256)])
    assert np.array_equal(got, want, equal_nan=True)
    assert np.isnan(got).sum() == 1 and (got == 0).sum() == 1  # one NaN (0x80), one zero (0x00)


@pytest.mark.parametrize("target", ["fp32", "fp16", "bf16"])
def test_decode_bits_is_exact_in_every_target(target):
    codes = np.array([c for c in range(256) if c != NAN])
    got = decode_bits("hif8", codes, target).view(DTYPES[target]).astype(np.float64)
    assert np.array_equal(got, [table3_value(c) for c in codes])


@pytest.mark.parametrize("code, value", [
    (0x6E, 2.0**15), (0x7E, 2.0**-15), (0x07, 2.0**-16), (0x01, 2.0**-22),
    (0x6F, math.inf), (0xEF, -math.inf), (0x80, math.nan), (0x00, 0.0),
])
def test_table4_values(code, value):
    got = float(decode("hif8", np.array([code]))[0])
    assert got == value or math.isnan(value) and math.isnan(got)
    if not math.isnan(value):
        assert encode("hif8", np.float32([value]))[0] == code


# -- encode against the reference -----------------------------------------------------------------
OPTIONS = [dict(), dict(saturate=True), dict(nan_to_zero=True), dict(saturate=True, nan_to_zero=True)]


@pytest.mark.parametrize("opts", OPTIONS, ids=["plain", "sat", "nan2zero", "sat+nan2zero"])
@pytest.mark.parametrize("rounding", ["ta", "rne", "rtz", "hr"])
@pytest.mark.parametrize("source", ["fp16", "bf16", "fp32"])
def test_golden_matches_reference(source, rounding, opts):
    ops = operands(source)
    want = reference(ops, rounding, **opts)
    paths = ["exact", "lut"] if source == "fp32" else ["lut"]  # a 16-bit table is the exact model itself
    for path in paths:
        assert_same(ops.x, golden(ops.x, path, rounding=rounding, **opts), want)


@pytest.mark.parametrize("source", ["fp16", "bf16", "fp32"])
def test_hr_paper_literal_matches_reference(source):
    ops = operands(source)
    want = reference(ops, "hr", paper_literal=True)
    assert_same(ops.x, golden(ops.x, "exact", rounding="hr", paper_literal=True), want)


def _xorshift32_draws(seed: int, n: int, r: int) -> np.ndarray:
    """Draw i = top r bits of the (i+1)-th xorshift32 (13, 17, 5) state after seed (0 → 0x9E3779B9)."""
    s = seed % 2**32 or 0x9E3779B9
    out = []
    for _ in range(n):
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        out.append(s >> (32 - r))
    return np.array(out, np.int64)


@pytest.mark.parametrize("rand_bits", [1, 4, 16, 32])
@pytest.mark.parametrize("source", ["fp16", "bf16", "fp32"])
def test_sr_matches_reference_with_the_seeded_draws(source, rand_bits):
    full = operands(source)
    keep = np.random.default_rng(rand_bits).choice(full.x.size, 3000, replace=False)
    ops = Operands(full.x[np.sort(keep)])
    rand = _xorshift32_draws(77, ops.x.size, rand_bits)
    want = reference(ops, "sr", rand=rand, rand_bits=rand_bits)
    assert_same(ops.x, encode_with_flags("hif8", ops.x, rounding="sr", seed=77, rand_bits=rand_bits), want)


@pytest.mark.parametrize("x, code, flags", [
    (-0.0, 0x00, 0),
    (-(2.0**-24), 0x00, UF | NX),  # a negative underflow to zero is the one zero, not 0x80 (NaN)
    (-(2.0**-23), 0x81, UF | NX),  # the TA tie at 2^-23 goes away from zero
    (2.0**15, MAX, 0),
    (40960.0, INF, OF | NX),  # 1.25 × 2^15: TA's overflow threshold
    (-40960.0, 0xEF, OF | NX),
    (24.0, 0x42, 0),
    (np.inf, INF, 0),
    (-np.inf, 0xEF, 0),
    (np.nan, NAN, NV),
])
def test_specials_and_thresholds_under_ta(x, code, flags):
    got = encode_with_flags("hif8", np.float32([x]))
    assert (int(got[0][0]), int(got[1][0])) == (code, flags)


def test_saturation_and_rtz_give_max_instead_of_inf():
    x = np.float32([40960.0, -40960.0, 2.0**16, np.inf, -np.inf])
    assert list(encode("hif8", x, saturate=True)) == [MAX, 0xEE, MAX, MAX, 0xEE]
    assert list(encode_flags("hif8", x, saturate=True)) == [OF | NX] * 3 + [NX] * 2
    assert list(encode("hif8", x, rounding="rtz")) == [MAX, 0xEE, MAX, INF, 0xEF]
    assert list(encode_flags("hif8", x, rounding="rtz")) == [NX, NX, OF | NX, 0, 0]
    # rtz overflows only from the Inf slot 1.5 × 2^15 = 49152 up
    x = np.float32([49152.0, np.nextafter(np.float32(49152.0), np.float32(0))])
    assert list(encode("hif8", x, rounding="rtz")) == [MAX, MAX]
    assert list(encode_flags("hif8", x, rounding="rtz")) == [OF | NX, NX]


def test_rne_tie_at_the_overflow_threshold_goes_down_to_max():
    x = np.float32([40960.0, np.nextafter(np.float32(40960.0), np.float32(np.inf))])
    assert list(encode("hif8", x, rounding="rne")) == [MAX, INF]
    assert list(encode("hif8", x, rounding="ta")) == [INF, INF]


# -- properties ------------------------------------------------------------------------------------
FINITE_CODES = np.array([c for c in range(256) if c not in (NAN, INF, INF | 0x80)])


@pytest.mark.parametrize("rounding", ROUNDINGS)
@pytest.mark.parametrize("source", ["fp32", "fp16", "bf16"])
def test_encode_decode_is_identity_on_finite_codes(source, rounding):
    x = decode("hif8", FINITE_CODES).astype(DTYPES[source])
    x = np.concatenate([x, DTYPES[source](-0.0).reshape(1)])  # -0 is the one zero, 0x00
    for path in ["exact", "lut"]:
        codes, flags = golden(x, path, rounding=rounding, seed=5)
        assert np.array_equal(codes, [*FINITE_CODES, 0x00])
        assert not (flags & (0xFF ^ DN)).any()  # exact: no flag but "denormal" (2^-22..2^-15 are FP16 subnormals)
    if source == "fp16":  # FP16 subnormals: 2^-22..2^-16 and 2^-15, 1.5 × 2^-15, both signs
        assert (flags == DN).sum() == 2 * 9


@HYPOTHESIS
@given(seed=st.integers(0, 2**32 - 1), rand_bits=st.integers(1, 32), source=st.sampled_from(list(DTYPES)))
def test_sr_keeps_finite_codes_for_any_seed(seed, rand_bits, source):
    x = decode("hif8", FINITE_CODES).astype(DTYPES[source])
    assert np.array_equal(encode("hif8", x, rounding="sr", seed=seed, rand_bits=rand_bits), FINITE_CODES)


@pytest.mark.parametrize("rounding", ["ta", "rne", "rtz"])
@pytest.mark.parametrize("source", ["fp16", "bf16", "fp32"])
def test_deterministic_rounding_is_monotonic_on_sorted_inputs(source, rounding):
    x = operands(source).x
    if source == "fp32":
        x = np.concatenate([x, (np.random.default_rng(9).standard_normal(200_000) * 2.0**6).astype(np.float32)])
    with np.errstate(invalid="ignore"):
        v = x.astype(np.float64)
    x = np.sort(v[~np.isnan(v)]).astype(x.dtype)
    for sat in (False, True):
        y = decode("hif8", encode("hif8", x, rounding=rounding, saturate=sat)).astype(np.float64)
        assert np.all(y[1:] >= y[:-1])


finite32 = st.floats(width=32, allow_nan=False, allow_infinity=False)
in_range32 = st.floats(min_value=-(2.0**16), max_value=2.0**16, width=32)


@HYPOTHESIS
@given(a=finite32, b=finite32)
def test_ta_is_monotonic_on_pairs(a, b):
    x = np.sort(np.float32([a, b]))
    y = decode("hif8", encode("hif8", x)).astype(np.float64)
    assert y[0] <= y[1]


def _neighbour_codes(ops):
    """Magnitude codes of the lower and upper neighbour (the upper one is Inf at the top)."""
    return LAT_CODE[ops.i], LAT_CODE[np.minimum(ops.i + 1, LAST)]


def _check_hr_rounds_to_a_neighbour(x):
    ops = Operands(x)
    got = encode("hif8", x, rounding="hr").astype(np.int64) & 0x7F
    lo, hi = _neighbour_codes(ops)
    live = ops.live & ~ops.beyond
    assert np.all(((got == lo) | (got == hi))[live])
    assert np.all(got[ops.live & ops.beyond] == INF)
    small = ops.live & (np.abs(ops.E) < 4)
    assert np.array_equal(encode("hif8", x[small], rounding="hr"), encode("hif8", x[small], rounding="ta"))


@pytest.mark.parametrize("source", ["fp16", "bf16", "fp32"])
def test_hr_gives_one_of_the_two_neighbours_and_ta_below_e4(source):
    _check_hr_rounds_to_a_neighbour(operands(source).x)


@HYPOTHESIS
@given(xs=st.lists(in_range32, min_size=1, max_size=32))
def test_hr_gives_one_of_the_two_neighbours_hypothesis(xs):
    _check_hr_rounds_to_a_neighbour(np.float32(xs))


def test_hr_sr2_differs_from_ta_only_as_the_rule_says():
    """FP16: for |E| >= 4, up iff F2 = floor(4d) >= T2 = (LSB, 1) and d != 0; TA below. Both directions
    of disagreement with TA occur (F2 = 1, LSB 0 rounds up below the midpoint; F2 = 2, LSB 1 rounds down
    above it)."""
    ops = operands("fp16")
    x, live = ops.x, ops.live & ~ops.beyond
    ta = encode("hif8", x, rounding="ta")
    hr = encode("hif8", x, rounding="hr")
    f2, t2 = ops.top_bits(2), 2 * (ops.pattern & 1) + 1
    sr_up = (f2 >= t2) & ~ops.d_zero
    ta_up = ops.cmp_half >= 0
    expect_diff = live & (np.abs(ops.E) >= 4) & (sr_up != ta_up)
    assert np.array_equal(hr != ta, expect_diff)
    assert np.any(expect_diff & sr_up) and np.any(expect_diff & ~sr_up)
    # The differing codes are the other neighbour.
    lo, hi = _neighbour_codes(ops)
    assert np.array_equal((hr.astype(np.int64) & 0x7F)[expect_diff], np.where(sr_up, hi, lo)[expect_diff])


def test_documented_hr_examples():
    """docs/hif8.md "HR examples": FP16 subnormals take SR2 with their true exponent; 15.5 (E = 3) is TA."""
    x = np.array([0x0001, 0x0002, 0x0003, 0x4C40, 0x4C60, 0x4CA0, 0x4CA1, 0x4BC0], np.uint16).view(np.float16)
    assert list(encode("hif8", x, rounding="hr")) == [0x00, 0x01, 0x01, 0x41, 0x41, 0x41, 0x40, 0x40]
    assert list(encode("hif8", x, rounding="ta")) == [0x00, 0x01, 0x01, 0x40, 0x40, 0x41, 0x41, 0x40]
    assert list(Operands(x).E) == [-24, -23, -23, 4, 4, 4, 4, 3]


@pytest.mark.parametrize("source", ["fp16", "bf16"])
def test_paper_literal_changes_nothing_for_16_bit_sources(source):
    x = operands(source).x
    assert np.array_equal(encode_with_flags("hif8", x, rounding="hr", paper_literal=True),
                          encode_with_flags("hif8", x, rounding="hr"))


def _paper_literal_moves(x):
    default = encode("hif8", x, rounding="hr")
    literal = encode("hif8", x, rounding="hr", paper_literal=True)
    ops = Operands(x)
    exact = ops.live & ops.d_zero  # on the lattice (finite, non-zero HiF8 values)
    expect = exact & (np.abs(ops.E) >= 4) & ((ops.pattern & 0x3FFF) == 0)
    assert np.array_equal(default != literal, expect)
    return expect


def test_paper_literal_moves_exactly_the_exact_values_with_e_ge_4():
    x = np.concatenate([operands("fp32").x, decode("hif8", FINITE_CODES).astype(np.float32)])
    moved = _paper_literal_moves(x)
    assert moved.sum() >= 2 * (126 - 56)  # every finite value but the 56 with |E| < 4, both signs
    # 24 = 1.5 × 2^4 moves up one step; 2^15 moves into the Inf slot (overflow); 2^-22 to 2^-21.
    x = np.float32([24.0, 2.0**15, -(2.0**15), 2.0**-22, 8.0, 0.0, -0.0])
    got = encode_with_flags("hif8", x, rounding="hr", paper_literal=True)
    assert [int(c) for c in got[0]] == [0x43, INF, 0xEF, 0x02, 0x28, 0x00, 0x00]
    assert [int(f) for f in got[1]] == [NX, OF | NX, OF | NX, UF | NX, 0, 0, 0]


@HYPOTHESIS
@given(xs=st.lists(in_range32, min_size=1, max_size=32))
def test_paper_literal_moves_exactly_the_exact_values_hypothesis(xs):
    _paper_literal_moves(np.float32(xs))


@pytest.mark.parametrize("v", [1 + 2.0**-6, 300.0, 1.3 * 2.0**-18, 0.3 * 2.0**-22, 40000.0])
def test_sr_mean_over_many_seeds_approaches_the_input(v):
    """100 seeds × 1000 copies: the share rounded up approaches d (within 0.01 ≈ 6 standard deviations),
    so the mean approaches the input; at 40000 the upper neighbour is the Inf slot."""
    x = np.full(1000, v, np.float32)
    ops = Operands(x[:1])
    lo, hi = LAT_CODE[ops.i[0]], LAT_CODE[ops.i[0] + 1]
    codes = np.concatenate([encode("hif8", x, rounding="sr", seed=s) for s in range(1, 101)])
    assert set(np.unique(codes)) == {lo, hi}
    share_up = float(np.mean(codes == hi))
    assert abs(share_up - float(ops.d[0])) < 0.01
    if hi != INF:
        mean = float(decode("hif8", codes).astype(np.float64).mean())
        assert abs(mean - float(np.float32(v))) < 0.01 * (LAT_F64[ops.i[0] + 1] - LAT_F64[ops.i[0]])


def test_papers_te_versus_ta_example_at_e0():
    """§3.1: 00.1, 01.1, 10.1 in units of the last kept bit (2^-3 at E = 0): TE gives 00, 10, 10 (two
    results), TA gives 01, 10, 11 (three)."""
    u = 2.0**-3
    x = np.float32([1 + 0.5 * u, 1 + 1.5 * u, 1 + 2.5 * u])
    te = decode("hif8", encode("hif8", x, rounding="rne")).astype(np.float64)
    ta = decode("hif8", encode("hif8", x, rounding="ta")).astype(np.float64)
    assert list(te) == [1.0, 1 + 2 * u, 1 + 2 * u] and len(set(te)) == 2
    assert list(ta) == [1 + u, 1 + 2 * u, 1 + 3 * u] and len(set(ta)) == 3


# -- errors ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("rounding", ["te", "rtn", "TA", "nearest", ""])
def test_unknown_rounding_names_the_valid_ones(rounding):
    with pytest.raises(ValueError, match=r"format 'hif8' has no rounding .*; valid choices: ta, hr, sr, rne, rtz"):
        encode("hif8", np.float32([1.0]), rounding=rounding)


@pytest.mark.parametrize("fmt, rounding", [("hif8", None), ("hif8", "ta"), ("hif8", "sr"), ("hif8", "rne"),
                                           ("hif8", "rtz"), ("e4m3", "rne")])
def test_paper_literal_needs_hybrid_rounding(fmt, rounding):
    with pytest.raises(ValueError, match=r"paper_literal applies to HiF8 hybrid rounding \(rounding='hr'\) only"):
        encode(fmt, np.float32([1.0]), rounding=rounding, paper_literal=True)
