"""Stimulus for the dot-product units: operand pairs of a :class:`fpforge.golden.dot.DotConfig` — random
(quantized Gaussian data and raw bit patterns) and directed (:mod:`fpforge.sim.vectors.dot_groups`, then
exact FP32 rounding ties found by search)."""

from __future__ import annotations

import numpy as np

from ...golden.block import BlockEncoding
from ...golden.dot.pipeline import element_fields
from .dot_codes import (  # DotOperands, bias_kwargs, concat_dot_operands: re-exported (their home is dot_codes)
    DotOperands,
    bias_kwargs,
    block_operands,
    concat_dot_operands,
    concat_operands,
    eoff_top,
    pos_codes,
    random_biases,
    scalar_codes,
    scalar_dot_fields,
    scale_range,
    takes_bias,
    with_sign,
)
from .dot_groups import directed_groups

__all__ = ["DotOperands", "concat_dot_operands", "directed_dot_operands", "random_dot_operands"]


def _raw_side(fmt, n, nb, rng, *, spread, zero_frac=0.2, special_frac=0.0):
    """Raw random fields of one operand: block scales around a per-vector base (offsets up to ``spread``
    per vector), random shifts and element bits; elements zeroed with ``zero_frac``; for formats with
    NaN/Inf codes, those codes replaced except in a ``special_frac`` share of the vectors."""
    if fmt.dot_side.element_block_exponent:
        codes = rng.integers(0, 1 << fmt.bits, (n, nb)).astype(np.int64)
        codes = np.where(rng.random((n, nb)) < zero_frac, codes & (1 << (fmt.bits - 1)), codes)
        return codes
    k1 = fmt.k1
    top = (1 << fmt.scale_bits) - 1
    span = np.asarray(spread)[:, None]
    base = rng.integers(0, top + 1, (n, 1))
    off = np.round((rng.random((n, nb)) * 2 - 1) * span).astype(np.int64)
    scale = np.clip(base + off, 0, top - (0 if fmt.dot_side.sub_block_guard else 1))
    if not fmt.dot_side.sub_block_guard:  # OCP: a NaN scale in a few vectors
        nan = (rng.random((n, nb)) < 0.5) & (rng.random((n, 1)) < special_frac)
        scale = np.where(nan, 0xFF, scale)
    elem = rng.integers(0, 1 << fmt.elem_bits, (n, nb, k1)).astype(np.int64)
    elem = np.where(rng.random((n, nb, k1)) < zero_frac, elem & (1 << (fmt.elem_bits - 1)), elem)
    if fmt.dot_side.sub_block_guard:
        shift = rng.integers(0, fmt.beta + 1, (n, nb, fmt.n_sub)) if fmt.d2 else np.zeros((n, nb, fmt.n_sub))
    else:
        shift = np.zeros((n, nb, 0))
        if not fmt.dot_side.integer_elements and (fmt.element.has_nan or fmt.element.has_inf):
            _, _, _, enan, einf = element_fields(fmt.element, elem)
            keep = rng.random((n, 1, 1)) < special_frac
            elem = np.where((enan | einf) & ~keep, elem & (fmt.element.sign_mask | 1), elem)
    return BlockEncoding(fmt, scale.astype(np.uint16), shift.astype(np.uint8), elem.astype(np.uint32))

def _scalar_clean(fmt, codes, sel, rng, special_frac):
    """Replace NaN/Inf codes of scalar operands except in a ``special_frac`` share of the vectors."""
    out = codes.copy()
    keep = rng.random((len(codes), 1)) < special_frac
    for idx, el in enumerate(fmt.formats):
        _, _, _, nan, inf = scalar_dot_fields(el, codes)
        bad = (nan | inf) & ~keep & (sel == idx)[:, None]
        out = np.where(bad, codes & (el.sign_mask | 1), out)
        _, _, _, nan, inf = scalar_dot_fields(el, out)  # (a NaN at 1000...0, HiF8's or FNUZ's, stays one: 0)
        out = np.where((nan | inf) & bad, 0, out)
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
    biases = {"a": None, "b": None}
    for side, fmt in (("a", cfg.a), ("b", cfg.b)):
        sel = rng.integers(0, len(fmt.formats), n) if fmt.dot_side.element_block_exponent else np.zeros(n, np.int64)
        sels[side] = sel
        x = gaussian_vectors(max(n_real, 1), r, seed + (side == "b"), log2_sigma=(-30, 30))[:n_real]
        spreads = rng.choice([0, 3, 12, 40], (n_real, 1))
        u = np.round((rng.random((n_real, nb)) * 2 - 1) * spreads)
        x = (x.reshape(n_real, nb, cfg.k1) * np.exp2(u)[:, :, None]).reshape(n_real, r).astype(np.float32)
        if fmt.dot_side.element_block_exponent:
            real = np.zeros((n_real, r), np.uint64)
            for idx in range(len(fmt.formats)):
                pick = sel[:n_real] == idx
                if pick.any():
                    real[pick] = quantized_operands(cfg, x[pick], select=idx, side=side)
            unscaled = rng.random(n_real) < 0.25
            bias = random_biases(rng, n) if takes_bias(fmt) else np.zeros(n, np.int64)
            biases[side] = bias
            from ...golden.minifloat import encode
            for idx, el in enumerate(fmt.formats):
                pick = unscaled & (sel[:n_real] == idx)
                if pick.any():
                    eb = np.broadcast_to(bias[:n_real][pick][:, None], x[pick].shape) if el.runtime_bias else None
                    real[pick] = encode(el, x[pick], saturate=True, bias=eb).astype(np.uint64)
            raw = _raw_side(fmt, n_raw, r, rng, spread=None)
            raw = _scalar_clean(fmt, raw, sel[n_real:], rng, 0.05)
            ops.append(np.concatenate([real, raw.astype(np.uint64)]))
        else:
            from ...golden.block import encode_block

            real = encode_block(fmt, x)
            spread = rng.choice([0, 2, 8, 40, 1 << fmt.scale_bits], n_raw)
            raw = _raw_side(fmt, n_raw, nb, rng, spread=spread, special_frac=0.05)
            ops.append(concat_operands(fmt, [real, raw]))
    labels = [(0, "random: quantized Gaussian data with spread block scales"), (n_real, "random: raw bit patterns")]
    return DotOperands(ops[0], ops[1], sels["a"], sels["b"], labels, biases["a"], biases["b"])


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

    rng = np.random.default_rng(seed)
    ops = concat_dot_operands(cfg, directed_groups(cfg, rng))
    # Exact FP32 ties, by search.
    cands = _tie_candidates(cfg, rng)
    res = dot(cfg, cands.a, None, cands.b, select_a=cands.sel_a, select_b=cands.sel_b, **bias_kwargs(cfg, cands))
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

    return DotOperands(take(cfg.a, ops.a), take(cfg.b, ops.b), ops.sel_a[idx], ops.sel_b[idx], [(0, label)],
                       ops.bias_a[idx], ops.bias_b[idx])


def _tie_candidates(cfg, rng):
    """Sparse and dense operands whose sums often need FP32 rounding near a tie."""
    
    n = 6000
    if cfg.a.dot_side.element_block_exponent:
        sa = rng.integers(0, len(cfg.a.formats), n)
        sb = rng.integers(0, len(cfg.b.formats), n)
        ef = lambda el: rng.integers(0, el.exp_max_field, (n, cfg.r))  # noqa: E731
        level = lambda el: rng.integers(0, eoff_top(el) + 1, (n, cfg.r))  # noqa: E731
        a = scalar_codes(cfg.a, sa, rng, (n, cfg.r), ef=ef, level=level)
        b = scalar_codes(cfg.b, sb, rng, (n, cfg.r), ef=ef, level=level)
        keep = rng.random((n, cfg.r)) < rng.choice([0.1, 0.3, 1.0], (n, 1))
        return DotOperands(np.where(keep, a, 0).astype(np.uint64), b.astype(np.uint64), sa, sb, [(0, "ties")],
                           random_biases(rng, n) if takes_bias(cfg.a) else None,
                           random_biases(rng, n) if takes_bias(cfg.b) else None)
    out = []
    for fmt in (cfg.a, cfg.b):
        lo, hi = scale_range(fmt)
        # half near the middle of the scale range (normal-range ties when T is wide), half low (subnormal ties)
        base = np.where(rng.random((n, 1)) < 0.5, rng.integers(lo, hi + 1, (n, 1)),
                        rng.integers(lo, lo + max(2, (hi - lo) // 3) + 1, (n, 1)))
        sc = np.clip(base + rng.integers(-2, 3, (n, cfg.nb)), lo, hi)
        sh = rng.integers(0, fmt.beta + 1, (n, cfg.nb, fmt.n_sub)) if fmt.dot_side.sub_block_guard else None
        el = pos_codes(fmt, rng, (n, cfg.nb, cfg.k1))
        el = with_sign(fmt, el, rng.random(el.shape) < 0.5)
        keep = rng.random(el.shape) < rng.choice([0.05, 0.2, 1.0], (n, 1, 1))
        el = np.where(keep, el, 0)
        out.append(block_operands(fmt, sc, sh, el))
    z = np.zeros(n, np.int64)
    return DotOperands(out[0], out[1], z, z, [(0, "ties")])
