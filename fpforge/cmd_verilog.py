"""``fpforge verilog``: a unit's Verilog, byte-identical for identical options."""

from __future__ import annotations

from .cliutil import UsageError, add_output, check_output, write_output
from .unitopts import add_unit_options

__all__ = ["add_parser", "run"]


def add_parser(sub):
    v = sub.add_parser("verilog", help="generate a unit's Verilog")
    add_unit_options(v)
    add_output(v)
    v.add_argument("--fusesoc", default=None, metavar="DIR",
                   help="write DIR/<module>.v and a FuseSoC CAPI2 core DIR/<module>.core (DIR is created if "
                        "missing; not with -o)")
    v.set_defaults(run=run)


def run(args) -> int:
    from .unitopts import build, print_spec

    check_output(args.output)
    if args.fusesoc is not None:
        from .hw.fusesoc import check_directory

        if args.output is not None:
            raise UsageError("choose one of -o (the Verilog alone) and --fusesoc DIR (the Verilog and its .core "
                             "file in DIR)")
        check_directory(args.fusesoc)
    from .jobs.cache import check_environment

    check_environment(cache=False)  # Amaranth's yosys needs wasmtime's cache (XDG_CACHE_HOME or HOME)
    spec, _, name, text = build(args)  # --spec-json too: every option checked (--name against the unit's signals)
    if args.spec_json:
        print_spec(spec, args.output)
    elif args.fusesoc is not None:
        from .hw.fusesoc import write_fusesoc

        for path in write_fusesoc(args.fusesoc, spec, name, text):
            print(path)
    else:
        write_output(args.output, text)
    return 0
