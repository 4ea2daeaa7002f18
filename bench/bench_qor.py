"""QoR of the dot unit's datapaths: area and logic depth of aligned, anchored and auto.

Every dot preset at r in {8, 16, 32} (where r is a multiple of the format's block size) and two windows: the
exact one (f = f_exact, when it is at most 256) and f = 24. Each datapath is synthesized with fpforge's
flow (yosys onto the bundled fpforge45.lib, the default `delay` ABC script, combinational units); `auto` is
the datapath :func:`fpforge.hw.dot.resolve_datapath` picks (the same Verilog as that column's, not
synthesized twice). `fpforge report bench-qor` writes the table into results.md (docs/dot.md, "Datapaths").
Synthesis of r = 32 units takes minutes each on a shared machine: ``--r 8`` (or ``--r 8 16``) for a part.

    python bench/bench_qor.py              # every r (long)
    python bench/bench_qor.py --r 8        # r = 8 only
    python bench/bench_qor.py --targets    # issue 34's two targets and the one-block units (about 25 min)

``--targets`` measures the two configurations issue 34 sets targets for (E4M3 r = 8 f = 37 and MXFP8-E4M3
r = 32 f = 42: each datapath, ``auto``, the target) and every preset whose dot unit is one block at its exact
window (OCP MX at r = 32, the BDR presets at r = 16), where ``auto`` chooses between the two datapaths by
the rule docs/dot.md states ("Datapaths").
"""

import argparse
import sys
import time

from fpforge.golden.dot import F_RANGE, DotConfig
from fpforge.hw import build_unit, to_verilog
from fpforge.hw.dot import resolve_datapath
from fpforge.synth import synthesize, yosys_backend
from fpforge.synth.errors import SynthError

PRESETS = ("e4m3", "e5m2", "fp8", "hif8", "cfloat8_143", "cfloat8_152", "mx9", "mx6", "mx4", "msfp12", "msfp16",
           "mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4_e2m1", "mxint8")
RS = (8, 16, 32)
#: Issue 34's targets: (preset, r, f, area µm², depth) on fpforge45.lib, fpforge's flow.
TARGETS = (("e4m3", 8, 37, 4500, 90), ("mxfp8_e4m3", 32, 42, 17000, 115))
#: Presets whose dot unit at the given r is one block (nb = 1) at its exact window.
ONE_BLOCK = (("mxfp8_e4m3", 32), ("mxfp8_e5m2", 32), ("mxfp6_e3m2", 32), ("mxfp6_e2m3", 32), ("mxfp4_e2m1", 32),
             ("mxint8", 32), ("mx9", 16), ("mx6", 16), ("mx4", 16), ("msfp12", 16), ("msfp16", 16))


def points(rs):
    """``(preset, r, f, window label)`` of the table, in order."""
    for r in rs:
        for name in PRESETS:
            if r % DotConfig(name, 32, 24).k1:
                continue
            exact = DotConfig(name, r, 24).f_exact
            if exact <= F_RANGE[1]:
                yield name, r, exact, "exact"
            if exact != 24:
                yield name, r, 24, "24"


def measure(name, r, f, datapath, timeout=600):
    t = time.perf_counter()
    src = to_verilog(build_unit("dot", format=name, r=r, f=f, datapath=datapath), "top")
    try:
        rep = synthesize(src, "top", timeout=timeout)
    except SynthError as e:  # a yosys timeout is a measurement too: the row says so
        print(f"{name} r={r} f={f} {datapath}: {e}", file=sys.stderr, flush=True)
        return None
    print(f"{name} r={r} f={f} {datapath}: {rep['area_um2']:.1f} um^2, depth {rep['logic_depth']}, "
          f"{time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
    return rep["area_um2"], rep["logic_depth"]


#: Seconds of synthesis per unit of the one-block table ("timeout" beyond: MXINT8 at r = 32 exceeds 600 s on
#: both datapaths).
ONE_BLOCK_TIMEOUT = 300


def _cell(v):
    return "timeout" if v is None else f"{v[0]:,.0f} / {v[1]}"


def targets() -> int:
    """Issue 34's targets and the one-block units: each datapath's area / depth beside auto's choice."""
    backend, version = yosys_backend()
    print(f"Area (µm², fpforge45.lib) / logic depth (cells), combinational units, the `delay` ABC script; {version} "
          f"({backend}).\n")
    print("| preset | r | f | aligned | anchored | auto (its choice) | target | met |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |", flush=True)
    for name, r, f, area, depth in TARGETS:
        got = {dp: measure(name, r, f, dp) for dp in ("aligned", "anchored")}
        auto = resolve_datapath(DotConfig(name, r, f))
        best = got[auto]
        met = best is not None and best[0] <= area and best[1] <= depth
        print(f"| {name} | {r} | {f} | {_cell(got['aligned'])} | {_cell(got['anchored'])} | {auto}: {_cell(best)} | "
              f"≤ {area:,} / ≤ {depth} | {'yes' if met else 'no'} |", flush=True)
    print(f"\nOne block (nb = 1) at the exact window (timeout: no netlist within {ONE_BLOCK_TIMEOUT} s):\n")
    print("| preset | r | f | aligned | anchored | anchored − aligned | auto |")
    print("| --- | --- | --- | --- | --- | --- | --- |", flush=True)
    for name, r in ONE_BLOCK:
        cfg = DotConfig(name, r, 24)
        f = cfg.f_exact
        got = {dp: measure(name, r, f, dp, ONE_BLOCK_TIMEOUT) for dp in ("aligned", "anchored")}
        al, an = got["aligned"], got["anchored"]
        gain = "" if al is None or an is None else f"{100 * (an[0] / al[0] - 1):+.1f} % / {an[1] - al[1]:+d}"
        print(f"| {name} | {r} | {f} | {_cell(al)} | {_cell(an)} | {gain} | "
              f"{resolve_datapath(DotConfig(name, r, f))} |", flush=True)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--r", type=int, nargs="+", choices=RS, default=list(RS), help="r values (default 8 16 32)")
    ap.add_argument("--targets", action="store_true", help="issue 34's targets and the one-block units only")
    args = ap.parse_args(argv)
    if args.targets:
        return targets()
    backend, version = yosys_backend()
    print(f"Area (µm², fpforge45.lib) / logic depth (cells) of each dot datapath, combinational units, the `delay` "
          f"ABC script; {version} ({backend}). `—`: anchored needs the exact window. nb: blocks summed.\n")
    print("| preset | r | f (window) | nb | aligned | anchored | anchored − aligned | auto (its choice) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |", flush=True)
    for name, r, f, window in points(args.r):
        cfg = DotConfig(name, r, f)
        aligned = measure(name, r, f, "aligned") or (float("nan"), 0)
        anchored = (measure(name, r, f, "anchored") or (float("nan"), 0)) if f >= cfg.f_exact else None
        auto = resolve_datapath(cfg)
        best = anchored if auto == "anchored" else aligned

        def cell(v):
            return "—" if v is None else "timeout" if v[0] != v[0] else f"{v[0]:,.0f} / {v[1]}"

        timed_out = anchored is None or anchored[0] != anchored[0] or aligned[0] != aligned[0]
        gain = "" if timed_out else f"{100 * (anchored[0] / aligned[0] - 1):+.1f} % / {anchored[1] - aligned[1]:+d}"
        print(f"| {name} | {r} | {f} ({window}) | {cfg.nb} | {cell(aligned)} | {cell(anchored)} | {gain} | "
              f"{auto}: {cell(best)} |", flush=True)  # row by row: a part of a long run is usable
    return 0


if __name__ == "__main__":
    sys.exit(main())
