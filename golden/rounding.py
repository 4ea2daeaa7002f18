"""The rounding decision every golden encoder shares (the RTL's ``Rounder`` in numbers)."""

from __future__ import annotations

import numpy as np

from .errors import FpforgeValueError


def round_up(q0, d, rounding, rand=None, rand_bits=None):
    """Whether ``q0 + d`` (``q0`` int64, ``0 <= d < 1`` exact float64) rounds up to ``q0 + 1``.

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
