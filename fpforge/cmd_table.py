"""``fpforge table``: every code of a format with its value and class; ``--summary``: the HiF8 paper's
Table 4 rows; ``--ranges``: the normal range of a CFloat format at every bias (the Tesla guide's Tables 4-5)."""

from __future__ import annotations

from .cliutil import UsageError, add_output, check_output, table_text, write_output
from .golden.registry import RUNTIME_BIASES

__all__ = ["add_parser", "run"]

#: Largest code width ``fpforge table`` lists code by code (2^16 lines).
MAX_TABLE_BITS = 16


def add_parser(sub):
    t = sub.add_parser("table", help="every code of a format, its value and class; --summary: Table 4 rows")
    t.add_argument("format", nargs="+", help="format (several with --summary)")
    t.add_argument("--summary", action="store_true",
                   help="the HiF8 paper's Table 4 rows (specials, limits, exponent ranges) for each format")
    t.add_argument("--bias", type=int, default=None, help="run-time bias 0..63 (cfloat8_143, cfloat8_152, shp)")
    t.add_argument("--ranges", action="store_true",
                   help="CFloat: the normal range at every bias (the Tesla guide's Tables 4 and 5)")
    t.add_argument("--ieee-denormals", action="store_true",
                   help="CFloat8/SHP: IEEE denormals 2^(1-bias)×0.m instead of the guide's")
    add_output(t)
    t.set_defaults(run=run)


def _ranges(args, fmts):
    from .golden.summary import bias_ranges

    if args.summary or args.bias is not None:
        raise UsageError("--ranges lists every bias; it takes neither --summary nor --bias")
    text = []
    for f in fmts:
        rows = bias_ranges(f, args.ieee_denormals)
        lo, hi = f.exponent_span
        table = {"cfloat8_143": "4", "cfloat8_152": "5"}.get(f.name, "4/5 style")
        text.append(f"# {f.name}: range of the normal numbers for each exponent bias (Tesla guide, Table {table})")
        den = "IEEE 2^(1-bias)×0.m" if args.ieee_denormals else "2^-bias×0.m"
        table = [("bias", "normal range", "emin", "emax", "min normal", "max normal", f"denormals ({den})")]
        for r in rows:
            table.append((str(r["bias"]), r["range"], str(r["emin"]), str(r["emax"]), repr(r["min_normal"]),
                          repr(r["max_normal"]), f"[{r['min_denormal']!r}, {r['max_denormal']!r}]"))
        text.append(table_text(table).rstrip("\n"))
        text.append(f"exponent span over all biases: [{lo}, {hi}]")
    return "\n".join(text) + "\n"


def _codes(args, fmt):
    import numpy as np

    from .golden import decode
    from .golden.contract import ScalarFormat
    from .golden.formats import resolve_variant
    from .golden.summary import code_class, code_fields

    if not isinstance(fmt, ScalarFormat):
        raise UsageError(f"{fmt.name!r} is a block format: `fpforge formats` lists its layout; tables list "
                         f"scalar formats of up to {MAX_TABLE_BITS} bits")
    if fmt.runtime_bias:
        if args.bias is None:
            raise UsageError(f"{fmt.name} has a run-time bias: give --bias B (0..63), or --ranges for every bias")
    elif args.bias is not None:
        raise UsageError(f"format {fmt.name!r} has a fixed bias; --bias applies to CFloat formats")
    if fmt.bits > MAX_TABLE_BITS:
        raise UsageError(f"format {fmt.name!r} has {fmt.bits}-bit codes; tables list formats of up to "
                         f"{MAX_TABLE_BITS} bits (--summary works for any format)")
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
    return "\n".join(lines) + "\n"


def run(args) -> int:
    from .golden import get_format
    from .golden.contract import ScalarFormat
    from .golden.formats import resolve_variant

    check_output(args.output)
    if args.bias is not None and args.bias not in RUNTIME_BIASES:
        raise UsageError(f"--bias must be in 0..63, not {args.bias}")
    fmts = [get_format(f) for f in args.format]
    twice = next((f.name for i, f in enumerate(fmts) if f.name in [g.name for g in fmts[:i]]), None)
    if twice is not None:
        raise UsageError(f"format {twice} is named twice; give each format once")
    if args.ieee_denormals:
        for f in fmts:
            resolve_variant(f, ieee_denormals=True)  # one clear line for a format without the guide's denormals
    if args.ranges:
        write_output(args.output, _ranges(args, fmts))
        return 0
    if args.summary:
        from .golden.summary import summary_table

        runtime = [f for f in fmts if isinstance(f, ScalarFormat) and f.runtime_bias]
        if args.bias is not None and not runtime:
            raise UsageError("--bias applies to run-time-bias formats (cfloat8_143, cfloat8_152, shp); "
                             "none was given")
        if runtime and args.bias is None:
            raise UsageError(f"{runtime[0].name} has a run-time bias: give --bias B (0..63) for its rows")
        write_output(args.output, table_text(summary_table(args.format, args.bias, args.ieee_denormals)))
        return 0
    if len(fmts) != 1:
        raise UsageError("table takes one format (or --summary FMT [FMT ...])")
    write_output(args.output, _codes(args, fmts[0]))
    return 0
