"""Block formats: BDR (shared-microexponent MX9/MX6/MX4, MSFP) and OCP Microscaling (MX v1.0).

A block format quantizes ``k1`` consecutive values of the last axis together. Two families, one
interface (``encode_block``, ``decode_block``, ``pack``, ``unpack``, ``quantize``):

**BDR(m, k1, d1, k2, d2)** (seed 004 §III, SPEC-NOTES §5; ``BlockFormat``):

* Every block of ``k1`` values stores one ``d1``-bit shared exponent field ``S = E + 2**(d1-1)``, so
  ``E`` covers ``[-2**(d1-1), 2**(d1-1) - 1]`` (d1 = 8: ``[-128, 127]``, every FP32 normal exponent and
  FP32's own maximum at the top; no code is spent on exponents an FP32 operand cannot have).
* ``E`` = the largest element exponent ``floor(log2 |x|)`` of the block (FP32 subnormals have their true
  exponent, down to -149), clamped to that range. A block of zeros has ``E`` = the bottom of the range.
* Each sub-block of ``k2`` values stores a ``d2``-bit shift ``tau = min(E - Es, 2**d2 - 1)`` (``Es`` the
  largest exponent in the sub-block; an all-zero sub-block has ``tau = 2**d2 - 1``; clamped at 0 when
  ``E`` itself was clamped down).
* Each element is a sign bit and an ``m``-bit magnitude ``q`` with no hidden bit: value
  ``(-1)**sign * q * 2**(E - tau - m + 1)`` (the magnitude's MSB weighs ``2**(E - tau)``). ``q`` is
  ``|x| / 2**(E - tau - m + 1)`` rounded by the block's rounding mode; a ``q`` beyond ``2**m - 1``
  saturates. The sign bit is the operand's (``-0.0`` and negative values that round to 0 keep it).
* NaN and ±Inf members: BDR has no special values. A non-finite member counts as exponent +∞: the block
  exponent becomes the top of the range, its sub-block's shift is 0, and it encodes as the saturated
  magnitude ``2**m - 1`` with its sign bit (NaN: its sign bit). The finite members of such a block are
  quantized against that exponent (usually to 0): a poisoned block stays visibly poisoned.
* MSFP (plain block floating point) is BDR with ``d2 = 0``; the descriptor then has ``k2 = k1`` (one
  sub-block, no shift field), so ``bdr(3, 16, 8, 2, 0) == bdr(3, 16, 8, 16, 0) == get_format("msfp12")``.

**OCP MX** (OCP Microscaling v1.0; ``MXFormat``): ``k1 = 32``, an E8M0 scale ``X = 2**(s - 127)``
(``s = 0xFF`` is NaN), scale exponent ``floor(log2 amax) - emax_elem`` clamped to ``[-127, 127]``
(``emax_elem``: 8 for E4M3, 15 for E5M2, 4 for E3M2, 2 for E2M3 and E2M1, 0 for INT8), elements
= the scalar element encoder (``fpforge.golden.encode``, saturating) applied to ``x / X``. INT8 elements
are two's complement with an implicit ``2**-6`` (code ``q`` means ``q / 64``), rounded like a BDR
magnitude and saturated symmetrically to ±127/64: the encoder never produces -128 (0x80), which decodes as
-2.0 as the specification says. A block of zeros gets ``s = 0`` (X = 2**-127) and zero elements (sign
kept for the FP elements); a block with any NaN or Inf member gets ``s = 0xFF`` and element codes 0, and
decodes as NaN throughout. FP32 subnormal members are ordinary values (no flush to zero).

Stochastic rounding (``sr``) uses the shared xorshift32 generator: the element with flat C-order index
``i`` of ``x`` (block ``i // k1``, lane ``i % k1``) takes draw ``i`` of ``seed`` — the order in which the RTL
block encoder consumes ``k1`` draws per block.

Bit layout (``pack``/``unpack`` and the RTL ports, ``fields``): a block is the fields below, least
significant first, with nothing between them::

    BDR: | scale: d1 | shift[0] … shift[k1/k2-1]: d2 each | elem[0] … elem[k1-1]: m+1 each |
    OCP: | scale: 8  | elem[0] … elem[31]: element bits each |

A BDR element is ``sign << m | q``; an OCP element is the element format's code. Blocks are concatenated
into one little-endian bit stream (block ``b`` starts at bit ``b * block_bits``; bit ``j`` of the stream is
bit ``j % 8`` of byte ``j // 8``), and the last byte is padded with zeros — so BDR stores exactly
``(m + 1) + d1/k1 + d2/k2`` bits per element.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .errors import FpforgeTypeError, FpforgeValueError
from . import rng
import re

from .checks import as_codes, as_int, as_seed, as_source, describe
from .formats import _RESOLVERS, ROUNDING_MODES, FloatFormat, _check_descriptor_fields, get_format, register
from .minifloat import _draws, code_dtype, decode, encode
from .rounding import round_up

__all__ = [
    "E8M0",
    "INT8",
    "BlockEncoding",
    "BlockFormat",
    "IntElement",
    "MXFormat",
    "ScaleFormat",
    "bdr",
    "block_words",
    "decode_block",
    "decode_block_bits",
    "encode_block",
    "from_block_words",
    "pack",
    "quantize",
    "unpack",
]

_NEG_INF_EXP = -(1 << 20)  # "exponent" of a zero: below every clamp
_POS_INF_EXP = 1 << 20  # "exponent" of a NaN/Inf member: above every clamp


# -- descriptors ------------------------------------------------------------------------------------
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


class _BlockSize:
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

    kind = "block"
    family = "bdr"

    def __post_init__(self):
        _check_descriptor_fields(self, ("name", "title"))
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

    kind = "block"
    family = "ocp"
    d2 = 0
    beta = 0

    def __post_init__(self):
        _check_descriptor_fields(self, ("name", "title"), ("k1",))
        if not isinstance(self.element, (FloatFormat, IntElement)) or (
                isinstance(self.element, FloatFormat) and self.element.name in ("fp32", "fp16", "bf16")):
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


def bdr(m, k1, d1, k2, d2) -> BlockFormat:
    """The BDR(m, k1, d1, k2, d2) descriptor; a registered preset with the same parameters is returned
    as itself (``bdr(7, 16, 8, 2, 1) is get_format("mx9")``).

    Raises
    ------
    ValueError
        Naming the bad value and the rule: m in 1..24, k1 >= 1, k2 >= 1 dividing k1, d1 in 1..8, d2 in 0..4.
    """
    fmt = BlockFormat(m, k1, d1, k2, d2)
    for name in _BLOCK_NAMES:
        preset = get_format(name)
        if isinstance(preset, BlockFormat) and preset == fmt:
            return preset
    return fmt


def _block_format(fmt):
    fmt = get_format(fmt)
    if not isinstance(fmt, (BlockFormat, MXFormat)):
        raise FpforgeValueError(f"{getattr(fmt, 'name', fmt)!r} is not a block format; valid block formats: "
                                f"{', '.join(_BLOCK_NAMES)} or bdr(m, k1, d1, k2, d2)")
    return fmt


# -- encoding ----------------------------------------------------------------------------------------
@dataclass
class BlockEncoding:
    """What :func:`encode_block` returns.

    Attributes
    ----------
    format : BlockFormat or MXFormat
    scale : ndarray (..., nb) of uint
        Shared exponent fields (BDR: ``E + 2**(d1-1)``; OCP: E8M0 codes).
    shift : ndarray (..., nb, n_sub) of uint8
        Sub-block shifts ``tau`` (BDR; zeros when ``d2 = 0``; OCP: shape (..., nb, 0)).
    elem : ndarray (..., nb, k1) of uint
        Element codes.
    """

    format: object
    scale: np.ndarray
    shift: np.ndarray
    elem: np.ndarray

    def __post_init__(self):
        self.validate()

    def validate(self) -> "BlockEncoding":
        """Check the fields against the format (called on construction and before every use): integer
        codes of the fields' widths, shifts within ``0..beta``, consistent shapes; arrays are normalised
        (native byte order, lists become arrays) without changing a value.

        Raises
        ------
        TypeError
            Not a block format, or fields that are not integer arrays.
        ValueError
            A code outside its field, or shapes that do not fit together.
        """
        fmt = self.format
        if isinstance(fmt, str):
            fmt = self.format = _block_format(fmt)
        if not isinstance(fmt, (BlockFormat, MXFormat)):
            raise FpforgeTypeError(f"BlockEncoding.format must be a block format descriptor, not {describe(fmt)}")
        name = f"BlockEncoding of {fmt.name}"
        self.scale = as_codes(self.scale, fmt.scale_bits, name=f"scale ({name})")
        self.elem = as_codes(self.elem, fmt.elem_bits, name=f"elem ({name})")
        self.shift = as_codes(self.shift, 0, name=f"shift ({name})", hi=fmt.beta)
        lead = self.scale.shape
        want = {"elem": lead + (fmt.k1,), "shift": lead + ((fmt.n_sub,) if isinstance(fmt, BlockFormat) else (0,))}
        if not lead:
            raise FpforgeValueError(f"scale ({name}) must have a block axis: shape (..., blocks), not ()")
        for field_name, shape in want.items():
            got = getattr(self, field_name).shape
            if got != shape:
                raise FpforgeValueError(f"{field_name} ({name}) must have shape {shape} to match scale {lead} "
                                        f"(k1 = {fmt.k1}, {fmt.n_sub} sub-blocks), not {got}")
        return self

    @property
    def shape(self) -> tuple:
        """Shape of the encoded values, ``(..., nb * k1)``."""
        return self.elem.shape[:-2] + (self.elem.shape[-2] * self.elem.shape[-1],)

    @property
    def n_blocks(self) -> int:
        return int(np.prod(self.scale.shape))


def _as_float32(x):
    return as_source(x).astype(np.float32)  # exact from FP16/BF16


def _check_shape(fmt, x):
    if x.ndim == 0 or x.shape[-1] % fmt.k1:
        n = x.shape[-1] if x.ndim else "a scalar"
        raise FpforgeValueError(f"the last axis of x must have a length that is a multiple of k1 = {fmt.k1} "
                                f"({fmt.name}), not {n}")


def _check_rounding(fmt, rounding):
    if rounding is None:
        return fmt.roundings[0]
    if not isinstance(rounding, str) or rounding not in fmt.roundings:
        raise FpforgeValueError(f"format {fmt.name!r} has no rounding {rounding!r}; "
                                f"valid choices: {', '.join(fmt.roundings)}")
    return rounding


def _exponents(v, nz):
    """floor(log2 v) where ``nz`` (float64 v), else 0."""
    _, e = np.frexp(np.where(nz, v, 1.0))
    return np.where(nz, e.astype(np.int64) - 1, 0)


def round_magnitude(v, lsb, rounding, draws=None, rand_bits=rng.DEFAULT_RAND_BITS, limit=None):
    """``round(v / 2**lsb)`` for float64 magnitudes ``v`` (exact), with the rule every encoder uses
    (:func:`fpforge.golden.rounding.round_up`; ``draws``: the ``sr`` bits). ``limit`` caps ``v / 2**lsb``
    first (anything above saturates anyway; keeps int64 safe). Returns int64."""
    s = np.ldexp(v, (-lsb).astype(np.int32))
    if limit is not None:
        s = np.minimum(s, float(limit))
    q0 = np.floor(s)
    d = s - q0
    q0 = q0.astype(np.int64)
    return q0 + round_up(q0, d, rounding, draws, rand_bits)


def encode_block(fmt, x, *, rounding=None, seed=None, rand=None, rand_bits=rng.DEFAULT_RAND_BITS):
    """Encode ``x`` block by block along its last axis.

    Parameters
    ----------
    fmt : str, BlockFormat or MXFormat
        ``"mx9"``, ``"mxfp8_e4m3"``, ``bdr(...)``, …
    x : array of float32, float16 or ml_dtypes.bfloat16
        Last axis length a multiple of ``k1``.
    rounding : str
        One of ``fmt.roundings`` (default: the first — ``ta`` for BDR, ``rne`` for OCP).
    seed : int or None
        Generator seed for ``sr`` (None means 0); element ``i`` in C order takes draw ``i``.
    rand : array of int, optional
        Explicit R-bit draws for ``sr``, one per element of ``x`` (overrides ``seed``).
    rand_bits : int
        R, random bits per element for ``sr``.

    Returns
    -------
    BlockEncoding

    Raises
    ------
    ValueError
        Last axis not a multiple of k1, unknown rounding, not a block format.
    TypeError
        ``x`` is not float32/float16/bfloat16.
    """
    fmt = _block_format(fmt)
    rounding = _check_rounding(fmt, rounding)
    x = _as_float32(x)
    _check_shape(fmt, x)
    seed = as_seed(seed)
    if rand is not None and rounding != "sr":
        raise FpforgeValueError(f"rand (explicit draws) applies to stochastic rounding (rounding='sr'), not "
                                f"{rounding!r}")
    lead, n = x.shape[:-1], x.shape[-1]
    nb = n // fmt.k1
    draws = None
    if rounding == "sr":
        draws = _draws(x.size, seed=seed, rand=rand, rand_bits=rand_bits).reshape(-1, fmt.k1)
    xb = x.reshape(-1, fmt.k1)
    if isinstance(fmt, BlockFormat):
        scale, shift, elem = _encode_bdr(fmt, xb, rounding, draws, rand_bits)
    else:
        scale, shift, elem = _encode_ocp(fmt, xb, rounding, draws, rand_bits)
    return BlockEncoding(fmt, scale.reshape(lead + (nb,)), shift.reshape(lead + (nb, shift.shape[-1])),
                         elem.reshape(lead + (nb, fmt.k1)))


def _encode_bdr(fmt, xb, rounding, draws, rand_bits):
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


def _encode_ocp(fmt, xb, rounding, draws, rand_bits):
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


# -- decoding ----------------------------------------------------------------------------------------
def _check_encoding(fmt, enc):
    if not isinstance(enc, BlockEncoding):
        raise FpforgeTypeError(f"expected a BlockEncoding from encode_block/unpack, not {type(enc).__name__}")
    enc.validate()
    if enc.format != fmt or type(enc.format) is not type(fmt):
        raise FpforgeValueError(f"the encoding is in {enc.format.name!r}, not {fmt.name!r}")


def _decode64(fmt, enc):
    """Exact values as float64 (NaN for OCP NaN-scale blocks), shape ``enc.shape``."""
    scale = np.asarray(enc.scale).astype(np.int64)
    elem = np.asarray(enc.elem).astype(np.int64)
    if isinstance(fmt, BlockFormat):
        E = scale - fmt.scale_bias
        tau = np.repeat(np.asarray(enc.shift).astype(np.int64), fmt.k2, axis=-1)
        q = elem & ((1 << fmt.m) - 1)
        val = np.ldexp(q.astype(np.float64), (E[..., None] - tau - fmt.m + 1).astype(np.int32))
        val = np.where((elem >> fmt.m) & 1 == 1, -val, val)
    else:
        if fmt.is_int:
            el = fmt.element
            signed_q = np.where(elem >= 1 << (el.bits - 1), elem - (1 << el.bits), elem)
            ev = np.ldexp(signed_q.astype(np.float64), -el.frac_bits)
        else:
            ev = decode(fmt.element, elem).astype(np.float64)
        val = np.ldexp(ev, (scale[..., None] - fmt.scale.bias).astype(np.int32))
        val = np.where(scale[..., None] == fmt.scale.nan_code, np.nan, val)
    return val.reshape(enc.shape)


def decode_block(fmt, enc) -> np.ndarray:
    """Exact values of a :class:`BlockEncoding`, shape ``(..., n)``: float32 when the format's values all
    fit (``fmt.float32_exact``: mx9, mx6, mx4, msfp12, msfp16), else float64 (OCP MX: a scale of 2**127
    times a large element is beyond FP32). OCP blocks with scale 0xFF are NaN throughout."""
    fmt = _block_format(fmt)
    _check_encoding(fmt, enc)
    return _decode64(fmt, enc).astype(fmt.value_dtype)


def decode_block_bits(fmt, enc) -> np.ndarray:
    """FP32 bit patterns (uint32) of the decoded values, as the RTL ``BlockDecoder`` delivers them: the
    exact value rounded to FP32 (nearest even; only OCP codes no encoder produces can exceed FP32 and give
    ±Inf), NaN as the quiet NaN 0x7FC00000."""
    fmt = _block_format(fmt)
    _check_encoding(fmt, enc)
    with np.errstate(over="ignore"):
        vals = _decode64(fmt, enc).astype(np.float32)
    bits = vals.view(np.uint32)
    return np.where(np.isnan(vals), np.uint32(0x7FC00000), bits).astype(np.uint32)


def quantize(fmt, x, **kwargs) -> np.ndarray:
    """``decode_block(fmt, encode_block(fmt, x, **kwargs))``: the values ``x`` becomes."""
    fmt = _block_format(fmt)
    return decode_block(fmt, encode_block(fmt, x, **kwargs))


# -- bit layout ----------------------------------------------------------------------------------------
def _field_arrays(fmt, enc):
    """Per-field (B, count) int arrays in ``fmt.fields`` order."""
    B = enc.n_blocks
    out = {"scale": np.asarray(enc.scale).reshape(B, 1), "elem": np.asarray(enc.elem).reshape(B, fmt.k1)}
    if any(f[0] == "shift" for f in fmt.fields):
        out["shift"] = np.asarray(enc.shift).reshape(B, fmt.n_sub)
    return [(out[name].astype(np.uint64), width) for name, width, _ in fmt.fields]


def _bits_matrix(fmt, enc):
    if enc.n_blocks == 0:
        return np.zeros((0, fmt.block_bits), np.uint8)
    cols = []
    for vals, width in _field_arrays(fmt, enc):
        b = (vals[:, :, None] >> np.arange(width, dtype=np.uint64)) & np.uint64(1)
        cols.append(b.reshape(len(vals), -1).astype(np.uint8))
    return np.concatenate(cols, axis=1)  # (B, block_bits), bit 0 first


def pack(fmt, enc) -> bytes:
    """The blocks of ``enc`` as bytes in the documented layout (module docstring), blocks in C order."""
    fmt = _block_format(fmt)
    _check_encoding(fmt, enc)
    return np.packbits(_bits_matrix(fmt, enc).ravel(), bitorder="little").tobytes()


def _from_bits(fmt, bits, shape):
    B = bits.shape[0]
    lead, n = tuple(shape[:-1]), shape[-1]
    nb = n // fmt.k1
    pos = 0
    out = {}
    for name, width, count in fmt.fields:
        chunk = bits[:, pos : pos + width * count].reshape(B, count, width).astype(np.uint64)
        out[name] = (chunk << np.arange(width, dtype=np.uint64)).sum(axis=-1, dtype=np.uint64)
        pos += width * count
    scale = out["scale"].reshape(lead + (nb,)).astype(code_dtype(fmt.scale_bits))
    elem = out["elem"].reshape(lead + (nb, fmt.k1)).astype(code_dtype(fmt.elem_bits))
    if isinstance(fmt, BlockFormat):
        sh = out.get("shift", np.zeros((B, fmt.n_sub), np.uint64))
        shift = sh.reshape(lead + (nb, fmt.n_sub)).astype(np.uint8)
    else:
        shift = np.zeros(lead + (nb, 0), np.uint8)
    return BlockEncoding(fmt, scale, shift, elem)


def unpack(fmt, data, shape) -> BlockEncoding:
    """Inverse of :func:`pack`: the :class:`BlockEncoding` of values of ``shape`` (last axis a multiple of
    k1) from ``data`` (bytes or uint8 array, at least ``ceil(blocks * block_bits / 8)`` bytes)."""
    fmt = _block_format(fmt)
    shape = _values_shape(fmt, shape)
    B = int(np.prod(shape)) // fmt.k1
    need = (B * fmt.block_bits + 7) // 8
    if isinstance(data, (bytes, bytearray, memoryview)):
        raw = np.frombuffer(bytes(data), np.uint8)
    else:
        raw = np.asarray(as_codes(data, 8, name="data (bytes)")).astype(np.uint8).ravel()
    if raw.size < need:
        raise FpforgeValueError(f"{B} blocks of {fmt.name} need {need} bytes, not {raw.size}")
    bits = np.unpackbits(raw[:need], bitorder="little")[: B * fmt.block_bits].reshape(B, fmt.block_bits)
    return _from_bits(fmt, bits, shape)


def _values_shape(fmt, shape) -> tuple:
    """``shape`` of the values of an encoding: ints >= 0 (a tuple, list or one int), the last a multiple of
    k1 (at least one block)."""
    items = shape if isinstance(shape, (tuple, list)) else (shape,)
    shape = tuple(as_int(v, "shape entries", 0) for v in items)
    if not shape or shape[-1] % fmt.k1:
        raise FpforgeValueError(f"shape must end in a multiple of k1 = {fmt.k1} ({fmt.name}), not {shape!r}")
    return shape


def block_words(fmt, enc) -> list:
    """One Python int per block (C order): the block's bits, field layout as :func:`pack` — the value of
    the RTL block port (``amaranth.lib.data.StructLayout`` built from ``fmt.fields``)."""
    fmt = _block_format(fmt)
    _check_encoding(fmt, enc)
    words = []
    nbytes = (fmt.block_bits + 7) // 8
    packed = np.packbits(_bits_matrix(fmt, enc), axis=1, bitorder="little")
    for row in packed:
        words.append(int.from_bytes(row[:nbytes].tobytes(), "little"))
    return words


def from_block_words(fmt, words, shape=None) -> BlockEncoding:
    """Inverse of :func:`block_words` (``shape`` defaults to ``(len(words) * k1,)``)."""
    fmt = _block_format(fmt)
    if isinstance(words, (str, bytes)) or not np.iterable(words):
        raise FpforgeTypeError(f"words must be a sequence of block words (ints of {fmt.block_bits} bits), not "
                               f"{describe(words)}")
    words = list(np.asarray(words).ravel()) if isinstance(words, np.ndarray) else list(words)
    top = (1 << fmt.block_bits) - 1
    for w in words:
        if isinstance(w, (bool, np.bool_)) or not isinstance(w, (int, np.integer)):
            raise FpforgeTypeError(f"words of {fmt.name} must be integers in 0..2**{fmt.block_bits}-1, not "
                                   f"{describe(w)}")
        if not 0 <= int(w) <= top:
            raise FpforgeValueError(f"words of {fmt.name} must be integers in 0..2**{fmt.block_bits}-1, not {int(w)}")
    words = [int(w) for w in words]
    shape = (len(words) * fmt.k1,) if shape is None else _values_shape(fmt, shape)
    if int(np.prod(shape)) != len(words) * fmt.k1:
        raise FpforgeValueError(f"shape {shape} holds {int(np.prod(shape))} values, not the {len(words)} blocks x "
                                f"k1 = {fmt.k1} the words hold")
    nbytes = (fmt.block_bits + 7) // 8
    raw = np.frombuffer(b"".join(w.to_bytes(nbytes, "little") for w in words), np.uint8).reshape(len(words), nbytes)
    bits = np.unpackbits(raw, axis=1, bitorder="little")[:, : fmt.block_bits]
    return _from_bits(fmt, bits, shape)


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

_BLOCK_NAMES = ("mx9", "mx6", "mx4", "msfp12", "msfp16", "mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2",
                "mxfp6_e2m3", "mxfp4_e2m1", "mxint8")

_BDR_NAME = re.compile(r"bdr_m(\d+)_k(\d+)_d(\d+)_k(\d+)_d(\d+)")


def _resolve(name):
    """``bdr_m7_k16_d8_k2_d1`` -> ``bdr(7, 16, 8, 2, 1)`` (invalid parameters raise the bdr() error)."""
    match = _BDR_NAME.fullmatch(name)
    return bdr(*(int(g) for g in match.groups())) if match else None


_RESOLVERS.append(_resolve)

assert all(isinstance(f, FloatFormat) for f in (MXFP8_E4M3.element, MXFP4_E2M1.element))
