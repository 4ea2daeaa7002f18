"""What every format descriptor answers: the contract the golden model, the gateware generators, the
testbenches and the reports rely on instead of asking for a descriptor's concrete type.

Two kinds of descriptor exist. A **scalar format** (:class:`ScalarFormat`: ``FloatFormat``,
``TaperedFormat``) maps one code to one value; a **block format** (:class:`BlockFormatLike`:
``BlockFormat``, ``MXFormat``) maps a block of fields to ``k1`` values. ``isinstance(fmt, ScalarFormat)``
(or ``BlockFormatLike``) is the one question the code asks; everything else is read from the descriptor.
Both are abstract base classes: a descriptor class that misses a member cannot be instantiated.

Special values are data (as gfloat's ``FormatInfo`` states them), never a style name:

* ``signed``: a sign bit on top of the code (``sign_mask``), else none.
* ``has_neg_zero``: the code ``1000…0`` is −0; a signed format without negative zero has its NaN there.
* ``num_high_nans``: the top ``num_high_nans`` magnitudes of each sign are NaN.
* ``has_inf``: ``inf_code`` is ±Inf (for a sign/exponent/mantissa format, the magnitude just below the
  high NaNs).
* ``subnormal_prefix``: ``(width, value)``: a code whose top ``width`` magnitude bits are ``value`` and
  whose magnitude bits below them are not all zero is subnormal (exponent field 0 and a non-zero mantissa;
  HiF8's denormal prefix and ``M >= 1``).

:func:`fpforge.golden.classify.classify` reads these to classify codes and ``fpforge.hw.classify`` is its
Amaranth twin; limits (``max_code``, ``max_value``, …) and the canonical NaN follow from the same data.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from .variants import Registered

__all__ = ["BlockFormatLike", "ScalarFormat"]


class ScalarFormat(Registered, ABC):
    """A format of single codes.

    Attributes every descriptor has (dataclass fields or class constants): ``name`` (registry name; a
    variant's is ``<base>_<variant>``), ``title``, ``bits`` (code width, sign bit included), ``signed``,
    ``mbits`` (widest explicit mantissa, hidden bit not counted), ``roundings`` (the first is the default),
    ``dtype`` (numpy dtype of a source format, else None), ``ftz`` (subnormal codes read as zero),
    ``runtime_bias`` (the bias is a run-time input; limits via ``at(bias)``), ``has_inf``,
    ``has_neg_zero``, ``num_high_nans``, ``has_nan``, ``has_subnormals``, ``subnormal_name`` (what the
    format's document calls its subnormals), ``min_normal_code``, ``min_subnormal_code``,
    ``max_subnormal_code``, ``max_subnormal`` (None without subnormals).
    """

    @property
    @abstractmethod
    def precision(self) -> int:
        """Significand bits of a normal number, hidden bit included."""

    @property
    @abstractmethod
    def sign_mask(self) -> int:
        """The sign bit of a code (0 when unsigned)."""

    @property
    @abstractmethod
    def mag_mask(self) -> int:
        """The magnitude bits of a code."""

    @property
    @abstractmethod
    def subnormal_prefix(self) -> tuple:
        """``(width, value)`` identifying subnormal codes (see the module docstring)."""

    @property
    @abstractmethod
    def mag_bits(self) -> int:
        """Bits of the magnitude (the code without its sign bit)."""

    @property
    @abstractmethod
    def inf_code(self) -> int | None:
        """Magnitude code of +Inf, or None."""

    @property
    @abstractmethod
    def max_code(self) -> int:
        """Magnitude code of the largest finite value."""

    @abstractmethod
    def nan_code(self, negative: bool = False) -> int | None:
        """The canonical NaN encoders produce, or None."""

    @property
    @abstractmethod
    def emin(self) -> int:
        """Exponent of the smallest normal number."""

    @property
    @abstractmethod
    def emax(self) -> int:
        """Exponent of the largest finite number."""

    @property
    @abstractmethod
    def max_value(self) -> float:
        """The largest finite value."""

    @property
    @abstractmethod
    def min_normal(self) -> float:
        """The smallest normal value."""

    @property
    @abstractmethod
    def min_subnormal(self) -> float:
        """The smallest positive value delivered."""

    @property
    @abstractmethod
    def top_quantum(self) -> float:
        """Spacing of the top binade (from max to the first value beyond it)."""

    @property
    @abstractmethod
    def layout(self) -> str:
        """Field summary for listings."""

    @abstractmethod
    def at(self, bias):
        """The fixed-bias descriptor (``at(None)`` of a fixed-bias format is itself)."""

    @abstractmethod
    def value_table(self):
        """float64 value of every code of a fixed-bias descriptor (NaN keeps the code's sign)."""

    @abstractmethod
    def code_fields(self, code: int) -> tuple:
        """The bit fields of one code, most significant first, and their meaning."""

    @abstractmethod
    def precision_by_exponent(self) -> tuple:
        """``(exponents, bits)``: significand bits at each exponent (fixed-bias descriptor)."""

    @abstractmethod
    def encode_exact(self, src, x, rounding, saturate, nan_to_zero, draws, bias=None):
        """Codes and flags of source values ``x`` (the exact model; ``fpforge.golden.encode`` adds tables)."""

    # -- as a dot-product element (fpforge.golden.dot; fpforge.hw.dot reads the same numbers) --------------
    @property
    @abstractmethod
    def dot_lsb(self) -> int:
        """Exponent of the element significand's LSB at exponent offset 0, over every bias the format can
        take: an element is ``(-1)**sign * sig * 2**(eoff + dot_lsb)`` (:meth:`dot_fields`)."""

    @property
    @abstractmethod
    def dot_eoff_max(self) -> int:
        """Largest exponent offset of a finite code, over every bias (the offsets start at 0)."""

    @abstractmethod
    def dot_fields(self, codes, bias=None) -> tuple:
        """How codes enter a dot product: ``(sign, sig, eoff, nan, inf)`` arrays of integer ``codes`` —
        ``sig`` the significand with its hidden bit and ``mbits`` fraction bits (0 for zeros), ``eoff`` the
        exponent offset above :attr:`dot_lsb` (``bias``: the run-time bias, per code or scalar, of a
        run-time-bias format; None otherwise). NaN/Inf codes carry their classes; their ``sig``/``eoff`` are
        not read."""


class BlockFormatLike(Registered, ABC):
    """A format of blocks: ``k1`` values share fields. Attributes: ``name``, ``title``, ``k1``,
    ``roundings``."""

    @property
    @abstractmethod
    def fields(self) -> tuple:
        """``(name, width, count)`` of the block's fields, least significant first (:mod:`fpforge.golden.layout`)."""

    @property
    @abstractmethod
    def block_bits(self) -> int:
        """Bits of one block."""

    @property
    @abstractmethod
    def bits_per_element(self):
        """Block bits over k1, exactly."""

    @property
    @abstractmethod
    def layout(self) -> str:
        """Field summary for listings."""

    @property
    @abstractmethod
    def dot_side(self):
        """How the format's elements enter a dot product (``fpforge.golden.dot_config.OperandSide``)."""
