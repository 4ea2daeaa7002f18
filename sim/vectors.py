"""Stimulus for the conversion units: exhaustive 16-bit patterns, random FP32, directed corner cases.

Run-time-bias formats (CFloat8, SHP) pair every operand with a bias: :func:`stimulus_with_bias` repeats
the 16-bit patterns for each bias of a set, builds the directed cases of each such bias from
``fmt.at(bias)``, and gives every random FP32 operand its own random bias (all 64) with half of them drawn
near that bias's range.
"""

from __future__ import annotations

import numpy as np

from ..golden import SOURCES, decode, get_format
from ..golden.formats import RUNTIME_BIASES

__all__ = ["DEFAULT_BIASES", "EXHAUSTIVE_BIASES", "all_patterns", "directed", "random_patterns", "stimulus", "stimulus_with_bias"]

#: Biases the directed FP32 cases and the SHP decoder cover in ``make test``: both ends and their
#: neighbours, the middle with every bit flipping between 31 and 32, and the E4M3/E5M2-like 7 and 15
#: (the issue's SHP decoder list plus 7); ``make regress``: all 64.
DEFAULT_BIASES = (0, 1, 7, 15, 31, 32, 62, 63)

#: Biases the exhaustive 16-bit-source encoder runs cover in ``make test`` (each costs 65,536 vectors
#: per rounding mode): both ends, the E4M3-like 7, and 32 (bit 5 set); ``make regress``: all 64.
EXHAUSTIVE_BIASES = (0, 7, 32, 63)


def all_patterns(source: str) -> np.ndarray:
    """Every bit pattern of a 16-bit source, as uint64."""
    src = SOURCES[source]
    if src.bits != 16:
        raise ValueError(f"only 16-bit sources are enumerated, not {source!r}")
    return np.arange(1 << 16, dtype=np.uint64)


def random_patterns(source: str, n: int, seed: int, exp_range=None) -> np.ndarray:
    """``n`` random patterns: half uniform over all bit patterns, half with unbiased exponents in
    ``exp_range = (lo, hi)`` (scalars or arrays of ``n - n // 2``; default ``(-30, 20)``, near the FP8 range)."""
    src = SOURCES[source]
    rng = np.random.default_rng(seed)
    uniform = rng.integers(0, 1 << src.bits, n - n // 2, dtype=np.uint64)
    half = n // 2
    lo, hi = (-30, 20) if exp_range is None else exp_range
    exp = np.clip(rng.integers(np.asarray(lo) + src.bias, np.asarray(hi) + src.bias, half), 0,
                  src.exp_max_field).astype(np.uint64)
    man = rng.integers(0, 1 << src.mbits, half, dtype=np.uint64)
    sign = rng.integers(0, 2, half).astype(np.uint64)
    near = (sign << np.uint64(src.bits - 1)) | (exp << np.uint64(src.mbits)) | man
    return np.concatenate([uniform, near])


def _bits(values, source):
    src = SOURCES[source]
    return np.asarray(values, dtype=np.float64).astype(src.dtype).view(
        np.uint32 if src.bits == 32 else np.uint16).astype(np.uint64)


def _values(fmt) -> np.ndarray:
    """Sorted distinct finite non-negative values of a fixed-bias ``fmt``; a flush-to-zero format's
    denormals are included (they are its rounding grid below the smallest normal)."""
    grid = fmt.with_(ftz=False) if getattr(fmt, "ftz", False) else fmt
    vals = decode(grid, np.arange(1 << fmt.bits)).astype(np.float64)
    return np.unique(vals[np.isfinite(vals) & (vals >= 0)])


def directed(fmt, source: str = "fp32", *, bias=None, ieee_denormals=False, dense_limit=512,
             extras=True) -> np.ndarray:
    """Corner cases of converting ``source`` into ``fmt``, both signs, as source bit patterns (uint64).

    Every finite value of the format and its ±1 source-ulp neighbours; every rounding midpoint between
    consecutive values (including 0 and the smallest subnormal: the underflow threshold, the largest
    denormal and the smallest normal: the CFloat denormal gap, and the largest value and the next one
    beyond it: the overflow threshold) and its ±1 ulp neighbours; every power of two of the source and its
    neighbours (binade boundaries); source subnormals; ±0, ±Inf, ±max of the source; NaNs with assorted
    payloads. A run-time-bias format needs ``bias``. A format with more than ``dense_limit`` values
    (SHP, UHP) keeps, instead of every value, the lowest and highest 32, 16 on each side of the smallest
    normal, the first and last two of every binade, and a fixed sample of 96 more. ``extras=False``
    leaves out what does not depend on the format (source powers of two outside the format's range,
    source subnormals, ±Inf, NaNs, ±source max): the second and later biases of a run need them once.
    """
    from ..golden.minifloat import with_denormals

    fmt = with_denormals(get_format(fmt), ieee_denormals).at(bias)
    src = SOURCES[source]
    dt = src.dtype
    pos = _values(fmt)
    step = fmt.top_quantum
    beyond = np.array([pos[-1] + step, pos[-1] + 2 * step])
    grid = np.concatenate([pos, beyond])
    keep = np.arange(len(grid) - 1)
    if len(pos) > dense_limit:
        at = int(np.searchsorted(grid, fmt.min_normal))
        binade = np.frexp(grid)[1]
        edges = np.flatnonzero(np.diff(binade) != 0)
        keep = np.unique(np.concatenate([
            keep[:32], keep[-32:], keep[max(at - 16, 0): at + 16], edges, edges - 1, edges + 1,
            np.random.default_rng(len(pos)).choice(keep, 96)]))
        keep = keep[(keep >= 0) & (keep < len(grid) - 1)]
    lo, hi = grid[keep], grid[keep + 1]
    e_lo, e_hi = src.emin - src.mbits, src.emax
    if not extras:
        e_lo, e_hi = max(e_lo, int(np.frexp(pos[1])[1]) - 3), min(e_hi, int(np.frexp(grid[-1])[1]) + 2)
    centres = np.concatenate([lo, hi, (lo + hi) / 2, 2.0 ** np.arange(e_lo, e_hi + 1)])
    centres = centres[centres < 2.0 ** (src.emax + 1)].astype(dt)
    with np.errstate(over="ignore"):
        up = np.nextafter(centres, np.array(np.inf, dtype=dt))
        down = np.nextafter(centres, np.array(0, dtype=dt))
    finite = np.concatenate([centres, up, down]).astype(np.float64)
    finite = finite[np.isfinite(finite)]
    uint = lambda v: np.asarray(v, dtype=np.uint64)  # noqa: E731
    exp_all = ((1 << src.ebits) - 1) << src.mbits
    payloads = np.array([1, 2, 3, 1 << (src.mbits - 1), (1 << (src.mbits - 1)) | 1, (1 << src.mbits) - 1])
    special = np.concatenate([
        uint([0, exp_all]),  # +0, +Inf
        uint(exp_all | payloads),  # NaNs: signalling and quiet, assorted payloads
        uint([1, 2, 3, (1 << src.mbits) - 1, 1 << (src.mbits - 1)]),  # source subnormals
        uint([exp_all - 1]),  # largest finite source value
    ]) if extras else uint([0])
    mags = np.concatenate([_bits(finite, source), special]) & np.uint64((1 << (src.bits - 1)) - 1)
    sign = np.uint64(1 << (src.bits - 1))
    out = np.unique(np.concatenate([mags, mags | sign]))
    return out


def stimulus(fmt, source: str, n_random: int, seed: int) -> np.ndarray:
    """The standard stimulus: all patterns for 16-bit sources; directed + ``n_random`` random for FP32."""
    if SOURCES[source].bits == 16:
        return all_patterns(source)
    return np.concatenate([directed(fmt, source), random_patterns(source, n_random, seed)])


def stimulus_with_bias(fmt, source: str, n_random: int, seed: int, biases=None, *,
                       ieee_denormals=False):
    """``(patterns, biases)`` for a run-time-bias format (``biases`` is None for a fixed-bias one, with
    :func:`stimulus`'s patterns).

    16-bit sources: every pattern once per bias of ``biases`` (default ``EXHAUSTIVE_BIASES``), pattern
    by pattern. FP32: the directed cases of each bias of ``biases`` (default ``DEFAULT_BIASES``), taken
    round-robin, then ``n_random`` random operands, each with a random bias from all 64, half of them
    with an exponent near that bias's range (below the smallest denormal to past the overflow threshold).
    Consecutive vectors never share a bias while more than one bias is left.
    """
    fmt = get_format(fmt)
    if not getattr(fmt, "runtime_bias", False):
        return stimulus(fmt, source, n_random, seed), None
    if biases is None:
        biases = EXHAUSTIVE_BIASES if SOURCES[source].bits == 16 else DEFAULT_BIASES
    biases = np.asarray(tuple(biases), dtype=np.uint64)
    if SOURCES[source].bits == 16:  # pattern-major: the bias changes from each vector to the next
        pats = all_patterns(source)
        return np.repeat(pats, len(biases)), np.tile(biases, len(pats))
    parts = [directed(fmt, source, bias=int(b), ieee_denormals=ieee_denormals, extras=False) for b in biases]
    # The bias-independent cases (NaNs, ±Inf, source subnormals, ...) once, spread over the biases.
    extra = np.setdiff1d(directed(fmt, source, bias=int(biases[0]), ieee_denormals=ieee_denormals), parts[0])
    parts = [np.concatenate([p, extra[i :: len(biases)]]) for i, p in enumerate(parts)]
    # Stratified merge: element k of a set of n sits at (k + 1/2) / n, so the sets run out together.
    pos = np.concatenate([(np.arange(len(p)) + 0.5) / len(p) for p in parts])
    which = np.concatenate([np.full(len(p), i) for i, p in enumerate(parts)])
    order = np.lexsort((which, pos))
    dpats, dbias = np.concatenate(parts)[order], biases[which[order]]
    # Random operands: each bias differs from the one before (a random non-zero step mod 64).
    rng = np.random.default_rng([seed, 64])
    n_b = RUNTIME_BIASES.stop
    rb = (rng.integers(0, n_b) + np.cumsum(rng.integers(1, n_b, n_random))) % n_b
    half = n_random - n_random // 2  # random_patterns: uniform half first, then the "near" half
    near = rb[half:].astype(np.int64)
    rand = random_patterns(source, n_random, seed,
                           exp_range=(-near - fmt.mbits - 3, (fmt.max_code >> fmt.mbits) - near + 3))
    pats = np.concatenate([dpats, rand])
    bias = np.concatenate([dbias, rb.astype(np.uint64)])
    # A directed case whose bias equals its predecessor's goes to the end (removing it cannot make its
    # neighbours equal: they differ unless the next one is such a case too).
    dup = np.concatenate([[False], bias[1:] == bias[:-1]])
    return np.concatenate([pats[~dup], pats[dup]]), np.concatenate([bias[~dup], bias[dup]])


# -- block formats ----------------------------------------------------------------------------------------
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


def directed_blocks(fmt, seed=0):
    """float32 blocks ``(n, k1)`` of the corner cases of a block format (BDR or OCP MX):

    all zeros (±0); a single non-zero in every lane; one outlier 2**20 above the rest; every sub-block at
    its largest shift (and just above it); elements exactly at rounding midpoints (half a step above a
    representable magnitude, lane 0 pinning the shared exponent) and just at the saturation threshold;
    the shared exponent at both ends of its range (FP32's largest values, FP32 subnormals, and beyond a
    small d1 range); NaN, +Inf and -Inf members.
    """
    fmt = get_format(fmt)
    k1 = fmt.k1
    rng = np.random.default_rng(seed)
    rows = []
    zeros = np.zeros(k1)
    rows.append(zeros)
    rows.append(np.where(np.arange(k1) % 3 == 1, -0.0, 0.0))
    for i in range(k1):  # a single non-zero in every lane
        r = zeros.copy()
        r[i] = (-1) ** i * 1.375 * 2.0 ** (i - 8)
        rows.append(r)
    for i in range(0, k1, max(1, k1 // 4)):  # one outlier 2^20 above the rest
        r = rng.uniform(1, 2, k1) * rng.choice([-1, 1], k1)
        r[i] = 1.5 * 2.0**20
        rows.append(r)
    beta = getattr(fmt, "beta", 0)
    k2 = getattr(fmt, "k2", k1)
    for extra in (0, 1, 3):  # every sub-block but the first at (and below) its largest shift
        r = rng.uniform(1, 2, k1) * 2.0 ** -(beta + extra) * rng.choice([-1, 1], k1)
        r[0] = 1.0
        rows.append(r)
        r = r.copy()
        r[k2:] = 2.0 ** -(beta + extra)  # exactly 2^(E - beta - extra)
        rows.append(r)
    # Rounding midpoints: magnitudes exactly half a step above a representable one.
    for _ in range(6):
        r = np.empty(k1)
        if getattr(fmt, "family", "") == "bdr":
            m = fmt.m
            taus = rng.integers(0, beta + 1, fmt.n_sub)
            for j in range(fmt.n_sub):
                lo = 1 << (m - 1) if k2 == 1 else 0
                q = rng.integers(lo, (1 << m) - 1, k2)
                r[j * k2 : (j + 1) * k2] = (q + 0.5) * 2.0 ** (-int(taus[j]) - m + 1)
                r[j * k2] = 2.0 ** -int(taus[j])  # pins the sub-block's largest exponent
        elif fmt.is_int:
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
    # The saturation threshold: just below the next power of two.
    r = np.full(k1, 1.9999999)
    r[1::2] = -1.99
    rows.append(r)
    # Shared exponent at both ends of its range.
    f32 = np.finfo(np.float32)
    rows.append(np.full(k1, float(f32.max)) * rng.choice([-1, 1], k1))
    rows.append(rng.uniform(1, 2, k1) * 2.0**127)
    rows.append(np.arange(1, k1 + 1) * 2.0**-149)  # FP32 subnormals
    rows.append(rng.uniform(1, 2, k1) * 2.0**-126)
    d1 = getattr(fmt, "d1", 8)
    lo, hi = -(2 ** (d1 - 1)), 2 ** (d1 - 1) - 1
    for e in (lo - 3, lo, hi, hi + 3):
        if -149 <= e <= 127:
            rows.append(rng.uniform(1, 2, k1) * 2.0**e * rng.choice([-1, 1], k1))
    # NaN / Inf members.
    for special in (np.nan, np.inf, -np.inf):
        r = rng.uniform(1, 2, k1)
        r[k1 // 2] = special
        rows.append(r)
    r = rng.uniform(1, 2, k1)
    r[0], r[-1] = np.inf, np.nan
    rows.append(r)
    with np.errstate(over="ignore"):
        return np.array(rows).astype(np.float32)
