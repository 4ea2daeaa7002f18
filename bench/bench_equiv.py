"""`fpforge equiv --netlist` of dot-product units: wall time by r and engine.

By r (2, 4, 8, 16) and engine (iprove, cec, dprove on ABC's miter; staged) for the E4M3 and MX4 presets
(MX4: r = 16 only, its block size), onto fpforge45. Each time is the whole check (synthesis of the netlist,
the miter, ABC) as measured; a row that does not decide within --timeout says `unknown` with the time spent.
The default engine of `fpforge equiv` for a dot unit (staged) was chosen from these numbers (docs/prove.md,
"Equivalence of block and dot units").

    python bench/bench_equiv.py [--timeout S] [--r 2,4,8,16] [--engines iprove,cec,dprove,staged]
"""

import argparse
import time

from fpforge.jobs.results import machine
from fpforge.sim.equiv import ENGINES, equiv


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--timeout", type=float, default=600.0, help="seconds ABC may take per check (default 600)")
    p.add_argument("--r", default="2,4,8,16", help="comma list of r (default 2,4,8,16)")
    p.add_argument("--engines", default=",".join(ENGINES), help="comma list of ABC engines")
    args = p.parse_args()
    if not args.timeout > 0:
        p.error(f"--timeout must be a number of seconds > 0, not {args.timeout}")
    rs = [int(x) for x in args.r.split(",")]
    engines = [e.strip() for e in args.engines.split(",")]
    bad = [e for e in engines if e not in ENGINES]
    if bad:
        p.error(f"unknown engine {bad[0]!r}; valid: {', '.join(ENGINES)}")
    print(f"# fpforge equiv --netlist of dot units (fpforge45), seconds by r and engine; {machine()}")
    print("| preset | r | f | " + " | ".join(engines) + " | miter ANDs |")
    print("|---|---|---|" + "---|" * len(engines) + "---|")
    cases = [("e4m3", r) for r in rs] + [("mx4", 16)] * (16 in rs)
    for preset, r in cases:
        cells, ands = [], 0
        for engine in engines:
            t0 = time.perf_counter()
            res = equiv({"unit": "dot", "format": preset, "r": r, "f": 32}, netlist=True, engine=engine,
                        timeout=args.timeout)
            dt = time.perf_counter() - t0
            ands = res.miter_ands or ands
            cells.append(f"{dt:.1f}" + ("" if res.status == "proved" else f" ({res.status})"))
        print(f"| {preset} | {r} | 32 | " + " | ".join(cells) + f" | {ands:,} |", flush=True)


if __name__ == "__main__":
    main()
