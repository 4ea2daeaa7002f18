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

from dataclasses import dataclass

import numpy as np

from . import rng
from .blockformat import BLOCK_NAMES, E8M0, INT8, BlockFormat, IntElement, MXFormat, ScaleFormat, bdr
from .checks import as_codes, as_int, as_seed, as_source, describe
from .contract import BlockFormatLike
from .errors import FpforgeTypeError, FpforgeValueError
from .formats import get_format
from .layout import bits_to_ints, pack_fields, unpack_fields, words_to_bits
from .minifloat import code_dtype, sr_draws
from .rounding import round_magnitude

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
    "round_magnitude",
    "unpack",
    "as_block_format",
]


def as_block_format(fmt):
    fmt = get_format(fmt)
    if not isinstance(fmt, BlockFormatLike):
        raise FpforgeValueError(f"{getattr(fmt, 'name', fmt)!r} is not a block format; valid block formats: "
                                f"{', '.join(BLOCK_NAMES)} or bdr(m, k1, d1, k2, d2)")
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
            fmt = self.format = as_block_format(fmt)
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
    fmt = as_block_format(fmt)
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
        draws = sr_draws(x.size, seed=seed, rand=rand, rand_bits=rand_bits).reshape(-1, fmt.k1)
    scale, shift, elem = fmt.encode_blocks(x.reshape(-1, fmt.k1), rounding, draws, rand_bits)
    return BlockEncoding(fmt, scale.reshape(lead + (nb,)), shift.reshape(lead + (nb, shift.shape[-1])),
                         elem.reshape(lead + (nb, fmt.k1)))


# -- decoding ----------------------------------------------------------------------------------------
def _check_encoding(fmt, enc):
    if not isinstance(enc, BlockEncoding):
        raise FpforgeTypeError(f"expected a BlockEncoding from encode_block/unpack, not {type(enc).__name__}")
    enc.validate()
    if enc.format != fmt or type(enc.format) is not type(fmt):
        raise FpforgeValueError(f"the encoding is in {enc.format.name!r}, not {fmt.name!r}")


def _decode64(fmt, enc):
    """Exact values as float64 (NaN for OCP NaN-scale blocks), shape ``enc.shape``."""
    val = fmt.decode_values(np.asarray(enc.scale).astype(np.int64), np.asarray(enc.shift).astype(np.int64),
                            np.asarray(enc.elem).astype(np.int64))
    return val.reshape(enc.shape)


def decode_block(fmt, enc) -> np.ndarray:
    """Exact values of a :class:`BlockEncoding`, shape ``(..., n)``: float32 when the format's values all
    fit (``fmt.float32_exact``: mx9, mx6, mx4, msfp12, msfp16), else float64 (OCP MX: a scale of 2**127
    times a large element is beyond FP32). OCP blocks with scale 0xFF are NaN throughout."""
    fmt = as_block_format(fmt)
    _check_encoding(fmt, enc)
    return _decode64(fmt, enc).astype(fmt.value_dtype)


def decode_block_bits(fmt, enc) -> np.ndarray:
    """FP32 bit patterns (uint32) of the decoded values, as the RTL ``BlockDecoder`` delivers them: the
    exact value rounded to FP32 (nearest even; only OCP codes no encoder produces can exceed FP32 and give
    ±Inf), NaN as the quiet NaN 0x7FC00000."""
    fmt = as_block_format(fmt)
    _check_encoding(fmt, enc)
    with np.errstate(over="ignore"):
        vals = _decode64(fmt, enc).astype(np.float32)
    bits = vals.view(np.uint32)
    return np.where(np.isnan(vals), np.uint32(0x7FC00000), bits).astype(np.uint32)


def quantize(fmt, x, **kwargs) -> np.ndarray:
    """``decode_block(fmt, encode_block(fmt, x, **kwargs))``: the values ``x`` becomes."""
    fmt = as_block_format(fmt)
    return decode_block(fmt, encode_block(fmt, x, **kwargs))


# -- bit layout (fpforge.golden.layout) -------------------------------------------------------------------
def _block_bits(fmt, enc):
    """Bits ``(B, block_bits)`` of every block of ``enc``, field layout ``fmt.fields``."""
    B = enc.n_blocks
    arrays = {"scale": enc.scale, "elem": enc.elem, "shift": enc.shift}
    return pack_fields(fmt.fields, {name: np.asarray(arrays[name]).reshape(B, count) for name, _, count in fmt.fields},
                       B)


def pack(fmt, enc) -> bytes:
    """The blocks of ``enc`` as bytes in the documented layout (module docstring), blocks in C order."""
    fmt = as_block_format(fmt)
    _check_encoding(fmt, enc)
    return np.packbits(_block_bits(fmt, enc).ravel(), bitorder="little").tobytes()


def _from_bits(fmt, bits, shape):
    B = bits.shape[0]
    lead, n = tuple(shape[:-1]), shape[-1]
    nb = n // fmt.k1
    out = unpack_fields(fmt.fields, bits)
    shift = out.get("shift", np.zeros((B, fmt.shift_count), np.uint64))
    return BlockEncoding(fmt, out["scale"].reshape(lead + (nb,)).astype(code_dtype(fmt.scale_bits)),
                         shift.reshape(lead + (nb, fmt.shift_count)).astype(np.uint8),
                         out["elem"].reshape(lead + (nb, fmt.k1)).astype(code_dtype(fmt.elem_bits)))


def unpack(fmt, data, shape) -> BlockEncoding:
    """Inverse of :func:`pack`: the :class:`BlockEncoding` of values of ``shape`` (last axis a multiple of
    k1) from ``data`` (bytes or uint8 array, at least ``ceil(blocks * block_bits / 8)`` bytes)."""
    fmt = as_block_format(fmt)
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
    fmt = as_block_format(fmt)
    _check_encoding(fmt, enc)
    return bits_to_ints(_block_bits(fmt, enc))


def from_block_words(fmt, words, shape=None) -> BlockEncoding:
    """Inverse of :func:`block_words` (``shape`` defaults to ``(len(words) * k1,)``)."""
    fmt = as_block_format(fmt)
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
    if not words:
        return _from_bits(fmt, np.zeros((0, fmt.block_bits), np.uint8), shape)
    return _from_bits(fmt, words_to_bits(words, fmt.block_bits), shape)
