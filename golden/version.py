"""fpforge's version (``fpforge.__version__``; pyproject.toml's ``version`` is the same string).

It lives in the lowest layer so that every layer can name it without importing the command-line package
``fpforge`` above it: the generated Verilog's header (:func:`fpforge.hw.to_verilog`) carries it.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
