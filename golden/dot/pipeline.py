"""The bit-exact model of fpforge's dot-product pipeline (the package docstring of :mod:`fpforge.golden.dot`
states its eight steps); ``fpforge.hw.dot`` is its RTL twin."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..block import BlockEncoding
from ..checks import as_codes, as_int_array
from ..classify import classify
from ..errors import FpforgeTypeError, FpforgeValueError
from .config import DotConfig
from .operands import as_operand, lead_shape

__all__ = ["DotResult", "dot", "element_fields", "fp32_bits"]

_QNAN = 0x7FC00000
_INF = 0x7F800000


# -- element decoding --------------------------------------------------------------------------------------
@dataclass
class _Elements:
    """One operand of n dot products, as the datapath sees it."""

    sign: np.ndarray  # (n, nb, k1) 0/1
    mag: np.ndarray  # (n, nb, k1) int64, 0 for NaN/Inf elements
    eoff: np.ndarray  # (n, nb, k1) int64
    sub: np.ndarray  # (n, nb, n_sub) int64: BDR beta - tau
    bexp: np.ndarray  # (n, nb) int64
    nan: np.ndarray  # (n, nb, k1) bool (element NaN, or its block's scale is NaN)
    inf: np.ndarray  # (n, nb, k1) bool
    zero: np.ndarray  # (n, nb, k1) bool: a finite zero


_FIELD_TABLES: dict = {}


def _float_table(el, codes, bias=None):
    """The descriptor's ``dot_fields`` through a per-format table of every code (formats of up to 16 bits);
    a run-time bias (per dot product, broadcast against ``codes``) moves the exponent offsets of the
    table made at bias 0."""
    if el.bits > 16:
        return el.dot_fields(codes, bias)
    key = (type(el).__name__, el.name)
    if key not in _FIELD_TABLES:
        _FIELD_TABLES[key] = el.dot_fields(np.arange(1 << el.bits, dtype=np.int64), 0 if el.runtime_bias else None)
    idx = np.asarray(codes, np.intp)
    sign, sig, eoff, nan, inf = (t[idx] for t in _FIELD_TABLES[key])
    if el.runtime_bias:
        eoff = eoff - np.asarray(bias, np.int64)
    return sign, sig, eoff, nan, inf


def element_fields(el, codes):
    """(sign, significand with hidden bit, eoff, nan, inf) of FloatFormat codes (int64 arrays)."""
    sign, ef, mf = el.fields(codes)
    sig = np.where(ef == 0, mf, mf | (1 << el.mbits))
    eoff = np.maximum(ef, 1) - 1
    cls = classify(el, codes)
    return sign, sig, eoff, cls.nan, cls.inf


def _decode_side(side, data, n, nb, k1, n_sub, select, bias=None):
    fmt = side.fmt
    if side.element_block_exponent:
        codes = np.asarray(data).astype(np.int64).reshape(n, nb, k1)  # checked by as_operand
        sel = np.zeros(n, np.int64) if select is None else select  # checked by _flat_select
        bias = None if bias is None else bias[:, None, None]  # checked by _flat_bias
        out = None
        for idx, el in enumerate(fmt.formats):
            s, sig, eoff, nan, inf = _float_table(el, codes & ((1 << el.bits) - 1), bias)
            sig = sig << (fmt.M - el.mbits)
            eoff = eoff + fmt.eoff_base(el)
            cur = (s, sig, eoff, nan, inf)
            pick = (sel == idx)[:, None, None]
            out = cur if out is None else tuple(np.where(pick, c, o) for c, o in zip(cur, out))
        sign, sig, eoff, nan, inf = out
        zero = (sig == 0) & ~nan & ~inf
        mag = np.where(nan | inf, 0, sig)
        return _Elements(sign, mag, eoff, np.zeros((n, nb, n_sub), np.int64), np.zeros((n, nb), np.int64),
                         nan, inf, zero)
    if not isinstance(data, BlockEncoding):
        raise FpforgeTypeError(f"operand in {fmt.name} must be a BlockEncoding (encode_block, unpack, "
                               f"from_operand_words), not {type(data).__name__}")
    if data.format != fmt or type(data.format) is not type(fmt):
        raise FpforgeValueError(f"the operand is encoded in {data.format.name!r}, not {fmt.name!r}")
    scale = np.asarray(data.scale).astype(np.int64).reshape(n, nb)
    elem = np.asarray(data.elem).astype(np.int64).reshape(n, nb, k1)
    if side.sub_block_guard:
        sign = (elem >> fmt.m) & 1
        mag = elem & ((1 << fmt.m) - 1)
        if fmt.d2:
            tau = np.asarray(data.shift).astype(np.int64).reshape(n, nb, n_sub)
        else:
            tau = np.zeros((n, nb, n_sub), np.int64)
        none = np.zeros(elem.shape, bool)
        return _Elements(sign, mag, np.zeros_like(elem), fmt.beta - tau, scale - fmt.scale_bias, none, none,
                         mag == 0)
    # OCP MX
    el = fmt.element
    if fmt.dot_side.integer_elements:
        sign = (elem >> (el.bits - 1)) & 1
        mag = np.where(sign == 1, (1 << el.bits) - elem, elem)
        eoff = np.zeros_like(elem)
        nan = inf = np.zeros(elem.shape, bool)
    else:
        sign, mag, eoff, nan, inf = _float_table(el, elem)
    block_nan = (scale == fmt.scale.nan_code)[:, :, None]
    zero = (mag == 0) & ~nan & ~inf
    nan = nan | block_nan
    mag = np.where(nan | inf, 0, mag)
    return _Elements(sign, mag, eoff, np.zeros((n, nb, n_sub), np.int64), scale - fmt.scale.bias, nan, inf, zero)


# -- wide-integer helpers (int64 or Python-int object arrays) -----------------------------------------------
def _shl(x, k):
    if x.dtype == object:
        return x << np.asarray(k).astype(object)
    return x << np.asarray(k, np.int64)


def _shr(x, k, limit=62):
    """x >> k (arithmetic); shifts beyond ``limit`` are clamped for int64 (|x| < 2**limit)."""
    if x.dtype == object:
        return x >> np.asarray(k).astype(object)
    return x >> np.minimum(np.asarray(k, np.int64), limit)


def _bitlen(x) -> np.ndarray:
    """Bit length of non-negative integers (int64 or object arrays) as int64."""
    if x.dtype == object:
        return np.frompyfunc(int.bit_length, 1, 1)(x).astype(np.int64)
    _, e = np.frexp(x.astype(np.float64))
    e = e.astype(np.int64)
    over = (x >> np.maximum(e - 1, 0)) == 0  # float64 rounded x up to the next power of two
    return np.where(x == 0, 0, e - (over & (x > 0)))


def fp32_bits(T, exp) -> np.ndarray:
    """FP32 bit patterns (uint32) of ``T * 2**exp`` (integer arrays, int64 or Python-int objects), rounded
    to nearest even once, with FP32 subnormals, ±Inf beyond the largest finite value, and +0 for T = 0."""
    T = as_int_array(T, "T")
    exp = as_int_array(exp, "exp")
    if exp.dtype == object:
        raise FpforgeValueError("exp must fit in int64")
    exp = exp.astype(np.int64)
    try:
        T, exp = np.broadcast_arrays(T, exp)
    except ValueError:
        raise FpforgeValueError(f"T of shape {T.shape} and exp of shape {exp.shape} do not broadcast") from None
    neg = T < 0
    M = np.where(neg, -T, T)
    if M.dtype != object:
        M = M.astype(np.int64)
    L = _bitlen(M)
    e = exp + L - 1  # exponent of the leading one
    s = np.where(e >= -126, L - 24, -149 - exp)  # low bits to drop
    s = np.minimum(s, L + 1)  # everything beyond L + 1 rounds to 0 the same way
    drop = np.maximum(s, 0)
    q0 = _shr(M, drop)
    rem = M - _shl(q0, drop)
    half = np.where(drop > 0, _shl(np.ones_like(M), np.maximum(drop - 1, 0)), 0)
    if M.dtype == object:
        half = half.astype(object)
    odd = (q0 & 1) == 1
    up = (drop > 0) & ((rem > half) | ((rem == half) & odd))
    q = np.where(s > 0, q0 + up, _shl(M, np.maximum(-s, 0)))
    q = q.astype(np.int64)
    ec = np.clip(e, -126, 200)
    bits = ((ec + 126) << 23) + q
    bits = np.where(bits >= _INF, _INF, bits)
    bits = np.where(M == 0, 0, bits)
    return (bits | np.where(neg, 1 << 31, 0)).astype(np.uint32)


# -- the pipeline ------------------------------------------------------------------------------------------
@dataclass
class DotResult:
    """What :func:`dot` returns, one entry per dot product (the operands' leading shape).

    Attributes
    ----------
    y : ndarray of uint32
        FP32 result bits.
    sum : ndarray of int64 (object for wide configurations)
        The raw fixed-point sum T (two's complement value).
    exp : ndarray of int64
        The raw exponent: the finite part of the result is exactly ``sum * 2**exp``.
    nan, inf : ndarray of bool
        The result is NaN / ±Inf because of special operands (``y`` says which Inf).
    """

    y: np.ndarray
    sum: np.ndarray
    exp: np.ndarray
    nan: np.ndarray
    inf: np.ndarray

    @property
    def value(self) -> np.ndarray:
        """The FP32 results as float32."""
        return self.y.view(np.float32)


def _specials(ea, eb, n):
    """(nan, +inf, -inf) per dot product from the elements' classes (IEEE rules on the products)."""
    pnan = ea.nan | eb.nan | (ea.inf & eb.zero) | (ea.zero & eb.inf)
    pinf = (ea.inf | eb.inf) & ~pnan
    neg = (ea.sign ^ eb.sign) == 1
    any_nan = pnan.reshape(n, -1).any(axis=1)
    pos = (pinf & ~neg).reshape(n, -1).any(axis=1)
    ngt = (pinf & neg).reshape(n, -1).any(axis=1)
    return any_nan | (pos & ngt), pos, ngt


def _pipeline(cfg, ea, eb, n):
    """(T, exp) of n dot products from decoded elements."""
    obj = cfg.wide
    dt = object if obj else np.int64
    prod = (ea.mag * eb.mag).astype(dt)  # (n, nb, k1), at most 2 * 24 bits
    if cfg.product_shift:
        prod = _shl(prod, ea.eoff + eb.eoff)
    prod = np.where((ea.sign ^ eb.sign) == 1, -prod, prod)
    if cfg.element_block_exponent:
        S = prod[:, :, 0]
        X = ea.eoff[:, :, 0] + eb.eoff[:, :, 0]
    else:
        sub = prod.reshape(n, cfg.nb, cfg.n_sub, cfg.k2).sum(axis=-1)
        sub = _shl(sub, ea.sub + eb.sub)  # = (sub << G) >> (tau_a + tau_b), exactly
        S = sub.sum(axis=-1)
        X = ea.bexp + eb.bexp
    if S.dtype != dt:
        S = S.astype(dt)
    X = np.where(S == 0, cfg.x_min, X)
    Xm = X.max(axis=-1)
    d = Xm[:, None] - X
    k = cfg.f - 1 - cfg.W - d  # A = trunc(S * 2**k)
    neg = S < 0
    mag = np.where(neg, -S, S)
    if not obj:
        mag = mag.astype(np.int64)
    left = np.maximum(k, 0)
    right = np.maximum(-k, 0)
    amag = _shr(_shl(mag, left), right)
    A = np.where(neg, -amag, amag)
    T = A.sum(axis=-1)
    exp = Xm + cfg.c + cfg.W - (cfg.f - 1)
    return T, exp.astype(np.int64)


def _resolve_config(fmt_a, fmt_b, r, f, a):
    if isinstance(fmt_a, DotConfig):
        if fmt_b is not None or r is not None or f is not None:
            raise FpforgeValueError("with a DotConfig, give the operands only (r, f and formats are in the config)")
        return fmt_a
    if f is None:
        raise FpforgeValueError("f (bits of the fixed-point window) is required")
    if r is None:
        shape = a.shape if isinstance(a, BlockEncoding) else np.shape(a)
        if not shape:
            raise FpforgeValueError("operand A has no element axis")
        r = shape[-1]
    return DotConfig(fmt_a, r, f, fmt_b)


def dot(fmt_a, a, fmt_b=None, b=None, *, f=None, r=None, select_a=None, select_b=None, bias_a=None,
        bias_b=None) -> DotResult:
    """Dot products of the pipeline, bit for bit as the RTL computes them.

    Parameters
    ----------
    fmt_a : str, descriptor or DotConfig
        Format of A (``mx9``, ``mxfp8_e4m3``, ``bdr(...)``, ``e4m3``, ``fp8`` …), or a :class:`DotConfig`.
    a, b : BlockEncoding, bytes, or integer code arrays for scalar formats
        Operands of shape (..., r): ``encode_block`` / ``unpack`` / :func:`from_operand_words` results, or
        codes; or packed, as the ``bytes`` that ``pack`` writes for (n, r) values (scalar: one byte per
        code). The leading shapes must be equal: one dot product per leading index.
    fmt_b : str or descriptor, optional
        Format of B (default: A's). With a DotConfig, pass ``None``.
    f : int
        Window bits (required unless a DotConfig is given).
    r : int, optional
        Elements per dot product (default: the operands' last axis).
    select_a, select_b : int or array of int, optional
        For a scalar operand with several formats (``fp8``): which one each dot product uses (0 = E4M3,
        1 = E5M2 for ``fp8``); default 0.
    bias_a, bias_b : int or array of int
        For an operand with a run-time-bias format (``cfloat8_143``, ``cfloat8_152``), and required there:
        its exponent bias, 0..63, one per dot product (an integer, or an integer array broadcastable to
        the operands' leading shape: the RTL's ``bias_a``/``bias_b`` ports take one per transfer). Other
        operands take none.

    Returns
    -------
    DotResult
    """
    cfg = _resolve_config(fmt_a, fmt_b, r, f, a)
    if b is None:
        raise FpforgeValueError("operand B is required")
    a, b = as_operand(cfg, cfg.sa, a, "A"), as_operand(cfg, cfg.sb, b, "B")
    lead_a = lead_shape(cfg, cfg.sa, a, "A")
    lead_b = lead_shape(cfg, cfg.sb, b, "B")
    if lead_a != lead_b:
        raise FpforgeValueError(f"operands A and B must hold the same number of dot products, not {lead_a} and "
                                f"{lead_b}")
    n = int(np.prod(lead_a, dtype=np.int64))
    args = (n, cfg.nb, cfg.k1, cfg.n_sub)
    ea = _decode_side(cfg.sa, a, *args, _flat_select(select_a, lead_a, cfg.sa, "select_a"),
                      _flat_bias(bias_a, lead_a, cfg.sa, "bias_a"))
    eb = _decode_side(cfg.sb, b, *args, _flat_select(select_b, lead_a, cfg.sb, "select_b"),
                      _flat_bias(bias_b, lead_a, cfg.sb, "bias_b"))
    T, exp = _pipeline(cfg, ea, eb, n)
    y = fp32_bits(T, exp)
    nan, pos, ngt = _specials(ea, eb, n) if cfg.specials else (np.zeros(n, bool),) * 3
    inf = (pos | ngt) & ~nan
    y = np.where(inf, np.where(ngt, _INF | (1 << 31), _INF), y).astype(np.uint32)
    y = np.where(nan, _QNAN, y).astype(np.uint32)
    return DotResult(y.reshape(lead_a), T.reshape(lead_a), exp.reshape(lead_a), nan.reshape(lead_a),
                     inf.reshape(lead_a))


def _flat_select(select, lead, side=None, name="select"):
    if select is None:
        return None
    # fp8 operands pick E4M3 (0) or E5M2 (1) per dot product; an operand with one element format (a block
    # format, e4m3, ...) accepts only 0
    n_formats = len(side.fmt.formats) if side is not None and side.element_block_exponent else 1
    sel = as_codes(select, 0, name=name, hi=n_formats - 1, of=side.fmt.name if side is not None else None)
    sel = sel.astype(np.int64)
    try:
        return np.broadcast_to(sel, lead).reshape(-1)
    except ValueError:
        raise FpforgeValueError(f"{name} of shape {sel.shape} does not broadcast to the {lead} dot products") from None


def _flat_bias(bias, lead, side, name):
    """The run-time biases (n,) of an operand, one per dot product: required (0..63 integers, never cast) for
    a run-time-bias format, refused for any other operand."""
    bits = side.fmt.bias_bits if side.element_block_exponent else 0
    if not bits:
        if bias is not None:
            raise FpforgeValueError(f"{name} applies to run-time-bias operands (cfloat8_143, cfloat8_152); "
                                    f"{side.fmt.name} has a fixed bias: leave {name} None")
        return None
    hi = (1 << bits) - 1
    if bias is None:
        raise FpforgeValueError(f"{side.fmt.name} has a run-time bias: pass {name}= an integer in 0..{hi} (or one "
                                "per dot product)")
    b = as_codes(bias, bits, name=name, of=side.fmt.name, what="integers").astype(np.int64)
    try:
        return np.broadcast_to(b, lead).reshape(-1)
    except ValueError:
        raise FpforgeValueError(f"{name} of shape {b.shape} does not broadcast to the {lead} dot products") from None
