"""``fpforge scaling-demo``: the worked example of docs/scaling.md, and the ``scaled-encoder`` unit options
of ``fpforge verilog|sim|synth``.

    fpforge scaling-demo                       # tables on stdout (QSNR/saturation per recipe, double rounding)
    fpforge scaling-demo --figure demo.png     # and the figure
    fpforge scaling-demo --docs                # regenerate docs/scaling_demo.png and the docs/results.md sections
                                               # (with the area of the scaled units beside the plain ones)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

__all__ = ["AREA_LANES", "add_parser", "add_unit_options", "area_rows", "run"]

#: Lanes of the scaled encoders in the area table.
AREA_LANES = (1, 4)
_DOCS = Path(__file__).resolve().parent.parent / "docs"


# -- verilog/sim/synth scaled-encoder ----------------------------------------------------------------------
def add_unit_options(p):
    """The ``scaled-encoder`` options of the unit commands."""
    g = p.add_argument_group("scaled encoders (`scaled-encoder`)")
    g.add_argument("--lanes", type=int, default=None, help="values per transfer (1..64, default 1)")
    g.add_argument("--scaling", default=None, choices=["fp32", "pow2"],
                   help="fp32: an FP32 scale port and multiplier per lane (default); pow2: a signed 9-bit "
                        "exponent port k (scale 2^k) and an exponent add per lane")


# -- scaling-demo ------------------------------------------------------------------------------------------
def add_parser(subparsers):
    from .cliutil import seed_arg

    p = subparsers.add_parser("scaling-demo", help="current vs delayed per-tensor scaling on a drifting tensor "
                                                   "(docs/scaling.md): QSNR, saturation, double rounding, area")
    p.add_argument("--format", "-f", default="e4m3", help="scalar target format (default e4m3)")
    p.add_argument("--steps", type=int, default=300, help="training steps (default 300)")
    p.add_argument("--size", type=int, default=4096, help="values per step (default 4096)")
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the tensor and the double-rounding casts (default 0)")
    p.add_argument("--histories", default="1,16,1024", help="amax history lengths (default 1,16,1024)")
    p.add_argument("--margins", default="0,1", help="margins (default 0,1)")
    p.add_argument("--pow2", action="store_true", help="power-of-two scales")
    p.add_argument("--rounding", default=None, help="rounding of the casts (default: the format's first)")
    p.add_argument("--bias", type=int, default=None, help="run-time bias of CFloat8/SHP (0..63)")
    p.add_argument("--rounding-values", type=int, default=2_000_000,
                   help="scaled casts per format in the double-rounding table (default 2,000,000)")
    p.add_argument("--figure", default=None, help="write the figure (FILE.png or FILE.svg)")
    p.add_argument("--area", action="store_true", help="also synthesize the scaled and plain units (yosys)")
    p.add_argument("--docs", action="store_true",
                   help="write docs/scaling_demo.png and the docs/results.md sections (implies --area "
                        "unless --no-area)")
    p.add_argument("--no-area", action="store_true", help="with --docs: leave the area section as it is")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(run=run)
    return p


def _ints(text, option):
    from .cmd_scale import parse_numbers
    from .golden.errors import FpforgeValueError

    values = parse_numbers(text, option, int)
    if not values:
        raise FpforgeValueError(f"{option} names no value")
    return values


def _bar(total, label):
    """A tqdm bar on a TTY (rate and ETA), else None."""
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=label, unit="step", leave=False)


def area_rows(fmt, rounding=None, *, lanes=AREA_LANES, sources=("fp32", "bf16"), progress=True):
    """Area (yosys onto fpforge45.lib) of the plain stream encoder, the multipliers alone and the scaled
    encoders (FP32 and power-of-two scales, ``lanes`` each), every unit saturating with latency 1."""
    from .golden import get_format
    from .hw import EncoderSpec, Fp32Multiplier, ScaledEncoderSpec, build_unit, default_name, to_verilog
    from .synth import synthesize

    fmt = get_format(fmt)
    rounding = (rounding or fmt.roundings[0],)
    plan = []
    for src in sources:
        plan.append((f"encoder {src}→{fmt.name} (plain)", src, 1,
                     build_unit(EncoderSpec(format=fmt.name, source=src, rounding=rounding, saturate=True, latency=1))))
        for scaling in ("fp32", "pow2"):
            m = Fp32Multiplier(src, scaling)
            plan.append((f"{'FP32 multiplier' if scaling == 'fp32' else 'pow2 exponent add'} {src} (comb, alone)",
                         src, 1, m, f"fpforge_mul_{src}_{scaling}"))
        for scaling in ("fp32", "pow2"):
            for k in lanes:
                plan.append((f"scaled encoder {src}→{fmt.name}, {scaling} scale", src, k,
                             build_unit(ScaledEncoderSpec(format=fmt.name, source=src, lanes=k, scaling=scaling,
                                                          rounding=rounding, saturate=True, latency=1))))
    bar = _bar(len(plan), "synthesis") if progress else None
    rows, plain = [], {}
    for item in plan:
        label, src, k, unit = item[:4]
        name = item[4] if len(item) > 4 else default_name(unit)
        r = synthesize(to_verilog(unit, name), name)
        per = r["ge"] / k
        if "(plain)" in label:
            plain[src] = per
        rows.append(dict(unit=label, source=src, lanes=k, area_um2=r["area_um2"], ge=r["ge"], ge_per_lane=per,
                         vs_plain=per / plain[src], flip_flops=r["flip_flops"], depth=r["logic_depth"]))
        if bar is not None:
            bar.update()
    if bar is not None:
        bar.close()
    return rows


def _demo_markdown(fmt, args, rows):
    from .jobs.results import markdown_table

    return "\n".join([
        f"## Per-tensor scaling: current vs delayed ({fmt}, {args.steps} steps × {args.size} values)",
        markdown_table(("recipe", "mean QSNR (dB)", "p5 QSNR", "min QSNR", "saturated, mean %", "saturated, max %",
                        "steps saturating", "flushed to zero, mean %"),
                       [(r["recipe"], f"{r['qsnr_mean']:.2f}", f"{r['qsnr_p5']:.2f}", f"{r['qsnr_min']:.2f}",
                         f"{r['saturated_mean']:.3f}", f"{r['saturated_max']:.2f}", r["saturating_steps"],
                         f"{r['flushed_mean']:.3f}") for r in rows], "lrrrrrrr")])


def _rounding_markdown(rows, n):
    from .jobs.results import markdown_table

    def example(ex):
        return "-" if ex is None else f"{ex['x']!r} × {ex['scale']!r} → 0x{ex['double']:02x} / 0x{ex['single']:02x}"

    return "\n".join([
        f"## Double rounding: cast(fp32(x·s)) against one rounding of the exact x·s ({n:,} casts per format)",
        markdown_table(("format", "rounding", "casts", "codes that differ", "first example: x, scale → double / single"),
                       [(r["format"], r["rounding"], f"{r['values']:,}", r["differ"], example(r["example"]))
                        for r in rows], "llrrl")])


def _area_markdown(fmt, rows):
    from .jobs.results import markdown_table

    return "\n".join([
        f"## Area of the scaled encoders beside the plain encoder ({fmt}, yosys onto fpforge45.lib)",
        markdown_table(("unit", "source", "lanes", "area (µm²)", "GE", "GE per lane", "per lane ÷ plain", "flip-flops",
                        "depth"),
                       [(r["unit"], r["source"], r["lanes"], f"{r['area_um2']:,.1f}", f"{r['ge']:,.0f}",
                         f"{r['ge_per_lane']:,.0f}", f"{r['vs_plain']:.2f}", r["flip_flops"], r["depth"]) for r in rows],
                       "llrrrrrrr")])


def _command(args):
    """The command line that regenerates the docs sections (non-default options only)."""
    parts = ["fpforge scaling-demo --docs"]
    for opt, default in (("format", "e4m3"), ("steps", 300), ("size", 4096), ("seed", 0), ("histories", "1,16,1024"),
                         ("margins", "0,1"), ("rounding", None), ("bias", None), ("rounding_values", 2_000_000)):
        value = getattr(args, opt)
        if value != default:
            parts.append(f"--{opt.replace('_', '-')} {value}")
    parts += [flag for flag, on in (("--pow2", args.pow2), ("--no-area", args.no_area)) if on]
    return " ".join(parts)


def run(args) -> int:
    from .cliutil import check_output, write_output
    from .golden import get_format, list_formats
    from .golden.errors import FpforgeValueError
    from .golden.scaling_demo import double_rounding_table, run_demo, summary_rows
    from .jobs import write_atomic
    from .plots import plot_scaling

    fmt = get_format(args.format)
    if getattr(fmt, "runtime_bias", False) and args.bias is None:
        raise FpforgeValueError(f"{fmt.name} has a run-time bias: give --bias B (0..63)")
    histories, margins = _ints(args.histories, "--histories"), _ints(args.margins, "--margins")
    if args.figure is not None and Path(args.figure).suffix.lower() not in (".png", ".svg"):
        raise FpforgeValueError(f"--figure must end in .png or .svg, not {args.figure!r}")
    check_output(args.figure, "--figure")  # before the work, naming the user's path
    if args.rounding_values < 4096:
        raise FpforgeValueError(f"--rounding-values must be at least 4096, not {args.rounding_values}")
    if args.area or (args.docs and not args.no_area):  # the area rows convert and synthesize units
        from .jobs.cache import check_environment
        from .synth.yosys import check_yosys_cache

        check_environment(cache=False)
        check_yosys_cache()
    bar = _bar(args.steps, "steps")
    result = run_demo(fmt, steps=args.steps, size=args.size, seed=args.seed, histories=histories, margins=margins,
                      rounding=args.rounding, pow2=args.pow2, bias=args.bias,
                      progress=None if bar is None else (lambda done: bar.update(done - bar.n)))
    if bar is not None:
        bar.close()
    rows = summary_rows(result)
    # The 8-bit scalar formats (the table predates the P3109 family and the variants; they would add 32 rows).
    from .golden.formats import P3109_FORMATS

    small = [n for n in list_formats(kind="scalar") if get_format(n).bits <= 8 and n not in P3109_FORMATS
             and n not in list_formats(kind="variant")]
    rounding_rows = double_rounding_table(small, n=args.rounding_values, seed=args.seed)
    title = f"{fmt.name}: per-tensor scaling of a drifting tensor ({args.size} values per step)"
    figure = plot_scaling(result, title, "svg" if str(args.figure).lower().endswith(".svg") else "png")
    demo_md = _demo_markdown(fmt.name, args, rows)
    rounding_md = _rounding_markdown(rounding_rows, args.rounding_values)
    area = area_rows(fmt, args.rounding) if (args.area or (args.docs and not args.no_area)) else None
    if args.figure:
        write_output(args.figure, figure)
    if args.docs:
        from .jobs.results import write_section

        command = _command(args)
        write_atomic(_DOCS / "scaling_demo.png", plot_scaling(result, title, "png"))
        results = _DOCS / "results.md"
        write_section("scaling-demo", demo_md + "\n\n![QSNR and saturation per step](scaling_demo.png)",
                      command=command, path=results, data=dict(format=fmt.name, recipes=rows))
        write_section("scaling-rounding", rounding_md, command=command, path=results,
                      data=dict(values=args.rounding_values, seed=args.seed, rows=rounding_rows))
        if area is not None:
            write_section("scaling-area", _area_markdown(fmt.name, area), command=command, path=results,
                          data=dict(format=fmt.name, rows=area))
    if args.json:
        print(json.dumps({"recipes": rows, "double_rounding": rounding_rows, "area": area}, indent=2))
        return 0
    sections = [demo_md, rounding_md] + ([_area_markdown(fmt.name, area)] if area else [])
    print("\n\n".join(m.replace("\n", "\n\n", 1) for m in sections))  # a blank line under each heading
    return 0
