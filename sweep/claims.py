"""The MX paper's statements about Fig. 7 (seed 004 §IV-C), checked on a sweep's results.

Each claim gives the paper's figure, ours (computed from the rows), a verdict and, where it does not agree,
why. "≈" is read with a stated tolerance (in the table's "paper" column). Claims (d)–(f) compare the BDR
neighbours of MX9, MX6 and MX4 (k1 = 16, d1 = 8) and report the range over the three.

The INT and FP8 points' QSNR uses a per-vector FP32 scale that their bits per element do not count (the
paper's reading); :func:`claims_markdown` gives the table under that reading and under the other one
(``--count-scale-bits``: 32 bits per 256-value vector added to their bits, memory and cost). Costs "than FP8"
are ratios to E4M3's cost in the same reading (FP8 = 1 in the first, 1.25 in the second: 8.125 bits need a
fifth 64-byte access per tile).
"""

from __future__ import annotations

import math

from ..jobs.results import markdown_table
from .table import SCALED_FAMILIES

__all__ = ["CLAIMS", "PAPER_RF", "READINGS", "check_claims", "claims_group", "claims_markdown"]

CLAIMS = "abcdefg"
#: The two readings of the INT/FP8 points' per-vector FP32 scale (scale_bits_counted -> heading).
READINGS = {False: "INT/FP8 per-vector FP32 scale not counted in their bits and memory (the paper's reading)",
            True: "INT/FP8 per-vector FP32 scale counted (--count-scale-bits: +32 bits per 256-value vector, "
                  "+0.125 bits per element)"}
_MX = {"mx9": 7, "mx6": 4, "mx4": 2}


def _bdr(m, k2, d2, k1=16):
    return f"bdr_m{m}_k{k1}_d8_k{k2}_d{d2}"


def _get(rows, name):
    r = rows.get(name)
    if r is None or r.get("qsnr_db") is None or r.get("cost") is None:
        return None
    return r


def _pair(rows, base, new):
    """(ΔQSNR dB, cost ratio) from point ``base`` to point ``new`` (names; presets resolve)."""
    a, b = _get(rows, base), _get(rows, new)
    if a is None or b is None:
        return None
    return b["qsnr_db"] - a["qsnr_db"], b["cost"] / a["cost"]


def _name(rows, fmt_name):
    """The row name of a BDR format name (grid points that equal a preset carry the preset's name)."""
    for preset, m in _MX.items():
        if fmt_name == _bdr(m, 2, 1):
            return preset
    return fmt_name


def _span(vals, fmt):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "–"
    lo, hi = min(vals), max(vals)
    return fmt(lo) if math.isclose(lo, hi, rel_tol=1e-9, abs_tol=1e-9) else f"{fmt(lo)} … {fmt(hi)}"


def _within(vals, lo, hi):
    vals = [v for v in vals if v is not None]
    return bool(vals) and all(lo <= v <= hi for v in vals)


def _neighbours(rows, change):
    """[(label, dQSNR, cost ratio, memory ratio)] over MX9/6/4 for ``change(m) -> (base name, new name)``."""
    out = []
    for label, m in _MX.items():
        b, n = (_name(rows, x) for x in change(m))
        p = _pair(rows, b, n)
        if p is not None:
            out.append((label.upper(), p[0], p[1], rows[n]["memory_rel"] / rows[b]["memory_rel"]))
    return out


def check_claims(result, count_scale_bits=None) -> list:
    """Rows ``dict(claim, statement, paper, ours, verdict, why)`` for claims (a)–(g), under the result's own
    reading of the INT/FP8 scale (``count_scale_bits=None``) or the one given (True/False)."""
    result = claims_group(result)
    if count_scale_bits is not None:
        result = result.with_scale_bits(count_scale_bits)
    rows = {r["name"]: r for r in result.rows}
    out = []

    def add(claim, statement, paper, ours, ok, why):
        verdict = "n/a" if ok is None else ("agrees" if ok else "differs")
        out.append(dict(claim=claim, statement=statement, paper=paper, ours=ours, verdict=verdict,
                        why="" if ok else why))

    mx6, mx9, mx4 = (_get(rows, n) for n in ("mx6", "mx9", "mx4"))
    e4, e5 = _get(rows, "e4m3"), _get(rows, "e5m2")
    missing = "the space lacks the points it compares (needs mx9, mx6, mx4, e4m3, e5m2 and their BDR neighbours)"

    # (a)
    if mx6 and e4 and e5:
        lo, hi = sorted((e4["qsnr_db"], e5["qsnr_db"]))
        between = lo <= mx6["qsnr_db"] <= hi
        factor = e4["cost"] / mx6["cost"]
        add("a", "MX6's QSNR lies between E4M3's and E5M2's at ≈ 2× lower cost than FP8",
            "between; 2× cheaper (1.5–2.7×)",
            f"E5M2 {e5['qsnr_db']:.1f} / MX6 {mx6['qsnr_db']:.1f} / E4M3 {e4['qsnr_db']:.1f} dB; {factor:.1f}× cheaper",
            between and 1.5 <= factor <= 2.7,
            ("MX6 is cheaper than the paper says. " if factor > 2.7 else "") +
            ("" if between else "MX6's QSNR is not between the FP8 formats'. ") +
            "Our FP8 baseline pays an exponent adder, a place in the max tree and an f-bit aligner per element, "
            "MX6 per 16-element block; at r = 16 MX6 has a single block and no aligner at all, and ABC onto "
            "Nangate45 cells prices multipliers (which shrink with m²) differently from the paper's node and "
            "Design Compiler (docs/sweep.md)." if not (between and 1.5 <= factor <= 2.7) else "")
    else:
        add("a", "MX6 between E4M3 and E5M2 at ≈ 2× lower cost", "", "–", None, missing)

    # (b)
    if mx9 and e4:
        frontier = max(r["qsnr_db"] for r in rows.values() if r.get("cost") is not None and r.get("qsnr_db")
                       is not None and r["cost"] <= mx9["cost"] and math.isfinite(r["qsnr_db"]))
        gap, above = frontier - mx9["qsnr_db"], mx9["qsnr_db"] - e4["qsnr_db"]
        rel = mx9["cost"] / e4["cost"]
        ok = gap <= 1.6 and 0.75 <= rel <= 1.33 and 14 <= above <= 18
        add("b", "MX9 within ≈ 0.8 dB of the frontier, cost close to FP8, ≈ 16 dB above E4M3",
            "≤ 1.6 dB; cost 0.75–1.33; 14–18 dB",
            f"{gap:.2f} dB below the frontier; cost {rel:.2f} of FP8's; {above:.1f} dB above E4M3", ok,
            "; ".join(s for s in (
                f"the frontier at MX9's cost is {gap:.1f} dB above it (cheaper two-level points reach further)"
                if gap > 1.6 else "",
                f"its cost is {rel:.2f} of FP8's" if not 0.75 <= rel <= 1.33 else "",
                f"{above:.1f} dB above E4M3 on our variable-variance vectors (the paper's variance law is not given)"
                if not 14 <= above <= 18 else "") if s))
    else:
        add("b", "MX9 near the frontier, cost ≈ FP8, ≈ 16 dB above E4M3", "", "–", None, missing)

    # (c)
    if mx4 and e4:
        factor = e4["cost"] / mx4["cost"]
        add("c", "MX4 ≈ 4× cheaper than FP8", "4× (3–5.3×)", f"{factor:.1f}× cheaper", 3 <= factor <= 5.3,
            "MX4 is cheaper still here, for the reason given under (a): the FP8 unit's per-element alignment "
            "dominates it while MX4's 2×2-bit multipliers and one block cost little" if factor > 5.3 else
            "MX4 is less cheap here than in the paper")
    else:
        add("c", "MX4 ≈ 4× cheaper", "", "–", None, missing)

    def neighbour_claim(claim, statement, paper, change, dq, dc):
        pairs = _neighbours(rows, change)
        if not pairs:
            add(claim, statement, paper, "–", None, missing)
            return
        qs, cs = [p[1] for p in pairs], [100 * (p[2] - 1) for p in pairs]
        ours = ", ".join(f"{lab} {q:+.2f} dB / {100 * (c - 1):+.0f} %" for lab, q, c, _ in pairs)
        ok = _within(qs, *dq) and _within(cs, *dc)
        parts = []
        if not _within(qs, *dq):
            parts.append("the QSNR change is outside the paper's range on our vectors")
        if not _within(cs, *dc):
            steps = [f"{lab} {100 * (mem - 1):+.0f} %" for lab, _, _, mem in pairs if mem != 1]
            flat = [lab for lab, _, _, mem in pairs if mem == 1]
            parts.append("memory moves in whole 64-byte accesses per 256-element tile: the added bits cost a full "
                         "access for " + (", ".join(steps) or "none") + (f" and nothing for {', '.join(flat)}"
                                                                          if flat else "")
                         + "; the area alone changes by a few percent (the shifters are small next to the "
                         "multipliers)")
        add(claim, statement, paper, ours, ok, "; ".join(parts))

    neighbour_claim("d", "d2 from 1 to 2 bits: +0.5 dB QSNR for +30–50 % cost", "+0.25…+1 dB; +20…+60 %",
                    lambda m: (_bdr(m, 2, 1), _bdr(m, 2, 2)), (0.25, 1.0), (20, 60))
    neighbour_claim("e", "d2 = 1, k2 from 8 to 2: ≈ +2 dB for ≈ +3 % cost", "+1…+3 dB; 0…+10 %",
                    lambda m: (_bdr(m, 8, 1), _bdr(m, 2, 1)), (1.0, 3.0), (0, 10))
    neighbour_claim("f", "k2 from 2 to 1: +0.7 dB for +30–40 % cost", "+0.35…+1.4 dB; +20…+50 %",
                    lambda m: (_bdr(m, 2, 1), _bdr(m, 1, 1)), (0.35, 1.4), (20, 50))

    # (g) dB gained per doubling of cost along the frontier, by bits per element: between the cheapest and
    # the dearest frontier point of each range.
    front = sorted((r["cost"], r["qsnr_db"], r["bits_per_element"]) for r in rows.values() if r.get("pareto"))
    bins = [("< 5", lambda b: b < 5), ("5–7", lambda b: 5 <= b < 7), ("7–9", lambda b: 7 <= b < 9),
            ("≥ 9", lambda b: b >= 9)]
    per = []
    for label, pred in bins:
        pts = [(c, q) for c, q, b in front if pred(b)]
        if len(pts) >= 2 and pts[-1][0] > pts[0][0]:
            per.append((label, (pts[-1][1] - pts[0][1]) / math.log2(pts[-1][0] / pts[0][0])))
    vals = [v for _, v in per]
    ok = len(vals) >= 2 and all(a >= b for a, b in zip(vals, vals[1:]))
    add("g", "the QSNR-per-cost trade-off flattens as bits per element grow", "decreasing dB per cost doubling",
        "frontier dB per doubling of cost: " + ", ".join(f"{lab} bits {v:.1f}" for lab, v in per),
        ok if len(vals) >= 2 else None,
        "the frontier's slope does not fall steadily with bits per element on these points")
    return out


#: The (r, f) at which a space that sweeps r or f is checked against the paper (the paper's unit), when swept.
PAPER_RF = (16, 24)


def claims_group(result):
    """The rows the claims are checked on: all of them, or for a space that sweeps r or f, the (r, f) group of
    :data:`PAPER_RF` (else the first group)."""
    if not getattr(result.space, "axes", ()):
        return result
    groups = result.groups()
    return result.group(*(PAPER_RF if PAPER_RF in groups else groups[0]))


def claims_markdown(result, readings=(False, True)) -> str:
    """The verdict table as markdown, once per reading of the INT/FP8 scale (``readings``: a tuple of
    ``scale_bits_counted`` values; each table under a bold line naming its reading). Spaces without INT/FP8
    points give one table."""
    if not any(r.get("family") in SCALED_FAMILIES for r in result.rows):
        readings = readings[:1]
    out = []
    for counted in readings:
        lines = [f"**{READINGS[counted]}:**", ""] if len(readings) > 1 else []
        lines.append(markdown_table(("claim", "the paper (seed 004 §IV-C)", "tolerance", "ours", "verdict",
                                     "why, where it differs"),
                                    [(f"({c['claim']})", c["statement"], c["paper"], c["ours"], c["verdict"], c["why"])
                                     for c in check_claims(result, counted)]))
        out.append("\n".join(lines) + "\n")
    if getattr(result.space, "axes", ()):
        g = claims_group(result).space
        out.insert(0, f"Checked at r = {g.r}, f = {g.f} (the paper's unit; the other r and f: the tables above).\n")
    return "\n".join(out)
