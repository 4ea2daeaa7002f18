"""Wrap a combinational unit in an N-stage valid/ready stream pipeline (``amaranth.lib.stream``), or in
registers on every port (:class:`RegisteredIO`, the area method of seed 004)."""

from amaranth import Module, Shape, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..golden.checks import as_int, as_seed, describe
from ..golden.errors import FpforgeTypeError
from .checked import CheckedFirst
from .rng import Xorshift32
from .rounding import read_only
from .spec_fields import MAX_LATENCY


def _check_core(core, what):
    """``core`` is a combinational fpforge unit (an encoder, decoder, block or dot unit)."""
    if not isinstance(core, wiring.Component) or not callable(getattr(core, "describe", None)):
        raise FpforgeTypeError(f"{what} wraps a unit (an Encoder, Decoder, BlockEncoder, ... or DotProduct), not "
                               f"{describe(core)}")

__all__ = ["Pipeline", "RegisteredIO", "payload_layouts"]


def _layout(members):
    return data.StructLayout({name: member.shape for name, member in members})


def payload_layouts(members):
    """The (input, output) payload layouts of a :class:`Pipeline` around a core with signature members
    ``members``: the core's inputs except ``rand``, and its outputs (what a caller that needs only the
    stream's layouts reads, without building the stream)."""
    return (_layout([(n, m) for n, m in members.items() if m.flow == In and n != "rand"]),
            _layout([(n, m) for n, m in members.items() if m.flow == Out]))


class Pipeline(CheckedFirst, wiring.Component):
    """``core``'s inputs arrive as one stream payload, its outputs leave ``latency`` cycles later.

    The core is combinational; its result is registered and then passes ``latency - 1`` further register
    stages (left for retiming in the user's flow). All stages advance together unless the output holds
    a value that is not taken (``o.valid & ~o.ready``): one value per cycle when not stalled, result
    exactly ``latency`` cycles after its input. ``valid`` never depends on ``ready``.

    A core with a ``rand`` port gets its own :class:`Xorshift32` seeded with ``seed``, stepped once per
    accepted input, so value ``i`` uses draw ``i`` as in the golden model. A core that rounds several
    values per input (a block encoder) says how many with a ``rand_draws`` attribute (D): its ``rand`` port
    is D draws wide and input ``b`` takes draws ``b*D .. b*D + D - 1``, lane ``j`` draw ``b*D + j``.

    Parameters
    ----------
    core : wiring.Component
        Combinational unit with plain ``In``/``Out`` ports.
    latency : int
        Number of register stages, at least 1.
    seed : int
        Generator seed for cores with ``rand``.

    Members
    -------
    i : In(stream.Signature(StructLayout of the core's inputs except ``rand``))
    o : Out(stream.Signature(StructLayout of the core's outputs))
    """

    @classmethod
    def _checked(cls, core, latency=1, seed=0):
        _check_core(core, "Pipeline")
        latency = as_int(latency, "a pipeline's latency", 1, MAX_LATENCY)
        seed = as_seed(seed, allow_none=False)  # (never int(seed): 1.5 is no seed)
        return core, latency, seed

    def __init__(self, core, latency=1, seed=0):
        core, latency, seed = self._checked_args  # (checked in __new__: CheckedFirst)
        self._core, self._latency, self._seed = core, latency, seed
        members = core.signature.members
        ins = [(n, m) for n, m in members.items() if m.flow == In and n != "rand"]
        outs = [(n, m) for n, m in members.items() if m.flow == Out]
        self._rand_draws = getattr(core, "rand_draws", 1)
        self._rand_bits = Shape.cast(members["rand"].shape).width // self._rand_draws if "rand" in members else 0
        super().__init__({
            "i": In(stream.Signature(_layout(ins))),
            "o": Out(stream.Signature(_layout(outs))),
        })

    latency = read_only("_latency")
    core = read_only("_core")
    seed = read_only("_seed")

    def describe(self):
        text = f"{self._core.describe()}, stream latency {self._latency}"
        return text + (f", seed {self._seed}" if self._rand_bits else "")

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = self._core
        members = core.signature.members
        for name, member in members.items():
            if member.flow == In and name != "rand":
                m.d.comb += getattr(core, name).eq(getattr(self.i.p, name))

        advance = Signal()
        m.d.comb += [advance.eq(~self.o.valid | self.o.ready), self.i.ready.eq(advance)]

        if self._rand_bits:
            m.submodules.rng = rng = Xorshift32(self._seed, self._rand_bits, self._rand_draws)
            m.d.comb += [core.rand.eq(rng.rand), rng.en.eq(self.i.valid & self.i.ready)]

        layout = self.o.p.shape()
        valid = [Signal(name=f"s{k}_valid") for k in range(self._latency)]
        payload = [Signal(layout, name=f"s{k}_payload") for k in range(self._latency)]
        with m.If(advance):
            m.d.sync += valid[0].eq(self.i.valid)
            for name, member in members.items():
                if member.flow == Out:
                    m.d.sync += getattr(payload[0], name).eq(getattr(core, name))
            for k in range(1, self._latency):
                m.d.sync += [valid[k].eq(valid[k - 1]), payload[k].eq(payload[k - 1])]
        m.d.comb += [self.o.valid.eq(valid[-1]), self.o.p.eq(payload[-1])]
        return m


class RegisteredIO(CheckedFirst, wiring.Component):
    """A combinational component with every input and every output registered (free-running, no enable):
    the area method of seed 004 §IV-B ("only inputs and outputs registered"), so that a synthesized unit
    counts the flip-flops that hold its operands and result, as the paper's areas do. Same ports as the
    core; results two cycles after their operands.

    Parameters
    ----------
    core : wiring.Component
        Combinational unit with plain ``In``/``Out`` ports (e.g. ``DotProduct(..., stages=0)``).
    """

    @classmethod
    def _checked(cls, core):
        _check_core(core, "RegisteredIO")
        return core

    def __init__(self, core):
        self._core = core  # (checked in __new__: CheckedFirst)
        super().__init__({name: (In if m.flow == In else Out)(m.shape)
                          for name, m in core.signature.members.items()})

    @property
    def core(self):
        return self._core

    @property
    def latency(self) -> int:
        return 2

    def describe(self):
        return f"{self._core.describe()}; inputs and outputs registered (the area method of seed 004)"

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = self._core
        for name, member in core.signature.members.items():
            port, inner = getattr(self, name), getattr(core, name)
            reg = Signal(member.shape, name=f"r_{name}")
            if member.flow == In:
                m.d.sync += reg.eq(port)
                m.d.comb += inner.eq(reg)
            else:
                m.d.sync += reg.eq(inner)
                m.d.comb += port.eq(reg)
        return m
