"""Golden block-format throughput and QSNR run time (`make bench`).

* quantize + dequantize (encode_block then decode_block) of 10^7 FP32 values (standard normal × 2^U(-8, 8)
  per 256-value row, fixed seed), best of 3 after a warm-up call, in values/s;
* reference where one exists, on the same array in the same run: for MXFP8 E4M3 a vectorised quantizer
  built on gfloat's round_ndarray (the oracle of tests/test_block_golden.py: scale from amax, gfloat rounds
  and saturates the elements, multiply back). Ratio = reference time / golden time (> 1: golden faster).
  MX9 (BDR) has no independent library implementation;
* `fpforge qsnr`'s default table (10,000 vectors × 256 values, 14 formats).
"""

import time
import warnings

import numpy as np
from timing import best

from fpforge.golden import decode_block, encode_block
from fpforge.golden.qsnr import gaussian_vectors, qsnr_table

N = 10_000_000



def gfloat_mx_e4m3(x):
    import gfloat
    from gfloat.formats import format_info_ocp_e4m3 as fi

    v = x.reshape(-1, 32).astype(np.float64)
    amax = np.abs(v).max(axis=-1)
    with np.errstate(divide="ignore"):
        e = np.where(amax == 0, -127, np.clip(np.floor(np.log2(np.where(amax == 0, 1, amax))) - fi.emax, -127, 127))
    scale = 2.0 ** e[:, None]
    return gfloat.round_ndarray(fi, v / scale, gfloat.RoundMode.TiesToEven, True) * scale


def main():
    warnings.simplefilter("ignore")
    x = gaussian_vectors(N // 256, 256, seed=0).ravel()
    print(f"{'operation (10^7 FP32 values)':44} {'golden Mv/s':>12} {'reference Mv/s':>15} {'ratio':>7}")
    for fmt, rounding, ref in (("mx9", "ta", None), ("mx9", "sr", None), ("mxfp8_e4m3", "rne", gfloat_mx_e4m3),
                               ("mxfp8_e4m3", "sr", None), ("mxint8", "rne", None)):
        g = best(lambda: decode_block(fmt, encode_block(fmt, x, rounding=rounding, seed=1)))
        if ref is not None:
            try:
                r = best(lambda: ref(x))
                assert np.array_equal(ref(x).ravel(), decode_block(fmt, encode_block(fmt, x)).astype(np.float64))
                cells = f"{N / r / 1e6:15.1f} {r / g:7.2f}"
            except ImportError:
                cells = f"{'(no gfloat)':>15} {'-':>7}"
        else:
            cells = f"{'-':>15} {'-':>7}"
        print(f"{'quantize+dequantize ' + fmt + ' ' + rounding:44} {N / g / 1e6:12.1f} {cells}")
    t = time.perf_counter()
    qsnr_table()
    print(f"{'fpforge qsnr default table (10k x 256, 14 formats)':44} {time.perf_counter() - t:10.1f} s")


if __name__ == "__main__":
    main()
