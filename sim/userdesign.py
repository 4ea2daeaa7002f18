"""``fpforge sim`` on a user's own design: a Verilog module or a VHDL entity that claims to compute what a
unit configuration computes, run through the same testbench, stimulus and golden comparison as fpforge's
generated unit (:func:`fpforge.sim.regress.regress_unit` with ``design=``).

A thin wrapper (Verilog or VHDL, written next to the build) gives the testbench fpforge's port names: the
lanes of a combinational unit (``a_l``, ``y_l``, ...) or the valid/ready stream with packed payloads of a
pipelined one. ``ports`` maps fpforge's names to the design's (:func:`fpforge.sim.prove_unit.check_port_map`,
the prover's checks): a port of fpforge's unit that the design lacks is not driven (an input) or not
checked (an output), and :attr:`UserDesign.notes` says so. A stream design's ports are ``clk``, ``rst``
(active high), ``i_valid``, ``i_ready``, ``o_valid``, ``o_ready`` and the payload fields as separate ports
(``a``, ``mode``, ``sat``, ``rand``, ``bias``, ``y``, ``flags``).

VHDL runs on GHDL (``ghdl`` on PATH, or the executable ``FPFORGE_GHDL`` names; VHDL-2008, ``-fsynopsys``);
its entity's ports are read from the source text (std_logic, std_ulogic, their vectors, unsigned, signed,
bit and bit_vector; ranges may use the entity's generics' defaults). Verilog runs on Verilator or Icarus; its
module's ports come from Verilator's elaboration.
"""

from __future__ import annotations

import ast
import operator
import os
import re
from pathlib import Path

from ..golden.errors import FpforgeTypeError, FpforgeValueError

__all__ = ["STREAM_CONTROL", "UserDesign", "check_design_run", "run_design", "vhdl_entities", "vhdl_ports"]

#: The control ports of a stream design (fpforge's names, for --ports) and the generated unit's names.
STREAM_CONTROL = {"clk": ("in", "clk"), "rst": ("in", "rst"), "i_valid": ("in", "i__valid"),
                  "i_ready": ("out", "i__ready"), "o_valid": ("out", "o__valid"), "o_ready": ("in", "o__ready")}

#: Units whose user designs fpforge sim checks (the ones with an input ``a``).
DESIGN_UNITS = ("encoder", "decoder", "block-encoder", "block-decoder")


# -- VHDL entities and ports ---------------------------------------------------------------------------
_VECTOR_TYPES = ("std_logic_vector", "std_ulogic_vector", "unsigned", "signed", "bit_vector")
_SCALAR_TYPES = ("std_logic", "std_ulogic", "bit")


def _vhdl_text(text: str) -> str:
    """VHDL without comments, lower case (identifiers are case-insensitive)."""
    return re.sub(r"--[^\n]*", " ", text).lower()


def vhdl_entities(texts) -> list:
    """Names (lower case) of the entities declared in the VHDL ``texts``."""
    return [m for t in texts for m in re.findall(r"\bentity\s+([a-z][\w]*)\s+is\b", _vhdl_text(t))]


def _balanced(text: str, start: int) -> str:
    """The text inside the parentheses opening at ``text[start]``."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1 : i]
    raise FpforgeValueError("unbalanced parentheses")


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
        ast.Div: operator.floordiv, ast.Pow: operator.pow}


def _eval(expr: str, generics: dict) -> int:
    """An integer range bound: literals, the entity's generics (their defaults) and + - * / **."""
    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name) and node.id in generics:
            return generics[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        raise FpforgeValueError(f"not an integer expression: {expr!r}")  # caught: the range is named

    return value(ast.parse(expr.strip().replace("**", "**"), mode="eval").body)


def _split(body: str) -> list:
    """``;``-separated declarations at parenthesis depth 0."""
    out, depth, cur = [], 0, ""
    for ch in body:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == ";" and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return [d.strip() for d in out + [cur] if d.strip()]


def vhdl_ports(texts, entity: str, file_name: str = "") -> dict:
    """``{port: (direction, width, base type)}`` of ``entity`` (lower case names) in the VHDL ``texts``.

    Raises
    ------
    FpforgeValueError
        No such entity, or a port whose type or range fpforge cannot drive (the message names it).
    """
    where = f"{file_name}: entity {entity}" if file_name else f"entity {entity}"
    for t in texts:
        text = _vhdl_text(t)
        m = re.search(rf"\bentity\s+{re.escape(entity)}\s+is\b", text)
        if m is None:
            continue
        end = re.search(r"\bend\b", text[m.end():])
        head = text[m.end(): m.end() + (end.start() if end else len(text))]
        generics = {}
        g = re.search(r"\bgeneric\s*\(", head)
        if g:
            for decl in _split(_balanced(head, g.end() - 1)):
                names, _, rest = decl.partition(":")
                default = rest.partition(":=")[2].strip()
                try:
                    val = _eval(default, generics) if default else None
                except (ValueError, SyntaxError):
                    val = None
                for n in names.split(","):
                    if val is not None:
                        generics[n.strip()] = val
        p = re.search(r"\bport\s*\(", head)
        if p is None:
            raise FpforgeValueError(f"{where} has no ports")
        ports = {}
        for decl in _split(_balanced(head, p.end() - 1)):
            names, _, rest = decl.partition(":")
            dm = re.match(r"\s*(in|out|inout|buffer)?\s+([a-z][\w.]*)\s*(.*)$", " " + rest.split(":=")[0], re.S)
            if dm is None:
                raise FpforgeValueError(f"{where}: cannot read the port declaration {decl.strip()!r}")
            direction, base, rng = dm.group(1) or "in", dm.group(2).split(".")[-1], dm.group(3).strip()
            if base in _SCALAR_TYPES and not rng:
                width = 1
            elif base in _VECTOR_TYPES and rng.startswith("("):
                rm = re.match(r"\((.*)\b(downto|to)\b(.*)\)$", rng, re.S)
                try:
                    width = abs(_eval(rm.group(1), generics) - _eval(rm.group(3), generics)) + 1
                except (AttributeError, ValueError, SyntaxError):
                    raise FpforgeValueError(f"{where}: the range of port {names.strip()} ({rng}) is not an integer "
                                            "range fpforge can read (literals, generics with defaults, + - *)") \
                        from None
            else:
                raise FpforgeValueError(f"{where}: port {names.strip()} has type {(base + ' ' + rng).strip()!r}; "
                                        f"fpforge connects {', '.join(_SCALAR_TYPES + _VECTOR_TYPES)} ports")
            for n in names.split(","):
                ports[n.strip()] = ({"in": "in", "out": "out", "buffer": "out"}.get(direction, "inout"), width, base)
        return ports
    raise FpforgeValueError(f"no entity {entity!r} in the VHDL files")


# -- the design ------------------------------------------------------------------------------------------
class UserDesign:
    """A user's design: its files, language and top, with an optional port map.

    Parameters
    ----------
    files : sequence of path
        The design's sources (all Verilog or all VHDL).
    language : str
        ``verilog`` or ``vhdl``.
    top : str, optional
        The module or entity to check (default: the files' only one).
    ports : dict, optional
        ``{fpforge's port: the design's port}``; ports not named keep their names.

    Raises
    ------
    FpforgeTypeError, FpforgeValueError
        Bad arguments, a missing file, no such module or entity.
    """

    def __init__(self, files, language, top=None, ports=None):
        if language not in ("verilog", "vhdl"):
            raise FpforgeValueError(f"language must be 'verilog' or 'vhdl', not {language!r}")
        if isinstance(files, (str, os.PathLike)):
            files = [files]
        files = list(files) if isinstance(files, (list, tuple)) else files
        if not isinstance(files, list) or not files or not all(isinstance(f, (str, os.PathLike)) for f in files):
            raise FpforgeTypeError(f"files must be a list of paths of the design's {language} sources, not {files!r}")
        if ports is not None and not (isinstance(ports, dict) and all(isinstance(k, str) and isinstance(v, str)
                                                                      for k, v in ports.items())):
            raise FpforgeTypeError(f"ports must be a dict {{fpforge's port: the design's port}} of names (str), "
                                   f"not {ports!r}")
        if top is not None and not isinstance(top, str):
            raise FpforgeTypeError(f"top must be the name (str) of the design's module or entity, not {top!r}")
        opt = f"--{language}"
        texts = []
        for f in files:
            if not Path(f).is_file():
                raise FpforgeValueError(f"{opt} {str(f)!r}: no such file")
            try:
                texts.append(Path(f).read_text(errors="replace"))
            except OSError as e:
                raise FpforgeValueError(f"{opt} {str(f)!r}: cannot read it: {e.strerror or e}") from None
        self.files = tuple(Path(f).resolve() for f in files)
        self.language, self.texts = language, tuple(texts)
        self.ports = None if ports is None else dict(ports)
        names = ", ".join(Path(f).name for f in files)
        if language == "vhdl":
            found = vhdl_entities(texts)
            what = "entity"
            if top is not None:
                top = top.lower()  # VHDL names are case-insensitive
            if self.ports is not None:
                self.ports = {k: v.lower() for k, v in self.ports.items()}
        else:
            from .prove_unit import _modules

            found = [m for t in texts for m in _modules(t)]
            what = "module"
        if top is None:
            if len(found) != 1:
                plural = {"entity": "entities", "module": "modules"}[what] if len(found) > 1 else what
                raise FpforgeValueError(f"{names} define{'s' * (len(files) == 1)} {len(found) or 'no'} {plural}"
                                        f"{' (' + ', '.join(found) + ')' if found else ''}; name the one to check "
                                        "with --top")
            top = found[0]
        if top not in found:
            raise FpforgeValueError(f"{names} define{'s' * (len(files) == 1)} no {what} {top!r} (it defines "
                                    f"{', '.join(found) or f'no {what}'}); name the design's {what} with --top")
        self.top, self.what, self.found = top, what, tuple(found)
        self.notes = ()

    def __repr__(self):
        return f"UserDesign({[str(f) for f in self.files]!r}, {self.language!r}, top={self.top!r})"

    def actual_ports(self) -> dict:
        """``{port: (direction, width)}`` of the design's top."""
        if self.language == "vhdl":
            return {n: (d, w) for n, (d, w, _) in self._vhdl_ports().items()}
        from .harness import module_ports

        return module_ports(list(self.texts), self.top)

    def _vhdl_ports(self):
        return vhdl_ports(self.texts, self.top, ", ".join(f.name for f in self.files))

    def _map(self, expected, stream):
        """The checked map ``{fpforge's port: design's port}`` and the notes describing it."""
        from .prove_unit import check_port_map, port_map_notes

        actual = self.actual_ports()
        mapped = check_port_map(self.top, actual, expected, self.ports or {}, what=self.what)
        if stream:
            need = [p for p in ("clk", "i_valid", "i_ready", "o_valid", "o_ready") if p not in mapped]
            if need:
                raise FpforgeValueError(f"{self.what} {self.top} has no port for fpforge's stream "
                                        f"port{'s' * (len(need) > 1)} {', '.join(need)} (a unit of latency >= 1 is a "
                                        f"valid/ready stream: clk, rst, i_valid, i_ready, o_valid, o_ready and the "
                                        f"payload fields); map them with --ports, e.g. --ports {need[0]}=USER_PORT")
        self.notes = port_map_notes(self.top, actual, expected, mapped)
        return actual, mapped

    # -- wrappers ---------------------------------------------------------------------------------------
    def comb(self, ports: dict, lanes: int):
        """For a combinational unit with ``ports`` (``{name: (direction, width)}``): ``(wrapper text, the top
        to give :func:`~fpforge.sim.run.run_case`, the ports the testbench drives and checks)``. Verilog: a
        port-map module (run_case adds the lanes); VHDL: ``lanes_<top>`` with ``lanes`` copies of the design."""
        actual, mapped = self._map(ports, stream=False)
        checked = {u: dw for u, dw in ports.items() if u in mapped or dw[0] == "in"}
        if self.language == "verilog":
            from .prove_unit import port_map_wrapper

            text, wrapper, _, _ = port_map_wrapper(self.top, actual, ports, self.ports or {}, taken=self.found)
            return text, wrapper, checked  # run_case adds the lanes
        return self._vhdl_comb(checked, mapped, lanes), self.top, checked

    def stream(self, fields_in, fields_out):
        """For a stream unit with payload layouts ``fields_in``/``fields_out`` (``(name, offset, width)``):
        ``(wrapper text, its top, the output fields checked, testbench names of the control ports)``."""
        expected = {p: (d, 1) for p, (d, _) in STREAM_CONTROL.items()}
        expected.update({n: ("in", w) for n, _, w in fields_in})
        expected.update({n: ("out", w) for n, _, w in fields_out})
        actual, mapped = self._map(expected, stream=True)
        w_in = sum(w for _, _, w in fields_in)
        w_out = sum(w for _, _, w in fields_out)
        checked_out = [f for f in fields_out if f[0] in mapped]
        if self.language == "verilog":
            return self._verilog_stream(actual, mapped, fields_in, fields_out, w_in, w_out), \
                f"{self.top}__fpforge_stream", checked_out, {}
        names = {gen: p.replace("__", "_") for p, (_, gen) in STREAM_CONTROL.items()}
        names.update({"i__payload": "i_payload", "o__payload": "o_payload"})
        return self._vhdl_stream(mapped, fields_in, fields_out, w_in, w_out), f"fpforge_stream_{self.top}", \
            checked_out, names

    def _verilog_stream(self, actual, mapped, fields_in, fields_out, w_in, w_out):
        from .lanes import verilog_port

        conn = []
        for u, v in mapped.items():
            if u in STREAM_CONTROL:
                conn.append(f".{verilog_port(v)}({STREAM_CONTROL[u][1]})")
        for n, off, w in fields_in:
            if n in mapped:
                conn.append(f".{verilog_port(mapped[n])}(i__payload[{off + w - 1}:{off}])")
        assigns = []
        for n, off, w in fields_out:
            if n in mapped:
                conn.append(f".{verilog_port(mapped[n])}(o__payload[{off + w - 1}:{off}])")
            else:
                assigns.append(f"  assign o__payload[{off + w - 1}:{off}] = {w}'d0;")
        conn += [f".{verilog_port(v)}()" for v, (d, _) in actual.items() if d == "out" and v not in mapped.values()]
        return (f"// fpforge sim: fpforge's stream ports around module {self.top} (fpforge.sim.userdesign).\n"
                f"module {self.top}__fpforge_stream(input clk, input rst, input i__valid, output i__ready, "
                f"input [{w_in - 1}:0] i__payload, output o__valid, input o__ready, output [{w_out - 1}:0] "
                f"o__payload);\n" + "".join(a + "\n" for a in assigns)
                + f"  {self.top} u ({', '.join(conn)});\nendmodule\n")

    def _vhdl_assoc(self, mapped, source):
        """Signal declarations, assignments and port associations connecting the design's ports to the
        std_logic_vector expressions ``source(fpforge's port)`` (one lane or the stream)."""
        types = self._vhdl_ports()
        decls, stmts, assoc = [], [], []
        for u, v in mapped.items():
            d, w, base = types[v]
            sig = f"s_{v}"
            decls.append(f"signal {sig} : {base}{f'({w - 1} downto 0)' if base in _VECTOR_TYPES else ''};")
            outer = source(u)  # a std_logic_vector of width w
            if d == "in":
                rhs = {"std_logic": f"{outer}(0)", "std_ulogic": f"{outer}(0)", "bit": f"to_bit({outer}(0))",
                       "bit_vector": f"to_bitvector({outer})"}.get(base, f"{base}({outer})")
                stmts.append(f"{sig} <= {rhs};")
            else:
                lhs = f"{outer}(0)" if base in _SCALAR_TYPES else outer
                rhs = {"bit": f"to_stdulogic({sig})", "bit_vector": f"to_stdlogicvector({sig})",
                       "std_logic": sig, "std_ulogic": sig}.get(base, f"std_logic_vector({sig})")
                stmts.append(f"{lhs} <= {rhs};")
            assoc.append(f"{v} => {sig}")
        assoc += [f"{v} => open" for v, (d, _, _) in types.items() if d == "out" and v not in mapped.values()]
        return decls, stmts, assoc

    _VHDL_HEAD = "library ieee;\nuse ieee.std_logic_1164.all;\nuse ieee.numeric_std.all;\n"

    def _vhdl_comb(self, checked, mapped, lanes):
        decls = [f"signal f_{u} : std_logic_vector({w - 1} downto 0);" for u, (_, w) in checked.items()]
        links = []
        for u, (d, w) in checked.items():
            sl = f"{u}_l((i + 1) * {w} - 1 downto i * {w})"
            links.append(f"f_{u} <= {sl};" if d == "in" else f"{sl} <= f_{u};")
        sdecl, stmts, assoc = self._vhdl_assoc(mapped, lambda u: f"f_{u}")
        ports = ";\n    ".join(f"{u}_l : {'in' if d == 'in' else 'out'} std_logic_vector({lanes * w - 1} downto 0)"
                               for u, (d, w) in checked.items())
        body = "\n      ".join(decls + sdecl)
        return (f"-- fpforge sim: {lanes} lanes of entity {self.top} with fpforge's port names "
                f"(fpforge.sim.userdesign).\n{self._VHDL_HEAD}entity lanes_{self.top} is\n  port (\n    {ports}\n  );\n"
                f"end entity;\n\narchitecture wrap of lanes_{self.top} is\nbegin\n"
                f"  lane : for i in 0 to {lanes - 1} generate\n      {body}\n  begin\n    "
                + "\n    ".join(links + stmts)
                + f"\n    u : entity work.{self.top} port map ({', '.join(assoc)});\n  end generate;\n"
                  "end architecture;\n")

    def _vhdl_stream(self, mapped, fields_in, fields_out, w_in, w_out):
        decls, links = [], []
        for p, (d, _) in STREAM_CONTROL.items():
            decls.append(f"signal f_{p} : std_logic_vector(0 downto 0);")
            links.append(f"f_{p}(0) <= {p};" if d == "in" else f"{p} <= f_{p}(0);")
        for n, off, w in fields_in:
            decls.append(f"signal f_{n} : std_logic_vector({w - 1} downto 0);")
            links.append(f"f_{n} <= i_payload({off + w - 1} downto {off});")
        for n, off, w in fields_out:
            decls.append(f"signal f_{n} : std_logic_vector({w - 1} downto 0);")
            if n not in mapped:
                links.append(f"f_{n} <= (others => '0');")
            links.append(f"o_payload({off + w - 1} downto {off}) <= f_{n};")
        sdecl, stmts, assoc = self._vhdl_assoc(mapped, lambda u: f"f_{u}")
        top = f"fpforge_stream_{self.top}"
        return (f"-- fpforge sim: fpforge's stream ports around entity {self.top} (fpforge.sim.userdesign).\n"
                f"{self._VHDL_HEAD}entity {top} is\n  port (\n    clk, rst, i_valid, o_ready : in std_logic;\n"
                f"    i_ready, o_valid : out std_logic;\n    i_payload : in std_logic_vector({w_in - 1} downto 0);\n"
                f"    o_payload : out std_logic_vector({w_out - 1} downto 0)\n  );\nend entity;\n\n"
                f"architecture wrap of {top} is\n  " + "\n  ".join(decls + sdecl) + "\nbegin\n  "
                + "\n  ".join(links + stmts)
                + f"\n  u : entity work.{self.top} port map ({', '.join(assoc)});\nend architecture;\n")


def check_design_run(cfg, sim, design, smoke=None) -> None:
    """What :func:`fpforge.sim.regress.regress_unit` checks before simulating ``design`` for ``cfg``."""
    from .run import SIMULATORS

    if not isinstance(design, UserDesign):
        raise FpforgeTypeError(f"design must be a fpforge.sim.userdesign.UserDesign, not {design!r}"[:300])
    if cfg["unit"] not in DESIGN_UNITS:
        raise FpforgeValueError(f"fpforge sim checks a user's design of an {', '.join(DESIGN_UNITS[:-1])} or "
                                f"{DESIGN_UNITS[-1]} unit, not {cfg['unit']!r} (valid: {', '.join(DESIGN_UNITS)})")
    if smoke is not None:
        raise FpforgeValueError("smoke applies to fpforge's generated encoders, not a user's design")
    if design.language == "vhdl" and sim != "ghdl":
        raise FpforgeValueError(f"a VHDL design runs on GHDL (--simulator ghdl), not {sim!r}: verilator and icarus "
                                "simulate Verilog")
    if design.language == "verilog" and sim not in SIMULATORS:
        raise FpforgeValueError(f"a Verilog design runs on {' or '.join(SIMULATORS)}, not {sim!r}"
                                + (": ghdl simulates VHDL (--vhdl FILE)" if sim == "ghdl" else ""))


def run_design(design, sim, unit, case, build_root, spec, *, lanes, seed, stall, stream_vectors, progress):
    """Simulate ``design`` on ``case`` (the stimulus and expectations of ``unit``, the generated unit of
    ``spec``) through its wrapper; a :class:`~fpforge.sim.run.Result` with the design's ``top`` and ``notes``."""
    import hashlib

    from .ports import ports_of, stream_layouts
    from .run import run_case

    key = hashlib.sha256("\0".join(str(f) for f in design.files).encode()).hexdigest()[:10]
    build_dir = build_root / f"design-{design.top}-{spec.key}-{key}"
    extra = dict(extra_sources=design.files, vhdl=design.language == "vhdl", seed=seed, labels=case.labels,
                 progress=progress)
    if spec.latency == 0:
        lanes = 1 if spec.unit.startswith("block-") else lanes
        text, top, checked = design.comb(ports_of(unit), lanes)
        case.expected = {k: v for k, v in case.expected.items() if k in checked}
        result = run_case(sim, text, top, checked, case, build_dir, kind="comb", lanes=lanes, **extra)
    else:
        if stream_vectors is not None and stream_vectors < case.size:
            case.inputs = {k: v[:stream_vectors] for k, v in case.inputs.items()}
            case.expected = {k: v[:stream_vectors] for k, v in case.expected.items()}
        pin, pout = stream_layouts(unit)
        text, top, checked_out, names = design.stream(pin, pout)
        case.expected = {k: v for k, v in case.expected.items() if k in {n for n, _, _ in checked_out}}
        result = run_case(sim, text, top, ports_of(unit.core), case, build_dir, kind="stream", latency=unit.latency,
                          payload_in=pin, payload_out=checked_out, stall=stall, names=names, **extra)
    result.top = design.top
    result.notes = design.notes
    return result
