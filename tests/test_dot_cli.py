"""The dot-product command line: `fpforge verilog|sim|synth dot` and `fpforge dot-error` — outputs, the
documented ports, determinism, one-line errors naming the rule with exit code 2."""

import json

import pytest

from fpforge.cli import main
from fpforge.sim.run import available_simulators

from helpers import fpforge


def test_verilog_dot_ports_and_identical_bytes(tmp_path):
    a, b = tmp_path / "a.v", tmp_path / "b.v"
    args = ["verilog", "dot", "--preset", "mx9", "--r", "32", "--f", "16", "--raw"]
    assert main([*args, "-o", str(a)]) == 0
    assert fpforge(*args, "-o", "b.v", cwd=tmp_path).returncode == 0
    text = a.read_text()
    assert text == b.read_text() and str(tmp_path) not in text
    assert "module fpforge_dot_mx9_r32_f16_raw(" in text
    assert "input [287:0] a;" in text and "input [287:0] b;" in text  # 2 blocks x 144 bits
    assert "output [31:0] y;" in text and "output [16:0] sum;" in text


def test_verilog_dot_fp8_baseline_has_select_ports_and_streams(tmp_path):
    path = tmp_path / "fp8.v"
    assert main(["verilog", "dot", "--preset", "fp8", "--r", "16", "--f", "32", "--stages", "3", "-o", str(path)]) == 0
    text = path.read_text()
    assert "module fpforge_dot_fp8_r16_f32_s3(" in text
    assert "input [257:0] i__payload;" in text  # a, b (128 bits each), sel_a, sel_b
    assert "output [31:0] o__payload;" in text and "3 stages at part boundaries 2,4,6" in text


def test_verilog_dot_hif8_and_cfloat8_have_bias_ports(tmp_path):
    path = tmp_path / "x.v"
    assert main(["verilog", "dot", "--preset", "cfloat8_143", "--b-preset", "hif8", "--r", "4", "--f", "16",
                 "--stages", "1", "-o", str(path)]) == 0
    text = path.read_text()
    assert "module fpforge_dot_cfloat8_143xhif8_r4_f16_s1(" in text
    assert "input [69:0] i__payload;" in text  # a, b (32 bits each), bias_a (6 bits); HiF8 takes no bias
    assert main(["verilog", "dot", "--preset", "cfloat8_152", "--r", "4", "--f", "16", "-o", str(path)]) == 0
    text = path.read_text()
    assert "input [5:0] bias_a;" in text and "input [5:0] bias_b;" in text
    assert main(["verilog", "dot", "--preset", "hif8", "--b-preset", "e4m3", "--r", "16", "--f", "24", "-o",
                 str(path)]) == 0
    text = path.read_text()
    assert "module fpforge_dot_hif8xe4m3_r16_f24(" in text and "bias" not in text and "sel_a" not in text


def test_bdr_point_options_and_mixed_operands(tmp_path):
    path = tmp_path / "x.v"
    assert main(["verilog", "dot", "--preset", "bdr", "--m", "3", "--k1", "8", "--d1", "3", "--k2", "4", "--d2", "2",
                 "--r", "16", "--f", "12", "-o", str(path)]) == 0
    assert "module fpforge_dot_bdr_m3_k8_d3_k4_d2_r16_f12(" in path.read_text()
    assert main(["verilog", "dot", "--preset", "mx9", "--m", "5", "--r", "16", "--f", "12", "-o", str(path)]) == 0
    assert "bdr_m5_k16_d8_k2_d1" in path.read_text()
    assert main(["verilog", "dot", "--preset", "e4m3", "--b-preset", "e5m2", "--r", "8", "--f", "16", "-o",
                 str(path)]) == 0
    assert "module fpforge_dot_e4m3xe5m2_r8_f16(" in path.read_text()
    assert main(["verilog", "dot", "--preset", "mx4", "--r", "16", "--f", "16", "--io-registers", "-o", str(path)]) == 0
    assert "module fpforge_dot_mx4_r16_f16_io(" in path.read_text()


@pytest.mark.parametrize(
    "args, message",
    [
        (["verilog", "dot", "--preset", "mx9", "--r", "24", "--f", "16"], "r must be a positive multiple of k1 = 16"),
        (["verilog", "dot", "--preset", "mx9", "--r", "32", "--f", "6"], "must be an integer in 8..256, not 6"),
        (["verilog", "dot", "--preset", "mx5", "--r", "32", "--f", "16"], "unknown dot-product operand format 'mx5'"),
        (["verilog", "dot", "--preset", "mx9", "--f", "16"], "dot needs --r"),
        (["verilog", "dot", "--r", "16", "--f", "16"], "dot needs --preset"),
        (["verilog", "dot", "--preset", "mx9", "--b-preset", "mxint8", "--r", "32", "--f", "16"], "one family"),
        (["verilog", "dot", "--preset", "mx9", "--r", "32", "--f", "16", "--latency", "2"],
         "a dot unit does not take latency (its depth is stages"),
        (["verilog", "dot", "--preset", "mx9", "--r", "32", "--f", "16", "--stages", "-2"], "stages must be an integer"),
        (["verilog", "dot", "--preset", "mx9", "--r", "32", "--f", "16", "--stages", "2", "--io-registers"],
         "io_registers wraps the combinational unit"),
        (["verilog", "dot", "--format", "mx9", "--r", "32", "--f", "16"], "takes --preset"),
        (["verilog", "dot", "--preset", "e4m3", "--m", "3", "--r", "4", "--f", "16"], "apply to BDR formats"),
        (["verilog", "encoder", "--format", "e4m3", "--r", "4"], "an encoder unit does not take r; its options:"),
        (["dot-error", "--formats", "mx9", "--f", "8,x"], "comma list of integers"),
        (["dot-error", "--formats", "mx9", "--r", "20"], "multiple of k1 = 16"),
        (["dot-error", "--formats", "nope"], "unknown dot-product operand format"),
    ],
)
def test_bad_dot_input_gives_one_line_and_exit_code_2(args, message):
    out = fpforge(*args)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert message in out.stderr


def test_dot_error_table_and_json(tmp_path):
    path = tmp_path / "e.txt"
    assert main(["dot-error", "--formats", "mx9,fp8", "--f", "8,48", "--r", "32", "--vectors", "200",
                 "-o", str(path)]) == 0
    rows = [l.split() for l in path.read_text().splitlines() if not l.startswith(("#", "format"))]
    assert [(r[0], r[2]) for r in rows] == [("mx9", "8"), ("mx9", "48"), ("fp8", "8"), ("fp8", "48")]
    assert float(rows[1][3]) == 100.0 and float(rows[0][3]) < 50
    jpath = tmp_path / "e.json"
    assert main(["dot-error", "--formats", "mxint8", "--f", "16", "--r", "32", "--vectors", "50", "--json",
                 "-o", str(jpath)]) == 0
    report = json.loads(jpath.read_text())
    assert report["rows"][0]["format"] == "mxint8" and report["rows"][0]["W"] == 20


@pytest.mark.synth
def test_synth_dot_reports_area_and_flip_flops(tmp_path):
    path = tmp_path / "r.json"
    assert main(["synth", "dot", "--preset", "mx4", "--r", "16", "--f", "12", "--io-registers", "--json",
                 "-o", str(path)]) == 0
    report = json.loads(path.read_text())
    assert report["config"]["unit"] == "dot" and report["config"]["io_registers"] is True
    assert report["flip_flops"] == 2 * 64 + 32  # operands (one 64-bit mx4 block each) and the FP32 result
    assert report["area_um2"] > 0


@pytest.mark.sim
def test_sim_command_runs_a_dot_regression(tmp_path):
    if available_simulators()["icarus"]:
        pytest.skip(available_simulators()["icarus"])
    out = fpforge("sim", "dot", "--preset", "bdr", "--m", "2", "--k1", "4", "--d1", "3", "--k2", "2", "--d2", "1",
                  "--r", "8", "--f", "10", "--stages", "2", "--raw", "--simulator", "icarus", "--vectors", "500",
                  "--build-dir", str(tmp_path))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS fpforge_dot_bdr_m2_k4_d3_k2_d1_r8_f10_raw_s2 on icarus:" in out.stdout
