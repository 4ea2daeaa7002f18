"""``fpforge prove``: check every input of a unit — fpforge's Verilog, a user's file, or the synthesized
netlist — against the golden model with a Verilator C++ harness; ``fpforge prove all`` proves the record
list (``make prove``) and writes its table to docs/results.md."""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import asdict

from .golden.errors import FpforgeValueError
from .prove_common import (
    SHOWN,
    _check_build_tools,
    _check_environment,
    _check_parallel,
    _explained,
    _parse_biases,
    _parse_range,
    _rate,
    _result_line,
    build_harness_announced,
    build_harness_cached,
)

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    from .clusteropts import add_cluster_options
    from .unitopts import add_unit_options

    p = subparsers.add_parser(
        "prove", help="prove a unit on every input (Verilator C++ harness) against the golden model",
        description="Simulate every input pattern of an encoder or decoder (default: all 2^32 for an FP32 source) "
                    "under every (mode, sat) pair it has, and compare code and flags bit for bit with the golden "
                    "model. Exit 1 on a mismatch. The rand port of an sr unit gets the golden generator's draws for "
                    "--seed (default 0): pattern i gets draw i. `prove all` proves the record list (make prove) and "
                    "writes docs/results.md. `prove dot` proves a dot unit of at most 2^36 operand patterns "
                    "(--preset, --r, --f) against the golden dot product.")
    add_unit_options(p, units=("encoder", "decoder", "dot", "all"))
    g = p.add_argument_group("proof")
    g.add_argument("--bias", action="append", default=None,
                   help="run-time-bias formats: bias to prove at (repeat, comma list, or `all`; default 0,7,31,63 "
                        "for encoders, all 64 for decoders)")
    g.add_argument("--verilog", default=None, metavar="FILE",
                   help="prove this Verilog file (same module name and ports as fpforge's unit; --top picks "
                        "another module, --ports maps other port names) instead of the generated one")
    g.add_argument("--top", default=None, metavar="NAME", help="--verilog: the module to prove (default: the "
                   "generated unit's name, else the file's only module)")
    g.add_argument("--ports", default=None, metavar="MAP",
                   help="--verilog: UNIT_PORT=USER_PORT,... from fpforge's port names (a, y, flags, mode, sat, "
                        "bias, rand) to the module's; unnamed ports keep their names; fpforge's ports the module "
                        "lacks are not driven (inputs) or not checked (outputs), and the output lists them")
    g.add_argument("--golden", choices=("cpp", "numpy"), default=None,
                   help="`prove dot`: the golden side: cpp (default for scalar operands: the C++ golden dot product, "
                        "checked against the numpy model on a sample of every chunk) or numpy (the model alone, "
                        "about 10x slower; the default for block formats)")
    g.add_argument("--netlist", action="store_true",
                   help="prove the gate-level netlist after synthesis (yosys onto --liberty; cells simulated from "
                        "their liberty functions)")
    g.add_argument("--liberty", default=None, help="liberty file for --netlist (default fpforge45.lib)")
    g.add_argument("--range", default=None, metavar="START:END",
                   help="input patterns START..END-1 (ints, 0x.. allowed; START:+COUNT; default all)")
    g.add_argument("--jobs", type=int, default=None, help="local worker processes (default: all cores)")
    g.add_argument("--scheduler", default=None, metavar="ADDRESS", help="a Dask scheduler instead of local processes")
    add_cluster_options(g)
    g.add_argument("--chunk", type=int, default=None, help="patterns per chunk, the unit of resumption (default 2^24)")
    g.add_argument("--fresh", action="store_true", help="rebuild the harness and recompute chunks already recorded "
                   "by an earlier run (with `prove all --estimate`: sample every row, recorded or not)")
    g.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.add_argument_group("prove all")
    a.add_argument("--only", default=None, metavar="FORMATS",
                   help="prove only these rows of the record: comma list of FORMAT[:MODE[:SAT]] (e.g. e4m3,hif8:hr, "
                        "e5m2:rne:0)")
    a.add_argument("--list", action="store_true", help="list the record's units and conditions, prove nothing")
    a.add_argument("--record", action="store_true", help="`prove dot --record`: prove the dot rows of the record "
                   "not proved yet (with --list: list them; --only FORMATS: some) and write their table")
    a.add_argument("--estimate", action="store_true",
                   help="(also `prove dot`: one chunk measured now) project the run's wall time per row from its recorded CPU time (this machine's record or "
                        "the proof table; no build) or, for rows with none, a 2^22-pattern sample measured now "
                        "(units in parallel on --jobs, with progress)")
    p.set_defaults(prove_parser=p)
    return p


#: The options `fpforge prove all` takes (every other one is refused when given).
_ALL_OPTIONS = {"help", "only", "list", "estimate", "jobs", "scheduler", "fresh", "cluster", "workers",
                "cluster_option", "cluster_dry_run"}


def _mismatch_line(m, cond, unit):
    """``a=0x43e00000 (448) rne sat=0: expected y=0x7e flags=0x00, got ...`` for one mismatch."""
    import numpy as np

    from .golden import SOURCES
    from .sim.prove_unit import prove_kind

    def fields(values):
        return " ".join(f"{k}={v:#0{2 + (unit.ports[k][1] + 3) // 4}x}" for k, v in values.items())

    a = f"a={m['a']:#0{2 + (unit.a_bits + 3) // 4}x}"
    if prove_kind(unit.cfg).encodes:
        src = SOURCES[unit.cfg["source"]]
        word = np.array([m["a"]], np.uint32 if src.bits == 32 else np.uint16)
        a += f" ({float(word.view(src.dtype)[0]):.9g})"
    rand = f" rand={m['rand']:#0{2 + (unit.ports['rand'][1] + 3) // 4}x}" if cond.mode == "sr" else ""
    return f"    {a} {cond.label()}{rand}: expected {fields(m['expected'])}, got {fields(m['actual'])}"


def _check_unit_source(args):
    """The options of the unit's source (--verilog, --netlist, --liberty, --name), without building it."""
    from .hw.generate import check_module_name

    if args.verilog is not None and args.netlist:
        raise FpforgeValueError("choose one of --verilog FILE and --netlist")
    if args.liberty is not None and not args.netlist:
        raise FpforgeValueError("--liberty applies with --netlist")
    if args.verilog is not None and not os.path.isfile(args.verilog):
        raise FpforgeValueError(f"--verilog {args.verilog!r}: no such file")
    if args.verilog is None and (args.top is not None or args.ports is not None):
        raise FpforgeValueError("--top and --ports apply to --verilog FILE (a user's design)")
    if args.top is not None:
        check_module_name(args.top)
        if args.name is not None and args.name != args.top:
            raise FpforgeValueError(f"--top {args.top!r} and --name {args.name!r} name different modules; give one")
    if args.ports is not None:
        _parse_ports(args.ports)
    if args.liberty is not None:
        from .synth.liberty import check_liberty

        check_liberty(args.liberty)
    if args.name is not None:
        check_module_name(args.name)


def _parse_ports(text) -> dict:
    """``--ports a=x,y=code`` -> ``{"a": "x", "y": "code"}`` (names checked against the design later)."""
    from .cliutil import comma_list

    out = {}
    for item in comma_list(text, "--ports", example="a=in_bits,y=out_code"):
        unit_port, eq, user_port = (part.strip() for part in item.partition("="))
        if not eq or not unit_port or not user_port:
            raise FpforgeValueError(f"--ports item {item!r} is not UNIT_PORT=USER_PORT (e.g. --ports "
                                    "a=in_bits,y=out_code)")
        if unit_port in out:
            raise FpforgeValueError(f"--ports maps {unit_port} twice ({unit_port}={out[unit_port]} and {item}); "
                                    "map each port once")
        out[unit_port] = user_port
    return out


def _unit_of(args, kwargs):
    from .sim.prove_unit import ProofUnit

    _check_unit_source(args)
    if args.verilog is not None:
        ports = None if args.ports is None else _parse_ports(args.ports)
        return ProofUnit.from_file(kwargs, args.verilog, args.top or args.name, ports)
    if args.netlist:
        return ProofUnit.netlist(kwargs, args.liberty, args.name)
    return ProofUnit.generated(kwargs, args.name)


def _prove_one(args):
    from .clusteropts import cluster_client, dry_run
    from .sim.prove import CHUNK, prove
    from .sim.prove_unit import conditions_of, domain_of, unit_config, unit_spec
    from .unitopts import print_spec
    from .unitopts import unit_config as options_config

    if args.only is not None or args.list or args.estimate:
        raise FpforgeValueError("--only, --list and --estimate apply to `fpforge prove all`")
    if args.golden is not None:
        raise FpforgeValueError("--golden applies to `fpforge prove dot` (an encoder or decoder proof's golden side is "
                                "the numpy model)")
    spec = unit_spec(options_config(args))
    cfg = unit_config(spec)
    _check_parallel(args)
    conditions = conditions_of(cfg, _parse_biases(args.bias))  # bad input first: then the (slow) unit
    start, end = _parse_range(args.range, domain_of(cfg))
    if args.spec_json:  # after the same checks of the options as a proof
        _check_unit_source(args)
        print_spec(spec)
        return 0
    if args.cluster_dry_run:
        return dry_run(args, args.cluster_kwargs)
    _check_environment(args)
    unit = _unit_of(args, cfg)
    _check_build_tools(unit)  # a missing g++/make/perl: one line, before the header
    seed = 0 if args.seed is None else args.seed  # the unit options' --seed: None when not given
    digits = 2 + (unit.a_bits + 3) // 4
    if not args.json:
        print(f"proving {unit.module} ({unit.origin}; Verilog sha256 {unit.verilog_hash}): {unit.describe()}")
        draws = f"; sr draws: seed {seed}" if "rand" in unit.ports else ""
        print(f"  inputs a = {start:#0{digits}x}..{end - 1:#0{digits}x} ({end - start:,} patterns) under "
              f"{len(conditions)} condition{'s' * (len(conditions) != 1)}{draws}")
        for note in unit.port_notes:
            print(f"  {note}")
    verbose = len(conditions) <= 16 and not args.json
    build_harness_announced(unit, fresh=args.fresh, quiet=args.json)
    t0 = time.perf_counter()

    def report(r):
        if verbose or (r.mismatches and not args.json):
            print(_result_line(r))
        if r.mismatches and not args.json:
            for m in r.first[:SHOWN]:
                print(_mismatch_line(m, r.condition, unit))
        sys.stdout.flush()

    with _explained(unit), cluster_client(args, args.cluster_kwargs) as scheduler:
        results = prove(unit, conditions, start=start, end=end, seed=seed, chunk=args.chunk or CHUNK,
                        jobs=args.jobs, scheduler=scheduler, store=not args.fresh, progress=not args.json,
                        on_result=report)
    wall = time.perf_counter() - t0
    vectors = sum(r.vectors for r in results)
    bad = [r for r in results if r.mismatches]
    if args.json:
        print(json.dumps([dict(asdict(r), condition=r.condition._asdict()) for r in results], indent=2))
    else:
        verdict = (f"FAILED: {sum(r.mismatches for r in bad):,} mismatches under {len(bad)} of {len(results)} "
                   "conditions") if bad else "PROVED" if end - start == unit.domain else "no mismatch in the range"
        print(f"{verdict}: {vectors:,} vectors in {wall:.1f} s ({_rate(vectors, wall)})")
    return 1 if bad else 0


def _parse_only(text, configs):
    """``--only FORMAT[:MODE[:SAT]],...`` -> a predicate on (unit configuration, condition); a condition of
    None asks whether any row of the unit is wanted."""
    if text is None:
        return lambda cfg, cond: True
    formats = {c["format"]: c for c in configs}
    picks = []
    for item in (p.strip() for p in text.split(",")):
        parts = item.split(":")
        cfg = formats.get(parts[0])
        modes = cfg["rounding"] if cfg is not None else ()
        if cfg is None or len(parts) > 3 or (len(parts) > 1 and parts[1] not in modes) or \
                (len(parts) > 2 and parts[2] not in ("0", "1")):
            raise FpforgeValueError(f"--only takes FORMAT[:MODE[:SAT]] items with a format of the record "
                                    f"({', '.join(formats)}), its roundings and sat 0 or 1, not {item!r}")
        picks.append((parts[0], parts[1] if len(parts) > 1 else None, int(parts[2]) if len(parts) > 2 else None))

    def wanted(cfg, cond):
        return any(f == cfg["format"] and (cond is None or m in (None, cond.mode) and s in (None, cond.sat))
                   for f, m, s in picks)

    return wanted


class _Progress:
    """Units done out of ``total``: a tqdm bar (rate, ETA) on a terminal; elsewhere (a log, a pipe) one line
    per unit on stderr with the same figures. ``write`` prints a result line without breaking the bar."""

    def __init__(self, total, label, *, lines=True, noun="units"):
        self.total, self.label, self.done, self.t0, self.bar = total, label, 0, time.perf_counter(), None
        self.noun = noun
        self.lines = lines  # off a terminal: a line per unit (else nothing)
        if sys.stderr.isatty():
            try:
                from tqdm import tqdm
            except ImportError:
                pass
            else:
                self.bar = tqdm(total=total, desc=label, unit=noun.rstrip("s"), dynamic_ncols=True, file=sys.stderr,
                                leave=lines)

    def write(self, text):
        if self.bar is not None:
            self.bar.write(text, file=sys.stdout)
        else:
            print(text, flush=True)

    def update(self, what):
        self.done += 1
        if self.bar is not None:
            self.bar.update(1)
            return
        if not self.lines:
            return
        elapsed = time.perf_counter() - self.t0
        eta = elapsed / self.done * (self.total - self.done)
        print(f"{self.label}: {self.done}/{self.total} {self.noun} ({what}), {elapsed:.0f} s, "
              f"{60 * self.done / max(elapsed, 1e-9):.1f} {self.noun}/min, ETA {eta:.0f} s", file=sys.stderr,
              flush=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def build_harnesses(units, pool) -> int:
    """Build the harnesses of ``units`` not cached yet as parallel tasks on ``pool`` (10-60 CPU-seconds
    each), with progress; the number built."""
    from .golden.errors import ToolError
    from .sim.harness import build_harness, harness_cached
    from .sim.prove import TaskFailure, run_tasks

    specs = list({u.harness_spec.key: u.harness_spec for u in units if not harness_cached(u.harness_spec)}.values())
    if not specs:
        return 0
    print(f"building {len(specs)} harness{'es' * (len(specs) != 1)} in parallel (Verilator and C++, 10-60 "
          "CPU-seconds each) ...", flush=True)
    progress = _Progress(len(specs), "building", noun="harnesses")
    try:
        for spec, out in run_tasks(build_harness, specs, executor=pool):
            if isinstance(out, TaskFailure):
                raise ToolError(f"building the prove harness of {spec.top} failed: {out.message}")
            progress.update(spec.top)
    finally:
        progress.close()
    return len(specs)


def _estimate(selected, args):
    from .clusteropts import cluster_client
    from .jobs.results import machine
    from .sim.prove import executor
    from .sim.prove_table import ESTIMATE_SAMPLE, RowStore, estimate, estimate_sources

    cores = args.jobs or os.cpu_count() or 1
    sources = estimate_sources(selected, RowStore(), fresh=args.fresh)
    todo = [(u, [c for v, c, kind, _, _ in sources if v is u and kind == "sample"]) for u, _ in selected]
    todo = [(u, conds) for u, conds in todo if conds]
    print(f"# projected wall time of a row on {cores} idle cores: 2^32 x its CPU time per vector / {cores}; the CPU "
          "time per vector from (last column)\n"
          "#   proved: the row's own record under today's key (a run skips it)\n"
          "#   table: the same row in the proof table of docs/results.md, proved earlier (an older golden model or "
          "prover)\n"
          f"#   sample: measured now on {ESTIMATE_SAMPLE:,} patterns (harness + golden model + comparison) on "
          f"{machine()}")

    def line(unit, cond, ns, source):
        if ns is None:
            ns_text, minutes = "      -", "     -"
        else:
            ns_text, minutes = f"{ns:7.1f}", f"{2**32 * ns / 1e9 / cores / 60:6.1f}"
        return f"  {unit.top:<30} {cond.label():<18} {ns_text} ns/vector  {minutes} min  {source}"

    total, proved, bad = 0.0, 0, 0
    for unit, cond, kind, ns, info in sources:
        if kind == "proved":
            proved += 1
            print(line(unit, cond, ns, f"proved {info}; a run skips it"))
        elif kind == "table":
            total += 2**32 * ns / 1e9 / cores
            print(line(unit, cond, ns, f"table: {info}"))
    if todo:
        n = sum(len(c) for _, c in todo)
        where = "on the Dask cluster" if args.scheduler or args.cluster else f"on {cores} local processes"
        print(f"# sampling {n} row{'s' * (n != 1)} of {len(todo)} unit{'s' * (len(todo) != 1)} {where}; each unit's "
              "harness is built first unless cached (10-60 CPU-seconds)", flush=True)
        progress = _Progress(len(todo), "estimate")
        try:
            with cluster_client(args, args.cluster_kwargs) as scheduler, executor(jobs=args.jobs,
                                                                                  scheduler=scheduler) as pool:
                for unit, rows, build in estimate(todo, executor=pool):
                    for cond, ns, mismatches in rows:
                        total += 2**32 * ns / 1e9 / cores
                        bad += mismatches > 0
                        flag = f"  {mismatches:,} MISMATCHES in the sample" if mismatches else ""
                        progress.write(line(unit, cond, ns, "sample" + flag))
                    progress.update(f"{unit.top}, harness {'cached' if build is None else f'built in {build:.0f} s'}")
        finally:
            progress.close()
    n = sum(kind != "proved" for _, _, kind, _, _ in sources)
    print(f"total: {total / 3600:.1f} h for {n} row{'s' * (n != 1)} to prove on {cores} idle cores"
          + (f" ({proved} proved already)" if proved else "") + (f"; {bad} rows FAILED on their sample" if bad else ""))
    return 1 if bad else 0


def _prove_all(args):
    from .clusteropts import cluster_client, dry_run
    from .jobs.results import machine, write_section
    from .sim.prove import PROOF_SEED, executor, prove
    from .sim.prove_table import RowStore, proofs_markdown, record_configs, table_data
    from .sim.prove_unit import ProofUnit

    extra = [a.option_strings[0] for a in args.prove_parser._actions
             if a.option_strings and a.dest not in _ALL_OPTIONS and getattr(args, a.dest, a.default) != a.default]
    if extra:
        raise FpforgeValueError(f"`fpforge prove all` proves the record list; it takes --only, --list, --estimate, "
                                f"--jobs, --scheduler and --cluster, not {extra[0]}")
    if args.fresh and not args.estimate:
        raise FpforgeValueError("`fpforge prove all` takes --fresh with --estimate only (sample every row anew); "
                                "a run proves the rows not recorded yet")
    _check_parallel(args)
    if args.cluster_dry_run:
        return dry_run(args, args.cluster_kwargs)
    _check_environment(args)  # before the units are generated (Amaranth's yosys uses wasmtime's cache)
    configs = record_configs()
    wanted = _parse_only(args.only, configs)
    # Listing and estimating need the selected units only; a run needs them all (the table lists every row).
    # Generating them takes ~0.2 s each (Amaranth to Verilog): a bar on a terminal.
    need = [cfg for cfg in configs if wanted(cfg, None) or not (args.list or args.estimate)]
    progress = _Progress(len(need), "generating units", lines=False)
    units = []
    for cfg in need:
        units.append(ProofUnit.generated(cfg))
        progress.update(cfg["format"])
    progress.close()
    selected = [(u, [c for c in u.conditions() if wanted(u.cfg, c)]) for u in units]
    selected = [(u, conds) for u, conds in selected if conds]
    if args.list:
        n = sum(len(conds) for _, conds in selected)
        for u, conds in selected:
            print(f"{u.top:<32} {len(conds):>3} conditions  {u.describe()}")
        print(f"{len(selected)} units, {n} proofs of 2^32 inputs ({n * 2**32:,} vectors)")
        return 0
    if args.estimate:
        return _estimate(selected, args)
    rows = RowStore()
    t0 = time.perf_counter()
    with cluster_client(args, args.cluster_kwargs) as scheduler, executor(jobs=args.jobs, scheduler=scheduler) as pool:
        build_harnesses([u for u, conds in selected if any(rows.get(u, c, PROOF_SEED) is None for c in conds)], pool)
        for unit, conds in selected:
            todo = []
            for cond in conds:
                rec = rows.get(unit, cond, PROOF_SEED)
                if rec is None:
                    todo.append(cond)
                else:
                    where = ", from docs/results.md" if rec.get("carried") else ""
                    print(f"  {unit.top} {cond.label()}: run earlier ({rec['date']}, {rec['mismatches']} "
                          f"mismatches{where})")
            if not todo:
                continue
            _check_build_tools(unit)
            print(f"proving {unit.top} ({unit.describe()}; Verilog sha256 {unit.verilog_hash}): {len(todo)} conditions")
            build_harness_cached(unit, say="  harness: building (Verilator and C++, 10-60 CPU-seconds) ...")

            def record(r, unit=unit):
                rows.put(unit, r.condition, PROOF_SEED,
                         dict(vectors=r.vectors, mismatches=r.mismatches, first=r.first, seconds=r.seconds,
                              cpu=r.harness_cpu + r.worker_cpu, resumed=r.resumed, date=r.date, machine=machine()))
                print(_result_line(r))
                for m in r.first[:SHOWN]:
                    print(_mismatch_line(m, r.condition, unit))
                sys.stdout.flush()

            with _explained(unit):
                prove(unit, todo, seed=PROOF_SEED, pool=pool, on_result=record)
    table = [(u, c, rows.get(u, c, PROOF_SEED)) for u in units for c in u.conditions()]
    data = table_data(table, total_seconds=time.perf_counter() - t0)
    path = write_section("proofs", proofs_markdown(data), command="make prove", data=data)
    bad = sum(1 for _, _, rec in table if rec is not None and rec["mismatches"])
    done = sum(rec is not None for _, _, rec in table)
    print(f"{'FAILED' if bad else 'done'}: {done} of {len(table)} rows run, {bad} with mismatches; table written to "
          f"{path}")
    return 1 if bad else 0


def run(args) -> int:
    """Run ``fpforge prove``; 0 when everything proved, 1 on a mismatch (bad input raises)."""
    if args.unit == "dot":
        from .cmd_prove_dot import run_dot

        return run_dot(args)
    if args.record and args.unit != "all":
        raise FpforgeValueError("--record applies to `fpforge prove dot` (the record's dot units); `fpforge prove "
                                "all` proves the encoder record")
    if args.unit == "all":
        if args.spec_json:
            raise FpforgeValueError("--spec-json prints one unit's spec; `prove all` proves a list of units")
        return _prove_all(args)
    return _prove_one(args)
