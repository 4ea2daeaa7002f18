"""The gateware of a unit spec: which component each kind of :mod:`fpforge.hw.spec` spec builds.

This sits below the specs, whose validation constructs the unit once (:func:`build_and_drop`, so that a
spec that exists builds), and below :mod:`fpforge.hw.generate` (``build_unit``, ``to_verilog``), which
builds from a spec or from the keyword style; it reads a spec's fields and its ``unit`` name only.
"""

from __future__ import annotations

from ..golden.floatformat import FloatFormat
from ..golden.rng import DEFAULT_RAND_BITS
from ..golden.taperedformat import TaperedFormat
from .block import BlockDecoder, BlockEncoder
from .convert import Decoder, Encoder
from .dot import DotProduct
from .hif8 import HiF8Decoder, HiF8Encoder
from .pipeline import Pipeline, RegisteredIO
from .scaling import ScaledEncoder

__all__ = ["SCALAR_GATEWARE", "build_and_drop", "gateware_of"]

#: The gateware of each scalar descriptor class: ``class: (encoder, decoder)`` (the one place a descriptor's
#: class picks code; everything the units need they read from the descriptor).
SCALAR_GATEWARE = {FloatFormat: (Encoder, Decoder), TaperedFormat: (HiF8Encoder, HiF8Decoder)}


def gateware_of(spec):
    """The unit a validated spec describes (what :func:`fpforge.hw.build_unit` returns for it)."""
    fmt = spec.descriptor
    if spec.unit == "dot":
        unit = DotProduct(spec.config, stages=spec.stages, raw=spec.raw, scale=spec.scale, amax=spec.amax,
                          out_format=spec.out_format, out_rounding=spec.rounding,
                          saturate=True if spec.saturate is None else spec.saturate, datapath=spec.datapath)
        return RegisteredIO(unit) if spec.io_registers else unit
    rand_bits = DEFAULT_RAND_BITS if getattr(spec, "rand_bits", None) is None else spec.rand_bits
    seed = getattr(spec, "seed", None) or 0
    if spec.unit == "scaled-encoder":
        return ScaledEncoder(fmt, spec.source, spec.lanes, spec.scaling, spec.rounding, spec.saturate,
                             spec.nan_to_zero, rand_bits, False, False, spec.latency, seed)
    if spec.unit == "block-encoder":
        core = BlockEncoder(fmt, spec.source, spec.rounding, rand_bits)
    elif spec.unit == "block-decoder":
        core = BlockDecoder(fmt, spec.target)
    elif spec.unit == "encoder":
        core = SCALAR_GATEWARE[type(fmt)][0](fmt, spec.source, spec.rounding, spec.saturate, spec.nan_to_zero,
                                             rand_bits)
    else:
        core = SCALAR_GATEWARE[type(fmt)][1](fmt, spec.target)
    return core if spec.latency == 0 else Pipeline(core, spec.latency, seed)


def build_and_drop(build, *args, **kwargs) -> None:
    """Raise what ``build(*args, **kwargs)`` raises; a unit it builds is dropped (without Amaranth's "created
    but never used" warning)."""
    try:
        unit = build(*args, **kwargs)
    except Exception as e:  # a constructor that raised leaves an object Amaranth would warn about: silence it
        tb = e.__traceback__
        while tb is not None:
            obj = tb.tb_frame.f_locals.get("self")
            if hasattr(obj, "_MustUse__silence"):
                obj._MustUse__silence = True
            tb = tb.tb_next
        raise
    for obj in (unit, getattr(unit, "core", None)):
        if obj is not None:
            obj._MustUse__silence = True
