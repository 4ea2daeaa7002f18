"""`fpforge prove` throughput: the Verilator C++ harness beside cocotb on the same unit, the golden side per
chunk, and what that makes a proof of all 2^32 FP32 inputs on this machine.

Targets (issue 14): harness >= 50 M vectors/s per core on a ~200-GE FP8 encoder; one (encoder, mode)
proof of 2^32 inputs < 5 minutes on 2 cores. Per-core rates are vectors per CPU-second of the process that
does the work (the harness' own clock, the worker's process time), so they hold on a loaded machine; wall
times depend on the load, printed first. `--full` also runs one whole proof (FP32 -> E4M3, rne, sat 0) and
prints its wall time (several minutes).
"""

import argparse
import os
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
    ("FP32→HiF8, 5 modes + sat port, hr", dict(unit="encoder", format="hif8", rounding=("ta", "hr", "sr", "rne", "rtz"),
                                             saturate="runtime"), Condition("hr", 0)),
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


def chunk_rates(unit, cond):
    """(golden vectors per CPU-second, chunk vectors per wall-second in one worker) on one 2^24 chunk."""
    out = check_chunk(dict(spec=unit.harness_spec, cfg=unit.golden_cfg, cond=tuple(cond), start=START, count=CHUNK,
                           seed=0))
    assert out["mismatches"] == 0, out["first"]
    return CHUNK / out["golden_cpu"], CHUNK / out["seconds"]


def cocotb_rate(cfg):
    from fpforge.sim.regress import regress_unit

    r = regress_unit(cfg, "verilator", vectors=100_000, build_root=os.path.join("build", "bench-prove"))
    assert r.passed, r.summary()
    return r.rate


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--full", action="store_true", help="also prove FP32 -> E4M3 rne sat 0 on all 2^32 inputs")
    args = p.parse_args()
    print(f"# fpforge prove throughput; machine: {machine()} (shared: rates per CPU-second, walls as measured)")
    rtl = synthesize(ProofUnit.generated(UNITS[0][1]).sources[0], ProofUnit.generated(UNITS[0][1]).top)
    print(f"# {UNITS[0][0]}: {rtl['ge']} GE on {rtl['liberty']}")
    print(f"{'unit':36} {'cocotb/s':>10} {'harness/s/core':>15} {'ratio':>7} {'golden/s/core':>14} "
          f"{'chunk/s/worker':>15} {'2^32 on 2 cores':>16}")
    cocotb = cocotb_rate(dict(UNITS[0][1], source="fp32"))
    for label, cfg, cond in UNITS:
        unit = ProofUnit.generated(cfg)
        h = harness_rate(unit, cond)
        g, c = chunk_rates(unit, cond)
        ref = cocotb if cfg == UNITS[0][1] else None
        ratio = f"{h / ref:7.0f}x" if ref else " " * 8
        cocotb_col = f"{ref:10,.0f}" if ref else " " * 10
        print(f"{label:36} {cocotb_col} {h / 1e6:13.1f} M {ratio} {g / 1e6:12.1f} M {c / 1e6:13.1f} M "
              f"{2**32 / (2 * c):14.0f} s")
    net = ProofUnit.netlist(UNITS[0][1])
    h = harness_rate(net, UNITS[0][2])
    print(f"{'  its gate-level netlist':36} {' ' * 10} {h / 1e6:13.1f} M")
    if args.full:
        unit = ProofUnit.generated(UNITS[1][1])
        t = time.perf_counter()
        r = prove(unit, [Condition("rne", 0)], jobs=2, store=False)[0]
        assert r.passed, r.first
        print(f"full proof {unit.top} rne sat=0: {r.vectors:,} vectors, {r.mismatches} mismatches, "
              f"{time.perf_counter() - t:.0f} s wall on 2 jobs")


if __name__ == "__main__":
    main()
