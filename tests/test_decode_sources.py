"""decode() of the source formats is the exact widening numpy and ml_dtypes do (a view for FP32, a shift for
BF16), bit for bit — NaN payloads, signalling NaNs, -0, infinities, subnormals — with the argument checks
of every other format (bench/bench_golden.py measures the speed)."""

import ml_dtypes
import numpy as np
import pytest

from fpforge.golden import decode
from fpforge.golden.errors import FpforgeTypeError, FpforgeValueError

#: FP32 specials: +-0, +-inf, quiet and signalling NaNs with payloads, subnormals, the extremes.
FP32_SPECIALS = np.array([0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001,
                          0xFF800001, 0x7FA5A5A5, 0xFFFFFFFF, 0x7FFFFFFF, 0x7FC00001, 0x00000001, 0x80000001,
                          0x007FFFFF, 0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000], dtype=np.uint32)


def _fp32_codes():
    rng = np.random.default_rng(30)
    return np.concatenate([FP32_SPECIALS, rng.integers(0, 1 << 32, 100_000, dtype=np.uint32)])


def test_fp32_decode_is_the_bit_pattern():
    codes = _fp32_codes()
    got = decode("fp32", codes)
    assert got.dtype == np.float32 and got.shape == codes.shape
    assert np.array_equal(got.view(np.uint32), codes)
    assert np.signbit(decode("fp32", 0x80000000)) and decode("fp32", 0x7F800000) == np.inf


@pytest.mark.parametrize("make", [
    lambda c: c.astype(np.int64),
    lambda c: c.astype(np.uint64),
    lambda c: c.astype(">u4"),
    lambda c: np.repeat(c, 2)[::2],  # not contiguous
    lambda c: c.reshape(4, 5),
    lambda c: [int(v) for v in c],
], ids=["int64", "uint64", "big-endian", "strided", "2-d", "list"])
def test_fp32_decode_of_every_integer_representation(make):
    got = decode("fp32", make(FP32_SPECIALS))
    assert np.array_equal(np.asarray(got).reshape(-1).view(np.uint32), FP32_SPECIALS)


def test_fp32_decode_returns_a_new_array():
    codes = FP32_SPECIALS.copy()
    out = decode("fp32", codes)
    out[:] = 1.0
    assert np.array_equal(codes, FP32_SPECIALS)


def test_fp32_decode_checks_its_codes():
    with pytest.raises(FpforgeValueError, match=r"codes of fp32 must be integer codes in 0\.\.4294967295.*4294967296"):
        decode("fp32", np.array([1, 1 << 32], np.int64))
    with pytest.raises(FpforgeValueError, match="not -1"):
        decode("fp32", [-1])
    with pytest.raises(FpforgeTypeError):
        decode("fp32", FP32_SPECIALS.view(np.float32))


def test_fp16_decode_is_numpys_widening():
    codes = np.arange(1 << 16, dtype=np.uint16)
    got = decode("fp16", codes).view(np.uint32)
    ref = codes.view(np.float16).astype(np.float32).view(np.uint32)
    c = codes.astype(np.uint32)
    snan = (c & 0x7C00 == 0x7C00) & (c & 0x3FF != 0) & (c & 0x200 == 0)
    # every code but the signalling NaNs as numpy casts them; those (some CPUs' casts quiet them) keep sign,
    # exponent and payload exactly
    assert np.array_equal(got[~snan], ref[~snan])
    assert np.array_equal(got[snan], ((c & 0x8000) << 16 | 0x7F800000 | (c & 0x3FF) << 13)[snan])
    assert snan.sum() == 2 * 511


def test_bf16_decode_is_ml_dtypes_widening():
    codes = np.arange(1 << 16, dtype=np.uint16)
    got = decode("bf16", codes)
    assert np.array_equal(got.view(np.uint32), codes.view(ml_dtypes.bfloat16).astype(np.float32).view(np.uint32))
    assert np.array_equal(got.view(np.uint32) >> 16, codes)


def test_per_element_bias_decodes_as_each_bias():
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 256, 3000, dtype=np.uint8)
    bias = rng.integers(0, 64, 3000)
    got = decode("cfloat8_143", codes, bias=bias)
    ref = np.concatenate([decode("cfloat8_143", codes[i:i + 1], bias=int(bias[i])) for i in range(len(codes))])
    assert np.array_equal(got.view(np.uint32), ref.view(np.uint32))
    with pytest.raises(FpforgeValueError, match="0..63"):
        decode("cfloat8_143", codes[:2], bias=[3, 64])


@pytest.mark.parametrize("name, kw", [("e4m3", {}), ("e4m3fnuz", {}), ("e5m2", {}), ("hif8", {}),
                                      ("hif8", {"compat": "ascend"}), ("e2m1", {}), ("uhp", {}), ("fp16", {}),
                                      ("bf16", {}), ("cfloat8_143", {"bias": 9}), ("binary8p3se", {})])
def test_decode_bits_to_fp32_is_the_encode_of_the_values(name, kw):
    """decode_bits(..., "fp32") takes the decoded values' bits (NaNs made canonical) instead of encoding
    them into FP32 through the general encoder: the same words for every code."""
    from fpforge.golden import decode_bits, encode, get_format

    codes = np.arange(1 << get_format(name).bits)
    got = decode_bits(name, codes, "fp32", **kw)
    want = encode("fp32", decode(name, codes, **kw), rounding="rne")
    assert got.dtype == want.dtype == np.uint32 and np.array_equal(got, want)
    assert decode_bits(name, 1, "fp32", **kw).shape == ()


def test_fp32_decode_bits_is_canonical():
    from fpforge.golden import decode_bits

    got = decode_bits("fp32", FP32_SPECIALS)
    nan = np.isnan(FP32_SPECIALS.view(np.float32))
    assert np.array_equal(got[~nan], FP32_SPECIALS[~nan])
    assert np.array_equal(got[nan], FP32_SPECIALS[nan] & 0x80000000 | 0x7FC00000)


def _all_sources():
    rng = np.random.default_rng(3)
    words = np.concatenate([FP32_SPECIALS, rng.integers(0, 1 << 32, 50_000, dtype=np.uint32)])
    return [("fp32", words.view(np.float32)), ("fp16", np.arange(1 << 16, dtype=np.uint16).view(np.float16)),
            ("bf16", np.arange(1 << 16, dtype=np.uint16).view(ml_dtypes.bfloat16))]


@pytest.mark.parametrize("opts", [("rne", False, False), ("ta", True, False), ("rtz", False, True),
                                  ("rne", True, True)])
def test_encode_into_fp32_is_the_exact_model(opts):
    """encode_with_flags into FP32 takes a normal or zero operand's bits directly: the same codes and flags
    as the exact model for every FP16 and BF16 operand and random FP32 ones with the specials."""
    from fpforge.golden import encode_with_flags, get_format, source_of

    fp32 = get_format("fp32")
    rounding, saturate, nan_to_zero = opts
    for name, x in _all_sources():
        codes, flags = encode_with_flags("fp32", x, rounding=rounding, saturate=saturate, nan_to_zero=nan_to_zero)
        want_codes, want_flags = fp32.encode_exact(source_of(x), x, rounding, saturate, nan_to_zero, None)
        assert np.array_equal(codes, want_codes) and np.array_equal(flags, want_flags), name
        assert codes.dtype == want_codes.dtype and flags.dtype == want_flags.dtype
    c, f = encode_with_flags("fp32", np.float32(-2.5))
    assert c.shape == f.shape == () and int(c) == 0xC0200000 and int(f) == 0
