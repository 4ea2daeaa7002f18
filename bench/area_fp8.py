"""Area of the FP8 conversion units (yosys onto fpforge45.lib), printed as the README's markdown table.

Run: `make area` (or `.venv/bin/python bench/area_fp8.py`).
"""

from fpforge.hw import build_unit, default_name, to_verilog
from fpforge.synth import synthesize

FORMATS = ("e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz")
ROWS = (
    [("encoder fp32→{f}, rne", dict(unit="encoder", source="fp32", rounding=("rne",))),
     ("encoder fp16→{f}, rne", dict(unit="encoder", source="fp16", rounding=("rne",))),
     ("encoder bf16→{f}, rne", dict(unit="encoder", source="bf16", rounding=("rne",))),
     ("encoder fp32→{f}, sr (R=16)", dict(unit="encoder", source="fp32", rounding=("sr",))),
     ("encoder fp32→{f}, all modes + sat port", dict(unit="encoder", source="fp32",
                                                      rounding=("rne", "ta", "rtz", "sr"), saturate="runtime")),
     ("decoder {f}→fp32", dict(unit="decoder", target="fp32")),
     ("decoder {f}→fp16", dict(unit="decoder", target="fp16"))]
)


def main():
    print("| unit | " + " | ".join(FORMATS) + " |")
    print("|---|" + "---|" * len(FORMATS))
    for label, cfg in ROWS:
        cells = []
        for f in FORMATS:
            unit = build_unit(format=f, **cfg)
            name = default_name(unit)
            r = synthesize(to_verilog(unit, name), name)
            cells.append(f"{r['area_um2']:.1f} µm² / {r['ge']:.0f} GE / d{r['logic_depth']}")
        print(f"| {label.format(f='FP8')} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
