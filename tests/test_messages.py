"""Clear messages (issue 30, class 6) that tests/bad_inputs.py cannot hold as data: ``fpforge --version``, a
host without g++ (but with make and perl) for prove and sim, each missing tool named once with its package."""

from __future__ import annotations

import os
import shutil

import pytest

import fpforge
from fpforge.cli import main

from error_messages import assert_no_internals, internals_in


def test_version_prints_the_package_version(capsys):
    assert main(["--version"]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == f"fpforge {fpforge.__version__}" and not err


@pytest.fixture
def no_gxx(tmp_path, monkeypatch):
    """PATH with make and perl but no g++; a private (empty) cache, so nothing is built already."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("make", "perl"):
        real = shutil.which(tool)
        if real is None:
            pytest.skip(f"{tool} is not installed here")
        os.symlink(real, tools / tool)
    monkeypatch.setenv("PATH", str(tools))
    monkeypatch.setenv("FPFORGE_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("argv, expected", [
    (["prove", "encoder", "--format", "e4m3", "--source", "fp16"],
     "fpforge: error: fpforge prove (to build its Verilator harness) needs g++ on the host (not on PATH); "
     "apt-get install g++"),
    (["sim", "decoder", "--format", "e4m3", "--simulator", "verilator"],
     "fpforge: error: verilator needs g++ on the host; apt-get install g++"),
], ids=["prove", "sim"])
def test_missing_gxx_is_named_with_its_package(no_gxx, argv, expected, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 2 and err.strip() == expected and out == "", (status, out, err)


def test_error_message_checks_catch_what_they_claim():
    """The checks applied to every bad input find the faults of the issue (so they can fail)."""
    assert internals_in("fpforge: error: fpforge: unrecognized arguments: extra") == ["doubled prefix"]
    assert internals_in("fpforge: error: fpforge prove: argument --jobs: invalid int value") == ["doubled prefix"]
    assert internals_in("fpforge: error: precision_by_exponent takes a scalar format, not 'mx9'") == [
        "precision_by_exponent"]
    assert internals_in("fpforge: error: _scalar_format() got 'mx9'") == ["_scalar_format"]
    assert internals_in("encode() got 'mx9'", functions=False) == []
    assert_no_internals("fpforge: error: rand_bits must be an integer in 1..32, not 0; bdr_m<M>_k<K1>_d<D1>")
    assert_no_internals("fpforge: error: fpforge prove handles scalar narrow formats, not 'mx9'")


# Verilator's warning for a loop, as the prove harness' build log has it (the wrapper's lane prefix included).
_UNOPTFLAT = """%Warning-UNOPTFLAT: unit0.v:4:15: Signal unoptimizable: Circular combinational logic: \
'fpforge_prove_top.lane[0].u.p'
                    ... For warning description see https://verilator.org/warn/UNOPTFLAT?v=0.000
%Warning-UNOPTFLAT: unit0.v:9:15: Signal unoptimizable: Circular combinational logic: 'fpforge_prove_top.lane[3].u.q'
%Warning-UNOPTFLAT: unit0.v:4:15: Signal unoptimizable: Circular combinational logic: 'fpforge_prove_top.lane[1].u.p'
"""


def test_loop_signals_are_named_without_the_wrapper():
    from fpforge.prove_common import loop_signals

    assert loop_signals(_UNOPTFLAT) == ["p", "q"]
    assert loop_signals("%Warning-WIDTHEXPAND: unit0.v:3: Operator ASSIGNW expects 16 bits") == []


_LOOP_V = """module fpforge_dec_e4m3_fp16(y, a);
  input [7:0] a;
  output [15:0] y;
  wire [15:0] p;
  wire [15:0] q;
  assign p = q ^ {8'd0, a};
  assign q = p + 16'd1;
  assign y = q;
endmodule
"""


@pytest.mark.slow
def test_prove_names_a_combinational_loop(tmp_path, monkeypatch, capsys):
    """A user's decoder whose output feeds its own input: the harness builds (Verilator only warns), the
    model never settles, and prove says "combinational loop" with the signal, not the harness' exit code."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FPFORGE_CACHE", str(tmp_path / "cache"))
    (tmp_path / "loop.v").write_text(_LOOP_V)
    status = main(["prove", "decoder", "--format", "e4m3", "--target", "fp16", "--verilog", "loop.v"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1, err
    assert err[0] == ("fpforge: error: fpforge_dec_e4m3_fp16 has a combinational loop (Verilator: circular logic "
                      "through p); a combinational unit's outputs must not feed back into their own inputs")
