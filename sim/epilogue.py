"""Cases for a dot-product unit with the FP8 RFC's epilogue (``unit="dot"`` with ``scale``/``amax``/``out_format``),
with golden expectations from :func:`fpforge.golden.scaling.epilogue` on the golden dot product's results.

The operands are the plain dot unit's (:func:`fpforge.sim.cases.dot_case`: the directed dot products — zeros,
cancellation, window edges, the FP32 subnormal boundary, largest magnitudes, NaN/Inf — then random ones). They
are cut into *tensors* of 1..24 transfers (``first`` = 1 on a tensor's first transfer), each with one set of
scales and, for a run-time-bias output format, one bias. Scales per tensor: current scaling (``inv_scale_out``
from the amax of the tensor's own ``fp32(r * s_ab)`` and the output format's largest value, margin 0 or 1, so
that results land at the top of the format and the cast saturates), random FP32 normals, powers of two,
short-significand scales (ties), scales whose combined ``c`` makes ``r * c`` overflow or underflow, and the
hardware's out-of-contract scales (±0, negative, NaN, ±Inf, subnormal, FLT_MAX: ``epilogue`` refuses them;
the expectation is then its formula, ``fp32_mul`` then ``encode_with_flags``, which the unit computes for any
FP32 bits). The amax expectation is :func:`~fpforge.golden.scaling.running_amax` of ``fp32(r * s_ab)``.
"""

from __future__ import annotations

import numpy as np

from ..golden.errors import FpforgeValueError
from ..golden.formats import get_format
from ..golden.minifloat import encode_with_flags
from ..golden.scaling import epilogue, fp32_mul, running_amax, scale_from_amax
from .cases import dot_case

__all__ = ["epilogue_case"]

#: Out-of-contract FP32 scale bit patterns (the unit computes its formula for them; ``epilogue`` refuses them).
BAD_SCALES = np.array([0x00000000, 0x80000000, 0xBF800000, 0x7FC00000, 0x7F800000, 0xFF800000, 0x00000001,
                       0x007FFFFF, 0x7F7FFFFF], np.uint32)


def _f32(bits):
    return np.asarray(bits, np.uint32).view(np.float32)


def _random_scales(rng, lo, hi, keep=23):
    """Three positive FP32 normals 2**U(lo, hi) with ``keep`` random mantissa bits."""
    e = rng.integers(lo, hi + 1, 3) + 127
    man = (rng.integers(0, 1 << 23, 3) >> (23 - keep)) << (23 - keep)
    return _f32((e << 23) | man)


def _formula(r, sa, sb, so, fmt, rounding, saturate, bias, scale):
    """What the unit computes for any FP32 scale bits (``epilogue``'s formula without its argument checks)."""
    if scale:
        s_ab = fp32_mul(sa, sb)[0]
        y, flags = fp32_mul(r, fp32_mul(s_ab, so)[0])
    else:
        y, flags = r.copy(), np.zeros(len(r), np.uint8)
    codes = None
    if fmt is not None:
        codes, cf = encode_with_flags(fmt, y, rounding=rounding, saturate=saturate, bias=bias)
        flags = flags | cf
    return y, codes, flags


def epilogue_case(cfg, *, n_random=2_000, seed=1, directed=True, max_tensor=24):
    """The stream (or combinational) case of a dot configuration with an epilogue (module docstring)."""
    opt_scale, opt_amax = bool(cfg.get("scale")), bool(cfg.get("amax"))
    fmt = None if cfg.get("out_format") is None else get_format(cfg["out_format"])
    rounding = cfg.get("rounding")
    rounding = rounding[0] if isinstance(rounding, (tuple, list)) else rounding
    rounding = rounding or (fmt.roundings[0] if fmt is not None else None)
    saturate = cfg.get("saturate", True) not in (False, "off")
    case = dot_case(cfg, n_random=n_random, seed=seed, directed=directed)
    n = case.size
    r = _f32(case.expected["y"].astype(np.uint32))
    rng = np.random.default_rng([seed, 216])
    lengths = rng.integers(1, max_tensor + 1, n)
    tensor = np.repeat(np.arange(n), lengths)[:n]
    first = np.concatenate([[True], tensor[1:] != tensor[:-1]])
    nt = int(tensor[-1]) + 1
    kinds = rng.choice(6, nt, p=[0.3, 0.15, 0.15, 0.1, 0.15, 0.15])
    bias = rng.integers(0, 64, nt) if fmt is not None and fmt.runtime_bias else None
    top = get_format(fmt.name) if fmt is not None else get_format("e4m3")
    scales = np.ones((n, 3), np.float32)
    y = np.zeros(n, np.float32)
    codes = np.zeros(n, np.uint64)
    flags = np.zeros(n, np.uint64)
    s_ab_t = np.ones(n, np.float32)
    bad = 0
    for t in range(nt):
        rows = np.nonzero(tensor == t)[0]
        rt = r[rows]
        b = None if bias is None else int(bias[t])
        k = kinds[t]
        if not opt_scale:
            sa = sb = so = np.float32(1.0)
        elif k == 0:  # current scaling of the output: F_MAX * 2**-margin / amax(fp32(r * s_ab))
            sa, sb, _ = _random_scales(rng, -12, 12)
            s_ab = fp32_mul(sa, sb)[0]
            peak = np.abs(fp32_mul(rt, s_ab)[0]).max(initial=0)
            so = np.float32(scale_from_amax(peak, top, margin=int(rng.integers(0, 2)),
                                            bias=b if top.runtime_bias else None))
        elif k == 1:
            sa, sb, so = _random_scales(rng, -40, 40)
        elif k == 2:  # powers of two
            sa, sb, so = _random_scales(rng, -40, 40, keep=0)
        elif k == 3:  # short significands: products that tie
            sa, sb, so = _random_scales(rng, -30, 30, keep=int(rng.integers(1, 6)))
        elif k == 4:  # r * c overflows (c ~ 2**100) or underflows (c ~ 2**-120) while s_ab and c stay FP32
            over = rng.random() < 0.5
            sa, sb, _ = _random_scales(rng, 20, 31) if over else _random_scales(rng, -31, -20)
            e = int(np.frexp(np.float64(fp32_mul(sa, sb)[0]))[1]) - 1
            target = int(rng.integers(95, 127) if over else rng.integers(-140, -100))
            so = np.float32(np.ldexp(1 + int(rng.integers(0, 1 << 23)) / 2**23, target - e))
        else:  # out of contract: one of the three from BAD_SCALES
            sa, sb, so = _random_scales(rng, -20, 20)
            which = int(rng.integers(0, 3))
            vals = [sa, sb, so]
            vals[which] = _f32(rng.choice(BAD_SCALES))
            sa, sb, so = vals
        try:
            res = epilogue(rt, sa, sb, so, fmt, rounding=rounding, saturate=saturate, bias=b)
            yt, ct, ft = res.y, res.codes, res.flags
        except FpforgeValueError:
            if not opt_scale:
                raise
            bad += 1
            yt, ct, ft = _formula(rt, sa, sb, so, fmt, rounding, saturate, b, True)
        scales[rows] = (sa, sb, so)
        s_ab_t[rows] = fp32_mul(sa, sb)[0]
        y[rows] = yt
        flags[rows] = ft
        if ct is not None:
            codes[rows] = ct
    case.labels = [(s, f"{text}; {nt} tensors, {bad} with out-of-contract scales") for s, text in case.labels]
    if opt_scale:
        for j, name in enumerate(("scale_a", "scale_b", "inv_scale_out")):
            case.inputs[name] = scales[:, j].view(np.uint32).astype(np.uint64)
    if opt_amax:
        case.inputs["first"] = first.astype(np.uint64)
    if bias is not None:
        case.inputs["bias"] = bias[tensor].astype(np.uint64)
    case.expected["y"] = y.view(np.uint32).astype(np.uint64)
    if fmt is not None:
        case.expected["code"] = codes
    if opt_scale or fmt is not None:
        case.expected["flags"] = flags
    if opt_amax:
        m = fp32_mul(r, s_ab_t)[0] if opt_scale else r
        case.expected["amax"] = running_amax(m[:, None], first).view(np.uint32).astype(np.uint64)
    return case
