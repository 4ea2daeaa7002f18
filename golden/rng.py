"""The reproducible random-bit generator behind stochastic rounding.

Golden model and RTL (``fpforge.hw.rng.Xorshift32``) implement the same generator, so the same seed
gives the same codes in both.

* State: 32 bits, xorshift32 with shifts (13, 17, 5) (Marsaglia 2003): ``s ^= s << 13; s ^= s >> 17;
  s ^= s << 5`` (all mod 2**32). Period 2**32 - 1 over the non-zero states.
* Seeding: ``s0 = seed mod 2**32``; a zero seed (the one state that never moves) is replaced by
  ``0x9E3779B9``.
* Draw ``i`` (0-based, one per value in C order) is the top ``R`` bits of ``T**(i+1)(s0)``: the RTL
  resets its state register to ``T(s0)``, offers the top ``R`` bits on ``rand``, and steps once per value.

The generator is linear over GF(2), so ``T**n`` is a 32×32 bit matrix; drawing ``n`` values uses
jump-ahead and doubling (``states[k:2k] = T**k states[0:k]``) with byte-wise lookup tables: no Python
loop per value.
"""

from __future__ import annotations

import numpy as np

from .checks import as_int, as_seed

__all__ = ["DEFAULT_RAND_BITS", "MAX_DRAWS", "ZERO_SEED_STATE", "random_bits", "rng_reset_state", "seed_state", "step"]

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
def _apply(cols: np.ndarray, s):
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


def _compose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Columns of the product ``a @ b`` (apply b first)."""
    return _apply(a, b)


_T = np.array([step(1 << j) for j in range(32)], dtype=np.uint32)
_I = np.array([1 << j for j in range(32)], dtype=np.uint32)


def _power(n: int) -> np.ndarray:
    """Columns of ``T**n``."""
    result, base = _I.copy(), _T.copy()
    while n:
        if n & 1:
            result = _compose(base, result)
        base = _compose(base, base)
        n >>= 1
    return result


def states(seed: int, n: int, start: int = 0) -> np.ndarray:
    """States ``T**(start+1+i)(s0)`` for ``i`` in ``range(n)`` as uint32."""
    out = np.empty(n, dtype=np.uint32)
    if n == 0:
        return out
    out[0] = _apply(_power(start + 1), np.array([seed_state(seed)], dtype=np.uint32))[0]
    k = 1
    while k < n:
        m = min(k, n - k)
        out[k : k + m] = _apply(_power(k), out[:m])
        k += m
    return out


def random_bits(seed: int, n: int, bits: int = DEFAULT_RAND_BITS, start: int = 0) -> np.ndarray:
    """Draws ``start .. start+n-1`` of the generator: the top ``bits`` bits of each state (uint32).

    Parameters
    ----------
    seed : int
        Any integer; reduced mod 2**32.
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
