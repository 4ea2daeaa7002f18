"""A content-addressed store of task results: one small JSON file per finished task.

An entry lives at ``<directory>/<key[:2]>/<key>.json`` where ``key`` is the hex SHA-256 :func:`digest` of
whatever determines the result (the caller decides what goes in: for a synthesis point the unit spec, the
generator's source, the liberty file, the ABC script and the yosys version). The file holds::

    {"fpforge_store": 1, "key": KEY, "check": SHA-256 of the canonical JSON of "result", "result": ...}

Entries are written with :func:`fpforge.jobs.write_atomic` (a reader never sees half a file, an interrupted
write leaves nothing behind). On reading, an entry that does not parse, names another key or whose check
does not match its result is *corrupt* (so is a directory where the file or its folder belongs): it is
deleted, counted in :attr:`Store.corrupt`, said once on standard error, and reported as missing, so the
caller recomputes it and :meth:`Store.put` can write it. Identical keys land on one file, so two runs (or two processes)
finishing the same task cannot duplicate an entry.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ..golden.errors import FpforgeTypeError, FpforgeValueError
from .cache import note_rebuilt, write_atomic

__all__ = ["MISSING", "Store", "canonical_json", "digest"]

_VERSION = 1


class _Missing:
    def __repr__(self):
        return "MISSING"

    def __bool__(self):
        return False


#: What :meth:`Store.get` returns for an absent (or corrupt) entry; results themselves may be ``None``.
MISSING = _Missing()


def canonical_json(obj) -> str:
    """``obj`` as compact JSON with sorted keys (tuples become lists): equal data, equal text."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=True)


def digest(obj) -> str:
    """Hex SHA-256 of ``obj``: bytes as they are, str as UTF-8, anything else as :func:`canonical_json`."""
    if isinstance(obj, bytes):
        data = obj
    elif isinstance(obj, str):
        data = obj.encode()
    else:
        data = canonical_json(obj).encode()
    return hashlib.sha256(data).hexdigest()


def _check_key(key) -> str:
    if not isinstance(key, str) or len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
        raise FpforgeValueError(f"store keys are 64 lower-case hex digits (fpforge.jobs.digest), not {key!r}")
    return key


class Store:
    """Finished results by content key, in ``directory`` (created if missing).

    Parameters
    ----------
    directory : str or Path
        Where the entries live; e.g. ``fpforge.jobs.cache_dir("sweep")``.

    Members
    -------
    directory : Path
    corrupt : int
        Corrupt entries found (and deleted) by this object so far.
    """

    def __init__(self, directory):
        if not isinstance(directory, (str, os.PathLike)):
            raise FpforgeTypeError(f"Store directory must be a path, not {directory!r}")
        if not os.fspath(directory):
            raise FpforgeValueError("Store directory must name a directory, not ''")
        self.directory = Path(directory)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            problem = "a broken link" if self.directory.is_symlink() else "not a directory"
            raise FpforgeValueError(f"cannot use {str(directory)!r} as a result store: it is {problem}") from None
        except OSError as e:
            raise FpforgeValueError(f"cannot use {str(directory)!r} as a result store: {e.strerror or e}") from None
        if not self.directory.is_dir():
            raise FpforgeValueError(f"cannot use {str(directory)!r} as a result store: not a directory")
        self.corrupt = 0

    def __repr__(self):
        return f"Store({str(self.directory)!r})"

    def path(self, key) -> Path:
        """The file of entry ``key``."""
        key = _check_key(key)
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key, default=MISSING):
        """The stored result of ``key``, or ``default`` if absent or corrupt (a corrupt file is deleted)."""
        path = self.path(key)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return default
        except OSError:
            if path.is_dir() or path.parent.exists() and not path.parent.is_dir():
                self._corrupt(path if path.is_dir() else path.parent, "a directory where a file belongs"
                              if path.is_dir() else "a file where a directory belongs")
            return default
        try:
            entry = json.loads(data.decode("utf-8"))
            ok = (isinstance(entry, dict) and entry.get("fpforge_store") == _VERSION and entry.get("key") == key
                  and "result" in entry and entry.get("check") == digest(entry["result"]))
        except (ValueError, RecursionError):
            ok = False
        if not ok:
            self._corrupt(path, "truncated or altered")
            return default
        return entry["result"]

    def _corrupt(self, path, why):
        self.corrupt += 1
        note_rebuilt(path, why, remove=True)

    def __contains__(self, key) -> bool:
        return self.get(key) is not MISSING

    def put(self, key, result) -> Path:
        """Store ``result`` (JSON-able) under ``key``, atomically; returns the entry's path."""
        path = self.path(key)
        text = json.dumps({"fpforge_store": _VERSION, "key": key, "check": digest(result), "result": result},
                          sort_keys=True, indent=1) + "\n"
        if path.parent.exists() and not path.parent.is_dir():
            self._corrupt(path.parent, "a file where a directory belongs")
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir() and not path.is_symlink():
            self._corrupt(path, "a directory where a file belongs")
        write_atomic(path, text)
        return path

    def delete(self, key) -> bool:
        """Remove entry ``key``; True if there was one."""
        try:
            self.path(key).unlink()
            return True
        except FileNotFoundError:
            return False

    def keys(self) -> list:
        """Every key with a file in the store (sorted; validity is checked by :meth:`get`)."""
        return sorted(p.stem for p in self.directory.glob("??/*.json") if len(p.stem) == 64)

    def __len__(self) -> int:
        return len(self.keys())
