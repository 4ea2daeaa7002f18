"""The anchored dot datapath's adders (hw/adders.py): every parallel-prefix style adds exactly, for every input
pair at 4..6 bits, and the carry-save sum of magnitude/sign and two's-complement terms is their exact sum modulo
2**width for every input (Amaranth's simulator)."""

import itertools

import pytest
from amaranth import Module, Signal, signed
from amaranth.sim import Simulator

from fpforge.hw.adders import PREFIX_STYLES, prefix_add, sum_terms

__all__: list[str] = []


def _run(m, inputs, out, check):
    """Drive every combination of ``inputs`` (Signals) and collect ``check(values, out)`` failures."""
    bad = []

    async def bench(ctx):
        for values in itertools.product(*(range(1 << len(s)) for s in inputs)):
            for s, v in zip(inputs, values):
                ctx.set(s, v)
            if not check(values, ctx.get(out)):
                bad.append(values)

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
    return bad


@pytest.mark.parametrize("style", PREFIX_STYLES)
@pytest.mark.parametrize("n", [1, 4, 5, 6])
def test_prefix_add_exhaustive(style, n):
    m = Module()
    a, b = Signal(n), Signal(n)
    y = prefix_add(m, a, b, "y", style)
    bad = _run(m, [a, b], y, lambda v, got: got == (v[0] + v[1]) % (1 << n))
    assert not bad, bad[:4]


def test_sum_terms_exhaustive():
    """Magnitudes with signs (2 and 3 bits) and signed values (3 bits and the full width) into 6 bits: 2**14
    inputs."""
    m = Module()
    p1, n1, p2, n2 = Signal(2), Signal(), Signal(3), Signal()
    s1, s2 = Signal(signed(3)), Signal(signed(6))
    width = 6
    y = sum_terms(m, [("mag", p1, n1), ("signed", s1), ("mag", p2, n2), ("signed", s2)], width, "t")

    def check(v, got):
        sv = lambda x, w: x - (1 << w) if x >> (w - 1) else x  # noqa: E731
        want = (-v[0] if v[1] else v[0]) + (-v[2] if v[3] else v[2]) + sv(v[4], 3) + sv(v[5], 6)
        return got == sv(want % (1 << width), width)

    bad = _run(m, [p1, n1, p2, n2, s1, s2], y, check)
    assert not bad, bad[:4]
