"""Area of the HiF8 conversion units beside E4M3 and E5M2 (same flow, same liberty), as a markdown table.

Run: `make area` (or `.venv/bin/python bench/area_hif8.py`). A mode a format does not offer shows "–".
"""

from fpforge.golden import get_format
from fpforge.hw import build_unit, default_name, to_verilog
from fpforge.synth import synthesize

FORMATS = ("hif8", "e4m3", "e5m2")
ALL_HIF8 = ("ta", "hr", "sr", "rne", "rtz")
ROWS = (
    [(f"encoder {s}→F, {r}", dict(unit="encoder", source=s, rounding=(r,)))
     for r in ("ta", "hr") for s in ("fp32", "fp16", "bf16")]
    + [("encoder fp32→F, rne", dict(unit="encoder", source="fp32", rounding=("rne",))),
       ("encoder fp32→F, sr (R=16)", dict(unit="encoder", source="fp32", rounding=("sr",))),
       ("encoder fp32→F, every mode of F + sat port", dict(unit="encoder", source="fp32", rounding="all",
                                                           saturate="runtime"))]
    + [(f"decoder F→{t}", dict(unit="decoder", target=t)) for t in ("fp32", "fp16", "bf16")]
)


def cell(fmt, cfg):
    cfg = dict(cfg, format=fmt)
    if cfg.get("rounding") == "all":
        cfg["rounding"] = get_format(fmt).roundings
    if any(r not in get_format(fmt).roundings for r in cfg.get("rounding", ())):
        return "–"
    unit = build_unit(**cfg)
    name = default_name(unit)
    r = synthesize(to_verilog(unit, name), name)
    return f"{r['area_um2']:.1f} µm² / {r['ge']:.0f} GE / d{r['logic_depth']}"


def main():
    print("| unit (F = column) | " + " | ".join(FORMATS) + " |")
    print("|---|" + "---|" * len(FORMATS))
    for label, cfg in ROWS:
        print(f"| {label} | " + " | ".join(cell(f, cfg) for f in FORMATS) + " |", flush=True)


if __name__ == "__main__":
    main()
