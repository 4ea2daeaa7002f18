"""The scaling commands as a user meets them: `fpforge scale`, `fpforge scaling-demo` and the
`scaled-encoder` unit of `fpforge verilog`; bad input is one line on stderr with exit code 2."""

import json
import os
import subprocess
import sys

import pytest

from fpforge import cmd_scaling
from fpforge.cli import main


def fpforge(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "fpforge", *args], capture_output=True, text=True, cwd=cwd)


def one_line_error(capsys, *args):
    """Run the command in-process: exit code 2, nothing on stdout, one line on stderr (returned)."""
    assert main(list(args)) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.count("\n") == 1 and out.err.startswith("fpforge: error: "), out.err
    return out.err


def test_scale_reproduces_the_rfc_example():
    out = fpforge("scale", "--format", "e4m3", "--values", "6.103515625e-05,2,7")
    assert out.returncode == 0, out.stderr
    assert "scale  64 (0x42800000)" in out.stdout
    rows = [line.split() for line in out.stdout.splitlines() if line.startswith(("6.1", "2 ", "7 "))]
    assert [(r[2], r[3]) for r in rows] == [("0x02", "0.00390625"), ("0x70", "128"), ("0x7e", "448")]


def test_scale_json_and_the_amax_rules(capsys):
    assert main(["scale", "-f", "e5m2", "--amax", "0", "--prev-scale", "0.25", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scale"] == 0.25 and "previous scale 0.25 is kept" in out["notes"][0]
    assert main(["scale", "-f", "e4m3", "--amax", "5", "--pow2", "--margin", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scale"] == 32  # 224 / 5 = 44.8 -> 32
    assert main(["scale", "-f", "cfloat8_143", "--bias", "10", "--amax", "3", "--values", "1,-3", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [r["dequantized"] for r in rows] == [1.0, -3.0]


@pytest.mark.parametrize("args,text", [
    (["--scale", "0", "--values", "1"], "scale must be finite and positive, not 0.0"),
    (["--scale", "-2", "--values", "1"], "not -2.0"),
    (["--scale", "nan"], "not nan"),
    (["--scale", "inf"], "not inf"),
    (["--amax", "-1"], "amax must be >= 0"),
    (["--values", ""], "--values names no value"),
    (["--values", "1,x"], "--values takes numbers (a comma list), not '1,x'"),
    ([], "give --amax A, --scale S or --values"),
    (["--scale", "2", "--pow2"], "--margin and --pow2 shape a scale computed from an amax"),
    (["--amax", "1", "--margin", "65"], "margin must be an integer in 0..64"),
    (["--amax", "1", "--prev-scale", "0"], "prev_scale must be finite and positive"),
])
def test_scale_bad_input_is_one_line(args, text, capsys):
    assert text in one_line_error(capsys, "scale", "--format", "e4m3", *args)


def test_a_zero_scale_from_the_shell_leaves_no_traceback():
    out = fpforge("scale", "--format", "e4m3", "--scale", "0", "--values", "1")
    assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1
    assert "scale must be finite and positive" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("fmt,text", [("cfloat8_143", "give --bias B (0..63)"), ("mx9", "scalar formats"),
                                      ("e9m9", "unknown format 'e9m9'")])
def test_scale_rejects_formats_clearly(fmt, text, capsys):
    assert text in one_line_error(capsys, "scale", "--format", fmt, "--amax", "1")


def test_verilog_scaled_encoder(tmp_path):
    path = tmp_path / "senc.v"
    args = ["verilog", "scaled-encoder", "-f", "e4m3", "--lanes", "4", "--scaling", "pow2", "--rounding", "rne,sr"]
    assert main([*args, "-o", str(path)]) == 0
    text = path.read_text()
    assert "module fpforge_senc_fp32_e4m3_pow2_x4_l1(" in text and "input [140:0] i__payload;" in text
    assert fpforge(*args).stdout == text  # identical bytes
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".fpforge-")]


@pytest.mark.parametrize("args,text", [
    (["scaled-encoder", "-f", "e4m3", "--latency", "0"], "latency must be an integer >= 1, not 0"),
    (["scaled-encoder", "-f", "e4m3", "--lanes", "0"], "lanes must be an integer in 1..64, not 0"),
    (["scaled-encoder", "-f", "e4m3", "--source", "fp16"], "must be one of fp32, bf16, not 'fp16'"),
    (["scaled-encoder", "-f", "e4m3", "--target", "bf16"], "a scaled-encoder unit does not take target"),
    (["scaled-encoder", "-f", "e4m3", "--scaling", "log"], "invalid choice: 'log'"),
    (["encoder", "-f", "e4m3", "--lanes", "2"], "an encoder unit does not take lanes"),
    (["dot", "--preset", "mx9", "--r", "16", "--f", "16", "--scaling", "pow2"], "a dot unit does not take scaling"),
])
def test_verilog_scaled_encoder_bad_options(args, text, capsys):
    assert text in one_line_error(capsys, "verilog", *args)


def test_scaling_demo_tables_figure_and_docs(tmp_path, monkeypatch, capsys):
    fig = tmp_path / "demo.png"
    base = ["scaling-demo", "--steps", "24", "--size", "256", "--histories", "1,4", "--margins", "0",
            "--rounding-values", "8192"]
    assert main([*base, "--figure", str(fig)]) == 0
    out = capsys.readouterr().out
    assert "| current |" in out and "| delayed h=4 m=0 |" in out and "| hif8 | rne |" in out
    assert fig.read_bytes().startswith(b"\x89PNG")
    monkeypatch.setattr(cmd_scaling, "_DOCS", tmp_path)
    assert main([*base, "--docs", "--no-area", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [r["recipe"] for r in summary["recipes"]] == ["current", "delayed h=1 m=0", "delayed h=4 m=0"]
    results = (tmp_path / "results.md").read_text()
    assert "<!-- results:scaling-demo -->" in results and "<!-- results:scaling-rounding -->" in results
    assert "_Generated by `fpforge scaling-demo --docs --steps 24 --size 256" in results
    assert (tmp_path / "scaling_demo.png").exists()


@pytest.mark.parametrize("args,text", [
    (["--steps", "0"], "steps must be a positive integer, not 0"),
    (["--size", "-3"], "size must be a positive integer"),
    (["--histories", "1,x"], "--histories takes integers (a comma list)"),
    (["--histories", "0"], "histories (amax history lengths) must be integers in 1..1048576, at least one, not 0"),
    (["--margins", "70"], "margins (each scale divided by 2**margin) must be integers in 0..64, at least one, not 70"),
    (["--figure", "a.jpg"], "--figure must end in .png or .svg"),
    (["--format", "cfloat8_152"], "give --bias B"),
    (["--format", "mxfp8_e4m3"], "scalar formats"),
    (["--rounding", "hr"], "has no rounding 'hr'"),
])
def test_scaling_demo_bad_input(args, text, capsys):
    assert text in one_line_error(capsys, "scaling-demo", "--steps", "3", "--size", "16", "--rounding-values", "4096",
                                  *args)
