"""Where fpforge keeps what it can rebuild, and how it writes files.

* :func:`cache_dir`: one documented per-user cache directory for everything fpforge rebuilds on demand
  (simulator builds, sweep and proof results): ``$FPFORGE_CACHE`` if set, else ``$XDG_CACHE_HOME/fpforge``,
  else ``~/.cache/fpforge``; ``cache_dir("sim")`` is a subdirectory. ``fpforge clean`` empties it. A root
  fpforge creates gets a ``CACHEDIR.TAG`` (backup tools skip it; ``fpforge clean`` only empties a directory
  that has one or is named ``fpforge``, so ``FPFORGE_CACHE=$HOME`` cannot make it delete a home).
* :func:`write_atomic`: write through a temporary file in the destination's directory and an
  ``os.replace``, so a reader never sees a half-written file and an interrupted write leaves nothing.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["CACHEDIR_TAG", "cache_dir", "write_atomic"]

#: The file marking fpforge's cache root (https://bford.info/cachedir/).
CACHEDIR_TAG = "CACHEDIR.TAG"
_TAG_TEXT = ("Signature: 8a477f597d28d172789f06886806bc55\n"
             "# This file marks fpforge's cache (rebuilt on demand); `fpforge clean` empties it.\n")


def cache_dir(kind: str | None = None) -> Path:
    """The cache directory (created if missing), or its subdirectory ``kind``."""
    root = os.environ.get("FPFORGE_CACHE")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "fpforge")
    root = Path(root)
    if not root.exists():
        root.mkdir(parents=True, exist_ok=True)
        try:
            (root / CACHEDIR_TAG).write_text(_TAG_TEXT)
        except OSError:
            pass
    path = root / kind if kind else root
    path.mkdir(parents=True, exist_ok=True)
    return path


def write_atomic(path, data) -> None:
    """Write ``data`` (str or bytes) to ``path`` through a temporary file and a rename."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    mode = "wb" if isinstance(data, bytes) else "w"
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".fpforge-", suffix=".tmp")
    try:
        with os.fdopen(fd, mode) as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
