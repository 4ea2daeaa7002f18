"""The reuse flow of ``fpforge.synth.synthesize(..., reuse=True)`` (real yosys, no mocks): each multiplier
synthesized once per shape and counted once per instance, and its area against the flat flow's on a real
dot-product unit within the tolerance docs/sweep.md states (the sweep's ``--flow reuse``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fpforge.hw import build_unit, to_verilog
from fpforge.synth import SynthError, flow, synthesize

__all__: list[str] = []

pytestmark = pytest.mark.synth


@pytest.fixture
def vfile(tmp_path: Path):
    """Write Verilog text to a file and return its path."""

    def make(text: str, name: str = "design.v") -> Path:
        (tmp_path / name).write_text(text)
        return tmp_path / name

    return make


QUAD_MUL_V = """
module quad(input clk, input [5:0] a0, b0, a1, b1, a2, b2, a3, b3, output reg [11:0] y0, y1, y2, y3);
  always @(posedge clk) begin
    y0 <= a0 * b0; y1 <= a1 * b1; y2 <= a2 * b2; y3 <= a3 * b3;
  end
endmodule
"""

MUL6_V = """
module mul6(input [5:0] a, input [5:0] b, output [11:0] p);
  assign p = a * b;
endmodule
"""

CONST_MUL_V = """
module cmul(input [5:0] a, output [11:0] p);
  assign p = a * 6'd45;
endmodule
"""

MULS_IL = r"""
module \top
  cell $mul \fpforge_mul_0
    parameter \A_SIGNED 0
    parameter \A_WIDTH 6
    parameter \B_SIGNED 0
    parameter \B_WIDTH 4
    connect \A \a
    connect \B \b [3:0]
    connect \Y \p
  end
  cell $mul \fpforge_mul_1
    parameter \A_SIGNED 0
    parameter \A_WIDTH 4
    parameter \B_SIGNED 0
    parameter \B_WIDTH 4
    connect \A \k
    connect \B 4'1011
    connect \Y \q
  end
  cell $mul \fpforge_mul_2
    parameter \A_SIGNED 0
    parameter \A_WIDTH 5
    parameter \B_SIGNED 0
    parameter \B_WIDTH 5
    connect \A { \s [3] \s [3:0] }
    connect \B { 1'0 \t }
    connect \Y \r
  end
  cell $mul \fpforge_mul_3
    parameter \A_SIGNED 1
    parameter \A_WIDTH 8
    parameter \B_SIGNED 1
    parameter \B_WIDTH 8
    connect \A \u
    connect \B \v
    connect \Y \w
  end
  cell $mul \fpforge_mul_4
    parameter \A_SIGNED 0
    parameter \A_WIDTH 3
    parameter \B_SIGNED 0
    parameter \B_WIDTH 32'00000000000000000000000000000011
    connect \A \c
    connect \B \d
    connect \Y \e
  end
  cell $mul \fpforge_mul_5
    parameter \A_SIGNED 0
    parameter \A_WIDTH 32'00000000000000000000000000000100
    parameter \B_SIGNED 0
    parameter \B_WIDTH 4
    connect \A \g
    connect \B \h
    connect \Y \i
  end
end
"""


def test_reusable_multipliers_skip_constant_operands_signed_and_narrow_ones():
    # _1 and _2 carry constant bits (the separate module would lose them), _3 is signed, _4 has a 3-bit operand
    # (narrower than REUSE_MIN_WIDTH); _0 and _5 (a width written as a 32-bit constant) qualify
    assert flow.REUSE_MIN_WIDTH == 4
    assert flow.reusable_multipliers(MULS_IL) == ["\\fpforge_mul_0", "\\fpforge_mul_5"]


def test_reuse_counts_each_instance_of_one_synthesized_multiplier(vfile):
    single = synthesize(vfile(MUL6_V, "mul6.v"), "mul6")
    reuse = synthesize(vfile(QUAD_MUL_V), "quad", reuse=True)
    flat = synthesize(vfile(QUAD_MUL_V), "quad")
    assert reuse["reuse"] is True and flat["reuse"] is False
    # the four multipliers are one module, mapped once, counted four times, beside 48 output flops
    assert reuse["flip_flops"] == 48 and reuse["cells"]["DFF_X1"] == 48
    assert reuse["area_um2"] == pytest.approx(4 * single["area_um2"] + 48 * 4.522, abs=1e-3)
    assert reuse["cell_count"] == 4 * single["cell_count"] + 48
    assert reuse["logic_depth"] == single["logic_depth"]  # measured on the flattened netlist
    assert abs(reuse["area_um2"] / flat["area_um2"] - 1) < 0.05


def test_reuse_keeps_a_constant_multiplier_in_place(vfile):
    full = synthesize(vfile(MUL6_V, "mul6.v"), "mul6", reuse=True)
    const = synthesize(vfile(CONST_MUL_V, "cmul.v"), "cmul", reuse=True)
    assert const["area_um2"] == pytest.approx(synthesize(vfile(CONST_MUL_V, "cmul.v"), "cmul")["area_um2"], rel=0.02)
    assert const["area_um2"] < 0.6 * full["area_um2"]  # constant propagated: shifts and adds, not a multiplier


def test_reuse_and_keep_hierarchy_do_not_combine(vfile):
    with pytest.raises(SynthError, match="keep_hierarchy"):
        synthesize(vfile(MUL6_V), "mul6", reuse=True, keep_hierarchy=True)


def test_reuse_area_of_a_dot_unit_is_the_flat_area_within_the_stated_tolerance():
    # a real BDR dot unit (r = 4: four 4x4 multipliers of one shape), the paper's area method (I/O registered)
    verilog = to_verilog(build_unit(unit="dot", format="bdr_m4_k4_d8_k2_d1", r=4, f=12, io_registers=True), "dotr")
    flat = synthesize(verilog, "dotr")
    reuse = synthesize(verilog, "dotr", reuse=True)
    assert flat["reused_multipliers"] == 0 and reuse["reused_multipliers"] == 4
    assert reuse["flip_flops"] == flat["flip_flops"]  # same registers: only the combinational mapping differs
    assert abs(reuse["area_um2"] / flat["area_um2"] - 1) <= flow.REUSE_AREA_TOLERANCE
    # 2x2 multipliers (m = 1) are too narrow to take out: the reuse flow is then the flat flow, area and all (r = 2)
    narrow = to_verilog(build_unit(unit="dot", format="bdr_m1_k2_d8_k1_d1", r=2, f=8, io_registers=True), "dotn")
    flat, reuse = synthesize(narrow, "dotn"), synthesize(narrow, "dotn", reuse=True)
    assert reuse["reused_multipliers"] == 0 and reuse["area_um2"] == flat["area_um2"]
