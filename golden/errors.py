"""The exceptions fpforge raises for bad input.

Every error a user can cause — a bad argument to the Python API, a bad option on the command line, a
missing tool — is an :class:`FpforgeError`. The API's argument errors are also the built-in exception
a caller expects (:class:`FpforgeValueError` is a ``ValueError``, :class:`FpforgeTypeError` a
``TypeError``, :class:`UnknownName` both a ``KeyError`` and a ``ValueError``), so ``except ValueError``
keeps working. The command line prints an ``FpforgeError`` as one line (``fpforge: error: ...``, exit
code 2); any other exception is a bug in fpforge and is not disguised as a usage error.

Messages name the parameter, the offending value and the valid choices.
"""

from __future__ import annotations

__all__ = ["FpforgeError", "FpforgeTypeError", "FpforgeValueError", "ToolError", "ToolMissing", "UnknownName"]


class FpforgeError(Exception):
    """Base class of the errors bad input (or a missing tool) causes; the message is one line."""


class FpforgeValueError(FpforgeError, ValueError):
    """An argument has the right type but a value outside its domain."""


class FpforgeTypeError(FpforgeError, TypeError):
    """An argument has the wrong type (e.g. float codes where integer codes are expected)."""


class UnknownName(FpforgeError, KeyError, ValueError):
    """A name (format, unit, rounding, preset, ...) that is not one of the valid choices."""

    def __str__(self):  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class ToolMissing(FpforgeError, RuntimeError):
    """An external tool (a simulator, a compiler, yosys) is not installed or unusable; the message says
    which and how to get it."""


class ToolError(FpforgeError, RuntimeError):
    """An external tool ran and failed on the user's input (the message carries its last error line)."""
