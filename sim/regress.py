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

__all__ = ["config_key", "ports_of", "regress_unit", "stream_layouts"]


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


def regress_unit(cfg, sim, *, vectors=100_000, seed=1, build_root="build/sim", lanes=64, stream_vectors=None,
                 stall=0.3):
    """Simulate the unit ``cfg`` (keywords of ``build_unit``) on ``sim`` against the golden model.

    Encoders get every (mode, sat) combination over all patterns of a 16-bit source, or ``vectors``
    random FP32 patterns plus directed corner cases; decoders every code. Block encoders get the directed
    blocks plus ``vectors`` random blocks under every enabled rounding; block decoders ``vectors`` blocks
    (encoded ones and random bit patterns). Stream units (latency ≥ 1)
    run ``stream_vectors`` (default: all of them) with random stalls after an unstalled exact-latency
    phase.
    """
    unit = build_unit(**cfg)
    name = default_name(unit)
    verilog = to_verilog(unit, name)
    if cfg["unit"] in ("encoder", "block-encoder", "block-decoder"):
        case = unit_case(cfg, n_random=vectors, seed=seed)
    else:
        case = unit_case(cfg)
    if cfg["unit"].startswith("block-"):
        lanes = 1  # a block port is hundreds of bits wide: one unit, ports as Python ints
    build_dir = Path(build_root) / f"{name}-{config_key(cfg)}"
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
