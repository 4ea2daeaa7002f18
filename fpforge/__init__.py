"""fpforge: Verilog for low-precision number formats, proven bit-exact against a numpy golden model."""

__all__ = ["__version__"]

__version__ = "0.1.0"
