"""The reuse flow against the standard flow on a sample of the `paper` space (issue 13, phase 2): area,
area relative to FP8 and yosys CPU seconds per unit side by side, and the cold `paper` sweep extrapolated
from the reuse flow's CPU seconds per unit (per r, times the paper space's units at that r).

The sample spans the space: m = 1 ... 12, k1 = 2 ... 64 (r = 16, 32, 64), k2 = 1 ... k1, d2 = 0 ... 4, the
named formats, INT-like points and the FP8 units at every r. Results are kept in the bench cache
(`$FPFORGE_CACHE/bench-sweep`): the first run synthesizes every unit twice (long), later runs report the
CPU seconds measured when each unit was computed (on a loaded machine they stretch: the load is printed).

Run: `.venv/bin/python bench/sweep_reuse.py [--results]` (`--results` writes the `sweep-reuse` section of
docs/results.md).
"""

import argparse
import statistics
import sys
from collections import Counter

from fpforge import sweep
from fpforge.jobs import Store, cache_dir, executor
from fpforge.jobs.results import machine, write_section
from fpforge.sweep.evaluate import unit_spec
from fpforge.sweep.run import _FP8
from fpforge.sweep.space import Space
from fpforge.synth.flow import REUSE_AREA_TOLERANCE

SAMPLE = ("mx9", "mx6", "mx4", "msfp12", "e4m3", "e5m2", "mxfp8_e4m3", "mxint8", "mxfp4_e2m1", "int5", "int13",
          "bdr_m1_k16_d8_k2_d1", "bdr_m3_k4_d8_k1_d3", "bdr_m5_k32_d8_k8_d2", "bdr_m8_k16_d8_k1_d1",
          "bdr_m10_k8_d8_k2_d4", "bdr_m12_k16_d8_k4_d2", "bdr_m12_k32_d8_k1_d1", "bdr_m11_k64_d8_k64_d0",
          "bdr_m6_k2_d8_k2_d0", "bdr_m9_k16_d8_k16_d0")
#: Not through the standard flow: it timed out (600 s) on this r = 64 unit on a loaded 2-core machine
STANDARD_TOO_SLOW = ("bdr_m11_k64_d8_k64_d0",)
#: QSNR vectors of the sample (its QSNR is not what is measured here)
VECTORS = 2000


def sample_space(flow):
    full = sweep.SPACES["paper"]()
    skip = STANDARD_TOO_SLOW if flow == "standard" else ()
    pts = [p for p in full.points if p["name"] in SAMPLE and p["name"] not in skip]
    return Space("reuse-sample", pts, r=full.r, f=full.f, vectors=VECTORS, flow=flow)


def _group(family, r):
    """Units are extrapolated by r and kind: the OCP MX units (FP elements) cost more than BDR/INT ones."""
    return r, "ocp" if family == "ocp" else "bdr"


def _units(space):
    """{unit: its extrapolation group, or None for the FP8 unit} of the paper space."""
    out = {}
    for p in space.points:
        r = space.r_of(p)
        out[unit_spec(_FP8, r, space.f).sha256] = None
        out.setdefault(unit_spec(p, r, space.f).sha256, _group(p["family"], r))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--results", action="store_true", help="write the sweep-reuse section of docs/results.md")
    args = ap.parse_args()
    store = Store(cache_dir("bench-sweep"))
    res = {}
    for flow in ("standard", "reuse"):
        with executor(jobs=2) as ex:
            res[flow] = {r["name"]: r for r in sweep.run(sample_space(flow), executor=ex, cache=store,
                                                         progress=True).rows}
    lines = ["| point | r | area standard (µm²) | area reuse | Δ area | area_rel standard | area_rel reuse | "
             "Δ area_rel | yosys CPU standard (s) | reuse | speed-up |", "|---" * 11 + "|"]
    d_area, d_rel, cpu = [], [], {"standard": {}, "reuse": {}}
    for name in SAMPLE:
        u = res["reuse"][name]
        if name not in res["standard"]:
            cpu["reuse"].setdefault(_group(u["family"], u["r"]), []).append(u["synth_cpu_s"])
            lines.append(f"| {name} | {u['r']} | (timed out) | {u['area_um2']:,.0f} | | | {u['area_rel']:.3f} | | "
                         f"> 600 | {u['synth_cpu_s']:.1f} | |")
            continue
        s = res["standard"][name]
        da = u["area_um2"] / s["area_um2"] - 1
        dr = u["area_rel"] / s["area_rel"] - 1
        if s["family"] != "fp":  # (E4M3/E5M2 are the FP8 unit: its rows below)
            d_area.append(da)
            d_rel.append(dr)
            cpu["standard"].setdefault(_group(s["family"], s["r"]), []).append(s["synth_cpu_s"])
            cpu["reuse"].setdefault(_group(s["family"], s["r"]), []).append(u["synth_cpu_s"])
        lines.append(f"| {name} | {s['r']} | {s['area_um2']:,.0f} | {u['area_um2']:,.0f} | {100 * da:+.2f} % | "
                     f"{s['area_rel']:.3f} | {u['area_rel']:.3f} | {100 * dr:+.2f} % | {s['synth_cpu_s']:.1f} | "
                     f"{u['synth_cpu_s']:.1f} | {s['synth_cpu_s'] / u['synth_cpu_s']:.1f}x |")
    # the FP8 unit's own area at each r (its area_rel is 1 by construction)
    fp8_rows = {r["r"]: (r, res["reuse"][n]) for n, r in res["standard"].items() if r["family"] != "fp"}
    for r_, (s, u) in sorted(fp8_rows.items()):
        lines.append(f"| FP8 unit | {r_} | {s['fp8_area_um2']:,.0f} | {u['fp8_area_um2']:,.0f} | "
                     f"{100 * (u['fp8_area_um2'] / s['fp8_area_um2'] - 1):+.2f} % | 1 | 1 | | | | |")
    paper = sweep.SPACES["paper"]()
    units = Counter(g for g in _units(paper).values() if g is not None)
    est = {}
    for flow in ("standard", "reuse"):
        est[flow] = sum(n * statistics.mean(cpu[flow].get(r) or cpu["reuse"][r]) for r, n in units.items())
    summary = (
        f"\nBDR, OCP and INT points of the sample ({len(d_area)}): area of the reuse flow within "
        f"{100 * min(d_area):+.2f} % … {100 * max(d_area):+.2f} % of the standard flow's (stated tolerance "
        f"± {100 * REUSE_AREA_TOLERANCE:.1f} %), area_rel within {100 * min(d_rel):+.2f} % … "
        f"{100 * max(d_rel):+.2f} %. "
        f"yosys CPU per unit, mean by r and kind (OCP MX apart) × the paper space's {sum(units.values())} units "
        f"(without the 3 FP8 units): standard ≈ {est['standard']:,.0f} CPU-s (at least: r = 64 counted at the "
        f"reuse flow's figure), reuse ≈ {est['reuse']:,.0f} CPU-s "
        f"({est['standard'] / est['reuse']:.1f}x); on 2 cores the reuse flow's synthesis alone is ≈ "
        f"{est['reuse'] / 2 / 60:.0f} min. CPU seconds measured when each unit was computed ({machine()}).")
    text = "\n".join(lines) + "\n" + summary
    print(text)
    if args.results:
        write_section("sweep-reuse", "## The reuse flow against the standard flow (sample of the `paper` space)\n\n"
                      + text, command="python bench/sweep_reuse.py --results", data=dict(text=text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
