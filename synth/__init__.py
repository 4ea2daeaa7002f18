"""Synthesis and area estimation (yosys + a Liberty cell library).

See :mod:`fpforge.synth.flow` for the flow and the definitions of gate equivalents (GE) and logic depth,
:mod:`fpforge.synth.liberty` for reading a library's cells (``read_liberty``) and
:mod:`fpforge.synth.yosys` for which yosys runs (``yosys_backend``).
"""

if __name__ != "fpforge.synth":  # the folder imported as a top-level package: a second copy of fpforge
    raise ImportError(f"import fpforge.synth, not {__name__}: the folder synth/ is installed as fpforge.synth "
                      "(run `make setup`, then use `import fpforge.synth`)")

from .errors import SynthError
from .flow import DEFAULT_ABC_SCRIPT, FAST_ABC_SCRIPT, format_report, synthesize
from .liberty import DEFAULT_LIBERTY, Cell, Liberty, function_truth_table, nand2_reference, read_liberty
from .yosys import yosys_backend

__all__ = [
    "DEFAULT_ABC_SCRIPT",
    "DEFAULT_LIBERTY",
    "FAST_ABC_SCRIPT",
    "Cell",
    "Liberty",
    "SynthError",
    "format_report",
    "function_truth_table",
    "nand2_reference",
    "read_liberty",
    "synthesize",
    "yosys_backend",
]
