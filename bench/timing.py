"""Timing helper shared by the ``make bench`` scripts (run as ``python bench/NAME.py``)."""

import time


def best(fn, repeats=3, clock=time.perf_counter):
    """Best time of ``repeats`` calls of ``fn`` after one warm-up call (seconds): wall time, or the process's
    CPU time with ``clock=time.process_time`` (what one core delivers when the machine is shared)."""
    fn()
    times = []
    for _ in range(repeats):
        t = clock()
        fn()
        times.append(clock() - t)
    return min(times)
