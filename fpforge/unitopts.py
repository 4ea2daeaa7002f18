"""The unit options shared by ``fpforge verilog``, ``sim``, ``synth`` and ``prove``, and their translation
into a unit spec (:mod:`fpforge.hw.spec`).

The command line only assembles: BDR parameters into a format, ``--preset`` into dot operands, comma lists
into tuples, then :func:`fpforge.hw.spec.spec_from_options` makes the spec. Every rule about which option a
unit takes and which values are valid lives once, in the specs (the same rule for the Python API); only
options the user gave are passed on, so an option a unit does not use is an error instead of being ignored.
``--spec-json`` prints the spec's JSON form (and its SHA-256) instead of the command's work, after the same
checks of every option as the command itself (and into ``-o`` where the command has one).
"""

from __future__ import annotations

from .cliutil import UsageError, seed_arg

__all__ = ["add_unit_options", "build", "print_spec", "unit_config", "unit_spec"]

_BDR_OPTS = ("m", "k1", "d1", "k2", "d2")
_UNITS = ("encoder", "decoder", "block-encoder", "block-decoder", "dot", "scaled-encoder")


def add_unit_options(p, units=_UNITS):
    """The positional unit (one of ``units``) and every option of a unit configuration."""
    from .cmd_scaling import add_unit_options as add_scaled_encoder_options

    p.add_argument("unit", choices=list(units), help="which unit")
    add_scaled_encoder_options(p)
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
                        "MX format (mxfp8_e4m3, ..., mxint8), a narrow float (e4m3, e5m2, the FNUZ, FP6 and FP4 formats, "
                        "hif8, cfloat8_143 or cfloat8_152: run-time bias ports bias_a/bias_b), or fp8 (E4M3 or E5M2 "
                        "per operand at run time: sel_a/sel_b ports)")
    d.add_argument("--b-preset", default=None, help="operand B's format when it differs from A's (same family "
                                                    "and block size)")
    d.add_argument("--r", type=int, default=None, help="elements per dot product (a multiple of k1)")
    d.add_argument("--window-bits", "--f", dest="f", type=int, default=None,
                   help="bits of the fixed-point window, sign included (8..256); --f is an alias")
    d.add_argument("--stages", type=int, default=None, help="pipeline register stages (default 0: combinational)")
    d.add_argument("--datapath", default=None, choices=("auto", "aligned", "anchored"),
                   help="auto (default: the smaller at equal function), aligned (the paper's max-exponent tree and "
                        "right shifts; any window) or anchored (left shifts into a fixed-anchor sum; exact windows)")
    d.add_argument("--raw", action="store_true", help="also output the raw fixed-point sum and its exponent")
    d.add_argument("--io-registers", action="store_true",
                   help="register every input and output of the combinational unit (the paper's area method)")
    d.add_argument("--scale", action="store_true",
                   help="FP8 RFC epilogue: scale_a, scale_b, inv_scale_out payload fields (FP32); y = "
                        "fp32(r * fp32(fp32(scale_a*scale_b) * inv_scale_out)) with flags (docs/scaling.md)")
    d.add_argument("--amax", action="store_true",
                   help="running amax of |fp32(r * scale_a*scale_b)| over the stream, `first` payload field "
                        "starts a tensor (stream units: --stages >= 1)")
    d.add_argument("--out-format", default=None,
                   help="cast y to this scalar format of at most 8 bits (e4m3, e5m2, hif8, ...): `code` output, "
                        "saturating unless --no-saturate, rounding --rounding (default the format's first)")
    p.add_argument("--source", default=None, help="encoder source: fp32, fp16 or bf16 (default fp32)")
    p.add_argument("--target", default=None, help="decoder target: fp32, fp16 or bf16 (default fp32)")
    p.add_argument("--rounding", default=None,
                   help="rounding mode (default: the format's first, rne for FP8, ta for HiF8), a comma list "
                        "(adds a run-time `mode` port), or `all`")
    p.add_argument("--saturate", action="store_true", default=None, help="overflow and ±Inf give ±max")
    p.add_argument("--no-saturate", dest="saturate", action="store_false", default=None,
                   help="dot --out-format: overflow gives ±Inf (or NaN) instead of ±max (the cast saturates by "
                        "default there)")
    p.add_argument("--sat-port", action="store_true", help="run-time `sat` input instead of a fixed choice")
    p.add_argument("--nan-to-zero", action="store_true", help="NaN operands encode as +0")
    p.add_argument("--paper-literal", action="store_true",
                   help="HiF8 hr: SR14 compares F14 >= T14 literally (exact values may round up)")
    p.add_argument("--compat", default="default", choices=["default", "ascend"],
                   help="HiF8: ascend = bit-compatible with Huawei Ascend's conversions (the hif8_ascend "
                        "descriptor; docs/hif8.md)")
    p.add_argument("--ieee-denormals", action="store_true",
                   help="CFloat8/SHP: IEEE denormals 2^(1-bias)×0.m instead of the guide's 2^-bias×0.m")
    p.add_argument("--latency", type=int, default=None,
                   help="0: combinational (default); N: N-stage stream pipeline, 1..64 (scaled-encoder: default 1)")
    p.add_argument("--rand-bits", type=int, default=None, help="random bits per value for sr, 1..32 (default 16)")
    p.add_argument("--seed", type=seed_arg, default=None,
                   help="seed of the sr generator (stream units; the draws of a regression), default 0")
    p.add_argument("--name", default=None, help="Verilog module name (default: derived from the configuration)")
    p.add_argument("--spec-json", action="store_true",
                   help="print the unit's spec (JSON, defaults resolved, with its sha256) and stop")


def _format_of(args, name):
    """The descriptor named ``name``, with --m/--k1/--d1/--k2/--d2 applied for BDR (None for ``fp8``)."""
    from .golden import bdr, get_format
    from .golden.block import BlockFormat

    given = {k: getattr(args, k) for k in _BDR_OPTS if getattr(args, k) is not None}
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


def _dot_operands(args):
    from .golden.dot import operand_format

    if args.format is not None:
        raise UsageError("a dot unit takes --preset (and --b-preset), not --format")
    if args.preset is None:
        raise UsageError("dot needs --preset: mx9, mx6, mx4, msfp12, msfp16, bdr, an OCP MX format, e4m3, e5m2, "
                         "hif8, cfloat8_143, cfloat8_152 or fp8")
    if args.r is None or args.f is None:
        raise UsageError("dot needs --r (elements per dot product) and --window-bits (alias --f; 8..256)")
    if any(getattr(args, k) is not None for k in _BDR_OPTS):
        fmt_a = _format_of(args, args.preset)
        name_a = "fp8" if fmt_a is None else operand_format(fmt_a).name
    else:
        name_a = operand_format(args.preset).name
    name_b = None if args.b_preset is None else operand_format(args.b_preset).name
    if args.io_registers and args.action == "sim":
        raise UsageError("--io-registers is for area reports (verilog, synth); sim checks the unit itself")
    return name_a, name_b


def unit_config(args) -> dict:
    """The ``build_unit`` keywords of the unit the options describe (only the options given)."""
    cfg = {"unit": args.unit}
    if args.unit == "dot":
        cfg["format"], cfg["format_b"] = _dot_operands(args)
        cfg.update(r=args.r, f=args.f)
        if args.datapath is not None:
            cfg["datapath"] = args.datapath
        if args.rounding is not None:  # the cast to --out-format; refused by build_unit without one
            cfg["rounding"] = tuple(r.strip() for r in args.rounding.split(","))
        if args.out_format is not None:
            cfg["out_format"] = args.out_format
        if args.saturate is False:
            cfg["saturate"] = False
        if args.compat != "default":
            cfg["compat"] = args.compat  # refused by build_unit: compat applies to HiF8 conversion units
    else:
        if args.format is None:
            raise UsageError(f"{args.unit} needs --format/-f (see `fpforge formats`)")
        fmt = _format_of(args, args.format)
        if fmt is None:
            raise UsageError("fp8 (E4M3 or E5M2 at run time) is a dot-product operand; give e4m3 or e5m2")
        if args.compat != "default":
            from .golden.tapered import with_compat

            fmt = with_compat(fmt, args.compat)  # the variant descriptor (hif8_ascend); one line for other formats
        if args.ieee_denormals:  # sugar for the variant descriptor (build_unit resolves --paper-literal)
            from .golden.formats import resolve_variant

            fmt = resolve_variant(fmt, ieee_denormals=True)  # <format>_ieee; one line for other formats
        cfg["format"] = fmt.name
        if args.rounding is not None:
            if args.rounding == "all":
                cfg["rounding"] = tuple(getattr(fmt, "roundings", ()))
            else:
                items = [r.strip() for r in args.rounding.split(",")]
                if not all(items):
                    raise UsageError(f"--rounding {args.rounding!r} has an empty item; give a mode, a comma list "
                                     "of modes or `all`")
                cfg["rounding"] = tuple(items)
        if args.saturate and args.sat_port:
            raise UsageError("choose one of --saturate (fixed) and --sat-port (run-time)")
    if (args.preset is not None or args.b_preset is not None) and args.unit != "dot":
        raise UsageError("--preset and --b-preset apply to dot units; give --format")
    if args.out_format is not None and args.unit != "dot":
        raise UsageError("--out-format applies to dot units (the cast of their epilogue); give --format")
    if args.saturate is False and args.unit != "dot":
        raise UsageError("--no-saturate applies to a dot unit's cast (--out-format); other units saturate only "
                         "with --saturate")
    options = {"source": args.source, "target": args.target, "format_b": cfg.get("format_b"),
               "latency": args.latency, "stages": args.stages, "rand_bits": args.rand_bits, "seed": args.seed,
               "lanes": args.lanes, "scaling": args.scaling}
    switches = {"saturate": args.saturate, "nan_to_zero": args.nan_to_zero, "paper_literal": args.paper_literal,
                "ieee_denormals": args.ieee_denormals, "raw": args.raw, "io_registers": args.io_registers,
                "scale": args.scale, "amax": args.amax}
    if args.unit != "dot":
        options.update(r=args.r, f=args.f)
    cfg.update({k: v for k, v in options.items() if v is not None})
    if args.unit != "dot":
        switches.pop("ieee_denormals")  # resolved into the format above
    cfg.update({k: True for k, v in switches.items() if v})
    if args.sat_port:
        cfg["saturate"] = "runtime"
    return cfg


def unit_spec(args):
    """The spec (:mod:`fpforge.hw.spec`) of the unit the options describe."""
    from .hw.spec import spec_from_options

    return spec_from_options(**unit_config(args))


def print_spec(spec, output=None) -> None:
    """``--spec-json``: the spec's JSON form with its SHA-256 (one JSON object) on stdout or into ``output``
    (``-o``, written atomically); ``UnitSpec.from_json`` reads it back (and checks the hash)."""
    import json

    from .cliutil import write_output

    write_output(output, json.dumps(dict(spec.to_dict(), sha256=spec.sha256), indent=2, sort_keys=True) + "\n")


def build(args):
    """``(spec, unit, module name, Verilog text)`` of the unit the options describe."""
    from .hw.generate import build_unit, default_name, to_verilog

    spec = unit_spec(args)
    unit = build_unit(spec)
    name = default_name(unit) if args.name is None else args.name
    return spec, unit, name, to_verilog(unit, name)
