"""One call from a unit configuration to a checked simulator run: build, stimulate, compare."""

from __future__ import annotations

import hashlib
from pathlib import Path

from amaranth import Shape

from ..golden.checks import as_int
from ..golden.errors import FpforgeValueError
from ..golden.formats import get_format
from ..hw.generate import build_unit, default_name, to_verilog
from ..hw.spec import BlockDecoderSpec, BlockEncoderSpec, DecoderSpec, DotSpec, EncoderSpec, ScaledEncoderSpec, as_spec
from ..jobs import cache_dir
from .cases import unit_case
from .ports import config_key, default_lanes, ports_of, stream_layouts
from .run import SIMULATORS, SimulatorMissing, run_case

__all__ = ["DEFAULT_VECTORS", "MAX_VECTORS", "config_key", "default_lanes", "default_vectors", "exhaustive",
           "ports_of", "regress_bundle", "regress_unit", "resolve_vectors", "stream_layouts"]

#: Random vectors a regression draws when the caller gives none, by simulator and unit: FP32 operands per
#: (rounding, saturation) pair of an FP32-source encoder, blocks of a block unit, dot products of a dot unit
#: (directed cases come on top). Sized so that every ``fpforge sim`` command of the README finishes in
#: under 2 minutes on a 2-core machine, build included (docs/sim.md has the measured times). 16-bit
#: sources and decoders are exhaustive and take no count. Long runs: ``--vectors N`` or ``make regress``.
DEFAULT_VECTORS = {
    "verilator": {"encoder": 100_000, "block-encoder": 20_000, "block-decoder": 20_000, "dot": 20_000,
                  "scaled-encoder": 10_000},
    "icarus": {"encoder": 20_000, "block-encoder": 1_000, "block-decoder": 2_000, "dot": 1_000,
               "scaled-encoder": 10_000},
}
#: Most random vectors one regression takes (memory of the case arrays: ~100 bytes per vector and pair).
MAX_VECTORS = 10_000_000


def exhaustive(cfg) -> bool:
    """The unit's stimulus is every input pattern (decoders, encoders of 16-bit sources): no vector count."""
    spec = as_spec(cfg)
    return isinstance(spec, DecoderSpec) or (isinstance(spec, EncoderSpec) and spec.source != "fp32")


def default_vectors(cfg, sim) -> int | None:
    """:data:`DEFAULT_VECTORS` for the unit of ``cfg`` on ``sim`` (None for an exhaustive unit)."""
    if exhaustive(cfg):
        return None
    return DEFAULT_VECTORS[sim][as_spec(cfg).unit]


def resolve_vectors(cfg, sim, vectors) -> int | None:
    """The random vector count a regression of ``cfg`` on ``sim`` uses: ``vectors`` checked (1..MAX_VECTORS;
    an exhaustive unit takes none), or the default."""
    if sim not in SIMULATORS:
        raise SimulatorMissing(f"unknown simulator {sim!r}; valid: {', '.join(SIMULATORS)}")
    if vectors is None:
        return default_vectors(cfg, sim)
    spec = as_spec(cfg)
    if exhaustive(spec):
        what = "every code" if isinstance(spec, DecoderSpec) else f"all {1 << get_format(spec.source).bits:,} " \
                                                                  f"{spec.source} patterns"
        raise FpforgeValueError(f"a {spec.unit} of {spec.descriptor.name} is checked on {what}: vectors (--vectors) "
                                "applies to FP32-source encoders, block and dot units")
    return as_int(vectors, "vectors", 1, MAX_VECTORS)


def regress_unit(cfg, sim, *, vectors=None, seed=1, build_root=None, lanes=None, stream_vectors=None,
                 stall=0.3, biases=None, directed=True, progress=None, smoke=None, design=None):
    """Simulate the unit ``cfg`` (a spec, :mod:`fpforge.hw.spec`, or a dict of ``build_unit`` keywords) on
    ``sim`` against the golden model.

    Encoders get every (mode, sat) combination over all patterns of a 16-bit source, or ``vectors``
    random FP32 patterns plus directed corner cases; decoders every code. A run-time-bias format repeats
    the exhaustive and directed stimulus for each of ``biases`` (default ``DEFAULT_BIASES``; decoders of
    8-bit formats: all 64), every vector with its own bias on the ``bias`` port. Block encoders get the
    directed blocks plus ``vectors`` random blocks under every enabled rounding; block decoders ``vectors``
    blocks (encoded ones and random bit patterns). Stream units (latency ≥ 1) run ``stream_vectors``
    (default: all of them) with random stalls after an unstalled exact-latency phase. Dot units
    (``unit="dot"``) get the directed dot products (unless ``directed`` is False) and ``vectors`` random
    ones; ``stages`` >= 1 runs as a stream. Scaled encoders (``unit="scaled-encoder"``) run ``vectors``
    transfers of :func:`fpforge.sim.scaling.scaled_encoder_case` with stalls.

    ``smoke=N`` gives a fixed-bias encoder, of any source, :func:`fpforge.sim.vectors.smoke_stimulus`'s ``N``
    patterns (corners and random) per (mode, sat) pair instead (the bulk check is the prove harness, ``make test``).

    ``vectors`` defaults to :func:`default_vectors` (per simulator); builds live under ``build_root``
    (default ``fpforge.jobs.cache_dir("sim")``), one directory per spec (``<module>-<spec.key>``),
    reused while the spec is the same. ``progress(done, total)`` is called as vectors complete.

    ``design`` (a :class:`fpforge.sim.userdesign.UserDesign`) simulates a user's Verilog or VHDL instead of
    the generated unit, with the same stimulus and checks (``sim="ghdl"`` for VHDL); the result's ``top``
    is the design's, its ``notes`` say which ports are mapped, not driven or not checked.
    """
    spec = as_spec(cfg)
    if design is not None:
        from .userdesign import check_design_run

        check_design_run(spec.as_options(), sim, design, smoke)
    elif sim == "ghdl":
        raise FpforgeValueError("ghdl runs a user's VHDL design (design=UserDesign(files, 'vhdl')); fpforge's units "
                                "are Verilog: verilator or icarus")
    vectors = resolve_vectors(spec, "icarus" if sim == "ghdl" else sim, vectors)  # GHDL runs at Icarus' pace
    build_root = cache_dir("sim") if build_root is None else build_root
    unit = build_unit(spec)
    name = default_name(unit)
    verilog = to_verilog(unit, name)
    run = dict(sim=sim, unit=unit, name=name, verilog=verilog, vectors=vectors, seed=seed, build_root=build_root,
               lanes=lanes, stream_vectors=stream_vectors, stall=stall, biases=biases, directed=directed,
               progress=progress, smoke=smoke, design=design)
    return _REGRESS[type(spec)](spec, **run)


def _regress_scaled(spec, *, sim, unit, name, verilog, vectors, seed, build_root, stall, progress, **_):
    from .scaling import regress_scaled

    return regress_scaled(spec.as_options(), sim, unit=unit, name=name, verilog=verilog, vectors=vectors, seed=seed,
                          build_root=build_root, stall=stall, progress=progress)


def _encoder_case(spec, *, vectors, seed, biases, smoke, **_):
    if smoke is None:
        return unit_case(spec, n_random=vectors or 0, seed=seed, biases=biases)
    from .vectors import smoke_stimulus

    stim = smoke_stimulus(spec.descriptor, spec.source, smoke, seed)
    return unit_case(spec, seed=seed, biases=biases, stim=stim)


def _block_case(spec, *, vectors, seed, **_):
    return unit_case(spec, n_random=vectors, seed=seed)


def _decoder_case(spec, *, biases, **_):
    return unit_case(spec, biases=biases)


def _regressor(make_case, lanes1=False):
    """A regression of a conversion unit whose case ``make_case`` builds; ``lanes1``: block ports are hundreds of
    bits wide, so one unit, ports as Python ints."""
    return lambda spec, **run: _regress_case(spec, make_case(spec, **run), **dict(run, lanes=1 if lanes1 else
                                                                                 run["lanes"]))


def _regress_case(spec, case, *, sim, unit, name, verilog, seed, build_root, lanes, stream_vectors, stall, progress,
                  design=None, **_):
    cfg = spec.as_options()
    build_dir = Path(build_root) / f"{name}-{spec.key}"
    if lanes is None:
        lanes = default_lanes(sim, case.size)
    if design is not None:
        from .userdesign import run_design

        return run_design(design, sim, unit, case, Path(build_root), spec, lanes=lanes, seed=seed, stall=stall,
                          stream_vectors=stream_vectors, progress=progress)
    if cfg.get("latency", 0) == 0:
        return run_case(sim, verilog, name, ports_of(unit), case, build_dir, kind="comb", lanes=lanes,
                        seed=seed, labels=case.labels, progress=progress)
    if stream_vectors is not None and stream_vectors < case.size:
        # Keep whole (mode, sat) blocks' prefixes: take the first stream_vectors of the case in order,
        # so generator draws stay aligned with the order values enter the unit.
        case.inputs = {k: v[:stream_vectors] for k, v in case.inputs.items()}
        case.expected = {k: v[:stream_vectors] for k, v in case.expected.items()}
    pin, pout = stream_layouts(unit)
    return run_case(sim, verilog, name, ports_of(unit.core), case, build_dir, kind="stream",
                    latency=unit.latency, seed=seed, labels=case.labels, payload_in=pin, payload_out=pout,
                    stall=stall, progress=progress)


def _regress_dot(spec, *, sim, unit, name, verilog, vectors, seed, build_root, stall, directed, progress, **_):
    from .cases import dot_case

    cfg = spec.as_options()
    if unit.epilogue.enabled:
        from .epilogue import epilogue_case

        case = epilogue_case(cfg, n_random=vectors, seed=seed, directed=directed)
    else:
        case = dot_case(cfg, n_random=vectors, seed=seed, directed=directed)
    build_dir = Path(build_root) / f"{name}-{spec.key}"
    if unit.stages == 0:
        return run_case(sim, verilog, name, ports_of(unit), case, build_dir, kind="comb", lanes=1, seed=seed,
                        labels=case.labels, progress=progress)
    ports = {n: ("in", Shape.cast(s).width) for n, s in unit.input_ports.items()}
    ports.update({n: ("out", Shape.cast(s).width) for n, s in unit.output_ports.items()})
    pin, pout = stream_layouts(unit)
    return run_case(sim, verilog, name, ports, case, build_dir, kind="stream", latency=unit.latency, seed=seed,
                    labels=case.labels, payload_in=pin, payload_out=pout, stall=stall, progress=progress)


#: How each spec class is regressed (the one table from a unit's kind to its run; no ``cfg["unit"]`` switches).
_REGRESS = {
    EncoderSpec: _regressor(_encoder_case),
    DecoderSpec: _regressor(_decoder_case),
    BlockEncoderSpec: _regressor(_block_case, lanes1=True),
    BlockDecoderSpec: _regressor(_block_case, lanes1=True),
    DotSpec: _regress_dot,
    ScaledEncoderSpec: _regress_scaled,
}


def regress_bundle(cfgs, sim, *, vectors=20_000, seed=1, build_root=None, stall=0.3, directed=True):
    """Simulate several dot units (``unit="dot"`` configurations with the same operand formats, r and
    stages, e.g. f = 16 and f = 32) in one model sharing one input stream (:mod:`fpforge.sim.bundle`),
    each checked against its own golden results on the same operands; returns one :class:`Result`."""
    from .bundle import bundle_wrapper
    from .cases import dot_bundle_case

    build_root = cache_dir("sim") if build_root is None else build_root
    specs = [as_spec(c) for c in cfgs]
    cfgs = [s.as_options() for s in specs]
    units = [build_unit(s) for s in specs]
    names = [default_name(u) for u in units]
    if len({u.latency for u in units}) != 1 or units[0].latency < 1:
        raise FpforgeValueError("bundled units must be streams with the same number of stages")
    pin, _ = stream_layouts(units[0])
    parts, pout, offset = [], [], 0
    for k, (u, n) in enumerate(zip(units, names)):
        uin, uout = stream_layouts(u)
        if uin != pin[: len(uin)]:
            raise FpforgeValueError(f"{n}: its input payload {uin} is not a prefix of {names[0]}'s {pin}")
        w_in = sum(w for _, _, w in uin)
        w_out = sum(w for _, _, w in uout)
        pout += [(f"u{k}_{field}", offset + off, w) for field, off, w in uout]
        parts.append((n, w_in, w_out))
        offset += w_out
    pout.append(("desync", offset, 1))
    top = f"fpforge_bundle_{hashlib.sha256(' '.join(s.sha256 for s in specs).encode()).hexdigest()[:12]}"
    verilog = "".join(to_verilog(u, n) for u, n in zip(units, names)) + bundle_wrapper(top, parts)
    case = dot_bundle_case(cfgs, n_random=vectors, seed=seed, directed=directed)
    ports = {n: ("in", w) for n, _, w in pin}
    ports.update({n: ("out", w) for n, _, w in pout})
    return run_case(sim, verilog, top, ports, case, Path(build_root) / top, kind="stream",
                    latency=units[0].latency, seed=seed, labels=case.labels, payload_in=pin, payload_out=pout,
                    stall=stall)
