"""The rounding decision every golden encoder shares (the RTL's ``Rounder`` in numbers)."""

from __future__ import annotations

import numpy as np

from .errors import FpforgeValueError
from .rng import DEFAULT_RAND_BITS

__all__ = ["round_magnitude", "round_up"]


def round_up(q0, d, rounding, rand=None, rand_bits=None):
    """Whether ``q0 + d`` (``q0`` int64, ``0 <= d < 1`` exact float64) rounds up to ``q0 + 1``.

    ``q0`` is read for its parity only: pass the truncated *code* (its LSB is the one ties to even look at).
    ``rne``: d > 1/2, or d = 1/2 and q0 odd; ``ta``: d >= 1/2; ``rtz``: never; ``sr``:
    ``floor(d * 2**R) + rand >= 2**R`` with R = ``rand_bits`` random bits ``rand`` per value.
    """
    if rounding == "rne":
        return (d > 0.5) | ((d == 0.5) & ((q0 & 1) == 1))
    if rounding == "ta":
        return d >= 0.5
    if rounding == "rtz":
        return np.zeros(np.shape(d), bool)
    if rounding == "sr":
        return np.floor(np.ldexp(d, rand_bits)).astype(np.int64) + rand >= (1 << rand_bits)
    raise FpforgeValueError(f"unknown rounding {rounding!r}")


def round_magnitude(v, lsb, rounding, draws=None, rand_bits=DEFAULT_RAND_BITS, limit=None):
    """``round(v / 2**lsb)`` for float64 magnitudes ``v`` (exact), with the rule every encoder uses
    (:func:`fpforge.golden.rounding.round_up`; ``draws``: the ``sr`` bits). ``limit`` caps ``v / 2**lsb``
    first (anything above saturates anyway; keeps int64 safe). Returns int64."""
    s = np.ldexp(v, (-lsb).astype(np.int32))
    if limit is not None:
        s = np.minimum(s, float(limit))
    q0 = np.floor(s)
    d = s - q0
    q0 = q0.astype(np.int64)
    return q0 + round_up(q0, d, rounding, draws, rand_bits)
