"""A tiny compiler cache for Verilator's runtime objects (the ``OBJCACHE`` hook of ``verilated.mk``).

Every Verilator model links the same four runtime objects (``verilated.o``, ``verilated_vpi.o``,
``verilated_dpi.o``, ``verilated_threads.o``), compiled from the wheel's ``include/`` directory with the
same flags: about 10 CPU-seconds per model, more than the model itself for most fpforge units.
``verilated.mk`` runs every compile as ``$(OBJCACHE) $(CXX) ... -c -o TARGET SOURCE``; with ``OBJCACHE``
pointing here, a compile whose source lies in ``$VERILATOR_ROOT/include`` is looked up by a key made of
the whole command line (output name aside), the source text and the runtime's version header, and copied
from the cache on a hit. Everything else (the model's own files, cocotb's ``verilator.cpp``, which
includes the model's header) is compiled as usual.

The cache lives in ``$FPFORGE_OBJCACHE``, by default ``fpforge.jobs.cache_dir("verilator")`` (fpforge's
one cache directory: ``~/.cache/fpforge/verilator`` unless ``$FPFORGE_CACHE`` or ``$XDG_CACHE_HOME`` say
otherwise; ``fpforge clean`` empties it). Entries are written atomically, so parallel builds may share it.
Each entry keeps the SHA-256 of its two files (``KEY.sha256``): a truncated or altered object, or a directory
where one belongs, is a miss (said on stderr) and compiled again; an unusable cache only disables it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["cache_dir", "main", "shim"]


def cache_dir() -> Path:
    """Where the cached objects live."""
    forced = os.environ.get("FPFORGE_OBJCACHE")
    if forced:
        return Path(forced)
    from ..jobs import cache_dir as fpforge_cache

    return fpforge_cache("verilator")


def shim() -> Path | None:
    """An executable that runs :func:`main` with this interpreter (None where the path has spaces,
    which make cannot pass through ``OBJCACHE``)."""
    from ..golden.errors import FpforgeError

    try:
        directory = cache_dir()
    except FpforgeError:  # an unusable cache (the commands that need it said so already): no object cache
        return None
    path = directory / "objcache"
    text = f"#!{sys.executable}\nfrom fpforge.sim.objcache import main\nmain()\n"
    if " " in str(path) or " " in sys.executable:
        return None
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        directory.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            _store_text(path, text)
            path.chmod(0o755)
    except OSError:
        return None
    return path


def _store_text(path: Path, text: str, mode: int = 0o755):
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def _store(src: Path, dest: Path):
    if dest.is_dir() and not dest.is_symlink():
        shutil.rmtree(dest)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".tmp-")
    os.close(fd)
    shutil.copyfile(src, tmp)
    os.replace(tmp, dest)


def _plan(args):
    """``(key, target, depfile)`` for a cacheable runtime compile, else None."""
    root = os.environ.get("VERILATOR_ROOT")
    if not root or "-c" not in args or "-o" not in args:
        return None
    include = Path(root, "include").resolve()
    source = Path(args[-1])
    if source.suffix != ".cpp" or source.resolve().parent != include:
        return None
    i = args.index("-o")
    target = Path(args[i + 1])
    rest = args[:i] + args[i + 2 :]
    h = hashlib.sha256(json.dumps(rest).encode())
    h.update(source.read_bytes())
    h.update((include / "verilated_config.h").read_bytes())
    return h.hexdigest()[:32], target, target.with_suffix(".d")


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        sys.exit("objcache: no command")
    try:
        plan = _plan(args)
    except OSError:
        plan = None
    if plan is None:
        sys.exit(subprocess.call(args))
    key, target, depfile = plan
    directory = cache_dir()
    obj, dep, check = directory / f"{key}.o", directory / f"{key}.d", directory / f"{key}.sha256"
    if obj.exists() or dep.exists():
        try:
            if check.read_text() == _check_text(obj, dep):
                shutil.copyfile(obj, target)
                shutil.copyfile(dep, depfile)
                return
        except OSError:
            pass
        why = "has no checksum (cached by an older fpforge)" if not check.exists() else \
            "is damaged (truncated, altered or not a file)"
        print(f"objcache: cached object {obj} {why}; compiling it again", file=sys.stderr, flush=True)
    rc = subprocess.call(args)
    if rc == 0 and target.exists() and depfile.exists():
        try:
            directory.mkdir(parents=True, exist_ok=True)
            _store(depfile, dep)
            _store(target, obj)
            _store_text(check, _check_text(obj, dep), 0o644)
        except OSError:
            pass
    sys.exit(rc)


def _check_text(obj: Path, dep: Path) -> str:
    """The checksum line of an entry (raises OSError for a missing or unreadable file)."""
    return f"{hashlib.sha256(obj.read_bytes()).hexdigest()} {hashlib.sha256(dep.read_bytes()).hexdigest()}\n"


if __name__ == "__main__":
    main()
