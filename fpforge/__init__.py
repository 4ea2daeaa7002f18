"""fpforge: Verilog for low-precision number formats, proven bit-exact against a numpy golden model."""

__all__ = ["BlockDecoderSpec", "BlockEncoderSpec", "DecoderSpec", "DotSpec", "EncoderSpec", "ScaledEncoderSpec",
           "UnitSpec", "__version__", "spec_from_options"]

from .golden.version import __version__  # kept below every layer: the generated Verilog's header names it

_SPEC_NAMES = frozenset(__all__) - {"__version__"}


def __getattr__(name):
    """The unit specs (``fpforge.EncoderSpec``, ...), imported on first use (``fpforge.hw.spec``)."""
    if name in _SPEC_NAMES:
        from .hw import spec

        return getattr(spec, name)
    raise AttributeError(f"module 'fpforge' has no attribute {name!r}")
