"""The FP8 RFC's dot-product epilogue (hw/epilogue.py, ``DotProduct(scale=, amax=, out_format=, ...)``): options,
ports, latency and names; the combinational epilogue in Amaranth's simulator against golden ``epilogue``; and
cocotb runs of whole units against golden ``dot`` + ``epilogue`` (sim/epilogue.py: tensors of 1..24 transfers
with ``first`` in the middle of the stream, current-scaling, random, power-of-two, tie-making, overflowing and
underflowing scales, out-of-contract scales, NaN/Inf results, saturation, stalls and backpressure, exact
latency).

Fast tier (`make test`): two Verilator builds (MX9 r=16 with scale, amax and a saturating E4M3 cast, 2+1
stages; the run-time FP8 unit with raw outputs, amax without scales and a non-saturating rtz E5M2 cast, 1+1
stages), ~300 random dot products each after the directed ones; on Icarus the MX9 stream and a combinational
E4M3 unit casting to CFloat8 with a run-time bias. Long tier (`make regress`): those and more (HiF8, E2M1
and FNUZ casts, 7 stages, MXFP8) with 20,000 random dot products (Icarus 3,000).
"""

import shutil
import subprocess

import numpy as np
import pytest
from amaranth.sim import Simulator

from fpforge.golden.errors import FpforgeTypeError, FpforgeValueError
from fpforge.golden.scaling import epilogue, fp32_mul
from fpforge.hw import DotProduct, build_unit, default_name, to_verilog
from fpforge.hw.epilogue import EpilogueCore, EpilogueOptions, EpilogueScales
from fpforge.sim.run import available_simulators, lint

pytestmark = pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")  # units built only to inspect


def _dot(fmt, r, f, stages, **kw):
    return dict(unit="dot", format=fmt, r=r, f=f, stages=stages, **kw)


MX9 = _dot("mx9", 16, 24, 2, scale=True, amax=True, out_format="e4m3")
FP8 = _dot("fp8", 16, 32, 1, raw=True, amax=True, out_format="e5m2", saturate=False, rounding=("rtz",))
COMB = _dot("e4m3", 8, 16, 0, scale=True, out_format="cfloat8_143")


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(amax=True), FpforgeValueError, "give stages >= 1"),
    (dict(scale=1), FpforgeTypeError, "scale must be True or False"),
    (dict(out_format="mx9"), FpforgeValueError, "scalar format of at most 8 bits"),
    (dict(out_format="shp"), FpforgeValueError, "scalar format of at most 8 bits"),
    (dict(out_format="e4m3", out_rounding="sr"), FpforgeValueError, "no random source"),
    (dict(out_format="e4m3", out_rounding="hr"), ValueError, "unknown rounding 'hr' for e4m3"),
    (dict(out_rounding="rne"), FpforgeValueError, "give out_format"),
    (dict(saturate=False), FpforgeValueError, "give out_format"),
    (dict(out_format="e4m3", saturate="yes"), FpforgeTypeError, "saturate must be True or False"),
])
def test_bad_epilogue_options(kwargs, error, match):
    with pytest.raises(error, match=match):
        DotProduct("mx9", 16, 24, **kwargs)


def _build(cfg):
    """build_unit (these tests inspect units without elaborating all of them: see pytestmark)."""
    return build_unit(**cfg)


def test_ports_latency_and_names():
    plain = _build(_dot("mx9", 16, 24, 2))
    unit = _build(MX9)
    assert not plain.epilogue.enabled and plain.latency == 2 and unit.latency == 3
    assert [n for n, _ in unit.i.p.shape()] == ["a", "b", "scale_a", "scale_b", "inv_scale_out", "first"]
    assert [n for n, _ in unit.o.p.shape()] == ["y", "code", "flags", "amax"]
    assert default_name(unit) == "fpforge_dot_mx9_r16_f24_sc_amax_e4m3_s2"
    fp8 = _build(FP8)
    assert [n for n, _ in fp8.i.p.shape()] == ["a", "b", "sel_a", "sel_b", "first"]
    assert [n for n, _ in fp8.o.p.shape()] == ["y", "sum", "exp", "code", "flags", "amax"]
    assert default_name(fp8) == "fpforge_dot_fp8_r16_f32_raw_amax_e5m2_rtz_nosat_s1" and fp8.latency == 2
    comb = _build(COMB)
    assert comb.latency == 0 and set(comb.input_ports) == {"a", "b", "scale_a", "scale_b", "inv_scale_out", "bias"}
    assert "epilogue: scales a*b*inv_out, cast to cfloat8_143 rne saturate" in comb.describe()
    assert _build(dict(COMB, io_registers=True)).latency == 2
    text = to_verilog(_build(_dot("mx9", 16, 24, 2)))
    assert "epilogue" not in text and "scale_a" not in text  # the plain unit: no trace of the epilogue


def test_build_unit_epilogue_rules():
    with pytest.raises(FpforgeValueError, match="does not take rounding"):
        _build(_dot("mx9", 16, 24, 1, rounding=("rne",)))
    with pytest.raises(FpforgeValueError, match="does not take saturate"):
        _build(_dot("mx9", 16, 24, 1, scale=True, saturate=False))
    with pytest.raises(FpforgeValueError, match="one mode"):
        _build(_dot("mx9", 16, 24, 1, out_format="e4m3", rounding=("rne", "rtz")))
    with pytest.raises(FpforgeValueError, match="not 'runtime'"):
        _build(_dot("mx9", 16, 24, 1, out_format="e4m3", saturate="runtime"))
    with pytest.raises(FpforgeValueError, match="does not take amax"):
        build_unit("encoder", format="e4m3", amax=True)
    assert _build(_dot("mx9", 16, 24, 1, out_format="e4m3", saturate="off")).epilogue.saturate is False


def _f32(bits):
    return np.asarray(bits, np.uint32).view(np.float32)


def test_epilogue_core_in_amaranth_simulation():
    """EpilogueScales + EpilogueCore (scale, amax, saturating E4M3 cast, ta) on FP32 results that cover NaN,
    ±Inf, subnormals and the cast's overflow, each vector its own tensor, against golden ``epilogue``."""
    rng = np.random.default_rng(3)
    n = 160
    r = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    r[:12] = [0x7FC00000, 0x7F800000, 0xFF800000, 0, 0x80000000, 1, 0x807FFFFF, 0x7F7FFFFF, 0x43E00000,
              0x43E80000, 0xC3F00000, 0x3F800000]
    exps = rng.integers(-30, 31, (n, 3))
    scales = np.ldexp(1 + rng.integers(0, 1 << 23, (n, 3)) / 2**23, exps).astype(np.float32)
    scales[rng.random((n, 3)) < 0.3] = np.float32(1.0)
    opt = EpilogueOptions(scale=True, amax=True, out_format="e4m3", out_rounding="ta", stages=1)
    dut_s, dut = EpilogueScales(), EpilogueCore(opt)
    got = []

    async def bench(ctx):
        for k in range(n):
            for port, v in zip((dut_s.scale_a, dut_s.scale_b, dut_s.inv_scale_out), scales[k]):
                ctx.set(port, int(np.float32(v).view(np.uint32)))
            await ctx.delay(1e-9)
            s_ab, c = ctx.get(dut_s.s_ab), ctx.get(dut_s.c)
            for port, v in ((dut.r, int(r[k])), (dut.s_ab, s_ab), (dut.c, c), (dut.first, 1), (dut.amax_prev, 0)):
                ctx.set(port, v)
            await ctx.delay(1e-9)
            got.append((ctx.get(dut.y), ctx.get(dut.code), ctx.get(dut.flags), ctx.get(dut.amax)))

    from amaranth import Module
    top = Module()
    top.submodules.s, top.submodules.e = dut_s, dut
    sim = Simulator(top)
    sim.add_testbench(bench)
    sim.run()
    checked = 0
    for k in range(n):
        try:
            res = epilogue(_f32(r[k : k + 1]), *scales[k], "e4m3", rounding="ta")
        except FpforgeValueError:
            continue
        amax = fp32_mul(_f32(r[k : k + 1]), fp32_mul(scales[k, 0], scales[k, 1])[0])[0].view(np.uint32) & 0x7FFFFFFF
        assert got[k] == (int(res.y.view(np.uint32)[0]), int(res.codes[0]), int(res.flags[0]), int(amax[0])), k
        checked += 1
    assert checked > n // 2


def test_epilogue_verilog_is_lint_clean_and_deterministic(tmp_path):
    cfg = MX9
    text = to_verilog(build_unit(**cfg))
    assert text == to_verilog(build_unit(**cfg))
    reason = available_simulators()["verilator"]
    if reason:
        pytest.skip(reason)
    path = tmp_path / "unit.v"
    path.write_text(text)
    result = lint(path)
    assert result.returncode == 0 and "%Warning" not in result.stderr, result.stdout + result.stderr
    if shutil.which("iverilog"):
        icarus = subprocess.run(["iverilog", "-g2005", "-o", str(tmp_path / "a.out"), str(path)],
                                capture_output=True, text=True)
        assert icarus.returncode == 0, icarus.stderr


FAST = [("verilator", MX9), ("verilator", FP8), ("icarus", MX9), ("icarus", COMB)]


@pytest.mark.sim
@pytest.mark.parametrize("sim, cfg", FAST, ids=["verilator-mx9", "verilator-fp8", "icarus-mx9", "icarus-comb"])
def test_scaled_dot_against_golden(sim, cfg, regress):
    result = regress(cfg, sim, vectors=300 if sim == "verilator" else 150, seed=7, stall=0.3)
    assert result.vectors >= 150


LONG = [MX9, FP8, COMB,
        _dot("mxfp8_e4m3", 32, 32, 7, scale=True, amax=True, out_format="hif8"),
        _dot("e5m2", 16, 24, 3, scale=True, amax=True, out_format="e4m3fnuz", rounding=("rtz",)),
        _dot("mx6", 16, 16, 1, scale=True, out_format="e2m1", saturate=False),
        _dot("mx4", 32, 16, 4, scale=True, amax=True)]


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("sim", ("verilator", "icarus"))
@pytest.mark.parametrize("cfg", LONG, ids=lambda c: f"{c['format']}-{c.get('out_format')}-s{c['stages']}")
def test_scaled_dot_long(cfg, sim, regress):
    """make regress: 20,000 random dot products per configuration on Verilator, 3,000 on Icarus."""
    regress(cfg, sim, vectors=20_000 if sim == "verilator" else 3_000, seed=21, stall=0.2)
