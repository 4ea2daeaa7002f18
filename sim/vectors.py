"""Stimulus for the conversion units: exhaustive 16-bit patterns, random FP32, directed corner cases."""

from __future__ import annotations

import numpy as np

from ..golden import SOURCES, decode, get_format

__all__ = ["all_patterns", "directed", "random_patterns", "stimulus"]


def all_patterns(source: str) -> np.ndarray:
    """Every bit pattern of a 16-bit source, as uint64."""
    src = SOURCES[source]
    if src.bits != 16:
        raise ValueError(f"only 16-bit sources are enumerated, not {source!r}")
    return np.arange(1 << 16, dtype=np.uint64)


def random_patterns(source: str, n: int, seed: int) -> np.ndarray:
    """``n`` random patterns: half uniform over all bit patterns, half with exponents near the FP8 range."""
    src = SOURCES[source]
    rng = np.random.default_rng(seed)
    uniform = rng.integers(0, 1 << src.bits, n - n // 2, dtype=np.uint64)
    half = n // 2
    exp = rng.integers(src.bias - 30, src.bias + 20, half).astype(np.uint64)
    man = rng.integers(0, 1 << src.mbits, half, dtype=np.uint64)
    sign = rng.integers(0, 2, half).astype(np.uint64)
    near = (sign << np.uint64(src.bits - 1)) | (exp << np.uint64(src.mbits)) | man
    return np.concatenate([uniform, near])


def _bits(values, source):
    src = SOURCES[source]
    return np.asarray(values, dtype=np.float64).astype(src.dtype).view(
        np.uint32 if src.bits == 32 else np.uint16).astype(np.uint64)


def directed(fmt, source: str = "fp32") -> np.ndarray:
    """Corner cases of converting ``source`` into ``fmt``, both signs, as source bit patterns (uint64).

    Every finite value of the format and its ±1 source-ulp neighbours; every rounding midpoint between
    consecutive values (including 0 and the smallest subnormal: the underflow threshold, and the largest
    value and the next one beyond it: the overflow threshold) and its ±1 ulp neighbours; every power of
    two of the source and its neighbours (binade boundaries); source subnormals; ±0, ±Inf, ±max of the
    source; NaNs with assorted payloads.
    """
    fmt = get_format(fmt)
    src = SOURCES[source]
    dt = src.dtype
    codes = np.arange(1 << fmt.bits)
    vals = decode(fmt, codes).astype(np.float64)
    pos = np.unique(vals[np.isfinite(vals) & (vals >= 0)])
    step = fmt.top_quantum
    beyond = np.array([pos[-1] + step, pos[-1] + 2 * step])
    grid = np.concatenate([pos, beyond])
    mids = (grid[:-1] + grid[1:]) / 2
    centres = np.concatenate([grid, mids, 2.0 ** np.arange(src.emin - src.mbits, src.emax + 1)])
    centres = centres[centres < 2.0 ** (src.emax + 1)].astype(dt)
    with np.errstate(over="ignore"):
        up = np.nextafter(centres, np.array(np.inf, dtype=dt))
        down = np.nextafter(centres, np.array(0, dtype=dt))
    finite = np.concatenate([centres, up, down]).astype(np.float64)
    finite = finite[np.isfinite(finite)]
    word = np.uint32 if src.bits == 32 else np.uint16
    uint = lambda v: np.asarray(v, dtype=np.uint64)  # noqa: E731
    exp_all = ((1 << src.ebits) - 1) << src.mbits
    payloads = np.array([1, 2, 3, 1 << (src.mbits - 1), (1 << (src.mbits - 1)) | 1, (1 << src.mbits) - 1])
    special = np.concatenate([
        uint([0, exp_all]),  # +0, +Inf
        uint(exp_all | payloads),  # NaNs: signalling and quiet, assorted payloads
        uint([1, 2, 3, (1 << src.mbits) - 1, 1 << (src.mbits - 1)]),  # source subnormals
        uint([exp_all - 1]),  # largest finite source value
    ])
    mags = np.concatenate([_bits(finite, source), special]) & np.uint64((1 << (src.bits - 1)) - 1)
    sign = np.uint64(1 << (src.bits - 1))
    out = np.unique(np.concatenate([mags, mags | sign]))
    return out


def stimulus(fmt, source: str, n_random: int, seed: int) -> np.ndarray:
    """The standard stimulus: all patterns for 16-bit sources; directed + ``n_random`` random for FP32."""
    if SOURCES[source].bits == 16:
        return all_patterns(source)
    return np.concatenate([directed(fmt, source), random_patterns(source, n_random, seed)])
