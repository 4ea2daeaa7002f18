"""Build units from command-line style options and emit deterministic Verilog."""

from amaranth.back import verilog

from .. import __version__
from ..golden.contract import BlockFormatLike
from ..golden.errors import FpforgeValueError
from ..golden.floatformat import FloatFormat
from ..golden.formats import get_format, resolve_variant
from ..golden.rng import DEFAULT_RAND_BITS
from ..golden.tapered import with_compat
from ..golden.taperedformat import TaperedFormat
from .block import BlockDecoder, BlockEncoder
from .convert import Decoder, Encoder
from .dot import DotProduct
from .hif8 import HiF8Decoder, HiF8Encoder
from .names import format_label, module_suffix
from .pipeline import Pipeline, RegisteredIO
from .scaling import ScaledEncoder

__all__ = ["LINT_WAIVERS", "UNITS", "build_unit", "default_name", "to_verilog"]

#: Verilator -Wall style categories that yosys' Verilog writer (used by Amaranth) trips by design:
#: implicit width extension/truncation of operands, unused bits of intermediate wires, hierarchical
#: submodule names, initialised always-block regs and cases without default. They are switched off inside
#: the generated file only (and back on at its end); every other -Wall warning stays an error in the tests.
LINT_WAIVERS = ("WIDTHEXPAND", "WIDTHTRUNC", "UNUSEDSIGNAL", "DECLFILENAME", "PROCASSINIT", "CASEINCOMPLETE")

UNITS = ("encoder", "decoder", "block-encoder", "block-decoder", "dot", "scaled-encoder")

#: The gateware of each scalar descriptor class: ``class: (encoder, decoder)`` (the one place a descriptor's
#: class picks code; everything the units need they read from the descriptor).
SCALAR_GATEWARE = {FloatFormat: (Encoder, Decoder), TaperedFormat: (HiF8Encoder, HiF8Decoder)}


def build_unit(unit, *, format, source="fp32", target="fp32", rounding=None, saturate=False,
               nan_to_zero=False, latency=0, rand_bits=DEFAULT_RAND_BITS, seed=0, paper_literal=False,
               ieee_denormals=False, format_b=None, r=None, f=None, stages=0, raw=False, io_registers=False, lanes=1,
               scaling="fp32", compat=None):
    """Build an encoder or decoder; ``latency`` 0 is combinational, N >= 1 a stream pipeline. ``dot``
    builds a :class:`DotProduct` from ``format`` (A), ``format_b`` (B, default A's), ``r``, ``f``,
    ``stages`` (0: combinational) and ``raw``; ``io_registers`` wraps the combinational unit in input and
    output registers (:class:`RegisteredIO`, the paper's area method). ``scaled-encoder`` builds a
    :class:`~fpforge.hw.scaling.ScaledEncoder` (``lanes`` values per transfer, ``scaling`` ``fp32`` or
    ``pow2``, ``latency`` >= 1).

    The format's descriptor picks the gateware (:data:`SCALAR_GATEWARE`: ``Encoder``/``Decoder`` for
    sign/exponent/mantissa formats, ``HiF8Encoder``/``HiF8Decoder`` for tapered ones); ``rounding`` defaults to
    the format's first mode. A run-time-bias format (CFloat8, SHP) gets a ``bias`` input port.
    ``ieee_denormals``, ``paper_literal`` and ``compat="ascend"`` are sugar for the variants
    ``<format>_ieee``, ``hif8_literal`` and ``hif8_ascend`` (resolved here; the gateware takes the variant
    descriptor).

    Raises
    ------
    ValueError
        Unknown unit, format, source/target or rounding, or a negative latency (message names the
        valid choices).
    """
    if not isinstance(latency, int) or latency < 0:
        raise ValueError(f"latency must be an integer >= 0, not {latency!r}")
    if unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}; valid units: {', '.join(UNITS)}")
    if unit == "scaled-encoder":
        if compat not in (None, "default"):
            format = with_compat(get_format(format), compat)
        return ScaledEncoder(format, source, lanes, scaling, rounding, saturate, nan_to_zero, rand_bits,
                             ieee_denormals, paper_literal, latency, seed)
    if lanes != 1 or scaling != "fp32":
        raise ValueError("lanes and scaling apply to scaled-encoder units")
    if unit == "dot":
        if latency or rounding or saturate or nan_to_zero or paper_literal or compat not in (None, "default"):
            raise ValueError("a dot unit takes format, format_b, r, f, stages and raw (its pipeline depth is "
                             "`stages`; it rounds once to FP32, nearest even)")
        unit = DotProduct(format, r, f, fmt_b=format_b, stages=stages, raw=raw)
        if io_registers:
            if stages:
                raise ValueError("io_registers wraps the combinational unit: use stages=0 with it")
            return RegisteredIO(unit)
        return unit
    if io_registers:
        raise ValueError("io_registers applies to dot units")
    fmt = with_compat(get_format(format), compat)
    block = isinstance(fmt, BlockFormatLike)
    if unit.startswith("block-") != block:
        kind = "block" if block else "scalar"
        valid = "block-encoder, block-decoder" if block else "encoder, decoder"
        raise ValueError(f"{fmt.name!r} is a {kind} format; its units are {valid}")
    if block:
        if saturate or nan_to_zero or paper_literal or ieee_denormals:
            raise ValueError("block units always saturate and have no nan_to_zero/paper_literal/ieee_denormals "
                             "options")
        if unit == "block-encoder":
            core = BlockEncoder(fmt, source, rounding or fmt.roundings[:1], rand_bits)
        else:
            core = BlockDecoder(fmt, target)
        return core if latency == 0 else Pipeline(core, latency, seed)
    fmt = resolve_variant(fmt, ieee_denormals=ieee_denormals, paper_literal=paper_literal)
    encoder, decoder = SCALAR_GATEWARE[type(fmt)]
    if unit == "encoder":
        if rounding is None:
            rounding = fmt.roundings[:1]
        if paper_literal and "hr" not in ((rounding,) if isinstance(rounding, str) else rounding):
            raise FpforgeValueError("paper_literal applies to hybrid rounding: enable rounding 'hr'")
        core = encoder(fmt, source, rounding, saturate, nan_to_zero, rand_bits)
    else:
        core = decoder(fmt, target)
    return core if latency == 0 else Pipeline(core, latency, seed)


def default_name(component):
    if isinstance(component, RegisteredIO):
        return default_name(component.core) + "_io"
    if isinstance(component, DotProduct):
        return (f"fpforge_dot_{component.config.name}" + ("_raw" if component.raw else "")
                + (f"_s{component.stages}" if component.stages else ""))
    core = getattr(component, "core", component)
    if isinstance(component, ScaledEncoder):
        c = core.config
        return (f"fpforge_senc_{c['source']}_{format_label(c['fmt'])}_{c['scaling']}_x{c['lanes']}"
                + module_suffix(c["fmt"]) + f"_l{component.latency}")
    if isinstance(core, BlockEncoder):
        name = f"fpforge_benc_{core.source.name}_{core.format.name}"
    elif isinstance(core, BlockDecoder):
        name = f"fpforge_bdec_{core.format.name}_fp32"
    elif isinstance(core, (Encoder, HiF8Encoder)):
        name = f"fpforge_enc_{core.source.name}_{format_label(core.format)}{module_suffix(core.format)}"
    else:
        name = f"fpforge_dec_{format_label(core.format)}_{core.target.name}{module_suffix(core.format)}"
    return name + (f"_l{component.latency}" if component is not core else "")


def to_verilog(component, name=None):
    """Verilog text for ``component``: byte-identical for identical configurations, no paths in it."""
    name = name or default_name(component)
    if not name.isidentifier():
        raise ValueError(f"module name must be a Verilog identifier, not {name!r}")
    body = verilog.convert(component, name=name, emit_src=False)
    header = (
        f"// Generated by fpforge {__version__}: {component.describe()}.\n"
        f"// Module {name}. Do not edit; regenerate with the fpforge command line.\n"
        + "".join(f"/* verilator lint_off {w} */\n" for w in LINT_WAIVERS)
    )
    footer = "".join(f"/* verilator lint_on {w} */\n" for w in LINT_WAIVERS)
    return header + body + footer
