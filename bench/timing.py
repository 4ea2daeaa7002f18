"""Timing helper shared by the ``make bench`` scripts (run as ``python bench/NAME.py``)."""

import time


def best(fn, repeats=3):
    """Best wall time of ``repeats`` calls of ``fn`` after one warm-up call (seconds)."""
    fn()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)
