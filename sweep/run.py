"""``fpforge.sweep.run``: evaluate every point of a space — QSNR, dot-product area at the space's r and f,
area relative to the FP8 unit at the same r and f, memory, cost, Pareto — in parallel and cached."""

from __future__ import annotations

import os
import time

from ..golden.errors import FpforgeTypeError
from ..jobs import Executor, Store, TaskFailure, cache_dir, canonical_json, run_tasks, task_key
from .evaluate import area_key, area_task, numerics_key, numerics_task, task_unit, unit_spec, verilog_key, verilog_task
from .points import FP8_BASELINE, Row
from .space import Space, load_space
from .table import SweepResult, cost_of, memory_rel, pareto_groups, with_scale_bits

__all__ = ["evaluate", "run"]

_FP8 = FP8_BASELINE  # (the name the estimate and the benches import)


_TASKS = {"numerics": (numerics_task, numerics_key), "verilog": (verilog_task, verilog_key),
          "area": (area_task, area_key)}


def evaluate(task):
    """The one task function of a sweep: ``task["kind"]`` is ``numerics``, ``verilog`` or ``area``."""
    if not isinstance(task, dict) or task.get("kind") not in _TASKS:
        raise FpforgeTypeError(f"task must be a sweep task (a dict whose kind is {', '.join(_TASKS)}), not "
                               f"{task!r}"[:300])
    return _TASKS[task["kind"]][0](task)


def _key(task):
    return _TASKS[task["kind"]][1](task)


def _numerics(space, p, auto_r=None):
    task = dict(kind="numerics", point=p.numerics_record(), vectors=space.vectors, seed=space.seed)
    if auto_r:
        task["auto_r"] = auto_r
    return task


#: Units the reuse flow leaves to the standard flow: MXINT8's magnitudes come out of a two's-complement
#: absolute value, and its multipliers synthesized apart came out 9 % larger than flat (bench/sweep_reuse.py).
REUSE_STANDARD = ("mxint8",)


def _area(space, spec):
    task = dict(kind="area", unit=task_unit(spec), liberty=space.liberty, abc_script=space.abc_script)
    if space.ppa:  # delay, slack, power and energy at the space's clock (the key: library, clock, activity)
        task.update(clock_ns=space.clock_ns, activity=space.activity)
    if space.goal == "area":  # (absent for delay: its tasks and keys stay fpforge synth's and the area tables')
        task["goal"] = "area"
    # fast: pre_abc=False, reuse: reuse=True, lean: pre_abc_script (none for the standard and flat flows: their
    # cache keys stay those of the area tables)
    if not (space.flow == "reuse" and spec.format in REUSE_STANDARD):
        from ..synth.flow import flow_options

        task.update(flow_options(space.flow))
    return task


def _size(task):
    """Rough synthesis effort of an area task: the size of its Verilog, then r (the longest first keeps both
    workers busy to the end instead of leaving one r = 64 unit running alone)."""
    u = task.get("unit", {})
    return (len(task.get("verilog_zlib") or ""), u.get("r", 0), str(u.get("format")))


def synthesize_units(requests, ex, store, label, stats, others=()):
    """Area of each request (``kind="area"`` tasks without a Verilog hash): generate every unit (cached
    by its spec and fpforge's source), then synthesize by Verilog hash (cached by the Verilog). ``others``
    (numerics tasks) run along with the generation. Returns ``{canonical request: outcome}`` and the
    others' outcomes in the same dict."""
    gen = {canonical_json(r["unit"]): dict(kind="verilog", unit=r["unit"]) for r in requests}
    first = _run(evaluate, list(gen.values()) + list(others), ex, store, label, stats)
    vkeys = {canonical_json(t) for t in gen.values()}
    out = {k: v for k, v in first.items() if k not in vkeys}
    synth, failed = [], {}
    for r in requests:
        v = first[canonical_json(gen[canonical_json(r["unit"])])]
        if isinstance(v, TaskFailure):
            failed[canonical_json(r)] = v
        else:
            synth.append(dict(r, verilog_sha256=v["verilog_sha256"], top=v["top"], verilog_zlib=v.get("verilog_zlib")))
    done = _run(evaluate, sorted(synth, key=_size, reverse=True), ex, store, label, stats)
    for t in synth:
        req = {k: v for k, v in t.items() if k not in ("verilog_sha256", "top", "verilog_zlib")}
        out[canonical_json(req)] = done[canonical_json(t)]
    out.update(failed)
    return out


def _run(fn, tasks, ex, store, label, stats):
    if store is not None:
        stats["cached"] += sum(task_key(fn, t, _key) in store for t in tasks)  # (drops corrupt entries)
    out = {}
    for task, outcome in run_tasks(fn, tasks, executor=ex, store=store, key=_key, progress=label):
        out[canonical_json(task)] = outcome
    stats["tasks"] += len(tasks)
    return out


def run(space, *, executor=None, cache=None, synth=True, vectors=None, seed=None, progress=True) -> SweepResult:
    """Sweep ``space`` and return its table.

    Parameters
    ----------
    space : str, Path or Space
        A built-in space name (``fpforge.sweep.SPACES``), a TOML file, or a :class:`Space`.
    executor : fpforge.jobs.Executor, optional
        From ``fpforge.jobs.executor(jobs=..., scheduler=...)``; None runs in this process.
    cache : str, Path, Store or False, optional
        The result store (default ``fpforge.jobs.cache_dir("sweep")``); False: no cache.
    synth : bool, default True
        Synthesize the units (False: QSNR, bits and memory only).
    vectors, seed : int, optional
        Override the space's QSNR vectors and seed.
    progress : bool, default True
        Progress bars on a terminal.

    Returns
    -------
    SweepResult
    """
    if executor is not None and not isinstance(executor, Executor):
        raise FpforgeTypeError(f"executor must be None or an fpforge.jobs executor (fpforge.jobs.executor(jobs=...)), "
                               f"not {executor!r}")
    for flag, v in (("synth", synth), ("progress", progress)):
        if not isinstance(v, bool):
            raise FpforgeTypeError(f"{flag} must be True or False, not {v!r}")
    if cache is not None and cache is not False and not isinstance(cache, (str, os.PathLike, Store)):
        raise FpforgeTypeError(f"cache must be None, False, a directory or a Store, not {cache!r}")
    space = load_space(space)
    if not isinstance(space, Space):
        raise FpforgeTypeError(f"fpforge.sweep.run takes a dot-product space; {space.name!r} is an area table "
                               "(fpforge.sweep.area.run_area)")
    space = space.with_(vectors=vectors, seed=seed)
    if space.ppa and synth:  # a library with timing and power tables, and OpenSTA: before any work
        from ..synth import DEFAULT_LIBERTY
        from ..synth.flow import check_ppa
        from ..synth.liberty import check_liberty

        lib_path, lib = check_liberty(space.liberty or DEFAULT_LIBERTY)
        check_ppa(lib, lib_path, space.clock_ns, True, space.activity, 1)
    if cache is False:
        store = None
    elif isinstance(cache, Store):
        store = cache
    else:
        store = Store(cache if cache is not None else cache_dir("sweep"))
    if executor is None:
        executor = Executor()
    t0 = time.monotonic()
    stats = dict(tasks=0, cached=0, executor=executor.describe())
    corrupt0 = store.corrupt if store else 0
    label = f"sweep {space.name}" if progress else None
    cells = space.cells()  # (point, r, f) for every r and f of the space

    # numerics: once per point (f = "auto": once per point and unit length, the window width it finds)
    num_tasks = {}
    for p, r, f in cells:
        num_tasks.setdefault((p["name"], r if f == "auto" else None), _numerics(space, p, r if f == "auto" else None))
    fixed = [(p, r, f) for p, r, f in cells if f != "auto"]
    if synth and fixed:
        requests = _unit_tasks(space, fixed)
        results = synthesize_units(requests, executor, store, label, stats, others=list(num_tasks.values()))
    else:
        results = _run(evaluate, list(num_tasks.values()), executor, store, label, stats)
    numbers = {k: results[canonical_json(t)] for k, t in num_tasks.items()}

    def number(p, r, f):
        return numbers[(p["name"], r if f == "auto" else None)]

    widths = []  # (point, r, f as given, the unit's f: None where the auto width failed)
    for p, r, f in cells:
        n = number(p, r, f)
        widths.append((p, r, f, (None if isinstance(n, TaskFailure) else n.get("f")) if f == "auto" else f))
    if synth and len(fixed) < len(cells):
        auto = [(p, r, uf) for p, r, f, uf in widths if f == "auto" and uf is not None]
        results.update(synthesize_units(_unit_tasks(space, auto), executor, store, label, stats))

    rows, failures = [], []
    for p, r, f_given, f in widths:
        row = dict(name=p["name"], family=p["family"], m=p["m"], k1=p["k1"], d1=p["d1"], k2=p["k2"], d2=p["d2"],
                   r=r, f=f, bits_per_element=p["bits_per_element"], memory_rel=memory_rel(p["bits_per_element"]))
        errors = []
        n = number(p, r, f_given)
        if isinstance(n, TaskFailure):
            errors.append(f"qsnr: {n.message}")
        else:
            row.update(qsnr_db=n["qsnr_db"], qsnr_p5_db=n["qsnr_p5_db"])
        if synth and f is not None:
            a = results[canonical_json(_area(space, unit_spec(p, r, f)))]
            base = results[canonical_json(_area(space, unit_spec(_FP8, r, f)))]  # FP8 at the same r and f
            if isinstance(a, TaskFailure):
                errors.append(f"synthesis: {a.message}")
            else:
                row.update(area_um2=a["area_um2"], ge=a["ge"], cell_count=a["cell_count"],
                           flip_flops=a["flip_flops"], logic_depth=a["logic_depth"], synth_s=a["synth_s"],
                           synth_cpu_s=a.get("synth_cpu_s"), yosys=a["yosys"], verilog_sha256=a["verilog_sha256"])
                if isinstance(base, TaskFailure):
                    errors.append(f"FP8 baseline synthesis: {base.message}")
                else:
                    row["fp8_area_um2"] = base["area_um2"]
                    row["area_rel"] = a["area_um2"] / base["area_um2"]
                    if space.ppa:
                        row.update(delay_ns=a["delay_ns"], slack_ns=a["slack_ns"], power_mw=a["power_mw"],
                                   energy_pj=a["energy_pj"], fp8_delay_ns=base["delay_ns"],
                                   fp8_energy_pj=base["energy_pj"])
                        row["energy_rel"] = _ratio(a["energy_pj"], base["energy_pj"])
                    row["cost"] = cost_of(row, space.cost)
        if errors:
            row["error"] = "; ".join(errors)
            failures.append((_cell_name(space, row), row["error"]))
        rows.append(Row.from_record(row))
    rows = [row.with_(pareto=on) for row, on in zip(rows, pareto_groups(rows, space))]
    rows = with_scale_bits(rows, False, space)  # (the qsnr_scale and scale_bits_counted columns; nothing moves)
    stats.update(seconds=time.monotonic() - t0, corrupt=(store.corrupt - corrupt0) if store else 0,
                 failed=sum(isinstance(o, TaskFailure) for o in results.values()))
    stats["computed"] = stats["tasks"] - stats["cached"]
    if store is not None and synth and rows:
        stats["cold_run"] = _cold_run(store, space, rows, stats, failures)
    return SweepResult(space, rows, failures, stats)


def _cold_run(store, space, rows, stats, failures):
    """The measured cold run of these results: recorded in the store when this run computed every task (none
    cached, none failed), else the one recorded before for the same results (a warm rerun says how long they
    took to make); None when none was. The record is keyed by the space and a digest of every point's QSNR and
    area, so it never describes other numbers."""
    import datetime

    from ..jobs import digest
    from ..jobs.results import _commit, machine

    key = digest(dict(kind="sweep-cold-run", space=space.name,
                      results=[[r.get(c) for c in ("name", "r", "f", "qsnr_db", "area_um2")] for r in rows]))
    if stats["cached"] == 0 and not failures and stats.get("failed", 0) == 0:
        store.put(key, dict(seconds=round(stats["seconds"], 1), tasks=stats["tasks"], executor=stats["executor"],
                            machine=machine(), commit=_commit(),
                            date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")))
    got = store.get(key, None)
    return got if isinstance(got, dict) else None


def _ratio(x, base):
    return x / base if base else None  # (a unit of no energy or delay at all: no ratio)


def _cell_name(space, row):
    """A row's name in messages: the point's, with its r and f where the space sweeps them."""
    axes = [f"{a} = {row[a]}" for a in space.axes]
    return f"{row['name']} ({', '.join(axes)})" if axes else row["name"]


def _unit_tasks(space, cells):
    """The area requests of ``cells`` ((point, r, f)): each unit and the FP8 baseline at the same r and f."""
    units = {}
    for p, r, f in cells:
        for spec in (unit_spec(p, r, f), unit_spec(_FP8, r, f)):
            units[spec.sha256] = _area(space, spec)
    return list(units.values())
