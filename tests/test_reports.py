"""Format reports: `fpforge table` for HiF8, the paper's Table 4 (`--summary`) and Fig. 1 (`plot precision`).

The expected figures are the HiF8 paper's own (seed 000, Table 4 and Fig. 1), not values read back from
the code; where the paper is wrong (E5M2's max denormal) the test says so."""

import math

import numpy as np
import pytest

from fpforge.cli import main
from fpforge.golden import decode, get_format, list_formats
from fpforge.golden.summary import SUMMARY_ROWS, code_class, precision_by_exponent, summary

# Table 4, value (in the paper's notation) and code (grouped by field, as the paper colours HiF8's).
PAPER_TABLE4 = {
    "hif8": {"Infinities": "± 11 0111 1", "NaN": "1 0000 000", "Zero": "0 0000 000",
             "Max positive normal": "2^15 (0 11 0111 0)", "Min positive normal": "2^-15 (0 11 1111 0)",
             "Max positive denormal": "2^-16 (0 0000 111)", "Min positive denormal": "2^-22 (0 0000 001)",
             "Exponent": "[-15, 15]", "Exponent (+denormal)": "[-22, 15]"},
    "e4m3": {"Infinities": "N/A", "NaN": "± 1111 111",
             "Max positive normal": "1.75×2^8 (0 1111 110)", "Min positive normal": "2^-6 (0 0001 000)",
             "Max positive denormal": "1.75×2^-7 (0 0000 111)", "Min positive denormal": "2^-9 (0 0000 001)",
             "Exponent": "[-6, 8]", "Exponent (+denormal)": "[-9, 8]"},
    "e5m2": {"Infinities": "± 11111 00",
             "Max positive normal": "1.75×2^15 (0 11110 11)", "Min positive normal": "2^-14 (0 00001 00)",
             "Min positive denormal": "2^-16 (0 00000 01)",
             "Exponent": "[-14, 15]", "Exponent (+denormal)": "[-16, 15]"},
    "fp16": {"Infinities": "± 11111 0000000000",
             "Max positive normal": "2^15×(2-2^-10) (0 11110 1111111111)",
             "Min positive normal": "2^-14 (0 00001 0000000000)",
             "Max positive denormal": "2^-14×(1-2^-10) (0 00000 1111111111)",
             "Min positive denormal": "2^-24 (0 00000 0000000001)",
             "Exponent": "[-14, 15]", "Exponent (+denormal)": "[-24, 15]"},
}


@pytest.mark.parametrize("fmt", PAPER_TABLE4)
def test_summary_reproduces_the_papers_table4(fmt):
    got = summary(fmt)
    assert list(got) == list(SUMMARY_ROWS)
    for row, want in PAPER_TABLE4[fmt].items():
        assert got[row] == want, (fmt, row)


def test_e5m2_max_denormal_corrects_the_paper():
    # Table 4 prints 1.5 × 2^-16 for E5M2's max denormal; the format's largest subnormal is 0.75 × 2^-14
    # = 1.5 × 2^-15 (code 0 00000 11): the paper's exponent is off by one there.
    assert summary("e5m2")["Max positive denormal"] == "1.5×2^-15 (0 00000 11)"


def _value(text):
    """The number a summary value expression denotes (``2^-14×(1-2^-10)``, ``1.75×2^8``, ...)."""
    return eval(text.replace("^", "**").replace("×", "*"))  # noqa: S307 - our own report text


#: Run-time-bias formats are checked at these biases (both denormal conventions).
_BIASES = (0, 1, 31, 62, 63)
_SUMMARY_CASES = [(n, b, ieee) for n in list_formats() if get_format(n).bits <= 16
                  for b, ieee in ([(b, ieee) for b in _BIASES for ieee in (False, True)]
                                  if get_format(n).runtime_bias else [(None, False)])]


@pytest.mark.parametrize("name, bias, ieee", _SUMMARY_CASES,
                         ids=[f"{n}-{b}{'-ieee' if i else ''}" if b is not None else n for n, b, i in _SUMMARY_CASES])
def test_summary_rows_agree_with_the_decoder_on_every_code(name, bias, ieee):
    # An independent route to the same rows: enumerate every code, decode it, classify it.
    fmt = get_format(name)
    codes = np.arange(1 << fmt.bits)
    kw = dict(bias=bias, ieee_denormals=True) if ieee else dict(bias=bias)
    vals = decode(fmt, codes, **kw).astype(np.float64)
    cls = code_class(fmt, codes)
    pos = codes < fmt.sign_mask if fmt.signed else codes >= 0
    got = summary(fmt, **kw)
    emax = fmt.at(bias).emax
    rows = [("Max positive normal", cls == "normal", np.argmax), ("Min positive normal", cls == "normal", np.argmin)]
    if fmt.ftz:  # denormal codes read as 0
        assert np.all(vals[cls == "flushed"] == 0)
        assert got["Max positive denormal"] == got["Min positive denormal"] == "N/A (flushed)"
    elif not np.any(np.isin(cls, ["subnormal", "denormal"])):  # no mantissa bits (P3109 p = 1): none
        assert got["Max positive denormal"] == got["Min positive denormal"] == "N/A"
    else:
        rows += [("Max positive denormal", np.isin(cls, ["subnormal", "denormal"]), np.argmax),
                 ("Min positive denormal", np.isin(cls, ["subnormal", "denormal"]), np.argmin)]
    for row, mask, pick in rows:
        idx = np.flatnonzero(mask & pos & (vals > 0))
        i = idx[pick(vals[idx])]
        value, code = got[row].rsplit(" (", 1)
        assert int(code.rstrip(")").replace(" ", ""), 2) == i, (row, code)
        assert _value(value) == vals[i], (row, value)
    small = vals[np.isin(cls, ["subnormal", "denormal", "normal"]) & pos & (vals > 0)]
    assert got["Exponent (+denormal)"] == f"[{math.frexp(small.min())[1] - 1}, {emax}]"
    assert (got["Infinities"] == "N/A") == (not np.any(cls == "inf"))
    assert np.all(np.isnan(vals[cls == "nan"])) and np.all(np.isinf(vals[cls == "inf"]))
    assert np.all(vals[cls == "zero"] == 0) and not np.any(vals[cls == "normal"] == 0)


def test_summary_works_for_32_bit_formats_without_enumerating():
    got = summary("fp32")
    assert got["Max positive normal"] == "2^127×(2-2^-23) (0 11111110 11111111111111111111111)"
    assert got["Min positive denormal"].startswith("2^-149 ")
    assert got["Exponent (+denormal)"] == "[-149, 127]"


def test_hif8_classes_follow_the_prefix_codes():
    cls = code_class("hif8", np.arange(256))
    counts = {c: int(np.sum(cls == c)) for c in ("nan", "inf", "zero", "denormal", "normal")}
    assert counts == {"nan": 1, "inf": 2, "zero": 1, "denormal": 14, "normal": 238}
    assert cls[0x80] == "nan" and cls[0x00] == "zero" and cls[0x81] == "denormal" and cls[0x6F] == "inf"


def test_summary_command_prints_one_column_per_format(capsys):
    assert main(["table", "--summary", "hif8", "e4m3", "e5m2", "fp16"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["hif8", "e4m3", "e5m2", "fp16"]
    assert [l.split("  ")[0] for l in out[1:]] == list(SUMMARY_ROWS)
    row = next(l for l in out if l.startswith("Min positive denormal"))
    assert row.index("2^-22") < row.index("2^-9") < row.index("2^-16") < row.index("2^-24")
    assert "N/A" in next(l for l in out if l.startswith("Infinities"))


def test_hif8_table_lists_fields_and_classes(tmp_path):
    path = tmp_path / "hif8.txt"
    assert main(["table", "hif8", "-o", str(path)]) == 0
    rows = {l.split()[0]: l for l in path.read_text().splitlines() if l.startswith("0x")}
    assert len(rows) == 256
    assert rows["0x6f"].split()[3] == "inf" and "D=4 E=15" in rows["0x6f"]
    assert rows["0x80"].split()[3] == "nan" and rows["0x00"].split()[3] == "zero"
    assert rows["0x07"].split()[3] == "denormal" and "0|0000|111  DML M=7" in rows["0x07"]
    assert "0|0001|-|000  D=0 E=0" in rows["0x08"] and rows["0x08"].split()[2] == "1.0"
    assert "0|10|110|00  D=3 E=-6" in rows["0x58"]  # Se=1, Mag=1,10
    assert "0|11|0111|0  D=4 E=15" in rows["0x6e"] and rows["0x6e"].split()[2] == "32768.0"


def test_precision_by_exponent_follows_fig1():
    e, bits = precision_by_exponent("hif8")
    prec = dict(zip(e.tolist(), bits.tolist()))
    assert sorted(prec) == list(range(-22, 16))
    assert all(prec[x] == 4 for x in range(-3, 4))
    assert all(prec[x] == 3 and prec[-x] == 3 for x in range(4, 8))
    assert all(prec[x] == 2 and prec[-x] == 2 for x in range(8, 16))
    assert all(prec[x] == 1 for x in range(-22, -15))
    e, bits = precision_by_exponent("e4m3")
    prec = dict(zip(e.tolist(), bits.tolist()))
    assert sorted(prec) == list(range(-9, 9))
    assert all(prec[x] == 4 for x in range(-6, 9))
    assert (prec[-7], prec[-8], prec[-9]) == (3, 2, 1)
    e, bits = precision_by_exponent("fp16")
    assert (e.min(), e.max(), bits.max(), bits.min()) == (-24, 15, 11, 1)


def test_plot_writes_png_and_identical_svg(tmp_path):
    png, svg1, svg2 = tmp_path / "p.png", tmp_path / "a.svg", tmp_path / "b.svg"
    assert main(["plot", "precision", "-o", str(png)]) == 0
    assert png.stat().st_size > 1000 and png.read_bytes()[:4] == b"\x89PNG"
    assert main(["plot", "precision", "-o", str(svg1), "--formats", "hif8,e4m3"]) == 0
    assert main(["plot", "precision", "-o", str(svg2), "--formats", "hif8,e4m3"]) == 0
    assert svg1.read_bytes() == svg2.read_bytes()
    text = svg1.read_text()
    assert text.startswith("<?xml") and "hif8" in text and "e4m3" in text and str(tmp_path) not in text
    assert not list(tmp_path.glob(".fpforge-*"))


@pytest.mark.parametrize("args, message", [
    (["plot", "precision", "-o", "x.jpg"], "must end in .png or .svg"),
    (["plot", "precision", "-o", "x.svg", "--formats", "hif8,nope"], "unknown format 'nope'; valid formats:"),
    (["plot", "precision", "-o", "x.svg", "--formats", ","], "--formats ',' has an empty item"),
    (["plot", "precision", "-o", "no/such/dir/x.svg"], "cannot write 'no/such/dir/x.svg'"),
    (["plot", "scatter", "-o", "x.svg"], "invalid choice: 'scatter'"),
    (["table", "--summary", "hif8", "nope"], "unknown format 'nope'; valid formats: "),
    (["table", "--summary", "hif8", "--bias", "3"], "--bias"),
    (["table", "hif8", "e4m3"], "table takes one format"),
    (["table", "fp32"], "tables list formats of up to 16 bits"),
])
def test_report_errors_are_one_line(args, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("fpforge: error: ")
    assert not list(tmp_path.iterdir())
