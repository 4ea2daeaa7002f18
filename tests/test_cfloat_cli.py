"""The CFloat formats through the command line: tables at a bias, the guide's Tables 4 and 5, Table-4 summary
rows with a bias, Verilog with the bias port and IEEE denormals, and one-line errors.

Expected figures are the guide's own (seed 001, Tables 4 and 5 and the text around them)."""

import pytest

from fpforge.cli import main

from helpers import fpforge


def test_formats_lists_the_cfloat_formats_with_bias_scaled_limits(capsys):
    assert main(["formats"]) == 0
    scalar = capsys.readouterr().out.split("\n\n")[0]  # the scalar table (block formats follow)
    rows = {l.split()[0]: l for l in scalar.splitlines()[1:]}
    assert "S1 E4 M3, bias 0..63 (run-time)" in rows["cfloat8_143"] and "61440·2^-B" in rows["cfloat8_143"]
    assert "S1 E5 M2, bias 0..63 (run-time)" in rows["cfloat8_152"] and "rne,sr,ta,rtz" in rows["cfloat8_152"]
    assert "S1 E5 M10, bias 0..63" in rows["shp"]
    assert "E6 M10, bias 31" in rows["uhp"] and "flushed" in rows["uhp"] and "4.29287e+09" in rows["uhp"]


def test_table_at_a_bias(tmp_path):
    path = tmp_path / "t.txt"
    assert main(["table", "cfloat8_143", "--bias", "0", "-o", str(path)]) == 0
    lines = path.read_text().splitlines()
    assert lines[0].endswith("; bias 0")
    rows = {l.split()[0]: l.split() for l in lines if l.startswith("0x")}
    assert len(rows) == 256
    assert rows["0x01"][2:] == ["0.125", "subnormal", "0|0000|001", "subnormal"]
    assert rows["0x07"][2:] == ["0.875", "subnormal", "0|0000|111", "subnormal"]
    assert rows["0x08"][2:] == ["2.0", "normal", "0|0001|000", "E=1"]
    assert rows["0x7f"][2:] == ["61440.0", "normal", "0|1111|111", "E=15"]
    assert rows["0x80"][2:4] == ["-0.0", "zero"] and rows["0xff"][2] == "-61440.0"
    assert main(["table", "cfloat8_143", "--bias", "0", "--ieee-denormals", "-o", str(path)]) == 0
    rows = {l.split()[0]: l.split() for l in path.read_text().splitlines() if l.startswith("0x")}
    assert rows["0x01"][2] == "0.25" and rows["0x07"][2] == "1.75"


def test_uhp_table_marks_flushed_codes(tmp_path):
    path = tmp_path / "u.txt"
    assert main(["table", "uhp", "-o", str(path)]) == 0
    rows = {l.split()[0]: l.split() for l in path.read_text().splitlines() if l.startswith("0x")}
    assert len(rows) == 65536
    assert rows["0x0001"][2:4] == ["0.0", "flushed"] and rows["0x0400"][3] == "normal"
    assert rows["0xfc00"][2:] == ["inf", "inf", "-|111111|0000000000", "E=32"] and rows["0xfe00"][3] == "nan"


# The guide's Table 4 (CFloat8_1_4_3) and Table 5 (CFloat8_1_5_2): bias -> normal range.
TABLE4 = {0: "±[1.000 × 2^1, 1.111 × 2^15]", 1: "±[1.000 × 2^0, 1.111 × 2^14]", 2: "±[1.000 × 2^-1, 1.111 × 2^13]",
          3: "±[1.000 × 2^-2, 1.111 × 2^12]", 31: "±[1.000 × 2^-30, 1.111 × 2^-16]",
          60: "±[1.000 × 2^-59, 1.111 × 2^-45]", 61: "±[1.000 × 2^-60, 1.111 × 2^-46]",
          62: "±[1.000 × 2^-61, 1.111 × 2^-47]", 63: "±[1.000 × 2^-62, 1.111 × 2^-48]"}
TABLE5 = {0: "±[1.00 × 2^1, 1.11 × 2^31]", 1: "±[1.00 × 2^0, 1.11 × 2^30]", 2: "±[1.00 × 2^-1, 1.11 × 2^29]",
          3: "±[1.00 × 2^-2, 1.11 × 2^28]", 31: "±[1.00 × 2^-30, 1.11 × 2^0]",
          60: "±[1.00 × 2^-59, 1.11 × 2^-29]", 61: "±[1.00 × 2^-60, 1.11 × 2^-30]",
          62: "±[1.00 × 2^-61, 1.11 × 2^-31]", 63: "±[1.00 × 2^-62, 1.11 × 2^-32]"}


@pytest.mark.parametrize("fmt, table, span", [("cfloat8_143", TABLE4, "[-62, 15]"), ("cfloat8_152", TABLE5, "[-62, 31]")])
def test_ranges_reproduce_the_guides_tables_4_and_5(fmt, table, span, capsys):
    assert main(["table", "--ranges", fmt]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = {int(l.split()[0]): l for l in lines if l[:1].isdigit()}
    assert sorted(rows) == list(range(64))
    for bias, text in table.items():
        assert text in rows[bias], (bias, rows[bias])
    assert lines[-1] == f"exponent span over all biases: {span}"


def test_summary_rows_at_a_bias(capsys):
    assert main(["table", "--summary", "cfloat8_143", "e4m3", "--bias", "7"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["cfloat8_143@7", "e4m3"]
    row = {l.split("  ")[0]: l for l in out[1:]}
    assert "1.875×2^8 (0 1111 111)" in row["Max positive normal"]  # no NaN code: the all-ones code is a value
    assert "1.75×2^-8 (0 0000 111)" in row["Max positive denormal"]  # 0.111 × 2^-7
    assert "[-10, 8]" in row["Exponent (+denormal)"] and row["NaN"].split()[1] == "N/A"


@pytest.mark.parametrize("args, message", [
    (["table", "cfloat8_143"], "cfloat8_143 has a run-time bias: give --bias B (0..63), or --ranges"),
    (["table", "cfloat8_143", "--bias", "64"], "--bias must be in 0..63, not 64"),
    (["table", "e4m3", "--bias", "3"], "has a fixed bias; --bias applies to CFloat formats"),
    (["table", "--summary", "cfloat8_152", "hif8"], "cfloat8_152 has a run-time bias: give --bias B"),
    (["table", "--summary", "e4m3", "--bias", "2"], "--bias applies to run-time-bias formats"),
    (["table", "--ranges", "e4m3"], "bias ranges list run-time-bias formats"),
    (["table", "--ranges", "shp", "--bias", "3"], "--ranges lists every bias"),
    (["table", "e4m3", "--ieee-denormals"], "ieee_denormals applies to the formats with the CFloat guide's"),
    (["verilog", "encoder", "--format", "e5m2", "--ieee-denormals"], "ieee_denormals applies"),
    (["verilog", "encoder", "--format", "shp", "--rounding", "hr"], "valid choices: rne, sr, ta, rtz"),
    (["verilog", "decoder", "--format", "cfloat8_143", "--target", "fp16"],
     "fp16 cannot hold every cfloat8_143 value exactly at every bias"),
    (["sim", "decoder", "--format", "cfloat8_143", "--biases", "1,99"], "--biases takes integers in 0..63"),
    (["sim", "decoder", "--format", "cfloat8_143", "--biases", "x"], "--biases takes a comma list"),
    (["sim", "decoder", "--format", "e4m3", "--biases", "1"], "--biases applies to run-time-bias formats"),
])
def test_bad_input_is_one_line_with_exit_code_2(args, message):
    out = fpforge(*args)
    assert out.returncode == 2, out.stdout
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert message in out.stderr


def test_verilog_has_the_bias_port_and_names_the_denormal_variant(tmp_path):
    path = tmp_path / "c.v"
    assert main(["verilog", "encoder", "--format", "cfloat8_143", "--source", "bf16", "--rounding", "rne,sr",
                 "-o", str(path)]) == 0
    text = path.read_text()
    assert "module fpforge_enc_bf16_cfloat8_143(" in text and "input [5:0] bias;" in text
    assert "input [2:0] mode;" in text and "input [15:0] \\rand ;" in text
    assert main(["verilog", "decoder", "--format", "shp", "--ieee-denormals", "--latency", "1", "-o", str(path)]) == 0
    text = path.read_text()
    assert "module fpforge_dec_shp_fp32_ieeedn_l1(" in text and "ieee_denormals 1" in text.splitlines()[0]
    assert "input [21:0] i__payload;" in text  # a (16) + bias (6)


def test_plot_precision_with_a_bias(tmp_path):
    svg = tmp_path / "p.svg"
    assert main(["plot", "precision", "-o", str(svg), "--formats", "cfloat8_143,e4m3", "--bias", "7"]) == 0
    assert "cfloat8_143@7" in svg.read_text()
    out = fpforge("plot", "precision", "-o", str(svg), "--formats", "shp")
    assert out.returncode == 2 and "shp has a run-time bias: give a bias" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
