"""PPA step time of a dot unit beside its area-only synthesis, and `paper --ppa` cold, measured and projected (issue 28).

* An r = 16, f = 24 dot unit (MX6 and the FP8 baseline; the paper's method: I/O registers only): the sweep's
  area-only synthesis (fpforge45, and the same flow on osu018 without a clock) beside the PPA step on osu018 at
  10 ns (mapping for the clock, OpenSTA timing, power: ``fpforge sweep --ppa``'s task), CPU seconds (this process
  and its children: yosys, ABC, OpenSTA; a shared machine stretches wall time, CPU much less) and wall, best of 2
  after a warm-up — target: PPA within 2x the area-only synthesis (on CPU).
* `paper --ppa` cold (standard flow: PPA times the flat netlist), projected from the per-unit times of a
  sample (default `named-ppa`: the section's units, r = 16 and the OCP formats' r = 32; CPU seconds of yosys, ABC
  and OpenSTA per unit, recorded when it was computed) swept area-only and
  with PPA in a bench cache (`$FPFORGE_CACHE/bench-ppa`: the first run synthesizes the sample, later runs
  report the times measured when each unit was computed): mean per unit x the paper space's points / 2
  cores, for both, and the measured area-only `paper` run (docs/results/sweep-paper.json, its flow) scaled
  by the sample's PPA / area-only ratio. The sample is small and its units smaller than the paper space's
  largest (k1 = 64): the ratio is the robust figure. `--sample paper-sample` takes every 10th paper point
  (long cold).
* `paper --ppa` cold, measured: where `fpforge report ppa-paper` has run, its section's JSON
  (docs/results/ppa-paper.json, ``synthesis``) holds every distinct unit's PPA step as measured when it was
  computed; summed / 2 cores beside the measured area-only `paper` run, summed the same way.

Run: `.venv/bin/python bench/bench_ppa.py [--sample SPACE]`. Without OpenSTA or the osu018 cells (make tech) it
says why and exits 0 (nothing measured).
"""

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

from timing import best

from fpforge import sweep
from fpforge.golden.errors import FpforgeError
from fpforge.jobs import Store, cache_dir, executor
from fpforge.jobs.results import machine

CLOCK_NS = 10.0
TARGET = 2.0
ROOT = Path(__file__).resolve().parent.parent


def _row(what, ours, target, ok):
    status = "" if ok is None else "meets" if ok else "misses"
    print(f"| {what} | {ours} | {target} | {status} |", flush=True)


def _missing():
    from fpforge.synth.sta import sta_command
    from fpforge.synth.tech import resolve_liberty

    try:
        sta_command()
        return None, str(resolve_liberty("osu018"))
    except FpforgeError as e:
        return str(e), None


def _unit_step(lib, fmt):
    """Best-of-2 wall seconds of the area-only synthesis (fpforge45; osu018) and of the PPA step (osu018 at
    CLOCK_NS) of the r = 16, f = 24 dot unit of preset ``fmt``, and the PPA report."""
    from fpforge.sweep.evaluate import area_task, task_unit, unit_spec, verilog_task

    p = sweep.preset_points(fmt)[0]
    unit = task_unit(unit_spec(p, 16, 24))
    v = verilog_task(dict(kind="verilog", unit=unit))  # generated once: the timings are synthesis only
    base = dict(kind="area", unit=unit, top=v["top"], verilog_sha256=v["verilog_sha256"], verilog_zlib=v["verilog_zlib"])
    out = {}
    for label, extra in (("fpforge45", {}), ("osu018", dict(liberty=lib)),
                         ("ppa", dict(liberty=lib, clock_ns=CLOCK_NS, activity="workload"))):
        task = dict(base, **extra)
        out[label] = best(lambda: area_task(task), repeats=2)
        out[label + "_cpu"] = best(lambda: area_task(task), repeats=2, clock=_cpu)
        if label == "ppa":
            out["report"] = area_task(task)
    return out


def _cpu():
    """CPU seconds of this process and its finished children (yosys-abc, sta): what a shared machine does not
    stretch the way it stretches wall time."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _synth_times(res, key="synth_cpu_s"):
    """Per distinct unit: the synthesis seconds recorded when it was computed (``synth_cpu_s``: CPU of yosys, ABC
    and OpenSTA, which a loaded machine stretches much less than ``synth_s``, the wall time)."""
    return {r["verilog_sha256"]: r[key] for r in res.rows if r.get(key) is not None and r.get("verilog_sha256")}


def _area_only_paper():
    """(minutes summed, distinct units, flow) of the area-only `paper` run, from its section's synthesis sentence
    and data."""
    try:
        data = json.loads((ROOT / "docs" / "results" / "sweep-paper.json").read_text())["data"]
    except (OSError, ValueError, KeyError):
        return None
    m = re.search(r"([\d,.]+) min summed over the (\d+) distinct units", data.get("synthesis") or "")
    return (float(m.group(1).replace(",", "")), int(m.group(2)), data.get("flow", "reuse")) if m else None


def _ppa_paper():
    """The measured ``paper --ppa`` run (its section's JSON, docs/results/ppa-paper.json): its ``synthesis`` dict
    (:func:`fpforge.sweep.ppa_report.synthesis_times`) and the provenance line's date and machine, or None."""
    try:
        doc = json.loads((ROOT / "docs" / "results" / "ppa-paper.json").read_text())
    except (OSError, ValueError):
        return None
    syn = doc.get("data", {}).get("synthesis")
    return (syn, doc.get("provenance", {})) if syn else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sample", default="named-ppa", help="space whose units give the per-unit times (default "
                                                           "named-ppa; paper-sample: every 10th paper point, long cold)")
    args = ap.parse_args()
    why, lib = _missing()
    print(f"# PPA bench on {machine()}\n")
    if why:
        print(f"PPA not measured here: {why}")
        return 0
    print("| measure | fpforge | target (issue 28) | |")
    print("|---|---|---|---|")
    for fmt in ("mx6", "e4m3"):
        t = _unit_step(lib, fmt)
        rep = t["report"]
        ratio = t["ppa_cpu"] / t["fpforge45_cpu"]
        _row(f"PPA step of the {fmt.upper()} dot unit, r = 16, f = 24, at {CLOCK_NS:g} ns on osu018 (mapping, STA, "
             f"workload simulation of the netlist, power: delay {rep['delay_ns']:.2f} ns, {rep['power_mw']:.2f} mW) "
             "vs its area-only synthesis; CPU "
             "(yosys, ABC, OpenSTA), wall in brackets, best of 2",
             f"{t['ppa_cpu']:.1f} s vs {t['fpforge45_cpu']:.1f} s (fpforge45, the sweep's) = {ratio:.2f}x "
             f"({t['ppa']:.1f} s vs {t['fpforge45']:.1f} s wall); area-only on osu018 {t['osu018_cpu']:.1f} s "
             f"= {t['ppa_cpu'] / t['osu018_cpu']:.2f}x", f"≤ {TARGET:g}x", ratio <= TARGET)
    paper = sweep.SPACES["paper"]()
    sample = sweep.load_space(args.sample).with_(flow="standard")
    store = Store(cache_dir("bench-ppa"))
    t0 = time.monotonic()
    with executor(jobs=2) as ex:
        area = sweep.run(sample, executor=ex, cache=store, progress=True)
        ppa = sweep.run(sample.with_(ppa=True, clock_ns=CLOCK_NS, liberty=lib), executor=ex, cache=store,
                        progress=True)
    took = time.monotonic() - t0
    a, p = _synth_times(area), _synth_times(ppa)
    aw, pw = _synth_times(area, "synth_s"), _synth_times(ppa, "synth_s")
    ma, mp = statistics.mean(a.values()), statistics.mean(p.values())
    n = len(paper.points)
    _row(f"per unit on `{sample.name}` ({len(p)} distinct units, standard flow; CPU when computed, wall in brackets)",
         f"PPA median {statistics.median(p.values()):.1f} s, max {max(p.values()):.1f} s; area-only median "
         f"{statistics.median(a.values()):.1f} s, max {max(a.values()):.1f} s; mean PPA / area-only "
         f"{mp / ma:.2f}x ({statistics.mean(pw.values()) / statistics.mean(aw.values()):.2f}x wall; this run: "
         f"{took:.0f} s, from the cache where it had them)", "report", None)
    _row(f"`paper --ppa` cold ({n} points, osu018 at {CLOCK_NS:g} ns, 2 cores), from the sample's means",
         f"{mp * n / 2 / 60:.0f} min (area-only, standard flow, the same way: {ma * n / 2 / 60:.0f} min)", "report",
         None)
    measured = _area_only_paper()
    ppa_paper = _ppa_paper()
    if ppa_paper and measured:
        syn, prov = ppa_paper
        summed, units, flow = measured
        cpu = f", {syn['cpu_sum_s'] / 60:,.0f} min of CPU" if syn.get("cpu_sum_s") is not None else ""
        _row(f"`paper --ppa` cold, **measured** ({syn['units']} distinct units, osu018 at {CLOCK_NS:g} ns; the run of "
             f"docs/results/ppa-paper.json, {prov.get('date', '?')}, {prov.get('machine', '?')}): PPA steps summed "
             "/ 2 cores, beside the measured area-only `paper` run the same way",
             f"{syn['wall_sum_s'] / 60 / 2:.0f} min ({syn['wall_sum_s'] / 60:,.0f} min summed{cpu}; per unit median "
             f"{syn['wall_median_s']:.1f} s, max {syn['wall_max_s']:.0f} s) beside {summed / 2:.0f} min ({summed:,.0f} "
             f"min over {units} units, {flow} flow)", "report", None)
    if measured:
        summed, units, flow = measured
        _row(f"`paper --ppa` cold, from the measured area-only `paper` run ({flow} flow, docs/results/sweep-paper.json) "
             "× the sample's PPA / area-only ratio",
             f"{summed * mp / ma / 2:.0f} min beside the area-only run's {summed / 2:.0f} min ({summed:,.0f} min of "
             f"synthesis over {units} units / 2 cores)", "report", None)
    else:
        print("| (no measured area-only `paper` run in docs/results/sweep-paper.json: `make sweep-paper`) | | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
