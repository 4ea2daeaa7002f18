"""The sweep's typed records (fpforge.sweep.points): frozen, read as mappings, records round-trip, the FP8
baseline is the registry's E4M3 point, rows keep their column order."""

import dataclasses
import json

import pytest

from fpforge.golden.errors import FpforgeTypeError
from fpforge.sweep import point, preset_points
from fpforge.sweep.points import FP8_BASELINE, POINT_FIELDS, Point, Row
from fpforge.sweep.run import _numerics
from fpforge.sweep.table import COLUMNS, with_scale_bits


def test_points_are_frozen_records():
    p = point("bdr", m=3, k1=16, d1=8, k2=2, d2=1)
    assert isinstance(p, Point)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.m = 4
    assert tuple(p.to_record()) == POINT_FIELDS
    assert Point.from_record(p.to_record()) == p
    assert p["k2"] == p.k2 == 2 and dict(p) == p.to_record()


def test_fp8_baseline_is_the_registrys_e4m3_point():
    (e4m3,) = preset_points("e4m3")
    assert FP8_BASELINE == e4m3


def test_numerics_task_keys_the_point_without_its_name():
    class _Space:
        vectors, seed = 10, 0

    a, b = preset_points("mx6")[0], preset_points("mx6", name="other")[0]
    ta, tb = _numerics(_Space, a), _numerics(_Space, b)
    assert ta == tb and "name" not in ta["point"]
    json.dumps(ta)  # a worker's task is plain JSON
    assert ta["point"] == {k: v for k, v in a.to_record().items() if k != "name"}


def test_row_keeps_column_order_and_refuses_unknown_columns():
    row = Row.from_record(dict(name="x", family="int", bits_per_element=5.0, memory_rel=0.75, qsnr_db=20.0))
    assert list(row) == ["name", "family", "bits_per_element", "memory_rel", "qsnr_db"]
    assert "cost" not in row and row.get("cost") is None and row.cost is None
    with pytest.raises(KeyError):
        row["cost"]
    new = row.with_(cost=1.5, name="y")
    assert list(new) == [*row, "cost"] and new["name"] == "y" and row["name"] == "x"
    with pytest.raises(FpforgeTypeError, match="not a sweep row column: colour"):
        Row.from_record(dict(name="x", colour="red"))
    with pytest.raises(FpforgeTypeError, match="not a sweep row column"):
        row.with_(colour="red")
    assert set(COLUMNS) <= set(dataclasses.asdict(row))


def test_scale_bits_give_new_rows_and_leave_the_old():
    row = Row.from_record(dict(name="int5", family="int", bits_per_element=5.0, memory_rel=0.75, area_rel=0.5,
                               cost=0.375, pareto=True))
    (counted,) = with_scale_bits([row], True)
    assert isinstance(counted, Row)
    assert counted["bits_per_element"] == 5.125 and row["bits_per_element"] == 5.0
    assert counted["scale_bits_counted"] is True and "scale_bits_counted" not in row


def test_block_presets_are_the_registrys_block_formats():
    from fpforge.golden import get_format, list_formats
    from fpforge.golden.block import MXFormat
    from fpforge.sweep.space import BDR_PRESETS, OCP_PRESETS, PRESETS

    assert sorted(BDR_PRESETS + OCP_PRESETS) == sorted(list_formats("block"))
    for name in BDR_PRESETS + OCP_PRESETS:
        assert name in PRESETS
        (p,) = preset_points(name)
        assert (p.family, p.format, p.name) == ("ocp" if isinstance(get_format(name), MXFormat) else "bdr", name, name)
