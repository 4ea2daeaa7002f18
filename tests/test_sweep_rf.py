"""r and f as sweep axes (issue 33, item 2): ``[dot] r``/``f`` lists and ``--r``/``--f`` multiply the points,
one row per (point, r, f) with the FP8 baseline at that r and f, a Pareto frontier per (r, f) group, the
figure faceted by r or f, the built-in ``paper-rf`` space. Nothing is synthesized here (``synth=False`` or
synthetic rows); bad inputs are in tests/bad_inputs.py (``_RF_CASES``)."""

import math

import pytest

from fpforge.cli import main
from fpforge.golden.errors import FpforgeValueError
from fpforge.sweep import SweepResult, load_space, preset_points, read_csv, run
from fpforge.sweep.plot import check_facet, pareto_figure
from fpforge.sweep.run import _FP8, _unit_tasks
from fpforge.sweep.space import Space
from fpforge.sweep.spaces import PAPER_RF_F, PAPER_RF_R, paper
from fpforge.sweep.table import pareto_groups

SPACE = 'name = "rf"\n[dot]\nr = [8, 16]\nf = [16, 24, 32]\n[qsnr]\nvectors = 50\n' \
        '[[points]]\npreset = "mx4"\n[[points]]\npreset = "e4m3"\n[[points]]\npreset = "int4"\n' \
        '[[points]]\nm = 2\nk1 = 32\nk2 = 2\nd2 = 1\n'


def _space(tmp_path, text=SPACE):
    path = tmp_path / "rf.toml"
    path.write_text(text)
    return load_space(str(path))


def test_lists_multiply_the_points(tmp_path):
    sp = _space(tmp_path)
    assert (sp.rs, sp.fs, sp.axes) == ((8, 16), (16, 24, 32), ("r", "f"))
    cells = sp.cells()
    # mx4 (k1 = 16) runs at r = 16 for both r = 8 and 16: one unit per f; the k1 = 32 point at r = 32 likewise
    by_name = {}
    for p, r, f in cells:
        by_name.setdefault(p["name"], set()).add((r, f))
    assert by_name["e4m3"] == {(r, f) for r in (8, 16) for f in (16, 24, 32)}
    assert by_name["int4"] == by_name["e4m3"]
    assert by_name["mx4"] == {(16, f) for f in (16, 24, 32)}
    assert by_name["bdr_m2_k32_d8_k2_d1"] == {(32, f) for f in (16, 24, 32)}
    assert len(cells) == 6 + 6 + 3 + 3
    assert {sp.group_r(r) for _, r, _ in cells} == {8, 16}


def test_scalar_r_and_f_stay_one_group():
    sp = Space("x", preset_points("mx9"), r=16, f=24)
    assert (sp.r, sp.f, sp.rs, sp.fs, sp.axes) == (16, 24, (16,), (24,), ())
    assert [(r, f) for _, r, f in sp.cells()] == [(16, 24)]


def test_paper_rf_expands_to_the_papers_points_at_each_r_and_f():
    sp, full = load_space("paper-rf"), paper()
    assert sp.points == full.points and (sp.rs, sp.fs) == (PAPER_RF_R, PAPER_RF_F)
    # independently: a block point's unit has max(r, k1) elements; identical units are measured once
    expected = sum(len({max(r, p["k1"]) if p["family"] in ("bdr", "ocp") else r for r in PAPER_RF_R})
                   for p in full.points) * len(PAPER_RF_F)
    assert len(sp.cells()) == expected == 4056


def test_sweep_rows_per_point_r_and_f(tmp_path):
    res = run(_space(tmp_path), cache=False, synth=False, progress=False)
    keys = [(r["name"], r["r"], r["f"]) for r in res.rows]
    assert len(keys) == len(set(keys)) == 18
    # the QSNR does not depend on the unit: the same for a point at every r and f
    for name in ("mx4", "e4m3", "int4"):
        assert len({r["qsnr_db"] for r in res.rows if r["name"] == name}) == 1
    assert res.row("e4m3", r=16, f=32)["f"] == 32
    # the CSV round-trips with its (r, f) rows
    path = tmp_path / "rf.csv"
    res.write_csv(path)
    back = read_csv(path, res.space)
    assert [(r["name"], r["r"], r["f"]) for r in back.rows] == keys


def test_each_unit_is_normalised_by_the_fp8_unit_at_its_r_and_f(tmp_path):
    sp = _space(tmp_path)
    units = {(t["unit"]["format"], t["unit"]["r"], t["unit"]["f"]) for t in _unit_tasks(sp, sp.cells())}
    for p, r, f in sp.cells():
        assert ("fp8", r, f) in units  # the baseline at the same r and f
    assert _FP8["format"] == "e4m3"
    # and nothing else: one baseline per distinct (r, f) of the units
    assert {u for u in units if u[0] == "fp8"} == {("fp8", r, f) for _, r, f in sp.cells()}


def _rows(sp):
    """Synthetic measured rows: at f = 16 the cheap point is the best, at f = 24 the dear one."""
    out = []
    for f, (qa, qb) in ((16, (20.0, 10.0)), (24, (10.0, 20.0))):
        out.append(dict(name="mx9", family="bdr", r=16, f=f, bits_per_element=9.0, qsnr_db=qa, cost=1.0))
        out.append(dict(name="mx6", family="bdr", r=16, f=f, bits_per_element=6.0, qsnr_db=qb, cost=2.0))
    for r in out:
        r["memory_rel"], r["area_rel"] = 1.0, r["cost"]
    return out


def test_pareto_is_per_r_f_group():
    sp = Space("g", preset_points("mx9") + preset_points("mx6"), r=16, f=[16, 24])
    rows = _rows(sp)
    assert pareto_groups(rows, sp) == [True, False, True, True]
    # one group for the whole table would drop mx6 at f = 24 (mx9 at f = 16 is cheaper and better)
    assert pareto_groups(rows, None) == [True, False, False, False]
    res = SweepResult(sp, [dict(r, pareto=on) for r, on in zip(rows, pareto_groups(rows, sp))])
    assert [r["pareto"] for r in res.with_scale_bits(True).rows] == [True, False, True, True]
    assert res.groups() == [(16, 16), (16, 24)]
    assert [r["name"] for r in res.group(16, 24).rows] == ["mx9", "mx6"]


@pytest.mark.parametrize("facet, panels", [("f", ["f = 16", "f = 24"]), (None, [""])])
def test_facet_draws_one_axes_per_value(facet, panels):
    import matplotlib.pyplot as plt

    sp = Space("g", preset_points("mx9") + preset_points("mx6"), r=16, f=[16, 24])
    rows = _rows(sp)
    res = SweepResult(sp, [dict(r, pareto=on) for r, on in zip(rows, pareto_groups(rows, sp))])
    fig = pareto_figure(res, facet=facet)
    try:
        plots = [ax for ax in fig.axes if ax.get_xscale() == "log"]  # (not the colour bar)
        assert len(plots) == len(panels)
        if facet:
            assert [ax.get_title() for ax in plots] == panels
            for ax, f in zip(plots, (16, 24)):  # each panel holds its f's points only
                assert sum(len(c.get_offsets()) for c in ax.collections[:1]) == 2
                assert {t.get_text() for t in ax.texts} == {"MX9", "MX6"}
    finally:
        plt.close(fig)


def test_facet_must_be_a_swept_axis():
    sp = Space("g", preset_points("mx9"), r=16, f=[16, 24])
    assert check_facet(sp, "f") == "f"
    with pytest.raises(FpforgeValueError, match="cannot facet by r: space 'g' does not sweep it .* valid: f"):
        check_facet(sp, "r")


def test_cli_r_and_f_lists_write_one_row_per_point_r_and_f(tmp_path, capsys):
    out = tmp_path / "s.csv"
    assert main(["sweep", "small", "--no-synth", "--no-cache", "-j", "0", "--vectors", "20", "--r", "8,16",
                 "--window-bits", "16,24", "-o", str(out)]) == 0
    lines = out.read_text().splitlines()[1:]
    pairs = {tuple(line.split(",")[7:9]) for line in lines}
    assert pairs == {("8", "16"), ("8", "24"), ("16", "16"), ("16", "24")}
    assert len(lines) == 6 * 4  # small's six points (k1 <= 8) at each r and f
    assert not math.isnan(float(lines[0].split(",")[10]))


def test_results_section_says_how_the_frontier_and_named_formats_move(tmp_path):
    from fpforge.sweep.report import write_results

    sp = Space("g", preset_points("mx9") + preset_points("mx6"), r=16, f=[16, 24])
    rows = _rows(sp)
    res = SweepResult(sp, [dict(r, pareto=on) for r, on in zip(rows, pareto_groups(rows, sp))])
    doc = write_results(res, "fpforge sweep g --results", results_path=tmp_path / "results.md")
    text = doc.read_text()
    assert "### The frontier across r and f" in text and "### The named formats across r and f" in text
    # mx6: off the frontier at f = 16, on it at f = 24
    line = next(x for x in text.splitlines() if x.startswith("| mx6 "))
    assert line.count(" P") == 1 and line.index("2.000 (2.00×) P") > line.index("2.000 (2.00×) |")
    assert (tmp_path / "results" / "g.png").stat().st_size > 0
