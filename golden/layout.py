"""Every packing of fields into words, defined once: block formats (``pack``, ``block_words``), the dot
product's operand ports, the testbench's lanes and stream payloads, and the simulation cases' wide ports.

One convention everywhere (it is Amaranth's ``data.StructLayout``/``ArrayLayout`` convention, so the RTL
ports built from the same field lists carry the same bits):

* a layout is a list of fields ``(name, width, count)``; the first field is the least significant, and an
  array field's element 0 is its least significant;
* bit ``j`` of a packed word is bit ``j % 8`` of byte ``j // 8`` (little-endian bytes);
* a word wider than 64 bits travels as ``(n, ceil(bits / 64))`` uint64 arrays, least significant word
  first, or as Python ints.

Everything is vectorised over the leading axis ``n``.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "bits_to_ints",
    "bits_to_words",
    "from_bits",
    "ints_to_words",
    "pack_fields",
    "pack_lanes",
    "pack_payload",
    "to_bits",
    "twos_words",
    "unpack_fields",
    "unpack_lanes",
    "words_to_bits",
    "words_to_ints",
]


def to_bits(values, width: int) -> np.ndarray:
    """Unsigned integer array ``(...)`` -> bits ``(..., width)`` (uint8), least significant first."""
    values = np.asarray(values).astype(np.uint64)
    return ((values[..., None] >> np.arange(width, dtype=np.uint64)) & np.uint64(1)).astype(np.uint8)


def from_bits(bits) -> np.ndarray:
    """Inverse of :func:`to_bits`: bits ``(..., width)`` -> uint64 ``(...)`` (width <= 64)."""
    bits = np.asarray(bits).astype(np.uint64)
    return (bits << np.arange(bits.shape[-1], dtype=np.uint64)).sum(axis=-1, dtype=np.uint64)


def bits_to_words(bits) -> np.ndarray:
    """Bits ``(n, nbits)`` -> ``(n, max(1, ceil(nbits / 64)))`` uint64 words, least significant first."""
    bits = np.asarray(bits, np.uint8)
    n, nbits = bits.shape
    nwords = max(1, -(-nbits // 64))
    padded = np.zeros((n, nwords * 64), np.uint8)
    padded[:, :nbits] = bits
    return np.packbits(padded, axis=1, bitorder="little").view("<u8").astype(np.uint64).reshape(n, nwords)


def words_to_bits(words, nbits: int) -> np.ndarray:
    """``(n, nwords)`` uint64 words, or a sequence of Python ints -> bits ``(n, nbits)``."""
    if not (isinstance(words, np.ndarray) and words.ndim == 2):
        words = ints_to_words(words, nbits, wide=True)
    raw = np.ascontiguousarray(words.astype("<u8")).view(np.uint8).reshape(len(words), 8 * words.shape[-1])
    return np.unpackbits(raw, axis=1, bitorder="little")[:, :nbits]


def ints_to_words(ints, width: int, *, wide: bool | None = None) -> np.ndarray:
    """Python ints of ``width`` bits -> uint64 ``(n,)`` (``width <= 64``) or ``(n, nwords)`` words (wider, or
    ``wide=True``), least significant word first."""
    if wide is None:
        wide = width > 64
    if not wide:
        return np.array([int(v) for v in ints], dtype=np.uint64)
    nwords = max(1, -(-width // 64))
    raw = b"".join(int(v).to_bytes(8 * nwords, "little") for v in ints)
    return np.frombuffer(raw, dtype="<u8").reshape(-1, nwords).astype(np.uint64)


def words_to_ints(words) -> list:
    """Inverse of :func:`ints_to_words`: a 1-D uint64 array as is, or ``(n, nwords)`` rows joined."""
    words = np.asarray(words)
    if words.ndim == 1:
        return [int(v) for v in words]
    raw = np.ascontiguousarray(words.astype("<u8")).view(np.uint8).reshape(len(words), 8 * words.shape[-1])
    return [int.from_bytes(row.tobytes(), "little") for row in raw]


def bits_to_ints(bits) -> list:
    """Bits ``(n, nbits)`` -> one Python int per row."""
    return words_to_ints(bits_to_words(bits))


def pack_fields(layout, arrays: dict, n: int) -> np.ndarray:
    """Bits ``(n, total)`` of ``n`` records: ``arrays[name]`` holds ``(n, count)`` unsigned values (or
    ``(n,)`` for ``count == 1``) of each field ``(name, width, count)`` of ``layout``."""
    cols = [to_bits(np.asarray(arrays[name]).reshape(n, count), width).reshape(n, count * width)
            for name, width, count in layout]
    return np.concatenate(cols, axis=1) if cols else np.zeros((n, 0), np.uint8)


def unpack_fields(layout, bits) -> dict:
    """Inverse of :func:`pack_fields`: ``{name: (n, count) uint64}`` from bits ``(n, total)``."""
    bits = np.asarray(bits)
    n, pos, out = len(bits), 0, {}
    for name, width, count in layout:
        out[name] = from_bits(bits[:, pos : pos + width * count].reshape(n, count, width))
        pos += width * count
    return out


def pack_lanes(values, width: int) -> np.ndarray:
    """``(n, k)`` unsigned values of ``width`` bits -> ``(n, nwords)`` words of ``k * width`` bits (lane 0
    least significant): a port carrying ``k`` values side by side."""
    values = np.asarray(values)
    n, k = values.shape
    return bits_to_words(to_bits(values, width).reshape(n, k * width))


def unpack_lanes(words, width: int, k: int) -> np.ndarray:
    """Inverse of :func:`pack_lanes`: ``(n, k)`` uint64 values from words (or Python ints)."""
    bits = words_to_bits(words, k * width)
    return from_bits(bits.reshape(len(bits), k, width))


def pack_payload(values: dict, layout) -> list:
    """One Python int per record from per-field arrays (1-D, or ``(n, words)`` for wide fields) at the
    offsets of ``layout`` = ``[(name, offset, width), ...]`` (a stream payload's StructLayout)."""
    out = None
    for name, offset, _ in layout:
        ints = words_to_ints(values[name])
        out = [v << offset for v in ints] if out is None else [o | (v << offset) for o, v in zip(out, ints)]
    return out or []


def twos_words(values, bits: int) -> np.ndarray:
    """Signed integers (int64 or Python-int objects) as unsigned two's-complement words of ``bits`` bits
    (``(n,)`` uint64, or ``(n, nwords)`` when wider than 64 bits)."""
    mask = (1 << bits) - 1
    return ints_to_words([int(v) & mask for v in np.asarray(values).reshape(-1).tolist()], bits)
