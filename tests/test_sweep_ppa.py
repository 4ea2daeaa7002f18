"""``fpforge sweep --ppa``: delay, slack, power and energy per unit at a clock on osu018 (issue 28, item 3).

A two-point space at r = 4 (E4M3 and an INT-like point), synthesized for a clock on the OSU 0.18 um cells and
timed by OpenSTA (a few seconds). Skipped, with the reason, without OpenSTA or the osu018 cells (make tech).
"""

from __future__ import annotations

import csv
import io

import pytest

from fpforge.cli import main
from fpforge.sweep import Space, preset_points, read_csv
from fpforge.sweep import run as sweep_run
from fpforge.sweep.table import COLUMNS, cost_of, pareto
from fpforge.synth.tech import resolve_liberty

from helpers import ppa_missing

pytestmark = [pytest.mark.synth, pytest.mark.skipif(ppa_missing() is not None, reason=str(ppa_missing()))]

PPA = ("delay_ns", "slack_ns", "power_mw", "energy_pj", "energy_rel")


def _space(**kw):
    from fpforge.sweep.space import point

    pts = preset_points("e4m3") + [point("int", m=3)]
    return Space("pp", pts, r=4, f=16, vectors=200, liberty=str(resolve_liberty("osu018")), **kw)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return str(tmp_path_factory.mktemp("ppa-cache"))


def test_ppa_columns_and_fp8_baseline(store):
    res = sweep_run(_space(ppa=True, clock_ns=5.0), cache=store, progress=False)
    assert not res.failures
    e4, i4 = res.row("e4m3"), res.row("int4")
    for row in (e4, i4):
        for c in PPA:
            assert isinstance(row[c], float), (c, row)
        assert row["delay_ns"] > 0 and row["power_mw"] > 0 and row["energy_pj"] > 0
        assert row["slack_ns"] == pytest.approx(5.0 - row["delay_ns"], abs=1e-3)
        assert row["energy_pj"] == pytest.approx(row["power_mw"] * 5.0, rel=1e-3)  # one dot product per cycle
    assert e4["energy_rel"] == 1.0 and e4["area_rel"] == 1.0  # the FP8 unit is its own baseline
    assert i4["energy_rel"] == pytest.approx(i4["energy_pj"] / e4["energy_pj"])
    assert i4["cost"] == pytest.approx(i4["area_rel"] * i4["memory_rel"])  # default: area-memory
    text = res.csv()
    header = next(csv.reader(io.StringIO(text)))
    assert list(header) == list(COLUMNS) and set(PPA) <= set(header)
    back = list(csv.DictReader(io.StringIO(text)))
    assert float(back[0]["energy_rel"]) == 1.0 and back[1]["delay_ns"] != ""


@pytest.mark.parametrize("cost", ["energy-memory", "area-delay"])
def test_cost_choice_sets_cost_and_pareto(store, cost):
    sweep_run(_space(ppa=True, clock_ns=5.0), cache=store, progress=False)  # measured here if no test did yet
    res = sweep_run(_space(ppa=True, clock_ns=5.0, cost=cost), cache=store, progress=False)
    assert res.stats["computed"] == 0  # the cost is a reading of the same cached measurements
    e4, i4 = res.row("e4m3"), res.row("int4")
    if cost == "energy-memory":
        assert i4["cost"] == pytest.approx(i4["energy_rel"] * i4["memory_rel"])
    else:
        assert i4["cost"] == pytest.approx(i4["area_rel"] * i4["delay_ns"] / e4["delay_ns"])
    assert e4["cost"] == pytest.approx(1.0)
    assert [r["pareto"] for r in res.rows] == pareto(res.rows)
    assert [r["cost"] for r in res.rows] == [cost_of(r, cost) for r in res.rows]


def test_without_ppa_columns_empty_and_clock_in_key(store, tmp_path):
    res = sweep_run(_space(), cache=store, progress=False)
    assert all(res.row(n).get(c) is None for n in ("e4m3", "int4") for c in PPA)
    # another clock is another measurement (the key holds the clock), the Verilog is reused
    res2 = sweep_run(_space(ppa=True, clock_ns=7.0), cache=store, progress=False)
    assert res2.stats["computed"] == 2 and res2.row("e4m3")["slack_ns"] == pytest.approx(
        7.0 - res2.row("e4m3")["delay_ns"], abs=1e-3)
    out = tmp_path / "s.csv"
    res.write_csv(out)
    assert all(read_csv(out, _space()).row(n).get("energy_rel") is None for n in ("e4m3", "int4"))


def test_cli_ppa_cost_and_plot_label(store, tmp_path, capsys):
    toml = tmp_path / "pp.toml"
    toml.write_text('name = "pp"\n[dot]\nr = 4\nf = 16\n[qsnr]\nvectors = 200\n[[points]]\npreset = "e4m3"\n'
                    '[[points]]\nfamily = "int"\nm = 3\n[synth]\nppa = true\nclock_ns = 5.0\n')
    out, svg = tmp_path / "o.csv", tmp_path / "o.svg"
    assert main(["sweep", str(toml), "--liberty", "osu018", "--cost", "energy-memory", "-j", "0", "--cache", store,
                 "-o", str(out), "--plot", str(svg)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert [float(r["energy_rel"]) for r in rows][0] == 1.0
    assert float(rows[1]["cost"]) == pytest.approx(float(rows[1]["energy_rel"]) * float(rows[1]["memory_rel"]),
                                                   rel=1e-5)
    assert "energy per dot product × memory" in svg.read_text()
