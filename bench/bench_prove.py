"""`fpforge prove` throughput: the Verilator C++ harness beside cocotb on the same unit, the golden side per
chunk, and what that makes a proof of all 2^32 FP32 inputs on this machine.

Targets (issue 14): harness >= 50 M vectors/s per core on a ~200-GE FP8 encoder; one (encoder, mode)
proof of 2^32 inputs < 5 minutes on 2 cores. Rates are vectors per CPU-second of the processes doing the
work (the harness' own clock, the worker's process time, the cocotb simulator's rusage), so they hold on a
shared machine; the projected proof time is 2^32 x (harness + worker CPU per vector) / 2 cores, what two
idle cores take. `--full` also runs one whole proof (FP32 -> E4M3, 4 modes, condition rne sat 0) and
prints its wall time as measured (several minutes).
"""

import argparse
import os
import resource
import time

from fpforge.results import machine
from fpforge.sim.harness import HarnessRun, build_harness
from fpforge.sim.prove import CHUNK, Condition, ProofUnit, check_chunk, prove
from fpforge.synth import synthesize

UNITS = [
    ("FP32→E4M3 rne (one mode)", dict(unit="encoder", format="e4m3", rounding=("rne",)), Condition("rne", 0)),
    ("FP32→E4M3, 4 modes + sat port", dict(unit="encoder", format="e4m3", rounding=("rne", "ta", "rtz", "sr"),
                                          saturate="runtime"), Condition("rne", 0)),
    ("  same unit, condition sr", dict(unit="encoder", format="e4m3", rounding=("rne", "ta", "rtz", "sr"),
                                      saturate="runtime"), Condition("sr", 0)),
    ("FP32→HiF8, 5 modes + sat port, hr",
     dict(unit="encoder", format="hif8", rounding=("ta", "hr", "sr", "rne", "rtz"), saturate="runtime"),
     Condition("hr", 0)),
    ("FP32→CFloat8_1_4_3 rne, bias 7", dict(unit="encoder", format="cfloat8_143", rounding=("rne",)),
     Condition("rne", 0, 7)),
]
N = 1 << 25
START = 0x3C000000


def harness_rate(unit, cond):
    """Best of three: vectors per harness CPU-second on N patterns."""
    spec = unit.harness_spec
    exe = build_harness(spec)
    fixed = [cond.port_value(p) for p in spec.fixed]
    best = float("inf")
    for _ in range(3):
        with HarnessRun(exe, spec, [(START, N, 1, fixed)]) as run:
            for _ in range(N // (1 << 20)):
                run.read(1 << 20)
            best = min(best, run.close())
    return N / best


def chunk_cpu(unit, cond):
    """(golden vectors per CPU-second, CPU nanoseconds per vector of a whole chunk: harness + worker)."""
    out = check_chunk(dict(spec=unit.harness_spec, cfg=unit.golden_cfg, cond=tuple(cond), start=START, count=CHUNK,
                           seed=0))
    assert out["mismatches"] == 0, out["first"]
    return CHUNK / out["golden_cpu"], 1e9 * (out["harness_cpu"] + out["worker_cpu"]) / CHUNK


def cocotb_rate(cfg):
    """cocotb on Verilator (random FP32 vectors + directed cases): vectors per CPU-second of the child
    processes, from two runs (1k and 100k random vectors) so the fixed cost (Verilator's no-op re-run, make,
    start-up) cancels; the build is made first and not counted."""
    from fpforge.sim.regress import regress_unit

    runs = []
    for n in (1_000, 1_000, 100_000):  # the first run builds
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        r = regress_unit(cfg, "verilator", vectors=n, build_root=os.path.join("build", "bench-prove"))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        assert r.passed, r.summary()
        runs.append((r.vectors, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)))
    (n1, c1), (n2, c2) = runs[1:]
    return (n2 - n1) / (c2 - c1)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--full", action="store_true", help="also prove FP32 -> E4M3 rne sat 0 on all 2^32 inputs")
    args = p.parse_args()
    print(f"# fpforge prove throughput; machine: {machine()} (shared: rates per CPU-second, walls as measured)")
    first = ProofUnit.generated(UNITS[0][1])
    rtl = synthesize(first.sources[0], first.top)
    print(f"# {UNITS[0][0]}: {rtl['ge']} GE on {rtl['liberty']}")
    print(f"{'unit':36} {'cocotb':>9} {'harness':>9} {'ratio':>6} {'golden':>9} {'chunk CPU':>10} "
          f"{'2^32 proof, 2 idle cores':>25}")
    print(f"{'':36} {'vec/CPU-s':>9} {'vec/CPU-s':>9} {'':>6} {'vec/CPU-s':>9} {'ns/vector':>10}")
    cocotb = cocotb_rate(UNITS[0][1])
    rows = [(label, ProofUnit.generated(cfg), cond) for label, cfg, cond in UNITS]
    rows.insert(1, ("  its gate-level netlist", ProofUnit.netlist(UNITS[0][1]), UNITS[0][2]))
    for k, (label, unit, cond) in enumerate(rows):
        h = harness_rate(unit, cond)
        g, ns = chunk_cpu(unit, cond)
        ref = f"{cocotb / 1e3:7.0f} k {h / cocotb:5.0f}x" if k == 0 else " " * 16
        print(f"{label:36} {ref} {h / 1e6:7.1f} M {g / 1e6:7.1f} M {ns:10.1f} {2**32 * ns / 2e9:22.0f} s")
    if args.full:
        unit = ProofUnit.generated(UNITS[1][1])
        t = time.perf_counter()
        r = prove(unit, [Condition("rne", 0)], jobs=2, store=False)[0]
        assert r.passed, r.first
        print(f"full proof {unit.top} rne sat=0: {r.vectors:,} vectors, {r.mismatches} mismatches, "
              f"{time.perf_counter() - t:.0f} s wall on 2 jobs")


if __name__ == "__main__":
    main()
