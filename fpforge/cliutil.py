"""What every ``fpforge`` subcommand shares: the usage error, option parsing helpers, output files.

A subcommand is a module ``fpforge.cmd_<name>`` with ``add_parser(subparsers)`` and ``run(args) -> int``
(registered in :data:`fpforge.cli.SUBCOMMANDS`). It reports bad input by raising an
:class:`~fpforge.golden.errors.FpforgeError` (here :class:`UsageError` for command-line-only rules);
``fpforge.cli.main`` prints it as one line and exits with status 2.

Output files go through :func:`check_output` (before any long work: a bad ``-o`` fails at once, naming the
user's path) and :func:`write_output` (atomic: a reader never sees half a file, a failure leaves nothing).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from pathlib import Path

from .golden.errors import FpforgeError
from .jobs import write_atomic

__all__ = ["Parser", "UsageError", "add_output", "check_output", "comma_list", "human_size", "positive_number",
           "progress_bar", "seed_arg", "table_text", "timed", "user_paths", "write_json", "write_output"]


class UsageError(FpforgeError):
    """A command line that breaks a rule of the command line itself (conflicting options, ...)."""


class Parser(argparse.ArgumentParser):
    """argparse, with its errors raised as :class:`UsageError` (one line, exit code 2) instead of printing
    the usage block and exiting. ``fpforge.cli.main`` prefixes ``fpforge: error:``; a subcommand's error
    names the subcommand once (``fpforge: error: prove: argument --jobs: ...``), never ``fpforge`` twice.

    An option value that starts with ``-`` and a digit (``--range -1:+5``, ``--values -1,2``) is a value,
    not an unknown option, so that the option's own check can say what is wrong with it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-\.?\d")

    def error(self, message):
        command = self.prog.split(None, 1)[1] if " " in self.prog else ""
        m = re.fullmatch(r"argument (\S+): expected one argument", message)
        if m:  # `--name -x`: argparse took the value for an option
            message += f" (give a value; one that starts with '-' is written {m.group(1).split('/')[-1]}=VALUE)"
        raise UsageError(f"{command}: {message}" if command else message)


def add_output(parser, *, required=False, help="output file (default: standard output)"):
    """The ``-o/--output`` option (``-`` is standard output)."""
    parser.add_argument("-o", "--output", default=None, required=required, metavar="FILE", help=help)


def check_output(path, option="-o") -> None:
    """Fail now, naming ``path``, if ``path`` cannot be written (so that no long work is done first).

    ``None`` and ``-`` mean standard output. A directory, a missing or non-directory parent, a parent
    without write permission and a read-only existing file are refused.
    """
    if path in (None, "-"):
        return
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise UsageError(f"{option} needs a file name, not {path!r}")
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"cannot write {str(path)!r}: it is a directory (give a file name to {option})")
    parent = p.absolute().parent
    if not parent.exists():
        raise UsageError(f"cannot write {str(path)!r}: directory {str(parent)!r} does not exist")
    if not parent.is_dir():
        raise UsageError(f"cannot write {str(path)!r}: {str(parent)!r} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write {str(path)!r}: no permission to create files in {str(parent)!r}")
    if p.exists() and not os.access(p, os.W_OK):
        raise UsageError(f"cannot write {str(path)!r}: the file is read-only")


def write_output(path, data) -> None:
    """Write ``data`` (str or bytes) to ``path`` atomically, or to standard output for None/``-``; an
    OS error names the user's path, never the temporary file."""
    if path in (None, "-"):
        if isinstance(data, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
        return
    check_output(path)
    try:
        write_atomic(path, data)
    except OSError as e:
        raise UsageError(f"cannot write {str(path)!r}: {e.strerror or e}") from None


def timed(fn, *args, **kwargs):
    """``(fn(*args, **kwargs), seconds)``."""
    import time

    t0 = time.monotonic()
    result = fn(*args, **kwargs)
    return result, time.monotonic() - t0


def write_json(path, document) -> int:
    """Write ``document`` as indented JSON (see :func:`write_output`); return exit status 0."""
    import json

    write_output(path, json.dumps(document, indent=2) + "\n")
    return 0


def comma_list(text, option, *, convert=None, example="") -> list:
    """The items of a comma list option (``--formats a,b``): stripped, none empty, at least one; each passed
    through ``convert`` (``int``: a ValueError names the bad item)."""
    items = [t.strip() for t in text.split(",")]
    if not text.strip():
        raise UsageError(f"{option} names nothing; give a comma list{f' (e.g. {option} {example})' if example else ''}")
    if any(not t for t in items):
        raise UsageError(f"{option} {text!r} has an empty item; give a comma list without empty entries"
                         f"{f' (e.g. {option} {example})' if example else ''}")
    out = []
    for t in items:
        try:
            out.append(t if convert is None else convert(t))
        except ValueError:
            kind = "integers" if convert is int else "values"
            raise UsageError(f"{option} takes a comma list of {kind}{f' (e.g. {example})' if example else ''}, "
                             f"not {text!r}") from None
    twice = next((t for i, t in enumerate(out) if t in out[:i]), None)
    if twice is not None:  # each item is a row or a run: twice would repeat it
        raise UsageError(f"{option} {text!r} names {twice} twice; give each item once")
    return out


def seed_arg(text) -> int:
    """argparse ``type`` of every seed option: an integer in 0..2**32 - 1 (a larger seed would alias a smaller
    one, while the reports printed the value as given)."""
    from .golden.checks import MAX_SEED

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"a seed is an integer in 0..{MAX_SEED} (the generator's state is 32 "
                                         f"bits), not {value}")
    return value


def positive_number(what: str, unit: str):
    """argparse ``type`` of a quantity that is a finite number > 0 (``what``, in ``unit``: "the clock period",
    "ns"); NaN, infinities, zero and negatives are refused with ``what`` named."""

    def parse(text) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} is a number of {unit} > 0, not {text!r}") from None
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"{what} must be a finite number of {unit} > 0, not {text!r}")
        return value

    return parse


def table_text(rows) -> str:
    """Rows of strings as left-aligned columns separated by two spaces."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() + "\n" for r in rows)


def human_size(n: int) -> str:
    """``1536`` -> ``1.5 KiB``."""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


#: Options whose values are user paths: an OSError on one of them is the user's (fpforge.cli.main).
_PATH_OPTIONS = ("output", "build_dir", "liberty", "files", "figure", "fusesoc")


def user_paths(args) -> list[str]:
    """Absolute forms of the paths the user gave on this command line."""
    out = []
    for name in _PATH_OPTIONS:
        value = getattr(args, name, None)
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str) and v not in ("", "-"):
                out.append(os.path.abspath(v))
    return out


def progress_bar(total, label, unit):
    """A tqdm bar on stderr (done/total, rate, ETA) for long work when stderr is a terminal, else None; it
    disappears when closed (the output stays what it was)."""
    if not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=label, unit=unit, leave=False, dynamic_ncols=True, file=sys.stderr)
