"""fpforge.sweep: spaces and their TOML schema, QSNR against Theorem 1's bound and an independent INT
quantizer, memory and Pareto rules, and tiny real sweeps (yosys) locally and on a 2-worker Dask
LocalCluster on 127.0.0.1 — identical bit for bit — with a killed worker, a corrupt cache and failures."""

import csv
import math
import os
import signal
import threading
import time

import numpy as np
import pytest

from fpforge.cli import main
from fpforge.golden.errors import FpforgeValueError, UnknownName
from fpforge.golden.qsnr import gaussian_vectors, qsnr_bound, qsnr_table
from fpforge.jobs import Store, executor
from fpforge.sweep import SPACES, Space, load_space, memory_rel, pareto, point, preset_points, run
from fpforge.sweep.evaluate import numerics_task, quantize_int

from helpers import TINY

ISSUE_TOML = """
name = "small"
[dot]
r = 16
f = 24
[[grid]]
family = "bdr"
m  = [2, 4]
k1 = [16]
d1 = [8]
k2 = [2, 16]
d2 = [0, 1]
[[points]]
preset = "fp8"
"""


def _space(tmp_path, text, name="space.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_issue_schema_expands_the_grid(tmp_path):
    sp = load_space(_space(tmp_path, ISSUE_TOML))
    names = [p["name"] for p in sp.points]
    # d2 = 0 makes k2 = k1 (one BFP point per m), k2 = k1 with d2 = 1 is skipped, presets keep their names.
    assert names == ["bdr_m2_k16_d8_k16_d0", "mx4", "bdr_m4_k16_d8_k16_d0", "mx6", "e4m3", "e5m2"]
    assert (sp.r, sp.f, sp.vectors, sp.seed) == (16, 24, 10_000, 0)
    mx6 = sp.points[3]
    assert mx6["bits_per_element"] == pytest.approx(4 + 1 + 8 / 16 + 1 / 2)


def test_paper_space_spans_the_papers_design_space():
    sp = SPACES["paper"]()
    assert len(sp.points) >= 800
    names = {p["name"] for p in sp.points}
    for n in ("mx9", "mx6", "mx4", "msfp12", "msfp16", "e4m3", "e5m2", "mxfp8_e4m3", "mxint8", "int8"):
        assert n in names
    for m in (7, 4, 2):  # every pair the claims compare
        for k2, d2 in ((2, 2), (8, 1), (1, 1)):
            assert f"bdr_m{m}_k16_d8_k{k2}_d{d2}" in names
    assert sp.r_of(next(p for p in sp.points if p["k1"] == 32)) == 32


@pytest.mark.parametrize("text, message", [
    ('name = "x"\n[dot]\nr = 16\nf = 300\n[[points]]\npreset = "mx9"\n', "[dot] f: 300 is out of range (valid: an integer 8..256"),
    ('name = "x"\n[dot]\nr = 16\n[[points]]\npreset = "mx10"\n', "unknown sweep preset 'mx10'"),
    ('name = "x"\n[dot]\nr = 16\n[[grid]]\nm = [2]\nk1 = 16\nk2 = 2\nd2 = 1\nq = 3\n', "[[grid]] #1 q: unknown key"),
    ('name = "x"\n[dot]\nf = 16\n[[points]]\npreset = "mx9"\n', "[dot] r: missing"),
    ('name = "x"\n[dot]\nr = 16\n', "has no points"),
    ('name = "x"\n[dot\n', "not valid TOML"),
])
def test_bad_spaces_are_one_line_errors(tmp_path, text, message):
    with pytest.raises((FpforgeValueError, UnknownName)) as info:
        load_space(_space(tmp_path, text))
    assert message in str(info.value) and "\n" not in str(info.value)


def test_qsnr_matches_golden_and_respects_theorem_1():
    x = gaussian_vectors(300, 256, 5)
    golden = {r["name"]: r["mean"] for r in qsnr_table(["mx9", "mx4", "e4m3"], n_vectors=300, seed=5)}
    for name in ("mx9", "mx4", "e4m3"):
        (p,) = preset_points(name)
        out = numerics_task(dict(point=p, vectors=300, seed=5))
        assert out["qsnr_db"] == pytest.approx(golden[name], abs=1e-9)
    for p in (point(m=3, k1=8, k2=2, d2=2), point(m=5, k1=32, k2=4, d2=1)):
        out = numerics_task(dict(point=p, vectors=300, seed=5))
        assert out["qsnr_p5_db"] >= qsnr_bound(p["format"]) - 1e-9  # every vector is above the bound
    del x


def test_int_quantizer_against_an_independent_round_and_clip():
    x = gaussian_vectors(50, 256, 1)
    for m in (1, 3, 7):
        s = np.abs(x.astype(np.float64)).max(axis=1, keepdims=True) / (2**m - 1)
        ref = np.clip(np.round(x / s), -(2**m - 1), 2**m - 1) * s  # half-even: ties have probability ~0 here
        np.testing.assert_allclose(quantize_int(x, m), ref, rtol=0, atol=1e-12)


def test_memory_follows_the_papers_bits():
    assert [memory_rel(b) for b in (8, 9, 6, 4)] == [1.0, 1.25, 0.75, 0.5]
    assert memory_rel(9.0625) == 1.25 and memory_rel(8.0625) == 1.25  # one more 64-byte access


def test_pareto_rule():
    rows = [dict(cost=1.0, qsnr_db=30), dict(cost=0.5, qsnr_db=30), dict(cost=0.5, qsnr_db=20),
            dict(cost=2.0, qsnr_db=31), dict(cost=None, qsnr_db=50), dict(cost=0.25, qsnr_db=10),
            dict(cost=3.0, qsnr_db=31.005), dict(cost=4.0, qsnr_db=31.02)]
    # equal QSNR at a higher cost, or less than 0.01 dB more, is not a step of the frontier
    assert pareto(rows) == [False, True, False, True, None, True, False, True]
    assert pareto(rows, tol=0) == [False, True, False, True, None, True, True, True]  # the strict rule
    for bad, err in (("0.01", TypeError), (True, TypeError), (-0.01, ValueError), (float("nan"), ValueError)):
        with pytest.raises(err, match="tol must be"):
            pareto(rows, tol=bad)


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as c:
        yield c


@pytest.mark.synth
def test_local_and_dask_sweeps_are_identical(tmp_path, cluster):
    sp = load_space(_space(tmp_path, TINY))
    local = run(sp, cache=tmp_path / "local")  # in this process (local pools: tests/test_jobs.py)
    with executor(scheduler=cluster.scheduler_address) as ex:
        dask = run(sp, executor=ex, cache=tmp_path / "dask")
    assert local.csv() == dask.csv()
    assert not local.failures and local.stats["computed"] == 9  # 3 numerics, 3 units generated and synthesized
    e4 = local.row("e4m3")
    assert e4["area_rel"] == 1.0 and e4["cost"] == 1.0 and e4["pareto"] is True
    bfp = local.row("bdr_m1_k2_d8_k2_d0")
    assert 0 < bfp["area_um2"] < e4["area_um2"] and bfp["flip_flops"] > 0
    # A warm rerun reads everything from the cache and gives the same table.
    again = run(sp, cache=tmp_path / "local")
    assert again.csv() == local.csv() and again.stats["computed"] == 0


@pytest.mark.slow  # (make regress: ~20 s; make test keeps the local pool's killed-worker test, tests/test_jobs.py)
@pytest.mark.synth
def test_killed_dask_worker_loses_and_duplicates_nothing(tmp_path, cluster):
    sp = load_space(_space(tmp_path, TINY))
    store = Store(tmp_path / "c")
    pids = [w.process.process.pid for w in cluster.workers.values()]

    def kill_when_busy():  # as soon as the workers run tasks
        for _ in range(1200):
            if any(ws.processing for ws in cluster.scheduler.workers.values()):
                break
            time.sleep(0.025)
        time.sleep(0.3)
        os.kill(pids[0], signal.SIGKILL)

    killer = threading.Thread(target=kill_when_busy)
    with executor(scheduler=cluster.scheduler_address) as ex:
        killer.start()
        res = run(sp, executor=ex, cache=store)
    killer.join()
    assert not res.failures, res.failures
    assert len(res.rows) == 3 and len(store) == 9 and store.corrupt == 0  # 3 numerics + 3 units x 2, once each
    assert all(run(sp, cache=store).row(r["name"]) == r for r in res.rows)  # and all of them cached


def test_corrupt_cache_entry_is_recomputed(tmp_path):
    sp = load_space(_space(tmp_path, TINY))
    first = run(sp, cache=tmp_path / "c", synth=False)
    store = Store(tmp_path / "c")
    victim = store.path(store.keys()[0])
    victim.write_text(victim.read_text()[:40])
    second = run(sp, cache=store, synth=False)
    assert second.csv() == first.csv()
    assert store.corrupt == 1 and second.stats["computed"] == 1


def test_failed_points_are_recorded_and_the_sweep_goes_on(tmp_path, capsys):
    (tmp_path / "bad.lib").write_text("library (bad) {\n  cell (X) {\n")  # unterminated: every synthesis fails
    bad = _space(tmp_path, TINY + '[synth]\nliberty = "bad.lib"\n')
    code = main(["sweep", str(bad), "--jobs", "0", "--cache", str(tmp_path / "c"), "-o", str(tmp_path / "r.csv")])
    out = capsys.readouterr().out
    assert code == 1
    assert "3 point(s) failed" in out
    rows = list(csv.DictReader(open(tmp_path / "r.csv")))
    assert len(rows) == 3
    for r in rows:  # the QSNR is there, the area is not, the error says why
        assert r["error"].startswith("synthesis: ") and "malformed liberty bad.lib" in r["error"]
        assert math.isfinite(float(r["qsnr_db"])) and r["area_um2"] == "" and r["pareto"] == ""


@pytest.mark.parametrize("argv, message", [
    (["sweep", "nope"], "unknown space 'nope'"),
    (["sweep", "small", "--plot", "fig.pdf"], "--plot must end in .png or .svg"),
    (["sweep", "small", "--jobs", "2", "--scheduler", "tcp://127.0.0.1:1"], "not allowed with argument"),
    (["sweep", "small", "--vectors", "0"], "--vectors must be >= 1"),
    (["sweep", "small", "-o", "/no/such/dir/r.csv"], "does not exist"),
    (["sweep", "small", "--no-synth", "--claims"], "need areas"),
    (["sweep", "area-fp8", "--vectors", "5"], "is an area table"),
])
def test_cli_errors_are_one_line_exit_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fpforge") and message in err and "\n" not in err
    assert list(tmp_path.iterdir()) == []


def test_space_object_validates_its_arguments():
    with pytest.raises(FpforgeValueError, match=r"\[dot\] r: 0 is out of range \(valid: an integer 1..1048576"):
        Space("x", preset_points("mx9"), r=0)
    with pytest.raises(FpforgeValueError, match="is also the name of a different point"):
        Space("x", [point(m=2, k1=4, name="a"), point(m=3, k1=4, name="a")])


def test_area_spaces_hold_valid_units():
    from fpforge.golden.formats import FloatFormat
    from fpforge.sweep.area import AREA_SPACES, resolve_format

    counts = {name: len(make().units()) for name, make in AREA_SPACES.items()}
    assert all(n >= 16 for n in counts.values()), counts
    cf = AREA_SPACES["area-cfloat"]()
    fixed = resolve_format(dict(name="cfloat8_143", at=7, **{"with": {"denormals": "ieee"}}))
    assert isinstance(fixed, FloatFormat) and not fixed.runtime_bias and fixed.bias == 7
    assert any(c is None for _, cfgs in cf.tables[0].rows for c in cfgs)  # modes a format lacks: "–"


@pytest.mark.synth
def test_area_table_cell_equals_fpforge_synth(tmp_path, capsys):
    import json

    from fpforge.sweep.area import AreaSpace, Table, run_area

    unit = dict(unit="decoder", format="e4m3", target="fp32")
    sp = AreaSpace("area-test", "test", "", [Table(["unit", "e4m3"], [("decoder F→fp32", [unit])])])
    table = run_area(sp, cache=tmp_path / "c")
    assert main(["synth", "decoder", "--format", "e4m3", "--target", "fp32", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    cell = f"{rep['area_um2']:,.1f} µm² / {rep['ge']:,.0f} GE / d{rep['logic_depth']}"
    assert f"| decoder F→fp32 | {cell} |" in table.markdown()
    assert "e4m3" in table.csv() and not table.failures


def test_auto_f_is_the_smallest_window_with_99_percent_exact(tmp_path):
    from fpforge.golden.dot import DotConfig, dot, dot_exact, quantized_operands

    sp = load_space(_space(tmp_path, 'name = "auto"\n[dot]\nr = 16\nf = "auto"\n[qsnr]\nvectors = 200\n'
                                    '[[points]]\npreset = "mx6"\n'))
    res = run(sp, cache=False, synth=False)
    f = res.row("mx6")["f"]
    # Independently: the same data, the exact fraction at f and at f - 1.
    rows = gaussian_vectors(200, 256, 0).reshape(-1, 16)
    xa, xb = rows[0::2], rows[1::2]
    cfg = DotConfig("mx6", 16, 8)
    a, b = quantized_operands(cfg, xa), quantized_operands(cfg, xb, side="b")
    exact = dot_exact(cfg, a, None, b).y

    def frac(width):
        return float((dot(DotConfig("mx6", 16, width), a, None, b).y == exact).mean())

    assert frac(f) >= 0.99 and frac(f - 1) < 0.99


def test_the_reuse_flow_keys_its_own_cache_entries_and_the_paper_spaces_use_lean(tmp_path):
    from fpforge.sweep.evaluate import area_key, unit_spec
    from fpforge.sweep.run import _area
    from fpforge.synth.flow import REUSE_RULE

    assert SPACES["paper"]().flow == SPACES["paper-sample"]().flow == SPACES["paper-rf"]().flow == "lean"
    sp = load_space(_space(tmp_path, TINY + '[synth]\nflow = "reuse"\n'))
    assert sp.flow == "reuse"
    unit = unit_spec(sp.points[0], sp.r, sp.f)
    reuse, std = _area(sp, unit), _area(sp.with_(flow="standard"), unit)
    assert reuse["reuse"] is True and "reuse" not in std  # the standard flow: no reuse in its key
    made = dict(verilog_sha256="0" * 64, top="t")
    assert area_key(dict(reuse, **made)) == dict(area_key(dict(std, **made)), reuse=REUSE_RULE)


def test_a_task_units_remembered_spec_key_is_the_specs_own():
    """The Verilog key of a task made by task_unit (spec hash remembered, not rebuilt) is the one a fresh
    process computes from the unit's JSON form."""
    import importlib

    from fpforge.hw.spec import UnitSpec

    ev = importlib.import_module("fpforge.sweep.evaluate")
    for p in [*preset_points("mx9"), *preset_points("fp8"), *preset_points("hif8"), point("int", m=3),
              point(m=5, k1=16, k2=4, d2=2)]:
        unit = ev.task_unit(ev.unit_spec(p, 16, 24))
        remembered = ev.verilog_key(dict(kind="verilog", unit=unit))
        ev._SPEC_KEYS.clear()
        rebuilt = ev.verilog_key(dict(kind="verilog", unit=unit))
        assert remembered == rebuilt and remembered["spec"] == UnitSpec.from_dict(unit).sha256
