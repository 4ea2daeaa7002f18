"""The block-format command line: `fpforge verilog|sim|synth block-encoder|block-decoder`, `fpforge qsnr`,
block formats in `fpforge formats`; bad input gives one line and exit code 2."""

import json
import os

import pytest

from fpforge.cli import main
from fpforge.sim.run import available_simulators

from helpers import fpforge

__all__: list[str] = []

SMALL = ["--format", "bdr", "--m", "2", "--k1", "2", "--d1", "3", "--k2", "1", "--d2", "1"]



def test_formats_lists_block_formats_with_bits_per_element():
    out = fpforge("formats")
    assert out.returncode == 0
    lines = {l.split()[0]: l for l in out.stdout.splitlines() if l.strip()}
    assert lines["mx9"].split()[1:4] == ["9", "144", "16"]
    assert lines["msfp12"].split()[1] == "4.5" and lines["mxfp4_e2m1"].split()[1] == "4.25"
    assert "e4m3" in lines and "bdr_m<M>_k<K1>_d<D1>_k<K2>_d<D2>" in out.stdout


def test_block_verilog_is_deterministic_and_has_the_block_ports(tmp_path):
    a, b = tmp_path / "a.v", tmp_path / "b.v"
    args = ["verilog", "block-encoder", *SMALL, "--rounding", "all", "--latency", "1"]
    assert fpforge(*args, "-o", str(a)).returncode == 0
    assert fpforge(*args, "-o", "b.v", cwd=tmp_path).returncode == 0
    assert a.read_text() == b.read_text() and str(tmp_path) not in a.read_text()
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".fpforge-")]
    assert main(["verilog", "block-encoder", "--format", "mx4", "--rounding", "ta,rne", "-o", str(a)]) == 0
    text = a.read_text()
    assert "module fpforge_benc_fp32_mx4(" in text
    assert "input [511:0] a;" in text and "output [63:0] y;" in text and "input [2:0] mode;" in text
    assert main(["verilog", "block-decoder", "--format", "mxfp4_e2m1", "--latency", "2", "-o", str(a)]) == 0
    text = a.read_text()
    assert "module fpforge_bdec_mxfp4_e2m1_fp32_l2(" in text and "i__payload" in text


def test_bdr_options_build_any_point_and_override_presets(tmp_path):
    path = tmp_path / "u.v"
    assert main(["verilog", "block-encoder", *SMALL, "-o", str(path)]) == 0
    assert "module fpforge_benc_fp32_bdr_m2_k2_d3_k1_d1(" in path.read_text()
    assert main(["verilog", "block-encoder", "--format", "mx9", "--k2", "4", "-o", str(path)]) == 0
    assert "fpforge_benc_fp32_bdr_m7_k16_d8_k4_d1" in path.read_text()
    assert main(["verilog", "block-decoder", "--format", "bdr_m7_k16_d8_k2_d1", "-o", str(path)]) == 0
    assert "fpforge_bdec_mx9_fp32" in path.read_text()  # the preset's own name


@pytest.mark.parametrize(
    "args, message",
    [
        (["verilog", "block-encoder", "--format", "bdr", "--m", "3"], "missing --k1 --d1 --k2 --d2"),
        (["verilog", "block-encoder", "--format", "bdr", "--m", "3", "--k1", "16", "--d1", "8", "--k2", "3",
          "--d2", "1"], "k2 (sub-block size) must divide k1 = 16, not 3"),
        (["verilog", "block-encoder", "--format", "mx9", "--d1", "9"], "d1 (shared exponent bits) must be an integer 1..8"),
        (["verilog", "block-encoder", "--format", "mxfp8_e4m3", "--m", "3"], "apply to BDR formats"),
        (["verilog", "block-encoder", "--format", "e4m3"], "is a scalar format; its units are encoder, decoder"),
        (["verilog", "encoder", "--format", "mx9"], "is a block format; its units are block-encoder, block-decoder"),
        (["verilog", "block-encoder", "--format", "mx9", "--source", "fp16"], "valid choices: fp32, bf16"),
        (["verilog", "block-encoder", "--format", "mx9", "--rounding", "hr"], "valid choices: ta, rne, rtz, sr"),
        (["verilog", "block-encoder", "--format", "mx9", "--saturate"],
         "does not take saturate (block units always saturate)"),
        (["verilog", "block-decoder", "--format", "mx9", "--rounding", "ta"],
         "a block-decoder unit does not take rounding (a decoder is exact)"),
        (["verilog", "block-decoder", "--format", "mx9", "--target", "bf16"], "valid choices: fp32"),
        (["table", "mx9"], "is a block format"),
        (["qsnr", "--formats", "mx9,nope"], "unknown format 'nope'"),
        (["qsnr", "--formats", "mxfp4_e2m1", "--length", "48"], "not a multiple of mxfp4_e2m1's block size 32"),
        (["qsnr", "--vectors", "0"], "must be positive"),
    ],
)
def test_bad_block_input_gives_one_line_and_exit_code_2(args, message):
    out = fpforge(*args)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert message in out.stderr


def test_qsnr_table_and_json(tmp_path):
    path = tmp_path / "q.txt"
    assert main(["qsnr", "--formats", "mx9,msfp16,e4m3", "--vectors", "200", "-o", str(path)]) == 0
    rows = {l.split()[0]: l.split() for l in path.read_text().splitlines() if not l.startswith(("#", "format"))}
    assert set(rows) == {"mx9", "msfp16", "e4m3"}
    assert rows["mx9"][1] == "9" and rows["mx9"][2] == "ta" and float(rows["mx9"][3]) > 40
    assert rows["e4m3"][-1] == "-" and float(rows["mx9"][-1]) == pytest.approx(34.74, abs=0.01)
    jpath = tmp_path / "q.json"
    assert main(["qsnr", "--formats", "mxint8", "--vectors", "50", "--length", "64", "--json", "-o", str(jpath)]) == 0
    report = json.loads(jpath.read_text())
    assert report["vectors"] == 50 and report["rows"][0]["name"] == "mxint8" and report["rows"][0]["bits"] == 8.25


@pytest.mark.synth
def test_synth_block_unit_reports_area(tmp_path):
    path = tmp_path / "r.json"
    assert main(["synth", "block-decoder", *SMALL, "--json", "-o", str(path)]) == 0
    report = json.loads(path.read_text())
    assert report["area_um2"] > 0 and report["config"]["unit"] == "block-decoder"
    assert report["config"]["format"] == "bdr_m2_k2_d3_k1_d1"


@pytest.mark.sim
def test_sim_command_runs_a_block_regression(tmp_path):
    if available_simulators()["verilator"]:
        pytest.skip(available_simulators()["verilator"])
    out = fpforge("sim", "block-encoder", *SMALL, "--rounding", "all", "--latency", "1", "--vectors", "300",
                  "--build-dir", str(tmp_path))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS fpforge_benc_fp32_bdr_m2_k2_d3_k1_d1_l1 on verilator:" in out.stdout
