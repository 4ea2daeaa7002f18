"""The Amaranth twin of :mod:`fpforge.golden.classify`: the classes of a code signal, read from the
descriptor's special-value data (``docs/architecture.md``). Every unit classifies codes here: the encoders'
source operands, the decoders, the block decoder's elements, the dot product's elements.

The expressions are the cheapest form of each rule the data allows: NaNs that fill the all-ones exponent
binade except the Inf (IEEE) compare the exponent field and the mantissa; a single high NaN is one
equality; a NaN in the negative-zero slot is ``code == 1000…0``.
"""

from __future__ import annotations

from dataclasses import dataclass

from amaranth import Const, Value

from ..golden.classify import high_nan_threshold

__all__ = ["Classes", "classify", "float_fields"]


@dataclass
class Classes:
    """Amaranth expressions of one code: ``sign`` (0 when unsigned), ``mag`` (the code without its sign
    bit), and 1-bit ``nan``, ``inf``, ``zero``, ``subnormal``."""

    sign: Value
    mag: Value
    nan: Value
    inf: Value
    zero: Value
    subnormal: Value


def float_fields(fmt, code):
    """``(exponent field, mantissa field)`` slices of a sign/exponent/mantissa code."""
    return code[fmt.mbits : fmt.mbits + fmt.ebits], code[: fmt.mbits]


def _top_binade(fmt) -> bool:
    """The high NaNs and the Inf fill the all-ones exponent binade (IEEE)."""
    m = fmt.mbits
    return fmt.has_inf and m > 0 and fmt.num_high_nans == (1 << m) - 1 and fmt.inf_code == fmt.mag_mask >> m << m


def classify(fmt, code) -> Classes:
    """The classes of ``code`` (a Value of ``fmt.bits`` bits) in the scalar format ``fmt``."""
    n = fmt.mag_bits
    mag = code[:n]
    sign = code[fmt.bits - 1] if fmt.signed else Const(0, 1)
    none = Const(0, 1)
    nan, inf = none, none
    if _top_binade(fmt):
        top = code[fmt.mbits : n] == fmt.inf_code >> fmt.mbits
        man = code[: fmt.mbits]
        nan, inf = top & (man != 0), top & (man == 0)
    else:
        if fmt.num_high_nans == 1:
            nan = mag == fmt.mag_mask
        elif fmt.num_high_nans:
            nan = mag >= high_nan_threshold(fmt)
        if fmt.has_inf:
            inf = mag == fmt.inf_code
    nz_nan = fmt.signed and not fmt.has_neg_zero
    if nz_nan:
        slot = code == fmt.sign_mask
        nan = slot if nan is none else nan | slot
    zero = (mag == 0) & ~nan if nz_nan else mag == 0
    width, value = fmt.subnormal_prefix
    low = n - width
    subnormal = (code[low:n] == value) & (code[:low] != 0)
    return Classes(sign, mag, nan, inf, zero, subnormal)
