"""The exact reference of the dot product (decoded element values, exact integer sums, one rounding to FP32)
and the error of the f-bit pipeline against it (``fpforge dot-error``)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..block import decode_block, encode_block
from ..checks import MAX_SEED, as_int, as_seed, as_source, describe
from ..errors import FpforgeTypeError, FpforgeValueError
from ..minifloat import decode, encode
from .config import F_RANGE, DotConfig
from .operands import as_operand, lead_shape
from .pipeline import _INF, _QNAN, _flat_bias, _flat_select, _resolve_config, dot, fp32_bits

__all__ = ["ERROR_FORMATS", "ERROR_FS", "ExactResult", "dot_exact", "error_sweep", "quantized_operands"]


@dataclass
class ExactResult:
    """The exact dot products: ``num * 2**exp2`` (Python ints) unless ``nan``/``inf``; ``y`` that value
    rounded once to FP32 (nearest even, the same special rules as the pipeline)."""

    num: np.ndarray
    exp2: np.ndarray
    nan: np.ndarray
    inf: np.ndarray
    y: np.ndarray

    def fraction(self, i) -> Fraction:
        """The exact value of dot product ``i`` (flat index) as a Fraction."""
        num, e = int(self.num.reshape(-1)[i]), int(self.exp2.reshape(-1)[i])
        return Fraction(num) * (Fraction(2) ** e)

    @property
    def float64(self) -> np.ndarray:
        """The exact values rounded to float64 (for error statistics)."""
        num = self.num.reshape(-1)
        e = self.exp2.reshape(-1)
        lens = np.frompyfunc(lambda v: abs(int(v)).bit_length(), 1, 1)(num).astype(np.int64)
        # keep the top 60 bits, then scale: at most one rounding of 2**-60 relative
        cut = np.maximum(lens - 60, 0)
        top = np.frompyfunc(lambda v, k: int(v) >> int(k) if v >= 0 else -((-int(v)) >> int(k)), 2, 1)(num, cut)
        return np.ldexp(top.astype(np.float64), (e + cut).astype(np.int32)).reshape(self.num.shape)


def _values(side, data, n, r, select, bias=None):
    """float64 exact element values (n, r) from the formats' own decoders (run-time biases per dot product)."""
    fmt = side.fmt
    if side.element_block_exponent:
        codes = np.asarray(data).astype(np.int64).reshape(n, r)
        sel = np.zeros(n, np.int64) if select is None else select
        vals = np.zeros((n, r))
        for idx, el in enumerate(fmt.formats):
            eb = np.broadcast_to(bias[:, None], (n, r)) if el.runtime_bias else None
            v = decode(el, codes & ((1 << el.bits) - 1), bias=eb).astype(np.float64)
            vals = np.where((sel == idx)[:, None], v, vals)
        return vals
    return decode_block(fmt, data).astype(np.float64).reshape(n, r)


def dot_exact(fmt_a, a, fmt_b=None, b=None, *, f=None, r=None, select_a=None, select_b=None, bias_a=None,
              bias_b=None) -> ExactResult:
    """The exact dot products of the decoded elements (``decode_block`` / ``decode``), summed in exact
    integers and rounded once to FP32. Same arguments as :func:`dot` (``f`` only names the config)."""
    cfg = _resolve_config(fmt_a, fmt_b, r, f if f is not None else F_RANGE[0], a) if not isinstance(
        fmt_a, DotConfig) else fmt_a
    a, b = as_operand(cfg, cfg.sa, a, "A"), as_operand(cfg, cfg.sb, b, "B")
    lead = lead_shape(cfg, cfg.sa, a, "A")
    lead_shape(cfg, cfg.sb, b, "B")
    n = int(np.prod(lead, dtype=np.int64))
    va = _values(cfg.sa, a, n, cfg.r, _flat_select(select_a, lead, cfg.sa, "select_a"),
                 _flat_bias(bias_a, lead, cfg.sa, "bias_a"))
    vb = _values(cfg.sb, b, n, cfg.r, _flat_select(select_b, lead, cfg.sb, "select_b"),
                 _flat_bias(bias_b, lead, cfg.sb, "bias_b"))
    with np.errstate(invalid="ignore", over="ignore"):
        p = va * vb  # only for the special-value classes
    pnan = np.isnan(p)
    pos = (p == np.inf).any(axis=1)
    ngt = (p == -np.inf).any(axis=1)
    nan = pnan.any(axis=1) | (pos & ngt)
    inf = (pos | ngt) & ~nan
    finite = np.isfinite(va) & np.isfinite(vb)
    va = np.where(finite, va, 0.0)
    vb = np.where(finite, vb, 0.0)
    # Every element value has at most 25 significant bits: integer mantissa * 2**e exactly.
    ma, xa = np.frexp(va)
    mb, xb = np.frexp(vb)
    ia = np.ldexp(ma, 25).astype(np.int64)
    ib = np.ldexp(mb, 25).astype(np.int64)
    assert np.array_equal(np.ldexp(ia.astype(np.float64), xa - 25), va), "element values exceed 25 bits"
    prod = (ia * ib).astype(object)  # < 2**50
    pe = (xa + xb - 50).astype(np.int64)
    pe = np.where(prod == 0, pe.max(initial=0), pe)
    emin = pe.min(axis=1)
    num = (prod << (pe - emin[:, None]).astype(object)).sum(axis=1)
    num = np.asarray(num, dtype=object).reshape(n)
    emin = emin.astype(np.int64)
    y = fp32_bits(num, emin)
    y = np.where(inf, np.where(ngt, _INF | (1 << 31), _INF), y)
    y = np.where(nan, _QNAN, y).astype(np.uint32)
    return ExactResult(num.reshape(lead), emin.reshape(lead), nan.reshape(lead), inf.reshape(lead),
                       y.reshape(lead))


# -- operands from data and the error report --------------------------------------------------------------
def quantized_operands(cfg, x, select=0, side="a", bias=None):
    """Encode float32 vectors ``x`` (n, r) into the operand format of ``cfg`` (side ``a`` or ``b``): block
    formats with ``encode_block`` (their default rounding), scalar formats with a per-vector amax scale
    (the FP8 RFC's per-tensor scaling; the scale stays outside the dot product) and saturating rne.
    ``bias``: the run-time bias (0..63) of a run-time-bias element format, default 0 (the amax scale makes
    the codes' relative values independent of it); refused for other formats."""
    from ..qsnr import amax_scale

    if not isinstance(cfg, DotConfig):
        raise FpforgeTypeError(f"cfg must be a DotConfig, not {describe(cfg)}")
    if not isinstance(side, str) or side not in ("a", "b"):
        raise FpforgeValueError(f"side must be 'a' or 'b', not {side!r}")
    fmt = cfg.a if side == "a" else cfg.b
    x = as_source(x).astype(np.float32)
    if x.ndim != 2 or x.shape[1] != cfg.r:
        raise FpforgeValueError(f"x must have shape (n, r = {cfg.r}), not {x.shape}")
    if fmt.dot_side.element_block_exponent:
        el = fmt.formats[as_int(select, "select", 0, len(fmt.formats) - 1)]
        if el.runtime_bias:
            el = el.at(0 if bias is None else bias)
        elif bias is not None:
            raise FpforgeValueError(f"bias applies to run-time-bias formats (cfloat8_143, ...), not {el.name}")
        x64 = x.astype(np.float64)
        amax = np.abs(x64).max(axis=-1, keepdims=True)
        with np.errstate(invalid="ignore"):
            s = np.where(amax > 0, amax_scale(el.max_value, np.where(amax > 0, amax, 1.0)), 1.0)
        with np.errstate(over="ignore", invalid="ignore"):
            v = (x64 * s).astype(np.float32)
        return encode(el, v, rounding="rne", saturate=True).astype(np.uint64)
    if select != 0 or bias is not None:
        raise FpforgeValueError(f"select and bias apply to scalar element formats (fp8, cfloat8_143); {fmt.name} "
                                "takes neither")
    return encode_block(fmt, x)


#: Formats and windows of ``fpforge dot-error`` by default.
ERROR_FORMATS = ("mx9", "mx6", "mx4", "mxfp8_e4m3", "mxint8", "e4m3", "e5m2")

#: The run-time bias ``fpforge dot-error`` gives a run-time-bias operand (CFloat8): 0, as the QSNR table
#: measures them (the per-vector amax scale absorbs any bias exactly).
ERROR_BIAS = 0
ERROR_FS = (8, 12, 16, 20, 24, 32, 48)


def error_sweep(formats=ERROR_FORMATS, fs=ERROR_FS, *, r=64, n_vectors=2000, seed=0, progress=None):
    """The f-bit pipeline against the exact reference, for each format and window width.

    Operands: A and B independent ``gaussian_vectors`` (log2 sigma uniform on [-8, 8] per vector) of length
    r, quantized into the format (:func:`quantized_operands`). For each (format, f) the row holds
    ``exact`` (fraction of results bit-identical to the exact sum rounded once), ``rel_p50``, ``rel_max``
    (|y - x| / |x|, x the exact value, over results with x != 0) and ``norm_max`` (|y - x| / sum|a_i b_i|,
    the dot-product error measure that does not blow up under cancellation). ``progress``: called with each
    row as it is done (a progress bar's update).
    """
    from ..qsnr import gaussian_vectors

    if isinstance(formats, str):
        formats = (formats,)
    if isinstance(fs, (int, np.integer)):
        fs = (fs,)
    for label, value in (("formats", formats), ("fs", fs)):
        if not isinstance(value, (list, tuple)):
            raise FpforgeTypeError(f"{label} must be a list or tuple, not {describe(value)}")
    fs, formats = tuple(fs), tuple(formats)
    r = as_int(r, "r", 1)
    n_vectors = as_int(n_vectors, "n_vectors", 1)
    if not formats or not fs:
        raise FpforgeValueError(f"formats and fs must name at least one format and one f, not {formats!r}, {fs!r}")
    seed = as_seed(seed, allow_none=False)
    if progress is not None and not callable(progress):
        raise FpforgeTypeError(f"progress must be None or a callable of a row, not {describe(progress)}")
    for name in formats:
        for f in fs:
            DotConfig(name, r, f)  # every format, r and f checked before the work
    rows = []
    xa = gaussian_vectors(n_vectors, r, seed)
    xb = gaussian_vectors(n_vectors, r, (seed + 1) & MAX_SEED)
    for name in formats:
        base = DotConfig(name, r, F_RANGE[0])
        a = quantized_operands(base, xa)
        b = quantized_operands(base, xb, side="b")
        biases = {k: ERROR_BIAS if s.element_block_exponent and s.fmt.bias_bits else None
                  for k, s in (("bias_a", base.sa), ("bias_b", base.sb))}
        ex = dot_exact(base, a, None, b, **biases)
        x = ex.float64
        va = _values(base.sa, a, n_vectors, r, None, _flat_bias(biases["bias_a"], (n_vectors,), base.sa, "bias_a"))
        vb = _values(base.sb, b, n_vectors, r, None, _flat_bias(biases["bias_b"], (n_vectors,), base.sb, "bias_b"))
        scale = np.abs(va * vb).sum(axis=1)
        for f in fs:
            cfg = DotConfig(name, r, f)
            res = dot(cfg, a, None, b, **biases)
            y = res.value.astype(np.float64)
            err = np.abs(y - x)
            nz = x != 0
            with np.errstate(divide="ignore", invalid="ignore"):
                rel = err[nz] / np.abs(x[nz])
                norm = np.where(scale > 0, err / np.where(scale > 0, scale, 1), 0.0)
            rows.append(dict(format=cfg.a.name, r=r, f=f, W=cfg.W, f_exact=cfg.f_exact,
                             exact=float((res.y == ex.y).mean()),
                             rel_p50=float(np.median(rel)) if rel.size else 0.0,
                             rel_max=float(rel.max()) if rel.size else 0.0,
                             norm_max=float(norm.max())))
            if progress is not None:
                progress(rows[-1])
    return rows
