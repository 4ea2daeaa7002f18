"""The block-format descriptors: BDR (``BlockFormat``: MX9/MX6/MX4, MSFP, any ``bdr(m, k1, d1, k2, d2)``) and
OCP Microscaling (``MXFormat``), their element and scale formats, and the registered presets.

Each descriptor converts its own blocks (``encode_blocks``, ``decode_values``); :mod:`fpforge.golden.block`
drives them (shapes, rounding, draws, packing) and documents the semantics.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .checks import check_descriptor_fields
from .contract import BlockFormatLike
from .errors import FpforgeTypeError, FpforgeValueError
from .floatformat import FloatFormat
from .formats import RESOLVERS, ROUNDING_MODES, get_format, list_formats, register
from .minifloat import code_dtype, decode, encode
from .rounding import round_magnitude

__all__ = ["E8M0", "INT8", "BLOCK_NAMES", "BlockFormat", "IntElement", "MXFormat", "ScaleFormat", "bdr"]

_NEG_INF_EXP = -(1 << 20)  # "exponent" of a zero: below every clamp
_POS_INF_EXP = 1 << 20  # "exponent" of a NaN/Inf member: above every clamp


def _exponents(v, nz):
    """floor(log2 v) where ``nz`` (float64 v), else 0."""
    _, e = np.frexp(np.where(nz, v, 1.0))
    return np.where(nz, e.astype(np.int64) - 1, 0)



@dataclass(frozen=True)
class ScaleFormat:
    """A power-of-two scale: ``bits``-bit unsigned exponent, value ``2**(code - bias)``.

    ``E8M0`` (OCP MX): 8 bits, bias 127, code 0xFF is NaN, so exponents ``[-127, 127]``.
    """

    name: str
    bits: int
    bias: int
    has_nan: bool = True

    @property
    def emin(self) -> int:
        return -self.bias

    @property
    def emax(self) -> int:
        return (1 << self.bits) - 1 - self.bias - int(self.has_nan)

    @property
    def nan_code(self) -> int | None:
        return (1 << self.bits) - 1 if self.has_nan else None


E8M0 = ScaleFormat("e8m0", 8, 127, True)


@dataclass(frozen=True)
class IntElement:
    """A two's-complement element with an implicit scale: code ``c`` (``bits`` wide) means
    ``signed(c) * 2**-frac_bits``. OCP MX INT8: 8 bits, 6 fraction bits, values -2 … 127/64; encoders
    saturate symmetrically to ±(2**(bits-1) - 1) and never produce the most negative code."""

    name: str = "int8"
    bits: int = 8
    frac_bits: int = 6

    @property
    def emax(self) -> int:
        """Exponent of the largest power of two below the largest value (0 for INT8: 1 ≤ 127/64 < 2)."""
        return self.bits - 2 - self.frac_bits

    @property
    def max_code(self) -> int:
        return (1 << (self.bits - 1)) - 1

    @property
    def max_value(self) -> float:
        return self.max_code / 2.0**self.frac_bits


INT8 = IntElement()


def _check_int(name, value, lo, hi=None, rule=None):
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < lo or (
            hi is not None and value > hi):
        rng_text = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise FpforgeValueError(f"BDR {name} must be an integer {rng_text}{rule or ''}, not {value!r}")


class _BlockSize(BlockFormatLike):
    """Sizes of a block format from its ``fields`` (``(name, width, count)`` in layout order) and ``k1``."""

    @property
    def block_bits(self) -> int:
        return sum(w * c for _, w, c in self.fields)

    @property
    def bits(self) -> int:
        """Bits of one block (the "code" of a block format)."""
        return self.block_bits

    @property
    def bits_per_element(self) -> Fraction:
        """Block bits over k1, exactly (BDR: ``(m + 1) + d1/k1 + d2/k2``)."""
        return Fraction(self.block_bits, self.k1)


@dataclass(frozen=True)
class BlockFormat(_BlockSize):
    """BDR(m, k1, d1, k2, d2) (seed 004 §III; SPEC-NOTES §5). See the module docstring for the semantics.

    Parameters
    ----------
    m : int
        Magnitude bits per element (no hidden bit; the sign is extra), 1..24.
    k1 : int
        Block size (values sharing the ``d1``-bit exponent), >= 1.
    d1 : int
        Shared exponent field width, 1..8; the field is ``E + 2**(d1-1)``.
    k2 : int
        Sub-block size (values sharing a ``d2``-bit shift); must divide ``k1``. With ``d2 = 0`` it is set to
        ``k1``.
    d2 : int
        Sub-block shift width, 0..4; shifts are ``0 .. 2**d2 - 1``.
    name, title : str
        Registry name and description (not part of equality).
    roundings : tuple of str
        Offered rounding modes; the first (``ta``, the paper's round-half-away) is the default.
    """

    m: int
    k1: int
    d1: int
    k2: int
    d2: int
    name: str = field(default="", compare=False)
    title: str = field(default="", compare=False)
    roundings: tuple = field(default=("ta", "rne", "rtz", "sr"), compare=False)

    def __post_init__(self):
        check_descriptor_fields(self, ("name", "title"))
        _check_int("m (magnitude bits)", self.m, 1, 24)
        _check_int("k1 (block size)", self.k1, 1)
        _check_int("d1 (shared exponent bits)", self.d1, 1, 8)
        _check_int("d2 (sub-block shift bits)", self.d2, 0, 4)
        _check_int("k2 (sub-block size)", self.k2, 1)
        if self.k1 % self.k2:
            raise FpforgeValueError(f"BDR k2 (sub-block size) must divide k1 = {self.k1}, not {self.k2!r}")
        if self.d2 == 0 and self.k2 != self.k1:
            object.__setattr__(self, "k2", self.k1)  # no shift: one sub-block (canonical form)
        if not self.name:
            object.__setattr__(self, "name", f"bdr_m{self.m}_k{self.k1}_d{self.d1}_k{self.k2}_d{self.d2}")
        for r in self.roundings:
            if r not in ROUNDING_MODES or r == "hr":
                raise FpforgeValueError(f"unknown block rounding mode {r!r}")

    # -- geometry ---------------------------------------------------------------------------------
    @property
    def beta(self) -> int:
        """Largest sub-block shift, ``2**d2 - 1``."""
        return (1 << self.d2) - 1

    @property
    def n_sub(self) -> int:
        """Sub-blocks per block, ``k1 / k2``."""
        return self.k1 // self.k2

    @property
    def elem_bits(self) -> int:
        return self.m + 1

    @property
    def scale_bits(self) -> int:
        return self.d1

    @property
    def shift_bits(self) -> int:
        return self.d2

    @property
    def fields(self) -> tuple:
        """The block's bit fields, least significant first: ``(name, width, count)``."""
        out = [("scale", self.d1, 1)]
        if self.d2:
            out.append(("shift", self.d2, self.n_sub))
        out.append(("elem", self.m + 1, self.k1))
        return tuple(out)

    # -- exponents and values ---------------------------------------------------------------------
    @property
    def scale_bias(self) -> int:
        return 1 << (self.d1 - 1)

    @property
    def e_min(self) -> int:
        """Smallest shared exponent (field 0)."""
        return -self.scale_bias

    @property
    def e_max(self) -> int:
        """Largest shared exponent (field all ones)."""
        return (1 << self.d1) - 1 - self.scale_bias

    @property
    def max_value(self) -> float:
        return float((2**self.m - 1) * 2.0 ** (self.e_max - self.m + 1))

    @property
    def min_subnormal(self) -> float:
        """Smallest non-zero magnitude (q = 1 at the largest shift, smallest exponent)."""
        return float(2.0 ** (self.e_min - self.beta - self.m + 1))

    @property
    def float32_exact(self) -> bool:
        """Every value the format can hold is a float32 (so ``decode_block`` returns float32)."""
        return self.m <= 24 and self.e_max + 1 <= 128 and self.e_min - self.beta - self.m + 1 >= -149

    @property
    def value_dtype(self):
        return np.dtype(np.float32) if self.float32_exact else np.dtype(np.float64)

    @property
    def layout(self) -> str:
        return (f"BDR m={self.m} k1={self.k1} d1={self.d1} k2={self.k2} d2={self.d2}: "
                f"{self.bits_per_element} bits/element")

    @property
    def params(self) -> tuple:
        return (self.m, self.k1, self.d1, self.k2, self.d2)

    @property
    def shift_count(self) -> int:
        """Sub-block shifts per block in a BlockEncoding (``n_sub``; zeros when ``d2 = 0``)."""
        return self.n_sub

    @property
    def dot_side(self):
        """Elements enter a dot product as m-bit magnitudes, shifted by the sub-block shifts (beta - tau) and
        the shared exponents (:class:`fpforge.golden.dot.config.OperandSide`)."""
        from .dot.config import OperandSide

        return OperandSide(self, "bdr", (1 << self.m) - 1, 0, self.beta, 1 - self.m - self.beta, self.e_min,
                           self.e_max, False, sub_block_guard=True)

    # -- conversions ------------------------------------------------------------------------------
    def encode_blocks(self, xb, rounding, draws, rand_bits):
        """``(scale, shift, elem)`` of float32 blocks ``xb`` (B, k1) (module docstring of :mod:`fpforge.golden.block`)."""
        fmt = self
        bits = xb.view(np.uint32)
        sign = (bits >> np.uint32(31)).astype(np.int64)
        with np.errstate(invalid="ignore"):
            v = np.abs(xb.astype(np.float64))
        nonfinite = ~np.isfinite(v)
        v = np.where(nonfinite, 0.0, v)
        nz = v != 0
        e = np.where(nz, _exponents(v, nz), _NEG_INF_EXP)
        e = np.where(nonfinite, _POS_INF_EXP, e)
        E = np.clip(e.max(axis=-1), fmt.e_min, fmt.e_max)  # (B,)
        es = e.reshape(-1, fmt.n_sub, fmt.k2).max(axis=-1)  # (B, n_sub)
        tau = np.clip(E[:, None] - es, 0, fmt.beta)
        lsb = np.repeat(E[:, None] - tau - fmt.m + 1, fmt.k2, axis=-1)  # (B, k1)
        qmax = (1 << fmt.m) - 1
        q = round_magnitude(v, lsb, rounding, draws, rand_bits, limit=2 * (qmax + 1))
        q = np.where(nonfinite, qmax, np.minimum(q, qmax))
        elem = (sign << fmt.m) | q
        scale = (E + fmt.scale_bias).astype(code_dtype(fmt.d1))
        return scale, tau.astype(np.uint8), elem.astype(code_dtype(fmt.m + 1))

    def decode_values(self, scale, shift, elem):
        """Exact float64 values ``(..., nb, k1)`` of int64 fields (``scale`` (..., nb), ``shift`` (..., nb, n_sub))."""
        E = scale - self.scale_bias
        tau = np.repeat(shift, self.k2, axis=-1)
        q = elem & ((1 << self.m) - 1)
        val = np.ldexp(q.astype(np.float64), (E[..., None] - tau - self.m + 1).astype(np.int32))
        return np.where((elem >> self.m) & 1 == 1, -val, val)


@dataclass(frozen=True)
class MXFormat(_BlockSize):
    """An OCP Microscaling format: ``k1`` elements of ``element`` sharing one E8M0 scale.

    Parameters
    ----------
    name : str
        Registry name.
    element : FloatFormat or IntElement
        Element format (OCP E4M3, E5M2, E3M2, E2M3, E2M1, or INT8).
    k1 : int
        Block size (32 in OCP MX v1.0).
    scale : ScaleFormat
        E8M0.
    roundings : tuple of str
        Offered roundings; the first (``rne``) is the default.
    title : str
        Description.
    """

    name: str
    element: object
    k1: int = 32
    scale: ScaleFormat = E8M0
    roundings: tuple = ("rne", "ta", "rtz", "sr")
    title: str = ""

    d2 = 0
    beta = 0

    def __post_init__(self):
        check_descriptor_fields(self, ("name", "title"), ("k1",))
        if not isinstance(self.element, (FloatFormat, IntElement)) or (
                isinstance(self.element, FloatFormat) and self.element.dtype is not None):
            raise FpforgeTypeError(f"MXFormat element must be a narrow FloatFormat or an IntElement, not "
                                   f"{self.element!r}"[:200])
        if not isinstance(self.scale, ScaleFormat):
            raise FpforgeTypeError(f"MXFormat scale must be a ScaleFormat (E8M0), not {self.scale!r}"[:200])
        if self.k1 < 1:
            raise FpforgeValueError(f"MXFormat k1 (block size) must be >= 1, not {self.k1}")
        for r in self.roundings:
            if r not in ROUNDING_MODES or r == "hr":
                raise FpforgeValueError(f"unknown block rounding mode {r!r}")

    @property
    def is_int(self) -> bool:
        return isinstance(self.element, IntElement)

    @property
    def emax_elem(self) -> int:
        """Exponent of the largest power of two the element format holds (OCP ``emax_elem``)."""
        return self.element.emax

    @property
    def elem_bits(self) -> int:
        return self.element.bits

    @property
    def scale_bits(self) -> int:
        return self.scale.bits

    @property
    def n_sub(self) -> int:
        return 1

    @property
    def fields(self) -> tuple:
        return (("scale", self.scale.bits, 1), ("elem", self.element.bits, self.k1))

    @property
    def max_value(self) -> float:
        return float(self.element.max_value * 2.0**self.scale.emax)

    @property
    def min_subnormal(self) -> float:
        lo = 2.0**-self.element.frac_bits if self.is_int else self.element.min_subnormal
        return float(lo * 2.0**self.scale.emin)

    @property
    def float32_exact(self) -> bool:
        return False  # 0xFE scales with large elements exceed FP32's range

    @property
    def value_dtype(self):
        return np.dtype(np.float64)

    @property
    def layout(self) -> str:
        return f"OCP MX: E8M0 scale + {self.k1} x {self.element.name}: {self.bits_per_element} bits/element"

    shift_count = 0  # no sub-block shifts: a BlockEncoding's shift is (..., nb, 0)

    @property
    def dot_side(self):
        """Elements enter a dot product as significands (INT8: |code|) whose exponents shift the products, the
        E8M0 scales as block exponents (:class:`fpforge.golden.dot.config.OperandSide`)."""
        from .dot.config import OperandSide, float_eoff_max

        el = self.element
        if self.is_int:
            return OperandSide(self, "ocp", 1 << (el.bits - 1), 0, 0, -el.frac_bits, self.scale.emin,
                               self.scale.emax, True, product_shift=True, integer_elements=True)
        return OperandSide(self, "ocp", (1 << (el.mbits + 1)) - 1, float_eoff_max(el), 0, el.emin - el.mbits,
                           self.scale.emin, self.scale.emax, True, product_shift=True)

    # -- conversions ------------------------------------------------------------------------------
    def encode_blocks(self, xb, rounding, draws, rand_bits):
        """``(scale, shift, elem)`` of float32 blocks ``xb`` (B, k1) (module docstring of :mod:`fpforge.golden.block`)."""
        fmt = self
        with np.errstate(invalid="ignore"):
            v = np.abs(xb.astype(np.float64))
        bad = (~np.isfinite(v)).any(axis=-1)  # (B,)
        x = np.where(bad[:, None], np.float32(0), xb)
        amax = np.where(bad, 0.0, np.where(np.isfinite(v), v, 0.0).max(axis=-1))
        nz = amax != 0
        sexp = np.where(nz, _exponents(amax, nz) - fmt.emax_elem, fmt.scale.emin)
        sexp = np.clip(sexp, fmt.scale.emin, fmt.scale.emax)
        scale = np.where(bad, fmt.scale.nan_code, sexp + fmt.scale.bias).astype(np.uint8)
        scaled = np.ldexp(x, (-sexp[:, None]).astype(np.int32)).astype(np.float32)
        if fmt.is_int:
            el = fmt.element
            mag = np.abs(scaled.astype(np.float64))
            q = round_magnitude(mag, np.full(mag.shape, -el.frac_bits, np.int64), rounding, draws, rand_bits,
                                limit=2 * (el.max_code + 1))
            q = np.minimum(q, el.max_code)
            neg = np.signbit(scaled)
            elem = np.where(neg, (-q) & ((1 << el.bits) - 1), q)
        else:
            kw = {"rand": draws.ravel(), "rand_bits": rand_bits} if rounding == "sr" else {}
            elem = encode(fmt.element, scaled.ravel(), rounding=rounding, saturate=True, **kw).reshape(scaled.shape)
        elem = np.where(bad[:, None], 0, elem).astype(code_dtype(fmt.elem_bits))
        return scale, np.zeros((len(xb), 0), np.uint8), elem

    def decode_values(self, scale, shift, elem):
        """Exact float64 values ``(..., nb, k1)`` of int64 fields; NaN throughout blocks with the NaN scale."""
        if self.is_int:
            el = self.element
            signed_q = np.where(elem >= 1 << (el.bits - 1), elem - (1 << el.bits), elem)
            ev = np.ldexp(signed_q.astype(np.float64), -el.frac_bits)
        else:
            ev = decode(self.element, elem).astype(np.float64)
        val = np.ldexp(ev, (scale[..., None] - self.scale.bias).astype(np.int32))
        return np.where(scale[..., None] == self.scale.nan_code, np.nan, val)


def bdr(m, k1, d1, k2, d2) -> BlockFormat:
    """The BDR(m, k1, d1, k2, d2) descriptor; a registered preset with the same parameters is returned
    as itself (``bdr(7, 16, 8, 2, 1) is get_format("mx9")``).

    Raises
    ------
    ValueError
        Naming the bad value and the rule: m in 1..24, k1 >= 1, k2 >= 1 dividing k1, d1 in 1..8, d2 in 0..4.
    """
    fmt = BlockFormat(m, k1, d1, k2, d2)
    return _bdr_presets().get(fmt, fmt)


@functools.lru_cache(maxsize=1)
def _bdr_presets() -> dict:
    """The registered BDR presets by their parameters (equality ignores the name)."""
    fmts = [get_format(name) for name in BLOCK_NAMES]
    return {f: f for f in fmts if isinstance(f, BlockFormat)}


# -- the registered formats ---------------------------------------------------------------------------
def _preset(name, m, d2, k2, title):
    return register(BlockFormat(m, 16, 8, k2, d2, name=name, title=title))


MX9 = _preset("mx9", 7, 1, 2, "BDR MX9 (shared microexponents: m=7, k1=16, d1=8, k2=2, d2=1)")
MX6 = _preset("mx6", 4, 1, 2, "BDR MX6 (shared microexponents: m=4, k1=16, d1=8, k2=2, d2=1)")
MX4 = _preset("mx4", 2, 1, 2, "BDR MX4 (shared microexponents: m=2, k1=16, d1=8, k2=2, d2=1)")
MSFP12 = _preset("msfp12", 3, 0, 16, "MSFP12 block floating point (m=3, k1=16, d1=8, no sub-block shift)")
MSFP16 = _preset("msfp16", 7, 0, 16, "MSFP16 block floating point (m=7, k1=16, d1=8, no sub-block shift)")


def _ocp(name, element, title):
    return register(MXFormat(name, element, title=title))


MXFP8_E4M3 = _ocp("mxfp8_e4m3", get_format("e4m3"), "OCP MXFP8: 32 x E4M3 + E8M0 scale")
MXFP8_E5M2 = _ocp("mxfp8_e5m2", get_format("e5m2"), "OCP MXFP8: 32 x E5M2 + E8M0 scale")
MXFP6_E3M2 = _ocp("mxfp6_e3m2", get_format("e3m2"), "OCP MXFP6: 32 x E3M2 + E8M0 scale")
MXFP6_E2M3 = _ocp("mxfp6_e2m3", get_format("e2m3"), "OCP MXFP6: 32 x E2M3 + E8M0 scale")
MXFP4_E2M1 = _ocp("mxfp4_e2m1", get_format("e2m1"), "OCP MXFP4: 32 x E2M1 + E8M0 scale")
MXINT8 = _ocp("mxint8", INT8, "OCP MXINT8: 32 x INT8 (2's complement, x 2^-6) + E8M0 scale")

#: The registered block formats (registration order: the BDR presets, then the OCP MX formats).
BLOCK_NAMES = tuple(list_formats("block"))

_BDR_NAME = re.compile(r"bdr_m(\d+)_k(\d+)_d(\d+)_k(\d+)_d(\d+)")


@functools.lru_cache(maxsize=4096)  # a sweep resolves each point's name several times (frozen results: shared)
def _resolve(name):
    """``bdr_m7_k16_d8_k2_d1`` -> ``bdr(7, 16, 8, 2, 1)`` (invalid parameters raise the bdr() error)."""
    match = _BDR_NAME.fullmatch(name)
    return bdr(*(int(g) for g in match.groups())) if match else None


RESOLVERS.append(_resolve)
