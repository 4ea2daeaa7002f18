"""The equivalence rows of the proof record (fpforge/equiv_record.py): the row list, the keys, one row run and
recorded (the smallest decoder's netlist), the table."""

from __future__ import annotations

import json

import pytest

from fpforge.equiv_record import _current, _rtl_digests, equiv_rows, row_key, rtl_digest, run_rows, table_markdown


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
    k = row_key(spec, kind, lib, "iprove", "src", "rtl")
    assert k == row_key(spec, kind, lib, "iprove", "src", "rtl")
    assert len({k, row_key(spec, kind, "osu018" if lib != "osu018" else "fpforge45", "iprove", "src", "rtl"),
                row_key(spec, kind, lib, "cec", "src", "rtl"), row_key(spec, kind, lib, "iprove", "other", "rtl"),
                row_key(spec, kind, lib, "iprove", "src", "other Verilog")}) == 5


def test_a_decided_row_stands_under_any_budget_an_undecided_one_until_a_larger_budget():
    proved = {"key": "k", "status": "proved", "timeout": 60.0}
    unknown = {"key": "k", "status": "unknown", "timeout": 120.0}
    assert _current(proved, "k", 600.0) and _current(proved, "k", 10.0) and not _current(proved, "other", 60.0)
    assert _current(unknown, "k", 120.0) and _current(unknown, "k", 60.0) and not _current(unknown, "k", 600.0)
    assert not _current(None, "k", 60.0) and not _current({"key": "k", "status": "unknown"}, "k", 60.0)


def test_the_section_counts_rows_of_an_earlier_key_apart():
    rows = equiv_rows()
    (a, *_), (b, *_), (c, *_) = rows[:3]
    rec = {"status": "proved", "engine": "iprove", "seconds": 1.0, "miter_ands": 10, "reason": "", "date": "d",
           "timeout": 60.0}
    recorded = {a: {"key": "ka", **rec}, b: {"key": "old", **rec}, c: {"key": "kc", **rec, "status": "unknown",
                                                                          "reason": "ABC (iprove) did not decide"}}
    table = table_markdown(recorded, keys={a: "ka", b: "kb", c: "kc"})
    assert f"| {b.split(' | ')[1]} | earlier key (then: proved) |" in table
    assert f"1 proved, 0 counterexample, 1 unknown, 1 earlier key, {len(rows) - 3} not run" in table
    assert f"1 proved, 0 counterexample, 1 unknown, {len(rows) - 2} not run" in table_markdown(
        {a: recorded[a], c: recorded[c]}, keys={a: "ka", c: "kc"})


def test_a_rows_verilog_digest_is_the_generated_verilog_and_a_stream_row_adds_its_core(tmp_path, monkeypatch):
    import hashlib

    from fpforge.hw.generate import build_unit, default_name, to_verilog
    from fpforge.sim.equiv_core import comb_spec

    monkeypatch.setenv("FPFORGE_CACHE", str(tmp_path))
    core = next(s for rid, s, kind, _ in equiv_rows() if rid.startswith("decoder format=e4m3 ") and kind == "netlist")
    stream = next(s for rid, s, kind, _ in equiv_rows() if rid.startswith("decoder format=e4m3 ") and kind == "stream")
    assert comb_spec(stream) == core
    unit = build_unit(core)
    assert rtl_digest(core) == hashlib.sha256(to_verilog(unit, default_name(unit)).encode()).hexdigest()
    assert len({rtl_digest(core), rtl_digest(stream)}) == 2
    digests = _rtl_digests([core, stream, core], progress=False)
    assert digests == {core.sha256: rtl_digest(core), stream.sha256: rtl_digest(stream)}
    assert _rtl_digests([stream], progress=False) == digests  # from the cache: nothing generated again


@pytest.mark.synth
def test_a_row_is_run_recorded_and_skipped_when_unchanged(tmp_path):
    path = tmp_path / "equiv.json"
    only = "decoder format=e4m3 target=fp32 | netlist fpforge45"
    assert sum(only in r[0] for r in equiv_rows()) == 1
    done = run_rows(only=only, path=path, timeout=60, progress=False)
    rec = json.loads(path.read_text())["data"]["rows"]
    assert list(rec) == [r[0] for r in equiv_rows() if only in r[0]] and rec == done
    row = next(iter(rec.values()))
    assert row["status"] == "proved" and row["engine"] == "iprove" and row["miter_ands"] > 0 and row["seconds"] > 0
    mtime = path.stat().st_mtime_ns
    run_rows(only=only, path=path, timeout=60, progress=False)  # same key: not run again, file untouched
    assert path.stat().st_mtime_ns == mtime
    store = json.loads(path.read_text())
    store["data"]["rows"][only]["seconds"] = -1.0  # a mark the rerun must overwrite
    path.write_text(json.dumps(store))
    again = run_rows(only=only, path=path, timeout=60, progress=False, rerun=True)  # re-measured all the same
    assert again[only]["status"] == "proved" and again[only]["key"] == row["key"] and again[only]["seconds"] > 0
    assert json.loads(path.read_text())["data"]["rows"][only]["seconds"] > 0
    table = table_markdown(path=path)
    assert f"| {only} | proved | iprove |" in table and "1 proved, 0 counterexample, 0 unknown" in table
    section = path.with_suffix(".md").read_text()  # the section beside the store, with its provenance
    assert "<!-- results:equiv -->" in section and "_Generated by `python -m fpforge.equiv_record`" in section
    assert "| decoder | netlist fpforge45 | 53 | 1 | 0 | 0 | 0 | 52 |" in section and table.rstrip("\n") in section
