"""The sweep's synthesis flows side by side on a sample of the `paper` space (issue 33, item 1 and its bench
figures): yosys CPU seconds per unit and area against the flat flow (`--flow flat`, the whole unit flattened and
mapped at once), and the cold `paper` sweep extrapolated for each flow on 2 cores. Every flow maps for area (the
sweep's goal); ``flat-delay`` is the flat flow mapping for delay (``--goal delay``), the sweep's mapping before.

The sample: 12 units across m = 1 … 12, k1 = 2 … 32 (r = 16 and r = 32) and the kinds (BDR, OCP MX, INT-like,
the FP8 unit). The r = 64 units (13 of the paper's 812) are left out: the flat flow takes minutes each on a
loaded 2-core machine; the extrapolation carries them with the shape model (linear in r).

Extrapolation: each flow's factor is the median over the sample of yosys CPU seconds / shape model
(:func:`fpforge.sweep.estimate.shape_cost`, linear in r); the paper's 812 units are summed
with it, and the wall time on 2 cores is the QSNR and Verilog phase plus the units scheduled longest first on 2
processes (what ``fpforge sweep --estimate`` does with a cache).

Results are kept in the bench cache (``$FPFORGE_CACHE/bench-sweep``): the first run synthesizes every unit in
every flow (several minutes), later runs report the CPU seconds measured when each unit was computed (on a
loaded machine they stretch: the load is printed with the provenance).

The noise floor (issue 33's "every area within 0.5 % of the flat flow"): on the 43 points of
:func:`fpforge.sweep.spaces.flows_sample` (the regress test's sample), the lean flow against the flat flow, and the
flat flow on the same Verilog with each run of ``assign`` statements shuffled (seed 1: the same logic, another
order) against the flat flow. The second is how far ABC's result moves on a change that changes nothing: a bound
tighter than it cannot be met by any flow that changes ABC's input.

Flows tried for a faster cold ``paper`` (issue 33, item 1): on the same 43 points, the flat and lean flows and
the candidates of :data:`CANDIDATES` (capping or dropping ABC steps, one liberty pass, and a hybrid of the reuse
and lean flows), each measured in the same run: yosys CPU against the flat flow's, and area against it.

Run: ``.venv/bin/python bench/sweep_flows.py [--results] [--jobs N]`` (``--results`` writes the
``sweep-flows`` section of docs/results.md).
"""

import argparse
import hashlib
import random
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor

from fpforge import sweep
from fpforge.jobs import Store, cache_dir, digest, executor
from fpforge.jobs.results import machine, write_section
from fpforge.sweep.estimate import (
    GENERATE_S_PER_UNIT,
    QSNR_S_PER_POINT,
    _makespan,
    estimate,
    format_duration,
    shape_cost,
)
from fpforge.sweep.evaluate import _child_cpu, _generate, task_unit, unit_spec
from fpforge.sweep.space import Space
from fpforge.sweep.spaces import flows_sample
from fpforge.synth import synthesize, yosys_backend
from fpforge.synth.flow import AREA_ABC_SCRIPT, LEAN_PRE_ABC_SCRIPT

SAMPLE = ("e4m3", "mx9", "mx4", "mxfp8_e4m3", "mxint8", "int5", "bdr_m1_k16_d8_k2_d1", "bdr_m3_k4_d8_k1_d3",
          "bdr_m6_k2_d8_k2_d0", "bdr_m8_k16_d8_k1_d1", "bdr_m12_k16_d8_k4_d2", "bdr_m5_k32_d8_k8_d2")
#: The flows compared, each mapping for area (the sweep's goal); ``flat`` is the reference of every area
#: difference. ``flat-delay``: the flat flow mapping for delay (fpforge synth's goal, the sweep's before issue 34),
#: what the goal changes in area and time.
FLOWS = ("flat", "lean", "reuse", "fast", "flat-delay")
#: The seed of the shuffled ``assign`` order of the noise floor.
REORDER_SEED = 1
VECTORS = 2000


def sample_space(flow):
    full = sweep.SPACES["paper"]()
    pts = [p for p in full.points if p["name"] in SAMPLE]
    flow, _, goal = flow.partition("-")
    return Space("flows-sample", pts, r=full.r, f=full.f, vectors=VECTORS, flow=flow, goal=goal or "area")


def reordered(verilog, seed=REORDER_SEED):
    """``verilog`` with each run of consecutive one-line ``assign`` statements shuffled: the same logic."""
    rnd, out, run = random.Random(seed), [], []
    for line in verilog.split("\n") + [None]:
        if line is not None and line.startswith("  assign ") and line.endswith(";"):
            run.append(line)
            continue
        rnd.shuffle(run)
        out += run + ([line] if line is not None else [])
        run = []
    return "\n".join(out)


def _fill(store, keys, fn, jobs_by_name, label, jobs):
    """``store[keys[n]] = fn(jobs_by_name[n])`` for every name whose key the store lacks, on ``jobs`` processes,
    with a progress bar (rate, ETA) on a terminal."""
    from fpforge.cliutil import progress_bar

    todo = [n for n in jobs_by_name if keys[n] not in store]
    print(f"{label}: {len(todo)} of {len(jobs_by_name)} units to synthesize", file=sys.stderr, flush=True)
    bar = progress_bar(len(todo), label, "unit") if todo else None
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for n, got in zip(todo, pool.map(fn, [jobs_by_name[n] for n in todo])):
            store.put(keys[n], list(got) if isinstance(got, tuple) else got)
            if bar is not None:
                bar.update()
    if bar is not None:
        bar.close()


def _reordered_area(top_verilog):
    top, verilog = top_verilog
    return synthesize(reordered(verilog), top, abc_script=AREA_ABC_SCRIPT, timeout=1800)["area_um2"]


def noise_floor(store, jobs):
    """Lines of the noise-floor table: the lean flow and the reordered flat flow against the flat flow."""
    sp = flows_sample(vectors=VECTORS)
    res = {}
    for flow in ("flat", "lean"):
        with executor(jobs=jobs) as ex:
            res[flow] = {r["name"]: r for r in sweep.run(sp.with_(flow=flow), executor=ex, cache=store,
                                                         progress=True).rows}
    units = {p["name"]: _generate(task_unit(unit_spec(p, sp.r_of(p), sp.f))) for p in sp.points}  # (top, Verilog)
    keys = {n: digest(dict(kind="bench-reordered", verilog=hashlib.sha256(v.encode()).hexdigest(), seed=REORDER_SEED,
                           abc=AREA_ABC_SCRIPT, yosys=list(yosys_backend()))) for n, (_, v) in units.items()}
    _fill(store, keys, _reordered_area, {n: units[n] for n in units}, "flat, reordered", jobs)
    res["flat-reordered"] = {n: dict(area_um2=store.get(keys[n])) for n in units}
    names = [n for n in units if all(res[f].get(n, {}).get("area_um2") for f in res)]
    lines = ["| against the flat flow | points | min | 10th pct | median | 90th pct | max | beyond ±0.5 % | "
             "beyond ±1 % | yosys CPU summed |", "|---|---|---|---|---|---|---|---|---|---|"]
    data = {}
    for f in ("lean", "flat-reordered"):
        d = sorted(100 * (res[f][n]["area_um2"] / res["flat"][n]["area_um2"] - 1) for n in names)
        q = statistics.quantiles(d, n=10)
        cpu = (f"{sum(res[f][n]['synth_cpu_s'] for n in names):.0f} s (flat "
               f"{sum(res['flat'][n]['synth_cpu_s'] for n in names):.0f} s)" if f == "lean" else "")
        lines.append(f"| {f} | {len(d)} | {d[0]:+.2f} % | {q[0]:+.2f} % | {statistics.median(d):+.2f} % | "
                     f"{q[-1]:+.2f} % | {d[-1]:+.2f} % | {sum(abs(x) > 0.5 for x in d)} | "
                     f"{sum(abs(x) > 1 for x in d)} | {cpu} |")
        data[f] = d
    lines.append(f"\nThe {len(names)} points of `flows_sample` (every 19th point of `paper` at r ≤ 32), area goal. "
                 "`flat-reordered`: the flat flow on the same Verilog with each run of `assign` statements shuffled "
                 f"(seed {REORDER_SEED}) — the same logic in another order, so its spread is ABC's own noise: no "
                 "flow that changes ABC's input can be held to a tighter bound per point.")
    return lines, data, res, units


#: yosys 0.70's own script of synth's generic ``abc`` pass (tests/test_synth_lean.py checks that given explicitly it
#: is the flat flow exactly); the candidates below are edits of it or of the lean script.
_YOSYS_GENERIC = "strash; &get -n; &fraig -x; &put; scorr; dc2; dretime; strash; &get -n; &dch -f; &nf; &put"
#: Flows tried for issue 33's item 1 (beyond flat, lean and reuse, which are sweep flows): the name, what it
#: changes, and ``synthesize`` arguments (``"hybrid"``: :func:`_hybrid`). Every one maps for area.
CANDIDATES = (
    ("flat", "the reference: the whole unit flattened, yosys' own generic pass (`--flow flat`)",
     dict(abc_script=AREA_ABC_SCRIPT)),
    ("lean", "the `paper` spaces' flow (`--flow lean`)",
     dict(pre_abc_script=LEAN_PRE_ABC_SCRIPT, abc_script=AREA_ABC_SCRIPT)),
    ("fraig capped", "yosys' generic pass with `&fraig -x -C 100` only (it keeps its `&dch -f`)",
     dict(pre_abc_script=_YOSYS_GENERIC.replace("&fraig -x", "&fraig -x -C 100"), abc_script=AREA_ABC_SCRIPT)),
    ("lean, no fraig", "the lean generic pass without `&fraig`",
     dict(pre_abc_script=LEAN_PRE_ABC_SCRIPT.replace("&get -n; &fraig -x -C 100; &put; ", ""),
          abc_script=AREA_ABC_SCRIPT)),
    ("lean, dch -C 300", "lean, and the liberty mapping's choices capped at 300 conflicts (`&dch -f -C 300`)",
     dict(pre_abc_script=LEAN_PRE_ABC_SCRIPT, abc_script=AREA_ABC_SCRIPT.replace("&dch -f", "&dch -f -C 300"))),
    ("one pass", "no generic pass; one liberty pass with the generic pass's rewriting (`&fraig -x -C 100; dc2; "
     "dretime`) first",
     dict(pre_abc=False, abc_script="strash; &get -n; &fraig -x -C 100; &put; dc2; dretime; strash; &get -n; "
                                    "&dch -f; &nf -R 1000; &put")),
    ("hybrid", "lean, with the multipliers' front end and generic pass run once per shape (the reuse flow's "
     "modules), then flattened and mapped to the liberty as one", "hybrid"),
)
#: Bumped when :func:`_hybrid` changes (its results are cached under it).
_HYBRID_REV = 1


def _hybrid(verilog, top):
    """Area of the hybrid candidate: the reuse flow's front end (every reusable ``$mul`` an instance of one module
    per shape), ``synth`` and the lean generic pass on that hierarchy (each module once), then ``flatten`` and the
    liberty mapping of the whole flat unit. Built here from the reuse flow's parts: not a flow of fpforge."""
    import json
    import tempfile
    from pathlib import Path

    from fpforge.synth import flow as F
    from fpforge.synth.yosys import run_script

    with tempfile.TemporaryDirectory(prefix="fpforge-bench-hybrid-") as tmp:
        work = Path(tmp)
        (work / "u.v").write_text(verilog)
        (work / "cells.lib").write_text(Path(F.DEFAULT_LIBERTY).read_text())
        (work / "gen.script").write_text(LEAN_PRE_ABC_SCRIPT + "\n")
        (work / "abc.script").write_text(AREA_ABC_SCRIPT + "\n")

        def fail(proc, log):
            raise RuntimeError(f"yosys failed on {top}: {log[-500:]}")

        front, reused = F._reuse_front(work, top, ["read_verilog u.v"], 1800, fail)
        (work / "flow.ys").write_text("\n".join([
            *front, f"synth -top {top} -noabc" + ("" if reused else " -flatten"), "abc -script gen.script",
            "opt -fast", "flatten", "dfflibmap -liberty cells.lib", "abc -liberty cells.lib -script abc.script",
            "opt_clean", "tee -q -o stat.json stat -json -liberty cells.lib", ""]))
        proc, log = run_script(work, "flow.ys", 1800)
        if proc.returncode != 0:
            fail(proc, log)
        st = json.loads((work / "stat.json").read_text())
        return (st.get("design") or st["modules"]["\\" + top])["area"]


def _candidate_area(job):
    """(area, yosys CPU seconds) of one unit through one candidate."""
    (top, verilog), kw = job
    c0 = _child_cpu()  # (the sweep's own measure of yosys CPU, area_task's)
    area = _hybrid(verilog, top) if kw == "hybrid" else synthesize(verilog, top, timeout=1800, **kw)["area_um2"]
    return area, _child_cpu() - c0


def _cold_lean():
    """The measured cold run of the ``paper`` section (docs/results/sweep-paper.json) when its flow is lean."""
    import json
    from pathlib import Path

    try:
        path = Path(__file__).resolve().parent.parent / "docs/results/sweep-paper.json"
        data = json.loads(path.read_text())["data"]
    except (OSError, ValueError, KeyError):
        return None
    return data.get("cold_run") if data.get("flow") == "lean" and data.get("cold_run") else None


def candidates(store, jobs, res, units):
    """Lines of the table of flows tried: each candidate on the points of ``flows_sample`` against the flat flow
    (``res``: the sweep's flat and lean rows by point name; ``units``: name -> (top, Verilog))."""
    names = [n for n in units if res["flat"].get(n, {}).get("area_um2") and res["lean"].get(n, {}).get("area_um2")]
    rows = []
    for name, what, kw in CANDIDATES:
        flow = dict(hybrid=_HYBRID_REV, pre_abc_script=LEAN_PRE_ABC_SCRIPT, abc=AREA_ABC_SCRIPT) if kw == "hybrid" \
            else kw
        keys = {n: digest(dict(kind="bench-flow-candidate", verilog=hashlib.sha256(units[n][1].encode()).hexdigest(),
                               top=units[n][0], flow=flow, yosys=list(yosys_backend()))) for n in names}
        _fill(store, keys, _candidate_area, {n: (units[n], kw) for n in names}, f"flow tried {name!r}", jobs)
        rows.append((name, what, {n: tuple(store.get(keys[n])) for n in names}))
    by_flow = {name: got for name, _, got in rows}
    flat = by_flow["flat"]
    for name in ("flat", "lean"):  # the same synthesize calls as the sweep's: the same netlists, the same areas
        got = by_flow[name]
        odd = [n for n in names if got[n][0] != res[name][n]["area_um2"]]
        if odd:
            print(f"warning: {name} here and in the sweep differ in area on {len(odd)} units ({odd[0]} ...)",
                  file=sys.stderr)
    flat_cpu = sum(flat[n][1] for n in names)
    lean_cpu = sum(by_flow["lean"][n][1] for n in names)
    cold = _cold_lean()
    lines = ["| flow tried | what it changes | less yosys CPU than flat | area vs flat: min … max | median | "
             "beyond ±0.5 % | beyond ±1 % | cold `paper`, scaled from the lean run |", "|---" * 8 + "|"]
    data = {}
    for name, what, got in rows:
        d = sorted(100 * (got[n][0] / flat[n][0] - 1) for n in names)
        cpu = sum(got[n][1] for n in names)
        scaled = cold["seconds"] * cpu / lean_cpu if cold else None
        lines.append(f"| {name} | {what} | {flat_cpu / cpu:.2f}× | {d[0]:+.2f} … {d[-1]:+.2f} % | "
                     f"{statistics.median(d):+.2f} % | {sum(abs(x) > 0.5 for x in d)} | {sum(abs(x) > 1 for x in d)} | "
                     f"{format_duration(scaled) if scaled else 'no lean cold run recorded'} |")
        data[name] = dict(cpu_s=cpu, delta_pct=d, cold_paper_scaled_s=scaled)
    lines.append(f"\nThe same {len(names)} points of `flows_sample`, area goal, every flow measured the same way (the "
                 "same Verilog through `synthesize`, the hybrid through the reuse flow's parts; CPU seconds of the run "
                 "that computed them, kept in the bench cache): yosys CPU summed over the points against the flat "
                 f"flow's {flat_cpu:.0f} s. A flow's median against flat is its bias; its spread can be no narrower "
                 "than the noise floor above."
                 + (f" Last column: the measured cold `paper` run of the lean flow ({format_duration(cold['seconds'])}"
                    f", {cold['executor']}, {cold['commit']}; the `paper` section) times the flow's yosys CPU over the "
                    "lean flow's here, as if the whole run scaled with it (Verilog generation and QSNR do not: a lower "
                    "bound; r = 64 units are not in the sample). Issue 33's target is < 25 min." if cold else ""))
    return lines, data


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--results", action="store_true", help="write the sweep-flows section of docs/results.md")
    ap.add_argument("--jobs", type=int, default=1, help="local processes (default 1: CPU seconds undisturbed)")
    args = ap.parse_args()
    store = Store(cache_dir("bench-sweep"))
    res = {}
    for flow in FLOWS:
        with executor(jobs=args.jobs) as ex:
            res[flow] = {r["name"]: r for r in sweep.run(sample_space(flow), executor=ex, cache=store,
                                                         progress=True).rows}
    names = [n for n in SAMPLE if all(n in res[f] and res[f][n].get("area_um2") for f in FLOWS)]
    head = ["point", "m", "k1", "r"] + [f"area {f} (µm²)" for f in FLOWS] + [f"Δ {f}" for f in FLOWS[1:]]
    head += [f"yosys CPU {f} (s)" for f in FLOWS]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    delta = {f: [] for f in FLOWS[1:]}
    ratio = {f: {} for f in FLOWS}  # flow -> r -> [cpu / shape_cost]
    cpu = {f: {} for f in FLOWS}  # flow -> r -> [cpu]
    for n in names:
        flat = res["flat"][n]
        cells = [n, str(flat["m"]), str(flat["k1"]), str(flat["r"])]
        cells += [f"{res[f][n]['area_um2']:,.0f}" for f in FLOWS]
        for f in FLOWS[1:]:
            d = res[f][n]["area_um2"] / flat["area_um2"] - 1
            delta[f].append(d)
            cells.append(f"{100 * d:+.2f} %")
        for f in FLOWS:
            c = res[f][n]["synth_cpu_s"]
            cells.append(f"{c:.1f}")
            cpu[f].setdefault(flat["r"], []).append(c)
            ratio[f].setdefault(flat["r"], []).append(c / shape_cost(flat["r"], flat["m"]))
        lines.append("| " + " | ".join(cells) + " |")

    paper = sweep.SPACES["paper"]()
    units = [(r, m) for r, m, _, _ in estimate(paper, workers=2, cache=False).units]
    front = (len(paper.points) * QSNR_S_PER_POINT + len(units) * GENERATE_S_PER_UNIT) / 2
    summary = ["", "| flow | sample: yosys CPU per unit, median / max by r | area vs flat: min / median / max | "
                   "cold `paper` yosys CPU (extrapolated) | cold `paper` on 2 cores (extrapolated) |",
               "|---|---|---|---|---|"]
    est = {}
    for f in FLOWS:
        fac = statistics.median([x for v in ratio[f].values() for x in v])  # (3 units at r = 32: one factor)
        times = [fac * shape_cost(r, m) for r, m in units]
        est[f] = (sum(times), front + _makespan(times, 2))
        by_r = "; ".join(f"r = {r}: {statistics.median(v):.1f} / {max(v):.1f} s" for r, v in sorted(cpu[f].items()))
        dl = delta.get(f)
        d = (f"{100 * min(dl):+.2f} % / {100 * statistics.median(dl):+.2f} % / {100 * max(dl):+.2f} %" if dl
             else "(the reference)")
        summary.append(f"| {f} | {by_r} | {d} | {format_duration(est[f][0])} | {format_duration(est[f][1])} |")
    summary.append(
        f"\nSample of {len(names)} units of the `paper` space (r = 16 and 32), one factor per flow (the median of CPU "
        f"seconds / shape model over the sample). Speed-up of the yosys CPU over the flat flow, extrapolated to the paper's {len(units)} "
        f"units: " + ", ".join(f"{f} {est['flat'][0] / est[f][0]:.2f}x" for f in FLOWS[1:])
        + f". CPU seconds measured when each unit was computed ({machine()}).")
    floor, floor_data, floor_res, floor_units = noise_floor(store, args.jobs)
    tried, tried_data = candidates(store, args.jobs, floor_res, floor_units)
    text = "\n".join(lines + summary + ["", "### The noise floor: lean and a reordered flat flow against flat", ""]
                     + floor + ["", "### Flows tried for a faster cold `paper` (issue 33, item 1)", ""] + tried)
    print(text)
    if args.results:
        write_section("sweep-flows", "## The synthesis flows side by side (sample of the `paper` space)\n\n" + text,
                      command="python bench/sweep_flows.py --results",
                      data=dict(text=text, delta={f: v for f, v in delta.items()}, noise_floor_pct=floor_data,
                                flows_tried=tried_data, cold_cpu_s={f: v[0] for f, v in est.items()},
                                cold_wall_2_cores_s={f: v[1] for f, v in est.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
