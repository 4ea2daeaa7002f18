"""Several stream units in one simulation model, sharing one input stream: one Verilator build checks them all.

A Verilator model costs a fixed ~10 s (its runtime library) plus the design's C++; configurations that take
the same operands and differ only in elaboration parameters (a dot product's window width f, or an FP8
unit fixed to E4M3 beside one that selects E4M3/E5M2 at run time) are therefore checked together: the
wrapper feeds every unit the same payload (each takes the low bits its own payload needs, so each unit's
input fields must be a prefix of the first unit's) and the same ``o__ready``, and concatenates their result
payloads. The units are the unmodified generated modules; they must run in lockstep (same latency), and
a ``desync`` bit — set for good when their ``i__ready`` or ``o__valid`` ever differ — is part of the output
payload and expected to be 0.
"""

from __future__ import annotations

from ..golden.errors import FpforgeValueError

__all__ = ["bundle_wrapper"]


def bundle_wrapper(name: str, units: list) -> str:
    """Verilog-2005 text of module ``name`` around ``units`` = ``[(module, in_width, out_width), ...]``.

    Output payload: unit 0's payload in the low bits, then unit 1's, …, then ``desync`` on top.
    """
    if not units:
        raise FpforgeValueError("a bundle needs at least one unit")
    wi = units[0][1]
    if any(w > wi for _, w, _ in units):
        raise FpforgeValueError("the first unit of a bundle must have the widest input payload")
    k = len(units)
    wo = sum(w for _, _, w in units) + 1
    lines = [f"// {k} stream units sharing one input stream (fpforge.sim.bundle).",
             f"module {name}(clk, rst, i__valid, i__ready, i__payload, o__valid, o__ready, o__payload);",
             "  input clk;", "  input rst;", "  input i__valid;", "  output i__ready;",
             f"  input [{wi - 1}:0] i__payload;", "  output o__valid;", "  input o__ready;",
             f"  output [{wo - 1}:0] o__payload;",
             f"  wire [{k - 1}:0] iready;", f"  wire [{k - 1}:0] ovalid;"]
    for n, (_, _, w) in enumerate(units):
        lines.append(f"  wire [{w - 1}:0] p{n};")
    for n, (mod, w_in, _) in enumerate(units):
        lines.append(f"  {mod} u{n} (.clk(clk), .rst(rst), .i__valid(i__valid), .i__ready(iready[{n}]), "
                     f".i__payload(i__payload[{w_in - 1}:0]), .o__valid(ovalid[{n}]), .o__ready(o__ready), "
                     f".o__payload(p{n}));")
    lines += [
        "  wire mismatch;",
        "  assign mismatch = ((&iready) != (|iready)) || ((&ovalid) != (|ovalid));",
        "  reg seen;",
        "  initial seen = 1'b0;",
        "  always @(posedge clk) if (rst) seen <= 1'b0; else if (mismatch) seen <= 1'b1;",
        "  assign i__ready = &iready;",
        "  assign o__valid = &ovalid;",
        "  assign o__payload = {seen | mismatch, " + ", ".join(f"p{n}" for n in reversed(range(k))) + "};",
        "endmodule",
    ]
    return "\n".join(lines) + "\n"
