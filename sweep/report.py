"""A sweep's section of docs/results.md: the named formats, the Pareto frontier, the claims, and the figure
and the full CSV beside it (docs/results/<space>.png, .csv) — all written by ``fpforge sweep SPACE --results``."""

from __future__ import annotations

import statistics
from pathlib import Path

from ..jobs import write_atomic
from ..jobs.results import RESULTS_PATH, markdown_table, provenance_line, read_data, write_section
from .claims import claims_markdown
from .plot import LABELS, plot_pareto
from .table import SCALED_FAMILIES

__all__ = ["axes_markdown", "points_markdown", "write_results"]

_COLS = ("name", "bits/elem", "QSNR dB", "p5 dB", "area µm²", "area/FP8", "memory/FP8", "cost", "Pareto")


#: How a section names the space's mapping goal (docs/synth.md, "Mapping goal").
_GOAL_WORDS = {"area": "`--goal area`: depth relaxed for the least area",
               "delay": "`--goal delay`: minimum depth, then area"}


def _fmt(v, spec):
    return "–" if v is None else format(v, spec)


def points_markdown(rows) -> str:
    return markdown_table(_COLS, [[
        r["name"], f"{r['bits_per_element']:g}", _fmt(r.get("qsnr_db"), ".2f"), _fmt(r.get("qsnr_p5_db"), ".2f"),
        _fmt(r.get("area_um2"), ",.0f"), _fmt(r.get("area_rel"), ".3f"), f"{r['memory_rel']:.2f}",
        _fmt(r.get("cost"), ".3f"), "yes" if r.get("pareto") else ""] for r in rows]) + "\n"


def _measured(name, path):
    """From the section ``name``'s JSON already there: (the provenance of the run that measured its points;
    its sentence on the synthesis times) — each None if absent."""
    doc = read_data(name, path)
    if doc is None:
        return None, None
    data = doc.get("data") or {}
    return data.get("measured") or doc["provenance"], data.get("synthesis")


def scale_note(result) -> str:
    """The sentence on the INT/FP8 points' per-vector FP32 scale under the result's reading ("" if none)."""
    if not any(r.get("family") in SCALED_FAMILIES for r in result.rows):
        return ""
    how = ("are counted here (`--count-scale-bits`: +32 bits per 256 values, +0.125 bits per element, in their "
           "bits, memory and cost)" if result.scale_bits_counted else
           "do not count (the paper's reading; `--count-scale-bits` adds 32 bits per 256 values)")
    return ("INT and FP8 points (E4M3/E5M2, INTn; marked * in the figure): their QSNR uses a per-vector FP32 scale "
            f"that their bits per element and memory {how}. The CSV's `qsnr_scale` and `scale_bits_counted` "
            "columns say which; the paper's statements are checked under both readings. ")


def axes_markdown(result) -> str:
    """For a space that sweeps r or f: how the frontier and the named formats move across the (r, f) groups —
    the frontier's size and cost range per group, and each named format's cost, area/FP8 and Pareto flag per
    group ("" for a space of one r and one f)."""
    if not getattr(result.space, "axes", ()):
        return ""
    groups = result.groups()
    heads = [f"r = {r}, f = {f}" for r, f in groups]
    subs = [result.group(r, f) for r, f in groups]
    fronts = []
    for sub in subs:
        front = sorted((r for r in sub.rows if r.get("pareto")), key=lambda r: r["cost"])
        fronts.append(front)
    lines = ["### The frontier across r and f", "",
             markdown_table(("r, f", "points", "frontier points", "frontier cost range", "frontier QSNR range (dB)",
                             "cheapest frontier point"),
                            [(h, len(sub.rows), len(fr),
                              f"{fr[0]['cost']:.3f}–{fr[-1]['cost']:.3f}" if fr else "–",
                              f"{min(r['qsnr_db'] for r in fr):.2f}–{max(r['qsnr_db'] for r in fr):.2f}" if fr else "–",
                              fr[0]["name"] if fr else "–") for h, sub, fr in zip(heads, subs, fronts)]), ""]
    names = [r["name"] for r in subs[0].rows if r["name"] in LABELS or not r["name"].startswith("bdr_")]
    cells = []
    for name in names:
        row = [name]
        for sub in subs:
            x = next((r for r in sub.rows if r["name"] == name), None)
            row.append("–" if x is None or x.get("cost") is None else
                       f"{x['cost']:.3f} ({x['area_rel']:.2f}×){' P' if x.get('pareto') else ''}")
        cells.append(row)
    lines += ["### The named formats across r and f", "",
              "Cost (area/FP8 at the same r and f in brackets; P: on that group's frontier). A block format whose "
              "k1 exceeds r runs at r = k1 (in the group of the largest r not above it).", "",
              markdown_table(("format", *heads), cells), ""]
    return "\n".join(lines)


def _cold_words(cold) -> str:
    """The sentence of a measured cold run (:func:`fpforge.sweep.run._cold_run`)."""
    from .estimate import format_duration

    return (f" Cold run that made these results (every one of its {cold['tasks']:,} tasks computed, none cached): "
            f"**{format_duration(cold['seconds'])}** wall on {cold['executor']}, {cold['date']}, {cold['machine']}, "
            f"{cold['commit']}.")


def write_results(result, command, results_path=None, from_csv=None, facet=None) -> Path:
    """Write the figure, the CSV and the section ``sweep-<space>`` of docs/results.md; returns its path.
    ``from_csv``: the result was re-read from that CSV (``fpforge sweep --from-csv``): the section keeps the
    provenance and synthesis times of the run that measured the points, when the document has them. A PPA run
    (``--ppa``) writes the section ``ppa-<space>`` instead (:mod:`fpforge.sweep.ppa_report`)."""
    if getattr(result.space, "ppa", False):  # a PPA run: its own section (ppa-<space>), the area one stays
        from .ppa_report import write_ppa_results

        return write_ppa_results(result, command, results_path)
    if any(r.get("delay_ns") is not None for r in result.rows):  # a PPA run's CSV re-read (--from-csv)
        from ..golden.errors import FpforgeValueError

        raise FpforgeValueError(f"these points of {result.space.name!r} were measured with --ppa (their areas are at "
                                "a clock on another library): their section is written by the PPA sweep itself — "
                                "rerun it with --results (from the cache: seconds)")
    path = Path(results_path) if results_path else RESULTS_PATH
    sp = result.space
    folder = path.parent / "results"
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(folder / f"{sp.name}.csv", result.csv())
    has_cost = any(r.get("cost") is not None for r in result.rows)
    if has_cost:
        if facet is None and sp.axes:
            facet = sp.axes[0]
        write_atomic(folder / f"{sp.name}.png", plot_pareto(result, "png", facet=facet))
    named = [r for r in result.rows if r["name"] in LABELS or not r["name"].startswith("bdr_")]
    front = sorted((r for r in result.rows if r.get("pareto")), key=lambda r: r["cost"])
    secs = [r["synth_s"] for r in result.rows if r.get("synth_s") is not None]
    units = {r["verilog_sha256"]: r["synth_s"] for r in result.rows
             if r.get("synth_s") is not None and r.get("verilog_sha256")}
    builds = sorted({r["yosys"] for r in result.rows if r.get("yosys")})
    measured, synth_note = _measured(f"sweep-{sp.name}", path) if from_csv else (None, None)
    cold = (result.stats or {}).get("cold_run") if not from_csv else None
    synth_now = (f"Synthesized with {', '.join(builds)}; per unit, wall when it was computed (on the machine "
                 f"that filled the cache): median {statistics.median(secs):.1f} s, max {max(secs):.1f} s, "
                 f"{sum(units.values()) / 60:,.0f} min summed over the {len(units)} distinct units." if secs else None)
    lines = [f"## Design-space sweep `{sp.name}` (the MX paper's Fig. 7)",
             f"{len(result.rows)} points, r = {sp.r} (k1 where k1 > r), f = {sp.f}"
             + (" (one row per point, r and f; a frontier per r and f)" if sp.axes else "") + f", QSNR over {sp.vectors:,} "
             f"Gaussian vectors of 256 values (σ = 2^U(−8, 8) per vector, seed {sp.seed}); area: the paper's "
             f"method (combinational, I/O registers only), yosys ({sp.flow} flow, "
             + (_GOAL_WORDS[sp.goal] if sp.goal else f"ABC script `{sp.abc_script}`")
             + ") onto fpforge45.lib; cost = area / "
             "FP8 unit's "
             "at the same r and f × 64-byte accesses per 256-element tile / FP8's. "
             f"Full table: [results/{sp.name}.csv](results/{sp.name}.csv); method: [sweep.md](sweep.md). "
             + scale_note(result)
             + (f"{len(result.failures)} point(s) failed. " if result.failures else "")
             + (f"Points re-read from `{from_csv}` (nothing measured again). " if from_csv else "")
             + (synth_note if synth_note and not secs else "")
             + (synth_now or "")
             + (_cold_words(cold) if cold else ""),
             ""]
    if measured:
        lines[1:1] = [provenance_line(measured).replace("_Generated by", "_Points measured by", 1), ""]
    if has_cost:
        lines += [f"![QSNR against cost](results/{sp.name}.png)", ""]
    if sp.axes and has_cost:
        lines += [axes_markdown(result)]
    lines += ["### Named formats", "", points_markdown(named), f"### The Pareto frontier ({len(front)} points)", "",
              points_markdown(front)]
    if has_cost:
        lines += ["### The paper's statements", "", claims_markdown(result)]
    from ..sweep.claims import check_claims
    from .table import SCALED_FAMILIES as scaled

    readings = (False, True) if any(r.get("family") in scaled for r in result.rows) else (False,)
    data = dict(space=sp.name, flow=sp.flow, goal=sp.goal, points=len(result.rows), failures=len(result.failures),
                csv=f"results/{sp.name}.csv",
                frontier=[r["name"] for r in front], named=named,
                claims=[dict(scale_bits_counted=c, rows=check_claims(result, c)) for c in readings] if has_cost else [],
                synthesis=synth_now or synth_note, measured=measured, cold_run=cold)
    return write_section(f"sweep-{sp.name}", "\n".join(lines), command=command, path=path, data=data)
