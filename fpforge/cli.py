"""The ``fpforge`` command line: formats, tables, Verilog generation, regressions and area reports.

Exit status: 0 success; 1 a check that ran and failed (a regression mismatch, lint warnings); 2 bad input
or a missing tool — one line ``fpforge: error: ...`` on standard error, no traceback, nothing written;
70 a bug in fpforge (``fpforge: internal error: ...`` and the traceback, to be reported); 130 interrupted;
143 (129) terminated by SIGTERM (SIGHUP), after the same cleanup as Ctrl-C.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys
import threading
import traceback
import warnings

from . import __version__
from .cliutil import Parser, UsageError, user_paths
from .golden.errors import FpforgeError

__all__ = ["EXIT_BUG", "EXIT_USAGE", "SUBCOMMANDS", "Terminated", "UsageError", "main", "parser"]

#: The subcommands, in the order of ``fpforge --help``. Each name ``n`` is a module ``fpforge.cmd_<n>``
#: exposing ``add_parser(subparsers)`` and ``run(args) -> int`` (called for the parsers it added, unless one
#: sets another ``run`` default). A new subcommand is one module and one entry here.
SUBCOMMANDS = ("formats", "table", "plot", "qsnr", "dot_error", "verilog", "sim", "synth", "scale", "scaling", "prove",
               "equiv", "sweep", "report", "lint", "clean")

#: Exit status of bad input (and of a missing tool).
EXIT_USAGE = 2
#: Exit status of an internal error (``EX_SOFTWARE``): a bug in fpforge.
EXIT_BUG = 70


def parser() -> Parser:
    """The argument parser with every subcommand of :data:`SUBCOMMANDS`."""
    p = Parser(prog="fpforge", description="Synthesizable Verilog for low-precision number formats, checked "
               "bit-exactly against a numpy golden model; formats, tables, regressions and area reports.")
    p.add_argument("--version", action="version", version=f"fpforge {__version__}")
    sub = p.add_subparsers(dest="action", required=True, parser_class=Parser, metavar="COMMAND")
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"fpforge.cmd_{name}")
        before = set(sub.choices)
        module.add_parser(sub)
        for action in set(sub.choices) - before:  # the module's run() unless its parser chose another
            if sub.choices[action].get_default("run") is None:
                sub.choices[action].set_defaults(run=module.run)
    return p


def _error(message) -> int:
    print(f"fpforge: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _user_os_error(e: OSError, args) -> bool:
    """The OS error concerns a path the user gave (an output file, a build directory, ...)."""
    names = [n for n in (e.filename, e.filename2) if isinstance(n, (str, bytes, os.PathLike))]
    paths = user_paths(args) if args is not None else []
    for n in names:
        n = os.path.abspath(os.fsdecode(n))
        if any(n == p or n.startswith(p.rstrip(os.sep) + os.sep) for p in paths):
            return True
    return False


def _quiet_amaranth():
    """After an error, a unit built before it (the command's, never converted) must not add Amaranth's
    "created but never used" warning to the one-line message (Amaranth does the same for uncaught
    exceptions). A refused unit leaves no object behind: the spec checks before any is constructed."""
    hdl = sys.modules.get("amaranth.hdl")
    if hdl is not None:
        warnings.filterwarnings("ignore", category=hdl.UnusedElaboratable)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP during a command, raised in the main thread like Ctrl-C's KeyboardInterrupt so the
    same cleanup runs (local workers and their tools stopped, temporary files removed); exit 128 + signal."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def _terminate(signum, frame):
    signal.signal(signum, signal.SIG_DFL)  # a second one ends the process at once
    raise Terminated(signum)


@contextlib.contextmanager
def _terminate_raises():
    """SIGTERM and SIGHUP raise :class:`Terminated` while a command runs (where nobody else handles them)."""
    old = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
            if sig is not None and signal.getsignal(sig) == signal.SIG_DFL:
                old[sig] = signal.signal(sig, _terminate)
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def main(argv=None) -> int:
    """Run one command line; return the exit status (see the module docstring)."""
    args = None
    try:
        with _terminate_raises():
            args = parser().parse_args(argv)
            status = args.run(args)
        if status:
            _quiet_amaranth()
        return status
    except BaseException as e:  # noqa: BLE001 - sorted out in _report: user error, interrupt or bug
        _quiet_amaranth()
        return _report(e, args)


def _report(e: BaseException, args) -> int:
    """The exit status of an exception, after its one line (or the bug report) on standard error."""
    if isinstance(e, FpforgeError):
        return _error(e)
    if isinstance(e, SystemExit):  # --help
        return e.code if isinstance(e.code, int) else 0
    if isinstance(e, Terminated):
        print(f"fpforge: terminated ({signal.Signals(e.signum).name})", file=sys.stderr)
        return 128 + e.signum
    if isinstance(e, KeyboardInterrupt):
        print("fpforge: interrupted", file=sys.stderr)
        return 130
    if isinstance(e, BrokenPipeError):  # `fpforge table e4m3 | head`: the reader left; say nothing
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 141
    if isinstance(e, MemoryError):
        return _error("not enough memory for this request (ask for fewer vectors, values or elements)")
    if isinstance(e, OSError) and _user_os_error(e, args):
        return _error(f"{e.strerror or e}: {e.filename!r}")
    if not isinstance(e, Exception):  # GeneratorExit and the like: not ours to swallow
        raise e
    return _bug(e)


def _bug(e) -> int:
    print(f"fpforge: internal error: {type(e).__name__}: {e} (this is a bug; please report it with the command "
          "line and the traceback below)", file=sys.stderr)
    traceback.print_exc(file=sys.stderr)
    return EXIT_BUG
