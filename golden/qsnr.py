"""Quantization signal-to-noise ratio (QSNR), its BDR lower bound (Theorem 1 of seed 004), and the
variable-variance Gaussian vectors the paper measures it on.

* ``QSNR(X) = -10 log10(||X - Q(X)||^2 / ||X||^2)`` dB for one vector ``X`` (SPEC-NOTES §5); tables report
  the mean (and spread) over many independent vectors.
* Block formats quantize each vector with :func:`fpforge.golden.block.quantize`. Scalar formats (E4M3,
  E5M2, HiF8, …, and the source formats FP32/FP16/BF16 themselves) use a per-tensor scale as in the FP8 RFC
  (seed 002: ``scale_to_fp8(x, amax)``): each vector is one tensor, ``s = max_value / amax`` rounded to
  FP32's 24-bit significand, the scaled value ``x * s`` rounded once to FP32 (RNE), and
  ``Q(x) = decode(encode(x * s, saturate)) / s``. That is bit for bit the RFC's FP32 arithmetic wherever
  ``s`` is an FP32 number; ``s`` itself is kept with an unbounded exponent (float64), so a format whose
  ``max_value`` is near FP32's (BF16, FP32) or a vector of tiny values never overflows the scale to
  infinity. A run-time-bias format (CFloat8, SHP) is measured at bias 0: its values at bias B are those
  at bias 0 times 2**-B, which the per-vector scale absorbs exactly, so its QSNR does not depend on B.
  A row of a source format measures quantization into it (FP32 into FP32: only the rounding of ``x * s``).
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
from .checks import as_int, as_seed, as_source, describe
from .contract import BlockFormatLike, ScalarFormat
from .errors import FpforgeTypeError, FpforgeValueError
from .formats import ROUNDING_MODES, get_format
from .minifloat import decode, encode

__all__ = ["DEFAULT_TABLE", "MAX_VALUES", "amax_scale", "gaussian_vectors", "qsnr", "qsnr_bound", "qsnr_table",
           "quantize_scaled"]

#: Most values (vectors x length) :func:`gaussian_vectors` and :func:`qsnr_table` generate at once: about
#: 40 bytes of working memory each, so 2**24 values take ~700 MB.
MAX_VALUES = 1 << 24

#: The formats of ``fpforge qsnr`` by default.
DEFAULT_TABLE = ("mx9", "mx6", "mx4", "msfp12", "msfp16", "mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2",
                 "mxfp6_e2m3", "mxfp4_e2m1", "mxint8", "e4m3", "e5m2", "hif8")


def gaussian_vectors(n_vectors: int, length: int = 256, seed: int = 0, log2_sigma=(-8.0, 8.0)) -> np.ndarray:
    """``(n_vectors, length)`` float32: vector ``v`` is ``sigma_v * N(0, 1)``, ``log2 sigma_v`` uniform on
    ``log2_sigma``."""
    n_vectors = as_int(n_vectors, "n_vectors", 1)
    length = as_int(length, "length", 1)
    seed = as_seed(seed, allow_none=False)
    if n_vectors * length > MAX_VALUES:
        raise FpforgeValueError(f"n_vectors x length must be at most {MAX_VALUES:,} values (memory), not "
                                f"{n_vectors:,} x {length:,}")
    try:
        lo, hi = (float(v) for v in log2_sigma)
    except (TypeError, ValueError):
        raise FpforgeTypeError(f"log2_sigma must be a pair of numbers (lo, hi), not {describe(log2_sigma)}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and -150 <= lo <= hi <= 120):
        raise FpforgeValueError(f"log2_sigma must be finite with -150 <= lo <= hi <= 120 (FP32's range), not "
                                f"{log2_sigma!r}")
    rng = np.random.default_rng(seed % 2**64)
    sigma = 2.0 ** rng.uniform(lo, hi, size=(n_vectors, 1))
    return (rng.standard_normal((n_vectors, length)) * sigma).astype(np.float32)


def _scalar(fmt):
    """The fixed-bias descriptor a scalar QSNR row uses (bias 0 for a run-time-bias format)."""
    return fmt.at(0) if getattr(fmt, "runtime_bias", False) else fmt


def amax_scale(max_value: float, amax: np.ndarray) -> np.ndarray:
    """``max_value / amax`` rounded to a 24-bit significand (FP32's division where that is finite), as
    float64 with an unbounded exponent. ``amax`` > 0 (float64 holding FP32 values)."""
    m, e = np.frexp(amax)  # amax = m * 2**e, m in [0.5, 1): max / (2m) lies in (max/2, max], finite in FP32
    q = np.float32(max_value) / (2 * m).astype(np.float32)
    return np.ldexp(q.astype(np.float64), 1 - e)


def quantize_scaled(fmt, x, rounding=None, seed=None) -> np.ndarray:
    """Per-tensor amax scaling into a scalar format (the FP8 RFC's ``scale_to_fp8``): each row of ``x``
    (float32, float16 or bfloat16; finite) is one tensor; returns the dequantized values as float64.

    ``s = max_value / amax`` rounded to FP32's significand, ``x * s`` rounded once to FP32, encoded with
    saturation (``rounding``, ``seed`` for ``sr``), decoded and divided by ``s`` (module docstring).
    """
    fmt = _scalar(get_format(fmt))
    x = as_source(x).astype(np.float32)
    if not np.isfinite(x).all():
        raise FpforgeValueError("x must hold finite values for a QSNR (NaN/Inf have no quantization error)")
    x64 = x.astype(np.float64)
    amax = np.abs(x64).max(axis=-1, keepdims=True) if x.ndim else np.abs(x64)
    s = np.where(amax > 0, amax_scale(fmt.max_value, np.where(amax > 0, amax, 1.0)), 1.0)
    with np.errstate(over="ignore"):
        v = (x64 * s).astype(np.float32)  # the exact product (48 bits) rounded once
    codes = encode(fmt, v, rounding=rounding, saturate=True, seed=seed)
    return decode(fmt, codes).astype(np.float64) / s


def _check_signed(fmt, x):
    if not getattr(fmt, "signed", True) and (x.astype(np.float32) < 0).any():
        raise FpforgeValueError(f"{fmt.name} is unsigned: it cannot hold the negative values of x, so their "
                                "QSNR is undefined (measure non-negative vectors)")


def qsnr(fmt, x, *, rounding=None, seed=None) -> np.ndarray:
    """QSNR in dB of each vector (last axis) of ``x``: shape ``x.shape[:-1]``.

    ``fmt`` is a block format (quantized block by block) or a scalar one (per-vector amax scaling).
    A vector quantized exactly has QSNR +inf; an all-zero vector NaN.
    """
    fmt = get_format(fmt)
    x = as_source(x)
    if x.ndim == 0:
        raise FpforgeValueError("x must have a last axis of values (one vector or more), not a scalar")
    if isinstance(fmt, BlockFormatLike):
        q = quantize(fmt, x, rounding=rounding, seed=seed).astype(np.float64)
    elif isinstance(fmt, ScalarFormat):
        _check_signed(fmt, x)
        if rounding is not None and (not isinstance(rounding, str) or rounding not in fmt.roundings):
            raise FpforgeValueError(f"format {fmt.name!r} has no rounding {rounding!r}; valid choices: "
                                    f"{', '.join(fmt.roundings)}")
        q = quantize_scaled(fmt, x, rounding, seed)
    else:
        raise FpforgeValueError(f"no QSNR for {getattr(fmt, 'name', fmt)!r}")
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
        raise FpforgeValueError(f"the bound is for BDR formats, not {getattr(fmt, 'name', fmt)!r}")
    if rounding not in fmt.roundings:
        raise FpforgeValueError(f"format {fmt.name!r} has no rounding {rounding!r}; valid choices: "
                                f"{', '.join(fmt.roundings)}")
    beta = fmt.beta
    k1, k2 = fmt.k1, fmt.k2
    bound = 20 * fmt.m * math.log10(2) - 10 * math.log10(k2 + (k1 - k2) * 4.0**-beta)
    if rounding in ("rtz", "sr"):
        bound -= 20 * math.log10(2)
    return bound


def qsnr_table(formats=DEFAULT_TABLE, *, n_vectors=10_000, length=256, seed=0, rounding=None, progress=None):
    """Rows ``dict(name, bits, rounding, mean, std, p5, min, bound)`` over ``gaussian_vectors(n_vectors,
    length, seed)``; ``bits`` is bits per element (scalar formats: their code width; the per-tensor FP32
    scale is amortized over the tensor and not counted). ``rounding`` applies to the formats that offer
    it, the others use their default (each row says which it used); it must be a rounding mode that at
    least one of the formats offers. Any format ``list_formats()`` names has a row (module docstring).
    ``progress``: called with each format's name as its row is done (a progress bar's update)."""
    n_vectors = as_int(n_vectors, "n_vectors", 1)
    length = as_int(length, "length", 1)
    if progress is not None and not callable(progress):
        raise FpforgeTypeError(f"progress must be None or a callable of a format name, not {describe(progress)}")
    if isinstance(formats, str):
        formats = (formats,)
    if not isinstance(formats, (list, tuple)):
        raise FpforgeTypeError(f"formats must be a format name or a list of them, not {describe(formats)}")
    fmts = [get_format(name) for name in formats]
    if not fmts:
        raise FpforgeValueError("formats names no format")
    if rounding is not None:
        if not isinstance(rounding, str) or rounding not in ROUNDING_MODES:
            raise FpforgeValueError(f"unknown rounding {rounding!r}; valid choices: {', '.join(ROUNDING_MODES)}")
        if not any(rounding in getattr(f, "roundings", ()) for f in fmts):
            raise FpforgeValueError(f"none of {', '.join(f.name for f in fmts)} offers rounding {rounding!r}")
    for fmt in fmts:
        if isinstance(fmt, BlockFormatLike) and length % fmt.k1:
            raise FpforgeValueError(f"length {length} is not a multiple of {fmt.name}'s block size {fmt.k1}")
    x = gaussian_vectors(n_vectors, length, seed)
    for fmt in fmts:  # refused before any row is computed
        if isinstance(fmt, ScalarFormat):
            _check_signed(fmt, x)
    rows = []
    for fmt in fmts:
        r = rounding if rounding in getattr(fmt, "roundings", ()) else None
        q = qsnr(fmt, x, rounding=r, seed=seed)
        bits = float(fmt.bits_per_element) if isinstance(fmt, BlockFormatLike) else float(fmt.bits)
        rows.append(dict(name=fmt.name, bits=bits, mean=float(q.mean()), std=float(q.std()),
                         p5=float(np.percentile(q, 5)), min=float(q.min()),
                         bound=qsnr_bound(fmt, r or fmt.roundings[0]) if isinstance(fmt, BlockFormat) else None,
                         rounding=r or fmt.roundings[0]))
        if progress is not None:
            progress(fmt.name)
    return rows
