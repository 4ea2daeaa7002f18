"""``fpforge dot-error``: error of the f-bit dot-product pipeline against the exact sum, as f varies."""

from __future__ import annotations

from .cliutil import (
    UsageError,
    add_output,
    check_output,
    comma_list,
    progress_bar,
    seed_arg,
    timed,
    write_json,
    write_output,
)

__all__ = ["add_parser", "run"]

#: Largest ``--vectors x --r`` (values per operand) ``fpforge dot-error`` takes (memory of the exact sums).
MAX_VALUES = 1 << 22


def add_parser(sub):
    de = sub.add_parser("dot-error", help="error of the f-bit dot-product pipeline against the exact sum, as f varies")
    de.add_argument("--formats", default=None, help="comma list (default mx9,mx6,mx4,mxfp8_e4m3,mxint8,e4m3,e5m2)")
    de.add_argument("--window-bits", "--f", dest="f", default=None,
                    help="comma list of window widths, 8..256 (default 8,12,16,20,24,32,48); --f is an alias")
    de.add_argument("--r", type=int, default=64, help="elements per dot product (default 64)")
    de.add_argument("--vectors", type=int, default=2000, help="vector pairs per format (default 2000)")
    de.add_argument("--seed", type=seed_arg, default=0)
    de.add_argument("--json", action="store_true", help="JSON rows instead of the table")
    add_output(de)
    de.set_defaults(run=run)


def run(args) -> int:
    from .golden.dot import ERROR_FORMATS, ERROR_FS, DotConfig, error_sweep

    check_output(args.output)
    names = ERROR_FORMATS if args.formats is None else comma_list(args.formats, "--formats", example="mx9,e4m3")
    fs = ERROR_FS if args.f is None else comma_list(args.f, "--window-bits/--f", convert=int, example="8,16,32")
    if args.vectors < 1:
        raise UsageError(f"--vectors must be positive, not {args.vectors}")
    for n in names:
        for f in fs:
            DotConfig(n, args.r, f)  # validates format, r and f (one-line errors)
    if args.vectors * args.r > MAX_VALUES:
        raise UsageError(f"--vectors x --r = {args.vectors * args.r:,} elements; fpforge dot-error takes at most "
                         f"{MAX_VALUES:,} (memory): use fewer vectors")
    big = len(names) * len(fs) * args.vectors * args.r >= 1 << 24  # seconds or more: a bar over the rows
    bar = progress_bar(len(names) * len(fs), "dot-error", "row") if big else None
    try:
        rows, seconds = timed(error_sweep, names, fs, r=args.r, n_vectors=args.vectors, seed=args.seed,
                              progress=bar and (lambda row: bar.update(1)))
    finally:
        if bar is not None:
            bar.close()
    if args.json:
        return write_json(args.output, {"r": args.r, "vectors": args.vectors, "seed": args.seed,
                                        "seconds": seconds, "rows": rows})
    lines = [f"# f-bit dot-product pipeline vs the exact sum rounded once to FP32: r = {args.r}, {args.vectors} "
             f"Gaussian vector pairs per format (sigma = 2^U(-8, 8) per vector, seed {args.seed})",
             "# exact%: results bit-identical to the exact one; rel: |y - x| / |x|; norm: |y - x| / sum|a_i b_i|",
             "format        W    f    exact%   rel_p50    rel_max    norm_max"]
    for r_ in rows:
        lines.append(f"{r_['format']:<13} {r_['W']:<4} {r_['f']:<4} {100 * r_['exact']:<8.2f} {r_['rel_p50']:<10.2e} "
                     f"{r_['rel_max']:<10.2e} {r_['norm_max']:.2e}")
    write_output(args.output, "\n".join(lines) + "\n")
    return 0
