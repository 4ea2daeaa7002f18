"""Golden-model throughput beside ml_dtypes' astype, on the same arrays in the same run.

10^7 FP32 values (standard normal × 100, fixed seed); best of 5 after a warm-up call (the first call
builds the memoised lookup table). Ratio = ml_dtypes time / golden time (> 1: golden is faster).
"""

import time
import warnings

import ml_dtypes
import numpy as np

from fpforge.golden import decode, encode, random_bits

N = 10_000_000
REPEATS = 5


def best(fn):
    fn()
    times = []
    for _ in range(REPEATS):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    warnings.simplefilter("ignore")
    x = (np.random.default_rng(0).standard_normal(N) * 100).astype(np.float32)
    print(f"{'operation':34} {'golden Mv/s':>12} {'ml_dtypes Mv/s':>15} {'ratio':>7}")
    for fmt, dt in (("e4m3", ml_dtypes.float8_e4m3fn), ("e5m2", ml_dtypes.float8_e5m2)):
        g = best(lambda: encode(fmt, x, rounding="rne"))
        m = best(lambda: x.astype(dt))
        print(f"{'encode fp32->' + fmt + ' rne':34} {N / g / 1e6:12.1f} {N / m / 1e6:15.1f} {m / g:7.2f}")
        codes = encode(fmt, x)
        g = best(lambda: decode(fmt, codes))
        m = best(lambda: codes.view(dt).astype(np.float32))
        print(f"{'decode ' + fmt + '->fp32':34} {N / g / 1e6:12.1f} {N / m / 1e6:15.1f} {m / g:7.2f}")
    g = best(lambda: encode("e4m3", x, rounding="sr", seed=1))
    print(f"{'encode fp32->e4m3 sr (exact path)':34} {N / g / 1e6:12.1f} {'-':>15} {'-':>7}")
    g = best(lambda: random_bits(1, N, 16))
    print(f"{'random_bits (xorshift32, R=16)':34} {N / g / 1e6:12.1f} {'-':>15} {'-':>7}")


if __name__ == "__main__":
    main()
