"""``FloatFormat``: a sign/exponent/mantissa format, its special values stated as data.

Bit counts are stated exactly:

* ``ebits``: exponent field bits (at least 1).
* ``mbits``: explicit mantissa (trailing significand) field bits, possibly 0. The hidden bit is **not**
  counted, so the precision in bits is ``mbits + 1`` for normal numbers.
* ``bits``: the whole code, ``signed + ebits + mbits`` (an unsigned format has no sign bit).

Exponent bias: a fixed integer, or ``None`` for a **run-time** bias (Tesla CFloat8 and SHP): an unsigned
``RUNTIME_BIAS_BITS``-bit value (0..63) passed with every conversion (``bias=`` in the golden model, a
``bias`` input port in the RTL). The limits of such a format (``emin``, ``max_value``, ...) depend on the
bias: ``fmt.at(bias)`` returns the fixed-bias descriptor they are read from.

Denormals (exponent field 0, mantissa ``m`` of ``mbits`` bits):

* ``"ieee"``: ``(-1)**s * 2**(1 - bias) * 0.m`` (IEEE 754; they reach up to the smallest normal).
* ``"cfloat"``: ``(-1)**s * 2**(-bias) * 0.m`` (the Tesla CFloat guide), half the IEEE scale: the values
  between the largest denormal ``(1 - 2**-mbits) * 2**-bias`` and the smallest normal ``2**(1 - bias)``
  form a gap (``docs/cfloat.md`` says how conversions round across it).
* ``ftz=True``: denormal codes exist but operands and results are flushed to zero (Tesla UHP).

Special values (``docs/architecture.md``; the same three facts gfloat's ``FormatInfo`` states):

* ``has_neg_zero``: the code ``1000…0`` is −0. A signed format without negative zero has its NaN there.
* ``num_high_nans``: the ``num_high_nans`` largest magnitudes of each sign are NaN.
* ``has_inf``: the magnitude just below them is ±Inf.

``nan=`` is constructor sugar for the common conventions:

===========  ==========================================  =======  ===============  ============
``nan``      formats                                     has_inf  num_high_nans    has_neg_zero
===========  ==========================================  =======  ===============  ============
``"ieee"``   FP32, FP16, BF16, OCP E5M2, UHP               yes      ``2**mbits - 1``  signed
``"fn"``     OCP E4M3 (S.1111.111 is NaN)                 no       1                signed
``"fnuz"``   Graphcore/AMD FNUZ (the NaN is 1000…0)       no       0                no
``"none"``   OCP FP6/FP4, CFloat8, SHP (clamp)             no       0                signed
===========  ==========================================  =======  ===============  ============

IEEE P3109 formats state the data directly (signed: NaN at 1000…0, unsigned: NaN at the top code; ±Inf
below it in the extended domain). A format without NaN **clamps**: overflow, ±Inf and NaN operands give
±max (``docs/semantics.md``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import InitVar, dataclass

import numpy as np

from .checks import check_descriptor_fields
from .contract import ScalarFormat
from .errors import FpforgeTypeError, FpforgeValueError
from .registry import ROUNDING_MODES, RUNTIME_BIASES

__all__ = ["DENORMAL_STYLES", "NAN_STYLES", "FloatFormat"]

#: Denormal conventions of :class:`FloatFormat` (see the module docstring).
DENORMAL_STYLES = ("ieee", "cfloat")

#: The ``nan=`` sugar: ``style -> (has_inf, num_high_nans or "binade", has_neg_zero)``; ``"binade"`` is
#: every mantissa but 0 of the all-ones exponent (IEEE NaNs).
NAN_STYLES = {"ieee": (True, "binade", True), "fn": (False, 1, True), "fnuz": (False, 0, False),
              "none": (False, 0, True)}


#: Widest exponent and mantissa fields a descriptor takes (FP64's are 11 and 52; wider fields would only make
#: the code-space arithmetic explode, e.g. ``1 << (ebits + mbits)``).
MAX_EBITS = 16
MAX_MBITS = 64


@dataclass(frozen=True)
class FloatFormat(ScalarFormat):
    """A sign/exponent/mantissa floating-point format.

    Parameters
    ----------
    name : str
        Registry name.
    ebits : int
        Exponent field width (>= 1).
    mbits : int
        Explicit mantissa field width (hidden bit not counted; 0 is allowed).
    bias : int or None
        Exponent bias: a normal code with exponent field ``e`` has value ``2**(e - bias) * 1.m``. ``None``
        means a run-time bias in ``RUNTIME_BIASES`` (0..63), given per conversion.
    nan : str, optional
        Sugar for the special values (:data:`NAN_STYLES`); default ``"ieee"`` unless they are given.
    roundings : tuple of str
        Rounding modes the encoder offers.
    dtype : numpy dtype or None
        The numpy dtype holding this format exactly, for source formats.
    title : str
        Human-readable description for ``fpforge formats``.
    signed : bool
        False: no sign bit (Tesla UHP, unsigned P3109); a negative non-zero operand has no representation.
    denormals : str
        ``"ieee"`` (scale ``2**(1 - bias)``) or ``"cfloat"`` (scale ``2**-bias``, the Tesla guide's).
    ftz : bool
        Denormal operands and results are flushed to zero (their codes decode to 0).
    has_inf : bool
        The magnitude just below the high NaNs is ±Inf.
    num_high_nans : int
        NaN magnitudes at the top of each sign.
    has_neg_zero : bool
        The code 1000…0 is −0 (else, in a signed format, NaN).
    """

    name: str
    ebits: int
    mbits: int
    bias: int | None
    nan: InitVar[str | None] = None
    roundings: tuple[str, ...] = ("rne", "ta", "rtz", "sr")
    dtype: object = None
    title: str = ""
    signed: bool = True
    denormals: str = "ieee"
    ftz: bool = False
    has_inf: bool | None = None
    num_high_nans: int | None = None
    has_neg_zero: bool | None = None

    def __post_init__(self, nan):
        check_descriptor_fields(self, ("name", "title", "denormals"), ("ebits", "mbits"), ("signed", "ftz"))
        if nan is not None and not isinstance(nan, str):
            raise FpforgeTypeError(f"FloatFormat nan must be a string, not {nan!r}")
        for name in ("has_inf", "has_neg_zero"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), bool):
                raise FpforgeTypeError(f"FloatFormat {name} must be True, False or None, not {getattr(self, name)!r}")
        if self.num_high_nans is not None and (isinstance(self.num_high_nans, bool)
                                               or not isinstance(self.num_high_nans, int)):
            raise FpforgeTypeError(f"FloatFormat num_high_nans must be an integer or None, not {self.num_high_nans!r}")
        for what, value, lo, hi in (("ebits", self.ebits, 1, MAX_EBITS), ("mbits", self.mbits, 0, MAX_MBITS)):
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
                raise FpforgeValueError(f"{what} must be an integer in {lo}..{hi}, not {value!r}")
        data = (self.has_inf, self.num_high_nans, self.has_neg_zero)
        if nan is None and data == (None, None, None):
            nan = "ieee"
        if nan is not None:
            if nan not in NAN_STYLES:
                raise FpforgeValueError(f"nan style must be one of {', '.join(NAN_STYLES)}, not {nan!r}")
            if data != (None, None, None):
                raise FpforgeValueError("give either nan= or has_inf/num_high_nans/has_neg_zero, not both")
            inf, high, nz = NAN_STYLES[nan]
            high = (1 << self.mbits) - 1 if high == "binade" else high
            if nan == "fnuz" and not self.signed:
                raise FpforgeValueError("an unsigned format cannot use the fnuz NaN (the code 1000...0 needs a "
                                        "sign bit)")
            data = (inf, high, nz and self.signed)
        elif None in data:
            raise FpforgeValueError("give all of has_inf, num_high_nans and has_neg_zero (or nan=)")
        inf, high, nz = data
        object.__setattr__(self, "has_inf", bool(inf))
        object.__setattr__(self, "has_neg_zero", bool(nz))
        if not isinstance(high, int) or isinstance(high, bool) or not 0 <= high < self.mag_mask - inf:
            raise FpforgeValueError(f"num_high_nans must be an integer in 0..{self.mag_mask - inf - 1}, "
                                    f"not {high!r}")
        object.__setattr__(self, "num_high_nans", high)
        if nz and not self.signed:
            raise FpforgeValueError("an unsigned format has no negative zero")
        for r in self.roundings:
            if r not in ROUNDING_MODES:
                raise FpforgeValueError(f"unknown rounding mode {r!r}; valid: {', '.join(ROUNDING_MODES)}")
        if self.bias is not None and (not isinstance(self.bias, int) or isinstance(self.bias, bool)):
            raise FpforgeValueError(f"bias must be an integer or None (run-time), not {self.bias!r}")
        if self.denormals not in DENORMAL_STYLES:
            raise FpforgeValueError(f"denormals must be one of {', '.join(DENORMAL_STYLES)}, not "
                                    f"{self.denormals!r}")
        if self.ftz and self.denormals != "ieee":
            raise FpforgeValueError("a flush-to-zero format delivers no denormals; leave denormals='ieee'")

    # -- widths -------------------------------------------------------------------------------
    @property
    def bits(self) -> int:
        """Total code width (sign bit if any + exponent + mantissa)."""
        return int(self.signed) + self.ebits + self.mbits

    @property
    def mag_bits(self) -> int:
        """Width of the magnitude (exponent + mantissa fields)."""
        return self.ebits + self.mbits

    @property
    def mag_mask(self) -> int:
        """Mask of the magnitude bits of a code."""
        return (1 << (self.ebits + self.mbits)) - 1

    @property
    def precision(self) -> int:
        """Significand precision of normal numbers, hidden bit included."""
        return self.mbits + 1

    @property
    def sign_mask(self) -> int:
        """The sign bit of a code (0 for an unsigned format)."""
        return 1 << self.mag_bits if self.signed else 0

    @property
    def exp_max_field(self) -> int:
        return (1 << self.ebits) - 1

    # -- run-time bias ----------------------------------------------------------------------------
    @property
    def runtime_bias(self) -> bool:
        """The bias is chosen per conversion (``bias=None`` in the descriptor)."""
        return self.bias is None

    @property
    def biases(self):
        """The biases the format can take: ``RUNTIME_BIASES`` or its one fixed bias."""
        return RUNTIME_BIASES if self.bias is None else (self.bias,)

    def at(self, bias) -> "FloatFormat":
        """The fixed-bias descriptor of a run-time-bias format (same name, ``bias`` filled in).

        ``at(None)`` returns a fixed-bias format unchanged.

        Raises
        ------
        ValueError
            A missing or out-of-range bias for a run-time-bias format, or any bias for a fixed one.
        """
        if self.bias is not None:
            if bias is None:
                return self
            raise FpforgeValueError(f"format {self.name!r} has a fixed bias; bias must be None, not {bias!r}")
        lo, hi = RUNTIME_BIASES.start, RUNTIME_BIASES.stop - 1
        if bias is None:
            raise FpforgeValueError(f"format {self.name!r} has a run-time bias: pass bias= an integer in {lo}..{hi}")
        if isinstance(bias, (bool, np.bool_)) or not isinstance(bias, (int, np.integer)) or \
                int(bias) not in RUNTIME_BIASES:
            shown = bias.item() if isinstance(bias, np.generic) else bias
            error = FpforgeValueError if isinstance(shown, int) and not isinstance(shown, bool) else FpforgeTypeError
            raise error(f"bias of {self.name!r} must be an integer in {lo}..{hi}, not {shown!r}")
        return self.with_(bias=int(bias))

    def _fixed(self, what):
        if self.bias is None:
            raise FpforgeValueError(f"format {self.name!r} has a run-time bias: its {what} depends on it; "
                                    f"read it from {self.name}.at(bias)")

    @property
    def exponent_span(self) -> tuple[int, int]:
        """``(emin, emax)`` of the normal numbers over every bias the format can take (the Tesla guide's
        Tables 4-5: ``[-62, 15]`` for CFloat8_1_4_3)."""
        lo, hi = min(self.biases), max(self.biases)
        return 1 - hi, (self.max_code >> self.mbits) - lo

    # -- specials (docs/architecture.md) ------------------------------------------------------------
    @property
    def has_nan(self) -> bool:
        return self.num_high_nans > 0 or (self.signed and not self.has_neg_zero)

    @property
    def has_subnormals(self) -> bool:
        """Denormal codes deliver their values (not flushed, and there is a mantissa field)."""
        return self.mbits > 0 and not self.ftz

    @property
    def subnormal_prefix(self) -> tuple[int, int]:
        """``(width, value)``: a code whose exponent field (the top ``ebits`` magnitude bits) is 0 and whose
        mantissa is not is subnormal."""
        return self.ebits, 0

    @property
    def inf_code(self) -> int | None:
        """Magnitude code of +Inf (just below the high NaNs), or None."""
        return self.mag_mask - self.num_high_nans if self.has_inf else None

    @property
    def max_code(self) -> int:
        """Magnitude code (sign bit clear) of the largest finite value."""
        return self.mag_mask - self.num_high_nans - int(self.has_inf)

    def nan_code(self, negative: bool = False) -> int | None:
        """The canonical NaN this project's encoders produce; None for a format without NaN.

        With a whole binade of NaNs (IEEE) the quiet one with only the mantissa MSB set, sign kept;
        with fewer high NaNs the top code, sign kept; without high NaNs the code 1000…0.
        """
        if not self.has_nan:
            return None
        if not self.num_high_nans:
            return self.sign_mask
        if self.mbits and self.num_high_nans == (1 << self.mbits) - 1:
            mag = (self.exp_max_field << self.mbits) | (1 << (self.mbits - 1))
        else:
            mag = self.mag_mask
        return mag | (self.sign_mask if negative else 0)

    # -- exponents and values -------------------------------------------------------------------
    @property
    def emin(self) -> int:
        """Unbiased exponent of the smallest normal number."""
        self._fixed("emin")
        return 1 - self.bias

    @property
    def emax(self) -> int:
        """Unbiased exponent of the largest finite number."""
        self._fixed("emax")
        return (self.max_code >> self.mbits) - self.bias

    @property
    def subnormal_exp(self) -> int:
        """``e`` such that a denormal code with mantissa field ``m`` is worth ``m * 2**(e - mbits)``:
        ``emin`` for IEEE denormals, ``-bias`` for the CFloat guide's."""
        return self.emin if self.denormals == "ieee" else self.emin - 1

    @property
    def max_value(self) -> float:
        frac = self.max_code & ((1 << self.mbits) - 1)
        return float(2.0**self.emax * (1 + frac / 2**self.mbits))

    @property
    def min_normal(self) -> float:
        return float(2.0**self.emin)

    @property
    def min_subnormal(self) -> float:
        """Smallest positive value the format delivers: its smallest denormal, or the smallest normal
        when it has none (no mantissa bits, or flushed: ``ftz``)."""
        if not self.has_subnormals:
            return self.min_normal
        return float(2.0 ** (self.subnormal_exp - self.mbits))

    @property
    def max_subnormal(self) -> float | None:
        """Largest denormal value (None without denormals)."""
        if not self.has_subnormals:
            return None
        return float(((1 << self.mbits) - 1) * 2.0 ** (self.subnormal_exp - self.mbits))

    @property
    def subnormal_name(self) -> str:
        """What the reports call a code with exponent field 0 (``flushed`` when it reads as zero)."""
        return "flushed" if self.ftz else "subnormal"

    @property
    def min_normal_code(self) -> int:
        return 1 << self.mbits

    @property
    def min_subnormal_code(self) -> int | None:
        return 1 if self.has_subnormals else None

    @property
    def max_subnormal_code(self) -> int | None:
        return (1 << self.mbits) - 1 if self.has_subnormals else None

    def precision_by_exponent(self) -> tuple[np.ndarray, np.ndarray]:
        """``(exponents, bits)`` of :func:`fpforge.golden.summary.precision_by_exponent` (fixed bias)."""
        normal = np.arange(self.emin, self.emax + 1)
        if not self.has_subnormals:
            return normal, np.full(len(normal), self.precision)
        lo = self.subnormal_exp - self.mbits  # 2^e with lo <= e < subnormal_exp: e - lo + 1 bits
        sub = np.arange(lo, self.subnormal_exp)
        return (np.concatenate([sub, normal]),
                np.concatenate([sub - lo + 1, np.full(len(normal), self.precision)]))

    @property
    def top_quantum(self) -> float:
        """Spacing of the values in the top binade (the step from max to the first value beyond it)."""
        return float(2.0 ** (self.emax - self.mbits))

    @property
    def layout(self) -> str:
        """Field summary for listings, e.g. ``S1 E4 M3, bias 7`` or ``S1 E4 M3, bias 0..63 (run-time)``."""
        bias = (f"bias {RUNTIME_BIASES.start}..{RUNTIME_BIASES.stop - 1} (run-time)" if self.bias is None
                else f"bias {self.bias}")
        return f"{'S1 ' if self.signed else ''}E{self.ebits} M{self.mbits}, {bias}"

    def with_(self, **changes) -> "FloatFormat":
        return dataclasses.replace(self, nan=None, **changes)  # nan: the sugar, not re-applied

    # -- codes --------------------------------------------------------------------------------------
    def fields(self, codes):
        """``(sign, exponent field, mantissa field)`` of integer codes (int64 arrays; sign 0 when unsigned)."""
        codes = np.asarray(codes).astype(np.int64)
        sign = (codes >> self.mag_bits) & 1 if self.signed else np.zeros(codes.shape, np.int64)
        return sign, (codes >> self.mbits) & self.exp_max_field, codes & ((1 << self.mbits) - 1)

    def value_table(self) -> np.ndarray:
        """float64 value of every code of this fixed-bias descriptor (NaNs carry the code's sign bit;
        denormal codes of a flush-to-zero format are worth 0, what an operation reads)."""
        from .minifloat_exact import value_table

        return value_table(self)

    def code_fields(self, code: int) -> tuple[list[str], str]:
        """``[S, E, M]`` bit strings of one code (``S`` is ``""`` when unsigned) and ``"E=<exponent>"``
        (``"subnormal"`` for field 0; a run-time-bias format must be given as ``fmt.at(bias)``)."""
        b = format(int(code), f"0{self.bits}b")
        s, mag = (b[0], b[1:]) if self.signed else ("", b)
        e, m = mag[: self.ebits], mag[self.ebits:]
        ef = int(e, 2)
        return [s, e, m], ("subnormal" if ef == 0 else f"E={ef + self.emin - 1}")

    def encode_exact(self, src, x, rounding, saturate, nan_to_zero, draws, bias=None):
        """Codes and flags of ``x`` (see :func:`fpforge.golden.minifloat.encode_with_flags`)."""
        from .minifloat_exact import encode_exact

        return encode_exact(self, src, x, rounding, saturate, nan_to_zero, draws, bias)


    # -- as a dot-product element (ScalarFormat contract) ------------------------------------------------
    @property
    def dot_lsb(self) -> int:
        """IEEE denormals: ``1 - bias - mbits`` at the largest bias; the CFloat guide's: one less (a denormal
        code's exponent offset is 0, a normal one's its exponent field)."""
        return int(self.denormals == "ieee") - max(self.biases) - self.mbits

    @property
    def dot_eoff_max(self) -> int:
        top = self.max_code >> self.mbits
        top = max(top, 1) - 1 if self.denormals == "ieee" else top
        return top + max(self.biases) - min(self.biases)

    def dot_fields(self, codes, bias=None) -> tuple:
        """``eoff = max(e_field, 1) - 1`` (IEEE denormals) or ``e_field`` (the CFloat guide's), plus
        ``max_bias - bias`` for a run-time bias; denormals of a flush-to-zero format have ``sig = 0``."""
        from .classify import classify

        sign, ef, mf = self.fields(codes)
        sig = np.where(ef == 0, 0 if self.ftz else mf, mf | (1 << self.mbits))
        eoff = np.maximum(ef, 1) - 1 if self.denormals == "ieee" else ef
        if self.runtime_bias:
            if bias is None:
                raise FpforgeValueError(f"format {self.name!r} has a run-time bias: dot_fields needs bias=")
            eoff = eoff + (max(self.biases) - np.asarray(bias).astype(np.int64))
        elif bias is not None:
            raise FpforgeValueError(f"format {self.name!r} has a fixed bias; bias must be None, not {bias!r}")
        cls = classify(self, codes)
        return sign, sig, eoff, cls.nan, cls.inf


# ``nan`` is constructor sugar only (an InitVar): no attribute of that name, so that code asking a
# descriptor for a style name fails loudly instead of reading the InitVar's default.
del FloatFormat.nan
