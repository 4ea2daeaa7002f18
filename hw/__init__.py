"""Amaranth gateware generated from the golden model's descriptors."""

from .block import BlockDecoder, BlockEncoder, block_layout
from .convert import Decoder, Encoder
from .dot import DotProduct, RegisteredIO, operand_layout
from .hif8 import HiF8Decoder, HiF8Encoder
from .generate import LINT_WAIVERS, build_unit, default_name, to_verilog
from .pipeline import Pipeline
from .rng import Xorshift32
from .rounding import MODE_WIDTH, Rounder

__all__ = [
    "BlockDecoder",
    "BlockEncoder",
    "block_layout",
    "Decoder",
    "DotProduct",
    "Encoder",
    "HiF8Decoder",
    "HiF8Encoder",
    "LINT_WAIVERS",
    "MODE_WIDTH",
    "Pipeline",
    "RegisteredIO",
    "Rounder",
    "Xorshift32",
    "build_unit",
    "default_name",
    "operand_layout",
    "to_verilog",
]
