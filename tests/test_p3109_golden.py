"""The IEEE P3109 binary8 formats (binary8p1..p7, signed/unsigned, extended/finite) against gfloat, an
independent implementation of P3109 (graphcore-research; ``format_info_p3109(k, precision, signedness,
domain)``).

* Descriptors: limits and special codes equal gfloat's ``FormatInfo`` (max, smallest normal and
  subnormal, the NaN and Inf codes, the number of NaNs).
* Decode: every code of every format equals ``gfloat.decode_ndarray``.
* Encode: every FP16 and every BF16 pattern, under ``rne``, ``rtz``, ``ta`` and ``sr``, saturating or not,
  equals ``gfloat.encode_ndarray(round_ndarray(...))``; ``sr`` with R random bits is gfloat's
  ``StochasticFastest`` with the same bits (round up when ``d + rand * 2**-R >= 1``, which is fpforge's
  ``floor(d * 2**R) + rand >= 2**R`` for integer ``rand``).
* Flags: derived from gfloat's roundings, not from fpforge: overflow when the value rounded with the same
  precision but an unbounded exponent range exceeds the largest finite value; inexact when the delivered
  value differs from the operand (or overflowed, or an infinity saturated); underflow when inexact and the
  delivered value is below the smallest normal; invalid for NaN operands, infinities a finite format does
  not saturate, and negative operands of an unsigned format; denormal for subnormal operands.
* Negative operands of an unsigned format: gfloat leaves them undefined; fpforge gives the NaN and the
  invalid flag (as for Tesla UHP, docs/p3109.md), and -0 gives +0.
* FP32: 200k random patterns per format (half weighted to the format's range) under every rounding.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from fpforge.golden import decode, encode_with_flags, get_format, random_bits
from fpforge.golden.formats import P3109_FORMATS

gfloat = pytest.importorskip("gfloat", reason="gfloat (the independent P3109 oracle) is not installed")
from gfloat.formats import format_info_p3109  # noqa: E402
from gfloat.types import Domain, FormatInfo, RoundMode, Signedness  # noqa: E402

MODES = {"rne": RoundMode.TiesToEven, "rtz": RoundMode.TowardZero, "ta": RoundMode.TiesToAway,
         "sr": RoundMode.StochasticFastest}
R = 12  # random bits per value for sr
SOURCES = {"fp16": np.float16, "bf16": ml_dtypes.bfloat16}


def info(name) -> FormatInfo:
    """gfloat's FormatInfo of ``binary8p<P><s|u><e|f>``, built from the name alone."""
    p, s, e = int(name[8]), name[9] == "s", name[10] == "e"
    return format_info_p3109(8, p, Signedness.Signed if s else Signedness.Unsigned,
                             Domain.Extended if e else Domain.Finite)


def unbounded(fi: FormatInfo) -> FormatInfo:
    """``fi``'s precision, bias and subnormals with a 10-bit exponent field (exponents up to ~2^9, beyond any
    source value): its rounding of a source value is the rounding to ``fi`` before overflow (what decides
    the overflow flag)."""
    return FormatInfo(f"{fi.name}_wide", fi.precision + 10, fi.precision, bias=fi.bias, is_signed=True,
                      domain=Domain.Extended, has_nz=True, num_high_nans=0, has_subnormals=True,
                      is_twos_complement=False)


def gfloat_codes_and_flags(fi, x, rounding, saturate, rand):
    with np.errstate(invalid="ignore"):  # signalling NaNs
        v = np.asarray(x).astype(np.float64)
    kw = dict(srbits=rand, srnumbits=R) if rounding == "sr" else {}
    with np.errstate(all="ignore"):
        r = gfloat.round_ndarray(fi, v, MODES[rounding], saturate, **kw)
        codes = gfloat.encode_ndarray(fi, r)
        wide = np.abs(gfloat.round_ndarray(unbounded(fi), v, MODES[rounding], False, **kw))
    finite = np.isfinite(v)
    nonzero = finite & (v != 0)
    negative = np.signbit(v) & (v != 0) & ~np.isnan(v) & (not fi.is_signed)
    overflow = nonzero & (wide > fi.max)
    inf_op = np.isinf(v)
    inexact = (nonzero & (r != v)) | overflow | (inf_op & saturate)
    underflow = inexact & ~overflow & nonzero & (np.abs(r) < fi.smallest_normal)
    invalid = np.isnan(v) | (inf_op & ~saturate & (fi.domain == Domain.Finite)) | negative
    denormal = nonzero & (np.abs(v) < float(ml_dtypes.finfo(x.dtype).smallest_normal))
    flags = (invalid * 1 | denormal * 2 | (overflow & ~negative) * 4 | (underflow & ~negative) * 8
             | (inexact & ~negative) * 16)
    return codes, flags, negative


def _check(name, x, rounding, saturate, seed=7):
    f, fi = get_format(name), info(name)
    rand = random_bits(seed, x.size, R).astype(np.int64) if rounding == "sr" else None
    codes, flags = encode_with_flags(f, x, rounding=rounding, saturate=saturate, rand=rand, rand_bits=R)
    want, want_flags, negative = gfloat_codes_and_flags(fi, x, rounding, saturate, rand)
    # gfloat leaves negative operands of unsigned formats undefined: fpforge gives the NaN.
    want = np.where(negative, fi.code_of_nan, want)
    bad = np.nonzero((codes != want) | (flags != want_flags))[0]
    bits = x.view(np.uint16 if x.itemsize == 2 else np.uint32)
    assert not bad.size, [(hex(int(bits[i])), hex(int(codes[i])), hex(int(want[i])), int(flags[i]),
                           int(want_flags[i])) for i in bad[:6]]


@pytest.mark.parametrize("name", P3109_FORMATS)
def test_descriptor_limits_and_codes_equal_gfloat(name):
    f, fi = get_format(name), info(name)
    assert (f.bits, f.precision, f.bias, f.signed) == (fi.k, fi.precision, fi.bias, fi.is_signed)
    assert (f.max_value, f.min_normal, f.min_subnormal) == (fi.max, fi.smallest_normal, fi.smallest)
    assert f.emax == fi.emax and f.max_code == fi.code_of_max
    assert f.nan_code() == f.nan_code(True) == fi.code_of_nan and not f.has_neg_zero
    assert f.inf_code == (fi.code_of_posinf if f.has_inf else None)
    codes = np.arange(256)
    assert int(np.isnan(decode(f, codes)).sum()) == fi.num_nans == 1


@pytest.mark.parametrize("name", P3109_FORMATS)
def test_decode_every_code_equals_gfloat(name):
    ref = gfloat.decode_ndarray(info(name), np.arange(256))
    got = decode(name, np.arange(256)).astype(np.float64)
    assert np.array_equal(got, ref, equal_nan=True)
    assert np.array_equal(np.signbit(got[~np.isnan(got)]), np.signbit(ref[~np.isnan(ref)]))


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("name", P3109_FORMATS)
def test_every_16_bit_pattern_equals_gfloat(name, source):
    x = np.arange(1 << 16, dtype=np.uint16).view(SOURCES[source])
    for rounding in MODES:
        for saturate in (False, True):
            _check(name, x, rounding, saturate)


@pytest.mark.parametrize("name", P3109_FORMATS)
def test_random_fp32_equal_gfloat(name, golden_fp32_sample):
    x = golden_fp32_sample(get_format(name), 200_000, seed=sum(map(ord, name)))
    for rounding in MODES:
        _check(name, x, rounding, saturate=rounding == "rtz")


def test_unsigned_formats_map_negative_operands_to_nan():
    x = np.float32([-1.0, -0.0, -np.inf, -1e-30, 1.0])
    codes, flags = encode_with_flags("binary8p3ue", x)
    assert codes.tolist() == [0xFF, 0x00, 0xFF, 0xFF, get_format("binary8p3ue").bias << 2]
    assert flags.tolist() == [1, 0, 1, 1, 0]


def test_precision_1_ties_go_to_the_even_exponent():
    """binary8p1se has no mantissa bits: 1.5 lies halfway between 1 (code 0x40) and 2 (0x41); ties to even
    pick the even code, so the exponent's LSB decides (3 -> 4 = 0x42, 6 -> 4 = 0x42, 12 -> 16 = 0x44)."""
    codes = encode_with_flags("binary8p1se", np.float32([1.5, 3.0, 6.0, 12.0, 0.75]), rounding="rne")[0]
    assert codes.tolist() == [0x40, 0x42, 0x42, 0x44, 0x40]
