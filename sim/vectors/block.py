"""Stimulus for the block units: random blocks and the directed corner cases of a block format, one named
function per group of corner cases (:data:`DIRECTED_BLOCK_GROUPS`, in the order the blocks are drawn)."""

from __future__ import annotations

import numpy as np

from ...golden import decode, get_format

__all__ = ["DIRECTED_BLOCK_GROUPS", "directed_blocks", "random_blocks"]


def random_blocks(k1, n_blocks, seed, *, specials=True, span=(-140, 127)):
    """float32 blocks ``(n_blocks, k1)`` that exercise block formats: per block a random base exponent in
    ``span`` (FP32 subnormals included), per element an exponent below it by 0..2 (70%) or 0..30, ±0 (8%),
    a quarter with the low mantissa bits cleared (exact values and rounding ties), an outlier 2**20 above
    the rest in 10% of the blocks, and (``specials``) NaN/±Inf members (0.4% of the elements)."""
    rng = np.random.default_rng(seed)
    base = rng.integers(span[0], span[1] + 1, (n_blocks, 1))
    drop = np.where(rng.random((n_blocks, k1)) < 0.7, rng.integers(0, 3, (n_blocks, k1)),
                    rng.integers(0, 31, (n_blocks, k1)))
    e = np.clip(base - drop, -149, 127)
    man = rng.integers(0, 1 << 23, (n_blocks, k1)).astype(np.uint32)
    k = rng.integers(0, 24, (n_blocks, k1)).astype(np.uint32)
    man = np.where(rng.random((n_blocks, k1)) < 0.25, man & (np.uint32(0xFFFFFFFF) << k), man)
    normal = e >= -126
    field = np.where(normal, e + 127, 0).astype(np.uint32)
    # A subnormal with exponent e: leading one at bit e + 149 of the 23-bit field, random bits below.
    lead = np.clip(e + 149, 0, 22).astype(np.uint32)
    sub_man = (np.uint32(1) << lead) | (man >> (np.uint32(23) - lead))
    man = np.where(normal, man, sub_man)
    sign = rng.integers(0, 2, (n_blocks, k1)).astype(np.uint32) << np.uint32(31)
    bits = sign | (field << np.uint32(23)) | man
    bits = np.where(rng.random((n_blocks, k1)) < 0.08, sign, bits)  # ±0
    outlier = rng.random(n_blocks) < 0.1
    col = rng.integers(0, k1, n_blocks)
    x = bits.view(np.float32)
    big = np.ldexp(np.abs(x[np.arange(n_blocks), col]).astype(np.float64).clip(2.0**-100), 20)
    x[outlier, col[outlier]] = np.minimum(big, 2.0**127)[outlier].astype(np.float32)
    if specials:
        which = rng.random((n_blocks, k1)) < 0.004
        kinds = rng.choice(np.array([np.nan, np.inf, -np.inf, -np.nan], np.float32), (n_blocks, k1))
        x = np.where(which, kinds, x)
    return x.astype(np.float32)


def zero_blocks(fmt, rng):
    """All zeros, then ±0 mixed."""
    k1 = fmt.k1
    return [np.zeros(k1), np.where(np.arange(k1) % 3 == 1, -0.0, 0.0)]


def single_lane_blocks(fmt, rng):
    """A single non-zero in every lane."""
    rows = []
    for i in range(fmt.k1):
        r = np.zeros(fmt.k1)
        r[i] = (-1) ** i * 1.375 * 2.0 ** (i - 8)
        rows.append(r)
    return rows


def outlier_blocks(fmt, rng):
    """One value 2^20 above the rest, in four lanes in turn."""
    k1, rows = fmt.k1, []
    for i in range(0, k1, max(1, k1 // 4)):
        r = rng.uniform(1, 2, k1) * rng.choice([-1, 1], k1)
        r[i] = 1.5 * 2.0**20
        rows.append(r)
    return rows


def largest_shift_blocks(fmt, rng):
    """Every sub-block but the first at (and below) its largest shift."""
    k1, beta, k2 = fmt.k1, fmt.dot_side.sub_max, fmt.k1 // fmt.n_sub
    rows = []
    for extra in (0, 1, 3):
        r = rng.uniform(1, 2, k1) * 2.0 ** -(beta + extra) * rng.choice([-1, 1], k1)
        r[0] = 1.0
        rows.append(r)
        r = r.copy()
        r[k2:] = 2.0 ** -(beta + extra)  # exactly 2^(E - beta - extra)
        rows.append(r)
    return rows


def midpoint_blocks(fmt, rng):
    """Rounding midpoints: magnitudes exactly half a step above a representable one (lane 0 pins the
    shared exponent)."""
    k1, beta, k2 = fmt.k1, fmt.dot_side.sub_max, fmt.k1 // fmt.n_sub
    rows = []
    for _ in range(6):
        r = np.empty(k1)
        if fmt.dot_side.sub_block_guard:
            m = fmt.m
            taus = rng.integers(0, beta + 1, fmt.n_sub)
            for j in range(fmt.n_sub):
                lo = 1 << (m - 1) if k2 == 1 else 0
                q = rng.integers(lo, (1 << m) - 1, k2)
                r[j * k2 : (j + 1) * k2] = (q + 0.5) * 2.0 ** (-int(taus[j]) - m + 1)
                r[j * k2] = 2.0 ** -int(taus[j])  # pins the sub-block's largest exponent
        elif fmt.dot_side.integer_elements:
            q = rng.integers(0, 126, k1)
            r[:] = (q + 0.5) / 64
        else:
            vals = np.unique(np.abs(decode(fmt.element, np.arange(1 << fmt.element.bits))))
            vals = vals[np.isfinite(vals)]
            c = rng.integers(0, len(vals) - 1, k1)
            r[:] = (vals[c] + vals[c + 1]) / 2 / 2.0**fmt.emax_elem
        r[0] = 1.0
        r *= rng.choice([-1, 1], k1) * 2.0 ** rng.integers(-20, 20)
        rows.append(r)
    return rows


def saturation_blocks(fmt, rng):
    """The saturation threshold: just below the next power of two."""
    r = np.full(fmt.k1, 1.9999999)
    r[1::2] = -1.99
    return [r]


def scale_range_blocks(fmt, rng):
    """The shared exponent at both ends of its range: FP32's largest values, FP32 subnormals, and around a
    small d1 range."""
    k1 = fmt.k1
    f32 = np.finfo(np.float32)
    rows = [np.full(k1, float(f32.max)) * rng.choice([-1, 1], k1), rng.uniform(1, 2, k1) * 2.0**127,
            np.arange(1, k1 + 1) * 2.0**-149, rng.uniform(1, 2, k1) * 2.0**-126]
    lo, hi = -(2 ** (fmt.scale_bits - 1)), 2 ** (fmt.scale_bits - 1) - 1
    for e in (lo - 3, lo, hi, hi + 3):
        if -149 <= e <= 127:
            rows.append(rng.uniform(1, 2, k1) * 2.0**e * rng.choice([-1, 1], k1))
    return rows


def special_blocks(fmt, rng):
    """NaN, +Inf and -Inf members; Inf and NaN in one block."""
    k1, rows = fmt.k1, []
    for special in (np.nan, np.inf, -np.inf):
        r = rng.uniform(1, 2, k1)
        r[k1 // 2] = special
        rows.append(r)
    r = rng.uniform(1, 2, k1)
    r[0], r[-1] = np.inf, np.nan
    rows.append(r)
    return rows


#: The directed groups of :func:`directed_blocks`, in the order they draw from the generator.
DIRECTED_BLOCK_GROUPS = (zero_blocks, single_lane_blocks, outlier_blocks, largest_shift_blocks, midpoint_blocks,
                         saturation_blocks, scale_range_blocks, special_blocks)


def directed_blocks(fmt, seed=0):
    """float32 blocks ``(n, k1)`` of the corner cases of a block format (BDR or OCP MX), the groups of
    :data:`DIRECTED_BLOCK_GROUPS`: all zeros (±0); a single non-zero in every lane; one outlier 2**20 above
    the rest; every sub-block at its largest shift (and just above it); elements exactly at rounding
    midpoints and just at the saturation threshold; the shared exponent at both ends of its range (FP32's
    largest values, FP32 subnormals, and beyond a small d1 range); NaN, +Inf and -Inf members.
    """
    fmt = get_format(fmt)
    rng = np.random.default_rng(seed)
    rows = [row for group in DIRECTED_BLOCK_GROUPS for row in group(fmt, rng)]
    with np.errstate(over="ignore"):
        return np.array(rows).astype(np.float32)
