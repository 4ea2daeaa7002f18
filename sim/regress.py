"""One call from a unit configuration to a checked simulator run: build, stimulate, compare."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from amaranth import Shape
from amaranth.lib.wiring import In

from ..hw.generate import build_unit, default_name, to_verilog
from .cases import unit_case
from .run import run_case

__all__ = ["config_key", "default_lanes", "ports_of", "regress_unit", "stream_layouts"]


def ports_of(component) -> dict:
    """``{name: ("in"|"out", width)}`` of a combinational component."""
    return {name: ("in" if m.flow == In else "out", Shape.cast(m.shape).width)
            for name, m in component.signature.members.items()}


def stream_layouts(pipeline):
    """(input, output) payload layouts of a Pipeline as lists of (name, offset, width)."""
    def fields(layout):
        return [(name, f.offset, Shape.cast(f.shape).width) for name, f in layout]
    return fields(pipeline.i.p.shape()), fields(pipeline.o.p.shape())


def config_key(cfg) -> str:
    """A short stable name for a configuration (build directories)."""
    text = json.dumps({k: list(v) if isinstance(v, tuple) else v for k, v in sorted(cfg.items())})
    return hashlib.sha256(text.encode()).hexdigest()[:12]


#: Lanes of a combinational case when the caller does not choose: Icarus evaluates narrow lanes faster
#: (8 lanes ran FP32 encoders 1.3-1.7x faster than 64 on this project's machines); Verilator's run is
#: bound by cocotb's per-step cost (64 lanes), but its C++ compile grows with the lanes, so small cases
#: (decoders) build 16.
def default_lanes(sim, vectors):
    if sim == "icarus":
        return 8
    return 64 if vectors > 100_000 else 16


def regress_unit(cfg, sim, *, vectors=100_000, seed=1, build_root="build/sim", lanes=None, stream_vectors=None,
                 stall=0.3, biases=None):
    """Simulate the unit ``cfg`` (keywords of ``build_unit``) on ``sim`` against the golden model.

    Encoders get every (mode, sat) combination over all patterns of a 16-bit source, or ``vectors``
    random FP32 patterns plus directed corner cases; decoders every code. A run-time-bias format repeats
    the exhaustive and directed stimulus for each of ``biases`` (default ``DEFAULT_BIASES``; decoders of
    8-bit formats: all 64), every vector with its own bias on the ``bias`` port. Block encoders get the
    directed blocks plus ``vectors`` random blocks under every enabled rounding; block decoders ``vectors``
    blocks (encoded ones and random bit patterns). Stream units (latency ≥ 1) run ``stream_vectors``
    (default: all of them) with random stalls after an unstalled exact-latency
    phase.
    """
    unit = build_unit(**cfg)
    name = default_name(unit)
    verilog = to_verilog(unit, name)
    if cfg["unit"] == "encoder":
        case = unit_case(cfg, n_random=vectors, seed=seed, biases=biases)
    elif cfg["unit"] in ("block-encoder", "block-decoder"):
        case = unit_case(cfg, n_random=vectors, seed=seed)
    else:
        case = unit_case(cfg, biases=biases)
    if cfg["unit"].startswith("block-"):
        lanes = 1  # a block port is hundreds of bits wide: one unit, ports as Python ints
    build_dir = Path(build_root) / f"{name}-{config_key(cfg)}"
    if lanes is None:
        lanes = default_lanes(sim, case.size)
    if cfg.get("latency", 0) == 0:
        return run_case(sim, verilog, name, ports_of(unit), case, build_dir, kind="comb", lanes=lanes,
                        seed=seed, labels=case.labels)
    if stream_vectors is not None and stream_vectors < case.size:
        # Keep whole (mode, sat) blocks' prefixes: take the first stream_vectors of the case in order,
        # so generator draws stay aligned with the order values enter the unit.
        case.inputs = {k: v[:stream_vectors] for k, v in case.inputs.items()}
        case.expected = {k: v[:stream_vectors] for k, v in case.expected.items()}
    pin, pout = stream_layouts(unit)
    return run_case(sim, verilog, name, ports_of(unit.core), case, build_dir, kind="stream",
                    latency=unit.latency, seed=seed, labels=case.labels, payload_in=pin, payload_out=pout,
                    stall=stall)
