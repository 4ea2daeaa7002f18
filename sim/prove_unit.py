"""What a proof simulates: a unit configuration, the Verilog that implements it (generated, a user's file,
or the synthesized gate-level netlist), its input domain and its conditions.

A configuration is a unit spec (:mod:`fpforge.hw.spec`) or the keyword dict of
:func:`fpforge.hw.generate.build_unit`; :func:`unit_config` is the one place that reads it: it makes the spec
and returns its keyword form (:attr:`ProofUnit.spec` keeps the spec; its hash is part of every record's
key). The prover handles the combinational scalar units: encoders (FP32/FP16/BF16 sources, every scalar
format) and decoders.
"""

from __future__ import annotations

import hashlib
import re
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from ..golden import ROUNDING_MODES, RUNTIME_BIASES, SOURCES, get_format
from ..golden.contract import ScalarFormat
from ..golden.errors import FpforgeTypeError, FpforgeValueError
from ..hw.spec import SPECS, DecoderSpec, EncoderSpec, UnitSpec, as_spec
from .harness import HarnessSpec, module_ports

__all__ = ["DEFAULT_BIASES", "PROVE_KINDS", "Condition", "ProofUnit", "ProveKind", "prove_kind", "check_port_map", "conditions_of", "domain_of", "port_map_wrapper", "unit_config",
           "unit_spec"]

#: Biases an encoder of a run-time-bias format is proved at when none are given (the issue's record).
DEFAULT_BIASES = (0, 7, 31, 63)


class ProveKind(NamedTuple):
    """What the prover does with the units of one spec class (:data:`PROVE_KINDS`)."""

    #: True: the input port takes a source float word (``cfg["source"]``), the golden model encodes it
    #: (``encode_with_flags``: outputs y and flags) under each rounding x saturate condition; False: it takes a
    #: code of the format and the golden model decodes it (``decode_bits`` to ``cfg["target"]``: output y).
    encodes: bool
    #: Biases a run-time-bias format is proved at when none are given.
    default_biases: tuple

    def input_bits(self, cfg) -> int:
        """Bits of the input word of the unit ``cfg`` (its keyword form, :func:`unit_config`)."""
        return SOURCES[cfg["source"]].bits if self.encodes else get_format(cfg["format"]).bits

    def describe(self, cfg) -> str:
        if not self.encodes:
            return f"decoder {cfg['format']} -> {cfg['target']}"
        return (f"encoder {cfg['source']} -> {cfg['format']}, rounding {','.join(cfg['rounding'])}, saturate "
                f"{cfg['saturate']}")


#: The units the prover handles, by spec class: scalar encoders and decoders.
PROVE_KINDS = {EncoderSpec: ProveKind(True, DEFAULT_BIASES), DecoderSpec: ProveKind(False, tuple(RUNTIME_BIASES))}


def _spec_class(cfg):
    """The spec class of ``cfg``: a spec's own, or the one its keyword/JSON form names (``SPECS``)."""
    if isinstance(cfg, UnitSpec):
        return type(cfg)
    return SPECS.get(cfg.get("unit")) if isinstance(cfg, dict) else None


def prove_kind(cfg) -> ProveKind:
    """The prover's facts of ``cfg``'s spec class (a spec, or its keyword/JSON form).

    Raises
    ------
    FpforgeValueError
        Not a scalar encoder or decoder.
    """
    kind = PROVE_KINDS.get(_spec_class(cfg))
    if kind is None:
        unit = cfg.unit if isinstance(cfg, UnitSpec) else cfg.get("unit") if isinstance(cfg, dict) else None
        raise FpforgeValueError(f"fpforge prove handles scalar encoder and decoder units, not {unit!r}")
    return kind


class Condition(NamedTuple):
    """What holds during one proof: the rounding ``mode`` and saturation ``sat`` (0/1) of an encoder —
    driven on its ``mode``/``sat`` ports where it has them, else the unit's fixed choice — and the
    ``bias`` of a run-time-bias format. None: not applicable (decoders have no mode or sat)."""

    mode: str | None = None
    sat: int | None = None
    bias: int | None = None

    def label(self) -> str:
        parts = [] if self.mode is None else [self.mode]
        if self.sat is not None:
            parts.append(f"sat={self.sat}")
        if self.bias is not None:
            parts.append(f"bias={self.bias}")
        return " ".join(parts) or "all codes"

    def port_value(self, port: str) -> int:
        """Value driven on the unit's ``mode``, ``sat`` or ``bias`` port."""
        if port == "mode" and self.mode is not None:
            return ROUNDING_MODES[self.mode]
        value = {"sat": self.sat, "bias": self.bias}.get(port)
        if value is None:
            raise FpforgeValueError(f"the condition {self.label()!r} sets no value for port {port!r}")
        return value


def unit_spec(cfg):
    """The spec of ``cfg`` (a spec or ``build_unit`` keywords), checked for what the prover handles.

    Raises
    ------
    FpforgeValueError
        Not a combinational scalar encoder or decoder.
    """
    prove_kind(cfg)
    if not isinstance(cfg, UnitSpec) and isinstance(cfg.get("format"), str):
        _check_scalar(get_format(cfg["format"]))  # the prover's message before the spec's
    spec = as_spec(cfg)
    if spec.latency:
        raise FpforgeValueError(f"fpforge prove checks combinational units (latency 0), not latency "
                                f"{spec.latency!r}; a pipeline's core is the combinational unit")
    _check_scalar(spec.descriptor)
    return spec


def _check_scalar(fmt):
    if not isinstance(fmt, ScalarFormat) or fmt.name in SOURCES:  # a block format, or a source
        raise FpforgeValueError(f"fpforge prove handles scalar narrow formats, not {fmt.name!r}")


def unit_config(cfg) -> dict:
    """The configuration ``cfg`` (a spec or keywords of ``build_unit``) in its keyword form with its defaults
    (the spec's :meth:`~fpforge.hw.spec.UnitSpec.as_options`; ``saturate`` spelled ``off``/``on``/``runtime``),
    checked for what the prover handles (:func:`unit_spec`)."""
    cfg = unit_spec(cfg).as_options()
    if prove_kind(cfg).encodes:
        cfg["saturate"] = {False: "off", True: "on"}.get(cfg["saturate"], cfg["saturate"])
    return cfg


def domain_of(cfg) -> int:
    """Number of input patterns of the unit ``cfg``: 2**(source bits) for an encoder, 2**(code bits) for a
    decoder."""
    cfg = unit_config(cfg)
    return 1 << prove_kind(cfg).input_bits(cfg)


def conditions_of(cfg, biases=None) -> list:
    """Every (mode, sat) pair of an encoder, for each bias of a run-time-bias format (``biases``; default
    :data:`DEFAULT_BIASES` for encoders, all 64 for decoders).

    Raises
    ------
    FpforgeValueError
        Biases outside 0..63, or biases for a fixed-bias format.
    """
    cfg = unit_config(cfg)
    kind = prove_kind(cfg)
    fmt = get_format(cfg["format"])
    runtime = getattr(fmt, "runtime_bias", False)
    if biases is not None:
        biases = tuple(biases)
        if not runtime:
            raise FpforgeValueError(f"--bias applies to run-time-bias formats, not {fmt.name!r}")
        bad = [b for b in biases if isinstance(b, bool) or not isinstance(b, int) or b not in RUNTIME_BIASES]
        if bad or not biases:
            raise FpforgeValueError(f"biases must be integers in 0..63, not {bad[0] if bad else 'none'!r}")
    elif runtime:
        biases = kind.default_biases
    bias_list = biases if runtime else (None,)
    if not kind.encodes:
        return [Condition(bias=b) for b in bias_list]
    sat = cfg["saturate"]
    sats = (0, 1) if sat == "runtime" else ((1,) if sat == "on" else (0,))
    return [Condition(mode, s, b) for b in bias_list for mode in cfg["rounding"] for s in sats]


def _modules(text: str) -> list:
    text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
    return re.findall(r"\bmodule\s+(\\\S+|[A-Za-z_][\w$]*)", text)


class ProofUnit:
    """A unit configuration and the Verilog that is proved against the golden model.

    Build one with :meth:`generated`, :meth:`from_file` or :meth:`netlist`.

    Members
    -------
    spec : UnitSpec
        The unit's spec (:func:`unit_spec`).
    cfg : dict
        Its keyword form (:func:`unit_config`).
    top : str
        Module name of the unit.
    origin : str
        ``generated``, ``file NAME`` or ``netlist (LIBERTY)``.
    sources : tuple of str
        The Verilog texts simulated (the unit; for a netlist also the cell models).
    ports : dict
        ``{name: (direction, width)}`` of the unit, in port order.
    """

    #: With a port map (:meth:`from_file` ``ports``): lines saying which port goes where and which of
    #: fpforge's ports are not driven or not checked; empty otherwise.
    port_notes: tuple = ()

    @property
    def module(self) -> str:
        """The module proved: :attr:`top`, or the user's module inside the port-map wrapper."""
        return self.__dict__.get("module", self.top)

    @module.setter
    def module(self, name):
        self.__dict__["module"] = name

    def __init__(self, cfg, sources, top, origin, ports):
        self.spec = unit_spec(cfg)
        self.cfg = unit_config(self.spec)
        self.sources, self.top, self.origin, self.ports = tuple(sources), top, origin, dict(ports)

    @staticmethod
    def _reference(cfg, name=None):
        from ..hw.generate import build_unit, default_name, to_verilog
        from .ports import ports_of

        spec = unit_spec(cfg)
        unit = build_unit(spec)
        name = name or default_name(unit)
        return spec, name, to_verilog(unit, name), ports_of(unit)

    @classmethod
    def generated(cls, cfg, name=None):
        """The Verilog fpforge generates for ``cfg`` (module ``name``, default the usual one)."""
        cfg, name, verilog, ports = cls._reference(cfg, name)
        return cls(cfg, (verilog,), name, "generated", ports)

    @classmethod
    def from_file(cls, cfg, path, name=None, ports=None):
        """A user's Verilog file implementing ``cfg`` with the same ports as fpforge's unit, or, with
        ``ports``, with its own port names (see :func:`port_map_wrapper`).

        The module is ``name``, else the generated unit's name, else the file's only module. ``ports``: a
        mapping ``{fpforge's port: the module's port}`` (``{}``: the same names); with it, a port of
        fpforge's unit the module lacks is not driven (an input) or not checked (an output), see
        :attr:`port_notes`; ``a`` and one output must be there.

        Raises
        ------
        FpforgeValueError
            The file cannot be read, has no such module, or its ports differ (the message lists every
            missing, unexpected and mismatched port).
        ToolError
            Verilator cannot elaborate the module.
        """
        if ports is not None and not (isinstance(ports, dict) and all(isinstance(k, str) and isinstance(v, str)
                                                                      for k, v in ports.items())):
            raise FpforgeTypeError(f"ports must be a dict {{fpforge's port: the design's port}} of names (str), "
                                   f"not {ports!r}")
        cfg, default, _, expected = cls._reference(cfg)
        try:
            text = Path(path).read_text(errors="replace")
        except OSError as e:
            raise FpforgeValueError(f"cannot read Verilog file {str(path)!r}: {e.strerror or e}") from None
        found = _modules(text)
        top = name or (default if default in found else found[0] if len(found) == 1 else None)
        if top is None or top not in found:
            want = name or default
            raise FpforgeValueError(f"{Path(path).name} defines no module {want!r} (it defines "
                                    f"{', '.join(found) or 'no module'}); name the unit's module with --top")
        actual = module_ports([text], top)
        if ports is not None:
            wrapper, top_w, checked, notes = port_map_wrapper(top, actual, expected, ports, taken=found)
            unit = cls(cfg, (text, wrapper), top_w, f"file {Path(path).name}, module {top} through a port map",
                       checked)
            unit.port_notes, unit.module = notes, top
            return unit
        _check_ports(f"{Path(path).name}: module {top}", actual, expected)
        return cls(cfg, (text,), top, f"file {Path(path).name}", expected)

    @classmethod
    def netlist(cls, cfg, liberty=None, name=None):
        """The gate-level netlist of the generated unit after synthesis onto ``liberty`` (default
        ``fpforge45.lib``), with cell models generated from the library's functions."""
        from ..synth import synthesize
        from ..synth.cells import cell_models

        cfg, name, verilog, ports = cls._reference(cfg, name)
        report = synthesize(verilog, name, liberty=liberty, netlist=True)
        models = cell_models(liberty, report["cells"])
        unit = cls(cfg, (report["netlist_verilog"], models), name,
                   f"netlist ({report['liberty']}, {report['cell_count']} cells, {report['ge']} GE)", ports)
        _check_ports(f"netlist of {name}", module_ports(unit.sources, name), ports)
        return unit

    # -- derived facts ----------------------------------------------------------------------------------
    @property
    def format(self):
        return get_format(self.cfg["format"])

    @property
    def a_bits(self) -> int:
        return self.ports["a"][1]

    @property
    def domain(self) -> int:
        """Number of input patterns: 2**(width of ``a``)."""
        return 1 << self.a_bits

    @cached_property
    def verilog_hash(self) -> str:
        """SHA-256 (first 12 hex digits) of the Verilog proved (the netlist and its cell models for
        ``--netlist``)."""
        return hashlib.sha256("\0".join(self.sources).encode()).hexdigest()[:12]

    @cached_property
    def harness_spec(self) -> HarnessSpec:
        return HarnessSpec(self.sources, self.top, tuple((n, d, w) for n, (d, w) in self.ports.items()))

    @property
    def golden_cfg(self) -> dict:
        """The configuration as JSON-able plain values (what the golden side of a chunk reads)."""
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in sorted(self.cfg.items())}

    def conditions(self, biases=None) -> list:
        """The unit's conditions (:func:`conditions_of`)."""
        return conditions_of(self.cfg, biases)

    def describe(self) -> str:
        return prove_kind(self.cfg).describe(self.cfg)


def _check_ports(what, actual, expected):
    problems = []
    for name, (d, w) in expected.items():
        if name not in actual:
            problems.append(f"missing {'input' if d == 'in' else 'output'} {name} ({w} bit{'s' * (w != 1)})")
        elif actual[name] != (d, w):
            ad, aw = actual[name]
            problems.append(f"{name} is {'an input' if ad == 'in' else 'an output'} of {aw} bits, expected "
                            f"{'an input' if d == 'in' else 'an output'} of {w}")
    problems += [f"unexpected port {n} ({'input' if d == 'in' else 'output'}, {w} bit{'s' * (w != 1)})"
                 for n, (d, w) in actual.items() if n not in expected]
    if problems:
        raise FpforgeValueError(f"{what} does not have the unit's ports: {'; '.join(problems)}")


def _kind(d, w):
    return f"{'input' if d == 'in' else 'output' if d == 'out' else d} of {w} bit{'s' * (w != 1)}"


def port_map_wrapper(top, actual, expected, ports, taken=()):
    """A module with fpforge's port names around module ``top`` of a user's design, for the prover.

    ``actual``: ``{port: (direction, width)}`` of ``top``; ``expected``: the same of fpforge's unit;
    ``ports``: ``{fpforge's port: top's port}`` (a port not named maps to the port of the same name, if
    ``top`` has one). A port of fpforge's unit that ``top`` lacks is not driven (an input: the harness still
    sets it, the design never sees it) or not checked (an output: left out of the comparison); ``a`` and at
    least one output must be there. An output of ``top`` that nothing maps to is left unconnected.

    Returns ``(wrapper Verilog, wrapper module name, {port: (direction, width)} checked by the prover,
    lines describing the map)``.

    Raises
    ------
    FpforgeTypeError
        ``ports`` is not a mapping of port names to port names.
    FpforgeValueError
        The map names a port fpforge's unit or ``top`` does not have, names one of ``top``'s ports twice,
        connects ports of different widths or directions, leaves ``a`` or every output unmapped, or leaves an
        input of ``top`` undriven.
    """
    from .lanes import verilog_port

    mapped = check_port_map(top, actual, expected, ports)
    wrapper = f"{top}__fpforge_ports"
    while wrapper in taken:
        wrapper += "_"
    checked = {u: dw for u, dw in expected.items() if u in mapped or dw[0] == "in"}
    decl = [f"  {'input' if d == 'in' else 'output'} [{w - 1}:0] {verilog_port(u)};" for u, (d, w) in checked.items()]
    conn = [f".{verilog_port(v)}({verilog_port(u)})" for u, v in mapped.items()]
    conn += [f".{verilog_port(v)}()" for v, (d, _) in actual.items() if d == "out" and v not in mapped.values()]
    text = (f"// fpforge prove: fpforge's ports around module {top} (fpforge.sim.prove_unit.port_map_wrapper).\n"
            f"module {wrapper} ({', '.join(verilog_port(u) for u in checked)});\n" + "\n".join(decl) + "\n"
            f"  {top} u ({', '.join(conn)});\nendmodule\n")
    return text, wrapper, checked, port_map_notes(top, actual, expected, mapped)


def port_map_notes(top, actual, expected, mapped) -> tuple:
    """What a checked port map means, as lines: the ports mapped, fpforge's inputs not driven and outputs not
    checked (``top`` lacks them), and ``top``'s outputs no port of fpforge's unit maps to."""
    notes = ["ports: " + ", ".join(f"{u}={v}" for u, v in mapped.items())]
    missing_in = [u for u, (d, _) in expected.items() if d == "in" and u not in mapped]
    missing_out = [u for u, (d, _) in expected.items() if d == "out" and u not in mapped]
    if missing_in:
        notes.append(f"not driven ({top} has no such port): {', '.join(missing_in)}")
    if missing_out:
        notes.append(f"not checked ({top} has no such port): {', '.join(missing_out)}")
    unused = [v for v, (d, _) in actual.items() if d == "out" and v not in mapped.values()]
    if unused:
        notes.append(f"outputs of {top} not compared (no port of fpforge's unit maps to them): {', '.join(unused)}")
    return tuple(notes)


def check_port_map(top, actual, expected, ports, what="module") -> dict:
    """The checks of :func:`port_map_wrapper` (also the ones of ``fpforge sim --ports``): ``{fpforge's port:
    top's port}`` for every port of ``expected`` that ``top`` has, or one clear error (see there); ``what``:
    ``module`` or ``entity`` (VHDL), for the messages."""
    if not isinstance(ports, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in ports.items()):
        raise FpforgeTypeError(f"ports must be a dict {{fpforge's port: the design's port}} of names (str), not "
                               f"{ports!r}")
    theirs = ", ".join(f"{n} ({_kind(*dw)})" for n, dw in actual.items()) or "none"
    ours = ", ".join(f"{n} ({_kind(*dw)})" for n, dw in expected.items())
    for unit_port, user_port in ports.items():
        if unit_port not in expected:
            raise FpforgeValueError(f"port map {unit_port}={user_port}: fpforge's unit has no port {unit_port!r} "
                                    f"(its ports: {ours})")
        if user_port not in actual:
            raise FpforgeValueError(f"port map {unit_port}={user_port}: {what} {top} has no port {user_port!r} "
                                    f"(its ports: {theirs})")
    twice = next((v for i, v in enumerate(ports.values()) if v in list(ports.values())[:i]), None)
    if twice is not None:
        names = [k for k, v in ports.items() if v == twice]
        raise FpforgeValueError(f"port map: {' and '.join(names)} both map to {top}'s port {twice!r}; map each "
                                "port once")
    mapped = {u: ports.get(u, u) for u in expected}
    mapped = {u: v for u, v in mapped.items() if v in actual and (u in ports or v not in ports.values())}
    for u, v in mapped.items():
        (ed, ew), (ad, aw) = expected[u], actual[v]
        if (ed, ew) != (ad, aw):
            raise FpforgeValueError(f"port map {u}={v}: {top}'s {v} is an {_kind(ad, aw)}, fpforge's {u} is an "
                                    f"{_kind(ed, ew)}")
    undriven = [v for v, (d, _) in actual.items() if d != "out" and v not in mapped.values()]
    if undriven:
        raise FpforgeValueError(f"{what} {top} has input{'s' * (len(undriven) > 1)} {', '.join(undriven)} that "
                                f"no port of fpforge's unit drives (map them with --ports UNIT_PORT=USER_PORT; "
                                f"fpforge's ports: {ours})")
    if "a" not in mapped:
        raise FpforgeValueError(f"{what} {top} has no port for fpforge's input a ({_kind(*expected['a'])}); map "
                                f"it with --ports a=USER_PORT (its ports: {theirs})")
    if not any(expected[u][0] == "out" for u in mapped):
        outs = ", ".join(u for u, (d, _) in expected.items() if d == "out")
        raise FpforgeValueError(f"{what} {top} has no port for any output of fpforge's unit ({outs}); map one with "
                                f"--ports {outs.split(',')[0]}=USER_PORT (its ports: {theirs})")
    return mapped
