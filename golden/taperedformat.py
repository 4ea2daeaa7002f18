"""``TaperedFormat``: a tapered float whose prefix-coded dot field sets the exponent width (HiFloat8).

The conversions live in :mod:`fpforge.golden.tapered`; ``docs/hif8.md`` has the semantics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .checks import check_descriptor_fields
from .contract import ScalarFormat
from .errors import FpforgeValueError, UnknownName
from .registry import ROUNDING_MODES
from .tapered import COMPAT_CHOICES

__all__ = ["COMPAT_CHOICES", "TaperedFormat"]


@dataclass(frozen=True)
class TaperedFormat(ScalarFormat):
    """A tapered float whose prefix-coded dot field sets the exponent width (HiFloat8, seed 000 §2).

    A code is ``sign | dot | Em | mantissa``. The dot field is a prefix code giving ``D``, the width of
    ``Em``; the mantissa takes the remaining ``bits - 1 - len(dot) - D`` bits. ``Em`` is a sign-magnitude
    exponent whose magnitude MSB (always 1) is hidden: ``Em = {Se, Mag[2:]}``, so ``D = 0`` means
    exponent 0 and ``D >= 1`` covers ``±[2**(D-1), 2**D - 1]``. A normal code is ``(-1)**S * 2**E * 1.M``.
    The denormal prefix leaves ``bits - 1 - len(prefix)`` bits ``M`` and the value ``2**(M - dml_offset)``
    for ``M >= 1``; ``M = 0`` is zero (sign 0) and NaN (sign 1). The two normal patterns of largest
    magnitude are ±Inf.

    Parameters
    ----------
    name : str
        Registry name.
    dots : tuple of (code, width, D)
        The dot-field prefix code, e.g. ``(0b11, 2, 4)``: prefix ``11`` means ``D = 4``.
    dml : tuple of (code, width)
        The denormal prefix.
    dml_offset : int
        Denormal value ``2**(M - dml_offset)``.
    bits : int
        Code width.
    roundings : tuple of str
        Rounding modes the encoder offers; the first is the default.
    title : str
        Human-readable description.
    hr_literal : bool
        Hybrid rounding compares ``F >= T`` literally, so that an exact value whose low bits are zero
        rounds up (seed 000 §3.2 read to the letter; the variant ``hif8_literal``).
    compat : str
        ``"default"``, or ``"ascend"``: bit-compatible with Huawei's Ascend reference conversions (hybrid
        rounding reads ``F >= T`` literally, flushes ``|x| < 2^-23`` to zero and overflows from
        ``1.25 × 2^15`` before rounding; NaN decodes to +qNaN; the variant ``hif8_ascend``). See
        ``docs/hif8.md``.
    """

    name: str
    dots: tuple = ((0b11, 2, 4), (0b10, 2, 3), (0b01, 2, 2), (0b001, 3, 1), (0b0001, 4, 0))
    dml: tuple = (0b0000, 4)
    dml_offset: int = 23
    bits: int = 8
    roundings: tuple[str, ...] = ("ta", "hr", "sr", "rne", "rtz")
    title: str = ""
    hr_literal: bool = False
    compat: str = "default"

    # Special values as data (golden/contract.py): the single NaN sits where -0 would be (sign 1, the
    # denormal prefix, M = 0); inf_code is ±Inf.
    has_inf = True
    has_neg_zero = False
    num_high_nans = 0
    has_nan = True
    dtype = None
    runtime_bias = False
    signed = True
    ftz = False
    has_subnormals = True
    subnormal_name = "denormal"  # what seed 000 calls the codes with the denormal prefix

    def at(self, bias):
        """Fixed-bias formats are their own ``at(None)`` (see :meth:`FloatFormat.at`)."""
        if bias is not None:
            raise FpforgeValueError(f"format {self.name!r} has a fixed bias; bias must be None, not {bias!r}")
        return self

    def __post_init__(self):
        check_descriptor_fields(self, ("name", "title"), ("bits", "dml_offset"))
        for r in self.roundings:
            if r not in ROUNDING_MODES:
                raise FpforgeValueError(f"unknown rounding mode {r!r}; valid: {', '.join(ROUNDING_MODES)}")
        if not isinstance(self.compat, str) or self.compat not in COMPAT_CHOICES:
            raise UnknownName(f"compat must be one of {', '.join(COMPAT_CHOICES)}, not {self.compat!r}")
        for code, width, d in self.dots:
            if self.mant_width_of_dot(width, d) < 0:
                raise FpforgeValueError(f"dot {code:0{width}b} with D={d} leaves no room in {self.bits} bits")

    # -- fields ---------------------------------------------------------------------------------
    @property
    def sign_mask(self) -> int:
        return 1 << (self.bits - 1)

    @property
    def mag_mask(self) -> int:
        return self.sign_mask - 1

    @property
    def mag_bits(self) -> int:
        return self.bits - 1

    @property
    def subnormal_prefix(self) -> tuple[int, int]:
        """``(width, value)``: a code whose top magnitude bits are the denormal prefix and whose ``M`` is
        not 0 is a denormal."""
        return self.dml[1], self.dml[0]

    def mant_width_of_dot(self, width: int, d: int) -> int:
        return self.bits - 1 - width - d

    @property
    def dml_bits(self) -> int:
        """Width of the denormal field ``M``."""
        return self.bits - 1 - self.dml[1]

    def exponents_of_dot(self, d: int) -> list[int]:
        """The exponents a dot value ``D`` covers, ascending."""
        if d == 0:
            return [0]
        mags = range(1 << (d - 1), 1 << d)
        return sorted([-e for e in mags] + list(mags))

    def mant_width(self, e: int) -> int | None:
        """Mantissa bits at exponent ``e`` (0 in the denormal binades), None outside the range."""
        for code, width, d in self.dots:
            if e in self.exponents_of_dot(d):
                return self.mant_width_of_dot(width, d)
        if self.dml_emin <= e <= self.dml_emax:
            return 0
        return None

    # -- exponent range -------------------------------------------------------------------------
    @property
    def emax(self) -> int:
        return max(max(self.exponents_of_dot(d)) for _, _, d in self.dots)

    @property
    def emin(self) -> int:
        """Exponent of the smallest normal number."""
        return min(min(self.exponents_of_dot(d)) for _, _, d in self.dots)

    @property
    def dml_emin(self) -> int:
        """Exponent of the smallest denormal (``M = 1``)."""
        return 1 - self.dml_offset

    @property
    def dml_emax(self) -> int:
        return (1 << self.dml_bits) - 1 - self.dml_offset

    @property
    def mbits(self) -> int:
        """The widest mantissa (what generic code needs to know about the precision)."""
        return max(self.mant_width_of_dot(w, d) for _, w, d in self.dots)

    @property
    def precision(self) -> int:
        return self.mbits + 1

    @property
    def layout(self) -> str:
        """Field summary for listings, e.g. ``S1 dot2-4 E0-4 M1-3, denormals to 2^-22``."""
        widths = [w for _, w, _ in self.dots] + [self.dml[1]]
        ds = [d for _, _, d in self.dots]
        ms = [self.mant_width_of_dot(w, d) for _, w, d in self.dots]
        return (f"S1 dot{min(widths)}-{max(widths)} E{min(ds)}-{max(ds)} M{min(ms)}-{max(ms)}, "
                f"denormals to 2^{self.dml_emin}")

    # -- codes ------------------------------------------------------------------------------------
    def encode_normal(self, e: int, man: int) -> int:
        """Magnitude code of ``2**e * 1.man`` (``man`` an integer of ``mant_width(e)`` bits)."""
        for code, width, d in self.dots:
            if e in self.exponents_of_dot(d):
                w = self.mant_width_of_dot(width, d)
                em = 0 if d == 0 else ((e < 0) << (d - 1)) | (abs(e) - (1 << (d - 1)))
                return (((code << d) | em) << w) | man
        raise FpforgeValueError(f"exponent {e} is outside the normal range of {self.name}")

    def encode_denormal(self, e: int) -> int:
        return (self.dml[0] << self.dml_bits) | (e + self.dml_offset)

    @property
    def inf_code(self) -> int:
        """Magnitude code of +Inf: the normal pattern of largest magnitude."""
        w = self.mant_width(self.emax)
        return self.encode_normal(self.emax, (1 << w) - 1)

    @property
    def max_code(self) -> int:
        w = self.mant_width(self.emax)
        return self.encode_normal(self.emax, (1 << w) - 2) if w else self.encode_normal(self.emax - 1, 0)

    def nan_code(self, negative: bool = False) -> int:
        """The single NaN: sign 1 with the denormal prefix and ``M = 0``."""
        return self.sign_mask | (self.dml[0] << self.dml_bits)

    @property
    def max_value(self) -> float:
        w = self.mant_width(self.emax)
        return float(2.0**self.emax * (1 + ((1 << w) - 2) / 2**w))

    @property
    def min_normal(self) -> float:
        return float(2.0**self.emin)

    @property
    def min_subnormal(self) -> float:
        return float(2.0**self.dml_emin)

    @property
    def min_normal_code(self) -> int:
        return self.encode_normal(self.emin, 0)

    @property
    def min_subnormal_code(self) -> int:
        return self.encode_denormal(self.dml_emin)

    @property
    def max_subnormal_code(self) -> int:
        return self.encode_denormal(self.dml_emax)

    @property
    def max_subnormal(self) -> float:
        return float(2.0**self.dml_emax)

    def precision_by_exponent(self) -> tuple[np.ndarray, np.ndarray]:
        """``(exponents, bits)``: the mantissa width + 1 at every exponent (1 in the denormal binades)."""
        exps = np.arange(self.dml_emin, self.emax + 1)
        return exps, np.array([self.mant_width(int(e)) + 1 for e in exps])

    @property
    def top_quantum(self) -> float:
        """Spacing of the values in the top binade (the step from max to the Inf slot beyond it)."""
        return float(2.0 ** (self.emax - self.mant_width(self.emax)))

    # -- as a dot-product element (ScalarFormat contract) ------------------------------------------------
    @property
    def dot_lsb(self) -> int:
        """The smallest denormal ``2**dml_emin`` as the significand ``2**mbits``: every value is
        ``sig * 2**(eoff + dot_lsb)`` with ``sig`` of ``mbits + 1`` bits (hidden bit set unless zero)."""
        return self.dml_emin - self.mbits

    @property
    def dot_eoff_max(self) -> int:
        return self.emax - self.mbits - self.dot_lsb

    def dot_fields(self, codes, bias=None) -> tuple:
        """Read from the value table: ``E = floor(log2 |v|)``, ``sig = |v| / 2**(E - mbits)`` (the narrower
        mantissas padded with zeros, a denormal ``2**mbits``), ``eoff = E - dml_emin``; zero, NaN and Inf
        have ``sig = eoff = 0``."""
        from .classify import classify

        if bias is not None:
            raise FpforgeValueError(f"format {self.name!r} has a fixed bias; bias must be None, not {bias!r}")
        codes = np.asarray(codes).astype(np.int64)
        v = np.abs(self.value_table()[codes])
        finite = np.isfinite(v) & (v > 0)
        _, e = np.frexp(np.where(finite, v, 1.0))
        E = e.astype(np.int64) - 1
        sig = np.where(finite, np.ldexp(np.where(finite, v, 0.0), self.mbits - E), 0).astype(np.int64)
        eoff = np.where(finite, E - self.dml_emin, 0)
        cls = classify(self, codes)
        return cls.sign, sig, eoff, cls.nan, cls.inf

    # -- conversions (fpforge.golden.tapered) ---------------------------------------------------------
    def value_table(self) -> np.ndarray:
        """float64 value of every code; NaN carries sign 1."""
        from .tapered import value_table

        return value_table(self)

    def code_fields(self, code: int) -> tuple[list[str], str]:
        """``[S, dot, Em, M]`` and ``"D=<d> E=<exponent>"`` (``Em`` is ``""`` when ``D = 0``), or
        ``[S, prefix, M]`` and ``"DML M=<m>"`` for the denormal prefix."""
        b = format(int(code), f"0{self.bits}b")
        s, mag = b[0], b[1:]
        w = self.dml[1]
        if mag[:w] == format(self.dml[0], f"0{w}b"):
            return [s, mag[:w], mag[w:]], f"DML M={int(mag[w:], 2)}"
        for dot, width, d in self.dots:
            if mag[:width] == format(dot, f"0{width}b"):
                em, man = mag[width : width + d], mag[width + d :]
                e = 0 if d == 0 else (-1 if em[0] == "1" else 1) * int("1" + em[1:], 2)
                return [s, mag[:width], em, man], f"D={d} E={e}"
        raise FpforgeValueError(f"code {code:#x} matches no dot prefix of {self.name}")

    def encode_exact(self, src, x, rounding, saturate, nan_to_zero, draws, bias=None):
        """Codes and flags of ``x`` (see :func:`fpforge.golden.tapered.encode_exact`)."""
        from .tapered import encode_exact

        return encode_exact(self, src, x, rounding, saturate, nan_to_zero, draws)
