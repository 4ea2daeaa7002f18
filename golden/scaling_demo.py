"""The worked example of ``docs/scaling.md``: a training-like tensor whose range drifts, quantized step by
step with current scaling and with delayed scaling, and how often double rounding differs from a single
rounding of the exact product.

The tensor (``drifting_tensor``): step ``t`` of ``T`` holds ``n`` values ``sigma_t * t4`` (Student's t with
4 degrees of freedom: heavy tails, as activations and gradients have), with ``log2 sigma_t`` rising from
-4 to +4 over the first 30 % of the steps (about 6 % per step), then steady with a slow ±0.5-bit
oscillation, one outlier step at 45 % (1 % of the values ×256), then falling to -8 (about 6 % per step);
every step adds N(0, 0.15) bits of jitter. All of it is seeded.

``run_demo`` quantizes every step with each recipe (``current``: the scale of the step's own amax;
``delayed h/m``: :class:`~fpforge.golden.scaling.DelayedScaling` with history ``h`` and margin ``m``) and
records per step the QSNR in dB, the fraction of saturated values (the overflow flag: ``|x * s|`` beyond
the format's largest value) and the fraction of non-zero values flushed to zero.
"""

from __future__ import annotations

import numpy as np

from .checks import as_seed
from .errors import FpforgeTypeError, FpforgeValueError
from .formats import Flag, get_format
from .fp32mul import fp32_mul, fp32_value, round_product
from .minifloat import encode_with_flags
from .scaling import MAX_MARGIN, DelayedScaling, amax, format_max, scale_from_amax, scaled_encode_with_flags, unscale

__all__ = ["DEFAULT_HISTORIES", "DEFAULT_MARGINS", "double_rounding_table", "drifting_tensor", "log2_sigma",
           "recipes", "round_to_odd_product", "run_demo", "summary_rows"]

DEFAULT_HISTORIES = (1, 16, 1024)
DEFAULT_MARGINS = (0, 1)


def log2_sigma(steps: int) -> np.ndarray:
    """The drift schedule (without jitter): ``log2 sigma_t`` for ``t = 0 .. steps - 1``."""
    u = np.arange(steps) / max(steps, 1)
    rise = -4 + 8 * np.clip(u / 0.3, 0, 1)
    fall = -12 * np.clip((u - 0.6) / 0.4, 0, 1)
    wave = 0.5 * np.sin(2 * np.pi * u * steps / 40) * ((u >= 0.3) & (u < 0.6))
    return rise + fall + wave


def _check_sizes(steps, size):
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise FpforgeValueError(f"steps must be a positive integer, not {steps!r}")
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise FpforgeValueError(f"size must be a positive integer, not {size!r}")


def drifting_tensor(steps: int, size: int, seed: int = 0):
    """Yield ``(t, x)`` for each step: ``x`` float32 of ``size`` values (see the module docstring)."""
    _check_sizes(steps, size)
    rng = np.random.default_rng(as_seed(seed, allow_none=False))
    base = log2_sigma(steps) + rng.normal(0, 0.15, steps)
    spike = int(0.45 * steps)
    for t in range(steps):
        x = rng.standard_t(4, size) * 2.0 ** base[t]
        if t == spike and steps >= 10:
            hit = rng.random(size) < 0.01
            x[hit] *= 256
        yield t, x.astype(np.float32)


def recipes(histories=DEFAULT_HISTORIES, margins=DEFAULT_MARGINS):
    """``[(label, history or None, margin)]``: current scaling first, then every (history, margin)."""
    out = [("current", None, 0)]
    out += [(f"delayed h={h} m={m}", h, m) for h in histories for m in margins]
    return out


def _check_each(name, what, values, lo, hi):
    try:
        items = list(values)
    except TypeError:
        raise FpforgeTypeError(f"{name} ({what}) must be a sequence of integers in {lo}..{hi}, "
                               f"not {values!r}") from None
    bad = [v for v in items if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi]
    if not items or bad:
        kind = FpforgeTypeError if bad and (isinstance(bad[0], bool) or not isinstance(bad[0], (int, np.integer))) \
            else FpforgeValueError
        raise kind(f"{name} ({what}) must be integers in {lo}..{hi}, at least one, not {bad[0] if bad else items!r}")


def run_demo(fmt="e4m3", *, steps=300, size=4096, seed=0, histories=DEFAULT_HISTORIES, margins=DEFAULT_MARGINS,
             rounding=None, pow2=False, bias=None, progress=None):
    """Quantize the drifting tensor with every recipe; returns a dict of per-step arrays.

    Keys: ``steps``, ``amax`` (per step), ``labels`` (recipe names), and per recipe label ``qsnr`` (dB),
    ``saturated`` and ``flushed`` (fractions), ``scale`` (the scale each step used).
    ``progress``: a callable taking the number of finished steps (for a progress bar).
    """
    _check_sizes(steps, size)  # before anything is allocated (drifting_tensor only checks when iterated)
    format_max(fmt, bias)  # a scalar format (and its bias): one clear error before the work
    _check_each("histories", "amax history lengths", histories, 1, 1 << 20)  # the caller's names, not
    _check_each("margins", "each scale divided by 2**margin", margins, 0, MAX_MARGIN)  # DelayedScaling's
    as_seed(seed, allow_none=False)
    d = get_format(fmt)
    if not getattr(d, "signed", True):
        raise FpforgeValueError(f"{d.name} is unsigned: the demo's tensor is signed (half its values have no code in "
                                f"{d.name}), so every QSNR would be NaN; give a signed format (e4m3, e5m2, hif8, ...)")
    for h in histories:
        DelayedScaling(fmt, h, bias=bias)
    rec = recipes(histories, margins)
    delayed = {label: DelayedScaling(fmt, h, "max", m, pow2, bias=bias) for label, h, m in rec if h is not None}
    out = {"steps": np.arange(steps), "amax": np.zeros(steps, np.float32), "labels": [r[0] for r in rec]}
    for key in ("qsnr", "saturated", "flushed", "scale"):
        out[key] = {label: np.zeros(steps) for label, _, _ in rec}
    for t, x in drifting_tensor(steps, size, seed):
        peak = amax(x)
        out["amax"][t] = peak
        x64 = x.astype(np.float64)
        signal = float((x64**2).sum())
        for label, h, m in rec:
            s = scale_from_amax(peak, fmt, pow2=pow2, bias=bias) if h is None else delayed[label].scale
            codes, flags = scaled_encode_with_flags(fmt, x, s, rounding=rounding, saturate=True, bias=bias)
            q = unscale(codes, s, fmt, bias=bias).astype(np.float64)
            noise = float(((x64 - q) ** 2).sum())
            out["qsnr"][label][t] = np.inf if noise == 0 else -10 * np.log10(noise / signal)
            out["saturated"][label][t] = float(((flags & int(Flag.OVERFLOW)) != 0).mean())
            out["flushed"][label][t] = float(((q == 0) & (x != 0)).mean())
            out["scale"][label][t] = float(s)
            if h is not None:
                delayed[label].update(peak)
        if progress is not None:
            progress(t + 1)
    return out


def summary_rows(result):
    """One row per recipe: mean/p5/min QSNR (dB), mean/max saturated %, steps that saturated, mean flushed %."""
    rows = []
    for label in result["labels"]:
        q = result["qsnr"][label]
        sat, fl = result["saturated"][label], result["flushed"][label]
        rows.append(dict(recipe=label, qsnr_mean=float(np.mean(q)), qsnr_p5=float(np.percentile(q, 5)),
                         qsnr_min=float(np.min(q)), saturated_mean=100 * float(np.mean(sat)),
                         saturated_max=100 * float(np.max(sat)), saturating_steps=int((sat > 0).sum()),
                         flushed_mean=100 * float(np.mean(fl))))
    return rows


# -- double rounding ----------------------------------------------------------------------------------------
def round_to_odd_product(x, scale):
    """``x * scale`` rounded to FP32 *to odd* (an inexact result gets its last bit set): casting it to any
    format with at least two fewer significand bits rounds exactly as a single rounding of the exact product
    would (the classic fix for double rounding). Used to measure what the RFC's double rounding costs."""
    x = np.asarray(x, np.float32)
    s = fp32_value(scale, "scale")
    with np.errstate(invalid="ignore", over="ignore"):
        exact = x.astype(np.float64) * s.astype(np.float64)
        p = exact.astype(np.float32)
        toward = np.abs(p.astype(np.float64)) > np.abs(exact)  # rounded away from zero: step back
        p = np.where(toward & np.isfinite(exact), np.nextafter(p, np.float32(0)), p).astype(np.float32)
        odd = (p.view(np.uint32) & 1) == 1
        inexact = np.isfinite(exact) & (p.astype(np.float64) != exact)
        p = np.where(inexact & ~odd, np.nextafter(p, np.copysign(np.float32(np.inf), p)), p).astype(np.float32)
    return round_product(p.astype(np.float64), np.isfinite(x) & np.isfinite(s), np.zeros(x.shape, bool))[0]


def double_rounding_table(formats, *, n=2_000_000, seed=0, rounding="rne"):
    """Per format: how many of ``n`` scaled casts (Gaussian x of random spread, the current-scaling scale of
    each 4096-value tensor) differ between the RFC's ``cast(fp32(x * s))`` and a single rounding of the
    exact ``x * s`` (``cast(round_to_odd(x * s))``); rows ``dict(format, values, differ, example)``."""
    rng = np.random.default_rng(as_seed(seed, allow_none=False))
    rows = []
    for name in formats:
        fmt = get_format(name)
        bias = 16 if getattr(fmt, "runtime_bias", False) else None
        r = rounding if rounding in fmt.roundings else fmt.roundings[0]
        x = (rng.standard_normal((n // 4096, 4096)) * np.exp2(rng.uniform(-20, 20, (n // 4096, 1)))).astype(np.float32)
        s = scale_from_amax(amax(x, axis=1), fmt, bias=bias)[:, None]
        p, _ = fp32_mul(x, s)
        double = encode_with_flags(fmt, p, rounding=r, saturate=True, bias=bias)[0]
        single = encode_with_flags(fmt, round_to_odd_product(x, np.broadcast_to(s, x.shape)), rounding=r,
                                   saturate=True, bias=bias)[0]
        diff = np.flatnonzero((double != single).ravel())
        example = None
        if diff.size:
            i = diff[0]
            example = dict(x=float(x.ravel()[i]), scale=float(np.broadcast_to(s, x.shape).ravel()[i]),
                           double=int(double.ravel()[i]), single=int(single.ravel()[i]))
        rows.append(dict(format=fmt.name, rounding=r, values=int(x.size), differ=int(diff.size), example=example))
    return rows
