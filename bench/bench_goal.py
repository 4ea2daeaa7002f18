"""Area and logic depth of the synthesis goals (fpforge synth --goal).

A few units under today's depth-first ABC script (``goal="delay"``) and under depth-relaxed variants, on the
bundled fpforge45.lib (docs/synth.md, "Mapping goal"); `fpforge report bench-goal` writes it into results.md. Prints the markdown table of docs/synth.md (about 30 s with yosys' native build).

    python bench/bench_goal.py            # the table
"""

import sys
import time

from fpforge.hw import build_unit, to_verilog
from fpforge.synth import synthesize, yosys_backend
from fpforge.synth.flow import AREA_ABC_SCRIPT, DEFAULT_ABC_SCRIPT

UNITS = [
    ("E4M3 encoder (FP32, RNE)", "encoder", dict(format="e4m3")),
    ("E5M2 encoder (FP32, RNE)", "encoder", dict(format="e5m2")),
    ("HiF8 encoder (FP32, TA)", "encoder", dict(format="hif8")),
    ("E4M3 decoder", "decoder", dict(format="e4m3")),
    ("dot e4m3, r = 4, f = 24 (`--preset e4m3`)", "dot", dict(format="e4m3", r=4, f=24)),
]

_RELAXED2 = AREA_ABC_SCRIPT + "; " + AREA_ABC_SCRIPT
VARIANTS = [
    ("delay (today)", DEFAULT_ABC_SCRIPT),
    ("area: `&nf -R 1000`", AREA_ABC_SCRIPT),
    ("`&dch` (no `-f`), `&nf -R 1000`", AREA_ABC_SCRIPT.replace("&dch -f", "&dch")),
    ("`&nf -R 1000` twice", _RELAXED2),
]


def main() -> int:
    rows = []
    for label, unit, opts in UNITS:
        src = to_verilog(build_unit(unit, **opts), "top")
        cells = []
        base = None
        for _, script in VARIANTS:
            t = time.perf_counter()
            rep = synthesize(src, "top", abc_script=script)
            secs = time.perf_counter() - t
            base = base or rep["area_um2"]
            cells.append(f"{rep['area_um2']:.1f} / {rep['logic_depth']} ({100 * (rep['area_um2'] / base - 1):+.1f} %)")
            print(f"{label}: {script}: {rep['area_um2']} um^2, depth {rep['logic_depth']}, {secs:.1f} s",
                  file=sys.stderr, flush=True)
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    backend, version = yosys_backend()
    print(f"Area (µm², fpforge45.lib) / logic depth (cells), and the area against `delay`; {version} ({backend}):\n")
    print("| unit | " + " | ".join(v for v, _ in VARIANTS) + " |")
    print("| --- |" + " --- |" * len(VARIANTS))
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
