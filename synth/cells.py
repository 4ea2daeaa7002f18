"""Verilog simulation models of Liberty cells, generated from the cells' ``function`` attributes.

A gate-level netlist from :func:`fpforge.synth.synthesize` (``netlist=True``) instantiates library cells
by name; to simulate it (``fpforge prove --netlist``) every cell needs a Verilog module. Each output pin's
Boolean ``function`` is turned into its truth table by the synthesis flow's own Liberty reader and
function evaluator (no second parser). The model assigns the function itself, spelled in Verilog, when
that spelling provably has the same truth table (simulators evaluate it ~2x faster than a table lookup),
else the table indexed by the input pins::

    module NAND2_X1 (A1, A2, ZN);            module ODD_X1 (A, B, Z);   // e.g. "A B'"
      input A1; input A2; output ZN;           input A; input B; output Z;
      assign ZN = ~(A1 & A2);                  localparam [3:0] Z_TABLE = 4'b0010;
    endmodule                                  assign Z = Z_TABLE[{B, A}];
                                             endmodule

The Verilog spelling maps ``!`` to ``~``, ``*`` to ``&`` and ``+`` to ``|`` and is checked by evaluating
it with Verilog's operator precedence (Python's, for ``~ & ^ |``) over every input assignment against the
evaluator's table; juxtaposed operands, postfix ``'`` and other forms keep the table. Either way the
simulated netlist computes exactly what the library says each cell computes. Sequential cells
(``ff``/``latch`` groups), outputs without a function (three-state, analog) and unparseable functions are
refused: the prover handles combinational units.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..golden.errors import FpforgeValueError
from .liberty import DEFAULT_LIBERTY, check_liberty, function_truth_table

__all__ = ["cell_models"]


def _escaped(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_][\w$]*", name) else f"\\{name} "


def _verilog_function(function: str, inputs, table: int) -> str | None:
    """``function`` spelled in Verilog if that spelling has truth table ``table`` over ``inputs``, else None."""
    tokens = re.findall(r"[A-Za-z_]\w*|\S", function)
    if not tokens or any(t not in inputs and t not in "()!&|^*+01" for t in tokens):
        return None
    spelled = {"!": "~", "*": "&", "+": "|", "0": "1'b0", "1": "1'b1"}
    verilog = " ".join(spelled.get(t, t) for t in tokens).replace("( ", "(").replace(" )", ")").replace("~ ", "~")
    full = (1 << (1 << len(inputs))) - 1
    env = {p: sum(1 << k for k in range(1 << len(inputs)) if (k >> i) & 1) for i, p in enumerate(inputs)}
    env.update(ZERO=0, FULL=full)
    python = " ".join({"!": "~", "*": "&", "+": "|", "0": "ZERO", "1": "FULL"}.get(t, t) for t in tokens)
    try:
        value = eval(python, {"__builtins__": {}}, env) & full  # noqa: S307 - tokens checked above
    except (SyntaxError, TypeError):
        return None
    return verilog if value == table else None


def cell_models(liberty=None, cells=None) -> str:
    """Verilog modules for ``cells`` (default: every combinational cell) of ``liberty`` (default
    ``fpforge45.lib``).

    Raises
    ------
    FpforgeValueError
        A requested cell is missing from the library, is sequential, or has an output without a usable
        Boolean function.
    SynthError
        The Liberty file is missing or malformed.
    """
    path, lib = check_liberty(DEFAULT_LIBERTY if liberty is None else liberty)
    names = sorted(n for n, c in lib.cells.items() if not c.sequential) if cells is None else sorted(cells)
    out = [f"// Cell models generated from the functions of {Path(path).name} (fpforge.synth.cells).\n"]
    for name in names:
        cell = lib.cells.get(name)
        if cell is None:
            raise FpforgeValueError(f"the netlist uses cell {name!r}, which {Path(path).name} does not define")
        if cell.sequential:
            raise FpforgeValueError(f"cell {name} of {Path(path).name} is sequential; netlist proofs handle "
                                    "combinational units only")
        inputs = list(cell.inputs)
        pins = ", ".join(_escaped(p) for p in [*inputs, *cell.outputs])
        lines = [f"module {_escaped(name)} ({pins});"]
        lines += [f"  input {_escaped(p)};" for p in inputs]
        index = "{" + ", ".join(_escaped(p) for p in reversed(inputs)) + "}"
        for pin, function in cell.outputs.items():
            table = function_truth_table(function, inputs) if function else None
            if table is None:
                raise FpforgeValueError(f"output {pin} of cell {name} has no Boolean function the prover can "
                                        f"simulate ({function!r})")
            lines.append(f"  output {_escaped(pin)};")
            plain = all(re.fullmatch(r"[A-Za-z_]\w*", p) for p in inputs)
            expression = _verilog_function(function, inputs, table) if plain else None
            if expression is not None:
                lines.append(f"  assign {_escaped(pin)} = {expression};")
            elif inputs:
                n = 1 << len(inputs)
                param = re.sub(r"\W", "_", pin) + "_TABLE"
                lines.append(f"  localparam [{n - 1}:0] {param} = {n}'b{table:0{n}b};")
                lines.append(f"  assign {_escaped(pin)} = {param}[{index}];")
            else:
                lines.append(f"  assign {_escaped(pin)} = 1'b{table & 1};")
        lines.append("endmodule\n")
        out.append("\n".join(lines))
    return "\n".join(out)
