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
from .spec import (BlockDecoderSpec, BlockEncoderSpec, DecoderSpec, DotSpec, EncoderSpec, FormatRef, ScaledEncoderSpec,
                   UnitSpec, spec_from_options)

__all__ = [
    "BlockDecoder",
    "BlockDecoderSpec",
    "BlockEncoder",
    "BlockEncoderSpec",
    "block_layout",
    "Decoder",
    "DecoderSpec",
    "DotProduct",
    "DotSpec",
    "Encoder",
    "EncoderSpec",
    "FormatRef",
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
    "ScaledEncoderSpec",
    "UnitSpec",
    "Xorshift32",
    "build_unit",
    "default_name",
    "operand_layout",
    "spec_from_options",
    "to_verilog",
]
