"""The random-bit generator for stochastic rounding, as gateware (twin of ``fpforge.golden.rng``)."""

from amaranth import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..golden import rng as golden_rng
from ..golden.checks import as_int, as_seed
from .checked import CheckedFirst

__all__ = ["Xorshift32"]


class Xorshift32(CheckedFirst, wiring.Component):
    """xorshift32 (13, 17, 5) whose top bits feed an encoder's ``rand`` port.

    Parameters
    ----------
    seed : int
        Seed, as for ``fpforge.golden.encode(..., seed=...)``; the state resets to ``T(s0)``.
    bits : int
        R, the width of each draw.
    draws : int
        D, draws offered per step (a block encoder rounds ``k1`` elements per transfer). Lane ``j`` of
        ``rand`` (bits ``j*R .. j*R+R-1``) is the top ``R`` bits of ``T**j(state)``; ``en`` advances the state
        by ``T**D``. So after ``b`` steps lane ``j`` carries draw ``b*D + j``, the golden model's order.

    Members
    -------
    en : In(1)
        Advance the generator at the next clock edge (one step per value, or block of D values, consumed).
    rand : Out(bits * draws)
        The current draws: draw ``i`` while ``i`` values have been consumed (D = 1).
    """

    @classmethod
    def _checked(cls, seed=0, bits=golden_rng.DEFAULT_RAND_BITS, draws=1):
        bits = as_int(bits, "bits (random bits per draw)", 1, 32)
        draws = as_int(draws, "draws (per step)", 1, 4096)
        return as_seed(seed, allow_none=False), bits, draws

    def __init__(self, seed=0, bits=golden_rng.DEFAULT_RAND_BITS, draws=1):
        self._seed, bits, draws = self._checked_args  # (checked in __new__: CheckedFirst)
        self._bits = bits
        self._draws = draws
        super().__init__({"en": In(1), "rand": Out(bits * draws)})

    @property
    def seed(self):
        return self._seed

    def elaborate(self, platform):
        m = Module()
        state = Signal(32, init=golden_rng.rng_reset_state(self._seed))
        cur = state
        lanes = []
        for j in range(self._draws):
            sfx = "" if self._draws == 1 else f"_{j}"
            s1 = Signal(32, name=f"s1{sfx}")
            s2 = Signal(32, name=f"s2{sfx}")
            s3 = Signal(32, name=f"s3{sfx}")
            m.d.comb += [
                s1.eq(cur ^ (cur << 13)[:32]),
                s2.eq(s1 ^ (s1 >> 17)),
                s3.eq(s2 ^ (s2 << 5)[:32]),
            ]
            lanes.append(cur[32 - self._bits :])
            cur = s3
        m.d.comb += self.rand.eq(Cat(*lanes))
        with m.If(self.en):
            m.d.sync += state.eq(cur)
        return m
