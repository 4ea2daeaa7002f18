"""Cases for the scaled encoder (``unit="scaled-encoder"``) and its FP32 multiplier, with golden expectations.

The scaled encoder's stimulus is a stream of *tensors* (1..24 transfers each, ``first`` = 1 on the first
transfer), each with one scale, one run-time bias (CFloat8/SHP), one (mode, sat) pair cycling through the
enabled ones, and one kind of data: Gaussian with σ = 2^U(-30, 30); uniform FP32/BF16 bit patterns (NaNs,
Infs, subnormals); the cast's directed corners (``sim.vectors.directed``) times ``2**-k`` under the scale
``2**k``, so that the product lands exactly on them; short significands whose products are FP32 ties; and
specials. Scales: the current-scaling scale of the tensor's own amax (``scale_from_amax``, pow2 for a pow2
unit), random FP32 normals, short-significand scales, and the hardware's documented bad scales (±0,
negative, NaN, ±Inf, subnormal, FLT_MAX). Expected outputs come from
:func:`fpforge.golden.scaling.scaled_encode_with_flags` and :func:`~fpforge.golden.scaling.running_amax`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..golden import ROUNDING_MODES, SOURCES, random_bits
from ..golden.layout import pack_lanes
from ..golden.rng import DEFAULT_RAND_BITS
from ..golden.scaling import (
    SCALE_EXP_BITS,
    SCALE_EXP_RANGE,
    amax,
    fp32_mul,
    pow2_mul,
    running_amax,
    scale_from_amax,
    scaled_encode_with_flags,
)
from .cases import UnitCase, unit_format
from .vectors import directed

__all__ = ["SPECIAL_SCALES", "multiplier_case", "regress_multiplier", "regress_scaled", "scaled_encoder_case",
           "scaled_stimulus"]

#: FP32 scale bit patterns the regressions always include: ±0, negative, NaN, ±Inf, subnormals, FLT_MAX, 1.
SPECIAL_SCALES = np.array([0x00000000, 0x80000000, 0xBFC00000, 0x7FC00000, 0x7F800001, 0x7F800000, 0xFF800000,
                           0x00000001, 0x00400000, 0x007FFFFF, 0x7F7FFFFF, 0x3F800000, 0x00800000],
                          dtype=np.uint32)


def _specials(src):
    """Special source patterns: ±0, ±Inf, NaNs, subnormals, ±max."""
    e = ((1 << src.ebits) - 1) << src.mbits
    mags = [0, e, e | 1, e | (1 << (src.mbits - 1)), 1, (1 << src.mbits) - 1, e - 1, 1 << src.mbits]
    return np.array(mags + [m | (1 << (src.bits - 1)) for m in mags], np.uint64)


def _short(rng, src, shape, ebits_lo, ebits_hi, keep):
    """Random patterns whose significands keep only their top ``keep`` mantissa bits (products that tie)."""
    sign = rng.integers(0, 2, shape).astype(np.uint64) << np.uint64(src.bits - 1)
    e = rng.integers(ebits_lo, ebits_hi, shape).astype(np.uint64) << np.uint64(src.mbits)
    drop = max(src.mbits - keep, 0)
    man = (rng.integers(0, 1 << src.mbits, shape).astype(np.uint64) >> np.uint64(drop)) << np.uint64(drop)
    return sign | e | man


def _to_source(values, src):
    with np.errstate(over="ignore"):
        return values.astype(np.float32).astype(src.dtype).view(np.uint32 if src.bits == 32 else np.uint16)


def scaled_stimulus(cfg, n, seed):
    """``(x_bits (n, lanes) uint64, scale (n,) FP32 bits or k, first (n,), bias (n,) or None, combo (n,))``;
    ``combo`` indexes the (mode, sat) pairs of the configuration, one per tensor."""
    fmt = unit_format(cfg)
    src = SOURCES[cfg.get("source", "fp32")]
    lanes, pow2 = cfg.get("lanes", 1), cfg.get("scaling", "fp32") == "pow2"
    rng = np.random.default_rng([seed, 16])
    lengths = rng.integers(1, 25, n)  # more than enough tensors
    tensor = np.repeat(np.arange(n), lengths)[:n]
    first = np.concatenate([[True], tensor[1:] != tensor[:-1]])
    nt = int(tensor[-1]) + 1
    bias = rng.integers(0, 64, nt) if fmt.runtime_bias else None
    data_kind = rng.choice(5, nt, p=[0.35, 0.2, 0.2, 0.15, 0.1])[tensor]
    scale_kind = rng.choice(4, nt, p=[0.45, 0.25, 0.15, 0.15])
    x = np.zeros((n, lanes), np.uint64)
    sigma = np.exp2(rng.uniform(-30, 30, nt))[tensor][:, None]
    x[:] = _to_source(rng.standard_normal((n, lanes)) * sigma, src)
    uni = rng.integers(0, 1 << src.bits, (n, lanes), dtype=np.uint64)
    x = np.where(data_kind[:, None] == 1, uni, x)
    x = np.where(data_kind[:, None] == 3, _short(rng, src, (n, lanes), src.bias - 60, src.bias + 60, 11), x)
    x = np.where(data_kind[:, None] == 4, rng.choice(_specials(src), (n, lanes)), x)
    # Directed corners of the cast, divided by the tensor's power-of-two scale 2**k2.
    k2 = rng.integers(-20, 21, nt)
    corners = {}
    for b in (np.unique(bias) if bias is not None else [None]):
        corners[b] = directed(fmt, src.name, bias=None if b is None else int(b))
    pick = np.zeros((n, lanes), np.uint64)
    for b, pats in corners.items():
        rows = np.ones(n, bool) if b is None else (bias[tensor] == b)
        pick[rows] = rng.choice(pats, (int(rows.sum()), lanes))
    with np.errstate(invalid="ignore"):
        vals = pick.astype(np.uint32 if src.bits == 32 else np.uint16).view(src.dtype).astype(np.float64)
        shifted = _to_source(np.ldexp(vals, -k2[tensor][:, None]), src).astype(np.uint64)
    x = np.where(data_kind[:, None] == 2, shifted, x)
    # Scales, one per tensor.
    xs = x.astype(np.uint32 if src.bits == 32 else np.uint16).view(src.dtype)
    peak = np.array([amax(xs[tensor == t]) for t in range(nt)], np.float32)
    cur = np.array([scale_from_amax(peak[t], fmt, pow2=pow2, bias=None if bias is None else int(bias[t]))
                    for t in range(nt)], np.float32)
    if pow2:
        k = np.frexp(cur.astype(np.float64))[1] - 1
        k = np.where(scale_kind == 1, rng.integers(SCALE_EXP_RANGE[0], SCALE_EXP_RANGE[1] + 1, nt), k)
        k = np.where(scale_kind >= 2, rng.integers(-40, 41, nt), k)
        k = np.where(data_kind[first] == 2, k2, k)
        return x, k[tensor].astype(np.int64), first, None if bias is None else bias[tensor], tensor
    s = cur.view(np.uint32).astype(np.uint64)
    s = np.where(scale_kind == 1, (rng.integers(127 - 60, 127 + 60, nt) << 23) | rng.integers(0, 1 << 23, nt), s)
    s = np.where(scale_kind == 2, _short(rng, SOURCES["fp32"], nt, 127 - 40, 127 + 40, 12) & 0x7FFFFFFF, s)
    s = np.where(scale_kind == 3, rng.choice(SPECIAL_SCALES, nt), s)
    s = np.where(data_kind[first] == 2, ((k2 + 127) << 23).astype(np.uint64), s)
    return x, s[tensor].astype(np.uint64), first, None if bias is None else bias[tensor], tensor


def _combos(cfg, fmt):
    roundings = cfg.get("rounding") or fmt.roundings[:1]
    roundings = (roundings,) if isinstance(roundings, str) else tuple(roundings)
    saturate = {False: "off", True: "on"}.get(cfg.get("saturate", False), cfg.get("saturate", False))
    sats = (0, 1) if saturate == "runtime" else ((1,) if saturate == "on" else (0,))
    return roundings, saturate, [(r, s) for r in roundings for s in sats]


def scaled_encoder_case(cfg, *, n_transfers=4000, seed=1):
    """A stream case for a ``scaled-encoder`` configuration (see the module docstring); ``sr`` draws are
    the unit's generator's, one per lane per transfer in order."""
    fmt = unit_format(cfg)
    src = SOURCES[cfg.get("source", "fp32")]
    lanes, pow2 = cfg.get("lanes", 1), cfg.get("scaling", "fp32") == "pow2"
    x_bits, scale, first, bias, tensor = scaled_stimulus(cfg, n_transfers, seed)
    roundings, saturate, combos = _combos(cfg, fmt)
    combo = (tensor % len(combos))
    n = n_transfers
    rand_bits = cfg.get("rand_bits", DEFAULT_RAND_BITS)
    rand = random_bits(cfg.get("seed", 0), n * lanes, rand_bits).astype(np.int64).reshape(n, lanes)
    x = x_bits.astype(np.uint32 if src.bits == 32 else np.uint16).view(src.dtype)
    kw = dict(scale_exp=scale[:, None]) if pow2 else dict(scale=scale.astype(np.uint32).view(np.float32)[:, None])
    if bias is not None:
        kw["bias"] = bias[:, None].astype(np.int64)
    codes = np.zeros((n, lanes), np.uint64)
    flags = np.zeros((n, lanes), np.uint64)
    for c, (r, s) in enumerate(combos):
        rows = combo == c
        if not rows.any():
            continue
        sub = {k: v[rows] for k, v in kw.items()}
        y, f = scaled_encode_with_flags(fmt, x[rows], rounding=r, saturate=bool(s),
                                        nan_to_zero=cfg.get("nan_to_zero", False),
                                        rand=rand[rows] if r == "sr" else None, rand_bits=rand_bits, **sub)
        codes[rows], flags[rows] = y, f
    case = UnitCase(labels=[(0, f"{int(tensor[-1]) + 1} tensors, (mode, sat) cycling over {combos}")])
    case.inputs = {"a": pack_lanes(x_bits, src.bits)}
    if pow2:
        case.inputs["scale_exp"] = (scale & ((1 << SCALE_EXP_BITS) - 1)).astype(np.uint64)
    else:
        case.inputs["scale"] = scale.astype(np.uint64)
    case.inputs["first"] = first.astype(np.uint64)
    if len(roundings) > 1:
        case.inputs["mode"] = np.array([ROUNDING_MODES[combos[c][0]] for c in combo], np.uint64)
    if saturate == "runtime":
        case.inputs["sat"] = np.array([combos[c][1] for c in combo], np.uint64)
    if bias is not None:
        case.inputs["bias"] = bias.astype(np.uint64)
    case.expected = {"y": pack_lanes(codes, fmt.bits), "flags": pack_lanes(flags, 5),
                     "amax": running_amax(x, first).view(np.uint32).astype(np.uint64)}
    return case


def multiplier_case(source="fp32", scaling="fp32", *, n_random=100_000, seed=1, exhaustive_scales=()):
    """A combinational case for :class:`fpforge.hw.scaling.Fp32Multiplier`.

    ``exhaustive_scales`` (FP32 bit patterns, or ``k`` for pow2): every BF16 pattern (as FP32 for an FP32
    source) times each of them; then ``n_random`` random pairs (half uniform bit patterns, half with
    exponents near each other's inverse so that products land in the subnormal, tie and overflow ranges)
    and every special operand against every special scale."""
    src = SOURCES[source]
    rng = np.random.default_rng([seed, 32])
    pats = np.arange(1 << 16, dtype=np.uint64)
    if src.bits == 32:
        pats <<= np.uint64(16)
    a_parts, s_parts = [], []
    for s in exhaustive_scales:
        a_parts.append(pats)
        s_parts.append(np.full(len(pats), s, np.int64 if scaling == "pow2" else np.uint64))
    # Random pairs: half uniform bit patterns; half aimed at a product exponent T near the FP32 subnormal
    # range, the overflow threshold or 1 (ties), with half of the significands short (exact products, ties).
    half = n_random // 2
    uni_a = rng.integers(0, 1 << src.bits, n_random - half, dtype=np.uint64)
    T = rng.choice(np.concatenate([np.arange(-152, -118), np.arange(118, 130), np.arange(-4, 5)]), half)
    ex = rng.integers(max(src.emin, -126), min(src.emax, 127) + 1, half)
    near_a = _short(rng, src, half, 1, 2, src.mbits) & ~np.uint64(src.exp_max_field << src.mbits)
    near_a |= (ex + src.bias).astype(np.uint64) << np.uint64(src.mbits)
    cut = rng.random(half) < 0.5
    near_a = np.where(cut, near_a & ~np.uint64((1 << max(src.mbits - 11, 0)) - 1), near_a)
    spec_a, spec_s = np.meshgrid(_specials(src), SPECIAL_SCALES.astype(np.uint64))
    a_parts += [uni_a, near_a, spec_a.ravel()]
    if scaling == "pow2":
        s_parts += [rng.integers(SCALE_EXP_RANGE[0], SCALE_EXP_RANGE[1] + 1, n_random - half),
                    np.clip(T - ex, *SCALE_EXP_RANGE), rng.integers(-160, 160, spec_a.size)]
    else:
        es = np.clip(T - ex, -126, 127)
        near_s = rng.integers(0, 1 << 23, half).astype(np.uint64) | ((es + 127).astype(np.uint64) << np.uint64(23))
        near_s = np.where(rng.random(half) < 0.5, near_s & ~np.uint64((1 << 11) - 1), near_s)
        s_parts += [rng.integers(0, 1 << 32, n_random - half, dtype=np.uint64), near_s, spec_s.ravel()]
    a = np.concatenate(a_parts)
    s = np.concatenate(s_parts)
    x = a.astype(np.uint32 if src.bits == 32 else np.uint16).view(src.dtype)
    if scaling == "pow2":
        y, f = pow2_mul(x, s)
        ins = {"a": a, "scale_exp": (s & ((1 << SCALE_EXP_BITS) - 1)).astype(np.uint64)}
    else:
        y, f = fp32_mul(x, s.astype(np.uint32).view(np.float32))
        ins = {"a": a, "scale": s}
    n_ex = len(exhaustive_scales) << 16
    labels = ([(0, "every BF16 pattern x each exhaustive scale")] if n_ex else []) + [(n_ex, "random and specials")]
    return UnitCase(inputs=ins, expected={"y": y.view(np.uint32).astype(np.uint64), "flags": f.astype(np.uint64)},
                    labels=labels)


def regress_scaled(cfg, sim, *, unit, name, verilog, vectors=4000, seed=1, build_root="build/sim", stall=0.3,
                   progress=None):
    """Run a scaled encoder's stream case (``vectors`` transfers) on ``sim``; returns a ``Result``."""
    from .ports import config_key, ports_of, stream_layouts
    from .run import run_case

    case = scaled_encoder_case(cfg, n_transfers=vectors, seed=seed)
    pin, pout = stream_layouts(unit)
    return run_case(sim, verilog, name, ports_of(unit.core), case, Path(build_root) / f"{name}-{config_key(cfg)}",
                    kind="stream", latency=unit.latency, seed=seed, labels=case.labels, payload_in=pin,
                    payload_out=pout, stall=stall, progress=progress)


def regress_multiplier(sim, source="fp32", scaling="fp32", *, build_root="build/sim", lanes=None, **kwargs):
    """Run :func:`multiplier_case` on the combinational multiplier under ``sim``; returns a ``Result``."""
    from ..hw.generate import to_verilog
    from ..hw.scaling import Fp32Multiplier
    from .ports import default_lanes, ports_of
    from .run import run_case

    unit = Fp32Multiplier(source, scaling)
    name = f"fpforge_mul_{source}_{scaling}"
    case = multiplier_case(source, scaling, **kwargs)
    lanes = lanes or default_lanes(sim, case.size)
    return run_case(sim, to_verilog(unit, name), name, ports_of(unit), case, Path(build_root) / name, kind="comb",
                    lanes=lanes, labels=case.labels)
