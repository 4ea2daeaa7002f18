"""``fpforge sweep SPACE``: a design-space sweep (QSNR x area x memory, Pareto, Fig. 7, the paper's
claims) or an area table of the docs, on local processes or a Dask cluster, cached and resumable."""

from __future__ import annotations

import json
import os
import signal
import sys

from .golden.errors import FpforgeValueError, UnknownName

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    from .cliutil import seed_arg
    from .clusteropts import add_cluster_options
    from .cmd_synth import _clock_ns
    from .sweep import SPACES
    from .sweep.area import AREA_SPACES
    from .sweep.space import COSTS, FLOWS

    names = ", ".join([*SPACES, *AREA_SPACES])
    p = subparsers.add_parser("sweep", help="design-space sweep (the MX paper's Fig. 7) or an area table, cached, "
                                            "on local processes or Dask",
                              description=f"SPACE is a built-in space ({names}) or a TOML file (docs/sweep.md).")
    p.add_argument("space", metavar="SPACE", help=f"built-in space ({names}) or a .toml file")
    p.add_argument("-o", "--output", default=None, help="CSV file of the results")
    p.add_argument("--json", default=None, metavar="FILE", help="JSON file of the results")
    p.add_argument("--plot", default=None, metavar="FILE", help="the figure: FILE.png or FILE.svg")
    p.add_argument("--claims", action="store_true", help="print the paper's claims against the results")
    p.add_argument("--results", action="store_true",
                   help="write the tables (and figure and CSV beside it) into docs/results.md")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--jobs", "-j", type=int, default=None, help="local worker processes (default: all cores; "
                                                                "0: in this process)")
    g.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="a Dask scheduler, tcp://HOST:PORT (workers need fpforge installed)")
    add_cluster_options(p.add_argument_group("batch cluster (docs/sweep.md, Clusters)"))
    c = p.add_mutually_exclusive_group()
    c.add_argument("--cache", default=None, metavar="DIR", help="result cache (default: the per-user cache, "
                                                                "$FPFORGE_CACHE/sweep)")
    c.add_argument("--no-cache", action="store_true", help="compute everything, store nothing")
    p.add_argument("--vectors", type=int, default=None, help="QSNR vectors (default: the space's, 10000)")
    p.add_argument("--seed", type=seed_arg, default=None, help="seed of the QSNR vectors (default: the space's, 0)")
    p.add_argument("--no-synth", action="store_true", help="QSNR, bits and memory only: no synthesis")
    p.add_argument("--from-csv", default=None, metavar="FILE",
                   help="measure nothing: re-read the points of SPACE from FILE (a sweep's CSV, e.g. "
                        "docs/results/paper.csv) for --plot, --claims, -o, --json and --results")
    p.add_argument("--count-scale-bits", action="store_true",
                   help="count the per-vector FP32 scale of the INT and FP8 points' QSNR in their bits, memory "
                        "and cost (+32 bits per 256 values); default: not counted, as the paper counts them")
    p.add_argument("--r", default=None, metavar="R,...",
                   help="elements per dot product: a comma list sweeps them (e.g. 16,32; replaces the space's [dot] r)")
    p.add_argument("--f", "--window-bits", dest="f", default=None, metavar="F,...",
                   help="window bits: a comma list sweeps them (e.g. 16,24,32), or auto (replaces the space's [dot] f)")
    p.add_argument("--facet", choices=("r", "f"), default=None,
                   help="--plot: one subplot per value of r or f (an axis the space sweeps)")
    p.add_argument("--flow", choices=FLOWS, default=None,
                   help="synthesis flow (default: the space's, standard = flat = fpforge synth's); lean lightens synth's "
                        "generic ABC pass (the paper spaces' default); reuse synthesizes each multiplier shape once "
                        "and counts its instances; fast skips synth's generic ABC pass (docs/sweep.md)")
    p.add_argument("--goal", default=None, metavar="GOAL",
                   help="mapping goal (default: the space's; area, the paper's method, without --ppa, delay with it): "
                        "area relaxes depth for the least area (with --ppa: the least area meeting the clock), "
                        "delay is fpforge synth's default (docs/synth.md, \"Mapping goal\")")
    p.add_argument("--estimate", action="store_true",
                   help="print the projected cold time of the sweep (from the cache's per-unit timings) on the local "
                        "processes (--jobs) or N workers (--workers N, with or without --cluster) and run nothing")
    q = p.add_argument_group("PPA: delay, power and energy per unit (docs/sweep.md, docs/ppa.md)")
    q.add_argument("--ppa", action="store_true", help="add delay_ns, slack_ns, power_mw, energy_pj and energy_rel "
                                                      "(OpenSTA; needs --clock-ns and e.g. --liberty osu018)")
    q.add_argument("--liberty", default=None, help="liberty file or name (fpforge45, osu018) for every unit "
                                                   "(default: the space's [synth] liberty, else fpforge45)")
    q.add_argument("--clock-ns", type=_clock_ns, default=None, metavar="T", help="clock period of --ppa (ns)")
    q.add_argument("--activity", choices=("workload", "vectorless"), default=None,
                   help="switching activity of --ppa's power: workload (the default: toggles of a zero-delay "
                        "simulation of each mapped unit on the sweep's Gaussian vectors) or vectorless (OpenSTA)")
    q.add_argument("--cost", choices=COSTS, default=None,
                   help="Pareto cost, relative to FP8 at the same r and f: area-memory (the default, the paper's), "
                        "energy-memory or area-delay (these need --ppa)")


def _check_out(path, exts, what):
    if path is None:
        return None
    if path == "-":
        return path
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if exts and ext not in exts:
        raise FpforgeValueError(f"{what} must end in {' or '.join('.' + e for e in exts)}, not {path!r}")
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        raise FpforgeValueError(f"cannot write {path!r}: directory {d!r} does not exist")
    return path


def _write(path, data):
    from .jobs import write_atomic

    if path == "-":
        sys.stdout.write(data if isinstance(data, str) else data.decode())
        return
    try:
        write_atomic(path, data)
    except OSError as e:
        raise FpforgeValueError(f"cannot write {path!r}: {e.strerror or e}") from None


def run(args) -> int:
    from .sweep import load_space
    from .sweep import run as sweep_run
    from .sweep.space import MAX_VECTORS, SWEEP_GOALS

    out_csv = _check_out(args.output, ("csv",), "-o/--output")
    out_json = _check_out(args.json, ("json",), "--json")
    out_plot = _check_out(args.plot, ("png", "svg"), "--plot")
    for opt, v in (("--vectors", args.vectors), ("--seed", args.seed)):
        if v is not None and v < (1 if opt == "--vectors" else 0):
            raise FpforgeValueError(f"{opt} must be {'>= 1' if opt == '--vectors' else '>= 0'}, not {v}")
    if args.vectors is not None and args.vectors > MAX_VECTORS:
        raise FpforgeValueError(f"--vectors must be at most {MAX_VECTORS:,} (vectors of 256 values), not {args.vectors}")
    if args.jobs is not None and args.jobs < 0:
        raise FpforgeValueError(f"--jobs must be >= 0 (0: in this process), not {args.jobs}")
    if args.goal is not None and args.goal not in SWEEP_GOALS:  # (as fpforge synth --goal says it)
        raise UnknownName(f"unknown --goal {args.goal!r}; valid: {', '.join(SWEEP_GOALS)}")
    if getattr(args, "estimate", False):
        return _estimate(args, (("-o/--output", out_csv), ("--json", out_json), ("--plot", out_plot),
                                ("--claims", args.claims), ("--results", args.results)))
    from .clusteropts import check_cluster

    args.cluster_kwargs = check_cluster(args)  # before any work: nothing submitted, nothing cached
    if args.cache is not None and not args.cache.strip():
        raise FpforgeValueError("--cache needs a directory name (an empty one would be the working directory)")
    if args.facet is not None and not (out_plot or args.results):
        raise FpforgeValueError(f"--facet {args.facet} draws the figure: give --plot FILE (or --results)")
    if args.from_csv is not None:
        return _run_csv(args, out_csv, out_json, out_plot)
    space = _axes(args, load_space(args.space, announce=lambda text: print(f"fpforge: {text}", file=sys.stderr,
                                                                             flush=True)))
    from .jobs.cache import check_environment

    check_environment(cache=args.cache is None and not args.no_cache)  # FPFORGE_CACHE & co, before any work
    if not args.no_synth:
        from .synth.yosys import check_yosys_cache

        check_yosys_cache()
    if getattr(space, "kind", "dot") == "dot":  # (None keeps the space's own)
        space = space.with_(flow=args.flow, goal=args.goal)
    space = _ppa(args, space)  # before any work: nothing computed, nothing cached
    cache = False if args.no_cache else args.cache
    if getattr(space, "kind", "dot") == "area":
        return _run_area(args, space, cache, out_csv, out_json, out_plot)
    if args.no_synth and (out_plot or args.claims):
        raise FpforgeValueError("--plot and --claims need areas: drop --no-synth")
    if args.cluster_dry_run:
        from .clusteropts import dry_run

        return dry_run(args, args.cluster_kwargs)
    result = _on_executor(args, lambda ex: sweep_run(space, executor=ex, cache=cache, synth=not args.no_synth,
                                                     vectors=args.vectors, seed=args.seed))
    if result is None:
        return 130
    if args.count_scale_bits:
        result = result.with_scale_bits(True)
    return _outputs(args, result, out_csv, out_json, out_plot)


def _estimate(args, outputs):
    """--estimate: the projected cold time (fpforge.sweep.estimate); checks everything first, runs nothing."""
    from .sweep import load_space
    from .sweep.estimate import estimate

    given = [opt for opt, v in outputs if v]
    if given:
        raise FpforgeValueError(f"--estimate runs nothing: {', '.join(given)} apply to a sweep that runs")
    if args.from_csv is not None:
        raise FpforgeValueError("--from-csv re-reads measured points: --estimate applies to a sweep that measures them")
    if args.cluster_dry_run:
        raise FpforgeValueError("--estimate and --cluster-dry-run: give one (the estimate submits nothing either)")
    if args.workers is not None and args.workers < 1:
        raise FpforgeValueError(f"--workers must be a positive integer (the workers to estimate for), not "
                                f"{args.workers}")
    if args.cluster is not None:
        from .jobs.cluster import CLUSTER_KINDS, parse_cluster_options

        if args.cluster not in CLUSTER_KINDS:
            raise FpforgeValueError(f"unknown --cluster {args.cluster!r}; valid: {', '.join(CLUSTER_KINDS)}")
        parse_cluster_options(args.cluster, args.cluster_option or [])
    elif args.cluster_option:
        raise FpforgeValueError("--cluster-option applies to --cluster slurm|pbs|sge")
    if args.workers is not None and args.jobs is not None:
        raise FpforgeValueError("--estimate: give --jobs N (local processes) or --workers N (Dask or batch workers), "
                                "not both")
    if args.workers is None and (args.cluster is not None or args.scheduler is not None):
        raise FpforgeValueError(f"--estimate with {'--cluster' if args.cluster else '--scheduler'} needs --workers N "
                                "(the workers to estimate for; nothing is submitted or contacted)")
    if args.cache is not None and not args.cache.strip():
        raise FpforgeValueError("--cache needs a directory name (an empty one would be the working directory)")
    space = _axes(args, load_space(args.space))
    if getattr(space, "kind", "dot") != "dot":
        raise FpforgeValueError(f"{space.name} is an area table: --estimate applies to dot-product spaces")
    space = space.with_(flow=args.flow, vectors=args.vectors, seed=args.seed, goal=args.goal)
    workers = args.workers if args.workers is not None else (max(1, args.jobs) if args.jobs is not None else None)
    est = estimate(space, workers=workers, cache=False if args.no_cache else args.cache, synth=not args.no_synth)
    if args.cluster is not None:
        est.where = f"{est.workers} {args.cluster} worker job{'s' * (est.workers != 1)}"
    elif args.jobs is not None:
        est.where = "this process" if args.jobs == 0 else f"{est.workers} local process{'es' * (est.workers != 1)}"
    print(est.text())
    return 0


def _ppa(args, space):
    """The space with --ppa, --liberty, --clock-ns and --cost, checked (library with timing and power tables,
    OpenSTA) before any work."""
    from .golden.errors import FpforgeError

    given = [o for o, v in (("--ppa", args.ppa), ("--liberty", args.liberty), ("--clock-ns", args.clock_ns),
                            ("--cost", args.cost), ("--activity", args.activity)) if v]
    if not given:
        space_ppa = getattr(space, "ppa", False)
    elif getattr(space, "kind", "dot") != "dot":
        raise FpforgeValueError(f"{space.name} is an area table: {', '.join(given)} apply to dot-product spaces")
    else:
        space_ppa = args.ppa or space.ppa
    if args.no_synth and space_ppa:
        raise FpforgeValueError("--ppa measures synthesized units: drop --no-synth")
    if not given and not space_ppa:
        return space
    if args.ppa and args.clock_ns is None and space.clock_ns is None:
        raise FpforgeValueError("--ppa needs --clock-ns T (delay, power and energy are measured at that clock "
                                "period), e.g. --ppa --liberty osu018 --clock-ns 5")
    if args.cost not in (None, "area-memory") and not space_ppa:
        raise FpforgeValueError(f"--cost {args.cost} needs the PPA columns: add --ppa --liberty osu018 --clock-ns T "
                                "(without --ppa the cost is area-memory)")
    if args.clock_ns is not None and not space_ppa:
        raise FpforgeValueError("--clock-ns is the clock period of --ppa: add --ppa")
    if args.activity is not None and not space_ppa:
        raise FpforgeValueError(f"--activity {args.activity} is the switching activity of --ppa's power: add --ppa")
    liberty = space.liberty
    if args.liberty is not None:
        from .synth.tech import resolve_liberty

        liberty = resolve_liberty(args.liberty)
    lib_path = None
    if args.liberty is not None or space_ppa:
        from .synth import DEFAULT_LIBERTY
        from .synth.liberty import check_liberty

        lib_path, lib = check_liberty(DEFAULT_LIBERTY if liberty is None else liberty)
    try:
        space = space.with_(liberty=str(lib_path) if args.liberty is not None else None, clock_ns=args.clock_ns,
                            ppa=space_ppa, cost=args.cost, activity=args.activity)
    except FpforgeError as e:
        raise type(e)(f"{', '.join(given) or 'the space'}: {e}") from None
    if space_ppa:
        from .synth.flow import check_ppa

        check_ppa(lib, lib_path, space.clock_ns, True, space.activity, 1)  # timing + power tables, OpenSTA
    return space


def _run_csv(args, out_csv, out_json, out_plot):
    """--from-csv: the outputs from a CSV of measured points (nothing is measured)."""
    from .sweep import read_csv

    given = [opt for opt, on in (("--vectors", args.vectors is not None), ("--seed", args.seed is not None),
                                 ("--no-synth", args.no_synth), ("--flow", args.flow is not None),
                                 ("--goal", args.goal is not None),
                                 ("--jobs", args.jobs is not None), ("--scheduler", args.scheduler is not None),
                                 ("--cluster", args.cluster is not None),
                                 ("--cache", args.cache is not None), ("--no-cache", args.no_cache),
                                 ("--ppa", args.ppa), ("--liberty", args.liberty is not None),
                                 ("--clock-ns", args.clock_ns is not None), ("--cost", args.cost is not None),
                                 ("--activity", args.activity is not None),
                                 ("--estimate", getattr(args, "estimate", False))) if on]
    if given:
        raise FpforgeValueError(f"--from-csv re-reads measured points: {', '.join(given)} apply to a sweep that "
                                "measures them")
    if not os.path.isfile(args.from_csv):
        raise FpforgeValueError(f"--from-csv: {args.from_csv!r} is not a file" if os.path.exists(args.from_csv)
                                else f"--from-csv: no such file {args.from_csv!r}")
    space = _axes(args, None)
    result = read_csv(args.from_csv, space or args.space).with_scale_bits(bool(args.count_scale_bits))
    if (out_plot or args.claims) and not any(r.get("cost") is not None for r in result.rows):
        raise FpforgeValueError(f"--plot and --claims need areas: {args.from_csv!r} has no cost column values "
                                "(a --no-synth sweep)")
    return _outputs(args, result, out_csv, out_json, out_plot)


def _axis_list(text, opt):
    from .cliutil import comma_list

    return comma_list(text, opt, convert=lambda t: t if t == "auto" and opt == "--f" else int(t),
                      example="16,32" if opt == "--r" else "16,24,32")


def _axes(args, space):
    """The space with --r/--f in place of its [dot] r and f (checked like a space file's, value by value), and
    --facet checked against the axes it then sweeps; ``space`` None: load args.space."""
    from .golden.errors import FpforgeError
    from .sweep import load_space

    if space is None:
        if args.r is None and args.f is None and args.facet is None:
            return None
        space = load_space(args.space)
    if args.r is not None or args.f is not None or args.facet is not None:
        if getattr(space, "kind", "dot") != "dot":
            raise FpforgeValueError(f"{space.name} is an area table: --r, --f and --facet apply to dot-product "
                                    "spaces")
    for opt, text in (("--r", args.r), ("--f", args.f)):
        if text is None:
            continue
        vals = _axis_list(text, opt)
        try:
            space = space.with_(**{opt[2:]: vals[0] if len(vals) == 1 else vals})
        except FpforgeError as e:
            raise type(e)(f"{opt} {text}: {e}") from None
    if args.facet is not None:
        from .sweep.plot import check_facet

        try:
            check_facet(space, args.facet)
        except FpforgeError as e:
            raise type(e)(f"--facet {args.facet}: {e}") from None
    return space


def _outputs(args, result, out_csv, out_json, out_plot):
    if out_csv:
        _write(out_csv, result.csv())
    if out_json:
        _write(out_json, result.json())
    if out_plot:
        from .sweep.plot import plot_pareto

        _write(out_plot, plot_pareto(result, os.path.splitext(out_plot)[1].lower().lstrip("."), facet=args.facet))
    if args.claims:
        from .sweep.claims import claims_markdown

        print(claims_markdown(result))
    if args.results:
        from .sweep.report import write_results

        print(f"wrote {write_results(result, _command(args), from_csv=args.from_csv, facet=args.facet)}")
    if not (out_csv or out_json or args.claims) or out_csv != "-":
        print(result.summary(), file=sys.stderr if out_csv == "-" else sys.stdout)
    return 1 if result.failures else 0


def _on_executor(args, work):
    """``work(executor)`` on --jobs/--scheduler/--cluster; None after Ctrl-C (finished tasks are cached)."""
    from .clusteropts import cluster_client
    from .jobs import executor

    try:
        with (cluster_client(args, args.cluster_kwargs) as scheduler,
              executor(jobs=args.jobs, scheduler=scheduler) as ex):
            return work(ex)
    except KeyboardInterrupt as e:
        signum = getattr(e, "signum", None)  # SIGTERM/SIGHUP (fpforge.cli.Terminated): exit 128 + the signal
        what = f"terminated ({signal.Signals(signum).name})" if signum else "interrupted"
        print(f"fpforge: {what}; finished tasks are in the cache, a rerun resumes", file=sys.stderr)
        if signum:
            raise SystemExit(128 + signum) from None
        return None


def _run_area(args, space, cache, out_csv, out_json, out_plot):
    from .sweep.area import run_area

    if (out_plot or args.claims or args.no_synth or args.vectors is not None or args.seed is not None or args.flow
            or args.goal or args.count_scale_bits):
        raise FpforgeValueError(f"{space.name} is an area table: --plot, --claims, --no-synth, --vectors, --seed, "
                                "--flow, --goal and --count-scale-bits apply to dot-product spaces (an area table "
                                "maps with fpforge synth's default goal, delay)")
    if args.cluster_dry_run:
        from .clusteropts import dry_run

        return dry_run(args, args.cluster_kwargs)
    table = _on_executor(args, lambda ex: run_area(space, executor=ex, cache=cache))
    if table is None:
        return 130
    if out_csv:
        _write(out_csv, table.csv())
    if out_json:
        _write(out_json, table.json())
    print(table.markdown())
    if args.results:
        from .jobs.results import write_section

        doc = write_section(space.name, table.markdown(heading=True), command=_command(args),
                            data=json.loads(table.json()))
        print(f"wrote {doc}")
    print(table.summary(), file=sys.stderr)
    return 1 if table.failures else 0


def _command(args):
    parts = ["fpforge sweep", str(args.space)]
    if args.from_csv is not None:
        parts.append(f"--from-csv {args.from_csv}")
    if args.count_scale_bits:
        parts.append("--count-scale-bits")
    if args.vectors is not None:
        parts.append(f"--vectors {args.vectors}")
    if args.seed is not None:
        parts.append(f"--seed {args.seed}")
    if args.flow is not None:
        parts.append(f"--flow {args.flow}")
    if args.goal is not None:
        parts.append(f"--goal {args.goal}")
    if args.ppa:
        parts.append("--ppa")
    for opt in ("liberty", "clock_ns", "cost", "activity"):
        if getattr(args, opt) is not None:
            parts.append(f"--{opt.replace('_', '-')} {getattr(args, opt)}")
    for opt in ("r", "f", "facet"):
        if getattr(args, opt) is not None:
            parts.append(f"--{opt} {getattr(args, opt)}")
    if args.claims:
        parts.append("--claims")
    parts.append("--results")
    return " ".join(parts)

