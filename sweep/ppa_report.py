"""A PPA sweep's section of docs/results.md (``fpforge sweep SPACE --ppa --liberty L --clock-ns T --results``): the
named formats' area, delay, slack, power and energy per dot product, each relative to the FP8 unit at the same r
and f; the energy frontier (Pareto on energy × memory, whatever ``--cost`` the run chose); a statement beside the
paper's; and the figure and CSV beside it (docs/results/<space>-ppa.png, .csv).

The section is ``ppa-<space>`` — apart from the area section ``sweep-<space>``, whose areas are those of the
area flow on fpforge45: a PPA run maps every unit for the clock on another library, so it does not overwrite it.
Its JSON (``data``) holds ``named`` (one dict per named format: the CSV columns plus ``delay_rel`` and
``power_rel``), ``rel`` (``{name: {area_rel, delay_rel, power_rel, energy_rel}}`` of MX9/MX6/MX4 and the other
named formats: what README's headline row reads), ``energy_frontier``, ``area_frontier``, ``liberty``,
``clock_ns``, ``activity``, ``r``, ``f``, ``synthesis`` (what the PPA step cost per unit when it was computed:
:func:`synthesis_times`) and ``statement`` (the statement's lines).
"""

from __future__ import annotations

import statistics
from pathlib import Path

from ..jobs import write_atomic
from ..jobs.results import RESULTS_PATH, markdown_table, write_section
from .plot import LABELS, plot_pareto
from .points import Row
from .table import SweepResult, cost_of, pareto_groups, rf_group

__all__ = ["PPA_SECTION_PREFIX", "energy_view", "ppa_markdown", "ppa_data", "write_ppa_results"]

#: The section of a PPA sweep of space ``name`` is ``ppa-<name>``.
PPA_SECTION_PREFIX = "ppa-"

#: The paper's named formats, in the order the statement and the headline read them.
HEADLINE = ("mx9", "mx6", "mx4")


def _ratio(x, base):
    return None if x is None or not base else x / base


def energy_view(result) -> SweepResult:
    """``result`` with cost = energy × memory relative to FP8 and the Pareto flags on that cost (the energy
    frontier), whatever cost it was run with (a reading of the same measurements: nothing is measured)."""
    sp = result.space.with_(cost="energy-memory")
    rows = [Row.from_record(r).with_(cost=cost_of(r, "energy-memory")) for r in result.rows]
    rows = [r.with_(pareto=on) for r, on in zip(rows, pareto_groups(rows, sp))]
    return SweepResult(sp, rows, list(result.failures), dict(result.stats))


def _area_front(result) -> list:
    rows = [dict(r, cost=cost_of(r, "area-memory")) for r in result.rows]
    return [r["name"] for r, on in zip(rows, pareto_groups(rows, result.space.with_(cost="area-memory"))) if on]


def _is_named(row) -> bool:
    return row["name"] in LABELS or not row["name"].startswith("bdr_")


def _library_name(path) -> str:
    """``osu018`` for the osu018 cells wherever they are installed, else the liberty file's name."""
    if not path:
        return "fpforge45"
    p = Path(path)
    return "osu018" if "osu018" in p.parts or p.name.startswith("osu018") else p.name


def _shown_path(path):
    """The liberty's path, relative to the checkout when it is inside it (.tech/osu018/...), or None."""
    if not path:
        return None
    from ..jobs.results import checkout

    root = checkout()
    try:
        return str(Path(path).resolve().relative_to(root)) if root else str(path)
    except ValueError:
        return str(path)


def ppa_data(result) -> dict:
    """The section's data (see the module docstring) from a PPA sweep's result."""
    sp = result.space
    if not getattr(sp, "ppa", False):
        from ..golden.errors import FpforgeValueError

        raise FpforgeValueError(f"space {sp.name!r} was not swept with --ppa: the PPA section needs its delay, "
                                "power and energy columns")
    ev = energy_view(result)
    fp8 = {}
    for r in result.rows:  # the FP8 unit of each (r, f) group: its delay and power are the baseline's
        if r["name"] == "e4m3" and r.get("delay_ns") is not None:
            fp8[rf_group(r, sp)] = r
    named = []
    for r, e in zip(result.rows, ev.rows):
        if not _is_named(r):
            continue
        base = fp8.get(rf_group(r, sp), {})
        named.append(dict(r, delay_rel=_ratio(r.get("delay_ns"), r.get("fp8_delay_ns")),
                          power_rel=_ratio(r.get("power_mw"), base.get("power_mw")),
                          energy_memory=e["cost"], energy_pareto=e["pareto"]))
    rel = {}
    for r in named:  # (a space sweeping r or f: its first group)
        rel.setdefault(r["name"], {k: r.get(k) for k in ("area_rel", "delay_rel", "power_rel", "energy_rel")})
    front = sorted((r for r in ev.rows if r.get("pareto")), key=lambda r: r["cost"])
    data = dict(space=sp.name, points=len(result.rows), axes=list(sp.axes), failures=len(result.failures), r=sp.r, f=sp.f,
                liberty=_shown_path(sp.liberty), library=_library_name(sp.liberty), clock_ns=sp.clock_ns,
                activity=getattr(sp, "activity", "vectorless"), flow=sp.flow, vectors=sp.vectors, seed=sp.seed,
                csv=f"results/{sp.name}-ppa.csv", figure=f"results/{sp.name}-ppa.png", named=named, rel=rel,
                energy_frontier=[dict(name=r["name"], bits_per_element=r["bits_per_element"], qsnr_db=r["qsnr_db"],
                                      energy_rel=r["energy_rel"], memory_rel=r["memory_rel"], cost=r["cost"])
                                 for r in front],
                area_frontier=_area_front(result))
    data["synthesis"] = synthesis_times(result)
    data["statement"] = statement(data)
    return data


def synthesis_times(result) -> dict | None:
    """The PPA step's cost as measured when each distinct unit was computed (mapping at the clock, OpenSTA, the
    workload simulation, power): ``units``, ``wall_median_s``, ``wall_max_s``, ``wall_sum_s``, ``cpu_sum_s``
    (yosys, ABC and OpenSTA; None where a cache entry predates CPU times). The cache keeps these, so a section
    regenerated from the cache still reports what the cold run cost."""
    wall, cpu = {}, {}
    for r in result.rows:
        h = r.get("verilog_sha256")
        if h and r.get("synth_s") is not None:
            wall[h] = r["synth_s"]
            cpu[h] = r.get("synth_cpu_s")
    if not wall:
        return None
    times = sorted(wall.values())
    return dict(units=len(wall), wall_median_s=round(statistics.median(times), 3), wall_max_s=round(times[-1], 3),
                wall_sum_s=round(sum(times), 1),
                cpu_sum_s=round(sum(cpu.values()), 1) if all(c is not None for c in cpu.values()) else None)


def _synthesis_sentence(syn) -> str:
    if not syn:
        return ""
    cpu = (f" ({syn['cpu_sum_s'] / 60:,.0f} min of CPU: yosys, ABC, OpenSTA)" if syn.get("cpu_sum_s") is not None
           else "")
    return (f" PPA step per distinct unit (mapping at T, OpenSTA, workload simulation, power), wall when it was "
            f"computed: median {syn['wall_median_s']:.1f} s, max {syn['wall_max_s']:.1f} s, "
            f"{syn['wall_sum_s'] / 60:,.0f} min summed over the {syn['units']} units{cpu}.")


def _f(v, spec):
    return "–" if v is None else format(v, spec)


def statement(data) -> list:
    """The lines beside the paper's: computed from the data, never typed."""
    rel, T, lib = data["rel"], data["clock_ns"], data["library"]
    have = [n for n in HEADLINE if rel.get(n, {}).get("energy_rel") is not None]
    lines = [f"The paper (seed 004 §IV-B) synthesized every configuration under a {10:g} ns constraint and measured "
             "the power and area of its dot-product engine, but Fig. 7's cost is area × memory and it gives no power "
             f"or energy figures for it. Ours, on {lib} at {T:g} ns ({data['activity']} activity), computed from the "
             "table above:"]
    if have:
        e = " · ".join(f"{n.upper()} {rel[n]['energy_rel']:.2f}×" for n in have)
        a = " · ".join(f"{n.upper()} {rel[n]['area_rel']:.2f}×" for n in have)
        lines.append(f"- Energy per dot product relative to FP8: {e} (area at {T:g} ns: {a}).")
        below = [n.upper() for n in have if rel[n]["energy_rel"] < 1]
        above = [n.upper() for n in have if rel[n]["energy_rel"] >= 1]
        lines.append(f"- Below FP8's energy: {', '.join(below) or 'none'}"
                     + (f"; at or above it: {', '.join(above)}" if above else "") + ".")
        spread = [rel[n]["energy_rel"] / rel[n]["area_rel"] for n in have if rel[n].get("area_rel")]
        if spread:
            lines.append(f"- Energy/FP8 ÷ area/FP8 is {min(spread):.2f}–{max(spread):.2f} for "
                         f"{', '.join(n.upper() for n in have)} (1: energy in proportion to area); "
                         + ("ranked by energy they keep their order by area."
                            if _same_order(rel, have) else "ranked by energy their order by area changes."))
    ef = [x["name"] for x in data["energy_frontier"]]
    af = data["area_frontier"]
    on_e = [n for n in ef if n in LABELS]
    lines.append(f"- Energy × memory frontier of this space: {', '.join(LABELS.get(n, n) for n in ef) or 'empty'}; "
                 f"the area × memory frontier of the same units: {', '.join(LABELS.get(n, n) for n in af) or 'empty'}"
                 + (" — the same points." if set(ef) == set(af) else " — they differ.")
                 + ("" if on_e else " No named format is on the energy frontier."))
    dens = [(r["power_mw"] / r["area_um2"] * 1e6, r) for r in data["named"]
            if r.get("power_mw") is not None and r.get("area_um2")]
    if dens:
        lo, hi = min(dens, key=lambda x: x[0]), max(dens, key=lambda x: x[0])
        lines.append(f"- Power per area spans {lo[0]:,.0f}–{hi[0]:,.0f} mW/mm² across the named units "
                     f"({LABELS.get(lo[1]['name'], lo[1]['name'])} to {LABELS.get(hi[1]['name'], hi[1]['name'])}, "
                     f"{hi[0] / lo[0]:.0f}×): with {data['activity']} activity the energy ratios follow the activity "
                     "OpenSTA propagates through each unit's logic as much as its size"
                     + (" — a guess at every input (0.1 toggles per cycle), not a measurement: the workload activity "
                        "(gate-level toggles of real operands, docs/ppa.md) is the figure to trust."
                        if data["activity"] == "vectorless" else "."))
    named = [r for r in data["named"] if r.get("slack_ns") is not None]
    if named:
        met = [r for r in named if r["slack_ns"] >= 0]
        worst = max(named, key=lambda r: r["delay_ns"])
        lines.append(f"- Timing: {len(met)} of {len(named)} named units meet {T:g} ns on {lib} (slowest: "
                     f"{LABELS.get(worst['name'], worst['name'])}, {worst['delay_ns']:.2f} ns). The paper calls "
                     f"{10:g} ns easily met with its library" + ("; osu018 is an old 0.18 µm library." if lib == "osu018"
                                                                  else "."))
    return lines


def _name(row, data):
    """A named row's label (with its r and f in a space that sweeps them)."""
    text = LABELS.get(row["name"], row["name"])
    return text + (f" (r = {row['r']}, f = {row['f']})" if data.get("axes") else "")


def _same_order(rel, names) -> bool:
    by_e = sorted(names, key=lambda n: rel[n]["energy_rel"])
    by_a = sorted(names, key=lambda n: rel[n]["area_rel"])
    return by_e == by_a


def ppa_markdown(data) -> str:
    """The section's markdown from its data (:func:`ppa_data`)."""
    T, lib = data["clock_ns"], data["library"]
    md = [f"## PPA of the dot-product units: `{data['space']}` on {lib} at {T:g} ns",
          f"{data['points']} points, r = {data['r']}, f = {data['f']}, the paper's method (combinational, I/O "
          f"registers only), {data['flow']} flow mapped for the {T:g} ns clock (ABC delay target, inputs driven by "
          "the library's smallest buffer, outputs loaded with four of its inputs: docs/ppa.md) and timed by OpenSTA; "
          f"power at {T:g} ns with **{data['activity']}** activity, zero-delay toggles (no glitch power), no wire "
          "parasitics; energy per dot product = power × T (one dot product per cycle). Every ratio is to the FP8 "
          f"(E4M3) unit at the same r and f. QSNR over {data['vectors']:,} Gaussian vectors of 256 values (seed "
          f"{data['seed']}). Full table: [{data['csv']}]({data['csv']}); method and limits: [ppa.md](ppa.md)."
          + (f" {data['failures']} point(s) failed." if data["failures"] else "")
          + _synthesis_sentence(data.get("synthesis")), "",
          f"![QSNR against energy × memory]({data['figure']})", "",
          "### Named formats", "",
          markdown_table(("format", "bits/elem", "QSNR dB", "area µm²", "area/FP8", "delay ns", "delay/FP8",
                          "slack ns", "power mW", "power/FP8", "energy pJ", "energy/FP8", "memory/FP8",
                          "energy × memory"),
                         [(_name(r, data), f"{r['bits_per_element']:g}", _f(r.get("qsnr_db"), ".2f"),
                           _f(r.get("area_um2"), ",.0f"), _f(r.get("area_rel"), ".3f"), _f(r.get("delay_ns"), ".2f"),
                           _f(r.get("delay_rel"), ".3f"), _f(r.get("slack_ns"), ".2f"), _f(r.get("power_mw"), ".3f"),
                           _f(r.get("power_rel"), ".3f"), _f(r.get("energy_pj"), ".1f"), _f(r.get("energy_rel"), ".3f"),
                           f"{r['memory_rel']:.2f}", _f(r.get("energy_memory"), ".3f")
                           + (" P" if r.get("energy_pareto") else ""))
                          for r in data["named"]], "lrrrrrrrrrrrrr"), "",
          "P: on the energy frontier.", "",
          f"### The energy frontier ({len(data['energy_frontier'])} points, Pareto on energy × memory)", "",
          markdown_table(("point", "bits/elem", "QSNR dB", "energy/FP8", "memory/FP8", "energy × memory"),
                         [(LABELS.get(x["name"], x["name"]), f"{x['bits_per_element']:g}", f"{x['qsnr_db']:.2f}",
                           f"{x['energy_rel']:.3f}", f"{x['memory_rel']:.2f}", f"{x['cost']:.3f}")
                          for x in data["energy_frontier"]], "lrrrrr"), "",
          "### Beside the paper", "", *data["statement"]]
    return "\n".join(md)


def write_ppa_results(result, command, results_path=None) -> Path:
    """Write the figure (energy × memory), the CSV (the run's cost) and the section ``ppa-<space>`` of
    docs/results.md; returns the document's path."""
    path = Path(results_path) if results_path else RESULTS_PATH
    sp = result.space
    data = ppa_data(result)
    folder = path.parent / "results"
    folder.mkdir(parents=True, exist_ok=True)
    ev = energy_view(result)
    figure = None
    if any(r.get("cost") is not None and r.get("qsnr_db") is not None for r in ev.rows):
        figure = plot_pareto(ev, "png", facet=sp.axes[0] if sp.axes else None)
    write_atomic(folder / f"{sp.name}-ppa.csv", result.csv())
    if figure is not None:
        write_atomic(folder / f"{sp.name}-ppa.png", figure)
    return write_section(f"{PPA_SECTION_PREFIX}{sp.name}", ppa_markdown(data), command=command, path=path, data=data)
