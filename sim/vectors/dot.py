"""Stimulus for the dot-product units: operand pairs of a :class:`fpforge.golden.dot.DotConfig` — random
(quantized Gaussian data and raw bit patterns) and directed (:mod:`fpforge.sim.vectors.dot_groups`, then
exact FP32 rounding ties found by search)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...golden.block import BlockEncoding
from ...golden.dot.pipeline import element_fields

__all__ = ["DotOperands", "concat_dot_operands", "directed_dot_operands", "random_dot_operands", "block_ops",
           "dot_family", "dot_flip", "dot_group", "dot_is_int", "max_codes", "pos_codes", "scalar_codes", "scale_range",
           "dot_stack", "with_sign"]


def dot_family(fmt) -> str:
    """``bdr``, ``ocp`` or ``scalar``: how the operand format's elements enter the datapath."""
    return fmt.dot_side.family


def dot_is_int(fmt) -> bool:
    """An OCP MX operand with INT8 elements."""
    return dot_family(fmt) == "ocp" and fmt.is_int


@dataclass
class DotOperands:
    """Operands of n dot products of a :class:`fpforge.golden.dot.DotConfig`: ``a``/``b`` (BlockEncoding
    (n, r) or scalar codes (n, r)), the run-time selects of ``fp8`` operands (n,), and labels
    ``(first index, description)``."""

    a: object
    b: object
    sel_a: np.ndarray
    sel_b: np.ndarray
    labels: list

    @property
    def size(self):
        return len(self.sel_a)

def _concat_operands(fmt, parts):
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
    return DotOperands(_concat_operands(cfg.a, [g.a for g in groups]), _concat_operands(cfg.b, [g.b for g in groups]),
                       np.concatenate([g.sel_a for g in groups]), np.concatenate([g.sel_b for g in groups]), labels)

def _raw_side(fmt, n, nb, rng, *, spread, zero_frac=0.2, special_frac=0.0):
    """Raw random fields of one operand: block scales around a per-vector base (offsets up to ``spread``
    per vector), random shifts and element bits; elements zeroed with ``zero_frac``; for formats with
    NaN/Inf codes, those codes replaced except in a ``special_frac`` share of the vectors."""
    if dot_family(fmt) == "scalar":
        codes = rng.integers(0, 1 << fmt.bits, (n, nb)).astype(np.int64)
        codes = np.where(rng.random((n, nb)) < zero_frac, codes & (1 << (fmt.bits - 1)), codes)
        return codes
    k1 = fmt.k1
    top = (1 << fmt.scale_bits) - 1
    span = np.asarray(spread)[:, None]
    base = rng.integers(0, top + 1, (n, 1))
    off = np.round((rng.random((n, nb)) * 2 - 1) * span).astype(np.int64)
    scale = np.clip(base + off, 0, top - (0 if dot_family(fmt) == "bdr" else 1))
    if dot_family(fmt) != "bdr":  # OCP: a NaN scale in a few vectors
        nan = (rng.random((n, nb)) < 0.5) & (rng.random((n, 1)) < special_frac)
        scale = np.where(nan, 0xFF, scale)
    elem = rng.integers(0, 1 << fmt.elem_bits, (n, nb, k1)).astype(np.int64)
    elem = np.where(rng.random((n, nb, k1)) < zero_frac, elem & (1 << (fmt.elem_bits - 1)), elem)
    if dot_family(fmt) == "bdr":
        shift = rng.integers(0, fmt.beta + 1, (n, nb, fmt.n_sub)) if fmt.d2 else np.zeros((n, nb, fmt.n_sub))
    else:
        shift = np.zeros((n, nb, 0))
        if not fmt.is_int and (fmt.element.has_nan or fmt.element.has_inf):
            _, _, _, enan, einf = element_fields(fmt.element, elem)
            keep = rng.random((n, 1, 1)) < special_frac
            elem = np.where((enan | einf) & ~keep, elem & (fmt.element.sign_mask | 1), elem)
    return BlockEncoding(fmt, scale.astype(np.uint16), shift.astype(np.uint8), elem.astype(np.uint32))

def _scalar_clean(fmt, codes, sel, rng, special_frac):
    """Replace NaN/Inf codes of scalar operands except in a ``special_frac`` share of the vectors."""
    out = codes.copy()
    keep = rng.random((len(codes), 1)) < special_frac
    for idx, el in enumerate(fmt.formats):
        _, _, _, nan, inf = element_fields(el, codes)
        bad = (nan | inf) & ~keep & (sel == idx)[:, None]
        out = np.where(bad, codes & (el.sign_mask | 1), out)
    return out

def random_dot_operands(cfg, n, seed):
    """``n`` random operand pairs for ``cfg``: half real data — variable-variance Gaussian vectors whose
    blocks (or elements) are scaled by a further 2**u, |u| up to 0, 3, 12 or 40 per vector, quantized into the
    format (``encode_block``; scalar formats with a per-vector amax scale, or none for a quarter) — and half
    raw bit patterns (block scales around a per-vector base with spreads 0 … the whole range, random shifts
    and elements, 20 % zero elements; NaN/Inf codes and NaN scales kept in 5 % of the vectors). ``fp8``
    selects are random per vector."""
    from ...golden.dot import quantized_operands
    from ...golden.qsnr import gaussian_vectors

    rng = np.random.default_rng(seed)
    n_real = n // 2
    n_raw = n - n_real
    nb, r = cfg.nb, cfg.r
    ops = []
    sels = {}
    for side, fmt in (("a", cfg.a), ("b", cfg.b)):
        sel = rng.integers(0, len(fmt.formats), n) if dot_family(fmt) == "scalar" else np.zeros(n, np.int64)
        sels[side] = sel
        x = gaussian_vectors(max(n_real, 1), r, seed + (side == "b"), log2_sigma=(-30, 30))[:n_real]
        spreads = rng.choice([0, 3, 12, 40], (n_real, 1))
        u = np.round((rng.random((n_real, nb)) * 2 - 1) * spreads)
        x = (x.reshape(n_real, nb, cfg.k1) * np.exp2(u)[:, :, None]).reshape(n_real, r).astype(np.float32)
        if dot_family(fmt) == "scalar":
            real = np.zeros((n_real, r), np.uint64)
            for idx in range(len(fmt.formats)):
                pick = sel[:n_real] == idx
                if pick.any():
                    real[pick] = quantized_operands(cfg, x[pick], select=idx, side=side)
            unscaled = rng.random(n_real) < 0.25
            from ...golden.minifloat import encode
            for idx, el in enumerate(fmt.formats):
                pick = unscaled & (sel[:n_real] == idx)
                if pick.any():
                    real[pick] = encode(el, x[pick], saturate=True).astype(np.uint64)
            raw = _raw_side(fmt, n_raw, r, rng, spread=None)
            raw = _scalar_clean(fmt, raw, sel[n_real:], rng, 0.05)
            ops.append(np.concatenate([real, raw.astype(np.uint64)]))
        else:
            from ...golden.block import encode_block

            real = encode_block(fmt, x)
            spread = rng.choice([0, 2, 8, 40, 1 << fmt.scale_bits], n_raw)
            raw = _raw_side(fmt, n_raw, nb, rng, spread=spread, special_frac=0.05)
            ops.append(_concat_operands(fmt, [real, raw]))
    labels = [(0, "random: quantized Gaussian data with spread block scales"), (n_real, "random: raw bit patterns")]
    return DotOperands(ops[0], ops[1], sels["a"], sels["b"], labels)

def pos_codes(fmt, rng, shape, *, nonzero=False, el=None):
    """Random finite non-negative element codes (BDR magnitude, OCP/scalar float code, INT8 0..127)."""
    if dot_family(fmt) == "bdr":
        return rng.integers(1 if nonzero else 0, 1 << fmt.m, shape)
    el = el if el is not None else fmt.element
    if dot_is_int(fmt):
        return rng.integers(1 if nonzero else 0, 128, shape)
    codes = rng.integers(1 if nonzero else 0, el.sign_mask, shape)
    _, _, _, nan, inf = element_fields(el, codes)
    return np.where(nan | inf, 1 << el.mbits, codes)  # specials -> the smallest normal

def with_sign(fmt, codes, neg, el=None):
    if dot_family(fmt) == "bdr":
        return np.where(neg, codes | (1 << fmt.m), codes)
    if dot_is_int(fmt):
        return np.where(neg, (256 - codes) & 0xFF, codes)
    el = el if el is not None else fmt.element
    return np.where(neg, codes | el.sign_mask, codes)

def block_ops(fmt, scale, shift, elem):
    n = scale.shape[0]
    shift = np.zeros((n, scale.shape[1], fmt.n_sub if dot_family(fmt) == "bdr" else 0)) if shift is None else shift
    return BlockEncoding(fmt, np.asarray(scale).astype(np.uint16), np.asarray(shift).astype(np.uint8),
                         np.asarray(elem).astype(np.uint32))

def scale_range(fmt):
    """(lowest, highest finite) scale field."""
    top = (1 << fmt.scale_bits) - 1
    return 0, top if dot_family(fmt) == "bdr" else top - 1

def _fp32_tie(T, exp):
    """Per dot product: the FP32 rounding of T * 2**exp is an exact tie (and whether the kept LSB is odd)."""
    T = np.asarray(T)
    exp = np.asarray(exp, np.int64)
    ties, odds = [], []
    for t, e in zip(T.tolist(), exp.tolist()):
        mag = abs(int(t))
        L = mag.bit_length()
        lead = e + L - 1
        drop = L - 24 if lead >= -126 else -149 - e
        if mag == 0 or drop <= 0:
            ties.append(False)
            odds.append(False)
            continue
        ties.append(mag & ((1 << drop) - 1) == 1 << (drop - 1))
        odds.append(bool((mag >> drop) & 1))
    return np.array(ties, bool), np.array(odds, bool)

def directed_dot_operands(cfg, seed=0):
    """The corner cases of a dot-product configuration (issue 6), each group labelled:

    zeros (all-zero operands; a zero block at the largest scale beside live blocks — it must not set the
    max exponent); full cancellation (mirrored blocks, or mirrored halves of a block, with B negated: the
    exact sum is 0); a residue after near-cancellation; one dominant block with the others at distances
    around the window edge (f - 1) and beyond; the largest and smallest scales (overflow to Inf, FP32
    subnormals and underflow) and a sweep of the result exponent across FP32's subnormal boundary; every
    sub-block shift combination (tau_a, tau_b); the largest magnitudes (the block-sum bound W); a single
    non-zero product in every lane; sums whose FP32 rounding is an exact tie (even and odd), found by search
    over sparse and dense candidates; special values (NaN and Inf elements, NaN scales, Inf x 0, +Inf with
    -Inf). ``fp8`` operands cycle through every (sel_a, sel_b) pair.
    """
    from ...golden.dot import dot
    from .dot_groups import directed_groups

    rng = np.random.default_rng(seed)
    ops = concat_dot_operands(cfg, directed_groups(cfg, rng))
    # Exact FP32 ties, by search.
    cands = _tie_candidates(cfg, rng)
    res = dot(cfg, cands.a, None, cands.b, select_a=cands.sel_a, select_b=cands.sel_b)
    tie, odd = _fp32_tie(res.sum, res.exp)
    tie &= ~res.nan & ~res.inf
    pick = np.concatenate([np.nonzero(tie & odd)[0][:12], np.nonzero(tie & ~odd)[0][:12]])
    if len(pick):
        sub = _take(cfg, cands, np.sort(pick), "FP32 rounding ties (even and odd kept LSB)")
        ops = concat_dot_operands(cfg, [ops, sub])
    return ops

def _take(cfg, ops, idx, label):
    def take(fmt, x):
        if isinstance(x, BlockEncoding):
            return BlockEncoding(fmt, x.scale[idx], x.shift[idx], x.elem[idx])
        return np.asarray(x)[idx]

    return DotOperands(take(cfg.a, ops.a), take(cfg.b, ops.b), ops.sel_a[idx], ops.sel_b[idx], [(0, label)])

def dot_group(cfg, a, b, label, sel_a=None, sel_b=None):
    n = a.scale.shape[0] if hasattr(a, "scale") else len(a)
    z = np.zeros(n, np.int64)
    return DotOperands(a, b, z if sel_a is None else sel_a, z if sel_b is None else sel_b, [(0, label)])

def dot_flip(fmt, codes):
    if dot_family(fmt) == "bdr":
        return codes ^ (1 << fmt.m)
    if dot_is_int(fmt):
        return (256 - codes) & 0xFF
    return codes ^ fmt.element.sign_mask

def max_codes(fmt):
    if dot_family(fmt) == "bdr":
        return (1 << fmt.m) - 1
    if fmt.is_int:
        return 127
    return fmt.element.max_code

def dot_stack(fmt, rows):
    sc = np.concatenate([r[0] for r in rows])
    sh = None if rows[0][1] is None else np.concatenate([r[1] for r in rows])
    el = np.concatenate([r[2] for r in rows])
    return block_ops(fmt, sc, sh, el)

def scalar_codes(fmt, sel, rng, shape, *, ef=None, nonzero=True):
    """Finite codes of the scalar operand, format per vector from ``sel``; ``ef`` forces exponent fields."""
    out = np.zeros(shape, np.int64)
    for idx, el in enumerate(fmt.formats):
        codes = rng.integers(1 if nonzero else 0, el.sign_mask, shape)
        if ef is not None:
            e = np.broadcast_to(np.asarray(ef(el)), shape)
            codes = (e << el.mbits) | (codes & ((1 << el.mbits) - 1))
        _, _, _, nan, inf = element_fields(el, codes)
        codes = np.where(nan | inf, codes - (1 << el.mbits), codes)
        codes = codes | (rng.integers(0, 2, shape) * el.sign_mask)
        out = np.where((sel == idx).reshape((-1,) + (1,) * (len(shape) - 1)), codes, out)
    return out

def _tie_candidates(cfg, rng):
    """Sparse and dense operands whose sums often need FP32 rounding near a tie."""
    
    n = 6000
    if dot_family(cfg.a) == "scalar":
        sa = rng.integers(0, len(cfg.a.formats), n)
        sb = rng.integers(0, len(cfg.b.formats), n)
        a = scalar_codes(cfg.a, sa, rng, (n, cfg.r), ef=lambda el: rng.integers(0, el.exp_max_field, (n, cfg.r)))
        b = scalar_codes(cfg.b, sb, rng, (n, cfg.r), ef=lambda el: rng.integers(0, el.exp_max_field, (n, cfg.r)))
        keep = rng.random((n, cfg.r)) < rng.choice([0.1, 0.3, 1.0], (n, 1))
        return DotOperands(np.where(keep, a, 0).astype(np.uint64), b.astype(np.uint64), sa, sb, [(0, "ties")])
    out = []
    for fmt in (cfg.a, cfg.b):
        lo, hi = scale_range(fmt)
        # half near the middle of the scale range (normal-range ties when T is wide), half low (subnormal ties)
        base = np.where(rng.random((n, 1)) < 0.5, rng.integers(lo, hi + 1, (n, 1)),
                        rng.integers(lo, lo + max(2, (hi - lo) // 3) + 1, (n, 1)))
        sc = np.clip(base + rng.integers(-2, 3, (n, cfg.nb)), lo, hi)
        sh = rng.integers(0, fmt.beta + 1, (n, cfg.nb, fmt.n_sub)) if dot_family(fmt) == "bdr" else None
        el = pos_codes(fmt, rng, (n, cfg.nb, cfg.k1))
        el = with_sign(fmt, el, rng.random(el.shape) < 0.5)
        keep = rng.random(el.shape) < rng.choice([0.05, 0.2, 1.0], (n, 1, 1))
        el = np.where(keep, el, 0)
        out.append(block_ops(fmt, sc, sh, el))
    z = np.zeros(n, np.int64)
    return DotOperands(out[0], out[1], z, z, [(0, "ties")])
