"""Amaranth gateware generated from the golden model's descriptors."""

if __name__ != "fpforge.hw":  # the folder imported as a top-level package: a second copy of fpforge
    raise ImportError(f"import fpforge.hw, not {__name__}: the folder hw/ is installed as fpforge.hw "
                      "(run `make setup`, then use `import fpforge.hw`)")

from .block import BlockDecoder, BlockEncoder, block_layout
from .convert import Decoder, Encoder
from .dot import DotProduct, operand_layout
from .hif8 import HiF8Decoder, HiF8Encoder
from .generate import LINT_WAIVERS, build_unit, default_name, to_verilog
from .pipeline import Pipeline, RegisteredIO
from .rng import Xorshift32
from .rounding import MODE_WIDTH, Rounder
from .scaling import Fp32Multiplier, ScaledEncoder, ScaledEncoderCore

__all__ = [
    "BlockDecoder",
    "BlockEncoder",
    "block_layout",
    "Decoder",
    "DotProduct",
    "Encoder",
    "Fp32Multiplier",
    "HiF8Decoder",
    "HiF8Encoder",
    "LINT_WAIVERS",
    "MODE_WIDTH",
    "Pipeline",
    "RegisteredIO",
    "Rounder",
    "ScaledEncoder",
    "ScaledEncoderCore",
    "Xorshift32",
    "build_unit",
    "default_name",
    "operand_layout",
    "to_verilog",
]
