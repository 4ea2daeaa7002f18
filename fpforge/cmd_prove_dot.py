"""``fpforge prove dot``: every operand pattern of a small combinational dot unit (at most 2^36: A and B bits,
block scales included) against the golden dot product (:mod:`fpforge.sim.prove_dot`)."""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import asdict

from .golden.errors import FpforgeValueError

__all__ = ["run_dot"]

#: Options of `fpforge prove` that a dot proof does not take (dest -> the option as typed).
_NOT_FOR_DOT = {"netlist": "--netlist", "liberty": "--liberty", "ports": "--ports", "only": "--only",
                "list": "--list", "seed": "--seed"}  # (--only and --list: with --record)


def _check_options(args):
    for dest, opt in _NOT_FOR_DOT.items():
        if getattr(args, dest, None) not in (None, False):
            why = {"--netlist": "prove the netlist formally with `fpforge equiv dot ... --netlist`",
                   "--liberty": "it goes with --netlist",
                   "--ports": "a dot unit's file must have the unit's ports (a, b, y, ...)",
                   "--only": "it selects rows of the record: add --record",
                   "--list": "it lists the record: add --record",
                   "--seed": "a dot unit has no rand port"}[opt]
            raise FpforgeValueError(f"`fpforge prove dot` does not take {opt} ({why})")
    if args.verilog is None and args.top is not None:
        raise FpforgeValueError("--top applies to --verilog FILE (a user's design)")
    if args.verilog is not None and not os.path.isfile(args.verilog):
        raise FpforgeValueError(f"--verilog {args.verilog!r}: no such file")


def _operand_text(unit, side, codes, cond):
    """``A=[0x38 (1), 0x40 (2)]`` for scalar codes (decoded under the condition's select and bias), or the
    block's fields for a block format."""
    import numpy as np

    from .golden import decode
    from .golden.dot.config import operand_format

    fmt = operand_format(unit.spec.format if side == "a" else unit.spec.format_b)
    if fmt.dot_side.family != "scalar":
        enc = codes
        return (f"{side.upper()}=(scale {enc.scale.ravel().tolist()}, shift {enc.shift.ravel().tolist()}, elements "
                f"{enc.elem.ravel().tolist()})")
    sel = getattr(cond, f"sel_{side}") or 0
    el = fmt.formats[sel]
    bias = getattr(cond, f"bias_{side}")
    vals = decode(el, np.asarray(codes).ravel(), **({"bias": bias} if bias is not None else {}))
    digits = 2 + (fmt.bits + 3) // 4
    items = ", ".join(f"{int(c):#0{digits}x} ({float(v):.9g})" for c, v in zip(np.asarray(codes).ravel(), vals))
    return f"{side.upper()}=[{items}]"


def _fields(values, unit):
    import numpy as np

    out = []
    for k, v in values.items():
        text = f"{k}={v:#0{2 + (unit.ports[k][1] + 3) // 4}x}"
        if k == "y":
            text += f" ({float(np.array([v], np.uint32).view(np.float32)[0]):.9g})"
        out.append(text)
    return " ".join(out)


def mismatch_line(m, cond, unit) -> str:
    """One mismatch: the pattern, the operands as codes and values, expected and actual outputs."""
    a, b = unit.operands(m["pattern"])
    digits = 2 + (unit.pattern_bits + 3) // 4
    where = f" {cond.label()}" if cond.label() != "all operands" else ""
    return (f"    pattern {m['pattern']:#0{digits}x}{where}: {_operand_text(unit, 'a', a, cond)} "
            f"{_operand_text(unit, 'b', b, cond)}: expected {_fields(m['expected'], unit)}, got "
            f"{_fields(m['actual'], unit)}")


def _golden_text(golden) -> str:
    from .sim.prove_dot import SAMPLE

    return (f"the C++ golden dot product (the numpy model checks {SAMPLE:,} sampled patterns of every chunk)"
            if golden == "cpp" else "the numpy golden model")


def _record(args) -> int:
    """``fpforge prove dot --record``: the dot rows of the record (sim/prove_table.DOT_RECORD) not proved yet,
    then their table in docs/results.md (section ``dot-proofs``)."""
    from .cliutil import comma_list
    from .jobs.results import machine, write_section
    from .prove_common import _check_environment, _check_parallel, _result_line
    from .sim.prove import executor
    from .sim.prove_dot import DotProofUnit, prove_dot
    from .sim.prove_table import DotRowStore, dot_proofs_markdown, dot_record_configs, dot_table_data

    given = [a.option_strings[0] for a in args.prove_parser._actions if a.option_strings and a.dest not in
             ("help", "record", "list", "only", "jobs", "scheduler") and getattr(args, a.dest, a.default) != a.default]
    if given:
        raise FpforgeValueError(f"`fpforge prove dot --record` proves the record's dot units; it takes --list, --only "
                                f"and --jobs, not {given[0]}")
    _check_parallel(args)
    configs = dot_record_configs()
    names = [c["format"] for c in configs]
    only = None if args.only is None else comma_list(args.only, "--only", example="e2m1,e3m2")
    bad = [n for n in only or () if n not in names]
    if bad:
        raise FpforgeValueError(f"--only {bad[0]!r} is not a dot unit of the record; valid: {', '.join(names)}")
    if args.list:
        from .sim.prove_dot import _dot_spec, dot_conditions

        for cfg in configs:
            if only is None or cfg["format"] in only:
                spec = _dot_spec(cfg)
                n = len(dot_conditions(spec))
                print(f"{cfg['format']:<22} r={cfg['r']} f={cfg['f']}  2^{sum(spec.config.operand_bits)} patterns x "
                      f"{n} condition{'s' * (n != 1)}")
        return 0
    _check_environment(args)
    rows, table, bad_rows = DotRowStore(), [], 0
    with executor(jobs=args.jobs) as pool:
        for cfg in configs:
            unit = DotProofUnit.generated(cfg)
            conds = unit.conditions()
            todo = [c for c in conds if rows.get(unit, c) is None] if only is None or cfg["format"] in only else []
            if todo:
                print(f"proving {unit.top} ({unit.describe()}): {len(todo)} condition{'s' * (len(todo) != 1)} of "
                      f"{unit.domain:,} patterns", flush=True)

                def record(r, unit=unit):
                    rows.put(unit, r.condition, dict(vectors=r.vectors, mismatches=r.mismatches, seconds=r.seconds,
                                                     cpu=r.harness_cpu + r.worker_cpu, date=r.date, machine=machine()))
                    print(_result_line(r))
                    for m in r.first[:3]:
                        print(mismatch_line(m, r.condition, unit))
                    sys.stdout.flush()

                prove_dot(unit, todo, pool=pool, on_result=record)
            for c in conds:
                rec = rows.get(unit, c)
                bad_rows += bool(rec and rec["mismatches"])
                table.append((unit, c, rec))
    data = dot_table_data(table)
    path = write_section("dot-proofs", dot_proofs_markdown(data), command="fpforge prove dot --record", data=data)
    done = sum(rec is not None for _, _, rec in table)
    print(f"{'FAILED' if bad_rows else 'done'}: {done} of {len(table)} dot rows run, {bad_rows} with mismatches; "
          f"table written to {path}")
    return 1 if bad_rows else 0


def run_dot(args) -> int:
    if args.record:
        return _record(args)
    from .clusteropts import cluster_client, dry_run
    from .prove_common import (
        SHOWN,
        _check_environment,
        _check_parallel,
        _parse_biases,
        _parse_range,
        _rate,
        _result_line,
        build_harness_announced,
    )
    from .sim.prove_dot import CHUNK, DotProofUnit, _dot_spec, dot_conditions, estimate_dot, golden_of, prove_dot
    from .unitopts import print_spec
    from .unitopts import unit_config as options_config

    _check_options(args)
    spec = _dot_spec(options_config(args))  # bad unit options, too many patterns: before any work
    _check_parallel(args)
    conditions = dot_conditions(spec, _parse_biases(args.bias))
    golden = golden_of(spec.as_options(), args.golden)
    domain = 1 << sum(spec.config.operand_bits)
    start, end = _parse_range(args.range, domain)
    if args.spec_json:
        print_spec(spec)
        return 0
    if args.cluster_dry_run:
        return dry_run(args, args.cluster_kwargs)
    _check_environment(args)
    if args.verilog is not None:
        unit = DotProofUnit.from_file(spec, args.verilog, args.top or args.name)
    else:
        unit = DotProofUnit.generated(spec, args.name)
    from .prove_common import _check_build_tools

    _check_build_tools(unit)
    if args.estimate:
        cores = args.jobs or os.cpu_count() or 1
        print(f"estimating {unit.top} ({unit.describe()}): {domain:,} operand patterns x {len(conditions)} "
              f"condition{'s' * (len(conditions) != 1)}; measuring one chunk now ...", flush=True)
        est = estimate_dot(unit, conditions, cores=cores, golden=golden)
        flag = f"; {est['mismatches']:,} MISMATCHES in the sample" if est["mismatches"] else ""
        print(f"  {est['ns_per_pattern']:.0f} ns CPU per pattern (harness {est['harness_ns']:.0f} ns, golden side "
              f"{est['golden_ns']:.0f} ns: {_golden_text(golden)}; {est['sample']:,} patterns in "
              f"{est['seconds']:.1f} s){flag}")
        print(f"  projected: {est['projected_seconds'] / 60:.1f} min for the whole proof on {cores} idle core"
              f"{'s' * (cores != 1)}")
        return 1 if est["mismatches"] else 0
    digits = 2 + (unit.pattern_bits + 3) // 4
    if not args.json:
        print(f"proving {unit.module} ({unit.origin}; Verilog sha256 {unit.verilog_hash}): {unit.describe()}")
        print(f"  operand patterns {{B, A}} = {start:#0{digits}x}..{end - 1:#0{digits}x} ({end - start:,} of 2^"
              f"{unit.pattern_bits}; A = the low {unit.a_bits} bits) under {len(conditions)} condition"
              f"{'s' * (len(conditions) != 1)}; golden: {_golden_text(golden)}")
    build_harness_announced(unit, fresh=args.fresh, quiet=args.json)
    t0 = time.perf_counter()

    def report(r):
        if args.json:
            return
        print(_result_line(r))
        for m in r.first[:SHOWN]:
            print(mismatch_line(m, r.condition, unit))
        sys.stdout.flush()

    with cluster_client(args, args.cluster_kwargs) as scheduler:
        results = prove_dot(unit, conditions, start=start, end=end, chunk=args.chunk or CHUNK, jobs=args.jobs,
                            scheduler=scheduler, store=not args.fresh, progress=not args.json, on_result=report,
                            golden=golden)
    wall = time.perf_counter() - t0
    vectors = sum(r.vectors for r in results)
    bad = [r for r in results if r.mismatches]
    if args.json:
        print(json.dumps([dict(asdict(r), condition=r.condition._asdict()) for r in results], indent=2))
    else:
        verdict = (f"FAILED: {sum(r.mismatches for r in bad):,} mismatches under {len(bad)} of {len(results)} "
                   "conditions") if bad else "PROVED" if end - start == domain else "no mismatch in the range"
        print(f"{verdict}: {vectors:,} vectors in {wall:.1f} s ({_rate(vectors, wall)})")
    return 1 if bad else 0
