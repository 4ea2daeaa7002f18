"""The error of the synthesis flow."""

__all__ = ["SynthError"]


class SynthError(ValueError):
    """Synthesis could not run or failed.

    Raised for a missing, unreadable or malformed Liberty file, a missing
    Verilog file, and any yosys failure.  The message is a single line that
    names the offending value (file name, top module or yosys' last error).
    """
