"""``fpforge scale``: a per-tensor scale from an amax, and scaled casts of a few values (docs/scaling.md).

    fpforge scale --format e4m3 --amax 7                      # scale 64 (F8_MAX / amax), scale_inv 1/64
    fpforge scale --format e4m3 --values 6.103515625e-05,2,7  # the RFC's example: amax 7, codes 2^-8, 128, 448
    fpforge scale --format e5m2 --scale 0.5 --values 1e5,3 --no-saturate

Values and scales are read as decimal numbers and rounded to the nearest FP32 value, which is printed
(with its bit pattern) beside what was typed. An amax of 0, Inf or NaN keeps the previous scale
(``--prev-scale``, default 1, Transformer Engine's rule) and says so; a scale of zero, a negative, NaN or
infinite scale, a negative amax, or no values is a one-line error (exit code 2).
"""

from __future__ import annotations

import json

import numpy as np

__all__ = ["add_parser", "parse_numbers", "run"]


def add_parser(subparsers):
    p = subparsers.add_parser("scale", help="a per-tensor scale from an amax (TE rules), and scaled casts of values")
    p.add_argument("--format", "-f", required=True, help="scalar target format (e4m3, e5m2, hif8, cfloat8_143, ...)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--amax", default=None, help="the tensor's amax: the scale is F8_MAX * 2^-margin / amax")
    g.add_argument("--scale", default=None, help="use this scale (finite, positive)")
    p.add_argument("--values", default=None,
                   help="comma list of values to cast (without --amax/--scale their own amax sets the scale)")
    p.add_argument("--margin", type=int, default=0, help="divide the scale by 2^margin (0..64, default 0)")
    p.add_argument("--pow2", action="store_true", help="round the scale down to a power of two")
    p.add_argument("--prev-scale", default=None, help="the scale kept when amax is 0, Inf or NaN (default 1)")
    p.add_argument("--bias", type=int, default=None, help="run-time bias of CFloat8/SHP (0..63)")
    p.add_argument("--rounding", default=None, help="rounding of the cast (default: the format's first)")
    p.add_argument("--no-saturate", action="store_true", help="overflow gives Inf/NaN instead of ±max")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=run)
    return p


def parse_numbers(text, option, kind=float) -> tuple:
    """The comma list ``text`` as a tuple of ``kind`` (``()`` for an empty text); one line naming ``option`` if an
    item is empty (``1,,2``: a typo, never skipped) or not a number."""
    from .golden.errors import FpforgeValueError

    if not text.strip():
        return ()
    items = [t.strip() for t in text.split(",")]
    if not all(items):
        raise FpforgeValueError(f"{option} {text!r} has an empty item; give a comma list without empty entries "
                                f"(e.g. {option} {'1,2' if kind is int else '0.5,2,7'})")
    try:
        return tuple(kind(t) for t in items)
    except ValueError:
        what = "numbers" if kind is float else "integers"
        raise FpforgeValueError(f"{option} takes {what} (a comma list), not {text!r}") from None


def _number(text, option):
    """One number, as the nearest FP32 value."""
    from .golden.errors import FpforgeValueError

    values = parse_numbers(text, option)
    if len(values) != 1:
        raise FpforgeValueError(f"{option} takes one number, not {text!r}")
    with np.errstate(over="ignore"):
        return np.float32(values[0])


def _show(v):
    v = np.float32(v)
    return f"{float(v):.9g} (0x{int(np.array(v).view(np.uint32)):08x})"


def run(args) -> int:
    from .golden import decode, get_format
    from .golden.errors import FpforgeValueError
    from .golden.scaling import amax, format_max, scale_from_amax, scale_inv, scaled_encode_with_flags, unscale

    fmt = get_format(args.format)
    if getattr(fmt, "runtime_bias", False) and args.bias is None:
        raise FpforgeValueError(f"{fmt.name} has a run-time bias: give --bias B (0..63)")
    fmax = format_max(fmt, args.bias)
    if args.values is None and (args.rounding is not None or args.no_saturate):
        raise FpforgeValueError("--rounding and --no-saturate apply to the casts of --values; give --values")
    values = None
    if args.values is not None:
        items = parse_numbers(args.values, "--values")
        if not items:
            raise FpforgeValueError("--values names no value (an empty tensor has amax 0, which keeps the "
                                    "previous scale: see docs/scaling.md)")
        with np.errstate(over="ignore"):
            values = np.array(items, np.float32)
    out = {"format": fmt.name, "f8_max": float(fmax), "margin": args.margin, "pow2": args.pow2}
    notes = []
    if args.scale is not None:
        if args.margin or args.pow2:
            raise FpforgeValueError("--margin and --pow2 shape a scale computed from an amax; give --amax, not --scale")
        if args.prev_scale is not None:
            raise FpforgeValueError("--prev-scale is the scale kept when an amax is 0, Inf or NaN; give --amax (or "
                                    "--values without --scale), not --scale")
        s = _number(args.scale, "--scale")
    else:
        if args.amax is None and values is None:
            raise FpforgeValueError("give --amax A, --scale S or --values V,V,... (see fpforge scale --help)")
        a = _number(args.amax, "--amax") if args.amax is not None else amax(values)
        prev = _number("1" if args.prev_scale is None else args.prev_scale, "--prev-scale")
        s = scale_from_amax(a, fmt, margin=args.margin, pow2=args.pow2, prev_scale=prev, bias=args.bias)
        out["amax"] = float(a)
        if not (np.isfinite(a) and a > 0):
            notes.append(f"amax {float(a)!r} carries no information: the previous scale {float(prev)!r} is kept")
    inv = scale_inv(s)  # rejects a zero, negative, NaN or infinite scale with one line
    out.update(scale=float(s), scale_bits=f"0x{int(np.array(s).view(np.uint32)):08x}", scale_inv=float(inv))
    rows = []
    if values is not None:
        codes, flags = scaled_encode_with_flags(fmt, values, s, rounding=args.rounding, saturate=not args.no_saturate,
                                                bias=args.bias)
        back = unscale(codes, s, fmt, bias=args.bias)
        dec = decode(fmt, codes, bias=args.bias)
        with np.errstate(over="ignore", invalid="ignore"):
            prod = (values * np.float32(s)).astype(np.float32)
        for v, p, c, d, b, f in zip(values, prod, codes, dec, back, flags):
            rows.append(dict(value=float(v), product=float(p), code=int(c), decoded=float(d), dequantized=float(b),
                             flags=int(f)))
    out["rows"], out["notes"] = rows, notes
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"# {fmt.name}: F8_MAX {float(fmax):g}" + (f", margin {args.margin}" if args.margin else "")
          + (", power-of-two scale" if args.pow2 else ""))
    if "amax" in out:
        print(f"amax   {_show(out['amax'])}")
    print(f"scale  {_show(s)}\nscale_inv {_show(inv)}")
    for n in notes:
        print(f"note: {n}")
    if rows:
        digits = (fmt.bits + 3) // 4
        print("value            x*scale (FP32)   code   decoded          dequantized      flags")
        names = ("invalid", "denormal", "overflow", "underflow", "inexact")
        for r in rows:
            fl = ",".join(n for i, n in enumerate(names) if r["flags"] >> i & 1) or "-"
            print(f"{r['value']:<16.9g} {r['product']:<16.9g} 0x{r['code']:0{digits}x}{'':<{5 - digits}} "
                  f"{r['decoded']:<16.9g} {r['dequantized']:<16.9g} {fl}")
    return 0
