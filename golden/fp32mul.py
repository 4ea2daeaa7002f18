"""The FP32 product of the scaled encoder, bit for bit: ``fp32(x * scale)`` and ``fp32(x * 2**k)``.

IEEE 754 binary32 multiplication rounded to nearest even, with subnormal operands and results and ±Inf on
overflow; every NaN result is the canonical quiet NaN ``0x7FC00000`` (positive). The flags use the
encoders' bits (``Flag``). ``docs/scaling.md`` (rounding point 4) says why; the RTL is
``fpforge.hw.scaling.Fp32Multiplier``.
"""

from __future__ import annotations

import numpy as np

from .checks import broadcast
from .errors import FpforgeTypeError, FpforgeValueError
from .formats import Flag, source_of

__all__ = ["SCALE_EXP_BITS", "SCALE_EXP_RANGE", "fp32_mul", "fp32_value", "pow2_mul", "source_array", "round_product"]

#: Width of the power-of-two scale exponent ``k`` (scale ``2**k``) of the ``pow2`` scaled encoder, and its range.
SCALE_EXP_BITS = 9
SCALE_EXP_RANGE = (-(1 << (SCALE_EXP_BITS - 1)), (1 << (SCALE_EXP_BITS - 1)) - 1)

_QNAN = 0x7FC00000
_TINY = 2.0**-126


def source_array(x, name="x"):
    """``(array, source descriptor)``; the dtype must be float32, bfloat16 or float16."""
    try:
        x = np.asarray(x)
    except (TypeError, ValueError, OverflowError):  # a ragged nest of lists, ...
        raise FpforgeTypeError(f"{name} must hold float32, bfloat16 or float16 values (convert explicitly), not "
                               f"a ragged {type(x).__name__}") from None
    try:
        return x, source_of(x)
    except TypeError:
        raise FpforgeTypeError(f"{name} must hold float32, bfloat16 or float16 values (convert explicitly), "
                               f"not {x.dtype}") from None


def fp32_value(value, name, *, positive=False):
    """``value`` as float32, refusing any silent rounding; ``positive``: finite and > 0 as well."""
    if isinstance(value, (bool, np.bool_)):
        raise FpforgeTypeError(f"{name} must be a number, not {value!r}")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError, OverflowError):  # a ragged nest of lists, ...
        raise FpforgeTypeError(f"{name} must be a float (an FP32 value) or an array of them, not "
                               f"{type(value).__name__} {str(value)[:40]}") from None
    if arr.dtype == np.float32:
        out = arr
    elif arr.dtype.kind in "fiu" or arr.dtype.name == "bfloat16":
        with np.errstate(over="ignore", invalid="ignore"):
            out = arr.astype(np.float32)
            wide = arr.astype(np.float64)
            same = (out.astype(np.float64) == wide) | (np.isnan(out) & np.isnan(wide))
        if not same.all():
            bad = arr[~same].flat[0].item() if arr.ndim else arr.item()
            raise FpforgeValueError(f"{name} {bad!r} is not exactly an FP32 value; round it explicitly "
                                    f"(np.float32({bad!r}))")
    else:
        raise FpforgeTypeError(f"{name} must be a float (an FP32 value), not {arr.dtype}")
    if positive:
        bad = ~(np.isfinite(out) & (out > 0))
        if bad.any():
            v = out[bad].flat[0].item() if out.ndim else out.item()
            raise FpforgeValueError(f"{name} must be finite and positive, not {v!r} (a zero, negative, NaN or "
                                    "infinite scale has no inverse; see docs/scaling.md)")
    return out


def _subnormal(x, src):
    """Source operands that are subnormal in their own format."""
    bits = x.view(np.uint32 if src.bits == 32 else np.uint16).astype(np.int64)
    return (((bits >> src.mbits) & src.exp_max_field) == 0) & ((bits & ((1 << src.mbits) - 1)) != 0)


def round_product(exact, finite_in, denormal):
    """``(p, flags)``: the exact float64 product rounded once to FP32, and the product's flags."""
    with np.errstate(over="ignore", invalid="ignore"):
        p = exact.astype(np.float32)
    nan = np.isnan(exact)
    p = np.where(nan, np.uint32(_QNAN), p.view(np.uint32)).astype(np.uint32).view(np.float32)
    overflow = finite_in & np.isinf(p)
    with np.errstate(invalid="ignore"):
        inexact = finite_in & (p.astype(np.float64) != exact)
    under = inexact & ~overflow & (np.abs(p) < _TINY)
    flags = (np.where(nan, int(Flag.INVALID), 0) | np.where(denormal, int(Flag.DENORMAL), 0)
             | np.where(overflow, int(Flag.OVERFLOW), 0) | np.where(under, int(Flag.UNDERFLOW), 0)
             | np.where(inexact, int(Flag.INEXACT), 0))
    return p, flags.astype(np.uint8)


def fp32_mul(x, scale):
    """The FP32 product ``x * scale`` and its flags, as the scaled encoder's multiplier computes them.

    IEEE 754 binary32 multiplication, round to nearest even, subnormal operands and results, ±Inf on
    overflow; every NaN result (a NaN operand, 0 × Inf) is the canonical quiet NaN ``0x7FC00000``.
    ``scale`` may be anything FP32 holds (zero, negative, NaN, Inf: the hardware's documented results).

    Parameters
    ----------
    x : array of float32, bfloat16 or float16
        Converted to FP32 exactly first.
    scale : float or array of float32
        Broadcast against ``x``; must be exactly an FP32 value.

    Returns
    -------
    p : ndarray of float32
    flags : ndarray of uint8
        ``Flag`` bits: invalid (NaN result), denormal (a subnormal operand), overflow, underflow (tiny after
        rounding and inexact), inexact.
    """
    x, src = source_array(x)
    s = fp32_value(scale, "scale")
    x32 = x.astype(np.float32)
    x32, s = broadcast(("x", x32), ("scale", s))
    with np.errstate(invalid="ignore", over="ignore"):
        exact = x32.astype(np.float64) * s.astype(np.float64)  # 24 x 24 bits: exact in float64
    denormal = np.broadcast_to(_subnormal(x, src), x32.shape) | _subnormal(np.ascontiguousarray(s), source_of(s))
    return round_product(exact, np.isfinite(x32) & np.isfinite(s), denormal)


def _scale_exp(k):
    k = np.asarray(k)
    if k.dtype.kind not in "iu":
        raise FpforgeTypeError(f"scale_exp must be integers (the exponent k of the scale 2**k), not {k.dtype}")
    lo, hi = SCALE_EXP_RANGE
    bad = (k < lo) | (k > hi)
    if bad.any():
        raise FpforgeValueError(f"scale_exp must be in {lo}..{hi} ({SCALE_EXP_BITS}-bit signed), not "
                                f"{k[bad].flat[0].item()!r}")
    return k.astype(np.int64)


def pow2_mul(x, scale_exp):
    """``x * 2**scale_exp`` rounded once to FP32 (the power-of-two scaled encoder's exponent add).

    Identical to :func:`fp32_mul` with ``scale = 2.0**scale_exp`` wherever that is an FP32 value; the
    exponent ``k`` is an integer in ``SCALE_EXP_RANGE``. Returns ``(p, flags)`` (denormal: ``x``
    subnormal).
    """
    x, src = source_array(x)
    k = _scale_exp(scale_exp)
    x32 = x.astype(np.float32)
    x32, k = np.broadcast_arrays(x32, k)
    with np.errstate(invalid="ignore", over="ignore"):
        exact = np.ldexp(x32.astype(np.float64), k)  # |k| <= 256: exact in float64
    denormal = np.broadcast_to(_subnormal(x, src), x32.shape)
    return round_product(exact, np.isfinite(x32), denormal)


