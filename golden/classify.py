"""The one classifier of codes: zero, subnormal, normal, infinity, NaN, read from a descriptor's data.

Every consumer in the golden model (encoders reading their source operands, decoders, the dot-product
elements, the reports) classifies codes here; ``fpforge.hw.classify`` is the Amaranth twin the gateware
uses. The rules (``docs/architecture.md``), for a code with magnitude ``mag`` (the code without its sign
bit):

* NaN: ``mag`` is one of the ``num_high_nans`` largest magnitudes, or (a signed format without negative
  zero) the code is ``1000…0``;
* Inf: ``has_inf`` and ``mag == inf_code``;
* zero: ``mag == 0`` and not NaN;
* subnormal: the top ``width`` bits of ``mag`` are ``value`` for ``(width, value) = subnormal_prefix``, and
  the bits below them are not all zero;
* normal: the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["CLASS_NAMES", "CodeClasses", "classify", "high_nan_threshold"]

#: Class names in :func:`CodeClasses.names` order of precedence (a NaN is never also a zero, ...).
CLASS_NAMES = ("nan", "inf", "zero", "subnormal", "normal")


@dataclass
class CodeClasses:
    """Boolean masks (and the sign bit) of an array of codes; exactly one mask is set per code."""

    sign: np.ndarray
    nan: np.ndarray
    inf: np.ndarray
    zero: np.ndarray
    subnormal: np.ndarray
    normal: np.ndarray

    @property
    def special(self) -> np.ndarray:
        return self.nan | self.inf

    def names(self, subnormal="subnormal") -> np.ndarray:
        """The class name of each code (object array); ``subnormal`` names that class."""
        out = np.full(self.nan.shape, "normal", dtype=object)
        out[self.subnormal] = subnormal
        out[self.zero] = "zero"
        out[self.inf] = "inf"
        out[self.nan] = "nan"
        return out


def high_nan_threshold(fmt) -> int:
    """The smallest NaN magnitude of the high NaNs (``mag_mask + 1`` when there are none)."""
    return fmt.mag_mask + 1 - fmt.num_high_nans


def classify(fmt, codes) -> CodeClasses:
    """Classify integer ``codes`` of the scalar format ``fmt`` (a run-time bias does not matter)."""
    codes = np.asarray(codes).astype(np.int64)
    mag = codes & fmt.mag_mask
    sign = (codes >> (fmt.bits - 1)) & 1 if fmt.signed else np.zeros(codes.shape, np.int64)
    nan = mag >= high_nan_threshold(fmt)
    if fmt.signed and not fmt.has_neg_zero:
        nan = nan | (codes == fmt.sign_mask)
    inf = (mag == fmt.inf_code) if fmt.has_inf else np.zeros(codes.shape, bool)
    zero = (mag == 0) & ~nan
    width, value = fmt.subnormal_prefix
    low = fmt.mag_bits - width
    subnormal = ((mag >> low) == value) & ((mag & ((1 << low) - 1)) != 0) & ~nan & ~inf
    normal = ~(nan | inf | zero | subnormal)
    return CodeClasses(sign, nan, inf, zero, subnormal, normal)
