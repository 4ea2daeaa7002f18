"""Units built from their spec (:mod:`fpforge.hw.spec`): ``Encoder(spec)``; the keyword form
``Encoder("e4m3", source="bf16", ...)`` is sugar that builds the spec.

:class:`SpecBuilt` makes the spec in ``__new__``, before the unit object exists: every validity rule lives in
the spec, and a refused configuration raises with no half-built Elaboratable left behind (so Amaranth has no
"created but never used" object to warn about). The unit's ``__init__`` reads the checked spec only.
:class:`~fpforge.hw.checked.CheckedFirst` does the same for the wrappers that take no spec (``Pipeline``,
``RegisteredIO``, ``Xorshift32``).
"""

from __future__ import annotations

from ..golden.checks import describe
from ..golden.dot import DotConfig
from ..golden.errors import FpforgeTypeError
from ..golden.formats import get_format, resolve_variant
from ..golden.rng import DEFAULT_RAND_BITS
from .checked import CheckedFirst
from .spec import (
    ROUNDING_NAME,
    BlockDecoderSpec,
    BlockEncoderSpec,
    DecoderSpec,
    DotSpec,
    EncoderSpec,
    ScaledEncoderSpec,
    UnitSpec,
)
from .spec_fields import field_rand_bits, field_seed

__all__ = ["SpecBuilt", "block_decoder_spec", "block_encoder_spec", "decoder_spec", "dot_spec", "encoder_spec", "rand_bits_of",
           "scaled_encoder_spec"]


class SpecBuilt(CheckedFirst):
    """Mixin of the units built from a spec: ``_checked`` returns the spec (:meth:`spec_of`), kept as ``spec``."""

    @classmethod
    def _checked(cls, *args, **kwargs):
        return cls.spec_of(*args, **kwargs)

    @property
    def spec(self) -> UnitSpec:
        """The unit's spec (:mod:`fpforge.hw.spec`)."""
        return self._checked_args


def _own(cls, spec, kind, rest, defaults):
    """``spec`` when a unit of class ``cls`` is given its spec (and nothing else), else None."""
    if not isinstance(spec, UnitSpec):
        return None
    if not isinstance(spec, kind):
        raise FpforgeTypeError(f"{cls.__name__} is built from a{'n' if kind.unit[0] in 'e' else ''} "
                               f"{kind.__name__}, not {describe(spec)}")
    if tuple(rest) != tuple(defaults):
        raise FpforgeTypeError(f"{cls.__name__} takes a spec or a format with options, not both")
    return spec


def encoder_spec(cls, fmt, source, roundings, saturate, nan_to_zero, rand_bits, defaults) -> EncoderSpec:
    """The :class:`EncoderSpec` of a scalar encoder's arguments (a spec, or the keyword form)."""
    spec = _own(cls, fmt, EncoderSpec, (source, roundings, saturate, nan_to_zero, rand_bits), defaults)
    if spec is not None:
        return spec
    modes = (roundings,) if isinstance(roundings, str) else roundings
    sr = isinstance(modes, (tuple, list)) and "sr" in modes
    if not sr:
        field_rand_bits(rand_bits, None)  # (checked, though only sr uses it)
    return EncoderSpec(format=fmt, source=source, rounding=roundings, saturate=saturate, nan_to_zero=nan_to_zero,
                       rand_bits=rand_bits if sr else None)


def decoder_spec(cls, fmt, target, defaults) -> DecoderSpec:
    """The :class:`DecoderSpec` of a scalar decoder's arguments."""
    spec = _own(cls, fmt, DecoderSpec, (target,), defaults)
    return spec if spec is not None else DecoderSpec(format=fmt, target=target)


def block_encoder_spec(cls, fmt, source, roundings, rand_bits, defaults) -> BlockEncoderSpec:
    """The :class:`BlockEncoderSpec` of a block encoder's arguments."""
    spec = _own(cls, fmt, BlockEncoderSpec, (source, roundings, rand_bits), defaults)
    if spec is not None:
        return spec
    modes = (roundings,) if isinstance(roundings, str) else roundings
    sr = isinstance(modes, (tuple, list)) and "sr" in modes
    if not sr:
        field_rand_bits(rand_bits, None)
    return BlockEncoderSpec(format=fmt, source=source, rounding=roundings, rand_bits=rand_bits if sr else None)


def block_decoder_spec(cls, fmt, target, defaults) -> BlockDecoderSpec:
    """The :class:`BlockDecoderSpec` of a block decoder's arguments."""
    spec = _own(cls, fmt, BlockDecoderSpec, (target,), defaults)
    return spec if spec is not None else BlockDecoderSpec(format=fmt, target=target)


def rand_bits_of(spec) -> int:
    """The ``rand`` width of a spec's unit (the default when it has no ``sr``)."""
    return DEFAULT_RAND_BITS if getattr(spec, "rand_bits", None) is None else spec.rand_bits


def scaled_encoder_spec(cls, fmt, source, lanes, scaling, roundings, saturate, nan_to_zero, rand_bits,
                        ieee_denormals, paper_literal, latency=1, seed=0) -> ScaledEncoderSpec:
    """The :class:`ScaledEncoderSpec` of a scaled encoder's arguments (its core ignores latency and seed)."""
    spec = _own(cls, fmt, ScaledEncoderSpec, (source, lanes, scaling, roundings, saturate, nan_to_zero, rand_bits,
                                              ieee_denormals, paper_literal, latency, seed),
                ("fp32", 1, "fp32", None, False, False, DEFAULT_RAND_BITS, False, False, 1, 0))
    if spec is not None:
        return spec
    fmt = resolve_variant(get_format(fmt), ieee_denormals=ieee_denormals, paper_literal=paper_literal)
    modes = (roundings,) if isinstance(roundings, str) else roundings
    sr = isinstance(modes, (tuple, list)) and "sr" in modes
    if not sr:
        field_rand_bits(rand_bits, None), field_seed(seed, None)  # (checked, though only sr uses them)
    return ScaledEncoderSpec(format=fmt, source=source, lanes=lanes, scaling=scaling, rounding=roundings,
                             saturate=saturate, nan_to_zero=nan_to_zero, rand_bits=rand_bits if sr else None,
                             latency=latency, seed=seed if sr else None)


def dot_spec(cls, fmt, r, f, fmt_b, stages, raw, scale, amax, out_format, out_rounding, saturate,
             datapath="auto") -> DotSpec:
    """The :class:`DotSpec` of a dot unit's arguments (``fmt`` a format, a ``DotConfig`` or the spec)."""
    spec = _own(cls, fmt, DotSpec, (r, f, fmt_b, stages, raw, scale, amax, out_format, out_rounding, saturate, datapath),
                (None, None, None, 0, False, False, False, None, None, True, "auto"))
    if spec is not None:
        return spec
    if isinstance(fmt, DotConfig):
        fmt, r, f, fmt_b = fmt.a, fmt.r, fmt.f, fmt.b
    for name, value in (("raw", raw), ("saturate", saturate)):  # (the spec's flags are never cast)
        if not isinstance(value, bool):
            raise FpforgeTypeError(f"{name} must be True or False, not {value!r}")
    if out_rounding is not None and not isinstance(out_rounding, str):  # (the spec also reads the CLI's list)
        raise FpforgeTypeError(f"out_rounding must be one mode name, not {out_rounding!r}")
    token = ROUNDING_NAME.set("out_rounding")  # (DotProduct's name of the cast's rounding, in messages)
    try:
        return DotSpec(format=fmt, format_b=fmt_b, r=r, f=f, stages=stages, raw=raw, scale=scale, amax=amax,
                       out_format=out_format, rounding=out_rounding,
                       saturate=None if saturate is True and out_format is None else saturate, datapath=datapath)
    finally:
        ROUNDING_NAME.reset(token)
