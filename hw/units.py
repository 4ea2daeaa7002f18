"""The gateware of a unit spec: which component each kind of :mod:`fpforge.hw.spec` spec builds.

This sits above the specs (which hold every validity rule: a spec that exists builds) and below
:mod:`fpforge.hw.generate` (``build_unit``, ``to_verilog``); each unit is built from its spec
(``Encoder(spec)``, ``DotProduct(spec)``, ...).
"""

from __future__ import annotations

from ..golden.floatformat import FloatFormat
from ..golden.taperedformat import TaperedFormat
from .block import BlockDecoder, BlockEncoder
from .convert import Decoder, Encoder
from .dot import DotProduct
from .hif8 import HiF8Decoder, HiF8Encoder
from .pipeline import Pipeline, RegisteredIO
from .scaling import ScaledEncoder
from .spec import BlockDecoderSpec, BlockEncoderSpec, DecoderSpec, DotSpec, EncoderSpec, ScaledEncoderSpec

__all__ = ["GATEWARE", "SCALAR_GATEWARE", "gateware_of"]

#: The gateware of each scalar descriptor class: ``class: (encoder, decoder)`` (the one place a descriptor's
#: class picks code; everything the units need they read from the descriptor).
SCALAR_GATEWARE = {FloatFormat: (Encoder, Decoder), TaperedFormat: (HiF8Encoder, HiF8Decoder)}


def gateware_of(spec):
    """The unit a validated spec describes (what :func:`fpforge.hw.build_unit` returns for it): one table,
    :data:`GATEWARE`, from the spec's class to the function that builds its unit."""
    return GATEWARE[type(spec)](spec)


def _dot(spec):
    unit = DotProduct(spec)
    return RegisteredIO(unit) if spec.io_registers else unit


def _pipelined(core, spec):
    return core if spec.latency == 0 else Pipeline(core, spec.latency, getattr(spec, "seed", None) or 0)


#: The gateware of each spec class (the one place a spec's class picks code).
GATEWARE = {
    EncoderSpec: lambda spec: _pipelined(SCALAR_GATEWARE[type(spec.descriptor)][0](spec), spec),
    DecoderSpec: lambda spec: _pipelined(SCALAR_GATEWARE[type(spec.descriptor)][1](spec), spec),
    BlockEncoderSpec: lambda spec: _pipelined(BlockEncoder(spec), spec),
    BlockDecoderSpec: lambda spec: _pipelined(BlockDecoder(spec), spec),
    DotSpec: _dot,
    ScaledEncoderSpec: ScaledEncoder,
}
