"""``fpforge clean``: empty fpforge's cache directory (simulator builds, Verilator runtime objects, sweep
and proof results — everything fpforge rebuilds on demand) and say how much it freed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .cliutil import UsageError, human_size

__all__ = ["add_parser", "run"]


def add_parser(sub):
    p = sub.add_parser("clean", help="empty the cache of simulator builds and results (prints what it frees)")
    p.add_argument("kinds", nargs="*", metavar="KIND",
                   help="only these parts of the cache (e.g. sim, verilator, prove, sweep); default: all")
    p.add_argument("--dry-run", "-n", action="store_true", help="list what would be removed, remove nothing")
    p.set_defaults(run=run)


def _size(path: Path) -> int:
    if path.is_symlink() or path.is_file():
        return path.lstat().st_size
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def _root() -> Path:
    """The cache root, without creating it (fpforge.jobs.cache.cache_root: FPFORGE_CACHE, XDG_CACHE_HOME, HOME)."""
    from .jobs.cache import cache_root

    return cache_root()[0]


def run(args) -> int:
    from .jobs.cache import CACHEDIR_TAG

    root = _root()
    args.kinds = list(dict.fromkeys(args.kinds))  # `clean sim sim` is `clean sim`
    if not root.exists():
        if args.kinds:
            raise UsageError(f"no {', '.join(args.kinds)} in the cache {str(root)!r}; it holds nothing yet")
        print(f"{root}: no cache (nothing to free)")
        return 0
    if not root.is_dir():
        raise UsageError(f"the cache {str(root)!r} is not a directory (FPFORGE_CACHE?)")
    if not (root / CACHEDIR_TAG).exists() and root.name != "fpforge":
        raise UsageError(f"{str(root)!r} does not look like fpforge's cache (no {CACHEDIR_TAG}); not touching it")
    entries = sorted(p for p in root.iterdir() if p.name != CACHEDIR_TAG)
    if args.kinds:
        known = {p.name for p in entries}
        unknown = [k for k in args.kinds if k not in known]
        if unknown:
            have = ", ".join(sorted(known)) or "nothing yet"
            raise UsageError(f"no {', '.join(unknown)} in the cache {str(root)!r}; it holds: {have}")
        entries = [p for p in entries if p.name in args.kinds]
    total = 0
    for p in entries:
        size = _size(p)
        total += size
        print(f"{'would remove' if args.dry_run else 'removed'} {p}  ({human_size(size)})")
        if not args.dry_run:
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)
    verb = "would free" if args.dry_run else "freed"
    print(f"{verb} {human_size(total)} in {root}")
    return 0
