"""Per-tensor scaling for narrow formats, bit for bit: the FP8 RFC's scaled casts (seed 002) and Transformer
Engine's delayed scaling, for every scalar format (limits read from the descriptor, no per-format code).

Conventions (Transformer Engine's names; ``docs/scaling.md`` maps them to the RFC's and cuBLASLt's):

* a **scale** ``s`` multiplies on the way in: ``q = cast(x * s)``; ``scale = F8_MAX * 2**-margin / amax``;
* ``scale_inv = fp32(1 / s)`` multiplies on the way out: ``x ≈ decode(q) * scale_inv``;
* ``scaled_dot``'s ``scale_a``/``scale_b`` are the operands' ``scale_inv`` (cuBLASLt ``scaleA``/``scaleB``)
  and ``inv_scale_out`` is the output's ``scale`` (cuBLASLt ``scaleD``, the RFC's inverse output scale).

Every rounding point, in one place (``fp32(.)`` is one IEEE 754 round-to-nearest-even to binary32, with
subnormals, ±Inf beyond the largest finite value):

1. ``amax``: exact (the largest FP32 magnitude; a NaN wins, then ±Inf).
2. ``scale_from_amax``: ``fp32(F8_MAX * 2**-margin / amax)`` — one rounding (TE's delayed-scaling kernel);
   ``+Inf`` → FLT_MAX (TE's ``compute_scale_from_amax``); ``pow2`` truncates to a power of two; the result
   is kept within [2**-126, FLT_MAX] so that ``scale_inv`` is finite; amax 0, Inf or NaN keeps the
   previous scale.
3. ``scale_to_fp8``: ``p = fp32(x * s)``, then ``cast(p)`` with the format's rounding — **double rounding**,
   as TE's cast kernels and the RFC's ``Multiply`` + ``Convert`` do (not fused).
4. ``unscale``: ``fp32(decode(q) * fp32(1 / s))``.
5. ``scaled_dot``: ``r`` = the dot-product pipeline's FP32 result (its own single rounding); the combined
   scale ``c = fp32(fp32(scale_a * scale_b) * inv_scale_out)`` once per tensor; ``y = fp32(r * c)`` (the
   one rounding on the datapath); ``amax = max |fp32(r * fp32(scale_a * scale_b))|`` (the unscaled output,
   which equals ``fp32(max|r| * fp32(scale_a * scale_b))`` because rounding is monotonic);
   ``out_fmt``: ``cast(y)``, saturating by default.

The product of the hardware model (:func:`~fpforge.golden.fp32mul.fp32_mul`, ``pow2_mul``, re-exported
here) is IEEE's except that every NaN result is the canonical quiet NaN ``0x7FC00000`` (positive). Its
flags use the encoders' bits and accumulate with the cast's like an FPU's sticky flags over the two
operations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .checks import as_int, broadcast
from .contract import ScalarFormat
from .errors import FpforgeTypeError, FpforgeValueError
from .formats import get_format
from .fp32mul import SCALE_EXP_BITS, SCALE_EXP_RANGE, fp32_mul, pow2_mul
from .fp32mul import fp32_value as _fp32
from .fp32mul import source_array as _source
from .minifloat import decode, encode_with_flags

__all__ = [
    "ALGOS",
    "DelayedScaling",
    "MAX_MARGIN",
    "SCALE_EXP_BITS",
    "SCALE_EXP_RANGE",
    "SCALE_RANGE",
    "ScaledDotResult",
    "amax",
    "epilogue",
    "format_max",
    "fp32_mul",
    "pow2_mul",
    "running_amax",
    "scale_from_amax",
    "scale_inv",
    "scale_to_fp8",
    "scaled_dot",
    "scaled_encode",
    "scaled_encode_with_flags",
    "unscale",
]

#: The range computed scales are kept in: the FP32 normal numbers (``scale_inv`` is then finite too).
SCALE_RANGE = (np.float32(2.0**-126), np.finfo(np.float32).max)
#: Largest ``margin`` accepted (a scale is divided by ``2**margin``).
MAX_MARGIN = 64
#: Amax algorithms of :class:`DelayedScaling` (Transformer Engine's ``amax_compute_algo``).
ALGOS = ("max", "most_recent")



# -- arguments -------------------------------------------------------------------------------------------
def _scalar_format(fmt, bias=None):
    """The fixed-bias scalar descriptor scaling reads its limits from."""
    d = get_format(fmt)
    if not isinstance(d, ScalarFormat):
        raise FpforgeValueError(f"per-tensor scaling applies to scalar formats (e4m3, e5m2, hif8, cfloat8_143, "
                                f"...), not {getattr(d, 'name', d)!r} (block formats carry their own scales)")
    try:
        return d.at(bias)
    except ValueError as e:
        raise FpforgeValueError(str(e)) from None


def _check_format(fmt, bias):
    """A scalar format, with a bias if it takes one (a scalar or an array of per-element biases)."""
    d = get_format(fmt)
    if isinstance(d, ScalarFormat) and (bias is None or np.ndim(bias) == 0):
        return _scalar_format(d, bias)
    return d if isinstance(d, ScalarFormat) and d.runtime_bias else _scalar_format(d, None)


def _margin(margin):
    if isinstance(margin, bool) or not isinstance(margin, (int, np.integer)) or not 0 <= margin <= MAX_MARGIN:
        raise FpforgeValueError(f"margin must be an integer in 0..{MAX_MARGIN}, not {margin!r}")
    return int(margin)


def format_max(fmt, bias=None) -> np.float32:
    """F8_MAX, the format's largest finite value as FP32 (a run-time-bias format needs its ``bias``)."""
    d = _scalar_format(fmt, bias)
    v = np.float32(d.max_value)
    if float(v) != d.max_value:
        raise FpforgeValueError(f"the largest value of {d.name} is not an FP32 value")
    return v


# -- amax ----------------------------------------------------------------------------------------------------
def _magnitude_bits(x) -> np.ndarray:
    """FP32 magnitude bit patterns (uint32) of the source values (BF16: the pattern shifted up 16 bits)."""
    x, src = _source(x)
    if src.name == "bf16":
        bits = x.view(np.uint16).astype(np.uint32) << np.uint32(16)
    else:
        bits = x.astype(np.float32).view(np.uint32)
    return bits & np.uint32(0x7FFFFFFF)


def amax(x, axis=None):
    """The largest magnitude of ``x`` as float32 (exact), over ``axis`` (default: the whole tensor).

    Magnitudes are compared as FP32 bit patterns without the sign, as the hardware does: a NaN wins (the
    NaN with the largest payload, sign cleared), then +Inf, then the finite values. An empty tensor has
    amax +0 (the register's value after a clear), which :func:`scale_from_amax` treats as "no information".
    """
    mags = _magnitude_bits(x)
    if axis is not None:
        as_int(axis, "axis", -max(mags.ndim, 1), max(mags.ndim, 1) - 1)
        if mags.ndim == 0:
            raise FpforgeValueError("axis applies to an array with axes; x is a scalar")
    return mags.max(axis=axis, initial=0).astype(np.uint32).view(np.float32)[()]


def running_amax(x, first):
    """The scaled encoder's ``amax`` output for each transfer: ``x`` is ``(n, lanes)``, ``first`` ``(n,)``
    (1 starts a new tensor). Transfer ``t`` delivers the amax of its tensor so far, itself included; before
    the first ``first`` the running value starts at +0 (reset)."""
    mags = _magnitude_bits(x)
    if mags.ndim != 2:
        raise FpforgeValueError(f"x must be (transfers, lanes), not of shape {mags.shape}")
    first = np.asarray(first).astype(bool)
    if first.shape != (mags.shape[0],):
        raise FpforgeValueError(f"first must hold one flag per transfer ({mags.shape[0]}), not {first.shape}")
    row = mags.max(axis=1, initial=0).astype(np.uint64)
    key = (np.cumsum(first, dtype=np.uint64) << np.uint64(32)) | row  # a new tensor outranks the old one
    acc = np.maximum.accumulate(key) & np.uint64(0xFFFFFFFF) if len(key) else key
    return acc.astype(np.uint32).view(np.float32)


# -- scales --------------------------------------------------------------------------------------------------
def scale_from_amax(amax_value, fmt, *, margin=0, pow2=False, prev_scale=1.0, bias=None):
    """The scale ``F8_MAX * 2**-margin / amax`` as FP32, with Transformer Engine's rules.

    1. ``amax`` 0, +Inf or NaN carries no usable information: the result is ``prev_scale`` (TE's delayed
       scaling keeps the previous scale; current scaling passes the default 1.0, as TE does).
    2. Otherwise ``fp32((F8_MAX * 2**-margin) / amax)``: the numerator is exact, the quotient rounded once.
    3. A quotient that overflows to +Inf becomes FLT_MAX (TE's ``compute_scale_from_amax``).
    4. ``pow2``: the largest power of two not above it (TE's ``force_pow_2_scales``: mantissa bits cleared).
    5. Kept within ``SCALE_RANGE`` = [2**-126, FLT_MAX] so that ``scale_inv`` is finite (only absurd margins
       or tiny-range formats reach the lower end).

    Parameters
    ----------
    amax_value : float or array of float32
        ``>= 0`` (NaN and +Inf allowed); exactly an FP32 value.
    fmt : str or descriptor
        Scalar format whose largest value is F8_MAX (``bias`` for run-time-bias formats).
    margin : int
        0..MAX_MARGIN.
    pow2 : bool
    prev_scale : float
        Finite and positive.

    Returns
    -------
    float32 (scalar or array, the shape of ``amax_value``)
    """
    a = _fp32(amax_value, "amax")
    with np.errstate(invalid="ignore"):
        if (a < 0).any():
            raise FpforgeValueError(f"amax must be >= 0 (a largest magnitude), not {a[a < 0].flat[0].item()!r}"
                                    if a.ndim else f"amax must be >= 0 (a largest magnitude), not {a.item()!r}")
    prev = _fp32(prev_scale, "prev_scale", positive=True)
    top = np.float64(format_max(fmt, bias)) * 2.0 ** -_margin(margin)
    if not isinstance(pow2, (bool, np.bool_)):
        raise FpforgeTypeError(f"pow2 must be True or False, not {pow2!r}")
    with np.errstate(invalid="ignore"):  # signalling NaNs
        a64 = a.astype(np.float64)
    usable = np.isfinite(a64) & (a64 > 0)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        s = (top / np.where(usable, a64, 1.0)).astype(np.float32)  # float64 quotient: innocuous double rounding
    s = np.minimum(s, SCALE_RANGE[1])
    if pow2:
        _, e = np.frexp(s.astype(np.float64))
        s = np.ldexp(1.0, e - 1).astype(np.float32)
    s = np.maximum(s, SCALE_RANGE[0])
    return np.where(usable, s, prev).astype(np.float32)[()]


def scale_inv(scale):
    """``fp32(1 / scale)``: the dequantization multiplier (TE's ``scale_inv``); ``scale`` finite, > 0."""
    s = _fp32(scale, "scale", positive=True)
    with np.errstate(over="ignore"):
        return (1.0 / s.astype(np.float64)).astype(np.float32)[()]


class DelayedScaling:
    """Transformer Engine's delayed scaling: each step quantizes with the scale computed from earlier amaxes.

    The history holds the last ``history_len`` amaxes (zeros at the start). :meth:`update` records a
    step's amax and computes the scale for the next step from ``max`` over the history (NaNs ignored,
    like TE's ``fmaxf``) or from the ``most_recent`` amax, with :func:`scale_from_amax`'s rules (an unusable
    amax keeps the current scale). The first step uses ``initial_scale`` (TE: 1.0).

    Parameters
    ----------
    fmt : str or descriptor
        Scalar format (``bias`` for run-time-bias formats).
    history_len : int
        1..2**20.
    algo : str
        ``"max"`` or ``"most_recent"``.
    margin : int
        The scale is divided by ``2**margin``.
    pow2 : bool
        Power-of-two scales.
    initial_scale : float
        Finite, positive.

    Raises
    ------
    FpforgeValueError, FpforgeTypeError
        A bad argument (the message names the valid choices).
    """

    def __init__(self, fmt, history_len=1024, algo="max", margin=0, pow2=False, *, initial_scale=1.0, bias=None):
        if isinstance(history_len, bool) or not isinstance(history_len, (int, np.integer)) \
                or not 1 <= history_len <= 1 << 20:
            raise FpforgeValueError(f"history_len must be an integer in 1..{1 << 20}, not {history_len!r}")
        if not isinstance(algo, str) or algo not in ALGOS:
            raise FpforgeValueError(f"algo must be one of {', '.join(ALGOS)}, not {algo!r}")
        if not isinstance(pow2, (bool, np.bool_)):
            raise FpforgeTypeError(f"pow2 must be True or False, not {pow2!r}")
        self._fmt = _scalar_format(fmt, bias)
        self._bias = bias
        format_max(self._fmt)
        self._margin = _margin(margin)
        self._algo, self._pow2 = algo, bool(pow2)
        self._scale = np.float32(_fp32(initial_scale, "initial_scale", positive=True))
        self._history = np.zeros(int(history_len), np.float32)
        self._steps = 0

    fmt = property(lambda self: self._fmt)
    history_len = property(lambda self: len(self._history))
    algo = property(lambda self: self._algo)
    margin = property(lambda self: self._margin)
    pow2 = property(lambda self: self._pow2)
    steps = property(lambda self: self._steps, doc="Amaxes recorded so far.")

    @property
    def scale(self) -> np.float32:
        """The scale to quantize the current step with."""
        return self._scale

    @property
    def scale_inv(self) -> np.float32:
        return scale_inv(self._scale)

    @property
    def history(self) -> np.ndarray:
        """The recorded amaxes, oldest first (a copy)."""
        return self._history.copy()

    def update(self, amax_value) -> np.float32:
        """Record one step's amax (``>= 0``; NaN/Inf allowed) and return the scale for the next step."""
        a = _fp32(amax_value, "amax")
        if a.ndim:
            raise FpforgeValueError(f"update takes one amax per step, not an array of shape {a.shape}")
        with np.errstate(invalid="ignore"):
            if a < 0:  # (-0 is a zero amax; NaN and Inf carry no information and keep the scale)
                raise FpforgeValueError(f"amax must be >= 0 (a largest magnitude), not {a.item()!r}; the history is "
                                        "unchanged")
        self._history = np.append(self._history[1:], a)
        use = np.fmax.reduce(self._history) if self._algo == "max" else a
        self._scale = np.float32(scale_from_amax(use, self._fmt, margin=self._margin, pow2=self._pow2,
                                                 prev_scale=self._scale))
        self._steps += 1
        return self._scale

    def step(self, x, *, rounding=None, saturate=True):
        """Quantize one step's tensor ``x`` with the current scale, record its amax, update the scale.
        Returns ``(codes, flags)`` of :func:`scaled_encode_with_flags`."""
        out = scaled_encode_with_flags(self._fmt, x, self._scale, rounding=rounding, saturate=saturate)
        self.update(amax(x))
        return out


# -- scaled casts --------------------------------------------------------------------------------------------
def scaled_encode_with_flags(fmt, x, scale=None, *, scale_exp=None, rounding=None, saturate=False,
                             nan_to_zero=False, seed=None, bias=None, rand=None, rand_bits=16,
                             ieee_denormals=False, paper_literal=False):
    """What the ``scaled-encoder`` unit computes: ``encode(fmt, fp32(x * scale))`` and the flags of both
    operations ORed (docs/scaling.md). Any FP32 ``scale`` (zero, negative, NaN, Inf included), or a
    power-of-two ``scale_exp`` (``x * 2**k``). The remaining arguments are :func:`~fpforge.golden.encode`'s;
    ``sr`` draws go to the values in C order. Returns ``(codes, flags)``."""
    if (scale is None) == (scale_exp is None):
        raise FpforgeValueError("give exactly one of scale (an FP32 value) and scale_exp (an integer k for 2**k)")
    _check_format(fmt, bias)
    p, mflags = fp32_mul(x, scale) if scale_exp is None else pow2_mul(x, scale_exp)
    codes, flags = encode_with_flags(fmt, p, rounding=rounding, saturate=saturate, nan_to_zero=nan_to_zero,
                                     seed=seed, bias=bias, rand=rand, rand_bits=rand_bits,
                                     ieee_denormals=ieee_denormals, paper_literal=paper_literal)
    return codes, flags | mflags


def scaled_encode(fmt, x, scale=None, **kwargs):
    """The codes of :func:`scaled_encode_with_flags`."""
    return scaled_encode_with_flags(fmt, x, scale, **kwargs)[0]


def scale_to_fp8(x, scale, fmt, rounding=None, saturate=True, *, nan_to_zero=False, seed=None, bias=None,
                 ieee_denormals=False):
    """The RFC's ``scale_to_fp8``: codes of ``cast(fp32(x * scale))`` in ``fmt`` (any scalar format).

    Saturating by default (the RFC: FP8 should saturate on overflow, the scale may be slightly too large;
    pass ``saturate=False`` for E5M2 with loss scaling). ``scale`` must be finite and positive (a scalar or
    an array broadcastable to ``x``); the unit itself accepts any FP32 scale
    (:func:`scaled_encode_with_flags`). An empty ``x`` gives empty codes.
    """
    _check_format(fmt, bias)
    _fp32(scale, "scale", positive=True)
    return scaled_encode(fmt, x, scale, rounding=rounding, saturate=saturate, nan_to_zero=nan_to_zero, seed=seed,
                         bias=bias, ieee_denormals=ieee_denormals)


def unscale(codes, scale, fmt, *, bias=None, ieee_denormals=False) -> np.ndarray:
    """Dequantize: ``fp32(decode(codes) * scale_inv(scale))`` as float32 (NaN codes give NaN)."""
    _check_format(fmt, bias)
    vals = decode(fmt, codes, bias=bias, ieee_denormals=ieee_denormals).astype(np.float64)
    vals, inv = broadcast(("codes", vals), ("scale", np.asarray(scale_inv(scale), np.float64)))
    with np.errstate(over="ignore", invalid="ignore"):
        return (vals * inv).astype(np.float32)


# -- the scaled dot product ----------------------------------------------------------------------------------
@dataclass
class ScaledDotResult:
    """What :func:`scaled_dot` / :func:`epilogue` return.

    Attributes
    ----------
    y : ndarray of float32
        ``fp32(r * c)``, the scaled FP32 result.
    amax : float32
        The largest ``|fp32(r * fp32(scale_a * scale_b))|`` (the unscaled output) over all results.
    codes : ndarray or None
        ``y`` cast to ``out_fmt`` (None without one).
    flags : ndarray of uint8
        The flags of ``r * c`` (and of the cast, ORed).
    scale : float32
        The combined scale ``c``.
    """

    y: np.ndarray
    amax: np.float32
    codes: np.ndarray | None
    flags: np.ndarray
    scale: np.float32


def epilogue(result, scale_a, scale_b, inv_scale_out=1.0, out_fmt=None, *, rounding=None, saturate=True,
             bias=None) -> ScaledDotResult:
    """The scaled dot product's epilogue on FP32 results (a ``DotResult`` or a float32 array).

    ``scale_a``, ``scale_b`` (the operands' dequantization multipliers) and ``inv_scale_out`` (the
    output's quantization multiplier; 1.0 for an FP32 output) are finite positive FP32 values; their
    products ``fp32(scale_a * scale_b)`` and ``c`` must stay finite and non-zero.
    """
    r = np.asarray(getattr(result, "value", result))
    if r.dtype != np.float32:
        raise FpforgeTypeError(f"dot results must be float32 (or a DotResult), not {r.dtype}")
    if out_fmt is not None and not isinstance(get_format(out_fmt), ScalarFormat):  # named as the caller did
        raise FpforgeValueError(f"out_fmt must be a scalar format (e4m3, e5m2, hif8, cfloat8_143, ...) or None, "
                                f"not {getattr(get_format(out_fmt), 'name', out_fmt)!r} (a block format)")
    sa, sb, so = (_fp32(v, n, positive=True) for v, n in ((scale_a, "scale_a"), (scale_b, "scale_b"),
                                                            (inv_scale_out, "inv_scale_out")))
    if sa.ndim or sb.ndim or so.ndim:
        raise FpforgeValueError("scale_a, scale_b and inv_scale_out are per-tensor scalars")
    s_ab = fp32_mul(sa, sb)[0]
    c = fp32_mul(s_ab, so)[0]
    if not (np.isfinite(c) and c > 0 and np.isfinite(s_ab) and s_ab > 0):
        raise FpforgeValueError(f"scale_a * scale_b * inv_scale_out = {float(s_ab) * float(so)!r} leaves FP32 "
                                f"(fp32(scale_a * scale_b) = {float(s_ab)!r}, combined {float(c)!r})")
    y, flags = fp32_mul(r, c)
    peak = amax(fp32_mul(r, s_ab)[0])
    codes = None
    if out_fmt is not None:
        codes, cflags = encode_with_flags(out_fmt, y, rounding=rounding, saturate=saturate, bias=bias)
        flags = flags | cflags
    return ScaledDotResult(y, np.float32(peak), codes, flags, np.float32(c))


def scaled_dot(a, b, scale_a, scale_b, inv_scale_out=1.0, out_fmt=None, *, fmt, fmt_b=None, f=None, r=None,
               select_a=None, select_b=None, bias_a=None, bias_b=None, rounding=None, saturate=True,
               bias=None) -> ScaledDotResult:
    """The RFC's scaled matmul, one dot product per leading index: :func:`fpforge.golden.dot.dot` on the
    operand codes/blocks ``a``, ``b`` (formats ``fmt``, ``fmt_b``; window ``f``), then :func:`epilogue`.

    Returns the FP32 result ``y`` (or its cast to ``out_fmt``, saturating unless ``saturate=False``) and
    the output amax. ``bias_a``/``bias_b``: the operands' run-time biases (CFloat8 operands, as
    :func:`fpforge.golden.dot.dot` takes them); ``bias``: the output format's (a CFloat8 ``out_fmt``). The RTL
    epilogue (``DotProduct(scale=, amax=, out_format=)``) computes exactly this.
    """
    from .dot import dot

    res = dot(fmt, a, fmt_b, b, f=f, r=r, select_a=select_a, select_b=select_b, bias_a=bias_a, bias_b=bias_b)
    return epilogue(res, scale_a, scale_b, inv_scale_out, out_fmt, rounding=rounding, saturate=saturate, bias=bias)
