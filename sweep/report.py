"""A sweep's section of docs/results.md: the named formats, the Pareto frontier, the claims, and the figure
and the full CSV beside it (docs/results/<space>.png, .csv) — all written by ``fpforge sweep SPACE --results``."""

from __future__ import annotations

import statistics
from pathlib import Path

from ..jobs import write_atomic
from .claims import claims_markdown
from .plot import LABELS, plot_pareto

__all__ = ["points_markdown", "write_results"]

_COLS = ("name", "bits/elem", "QSNR dB", "p5 dB", "area µm²", "area/FP8", "memory/FP8", "cost", "Pareto")


def _fmt(v, spec):
    return "–" if v is None else format(v, spec)


def points_markdown(rows) -> str:
    out = ["| " + " | ".join(_COLS) + " |", "|" + "---|" * len(_COLS)]
    for r in rows:
        out.append("| " + " | ".join([
            r["name"], f"{r['bits_per_element']:g}", _fmt(r.get("qsnr_db"), ".2f"), _fmt(r.get("qsnr_p5_db"), ".2f"),
            _fmt(r.get("area_um2"), ",.0f"), _fmt(r.get("area_rel"), ".3f"), f"{r['memory_rel']:.2f}",
            _fmt(r.get("cost"), ".3f"), "yes" if r.get("pareto") else ""]) + " |")
    return "\n".join(out) + "\n"


def write_results(result, command, results_path=None) -> Path:
    """Write the figure, the CSV and the section ``sweep-<space>`` of docs/results.md; returns its path."""
    from ..results import RESULTS_PATH, write_section

    path = Path(results_path) if results_path else RESULTS_PATH
    sp = result.space
    folder = path.parent / "results"
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(folder / f"{sp.name}.csv", result.csv())
    has_cost = any(r.get("cost") is not None for r in result.rows)
    if has_cost:
        write_atomic(folder / f"{sp.name}.png", plot_pareto(result, "png"))
    named = [r for r in result.rows if r["name"] in LABELS or not r["name"].startswith("bdr_")]
    front = sorted((r for r in result.rows if r.get("pareto")), key=lambda r: r["cost"])
    secs = [r["synth_s"] for r in result.rows if r.get("synth_s") is not None]
    units = {r["verilog_sha256"]: r["synth_s"] for r in result.rows
             if r.get("synth_s") is not None and r.get("verilog_sha256")}
    builds = sorted({r["yosys"] for r in result.rows if r.get("yosys")})
    lines = [f"## Design-space sweep `{sp.name}` (the MX paper's Fig. 7)",
             f"{len(result.rows)} points, r = {sp.r} (k1 where k1 > r), f = {sp.f}, QSNR over {sp.vectors:,} "
             f"Gaussian vectors of 256 values (σ = 2^U(−8, 8) per vector, seed {sp.seed}); area: the paper's "
             f"method (combinational, I/O registers only), yosys ({sp.flow} flow) onto fpforge45.lib; cost = area / "
             "FP8 unit's "
             "at the same r and f × 64-byte accesses per 256-element tile / FP8's. "
             f"Full table: [results/{sp.name}.csv](results/{sp.name}.csv); method: [sweep.md](sweep.md). "
             + (f"{len(result.failures)} point(s) failed. " if result.failures else "")
             + (f"Synthesized with {', '.join(builds)}; per unit, wall when it was computed (on the machine "
                f"that filled the cache): median {statistics.median(secs):.1f} s, max {max(secs):.1f} s, "
                f"{sum(units.values()) / 60:,.0f} min summed over the {len(units)} distinct units." if secs else ""),
             ""]
    if has_cost:
        lines += [f"![QSNR against cost](results/{sp.name}.png)", ""]
    lines += ["### Named formats", "", points_markdown(named), f"### The Pareto frontier ({len(front)} points)", "",
              points_markdown(front)]
    if has_cost:
        lines += ["### The paper's statements", "", claims_markdown(result)]
    return write_section(f"sweep-{sp.name}", "\n".join(lines), command=command, path=path)
