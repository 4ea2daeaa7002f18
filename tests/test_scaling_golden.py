"""The per-tensor scaling golden model (``fpforge.golden.scaling``) against independent references.

- the FP32 product against numpy's float32 multiply (an IEEE 754 oracle) on every BF16 pattern × 16
  scales and 2M random pairs aimed at the subnormal, tie and overflow ranges; its flags against exact
  rational arithmetic (``fractions.Fraction``);
- scaled casts against ml_dtypes' casts of numpy's product (every OCP FP8/FP6/FP4 and FNUZ type,
  saturating and not); for formats ml_dtypes lacks (HiF8, CFloat8) against the plain encoder of numpy's
  product;
- scales against numpy float32 division and Transformer Engine's bit mask for power-of-two scales;
  delayed scaling against a transcription of TE's ``amax_and_scale_update`` kernel;
- unscale and the scaled-dot epilogue against numpy float32 arithmetic in the documented order.
"""

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from fpforge.golden import decode, encode, encode_with_flags, get_format, list_formats
from fpforge.golden.errors import FpforgeTypeError, FpforgeValueError
from fpforge.golden.scaling import (
    SCALE_RANGE,
    DelayedScaling,
    amax,
    epilogue,
    format_max,
    fp32_mul,
    pow2_mul,
    running_amax,
    scale_from_amax,
    scale_inv,
    scale_to_fp8,
    scaled_dot,
    scaled_encode_with_flags,
    unscale,
)

F = np.float32
FLT_MAX = np.finfo(np.float32).max
ML = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2, "e4m3fnuz": ml_dtypes.float8_e4m3fnuz,
      "e5m2fnuz": ml_dtypes.float8_e5m2fnuz, "e3m2": ml_dtypes.float6_e3m2fn, "e2m3": ml_dtypes.float6_e2m3fn,
      "e2m1": ml_dtypes.float4_e2m1fn}
#: Every scalar format of at most 8 bits (and the bias a run-time-bias one is checked at): new descriptors
#: (IEEE P3109, ...) join these tests without code changes.
SMALL = [n for n in list_formats(kind="scalar") if get_format(n).bits <= 8]


def _bias(name):
    return 20 if get_format(name).runtime_bias else None


def _bits(v):
    return np.asarray(v, np.float32).view(np.uint32)


def _pairs(n, seed):
    """Random FP32 pairs: half uniform bit patterns, half whose product exponent lies near -149..-120,
    120..128 or 0, with short significands half of the time (exact products and ties)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64)
    s = rng.integers(0, 1 << 32, n, dtype=np.uint64)
    h = n // 2
    T = rng.choice(np.concatenate([np.arange(-152, -118), np.arange(118, 130), np.arange(-3, 4)]), h)
    ea = rng.integers(-126, 128, h)
    es = np.clip(T - ea, -126, 127)
    for arr, e in ((a, ea), (s, es)):
        man = rng.integers(0, 1 << 23, h).astype(np.uint64)
        man = np.where(rng.random(h) < 0.5, man & ~np.uint64(0xFFF), man)
        arr[:h] = (rng.integers(0, 2, h).astype(np.uint64) << np.uint64(31)) | ((e + 127).astype(np.uint64) << 23) | man
    return a.astype(np.uint32).view(F), s.astype(np.uint32).view(F)


def _numpy_product(x, s):
    with np.errstate(all="ignore"):
        return (x.astype(F) * s.astype(F)).astype(F)


def _same_product(p, ref):
    """Bit-equal, except that every NaN must be the canonical 0x7FC00000."""
    nan = np.isnan(ref)
    assert (_bits(p)[nan] == 0x7FC00000).all()
    assert (_bits(p)[~nan] == _bits(ref)[~nan]).all()


def test_product_equals_numpy_on_every_bf16_pattern_times_scales():
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(ml_dtypes.bfloat16)
    scales = np.array([0x3F800000, 0x3F400001, 0x00000001, 0x00000003, 0x007FFFFF, 0x00800000, 0x2F1A2B3C,
                       0x7E800000, 0x4F7FFFFF, 0x80C00000, 0x7F7FFFFF, 0x1F800001, 0, 0x80000000, 0x7F800000,
                       0x7FC00000], np.uint32).view(F)
    for s in scales:
        p, _ = fp32_mul(x, s)
        _same_product(p, _numpy_product(x, np.full(x.shape, s)))


def test_product_equals_numpy_on_random_pairs():
    x, s = _pairs(2_000_000, seed=5)
    p, flags = fp32_mul(x, s)
    _same_product(p, _numpy_product(x, s))


def test_product_flags_against_exact_arithmetic():
    x, s = _pairs(6000, seed=6)
    p, flags = fp32_mul(x, s)
    for xi, si, pi, fl in zip(x.tolist(), s.tolist(), p.tolist(), flags.tolist()):
        finite = np.isfinite(xi) and np.isfinite(si)
        nan = np.isnan(pi)
        inexact = finite and (np.isinf(pi) or Fraction(pi) != Fraction(xi) * Fraction(si))
        overflow = finite and np.isinf(pi)
        sub = any(v != 0 and abs(v) < 2.0**-126 for v in (xi, si))
        under = inexact and not overflow and abs(pi) < 2.0**-126
        want = nan * 1 | sub * 2 | overflow * 4 | under * 8 | inexact * 16
        assert fl == want, (xi, si, pi)


def test_pow2_product_equals_the_fp32_product_with_a_power_of_two_scale():
    rng = np.random.default_rng(7)
    x, _ = _pairs(200_000, seed=7)
    k = rng.integers(-149, 128, x.size)
    p2, f2 = pow2_mul(x, k)
    p, f = fp32_mul(x, np.ldexp(F(1), k).astype(F))
    assert (_bits(p2) == _bits(p)).all()
    sub_scale = k < -126  # the scale operand itself is subnormal: only the FP32 product reports it
    assert (f == (f2 | np.where(sub_scale, 2, 0))).all()
    _same_product(p2, _numpy_product(x, np.ldexp(F(1), k).astype(F)))


@pytest.mark.parametrize("name", sorted(ML))
@pytest.mark.parametrize("saturate", [False, True])
def test_scaled_cast_equals_ml_dtypes_cast_of_the_numpy_product(name, saturate):
    x, s = _pairs(400_000, seed=8)
    rng = np.random.default_rng(9)
    s = np.where(rng.random(s.size) < 0.5, s, np.exp2(rng.integers(-20, 20, s.size)).astype(F))  # in range
    codes, _ = scaled_encode_with_flags(name, x, s, saturate=saturate)
    p = _numpy_product(x, s)
    keep = ~np.isnan(p)
    if saturate:
        with np.errstate(invalid="ignore"):
            p = np.clip(p, -format_max(name), format_max(name))
    fmt = get_format(name)
    with np.errstate(over="ignore", invalid="ignore"):
        ref = p.astype(ML[name]).view(np.uint8).astype(np.int64)
    if fmt.bits < 8:
        ref &= (1 << fmt.bits) - 1
    if not fmt.has_nan:  # the narrow MX types clamp (ml_dtypes: sign kept)
        keep &= np.isfinite(p) | saturate
    assert (codes[keep] == ref[keep]).all()


@pytest.mark.parametrize("name", [n for n in SMALL if n not in ML])
def test_scaled_cast_is_the_encoder_of_the_product_for_formats_without_an_oracle(name):
    x, s = _pairs(200_000, seed=10)
    bias = _bias(name)
    codes, flags = scaled_encode_with_flags(name, x, s, saturate=True, bias=bias)
    p = _numpy_product(x, s)
    ref, rflags = encode_with_flags(name, np.where(np.isnan(p), np.uint32(0x7FC00000).view(F), p), saturate=True,
                                    bias=bias)
    assert (codes == ref).all()
    assert ((flags & rflags) == rflags).all()


def test_rfc_worked_example():
    x = F([2.0**-14, 2, 7])  # seed 002: amax 7 -> scale 64 -> [2^-8, 128, 448]
    s = scale_from_amax(amax(x), "e4m3")
    assert s == 64
    assert decode("e4m3", scale_to_fp8(x, s, "e4m3")).tolist() == [2.0**-8, 128, 448]


@pytest.mark.parametrize("name", SMALL)
def test_scale_from_amax_is_one_fp32_division(name):
    rng = np.random.default_rng(11)
    bias = _bias(name)
    a = np.concatenate([rng.integers(1, 0x7F800000, 50_000, dtype=np.uint32).view(F),
                        F([1e-45, 1e-40, 2.0**-126, 1, 448, FLT_MAX])])
    for margin in (0, 1, 3):
        top = F(np.ldexp(format_max(name, bias), -margin))
        with np.errstate(over="ignore"):
            ref = (top / a).astype(F)  # numpy float32 division: IEEE round to nearest even
        ref = np.clip(np.where(np.isinf(ref), FLT_MAX, ref), *SCALE_RANGE)
        assert (_bits(scale_from_amax(a, name, margin=margin, bias=bias)) == _bits(ref)).all()
        masked = (_bits(ref) & np.uint32(0xFF800000)).view(F)  # TE's force_pow_2_scales
        pow2 = scale_from_amax(a, name, margin=margin, pow2=True, bias=bias)
        assert (_bits(pow2) == _bits(np.maximum(masked, SCALE_RANGE[0]))).all()


def test_unusable_amax_keeps_the_previous_scale():
    a = F([0, np.inf, np.nan, -0.0])
    assert scale_from_amax(a, "e4m3", prev_scale=F(0.25)).tolist() == [0.25] * 4
    assert scale_from_amax(F(0), "e5m2") == 1  # current scaling: TE's 1.0


def _te_reference(amaxes, length, algo, fmax, margin, pow2):
    """Transformer Engine's delayed scaling, transcribed from amax_and_scale_update (recipe/delayed_scaling.cu)
    plus compute_scale_from_amax's Inf clamp and power-of-two mask: history[0] holds the step's amax; the
    kernel rolls the history by one, zeroes slot 0 and reduces with fmaxf (NaN-ignoring)."""
    hist = np.zeros(length, np.float32)
    scale, out = F(1), []
    scaled_max = F(fmax * 2.0**-margin)
    for a in amaxes:
        hist[0] = a
        last = hist[0]
        rolled = np.concatenate([hist[1:], [last]])
        m = F(0)
        for v in rolled:
            m = v if np.isnan(m) else (m if np.isnan(v) else max(m, v))
        use = last if algo == "most_recent" else m
        hist = np.concatenate([[0], rolled[1:]]).astype(np.float32)
        if np.isfinite(use) and use > 0:
            with np.errstate(over="ignore"):
                s = F(scaled_max / F(use))
            s = F(FLT_MAX) if np.isinf(s) else s
            if pow2:
                s = (np.array(s, F).view(np.uint32) & np.uint32(0xFF800000)).view(F)[()]
            scale = max(s, SCALE_RANGE[0])
        out.append(F(scale))
    return out


@pytest.mark.parametrize("length", [1, 2, 16])
@pytest.mark.parametrize("algo", ["max", "most_recent"])
@pytest.mark.parametrize("margin,pow2", [(0, False), (1, False), (0, True)])
def test_delayed_scaling_matches_transformer_engine(length, algo, margin, pow2):
    rng = np.random.default_rng(12)
    amaxes = np.exp2(rng.normal(0, 4, 200)).astype(F)
    amaxes[[10, 50, 51, 120]] = [0, np.nan, np.inf, 1e-44]
    ds = DelayedScaling("e4m3", length, algo, margin, pow2)
    got = [ds.update(a) for a in amaxes]
    assert [float(v) for v in got] == [float(v) for v in _te_reference(amaxes, length, algo, 448, margin, pow2)]
    assert ds.steps == 200 and ds.history[-1] == amaxes[-1]


def test_amax_and_running_amax():
    rng = np.random.default_rng(13)
    x = (rng.standard_normal((300, 4)) * 100).astype(F)
    assert amax(x) == np.abs(x).max()
    b = x.astype(ml_dtypes.bfloat16)
    assert amax(b) == np.abs(b.astype(F)).max()
    assert np.isnan(amax(F([1, np.nan, -np.inf]))) and amax(F([1, -np.inf])) == np.inf
    assert amax(F([])) == 0 and amax(np.zeros((0, 3), F), axis=1).shape == (0,)
    first = rng.random(300) < 0.1
    ref, run = [], F(0)
    for row, f in zip(x, first):
        run = np.abs(row).max() if f else max(run, np.abs(row).max())
        ref.append(run)
    assert (running_amax(x, first) == F(ref)).all()


def test_unscale_is_a_float32_multiply_by_the_inverse_scale():
    rng = np.random.default_rng(14)
    codes = rng.integers(0, 256, 10_000)
    for s in (F(64), F(3e-7), F(1.7e10)):
        inv = F(1) / s
        with np.errstate(invalid="ignore", over="ignore"):
            ref = (decode("e4m3", codes) * inv).astype(F)
        got = unscale(codes, s, "e4m3")
        assert (np.isnan(got) == np.isnan(ref)).all() and (got[~np.isnan(ref)] == ref[~np.isnan(ref)]).all()
        assert scale_inv(s) == inv


def test_epilogue_rounds_in_the_documented_order():
    rng = np.random.default_rng(15)
    r = (rng.standard_normal(20_000) * 2.0 ** rng.integers(-30, 30, 20_000)).astype(F)
    sa, sb, so = F(3e-3), F(1.1e-2), F(700.3)
    res = epilogue(r, sa, sb, so, "e4m3")
    s_ab = sa * sb
    assert (_bits(res.y) == _bits(r * (s_ab * so))).all()
    assert res.amax == np.abs(r * s_ab).max() == np.abs(r).max() * s_ab
    with np.errstate(invalid="ignore", over="ignore"):
        ref = np.clip(res.y, -448, 448).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    assert (res.codes == ref).all()


def test_scaled_dot_is_dot_then_epilogue():
    from fpforge.golden.dot import dot

    rng = np.random.default_rng(16)
    a = encode("e4m3", rng.standard_normal((500, 16)).astype(F))
    b = encode("e4m3", rng.standard_normal((500, 16)).astype(F))
    res = scaled_dot(a, b, F(0.5), F(0.25), F(8), "e5m2", fmt="e4m3", f=32)
    ref = dot("e4m3", a, "e4m3", b, f=32).value
    assert (_bits(res.y) == _bits(ref * F(1.0))).all()  # 0.5 * 0.25 * 8 = 1 exactly
    assert res.amax == np.abs(ref * F(0.125)).max()
    assert (res.codes == encode("e5m2", ref, saturate=True)).all()


@pytest.mark.parametrize("name", SMALL)
def test_every_small_format_casts_to_a_nearest_value_under_its_scale(name):
    rng = np.random.default_rng(17)
    bias = _bias(name)
    x = (rng.standard_normal(4096) * 1e-3).astype(F)
    if not get_format(name).signed:  # an unsigned format (IEEE P3109 binary8p*u*) holds magnitudes only
        x = np.abs(x)
    s = scale_from_amax(amax(x), name, bias=bias)
    codes = scale_to_fp8(x, s, name, bias=bias)
    grid = decode(name, np.arange(1 << get_format(name).bits), bias=bias).astype(np.float64)
    grid = np.unique(grid[np.isfinite(grid)])  # every value of the format: an encoder-free reference
    v = x.astype(np.float64) * np.float64(s)
    nearest = np.abs(grid[None, :] - v[:, None]).min(axis=1)
    err = np.abs(decode(name, codes, bias=bias).astype(np.float64) - v)
    assert (err <= nearest + np.abs(v) * 2.0**-23).all()  # slack: the FP32 product's own rounding
    q = unscale(codes, s, name, bias=bias)
    if s < FLT_MAX:  # (binary8p1u*'s max, 2^125, over this amax clamps the scale at FLT_MAX: no saturation)
        assert np.abs(q).max() <= np.abs(x).max() * (1 + 2.0**-22)  # saturating: never beyond amax (up to FP32)
    ds = DelayedScaling(name, 4, bias=bias)
    ds.step(x)
    assert ds.scale == s


def test_empty_tensors():
    assert scale_to_fp8(F([]), F(2), "e4m3").shape == (0,)
    assert unscale(np.zeros(0, np.uint8), F(2), "e4m3").shape == (0,)
    assert amax(F([])) == 0 and scale_from_amax(amax(F([])), "e4m3", prev_scale=F(3)) == 3
    assert epilogue(F([]), F(1), F(1)).amax == 0


@pytest.mark.parametrize("call,exc,text", [
    (lambda: scale_to_fp8(F([1]), 0.0, "e4m3"), FpforgeValueError, "finite and positive, not 0.0"),
    (lambda: scale_to_fp8(F([1]), -2.0, "e4m3"), FpforgeValueError, "not -2.0"),
    (lambda: scale_to_fp8(F([1]), float("nan"), "e4m3"), FpforgeValueError, "not nan"),
    (lambda: scale_to_fp8(F([1]), float("inf"), "e4m3"), FpforgeValueError, "not inf"),
    (lambda: scale_to_fp8(F([1]), 0.1, "e4m3"), FpforgeValueError, "np.float32(0.1)"),
    (lambda: scale_to_fp8(np.float64([1]), 1.0, "e4m3"), FpforgeTypeError, "float32, bfloat16 or float16"),
    (lambda: scale_to_fp8(F([1]), "2", "e4m3"), FpforgeTypeError, "must be a float"),
    (lambda: scale_to_fp8(F([1]), 1.0, "mx9"), FpforgeValueError, "scalar formats"),
    (lambda: scale_to_fp8(F([1]), 1.0, "cfloat8_143"), FpforgeValueError, "pass bias="),
    (lambda: unscale([1], 0.0, "e4m3"), FpforgeValueError, "finite and positive"),
    (lambda: scale_inv(float("inf")), FpforgeValueError, "finite and positive"),
    (lambda: scale_from_amax(-1.0, "e4m3"), FpforgeValueError, "amax must be >= 0"),
    (lambda: scale_from_amax(1.0, "e4m3", margin=-1), FpforgeValueError, "margin must be an integer in 0..64"),
    (lambda: scale_from_amax(1.0, "e4m3", prev_scale=0.0), FpforgeValueError, "prev_scale"),
    (lambda: DelayedScaling("e4m3", 0), FpforgeValueError, "history_len"),
    (lambda: DelayedScaling("e4m3", algo="mean"), FpforgeValueError, "max, most_recent"),
    (lambda: DelayedScaling("e4m3", pow2=1), FpforgeTypeError, "pow2"),
    (lambda: DelayedScaling("e4m3").update([1.0, 2.0]), FpforgeValueError, "one amax per step"),
    (lambda: pow2_mul(F([1]), 300), FpforgeValueError, "-256..255"),
    (lambda: pow2_mul(F([1]), 1.5), FpforgeTypeError, "integers"),
    (lambda: scaled_encode_with_flags("e4m3", F([1])), FpforgeValueError, "exactly one of scale"),
    (lambda: epilogue(F([1]), F(1e30), F(1e30)), FpforgeValueError, "leaves FP32"),
    (lambda: epilogue(np.float64([1]), F(1), F(1)), FpforgeTypeError, "float32"),
])
def test_bad_input_is_one_clear_error(call, exc, text):
    with pytest.raises(exc) as e:
        call()
    assert text in str(e.value) and "\n" not in str(e.value)


def test_the_unit_model_takes_any_fp32_scale():
    x = F([1.5, -2, 0, np.inf])
    codes, flags = scaled_encode_with_flags("e4m3", x, F(-1), saturate=True)
    assert decode("e4m3", codes).tolist() == [-1.5, 2, -0.0, -448]
    codes, flags = scaled_encode_with_flags("e4m3", x, F(0))
    assert decode("e4m3", codes[:3]).tolist() == [0, -0.0, 0] and codes[3] == 0x7F and flags[3] & 1
    codes, flags = scaled_encode_with_flags("e5m2", x, F(np.nan))
    assert (codes == 0x7E).all() and (flags & 1).all()  # the canonical (positive) NaN


def test_scaled_dot_passes_the_operands_biases_through():
    """CFloat8 operands carry their run-time biases into the dot product; the epilogue then multiplies by
    fp32(fp32(scale_a * scale_b) * inv_scale_out), here checked with numpy's own float32 arithmetic."""
    from fpforge.golden.dot import dot
    from fpforge.golden.scaling import scaled_dot

    rng = np.random.default_rng(5)
    a = rng.integers(0, 256, (50, 16)).astype(np.uint8)
    b = rng.integers(0, 256, (50, 16)).astype(np.uint8)
    bias_a, bias_b = rng.integers(0, 64, 50), 20
    res = scaled_dot(a, b, 0.5, 3.0, 0.25, fmt="cfloat8_143", fmt_b="cfloat8_143", f=32, bias_a=bias_a, bias_b=bias_b)
    raw = dot("cfloat8_143", a, "cfloat8_143", b, f=32, bias_a=bias_a, bias_b=bias_b).value
    c = np.float32(np.float32(0.5) * np.float32(3.0)) * np.float32(0.25)
    np.testing.assert_array_equal(res.y.view(np.uint32), (raw * c).astype(np.float32).view(np.uint32))
    with pytest.raises(ValueError, match="bias"):
        scaled_dot(a, b, 1.0, 1.0, fmt="cfloat8_143", f=32)
