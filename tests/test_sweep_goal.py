"""The sweep's mapping goal (``[synth] goal``, ``fpforge sweep --goal``; docs/synth.md, "Mapping goal").

An area-only sweep maps for area by default (the MX paper's method: ``&nf -R 1000``), a PPA sweep for delay
(its clock-driven mapping), an own ``abc_script`` decides by itself; the task carries the goal and the key its
script, so the cache key of an area-goal unit differs from fpforge synth's (and the area tables'). One real
sweep checks that the sweep's area is ``fpforge synth --goal area``'s for the same unit.
"""

from __future__ import annotations

import pytest

from fpforge.cli import main
from fpforge.golden.errors import FpforgeTypeError, FpforgeValueError
from fpforge.sweep import load_space, run
from fpforge.sweep.evaluate import area_key, unit_spec
from fpforge.sweep.run import _area
from fpforge.sweep.space import from_dict
from fpforge.synth.flow import AREA_ABC_SCRIPT, DEFAULT_ABC_SCRIPT, FAST_AREA_ABC_SCRIPT

from helpers import TINY

_MADE = dict(verilog_sha256="0" * 64, top="t")


def _key(space, p):
    task = _area(space, unit_spec(p, space.rs[0], space.fs[0]))
    return task, area_key(dict(task, **_MADE))


def test_area_only_sweeps_map_for_area_and_ppa_sweeps_for_delay():
    sp = load_space("paper")
    assert sp.goal == "area"
    p = sp.points[0]
    for flow, script in (("reuse", AREA_ABC_SCRIPT), ("standard", AREA_ABC_SCRIPT), ("fast", FAST_AREA_ABC_SCRIPT)):
        task, key = _key(sp.with_(flow=flow), p)
        assert task["goal"] == "area" and key["abc"] == script, flow
    # delay: the task and its key are fpforge synth's (and the area tables'), byte for byte as before the goal
    task, key = _key(sp.with_(flow="standard", goal="delay"), p)
    assert task["abc_script"] is None and "goal" not in task and key["abc"] == DEFAULT_ABC_SCRIPT and "goal" not in key
    ppa = sp.with_(flow="standard", ppa=True, clock_ns=10.0)
    assert ppa.goal == "delay"
    task, key = _key(ppa, p)
    assert "goal" not in task and "goal" not in key
    task, key2 = _key(ppa.with_(goal="area"), p)  # the least area meeting the clock: a key of its own
    assert task["goal"] == "area" and key2 == dict(key, abc=AREA_ABC_SCRIPT)
    own = sp.with_(abc_script="strash; map")
    assert own.goal is None and _key(own, p)[0]["abc_script"] == "strash; map"


@pytest.mark.parametrize("goal, error, message", [
    ("Area", ValueError, "[synth] goal: 'Area' is spelled 'area'"),
    ("size", ValueError, "[synth] goal: unknown goal 'size' (valid: area, delay)"),
    (5, FpforgeTypeError, "[synth] goal: must be a name, not 5 (an integer) (valid: area, delay)"),
])
def test_a_bad_goal_in_a_space_file_is_one_error(goal, error, message):
    data = {"name": "g", "dot": {"r": 2, "f": 8}, "synth": {"goal": goal}, "points": [{"family": "int", "m": 2}]}
    with pytest.raises(error) as e:
        from_dict(data, "g.toml: ")
    assert message in str(e.value) and "\n" not in str(e.value)


def test_goal_and_an_own_script_are_not_both_given():
    data = {"name": "g", "dot": {"r": 2, "f": 8}, "synth": {"goal": "area", "abc_script": "strash; map"},
            "points": [{"family": "int", "m": 2}]}
    with pytest.raises(FpforgeValueError, match=r"\[synth\] goal: an abc_script decides the mapping itself "
                                                r"\(valid: goal or abc_script, not both\)"):
        from_dict(data, "g.toml: ")
    assert from_dict(dict(data, synth={"goal": "delay"})).goal == "delay"


@pytest.mark.parametrize("argv, message", [
    (["sweep", "small", "--goal", "size"], "unknown --goal 'size'; valid: area, delay"),
    (["sweep", "area-fp8", "--goal", "area"], "--goal and --count-scale-bits apply to dot-product spaces"),
    (["sweep", "paper", "--from-csv", "x.csv", "--goal", "area"], "--goal"),
])
def test_cli_bad_goal_is_one_line_exit_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.csv").write_text("name\n")
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fpforge") and message in err and "\n" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.csv"]


@pytest.mark.synth
def test_a_sweeps_area_is_synthesize_goal_area(tmp_path):
    from fpforge.hw import build_unit, default_name, to_verilog
    from fpforge.synth import synthesize

    sp = load_space(_write(tmp_path, TINY)).with_(flow="standard")
    p = sp.points[0]  # BDR(1, 2, 8, 1, 0)
    res = run(type(sp)(sp.name, [p], r=sp.r, f=sp.f, vectors=sp.vectors), cache=tmp_path / "c")
    row = next(r for r in res.rows if r["name"] == p["name"])
    unit = build_unit(unit_spec(p, sp.rs[0], sp.fs[0]))
    rep = synthesize(to_verilog(unit, default_name(unit)), default_name(unit), goal="area")
    assert rep["goal"] == "area" and row["area_um2"] == rep["area_um2"]


def _write(tmp_path, text):
    path = tmp_path / "space.toml"
    path.write_text(text)
    return path
