"""`fpforge prove dot` throughput: patterns per CPU-second of the Verilator harness and of the golden dot
product, the CPU time per pattern of a chunk (both together), and the projected time of a whole proof, for
each golden side (``cpp``: the C++ golden, the default for scalar operands, with the numpy model on a sample of
every chunk; ``numpy``: the model alone; block formats have the numpy side only).

Target (issue 29): an r = 2 FP8 proof (2^32 operand patterns) < 10 minutes on 2 cores. The rates are per
CPU-second (the harness' own clock, the worker's process time), which hold on a shared machine; the projected
time is 2^(operand bits) x (harness + worker CPU per pattern) / 2 cores, per condition: what two idle cores
take. Each unit is measured on N patterns from the middle of its range (one chunk, in this process).
"""

import argparse

from fpforge.jobs.results import machine
from fpforge.sim.dot_golden import covers
from fpforge.sim.prove_dot import DotProofUnit, check_dot_chunk

TARGET_MINUTES = 10

UNITS = [
    ("E4M3 r=2 f=32", dict(unit="dot", format="e4m3", r=2, f=32)),
    ("E5M2 r=2 f=32", dict(unit="dot", format="e5m2", r=2, f=32)),
    ("HiF8 r=2 f=32", dict(unit="dot", format="hif8", r=2, f=32)),
    ("CFloat8_143 r=2 f=32, bias 7/7", dict(unit="dot", format="cfloat8_143", r=2, f=32)),
    ("fp8 (E4M3|E5M2) r=2 f=32", dict(unit="dot", format="fp8", r=2, f=32)),
    ("OCP FP4 (E2M1) r=4 f=32", dict(unit="dot", format="e2m1", r=4, f=32)),
    ("FP6 E3M2 r=2 f=32", dict(unit="dot", format="e3m2", r=2, f=32)),
    ("BDR m2 k4 d4 k2 d1 r=4 f=32", dict(unit="dot", format="bdr_m2_k4_d4_k2_d1", r=4, f=32)),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--patterns", type=int, default=1 << 22, help="patterns measured per unit (default 2^22)")
    n = ap.parse_args().patterns
    print(f"# fpforge prove dot throughput; machine: {machine()} (shared: rates per CPU-second); target: an r = 2 "
          f"proof < {TARGET_MINUTES} min per condition on 2 cores")
    print(f"{'unit':34} {'golden':>6} {'patterns':>9} {'conds':>5} {'harness':>10} {'golden':>10} {'chunk CPU':>10} "
          f"{'projected per condition':>24}  target")
    print(f"{'':34} {'':>6} {'':>9} {'':>5} {'pat/CPU-s':>10} {'pat/CPU-s':>10} {'ns/pattern':>10} "
          f"{'on 2 idle cores':>24}")
    for label, cfg in UNITS:
        unit = DotProofUnit.generated(cfg)
        cond = unit.conditions([7] if "cfloat" in cfg["format"] else None)[0]
        count = min(n, unit.domain)
        start = (unit.domain - count) // 2
        for golden in ("cpp", "numpy") if covers(unit.golden_cfg) else ("numpy",):
            out = check_dot_chunk(dict(spec=unit.harness_spec, cfg=unit.golden_cfg, a_bits=unit.a_bits,
                                       cond=tuple(cond), start=start, count=count, golden=golden))
            if out["mismatches"]:
                raise SystemExit(f"{label}: {out['mismatches']} mismatches in the sample")
            ns = (out["harness_cpu"] + out["worker_cpu"]) / count * 1e9
            minutes = unit.domain * ns * 1e-9 / 2 / 60
            verdict = "met" if minutes < TARGET_MINUTES else "MISSED"
            print(f"{label:34} {golden:>6} 2^{unit.pattern_bits:<7} {len(unit.conditions()):>5} "
                  f"{count / max(out['harness_cpu'], 1e-9) / 1e6:8.1f} M "
                  f"{count / max(out['golden_cpu'], 1e-9) / 1e6:8.1f} M "
                  f"{ns:10.1f} {f'{minutes:.1f} min' if minutes >= 1 else f'{minutes * 60:.1f} s':>24}  {verdict}",
                  flush=True)

if __name__ == "__main__":
    main()
