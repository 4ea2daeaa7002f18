"""`fpforge prove` throughput: the Verilator C++ harness beside cocotb on the same unit, the golden side per
chunk, and what that makes a proof of all 2^32 FP32 inputs on this machine.

Targets (issue 14): harness >= 50 M vectors/s per core on a ~200-GE FP8 encoder; one (encoder, mode)
proof of 2^32 inputs < 5 minutes on 2 cores. cocotb and the harness side by side are wall-clock rates
measured one after the other (both suffer the machine's load alike); the per-core figures are vectors per
CPU-second of the process doing the work (the harness' own clock, the worker's process time), which hold
on a shared machine; the projected proof time is 2^32 x (harness + worker CPU per vector) / 2 cores, what
two idle cores take. `--full` also runs one whole proof (FP32 -> E4M3, 4 modes, condition rne sat 0) and
prints its wall time as measured (several minutes).
"""

import argparse
import os
import time

from fpforge.hw.spec import EncoderSpec
from fpforge.jobs.results import machine
from fpforge.sim.harness import HarnessRun, build_harness
from fpforge.sim.prove import CHUNK, Condition, ProofUnit, check_chunk, prove
from fpforge.synth import synthesize

UNITS = [
    ("FP32→E4M3 rne (one mode)", EncoderSpec(format="e4m3", rounding=("rne",)), Condition("rne", 0)),
    ("FP32→E4M3, 4 modes + sat port", EncoderSpec(format="e4m3", rounding=("rne", "ta", "rtz", "sr"),
                                          saturate="runtime"), Condition("rne", 0)),
    ("  same unit, condition sr", EncoderSpec(format="e4m3", rounding=("rne", "ta", "rtz", "sr"),
                                      saturate="runtime"), Condition("sr", 0)),
    ("FP32→HiF8, 5 modes + sat port, hr",
     EncoderSpec(format="hif8", rounding=("ta", "hr", "sr", "rne", "rtz"), saturate="runtime"),
     Condition("hr", 0)),
    ("FP32→CFloat8_1_4_3 rne, bias 7", EncoderSpec(format="cfloat8_143", rounding=("rne",)),
     Condition("rne", 0, 7)),
]
N = 1 << 25
START = 0x3C000000


def harness_rate(unit, cond):
    """Best of three on N patterns: (vectors per harness CPU-second, vectors per wall-second)."""
    spec = unit.harness_spec
    exe = build_harness(spec)
    fixed = [cond.port_value(p) for p in spec.fixed]
    cpu = wall = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        with HarnessRun(exe, spec, [(START, N, 1, fixed)]) as run:
            for _ in range(N // (1 << 20)):
                run.read(1 << 20)
            cpu = min(cpu, run.close())
        wall = min(wall, time.perf_counter() - t)
    return N / cpu, N / wall


def chunk_cpu(unit, cond):
    """(golden vectors per CPU-second, CPU nanoseconds per vector of a whole chunk: harness + worker)."""
    out = check_chunk(dict(spec=unit.harness_spec, cfg=unit.golden_cfg, cond=tuple(cond), start=START, count=CHUNK,
                           seed=0))
    assert out["mismatches"] == 0, out["first"]
    return CHUNK / out["golden_cpu"], 1e9 * (out["harness_cpu"] + out["worker_cpu"]) / CHUNK


def cocotb_rate(cfg):
    """cocotb on Verilator (64 lanes, its fastest shape): vectors per wall-second of the run phase on 300k
    random FP32 vectors + directed cases (the build is made by a first run and not counted)."""
    from fpforge.sim.regress import regress_unit

    for n in (1_000, 300_000):
        r = regress_unit(cfg, "verilator", vectors=n, lanes=64, build_root=os.path.join("build", "bench-prove"))
        assert r.passed, r.summary()
    return r.rate


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--full", action="store_true", help="also prove FP32 -> E4M3 rne sat 0 on all 2^32 inputs")
    args = p.parse_args()
    print(f"# fpforge prove throughput; machine: {machine()} (shared: rates per CPU-second, walls as measured)")
    first = ProofUnit.generated(UNITS[0][1])
    rtl = synthesize(first.sources[0], first.top)
    print(f"# {UNITS[0][0]}: {rtl['ge']} GE on {rtl['liberty']}")
    print(f"{'unit':36} {'cocotb':>8} {'harness':>8} {'ratio':>6} {'harness':>9} {'golden':>9} {'chunk CPU':>10} "
          f"{'2^32 proof, 2 idle cores':>25}")
    print(f"{'':36} {'vec/s':>8} {'vec/s':>8} {'':>6} {'vec/CPU-s':>9} {'vec/CPU-s':>9} {'ns/vector':>10}")
    cocotb = cocotb_rate(UNITS[0][1])
    rows = [(label, ProofUnit.generated(cfg), cond) for label, cfg, cond in UNITS]
    rows.insert(1, ("  its gate-level netlist", ProofUnit.netlist(UNITS[0][1]), UNITS[0][2]))
    for k, (label, unit, cond) in enumerate(rows):
        h_cpu, h_wall = harness_rate(unit, cond)
        g, ns = chunk_cpu(unit, cond)
        ref = f"{cocotb / 1e3:6.0f} k {h_wall / 1e6:6.1f} M {h_wall / cocotb:5.0f}x" if k == 0 else " " * 24
        print(f"{label:36} {ref} {h_cpu / 1e6:7.1f} M {g / 1e6:7.1f} M {ns:10.1f} {2**32 * ns / 2e9:22.0f} s")
    if args.full:
        unit = ProofUnit.generated(UNITS[1][1])
        t = time.perf_counter()
        r = prove(unit, [Condition("rne", 0)], jobs=2, store=False)[0]
        assert r.passed, r.first
        print(f"full proof {unit.top} rne sat=0: {r.vectors:,} vectors, {r.mismatches} mismatches, "
              f"{time.perf_counter() - t:.0f} s wall on 2 jobs")


if __name__ == "__main__":
    main()
