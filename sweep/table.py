"""The result table of a sweep: relative area, memory and cost, the Pareto frontier, CSV/JSON/markdown."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field

from ..golden.errors import FpforgeTypeError, FpforgeValueError, UnknownName
from ..jobs import write_atomic

__all__ = ["COLUMNS", "SweepResult", "memory_accesses", "memory_rel", "pareto"]

#: CSV columns, in order (the issue's list, then the unit's synthesis facts and the error of a failed point).
COLUMNS = ("name", "family", "m", "k1", "d1", "k2", "d2", "r", "f", "bits_per_element", "qsnr_db", "qsnr_p5_db",
           "area_um2", "ge", "area_rel", "memory_rel", "cost", "pareto", "fp8_area_um2", "cell_count",
           "flip_flops", "logic_depth", "error")

#: Values per memory tile and bits per memory access (the paper: a 256-element tile, a 64-byte interface).
TILE = 256
ACCESS_BITS = 512
FP8_BITS = 8


def memory_accesses(bits_per_element) -> int:
    """64-byte accesses that fetch a 256-element tile: ceil(256 x bits per element / 512)."""
    return math.ceil(round(TILE * bits_per_element, 9) / ACCESS_BITS)


def memory_rel(bits_per_element) -> float:
    """Accesses per tile relative to FP8's (4)."""
    return memory_accesses(bits_per_element) / memory_accesses(FP8_BITS)


def pareto(rows, x="cost", y="qsnr_db", tol=0.01) -> list:
    """For each row: True if no other row has a higher ``y`` at a lower or equal ``x``, and no row with a
    lower ``x`` comes within ``tol`` of its ``y`` (rows missing either value: None).

    ``tol`` (dB) is the tables' resolution: a point that buys less than 0.01 dB with a higher cost — the
    tail where the f-bit accumulator, not the format, sets the QSNR — is not a step of the frontier.
    """
    if isinstance(tol, bool) or not isinstance(tol, (int, float)):
        raise FpforgeTypeError(f"tol must be a number of dB, not {type(tol).__name__}")
    if not (math.isfinite(tol) and tol >= 0):
        raise FpforgeValueError(f"tol must be a finite number of dB >= 0, not {tol!r}")
    pts = [(r.get(x), r.get(y)) for r in rows]
    by_cost = {}
    for c, q in pts:
        if c is not None and q is not None:
            by_cost[c] = max(by_cost.get(c, -math.inf), q)
    below, top = {}, -math.inf
    for c in sorted(by_cost):
        below[c] = top  # the highest y at a cost < c
        top = max(top, by_cost[c])
    return [None if c is None or q is None else q >= by_cost[c] and q > below[c] + tol for c, q in pts]


def _csv_value(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        return repr(round(v, 6))
    return str(v)


@dataclass
class SweepResult:
    """What :func:`fpforge.sweep.run` returns.

    Members
    -------
    space : Space
    rows : list of dict
        One per point, in the space's order, with :data:`COLUMNS` and ``synth_s``/``synth_cpu_s`` (seconds
        the unit's synthesis took when it was computed), ``yosys`` and ``verilog_sha256``.
    failures : list of (name, message)
    stats : dict
        ``tasks``, ``cached``, ``computed``, ``failed``, ``seconds``, ``executor``.
    """

    space: object
    rows: list
    failures: list = field(default_factory=list)
    stats: dict = field(default_factory=dict)

    def row(self, name) -> dict:
        for r in self.rows:
            if r["name"] == name:
                return r
        raise UnknownName(f"no point named {name!r} in this table")

    def csv(self) -> str:
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(COLUMNS)
        for r in self.rows:
            w.writerow([_csv_value(r.get(c)) for c in COLUMNS])
        return out.getvalue()

    def json(self) -> str:
        sp = self.space
        head = dict(space=sp.name, r=sp.r, f=sp.f, vectors=sp.vectors, seed=sp.seed, points=len(self.rows),
                    failed=len(self.failures))
        return json.dumps(dict(**head, rows=self.rows), indent=1, sort_keys=False, allow_nan=False,
                          default=str) + "\n"

    def write_csv(self, path):
        write_atomic(path, self.csv())

    def write_json(self, path):
        write_atomic(path, self.json())

    def summary(self) -> str:
        st = self.stats
        front = sum(1 for r in self.rows if r.get("pareto"))
        text = (f"sweep {self.space.name}: {len(self.rows)} points, {front} on the Pareto frontier; "
                f"{st.get('computed', 0)} tasks computed, {st.get('cached', 0)} from the cache, "
                f"{len(self.failures)} point(s) failed; {st.get('seconds', 0):.1f} s on {st.get('executor', '?')}")
        for name, msg in self.failures[:10]:
            text += f"\n  failed: {name}: {msg}"
        if len(self.failures) > 10:
            text += f"\n  ... and {len(self.failures) - 10} more (see the error column)"
        return text
