"""Quantization signal-to-noise ratio (QSNR), its BDR lower bound (Theorem 1 of seed 004), and the
variable-variance Gaussian vectors the paper measures it on.

* ``QSNR(X) = -10 log10(||X - Q(X)||^2 / ||X||^2)`` dB for one vector ``X`` (SPEC-NOTES §5); tables report
  the mean (and spread) over many independent vectors.
* Block formats quantize each vector with :func:`fpforge.golden.block.quantize`. Scalar formats (E4M3,
  E5M2, HiF8, …) use a per-tensor scale as in the FP8 RFC (seed 002: ``scale_to_fp8(x, amax)``): each
  vector is one tensor, ``s = max_value / amax`` in FP32, ``Q(x) = decode(encode(x * s, saturate)) / s``.
* ``gaussian_vectors``: vector ``v`` is ``sigma_v * N(0, 1)`` with ``log2 sigma_v`` uniform on
  ``[-8, 8]`` (a 2^16 spread of standard deviations between vectors, the paper's "normal distributions
  whose variance varies between vectors"; its exact variance law is not given).
* :func:`qsnr_bound`: see ``docs/block.md`` for the derivation. For BDR with nearest rounding (``ta``,
  ``rne``), no exponent clamping and ``beta = 2**d2 - 1``::

      QSNR >= 20 m log10(2) - 10 log10(k2 + (k1 - k2) 2**(-2 beta))    [dB]

  and 20 log10(2) ≈ 6.02 dB less for ``rtz`` and ``sr`` (their error is below one step, not half).
"""

from __future__ import annotations

import math

import numpy as np

from .block import BlockFormat, quantize
from .contract import BlockFormatLike, ScalarFormat
from .formats import get_format
from .minifloat import decode, encode

__all__ = ["DEFAULT_TABLE", "gaussian_vectors", "qsnr", "qsnr_bound", "qsnr_table", "quantize_scaled"]

#: The formats of ``fpforge qsnr`` by default.
DEFAULT_TABLE = ("mx9", "mx6", "mx4", "msfp12", "msfp16", "mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2",
                 "mxfp6_e2m3", "mxfp4_e2m1", "mxint8", "e4m3", "e5m2", "hif8")


def gaussian_vectors(n_vectors: int, length: int = 256, seed: int = 0, log2_sigma=(-8.0, 8.0)) -> np.ndarray:
    """``(n_vectors, length)`` float32: vector ``v`` is ``sigma_v * N(0, 1)``, ``log2 sigma_v`` uniform on
    ``log2_sigma``."""
    if n_vectors < 1 or length < 1:
        raise ValueError(f"need at least one vector of at least one value, not {n_vectors!r} x {length!r}")
    rng = np.random.default_rng(seed)
    sigma = 2.0 ** rng.uniform(*log2_sigma, size=(n_vectors, 1))
    return (rng.standard_normal((n_vectors, length)) * sigma).astype(np.float32)


def quantize_scaled(fmt, x, rounding=None) -> np.ndarray:
    """Per-tensor amax scaling into a scalar format (FP8 RFC): each row of ``x`` (float32) is one tensor."""
    fmt = get_format(fmt)
    x = np.asarray(x, np.float32)
    amax = np.abs(x).max(axis=-1, keepdims=True)
    s = np.where(amax > 0, np.float32(fmt.max_value) / np.where(amax > 0, amax, 1), 1).astype(np.float32)
    codes = encode(fmt, (x * s).astype(np.float32), rounding=rounding, saturate=True)
    return decode(fmt, codes).astype(np.float64) / s.astype(np.float64)


def qsnr(fmt, x, *, rounding=None, seed=None) -> np.ndarray:
    """QSNR in dB of each vector (last axis) of ``x``: shape ``x.shape[:-1]``.

    ``fmt`` is a block format (quantized block by block) or a scalar one (per-vector amax scaling).
    A vector quantized exactly has QSNR +inf; an all-zero vector NaN.
    """
    fmt = get_format(fmt)
    x = np.asarray(x)
    if isinstance(fmt, BlockFormatLike):
        q = quantize(fmt, x, rounding=rounding, seed=seed).astype(np.float64)
    elif isinstance(fmt, ScalarFormat):
        if rounding == "sr" or (rounding is None and fmt.roundings[0] == "sr"):
            raise ValueError("qsnr of scalar formats supports deterministic roundings only")
        q = quantize_scaled(fmt, x, rounding)
    else:
        raise ValueError(f"no QSNR for {fmt!r}")
    x64 = x.astype(np.float64)
    noise = ((x64 - q) ** 2).sum(axis=-1)
    signal = (x64**2).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -10.0 * np.log10(noise / signal)


def qsnr_bound(fmt, rounding="ta") -> float:
    """Theorem 1's lower bound on the QSNR (dB) of a BDR format (d1 large enough that ``E`` is never
    clamped); 6.02 dB lower for ``rtz``/``sr``. See ``docs/block.md``."""
    fmt = get_format(fmt)
    if not isinstance(fmt, BlockFormat):
        raise ValueError(f"the bound is for BDR formats, not {getattr(fmt, 'name', fmt)!r}")
    beta = fmt.beta
    k1, k2 = fmt.k1, fmt.k2
    bound = 20 * fmt.m * math.log10(2) - 10 * math.log10(k2 + (k1 - k2) * 4.0**-beta)
    if rounding in ("rtz", "sr"):
        bound -= 20 * math.log10(2)
    return bound


def qsnr_table(formats=DEFAULT_TABLE, *, n_vectors=10_000, length=256, seed=0, rounding=None):
    """Rows ``dict(name, bits, mean, std, p5, min, bound)`` over ``gaussian_vectors(n_vectors, length,
    seed)``; ``bits`` is bits per element (scalar formats: their code width; the per-tensor FP32 scale is
    amortized over the tensor and not counted)."""
    x = gaussian_vectors(n_vectors, length, seed)
    rows = []
    for name in formats:
        fmt = get_format(name)
        r = rounding if rounding in fmt.roundings else None
        q = qsnr(fmt, x, rounding=r, seed=seed)
        bits = float(fmt.bits_per_element) if isinstance(fmt, BlockFormatLike) else float(fmt.bits)
        rows.append(dict(name=fmt.name, bits=bits, mean=float(q.mean()), std=float(q.std()),
                         p5=float(np.percentile(q, 5)), min=float(q.min()),
                         bound=qsnr_bound(fmt, r or fmt.roundings[0]) if isinstance(fmt, BlockFormat) else None,
                         rounding=r or fmt.roundings[0]))
    return rows
