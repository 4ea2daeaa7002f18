"""Golden encode throughput of every path of ``fpforge.golden.encode_with_flags`` beside the exact float64
model it reproduces (the reference), with the target of issue 14 (>= 50 M values/s on one core).

Operands: 10^7 FP32 values, standard normal × 100 (fixed seed); CFloat8/SHP operands scaled by 2^-20, the
per-value biases cycling 0..63; FP16/BF16 operands are the FP32 ones rounded. ``sr`` draws come from the
seeded generator (their cost included). Figures: best of 5 runs after a warm-up (which builds the memoised
tables), in wall-clock time and in the process's CPU time (the two agree on a quiet machine; on a shared
one the CPU time is what one core delivers); the exact model is timed (CPU) on the first 10^6 operands.
numpy runs on one core.

Run: ``make bench`` (or ``.venv/bin/python bench/bench_fastpath.py``); ``--write-results`` also writes the
table into ``docs/results.md`` (section ``golden-encode-throughput``); ``--n=N`` changes the 10^7.
"""

import sys
import time
import warnings

import ml_dtypes
import numpy as np
from timing import best

from fpforge.golden import encode_with_flags, minifloat, random_bits

N = int(next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--n=")), 10_000_000))
N_EXACT = min(N, 1_000_000)
TARGET = 50.0  # M values/s
REPEATS = 5


def _paths():
    x = (np.random.default_rng(0).standard_normal(N) * 100).astype(np.float32)
    y = x * np.float32(2.0**-20)
    per = np.arange(N) % 64
    rows = []
    for fmt in ("e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz", "hif8", "e3m2", "e2m3", "e2m1", "uhp"):
        rows.append((f"sr fp32->{fmt}", fmt, x, dict(rounding="sr", seed=1)))
    for fmt in ("cfloat8_143", "cfloat8_152", "shp"):
        rows.append((f"sr fp32->{fmt}, bias 27", fmt, y, dict(rounding="sr", seed=1, bias=27)))
    for src, dt in (("fp16", np.float16), ("bf16", ml_dtypes.bfloat16)):
        for fmt in ("e4m3", "hif8"):
            rows.append((f"sr {src}->{fmt}", fmt, x.astype(dt), dict(rounding="sr", seed=1)))
    rows.append(("hr fp32->hif8", "hif8", x, dict(rounding="hr")))
    rows.append(("hr fp32->hif8, paper_literal", "hif8", x, dict(rounding="hr", paper_literal=True)))
    if "hif8_ascend" in _formats():
        rows.append(("hr fp32->hif8, compat ascend", "hif8", x, dict(rounding="hr", compat="ascend")))
    for src, dt in (("fp16", np.float16), ("bf16", ml_dtypes.bfloat16)):
        rows.append((f"hr {src}->hif8", "hif8", x.astype(dt), dict(rounding="hr")))
    for fmt in ("cfloat8_143", "cfloat8_152", "shp"):
        for r in ("rne", "sr"):
            rows.append((f"{r} fp32->{fmt}, bias per value", fmt, y, dict(rounding=r, seed=1, bias=per)))
    rows.append(("rne bf16->cfloat8_143, bias per value", "cfloat8_143", y.astype(ml_dtypes.bfloat16),
                 dict(rounding="rne", bias=per)))
    rows.append(("rne fp32->shp, bias 27", "shp", y, dict(rounding="rne", bias=27)))
    rows.append(("rne fp32->uhp", "uhp", np.abs(x), dict(rounding="rne")))
    rows.append(("rne fp32->e4m3 (memoised table)", "e4m3", x, dict(rounding="rne")))
    return rows


def _formats():
    from fpforge.golden.formats import REGISTRY

    return REGISTRY


def _exact_rate(fmt, x, kw):
    """M values/s of the exact float64 model on the first N_EXACT operands (same options)."""
    f = minifloat.scalar_format(fmt, paper_literal=kw.get("paper_literal", False),
                                compat=kw.get("compat"))  # the variant descriptor, as the API resolves it
    xs = x[:N_EXACT]
    fixed, per = minifloat.resolve_bias(f, kw.get("bias") if np.ndim(kw.get("bias")) == 0 else kw["bias"][:N_EXACT],
                                        xs.shape)
    src = minifloat.source_of(xs)
    opts = (kw["rounding"], False, False)
    draws = (random_bits(kw.get("seed", 0), N_EXACT, 16).astype(np.int64), 16) if kw["rounding"] == "sr" else None
    return N_EXACT / best(lambda: minifloat._exact(fixed, src, xs, opts, draws, per), 1, time.process_time) / 1e6


def main():
    warnings.simplefilter("ignore")
    rows = []
    print(f"{f'path ({N:,} values)':40} {'wall M/s':>9} {'cpu M/s':>8} {'exact M/s':>10} {'speed-up':>9} {'target':>7}")
    for label, fmt, x, kw in _paths():
        wall = N / best(lambda: encode_with_flags(fmt, x, **kw), REPEATS) / 1e6
        cpu = N / best(lambda: encode_with_flags(fmt, x, **kw), REPEATS, time.process_time) / 1e6
        exact = _exact_rate(fmt, x, kw)
        ok = "ok" if max(wall, cpu) >= TARGET else "BELOW"
        print(f"{label:40} {wall:9.1f} {cpu:8.1f} {exact:10.1f} {cpu / exact:8.1f}x {ok:>7}", flush=True)
        rows.append((label, wall, cpu, exact))
    print(f"target: >= {TARGET:.0f} M values/s on one core for every encode path (issue 14); exact = the float64 "
          "model (CPU time); speed-up = cpu / exact")
    if "--write-results" in sys.argv[1:]:
        from fpforge.jobs.results import markdown_table, write_section

        md = ["## Golden encode throughput", "",
              f"{N:,} operands per path, one core, best of {REPEATS} (wall clock and process CPU time); the exact float64 "
              f"model — the reference the fast paths reproduce bit for bit — on {N_EXACT:,} (CPU time). Target: "
              f">= {TARGET:.0f} M values/s per path.", "",
              markdown_table(("path", "wall (M values/s)", "CPU (M values/s)", "exact model (M values/s)", "speed-up"),
                             [(label, f"{wall:.1f}", f"{cpu:.1f}", f"{exact:.1f}", f"{cpu / exact:.1f}x")
                              for label, wall, cpu, exact in rows], "lrrrr")]
        data = dict(operands=N, exact_operands=N_EXACT, repeats=REPEATS, target=TARGET,
                    rows=[dict(path=label, wall=wall, cpu=cpu, exact=exact) for label, wall, cpu, exact in rows])
        write_section("golden-encode-throughput", "\n".join(md),
                      command="python bench/bench_fastpath.py --write-results", data=data)


if __name__ == "__main__":
    main()
