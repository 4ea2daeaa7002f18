"""Area of the block-format units (BlockEncoder k1 values → one block, BlockDecoder one block → k1 FP32
values), yosys onto fpforge45.lib, printed as the README's markdown table.

Run: `make area` (or `.venv/bin/python bench/area_block.py`). Combinational units (`--latency 0`), FP32
source/target. "GE/elem" divides the default encoder's gate equivalents by k1.
"""

from fpforge.golden import get_format
from fpforge.hw import build_unit, default_name, to_verilog
from fpforge.synth import synthesize

FORMATS = ("mx9", "mx6", "mx4", "msfp12", "msfp16", "mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3",
           "mxfp4_e2m1", "mxint8")


def _cell(cfg):
    unit = build_unit(**cfg)
    name = default_name(unit)
    r = synthesize(to_verilog(unit, name), name)
    return r, f"{r['area_um2']:.0f} µm² / {r['ge']:.0f} GE / d{r['logic_depth']}"


def main():
    print("| format (k1) | encoder fp32, default rounding | GE/elem | encoder fp32, every rounding (mode port, "
          "sr R=16) | decoder →fp32 |")
    print("|---|---|---|---|---|")
    for f in FORMATS:
        fmt = get_format(f)
        r, enc = _cell(dict(unit="block-encoder", format=f, source="fp32", rounding=fmt.roundings[:1]))
        _, enc_all = _cell(dict(unit="block-encoder", format=f, source="fp32", rounding=fmt.roundings))
        _, dec = _cell(dict(unit="block-decoder", format=f))
        print(f"| {f} ({fmt.k1}), {fmt.roundings[0]} | {enc} | {r['ge'] / fmt.k1:.0f} | {enc_all} | {dec} |",
              flush=True)


if __name__ == "__main__":
    main()
