"""The exact model of a sign/exponent/mantissa format (:class:`~fpforge.golden.floatformat.FloatFormat`)
and its value tables, as the descriptor's ``encode_exact`` and ``value_table`` methods use them.

They read only the descriptor's data, so they sit below the descriptor class; :mod:`fpforge.golden.minifloat`
(the conversions by format name, the memoised fast path, decoding) builds on them and re-exports them.
The rules are stated in :mod:`fpforge.golden.minifloat`'s docstring.
"""

from __future__ import annotations

import numpy as np

from .checks import as_int
from .classify import classify
from .errors import FpforgeValueError
from .registry import Flag
from .rounding import round_up

__all__ = ["MAX_TABLE_BITS", "code_dtype", "encode_exact", "value_table"]


def code_dtype(bits: int):
    """Smallest unsigned numpy dtype holding ``bits``-bit codes."""
    bits = as_int(bits, "bits", 0)
    for dt in (np.uint8, np.uint16, np.uint32, np.uint64):
        if bits <= np.dtype(dt).itemsize * 8:
            return np.dtype(dt)
    raise FpforgeValueError(f"codes wider than 64 bits are not supported, not {bits!r}")


def _emin_and_subnormal_exp(fmt, bias=None):
    """``(emin, exponent of the denormal quantum's binade)``: the descriptor's, or from per-element run-time
    ``bias`` values (the guide's CFloat denormals sit one binade below IEEE's)."""
    if bias is None:
        return fmt.emin, fmt.subnormal_exp
    emin = 1 - bias
    return emin, (emin - 1 if fmt.denormals == "cfloat" else emin)


def encode_exact(fmt, src, x, rounding, saturate, nan_to_zero, draws, bias=None):
    """The exact model of a :class:`FloatFormat` (see the module docstring); ``bias``: per-element biases
    (run-time-bias formats)."""
    shape = x.shape
    bits = x.ravel().view(code_dtype(src.bits)).astype(np.int64)
    cls = classify(src, bits)
    sign, nan, inf, subnormal = cls.sign, cls.nan, cls.inf, cls.subnormal

    with np.errstate(invalid="ignore"):  # signalling NaNs
        v = np.abs(x.ravel().astype(np.float64))
    finite = ~(nan | inf)
    nonzero = finite & (v != 0)
    M = fmt.mbits
    emin, sub_e = _emin_and_subnormal_exp(fmt, bias)
    with np.errstate(invalid="ignore", divide="ignore"):
        _, e = np.frexp(np.where(nonzero, v, 1.0))
    E = np.where(nonzero, e.astype(np.int64) - 1, emin)
    qe = np.where(E >= emin, E, sub_e) - M
    s = np.ldexp(np.where(nonzero, v, 0.0), -qe)
    q0 = np.floor(s)
    d = s - q0
    q0 = q0.astype(np.int64)

    # Ties to even look at the code's LSB: q0's, unless the format has no mantissa bits (P3109 p = 1), where
    # the hidden bit is q0 and the LSB is the exponent field's.
    mag = (np.maximum(E - emin, 0) << M) + q0
    mag += round_up(mag, d, rounding, *(draws if rounding == "sr" else ()))
    inexact = nonzero & (d != 0)
    if fmt.denormals == "cfloat":
        # The gap between the largest denormal lo and the smallest normal hi: round between those two,
        # with d = (v - lo) / (hi - lo) (all products below are exact in float64).
        lo = ((1 << M) - 1) * np.ldexp(1.0, sub_e - M)
        hi = np.ldexp(1.0, emin)
        with np.errstate(invalid="ignore"):
            gap = nonzero & (v > lo) & (v < hi)
        if gap.any():
            with np.errstate(invalid="ignore"):
                dv, step = v - lo, hi - lo
            if rounding in ("rne", "ta"):  # lo's significand 2**M - 1 is odd: a tie goes to hi
                gup = 2 * dv >= step
            elif rounding == "rtz":
                gup = np.zeros(gap.shape, bool)
            else:  # sr: floor(d * 2**R) + rand >= 2**R  <=>  (v - lo) * 2**R >= (2**R - rand) * (hi - lo)
                r, rand_bits = draws
                gup = np.ldexp(dv, rand_bits) >= ((1 << rand_bits) - r) * step
            mag = np.where(gap, np.where(gup, 1 << M, (1 << M) - 1), mag)
            inexact |= gap
    if fmt.ftz:  # a result below the smallest normal is flushed to zero
        flushed = nonzero & (mag > 0) & (mag < (1 << M))
        mag = np.where(flushed, 0, mag)
        inexact |= flushed
    overflow = nonzero & (mag > fmt.max_code)

    smask = fmt.sign_mask
    neg = sign == 1

    def signed(magnitude):
        return magnitude | np.where(neg, smask, 0)

    # A format without NaN clamps: it always saturates, and a NaN operand becomes ±max.
    saturate = saturate or not fmt.has_nan
    nan_code = np.where(neg, fmt.nan_code(True), fmt.nan_code(False)) if fmt.has_nan else signed(fmt.max_code)

    # Finite results: an overflow gives ±max when saturating (and under rtz, as IEEE 754 does),
    # else ±Inf where the format has it, else NaN.
    code = signed(mag)
    if not fmt.has_neg_zero:
        code = np.where(mag == 0, 0, code)
    if saturate or rounding == "rtz":
        code = np.where(overflow, signed(fmt.max_code), code)
    elif fmt.has_inf:
        code = np.where(overflow, signed(fmt.inf_code), code)
    else:
        code = np.where(overflow, nan_code, code)

    # Infinite operands: ±max when saturating, ±Inf where the format has it, else NaN (invalid).
    inf_invalid = not saturate and not fmt.has_inf
    if saturate:
        code = np.where(inf, signed(fmt.max_code), code)
    elif fmt.has_inf:
        code = np.where(inf, signed(fmt.inf_code), code)
    else:
        code = np.where(inf, nan_code, code)
    # An unsigned format has no negative non-zero value: such operands (and -Inf) give the canonical NaN
    # and only the invalid flag (and denormal, for a subnormal operand). -0 is +0.
    if not fmt.signed:
        negative = neg & (nonzero | inf)
        nan = nan | negative
        inf, overflow, inexact = inf & ~negative, overflow & ~negative, inexact & ~negative
    code = np.where(nan, 0 if nan_to_zero else nan_code, code)

    flags = np.zeros(v.shape, np.int64)
    flags |= np.where(nan | (inf & inf_invalid), int(Flag.INVALID), 0)
    flags |= np.where(subnormal, int(Flag.DENORMAL), 0)
    flags |= np.where(overflow, int(Flag.OVERFLOW), 0)
    flags |= np.where(inexact & ~overflow & (mag < (1 << M)), int(Flag.UNDERFLOW), 0)
    flags |= np.where(inexact | overflow | (inf & saturate), int(Flag.INEXACT), 0)

    return (
        code.astype(code_dtype(fmt.bits)).reshape(shape),
        flags.astype(np.uint8).reshape(shape),
    )


# Memoised value tables (decode): one float64 entry per code, for formats of at most MAX_TABLE_BITS bits
# (a table is then at most 2**16 * 8 bytes = 512 KiB); at most _TABLES_KEEP tables (80 MiB) are kept, the
# oldest dropped first. Wider formats (FP32) are decoded directly, never through a table.
MAX_TABLE_BITS = 16
_TABLES: dict = {}
_TABLES_KEEP = 160  # fixed-bias descriptors of run-time-bias formats: one table per bias at most


def _code_values(fmt, codes: np.ndarray, bias=None) -> np.ndarray:
    """float64 value of each code (``bias``: per-element biases of a run-time-bias format)."""
    sign, exp, man = fmt.fields(codes)
    M = fmt.mbits
    emin, sub_e = _emin_and_subnormal_exp(fmt, bias)
    val = np.where(exp == 0, np.ldexp(man.astype(np.float64), sub_e - M),
                   np.ldexp((man + (1 << M)).astype(np.float64), exp + emin - 1 - M))
    if fmt.ftz:
        val = np.where(exp == 0, 0.0, val)
    cls = classify(fmt, codes)
    val = np.where(cls.inf, np.inf, val)
    val = np.where(cls.nan, np.nan, val)
    return np.where(sign == 1, -val, val)  # -NaN keeps its sign bit


def value_table(fmt) -> np.ndarray:
    """float64 value of every code of a :class:`FloatFormat` (a fixed-bias descriptor); NaNs carry the
    code's sign bit. Denormal codes of a flush-to-zero format are worth 0 (what an operation reads)."""
    if fmt.bits > MAX_TABLE_BITS:
        raise FpforgeValueError(f"value tables list formats of up to {MAX_TABLE_BITS} bits, not {fmt.name} ({fmt.bits} bits)")
    if fmt not in _TABLES:
        if len(_TABLES) >= _TABLES_KEEP:
            del _TABLES[next(iter(_TABLES))]
        _TABLES[fmt] = _code_values(fmt, np.arange(1 << fmt.bits, dtype=np.int64))
    return _TABLES[fmt]
