"""The random-bit generator for stochastic rounding, as gateware (twin of ``fpforge.golden.rng``)."""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..golden import rng as golden_rng

__all__ = ["Xorshift32"]


class Xorshift32(wiring.Component):
    """xorshift32 (13, 17, 5) whose top bits feed an encoder's ``rand`` port.

    Parameters
    ----------
    seed : int
        Seed, as for ``fpforge.golden.encode(..., seed=...)``; the state resets to ``T(s0)``.
    bits : int
        R, the width of ``rand``.

    Members
    -------
    en : In(1)
        Step the generator at the next clock edge (one step per value consumed).
    rand : Out(bits)
        Top ``bits`` bits of the current state: draw ``i`` while ``i`` steps have been taken.
    """

    def __init__(self, seed=0, bits=golden_rng.DEFAULT_RAND_BITS):
        if not 1 <= bits <= 32:
            raise ValueError(f"bits must be in 1..32, not {bits!r}")
        self._seed = int(seed)
        self._bits = bits
        super().__init__({"en": In(1), "rand": Out(bits)})

    @property
    def seed(self):
        return self._seed

    def elaborate(self, platform):
        m = Module()
        state = Signal(32, init=golden_rng.rng_reset_state(self._seed))
        s1 = Signal(32)
        s2 = Signal(32)
        s3 = Signal(32)
        m.d.comb += [
            s1.eq(state ^ (state << 13)[:32]),
            s2.eq(s1 ^ (s1 >> 17)),
            s3.eq(s2 ^ (s2 << 5)[:32]),
            self.rand.eq(state[32 - self._bits :]),
        ]
        with m.If(self.en):
            m.d.sync += state.eq(s3)
        return m
