"""``fpforge formats``: every registered format, its fields, limits and roundings."""

from __future__ import annotations

__all__ = ["add_parser", "run"]


def add_parser(sub):
    p = sub.add_parser("formats", help="list the formats and their limits")
    p.set_defaults(run=run)


def run(args) -> int:
    from .cliutil import table_text
    from .golden import SOURCES, get_format, list_formats

    rows = [("name", "bits", "fields", "max", "min normal", "min subnormal", "roundings", "")]
    for name in list_formats():
        f = get_format(name)
        if getattr(f, "kind", None) == "block":
            continue
        if getattr(f, "runtime_bias", False):  # limits scale with 2^-B for run-time bias B
            f0 = f.at(0)
            limits = [f"{f0.max_value:.6g}·2^-B", f"{f0.min_normal:.6g}·2^-B", f"{f0.min_subnormal:.6g}·2^-B"]
        else:
            limits = [f"{f.max_value:.6g}", f"{f.min_normal:.6g}",
                      "flushed" if getattr(f, "ftz", False) else f"{f.min_subnormal:.6g}"]
        rows.append((name, str(f.bits), f.layout, *limits,
                     "-" if name in SOURCES else ",".join(f.roundings), f.title))
    out = table_text(rows)
    rows = [("block format", "bits/element", "block bits", "k1", "layout", "roundings", "")]
    for name in list_formats(kind="block"):
        f = get_format(name)
        rows.append((name, f"{float(f.bits_per_element):g}", str(f.block_bits), str(f.k1), f.layout,
                     ",".join(f.roundings), f.title))
    out += "\n" + table_text(rows)
    out += "\nAny BDR point: bdr_m<M>_k<K1>_d<D1>_k<K2>_d<D2>, or --format bdr --m --k1 --d1 --k2 --d2.\n"
    print(out, end="")
    return 0
