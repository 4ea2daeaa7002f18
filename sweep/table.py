"""The result table of a sweep: relative area, memory and cost, the Pareto frontier, CSV/JSON/markdown."""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..golden.errors import FpforgeTypeError, FpforgeValueError, UnknownName
from ..jobs import write_atomic
from .points import ROW_FIELDS, Row

__all__ = ["COLUMNS", "COST_LABELS", "SCALE_BITS", "SCALED_FAMILIES", "SweepResult", "cost_of", "memory_accesses",
           "memory_rel", "pareto", "pareto_groups", "read_csv", "rf_group", "with_scale_bits"]

#: The x axis of the figure for each cost (:data:`fpforge.sweep.space.COSTS`).
COST_LABELS = {"area-memory": "cost = dot-product area × memory",
               "energy-memory": "cost = energy per dot product × memory",
               "area-delay": "cost = dot-product area × delay"}

#: CSV columns, in order (the issue's list, then the unit's synthesis facts, the reading of the INT/FP8 points'
#: scale, the PPA columns (empty without PPA: ``fpforge sweep --ppa``) and the error of a failed point).
COLUMNS = ("name", "family", "m", "k1", "d1", "k2", "d2", "r", "f", "bits_per_element", "qsnr_db", "qsnr_p5_db",
           "area_um2", "ge", "area_rel", "memory_rel", "cost", "pareto", "fp8_area_um2", "cell_count",
           "flip_flops", "logic_depth", "qsnr_scale", "scale_bits_counted", "delay_ns", "slack_ns", "power_mw", "energy_pj",
           "energy_rel", "error")

#: Families whose QSNR is measured with a per-vector FP32 amax scale that is not part of the format (INT-like,
#: E4M3/E5M2, HiF8, CFloat8): ``qsnr_scale`` = ``fp32_per_vector``. BDR and OCP MX points carry their scales
#: in their bits (``in_format``).
SCALED_FAMILIES = ("fp", "int")
#: Bits of that scale: one FP32 per vector of 256 values (``--count-scale-bits`` adds 32 / 256 bits per element).
SCALE_BITS = 32

#: Values per memory tile and bits per memory access (the paper: a 256-element tile, a 64-byte interface).
TILE = 256
ACCESS_BITS = 512
FP8_BITS = 8


def memory_accesses(bits_per_element) -> int:
    """64-byte accesses that fetch a 256-element tile: ceil(256 x bits per element / 512)."""
    if isinstance(bits_per_element, bool) or not isinstance(bits_per_element, (int, float)):
        raise FpforgeTypeError(f"bits_per_element must be a number, not {bits_per_element!r}")
    if not (math.isfinite(bits_per_element) and bits_per_element > 0):
        raise FpforgeValueError(f"bits_per_element must be a finite number > 0, not {bits_per_element!r}")
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
    if not isinstance(rows, (list, tuple)) or not all(isinstance(r, Mapping) for r in rows):
        raise FpforgeTypeError(f"rows must be a list of dicts or Rows (a sweep's rows), not {rows!r}"[:300])
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


def cost_of(row, cost="area-memory"):
    """The Pareto cost of a row (:data:`~fpforge.sweep.space.COSTS`): ``area_rel × memory_rel`` (the paper's),
    ``energy_rel × memory_rel`` or ``area_rel × delay_ns / fp8_delay_ns``, each relative to the FP8 unit at the
    same r and f; None where a factor is missing (an unsynthesized or failed point, no PPA columns)."""
    a, m = row.get("area_rel"), row.get("memory_rel")
    if cost == "area-memory":
        return None if a is None or m is None else a * m
    if cost == "energy-memory":
        e = row.get("energy_rel")
        return None if e is None or m is None else e * m
    if cost == "area-delay":
        d, d0 = row.get("delay_ns"), row.get("fp8_delay_ns")
        return None if a is None or d is None or not d0 else a * d / d0
    raise UnknownName(f"unknown cost {cost!r}; valid: area-memory, energy-memory, area-delay")


def rf_group(row, space=None) -> tuple:
    """The (r, f) group of a row of ``space``: the swept r its unit belongs to (:meth:`Space.group_r`: a block
    point whose k1 exceeds r runs at r = k1, in the group of the largest swept r not above it) and its f
    (``"auto"`` for a space whose f is auto: one group whatever width each point found)."""
    r, f = row.get("r"), row.get("f")
    if space is None:
        return r, f
    return (space.group_r(r) if isinstance(r, int) else r), ("auto" if space.fs == ("auto",) else f)


def pareto_groups(rows, space=None, **kw) -> list:
    """:func:`pareto` within each (r, f) group of ``space`` (:func:`rf_group`): a frontier per swept r and f,
    each against the FP8 unit at that r and f. A space of one r and one f is one group (None: one group)."""
    if space is None or not space.axes:
        return pareto(rows, **kw)
    out = [None] * len(rows)
    groups = {}
    for i, r in enumerate(rows):
        groups.setdefault(rf_group(r, space), []).append(i)
    for idx in groups.values():
        for i, on in zip(idx, pareto([rows[i] for i in idx], **kw)):
            out[i] = on
    return out


def _scale_columns(row, counted):
    """``row`` with its ``qsnr_scale`` and ``scale_bits_counted`` (None for formats that hold their scales)."""
    scaled = row.get("family") in SCALED_FAMILIES
    return Row.from_record(row).with_(qsnr_scale="fp32_per_vector" if scaled else "in_format",
                                      scale_bits_counted=bool(counted) if scaled else None)


def with_scale_bits(rows, counted, space=None) -> list:
    """The rows under one reading of the INT/FP8 points' per-vector FP32 scale: ``counted=False`` (their bits
    per element are the format's, as the paper counts them) or True (+32 bits per 256-value vector, 0.125 per
    element, in their bits, memory and cost). The other points are unchanged; the frontier is recomputed
    when anything moved (per (r, f) group of ``space``, :func:`pareto_groups`). Rows already in that reading are
    returned as they are (:class:`~fpforge.sweep.points.Row`)."""
    if not isinstance(counted, bool):
        raise FpforgeTypeError(f"counted must be True or False, not {counted!r}")
    from .space import VECTOR_LENGTH

    per = SCALE_BITS / VECTOR_LENGTH
    out, moved = [], False
    for r in rows:
        r = Row.from_record(r)
        if r.get("family") in SCALED_FAMILIES and bool(r.get("scale_bits_counted")) != counted:
            bits = r["bits_per_element"] + (per if counted else -per)
            r = r.with_(bits_per_element=bits, memory_rel=memory_rel(bits))
            if r.get("area_rel") is not None:
                r = r.with_(cost=cost_of(r, getattr(space, "cost", "area-memory")))
            moved = True
        out.append(_scale_columns(r, counted))
    if moved:
        out = [r.with_(pareto=on) for r, on in zip(out, pareto_groups(out, space))]
    return out


#: How read_csv converts each column (str: as is; "" means missing, None).
_CSV_TYPES = dict(m=int, k1=int, d1=int, k2=int, d2=int, r=int, f=int, bits_per_element=float, qsnr_db=float,
                  qsnr_p5_db=float, area_um2=float, ge=float, area_rel=float, memory_rel=float, cost=float,
                  pareto="bool", fp8_area_um2=float, cell_count=int, flip_flops=int, logic_depth=int,
                  scale_bits_counted="bool", delay_ns=float, slack_ns=float, power_mw=float, energy_pj=float,
                  energy_rel=float)
_CSV_NEEDED = ("name", "family", "bits_per_element", "qsnr_db", "area_rel", "memory_rel", "cost", "pareto")


def read_csv(path, space) -> "SweepResult":
    """A :class:`SweepResult` from a sweep's CSV (``result.csv()``, ``fpforge sweep -o``) and the space it was
    measured on (a name, a TOML file or a Space: its name, r, f and vectors title the figure): re-plot and
    re-derive the claims without measuring again. Every row must be a point of ``space``. A CSV written before
    the ``qsnr_scale``/``scale_bits_counted`` columns existed is read as "scale bits not counted"."""
    from .space import Space, load_space

    sp = load_space(space)
    if not isinstance(sp, Space):
        raise FpforgeValueError(f"{sp.name!r} is an area table: a CSV is re-read for a dot-product space")
    if not isinstance(path, (str, os.PathLike)):  # open(5) would read (and close) file descriptor 5
        raise FpforgeTypeError(f"path must be a CSV file's path (str or os.PathLike), not {path!r}")
    name = str(path)
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            header = reader.fieldnames or []
            missing = [c for c in _CSV_NEEDED if c not in header]
            if missing:
                raise FpforgeValueError(f"{name}: not a sweep CSV: no column(s) {', '.join(missing)} (a sweep's "
                                        "CSV has the columns of fpforge.sweep.COLUMNS)")
            rows = []
            for line, raw in enumerate(reader, start=2):
                rows.append(_csv_row(raw, name, line))
    except (OSError, UnicodeDecodeError) as e:
        raise FpforgeValueError(f"cannot read {name!r}: {getattr(e, 'strerror', None) or e}") from None
    except csv.Error as e:
        raise FpforgeValueError(f"{name}: not a valid CSV: {e}") from None
    if not rows:
        raise FpforgeValueError(f"{name}: holds no points")
    known = {p["name"] for p in sp.points}
    alien = [r["name"] for r in rows if r["name"] not in known]
    if alien:
        raise FpforgeValueError(f"{name}: {len(alien)} point(s) not in space {sp.name!r} ({', '.join(alien[:3])}"
                                f"{', ...' if len(alien) > 3 else ''}): give the space the CSV was measured on")
    failures = [(r["name"], r["error"]) for r in rows if r.get("error")]
    return SweepResult(sp, rows, failures, dict(source=name))


def _csv_row(raw, name, line):
    row = {}
    for k, v in raw.items():
        if k is None:
            raise FpforgeValueError(f"{name} line {line}: more values than columns")
        if k not in ROW_FIELDS:  # a column no sweep writes: not part of a row (csv() writes COLUMNS)
            continue
        kind = _CSV_TYPES.get(k, str)
        if v is None:
            raise FpforgeValueError(f"{name} line {line}: fewer values than columns")
        if v == "":
            row[k] = None
        elif kind == "bool":
            if v not in ("0", "1"):
                raise FpforgeValueError(f"{name} line {line}: {k} must be 0 or 1, not {v!r}")
            row[k] = v == "1"
        else:
            try:
                row[k] = kind(v)
            except ValueError:
                raise FpforgeValueError(f"{name} line {line}: {k} must be {'an integer' if kind is int else 'a number'}"
                                        f", not {v!r}") from None
            if kind is float and not math.isfinite(row[k]) and k not in ("qsnr_db", "qsnr_p5_db"):
                raise FpforgeValueError(f"{name} line {line}: {k} must be finite, not {v!r}")
    for k in COLUMNS:  # a CSV written before a column existed (the PPA columns): read as empty
        row.setdefault(k, None)
    if not row.get("name") or row.get("bits_per_element") is None:
        raise FpforgeValueError(f"{name} line {line}: a point needs a name and its bits_per_element")
    if row.get("scale_bits_counted") is None and row.get("family") in SCALED_FAMILIES:
        row["scale_bits_counted"] = False
    return _scale_columns(row, bool(row.get("scale_bits_counted")))


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
    rows : list of Row
        One per point (:class:`~fpforge.sweep.points.Row`), in the space's order, with :data:`COLUMNS` and ``synth_s``/``synth_cpu_s`` (seconds
        the unit's synthesis took when it was computed), ``yosys`` and ``verilog_sha256``.
    failures : list of (name, message)
    stats : dict
        ``tasks``, ``cached``, ``computed``, ``failed``, ``seconds``, ``executor`` (``source``: the CSV a
        result re-read by :func:`read_csv` came from).
    """

    space: object
    rows: list
    failures: list = field(default_factory=list)
    stats: dict = field(default_factory=dict)

    @property
    def scale_bits_counted(self) -> bool:
        """True when the INT/FP8 points' per-vector FP32 scale is counted in their bits, memory and cost."""
        return any(r.get("scale_bits_counted") for r in self.rows)

    def with_scale_bits(self, counted) -> "SweepResult":
        """This result under the other (or the same) reading of the INT/FP8 scale: :func:`with_scale_bits`."""
        return SweepResult(self.space, with_scale_bits(self.rows, counted, self.space), list(self.failures), dict(self.stats))

    def row(self, name, r=None, f=None) -> dict:
        """The row of point ``name`` (in a space that sweeps r or f: the first, or the one of group ``r``, ``f``)."""
        for row in self.rows:
            g = rf_group(row, self.space)
            if row["name"] == name and r in (None, g[0]) and f in (None, g[1]):
                return row
        raise UnknownName(f"no point named {name!r} in this table" + (f" at r = {r}, f = {f}" if r or f else ""))

    def groups(self) -> list:
        """The (r, f) groups of the rows (:func:`rf_group`), in the order of the rows."""
        return list(dict.fromkeys(rf_group(row, self.space) for row in self.rows))

    def group(self, r, f) -> "SweepResult":
        """The rows of one (r, f) group, as the result of a space of that r and f."""
        rows = [row for row in self.rows if rf_group(row, self.space) == (r, f)]
        if not rows:
            raise UnknownName(f"no (r, f) group ({r}, {f}) in this table (groups: {self.groups()})")
        names = {row["name"] for row in rows}
        sp = self.space.with_(r=r, f=f) if self.space.axes else self.space
        return SweepResult(sp, rows, [x for x in self.failures if x[0].split(" (")[0] in names], dict(self.stats))

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
        return json.dumps(dict(**head, rows=[r.to_record() for r in self.rows]), indent=1, sort_keys=False, allow_nan=False,
                          default=str) + "\n"

    def write_csv(self, path):
        write_atomic(path, self.csv())

    def write_json(self, path):
        write_atomic(path, self.json())

    def summary(self) -> str:
        st = self.stats
        front = sum(1 for r in self.rows if r.get("pareto"))
        if st.get("source"):
            text = (f"sweep {self.space.name}: {len(self.rows)} points re-read from {st['source']} (nothing "
                    f"measured), {front} on the Pareto frontier, {len(self.failures)} point(s) failed"
                    + ("; INT/FP8 scale bits counted" if self.scale_bits_counted else ""))
            return text + "".join(f"\n  failed: {n}: {m}" for n, m in self.failures[:10])
        text = (f"sweep {self.space.name}: {len(self.rows)} points, {front} on the Pareto frontier; "
                f"{st.get('computed', 0)} tasks computed, {st.get('cached', 0)} from the cache, "
                f"{len(self.failures)} point(s) failed; {st.get('seconds', 0):.1f} s on {st.get('executor', '?')}")
        for name, msg in self.failures[:10]:
            text += f"\n  failed: {name}: {msg}"
        if len(self.failures) > 10:
            text += f"\n  ... and {len(self.failures) - 10} more (see the error column)"
        return text
