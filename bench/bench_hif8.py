"""Golden HiF8 throughput: TA and HR encode and decode on 10^7 FP32 values, and all 2^32 FP32 patterns
encoded with TA in bounded-memory chunks, with the issue's targets printed beside the figures.

10^7 values: standard normal × 100 (fixed seed), best of 3 after a warm-up call (which builds the
memoised TA table). One core: numpy's element-wise kernels are single-threaded. The ratio column is
our figure over the target (>= 1 meets it); the TA row says whether golden/minifloat.py's memoised table
(top 16 bits + sticky, valid for TA/RNE/RTZ from FP32) served it.
"""

import time
import warnings

import numpy as np
from timing import best

from fpforge.golden import decode, encode, minifloat

N = 10_000_000
CHUNK = 1 << 24  # 2^24 patterns per chunk: 64 MiB of input, 16 MiB of codes



def all_patterns_ta():
    """Encode every FP32 pattern with TA; return (seconds, number of patterns, sum of the codes)."""
    base = np.arange(CHUNK, dtype=np.uint32)
    buf = np.empty_like(base)
    done, total = 0, 0
    t = time.perf_counter()
    for start in range(0, 1 << 32, CHUNK):
        np.add(base, np.uint32(start), out=buf)
        codes = encode("hif8", buf.view(np.float32), rounding="ta")
        done += codes.size
        total += int(codes.sum(dtype=np.uint64))
    return time.perf_counter() - t, done, total


def uses_memoised_table(rounding):
    """True if an FP32 -> HiF8 encode with ``rounding`` went through golden/minifloat.py's table."""
    return any(key[0].name == "hif8" and key[1] == "fp32" and key[2][0] == rounding and lut is not None
               for key, lut in minifloat._LUTS.items())


def main():
    warnings.simplefilter("ignore")
    x = (np.random.default_rng(0).standard_normal(N) * 100).astype(np.float32)
    print(f"{'operation (10^7 FP32 values)':34} {'M values/s':>11} {'target':>11} {'ratio':>6}")
    g = best(lambda: encode("hif8", x, rounding="ta"))
    path = "memoised table" if uses_memoised_table("ta") else "exact path"
    print(f"{'encode fp32->hif8 ta':34} {N / g / 1e6:11.1f} {'>= 100 M/s':>11} {N / g / 1e8:6.2f}   ({path})")
    g = best(lambda: encode("hif8", x, rounding="hr"))
    print(f"{'encode fp32->hif8 hr':34} {N / g / 1e6:11.1f} {'>= 50 M/s':>11} {N / g / 5e7:6.2f}   (golden/fastpath.py)")
    codes = encode("hif8", x)
    g = best(lambda: decode("hif8", codes))
    print(f"{'decode hif8->fp32':34} {N / g / 1e6:11.1f} {'-':>11} {'-':>6}")
    seconds, done, _ = all_patterns_ta()
    assert done == 1 << 32
    print(f"{'encode all 2^32 fp32 patterns, ta':34} {(1 << 32) / seconds / 1e6:11.1f} {'< 60 s':>11} "
          f"{60 / seconds:6.2f}   ({seconds:.1f} s, chunks of 2^24)")
    print("ratio = our figure / target (>= 1 meets it)")


if __name__ == "__main__":
    main()
