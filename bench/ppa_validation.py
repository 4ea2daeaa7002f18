"""The validation figures of docs/ppa.md ("Workload activity: validation"), measured, not typed.

    python bench/ppa_validation.py            # the fast set (about 1-2 min on one core)
    python bench/ppa_validation.py --slow     # adds the r = 16 dot units: MX6 vs FP8, the 2x time budget

Prints markdown: ABC's delay estimate beside OpenSTA's; the delay of an E2M1 dot unit at r = 2, 4, 8 (16);
all-zero operands against the Gaussian workload; one netlist at T and T/2; MX6 against FP8 at r = 16; the time
of the PPA step (mapping at T, STA, workload simulation, power) against area-only synthesis. Needs OpenSTA and
the osu018 cells (make setup). tests/test_ppa_validation.py checks the same claims.
"""

from __future__ import annotations

import argparse
import re
import sys
import time

import numpy as np


def _unit(spec):
    from fpforge.hw.generate import build_unit, default_name, to_verilog

    unit = build_unit(spec)
    name = default_name(unit)
    return to_verilog(unit, name), name


def _ppa(spec, clock_ns, **kw):
    from fpforge.synth import synthesize

    text, name = _unit(spec)
    kw.setdefault("workload", spec)
    return synthesize(text, name, liberty="osu018", clock_ns=clock_ns, power=True, **kw)


def abc_vs_sta(rows):
    from fpforge.hw.spec import DecoderSpec, DotSpec, EncoderSpec

    print("| unit | T (ns) | ABC (ns) | OpenSTA (ns) | difference |\n| --- | --- | --- | --- | --- |")
    for label, spec in (("E4M3 encoder from FP32", EncoderSpec(format="e4m3")),
                        ("E5M2 decoder to FP32", DecoderSpec(format="e5m2")),
                        ("E4M3 decoder to FP32", DecoderSpec(format="e4m3")),
                        ("HiF8 encoder from FP32", EncoderSpec(format="hif8")),
                        ("E2M1 dot unit, r = 4, f = 16", DotSpec(format="e2m1", r=4, f=16))):
        r = _ppa(spec, 5.0)
        diff = r["abc_delay_ns"] / r["delay_ns"] - 1
        rows.append(diff)
        print(f"| {label} | 5 | {r['abc_delay_ns']:.4f} | {r['delay_ns']:.4f} | {diff:+.1%} |")


def dot_delay(rs):
    from fpforge.hw.spec import DotSpec

    print("\n| r | delay (ns) | growth from r/2 (ns) | logic depth (cells) |\n| --- | --- | --- | --- |")
    prev = None
    for r in rs:
        rep = _ppa(DotSpec(format="e2m1", r=r, f=16), 10.0)
        grow = "" if prev is None else f"{rep['delay_ns'] - prev:+.4f}"
        print(f"| {r} | {rep['delay_ns']:.4f} | {grow} | {rep['logic_depth']} |")
        prev = rep["delay_ns"]


def zeros_and_clock():
    from fpforge.hw.spec import DotSpec

    spec = DotSpec(format="e4m3", r=2, f=32)
    g = _ppa(spec, 5.0)
    z = _ppa(spec, 5.0, workload={"a": np.zeros(256, np.uint64), "b": np.zeros(256, np.uint64),
                                  "sel_a": np.zeros(256, np.uint64), "sel_b": np.zeros(256, np.uint64)}
             if "sel_a" in _unit(spec)[0] else {"a": np.zeros(256, np.uint64), "b": np.zeros(256, np.uint64)})
    dyn = lambda r: r["internal_mw"] + r["switching_mw"]  # noqa: E731
    print("\n| E4M3 dot unit, r = 2, f = 32, T = 5 ns | internal (mW) | switching (mW) | leakage (mW) |"
          "\n| --- | --- | --- | --- |")
    for label, r in (("Gaussian workload", g), ("all-zero operands", z)):
        print(f"| {label} | {r['internal_mw']:.6g} | {r['switching_mw']:.6g} | {r['leakage_mw']:.3g} |")
    print(f"\nAll-zero dynamic power / Gaussian: {dyn(z) / dyn(g):.2%}.")
    script = g["abc_script"]
    h = _ppa(spec, 2.5, abc_script=script)
    print(f"\n| same netlist | power (mW) | energy (pJ/op) |\n| --- | --- | --- |\n"
          f"| T = 5 ns | {g['power_mw']:.6g} | {g['energy_pj']:.6g} |\n"
          f"| T = 2.5 ns | {h['power_mw']:.6g} | {h['energy_pj']:.6g} |\n\n"
          f"Power ratio {h['power_mw'] / g['power_mw']:.4f}, energy ratio {h['energy_pj'] / g['energy_pj']:.4f}.")


def slow_set():
    from fpforge.hw.spec import DotSpec
    from fpforge.synth import synthesize

    print("\n| dot unit, r = 16, f = 32, io registers, T = 10 ns | area (µm²) | delay (ns) | power (mW) | energy (pJ) |"
          "\n| --- | --- | --- | --- | --- |")
    reps, sims = {}, {}
    for fmt in ("fp8", "mx6"):
        spec = DotSpec(format=fmt, r=16, f=32, io_registers=True)
        text, name = _unit(spec)
        t0 = time.perf_counter()
        area_only = synthesize(text, name, liberty="osu018")
        t1 = time.perf_counter()
        rep = synthesize(text, name, liberty="osu018", clock_ns=10.0, power=True, workload=spec)
        t2 = time.perf_counter()
        from fpforge.synth.activity import instance_activities, workload_stimulus
        from fpforge.synth.tech import resolve_liberty

        t3 = time.perf_counter()
        inputs = {p: 1 for p in ("a", "b", "sel_a", "sel_b", "rst") if f"input {p};" in rep["netlist_verilog"]
                  or re.search(rf"input \[\d+:0\] {p};", rep["netlist_verilog"])}
        instance_activities(rep["netlist_verilog"], name, resolve_liberty("osu018"), workload_stimulus(spec, ports=inputs))
        sims[fmt] = (rep["cell_count"], time.perf_counter() - t3)
        reps[fmt] = (rep, t1 - t0, t2 - t1, area_only)
        print(f"| {fmt} | {rep['area_um2']:.0f} | {rep['delay_ns']:.4f} | {rep['power_mw']:.5g} | {rep['energy_pj']:.5g} |")
    print(f"\nMX6 / FP8 energy per dot product: {reps['mx6'][0]['energy_pj'] / reps['fp8'][0]['energy_pj']:.3f}.")
    print("\n| r = 16 unit | area-only synthesis (s) | PPA step with workload (s) | ratio |\n| --- | --- | --- | --- |")
    for fmt, (_, ta, tp, _) in reps.items():
        print(f"| {fmt} | {ta:.1f} | {tp:.1f} | {tp / ta:.2f} |")
    print("\n| r = 16 unit | cells | workload simulation alone, 4096 cycles (s) |\n| --- | --- | --- |")
    for fmt, (cells, ts) in sims.items():
        print(f"| {fmt} | {cells} | {ts:.2f} |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--slow", action="store_true", help="also the r = 16 units")
    args = ap.parse_args(argv)
    rows: list = []
    abc_vs_sta(rows)
    dot_delay((2, 4, 8, 16) if args.slow else (2, 4, 8))
    zeros_and_clock()
    if args.slow:
        slow_set()
    return 0


if __name__ == "__main__":
    sys.exit(main())
