"""DotProduct gateware (hw/dot.py) in Amaranth's simulator against the golden model: combinational units of
every family, the stream pipeline at every stage count (exact latency without stalls, order and
completeness under random stalls, valid independent of ready), the part-boundary placement, the port
layout, constructor errors. (The cocotb runs on Verilator/Icarus are in test_dot_regress.py.)"""

import numpy as np
import pytest
from amaranth.sim import Simulator

from fpforge.golden.dot import DotConfig
from fpforge.hw import DotProduct, build_unit, default_name, to_verilog
from fpforge.hw.dot import STAGE_ORDER

from helpers import dot_case

pytestmark = pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")  # units built only to inspect

__all__: list[str] = []


def _quiet(unit):
    """A unit built only to inspect its interface (never elaborated): no UnusedElaboratable warning."""
    return unit


def _signed(v, bits):
    return v - (1 << bits) if v >> (bits - 1) else v


@pytest.mark.parametrize("name, b, r, f", [("mx4", None, 32, 16), ("bdr_m3_k8_d3_k4_d2", None, 16, 12),
                                           ("mxint8", None, 32, 20), ("mxfp4_e2m1", None, 32, 16),
                                           ("fp8", None, 4, 24), ("e4m3", "e5m2", 4, 12), ("msfp12", None, 16, 8),
                                           ("hif8", None, 4, 24), ("hif8", "e4m3", 4, 16),
                                           ("cfloat8_143", None, 4, 20), ("cfloat8_152", "hif8", 4, 40)])
def test_combinational_unit_matches_golden(name, b, r, f):
    cfg = DotConfig(name, r, f, b)
    ops, res, wa, wb = dot_case(cfg, 40, seed=r + f)
    dut = DotProduct(cfg, raw=True)
    got = []

    async def tb(ctx):
        for k in range(ops.size):
            ctx.set(dut.a.as_value(), wa[k])
            ctx.set(dut.b.as_value(), wb[k])
            if "sel_a" in dut.signature.members:
                ctx.set(dut.sel_a, int(ops.sel_a[k]))
                ctx.set(dut.sel_b, int(ops.sel_b[k]))
            for port in ("bias_a", "bias_b"):
                if port in dut.signature.members:
                    ctx.set(getattr(dut, port), int(getattr(ops, port)[k]))
            await ctx.delay(1e-9)
            got.append((ctx.get(dut.y), ctx.get(dut.sum), ctx.get(dut.exp)))

    sim = Simulator(dut)
    sim.add_testbench(tb)
    sim.run()
    want = [(int(res.y[k]), int(res.sum[k]), int(res.exp[k])) for k in range(ops.size)]
    bad = [k for k in range(ops.size) if got[k] != want[k]]
    assert not bad, [(k, got[k], want[k]) for k in bad[:4]]


@pytest.mark.parametrize("stages", [1, 2, 3, 4, 5, 6, 7])
def test_stream_latency_order_and_backpressure(stages):
    cfg = DotConfig("bdr_m2_k4_d3_k2_d1", 8, 10)
    ops, res, wa, wb = dot_case(cfg, 60, seed=stages)
    n = ops.size
    dut = DotProduct(cfg, stages=stages, raw=True)
    assert dut.latency == stages
    rng = np.random.default_rng(stages)
    unstalled = 20
    log = {"sent": [], "got": [], "vals": [], "valid_when_not_ready": []}

    async def tb(ctx):
        i = cycle = 0
        offered = False
        while len(log["got"]) < n and cycle < 20 * n:
            stalled = len(log["got"]) >= unstalled and i >= unstalled
            valid = i < n and (offered or not (stalled and rng.random() < 0.3))
            ready = not (stalled and rng.random() < 0.3)
            ctx.set(dut.i.valid, int(valid))
            if i < n:
                ctx.set(dut.i.p.a.as_value(), wa[i])
                ctx.set(dut.i.p.b.as_value(), wb[i])
            ctx.set(dut.o.ready, 0)
            v0 = ctx.get(dut.o.valid)
            ctx.set(dut.o.ready, int(ready))
            if ctx.get(dut.o.valid) != v0:
                log["valid_when_not_ready"].append(cycle)
            if ready and ctx.get(dut.o.valid):
                p = dut.o.p
                log["got"].append(cycle)
                log["vals"].append((ctx.get(p.y), ctx.get(p.sum), ctx.get(p.exp)))
            offered = valid
            if valid and ctx.get(dut.i.ready):
                log["sent"].append(cycle)
                i += 1
                offered = False
            await ctx.tick()
            cycle += 1

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    assert len(log["vals"]) == n
    want = [(int(res.y[k]), _signed(int(res.sum[k]) & ((1 << cfg.acc_bits) - 1), cfg.acc_bits),
             _signed(int(res.exp[k]) & ((1 << cfg.exp_bits) - 1), cfg.exp_bits)) for k in range(n)]
    got = [(y, s, e) for y, s, e in log["vals"]]
    assert got == want
    lat = [log["got"][k] - log["sent"][k] for k in range(unstalled)]
    assert lat == [stages] * unstalled
    assert not log["valid_when_not_ready"]


def test_stage_boundaries_follow_the_documented_order():
    cfg = DotConfig("mx4", 32, 16)
    assert _quiet(DotProduct(cfg)).boundaries == ()
    assert _quiet(DotProduct(cfg, stages=1)).boundaries == (6,)
    assert _quiet(DotProduct(cfg, stages=2)).boundaries == (2, 6)
    assert _quiet(DotProduct(cfg, stages=3)).boundaries == (2, 4, 6)
    assert _quiet(DotProduct(cfg, stages=6)).boundaries == (1, 2, 3, 4, 5, 6) == tuple(sorted(STAGE_ORDER))
    assert _quiet(DotProduct(cfg, stages=9)).latency == 9
    assert "3 output" in _quiet(DotProduct(cfg, stages=9)).describe()


def test_ports_are_the_packed_operand_layouts():
    u = _quiet(DotProduct("mx9", 64, 32))
    assert u.signature.members["a"].shape.size == 4 * 144 and u.signature.members["y"].shape.width == 32
    assert "sum" not in u.signature.members and "sel_a" not in u.signature.members
    f = _quiet(DotProduct("fp8", 16, 32, raw=True))
    assert f.signature.members["a"].shape.size == 128 and "sel_b" in f.signature.members
    cfg = f.config
    assert f.signature.members["sum"].shape.width == cfg.acc_bits == 32 + 4
    s = _quiet(DotProduct("mxint8", 32, 16, stages=2))
    assert set(s.signature.members) == {"i", "o"}
    v1 = to_verilog(build_unit("dot", format="mx6", r=32, f=16, stages=3, raw=True))
    v2 = to_verilog(build_unit("dot", format="mx6", r=32, f=16, stages=3, raw=True))
    assert v1 == v2 and "module fpforge_dot_mx6_r32_f16_raw_s3(" in v1
    assert default_name(_quiet(DotProduct("e4m3", 16, 16, fmt_b="e5m2"))) == "fpforge_dot_e4m3xe5m2_r16_f16"


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(fmt="mx9", r=8, f=16), "r must be a positive multiple of k1 = 16"),
        (dict(fmt="mx9", r=16, f=300), "8..256"),
        (dict(fmt="mx9", r=16, f=16, stages=-1), "stages must be an integer in 0..64"),
        (dict(fmt="mx9", r=16, f=16, fmt_b="e4m3"), "one family"),
        (dict(fmt="bf16", r=16, f=16), "cannot be a dot-product operand"),
    ],
)
@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")  # objects whose __init__ raised
def test_constructor_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        DotProduct(kwargs.pop("fmt"), **kwargs)
    with pytest.raises(ValueError):
        build_unit("dot", format="mx9", r=16, f=16, latency=2)
