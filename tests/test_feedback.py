"""Long work gives feedback and bad input is refused before it (issue 30, class 7): `fpforge qsnr` reports
each finished row (the CLI's progress bar) and refuses an unsigned format before computing any row."""

import pytest

from fpforge.golden.errors import FpforgeValueError
from fpforge.golden.qsnr import qsnr_table


def test_qsnr_table_reports_each_row():
    done = []
    rows = qsnr_table(["e4m3", "mx9", "e2m1"], n_vectors=4, length=32, progress=done.append)
    assert done == ["e4m3", "mx9", "e2m1"] == [r["name"] for r in rows]


def test_qsnr_table_refuses_an_unsigned_format_before_any_row():
    done = []
    with pytest.raises(FpforgeValueError, match="binary8p1ue is unsigned"):
        qsnr_table(["e4m3", "mx9", "binary8p1ue"], n_vectors=4, length=32, progress=done.append)
    assert done == []


def test_dot_error_sweep_reports_each_row():
    from fpforge.golden.dot import error_sweep

    done = []
    rows = error_sweep(["mx9", "e4m3"], [8, 16], r=32, n_vectors=4, progress=done.append)
    assert done == rows and [(r["format"], r["f"]) for r in done] == [("mx9", 8), ("mx9", 16), ("e4m3", 8),
                                                                         ("e4m3", 16)]
