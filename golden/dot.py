"""MX-style dot products (seed 004 §IV-B, Fig. 6; SPEC-NOTES §6): the bit-exact model of fpforge's
dot-product pipeline, an exact reference, and the error of the f-bit pipeline against it.

An r-element dot product of two operands A and B. Each operand is r/k1 blocks of a block format in its
packed layout (BDR: MX9/MX6/MX4/MSFP/any ``bdr(...)``; OCP MX: MXFP8/6/4, MXINT8), or r scalar codes
(E4M3, E5M2, or ``fp8``: either of the two, chosen per operand and per dot product at run time; k1 = k2 = 1).
:class:`DotConfig` holds the parameters (``a``, ``b``, ``r``, ``f``) and every width derived from them; the
RTL generator (``fpforge.hw.dot``) reads the same object.

The pipeline, for each dot product (integers throughout; ``docs/dot.md`` draws it):

1. **Elements** enter as sign and magnitude: BDR the m-bit magnitude ``q``; OCP FP elements the significand
   with its hidden bit and an exponent offset ``eoff = max(e_field, 1) - 1``; INT8 ``|c|`` (−128 → 128);
   scalar FP8 the significand (E5M2's 3 bits padded to E4M3's 4 when the unit takes both) with ``eoff``.
   NaN/Inf elements enter as 0 (see 8).
2. **Products** ``mag_a * mag_b`` with sign ``s_a ^ s_b``; OCP FP products are shifted left by
   ``eoff_a + eoff_b`` (the element exponents: exact, inside the block).
3. **Block sums** (k1 > 1): an adder tree per block. BDR: at depth log2(k2) each sub-block sum is
   shifted right by ``tau_a + tau_b`` after ``G = beta_a + beta_b`` zero guard bits were appended below it
   (the paper's conditional right shift; with the guard bits nothing is lost), then summed: the block sum
   ``S`` is exact. Scalar FP8 (k1 = 1): ``S`` is the product itself.
4. **Block exponents** ``X = Ea + Eb`` (BDR: shared exponents; OCP: E8M0 scale exponents; scalar FP8:
   ``eoff_a + eoff_b``). A block whose sum is 0 takes the smallest possible X (it must not set the max).
   The block's value is ``S * 2**(X + c)``; ``c`` is a constant of the formats.
5. **Max exponent** ``Xm`` over the r/k1 blocks.
6. **Alignment into the f-bit window**: ``|S| < 2**W`` (W from the formats' largest magnitudes), and each
   block keeps ``A = trunc(S * 2**(X - Xm + f - 1 - W))`` — truncation toward zero: the bits of ``|S|``
   that fall below the window are dropped, the sign is kept, so ``A`` is an f-bit two's-complement number
   and the block of largest exponent keeps its top f - 1 magnitude bits. (The RTL shifts the two's
   complement ``S`` arithmetically and adds 1 back for negative blocks that lost non-zero bits.)
7. **Fixed-point sum** ``T = sum(A)`` (``f + ceil(log2(r/k1))`` bits, never overflows), at
   ``exp = Xm + c + W - (f - 1)``: the raw output is ``T * 2**exp``.
8. **FP32**: ``T * 2**exp`` rounded once to FP32, nearest-even, with FP32 subnormals; beyond the largest
   finite value ±Inf; ``T = 0`` gives +0. Special values (IEEE rules on the products): a NaN element, an
   OCP NaN scale (0xFF, the whole block), Inf × 0, or Infs of both signs → NaN (0x7FC00000); otherwise
   any Inf product → ±Inf. The raw output then holds the finite part.

``dot`` is vectorised over any number of dot products (numpy int64, or Python-int object arrays for
configurations whose widths exceed 62 bits); no Python loop per dot product or element. ``dot_exact`` is
the reference: decoded element values, products and sum in exact integers, rounded once to FP32.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .errors import FpforgeTypeError, FpforgeValueError
from .block import BlockEncoding, BlockFormat, MXFormat, decode_block, encode_block, from_block_words, unpack
from .checks import as_codes, as_int, as_int_array, as_seed, as_source, describe
from .formats import SOURCES, FloatFormat, get_format
from .minifloat import decode, encode

__all__ = [
    "DotConfig",
    "DotResult",
    "ERROR_FORMATS",
    "ERROR_FS",
    "ExactResult",
    "F_RANGE",
    "FP8",
    "MAX_R",
    "ScalarSet",
    "dot",
    "dot_exact",
    "error_sweep",
    "fp32_bits",
    "from_operand_words",
    "operand_format",
    "operand_words",
    "quantized_operands",
]

#: Valid window widths f (bits of the fixed-point window, sign included).
F_RANGE = (8, 256)
#: Most elements per dot product (r) a configuration takes.
MAX_R = 1 << 20

_QNAN = 0x7FC00000
_INF = 0x7F800000


# -- operand formats ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ScalarSet:
    """Scalar minifloat elements (k1 = k2 = 1): one of ``formats`` per operand, chosen by a run-time
    select (index into ``formats``) when there are several. ``FP8`` = E4M3 or E5M2, the paper's baseline."""

    formats: tuple
    name: str = ""

    kind = "scalar"
    family = "scalar"
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
            if not isinstance(f, FloatFormat) or f.name in SOURCES:
                raise FpforgeValueError(f"scalar dot-product elements are narrow float formats (e4m3, e5m2, ...), "
                                        f"not {getattr(f, 'name', f)!r}")
            # The datapath reads a sign bit, a fixed exponent bias and IEEE-style denormals from the code.
            why = ("has a run-time bias" if f.runtime_bias else "is unsigned" if not f.signed
                   else "flushes denormals" if f.ftz else None)
            if why:
                raise FpforgeValueError(f"{f.name} {why}: scalar dot-product elements are signed fixed-bias formats "
                                        "(e4m3, e5m2, the FNUZ, FP6 and FP4 formats)")
        if not self.name:
            object.__setattr__(self, "name", "+".join(f.name for f in self.formats))

    @property
    def select_bits(self) -> int:
        """Width of the run-time select (0 with one format)."""
        return (len(self.formats) - 1).bit_length()

    @property
    def bits(self) -> int:
        return max(f.bits for f in self.formats)

    @property
    def bits_per_element(self) -> Fraction:
        return Fraction(self.bits)

    @property
    def M(self) -> int:
        """Mantissa bits of the common significand (the widest ``mbits``)."""
        return max(f.mbits for f in self.formats)

    @property
    def lsb(self) -> int:
        """Exponent of the common significand's LSB at eoff = 0."""
        return min(f.emin - self.M for f in self.formats)

    def eoff_base(self, fmt) -> int:
        """What format ``fmt``'s ``max(e_field, 1) - 1`` is offset by in the common representation."""
        return fmt.emin - self.M - self.lsb


FP8 = ScalarSet((get_format("e4m3"), get_format("e5m2")), "fp8")


def operand_format(fmt):
    """The operand descriptor named by ``fmt``: a block format (``mx9``, ``mxfp8_e4m3``, ``bdr(...)``, …),
    a scalar narrow float (``e4m3`` → ``ScalarSet((e4m3,))``) or ``fp8`` (E4M3 or E5M2 at run time).

    Raises
    ------
    ValueError
        Not a block format, a narrow float format or ``fp8``.
    """
    if isinstance(fmt, (ScalarSet, BlockFormat, MXFormat)):
        return fmt
    if isinstance(fmt, str) and fmt.lower() == "fp8":
        return FP8
    try:
        desc = get_format(fmt)
    except KeyError as e:
        raise FpforgeValueError(f"unknown dot-product operand format {fmt!r}; valid: a block format (mx9, mx6, mx4, "
                                f"msfp12, msfp16, mxfp8_e4m3, mxfp8_e5m2, mxfp6_e3m2, mxfp6_e2m3, mxfp4_e2m1, mxint8, "
                                f"bdr_m<M>_k<K1>_d<D1>_k<K2>_d<D2>), a narrow float (e4m3, e5m2, ...) or fp8") from None
    if isinstance(desc, (BlockFormat, MXFormat)):
        return desc
    if isinstance(desc, FloatFormat) and desc.name not in SOURCES:
        return ScalarSet((desc,))
    raise FpforgeValueError(f"{getattr(desc, 'name', desc)!r} cannot be a dot-product operand; valid: block formats, "
                            "narrow float formats (e4m3, e5m2, ...) or fp8")


def _float_eoff_max(el) -> int:
    """Largest ``max(e_field, 1) - 1`` of a finite code of the FloatFormat ``el``."""
    top = el.exp_max_field - (1 if el.nan == "ieee" else 0)
    return max(top, 1) - 1


@dataclass(frozen=True)
class _Side:
    """How one operand's elements enter the datapath (derived from its descriptor)."""

    fmt: object
    family: str
    mag_max: int  # largest element magnitude entering a multiplier
    eoff_max: int  # largest element exponent offset (OCP FP: product shift; scalar: block exponent)
    sub_max: int  # BDR: beta (largest sub-block offset beta - tau); else 0
    lsb: int  # exponent of magnitude 1 at offsets 0 and block exponent 0
    bexp_min: int  # block exponent range (BDR E, OCP scale exponent, scalar 0)
    bexp_max: int
    specials: bool  # elements or scales can be NaN/Inf

    @property
    def mag_bits(self) -> int:
        return self.mag_max.bit_length()

    @property
    def eoff_bits(self) -> int:
        return max(self.eoff_max.bit_length(), 1)


def _side(fmt) -> _Side:
    if isinstance(fmt, BlockFormat):
        return _Side(fmt, "bdr", (1 << fmt.m) - 1, 0, fmt.beta, 1 - fmt.m - fmt.beta, fmt.e_min, fmt.e_max,
                     False)
    if isinstance(fmt, MXFormat):
        if fmt.is_int:
            el = fmt.element
            return _Side(fmt, "ocp", 1 << (el.bits - 1), 0, 0, -el.frac_bits, fmt.scale.emin, fmt.scale.emax, True)
        el = fmt.element
        return _Side(fmt, "ocp", (1 << (el.mbits + 1)) - 1, _float_eoff_max(el), 0, el.emin - el.mbits,
                     fmt.scale.emin, fmt.scale.emax, True)
    M = fmt.M
    mag_max = max(((1 << (f.mbits + 1)) - 1) << (M - f.mbits) for f in fmt.formats)
    eoff_max = max(_float_eoff_max(f) + fmt.eoff_base(f) for f in fmt.formats)
    return _Side(fmt, "scalar", mag_max, eoff_max, 0, fmt.lsb, 0, 0, any(f.nan != "none" for f in fmt.formats))


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
    sa: _Side = field(init=False, repr=False, compare=False)
    sb: _Side = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        a = operand_format(self.a)
        b = a if self.b is None else operand_format(self.b)
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)
        if a.family != b.family:
            raise FpforgeValueError(f"operands A ({a.name}, {a.family}) and B ({b.name}, {b.family}) must be of one "
                                    "family: both BDR, both OCP MX, or both scalar")
        if a.k1 != b.k1 or (a.family == "bdr" and a.k2 != b.k2):
            raise FpforgeValueError(f"operands A ({a.name}: k1={a.k1}, k2={a.k2}) and B ({b.name}: k1={b.k1}, "
                                    f"k2={b.k2}) must have the same block size k1 (and sub-block size k2)")
        if not isinstance(self.r, (int, np.integer)) or isinstance(self.r, bool) or not 1 <= self.r <= MAX_R or \
                self.r % a.k1:
            raise FpforgeValueError(f"r must be a positive multiple of k1 = {a.k1} ({a.name}), not {self.r!r} "
                                    f"(at most {MAX_R})")
        lo, hi = F_RANGE
        if not isinstance(self.f, (int, np.integer)) or isinstance(self.f, bool) or not lo <= self.f <= hi:
            raise FpforgeValueError(f"f (bits of the fixed-point window, sign included) must be an integer in "
                                    f"{lo}..{hi}, not {self.f!r}")
        object.__setattr__(self, "r", int(self.r))
        object.__setattr__(self, "f", int(self.f))
        object.__setattr__(self, "sa", _side(a))
        object.__setattr__(self, "sb", _side(b))

    # -- geometry -----------------------------------------------------------------------------------
    @property
    def family(self) -> str:
        return self.a.family

    @property
    def k1(self) -> int:
        return self.a.k1

    @property
    def k2(self) -> int:
        return self.a.k2 if self.family == "bdr" else 1

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
        if self.family == "ocp":
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
        if self.family == "scalar":
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
        return tuple(_port_bits(s.fmt, self.r) for s in (self.sa, self.sb))

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


def _port_bits(fmt, r) -> int:
    if isinstance(fmt, ScalarSet):
        return r * fmt.bits
    return (r // fmt.k1) * fmt.block_bits


# -- operands -------------------------------------------------------------------------------------------
def operand_words(fmt, data) -> np.ndarray:
    """The operand port values of many dot products as ``(n, ceil(bits / 64))`` uint64 words, least
    significant first: a ``BlockEncoding`` of shape (n, r) becomes r/k1 blocks in ``pack``'s layout (block 0
    in the low bits); scalar codes (n, r) become r codes of ``bits`` bits (element 0 lowest)."""
    fmt = operand_format(fmt)
    if isinstance(fmt, ScalarSet):
        codes = as_codes(data, fmt.bits, name="data (operand codes)", of=fmt.name).astype(np.uint64)
        if codes.ndim != 2:
            raise FpforgeValueError(f"data (operand codes of {fmt.name}) must have shape (n, r), not {codes.shape}")
        n = codes.shape[0]
        return _bits_to_words(_field_bits(codes.reshape(n, -1), fmt.bits).reshape(n, -1))
    if not isinstance(data, BlockEncoding):
        raise FpforgeTypeError(f"data in {fmt.name} must be a BlockEncoding (encode_block, unpack), not "
                               f"{describe(data)}")
    data.validate()
    if data.format != fmt:
        raise FpforgeValueError(f"data is encoded in {data.format.name!r}, not {fmt.name!r}")
    if data.elem.ndim != 3:
        raise FpforgeValueError(f"data must be a BlockEncoding of (n, r) values, not of shape {data.shape}")
    n = int(np.prod(data.elem.shape[:-2]))
    nb = data.elem.shape[-2]
    arrays = {"scale": np.asarray(data.scale).reshape(n, nb, 1),
              "elem": np.asarray(data.elem).reshape(n, nb, fmt.k1)}
    if any(name == "shift" for name, _, _ in fmt.fields):
        arrays["shift"] = np.asarray(data.shift).reshape(n, nb, fmt.n_sub)
    bits = [_field_bits(arrays[name].astype(np.uint64), width).reshape(n, nb, -1) for name, width, _ in fmt.fields]
    return _bits_to_words(np.concatenate(bits, axis=2).reshape(n, -1))


def _field_bits(vals, width):
    """(..., count) unsigned values -> (..., count, width) bits, LSB first."""
    return ((vals[..., None] >> np.arange(width, dtype=np.uint64)) & np.uint64(1)).astype(np.uint8)


def _bits_to_words(bits) -> np.ndarray:
    n, nbits = bits.shape
    nwords = max(1, -(-nbits // 64))
    padded = np.zeros((n, nwords * 64), np.uint8)
    padded[:, :nbits] = bits
    packed = np.packbits(padded, axis=1, bitorder="little")
    return packed.view("<u8").astype(np.uint64).reshape(n, nwords)


def _words_to_bits(words, nbits) -> np.ndarray:
    """(n, nwords) uint64 words or a sequence of Python ints -> (n, nbits) bits."""
    nwords = max(1, -(-nbits // 64))
    if isinstance(words, np.ndarray) and words.ndim == 2:
        words = as_codes(words, 64, name="words (uint64 port words)")
        if words.shape[1] != nwords:
            raise FpforgeValueError(f"words must be (n, {nwords}) uint64 port words for {nbits}-bit ports, not "
                                    f"shape {words.shape}")
    else:
        if not isinstance(words, (list, tuple, range, np.ndarray)):
            raise FpforgeTypeError(f"words must be port values (a list of Python ints, or (n, {nwords}) uint64), "
                                   f"not {describe(words)}")
        ints = as_int_array(list(words), "words (port values)")
        flat = ints.ravel().tolist()
        if any(not 0 <= w < (1 << nbits) for w in flat):
            bad = next(w for w in flat if not 0 <= w < (1 << nbits))
            raise FpforgeValueError(f"words must be {nbits}-bit port values in 0..2**{nbits}-1, not {bad}")
        raw = b"".join(int(w).to_bytes(8 * nwords, "little") for w in flat)
        words = np.frombuffer(raw, "<u8").reshape(-1, nwords)
    if len(words) == 0:
        return np.zeros((0, nbits), np.uint8)
    raw = np.ascontiguousarray(words.astype("<u8")).view(np.uint8).reshape(len(words), -1)
    return np.unpackbits(raw, axis=1, bitorder="little")[:, :nbits]


def from_operand_words(fmt, words, r):
    """Inverse of :func:`operand_words`: port values (Python ints, or ``(n, words)`` uint64) of r elements
    → a ``BlockEncoding`` of shape (n, r), or scalar codes (n, r) (uint64)."""
    fmt = operand_format(fmt)
    r = as_int(r, "r", 1, MAX_R)
    if r % fmt.k1:
        raise FpforgeValueError(f"r must be a positive multiple of k1 = {fmt.k1} ({fmt.name}), not {r}")
    nbits = _port_bits(fmt, r)
    bits = _words_to_bits(words, nbits)
    n = len(bits)
    if isinstance(fmt, ScalarSet):
        b = bits.reshape(n, r, fmt.bits).astype(np.uint64)
        return (b << np.arange(fmt.bits, dtype=np.uint64)).sum(axis=-1, dtype=np.uint64)
    nb = r // fmt.k1
    blk = bits.reshape(n * nb, fmt.block_bits)
    nbytes = -(-fmt.block_bits // 8)
    packed = np.packbits(blk, axis=1, bitorder="little")
    ints = [int.from_bytes(row[:nbytes].tobytes(), "little") for row in packed]
    return from_block_words(fmt, ints, (n, r))


# -- element decoding --------------------------------------------------------------------------------------
@dataclass
class _Elements:
    """One operand of n dot products, as the datapath sees it."""

    sign: np.ndarray  # (n, nb, k1) 0/1
    mag: np.ndarray  # (n, nb, k1) int64, 0 for NaN/Inf elements
    eoff: np.ndarray  # (n, nb, k1) int64
    sub: np.ndarray  # (n, nb, n_sub) int64: BDR beta - tau
    bexp: np.ndarray  # (n, nb) int64
    nan: np.ndarray  # (n, nb, k1) bool (element NaN, or its block's scale is NaN)
    inf: np.ndarray  # (n, nb, k1) bool
    zero: np.ndarray  # (n, nb, k1) bool: a finite zero


_FIELD_TABLES: dict = {}


def _float_table(el, codes):
    """:func:`_float_fields` through a per-format table of every code (formats of up to 16 bits)."""
    if el.bits > 16:
        return _float_fields(el, codes)
    if el.name not in _FIELD_TABLES:
        _FIELD_TABLES[el.name] = _float_fields(el, np.arange(1 << el.bits, dtype=np.int64))
    idx = np.asarray(codes, np.intp)
    return tuple(t[idx] for t in _FIELD_TABLES[el.name])


def _float_fields(el, codes):
    """(sign, significand with hidden bit, eoff, nan, inf) of FloatFormat codes (int64 arrays)."""
    sign = (codes >> (el.bits - 1)) & 1
    ef = (codes >> el.mbits) & el.exp_max_field
    mf = codes & ((1 << el.mbits) - 1)
    sig = np.where(ef == 0, mf, mf | (1 << el.mbits))
    eoff = np.maximum(ef, 1) - 1
    none = np.zeros(codes.shape, bool)
    if el.nan == "ieee":
        top = ef == el.exp_max_field
        nan, inf = top & (mf != 0), top & (mf == 0)
    elif el.nan == "fn":
        nan, inf = (codes & (el.sign_mask - 1)) == el.sign_mask - 1, none
    elif el.nan == "fnuz":
        nan, inf = codes == el.sign_mask, none
    else:
        nan, inf = none, none
    return sign, sig, eoff, nan, inf


def _decode_side(side, data, n, nb, k1, n_sub, select):
    fmt = side.fmt
    if side.family == "scalar":
        codes = np.asarray(data).astype(np.int64).reshape(n, nb, k1)  # checked by _as_operand
        sel = np.zeros(n, np.int64) if select is None else select
        out = None
        for idx, el in enumerate(fmt.formats):
            s, sig, eoff, nan, inf = _float_table(el, codes & ((1 << el.bits) - 1))
            sig = sig << (fmt.M - el.mbits)
            eoff = eoff + fmt.eoff_base(el)
            cur = (s, sig, eoff, nan, inf)
            pick = (sel == idx)[:, None, None]
            out = cur if out is None else tuple(np.where(pick, c, o) for c, o in zip(cur, out))
        sign, sig, eoff, nan, inf = out
        zero = (sig == 0) & ~nan & ~inf
        mag = np.where(nan | inf, 0, sig)
        return _Elements(sign, mag, eoff, np.zeros((n, nb, n_sub), np.int64), np.zeros((n, nb), np.int64),
                         nan, inf, zero)
    if not isinstance(data, BlockEncoding):
        raise FpforgeTypeError(f"operand in {fmt.name} must be a BlockEncoding (encode_block, unpack, "
                               f"from_operand_words), not {type(data).__name__}")
    if data.format != fmt or type(data.format) is not type(fmt):
        raise FpforgeValueError(f"the operand is encoded in {data.format.name!r}, not {fmt.name!r}")
    scale = np.asarray(data.scale).astype(np.int64).reshape(n, nb)
    elem = np.asarray(data.elem).astype(np.int64).reshape(n, nb, k1)
    if side.family == "bdr":
        sign = (elem >> fmt.m) & 1
        mag = elem & ((1 << fmt.m) - 1)
        if fmt.d2:
            tau = np.asarray(data.shift).astype(np.int64).reshape(n, nb, n_sub)
        else:
            tau = np.zeros((n, nb, n_sub), np.int64)
        none = np.zeros(elem.shape, bool)
        return _Elements(sign, mag, np.zeros_like(elem), fmt.beta - tau, scale - fmt.scale_bias, none, none,
                         mag == 0)
    # OCP MX
    el = fmt.element
    if fmt.is_int:
        sign = (elem >> (el.bits - 1)) & 1
        mag = np.where(sign == 1, (1 << el.bits) - elem, elem)
        eoff = np.zeros_like(elem)
        nan = inf = np.zeros(elem.shape, bool)
    else:
        sign, mag, eoff, nan, inf = _float_table(el, elem)
    block_nan = (scale == fmt.scale.nan_code)[:, :, None]
    zero = (mag == 0) & ~nan & ~inf
    nan = nan | block_nan
    mag = np.where(nan | inf, 0, mag)
    return _Elements(sign, mag, eoff, np.zeros((n, nb, n_sub), np.int64), scale - fmt.scale.bias, nan, inf, zero)


def _as_operand(cfg, side, data, name):
    """Packed operands (``bytes`` as ``pack`` writes them, r/k1 blocks per dot product; for scalar formats r
    one-byte codes per dot product) -> BlockEncoding (n, r) / codes (n, r); anything else unchanged."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        if side.family == "scalar":  # integer codes of the element format(s), never cast
            return as_codes(data, side.fmt.bits, name=f"operand {name} codes", of=side.fmt.name)
        return data
    raw = bytes(data)
    if side.family == "scalar":
        if side.fmt.bits != 8:
            raise FpforgeValueError(f"packed scalar operands are one byte per code; {side.fmt.name} codes have "
                                    f"{side.fmt.bits} bits")
        if len(raw) % cfg.r:
            raise FpforgeValueError(f"{len(raw)} bytes of codes are not a whole number of dot products of r = {cfg.r}")
        return np.frombuffer(raw, np.uint8).reshape(-1, cfg.r)
    bits = cfg.nb * side.fmt.block_bits
    n = len(raw) * 8 // bits
    if n < 1 or -(-n * bits // 8) != len(raw):
        raise FpforgeValueError(f"{len(raw)} bytes are not a whole number of dot products of {cfg.nb} {side.fmt.name} "
                                f"blocks ({bits} bits each)")
    return unpack(side.fmt, raw, (n, cfg.r))


def _lead_and_check(cfg, side, data, name):
    """Leading shape of an operand and its element count check."""
    if side.family == "scalar":
        arr = np.asarray(data)
        shape = arr.shape
    else:
        if not isinstance(data, BlockEncoding):
            raise FpforgeTypeError(f"operand {name} in {side.fmt.name} must be a BlockEncoding (encode_block, unpack, "
                                   f"from_operand_words), not {type(data).__name__}")
        data.validate()
        shape = data.shape
    if not shape or shape[-1] != cfg.r:
        raise FpforgeValueError(f"operand {name} must have r = {cfg.r} elements on its last axis, not shape "
                                f"{tuple(shape)}")
    return tuple(shape[:-1])


# -- wide-integer helpers (int64 or Python-int object arrays) -----------------------------------------------
def _shl(x, k):
    if x.dtype == object:
        return x << np.asarray(k).astype(object)
    return x << np.asarray(k, np.int64)


def _shr(x, k, limit=62):
    """x >> k (arithmetic); shifts beyond ``limit`` are clamped for int64 (|x| < 2**limit)."""
    if x.dtype == object:
        return x >> np.asarray(k).astype(object)
    return x >> np.minimum(np.asarray(k, np.int64), limit)


def _bitlen(x) -> np.ndarray:
    """Bit length of non-negative integers (int64 or object arrays) as int64."""
    if x.dtype == object:
        return np.frompyfunc(int.bit_length, 1, 1)(x).astype(np.int64)
    _, e = np.frexp(x.astype(np.float64))
    e = e.astype(np.int64)
    over = (x >> np.maximum(e - 1, 0)) == 0  # float64 rounded x up to the next power of two
    return np.where(x == 0, 0, e - (over & (x > 0)))


def fp32_bits(T, exp) -> np.ndarray:
    """FP32 bit patterns (uint32) of ``T * 2**exp`` (integer arrays, int64 or Python-int objects), rounded
    to nearest even once, with FP32 subnormals, ±Inf beyond the largest finite value, and +0 for T = 0."""
    T = as_int_array(T, "T")
    exp = as_int_array(exp, "exp")
    if exp.dtype == object:
        raise FpforgeValueError("exp must fit in int64")
    exp = exp.astype(np.int64)
    try:
        T, exp = np.broadcast_arrays(T, exp)
    except ValueError:
        raise FpforgeValueError(f"T of shape {T.shape} and exp of shape {exp.shape} do not broadcast") from None
    neg = T < 0
    M = np.where(neg, -T, T)
    if M.dtype != object:
        M = M.astype(np.int64)
    L = _bitlen(M)
    e = exp + L - 1  # exponent of the leading one
    s = np.where(e >= -126, L - 24, -149 - exp)  # low bits to drop
    s = np.minimum(s, L + 1)  # everything beyond L + 1 rounds to 0 the same way
    drop = np.maximum(s, 0)
    q0 = _shr(M, drop)
    rem = M - _shl(q0, drop)
    half = np.where(drop > 0, _shl(np.ones_like(M), np.maximum(drop - 1, 0)), 0)
    if M.dtype == object:
        half = half.astype(object)
    odd = (q0 & 1) == 1
    up = (drop > 0) & ((rem > half) | ((rem == half) & odd))
    q = np.where(s > 0, q0 + up, _shl(M, np.maximum(-s, 0)))
    q = q.astype(np.int64)
    ec = np.clip(e, -126, 200)
    bits = ((ec + 126) << 23) + q
    bits = np.where(bits >= _INF, _INF, bits)
    bits = np.where(M == 0, 0, bits)
    return (bits | np.where(neg, 1 << 31, 0)).astype(np.uint32)


# -- the pipeline ------------------------------------------------------------------------------------------
@dataclass
class DotResult:
    """What :func:`dot` returns, one entry per dot product (the operands' leading shape).

    Attributes
    ----------
    y : ndarray of uint32
        FP32 result bits.
    sum : ndarray of int64 (object for wide configurations)
        The raw fixed-point sum T (two's complement value).
    exp : ndarray of int64
        The raw exponent: the finite part of the result is exactly ``sum * 2**exp``.
    nan, inf : ndarray of bool
        The result is NaN / ±Inf because of special operands (``y`` says which Inf).
    """

    y: np.ndarray
    sum: np.ndarray
    exp: np.ndarray
    nan: np.ndarray
    inf: np.ndarray

    @property
    def value(self) -> np.ndarray:
        """The FP32 results as float32."""
        return self.y.view(np.float32)


def _specials(ea, eb, n):
    """(nan, +inf, -inf) per dot product from the elements' classes (IEEE rules on the products)."""
    pnan = ea.nan | eb.nan | (ea.inf & eb.zero) | (ea.zero & eb.inf)
    pinf = (ea.inf | eb.inf) & ~pnan
    neg = (ea.sign ^ eb.sign) == 1
    any_nan = pnan.reshape(n, -1).any(axis=1)
    pos = (pinf & ~neg).reshape(n, -1).any(axis=1)
    ngt = (pinf & neg).reshape(n, -1).any(axis=1)
    return any_nan | (pos & ngt), pos, ngt


def _pipeline(cfg, ea, eb, n):
    """(T, exp) of n dot products from decoded elements."""
    obj = cfg.wide
    dt = object if obj else np.int64
    prod = (ea.mag * eb.mag).astype(dt)  # (n, nb, k1), at most 2 * 24 bits
    if cfg.family == "ocp":
        prod = _shl(prod, ea.eoff + eb.eoff)
    prod = np.where((ea.sign ^ eb.sign) == 1, -prod, prod)
    if cfg.family == "scalar":
        S = prod[:, :, 0]
        X = ea.eoff[:, :, 0] + eb.eoff[:, :, 0]
    else:
        sub = prod.reshape(n, cfg.nb, cfg.n_sub, cfg.k2).sum(axis=-1)
        sub = _shl(sub, ea.sub + eb.sub)  # = (sub << G) >> (tau_a + tau_b), exactly
        S = sub.sum(axis=-1)
        X = ea.bexp + eb.bexp
    if S.dtype != dt:
        S = S.astype(dt)
    X = np.where(S == 0, cfg.x_min, X)
    Xm = X.max(axis=-1)
    d = Xm[:, None] - X
    k = cfg.f - 1 - cfg.W - d  # A = trunc(S * 2**k)
    neg = S < 0
    mag = np.where(neg, -S, S)
    if not obj:
        mag = mag.astype(np.int64)
    left = np.maximum(k, 0)
    right = np.maximum(-k, 0)
    amag = _shr(_shl(mag, left), right)
    A = np.where(neg, -amag, amag)
    T = A.sum(axis=-1)
    exp = Xm + cfg.c + cfg.W - (cfg.f - 1)
    return T, exp.astype(np.int64)


def _resolve_config(fmt_a, fmt_b, r, f, a):
    if isinstance(fmt_a, DotConfig):
        if fmt_b is not None or r is not None or f is not None:
            raise FpforgeValueError("with a DotConfig, give the operands only (r, f and formats are in the config)")
        return fmt_a
    if f is None:
        raise FpforgeValueError("f (bits of the fixed-point window) is required")
    if r is None:
        shape = a.shape if isinstance(a, BlockEncoding) else np.shape(a)
        if not shape:
            raise FpforgeValueError("operand A has no element axis")
        r = shape[-1]
    return DotConfig(fmt_a, r, f, fmt_b)


def dot(fmt_a, a, fmt_b=None, b=None, *, f=None, r=None, select_a=None, select_b=None) -> DotResult:
    """Dot products of the pipeline, bit for bit as the RTL computes them.

    Parameters
    ----------
    fmt_a : str, descriptor or DotConfig
        Format of A (``mx9``, ``mxfp8_e4m3``, ``bdr(...)``, ``e4m3``, ``fp8`` …), or a :class:`DotConfig`.
    a, b : BlockEncoding, bytes, or integer code arrays for scalar formats
        Operands of shape (..., r): ``encode_block`` / ``unpack`` / :func:`from_operand_words` results, or
        codes; or packed, as the ``bytes`` that ``pack`` writes for (n, r) values (scalar: one byte per
        code). The leading shapes must be equal: one dot product per leading index.
    fmt_b : str or descriptor, optional
        Format of B (default: A's). With a DotConfig, pass ``None``.
    f : int
        Window bits (required unless a DotConfig is given).
    r : int, optional
        Elements per dot product (default: the operands' last axis).
    select_a, select_b : int or array of int, optional
        For a scalar operand with several formats (``fp8``): which one each dot product uses (0 = E4M3,
        1 = E5M2 for ``fp8``); default 0.

    Returns
    -------
    DotResult
    """
    cfg = _resolve_config(fmt_a, fmt_b, r, f, a)
    if b is None:
        raise FpforgeValueError("operand B is required")
    a, b = _as_operand(cfg, cfg.sa, a, "A"), _as_operand(cfg, cfg.sb, b, "B")
    lead_a = _lead_and_check(cfg, cfg.sa, a, "A")
    lead_b = _lead_and_check(cfg, cfg.sb, b, "B")
    if lead_a != lead_b:
        raise FpforgeValueError(f"operands A and B must hold the same number of dot products, not {lead_a} and "
                                f"{lead_b}")
    n = int(np.prod(lead_a, dtype=np.int64))
    args = (n, cfg.nb, cfg.k1, cfg.n_sub)
    ea = _decode_side(cfg.sa, a, *args, _flat_select(select_a, lead_a, cfg.sa, "select_a"))
    eb = _decode_side(cfg.sb, b, *args, _flat_select(select_b, lead_a, cfg.sb, "select_b"))
    T, exp = _pipeline(cfg, ea, eb, n)
    y = fp32_bits(T, exp)
    nan, pos, ngt = _specials(ea, eb, n) if cfg.specials else (np.zeros(n, bool),) * 3
    inf = (pos | ngt) & ~nan
    y = np.where(inf, np.where(ngt, _INF | (1 << 31), _INF), y).astype(np.uint32)
    y = np.where(nan, _QNAN, y).astype(np.uint32)
    return DotResult(y.reshape(lead_a), T.reshape(lead_a), exp.reshape(lead_a), nan.reshape(lead_a),
                     inf.reshape(lead_a))


def _flat_select(select, lead, side=None, name="select"):
    if select is None:
        return None
    # fp8 operands pick E4M3 (0) or E5M2 (1) per dot product; an operand with one element format (a block
    # format, e4m3, ...) accepts only 0
    n_formats = len(side.fmt.formats) if side is not None and side.family == "scalar" else 1
    sel = as_codes(select, 0, name=name, hi=n_formats - 1, of=side.fmt.name if side is not None else None)
    sel = sel.astype(np.int64)
    try:
        return np.broadcast_to(sel, lead).reshape(-1)
    except ValueError:
        raise FpforgeValueError(f"{name} of shape {sel.shape} does not broadcast to the {lead} dot products") from None


# -- the exact reference -----------------------------------------------------------------------------------
@dataclass
class ExactResult:
    """The exact dot products: ``num * 2**exp2`` (Python ints) unless ``nan``/``inf``; ``y`` that value
    rounded once to FP32 (nearest even, the same special rules as the pipeline)."""

    num: np.ndarray
    exp2: np.ndarray
    nan: np.ndarray
    inf: np.ndarray
    y: np.ndarray

    def fraction(self, i) -> Fraction:
        """The exact value of dot product ``i`` (flat index) as a Fraction."""
        num, e = int(self.num.reshape(-1)[i]), int(self.exp2.reshape(-1)[i])
        return Fraction(num) * (Fraction(2) ** e)

    @property
    def float64(self) -> np.ndarray:
        """The exact values rounded to float64 (for error statistics)."""
        num = self.num.reshape(-1)
        e = self.exp2.reshape(-1)
        lens = np.frompyfunc(lambda v: abs(int(v)).bit_length(), 1, 1)(num).astype(np.int64)
        # keep the top 60 bits, then scale: at most one rounding of 2**-60 relative
        cut = np.maximum(lens - 60, 0)
        top = np.frompyfunc(lambda v, k: int(v) >> int(k) if v >= 0 else -((-int(v)) >> int(k)), 2, 1)(num, cut)
        return np.ldexp(top.astype(np.float64), (e + cut).astype(np.int32)).reshape(self.num.shape)


def _values(side, data, n, r, select):
    """float64 exact element values (n, r) from the formats' own decoders."""
    fmt = side.fmt
    if side.family == "scalar":
        codes = np.asarray(data).astype(np.int64).reshape(n, r)
        sel = np.zeros(n, np.int64) if select is None else select
        vals = np.zeros((n, r))
        for idx, el in enumerate(fmt.formats):
            v = decode(el, codes & ((1 << el.bits) - 1)).astype(np.float64)
            vals = np.where((sel == idx)[:, None], v, vals)
        return vals
    return decode_block(fmt, data).astype(np.float64).reshape(n, r)


def dot_exact(fmt_a, a, fmt_b=None, b=None, *, f=None, r=None, select_a=None, select_b=None) -> ExactResult:
    """The exact dot products of the decoded elements (``decode_block`` / ``decode``), summed in exact
    integers and rounded once to FP32. Same arguments as :func:`dot` (``f`` only names the config)."""
    cfg = _resolve_config(fmt_a, fmt_b, r, f if f is not None else F_RANGE[0], a) if not isinstance(
        fmt_a, DotConfig) else fmt_a
    a, b = _as_operand(cfg, cfg.sa, a, "A"), _as_operand(cfg, cfg.sb, b, "B")
    lead = _lead_and_check(cfg, cfg.sa, a, "A")
    _lead_and_check(cfg, cfg.sb, b, "B")
    n = int(np.prod(lead, dtype=np.int64))
    va = _values(cfg.sa, a, n, cfg.r, _flat_select(select_a, lead, cfg.sa, "select_a"))
    vb = _values(cfg.sb, b, n, cfg.r, _flat_select(select_b, lead, cfg.sb, "select_b"))
    with np.errstate(invalid="ignore", over="ignore"):
        p = va * vb  # only for the special-value classes
    pnan = np.isnan(p)
    pos = (p == np.inf).any(axis=1)
    ngt = (p == -np.inf).any(axis=1)
    nan = pnan.any(axis=1) | (pos & ngt)
    inf = (pos | ngt) & ~nan
    finite = np.isfinite(va) & np.isfinite(vb)
    va = np.where(finite, va, 0.0)
    vb = np.where(finite, vb, 0.0)
    # Every element value has at most 25 significant bits: integer mantissa * 2**e exactly.
    ma, xa = np.frexp(va)
    mb, xb = np.frexp(vb)
    ia = np.ldexp(ma, 25).astype(np.int64)
    ib = np.ldexp(mb, 25).astype(np.int64)
    assert np.array_equal(np.ldexp(ia.astype(np.float64), xa - 25), va), "element values exceed 25 bits"
    prod = (ia * ib).astype(object)  # < 2**50
    pe = (xa + xb - 50).astype(np.int64)
    pe = np.where(prod == 0, pe.max(initial=0), pe)
    emin = pe.min(axis=1)
    num = (prod << (pe - emin[:, None]).astype(object)).sum(axis=1)
    num = np.asarray(num, dtype=object).reshape(n)
    emin = emin.astype(np.int64)
    y = fp32_bits(num, emin)
    y = np.where(inf, np.where(ngt, _INF | (1 << 31), _INF), y)
    y = np.where(nan, _QNAN, y).astype(np.uint32)
    return ExactResult(num.reshape(lead), emin.reshape(lead), nan.reshape(lead), inf.reshape(lead),
                       y.reshape(lead))


# -- operands from data and the error report --------------------------------------------------------------
def quantized_operands(cfg, x, select=0, side="a"):
    """Encode float32 vectors ``x`` (n, r) into the operand format of ``cfg`` (side ``a`` or ``b``): block
    formats with ``encode_block`` (their default rounding), scalar formats with a per-vector amax scale
    (the FP8 RFC's per-tensor scaling; the scale stays outside the dot product) and saturating rne."""
    from .qsnr import amax_scale

    if not isinstance(cfg, DotConfig):
        raise FpforgeTypeError(f"cfg must be a DotConfig, not {describe(cfg)}")
    if not isinstance(side, str) or side not in ("a", "b"):
        raise FpforgeValueError(f"side must be 'a' or 'b', not {side!r}")
    fmt = cfg.a if side == "a" else cfg.b
    x = as_source(x).astype(np.float32)
    if x.ndim != 2 or x.shape[1] != cfg.r:
        raise FpforgeValueError(f"x must have shape (n, r = {cfg.r}), not {x.shape}")
    if isinstance(fmt, ScalarSet):
        el = fmt.formats[as_int(select, "select", 0, len(fmt.formats) - 1)]
        x64 = x.astype(np.float64)
        amax = np.abs(x64).max(axis=-1, keepdims=True)
        with np.errstate(invalid="ignore"):
            s = np.where(amax > 0, amax_scale(el.max_value, np.where(amax > 0, amax, 1.0)), 1.0)
        with np.errstate(over="ignore", invalid="ignore"):
            v = (x64 * s).astype(np.float32)
        return encode(el, v, rounding="rne", saturate=True).astype(np.uint64)
    if select != 0:
        raise FpforgeValueError(f"select picks one of several scalar element formats (fp8); {fmt.name} has none")
    return encode_block(fmt, x)


#: Formats and windows of ``fpforge dot-error`` by default.
ERROR_FORMATS = ("mx9", "mx6", "mx4", "mxfp8_e4m3", "mxint8", "e4m3", "e5m2")
ERROR_FS = (8, 12, 16, 20, 24, 32, 48)


def error_sweep(formats=ERROR_FORMATS, fs=ERROR_FS, *, r=64, n_vectors=2000, seed=0):
    """The f-bit pipeline against the exact reference, for each format and window width.

    Operands: A and B independent ``gaussian_vectors`` (log2 sigma uniform on [-8, 8] per vector) of length
    r, quantized into the format (:func:`quantized_operands`). For each (format, f) the row holds
    ``exact`` (fraction of results bit-identical to the exact sum rounded once), ``rel_p50``, ``rel_max``
    (|y - x| / |x|, x the exact value, over results with x != 0) and ``norm_max`` (|y - x| / sum|a_i b_i|,
    the dot-product error measure that does not blow up under cancellation).
    """
    from .qsnr import gaussian_vectors

    if isinstance(formats, str):
        formats = (formats,)
    if isinstance(fs, (int, np.integer)):
        fs = (fs,)
    for label, value in (("formats", formats), ("fs", fs)):
        if not isinstance(value, (list, tuple)):
            raise FpforgeTypeError(f"{label} must be a list or tuple, not {describe(value)}")
    fs, formats = tuple(fs), tuple(formats)
    r = as_int(r, "r", 1)
    n_vectors = as_int(n_vectors, "n_vectors", 1)
    if not formats or not fs:
        raise FpforgeValueError(f"formats and fs must name at least one format and one f, not {formats!r}, {fs!r}")
    seed = as_seed(seed, allow_none=False)
    for name in formats:
        for f in fs:
            DotConfig(name, r, f)  # every format, r and f checked before the work
    rows = []
    xa = gaussian_vectors(n_vectors, r, seed)
    xb = gaussian_vectors(n_vectors, r, seed + 1)
    for name in formats:
        base = DotConfig(name, r, F_RANGE[0])
        a = quantized_operands(base, xa)
        b = quantized_operands(base, xb, side="b")
        ex = dot_exact(base, a, None, b)
        x = ex.float64
        va = _values(base.sa, a, n_vectors, r, None)
        vb = _values(base.sb, b, n_vectors, r, None)
        scale = np.abs(va * vb).sum(axis=1)
        for f in fs:
            cfg = DotConfig(name, r, f)
            res = dot(cfg, a, None, b)
            y = res.value.astype(np.float64)
            err = np.abs(y - x)
            nz = x != 0
            with np.errstate(divide="ignore", invalid="ignore"):
                rel = err[nz] / np.abs(x[nz])
                norm = np.where(scale > 0, err / np.where(scale > 0, scale, 1), 0.0)
            rows.append(dict(format=cfg.a.name, r=r, f=f, W=cfg.W, f_exact=cfg.f_exact,
                             exact=float((res.y == ex.y).mean()),
                             rel_p50=float(np.median(rel)) if rel.size else 0.0,
                             rel_max=float(rel.max()) if rel.size else 0.0,
                             norm_max=float(norm.max())))
    return rows
