"""The ``fpforge`` command line: formats, tables, Verilog generation, regressions and area reports."""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

__all__ = ["main", "write_atomic"]


from . import cmd_prove, cmd_scale, cmd_scaling, cmd_sweep
from .golden.errors import FpforgeError
from .jobs import write_atomic


class UsageError(Exception):
    """Bad input: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{self.prog}: {message}")


def _emit(args, text):
    if args.output in (None, "-"):
        sys.stdout.write(text)
    else:
        write_atomic(args.output, text)


# -- unit options shared by verilog / sim / synth --------------------------------------------------
def _add_unit_options(p, units=("encoder", "decoder", "block-encoder", "block-decoder", "dot", "scaled-encoder")):
    from .cmd_scaling import add_unit_options

    p.add_argument("unit", choices=list(units), help="which unit")
    add_unit_options(p)
    p.add_argument("--format", "-f", default=None,
                   help="narrow format, or block format for block units (see `fpforge formats`); `bdr` with "
                        "--m --k1 --d1 --k2 --d2 for any BDR point (required except for dot)")
    for opt, text in (("--m", "BDR magnitude bits per element (1..24)"), ("--k1", "BDR block size"),
                      ("--d1", "BDR shared exponent bits (1..8)"), ("--k2", "BDR sub-block size (divides k1)"),
                      ("--d2", "BDR sub-block shift bits (0..4)")):
        p.add_argument(opt, type=int, default=None, help=text + "; overrides a BDR preset's value")
    d = p.add_argument_group("dot-product units (`dot`)")
    d.add_argument("--preset", default=None,
                   help="operand format: mx9, mx6, mx4, msfp12, msfp16, bdr (with --m --k1 --d1 --k2 --d2), an OCP "
                        "MX format (mxfp8_e4m3, ..., mxint8), e4m3, e5m2, or fp8 (E4M3 or E5M2 per operand at run "
                        "time: sel_a/sel_b ports)")
    d.add_argument("--b-preset", default=None, help="operand B's format when it differs from A's (same family "
                                                    "and block size)")
    d.add_argument("--r", type=int, default=None, help="elements per dot product (a multiple of k1)")
    d.add_argument("--f", type=int, default=None, help="bits of the fixed-point window, sign included (8..256)")
    d.add_argument("--stages", type=int, default=0, help="pipeline register stages (0: combinational)")
    d.add_argument("--raw", action="store_true", help="also output the raw fixed-point sum and its exponent")
    d.add_argument("--io-registers", action="store_true",
                   help="register every input and output of the combinational unit (the paper's area method)")
    p.add_argument("--source", default="fp32", help="encoder source: fp32, fp16 or bf16 (default fp32)")
    p.add_argument("--target", default="fp32", help="decoder target: fp32, fp16 or bf16 (default fp32)")
    p.add_argument("--rounding", default=None,
                   help="rounding mode (default: the format's first, rne for FP8, ta for HiF8), a comma list "
                        "(adds a run-time `mode` port), or `all`")
    p.add_argument("--saturate", action="store_true", help="overflow and ±Inf give ±max")
    p.add_argument("--sat-port", action="store_true", help="run-time `sat` input instead of a fixed choice")
    p.add_argument("--nan-to-zero", action="store_true", help="NaN operands encode as +0")
    p.add_argument("--paper-literal", action="store_true",
                   help="HiF8 hr: SR14 compares F14 >= T14 literally (exact values may round up)")
    p.add_argument("--compat", default="default", choices=["default", "ascend"],
                   help="HiF8: ascend = bit-compatible with Huawei Ascend's conversions (docs/hif8.md)")
    p.add_argument("--ieee-denormals", action="store_true",
                   help="CFloat8/SHP: IEEE denormals 2^(1-bias)×0.m instead of the guide's 2^-bias×0.m")
    p.add_argument("--latency", type=int, default=None,
                   help="0: combinational (default); N: N-stage stream pipeline (scaled-encoder: default 1)")
    p.add_argument("--rand-bits", type=int, default=None, help="random bits per value for sr (default 16)")
    p.add_argument("--seed", type=int, default=0, help="generator seed of a stream unit with sr")
    p.add_argument("--name", default=None, help="Verilog module name")


_BDR_OPTS = ("m", "k1", "d1", "k2", "d2")


def _format_of(args, name=None):
    """The descriptor named by --format (or ``name``), with --m/--k1/--d1/--k2/--d2 applied for BDR."""
    from .golden import bdr, get_format
    from .golden.block import BlockFormat

    name = args.format if name is None else name
    given = {k: getattr(args, k, None) for k in _BDR_OPTS if getattr(args, k, None) is not None}
    if name.lower() == "bdr":
        missing = [f"--{k}" for k in _BDR_OPTS if k not in given]
        if missing:
            raise UsageError(f"--format bdr needs --m --k1 --d1 --k2 --d2 (missing {' '.join(missing)})")
        return bdr(*(given[k] for k in _BDR_OPTS))
    if name.lower() == "fp8" and not given:
        return None  # the dot-product baseline: E4M3 or E5M2 at run time
    fmt = get_format(name)
    if given:
        if not isinstance(fmt, BlockFormat):
            raise UsageError(f"--m/--k1/--d1/--k2/--d2 apply to BDR formats (bdr, mx9, mx6, mx4, msfp12, "
                             f"msfp16), not {fmt.name!r}")
        params = dict(zip(_BDR_OPTS, fmt.params))
        params.update(given)
        if fmt.d2 == 0 and "k2" not in given and given.get("d2"):
            raise UsageError(f"{fmt.name} has no sub-blocks; give --k2 with --d2")
        fmt = bdr(*(params[k] for k in _BDR_OPTS))
    return fmt


def _dot_kwargs(args):
    from .golden.dot import operand_format

    if args.format is not None:
        raise UsageError("a dot unit takes --preset (and --b-preset), not --format")
    if args.preset is None:
        raise UsageError("dot needs --preset: mx9, mx6, mx4, msfp12, msfp16, bdr, an OCP MX format, e4m3, e5m2 or fp8")
    if args.r is None or args.f is None:
        raise UsageError("dot needs --r (elements per dot product) and --f (window bits, 8..256)")
    if (args.rounding is not None or args.saturate or args.sat_port or args.nan_to_zero or args.paper_literal
            or args.rand_bits is not None or args.latency):
        raise UsageError("a dot unit rounds once to FP32 (nearest even) and its depth is --stages: --rounding, "
                         "--saturate, --sat-port, --nan-to-zero, --paper-literal, --rand-bits and --latency apply "
                         "to conversion units")
    if any(getattr(args, k) is not None for k in _BDR_OPTS):
        fmt_a = _format_of(args, args.preset)
        name_a = "fp8" if fmt_a is None else operand_format(fmt_a).name
    else:
        name_a = operand_format(args.preset).name
    name_b = None
    if args.b_preset is not None:
        name_b = operand_format(args.b_preset).name
    if args.io_registers and args.stages:
        raise UsageError("--io-registers wraps the combinational unit: give it without --stages")
    if args.io_registers and args.action == "sim":
        raise UsageError("--io-registers is for area reports (verilog, synth); sim checks the unit itself")
    kwargs = dict(unit="dot", format=name_a, format_b=name_b, r=args.r, f=args.f, stages=args.stages, raw=args.raw)
    if args.io_registers:
        kwargs["io_registers"] = True
    return kwargs


def _unit_kwargs(args):
    from .cmd_scaling import scaled_unit_kwargs
    from .golden.rng import DEFAULT_RAND_BITS

    if args.unit == "dot":
        return scaled_unit_kwargs(args, _dot_kwargs(args))
    if args.preset is not None or args.b_preset is not None or args.r is not None or args.f is not None \
            or args.stages or args.raw or args.io_registers:
        raise UsageError("--preset, --b-preset, --r, --f, --stages, --raw and --io-registers apply to dot units")
    if args.format is None:
        raise UsageError(f"{args.unit} needs --format/-f (see `fpforge formats`)")
    fmt = _format_of(args)
    if args.compat != "default":
        from .golden.tapered import with_compat

        fmt = with_compat(fmt, args.compat)  # the variant descriptor (hif8_ascend); one line for other formats
    if args.rounding is None:
        rounding = (fmt.roundings[0],)
    elif args.rounding == "all":
        rounding = tuple(fmt.roundings)
    else:
        rounding = tuple(r.strip() for r in args.rounding.split(",") if r.strip())
    if args.ieee_denormals:  # sugar for the variant descriptor (build_unit resolves --paper-literal)
        from .golden.formats import resolve_variant

        fmt = resolve_variant(fmt, ieee_denormals=args.ieee_denormals)
    if args.unit in ("decoder", "block-decoder") and (args.rounding is not None or args.saturate or args.sat_port
            or args.nan_to_zero or args.paper_literal):
        raise UsageError("a decoder is exact: --rounding, --saturate, --sat-port, --nan-to-zero and "
                         "--paper-literal apply to encoders only")
    if args.saturate and args.sat_port:
        raise UsageError("choose one of --saturate (fixed) and --sat-port (run-time)")
    if args.unit.startswith("block-") and (args.saturate or args.sat_port or args.nan_to_zero or args.paper_literal):
        raise UsageError("block units always saturate: --saturate, --sat-port, --nan-to-zero and --paper-literal "
                         "apply to scalar encoders only")
    return scaled_unit_kwargs(args, dict(
        unit=args.unit, format=fmt.name, source=args.source, target=args.target, rounding=rounding,
        saturate="runtime" if args.sat_port else bool(args.saturate), nan_to_zero=args.nan_to_zero,
        **({"paper_literal": True} if args.paper_literal else {}),
        latency=args.latency, rand_bits=args.rand_bits or DEFAULT_RAND_BITS, seed=args.seed,
    ))


def _build(args):
    from .hw.generate import build_unit, default_name, to_verilog

    kwargs = _unit_kwargs(args)
    unit = build_unit(**kwargs)
    name = args.name or default_name(unit)
    return kwargs, unit, name, to_verilog(unit, name)


# -- commands -----------------------------------------------------------------------------------------
def _format_row(name):
    from .golden import get_format

    f = get_format(name)
    if f.runtime_bias:  # limits scale with 2^-B for run-time bias B
        f0 = f.at(0)
        limits = [f"{f0.max_value:.6g}·2^-B", f"{f0.min_normal:.6g}·2^-B", f"{f0.min_subnormal:.6g}·2^-B"]
    else:
        limits = [f"{f.max_value:.6g}", f"{f.min_normal:.6g}", "flushed" if f.ftz else f"{f.min_subnormal:.6g}"]
    return (name, str(f.bits), f.layout, *limits, "-" if f.dtype is not None else ",".join(f.roundings), f.title)


def cmd_formats(args):
    from .golden import get_format, list_formats

    head = ("name", "bits", "fields", "max", "min normal", "min subnormal", "roundings", "")
    variants = list_formats(kind="variant")
    scalar = [n for n in list_formats(kind="source") + list_formats(kind="scalar") if n not in variants]
    print(_table_text([head] + [_format_row(n) for n in scalar]), end="")
    print("\nvariants (<format>_<variant>; `--ieee-denormals`, `--paper-literal` name them too)")
    print(_table_text([("variant", "of", *head[1:])] + [(n, get_format(n).base.name, *_format_row(n)[1:])
                                                         for n in variants]), end="")
    rows = [("block format", "bits/element", "block bits", "k1", "layout", "roundings", "")]
    for name in list_formats(kind="block"):
        f = get_format(name)
        rows.append((name, f"{float(f.bits_per_element):g}", str(f.block_bits), str(f.k1), f.layout,
                     ",".join(f.roundings), f.title))
    print()
    print(_table_text(rows), end="")
    print("\nAny BDR point: bdr_m<M>_k<K1>_d<D1>_k<K2>_d<D2>, or --format bdr --m --k1 --d1 --k2 --d2.")
    return 0


def _table_text(rows):
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() + "\n" for r in rows)


def cmd_table(args):
    from .golden import decode, get_format
    from .golden.contract import ScalarFormat
    from .golden.formats import resolve_variant
    from .golden.summary import bias_ranges, code_class, code_fields, summary_table

    if args.bias is not None and not 0 <= args.bias <= 63:
        raise UsageError(f"--bias must be in 0..63, not {args.bias}")
    fmts = [get_format(f) for f in args.format]
    runtime = [f for f in fmts if isinstance(f, ScalarFormat) and f.runtime_bias]
    if args.ieee_denormals:
        for f in fmts:
            resolve_variant(f, ieee_denormals=True)  # one clear line for a format without the guide's denormals
    if args.ranges:
        if args.summary or args.bias is not None:
            raise UsageError("--ranges lists every bias; it takes neither --summary nor --bias")
        text = []
        for f in fmts:
            rows = bias_ranges(f, args.ieee_denormals)
            lo, hi = f.exponent_span
            text.append(f"# {f.name}: range of the normal numbers for each exponent bias "
                        f"(Tesla guide, Table {4 if f.name == 'cfloat8_143' else 5 if f.name == 'cfloat8_152' else '4/5 style'})")
            den = "IEEE 2^(1-bias)×0.m" if args.ieee_denormals else "2^-bias×0.m"
            table = [("bias", "normal range", "emin", "emax", "min normal", "max normal",
                      f"denormals ({den})")]
            for r in rows:
                table.append((str(r["bias"]), r["range"], str(r["emin"]), str(r["emax"]), repr(r["min_normal"]),
                              repr(r["max_normal"]), f"[{r['min_denormal']!r}, {r['max_denormal']!r}]"))
            text.append(_table_text(table).rstrip("\n"))
            text.append(f"exponent span over all biases: [{lo}, {hi}]")
        _write_report(args, "\n".join(text) + "\n")
        return 0
    if args.summary:
        if args.bias is not None and not runtime:
            raise UsageError("--bias applies to run-time-bias formats (cfloat8_143, cfloat8_152, shp); "
                             "none was given")
        if runtime and args.bias is None:
            raise UsageError(f"{runtime[0].name} has a run-time bias: give --bias B (0..63) for its rows")
        _write_report(args, _table_text(summary_table(args.format, args.bias, args.ieee_denormals)))
        return 0
    if len(fmts) != 1:
        raise UsageError("table takes one format (or --summary FMT [FMT ...])")
    fmt = fmts[0]
    if not isinstance(fmt, ScalarFormat):
        raise UsageError(f"{fmt.name!r} is a block format: `fpforge formats` lists its layout; tables list "
                         "scalar formats of up to 16 bits")
    if fmt.runtime_bias:
        if args.bias is None:
            raise UsageError(f"{fmt.name} has a run-time bias: give --bias B (0..63), or --ranges for every bias")
    elif args.bias is not None:
        raise UsageError(f"format {fmt.name!r} has a fixed bias; --bias applies to CFloat formats")
    if fmt.bits > 16:
        raise UsageError(f"format {fmt.name!r} has {fmt.bits}-bit codes; tables list formats of up to 16 bits"
                         " (--summary works for any format)")
    codes = np.arange(1 << fmt.bits)
    kw = {}
    if args.bias is not None:
        kw["bias"] = args.bias
    if args.ieee_denormals:
        kw["ieee_denormals"] = True
    vals = decode(fmt, codes, **kw).astype(np.float64)
    cls = code_class(fmt, codes)
    digits = (fmt.bits + 3) // 4
    concrete = resolve_variant(fmt, ieee_denormals=args.ieee_denormals).at(args.bias)
    head = f"# {fmt.name}: {fmt.title}"
    if args.bias is not None:
        head += f"; bias {args.bias}" + (", IEEE denormals" if args.ieee_denormals else "")
    lines = [head, "code  bits  value  class  fields (S|E|M; HiF8: S|dot|Em|M or S|DML|M)  meaning"]
    for c in codes:
        fields, meaning = code_fields(concrete, int(c))
        lines.append(f"0x{c:0{digits}x}  {c:0{fmt.bits}b}  {float(vals[c])!r}  {cls[c]}  "
                     + "|".join(f or "-" for f in fields) + "  " + meaning)
    _write_report(args, "\n".join(lines) + "\n")
    return 0


def _write_report(args, data):
    """``_emit`` for the report commands, naming the user's path (not the temporary file) on failure."""
    try:
        if isinstance(data, bytes):
            write_atomic(args.output, data)
        else:
            _emit(args, data)
    except OSError as e:
        raise UsageError(f"cannot write {args.output!r}: {e.strerror or e}") from None


def cmd_plot(args):
    from .golden import get_format
    from .plots import plot_precision

    ext = os.path.splitext(args.output)[1].lower().lstrip(".")
    if ext not in ("png", "svg"):
        raise UsageError(f"plot output must end in .png or .svg, not {args.output!r}")
    formats = [get_format(f.strip()).name for f in args.formats.split(",") if f.strip()]
    if not formats:
        raise UsageError("--formats names no format (e.g. --formats hif8,e4m3)")
    if args.bias is not None and not 0 <= args.bias <= 63:
        raise UsageError(f"--bias must be in 0..63, not {args.bias}")
    _write_report(args, plot_precision(formats, ext, args.bias))
    return 0


def cmd_verilog(args):
    _, _, _, text = _build(args)
    _emit(args, text)
    return 0


def cmd_synth(args):
    from .synth import format_report, synthesize

    kwargs, unit, name, text = _build(args)
    report = synthesize(text, name, liberty=args.liberty, keep_hierarchy=args.keep_hierarchy)
    report["config"] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in kwargs.items()}
    if args.json:
        _emit(args, json.dumps(report, indent=2, sort_keys=True) + "\n")
    else:
        _emit(args, format_report(report) + "\n")
    return 0


def cmd_sim(args):
    from .sim.regress import regress_unit

    kwargs = _unit_kwargs(args)
    sims = ["verilator", "icarus"] if args.simulator == "all" else [args.simulator]
    ok = True
    biases = None
    if args.biases is not None:
        try:
            biases = range(64) if args.biases == "all" else tuple(int(b) for b in args.biases.split(",") if b.strip())
        except ValueError:
            raise UsageError(f"--biases takes a comma list of integers 0..63 or `all`, not {args.biases!r}") from None
        if not biases or any(not 0 <= b <= 63 for b in biases):
            raise UsageError(f"--biases takes integers in 0..63, not {args.biases!r}")
        from .golden import get_format

        if not get_format(kwargs["format"]).runtime_bias:
            raise UsageError(f"--biases applies to run-time-bias formats, not {kwargs['format']!r}")
    for sim in sims:
        vectors = args.vectors if args.vectors is not None else 10_000 if kwargs["unit"] == "scaled-encoder" else 100_000
        result = regress_unit(kwargs, sim, vectors=vectors, seed=args.seed_vectors,
                              build_root=args.build_dir, biases=biases)
        print(result.summary())
        ok &= result.passed
    return 0 if ok else 1


def cmd_qsnr(args):
    import time

    from .golden import get_format
    from .golden.contract import BlockFormatLike
    from .golden.qsnr import DEFAULT_TABLE, qsnr_table

    if args.vectors < 1 or args.length < 1:
        raise UsageError(f"--vectors and --length must be positive, not {args.vectors} and {args.length}")
    names = DEFAULT_TABLE if args.formats is None else [f.strip() for f in args.formats.split(",") if f.strip()]
    if not names:
        raise UsageError("--formats names no format (e.g. --formats mx9,e4m3)")
    fmts = [get_format(n) for n in names]
    for f in fmts:
        if isinstance(f, BlockFormatLike) and args.length % f.k1:
            raise UsageError(f"--length {args.length} is not a multiple of {f.name}'s block size {f.k1}")
    t0 = time.monotonic()
    rows = qsnr_table(fmts, n_vectors=args.vectors, length=args.length, seed=args.seed, rounding=args.rounding)
    seconds = time.monotonic() - t0
    if args.json:
        _write_report(args, json.dumps({"vectors": args.vectors, "length": args.length, "seed": args.seed,
                                        "seconds": seconds, "rows": rows}, indent=2) + "\n")
        return 0
    lines = [f"# QSNR (dB) over {args.vectors} vectors of {args.length} values, sigma = 2^U(-8, 8) per vector "
             f"(seed {args.seed}); scalar formats with a per-vector amax scale",
             "format        bits/elem  rounding  mean    std    p5      min     bound"]
    for r in rows:
        bound = "-" if r["bound"] is None else f"{r['bound']:.2f}"
        lines.append(f"{r['name']:<13} {r['bits']:<10g} {r['rounding']:<9} {r['mean']:<7.2f} {r['std']:<6.2f} "
                     f"{r['p5']:<7.2f} {r['min']:<7.2f} {bound}")
    _write_report(args, "\n".join(lines) + "\n")
    return 0


def cmd_dot_error(args):
    import time

    from .golden.dot import ERROR_FORMATS, ERROR_FS, DotConfig, error_sweep

    names = ERROR_FORMATS if args.formats is None else [f.strip() for f in args.formats.split(",") if f.strip()]
    if not names:
        raise UsageError("--formats names no format (e.g. --formats mx9,e4m3)")
    try:
        fs = ERROR_FS if args.f is None else [int(v) for v in args.f.split(",") if v.strip()]
    except ValueError:
        raise UsageError(f"--f takes a comma list of integers (e.g. 8,16,32), not {args.f!r}") from None
    if args.vectors < 1:
        raise UsageError(f"--vectors must be positive, not {args.vectors}")
    for n in names:
        for f in fs:
            DotConfig(n, args.r, f)  # validates format, r and f (one-line errors)
    t0 = time.monotonic()
    rows = error_sweep(names, fs, r=args.r, n_vectors=args.vectors, seed=args.seed)
    seconds = time.monotonic() - t0
    if args.json:
        _write_report(args, json.dumps({"r": args.r, "vectors": args.vectors, "seed": args.seed, "seconds": seconds,
                                        "rows": rows}, indent=2) + "\n")
        return 0
    lines = [f"# f-bit dot-product pipeline vs the exact sum rounded once to FP32: r = {args.r}, {args.vectors} "
             f"Gaussian vector pairs per format (sigma = 2^U(-8, 8) per vector, seed {args.seed})",
             "# exact%: results bit-identical to the exact one; rel: |y - x| / |x|; norm: |y - x| / sum|a_i b_i|",
             "format        W    f    exact%   rel_p50    rel_max    norm_max"]
    for r_ in rows:
        lines.append(f"{r_['format']:<13} {r_['W']:<4} {r_['f']:<4} {100 * r_['exact']:<8.2f} {r_['rel_p50']:<10.2e} "
                     f"{r_['rel_max']:<10.2e} {r_['norm_max']:.2e}")
    _write_report(args, "\n".join(lines) + "\n")
    return 0


def _parser():
    p = _Parser(prog="fpforge", description=__doc__)
    sub = p.add_subparsers(dest="action", required=True, parser_class=_Parser)

    sub.add_parser("formats", help="list the formats and their limits")

    t = sub.add_parser("table", help="every code of a format, its value and class; --summary: Table 4 rows")
    t.add_argument("format", nargs="+", help="format (several with --summary)")
    t.add_argument("--summary", action="store_true",
                   help="the HiF8 paper's Table 4 rows (specials, limits, exponent ranges) for each format")
    t.add_argument("--bias", type=int, default=None, help="run-time bias 0..63 (cfloat8_143, cfloat8_152, shp)")
    t.add_argument("--ranges", action="store_true",
                   help="CFloat: the normal range at every bias (the Tesla guide's Tables 4 and 5)")
    t.add_argument("--ieee-denormals", action="store_true",
                   help="CFloat8/SHP: IEEE denormals 2^(1-bias)×0.m instead of the guide's")
    t.add_argument("-o", "--output", default=None)

    pl = sub.add_parser("plot", help="figures: `precision` draws significand bits against exponent (HiF8 Fig. 1)")
    pl.add_argument("figure", choices=["precision"])
    pl.add_argument("-o", "--output", required=True, help="FILE.png or FILE.svg")
    pl.add_argument("--formats", default="hif8,e4m3,e5m2,fp16", help="comma list (default hif8,e4m3,e5m2,fp16)")
    pl.add_argument("--bias", type=int, default=None, help="bias of the run-time-bias formats (CFloat8, SHP)")

    q = sub.add_parser("qsnr", help="QSNR table of block and scalar formats on variable-variance Gaussian vectors")
    q.add_argument("--formats", default=None,
                   help="comma list (default: mx9,mx6,mx4,msfp12,msfp16, the OCP MX formats, e4m3,e5m2,hif8)")
    q.add_argument("--vectors", type=int, default=10_000, help="independent vectors (default 10000)")
    q.add_argument("--length", type=int, default=256, help="values per vector (default 256)")
    q.add_argument("--seed", type=int, default=0)
    q.add_argument("--rounding", default=None, help="rounding where the format offers it (default: each format's)")
    q.add_argument("--json", action="store_true", help="JSON rows instead of the table")
    q.add_argument("-o", "--output", default=None)

    de = sub.add_parser("dot-error", help="error of the f-bit dot-product pipeline against the exact sum, as f varies")
    de.add_argument("--formats", default=None, help="comma list (default mx9,mx6,mx4,mxfp8_e4m3,mxint8,e4m3,e5m2)")
    de.add_argument("--f", default=None, help="comma list of window widths (default 8,12,16,20,24,32,48)")
    de.add_argument("--r", type=int, default=64, help="elements per dot product (default 64)")
    de.add_argument("--vectors", type=int, default=2000, help="vector pairs per format (default 2000)")
    de.add_argument("--seed", type=int, default=0)
    de.add_argument("--json", action="store_true", help="JSON rows instead of the table")
    de.add_argument("-o", "--output", default=None)

    v = sub.add_parser("verilog", help="generate a unit's Verilog")
    _add_unit_options(v)
    v.add_argument("-o", "--output", default=None, help="output file (default stdout)")

    s = sub.add_parser("sim", help="run a unit's cocotb regression against the golden model")
    _add_unit_options(s)
    s.add_argument("--simulator", default="verilator", choices=["verilator", "icarus", "all"])
    s.add_argument("--vectors", type=int, default=None,
                   help="random FP32 vectors (default 100,000; 16-bit sources: all); scaled-encoder: transfers "
                        "(default 10,000)")
    s.add_argument("--seed-vectors", type=int, default=1, help="seed of the random vectors and stalls")
    s.add_argument("--build-dir", default="build/sim", help="where simulator builds are cached")
    s.add_argument("--biases", default=None,
                   help="run-time-bias formats: biases of the exhaustive/directed stimulus, a comma list or "
                        "`all` (default 0,1,7,31,32,62,63; CFloat8 decoders: all)")

    y = sub.add_parser("synth", help="synthesize a unit with yosys and report its area")
    _add_unit_options(y)
    y.add_argument("--liberty", default=None, help="liberty file (default: fpforge's Nangate45-based cells)")
    y.add_argument("--json", action="store_true", help="print the JSON report")
    y.add_argument("--keep-hierarchy", action="store_true",
                   help="synthesize without flattening (faster for large dot units; area summed over the hierarchy)")
    y.add_argument("-o", "--output", default=None)
    cmd_scale.add_parser(sub)
    cmd_scaling.add_parser(sub)
    cmd_prove.add_parser(sub)
    cmd_sweep.add_parser(sub)
    return p


_COMMANDS = {"formats": cmd_formats, "table": cmd_table, "plot": cmd_plot, "qsnr": cmd_qsnr, "dot-error": cmd_dot_error,
             "verilog": cmd_verilog, "synth": cmd_synth, "sim": cmd_sim, "scale": cmd_scale.run,
             "scaling-demo": cmd_scaling.run, "prove": cmd_prove.run, "sweep": cmd_sweep.run}


def main(argv=None):
    from .synth import SynthError

    try:
        args = _parser().parse_args(argv)
        return _COMMANDS[args.action](args)
    except UsageError as e:
        print(f"fpforge: error: {e}", file=sys.stderr)
        return 2
    except (ValueError, KeyError, TypeError, SynthError, FpforgeError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
        print(f"fpforge: error: {msg}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"fpforge: error: {e.strerror or e}: {e.filename or ''}".rstrip(": "), file=sys.stderr)
        return 2
