"""Count where HiF8 ``compat="ascend"`` and the default differ under hybrid rounding (issue 15), by source.

Exhaustive for FP16 and BF16 (natively: SR2; and widened to FP32: SR14) and over the FP32 patterns where
each difference can occur (every pattern below 2^-23, every pattern in [1.25, 1.5) × 2^15, every exact
value with |E| >= 4 and 14 zero low bits), both signs. Columns:

* literal rule: exact values that ``F >= T`` read literally rounds up (default vs ``paper_literal``);
* below 2^-23: non-zero operands the default rounds to ±2^-22 and Ascend flushes to 0 (BF16 subnormals,
  FP32 subnormals once widened, counted apart);
* [1.25, 1.5) × 2^15: operands the default rounds down to ±2^15 and Ascend overflows;
* all: every pattern where default and Ascend codes differ;
* saturation: operands in [2^15, 1.25 × 2^15) that hybrid rounding rounds up: with saturation fpforge
  gives ±2^15, Huawei's code Inf (its range check runs before rounding) — the difference kept on purpose.

Run: ``.venv/bin/python bench/hif8_ascend.py`` (``--write-results``: into docs/results.md, section
``hif8-ascend``).
"""

import sys

import ml_dtypes
import numpy as np

from fpforge.golden import encode, encode_with_flags
from fpforge.jobs.results import markdown_table

CHUNK = 1 << 24


def _counts(x, subnormal):
    """(literal, below, below among subnormals, band, all, saturation) for operands ``x``."""
    with np.errstate(invalid="ignore"):
        a = np.abs(x.astype(np.float64))
    d = encode("hif8", x, rounding="hr")
    lit = encode("hif8", x, rounding="hr", paper_literal=True)
    asc, fl = encode_with_flags("hif8", x, rounding="hr", compat="ascend")
    below = (a > 0) & (a < 2.0**-23) & (d != asc)
    band = (a >= 1.25 * 2**15) & (a < 1.5 * 2**15) & (d != asc)
    sat = (a >= 2**15) & (a < 1.25 * 2**15) & ((fl & 4) != 0)
    return np.array([np.count_nonzero(d != lit), np.count_nonzero(below), np.count_nonzero(below & subnormal),
                     np.count_nonzero(band), np.count_nonzero(d != asc), np.count_nonzero(sat)])


def _sixteen(dtype):
    p = np.arange(1 << 16, dtype=np.uint16)
    sub = ((p & (0x7C00 if dtype == np.float16 else 0x7F80)) == 0) & ((p & 0x7FFF) != 0)
    return p.view(dtype), sub


def _fp32_counts():
    """Every FP32 pattern in the three regions (positive ones, doubled for the sign)."""
    total = np.zeros(6, np.int64)
    band_lo, band_hi = (int(np.array(v, np.float32).view(np.uint32)) for v in (2**15, 1.5 * 2**15))
    for start, stop in ((0, 104 << 23), (band_lo, band_hi)):  # |x| < 2^-23 (fields 0..103); [2^15, 1.5 * 2^15)
        for s in range(start, stop, CHUNK):
            p = np.arange(s, min(s + CHUNK, stop), dtype=np.uint32)
            total += _counts(p.view(np.float32), (p >> np.uint32(23)) == 0)
    # elsewhere only exact values with |E| >= 4 and 14 zero low bits can differ (the literal rule)
    p = np.arange(1 << 17, dtype=np.uint32) << np.uint32(14)  # positive patterns, doubled below
    e = (p >> np.uint32(23)).astype(np.int64) - 127
    keep = (e >= 104 - 127) & ~((p >= band_lo) & (p < band_hi)) & (np.abs(e) >= 4)
    total += _counts(p[keep].view(np.float32), np.zeros(keep.sum(), bool))
    return 2 * total


def rows():
    out = []
    for name, dt in (("FP16", np.float16), ("BF16", ml_dtypes.bfloat16)):
        x, sub = _sixteen(dt)
        out.append((f"{name} (SR2)", _counts(x, sub)))
        out.append((f"{name} widened to FP32 (SR14)", _counts(x.astype(np.float32), sub)))
    out.append(("FP32, all 2^32 patterns (SR14)", _fp32_counts()))
    return out


def main():
    table = rows()
    head = ("source", "literal rule", "below 2^-23 (of them subnormal)", "[1.25, 1.5) × 2^15", "all", "saturation")
    md = ["## HiF8 `compat=\"ascend\"`: where it differs from the default (hybrid rounding)", "",
          "Patterns whose codes differ, both signs. literal rule: exact values that `F >= T` read literally "
          "rounds up (the default keeps them); below 2^-23: the default rounds to ±2^-22, Ascend gives 0; "
          "[1.25, 1.5) × 2^15: the default rounds down to ±2^15, Ascend overflows (±Inf); all: default vs "
          "Ascend; saturation: values in [2^15, 1.25 × 2^15) that hybrid rounding rounds up, ±2^15 in fpforge "
          "and Inf in Huawei's code when saturating (kept on purpose). Decoding differs in one code: 0x80 "
          "(NaN) gives +qNaN. See docs/hif8.md.", "",
          markdown_table(head, [(label, f"{c[0]:,}", f"{c[1]:,} ({c[2]:,})", f"{c[3]:,}", f"{c[4]:,}", f"{c[5]:,}")
                                for label, c in table], "l" + "r" * (len(head) - 1))]
    print(md[4])
    if "--write-results" in sys.argv[1:]:
        from fpforge.jobs.results import write_section

        write_section("hif8-ascend", "\n".join(md), command="python bench/hif8_ascend.py --write-results",
                      data=dict(columns=list(head), rows=[dict(label=label, counts=list(c)) for label, c in table]))


if __name__ == "__main__":
    main()
