"""The registered formats: every scalar format fpforge knows is one descriptor here.

The descriptor classes (:class:`~fpforge.golden.floatformat.FloatFormat` for sign/exponent/mantissa
formats, :class:`~fpforge.golden.taperedformat.TaperedFormat` for HiFloat8), the registry
(:mod:`fpforge.golden.registry`: names, variants) and the contract every descriptor answers
(:mod:`fpforge.golden.contract`) live in their own modules; this file only describes formats. Everything
else (limits, code classes, the RTL, the testbenches, the reports) is derived from these descriptors.
Block formats register themselves in :mod:`fpforge.golden.block`.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from .errors import FpforgeTypeError
from .floatformat import DENORMAL_STYLES, NAN_STYLES, FloatFormat
from .registry import (
    REGISTRY,
    RESOLVERS,
    ROUNDING_MODES,
    RUNTIME_BIAS_BITS,
    RUNTIME_BIASES,
    VARIANT_FLAGS,
    Flag,
    get_format,
    list_formats,
    list_variants,
    register,
    resolve_variant,
)
from .taperedformat import COMPAT_CHOICES, TaperedFormat

__all__ = [
    "COMPAT_CHOICES",
    "DENORMAL_STYLES",
    "Flag",
    "FloatFormat",
    "NAN_STYLES",
    "P3109_FORMATS",
    "ROUNDING_MODES",
    "RUNTIME_BIASES",
    "RUNTIME_BIAS_BITS",
    "SOURCES",
    "TaperedFormat",
    "VARIANT_FLAGS",
    "get_format",
    "list_formats",
    "list_variants",
    "register",
    "resolve_variant",
    "source_of",
]

_ = (REGISTRY, RESOLVERS)  # re-exported for the block formats' resolver


# -- the formats ---------------------------------------------------------------------------------
FP32 = register(FloatFormat("fp32", 8, 23, 127, dtype=np.dtype(np.float32), title="IEEE 754 binary32"))
FP16 = register(FloatFormat("fp16", 5, 10, 15, dtype=np.dtype(np.float16), title="IEEE 754 binary16"))
BF16 = register(FloatFormat("bf16", 8, 7, 127, dtype=np.dtype(ml_dtypes.bfloat16), title="bfloat16"))

#: Source (and decoder target) formats, keyed by name.
SOURCES = {f.name: f for f in (FP32, FP16, BF16)}

E4M3 = register(FloatFormat("e4m3", 4, 3, 7, nan="fn", title="OCP FP8 E4M3 (no Inf, NaN S.1111.111)"))
E5M2 = register(FloatFormat("e5m2", 5, 2, 15, nan="ieee", title="OCP FP8 E5M2 (IEEE-like)"))
E4M3FNUZ = register(
    FloatFormat("e4m3fnuz", 4, 3, 8, nan="fnuz", title="FP8 E4M3 FNUZ (Graphcore/AMD: bias 8, NaN 0x80)")
)
E5M2FNUZ = register(
    FloatFormat("e5m2fnuz", 5, 2, 16, nan="fnuz", title="FP8 E5M2 FNUZ (Graphcore/AMD: bias 16, NaN 0x80)")
)

HIF8 = register(TaperedFormat("hif8", title="HiFloat8 (tapered: dot-coded exponent width, denormals to 2^-22)"))

# OCP Microscaling element formats (OCP MX v1.0 §5.3): no Inf, no NaN; conversions saturate.
E3M2 = register(FloatFormat("e3m2", 3, 2, 3, nan="none", title="OCP FP6 E3M2 (MX element; no Inf/NaN, max ±28)"))
E2M3 = register(FloatFormat("e2m3", 2, 3, 1, nan="none", title="OCP FP6 E2M3 (MX element; no Inf/NaN, max ±7.5)"))
E2M1 = register(FloatFormat("e2m1", 2, 1, 1, nan="none", title="OCP FP4 E2M1 (MX element; no Inf/NaN, max ±6)"))


# Tesla CFloat8 / CFloat16 (seed 001, SPEC-NOTES §4): run-time 6-bit bias, no Inf/NaN (clamp), the guide's
# denormals 2^-bias × 0.m; UHP: unsigned, bias 31, IEEE-style Inf and NaN, denormals flushed to zero.
_CFLOAT_ROUNDINGS = ("rne", "sr", "ta", "rtz")  # the guide defines rne and sr; ta and rtz come free
CFLOAT8_143 = register(FloatFormat(
    "cfloat8_143", 4, 3, None, nan="none", roundings=_CFLOAT_ROUNDINGS, denormals="cfloat",
    title="Tesla CFloat8_1_4_3 (run-time bias 0..63; no Inf/NaN, clamps; denormals 2^-bias×0.m)"))
CFLOAT8_152 = register(FloatFormat(
    "cfloat8_152", 5, 2, None, nan="none", roundings=_CFLOAT_ROUNDINGS, denormals="cfloat",
    title="Tesla CFloat8_1_5_2 (run-time bias 0..63; no Inf/NaN, clamps; denormals 2^-bias×0.m)"))
SHP = register(FloatFormat(
    "shp", 5, 10, None, nan="none", roundings=_CFLOAT_ROUNDINGS, denormals="cfloat",
    title="Tesla CFloat16 SHP (run-time bias 0..63; no Inf/NaN, clamps; denormals 2^-bias×0.m)"))
UHP = register(FloatFormat(
    "uhp", 6, 10, 31, nan="ieee", roundings=_CFLOAT_ROUNDINGS, signed=False, ftz=True,
    title="Tesla CFloat16 UHP (unsigned, bias 31, Inf/NaN, denormals flushed to zero)"))

# IEEE P3109 binary8 (the interim report; gfloat's format_info_p3109): K = 8 bits, precision P = 1..7 bits
# (hidden bit included), signed (bias 2^(K-P-1)) or unsigned (bias 2^(K-P)), extended domain (±Inf) or finite.
# One NaN: 1000…0 when signed (no negative zero), the top code when unsigned; ±Inf just below it (extended).
# Named as the P3109 documents and libraries do: binary8p3se = K 8, P 3, signed, extended (docs/p3109.md).
def _p3109(p, signed, extended):
    name = f"binary8p{p}{'s' if signed else 'u'}{'e' if extended else 'f'}"
    title = (f"IEEE P3109 binary8p{p}, {'signed' if signed else 'unsigned'}, "
             + (f"extended ({'±' if signed else '+'}Inf)" if extended else "finite"))
    return FloatFormat(name, 8 - signed - (p - 1), p - 1, 2 ** (8 - p - signed), has_inf=extended,
                       num_high_nans=0 if signed else 1, has_neg_zero=False, signed=signed, title=title)


P3109_FORMATS = tuple(register(_p3109(p, s, e)).name for p in range(1, 8) for s in (True, False) for e in (True, False))

# -- variants: their own descriptors, registered as <base>_<variant> (golden/registry.py) ----------------
# IEEE denormals 2^(1-bias) × 0.m instead of the guide's 2^-bias × 0.m (SPEC-NOTES §4: `ieee_denormals`).
CFLOAT8_143_IEEE, CFLOAT8_152_IEEE, SHP_IEEE = (
    register(f.with_(name=f"{f.name}_ieee", denormals="ieee", title=f.title.replace("2^-bias×0.m", "IEEE 2^(1-bias)×0.m")))
    for f in (CFLOAT8_143, CFLOAT8_152, SHP))
# Hybrid rounding read to the letter: F14 >= T14 rounds an exact value up (SPEC-NOTES §3: `paper_literal`).
HIF8_LITERAL = register(TaperedFormat("hif8_literal", hr_literal=True,
                                      title="HiFloat8, hybrid rounding as seed 000 §3.2 reads literally"))
# Bit-compatible with Huawei Ascend's conversions (issue 15): `compat="ascend"` on the API and CLI names it.
HIF8_ASCEND = register(TaperedFormat("hif8_ascend", compat="ascend", hr_literal=True,
                                     title="HiFloat8, bit-compatible with Huawei Ascend's conversions"))


def source_of(x) -> FloatFormat:
    """The source format named by the dtype of ``x`` (float32, float16 or ml_dtypes.bfloat16)."""
    if not isinstance(x, (np.ndarray, np.generic)):
        raise FpforgeTypeError(f"source dtype must be float32, float16 or bfloat16: x must be a numpy array of "
                               f"one of them, not a {type(x).__name__}")
    dt = x.dtype
    for f in SOURCES.values():
        if dt == f.dtype:
            return f
    raise FpforgeTypeError(f"source dtype must be float32, float16 or bfloat16, not {dt}")
