"""``fpforge plot precision``: significand bits against exponent (the HiF8 paper's Fig. 1)."""

from __future__ import annotations

import os

from .cliutil import UsageError, add_output, check_output, comma_list, write_output
from .golden.registry import RUNTIME_BIASES

__all__ = ["add_parser", "run"]


def add_parser(sub):
    p = sub.add_parser("plot", help="figures: `precision` draws significand bits against exponent (HiF8 Fig. 1)")
    p.add_argument("figure", choices=["precision"])
    add_output(p, required=True, help="FILE.png or FILE.svg")
    p.add_argument("--formats", default="hif8,e4m3,e5m2,fp16", help="comma list (default hif8,e4m3,e5m2,fp16)")
    p.add_argument("--bias", type=int, default=None, help="bias of the run-time-bias formats (CFloat8, SHP)")
    p.set_defaults(run=run)


def run(args) -> int:
    from .golden import get_format
    from .golden.contract import ScalarFormat
    from .plots import plot_precision

    ext = os.path.splitext(args.output)[1].lower().lstrip(".")
    if ext not in ("png", "svg"):
        raise UsageError(f"plot output must end in .png or .svg, not {args.output!r}")
    check_output(args.output)
    fmts = [get_format(f) for f in comma_list(args.formats, "--formats", example="hif8,e4m3")]
    if args.bias is not None and args.bias not in RUNTIME_BIASES:
        raise UsageError(f"--bias must be in 0..63, not {args.bias}")
    if args.bias is not None and not any(getattr(f, "runtime_bias", False) for f in fmts):
        raise UsageError("--bias applies to run-time-bias formats (cfloat8_143, cfloat8_152, shp); none was given")
    blocks = [f.name for f in fmts if not isinstance(f, ScalarFormat)]
    if blocks:
        raise UsageError(f"the precision plot takes scalar formats (e.g. --formats hif8,e4m3,e5m2,fp16); "
                         f"{blocks[0]!r} is a block format")
    formats = [f.name for f in fmts]
    write_output(args.output, plot_precision(formats, ext, args.bias))
    return 0
