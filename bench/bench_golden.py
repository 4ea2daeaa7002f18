"""Golden-model throughput beside ml_dtypes' astype, on the same arrays in the same run.

10^7 FP32 values (standard normal × 100, fixed seed); best of 5 after a warm-up call (the first call
builds the memoised lookup table). Ratio = ml_dtypes time / golden time (> 1: golden is faster). Every
encode path beside the exact model: bench/bench_fastpath.py.
CFloat8 has no library implementation: its lines compare with ml_dtypes' E4M3 cast of the same values
(scaled by 2^-20, into the range of bias 27), the nearest known format.
"""

import warnings

import ml_dtypes
import numpy as np
import timing

from fpforge.golden import decode, decode_bits, encode, random_bits

N = 10_000_000
REPEATS = 5


def best(fn, repeats=REPEATS):
    return timing.best(fn, repeats)



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
        g = best(lambda: decode_bits(fmt, codes, "fp32"))  # the RTL decoder's words (was ~7 Mv/s)
        m = best(lambda: codes.view(dt).astype(np.float32).view(np.uint32))
        print(f"{'decode_bits ' + fmt + '->fp32 words':34} {N / g / 1e6:12.1f} {N / m / 1e6:15.1f} {m / g:7.2f}")
    g = best(lambda: encode("e4m3", x, rounding="sr", seed=1))
    print(f"{'encode fp32->e4m3 sr (fast path)':34} {N / g / 1e6:12.1f} {'-':>15} {'-':>7}")
    # Tesla CFloat8 (no library implements it): ml_dtypes' E4M3 cast, the nearest known format, as reference.
    y = x * np.float32(2.0**-20)
    m = best(lambda: y.astype(ml_dtypes.float8_e4m3fn))
    g = best(lambda: encode("cfloat8_143", y, rounding="rne", bias=27))
    print(f"{'encode fp32->cfloat8_143 rne, bias 27':34} {N / g / 1e6:12.1f} {N / m / 1e6:15.1f} {m / g:7.2f}")
    per = np.arange(N) % 64
    g = best(lambda: encode("cfloat8_143", y, rounding="rne", bias=per))
    print(f"{'  ... one bias per value':34} {N / g / 1e6:12.1f} {N / m / 1e6:15.1f} {m / g:7.2f}")
    g = best(lambda: encode("cfloat8_143", y, rounding="sr", seed=1, bias=27))
    print(f"{'encode fp32->cfloat8_143 sr, bias 27':34} {N / g / 1e6:12.1f} {'-':>15} {'-':>7}")
    codes = encode("cfloat8_143", y, bias=27)
    m = best(lambda: codes.view(ml_dtypes.float8_e4m3fn).astype(np.float32))
    g = best(lambda: decode("cfloat8_143", codes, bias=27))
    print(f"{'decode cfloat8_143->fp32, bias 27':34} {N / g / 1e6:12.1f} {N / m / 1e6:15.1f} {m / g:7.2f}")
    # Source formats: decode is a bit reinterpretation (fp32), a shift (bf16), a widening (fp16); target >= 200
    # Mv/s (memory speed; the generic path ran at ~3-5 Mv/s for fp32 before).
    words = x.view(np.uint32)
    g = best(lambda: decode("fp32", words))
    m = best(lambda: words.astype(np.uint32).view(np.float32))
    print(f"{'decode fp32->fp32 (target >= 200)':34} {N / g / 1e6:12.1f} {N / m / 1e6:15.1f} {m / g:7.2f}")
    for src, dt in (("fp16", np.float16), ("bf16", ml_dtypes.bfloat16)):
        words = x.astype(dt).view(np.uint16)
        g = best(lambda: decode(src, words))
        m = best(lambda: words.view(dt).astype(np.float32))
        print(f"{'decode ' + src + '->fp32 (target >= 200)':34} {N / g / 1e6:12.1f} {N / m / 1e6:15.1f} {m / g:7.2f}")
    g = best(lambda: decode("cfloat8_143", codes, bias=per))
    m = best(lambda: codes.view(ml_dtypes.float8_e4m3fn).astype(np.float32))
    print(f"{'decode cfloat8_143, a bias per value':34} {N / g / 1e6:12.1f} {N / m / 1e6:15.1f} {m / g:7.2f}")
    g = best(lambda: random_bits(1, N, 16))
    print(f"{'random_bits (xorshift32, R=16)':34} {N / g / 1e6:12.1f} {'-':>15} {'-':>7}")


if __name__ == "__main__":
    main()
