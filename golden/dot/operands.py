"""Dot-product operands as data: port words (``operand_words``: r/k1 blocks of the block layout, block 0 in
the low bits, or r scalar codes; :mod:`fpforge.golden.layout`), packed bytes, and their checks."""

from __future__ import annotations

import numpy as np

from ..block import BlockEncoding, _from_bits, unpack
from ..checks import as_codes, as_int, as_int_array, describe
from ..errors import FpforgeTypeError, FpforgeValueError
from ..layout import bits_to_words, pack_fields, unpack_fields, words_to_bits
from .config import MAX_R, operand_format

__all__ = ["as_operand", "from_operand_words", "lead_shape", "operand_words"]


def operand_words(fmt, data) -> np.ndarray:
    """The operand port values of many dot products as ``(n, ceil(bits / 64))`` uint64 words, least
    significant first: a ``BlockEncoding`` of shape (n, r) becomes r/k1 blocks in ``pack``'s layout (block 0
    in the low bits); scalar codes (n, r) become r codes of ``bits`` bits (element 0 lowest)."""
    fmt = operand_format(fmt)
    if not fmt.dot_side.element_block_exponent:
        if not isinstance(data, BlockEncoding):
            raise FpforgeTypeError(f"data in {fmt.name} must be a BlockEncoding (encode_block, unpack), not "
                                   f"{describe(data)}")
        data.validate()
        if data.format != fmt:
            raise FpforgeValueError(f"data is encoded in {data.format.name!r}, not {fmt.name!r}")
        if data.elem.ndim != 3:
            raise FpforgeValueError(f"data must be a BlockEncoding of (n, r) values, not of shape {data.shape}")
        n = int(np.prod(data.elem.shape[:-2]))
        blocks = n * data.elem.shape[-2]
        arrays = {"scale": data.scale, "shift": data.shift, "elem": data.elem}
    else:
        codes = as_codes(data, fmt.bits, name="data (operand codes)", of=fmt.name).astype(np.uint64)
        if codes.ndim != 2:
            raise FpforgeValueError(f"data (operand codes of {fmt.name}) must have shape (n, r), not {codes.shape}")
        n, blocks = codes.shape[0], codes.size
        arrays = {"code": codes}
    arrays = {name: np.asarray(arrays[name]).reshape(blocks, count) for name, _, count in fmt.fields}
    return bits_to_words(pack_fields(fmt.fields, arrays, blocks).reshape(n, -1))


def from_operand_words(fmt, words, r):
    """Inverse of :func:`operand_words`: port values (Python ints, or ``(n, words)`` uint64) of r elements
    → a ``BlockEncoding`` of shape (n, r), or scalar codes (n, r) (uint64)."""
    fmt = operand_format(fmt)
    r = as_int(r, "r", 1, MAX_R)
    if r % fmt.k1:
        raise FpforgeValueError(f"r must be a positive multiple of k1 = {fmt.k1} ({fmt.name}), not {r}")
    nbits = (r // fmt.k1) * fmt.block_bits
    bits = words_to_bits(_checked_words(words, nbits), nbits)
    n = len(bits)
    blocks = bits.reshape(n * (r // fmt.k1), fmt.block_bits)
    if fmt.dot_side.element_block_exponent:
        return unpack_fields(fmt.fields, blocks)["code"].reshape(n, r)
    return _from_bits(fmt, blocks, (n, r))


def _checked_words(words, nbits):
    """Port words as :func:`fpforge.golden.layout.words_to_bits` takes them, checked: ``(n, nwords)``
    uint64, or a sequence of Python ints in ``0..2**nbits-1`` (never cast)."""
    nwords = max(1, -(-nbits // 64))
    if isinstance(words, np.ndarray) and words.ndim == 2:
        words = as_codes(words, 64, name="words (uint64 port words)")
        if words.shape[1] != nwords:
            raise FpforgeValueError(f"words must be (n, {nwords}) uint64 port words for {nbits}-bit ports, not "
                                    f"shape {words.shape}")
        return words
    if not isinstance(words, (list, tuple, range, np.ndarray)):
        raise FpforgeTypeError(f"words must be port values (a list of Python ints, or (n, {nwords}) uint64), "
                               f"not {describe(words)}")
    flat = as_int_array(list(words), "words (port values)").ravel().tolist()
    bad = next((w for w in flat if not 0 <= w < (1 << nbits)), None)
    if bad is not None:
        raise FpforgeValueError(f"words must be {nbits}-bit port values in 0..2**{nbits}-1, not {bad}")
    if not flat:
        return np.zeros((0, nwords), np.uint64)
    return flat


def as_operand(cfg, side, data, name="A"):
    """Packed operands (``bytes`` as ``pack`` writes them, r/k1 blocks per dot product; for scalar formats r
    one-byte codes per dot product) -> BlockEncoding (n, r) / codes (n, r); scalar codes are checked
    (integer codes of the element format(s), never cast); anything else unchanged."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        if side.element_block_exponent:
            return as_codes(data, side.fmt.bits, name=f"operand {name} codes", of=side.fmt.name)
        return data
    raw = bytes(data)
    if side.element_block_exponent:
        if side.fmt.bits != 8:
            raise FpforgeValueError(f"packed scalar operands are one byte per code; {side.fmt.name} codes have "
                                    f"{side.fmt.bits} bits")
        if len(raw) % cfg.r:
            raise FpforgeValueError(f"{len(raw)} bytes of codes are not a whole number of dot products of "
                                    f"r = {cfg.r}")
        return np.frombuffer(raw, np.uint8).reshape(-1, cfg.r)
    bits = cfg.nb * side.fmt.block_bits
    n = len(raw) * 8 // bits
    if n < 1 or -(-n * bits // 8) != len(raw):
        raise FpforgeValueError(f"{len(raw)} bytes are not a whole number of dot products of {cfg.nb} "
                                f"{side.fmt.name} blocks ({bits} bits each)")
    return unpack(side.fmt, raw, (n, cfg.r))


def lead_shape(cfg, side, data, name):
    """Leading shape of an operand and its element count check."""
    if side.element_block_exponent:
        arr = np.asarray(data)
        shape = arr.shape
    else:
        if not isinstance(data, BlockEncoding):
            raise FpforgeTypeError(f"operand {name} in {side.fmt.name} must be a BlockEncoding (encode_block, "
                                   f"unpack, from_operand_words), not {type(data).__name__}")
        data.validate()
        shape = data.shape
    if not shape or shape[-1] != cfg.r:
        raise FpforgeValueError(f"operand {name} must have r = {cfg.r} elements on its last axis, not shape "
                                f"{tuple(shape)}")
    return tuple(shape[:-1])
