"""Stimulus for the conversion units: exhaustive 16-bit patterns, random FP32 and directed corner cases.

Run-time-bias formats (CFloat8, SHP) pair every operand with a bias: :func:`stimulus_with_bias` repeats
the 16-bit patterns for each bias of a set, builds the directed cases of each such bias from
``fmt.at(bias)``, and gives every random FP32 operand its own random bias (all 64) with half of them drawn
near that bias's range.
"""

from __future__ import annotations

import numpy as np

from ...golden import SOURCES, decode, get_format
from ...golden.errors import FpforgeValueError
from ...golden.formats import RUNTIME_BIASES

__all__ = ["DEFAULT_BIASES", "EXHAUSTIVE_BIASES", "all_patterns", "directed", "random_patterns", "smoke_stimulus",
           "stimulus", "stimulus_with_bias", "tapered_thresholds"]

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
        raise FpforgeValueError(f"only 16-bit sources are enumerated, not {source!r}")
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
    grid = fmt.with_(ftz=False) if fmt.ftz else fmt
    vals = decode(grid, np.arange(1 << fmt.bits)).astype(np.float64)
    return np.unique(vals[np.isfinite(vals) & (vals >= 0)])


def directed(fmt, source: str = "fp32", *, bias=None, dense_limit=512, extras=True) -> np.ndarray:
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
    fmt = get_format(fmt).at(bias)
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


def tapered_thresholds(fmt, source: str = "fp32", *, seed=0) -> np.ndarray:
    """FP32 operands around a tapered format's thresholds, both signs: half the smallest denormal (2^-23,
    where Ascend's ``hr`` flushes), half-way from the largest value to the Inf slot (1.25 × 2^15, where it
    overflows) and the Inf slot (1.5 × 2^15): ±0..32 ulps and 64 random low-14-bit patterns in the
    threshold's ulp window on each side (hybrid rounding compares the top discarded bits with them)."""
    fmt = get_format(fmt)
    if SOURCES[source].bits != 32:
        return np.empty(0, np.uint64)
    rng = np.random.default_rng(seed)
    centres = np.array([fmt.min_subnormal / 2, fmt.max_value + fmt.top_quantum / 2, fmt.max_value + fmt.top_quantum],
                       np.float32).view(np.int32).astype(np.int64)
    near = (centres[:, None] + np.arange(-32, 33)[None, :]).ravel()
    window = (centres[:, None] & ~0x3FFF) + rng.integers(-0x4000, 0x8000, (3, 64))
    mags = np.concatenate([near, window.ravel()]).astype(np.uint64)
    return np.unique(np.concatenate([mags, mags | np.uint64(1 << 31)]))


def stimulus(fmt, source: str, n_random: int, seed: int) -> np.ndarray:
    """The standard stimulus: all patterns for 16-bit sources; directed + ``n_random`` random for FP32 (and
    for a format with hybrid rounding the neighbourhoods of its thresholds, :func:`tapered_thresholds`)."""
    if SOURCES[source].bits == 16:
        return all_patterns(source)
    extra = [tapered_thresholds(fmt, source, seed=seed)] if "hr" in get_format(fmt).roundings else []
    return np.concatenate([directed(fmt, source), *extra, random_patterns(source, n_random, seed)])


def smoke_stimulus(fmt, source: str, n: int, seed: int) -> np.ndarray:
    """``n`` patterns for a smoke run of an encoder (the bulk check is the prove harness,
    :mod:`fpforge.sim.prove_sample`): the format-independent specials of :func:`directed` (±0, ±Inf,
    NaNs, source subnormals, ±max), a seeded sample of its other corners (values, midpoints, ±1 ulp; for
    hybrid rounding also :func:`tapered_thresholds`) filling half of ``n``, and random patterns
    (:func:`random_patterns`) for the rest. Any source, fixed-bias formats."""
    fmt = get_format(fmt)
    if fmt.runtime_bias:
        raise ValueError(f"smoke_stimulus covers fixed-bias formats, not {fmt.name!r}")
    every = directed(fmt, source)
    specials = np.setdiff1d(every, directed(fmt, source, extras=False))
    if "hr" in fmt.roundings:
        every = np.union1d(every, tapered_thresholds(fmt, source, seed=seed))
    rest = np.setdiff1d(every, specials)
    rng = np.random.default_rng([seed, 2])
    specials = specials[:n]
    k = max(0, min(len(rest), n // 2 - len(specials)))
    corners = np.concatenate([specials, rng.choice(rest, k, replace=False)])
    return np.concatenate([corners, random_patterns(source, max(0, n - len(corners)), seed)])


def stimulus_with_bias(fmt, source: str, n_random: int, seed: int, biases=None):
    """``(patterns, biases)`` for a run-time-bias format (``biases`` is None for a fixed-bias one, with
    :func:`stimulus`'s patterns).

    16-bit sources: every pattern once per bias of ``biases`` (default ``EXHAUSTIVE_BIASES``), pattern
    by pattern. FP32: the directed cases of each bias of ``biases`` (default ``DEFAULT_BIASES``), taken
    round-robin, then ``n_random`` random operands, each with a random bias from all 64, half of them
    with an exponent near that bias's range (below the smallest denormal to past the overflow threshold).
    Consecutive vectors never share a bias while more than one bias is left.
    """
    fmt = get_format(fmt)
    if not fmt.runtime_bias:
        return stimulus(fmt, source, n_random, seed), None
    if biases is None:
        biases = EXHAUSTIVE_BIASES if SOURCES[source].bits == 16 else DEFAULT_BIASES
    biases = np.asarray(tuple(biases), dtype=np.uint64)
    if SOURCES[source].bits == 16:  # pattern-major: the bias changes from each vector to the next
        pats = all_patterns(source)
        return np.repeat(pats, len(biases)), np.tile(biases, len(pats))
    parts = [directed(fmt, source, bias=int(b), extras=False) for b in biases]
    # The bias-independent cases (NaNs, ±Inf, source subnormals, ...) once, spread over the biases.
    extra = np.setdiff1d(directed(fmt, source, bias=int(biases[0])), parts[0])
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
