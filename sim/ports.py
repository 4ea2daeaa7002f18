"""What a regression's harness needs to know about a unit besides its stimulus: its ports, the payload
layouts of a stream unit, the key of its build directory, and how many lanes a combinational case drives.
Used by :mod:`fpforge.sim.regress` (which re-exports them), :mod:`fpforge.sim.scaling` and the prover."""

from __future__ import annotations

from amaranth import Shape
from amaranth.lib.wiring import In

from ..hw.spec import as_spec

__all__ = ["config_key", "default_lanes", "payload_fields", "ports_of", "stream_layouts"]


def ports_of(component) -> dict:
    """``{name: ("in"|"out", width)}`` of a combinational component."""
    return {name: ("in" if m.flow == In else "out", Shape.cast(m.shape).width)
            for name, m in component.signature.members.items()}


def payload_fields(layout):
    """A payload layout as a list of (name, offset, width)."""
    return [(name, f.offset, Shape.cast(f.shape).width) for name, f in layout]


def stream_layouts(pipeline):
    """(input, output) payload layouts of a Pipeline as lists of (name, offset, width)."""
    return payload_fields(pipeline.i.p.shape()), payload_fields(pipeline.o.p.shape())


def config_key(cfg) -> str:
    """A short stable name for a unit (a spec or a keyword dict; build directories): its spec's key."""
    return as_spec(cfg).key


#: Lanes of a combinational case when the caller does not choose: Icarus evaluates narrow lanes faster
#: (8 lanes ran FP32 encoders 1.3-1.7x faster than 64 on this project's machines); Verilator's run is
#: bound by cocotb's per-step cost (64 lanes), but its C++ compile grows with the lanes, so small cases
#: (decoders) build 16.
def default_lanes(sim, vectors):
    if sim == "icarus":
        return 8
    return 64 if vectors > 100_000 else 16
