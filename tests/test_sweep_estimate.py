"""``fpforge sweep SPACE --estimate`` (issue 33, item 4): the projected cold time from the cache's per-unit
timings, before running; runs nothing and writes nothing."""

from __future__ import annotations

import os

import pytest

from fpforge.cli import main
from fpforge.sweep import load_space
from fpforge.sweep import run as sweep_run
from fpforge.sweep.estimate import FALLBACK_S_PER_COST, estimate, shape_cost

#: One cheap BDR point (and the r = 2 FP8 baseline): two units, a few seconds of yosys.
ONE = """
name = "one"
[dot]
r = 2
f = 8
[qsnr]
vectors = 64
[[grid]]
m = [1]
k1 = [2]
k2 = [1]
d2 = [0]
"""


def _files(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)


@pytest.fixture
def one(tmp_path):
    path = tmp_path / "one.toml"
    path.write_text(ONE)
    return str(path)


def test_empty_cache_uses_the_builtin_calibration_and_creates_nothing(tmp_path):
    cache = tmp_path / "no-cache-yet"
    e1 = estimate("small", workers=1, cache=str(cache))
    assert not cache.exists()  # an estimate creates no cache directory
    assert e1.units and {u[3] for u in e1.units} == {"fallback"} and e1.fitted_on == 0
    assert e1.units[0][2] == pytest.approx(FALLBACK_S_PER_COST * shape_cost(8, e1.units[0][1]))
    assert e1.wall_s == pytest.approx(e1.front_s + e1.synth_s)  # one worker: everything in a row
    e2 = estimate("small", workers=2, cache=False)
    assert e2.synth_s == pytest.approx(e1.synth_s)
    assert e2.wall_s < e1.wall_s and e2.wall_s - e2.front_s >= e2.synth_s / 2 - 1e-9
    assert "6 points, 6 units to synthesize" in e1.text() and "built-in calibration" in e1.text()


def test_no_synth_estimates_qsnr_only():
    e = estimate("small", workers=1, cache=False, synth=False)
    assert e.units == [] and e.wall_s == e.front_s > 0 and "QSNR only" in e.text()


def test_cached_units_are_measured_and_other_shapes_scaled_from_them(one, tmp_path):
    cache = str(tmp_path / "cache")
    res = sweep_run(one, cache=cache, progress=False)
    assert not res.failures
    measured = res.rows[0]["synth_s"]
    est = estimate(one, workers=2, cache=cache)
    assert {u[3] for u in est.units} == {"measured"} and est.cached_units == 2 and est.remaining_s == 0
    assert measured in [u[2] for u in est.units]
    # the same point at r = 4: nothing measured; the fitted factor of the cached BDR unit (r = 2) times the shape
    # model, which is linear in r: twice the measured seconds
    est4 = estimate(load_space(one).with_(r=4), workers=2, cache=cache)
    assert est4.cached_units == 0 and est4.fitted_on == 1
    bdr = [u for u in est4.units if u[1] == 1]
    assert len(bdr) == 1 and bdr[0][3] == "modelled" and bdr[0][2] == pytest.approx(2 * measured)


def test_cli_estimate_prints_and_leaves_the_cache_alone(one, tmp_path, capsys):
    cache = tmp_path / "cache"
    assert main(["sweep", one, "--cache", str(cache), "--jobs", "0", "--no-synth"]) == 0
    before = _files(cache)
    capsys.readouterr()
    assert main(["sweep", one, "--estimate", "--cache", str(cache), "--workers", "3"]) == 0
    out = capsys.readouterr().out
    assert "estimate for sweep one (flow standard): 1 point, 2 units to synthesize" in out
    assert "projected cold time on 3 workers:" in out and "nothing was run" in out
    assert _files(cache) == before  # nothing computed, nothing cached
    assert main(["sweep", one, "--estimate", "--no-cache", "--cluster", "slurm", "--workers", "40"]) == 0
    assert "on 40 slurm worker jobs" in capsys.readouterr().out  # no sbatch needed: nothing is submitted


def test_a_cold_run_is_recorded_and_a_warm_rerun_of_the_same_results_reports_it(tmp_path):
    from fpforge.jobs import Store
    from fpforge.sweep.report import _cold_words
    from fpforge.sweep.run import _cold_run

    store, sp = Store(tmp_path / "c"), load_space("small")
    rows = [dict(name="a", r=8, f=16, qsnr_db=20.5, area_um2=1234.5), dict(name="b", r=8, f=16, qsnr_db=9.0,
                                                                           area_um2=99.0)]
    warm = dict(tasks=9, cached=9, failed=0, seconds=1.0, executor="2 local processes")
    assert _cold_run(store, sp, rows, warm, []) is None  # nothing recorded yet: a warm run records nothing
    cold = dict(warm, cached=0, seconds=754.4)
    assert _cold_run(store, sp, rows, dict(cold, failed=1), []) is None  # a failed task: not a cold run of these
    rec = _cold_run(store, sp, rows, cold, [])
    assert rec["seconds"] == 754.4 and rec["tasks"] == 9 and rec["executor"] == "2 local processes"
    assert _cold_run(store, sp, rows, warm, []) == rec  # the warm rerun of the same results reports it
    other = [dict(rows[0], area_um2=1234.6), rows[1]]
    assert _cold_run(store, sp, other, warm, []) is None  # other numbers: the record does not describe them
    assert "**12 min 34 s** wall on 2 local processes" in _cold_words(rec)


def test_durations_round_as_a_whole():
    from fpforge.sweep.estimate import format_duration

    assert [format_duration(s) for s in (12.34, 59.96, 119.6, 2086.9, 3599.6, 6330.0)] == [
        "12.3 s", "1 min 00 s", "2 min 00 s", "34 min 47 s", "1 h 00 min", "1 h 46 min"]
