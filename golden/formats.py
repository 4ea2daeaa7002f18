"""Format descriptors and the registry.

One frozen dataclass describes a scalar floating-point format; everything else (limits, code classes,
widths of the RTL ports, rows of the reports) is derived from it. Bit counts are stated exactly:

* ``ebits``: exponent field bits.
* ``mbits``: explicit mantissa (trailing significand) field bits. The hidden bit is **not** counted,
  so the precision in bits is ``mbits + 1`` for normal numbers.
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

Special-value conventions (``nan``):

* ``"ieee"``: exponent all ones with mantissa 0 is ±Inf, any other mantissa is NaN (FP32, FP16, BF16,
  OCP E5M2).
* ``"fn"``: no infinities; the only NaN codes are S.1…1.1…1 (OCP E4M3, "finite + NaN").
* ``"fnuz"``: no infinities, no negative zero; the single NaN is the code 1000…0 (Graphcore/AMD FNUZ).
* ``"none"``: no infinities and no NaN: every code is a finite number, the all-ones exponent included
  (OCP FP6/FP4 element formats, Tesla CFloat8). Encoders clamp: overflow and ±Inf give ±max, a NaN gives
  ±max with its sign (or +0 with ``nan_to_zero``) and raises the invalid flag.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import IntFlag

import ml_dtypes
import numpy as np

from .errors import FpforgeTypeError, FpforgeValueError, UnknownName

__all__ = [
    "COMPAT_CHOICES",
    "DENORMAL_STYLES",
    "Flag",
    "FloatFormat",
    "TaperedFormat",
    "ROUNDING_MODES",
    "RUNTIME_BIASES",
    "RUNTIME_BIAS_BITS",
    "SOURCES",
    "get_format",
    "list_formats",
    "register",
]


class Flag(IntFlag):
    """Exception flags; the same bit layout in the golden model and in the RTL ``flags`` port."""

    INVALID = 1  #: NaN operand, or no definable result (an infinity the format cannot hold, a negative UHP operand)
    DENORMAL = 2  #: the source operand was subnormal
    OVERFLOW = 4  #: a finite operand rounded beyond the largest finite value
    UNDERFLOW = 8  #: non-zero operand, delivered result below the smallest normal, and inexact
    INEXACT = 16  #: the delivered result differs from the operand


#: ``compat`` values of a tapered format: fpforge's own semantics, or Huawei Ascend's (``docs/hif8.md``).
COMPAT_CHOICES = ("default", "ascend")

#: Rounding mode names and the code each has on a runtime ``mode`` port (stable across formats).
ROUNDING_MODES = {"rne": 0, "ta": 1, "rtz": 2, "sr": 3, "hr": 4}

_NAN_STYLES = ("ieee", "fn", "fnuz", "none")

#: Denormal conventions of :class:`FloatFormat` (see the module docstring).
DENORMAL_STYLES = ("ieee", "cfloat")

#: Width of a run-time exponent bias (Tesla CFloat8/SHP: an unsigned 6-bit integer) and its values.
RUNTIME_BIAS_BITS = 6
RUNTIME_BIASES = range(1 << RUNTIME_BIAS_BITS)


def _check_descriptor_fields(desc, strings=(), ints=(), bools=(), tuples=("roundings",)):
    """Types of a descriptor's fields (a wrong type is a TypeError naming the field, never a crash later)."""
    kind = type(desc).__name__
    for name in strings:
        if not isinstance(getattr(desc, name), str):
            raise FpforgeTypeError(f"{kind} {name} must be a string, not {getattr(desc, name)!r}")
    for name in ints:
        value = getattr(desc, name)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise FpforgeTypeError(f"{kind} {name} must be an integer, not {value!r}")
    for name in bools:
        if not isinstance(getattr(desc, name), bool):
            raise FpforgeTypeError(f"{kind} {name} must be True or False, not {getattr(desc, name)!r}")
    for name in tuples:
        value = getattr(desc, name)
        if not isinstance(value, tuple) or not value or not all(isinstance(v, str) for v in value):
            raise FpforgeTypeError(f"{kind} {name} must be a non-empty tuple of mode names, not {value!r}")


@dataclass(frozen=True)
class FloatFormat:
    """A sign/exponent/mantissa floating-point format.

    Parameters
    ----------
    name : str
        Registry name.
    ebits : int
        Exponent field width.
    mbits : int
        Explicit mantissa field width (hidden bit not counted).
    bias : int or None
        Exponent bias: a normal code with exponent field ``e`` has value ``2**(e - bias) * 1.m``. ``None``
        means a run-time bias in ``RUNTIME_BIASES`` (0..63), given per conversion.
    nan : str
        Special-value convention, one of ``"ieee"``, ``"fn"``, ``"fnuz"``, ``"none"``.
    signed : bool
        False: no sign bit (Tesla UHP); a negative non-zero operand has no representation.
    denormals : str
        ``"ieee"`` (scale ``2**(1 - bias)``) or ``"cfloat"`` (scale ``2**-bias``, the Tesla guide's).
    ftz : bool
        Denormal operands and results are flushed to zero (their codes decode to 0).
    roundings : tuple of str
        Rounding modes the encoder offers.
    dtype : numpy dtype or None
        The numpy dtype holding this format exactly, for source formats.
    title : str
        Human-readable description for ``fpforge formats``.
    """

    name: str
    ebits: int
    mbits: int
    bias: int | None
    nan: str = "ieee"
    roundings: tuple[str, ...] = ("rne", "ta", "rtz", "sr")
    dtype: object = None
    title: str = ""
    signed: bool = True
    denormals: str = "ieee"
    ftz: bool = False

    def __post_init__(self):
        _check_descriptor_fields(self, ("name", "title", "nan", "denormals"), ("ebits", "mbits"), ("signed", "ftz"))
        if self.nan not in _NAN_STYLES:
            raise FpforgeValueError(f"nan style must be one of {', '.join(_NAN_STYLES)}, not {self.nan!r}")
        if self.ebits < 1 or self.mbits < 0:
            raise FpforgeValueError(f"bad field widths ebits={self.ebits!r} mbits={self.mbits!r}")
        for r in self.roundings:
            if r not in ROUNDING_MODES:
                raise FpforgeValueError(f"unknown rounding mode {r!r}")
        if self.bias is not None and (not isinstance(self.bias, int) or isinstance(self.bias, bool)):
            raise FpforgeValueError(f"bias must be an integer or None (run-time), not {self.bias!r}")
        if self.denormals not in DENORMAL_STYLES:
            raise FpforgeValueError(f"denormals must be one of {', '.join(DENORMAL_STYLES)}, not {self.denormals!r}")
        if not self.signed and self.nan == "fnuz":
            raise FpforgeValueError("an unsigned format cannot use the fnuz NaN (the code 1000...0 needs a sign bit)")
        if self.ftz and self.denormals != "ieee":
            raise FpforgeValueError("a flush-to-zero format delivers no denormals; leave denormals='ieee'")

    kind = "float"

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
        return (1 << self.mag_bits) - 1

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
        if bias is None:
            raise FpforgeValueError(f"format {self.name!r} has a run-time bias: pass bias= an integer in "
                                    f"{RUNTIME_BIASES.start}..{RUNTIME_BIASES.stop - 1}")
        if isinstance(bias, (bool, np.bool_)) or not isinstance(bias, (int, np.integer)) or \
                int(bias) not in RUNTIME_BIASES:
            shown = bias.item() if isinstance(bias, np.generic) else bias
            error = FpforgeValueError if isinstance(shown, int) and not isinstance(shown, bool) else FpforgeTypeError
            raise error(f"bias of {self.name!r} must be an integer in "
                        f"{RUNTIME_BIASES.start}..{RUNTIME_BIASES.stop - 1}, not {shown!r}")
        return dataclasses.replace(self, bias=int(bias))

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

    # -- specials -----------------------------------------------------------------------------
    @property
    def has_inf(self) -> bool:
        return self.nan == "ieee"

    @property
    def has_nan(self) -> bool:
        return self.nan != "none"

    @property
    def has_neg_zero(self) -> bool:
        return self.nan != "fnuz" and self.signed

    @property
    def has_subnormals(self) -> bool:
        """Denormal codes deliver their values (not flushed, and there is a mantissa field)."""
        return self.mbits > 0 and not self.ftz

    @property
    def max_code(self) -> int:
        """Magnitude code (sign bit clear) of the largest finite value."""
        if self.nan == "ieee":
            return (self.exp_max_field << self.mbits) - 1
        if self.nan == "fn":
            return self.mag_mask - 1
        return self.mag_mask  # fnuz, none: the all-ones magnitude

    @property
    def inf_code(self) -> int | None:
        """Magnitude code of +Inf, or None."""
        return self.exp_max_field << self.mbits if self.has_inf else None

    def nan_code(self, negative: bool = False) -> int | None:
        """The canonical NaN this project's encoders produce (quiet, sign kept where there is one); None
        for a format without NaN."""
        if self.nan == "none":
            return None
        if self.nan == "fnuz":
            return self.sign_mask
        if self.nan == "fn":
            mag = self.mag_mask
        else:
            mag = (self.exp_max_field << self.mbits) | (1 << (self.mbits - 1))
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
        when denormals are flushed (``ftz``)."""
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
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class TaperedFormat:
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
    compat : str
        ``"default"``, or ``"ascend"``: bit-compatible with Huawei's Ascend reference conversions (hybrid
        rounding reads ``F >= T`` literally, flushes ``|x| < 2^-23`` to zero and overflows from
        ``1.25 × 2^15`` before rounding; NaN decodes to +qNaN). See ``docs/hif8.md``.
    """

    name: str
    dots: tuple = ((0b11, 2, 4), (0b10, 2, 3), (0b01, 2, 2), (0b001, 3, 1), (0b0001, 4, 0))
    dml: tuple = (0b0000, 4)
    dml_offset: int = 23
    bits: int = 8
    roundings: tuple[str, ...] = ("ta", "hr", "sr", "rne", "rtz")
    title: str = ""
    compat: str = "default"

    kind = "tapered"
    has_inf = True
    has_nan = True
    has_neg_zero = False
    nan = "single"
    dtype = None
    runtime_bias = False
    signed = True
    ftz = False

    def at(self, bias):
        """Fixed-bias formats are their own ``at(None)`` (see :meth:`FloatFormat.at`)."""
        if bias is not None:
            raise FpforgeValueError(f"format {self.name!r} has a fixed bias; bias must be None, not {bias!r}")
        return self

    def __post_init__(self):
        _check_descriptor_fields(self, ("name", "title"), ("bits", "dml_offset"))
        for r in self.roundings:
            if r not in ROUNDING_MODES:
                raise FpforgeValueError(f"unknown rounding mode {r!r}")
        if not isinstance(self.compat, str) or self.compat not in COMPAT_CHOICES:
            raise UnknownName(f"compat must be one of {', '.join(COMPAT_CHOICES)}, not {self.compat!r}")
        for code, width, d in self.dots:
            if self.mant_width_of_dot(width, d) < 0:
                raise FpforgeValueError(f"dot {code:0{width}b} with D={d} leaves no room in {self.bits} bits")

    # -- fields ---------------------------------------------------------------------------------
    @property
    def sign_mask(self) -> int:
        return 1 << (self.bits - 1)

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
    def top_quantum(self) -> float:
        """Spacing of the values in the top binade (the step from max to the Inf slot beyond it)."""
        return float(2.0 ** (self.emax - self.mant_width(self.emax)))


_REGISTRY: dict[str, object] = {}
#: Callables ``name -> descriptor or None`` consulted for names not in the registry (parametric families:
#: ``bdr_m7_k16_d8_k2_d1`` is resolved by ``fpforge.golden.block``).
_RESOLVERS: list = []


def register(fmt):
    """Add a descriptor to the registry (names are unique)."""
    if fmt.name in _REGISTRY:
        raise FpforgeValueError(f"format {fmt.name!r} is already registered")
    _REGISTRY[fmt.name] = fmt
    return fmt


def get_format(name):
    """Return the descriptor registered as ``name`` (a descriptor is passed through).

    Raises
    ------
    KeyError
        With a message naming the valid choices.
    """
    if not isinstance(name, str):
        if hasattr(name, "name") and hasattr(name, "bits") and hasattr(name, "roundings"):
            return name  # a descriptor
        raise FpforgeTypeError(f"format must be a format name (see list_formats()) or a descriptor, not "
                               f"{type(name).__name__} {name!r}"[:200])
    try:
        return _REGISTRY[name.lower()]
    except KeyError:
        pass
    for resolve in _RESOLVERS:
        fmt = resolve(name.lower())
        if fmt is not None:
            return fmt
    raise UnknownName(f"unknown format {name!r}; valid formats: {', '.join(list_formats())}, "
                      "or bdr_m<M>_k<K1>_d<D1>_k<K2>_d<D2>")


def list_formats(kind: str | None = None) -> list[str]:
    """Names of the registered formats, in registration order; ``kind="source"`` for the sources."""
    if kind is None:
        return list(_REGISTRY)
    kinds = ("source", *dict.fromkeys(getattr(f, "kind", None) for f in _REGISTRY.values()))
    if not isinstance(kind, str) or kind not in kinds:
        raise UnknownName(f"unknown format kind {kind!r}; valid kinds: {', '.join(map(str, kinds))} (or None: all)")
    if kind == "source":
        return list(SOURCES)
    return [n for n, f in _REGISTRY.items() if getattr(f, "kind", None) == kind and n not in SOURCES]


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
# The Ascend-compatible variant (issue 15): `compat="ascend"` on the API and CLI resolves to it.
HIF8_ASCEND = register(dataclasses.replace(HIF8, name="hif8_ascend", compat="ascend",
                                           title="HiFloat8, bit-compatible with Huawei Ascend's conversions"))

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
