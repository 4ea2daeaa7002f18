"""Area of the Tesla CFloat conversion units beside E4M3 and HiF8 (same flow, same liberty), as markdown
tables, and what the run-time bias costs against fixed-bias units.

Run: `make area` (or `.venv/bin/python bench/area_cfloat.py`). A mode or target a format does not offer
shows "–".
"""

from fpforge.golden import get_format
from fpforge.hw import build_unit, default_name, to_verilog
from fpforge.synth import synthesize

FORMATS = ("cfloat8_143", "cfloat8_152", "shp", "uhp", "e4m3", "hif8")
ROWS = (
    [(f"encoder {s}→F, rne (hif8: ta)", dict(unit="encoder", source=s, rounding="first")) for s in ("fp32", "bf16")]
    + [("encoder fp32→F, sr (R=16)", dict(unit="encoder", source="fp32", rounding=("sr",))),
       ("encoder fp32→F, rne + sr (mode port)", dict(unit="encoder", source="fp32", rounding=("rne", "sr"))),
       ("encoder fp32→F, every mode of F (+ sat port where F has NaN)",
        dict(unit="encoder", source="fp32", rounding="all", saturate="runtime"))]
    + [(f"decoder F→{t}", dict(unit="decoder", target=t)) for t in ("fp32", "bf16")]
)


def _area(cfg, name=None):
    unit = build_unit(**cfg)
    name = name or default_name(unit)
    r = synthesize(to_verilog(unit, name), name)
    return r


def cell(fmt, cfg):
    f = get_format(fmt)
    cfg = dict(cfg, format=fmt)
    if cfg.get("rounding") == "all":
        cfg["rounding"] = f.roundings
    elif cfg.get("rounding") == "first":
        cfg["rounding"] = f.roundings[:1]
    if cfg.get("saturate") == "runtime" and not f.has_nan:
        del cfg["saturate"]  # a clamping format always saturates: no sat port
    if any(r not in f.roundings for r in cfg.get("rounding", ())):
        return "–"
    try:
        r = _area(cfg)
    except ValueError:  # a decoder target that cannot hold every value
        return "–"
    return f"{r['area_um2']:.1f} µm² / {r['ge']:.0f} GE / d{r['logic_depth']}"


#: What the run-time bias and the guide's denormals cost: E4M3-shaped units, FP32 source, rne.
BIAS_COST = [
    ("e4m3 (bias 7, IEEE denormals, NaN S.1111.111)", "e4m3", {}),
    ("cfloat8_143 fixed at bias 7, IEEE denormals", get_format("cfloat8_143").at(7).with_(denormals="ieee"), {}),
    ("cfloat8_143 fixed at bias 7, guide denormals", get_format("cfloat8_143").at(7), {}),
    ("cfloat8_143 run-time bias, IEEE denormals", "cfloat8_143", dict(ieee_denormals=True)),
    ("cfloat8_143 run-time bias, guide denormals", "cfloat8_143", {}),
]


def bias_cost():
    rows = []
    for label, fmt, kw in BIAS_COST:
        enc = _area(dict(unit="encoder", format=fmt, source="fp32", rounding=("rne",), **kw), "enc")
        dec = _area(dict(unit="decoder", format=fmt, target="fp32", **kw), "dec")
        rows.append((label, enc, dec))
    return rows


def main():
    print("| unit (F = column) | " + " | ".join(FORMATS) + " |")
    print("|---|" + "---|" * len(FORMATS))
    for label, cfg in ROWS:
        print(f"| {label} | " + " | ".join(cell(f, cfg) for f in FORMATS) + " |", flush=True)
    print()
    print("| E4M3-shaped unit (fp32 source / target, rne) | encoder | decoder |")
    print("|---|---|---|")
    for label, enc, dec in bias_cost():
        print(f"| {label} | {enc['area_um2']:.1f} µm² / {enc['ge']:.0f} GE / d{enc['logic_depth']} | "
              f"{dec['area_um2']:.1f} µm² / {dec['ge']:.0f} GE / d{dec['logic_depth']} |", flush=True)


if __name__ == "__main__":
    main()
