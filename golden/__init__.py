"""The bit-exact numpy golden model: format descriptors, encode/decode, flags, the random generator."""

if __name__ != "fpforge.golden":  # the folder imported as a top-level package: a second copy of fpforge
    raise ImportError(f"import fpforge.golden, not {__name__}: the folder golden/ is installed as fpforge.golden "
                      "(run `make setup`, then use `import fpforge.golden`)")

from .formats import ROUNDING_MODES, RUNTIME_BIASES, SOURCES, Flag, FloatFormat, get_format, list_formats, source_of
from .minifloat import code_dtype, decode, decode_bits, encode, encode_flags, encode_with_flags
from .rng import DEFAULT_RAND_BITS, random_bits
from .block import (BlockEncoding, BlockFormat, MXFormat, bdr, block_words, decode_block, decode_block_bits,
                    encode_block, from_block_words, pack, quantize, unpack)
from .contract import BlockFormatLike, ScalarFormat
from .registry import register
from .taperedformat import TaperedFormat

# Grouped as the imports above: formats, minifloat, rng, block, then the descriptor contracts, register and the
# tapered descriptor (a new format: a ScalarFormat or BlockFormatLike subclass, or a FloatFormat /
# TaperedFormat / BlockFormat instance, passed to register).
__all__ = [
    "ROUNDING_MODES", "RUNTIME_BIASES", "SOURCES", "Flag", "FloatFormat", "get_format", "list_formats", "source_of",
    "code_dtype", "decode", "decode_bits", "encode", "encode_flags", "encode_with_flags",
    "DEFAULT_RAND_BITS", "random_bits",
    "BlockEncoding", "BlockFormat", "MXFormat", "bdr", "block_words", "decode_block", "decode_block_bits",
    "encode_block", "from_block_words", "pack", "quantize", "unpack",
    "BlockFormatLike", "ScalarFormat", "register", "TaperedFormat",
]
