"""Area of the IEEE P3109 binary8 conversion units (yosys onto fpforge45.lib), every format from its
descriptor alone, beside the OCP FP8 formats of the same field widths. Writes the section ``p3109-area``
of docs/results.md (``fpforge.results.write_section``) and prints it.

Run: `.venv/bin/python bench/area_p3109.py` (or `make area`).
"""

from fpforge.golden import get_format
from fpforge.golden.formats import P3109_FORMATS
from fpforge.hw import build_unit, default_name, to_verilog
from fpforge.results import write_section
from fpforge.synth import synthesize

COMMAND = ".venv/bin/python bench/area_p3109.py"
UNITS = (("encoder fp32, rne", dict(unit="encoder", source="fp32", rounding=("rne",))),
         ("encoder fp32, all modes + sat port", dict(unit="encoder", source="fp32", rounding=("rne", "ta", "rtz", "sr"),
                                                     saturate="runtime")),
         ("decoder → fp32", dict(unit="decoder", target="fp32")))
REFERENCE = ("e5m2", "e4m3")  # OCP FP8 of the same field widths as binary8p3s*/binary8p4s*


def _cell(fmt, cfg):
    unit = build_unit(format=fmt, **cfg)
    name = default_name(unit)
    r = synthesize(to_verilog(unit, name), name)
    return f"{r['ge']:.0f} GE / d{r['logic_depth']}"


def main():
    head = "| format | fields | " + " | ".join(label for label, _ in UNITS) + " |"
    rows = [head, "|---|---|" + "---|" * len(UNITS)]
    for name in P3109_FORMATS + REFERENCE:
        cells = [_cell(name, cfg) for _, cfg in UNITS]
        rows.append(f"| {name} | {get_format(name).layout} | " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    text = ("## P3109 conversion units: area\n\nGate equivalents (NAND2 = 1) and logic depth after yosys + ABC onto "
            "fpforge45.lib (docs/synth.md); the OCP FP8 rows are the same field widths for comparison.\n\n"
            + "\n".join(rows))
    write_section("p3109-area", text, command=COMMAND)


if __name__ == "__main__":
    main()
