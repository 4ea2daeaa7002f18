"""The golden FP8 encoder and decoder against an independent oracle: ml_dtypes' casts.

ml_dtypes (the numpy float8 dtypes of JAX/XLA) rounds to nearest, ties to even, gives NaN on overflow
and for infinities where the format has no infinity, keeps ±Inf for E5M2, and maps -0 to +0 in the FNUZ
formats: exactly ``encode(fmt, x, rounding="rne")`` with the defaults. Both encoder paths are checked:
the memoised lookup table (arrays of at least ``_LUT_MIN_SIZE`` elements) and the exact model
``_encode_exact`` it is built from.

Fast tier: every FP16 and BF16 pattern, and 10M random FP32 patterns per format (half uniform over all
2**32 patterns, half weighted to the format's range) through both paths, in 1M chunks. Slow tier
(``-m slow``): 40M more FP32 patterns per format.
"""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

from fpforge.golden import decode, decode_bits, encode, get_format, minifloat
from fpforge.golden.formats import SOURCES

from helpers import all_patterns

__all__: list[str] = []

#: Golden format name -> the ml_dtypes type of the same format.
ORACLE = {
    "e4m3": ml_dtypes.float8_e4m3fn,
    "e5m2": ml_dtypes.float8_e5m2,
    "e4m3fnuz": ml_dtypes.float8_e4m3fnuz,
    "e5m2fnuz": ml_dtypes.float8_e5m2fnuz,
}
FORMATS = list(ORACLE)

SOURCE_DTYPES = {"fp16": np.float16, "bf16": ml_dtypes.bfloat16}

#: Random FP32 patterns per format and chunk (bounds memory; chunks spread over xdist workers).
CHUNK = 1_000_000
FAST_CHUNKS = 10  # 10M per format, through both paths, in the fast tier
SLOW_CHUNKS = 50  # 40M more per format in the slow tier


def oracle_encode(fmt: str, x: np.ndarray) -> np.ndarray:
    """ml_dtypes' cast of ``x`` into ``fmt``, as uint8 codes (NaN-cast warnings silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with np.errstate(invalid="ignore", over="ignore"):
            return x.astype(ORACLE[fmt]).view(np.uint8)


def oracle_cast_codes(fmt: str, codes: np.ndarray, dtype) -> np.ndarray:
    """ml_dtypes' cast of FP8 ``codes`` into ``dtype`` (float32, float16 or bfloat16)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with np.errstate(invalid="ignore"):
            return codes.astype(np.uint8).view(ORACLE[fmt]).astype(dtype)


def exact_encode(fmt: str, x: np.ndarray) -> np.ndarray:
    """The golden exact model (no lookup table), rounding to nearest even, no options."""
    src = next(s for s in SOURCES.values() if s.dtype == x.dtype)
    codes, _ = minifloat._exact(get_format(fmt), src, x, ("rne", False, False), None)
    return codes


def assert_same_codes(got: np.ndarray, want: np.ndarray, x: np.ndarray, what: str) -> None:
    """Fail with the first mismatches printed as input bits, expected and actual codes."""
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    bad = np.flatnonzero(got.ravel() != want.ravel())
    if bad.size:
        bits = x.ravel().view(np.uint32 if x.dtype.itemsize == 4 else np.uint16)
        width = 2 * x.dtype.itemsize
        rows = [
            f"  x=0x{int(bits[i]):0{width}X} ({float(x.ravel()[i])!r}): expected 0x{int(want.ravel()[i]):02X}, "
            f"got 0x{int(got.ravel()[i]):02X}"
            for i in bad[:10]
        ]
        pytest.fail(f"{what}: {bad.size} of {got.size} differ; first:\n" + "\n".join(rows))


# -- encode: every 16-bit pattern ----------------------------------------------------------------
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("src", ["fp16", "bf16"])
def test_encode_all_16bit_patterns_lut_path_matches_ml_dtypes(fmt, src):
    x = all_patterns(src)
    assert x.size >= minifloat._LUT_MIN_SIZE  # takes the memoised path
    assert_same_codes(encode(fmt, x, rounding="rne"), oracle_encode(fmt, x), x, f"{src}->{fmt} lut")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("src", ["fp16", "bf16"])
def test_encode_all_16bit_patterns_exact_path_matches_ml_dtypes(fmt, src):
    x = all_patterns(src)
    want = oracle_encode(fmt, x)
    assert_same_codes(exact_encode(fmt, x), want, x, f"{src}->{fmt} _encode_exact")
    # The public function on arrays below the table threshold is the exact path too.
    step = minifloat._LUT_MIN_SIZE // 4
    got = np.concatenate([encode(fmt, x[i : i + step]) for i in range(0, x.size, step)])
    assert_same_codes(got, want, x, f"{src}->{fmt} encode() on small arrays")


# -- encode: random FP32 patterns ------------------------------------------------------------------
def _fp32_chunk(sample, fmt, chunk):
    return sample(get_format(fmt), CHUNK, [20240611, FORMATS.index(fmt), chunk])


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    "chunk",
    [*range(FAST_CHUNKS)] + [pytest.param(c, marks=pytest.mark.slow) for c in range(FAST_CHUNKS, SLOW_CHUNKS)],
)
def test_encode_random_fp32_both_paths_match_ml_dtypes(fmt, chunk, golden_fp32_sample):
    x = _fp32_chunk(golden_fp32_sample, fmt, chunk)
    want = oracle_encode(fmt, x)
    assert x.size >= minifloat._LUT_MIN_SIZE  # encode() takes the memoised path
    assert_same_codes(encode(fmt, x, rounding="rne"), want, x, f"fp32->{fmt} lut")
    assert_same_codes(exact_encode(fmt, x), want, x, f"fp32->{fmt} _encode_exact")


@pytest.mark.parametrize("fmt", FORMATS)
def test_encode_fp32_neighbourhood_of_every_fp8_value_matches_ml_dtypes(fmt):
    """Every FP8 value, its midpoints to the neighbours and ±1..3 FP32 ulps around all of them."""
    vals = decode(fmt, np.arange(256)).astype(np.float64)
    vals = np.unique(vals[np.isfinite(vals)])
    mids = (vals[:-1] + vals[1:]) / 2  # exact in float64, and in float32 (one more bit than FP8)
    top, tiny = vals[-1], vals[vals > 0][0]  # largest finite, smallest subnormal
    ends = np.array([top * 1.0625, top * 1.125, 2 * top, tiny / 2, tiny / 4])
    base = np.concatenate([vals, mids, ends, -ends]).astype(np.float32)
    bits = base.view(np.int32).astype(np.int64)
    x = np.concatenate([bits + d for d in range(-3, 4)])
    x = x[(x >= np.iinfo(np.int32).min) & (x <= np.iinfo(np.int32).max)].astype(np.int32).view(np.float32)
    want = oracle_encode(fmt, x)
    assert_same_codes(exact_encode(fmt, x), want, x, f"fp32->{fmt} _encode_exact")
    padded = np.resize(x, minifloat._LUT_MIN_SIZE)
    assert_same_codes(encode(fmt, padded)[: x.size], want, x, f"fp32->{fmt} lut")


# -- decode --------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", FORMATS)
def test_decode_all_codes_bit_exact_against_ml_dtypes(fmt):
    codes = np.arange(256, dtype=np.uint8)
    got = decode(fmt, codes)
    assert got.dtype == np.float32
    want = oracle_cast_codes(fmt, codes, np.float32)
    # Bit for bit, NaNs included: both give the quiet NaN with the code's sign bit.
    assert_same_codes(got.view(np.uint32), want.view(np.uint32), codes, f"decode {fmt}")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    "target, dtype, qnan, sign",
    [
        ("fp16", np.float16, 0x7E00, 0x8000),
        ("bf16", ml_dtypes.bfloat16, 0x7FC0, 0x8000),
        ("fp32", np.float32, 0x7FC00000, 0x80000000),
    ],
)
def test_decode_bits_matches_ml_dtypes_casts(fmt, target, dtype, qnan, sign):
    codes = np.arange(256, dtype=np.uint8)
    got = decode_bits(fmt, codes, target)
    uint = np.uint32 if target == "fp32" else np.uint16
    assert got.dtype == uint
    want = oracle_cast_codes(fmt, codes, dtype)
    nan = np.isnan(want.astype(np.float32))
    assert nan.sum() == {"e4m3": 2, "e5m2": 6, "e4m3fnuz": 1, "e5m2fnuz": 1}[fmt]
    assert_same_codes(got[~nan], want.view(uint)[~nan], codes[~nan], f"decode_bits {fmt}->{target}")
    # NaN codes: the target's canonical quiet NaN with the code's sign bit (FNUZ's 0x80 is "negative").
    want_nan = np.where(codes[nan] & 0x80, qnan | sign, qnan).astype(uint)
    assert_same_codes(got[nan], want_nan, codes[nan], f"decode_bits {fmt}->{target} NaNs")


# -- OCP MX element formats (FP6 E3M2 / E2M3, FP4 E2M1): no Inf, no NaN --------------------------
#: ml_dtypes rounds to nearest even and saturates overflow and ±Inf to ±max, as fpforge's clamp does.
#: A NaN operand has no representation: the OCP MX spec leaves its conversion to the implementation;
#: ml_dtypes gives a zero, fpforge gives ±max with the NaN's sign and the invalid flag (docs/semantics.md).
ELEMENT_ORACLE = {
    "e3m2": ml_dtypes.float6_e3m2fn,
    "e2m3": ml_dtypes.float6_e2m3fn,
    "e2m1": ml_dtypes.float4_e2m1fn,
}


def _element_oracle(fmt, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with np.errstate(invalid="ignore", over="ignore"):
            return x.astype(ELEMENT_ORACLE[fmt]).view(np.uint8)


def _not_nan(x):
    with np.errstate(invalid="ignore"):
        return ~np.isnan(x.astype(np.float32))


@pytest.mark.parametrize("fmt", list(ELEMENT_ORACLE))
@pytest.mark.parametrize("src", ["fp16", "bf16", "fp32"])
def test_element_format_encode_matches_ml_dtypes_outside_nan(fmt, src):
    if src == "fp32":
        rng = np.random.default_rng([7, list(ELEMENT_ORACLE).index(fmt)])
        uniform = rng.integers(0, 1 << 32, 1_000_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
        near = (rng.standard_normal(1_000_000) * 2.0 ** rng.integers(-12, 8, 1_000_000)).astype(np.float32)
        x = np.concatenate([uniform, near])
    else:
        x = all_patterns(src)
    ok = _not_nan(x)
    want = _element_oracle(fmt, x)
    for what, got in (("lut", encode(fmt, x, rounding="rne")), ("exact", exact_encode(fmt, x))):
        assert_same_codes(got[ok], want[ok], x[ok], f"{src}->{fmt} {what}")


@pytest.mark.parametrize("fmt", list(ELEMENT_ORACLE))
def test_element_format_decode_matches_ml_dtypes_and_nan_clamps(fmt):
    f = get_format(fmt)
    codes = np.arange(1 << f.bits, dtype=np.uint8)
    want = codes.view(ELEMENT_ORACLE[fmt]).astype(np.float32)
    assert_same_codes(decode(fmt, codes).view(np.uint32), want.view(np.uint32), codes, f"decode {fmt}")
    assert f.max_value == float(ml_dtypes.finfo(ELEMENT_ORACLE[fmt]).max)
    nan = np.array([np.nan, -np.nan], np.float32)
    from fpforge.golden import encode_flags

    assert encode(fmt, nan).tolist() == [f.max_code, f.sign_mask | f.max_code]
    assert encode(fmt, nan, nan_to_zero=True).tolist() == [0, 0]
    assert encode_flags(fmt, nan).tolist() == [1, 1]  # invalid only
