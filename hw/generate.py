"""Build units from their specs (:mod:`fpforge.hw.spec`, or command-line style options) and emit
deterministic Verilog."""

import re

from amaranth.back import verilog
from amaranth.lib import wiring

from ..golden.checks import describe
from ..golden.errors import FpforgeTypeError, FpforgeValueError
from ..golden.version import __version__
from .block import BlockDecoder, BlockEncoder
from .convert import Encoder
from .dot import DotProduct
from .hif8 import HiF8Encoder
from .names import format_label, module_suffix
from .pipeline import RegisteredIO
from .scaling import ScaledEncoder
from .spec import (
    MAX_LATENCY,
    MAX_PORT_BITS,
    UNITS,
    UnitSpec,
    spec_from_options,
)
from .units import SCALAR_GATEWARE, gateware_of

__all__ = ["LINT_WAIVERS", "MAX_LATENCY", "MAX_PORT_BITS", "UNITS", "VERILOG_KEYWORDS", "build_unit",
           "check_module_name", "default_name", "to_verilog"]

_ = (MAX_LATENCY, MAX_PORT_BITS, UNITS, SCALAR_GATEWARE)  # re-exported (from fpforge.hw.spec and .units)

#: Verilator -Wall style categories that yosys' Verilog writer (used by Amaranth) trips by design:
#: implicit width extension/truncation of operands, unused bits of intermediate wires, hierarchical
#: submodule names, initialised always-block regs and cases without default. They are switched off inside
#: the generated file only (and back on at its end); every other -Wall warning stays an error in the tests.
LINT_WAIVERS = ("WIDTHEXPAND", "WIDTHTRUNC", "UNUSEDSIGNAL", "DECLFILENAME", "PROCASSINIT", "CASEINCOMPLETE")


def build_unit(unit, **options):
    """Build the unit of a spec (:mod:`fpforge.hw.spec`): ``build_unit(EncoderSpec(format="e4m3"))``.

    ``build_unit(unit, format=..., **options)`` is sugar for ``build_unit(spec_from_options(unit, format=...,
    **options))`` (the keyword style: ``source``, ``target``, ``rounding``, ``saturate``, ``nan_to_zero``,
    ``latency``, ``rand_bits``, ``seed``, ``paper_literal``, ``ieee_denormals``, ``compat``, ``format_b``,
    ``r``, ``f``, ``stages``, ``raw``, ``io_registers``, ``lanes``, ``scaling``; see the spec classes).
    ``latency`` 0 is combinational, N >= 1 a stream pipeline; ``dot`` builds a :class:`DotProduct`,
    wrapped in :class:`RegisteredIO` with ``io_registers`` (the paper's area method); ``scaled-encoder`` a
    :class:`~fpforge.hw.scaling.ScaledEncoder`.

    The format's descriptor picks the gateware (:data:`fpforge.hw.units.SCALAR_GATEWARE`: ``Encoder``/``Decoder``
    for sign/exponent/mantissa formats, ``HiF8Encoder``/``HiF8Decoder`` for tapered ones). A run-time-bias format
    (CFloat8, SHP) gets a ``bias`` input port. ``ieee_denormals``, ``paper_literal`` and ``compat="ascend"`` are
    sugar for the variants ``<format>_ieee``, ``hif8_literal`` and ``hif8_ascend`` (resolved into the spec's
    format). ``rand_bits`` (default 16) and ``seed`` (default 0) apply to encoders with ``sr`` only: the width of
    the ``rand`` port, and the seed of a stream unit's generator (and of the draws a combinational unit's regression
    drives).

    Raises
    ------
    ValueError
        Unknown unit, format, source/target or rounding, latency/stages outside 0..MAX_LATENCY, a port
        wider than MAX_PORT_BITS, or an option the unit does not use (message names the valid choices).
    TypeError
        An option of the wrong type (a switch that is not a bool, a float latency, ...).
    """
    if isinstance(unit, UnitSpec):
        if options:
            raise FpforgeTypeError(f"build_unit takes a spec or a unit name with options, not both (got "
                                   f"{', '.join(sorted(options))} beside the spec)")
        spec = unit
    else:
        spec = spec_from_options(unit, **options)
    return gateware_of(spec)


#: Reserved words of Verilog-2005 and SystemVerilog (IEEE 1800-2017, Annex B): not module names, since a
#: tool reading the file as either language would fail on them.
VERILOG_KEYWORDS = frozenset("""
accept_on alias always always_comb always_ff always_latch and assert assign assume automatic before begin bind
bins binsof bit break buf bufif0 bufif1 byte case casex casez cell chandle checker class clocking cmos config
const constraint context continue cover covergroup coverpoint cross deassign default defparam design disable
dist do edge else end endcase endchecker endclass endclocking endconfig endfunction endgenerate endgroup
endinterface endmodule endpackage endprimitive endprogram endproperty endspecify endsequence endtable endtask
enum event eventually expect export extends extern final first_match for force foreach forever fork forkjoin
function generate genvar global highz0 highz1 if iff ifnone ignore_bins illegal_bins implements implies import
incdir include initial inout input inside instance int integer interconnect interface intersect join join_any
join_none large let liblist library local localparam logic longint macromodule matches medium modport module
nand negedge nettype new nexttime nmos nor noshowcancelled not notif0 notif1 null or output package packed
parameter pmos posedge primitive priority program property protected pull0 pull1 pulldown pullup
pulsestyle_ondetect pulsestyle_onevent pure rand randc randcase randsequence rcmos real realtime ref reg
reject_on release repeat restrict return rnmos rpmos rtran rtranif0 rtranif1 s_always s_eventually s_nexttime
s_until s_until_with scalared sequence shortint shortreal showcancelled signed small soft solve specify
specparam static string strong strong0 strong1 struct super supply0 supply1 sync_accept_on sync_reject_on
table tagged task this throughout time timeprecision timeunit tran tranif0 tranif1 tri tri0 tri1 triand trior
trireg type typedef union unique unique0 unsigned until until_with untyped use uwire var vectored virtual void
wait wait_order wand weak weak0 weak1 while wildcard wire with within wor xnor xor""".split())

_DECLARED = re.compile(r"^\s*(?:input|output|inout|wire|reg|integer)\s+(?:signed\s+)?(?:\[[^\]]*\]\s*)?"
                       r"(\\\S+|[A-Za-z_][A-Za-z0-9_$]*)", re.M)
_MODULE = re.compile(r"^module\s+(\\\S+|[A-Za-z_][A-Za-z0-9_$]*)", re.M)


def _unit_of(component, where):
    """``component`` if it is a unit fpforge builds (what :func:`build_unit` returns), else a one-line error."""
    if not isinstance(component, (wiring.Component, RegisteredIO)) or not callable(getattr(component, "describe",
                                                                                           None)):
        raise FpforgeTypeError(f"{where} takes a unit built by build_unit (e.g. {where}(build_unit('encoder', "
                               f"format='e4m3'))), not {describe(component)}")
    return component


def check_module_name(name) -> str:
    """``name`` if it can name a generated module: a Verilog identifier (ASCII letters, digits, ``_``, not
    starting with a digit) that is no Verilog/SystemVerilog keyword. (:func:`to_verilog` also refuses the
    name of a signal of the unit, which only the generated text knows.)"""
    if not isinstance(name, str) or not name.isidentifier() or not name.isascii():
        raise FpforgeValueError(f"module name must be a Verilog identifier (letters, digits, '_', not starting "
                                f"with a digit), not {describe(name)}")
    if name in VERILOG_KEYWORDS:
        raise FpforgeValueError(f"module name {name!r} is a Verilog/SystemVerilog keyword; choose another name")
    return name


def _check_name_unused(name, body):
    """A module name that is also a signal of the unit (a port such as ``a``/``rand``, or an internal wire)
    is hidden by it (Verilator's VARHIDDEN), and one equal to another module of the file redefines it."""
    signals = {n.lstrip("\\").rstrip() for n in _DECLARED.findall(body)}
    modules = [n.lstrip("\\").rstrip() for n in _MODULE.findall(body)]
    if name in signals:
        ports = re.search(r"^module\s+\S+\s*\(([^)]*)\)", body, re.M)
        listed = ", ".join(sorted(p.strip().lstrip("\\") for p in ports.group(1).split(","))) if ports else ""
        raise FpforgeValueError(f"module name {name!r} is also the name of a signal of the unit (its ports: {listed})"
                                "; the signal would hide the module (Verilator VARHIDDEN): choose another name")
    if modules.count(name) > 1 or name in modules[1:]:
        raise FpforgeValueError(f"module name {name!r} is the name of one of the unit's submodules; choose another "
                                "name")


def default_name(component):
    _unit_of(component, "default_name")
    if isinstance(component, RegisteredIO):
        return default_name(component.core) + "_io"
    if isinstance(component, DotProduct):
        return (f"fpforge_dot_{component.config.name}" + ("_raw" if component.raw else "")
                + ("_anch" if component.datapath == "anchored" else "") + component.epilogue.suffix()
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
    _unit_of(component, "to_verilog")
    name = default_name(component) if name is None else check_module_name(name)
    body = verilog.convert(component, name=name, emit_src=False)
    _check_name_unused(name, body)
    header = (
        f"// Generated by fpforge {__version__}: {component.describe()}.\n"
        f"// Module {name}. Do not edit; regenerate with the fpforge command line.\n"
        + "".join(f"/* verilator lint_off {w} */\n" for w in LINT_WAIVERS)
    )
    footer = "".join(f"/* verilator lint_on {w} */\n" for w in LINT_WAIVERS)
    return header + body + footer
