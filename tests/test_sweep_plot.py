"""The sweep's figure and claims from measured points (issue 30, class 8): re-read from a CSV
(``fpforge sweep SPACE --from-csv``), every named format labelled without overlaps and drawn above the
frontier line, the INT/FP8 points' per-vector FP32 scale said in the caption and the CSV, and the other reading
(``--count-scale-bits``) with the claims under both. Uses the committed docs/results/paper.csv (measured
points; nothing is synthesized here)."""

import csv
import math
import re
from pathlib import Path

import pytest

from fpforge.cli import main
from fpforge.golden.errors import FpforgeValueError
from fpforge.sweep import read_csv
from fpforge.sweep.claims import check_claims, claims_markdown
from fpforge.sweep.plot import pareto_figure, plot_pareto
from fpforge.sweep.report import write_results

PAPER_CSV = Path(__file__).resolve().parent.parent / "docs" / "results" / "paper.csv"
# The named formats of the issue, the claims' points and their BDR neighbours, a few INT points.
SMALL = ["mx9", "mx6", "mx4", "e4m3", "e5m2", "int4", "int8", "int9", "mxfp6_e2m3", "mxfp6_e3m2", "msfp12",
         *(f"bdr_m{m}_k16_d8_k{k2}_d{d2}" for m in (7, 4, 2) for k2, d2 in ((8, 1), (1, 1), (2, 2)))]


@pytest.fixture(scope="module")
def paper_rows():
    with open(PAPER_CSV, newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture
def small_csv(tmp_path, paper_rows):
    """A CSV of a few measured points of the paper space, in the form the sweep wrote before the scale
    columns existed (the committed CSV may have them or not)."""
    cols = [c for c in paper_rows[0] if c not in ("qsnr_scale", "scale_bits_counted")]
    path = tmp_path / "small.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(cols)
        for r in paper_rows:
            if r["name"] in SMALL:
                w.writerow([r[c] for c in cols])
    return path


def _label_boxes(fig):
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    fig.canvas.draw()
    return {t.get_text(): t.get_bbox_patch().get_window_extent(renderer) for t in ax.texts}


def _check_figure(fig, names_expected):
    ax = fig.axes[0]
    boxes = _label_boxes(fig)
    for text in names_expected:
        assert text in boxes, f"{text} is not labelled: {sorted(boxes)}"
    items = list(boxes.items())
    for i, (a, ba) in enumerate(items):
        for b, bb in items[i + 1:]:
            assert not ba.overlaps(bb), f"labels {a!r} and {b!r} overlap"
    # the named formats' markers are drawn above the frontier line and its rings
    (named,) = [c for c in ax.collections if c.get_gid() == "named"]
    front = [ln for ln in ax.lines if ln.get_label() == "Pareto frontier"]
    assert front and all(named.get_zorder() > ln.get_zorder() for ln in front)
    assert all(named.get_zorder() > c.get_zorder() for c in ax.collections if c is not named)
    # every label's arrow points at a named marker: the marker of its own point
    pts = ax.transData.transform(named.get_offsets())
    for t in ax.texts:
        x, y = ax.transData.transform(t.xy)
        assert min(math.hypot(x - px, y - py) for px, py in pts) < 1e-6


def test_small_csv_figure_labels_every_named_format(small_csv):
    result = read_csv(small_csv, "paper")
    fig = pareto_figure(result)
    try:
        _check_figure(fig, ["MX4", "INT4*", "MXFP6 (E2M3)", "MXFP6 (E3M2)", "MX9", "MX6", "E4M3*", "E5M2*",
                            "INT8*", "INT9*", "MSFP12"])
        # MX4 and INT4 (2.3 dB apart at +0.02 % cost) get distinct labels, each on its own marker
        texts = {t.get_text(): t.xy for t in fig.axes[0].texts}
        rows = {r["name"]: r for r in result.rows}
        assert texts["MX4"] == (rows["mx4"]["cost"], rows["mx4"]["qsnr_db"])
        assert texts["INT4*"] == (rows["int4"]["cost"], rows["int4"]["qsnr_db"])
        (caption,) = [t.get_text() for t in fig.texts]
        assert "per-vector FP32 scale" in caption and "do NOT count" in caption and "--count-scale-bits" in caption
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)


def test_paper_csv_figure_labels_do_not_overlap():
    """The full measured paper sweep (811 points): every named format labelled, no two labels overlapping."""
    result = read_csv(PAPER_CSV, "paper")
    import matplotlib.pyplot as plt

    for counted in (False, True):
        fig = pareto_figure(result.with_scale_bits(counted))
        try:
            ints = [f"INT{n}*" for n in range(3, 14)]
            _check_figure(fig, ["MX9", "MX6", "MX4", "MSFP12", "MSFP16", "E4M3*", "E5M2*", "MXFP8 (E4M3)",
                                "MXFP8 (E5M2)", "MXINT8", "MXFP6 (E3M2)", "MXFP6 (E2M3)", "MXFP4", *ints])
            (caption,) = [t.get_text() for t in fig.texts]
            assert ("COUNTED" in caption) == counted
        finally:
            plt.close(fig)


def test_scale_bits_reading_moves_only_int_and_fp8_points(small_csv):
    plain = read_csv(small_csv, "paper")
    counted = plain.with_scale_bits(True)
    assert not plain.scale_bits_counted and counted.scale_bits_counted
    p, c = ({r["name"]: r for r in x.rows} for x in (plain, counted))
    for name in ("int4", "int8", "e4m3", "e5m2"):
        bits = p[name]["bits_per_element"] + 32 / 256
        assert c[name]["bits_per_element"] == bits
        accesses = math.ceil(256 * bits / 512)  # 64-byte accesses per 256-element tile, FP8's 4
        assert c[name]["memory_rel"] == accesses / 4
        assert c[name]["cost"] == pytest.approx(p[name]["area_rel"] * accesses / 4)
        assert c[name]["qsnr_db"] == p[name]["qsnr_db"] and c[name]["scale_bits_counted"] is True
        assert p[name]["qsnr_scale"] == "fp32_per_vector" and p[name]["scale_bits_counted"] is False
    assert c["int4"]["memory_rel"] == 0.75 and p["int4"]["memory_rel"] == 0.5  # one more access per tile
    for name in ("mx4", "mx9", "mxfp6_e2m3", "bdr_m7_k16_d8_k8_d1"):
        same = [k for k in p[name] if k != "pareto"]  # (the frontier is recomputed)
        assert [c[name][k] for k in same] == [p[name][k] for k in same]
        assert p[name]["qsnr_scale"] == "in_format" and p[name]["scale_bits_counted"] is None
    # counted, INT4 needs a third 64-byte access per tile (+50 % cost) and MX4 nothing more
    assert c["int4"]["cost"] / c["mx4"]["cost"] == pytest.approx(1.5 * p["int4"]["cost"] / p["mx4"]["cost"], rel=1e-4)
    # the CSV says which reading it holds; re-read, either way round, it gives the same table
    out = Path(small_csv).with_name("counted.csv")
    out.write_text(counted.csv())
    rows = {r["name"]: r for r in csv.DictReader(open(out))}
    assert rows["int4"]["scale_bits_counted"] == "1" and rows["int4"]["bits_per_element"] == "4.125"
    assert rows["mx4"]["scale_bits_counted"] == "" and rows["mx4"]["qsnr_scale"] == "in_format"
    again = read_csv(out, "paper")
    assert again.with_scale_bits(True).csv() == counted.csv()
    back = again.with_scale_bits(False)  # (its frontier is recomputed on these few points: pareto may differ)
    assert [{k: v for k, v in r.items() if k not in ("pareto", "cost")} for r in back.rows] == \
        [{k: v for k, v in r.items() if k not in ("pareto", "cost")} for r in plain.rows]
    assert [r["cost"] for r in back.rows] == pytest.approx([r["cost"] for r in plain.rows], rel=1e-5)  # 6 digits


def test_claims_under_both_readings(small_csv):
    result = read_csv(small_csv, "paper")
    rows = {r["name"]: r for r in result.rows}
    mx6, mx4 = rows["mx6"]["cost"], rows["mx4"]["cost"]
    fp8_counted = math.ceil(256 * 8.125 / 512) / 4 * rows["e4m3"]["area_rel"]  # 5 accesses instead of 4
    plain = {c["claim"]: c for c in check_claims(result, False)}
    counted = {c["claim"]: c for c in check_claims(result, True)}
    assert f"{1 / mx6:.1f}× cheaper" in plain["a"]["ours"]
    assert f"{fp8_counted / mx6:.1f}× cheaper" in counted["a"]["ours"]
    assert f"{1 / mx4:.1f}× cheaper" == plain["c"]["ours"]
    assert f"{fp8_counted / mx4:.1f}× cheaper" == counted["c"]["ours"]
    assert f"cost {rows['mx9']['cost'] / fp8_counted:.2f} of FP8's" in counted["b"]["ours"]
    assert plain["d"] == counted["d"]  # BDR neighbours only: the reading does not touch them
    assert check_claims(result.with_scale_bits(True)) == check_claims(result, True)
    md = claims_markdown(result)
    assert "scale not counted" in md and "scale counted (--count-scale-bits" in md
    assert md.count("| (a) |") == 2


def test_cli_from_csv_plots_and_derives_the_claims(small_csv, tmp_path, capsys):
    svg, out = tmp_path / "f.svg", tmp_path / "out.csv"
    code = main(["sweep", "paper", "--from-csv", str(small_csv), "--plot", str(svg), "--claims", "-o", str(out),
                 "--count-scale-bits"])
    text = capsys.readouterr().out
    assert code == 0
    assert "re-read from" in text and "scale not counted" in text and "scale counted (--count-scale-bits" in text
    doc = svg.read_text()
    for label in ("MX4", "INT4*", "MXFP6 (E2M3)", "COUNTED here", "INT/FP8 scale bits counted"):
        assert label in doc
    rows = {r["name"]: r for r in csv.DictReader(open(out))}
    assert set(rows) == set(SMALL) and rows["e4m3"]["bits_per_element"] == "8.125"
    assert rows["e4m3"]["memory_rel"] == "1.25" and rows["e4m3"]["scale_bits_counted"] == "1"


def test_plot_bytes_are_deterministic(small_csv):
    result = read_csv(small_csv, "paper")
    assert plot_pareto(result, "png") == plot_pareto(result, "png")


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace("mx9,", "nosuch,", 1), "1 point(s) not in space 'paper' (nosuch)"),
    (lambda t: t.replace(",46.618218,", ",abc,", 1), "line 2: qsnr_db must be a number, not 'abc'"),
    (lambda t: t.split("\n")[0] + "\n", "holds no points"),
    (lambda t: t.replace("cost", "kost", 1), "not a sweep CSV: no column(s) cost"),
    (lambda t: re.sub(r"^(mx9,(?:[^,]*,){16})1,", r"\g<1>2,", t, count=1, flags=re.M),  # mx9's pareto column
     "pareto must be 0 or 1, not '2'"),
    (lambda t: t.replace(",9.0,", ",inf,", 1), "bits_per_element must be finite"),
])
def test_bad_csvs_are_one_line_errors(tmp_path, small_csv, edit, message):
    bad = tmp_path / "bad.csv"
    text = small_csv.read_text()
    assert text.split("\n")[1].startswith("mx9,")
    bad.write_text(edit(text))
    with pytest.raises(FpforgeValueError) as info:
        read_csv(bad, "paper")
    assert message in str(info.value) and "\n" not in str(info.value)


def test_results_from_csv_keep_the_measuring_runs_provenance(small_csv, tmp_path):
    """--from-csv keeps the provenance and synthesis times of the run that measured the points, read from the
    section's JSON (docs/results/sweep-<space>.json), also when re-read twice."""
    import json

    from fpforge.jobs.results import read_data, write_section

    doc = tmp_path / "results.md"
    measured = dict(command="fpforge sweep paper --results", date="2026-01-01", machine="2 cores", tools="Python 3",
                    commit="commit abc")
    write_section("sweep-paper", "## old\n\ntext", command="fpforge sweep paper --results", path=doc,
                  data=dict(synthesis="Synthesized with Yosys X; per unit, median 1 s, over the 3 distinct units."),
                  fields=measured)
    write_results(read_csv(small_csv, "paper"), "fpforge sweep paper --from-csv x --results", results_path=doc,
                  from_csv="x")
    text = doc.read_text()
    line = "_Points measured by `fpforge sweep paper --results` on 2026-01-01; 2 cores; Python 3; commit abc._"
    assert line in text
    data = read_data("sweep-paper", doc)["data"]
    assert data["measured"] == measured and data["points"] == len(read_csv(small_csv, "paper").rows)
    assert [c["scale_bits_counted"] for c in data["claims"]] == [False, True] and len(data["claims"][0]["rows"]) == 7
    json.dumps(data)  # plain JSON
    write_results(read_csv(small_csv, "paper"), "fpforge sweep paper --from-csv y --results", results_path=doc,
                  from_csv="y")
    assert line in doc.read_text() and read_data("sweep-paper", doc)["data"]["measured"] == measured
    assert "Synthesized with Yosys X; per unit, median 1 s, over the 3 distinct units." in text
    assert "_Generated by `fpforge sweep paper --from-csv x --results`" in text
    assert "do not count (the paper's reading" in text and text.count("| (a) |") == 2
    assert (tmp_path / "results" / "paper.png").stat().st_size > 0
    rows = list(csv.DictReader(open(tmp_path / "results" / "paper.csv")))
    assert {r["name"] for r in rows} == set(SMALL) and all("scale_bits_counted" in r for r in rows)
