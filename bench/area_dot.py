"""Area of the dot-product units beside the paper's statements (seed 004 §IV-B/C), printed as the README's
markdown table. Run: `make area` (or `.venv/bin/python bench/area_dot.py [--r 16,64] [--f 32]`).

Method (the paper's): each unit combinational with only its inputs and outputs registered
(``fpforge synth dot ... --io-registers``), yosys onto fpforge45.lib (Nangate45 cell areas) with the fast ABC
script; the paper used Design Compiler, a leading-edge node and an easily met 10 ns constraint so that
every design maps for minimum area — our flow has no timing constraint at all, which is the same intent.
Area is normalized to the FP8 baseline at the same r and f: the ``fp8`` unit, which takes E4M3 or E5M2
per operand (run-time selects), as the paper's configurable FP8 unit does.

Memory factor (the paper's "elements of a 256-element tile per 64-byte interface"): 64-byte accesses
needed to fetch a 256-element tile, ceil(256 × bits per element / 512), from the descriptors' bits per
element, relative to FP8's 4 accesses. Area × memory is the paper's efficiency product (lower is better).
"""

import argparse
import math
import time

from fpforge.golden.dot import DotConfig
from fpforge.hw import build_unit, default_name, to_verilog
from fpforge.synth import synthesize

FORMATS = ("fp8", "mx9", "mx6", "mx4")
PAPER = {"fp8": "baseline (1×)", "mx9": "close to FP8", "mx6": "≈ 2× cheaper than FP8 (area × memory)",
         "mx4": "≈ 4× cheaper than FP8 (area × memory)"}


def memory_accesses(name):
    cfg = DotConfig(name, 16, 16)
    return math.ceil(256 * cfg.a.bits_per_element / 512), float(cfg.a.bits_per_element)


def synth(name, r, f):
    unit = build_unit("dot", format=name, r=r, f=f, io_registers=True)
    top = default_name(unit)
    t = time.monotonic()
    rep = synthesize(to_verilog(unit, top), top)
    return rep, time.monotonic() - t


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--r", default="16,64")
    p.add_argument("--f", default="32")
    args = p.parse_args()
    rs = [int(v) for v in args.r.split(",")]
    fs = [int(v) for v in args.f.split(",")]
    print("| unit | r | f | area µm² | GE | flip-flops | area / FP8 | bits/elem | 64 B accesses per 256-elem tile "
          "| memory / FP8 | area × memory / FP8 | paper | synth s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    fp8_mem = memory_accesses("fp8")[0]
    for r in rs:
        for f in fs:
            base = None
            for name in FORMATS:
                rep, secs = synth(name, r, f)
                base = base or rep["area_um2"]
                acc, bpe = memory_accesses(name)
                ar = rep["area_um2"] / base
                mem = acc / fp8_mem
                print(f"| {name} | {r} | {f} | {rep['area_um2']:.0f} | {rep['ge']:.0f} | {rep['flip_flops']} | {ar:.2f} "
                      f"| {bpe:g} | {acc} | {mem:.2f} | {ar * mem:.2f} | {PAPER[name]} | {secs:.0f} |", flush=True)


if __name__ == "__main__":
    main()
