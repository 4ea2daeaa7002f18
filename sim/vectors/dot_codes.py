"""The building blocks of the dot-product stimulus (:mod:`fpforge.sim.vectors.dot` and its directed groups,
:mod:`fpforge.sim.vectors.dot_groups`): the operand container :class:`DotOperands`, random run-time biases,
and codes of any operand format — finite codes by sign, exponent offset or scale, signs flipped, blocks
stacked — read from the format's descriptor (``dot_side``, ``dot_fields``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...golden.block import BlockEncoding
from ...golden.dot.pipeline import element_fields

__all__ = ["DotOperands", "bias_kwargs", "block_operands", "concat_dot_operands", "concat_operands", "dot_family",
           "eoff_top", "flip_sign", "is_int_operand", "labelled_group", "level_codes", "max_codes", "pos_codes",
           "random_biases", "scalar_codes", "scalar_dot_fields", "scale_range", "stack_blocks", "takes_bias",
           "with_sign"]


def dot_family(fmt) -> str:
    """``bdr``, ``ocp`` or ``scalar``: how the operand format's elements enter the datapath."""
    return fmt.dot_side.family


def is_int_operand(fmt) -> bool:
    """An OCP MX operand with INT8 elements."""
    return fmt.dot_side.integer_elements


@dataclass
class DotOperands:
    """Operands of n dot products of a :class:`fpforge.golden.dot.DotConfig`: ``a``/``b`` (BlockEncoding
    (n, r) or scalar codes (n, r)), the run-time selects of ``fp8`` operands (n,), labels
    ``(first index, description)``, and the run-time biases of CFloat8 operands (n,; zeros by default,
    read only for operands with a run-time bias: :func:`bias_kwargs`)."""

    a: object
    b: object
    sel_a: np.ndarray
    sel_b: np.ndarray
    labels: list
    bias_a: np.ndarray = None
    bias_b: np.ndarray = None

    def __post_init__(self):
        for name in ("bias_a", "bias_b"):
            if getattr(self, name) is None:
                setattr(self, name, np.zeros(len(self.sel_a), np.int64))

    @property
    def size(self):
        return len(self.sel_a)


def takes_bias(fmt) -> bool:
    """A scalar operand whose formats have a run-time bias (CFloat8: ``bias_a``/``bias_b`` ports)."""
    return fmt.dot_side.element_block_exponent and fmt.bias_bits > 0


def bias_kwargs(cfg, ops) -> dict:
    """``bias_a=``/``bias_b=`` of :func:`fpforge.golden.dot.dot` for the operands that take a run-time bias."""
    out = {}
    for name, fmt in (("bias_a", cfg.a), ("bias_b", cfg.b)):
        if takes_bias(fmt):
            out[name] = np.asarray(getattr(ops, name), np.int64)
    return out


def random_biases(rng, n):
    """Run-time biases of n dot products: the ends 0 and 63 in a quarter each, the rest uniform."""
    b = rng.integers(0, 64, n)
    u = rng.random(n)
    return np.where(u < 0.25, 0, np.where(u < 0.5, 63, b)).astype(np.int64)


def level_codes(el, rng, levels, *, nonzero=True):
    """Finite non-negative codes of any scalar element format whose exponent offset (``dot_fields``) is the
    available one nearest to ``levels`` (an int array; the format's own offset range 0..``dot_eoff_max``)."""
    table = np.arange(el.sign_mask)
    _, sig, eoff, nan, inf = el.dot_fields(table, 0 if el.runtime_bias else None)
    ok = ~nan & ~inf & ((sig != 0) if nonzero else True)
    codes, offs = table[ok], eoff[ok] - (63 if el.runtime_bias else 0)
    order = np.lexsort((codes, offs))
    codes, offs = codes[order], offs[order]
    avail = np.unique(offs)
    lv = np.asarray(levels)
    pos = np.clip(np.searchsorted(avail, lv), 0, len(avail) - 1)
    lower = np.clip(pos - 1, 0, len(avail) - 1)
    near = np.where(np.abs(avail[lower] - lv) < np.abs(avail[pos] - lv), avail[lower], avail[pos])
    lo = np.searchsorted(offs, near, "left")
    hi = np.searchsorted(offs, near, "right")
    return codes[lo + (rng.random(lv.shape) * (hi - lo)).astype(np.int64)]


def eoff_top(el) -> int:
    """The largest exponent offset of a finite code at a fixed bias (the format's own scale)."""
    return el.dot_eoff_max - (63 if el.runtime_bias else 0)


def concat_operands(fmt, parts):
    """One operand array (BlockEncoding or scalar codes) from several, in order."""
    if isinstance(parts[0], BlockEncoding):
        return BlockEncoding(fmt, np.concatenate([p.scale for p in parts]), np.concatenate([p.shift for p in parts]),
                             np.concatenate([p.elem for p in parts]))
    return np.concatenate([np.asarray(p, np.uint64) for p in parts])


def concat_dot_operands(cfg, groups):
    """One DotOperands from several (labels kept, indices shifted)."""
    labels, start = [], 0
    for g in groups:
        labels += [(start + i, t) for i, t in g.labels]
        start += g.size
    return DotOperands(concat_operands(cfg.a, [g.a for g in groups]), concat_operands(cfg.b, [g.b for g in groups]),
                       np.concatenate([g.sel_a for g in groups]), np.concatenate([g.sel_b for g in groups]), labels,
                       np.concatenate([g.bias_a for g in groups]), np.concatenate([g.bias_b for g in groups]))


def scalar_dot_fields(el, codes):
    """``dot_fields`` of codes of any scalar element format (a run-time bias read at 0: classes only)."""
    return el.dot_fields(codes, 0 if el.runtime_bias else None)


def pos_codes(fmt, rng, shape, *, nonzero=False, el=None):
    """Random finite non-negative element codes (BDR magnitude, OCP/scalar float code, INT8 0..127)."""
    if fmt.dot_side.sub_block_guard:
        return rng.integers(1 if nonzero else 0, 1 << fmt.m, shape)
    el = el if el is not None else fmt.element
    if is_int_operand(fmt):
        return rng.integers(1 if nonzero else 0, 128, shape)
    codes = rng.integers(1 if nonzero else 0, el.sign_mask, shape)
    _, _, _, nan, inf = element_fields(el, codes)
    return np.where(nan | inf, 1 << el.mbits, codes)  # specials -> the smallest normal


def with_sign(fmt, codes, neg, el=None):
    """Non-negative element ``codes`` made negative where ``neg`` (INT8: two's complement)."""
    if fmt.dot_side.sub_block_guard:
        return np.where(neg, codes | (1 << fmt.m), codes)
    if is_int_operand(fmt):
        return np.where(neg, (256 - codes) & 0xFF, codes)
    el = el if el is not None else fmt.element
    return np.where(neg, codes | el.sign_mask, codes)


def block_operands(fmt, scale, shift, elem):
    """A BlockEncoding of ``fmt`` from (n, nb) scales, shifts (None: zeros) and elements."""
    n = scale.shape[0]
    shift = np.zeros((n, scale.shape[1], fmt.n_sub if fmt.dot_side.sub_block_guard else 0)) if shift is None else shift
    return BlockEncoding(fmt, np.asarray(scale).astype(np.uint16), np.asarray(shift).astype(np.uint8),
                         np.asarray(elem).astype(np.uint32))


def scale_range(fmt):
    """(lowest, highest finite) scale field."""
    top = (1 << fmt.scale_bits) - 1
    return 0, top if fmt.dot_side.sub_block_guard else top - 1


def labelled_group(cfg, a, b, label, sel_a=None, sel_b=None):
    """DotOperands of one directed group, labelled (selects default to 0)."""
    n = a.scale.shape[0] if hasattr(a, "scale") else len(a)
    z = np.zeros(n, np.int64)
    return DotOperands(a, b, z if sel_a is None else sel_a, z if sel_b is None else sel_b, [(0, label)])


def flip_sign(fmt, codes):
    """The element codes of the negated values."""
    if fmt.dot_side.sub_block_guard:
        return codes ^ (1 << fmt.m)
    if is_int_operand(fmt):
        return (256 - codes) & 0xFF
    return codes ^ fmt.element.sign_mask


def max_codes(fmt):
    """The element code of the largest finite magnitude."""
    if fmt.dot_side.sub_block_guard:
        return (1 << fmt.m) - 1
    if fmt.dot_side.integer_elements:
        return 127
    return fmt.element.max_code


def stack_blocks(fmt, rows):
    """One BlockEncoding from rows of (scale, shift or None, elements)."""
    sc = np.concatenate([r[0] for r in rows])
    sh = None if rows[0][1] is None else np.concatenate([r[1] for r in rows])
    el = np.concatenate([r[2] for r in rows])
    return block_operands(fmt, sc, sh, el)


def scalar_codes(fmt, sel, rng, shape, *, ef=None, level=None, nonzero=True):
    """Finite codes of the scalar operand, format per vector from ``sel``; ``ef`` forces exponent fields
    (sign/exponent/mantissa formats), ``level(el)`` exponent offsets (formats without exponent fields,
    HiF8: :func:`level_codes`)."""
    out = np.zeros(shape, np.int64)
    for idx, el in enumerate(fmt.formats):
        codes = rng.integers(1 if nonzero else 0, el.sign_mask, shape)
        fields = hasattr(el, "exp_max_field")
        if level is not None and not fields:
            codes = level_codes(el, rng, np.broadcast_to(np.asarray(level(el)), shape))
        elif ef is not None and fields:
            e = np.broadcast_to(np.asarray(ef(el)), shape)
            codes = (e << el.mbits) | (codes & ((1 << el.mbits) - 1))
        _, _, _, nan, inf = scalar_dot_fields(el, codes)
        if fields:
            codes = np.where(nan | inf, codes - (1 << el.mbits), codes)
        else:
            codes = np.where(nan | inf, el.max_code, codes)
        codes = codes | (rng.integers(0, 2, shape) * el.sign_mask)
        out = np.where((sel == idx).reshape((-1,) + (1,) * (len(shape) - 1)), codes, out)
    return out
