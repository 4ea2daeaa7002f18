"""Dot-product throughput (`make bench`): the golden pipeline model and the cocotb regressions.

* golden ``dot`` on 20,000 dot products of r = 64 (operands from variable-variance Gaussian vectors
  quantized into each format), best of 3 after a warm-up, in dot products per second; beside it, on the
  same operands in the same run, the plainest fast computation a user would write instead — dequantize
  (``decode_block`` / ``decode``) and ``np.einsum`` in float64, which is not bit-exact — and the exact
  reference ``dot_exact`` (Python integers). Ratio = reference time / golden time (> 1: golden faster).
* cocotb regression throughput of one dot unit per simulator (MX9, r = 64, f = 32, 2 stages, raw outputs,
  15 % stalls, 20,000 random + the directed dot products); model build time printed apart.
"""

import sys
import time
from pathlib import Path

import numpy as np
from timing import best

from fpforge.golden import decode, decode_block
from fpforge.golden.dot import DotConfig, ScalarSet, dot, dot_exact, quantized_operands
from fpforge.golden.qsnr import gaussian_vectors
from fpforge.hw.spec import DotSpec

N = 20_000
R = 64



def dequantized_einsum(cfg, a, b):
    def values(fmt, x):
        if isinstance(fmt, ScalarSet):
            return decode(fmt.formats[0], x).astype(np.float64)
        return decode_block(fmt, x).astype(np.float64)

    return np.einsum("ij,ij->i", values(cfg.a, a), values(cfg.b, b))


def golden():
    xa = gaussian_vectors(N, R, 0)
    xb = gaussian_vectors(N, R, 1)
    print(f"{'golden dot (20,000 dot products, r = 64)':44} {'golden dot/s':>13} {'dequant+einsum':>15} {'ratio':>6} "
          f"{'dot_exact':>10} {'ratio':>6}")
    for name, f in (("mx9", 32), ("mx6", 32), ("mx4", 16), ("mxfp8_e4m3", 32), ("mxint8", 32), ("e4m3", 32),
                    ("fp8", 32)):
        cfg = DotConfig(name, R, f)
        a, b = quantized_operands(cfg, xa), quantized_operands(cfg, xb, side="b")
        g = best(lambda: dot(cfg, a, None, b))
        e = best(lambda: dequantized_einsum(cfg, a, b))
        t = time.perf_counter()
        dot_exact(cfg, a[:2000] if isinstance(a, np.ndarray) else _head(cfg.a, a, 2000), None,
                  b[:2000] if isinstance(b, np.ndarray) else _head(cfg.b, b, 2000))
        x = (time.perf_counter() - t) * N / 2000
        print(f"{cfg.name:44} {N / g:13,.0f} {N / e:15,.0f} {e / g:6.2f} {N / x:10,.0f} {x / g:6.1f}", flush=True)


def _head(fmt, enc, n):
    from fpforge.golden.block import BlockEncoding

    return BlockEncoding(fmt, enc.scale[:n], enc.shift[:n], enc.elem[:n])


def simulators():
    from fpforge.sim.regress import regress_unit
    from fpforge.sim.run import available_simulators

    root = Path(__file__).resolve().parent.parent / "build" / "bench-sim"
    cfg = DotSpec(format="mx9", r=64, f=32, stages=2, raw=True)
    print(f"\n{'simulator':10} {'case':50} {'vectors':>8} {'run s':>6} {'dot products/s':>15} {'build s':>8}")
    for sim, reason in available_simulators().items():
        if reason:
            print(f"{sim:10} skipped: {reason}")
            continue
        r = regress_unit(cfg, sim, vectors=20_000, seed=5, build_root=root, stall=0.15)
        if not r.passed:
            print(r.summary())
            sys.exit(1)
        print(f"{sim:10} {'stream, MX9 r=64 f=32, 2 stages, raw, 15 % stalls':50} {r.vectors:8d} {r.seconds:6.1f} "
              f"{r.rate:15,.0f} {r.build_seconds:8.1f}", flush=True)


if __name__ == "__main__":
    golden()
    simulators()
