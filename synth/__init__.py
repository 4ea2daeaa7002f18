"""Synthesis and area estimation (yosys + a Liberty cell library).

See :mod:`fpforge.synth.flow` for the flow and the definitions of gate
equivalents (GE) and logic depth.
"""

from .flow import (
    DEFAULT_ABC_SCRIPT,
    DEFAULT_LIBERTY,
    SynthError,
    format_report,
    nand2_reference,
    synthesize,
)

__all__ = [
    "DEFAULT_ABC_SCRIPT",
    "DEFAULT_LIBERTY",
    "SynthError",
    "format_report",
    "nand2_reference",
    "synthesize",
]
