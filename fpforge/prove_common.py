"""Pieces shared by ``fpforge prove`` and ``fpforge prove dot``: option parsing (--range, --bias, --jobs),
result lines, the harness build and the environment checks."""

from __future__ import annotations

import contextlib
import re

from .golden.errors import FpforgeValueError
from .golden.registry import RUNTIME_BIASES

__all__ = ["SHOWN", "build_harness_cached", "loop_signals"]


def _parse_range(text, domain):
    """``--range START:END`` or ``START:+COUNT`` -> ``(start, end)`` inside ``0:domain``; each way of
    missing (not two numbers, negative, reversed, empty, past the end) has its own message."""
    if text is None:
        return 0, domain
    whole = f"the unit's input patterns are 0:{domain:#x}"
    try:
        lo, hi = text.split(":")
        start = int(lo, 0) if lo.strip() else 0
        count = hi.strip().startswith("+")
        end = domain if not hi.strip() else int(hi.strip()[1:], 0) if count else int(hi, 0)
    except ValueError:
        raise FpforgeValueError(f"--range takes START:END or START:+COUNT of integers (e.g. 0x3f800000:0x40000000 "
                                f"or 0:+4096), not {text!r}") from None
    if start < 0:
        raise FpforgeValueError(f"--range {text!r}: START must be >= 0, not {start} ({whole})")
    if start >= domain:
        raise FpforgeValueError(f"--range {text!r}: START {lo.strip()} is past the last input pattern ({whole})")
    if count:
        if end <= 0:
            raise FpforgeValueError(f"--range {text!r}: COUNT must be positive, not {end}")
        end += start
    elif end < 0:
        raise FpforgeValueError(f"--range {text!r}: END must be >= 0, not {end} ({whole})")
    elif end < start:
        raise FpforgeValueError(f"--range {text!r} is reversed: END {hi.strip()} is before START {lo.strip()} "
                                "(give START:END with START < END)")
    elif end == start:
        raise FpforgeValueError(f"--range {text!r} is empty: END equals START (END is exclusive; "
                                f"give START:{start + 1:#x} for one pattern)")
    if end > domain:
        raise FpforgeValueError(f"--range {text!r}: END {end:#x} is past the end of the input patterns ({whole})")
    return start, end


def _parse_biases(values):
    if values is None:
        return None
    out = []
    for v in values:
        for part in v.split(","):
            part = part.strip()
            if not part:
                raise FpforgeValueError(f"--bias {v!r} has an empty item; give integers 0..63 (a comma list) or `all`")
            if part == "all":
                out.extend(RUNTIME_BIASES)
            else:
                try:
                    out.append(int(part, 0))
                except ValueError:
                    raise FpforgeValueError(f"--bias takes integers 0..63 or `all`, not {part!r}") from None
    return tuple(dict.fromkeys(out))


def _check_parallel(args):
    if args.jobs is not None and args.jobs < 1:
        raise FpforgeValueError(f"--jobs must be positive, not {args.jobs}")
    if args.jobs is not None and args.scheduler is not None:
        raise FpforgeValueError("choose one of --jobs (local processes) and --scheduler (a Dask cluster)")
    if args.chunk is not None and args.chunk < 1:
        raise FpforgeValueError(f"--chunk must be positive, not {args.chunk}")
    from .clusteropts import check_cluster

    args.cluster_kwargs = check_cluster(args)  # before any work: nothing submitted, nothing cached


#: Mismatches printed per condition (the JSON output has up to 10).
SHOWN = 3


def _rate(vectors, seconds):
    rate = vectors / seconds if seconds else 0.0
    return f"{rate / 1e6:.1f} M/s" if rate >= 1e6 else f"{rate / 1e3:.0f} k/s"


def _result_line(r):
    status = "proved" if r.passed else "FAILED" if r.mismatches else "partial"
    resumed = f" ({r.resumed} of {r.chunks} chunks from an earlier run)" if r.resumed else ""
    return (f"  {r.condition.label():<18} {r.vectors:>15,} vectors {r.mismatches:>9,} mismatches {r.seconds:8.1f} s "
            f"{_rate(r.vectors, r.seconds):>10}  {status}{resumed}")


def _check_build_tools(unit):
    """A harness still to build needs g++, make and perl: one line naming the missing ones (and their
    packages) before any output, not the compiler's error from inside Verilator's make."""
    from .sim.harness import harness_cached
    from .sim.run import require_tools

    if not harness_cached(unit.harness_spec):
        require_tools("fpforge prove (to build its Verilator harness)")


#: Verilator's warning of a combinational loop in the build log: ``... Circular combinational logic: 'X'``.
_CIRCULAR = re.compile(r"Circular combinational logic: '([^']+)'")


def loop_signals(log: str) -> list:
    """The signals of the combinational loops Verilator reported while building a harness (``p``, ``u.q``),
    without the harness wrapper's lane prefix; empty when it reported none."""
    names = (re.sub(r"^fpforge_prove_top\.lane\[\d+\]\.u\.", "", m) for m in _CIRCULAR.findall(log))
    return list(dict.fromkeys(names))


@contextlib.contextmanager
def _explained(unit):
    """A harness run that fails on a unit with a combinational loop says so (naming the loop's signals),
    instead of the harness' exit status: a loop never settles, and the Verilated model gives up."""
    from .golden.errors import ToolError
    from .jobs import cache_dir

    try:
        yield
    except ToolError:
        log = cache_dir("prove") / "harness" / unit.harness_spec.key / "build.log"
        signals = loop_signals(log.read_text(errors="replace")) if log.is_file() else []
        if not signals:
            raise
        raise ToolError(f"{unit.top} has a combinational loop (Verilator: circular logic through "
                        f"{', '.join(signals[:8])}{', ...' if len(signals) > 8 else ''}); a combinational "
                        "unit's outputs must not feed back into their own inputs") from None


def build_harness_cached(unit, fresh=False, say=None) -> bool:
    """Build the unit's harness unless cached (``fresh``: always); True if it was cached. ``say``: printed first
    when it builds (a build takes 10-60 CPU-seconds)."""
    from .sim.harness import build_harness, harness_cached

    cached = not fresh and harness_cached(unit.harness_spec)
    if not cached and say:
        print(say, flush=True)
    build_harness(unit.harness_spec, fresh=fresh)
    return cached


def build_harness_announced(unit, fresh=False, quiet=False) -> None:
    """:func:`build_harness_cached`, saying on standard output (unless ``quiet``) that it builds and then
    whether the harness was cached or how long the build took."""
    import time

    t0 = time.perf_counter()
    say = None if quiet else "  harness: building (Verilator and C++, 10-60 CPU-seconds) ..."
    cached = build_harness_cached(unit, fresh=fresh, say=say)
    if not quiet:
        print(f"  harness: {'cached' if cached else f'built in {time.perf_counter() - t0:.1f} s'}")


def _check_environment(args):
    """The cache (harnesses, chunks, rows), TMPDIR and, for --netlist, yowasp's cache: before any work."""
    from .jobs.cache import check_environment

    check_environment()
    if getattr(args, "netlist", False):
        from .synth.yosys import check_yosys_cache

        check_yosys_cache()
