"""``fpforge sweep SPACE --estimate``: the projected cold time of a sweep, before running it (issue 33, item 4).

Nothing runs and nothing is cached: the estimate reads the cache only.

Each unit's synthesis seconds are, in this order:

1. **measured**: the unit itself is in the cache (its Verilog and its area under the space's flow): the wall
   seconds its synthesis took (``synth_s``);
2. **modelled**: the shape model :func:`shape_cost` (r, m, k1) times a factor fitted on what the cache holds —
   the median of ``synth_s / shape_cost`` over the cached units of the same r and flow kind (reuse or not),
   else over all cached units of that flow kind, else over every cached unit;
3. **fallback** (nothing cached): :data:`FALLBACK_S_PER_COST` times the shape model, calibrated on the cold
   ``paper`` run of docs/sweep.md.

The cached units come from the space itself (looked up by key, as a run would) and from every other dot unit
in the cache (its shape read from its module name, ``fpforge_dot_bdr_m<M>_k<K1>_..._r<R>_f<F>``).

The wall time on W workers (local processes, or ``--workers N`` Dask/batch workers) is the QSNR and Verilog
generation (per point and unit, spread over the workers) plus the synthesis scheduled longest first onto W
workers (what the sweep does: :func:`fpforge.sweep.run.synthesize_units` sorts by size).
"""

from __future__ import annotations

import os
import re
import statistics
from dataclasses import dataclass, field

from ..golden.errors import FpforgeTypeError, FpforgeValueError

__all__ = ["FALLBACK_S_PER_COST", "Estimate", "estimate", "format_duration", "shape_cost"]

#: Seconds of synthesis per unit of :func:`shape_cost` when the cache holds no unit to fit on: calibrated on the
#: cold ``paper`` run of docs/sweep.md (area goal, lean flow: the median over its 798 BDR-named units; 65 min of
#: synthesis summed over its 812 units, 34 min 47 s on 2 cores of an AMD EPYC machine). The reuse flow's run gave
#: 0.52, the delay goal's (on an Intel Xeon machine) 1.15.
FALLBACK_S_PER_COST = 0.55
#: Seconds per point (QSNR at the space's vectors, scaled from 10,000) and per unit (Verilog generation)
#: before any synthesis, measured on the AMD EPYC machine of the cold run: QSNR of the 811 ``paper`` points in
#: 27 s on 2 processes (``bench-sweep``), the Verilog of 30 of its units 0.32 s each (the first cold run, on
#: an Intel Xeon machine, took ~6 min for both: 0.45 s each).
QSNR_S_PER_POINT = 0.07
GENERATE_S_PER_UNIT = 0.33

_TOP = re.compile(r"^fpforge_dot_bdr_m(\d+)_k(\d+)_d\d+_k\d+_d\d+_r(\d+)_f(\d+)")


def shape_cost(r, m, k1=None) -> float:
    """The shape model of a dot unit's synthesis time, in arbitrary units: linear in r (r lanes), and in
    1 + m² / 10 (the r multipliers of m + 1 bit magnitudes over the rest of each lane). ``k1`` is not in the
    model (the cache's factor absorbs it)."""
    return (r / 16) * (1 + (m * m) / 10)


@dataclass
class Estimate:
    """What :func:`estimate` returns (``str()``: the report ``--estimate`` prints)."""

    space: str
    flow: str
    workers: int
    where: str
    points: int
    units: list = field(repr=False)  # (r, m, seconds, source) per unit to synthesize
    cached_units: int = 0
    fitted_on: int = 0
    front_s: float = 0.0
    synth_s: float = 0.0
    wall_s: float = 0.0
    remaining_s: float = 0.0

    def text(self) -> str:
        src = {s: sum(u[3] == s for u in self.units) for s in ("measured", "modelled", "fallback")}
        how = (f"{src['measured']} measured in the cache, {src['modelled']} modelled from {self.fitted_on} cached "
               f"unit{'s' * (self.fitted_on != 1)}" if self.fitted_on else
               f"the cache holds no unit to fit on: {src['fallback']} from the built-in calibration "
               f"(docs/sweep.md, Performance)")
        pts = f"{self.points} point{'s' * (self.points != 1)}"
        if not self.units:
            return (f"estimate for sweep {self.space}: {pts}, QSNR only (no synthesis)\n"
                    f"projected cold time on {self.where}: {format_duration(self.wall_s)}\n"
                    "(nothing was run; an estimate)")
        lines = [f"estimate for sweep {self.space} (flow {self.flow}): {pts}, {len(self.units)} units "
                 f"to synthesize ({how})"]
        for r in sorted({u[0] for u in self.units}):
            ts = [u[2] for u in self.units if u[0] == r]
            lines.append(f"  r = {r}: {len(ts)} units, synthesis per unit median "
                         f"{format_duration(statistics.median(ts))}, max {format_duration(max(ts))}, "
                         f"{format_duration(sum(ts))} in all")
        lines.append(f"projected cold time on {self.where}: {format_duration(self.wall_s)} (QSNR and Verilog "
                     f"{format_duration(self.front_s)}, synthesis {format_duration(self.wall_s - self.front_s)}; "
                     f"{format_duration(self.synth_s)} of synthesis summed over the units)")
        if self.cached_units:
            lines.append(f"with this cache: {self.cached_units} of the {len(self.units)} units are cached already; "
                         f"the synthesis left takes about {format_duration(self.remaining_s)} on {self.where}")
        lines.append("(nothing was run; an estimate: a loaded machine or another yosys build takes longer)")
        return "\n".join(lines)

    __str__ = text


def format_duration(s) -> str:
    """Seconds as the docs write them: ``12.3 s``, ``34 min 47 s``, ``1 h 46 min`` (rounded as a whole, so 119.6 s
    is ``2 min 00 s``, never ``1 min 60 s``)."""
    s = float(s)
    if s < 59.95:
        return f"{s:.1f} s"
    if s < 3599.5:
        m, sec = divmod(round(s), 60)
        return f"{m} min {sec:02d} s"
    h, m = divmod(round(s / 60), 60)
    return f"{h} h {m:02d} min"


def _where(workers, local) -> str:
    return f"{workers} local process{'es' * (workers != 1)}" if local else f"{workers} worker{'s' * (workers != 1)}"


def _makespan(times, workers) -> float:
    """Longest first onto the least-loaded of ``workers``: the wall time of the synthesis phase."""
    load = [0.0] * workers
    for t in sorted(times, reverse=True):
        i = load.index(min(load))
        load[i] += t
    return max(load) if load else 0.0


def _cached_units(store, reuse):
    """``[(r, m, k1, seconds)]`` of every cached dot-unit synthesis whose shape its module name tells, of the
    flow kind ``reuse`` (a reuse-flow result carries ``reused_multipliers``)."""
    import json

    out = []
    root = store.directory
    for sub in os.listdir(root) if os.path.isdir(root) else ():
        d = os.path.join(root, sub)
        if len(sub) != 2 or not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            try:
                with open(os.path.join(d, name), encoding="utf-8") as fh:
                    res = json.load(fh).get("result")
            except (OSError, ValueError, AttributeError):
                continue
            if not isinstance(res, dict) or not isinstance(res.get("synth_s"), (int, float)):
                continue
            m = _TOP.match(str(res.get("top", "")))
            if m and ("reused_multipliers" in res) == reuse and res.get("clock_ns") is None:
                out.append((int(m.group(3)), int(m.group(1)), int(m.group(2)), float(res["synth_s"])))
    return out


def estimate(space, *, workers=None, cache=None, synth=True) -> Estimate:
    """The projected cold time of sweeping ``space`` on ``workers`` (default: the local cores), from the
    cache's per-unit timings (see the module docstring). Runs nothing, writes nothing.

    Parameters
    ----------
    space : str, Path or Space
        A built-in dot-product space, a TOML file or a :class:`~fpforge.sweep.Space`.
    workers : int, optional
        Worker processes (>= 1); None: ``os.cpu_count()``.
    cache : str, Path, Store or False, optional
        Where the timings are read (default: the sweep cache); False: none (the built-in calibration).
    synth : bool, default True
        False: QSNR only (``--no-synth``).
    """
    from ..jobs import MISSING, Store, cache_dir, task_key
    from .evaluate import area_key, unit_spec, verilog_key
    from .points import FP8_BASELINE
    from .run import _area, evaluate
    from .space import Space, load_space

    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)):
        raise FpforgeTypeError(f"workers must be a positive integer, not {workers!r}")
    if workers is not None and workers < 1:
        raise FpforgeValueError(f"workers must be a positive integer (worker processes), not {workers}")
    if not isinstance(synth, bool):
        raise FpforgeTypeError(f"synth must be True or False, not {synth!r}")
    if cache is not None and cache is not False and not isinstance(cache, (str, os.PathLike, Store)):
        raise FpforgeTypeError(f"cache must be None, False, a directory or a Store, not {cache!r}")
    space = load_space(space)
    if not isinstance(space, Space):
        raise FpforgeValueError(f"{space.name} is an area table: the estimate applies to dot-product spaces")
    local = workers is None
    workers = workers or os.cpu_count() or 1
    if cache is False:
        store = None
    elif isinstance(cache, Store):
        store = cache
    else:
        path = cache if cache is not None else cache_dir("sweep")
        store = Store(path) if os.path.isdir(path) else None  # (an estimate creates no cache directory)

    cells = space.cells()
    units = {}  # spec hash -> (r, m, k1, area task)
    if synth:
        for p, r, f in cells:
            f = 24 if f == "auto" else f  # (the auto width is known after QSNR only: estimated at f = 24)
            for pt in (p, FP8_BASELINE):
                spec = unit_spec(pt, r, f)
                units.setdefault(spec.sha256, (r, pt["m"], pt["k1"], _area(space, spec)))
    reuse = space.flow == "reuse"
    measured = {}
    if store is not None:
        for h, (r, m, k1, task) in units.items():
            v = store.get(task_key(evaluate, dict(kind="verilog", unit=task["unit"]), verilog_key))
            if v is MISSING or not isinstance(v, dict) or "verilog_sha256" not in v:
                continue
            a = store.get(task_key(evaluate, dict(task, verilog_sha256=v["verilog_sha256"], top=v["top"]), area_key))
            if isinstance(a, dict) and isinstance(a.get("synth_s"), (int, float)):
                measured[h] = float(a["synth_s"])
    fit = _cached_units(store, reuse) if store is not None and synth else []
    if store is not None and synth and not fit:
        fit = _cached_units(store, not reuse)  # the other flow kind: better than nothing
    ratios_r: dict = {}
    for r, m, k1, t in fit:
        ratios_r.setdefault(r, []).append(t / shape_cost(r, m, k1))
    all_ratios = [x for v in ratios_r.values() for x in v]
    out = []
    for h, (r, m, k1, task) in units.items():
        if h in measured:
            out.append((r, m, measured[h], "measured"))
        elif all_ratios:
            out.append((r, m, statistics.median(ratios_r.get(r) or all_ratios) * shape_cost(r, m, k1), "modelled"))
        else:
            out.append((r, m, FALLBACK_S_PER_COST * shape_cost(r, m, k1), "fallback"))
    points = len({p["name"] for p, _, _ in cells})
    front = (points * QSNR_S_PER_POINT * space.vectors / 10000 + len(units) * GENERATE_S_PER_UNIT) / workers
    if not synth:
        return Estimate(space=space.name, flow=space.flow, workers=workers, where=_where(workers, local),
                        points=points, units=[], front_s=front, wall_s=front)
    times = [t for _, _, t, _ in out]
    left = [t for (h, _), (_, _, t, _) in zip(units.items(), out) if h not in measured]
    return Estimate(space=space.name, flow=space.flow, workers=workers, where=_where(workers, local), points=points,
                    units=out,
                    cached_units=len(measured), fitted_on=len(fit), front_s=front, synth_s=sum(times),
                    wall_s=front + _makespan(times, workers), remaining_s=_makespan(left, workers))
