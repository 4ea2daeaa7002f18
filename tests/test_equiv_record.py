"""The equivalence rows of the proof record (fpforge/equiv_record.py): the row list, the keys, one row run and
recorded (the smallest decoder's netlist), the table."""

from __future__ import annotations

import json

import pytest

from fpforge.equiv_record import equiv_rows, row_key, run_rows, table_markdown


def test_rows_cover_every_kind_and_library():
    rows = equiv_rows()
    ids = [r[0] for r in rows]
    assert len(ids) == len(set(ids))
    units = {spec.unit for _, spec, _, _ in rows}
    assert units == {"encoder", "decoder", "block-encoder", "block-decoder", "dot"}
    netlist = [(spec, lib) for _, spec, kind, lib in rows if kind == "netlist"]
    assert {lib for _, lib in netlist} == {"fpforge45", "osu018"}
    # every netlist row is a combinational core, and has its twin on the other library
    assert all((getattr(s, "latency", 0) or getattr(s, "stages", 0)) == 0 for s, _ in netlist)
    assert sum(lib == "fpforge45" for _, lib in netlist) == sum(lib == "osu018" for _, lib in netlist)
    dots = [s for s, _ in netlist if s.unit == "dot"]
    assert dots and max(s.r for s in dots) == 16 and not any(s.io_registers for s in dots)
    depths = {(s.unit == "dot", getattr(s, "stages", None) or getattr(s, "latency", None))
              for _, s, kind, _ in rows if kind == "stream"}
    assert depths == {(False, 1), (False, 2), (True, 1), (True, 2)}


def test_row_key_follows_what_the_row_depends_on():
    _, spec, kind, lib = equiv_rows()[0]
    k = row_key(spec, kind, lib, "iprove", 600.0, "src")
    assert k == row_key(spec, kind, lib, "iprove", 600.0, "src")
    assert len({k, row_key(spec, kind, "osu018" if lib != "osu018" else "fpforge45", "iprove", 600.0, "src"),
                row_key(spec, kind, lib, "cec", 600.0, "src"), row_key(spec, kind, lib, "iprove", 60.0, "src"),
                row_key(spec, kind, lib, "iprove", 600.0, "other")}) == 5


@pytest.mark.synth
def test_a_row_is_run_recorded_and_skipped_when_unchanged(tmp_path):
    path = tmp_path / "equiv.json"
    only = "decoder format=e4m3 target=fp32 | netlist fpforge45"
    assert sum(only in r[0] for r in equiv_rows()) == 1
    done = run_rows(only=only, path=path, timeout=60, progress=False)
    rec = json.loads(path.read_text())["rows"]
    assert list(rec) == [r[0] for r in equiv_rows() if only in r[0]] and rec == done
    row = next(iter(rec.values()))
    assert row["status"] == "proved" and row["engine"] == "iprove" and row["miter_ands"] > 0 and row["seconds"] > 0
    mtime = path.stat().st_mtime_ns
    run_rows(only=only, path=path, timeout=60, progress=False)  # same key: not run again, file untouched
    assert path.stat().st_mtime_ns == mtime
    table = table_markdown(path=path)
    assert f"| {only} | proved | iprove |" in table and "1 proved, 0 counterexample, 0 unknown" in table
