"""``fpforge formats``: every registered format, its fields, limits and roundings."""

from __future__ import annotations

__all__ = ["add_parser", "run"]


def add_parser(sub):
    p = sub.add_parser("formats", help="list the formats and their limits")
    p.set_defaults(run=run)


def _format_row(name):
    from .golden import get_format

    f = get_format(name)
    if f.runtime_bias:  # limits scale with 2^-B for run-time bias B
        f0 = f.at(0)
        limits = [f"{f0.max_value:.6g}·2^-B", f"{f0.min_normal:.6g}·2^-B", f"{f0.min_subnormal:.6g}·2^-B"]
    else:
        limits = [f"{f.max_value:.6g}", f"{f.min_normal:.6g}", "flushed" if f.ftz else f"{f.min_subnormal:.6g}"]
    return (name, str(f.bits), f.layout, *limits, "-" if f.dtype is not None else ",".join(f.roundings), f.title)


def run(args) -> int:
    from .cliutil import table_text
    from .golden import get_format, list_formats

    head = ("name", "bits", "fields", "max", "min normal", "min subnormal", "roundings", "")
    variants = list_formats(kind="variant")
    scalar = [n for n in list_formats(kind="source") + list_formats(kind="scalar") if n not in variants]
    out = table_text([head] + [_format_row(n) for n in scalar])
    out += "\nvariants (<format>_<variant>; `--ieee-denormals`, `--paper-literal` name them too)\n"
    out += table_text([("variant", "of", *head[1:])] + [(n, get_format(n).base.name, *_format_row(n)[1:])
                                                        for n in variants])
    rows = [("block format", "bits/element", "block bits", "k1", "layout", "roundings", "")]
    for name in list_formats(kind="block"):
        f = get_format(name)
        rows.append((name, f"{float(f.bits_per_element):g}", str(f.block_bits), str(f.k1), f.layout,
                     ",".join(f.roundings), f.title))
    out += "\n" + table_text(rows)
    out += "\nAny BDR point: bdr_m<M>_k<K1>_d<D1>_k<K2>_d<D2>, or --format bdr --m --k1 --d1 --k2 --d2.\n"
    print(out, end="")
    return 0
