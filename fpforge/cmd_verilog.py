"""``fpforge verilog``: a unit's Verilog, byte-identical for identical options."""

from __future__ import annotations

from .cliutil import add_output, check_output, write_output
from .unitopts import add_unit_options

__all__ = ["add_parser", "run"]


def add_parser(sub):
    v = sub.add_parser("verilog", help="generate a unit's Verilog")
    add_unit_options(v)
    add_output(v)
    v.set_defaults(run=run)


def run(args) -> int:
    from .unitopts import build, print_spec

    check_output(args.output)
    from .jobs.cache import check_environment

    check_environment(cache=False)  # Amaranth's yosys needs wasmtime's cache (XDG_CACHE_HOME or HOME)
    spec, _, _, text = build(args)  # --spec-json too: every option checked (--name against the unit's signals)
    if args.spec_json:
        print_spec(spec, args.output)
    else:
        write_output(args.output, text)
    return 0
