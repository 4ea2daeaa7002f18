"""cocotb regression throughput (vectors per second) on each simulator, for the two testbench shapes.

Builds are cached under build/bench-sim, so the figures are run time only (build time printed apart).
Combinational cases use the default lanes (``fpforge.sim.regress.default_lanes``: Verilator 64 for large
cases, Icarus 8).
"""

import sys
from pathlib import Path

from fpforge.hw.spec import EncoderSpec
from fpforge.sim.regress import default_lanes, regress_unit
from fpforge.sim.run import available_simulators

CASES = [
    ("comb: FP16→E4M3, 8 mode×sat pairs, all patterns",
     EncoderSpec(format="e4m3", source="fp16", rounding=("rne", "ta", "rtz", "sr"), saturate="runtime"), {}),
    ("comb: FP32→E5M2, 8 pairs × (100k random + directed)",
     EncoderSpec(format="e5m2", source="fp32", rounding=("rne", "ta", "rtz", "sr"), saturate="runtime"), {}),
    ("comb: FP32→CFloat8_1_4_3, 4 modes, bias per vector",
     EncoderSpec(format="cfloat8_143", source="fp32", rounding=("rne", "sr", "ta", "rtz")), {}),
    ("stream, latency 2, 30% stalls: FP32→E4M3 rne",
     EncoderSpec(format="e4m3", source="fp32", rounding=("rne",), latency=2), dict(stream_vectors=20_000)),
]


def main():
    root = Path(__file__).resolve().parent.parent / "build" / "bench-sim"
    print(f"{'simulator':10} {'case':62} {'lanes':>5} {'vectors':>9} {'run s':>7} {'vectors/s':>11} {'build s':>8}")
    for sim, reason in available_simulators().items():
        if reason:
            print(f"{sim:10} skipped: {reason}")
            continue
        for label, cfg, kw in CASES:
            r = regress_unit(cfg, sim, build_root=root, **kw)
            if not r.passed:
                print(r.summary())
                sys.exit(1)
            lanes = default_lanes(sim, r.vectors) if label.startswith("comb") else "-"
            print(f"{sim:10} {label:62} {lanes!s:>5} {r.vectors:9d} {r.seconds:7.1f} {r.rate:11,.0f} "
                  f"{r.build_seconds:8.1f}")


if __name__ == "__main__":
    main()
