"""Build units from command-line style options and emit deterministic Verilog."""

from amaranth.back import verilog

from .. import __version__
from ..golden.checks import as_bool, as_int, as_seed
from ..golden.contract import BlockFormatLike
from ..golden.dot import DotConfig
from ..golden.errors import FpforgeTypeError, FpforgeValueError, UnknownName
from ..golden.floatformat import FloatFormat
from ..golden.formats import SOURCES, get_format, resolve_variant
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

__all__ = ["LINT_WAIVERS", "MAX_LATENCY", "MAX_PORT_BITS", "UNITS", "build_unit", "check_unit", "default_name",
           "to_verilog"]

#: Verilator -Wall style categories that yosys' Verilog writer (used by Amaranth) trips by design:
#: implicit width extension/truncation of operands, unused bits of intermediate wires, hierarchical
#: submodule names, initialised always-block regs and cases without default. They are switched off inside
#: the generated file only (and back on at its end); every other -Wall warning stays an error in the tests.
LINT_WAIVERS = ("WIDTHEXPAND", "WIDTHTRUNC", "UNUSEDSIGNAL", "DECLFILENAME", "PROCASSINIT", "CASEINCOMPLETE")

UNITS = ("encoder", "decoder", "block-encoder", "block-decoder", "dot", "scaled-encoder")

#: Largest ``latency`` (conversion units) and ``stages`` (dot units): register stages beyond this only
#: add flip-flops, and a typo such as 1000000 would otherwise build for hours.
MAX_LATENCY = 64
#: Largest width of one port (a block of a block unit, an operand of a dot unit), in bits.
MAX_PORT_BITS = 1 << 16

#: The gateware of each scalar descriptor class: ``class: (encoder, decoder)`` (the one place a descriptor's
#: class picks code; everything the units need they read from the descriptor).
SCALAR_GATEWARE = {FloatFormat: (Encoder, Decoder), TaperedFormat: (HiF8Encoder, HiF8Decoder)}


def _check_options(unit, saturate, nan_to_zero, latency, rand_bits, seed, paper_literal, ieee_denormals,
                   stages, raw, io_registers, rounding):
    """One rule per option (the command line passes its options through here unchanged)."""
    if not isinstance(unit, str) or unit not in UNITS:
        raise UnknownName(f"unknown unit {unit!r}; valid units: {', '.join(UNITS)}")
    if latency is not None:
        as_int(latency, "latency", 0, MAX_LATENCY)
    as_int(stages, "stages", 0, MAX_LATENCY)
    for name, value in (("nan_to_zero", nan_to_zero), ("paper_literal", paper_literal),
                        ("ieee_denormals", ieee_denormals), ("raw", raw), ("io_registers", io_registers)):
        as_bool(value, name)
    if not (saturate is None or isinstance(saturate, bool)
            or (isinstance(saturate, str) and saturate in ("off", "on", "runtime"))):
        raise FpforgeTypeError(f"saturate must be True, False or 'runtime' ('off'/'on' for False/True), not "
                               f"{saturate!r}")
    if rand_bits is not None:
        as_int(rand_bits, "rand_bits", 1, 32)
    as_seed(seed)
    if rounding is not None and not isinstance(rounding, str):
        if not isinstance(rounding, (tuple, list)) or not all(isinstance(r, str) for r in rounding):
            raise FpforgeTypeError(f"rounding must be a mode name or a tuple of them, not {rounding!r}")
        if not rounding:
            raise FpforgeValueError("rounding names no mode; give at least one (or None for the format's default)")
    modes = (rounding,) if isinstance(rounding, str) else tuple(rounding or ())
    if unit in ("decoder", "block-decoder", "dot") or "sr" not in modes:
        for name, value in (("rand_bits", rand_bits), ("seed", seed)):
            if value is not None:
                has = f"rounding {','.join(modes)}" if modes else "no sr rounding"
                raise FpforgeValueError(f"{name} applies to encoders with stochastic rounding (sr); this {unit} "
                                        f"has {has}")
    return unit


def _check_port_bits(what, bits):
    if bits > MAX_PORT_BITS:
        raise FpforgeValueError(f"{what} would be a {bits}-bit port; fpforge builds ports of up to {MAX_PORT_BITS} "
                                "bits (fewer elements or a smaller block)")


def build_unit(unit, *, format, source=None, target=None, rounding=None, saturate=None,
               nan_to_zero=False, latency=None, rand_bits=None, seed=None, paper_literal=False,
               ieee_denormals=False, format_b=None, r=None, f=None, stages=0, raw=False, io_registers=False,
               lanes=None, scaling=None, compat=None, scale=False, amax=False, out_format=None):
    """Build an encoder or decoder; ``latency`` 0 is combinational, N >= 1 a stream pipeline. ``dot``
    builds a :class:`DotProduct` from ``format`` (A), ``format_b`` (B, default A's), ``r``, ``f``,
    ``stages`` (0: combinational) and ``raw``; ``io_registers`` wraps the combinational unit in input and
    output registers (:class:`RegisteredIO`, the paper's area method); ``scale``, ``amax`` and ``out_format``
    add the FP8 RFC's epilogue (docs/scaling.md), ``rounding`` (one mode) and ``saturate`` then apply to the
    cast to ``out_format``. ``saturate=None`` is the unit's default: off for encoders, on for the dot unit's
    cast (where False is a choice). ``scaled-encoder`` builds a
    :class:`~fpforge.hw.scaling.ScaledEncoder` (``lanes`` values per transfer, default 1; ``scaling``
    ``fp32`` (default) or ``pow2``; ``latency`` >= 1, default 1). ``latency`` defaults to 0 (combinational)
    for the other units.

    The format's descriptor picks the gateware (:data:`SCALAR_GATEWARE`: ``Encoder``/``Decoder`` for
    sign/exponent/mantissa formats, ``HiF8Encoder``/``HiF8Decoder`` for tapered ones); ``rounding`` defaults to
    the format's first mode. A run-time-bias format (CFloat8, SHP) gets a ``bias`` input port.
    ``ieee_denormals``, ``paper_literal`` and ``compat="ascend"`` are sugar for the variants
    ``<format>_ieee``, ``hif8_literal`` and ``hif8_ascend`` (resolved here; the gateware takes the variant
    descriptor). ``rand_bits`` (default 16) and ``seed`` (default 0) apply to encoders with
    ``sr`` only: the width of the ``rand`` port, and the seed of a stream unit's generator (and of the
    draws a combinational unit's regression drives). ``compat="ascend"`` picks HiF8's Ascend-compatible
    descriptor (``hif8_ascend``; encoders and decoders of HiF8 only).

    Raises
    ------
    ValueError
        Unknown unit, format, source/target or rounding, latency/stages outside 0..MAX_LATENCY, a port
        wider than MAX_PORT_BITS, or an option the unit does not use (message names the valid choices).
    TypeError
        An option of the wrong type (a switch that is not a bool, a float latency, ...).
    """
    unit = _check_options(unit, saturate, nan_to_zero, latency, rand_bits, seed, paper_literal, ieee_denormals,
                          stages, raw, io_registers, rounding)
    if compat is not None and not isinstance(compat, str):
        raise FpforgeTypeError(f"compat must be a name (None, 'default' or 'ascend'), not {compat!r}")
    if latency is None:
        latency = 1 if unit == "scaled-encoder" else 0
    rand_bits = DEFAULT_RAND_BITS if rand_bits is None else rand_bits
    seed = 0 if seed is None else seed
    if unit == "dot":  # None: the unit's default (the cast saturates); False is a choice there
        saturate_given = saturate is not None
        if saturate == "runtime":
            raise FpforgeValueError("a dot unit's cast saturates or not at build time: saturate must be True or "
                                    "False, not 'runtime'")
        saturate = {None: True, "on": True, "off": False}.get(saturate, saturate)
    else:
        saturate = False if saturate is None else saturate
        saturate_given = saturate not in (False, "off")
    given = {k for k, v in dict(source=source, target=target, rounding=rounding, saturate=saturate_given,
                                nan_to_zero=nan_to_zero, latency=latency, paper_literal=paper_literal,
                                ieee_denormals=ieee_denormals, format_b=format_b, r=r, f=f, stages=stages,
                                raw=raw, io_registers=io_registers, lanes=lanes, scaling=scaling,
                                compat=None if compat == "default" else compat, scale=scale, amax=amax,
                                out_format=out_format).items() if v not in (None, False, 0)}
    uses = {"dot": {"format_b", "r", "f", "stages", "raw", "io_registers", "scale", "amax", "out_format"}
            | ({"rounding", "saturate"} if out_format is not None else set()),
            "encoder": {"source", "rounding", "saturate", "nan_to_zero", "latency", "paper_literal",
                        "ieee_denormals", "compat"},
            "decoder": {"target", "latency", "ieee_denormals", "compat"},
            "block-encoder": {"source", "rounding", "latency"},
            "block-decoder": {"target", "latency"},
            "scaled-encoder": {"source", "rounding", "saturate", "nan_to_zero", "latency", "paper_literal",
                               "ieee_denormals", "lanes", "scaling", "compat"}}[unit]
    unused = sorted(given - uses)
    if unused:
        why = {"dot": " (its depth is stages; it rounds once to FP32, nearest even; rounding and saturate apply "
                      "to the cast of out_format)",
               "decoder": " (a decoder is exact)", "block-decoder": " (a decoder is exact)",
               "block-encoder": " (block units always saturate)"}.get(unit, "")
        raise FpforgeValueError(f"a{'n' if unit[0] in 'e' else ''} {unit} unit does not take {', '.join(unused)}"
                                f"{why}; its options: format, {', '.join(sorted(uses))}")
    source = "fp32" if source is None else source
    target = "fp32" if target is None else target
    if unit == "dot":
        cfg = DotConfig(format, r, f, format_b)
        for side, bits in zip("AB", cfg.operand_bits):
            _check_port_bits(f"operand {side} ({cfg.r} elements of {cfg.a.name if side == 'A' else cfg.b.name})",
                             bits)
        if isinstance(rounding, (tuple, list)):
            if len(rounding) != 1:
                raise FpforgeValueError(f"a dot unit's cast to out_format rounds with one mode, not "
                                        f"{','.join(rounding)}")
            rounding = rounding[0]
        unit = DotProduct(cfg, stages=stages, raw=raw, scale=scale, amax=amax, out_format=out_format,
                          out_rounding=rounding, saturate=saturate)
        if io_registers:
            if stages:
                raise FpforgeValueError("io_registers wraps the combinational unit: use stages=0 with it")
            return RegisteredIO(unit)
        return unit
    fmt = get_format(format)
    if fmt.name in SOURCES:
        raise FpforgeValueError(f"{fmt.name!r} is a source/target format: encoders convert from it (source=) and "
                                "decoders to it (target=); format takes a narrow format (see `fpforge formats`)")
    fmt = with_compat(fmt, compat)  # (one line for an unknown compat or a format without that variant)
    if unit == "scaled-encoder":
        return ScaledEncoder(fmt, source, 1 if lanes is None else lanes, scaling or "fp32", rounding, saturate,
                             nan_to_zero, rand_bits, ieee_denormals, paper_literal, latency, seed)
    block = isinstance(fmt, BlockFormatLike)
    if unit.startswith("block-") != block:
        kind = "block" if block else "scalar"
        valid = "block-encoder, block-decoder" if block else "encoder, decoder"
        raise FpforgeValueError(f"{fmt.name!r} is a {kind} format; its units are {valid}")
    if block:
        _check_port_bits(f"a block of {fmt.name}", max(fmt.block_bits, fmt.k1 * 32))
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


def check_unit(**cfg) -> None:
    """Raise what :func:`build_unit` raises for ``cfg``; a valid configuration is built and dropped (without
    Amaranth's "created but never used" warning)."""
    unit = build_unit(**cfg)
    for obj in (unit, getattr(unit, "core", None)):
        if obj is not None:
            obj._MustUse__silence = True


def default_name(component):
    if isinstance(component, RegisteredIO):
        return default_name(component.core) + "_io"
    if isinstance(component, DotProduct):
        return (f"fpforge_dot_{component.config.name}" + ("_raw" if component.raw else "") + component.epilogue.suffix()
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
    name = default_name(component) if name is None else name
    if not isinstance(name, str) or not name.isidentifier() or not name.isascii():
        raise FpforgeValueError(f"module name must be a Verilog identifier (letters, digits, '_', not starting "
                                f"with a digit), not {name!r}")
    body = verilog.convert(component, name=name, emit_src=False)
    header = (
        f"// Generated by fpforge {__version__}: {component.describe()}.\n"
        f"// Module {name}. Do not edit; regenerate with the fpforge command line.\n"
        + "".join(f"/* verilator lint_off {w} */\n" for w in LINT_WAIVERS)
    )
    footer = "".join(f"/* verilator lint_on {w} */\n" for w in LINT_WAIVERS)
    return header + body + footer
