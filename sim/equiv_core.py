"""The pieces of :func:`fpforge.sim.equiv.equiv` that the combinational check (:mod:`fpforge.sim.equiv`) and
the stream-unit check (:mod:`fpforge.sim.equiv_stream`) share: argument checks, yosys and ABC runs, the
constant-miter guard, reading a user's file, replaying a counterexample. See :mod:`fpforge.sim.equiv`."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..golden.errors import FpforgeTypeError, FpforgeValueError, ToolError, ToolMissing
from ..jobs.lifeline import popen_kwargs

__all__ = ["ENGINES", "DEFAULT_TIMEOUT", "SEQ_ENGINES", "EquivResult", "abc_binary", "equiv_spec"]

#: The units equiv compares.
EQUIV_UNITS = ("encoder", "decoder", "block-encoder", "block-decoder", "dot")
#: The ABC engines :func:`equiv` offers; the first is the default.
ENGINES = ("iprove", "cec", "dprove", "staged")
#: The sequential engines of a stream unit (``latency`` >= 1): :mod:`fpforge.sim.equiv_stream`.
SEQ_ENGINES = ("tempinduct", "dprove")
#: Seconds ABC may prove for before the result is ``unknown``.
DEFAULT_TIMEOUT = 120.0
#: Seconds each yosys run (reading, mapping, writing the miter) may take.
_YOSYS_TIMEOUT = 600.0

_IDENT = re.compile(r"[A-Za-z_][\w$]*")
#: yosys cells that hold state (after ``proc``): flip-flops, latches, memories.
_STATE = re.compile(r"^\$_?(\w*dff\w*|\w*DFF\w*|\w*dlatch\w*|\w*DLATCH\w*|\w*SR_\w*|sr|mem\w*)$")


@dataclass
class EquivResult:
    """What :func:`equiv` found.

    Members
    -------
    status : str
        ``proved``, ``counterexample`` or ``unknown``.
    engine : str
        The ABC engine that decided (``iprove``, ``cec``, ``dprove``).
    gold, gate : str
        What was compared: ``generated NAME`` and ``netlist (LIBERTY, N cells)`` or ``file NAME: module M``.
    inputs : dict
        A counterexample's input ports ``{port: value}`` (empty unless ``status == "counterexample"``).
    golden, gold_outputs, gate_outputs : dict
        The golden model's, the gold design's and the gate design's outputs on ``inputs``. ``golden`` is empty
        when the golden model has no value there (a ``mode`` port code the unit does not implement).
    miter_ands, miter_inputs : int
        AND gates and inputs of the miter ABC proved.
    seconds : float
        Wall time of the whole check.
    reason : str
        Why the result is ``unknown`` (a timeout, a constant miter, ABC's verdict); empty otherwise.
    cycles : list
        A stream unit's counterexample (``latency`` >= 1), cycle by cycle: ``rst``, ``i_valid``, the input
        fields and both designs' outputs (:mod:`fpforge.sim.equiv_stream`); empty otherwise.
    """

    status: str
    engine: str
    gold: str
    gate: str
    inputs: dict = field(default_factory=dict)
    golden: dict = field(default_factory=dict)
    gold_outputs: dict = field(default_factory=dict)
    gate_outputs: dict = field(default_factory=dict)
    ports: dict = field(default_factory=dict)
    miter_ands: int = 0
    miter_inputs: int = 0
    seconds: float = 0.0
    reason: str = ""
    cycles: list = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """The command line's exit status: 0 proved, 1 counterexample, 3 unknown."""
        return {"proved": 0, "counterexample": 1}.get(self.status, 3)

    def to_dict(self) -> dict:
        return asdict(self)


def abc_binary() -> str:
    """Path of ``yosys-abc``: the one in the pyosys wheel, else one on ``PATH``.

    Raises
    ------
    ToolMissing
        Neither is installed.
    """
    # found, not imported: importing pyosys sets this process' dlopen flags to RTLD_GLOBAL for every extension
    # loaded after it (pybind11 modules then share symbols: a flaky SystemError in the docs tests)
    spec = importlib.util.find_spec("pyosys")
    if spec is not None and spec.origin:
        exe = Path(spec.origin).parent / "yosys-abc"
        if exe.is_file():
            return str(exe)
    exe = shutil.which("yosys-abc")
    if exe is None:
        raise ToolMissing("fpforge equiv needs yosys-abc: pip install pyosys (make setup installs it), or put "
                          "yosys-abc on PATH")
    return exe


def equiv_spec(cfg):
    """The spec of ``cfg`` (a spec or ``build_unit`` keywords), checked for what equiv handles: scalar
    encoders and decoders, block encoders and decoders (combinational, or stream units of ``latency`` >= 1),
    dot-product units (combinational, or ``stages`` >= 1: a stream unit).

    Raises
    ------
    FpforgeValueError
        Another unit (``scaled-encoder``: a stream unit with no combinational core), a scalar unit of a block
        format, a stream unit with ``sr`` rounding (its random source), a dot unit with ``io_registers`` or a
        running ``amax`` (state that is not a pipeline of its combinational core).
    """
    from ..hw.spec import UnitSpec, as_spec
    from .prove_unit import unit_spec

    unit = cfg.unit if isinstance(cfg, UnitSpec) else cfg.get("unit") if isinstance(cfg, dict) else None
    if unit not in EQUIV_UNITS:
        why = (" (a stream unit whose amax and scale registers are no pipeline of a combinational core)"
               if unit == "scaled-encoder" else "")
        raise FpforgeValueError(f"fpforge equiv handles {', '.join(EQUIV_UNITS)} units, not {unit!r}{why}")
    if unit in ("encoder", "decoder") and isinstance(cfg, dict) and isinstance(cfg.get("format"), str):
        from ..golden import get_format
        from ..golden.contract import ScalarFormat

        fmt = get_format(cfg["format"])
        if not isinstance(fmt, ScalarFormat):
            raise FpforgeValueError(f"fpforge equiv handles scalar narrow formats, not {fmt.name!r} (a block "
                                    f"format: its units are block-encoder and block-decoder)")
    spec = as_spec(cfg)
    latency = seq_latency(spec)
    if spec.unit == "dot":
        if spec.io_registers:
            raise FpforgeValueError("io_registers wraps the combinational dot unit in registers for area reports; "
                                    "equiv compares the combinational unit: leave io_registers out")
        if spec.amax:
            raise FpforgeValueError("amax: the running amax is state, not a pipeline of the combinational unit; "
                                    "equiv checks dot units without amax")
        return spec
    if spec.unit.startswith("block-"):
        if latency and "sr" in (getattr(spec, "rounding", None) or ()):
            raise FpforgeValueError(f"latency {latency}: sequential equivalence of a stream unit with sr "
                                    "rounding (its random-number generator) is not available; equiv checks the "
                                    "combinational sr unit (latency 0)")
        return spec
    if latency:
        import dataclasses

        if "sr" in (getattr(spec, "rounding", None) or ()):
            raise FpforgeValueError(f"latency {latency}: sequential equivalence of a stream unit with sr "
                                    "rounding (its random-number generator) is not available; equiv checks the "
                                    "combinational sr unit (latency 0)")
        equiv_spec(dataclasses.replace(spec, latency=0))
        return spec
    try:
        return unit_spec(cfg)
    except FpforgeValueError as e:
        raise FpforgeValueError(str(e).replace("fpforge prove", "fpforge equiv")) from None


def seq_latency(spec) -> int:
    """Cycles from input to output of the unit ``spec`` (0: combinational): ``latency``, or a dot unit's
    ``stages`` (plus one register of an epilogue)."""
    if spec.unit == "dot":
        return spec.stages + (1 if spec.stages and (spec.scale or spec.out_format is not None) else 0)
    return getattr(spec, "latency", 0) or 0


def comb_spec(spec):
    """The combinational core of the unit ``spec``: latency 0 (stages 0 for a dot unit)."""
    import dataclasses

    return dataclasses.replace(spec, **({"stages": 0} if spec.unit == "dot" else {"latency": 0}))


def _check_args(netlist, against, liberty, top, engine, timeout, latency=0):

    valid = SEQ_ENGINES if latency else ENGINES
    if engine not in valid:
        if engine in ENGINES + SEQ_ENGINES:
            raise FpforgeValueError(f"engine {engine!r} proves {'combinational' if latency else 'stream'} units; "
                                    f"for {f'latency {latency}' if latency else 'a combinational unit'} valid: "
                                    f"{', '.join(valid)}")
        raise FpforgeValueError(f"unknown engine {engine!r}; valid: {', '.join(valid)}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise FpforgeTypeError(f"timeout must be a number of seconds > 0, not {timeout!r}")
    if not timeout > 0 or timeout == float("inf"):
        raise FpforgeValueError(f"timeout must be a finite number of seconds > 0, not {timeout!r}")
    if not isinstance(netlist, bool):
        raise FpforgeTypeError(f"netlist must be True or False, not {netlist!r}")
    if latency and netlist:
        raise FpforgeValueError(f"latency {latency}: sequential equivalence against the mapped netlist "
                                "(netlist=True) is not available; compare the stream unit with its core (no "
                                "design) or against=FILE")
    if not latency and netlist == (against is not None):
        raise FpforgeValueError("compare the unit with one design: netlist=True (its mapped netlist) or "
                                "against=FILE (a Verilog module with the same ports)")
    if against is not None and not isinstance(against, (str, Path)):
        raise FpforgeTypeError(f"against must be a path to a Verilog file, not {against!r}")
    if top is not None:
        if against is None:
            raise FpforgeValueError("top names the module of the against file; the netlist's module is the unit's")
        if not isinstance(top, str):
            raise FpforgeTypeError(f"top must be a Verilog module name (a str), not {top!r}")
        if not _IDENT.fullmatch(top):
            raise FpforgeValueError(f"top must be a Verilog module name, not {top!r}")
    if liberty is not None:
        from ..synth.liberty import check_liberty

        check_liberty(liberty)


def _yosys(work: Path, script: str, what: str, bad_input: bool = False):
    """Run ``script`` in ``work``; an error is one line (FpforgeValueError for the user's file)."""
    from ..synth.errors import SynthError
    from ..synth.yosys import last_error_line, one_line, run_script

    (work / "run.ys").write_text(script)
    try:
        proc, log = run_script(work, "run.ys", _YOSYS_TIMEOUT, f" {what}")
    except SynthError as e:  # a timeout, or no yosys
        raise ToolError(str(e)) from None
    if proc.returncode != 0:
        msg = one_line(last_error_line(log, proc.stderr, proc.stdout), work)
        if bad_input:
            raise FpforgeValueError(f"yosys cannot read {what}: {msg}")
        raise ToolError(f"yosys failed {what}: {msg}")
    return log


def _staged_script(gold_top: str) -> str:
    """The yosys script of the ``staged`` engine: from the gold RTL, the design ``x`` after the word-level
    passes of ``synth`` and the design ``y`` after its arithmetic extraction (``alumacc``), written as AIGER
    (``x.aig``, ``y.aig``); then ``x`` and ``y`` compared point by point at word level (``equiv_make``,
    ``equiv_simple``, ``equiv_status -assert``)."""
    from ..synth.flow import _COARSE_FRONT  # synth's own word-level passes, after its proc; flatten

    assert _COARSE_FRONT[:2] == ("proc", "flatten")  # not user input: synth.flow's own pass list
    prep = "; ".join(("proc", "flatten", "delete t:$scopeinfo", "memory", "setundef -zero", *_COARSE_FRONT[2:]))
    aig = "techmap; setundef -zero; opt_clean; aigmap"
    return (f"read_verilog -sv gold.v\nhierarchy -top {gold_top}\n{prep}\nrename {gold_top} gold\n"
            f"design -save x\n{aig}\nwrite_aiger -map x.map x.aig\n"
            "design -load x\ncopy gold gate\ncd gate\nalumacc\ncd\ndesign -save y\n"
            f"delete gold\n{aig}\nwrite_aiger -map y.map y.aig\n"
            "design -load y\nequiv_make gold gate equiv\nhierarchy -top equiv\nequiv_simple\n"
            "tee -o equiv_status.txt equiv_status\n")


def _staged(work: Path, gold_top: str, timeout: float):
    """Prove ``gold.aig`` equal to ``gate.aig`` in three steps (the ``staged`` engine): the gold RTL equal to
    ``x`` (ABC ``&cec``), ``x`` equal to ``y`` (yosys ``equiv_simple`` at word level: the adders and
    multipliers ``alumacc`` merges into ``$macc``/``$alu`` cells, whose reassociated bit-level trees defeat
    SAT sweeping), ``y`` equal to the gate (``&cec``: ABC's mapping keeps the structure). Returns
    (``proved`` | ``counterexample`` | None, why undecided). A step that finds a difference makes the whole
    check look for a counterexample on the miter; the AIGER maps are compared, so that ``&cec`` (which pairs
    inputs and outputs by position) never compares permuted ports."""
    from ..synth.errors import SynthError
    from ..synth.yosys import run_script

    t0 = time.perf_counter()
    (work / "staged.ys").write_text(_staged_script(gold_top))
    try:
        proc, log = run_script(work, "staged.ys", timeout, " proving the word-level step")
    except SynthError:
        return None, f"staged: yosys equiv_simple did not finish within {timeout:g} s"
    if proc.returncode != 0 or not (work / "equiv_status.txt").exists():
        raise ToolError("yosys failed in the staged engine's word-level step")
    for a in ("x", "y", "gate"):
        if not _same_port_order(work, "gold", a):
            return None, f"staged: the AIGER ports of gold and {a} are not in the same order"
    status = (work / "equiv_status.txt").read_text()
    m = re.search(r"Found (\d+) unproven \$equiv cells", status)
    if m and int(m.group(1)):
        return None, f"staged: yosys equiv_simple left {m.group(1)} word-level points unproven"
    if "Equivalence successfully proven" not in status:
        raise ToolError(f"the staged engine could not read yosys equiv_status: {status.strip()[-200:]!r}")
    for a, b in (("gold", "x"), ("y", "gate")):
        left = timeout - (time.perf_counter() - t0)
        out = _run_abc(work, f"&r {a}.aig; &cec {b}.aig", left) if left > 0 else None
        if out is None:
            return None, f"staged: ABC &cec ({a} against {b}) did not decide within {timeout:g} s"
        verdict = _verdict("cec", out)
        if verdict != "proved":
            return verdict, f"staged: ABC &cec found {a} and {b} different" if verdict else "staged: &cec undecided"
    return "proved", ""


def _port_lines(map_path: Path) -> set:
    """The ``input``/``output`` lines of a yosys AIGER map (position, bit, port). A constant output may have
    no line: the check is that every line of a design is one of the gold design's, so that ``&cec``, which
    pairs inputs and outputs by position, pairs the same port bits."""
    return {ln for ln in map_path.read_text().splitlines() if ln.startswith(("input ", "output "))}


def _cells_under(modules: dict, top: str) -> list:
    """The cells of module ``top`` and of every module it instantiates."""
    seen, todo, cells = set(), [top], []
    while todo:
        name = todo.pop()
        if name in seen or name not in modules:
            continue
        seen.add(name)
        for c in modules[name].get("cells", {}).values():
            cells.append(c)
            todo.append(c["type"])
    return cells


def _ports_of(module: dict) -> dict:
    return {n: ("in" if p["direction"] == "input" else "out" if p["direction"] == "output" else "inout",
                len(p["bits"])) for n, p in module.get("ports", {}).items()}


def _read_against(work: Path, path, top, liberty, sequential=False):
    """``(text of the gate sources, top module, undefined cell types)`` of the user's file, its module chosen
    and its ports still unchecked."""
    path = Path(path)
    if not path.is_file():
        raise FpforgeValueError(f"--against {str(path)!r}: no such file")
    try:
        text = path.read_text(errors="replace")
    except OSError as e:
        raise FpforgeValueError(f"cannot read {str(path)!r}: {e.strerror or e}") from None
    (work / "against.v").write_text(text)
    try:
        _yosys(work, "read_verilog -sv -noblackbox against.v\nproc\nwrite_json -noscopeinfo against.json\n", path.name,
               bad_input=True)
    except FpforgeValueError as e:
        raise FpforgeValueError(str(e).replace("against.v:", f"{path.name}:")) from None
    modules = json.loads((work / "against.json").read_text()).get("modules", {})
    modules = {n: m for n, m in modules.items() if not str(m.get("attributes", {}).get("blackbox", "0")).strip("0")}
    if not modules:
        raise FpforgeValueError(f"{path.name} defines no Verilog module")
    used = {c["type"] for m in modules.values() for c in m.get("cells", {}).values()}
    if top is None:
        candidates = [n for n in modules if n not in used]
        if len(candidates) != 1:
            raise FpforgeValueError(f"{path.name} has {len(candidates)} candidate top modules "
                                    f"({', '.join(candidates) or 'every module is instantiated by another'}); "
                                    "choose one with --top")
        top = candidates[0]
    elif top not in modules:
        raise FpforgeValueError(f"{path.name} defines no module {top!r}; valid: {', '.join(modules)}")
    state = sorted({f"{c['type']} in module {n}" for n, m in modules.items() for c in m.get("cells", {}).values()
                    if _STATE.match(c["type"])})
    under = [c["type"] for c in _cells_under(modules, top)]
    if sequential and not any(_STATE.match(t) or (t not in modules and not t.startswith("$")) for t in under):
        raise FpforgeValueError(f"{path.name}: module {top} has no register: it is combinational, not a stream "
                                f"unit of latency {sequential}; compare it without --latency")
    if state and not sequential:
        raise FpforgeValueError(f"{path.name} has registers or latches ({', '.join(state[:4])}); equiv checks "
                                "combinational designs here: for a stream unit give its --latency")
    undefined = sorted(t for t in used if not t.startswith("$") and t not in modules)
    return text, top, _ports_of(modules[top]), undefined



def _against_files(work: Path, against, top, liberty, expected, sequential=False):
    """``(gate files, top module, description)`` of the user's ``--against`` file in ``work``: its module chosen,
    its ports checked against ``expected``, and models of the library cells it uses (``liberty``) beside it."""
    _, gate_top, actual, undefined = _read_against(work, against, top, liberty, sequential=sequential)
    name = Path(against).name
    _check_ports(f"{name}: module {gate_top}", actual, expected)
    gate_files = ["against.v"]
    if liberty is not None and not undefined:
        raise FpforgeValueError(f"{name} instantiates no module it does not define; liberty "
                                "(--liberty) applies to a netlist of library cells")
    if undefined:
        if liberty is None:
            raise FpforgeValueError(f"{name} instantiates modules it does not define "
                                    f"({', '.join(undefined[:6])}{', ...' if len(undefined) > 6 else ''}); "
                                    "for a netlist of library cells give --liberty")
        (work / "cells.v").write_text(_cell_models(liberty, undefined, name))
        gate_files.append("cells.v")
    return gate_files, gate_top, f"file {name}: module {gate_top}"

def _check_ports(what, actual, expected):
    from .prove_unit import _check_ports as check

    expected = {n: ("in" if d == "in" else "out", w) for n, (d, w) in expected.items()}
    check(what, actual, expected)


def _cell_models(liberty, cells, what):
    from ..synth.cells import cell_models
    from ..synth.liberty import DEFAULT_LIBERTY, check_liberty

    path, lib = check_liberty(DEFAULT_LIBERTY if liberty is None else liberty)
    missing = [c for c in cells if c not in lib.cells]
    if missing:
        raise FpforgeValueError(f"{what} instantiates {', '.join(missing)}, which neither it nor "
                                f"{Path(path).name} defines")
    return cell_models(path, cells)


#: ``memory`` maps a unit's ROMs (the lookup-table decoders of P3109's unsigned formats and UHP) to logic:
#: the AIGER backend takes no memories.
_PREP = "proc; flatten; delete t:$scopeinfo; memory; techmap; setundef -zero; opt_clean; aigmap\n"


def _aig_script(gold_top, gate_top, gate_files):
    """The yosys script that maps both designs to AIGs: ``gold.aig`` and ``gate.aig`` with their port maps."""
    reads = " ".join(gate_files)
    return (f"read_verilog -sv gold.v\nhierarchy -top {gold_top}\nrename {gold_top} gold\n{_PREP}"
            f"write_aiger -map gold.map gold.aig\ndesign -reset\n"
            f"read_verilog -sv -noblackbox {reads}\nhierarchy -top {gate_top}\nrename {gate_top} gate\n{_PREP}"
            f"write_aiger -map gate.map gate.aig\n")


def _miter_script(gold_top, gate_top, gate_files):
    """The AIGs of :func:`_aig_script`, then yosys's ``miter -equiv`` of the two designs (ports paired by
    name), written as ``miter.aig``: the miter of two designs whose ports are not in the same order."""
    return (_aig_script(gold_top, gate_top, gate_files).replace("design -reset\n", "design -stash gold\n")
            + "design -stash gate\ndesign -copy-from gold -as gold gold\ndesign -copy-from gate -as gate gate\n"
            "miter -equiv -flatten gold gate miter\nhierarchy -top miter\n"
            "techmap; setundef -zero; opt_clean; aigmap\nwrite_aiger -map miter.map miter.aig\n")


def _same_port_order(work: Path, a: str, b: str) -> bool:
    """Whether ``b.aig`` has the inputs and outputs of ``a.aig`` at the same positions (their maps), so that
    tools that pair ports by position (ABC ``miter -n``, ``&cec``) pair the same port bits."""
    ref, lines = _port_lines(work / f"{a}.map"), _port_lines(work / f"{b}.map")
    a_in, _, a_outs = _aiger_header(work / f"{a}.aig")
    b_in, _, b_outs = _aiger_header(work / f"{b}.aig")
    return ((a_in, len(a_outs)) == (b_in, len(b_outs)) and lines <= ref
            and sum(ln.startswith("input") for ln in lines) == sum(ln.startswith("input") for ln in ref))


def _build_miter(work: Path, gold_top: str, gate_top: str, gate_files, what: str, bad_input: bool) -> Path:
    """Map both designs to AIGs (yosys) and build their miter ``miter.aig`` (one output, 1 where they differ);
    return the AIGER map of the miter's inputs. ABC's ``miter -n`` pairs the two AIGs' ports by position when
    their maps show the same order (seconds, where yosys's ``miter -equiv`` takes minutes on a netlist of
    20,000 cells); otherwise yosys pairs them by name. ABC hashes the two AIGs into one: designs of the same
    structure give a constant miter, which :func:`_trusted` would refuse, so yosys builds that one too."""
    _yosys(work, _aig_script(gold_top, gate_top, gate_files), what, bad_input=bad_input)
    if abc_miter(work, what):
        return work / "gold.map"
    _yosys(work, _miter_script(gold_top, gate_top, gate_files), what, bad_input=bad_input)
    return work / "miter.map"


def abc_miter(work: Path, what: str) -> bool:
    """Build ``miter.aig`` from ``gold.aig`` and ``gate.aig`` (with their maps) in ABC (``miter -n``: ports
    paired by position; latches kept, so a sequential miter for two stream designs) if the maps show the same
    port order; False (and no miter) if they do not, or if ABC's structural hashing folded the miter to a
    constant: the caller then has yosys build it (ports paired by name, no hashing)."""
    if not _same_port_order(work, "gold", "gate"):
        return False
    _run_abc(work, "miter -n gold.aig gate.aig; write_aiger miter.aig", _YOSYS_TIMEOUT)
    if not (work / "miter.aig").is_file():
        raise ToolError(f"internal error: ABC wrote no miter {what}")
    _, ands, outs = _aiger_header(work / "miter.aig")
    if ands and not set(outs) & {0, 1}:
        return True
    (work / "miter.aig").unlink()
    return False


def _aiger_header(path: Path):
    """``(inputs, ands, output literals)`` of a binary AIGER file (``aig M I L O A``)."""
    with open(path, "rb") as f:
        header = f.readline().split()
        if len(header) < 6 or header[0] != b"aig":
            raise ToolError(f"internal error: yosys wrote no AIGER miter ({b' '.join(header[:6]).decode()!r})")
        n_in, latches, n_out, ands = (int(x) for x in header[2:6])
        for _ in range(latches):
            f.readline()
        outputs = [int(f.readline().split()[0]) for _ in range(n_out)]
    return n_in, ands, outputs


def _trusted(n_in, ands, outputs, want_bits):
    """None if the miter (``n_in`` inputs, ``ands`` AND gates, its output literals) can be proved, else why
    not: a constant output (yosys folded the miter), no AND gate, or not every input bit of the unit."""
    if len(outputs) != 1:
        return f"the miter has {len(outputs)} outputs, not 1: not trusted as a proof"
    if outputs[0] in (0, 1):
        return f"the miter is constant ({outputs[0]}) with {ands} AND gates: not trusted as a proof"
    if ands == 0:
        return "the miter has no AND gate: not trusted as a proof"
    if n_in != want_bits:
        return (f"the miter has {n_in} input bits, the unit {want_bits} (an undriven wire of a design is a free "
                "input): not trusted as a proof")
    return None


def _input_bits(map_path: Path) -> list:
    """``[(port, bit)]`` of the AIGER inputs, in order (from ``write_aiger -map``)."""
    bits = {}
    for line in map_path.read_text().splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == "input":
            bits[int(parts[1])] = (parts[3].lstrip("\\"), int(parts[2]))
    return [bits[k] for k in sorted(bits)]


def _run_abc(work: Path, commands: str, timeout: float):
    """ABC's output, or None after ``timeout`` seconds."""
    try:
        proc = subprocess.run([abc_binary(), "-c", commands], cwd=work, capture_output=True, text=True,
                              errors="replace", timeout=timeout, check=False, **popen_kwargs())
    except subprocess.TimeoutExpired:
        return None
    except OSError as e:
        raise ToolError(f"could not start yosys-abc: {e.strerror or e}") from None
    if proc.returncode != 0:
        last = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()]
        raise ToolError(f"yosys-abc failed: {last[-1] if last else f'exit status {proc.returncode}'}")
    return proc.stdout


_CEX_RE = re.compile(r"^pi(\d+)(?:@\d+)?=([01])\s*$", re.M)


def _verdict(engine, out):
    """``proved``, ``counterexample`` or None (undecided) from ABC's output."""
    if engine == "cec":
        if "Networks are equivalent" in out:
            return "proved"
        if "Networks are NOT EQUIVALENT" in out:
            return "counterexample"
        return None
    if re.search(r"^UNSATISFIABLE", out, re.M):
        return "proved"
    if re.search(r"^SATISFIABLE", out, re.M):
        return "counterexample"
    return None


def _eval(work: Path, inputs: dict, outputs, widths) -> tuple[dict, dict]:
    """The gold and gate designs' ``outputs`` on ``inputs`` (yosys ``eval`` of the stashed designs)."""
    sets = " ".join(f"-set {p} {widths[p]}'b{v:0{widths[p]}b}" for p, v in inputs.items())
    shows = " ".join(f"-show {p}" for p in outputs)
    script = "".join(f"design -load {d}\neval {sets} {shows}\n" for d in ("gold_eval", "gate_eval"))
    (work / "eval.ys").write_text(script)
    log = _yosys(work, (work / "prep_eval.ys").read_text() + script, "evaluating the counterexample")
    values = re.findall(r"Eval result: \\(\S+) = (\S+?)\.?$", log, re.M)
    half = len(values) // 2
    if half != len(outputs) or len(values) != 2 * half:
        raise ToolError("internal error: yosys eval did not print every output of the counterexample")

    def parse(vals):  # yosys prints N'bits, or a 32-bit value as a (signed) decimal
        out = {}
        for name, text in vals:
            m = re.fullmatch(r"\d+'([01xz]+)", text)
            value = int(m.group(1).replace("x", "0").replace("z", "0"), 2) if m else int(text)
            out[name] = value & ((1 << widths[name]) - 1)
        return out

    return parse(values[:half]), parse(values[half:])


def _golden(cfg, ports, inputs, *, decoder=False) -> dict:
    """The golden model's outputs on ``inputs`` of the scalar encoder (``decoder``: decoder) ``cfg`` (empty where
    it has none: an unused ``mode`` code)."""
    import numpy as np

    from ..golden import DEFAULT_RAND_BITS, ROUNDING_MODES, SOURCES, decode_bits, encode_with_flags
    from .cases import unit_format

    fmt = unit_format(cfg)
    kwargs = {}
    if "bias" in inputs:
        kwargs["bias"] = inputs["bias"]
    if decoder:
        word = np.array([inputs["a"]], np.uint32 if fmt.bits > 16 else np.uint16)
        return {"y": int(decode_bits(fmt, word, cfg.get("target", "fp32"), **kwargs)[0])}
    if "mode" in inputs:
        names = {v: k for k, v in ROUNDING_MODES.items()}
        mode = names.get(inputs["mode"])
        if mode not in cfg["rounding"]:
            return {}
    else:
        mode = cfg["rounding"][0]
    sat = inputs["sat"] if "sat" in inputs else int(cfg["saturate"] == "on")
    src = SOURCES[cfg.get("source", "fp32")]
    word = np.array([inputs["a"]], np.uint32 if src.bits == 32 else np.uint16)
    rand = np.array([inputs["rand"]], np.uint32) if mode == "sr" else None
    y, flags = encode_with_flags(fmt, word.view(src.dtype), rounding=mode, saturate=bool(sat), rand=rand,
                                 nan_to_zero=bool(cfg.get("nan_to_zero")),
                                 rand_bits=cfg.get("rand_bits", DEFAULT_RAND_BITS), **kwargs)
    return {"y": int(y[0]), "flags": int(flags[0])}


def _counterexample(path: Path, bits, expected) -> dict:
    """``{port: value}`` of ABC's counterexample file (``write_cex -n``)."""
    if not path.is_file():
        raise ToolError("internal error: ABC found a counterexample but wrote none")
    values = {int(k): int(v) for k, v in _CEX_RE.findall(path.read_text())}
    if len(values) != len(bits):
        raise ToolError(f"internal error: ABC's counterexample has {len(values)} input bits, the miter {len(bits)}")
    inputs = {n: 0 for n, (d, _) in expected.items() if d == "in"}
    for k, (port, bit) in enumerate(bits):
        port = port[3:] if port.startswith("in_") else port
        inputs[port] |= values[k] << bit
    return inputs
