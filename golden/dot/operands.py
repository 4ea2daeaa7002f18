"""Dot-product operands as data: port words (``operand_words``: r/k1 blocks of the block layout, block 0 in
the low bits, or r scalar codes; :mod:`fpforge.golden.layout`), packed bytes, and their checks."""

from __future__ import annotations

import numpy as np

from ..block import BlockEncoding, _from_bits, unpack
from ..layout import bits_to_words, pack_fields, unpack_fields, words_to_bits
from .config import operand_format

__all__ = ["as_operand", "from_operand_words", "lead_shape", "operand_words"]


def operand_words(fmt, data) -> np.ndarray:
    """The operand port values of many dot products as ``(n, ceil(bits / 64))`` uint64 words, least
    significant first: a ``BlockEncoding`` of shape (n, r) becomes r/k1 blocks in ``pack``'s layout (block 0
    in the low bits); scalar codes (n, r) become r codes of ``bits`` bits (element 0 lowest)."""
    fmt = operand_format(fmt)
    if isinstance(data, BlockEncoding):
        n = int(np.prod(data.elem.shape[:-2]))
        blocks = n * data.elem.shape[-2]
        arrays = {"scale": data.scale, "shift": data.shift, "elem": data.elem}
    else:
        codes = np.asarray(data)
        n, blocks = codes.shape[0], codes.size
        arrays = {"code": codes}
    arrays = {name: np.asarray(arrays[name]).reshape(blocks, count) for name, _, count in fmt.fields}
    return bits_to_words(pack_fields(fmt.fields, arrays, blocks).reshape(n, -1))


def from_operand_words(fmt, words, r):
    """Inverse of :func:`operand_words`: port values (Python ints, or ``(n, words)`` uint64) of r elements
    → a ``BlockEncoding`` of shape (n, r), or scalar codes (n, r) (uint64)."""
    fmt = operand_format(fmt)
    bits = words_to_bits(words, (r // fmt.k1) * fmt.block_bits)
    n = len(bits)
    blocks = bits.reshape(n * (r // fmt.k1), fmt.block_bits)
    if fmt.dot_side.family == "scalar":
        return unpack_fields(fmt.fields, blocks)["code"].reshape(n, r)
    return _from_bits(fmt, blocks, (n, r))


def as_operand(cfg, side, data):
    """Packed operands (``bytes`` as ``pack`` writes them, r/k1 blocks per dot product; for scalar formats r
    one-byte codes per dot product) -> BlockEncoding (n, r) / codes (n, r); anything else unchanged."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        return data
    raw = bytes(data)
    if side.family == "scalar":
        if side.fmt.bits != 8:
            raise ValueError(f"packed scalar operands are one byte per code; {side.fmt.name} codes have "
                             f"{side.fmt.bits} bits")
        if len(raw) % cfg.r:
            raise ValueError(f"{len(raw)} bytes of codes are not a whole number of dot products of r = {cfg.r}")
        return np.frombuffer(raw, np.uint8).reshape(-1, cfg.r)
    bits = cfg.nb * side.fmt.block_bits
    n = len(raw) * 8 // bits
    if n < 1 or -(-n * bits // 8) != len(raw):
        raise ValueError(f"{len(raw)} bytes are not a whole number of dot products of {cfg.nb} {side.fmt.name} "
                         f"blocks ({bits} bits each)")
    return unpack(side.fmt, raw, (n, cfg.r))


def lead_shape(cfg, side, data, name):
    """Leading shape of an operand and its element count check."""
    if side.family == "scalar":
        arr = np.asarray(data)
        shape = arr.shape
    else:
        if not isinstance(data, BlockEncoding):
            raise TypeError(f"operand {name} in {side.fmt.name} must be a BlockEncoding (encode_block, unpack, "
                            f"from_operand_words), not {type(data).__name__}")
        shape = data.shape
    if not shape or shape[-1] != cfg.r:
        raise ValueError(f"operand {name} must have r = {cfg.r} elements on its last axis, not shape {tuple(shape)}")
    return tuple(shape[:-1])
