"""`fpforge sim UNIT ... --verilog/--vhdl FILE... --top NAME --ports MAP`: the unit's testbench, stimulus and
golden comparison on a user's design (issue 31, items 1 and 4).

The VHDL designs are hand-written for these tests (tests/data/e5m2_to_fp32.vhd: an OCP E5M2 -> FP32 decoder;
e5m2_to_fp32_stream.vhd: a one-stage valid/ready stream around it) and run on GHDL; the Verilog one is
fpforge's own generated encoder with its module and ports renamed, run on Icarus (a quick build; Verilator in
the slow variant)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from fpforge.cli import main
from fpforge.golden.errors import FpforgeValueError
from fpforge.sim.regress import regress_unit
from fpforge.sim.userdesign import UserDesign, vhdl_entities, vhdl_ports

DATA = Path(__file__).parent / "data"
DECODER = DATA / "e5m2_to_fp32.vhd"
STREAM = DATA / "e5m2_to_fp32_stream.vhd"
DEC_CFG = dict(unit="decoder", format="e5m2", target="fp32")
DEC_ARGS = ["sim", "decoder", "-f", "e5m2", "--target", "fp32"]
STREAM_PORTS = ("clk=clock,rst=reset,i_valid=in_valid,i_ready=in_ready,a=in_code,o_valid=out_valid,"
                "o_ready=out_ready,y=out_value")

needs_ghdl = pytest.mark.skipif(shutil.which("ghdl") is None, reason="GHDL not installed (apt-get install ghdl)")


def _sim(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr().out


# -- VHDL on GHDL ------------------------------------------------------------------------------------------
@needs_ghdl
def test_hand_written_vhdl_decoder_passes_every_code(tmp_path):
    design = UserDesign([DECODER], "vhdl", ports={"a": "code", "y": "value"})
    result = regress_unit(DEC_CFG, "ghdl", design=design, build_root=tmp_path)
    assert result.passed, result.summary()
    assert (result.top, result.simulator, result.vectors) == ("e5m2_to_fp32", "ghdl", 256)
    assert result.notes == ("ports: a=code, y=value",)


@needs_ghdl
def test_one_entry_mutant_fails_naming_the_entry_expected_actual_and_seed(tmp_path, capsys):
    mutant = tmp_path / "mutant.vhd"
    text = DECODER.read_text()
    assert "    value <= v;" in text
    mutant.write_text(text.replace("    value <= v;", "    if code = x\"3c\" then v(0) := '1'; end if;\n"
                                                      "    value <= v;"))
    code, out = _sim(capsys, *DEC_ARGS, "--vhdl", str(mutant), "--ports", "a=code,y=value",
                     "--build-dir", str(tmp_path / "b"))
    assert code == 1
    assert "FAIL e5m2_to_fp32 on ghdl" in out
    bad = [line.strip() for line in out.splitlines() if line.strip().startswith("vector ")]
    assert bad == ["vector 60 (all codes): a=0x3c -> y: expected 0x3f800000 got 0x3f800001"]  # 1.0 is 0x3c
    assert "seed 1" in out


@needs_ghdl
def test_stream_with_another_latency_than_declared_fails_naming_the_latency(tmp_path, capsys):
    code, out = _sim(capsys, *DEC_ARGS, "--latency", "2", "--vhdl", str(DECODER), str(STREAM), "--top",
                     "e5m2_stream", "--ports", STREAM_PORTS, "--build-dir", str(tmp_path))
    assert code == 1
    assert "latency: value 0 left 1 cycles after it entered, not 2" in out
    assert not re.search(r"^\s*vector \d", out, re.M)  # every value right: only its timing is wrong


@needs_ghdl
@pytest.mark.slow
def test_vhdl_stream_of_the_declared_latency_passes_with_stalls(tmp_path, capsys):
    code, out = _sim(capsys, *DEC_ARGS, "--latency", "1", "--vhdl", str(DECODER), str(STREAM), "--top",
                     "e5m2_stream", "--ports", STREAM_PORTS, "--build-dir", str(tmp_path))
    assert code == 0, out
    assert "PASS e5m2_stream on ghdl: 256 vectors" in out


# -- Verilog: fpforge's own unit, renamed ------------------------------------------------------------------
_RENAMES = {"a": "x", "y": "code", "mode": "rm", "sat": "saturate", "flags": "status"}


def _renamed_encoder(tmp_path, capsys, drop_flags=False):
    """fpforge's encoder with module my_enc and the ports of _RENAMES (its flags port removed: drop_flags)."""
    assert main(["verilog", "encoder", "-f", "e4m3", "--rounding", "rne,rtz", "--sat-port", "--name", "my_enc",
                 "-o", str(tmp_path / "gen.v")]) == 0
    capsys.readouterr()
    text = (tmp_path / "gen.v").read_text()
    start = text.index("module my_enc(")
    end = text.index("endmodule", start)
    top = text[start:end]
    for old, new in _RENAMES.items():  # not the connections' formal names (.mode(...)) nor escaped names
        top = re.sub(rf"(?<![.\\$\w]){old}\b", new, top)
    if drop_flags:
        top = re.sub(r"\bstatus, ", "", top, count=1).replace("output [4:0] status;", "")
    path = tmp_path / "my_enc.v"
    path.write_text(text[:start] + top + text[end:])
    assert "fpforge_enc" not in path.read_text().split("module my_enc(")[1].split(";")[0]
    return path


ENC_ARGS = ["sim", "encoder", "-f", "e4m3", "--rounding", "rne,rtz", "--sat-port"]
ENC_PORTS = ",".join(f"{k}={v}" for k, v in _RENAMES.items())


@pytest.mark.parametrize("sim", ["icarus", pytest.param("verilator", marks=pytest.mark.slow)])
def test_generated_verilog_with_renamed_module_and_ports_passes_through_ports(sim, tmp_path, capsys, simulators):
    if simulators[sim]:
        pytest.skip(f"{sim} not available: {simulators[sim]}")
    path = _renamed_encoder(tmp_path, capsys)
    code, out = _sim(capsys, *ENC_ARGS, "--verilog", str(path), "--top", "my_enc", "--ports", ENC_PORTS,
                     "--simulator", sim, "--vectors", "300", "--build-dir", str(tmp_path / "b"))
    assert code == 0, out
    assert "ports: a=x, y=code, flags=status, mode=rm, sat=saturate" in out
    assert re.search(rf"PASS my_enc on {sim}: \d+ vectors", out)


def test_ports_the_design_lacks_are_listed_as_not_checked(tmp_path, capsys):
    path = _renamed_encoder(tmp_path, capsys, drop_flags=True)
    design = UserDesign([path], "verilog", "my_enc", {k: v for k, v in _RENAMES.items() if k != "flags"})
    from fpforge.hw.generate import build_unit
    from fpforge.sim.ports import ports_of

    unit = build_unit("encoder", format="e4m3", rounding=("rne", "rtz"), saturate="runtime")
    _, _, checked = design.comb(ports_of(unit), 4)
    assert "flags" not in checked and {"a", "y", "mode", "sat"} <= set(checked)
    assert "not checked (my_enc has no such port): flags" in design.notes


# -- reading a VHDL entity ---------------------------------------------------------------------------------
def test_vhdl_ports_read_types_directions_generics_and_case():
    text = """-- a comment: entity fake is
    ENTITY Dut IS
      generic (N : natural := 4; M : integer := N * 2);
      port (
        CLK : in std_logic;
        d, e : in unsigned(M - 1 downto 0);  -- two at once
        q : out ieee.numeric_std.signed(0 to N);
        b : buffer bit_vector(3 downto 0);
        s : out std_ulogic
      );
    end entity;
    """
    assert vhdl_entities([text]) == ["dut"]
    assert vhdl_ports([text], "dut") == {"clk": ("in", 1, "std_logic"), "d": ("in", 8, "unsigned"),
                                         "e": ("in", 8, "unsigned"), "q": ("out", 5, "signed"),
                                         "b": ("out", 4, "bit_vector"), "s": ("out", 1, "std_ulogic")}


def test_vhdl_port_of_a_type_fpforge_cannot_drive_is_named():
    text = "entity t is port (x : in integer range 0 to 255; y : out std_logic_vector(7 downto 0)); end;"
    with pytest.raises(FpforgeValueError, match="port x has type 'integer range 0 to 255'; fpforge connects"):
        vhdl_ports([text], "t")


def test_the_vhdl_example_of_the_usage_guide_is_the_tested_file():
    usage = (Path(__file__).parent.parent / "docs" / "usage.md").read_text()
    block = usage.split("```vhdl\n", 1)[1].split("```", 1)[0]
    assert block == DECODER.read_text()


@needs_ghdl
def test_vhdl_that_ghdl_rejects_is_one_error_naming_file_and_line(tmp_path):
    from fpforge.golden.errors import ToolError

    broken = tmp_path / "broken.vhd"
    broken.write_text(DECODER.read_text().replace("    value <= v;", "    value <= v"))
    design = UserDesign([broken], "vhdl", ports={"a": "code", "y": "value"})
    with pytest.raises(ToolError, match=r"ghdl could not build e5m2_to_fp32: \S*broken\.vhd:\d+:\d+: "):
        regress_unit(DEC_CFG, "ghdl", design=design, build_root=tmp_path / "b")


@pytest.mark.slow
def test_verilog_stream_design_with_separate_field_ports_passes_on_icarus(tmp_path, capsys, simulators):
    if simulators["icarus"]:
        pytest.skip(f"icarus not available: {simulators['icarus']}")
    assert main(["verilog", "encoder", "-f", "e4m3", "--latency", "2", "--name", "genstream", "-o",
                 str(tmp_path / "genstream.v")]) == 0
    (tmp_path / "vstream.v").write_text(
        "module vstream(input clock, input reset, input in_valid, output in_ready, input [31:0] x, output out_valid,\n"
        "               input out_ready, output [7:0] code, output [4:0] status);\n"
        "  wire [12:0] p;\n"
        "  genstream g(.clk(clock), .rst(reset), .i__valid(in_valid), .i__ready(in_ready), .i__payload(x),\n"
        "              .o__valid(out_valid), .o__ready(out_ready), .o__payload(p));\n"
        "  assign code = p[7:0];\n  assign status = p[12:8];\nendmodule\n")
    capsys.readouterr()
    code, out = _sim(capsys, "sim", "encoder", "-f", "e4m3", "--latency", "2", "--verilog",
                     str(tmp_path / "genstream.v"), str(tmp_path / "vstream.v"), "--top", "vstream", "--ports",
                     "clk=clock,rst=reset,i_valid=in_valid,i_ready=in_ready,a=x,o_valid=out_valid,o_ready=out_ready,"
                     "y=code,flags=status", "--simulator", "icarus", "--vectors", "300",
                     "--build-dir", str(tmp_path / "b"))
    assert code == 0, out
    assert re.search(r"PASS vstream on icarus: \d+ vectors", out)


def test_vhdl_range_fpforge_cannot_read_is_named():
    text = "entity t is port (x : in std_logic_vector(log2(W) downto 0); y : out std_logic); end;"
    with pytest.raises(FpforgeValueError, match=r"the range of port x \(\(log2\(w\) downto 0\)\) is not an integer"):
        vhdl_ports([text], "t")
