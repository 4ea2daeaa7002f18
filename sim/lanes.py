"""A Verilog wrapper that puts L copies of a combinational unit side by side.

cocotb pays a fixed cost per signal access, so a testbench that sets one wide vector for L values checks
L values for the price of one. Every lane is an unmodified instance of the generated module.
"""

from ..golden.errors import FpforgeValueError

__all__ = ["lanes_wrapper", "verilog_port"]

# SystemVerilog keywords that fpforge port names use; Amaranth writes such ports as escaped identifiers.
_SV_KEYWORDS = {"rand"}


def verilog_port(name: str) -> str:
    """How a port is named in a connection: ``rand`` is a SystemVerilog keyword, so it is ``\\rand ``."""
    return f"\\{name} " if name in _SV_KEYWORDS else name


def lanes_wrapper(top: str, ports: dict, lanes: int) -> str:
    """Verilog-2005 text of ``lanes_<top>``: each port ``p`` of width W becomes ``p_l[lanes*W-1:0]``."""
    if lanes < 1:
        raise FpforgeValueError(f"lanes must be positive, not {lanes!r}")
    names = [f"{p}_l" for p in ports]
    lines = [f"// {lanes} lanes of {top}, for cocotb throughput (fpforge.sim.lanes).",
             f"module lanes_{top}({', '.join(names)});"]
    for p, (direction, width) in ports.items():
        kind = "input" if direction == "in" else "output"
        lines.append(f"  {kind} [{lanes * width - 1}:0] {p}_l;")
    lines.append("  genvar i;")
    lines.append("  generate for (i = 0; i < %d; i = i + 1) begin : lane" % lanes)
    conns = ", ".join(f".{verilog_port(p)}({p}_l[i*{w} +: {w}])" for p, (_, w) in ports.items())
    lines.append(f"    {top} u ({conns});")
    lines.append("  end endgenerate")
    lines.append("endmodule")
    return "\n".join(lines) + "\n"
