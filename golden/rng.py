"""The reproducible random-bit generator behind stochastic rounding.

Golden model and RTL (``fpforge.hw.rng.Xorshift32``) implement the same generator, so the same seed
gives the same codes in both.

* State: 32 bits, xorshift32 with shifts (13, 17, 5) (Marsaglia 2003): ``s ^= s << 13; s ^= s >> 17;
  s ^= s << 5`` (all mod 2**32). Period 2**32 - 1 over the non-zero states.
* Seeding: ``s0 = seed`` (seeds are 0..2**32 - 1, :func:`fpforge.golden.checks.as_seed`); a zero seed (the one state that never moves) is replaced by
  ``0x9E3779B9``.
* Draw ``i`` (0-based, one per value in C order) is the top ``R`` bits of ``T**(i+1)(s0)``: the RTL
  resets its state register to ``T(s0)``, offers the top ``R`` bits on ``rand``, and steps once per value.

The generator is linear over GF(2), so ``T**n`` is a 32×32 bit matrix. Drawing ``n`` values splits the
sequence into lanes of ``_LANE`` consecutive states: the lane starts come from jump-ahead and doubling
(``starts[k:2k] = T**(k·_LANE) starts[0:k]``, each matrix applied through two 65,536-entry tables of its
16-bit halves, 512 KiB while in use), then all lanes step together ``_LANE`` times with the three
shift-xors, a few thousand lanes at a time so the block being written stays in cache. No Python loop per
value (about 200 M draws/s on one core, ``make bench``).
"""

from __future__ import annotations

import numpy as np

from .checks import as_int, as_seed

__all__ = ["DEFAULT_RAND_BITS", "MAX_DRAWS", "ZERO_SEED_STATE", "random_bits", "rng_reset_state", "seed_state",
           "state_blocks", "states", "step", "STEP_MATRIX", "apply_matrix", "compose_matrices"]

#: Default number R of random bits per value for stochastic rounding.
DEFAULT_RAND_BITS = 16

#: Most draws one call of :func:`random_bits` returns (the generator's period, 2**32 - 1).
MAX_DRAWS = (1 << 32) - 1

#: State used for seed 0 (xorshift's zero state never moves).
ZERO_SEED_STATE = 0x9E3779B9

_M32 = 0xFFFFFFFF


def step(s: int) -> int:
    """One xorshift32 step on a Python int."""
    s ^= (s << 13) & _M32
    s ^= s >> 17
    s ^= (s << 5) & _M32
    return s


def seed_state(seed: int) -> int:
    """The state ``s0`` a seed selects."""
    s = int(seed) & _M32
    return s if s else ZERO_SEED_STATE


def rng_reset_state(seed: int) -> int:
    """Reset value of the RTL state register: ``T(s0)``, whose top bits are draw 0."""
    return step(seed_state(seed))


# A GF(2) matrix is stored as its 32 columns (uint32): column j is the image of 1 << j.
def apply_matrix(cols: np.ndarray, s):
    """Apply a matrix to a uint32 array using four 256-entry byte tables."""
    s = np.asarray(s, dtype=np.uint32)
    out = np.zeros(s.shape, dtype=np.uint32)
    v = np.arange(256, dtype=np.uint32)
    for b in range(4):
        tab = np.zeros(256, dtype=np.uint32)
        for j in range(8):
            tab ^= np.where((v >> j) & 1, cols[8 * b + j], 0).astype(np.uint32)
        out ^= tab[(s >> np.uint32(8 * b)) & np.uint32(0xFF)]
    return out


def compose_matrices(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Columns of the product ``a @ b`` (apply b first)."""
    return apply_matrix(a, b)


STEP_MATRIX = np.array([step(1 << j) for j in range(32)], dtype=np.uint32)
_I = np.array([1 << j for j in range(32)], dtype=np.uint32)


def _power(n: int) -> np.ndarray:
    """Columns of ``T**n``."""
    result, base = _I.copy(), STEP_MATRIX.copy()
    while n:
        if n & 1:
            result = compose_matrices(base, result)
        base = compose_matrices(base, base)
        n >>= 1
    return result


#: States per lane, and lanes stepped together, in :func:`states`.
_LANE = 32
_LANES_AT_ONCE = 4096


def _tables16(cols: np.ndarray):
    """The images of every 16-bit low half and high half under a matrix: two 65,536-entry tables."""
    tabs = []
    for off in (0, 16):
        tab = np.zeros(1 << 16, dtype=np.uint32)
        n = 1
        for j in range(16):
            np.bitwise_xor(tab[:n], cols[off + j], out=tab[n : 2 * n])
            n *= 2
        tabs.append(tab)
    return tabs


def _apply_into(cols: np.ndarray, src: np.ndarray, dst: np.ndarray, chunk: int = 1 << 15):
    """``dst = T(src)`` for a matrix ``cols``, through the 16-bit tables, in chunks."""
    lo, hi = _tables16(cols)
    idx = np.empty(min(chunk, len(src)), dtype=np.uint32)
    part = np.empty_like(idx)
    for j in range(0, len(src), chunk):
        e = min(j + chunk, len(src))
        i, h = idx[: e - j], part[: e - j]
        np.bitwise_and(src[j:e], np.uint32(0xFFFF), out=i)
        np.take(lo, i, out=dst[j:e])
        np.right_shift(src[j:e], np.uint32(16), out=i)
        np.take(hi, i, out=h)
        dst[j:e] ^= h


def _lane_starts(seed: int, n: int, start: int) -> np.ndarray:
    """The first state of each lane: ``T**(start + 1 + k·_LANE)(s0)``."""
    lanes = -(-n // _LANE)
    starts = np.empty(lanes, dtype=np.uint32)
    starts[0] = apply_matrix(_power(start + 1), np.array([seed_state(seed)], dtype=np.uint32))[0]
    jump, k = _power(_LANE), 1
    while k < lanes:
        m = min(k, lanes - k)
        _apply_into(jump, starts[:m], starts[k : k + m])
        k += m
        if k < lanes:
            jump = compose_matrices(jump, jump)
    return starts


def _step_lanes(first: np.ndarray, out: np.ndarray, tmp: np.ndarray):
    """``out[l, j]`` = state ``j`` of the lane starting at ``first[l]`` (``out`` is ``(lanes, _LANE)``)."""
    ss, tt = first, tmp[: len(first)]
    for j in range(_LANE):
        out[:, j] = ss
        np.left_shift(ss, np.uint32(13), out=tt)
        ss ^= tt
        np.right_shift(ss, np.uint32(17), out=tt)
        ss ^= tt
        np.left_shift(ss, np.uint32(5), out=tt)
        ss ^= tt


def state_blocks(seed: int, n: int, start: int = 0):
    """The states of :func:`states` as consecutive uint32 blocks of at most ``_LANE * _LANES_AT_ONCE``
    (131,072) values. The block's memory is reused: consume each block before asking for the next."""
    if n == 0:
        return
    starts = _lane_starts(seed, n, start)
    buf = np.empty((min(_LANES_AT_ONCE, len(starts)), _LANE), dtype=np.uint32)
    tmp = np.empty(len(buf), dtype=np.uint32)
    for a in range(0, len(starts), _LANES_AT_ONCE):
        b = min(a + _LANES_AT_ONCE, len(starts))
        _step_lanes(starts[a:b].copy(), buf[: b - a], tmp)
        yield buf[: b - a].reshape(-1)[: n - a * _LANE]


def states(seed: int, n: int, start: int = 0) -> np.ndarray:
    """States ``T**(start+1+i)(s0)`` for ``i`` in ``range(n)`` as uint32."""
    if n == 0:
        return np.empty(0, dtype=np.uint32)
    starts = _lane_starts(seed, n, start)
    out = np.empty((len(starts), _LANE), dtype=np.uint32)
    tmp = np.empty(min(_LANES_AT_ONCE, len(starts)), dtype=np.uint32)
    for a in range(0, len(starts), _LANES_AT_ONCE):
        b = min(a + _LANES_AT_ONCE, len(starts))
        _step_lanes(starts[a:b].copy(), out[a:b], tmp)
    return out.reshape(-1)[:n]


def random_bits(seed: int, n: int, bits: int = DEFAULT_RAND_BITS, start: int = 0) -> np.ndarray:
    """Draws ``start .. start+n-1`` of the generator: the top ``bits`` bits of each state (uint32).

    Parameters
    ----------
    seed : int
        An integer in 0..2**32 - 1 (larger seeds are refused: they would alias).
    n : int
        Number of draws.
    bits : int
        R, 1..32.
    start : int
        Index of the first draw (jump-ahead; lets callers work in chunks).
    """
    seed = as_seed(seed, allow_none=False)
    bits = as_int(bits, "bits (random bits per value)", 1, 32)
    n = as_int(n, "n (number of draws, non-negative)", 0, MAX_DRAWS)
    start = as_int(start, "start (index of the first draw, non-negative)", 0, (1 << 64) - 1)
    return states(seed, n, start) >> np.uint32(32 - bits)
