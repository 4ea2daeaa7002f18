"""Where fpforge keeps what it can rebuild, and how it writes files.

* :func:`cache_dir`: one documented per-user cache directory for everything fpforge rebuilds on demand
  (simulator builds, sweep and proof results): ``$FPFORGE_CACHE`` if set, else ``$XDG_CACHE_HOME/fpforge``,
  else ``~/.cache/fpforge``; ``cache_dir("sim")`` is a subdirectory. ``fpforge clean`` empties it.
* :func:`write_atomic`: write through a temporary file in the destination's directory and an
  ``os.replace``, so a reader never sees a half-written file and an interrupted write leaves nothing.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["cache_dir", "write_atomic"]


def cache_dir(kind: str | None = None) -> Path:
    """The cache directory (created if missing), or its subdirectory ``kind``."""
    root = os.environ.get("FPFORGE_CACHE")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "fpforge")
    path = Path(root) / kind if kind else Path(root)
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
