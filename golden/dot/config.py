"""Dot-product configurations: the operand formats, ``r``, ``f`` and every width derived from them.

:class:`DotConfig` is what the golden pipeline (:mod:`fpforge.golden.dot.pipeline`), the exact reference
(:mod:`fpforge.golden.dot.exact`) and the RTL generator (``fpforge.hw.dot``) all read; each operand format
answers how its elements enter the datapath (``dot_side``: an :class:`OperandSide`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..checks import describe
from ..contract import BlockFormatLike, ScalarFormat
from ..errors import FpforgeTypeError, FpforgeValueError
from ..formats import get_format, list_formats
from ..registry import RUNTIME_BIAS_BITS

__all__ = ["DotConfig", "F_RANGE", "FP8", "MAX_R", "OperandSide", "ScalarSet", "float_eoff_max", "operand_format"]

#: Valid window widths f (bits of the fixed-point window, sign included).
F_RANGE = (8, 256)
#: Most elements per dot product (r) a configuration takes.
MAX_R = 1 << 20


@dataclass(frozen=True)
class OperandSide:
    """How one operand's elements enter the datapath: what a descriptor answers as its ``dot_side``.

    ``family`` picks the structure of the pipeline around the elements: ``"bdr"`` (sub-block shifts, shared
    exponents), ``"ocp"`` (element exponents shift the products, E8M0 scales), ``"scalar"`` (k1 = 1, the
    offsets are the block exponent)."""

    fmt: object
    family: str
    mag_max: int  # largest element magnitude entering a multiplier
    eoff_max: int  # largest element exponent offset (OCP FP: product shift; scalar: block exponent)
    sub_max: int  # BDR: beta (largest sub-block offset beta - tau); else 0
    lsb: int  # exponent of magnitude 1 at offsets 0 and block exponent 0
    bexp_min: int  # block exponent range (BDR E, OCP scale exponent, scalar 0)
    bexp_max: int
    specials: bool  # elements or scales can be NaN/Inf
    # What the datapath asks an operand (its capabilities; the descriptor answers them, no caller switches on
    # ``family``): element exponent offsets shift the products (OCP MX); sub-block shifts with guard bits below
    # a sub-block sum (BDR); the element offsets are the block exponent, one element per "block", as codes
    # (scalar); integer elements (OCP MXINT).
    product_shift: bool = False
    sub_block_guard: bool = False
    element_block_exponent: bool = False
    integer_elements: bool = False

    @property
    def mag_bits(self) -> int:
        return self.mag_max.bit_length()

    @property
    def eoff_bits(self) -> int:
        return max(self.eoff_max.bit_length(), 1)


@dataclass(frozen=True)
class ScalarSet:
    """Scalar narrow-float elements (k1 = k2 = 1): one of ``formats`` per operand, chosen by a run-time
    select (index into ``formats``) when there are several. ``FP8`` = E4M3 or E5M2, the paper's baseline.

    Each element enters as its descriptor's ``dot_fields`` (:class:`fpforge.golden.contract.ScalarFormat`):
    sign, significand with hidden bit, exponent offset above ``dot_lsb``; the set puts them on a common
    significand of ``M`` fraction bits and a common exponent origin ``lsb``. Sign/exponent/mantissa formats
    (E4M3, E5M2, FNUZ, FP6, FP4), HiF8 (tapered) and CFloat8 (a run-time bias: the operand's 6-bit bias
    input; the offsets cover every bias 0..63) qualify; unsigned and flush-to-zero formats do not."""

    formats: tuple
    name: str = ""

    k1 = 1
    k2 = 1

    def __post_init__(self):
        if not isinstance(self.formats, tuple):
            raise FpforgeTypeError(f"ScalarSet formats must be a tuple of FloatFormat descriptors, not "
                                   f"{describe(self.formats)}")
        if not isinstance(self.name, str):
            raise FpforgeTypeError(f"ScalarSet name must be a string, not {describe(self.name)}")
        if not self.formats:
            raise FpforgeValueError("a scalar operand needs at least one element format")
        for f in self.formats:
            if not isinstance(f, ScalarFormat) or f.dtype is not None:
                raise FpforgeValueError(f"scalar dot-product elements are narrow float formats (e4m3, e5m2, hif8, "
                                        f"cfloat8_143, ...), not {getattr(f, 'name', f)!r}")
            # The datapath reads a sign bit and the code's own significand (denormals included).
            why = "is unsigned" if not f.signed else "flushes denormals" if f.ftz else None
            if why:
                raise FpforgeValueError(f"{f.name} {why}: scalar dot-product elements are signed formats that "
                                        "deliver their denormals (e4m3, e5m2, the FNUZ, FP6 and FP4 formats, "
                                        "hif8, cfloat8_143, cfloat8_152)")
        if not self.name:
            object.__setattr__(self, "name", "+".join(f.name for f in self.formats))

    @property
    def select_bits(self) -> int:
        """Width of the run-time select (0 with one format)."""
        return (len(self.formats) - 1).bit_length()

    @property
    def bias_bits(self) -> int:
        """Width of the run-time bias input (``RUNTIME_BIAS_BITS`` when a format takes one, else 0)."""
        return RUNTIME_BIAS_BITS if any(f.runtime_bias for f in self.formats) else 0

    @property
    def bits(self) -> int:
        return max(f.bits for f in self.formats)

    @property
    def bits_per_element(self) -> Fraction:
        return Fraction(self.bits)

    @property
    def block_bits(self) -> int:
        """A scalar operand is r "blocks" of one code each."""
        return self.bits

    @property
    def fields(self) -> tuple:
        """The layout of one "block": one code (:mod:`fpforge.golden.layout`)."""
        return (("code", self.bits, 1),)

    @property
    def dot_side(self) -> "OperandSide":
        """Elements enter as the common significand with an exponent offset; the block exponent is the
        offsets' sum (there are no blocks)."""
        M = self.M
        mag_max = max(((1 << (f.mbits + 1)) - 1) << (M - f.mbits) for f in self.formats)
        eoff_max = max(f.dot_eoff_max + self.eoff_base(f) for f in self.formats)
        return OperandSide(self, "scalar", mag_max, eoff_max, 0, self.lsb, 0, 0,
                           any(f.has_nan or f.has_inf for f in self.formats), element_block_exponent=True)

    @property
    def M(self) -> int:
        """Mantissa bits of the common significand (the widest ``mbits``)."""
        return max(f.mbits for f in self.formats)

    @property
    def lsb(self) -> int:
        """Exponent of the common significand's LSB at eoff = 0."""
        return min(f.dot_lsb - (self.M - f.mbits) for f in self.formats)

    def eoff_base(self, fmt) -> int:
        """What format ``fmt``'s exponent offset (``dot_fields``) is offset by in the common representation."""
        return fmt.dot_lsb - (self.M - fmt.mbits) - self.lsb


FP8 = ScalarSet((get_format("e4m3"), get_format("e5m2")), "fp8")


def operand_format(fmt):
    """The operand descriptor named by ``fmt``: a block format (``mx9``, ``mxfp8_e4m3``, ``bdr(...)``, …),
    a scalar narrow float (``e4m3`` → ``ScalarSet((e4m3,))``, ``hif8``, ``cfloat8_143``, …) or ``fp8`` (E4M3
    or E5M2 at run time).

    Raises
    ------
    ValueError
        Not a block format, a narrow float format or ``fp8``.
    """
    if isinstance(fmt, (ScalarSet, BlockFormatLike)):
        return fmt
    if isinstance(fmt, str) and fmt.lower() == "fp8":
        return FP8
    try:
        desc = get_format(fmt)
    except KeyError:
        raise FpforgeValueError(f"unknown dot-product operand format {fmt!r}; valid: a block format "
                                f"({', '.join(list_formats('block'))}, "
                                f"bdr_m<M>_k<K1>_d<D1>_k<K2>_d<D2>), a narrow float (e4m3, e5m2, hif8, cfloat8_143, ...) or fp8") from None
    if isinstance(desc, BlockFormatLike):
        return desc
    if isinstance(desc, ScalarFormat) and desc.dtype is None:
        return ScalarSet((desc,))
    raise FpforgeValueError(f"{getattr(desc, 'name', desc)!r} cannot be a dot-product operand; valid: block formats, "
                            "narrow float formats (e4m3, e5m2, hif8, cfloat8_143, ...) or fp8")


def float_eoff_max(el) -> int:
    """Largest ``max(e_field, 1) - 1`` of a finite code of the FloatFormat ``el``."""
    return max(el.max_code >> el.mbits, 1) - 1


def _clog2(n: int) -> int:
    return (n - 1).bit_length()


@dataclass(frozen=True)
class DotConfig:
    """One dot-product configuration: operand formats, length ``r`` and window width ``f``.

    Parameters
    ----------
    a : str or descriptor
        Format of operand A (see :func:`operand_format`).
    r : int
        Elements per dot product; a multiple of k1.
    f : int
        Bits of the fixed-point window each aligned block result keeps, sign included (``F_RANGE``).
    b : str or descriptor, optional
        Format of operand B (default: the same as A). Both operands must be of one family with the same
        k1 (and k2 for BDR); m, d1, d2 and OCP element types may differ.

    Members (derived)
    -----------------
    k1, k2, nb (= r / k1 blocks), W (bits of a block sum's magnitude), c (exponent of a block sum's LSB at
    X = 0), G (BDR guard bits), x_min / x_max (block exponent range), acc_bits (bits of the fixed-point sum
    T), exp_min / exp_max (range of the raw exponent).

    Raises
    ------
    ValueError
        Unknown format, mixed families or block sizes, r not a positive multiple of k1, f outside F_RANGE.
    """

    a: object
    r: int
    f: int
    b: object = None
    sa: OperandSide = field(init=False, repr=False, compare=False)
    sb: OperandSide = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        a = operand_format(self.a)
        b = a if self.b is None else operand_format(self.b)
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)
        fam_a, fam_b = a.dot_side.family, b.dot_side.family
        if fam_a != fam_b:
            raise FpforgeValueError(f"operands A ({a.name}, {fam_a}) and B ({b.name}, {fam_b}) must be of one "
                                    "family: both BDR, both OCP MX, or both scalar")
        if a.k1 != b.k1 or (fam_a == "bdr" and a.k2 != b.k2):
            raise FpforgeValueError(f"operands A ({a.name}: k1={a.k1}, k2={a.k2}) and B ({b.name}: k1={b.k1}, "
                                    f"k2={b.k2}) must have the same block size k1 (and sub-block size k2)")
        lo, hi = F_RANGE
        for name, value, what in (("r", self.r, f"a positive multiple of k1 = {a.k1} ({a.name}), at most {MAX_R}"),
                                  ("f", self.f, f"bits of the fixed-point window, {lo}..{hi}")):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool):  # 16.0 is not cast
                raise FpforgeTypeError(f"{name} must be an integer ({what}), not {type(value).__name__} {value!r}")
        if not 1 <= self.r <= MAX_R or self.r % a.k1:
            raise FpforgeValueError(f"r must be a positive multiple of k1 = {a.k1} ({a.name}), not {self.r!r} "
                                    f"(at most {MAX_R})")
        if not lo <= self.f <= hi:
            raise FpforgeValueError(f"f (bits of the fixed-point window, sign included) must be an integer in "
                                    f"{lo}..{hi}, not {self.f!r}")
        object.__setattr__(self, "r", int(self.r))
        object.__setattr__(self, "f", int(self.f))
        object.__setattr__(self, "sa", a.dot_side)
        object.__setattr__(self, "sb", b.dot_side)

    # -- geometry -----------------------------------------------------------------------------------
    @property
    def family(self) -> str:
        return self.sa.family

    @property
    def k1(self) -> int:
        return self.a.k1

    # -- capabilities (both operands share them: one family) ----------------------------------------
    @property
    def product_shift(self) -> bool:
        """Element exponent offsets shift the products (OCP MX)."""
        return self.sa.product_shift

    @property
    def sub_block_guard(self) -> bool:
        """Sub-block sums are shifted with guard bits (BDR)."""
        return self.sa.sub_block_guard

    @property
    def element_block_exponent(self) -> bool:
        """The element offsets are the block exponent, one element per block (scalar operands)."""
        return self.sa.element_block_exponent

    @property
    def k2(self) -> int:
        return self.a.k2 if self.sub_block_guard else 1

    @property
    def nb(self) -> int:
        """Blocks per operand, r / k1."""
        return self.r // self.k1

    @property
    def n_sub(self) -> int:
        return self.k1 // self.k2

    @property
    def G(self) -> int:
        """Guard bits below a BDR sub-block sum (beta_a + beta_b); 0 otherwise."""
        return self.sa.sub_max + self.sb.sub_max

    @property
    def smax(self) -> int:
        """Bound on a block sum's magnitude: k1 × max|a| × max|b| × 2**(shifts)."""
        prod = self.sa.mag_max * self.sb.mag_max
        if self.product_shift:
            prod <<= self.sa.eoff_max + self.sb.eoff_max
        return self.k1 * prod << self.G

    @property
    def W(self) -> int:
        """Bits of a block sum's magnitude: |S| <= smax < 2**W."""
        return self.smax.bit_length()

    @property
    def c(self) -> int:
        """A block sum S at block exponent X weighs ``S * 2**(X + c)``."""
        return self.sa.lsb + self.sb.lsb

    @property
    def x_min(self) -> int:
        return self.sa.bexp_min + self.sb.bexp_min

    @property
    def x_max(self) -> int:
        top = self.sa.bexp_max + self.sb.bexp_max
        if self.element_block_exponent:
            top += self.sa.eoff_max + self.sb.eoff_max
        return top

    @property
    def acc_bits(self) -> int:
        """Bits of the two's-complement fixed-point sum T."""
        return self.f + _clog2(self.nb)

    @property
    def exp_min(self) -> int:
        return self.x_min + self.c + self.W - (self.f - 1)

    @property
    def exp_max(self) -> int:
        return self.x_max + self.c + self.W - (self.f - 1)

    @property
    def exp_bits(self) -> int:
        """Bits of the signed raw exponent output."""
        return max(abs(self.exp_min), abs(self.exp_max)).bit_length() + 1

    @property
    def specials(self) -> bool:
        """The operands can carry NaN/Inf (OCP MX, E4M3/E5M2), so the result can be NaN/Inf from them."""
        return self.sa.specials or self.sb.specials

    @property
    def wide(self) -> bool:
        """Some intermediate exceeds int64 comfort: the model computes with Python ints."""
        return self.W > 61 or self.acc_bits > 61 or self.f > 61

    @property
    def operand_bits(self) -> tuple:
        """Bits of the A and B ports (nb packed blocks, or r codes)."""
        return tuple((self.r // s.fmt.k1) * s.fmt.block_bits for s in (self.sa, self.sb))

    @property
    def f_exact(self) -> int:
        """Smallest f for which the window drops no bit of any block in any case (the pipeline is then
        the exact sum rounded once): W + 1 + the largest exponent spread between blocks."""
        spread = 0 if self.nb == 1 else self.x_max - self.x_min
        return self.W + 1 + spread

    @property
    def name(self) -> str:
        fa, fb = self.a.name, self.b.name
        fmt = fa if fa == fb else f"{fa}x{fb}"
        return f"{fmt}_r{self.r}_f{self.f}"

    def describe(self) -> str:
        ops = self.a.name if self.a == self.b else f"{self.a.name} x {self.b.name}"
        return (f"dot product {ops}, r={self.r} (k1={self.k1}, k2={self.k2}, {self.nb} blocks), f={self.f} "
                f"(block sums {self.W} bits, sum {self.acc_bits} bits)")
