"""MX-style dot products (seed 004 §IV-B, Fig. 6; SPEC-NOTES §6): the bit-exact model of fpforge's
dot-product pipeline, an exact reference, and the error of the f-bit pipeline against it.

Modules: :mod:`~fpforge.golden.dot.config` (``DotConfig``, operand formats and their ``dot_side``),
:mod:`~fpforge.golden.dot.operands` (operand words and packed bytes), :mod:`~fpforge.golden.dot.pipeline`
(``dot``, the model; ``fpforge.hw.dot`` is its twin), :mod:`~fpforge.golden.dot.exact` (``dot_exact``, the
reference; ``error_sweep``).

An r-element dot product of two operands A and B. Each operand is r/k1 blocks of a block format in its
packed layout (BDR: MX9/MX6/MX4/MSFP/any ``bdr(...)``; OCP MX: MXFP8/6/4, MXINT8), or r scalar codes
(E4M3, E5M2, FNUZ, FP6/FP4, HiF8, CFloat8 with a run-time bias per operand and dot product, or ``fp8``: E4M3 or
E5M2, chosen per operand and per dot product at run time; k1 = k2 = 1).
:class:`DotConfig` holds the parameters (``a``, ``b``, ``r``, ``f``) and every width derived from them; the
RTL generator (``fpforge.hw.dot``) reads the same object.

The pipeline, for each dot product (integers throughout; ``docs/dot.md`` draws it):

1. **Elements** enter as sign and magnitude: BDR the m-bit magnitude ``q``; OCP FP elements the significand
   with its hidden bit and an exponent offset ``eoff = max(e_field, 1) - 1``; INT8 ``|c|`` (−128 → 128);
   scalar elements their descriptor's ``dot_fields``: the significand (padded to the widest mantissa of the
   operand's formats) with ``eoff`` (CFloat8: ``+ 63 - bias``, so the offsets cover every bias).
   NaN/Inf elements enter as 0 (see 8).
2. **Products** ``mag_a * mag_b`` with sign ``s_a ^ s_b``; OCP FP products are shifted left by
   ``eoff_a + eoff_b`` (the element exponents: exact, inside the block).
3. **Block sums** (k1 > 1): an adder tree per block. BDR: at depth log2(k2) each sub-block sum is
   shifted right by ``tau_a + tau_b`` after ``G = beta_a + beta_b`` zero guard bits were appended below it
   (the paper's conditional right shift; with the guard bits nothing is lost), then summed: the block sum
   ``S`` is exact. Scalar FP8 (k1 = 1): ``S`` is the product itself.
4. **Block exponents** ``X = Ea + Eb`` (BDR: shared exponents; OCP: E8M0 scale exponents; scalar FP8:
   ``eoff_a + eoff_b``). A block whose sum is 0 takes the smallest possible X (it must not set the max).
   The block's value is ``S * 2**(X + c)``; ``c`` is a constant of the formats.
5. **Max exponent** ``Xm`` over the r/k1 blocks.
6. **Alignment into the f-bit window**: ``|S| < 2**W`` (W from the formats' largest magnitudes), and each
   block keeps ``A = trunc(S * 2**(X - Xm + f - 1 - W))`` — truncation toward zero: the bits of ``|S|``
   that fall below the window are dropped, the sign is kept, so ``A`` is an f-bit two's-complement number
   and the block of largest exponent keeps its top f - 1 magnitude bits. (The RTL shifts the two's
   complement ``S`` arithmetically and adds 1 back for negative blocks that lost non-zero bits.)
7. **Fixed-point sum** ``T = sum(A)`` (``f + ceil(log2(r/k1))`` bits, never overflows), at
   ``exp = Xm + c + W - (f - 1)``: the raw output is ``T * 2**exp``.
8. **FP32**: ``T * 2**exp`` rounded once to FP32, nearest-even, with FP32 subnormals; beyond the largest
   finite value ±Inf; ``T = 0`` gives +0. Special values (IEEE rules on the products): a NaN element, an
   OCP NaN scale (0xFF, the whole block), Inf × 0, or Infs of both signs → NaN (0x7FC00000); otherwise
   any Inf product → ±Inf. The raw output then holds the finite part.

``dot`` is vectorised over any number of dot products (numpy int64, or Python-int object arrays for
configurations whose widths exceed 62 bits); no Python loop per dot product or element. ``dot_exact`` is
the reference: decoded element values, products and sum in exact integers, rounded once to FP32.
"""

from .config import F_RANGE, FP8, MAX_R, DotConfig, OperandSide, ScalarSet, operand_format
from .exact import ERROR_FORMATS, ERROR_FS, ExactResult, dot_exact, error_sweep, quantized_operands
from .operands import from_operand_words, operand_words
from .pipeline import DotResult, dot, fp32_bits

__all__ = [
    "DotConfig",
    "DotResult",
    "ERROR_FORMATS",
    "ERROR_FS",
    "ExactResult",
    "F_RANGE",
    "FP8",
    "MAX_R",
    "OperandSide",
    "ScalarSet",
    "dot",
    "dot_exact",
    "error_sweep",
    "fp32_bits",
    "from_operand_words",
    "operand_format",
    "operand_words",
    "quantized_operands",
]
