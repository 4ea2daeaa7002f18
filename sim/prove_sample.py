"""The bulk bit-exactness checks of ``make test`` on the prove harness (:mod:`fpforge.sim.harness`).

``make test`` checks every combinational encoder and decoder configuration of the cocotb regressions on
the Verilator C++ harness of ``fpforge prove`` (tens of millions of vectors per CPU-second, against
~10k/s for cocotb on Icarus), and keeps cocotb for a smoke run per configuration and simulator (ports,
testbench) and for what needs cycles (streams, stalls, latency).

What a unit is checked on (:func:`sample_segments`):

- a 16-bit source (FP16, BF16): every pattern, 2**16;
- an FP32 source: contiguous slices of the 2**32 patterns — :data:`CORNER_RADIUS` patterns either side
  of every directed corner of :func:`fpforge.sim.vectors.directed` (every value of the format and its
  ±1-ulp neighbours, every rounding midpoint — underflow and overflow thresholds among them —, binade
  edges, ±0, source subnormals, ±Inf, NaNs, ±max; for hybrid rounding also
  :func:`~fpforge.sim.vectors.tapered_thresholds`), plus :data:`SLICES` slices of :data:`SLICE_LEN`
  patterns at seeded random offsets, half over the whole domain and half with the exponent in the
  target's range (below the smallest subnormal to past the overflow threshold, random sign) — over
  140k patterns per (mode, sat) pair for every 8-bit format;
- a decoder: every code.

Every condition of the unit (:func:`fpforge.sim.prove_unit.conditions_of`: every (mode, sat) pair,
every bias) runs over the same patterns in one harness process; ``sr`` gets the golden generator's draws
as ``fpforge prove`` gives them (pattern ``i`` gets draw ``i`` of :data:`~fpforge.sim.prove.PROOF_SEED`),
and the draws the harness drove are checked against the golden generator.
"""

from __future__ import annotations

import numpy as np

from ..golden import SOURCES, random_bits
from ..golden.errors import FpforgeValueError, ToolError
from .harness import HarnessRun, build_harness
from .prove import PROOF_SEED, ProofGolden, ProofResult, ProofUnit
from .vectors import directed, tapered_thresholds

__all__ = ["CORNER_RADIUS", "SLICES", "SLICE_LEN", "check_unit", "describe", "sample_segments", "states_at"]

#: Patterns either side of each directed FP32 corner.
CORNER_RADIUS = 8
#: Scattered FP32 slices (half uniform over 2**32, half in the target's exponent range) and their length.
SLICES, SLICE_LEN = 256, 512


def _merge(starts, ends):
    order = np.argsort(starts, kind="stable")
    out = []
    for s, e in zip(starts[order].tolist(), ends[order].tolist()):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e - s) for s, e in out]


def sample_segments(cfg, *, seed=0) -> list:
    """``[(start, count), ...]``: the sorted, disjoint input slices the unit ``cfg`` is checked on (see the
    module docstring); the whole domain for 16-bit sources and decoders."""
    from .cases import unit_format
    from .prove_unit import prove_kind

    fmt = unit_format(cfg)
    if not prove_kind(cfg).encodes:
        return [(0, 1 << fmt.bits)]
    source = cfg.get("source", "fp32")
    if SOURCES[source].bits == 16:
        return [(0, 1 << 16)]
    if getattr(fmt, "runtime_bias", False):
        raise FpforgeValueError(f"sample_segments covers fixed-bias formats, not {fmt.name!r}")
    corners = [directed(fmt, source).astype(np.int64)]
    if "hr" in fmt.roundings:
        corners.append(tapered_thresholds(fmt, source, seed=seed).astype(np.int64))
    corners = np.concatenate(corners)
    rng = np.random.default_rng([seed, 32])
    half = SLICES // 2
    uniform = rng.integers(0, (1 << 32) - SLICE_LEN, half)
    exp = rng.integers(fmt.emin - fmt.mbits - 3, fmt.emax + 3, SLICES - half) + 127
    near = ((rng.integers(0, 2, SLICES - half) << 31) | (np.clip(exp, 0, 254) << 23)
            | rng.integers(0, (1 << 23) - SLICE_LEN, SLICES - half))
    starts = np.concatenate([np.clip(corners - CORNER_RADIUS, 0, None), uniform, near]).astype(np.int64)
    ends = np.concatenate([np.clip(corners + CORNER_RADIUS + 1, None, 1 << 32),
                           uniform + SLICE_LEN, near + SLICE_LEN]).astype(np.int64)
    return _merge(starts, ends)


def check_unit(unit: ProofUnit, segments, conditions=None, *, seed=PROOF_SEED) -> list:
    """Check ``unit`` on the input slices ``segments`` under each of ``conditions`` (default: all of the
    unit's) in one harness process, against the golden model.

    Returns
    -------
    list of ProofResult
        One per condition (``start``/``end``: the first and last slice), with ``vectors`` the patterns
        checked and the first mismatches.

    Raises
    ------
    ToolMissing, ToolError
        Verilator or the C++ compiler missing or failing; draws on ``rand`` not the golden generator's.
    """
    spec = unit.harness_spec
    exe = build_harness(spec)
    conditions = unit.conditions() if conditions is None else list(conditions)
    segments = [(int(s), int(n)) for s, n in segments]
    if not segments or any(n <= 0 or s < 0 or s + n > unit.domain for s, n in segments):
        raise FpforgeValueError(f"segments must be non-empty slices of 0..{unit.domain:#x}")
    cfg = unit.golden_cfg
    a = np.concatenate([np.arange(s, s + n, dtype=np.int64) for s, n in segments])
    draws, states = None, [0] * len(segments)
    if spec.rand_bits:
        all_states = states_at(seed, a)
        draws = all_states >> np.uint32(32 - spec.rand_bits)
        starts = np.cumsum([0] + [n for _, n in segments[:-1]])
        states = all_states[starts].tolist()
    fields = [(n, *spec.field(n)) for n, _ in spec.outputs]
    t = spec.record_dtype.type
    results = []
    plan = [(s, n, st, [c.port_value(p) for p in spec.fixed]) for c in conditions
            for (s, n), st in zip(segments, states)]
    with HarnessRun(exe, spec, plan) as run:
        for cond in conditions:
            golden = ProofGolden(cfg, spec, cond)
            out_mask = t((1 << golden.out_bits) - 1)
            res = ProofResult(unit.top, unit.origin, cond, unit.verilog_hash, segments[0][0], sum(segments[-1]))
            rec = run.read(len(a))
            exp = _expected(golden, a, draws)
            if draws is not None and not np.array_equal(rec >> t(golden.out_bits), draws.astype(rec.dtype)):
                raise ToolError(f"internal error: the harness of {unit.top} drove draws other than the golden "
                                f"generator's under {cond.label()}")
            bad = np.flatnonzero((rec & out_mask) != exp)
            res.vectors, res.mismatches = len(rec), len(bad)
            res.first = [{"a": int(a[i]), "expected": _unpack(exp[i], fields),
                          "actual": _unpack(rec[i] & out_mask, fields)} for i in bad[:10]]
            results.append(res)
    return results


def states_at(seed: int, idx) -> np.ndarray:
    """The golden generator's state for draw ``idx[k]`` of ``seed`` (``random_bits(seed, 1, 32, start=i)``),
    for many scattered indices at once: ``T**(i+1)`` applied bit by bit of ``i + 1`` from precomputed
    powers ``T**(2**k)`` (one table lookup pass per bit instead of one matrix power per index). Checked
    against :func:`fpforge.golden.random_bits` at the first, middle and last index."""
    from ..golden.rng import STEP_MATRIX, apply_matrix, compose_matrices, seed_state

    idx = np.asarray(idx, dtype=np.int64)
    e = (idx + 1).astype(np.uint64)
    out = np.full(len(idx), seed_state(seed), dtype=np.uint32)
    power = STEP_MATRIX.copy()
    for k in range(int(e.max()).bit_length() if len(e) else 0):
        sel = np.flatnonzero((e >> np.uint64(k)) & np.uint64(1))
        if len(sel):
            out[sel] = apply_matrix(power, out[sel])
        power = compose_matrices(power, power)
    for k in {0, len(idx) // 2, len(idx) - 1} if len(idx) else ():
        ref = int(random_bits(seed, 1, 32, start=int(idx[k]))[0])
        if int(out[k]) != ref:
            raise ToolError(f"internal error: generator state {int(out[k]):#x} at draw {int(idx[k])}, "
                            f"the golden generator gives {ref:#x}")
    return out


def _unpack(value, fields):
    return {n: (int(value) >> s) & ((1 << w) - 1) for n, s, w in fields}


def _expected(golden, a, draws):
    """Expected records of the patterns ``a`` (draws ``draws`` for ``sr``): one golden call per condition."""
    from ..golden import decode_bits, encode_with_flags

    if golden.encodes:
        rand = draws if golden.cond.mode == "sr" else None
        y, flags = encode_with_flags(golden.fmt, a.astype(golden.word).view(golden.src.dtype), rand=rand,
                                     **golden.kwargs)
        outs = {"y": y, "flags": flags}
    else:
        outs = {"y": decode_bits(golden.fmt, a.astype(golden.word), golden.cfg.get("target", "fp32"),
                                 **golden.kwargs)}
    t = golden.dtype.type
    rec = np.zeros(len(a), golden.dtype)
    for name, shift in golden.fields.items():
        rec |= outs[name].astype(golden.dtype) << t(shift)
    return rec


def describe(results) -> str:
    """One line per failing condition with its first mismatches (for an assertion message)."""
    return "\n".join(f"{r.unit} {r.condition.label()}: {r.mismatches} of {r.vectors} differ, first "
                     f"{r.first[:3]}" for r in results if r.mismatches or not r.vectors)
