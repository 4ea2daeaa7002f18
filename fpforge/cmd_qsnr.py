"""``fpforge qsnr``: QSNR of block and scalar formats on variable-variance Gaussian vectors."""

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


def add_parser(sub):
    q = sub.add_parser("qsnr", help="QSNR table of block and scalar formats on variable-variance Gaussian vectors")
    q.add_argument("--formats", default=None,
                   help="comma list of any formats `fpforge formats` lists (default: mx9,mx6,mx4,msfp12,msfp16, "
                        "the OCP MX formats, e4m3,e5m2,hif8)")
    q.add_argument("--vectors", type=int, default=10_000, help="independent vectors (default 10000)")
    q.add_argument("--length", type=int, default=256, help="values per vector (default 256)")
    q.add_argument("--seed", type=seed_arg, default=0, help="seed of the vectors and of sr's draws (default 0)")
    q.add_argument("--rounding", default=None,
                   help="rounding (rne, ta, rtz, sr, hr) for the formats that offer it; the others keep their "
                        "default (the table's rounding column says which each used)")
    q.add_argument("--json", action="store_true", help="JSON rows instead of the table")
    add_output(q)
    q.set_defaults(run=run)


def run(args) -> int:
    from .golden import get_format
    from .golden.contract import BlockFormatLike
    from .golden.qsnr import DEFAULT_TABLE, MAX_VALUES, qsnr_table

    check_output(args.output)
    if args.vectors < 1 or args.length < 1:
        raise UsageError(f"--vectors and --length must be positive, not {args.vectors} and {args.length}")
    if args.vectors * args.length > MAX_VALUES:
        raise UsageError(f"--vectors x --length = {args.vectors * args.length:,} values; fpforge qsnr takes at "
                         f"most {MAX_VALUES:,} (memory): use fewer vectors")
    names = DEFAULT_TABLE if args.formats is None else comma_list(args.formats, "--formats", example="mx9,e4m3")
    fmts = [get_format(n) for n in names]
    for f in fmts:
        if isinstance(f, BlockFormatLike) and args.length % f.k1:
            raise UsageError(f"--length {args.length} is not a multiple of {f.name}'s block size {f.k1}")
    big = len(fmts) * args.vectors * args.length >= 1 << 24  # seconds or more: a bar over the formats
    bar = progress_bar(len(fmts), "qsnr", "format") if big else None
    try:
        rows, seconds = timed(qsnr_table, fmts, n_vectors=args.vectors, length=args.length, seed=args.seed,
                              rounding=args.rounding, progress=bar and (lambda name: bar.update(1)))
    finally:
        if bar is not None:
            bar.close()
    if args.json:
        return write_json(args.output, {"vectors": args.vectors, "length": args.length, "seed": args.seed,
                                        "seconds": seconds, "rows": rows})
    lines = [f"# QSNR (dB) over {args.vectors} vectors of {args.length} values, sigma = 2^U(-8, 8) per vector "
             f"(seed {args.seed}); scalar formats with a per-vector amax scale",
             "format        bits/elem  rounding  mean    std    p5      min     bound"]
    for r in rows:
        bound = "-" if r["bound"] is None else f"{r['bound']:.2f}"
        lines.append(f"{r['name']:<13} {r['bits']:<10g} {r['rounding']:<9} {r['mean']:<7.2f} {r['std']:<6.2f} "
                     f"{r['p5']:<7.2f} {r['min']:<7.2f} {bound}")
    write_output(args.output, "\n".join(lines) + "\n")
    return 0
