"""Design-space sweep performance (`make bench`), each figure beside the issue's target (issue 13):

* QSNR of every `paper` point (no synthesis) on 2 local processes, cold (no cache) — target < 120 s;
* synthesis seconds per point (median, max; wall and yosys CPU) on `paper-sample` (every 10th `paper`
  point and the named formats), and the full `paper` space cold extrapolated from it: mean per-point CPU
  x points / 2 cores — target < 30 min. The sample is kept in a bench cache (`$FPFORGE_CACHE/bench-sweep`):
  the first run synthesizes it (long), later runs report the times measured when each unit was computed;
* a warm rerun (every result in the cache): `paper` if it is cached (after `make sweep-paper`), else
  `paper-sample` measured and scaled to `paper`'s task count — target < 30 s;
* Dask: the `small` space cold on a LocalCluster (127.0.0.1) of 1 worker and of 2 workers, side by side;
* `--flows`: three dot units through the standard flow on pyosys and on yowasp, and through the fast flow
  (`synth -noabc`), yosys CPU seconds and area side by side (the speed-up and the area it costs).

Run: `.venv/bin/python bench/bench_sweep.py [--skip-synth] [--flows]`. The machine's load is printed: on a shared
machine wall times stretch, CPU times much less.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

from fpforge import sweep
from fpforge.jobs import Store, cache_dir, executor
from fpforge.jobs.results import machine, read_data
from fpforge.sweep.estimate import format_duration


def _row(what, ours, target, ok):
    """One table row; ``ok`` None for figures the issue only asks to report."""
    status = "" if ok is None else "meets" if ok else "misses"
    print(f"| {what} | {ours} | {target} | {status} |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--skip-synth", action="store_true", help="QSNR and Dask only")
    ap.add_argument("--flows", action="store_true", help="only the yosys build / flow comparison")
    ap.add_argument("--warm-paper", action="store_true",
                    help="time the warm rerun of the paper space (after `make sweep-paper` on the same cache)")
    args = ap.parse_args()
    if args.flows:
        return _flows()
    print(f"# sweep bench on {machine()}\n")
    print("| measure | fpforge | target (issue 13) | |")
    print("|---|---|---|---|")
    paper = sweep.SPACES["paper"]()
    with executor(jobs=2) as ex:
        t = time.monotonic()
        res = sweep.run(paper, executor=ex, cache=False, synth=False, progress=False)
        q = time.monotonic() - t
    _row(f"QSNR of all {len(res.rows)} paper points, 10,000 vectors each, 2 processes", f"{q:.0f} s", "< 120 s",
         q < 120)
    doc = read_data("sweep-paper")
    cold = (doc or {}).get("data", {}).get("cold_run")
    if cold:  # the measured one: recorded by the run that computed every task (fpforge.sweep.run._cold_run)
        _row(f"full paper space cold, **measured** ({cold['tasks']:,} tasks, none cached; docs/results/"
             "sweep-paper.json)", f"{format_duration(cold['seconds'])} wall on {cold['executor']}, {cold['date']}, "
             f"{cold['machine']}, {cold['commit']} (issue 33's target)", "< 25 min", cold["seconds"] < 25 * 60)
    else:
        print("| (no measured cold `paper` run in docs/results/sweep-paper.json: `make sweep-paper` on an empty "
              "cache records one) | | | |")
    if not args.skip_synth:
        store = Store(cache_dir("bench-sweep"))
        sample = sweep.SPACES["paper-sample"]()
        with executor(jobs=2) as ex:
            t = time.monotonic()
            res = sweep.run(sample, executor=ex, cache=store, progress=True)
            cold_s = time.monotonic() - t
        rows = [r for r in res.rows if r.get("synth_s") is not None]
        wall = [r["synth_s"] for r in rows]
        cpu = [r["synth_cpu_s"] for r in rows if r.get("synth_cpu_s") is not None]
        _row(f"synthesis per point, r = {sample.r} (k1 when larger), f = {sample.f}: {len(rows)} sampled units",
             f"median {statistics.median(wall):.1f} s, max {max(wall):.1f} s wall; yosys CPU median "
             f"{statistics.median(cpu):.1f} s, max {max(cpu):.1f} s", "report", None)
        est = statistics.mean(cpu) * len(paper.points) / 2 / 60
        est_wall = statistics.mean(wall) * len(paper.points) / 2 / 60
        _row(f"full paper space cold ({len(paper.points)} points), extrapolated from the sample",
             f"{est:.0f} min from yosys CPU ({est_wall:.0f} min from wall times on this machine); the sample "
             f"itself took {cold_s:.0f} s this run", "< 30 min", est < 30)
        if args.warm_paper:  # (without it, an uncached paper space would be swept cold here: an hour)
            with executor(jobs=2) as ex:
                t = time.monotonic()
                sweep.run(paper, executor=ex, cache=Store(cache_dir("sweep")), progress=False)
                w = time.monotonic() - t
            _row("warm rerun of paper (after `make sweep-paper` on the same cache)", f"{w:.1f} s", "< 30 s", w < 30)
        else:
            print("| (`--warm-paper` after `make sweep-paper` for the measured warm rerun of paper) | | | |")
            with executor(jobs=2) as ex:
                t = time.monotonic()
                again = sweep.run(sample, executor=ex, cache=store, progress=False)
                w = time.monotonic() - t
            scaled = w * len(paper.points) / len(sample.points)
            _row(f"warm rerun of paper-sample ({again.stats['tasks']} tasks), scaled to paper",
                 f"{w:.1f} s measured, {scaled:.0f} s scaled", "< 30 s", scaled < 30)
    _dask_speedup()


FLOW_UNITS = ("mx6", "bdr_m8_k4_d8_k2_d1", "fp8")


def _flows():
    """Standard flow on pyosys vs yowasp, and the fast flow on pyosys: yosys CPU s and area per unit."""
    import json
    import subprocess

    code = ("import json, sys; from fpforge.sweep.evaluate import area_task; "
            "t = json.loads(sys.argv[1]); r = area_task(t); print(json.dumps([r['synth_cpu_s'], r['area_um2']]))")
    print(f"# yosys builds and flows on {machine()}\n")
    print("| unit (r = 16, f = 24, I/O registers) | standard, pyosys | standard, yowasp | fast, pyosys | "
          "pyosys / yowasp speed | fast / standard speed, area |")
    print("|---|---|---|---|---|---|")
    for fmt in FLOW_UNITS:
        unit = dict(unit="dot", format=fmt, r=16, f=24, io_registers=True)
        out = {}
        for label, backend, fast in (("std-pyosys", "pyosys", False), ("std-yowasp", "yowasp", False),
                                     ("fast-pyosys", "pyosys", True)):
            task = dict(kind="area", unit=unit, **({"pre_abc": False} if fast else {}))
            proc = subprocess.run([sys.executable, "-c", code, json.dumps(task)], capture_output=True, text=True,
                                  env=dict(os.environ, FPFORGE_YOSYS=backend))
            out[label] = json.loads(proc.stdout) if proc.returncode == 0 else None
        cells = [f"{c:.1f} s, {a:,.1f} µm²" if (c, a) != (None, None) else "failed"
                 for c, a in (out[k] or (None, None) for k in ("std-pyosys", "std-yowasp", "fast-pyosys"))]
        sp, sy, fp = out["std-pyosys"], out["std-yowasp"], out["fast-pyosys"]
        ratio = f"{sy[0] / sp[0]:.2f}x" if sp and sy else "–"
        fast = f"{sp[0] / fp[0]:.2f}x, {100 * (fp[1] / sp[1] - 1):+.1f} %" if sp and fp else "–"
        print(f"| {fmt} | " + " | ".join(cells) + f" | {ratio} | {fast} |", flush=True)
    return 0


def _dask_speedup():
    try:
        from distributed import LocalCluster
    except ImportError:
        print("| Dask 2 workers vs 1 | (dask.distributed not installed) | | |")
        return
    small = sweep.SPACES["small"]()
    times = {}
    for n in (1, 2):
        with LocalCluster(n_workers=n, threads_per_worker=1, host="127.0.0.1", dashboard_address=None) as cl, \
                tempfile.TemporaryDirectory() as tmp:
            with executor(scheduler=cl.scheduler_address) as ex:
                t = time.monotonic()
                sweep.run(small, executor=ex, cache=os.path.join(tmp, "c"), progress=False)
                times[n] = time.monotonic() - t
    _row(f"Dask LocalCluster, `small` space cold ({len(small.points)} points): 1 worker vs 2",
         f"{times[1]:.0f} s vs {times[2]:.0f} s: {times[1] / times[2]:.2f}x ({machine()})", "speed-up, side by side",
         None)


if __name__ == "__main__":
    sys.exit(main())
