"""The sweep's typed records: a design :class:`Point`, a result :class:`Row` and the :data:`FP8_BASELINE`.

Both are frozen dataclasses. They also read like the mappings they replace (``p["m"]``, ``row.get("cost")``,
``dict(row)``), so a table, a plot or a claim reads a column by its CSV name; they are never changed in place
(:meth:`Row.with_` makes the next one). :meth:`Point.to_record` and :meth:`Row.to_record` give the JSON/CSV
form; the cache keys hold a point's record without its name (:meth:`Point.numerics_record`), exactly the
dict the sweep keyed its numerics by before the types existed, so a warm cache stays warm.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..golden.errors import FpforgeTypeError

__all__ = ["FP8_BASELINE", "POINT_FIELDS", "ROW_FIELDS", "Point", "Row"]


class _Record(Mapping):
    """Read-only mapping over a record's present fields (its CSV/JSON columns)."""

    __slots__ = ()

    def _present(self) -> tuple:
        raise NotImplementedError

    def __getitem__(self, key):
        if key not in self._present():
            raise KeyError(key)  # not user input: the Mapping protocol (dict-style reads of a record's columns)
        return getattr(self, key)

    def __iter__(self):
        return iter(self._present())

    def __len__(self):
        return len(self._present())

    def __contains__(self, key):
        return key in self._present()

    def to_record(self) -> dict:
        """The record as a plain dict (its JSON form), fields in their column order."""
        return {k: getattr(self, k) for k in self._present()}


@dataclass(frozen=True, eq=False)
class Point(_Record):
    """One design point: a format on a family's unit (see :mod:`fpforge.sweep.space`). ``d1`` is None for the
    scalar FP formats (no shared exponent); ``format`` is the registry name (or ``intN``)."""

    name: str
    family: str
    m: int
    k1: int
    d1: int | None
    k2: int
    d2: int
    format: str
    bits_per_element: float

    def _present(self) -> tuple:
        return POINT_FIELDS

    def numerics_record(self) -> dict:
        """The record without the name (the name does not change the numbers): a numerics task's point."""
        return {k: getattr(self, k) for k in POINT_FIELDS if k != "name"}

    def renamed(self, name) -> "Point":
        return dataclasses.replace(self, name=name)

    @classmethod
    def from_record(cls, record) -> "Point":
        """A point from its record (a dict with :data:`POINT_FIELDS`, or a Point)."""
        if isinstance(record, Point):
            return record
        if not isinstance(record, Mapping) or not set(POINT_FIELDS) <= set(record):
            raise FpforgeTypeError(f"a sweep point needs the fields {', '.join(POINT_FIELDS)}, not {record!r}"[:300])
        return cls(**{k: record[k] for k in POINT_FIELDS})


POINT_FIELDS = tuple(f.name for f in dataclasses.fields(Point))

#: The FP8 unit every area is relative to (at the same r and f): E4M3 operands on the paper's configurable
#: FP8 unit (the E5M2 mode shares it).
FP8_BASELINE = Point(name="e4m3", family="fp", m=3, k1=1, d1=None, k2=1, d2=4, format="e4m3", bits_per_element=8.0)


@dataclass(frozen=True, eq=False)
class Row(_Record):
    """One result row: the point at its r and f, its QSNR, area, memory, cost, frontier and PPA columns
    (:data:`fpforge.sweep.table.COLUMNS`, plus ``synth_s``, ``synth_cpu_s``, ``yosys``, ``verilog_sha256``,
    ``fp8_delay_ns`` and ``fp8_energy_pj``). A column the row was not given (a failed point's QSNR, the PPA
    columns of a sweep without PPA) is absent from its record and None as an attribute; ``keys`` says which
    are present, in the order the row was built (the JSON's order)."""

    name: str
    family: str | None = None
    m: int | None = None
    k1: int | None = None
    d1: int | None = None
    k2: int | None = None
    d2: int | None = None
    r: int | None = None
    f: int | str | None = None
    bits_per_element: float | None = None
    memory_rel: float | None = None
    qsnr_db: float | None = None
    qsnr_p5_db: float | None = None
    area_um2: float | None = None
    ge: float | None = None
    cell_count: int | None = None
    flip_flops: int | None = None
    logic_depth: int | None = None
    synth_s: float | None = None
    synth_cpu_s: float | None = None
    yosys: str | None = None
    verilog_sha256: str | None = None
    fp8_area_um2: float | None = None
    area_rel: float | None = None
    delay_ns: float | None = None
    slack_ns: float | None = None
    power_mw: float | None = None
    energy_pj: float | None = None
    fp8_delay_ns: float | None = None
    fp8_energy_pj: float | None = None
    energy_rel: float | None = None
    cost: float | None = None
    error: str | None = None
    pareto: bool | None = None
    qsnr_scale: str | None = None
    scale_bits_counted: bool | None = None
    #: The columns the row holds, in order (not a column itself).
    columns: tuple = field(default=(), repr=False, compare=False)

    def _present(self) -> tuple:
        return self.columns

    @classmethod
    def from_record(cls, record) -> "Row":
        """A row from its record (a dict of columns); a key that is no column of a row is refused."""
        if isinstance(record, Row):
            return record
        unknown = [k for k in record if k not in ROW_FIELDS]
        if unknown:
            raise FpforgeTypeError(f"not a sweep row column: {', '.join(map(str, unknown))} (valid: "
                                   f"{', '.join(ROW_FIELDS)})")
        return cls(**record, columns=tuple(record))

    def with_(self, **changes) -> "Row":
        """This row with ``changes`` (new columns join at the end, as a dict's new keys do)."""
        unknown = [k for k in changes if k not in ROW_FIELDS]
        if unknown:
            raise FpforgeTypeError(f"not a sweep row column: {', '.join(unknown)}")
        cols = self.columns + tuple(k for k in changes if k not in self.columns)
        return dataclasses.replace(self, **changes, columns=cols)


ROW_FIELDS = tuple(f.name for f in dataclasses.fields(Row) if f.name != "columns")
