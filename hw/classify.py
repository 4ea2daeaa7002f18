"""The Amaranth twin of :mod:`fpforge.golden.classify`: the classes of a code signal, read from the
descriptor's special-value data (``docs/architecture.md``). Every unit classifies codes here: the encoders'
source operands (:func:`unpack_source`), the decoders, the block decoder's elements, the dot product's
elements.

The expressions are the cheapest form of each rule the data allows: NaNs that fill the all-ones exponent
binade except the Inf (IEEE) compare the exponent field and the mantissa; a single high NaN is one
equality; a NaN in the negative-zero slot is ``code == 1000…0``.
"""

from __future__ import annotations

from dataclasses import dataclass

from amaranth import Cat, Const, Mux, Signal, Value, signed

from ..golden.classify import high_nan_threshold

__all__ = ["Classes", "classify", "fields", "float_fields", "highest_one", "highest_one_tree", "unpack_source"]


@dataclass
class Classes:
    """Amaranth expressions of one code: ``sign`` (0 when unsigned), ``mag`` (the code without its sign
    bit), and 1-bit ``nan``, ``inf``, ``zero``, ``subnormal``."""

    sign: Value
    mag: Value
    nan: Value
    inf: Value
    zero: Value
    subnormal: Value


def float_fields(fmt, code):
    """``(exponent field, mantissa field)`` slices of a sign/exponent/mantissa code."""
    return code[fmt.mbits : fmt.mbits + fmt.ebits], code[: fmt.mbits]


def _top_binade(fmt) -> bool:
    """The high NaNs and the Inf fill the all-ones exponent binade (IEEE)."""
    m = fmt.mbits
    return fmt.has_inf and m > 0 and fmt.num_high_nans == (1 << m) - 1 and fmt.inf_code == fmt.mag_mask >> m << m


def classify(fmt, code) -> Classes:
    """The classes of ``code`` (a Value of ``fmt.bits`` bits) in the scalar format ``fmt``."""
    n = fmt.mag_bits
    mag = code[:n]
    sign = code[fmt.bits - 1] if fmt.signed else Const(0, 1)
    none = Const(0, 1)
    nan, inf = none, none
    if _top_binade(fmt):
        top = code[fmt.mbits : n] == fmt.inf_code >> fmt.mbits
        man = code[: fmt.mbits]
        nan, inf = top & (man != 0), top & (man == 0)
    else:
        if fmt.num_high_nans == 1:
            nan = mag == fmt.mag_mask
        elif fmt.num_high_nans:
            nan = mag >= high_nan_threshold(fmt)
        if fmt.has_inf:
            inf = mag == fmt.inf_code
    nz_nan = fmt.signed and not fmt.has_neg_zero
    if nz_nan:
        slot = code == fmt.sign_mask
        nan = slot if nan is none else nan | slot
    zero = (mag == 0) & ~nan if nz_nan else mag == 0
    width, value = fmt.subnormal_prefix
    low = n - width
    subnormal = (code[low:n] == value) & (code[:low] != 0)
    return Classes(sign, mag, nan, inf, zero, subnormal)


def fields(fmt, bits):
    """(sign, exponent field, mantissa field, nan, inf) of a code signal (sign 0 when unsigned)."""
    cls = classify(fmt, bits)
    exp, man = float_fields(fmt, bits)
    return cls.sign, exp, man, cls.nan, cls.inf


def highest_one(m, value, name):
    """Position of the most significant 1 of ``value`` (0 when value is 0)."""
    pos = Signal(range(max(len(value), 2)), name=name)
    for i in range(len(value)):
        with m.If(value[i]):
            m.d.comb += pos.eq(i)
    return pos


def highest_one_tree(m, value, name):
    """:func:`highest_one` as a balanced tree (depth log2 of the width, where the priority chain of
    :func:`highest_one` is as deep as ``value`` is wide): each level picks the upper half's position when the
    upper half has a one. 0 when value is 0."""
    n = max(len(value), 2)
    width = 1 << (n - 1).bit_length()
    v = Cat(value, Const(0, width - len(value)))
    nodes = [(v[i], Const(0, 0)) for i in range(width)]  # (any one, position within the node)
    level = 0
    while len(nodes) > 1:
        nxt = []
        for i in range(0, len(nodes), 2):
            (lo_any, lo_pos), (hi_any, hi_pos) = nodes[i], nodes[i + 1]
            pos = Signal(level + 1, name=f"{name}_l{level}_{i // 2}")
            m.d.comb += pos.eq(Cat(Mux(hi_any, hi_pos, lo_pos), hi_any) if level else hi_any)
            any_ = Signal(name=f"{name}_any{level}_{i // 2}")
            m.d.comb += any_.eq(lo_any | hi_any)
            nxt.append((any_, pos))
        nodes, level = nxt, level + 1
    pos = Signal(range(n), name=name)
    m.d.comb += pos.eq(nodes[0][1])
    return pos


def unpack_source(m, src, a, *, normalize, width):
    """Split source bits ``a`` into signals for an encoder.

    Returns ``(sign, exp, sig, nan, inf, nonzero, subnormal)``: ``sig`` is ``width`` bits wide with the
    hidden bit at its top (source mantissa left-aligned below it) and ``exp`` the signed unbiased exponent.
    With ``normalize``, subnormal operands are normalized (``sig`` gets its leading one at the top and
    ``exp`` the true exponent) — needed where they can land inside the target's range; otherwise they keep
    ``exp = emin`` and leading zeros.
    """
    sign, ef, mf, nan, inf = fields(src, a)
    nonzero = Signal(name="nonzero")
    subnormal = Signal(name="subnormal")
    m.d.comb += [nonzero.eq((ef != 0) & ~nan & ~inf | (mf != 0) & (ef == 0)),
                 subnormal.eq((ef == 0) & (mf != 0))]
    ms = width - 1
    pad = ms - src.mbits
    e_lo = src.emin - src.mbits
    exp = Signal(signed(max(e_lo.bit_length(), src.emax.bit_length()) + 2), name="exp")
    sig = Signal(width, name="sig")
    if normalize:
        p = highest_one(m, mf, "lead")
        lshift = Signal(range(src.mbits + 1), name="lshift")
        m.d.comb += lshift.eq(src.mbits - p)
        with m.If(ef == 0):
            m.d.comb += [exp.eq(e_lo + p), sig.eq((Cat(Const(0, pad), mf) << lshift)[:width])]
        with m.Else():
            m.d.comb += [exp.eq(ef - src.bias), sig.eq(Cat(Const(0, pad), mf, Const(1, 1)))]
    else:
        m.d.comb += [exp.eq(Mux(ef == 0, src.emin, ef - src.bias)),
                     sig.eq(Cat(Const(0, pad), mf, ef != 0))]
    return sign, exp, sig, nan, inf, nonzero, subnormal
