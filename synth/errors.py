"""The error of the synthesis flow."""

from ..golden.errors import ToolError

__all__ = ["SynthError"]


class SynthError(ToolError, ValueError):
    """Synthesis could not run or failed.

    Raised for a missing, unreadable or malformed Liberty file, a missing
    Verilog file, and any yosys failure.  The message is a single line that
    names the offending value (file name, top module or yosys' last error).
    An :class:`~fpforge.golden.errors.FpforgeError` (the command line prints
    it as one line); still a ``ValueError`` for callers that catch that.
    """
