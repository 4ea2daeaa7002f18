"""cocotb regressions of the dot-product units (DotProduct, hw/dot.py) on Verilator and Icarus against the
golden model (golden/dot.py), through the one testbench (sim/testbench.py: valid/ready streams, results
exactly `latency` cycles after their operands for the first 200, then 15 % input gaps and output holds,
checked in order, every output bit).

Configurations (issue 6): MX9, MX6 and MX4 at r = 16 and 64 with f = 16 and 32; E4M3, E5M2 and mixed
E4M3×E5M2 at r = 16 (the fp8 unit with run-time selects, plus units fixed to E4M3, to E5M2 and to
E4M3×E5M2); MXFP8 E4M3 and MXINT8 at r = 32; a non-preset BDR point (m = 3, k1 = 8, d1 = 3: clamped
shared exponents, k2 = 4, d2 = 2: shifts 0..3). Stage counts 1..7 spread over them so every register
placement runs. Units that take the same operands run as one bundle (one simulation model, one input
stream, each unit against its own golden results: sim/bundle.py), which saves a Verilator build per unit.

Stimulus per bundle: the directed dot products of sim/vectors.py (zeros, a zero block at the largest scale,
full cancellation, a small residue, one dominant block at distances around the window edge, largest and
smallest scales, a scale sweep across FP32's subnormal boundary, every sub-block shift combination,
largest magnitudes, every lane alone, FP32 rounding ties found by search, NaN/Inf elements and scales) and
random dot products (half quantized Gaussian data with spread block scales, half raw bit patterns): in
make test 2,000 on Verilator and 500 on Icarus — enough for the stalls, holds and exact latency, the
directed cases on both; make regress: 1,000,000 random on Verilator (10 chunks), 100,000 on Icarus.
"""

import pytest


def _dot(fmt, r, f, stages, raw=True, fmt_b=None):
    return dict(unit="dot", format=fmt, format_b=fmt_b, r=r, f=f, stages=stages, raw=raw)


BUNDLES = {
    "mx9-r16": [_dot("mx9", 16, 16, 1), _dot("mx9", 16, 32, 1, raw=False)],
    "mx9-r64": [_dot("mx9", 64, 16, 2), _dot("mx9", 64, 32, 2)],
    "mx6-r16": [_dot("mx6", 16, 16, 3), _dot("mx6", 16, 32, 3)],
    "mx6-r64": [_dot("mx6", 64, 16, 4, raw=False), _dot("mx6", 64, 32, 4)],
    "mx4-r16": [_dot("mx4", 16, 16, 5), _dot("mx4", 16, 32, 5)],
    "mx4-r64": [_dot("mx4", 64, 16, 6), _dot("mx4", 64, 32, 6)],
    # E4M3, E5M2 and mixed: the fp8 unit (selects on its ports) and the units fixed to one choice
    "fp8-r16": [_dot("fp8", 16, 32, 7), _dot("e4m3", 16, 16, 7), _dot("e5m2", 16, 32, 7),
                _dot("e4m3", 16, 24, 7, fmt_b="e5m2")],
    "mxfp8_e4m3-r32": [_dot("mxfp8_e4m3", 32, 32, 2), _dot("mxfp8_e4m3", 32, 16, 2)],
    "mxint8-r32": [_dot("mxint8", 32, 16, 3), _dot("mxint8", 32, 32, 3)],
    "bdr_m3_k8_d3_k4_d2-r32": [_dot("bdr_m3_k8_d3_k4_d2", 32, 12, 4), _dot("bdr_m3_k8_d3_k4_d2", 32, 20, 4)],
}
FAST = {"verilator": 2_000, "icarus": 500}


@pytest.mark.sim
@pytest.mark.parametrize("sim", ("verilator", "icarus"))
@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_dot_units_with_backpressure(bundle, sim, regress):
    result = regress(BUNDLES[bundle], sim, vectors=FAST[sim], seed=7, stall=0.15)
    assert result.vectors >= FAST[sim] + 100  # the directed dot products come first


@pytest.mark.sim
def test_combinational_dot_unit_on_icarus(regress):
    """stages = 0: the purely combinational unit (one vector per 1 ns step); Verilator in make regress."""
    regress(_dot("mx4", 32, 16, 0), "icarus", vectors=2_000, seed=11)


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("sim", ("verilator", "icarus"))
@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_dot_units_long(bundle, sim, regress):
    """make regress: 1,000,000 random dot products per bundle on Verilator (10 chunks), 100,000 on Icarus."""
    total = 1_000_000 if sim == "verilator" else 100_000
    for k in range(total // 100_000):
        regress(BUNDLES[bundle], sim, vectors=100_000, seed=1000 + k, stall=0.15, directed=k == 0)


@pytest.mark.sim
@pytest.mark.slow
def test_combinational_dot_unit_on_verilator(regress):
    regress(_dot("mx4", 32, 16, 0), "verilator", vectors=100_000, seed=11)


# -- HiF8 and CFloat8 elements (issue 16) -----------------------------------------------------------------------
#: Units with HiF8, CFloat8 (bias_a/bias_b ports: random biases per dot product, 0 and 63 in a quarter each)
#: and mixed scalar operands. make test: two Verilator builds and one Icarus run of a few hundred dot
#: products with stalls; make regress: every bundle on both simulators, 100,000 random dot products each.
ELEMENT_BUNDLES = {
    "hif8-r16": [_dot("hif8", 16, 24, 2), _dot("hif8", 16, 16, 2, raw=False)],
    "cfloat8_143-r8": [_dot("cfloat8_143", 8, 20, 3)],
    "hif8xe4m3-r16": [_dot("hif8", 16, 20, 1, fmt_b="e4m3")],
    "cfloat8_152xhif8-r8": [_dot("cfloat8_152", 8, 32, 5, fmt_b="hif8")],
    "cfloat8_143-comb": [_dot("cfloat8_143", 4, 24, 0)],
}
ELEMENT_FAST = [("hif8-r16", "verilator"), ("cfloat8_143-r8", "verilator"), ("hif8xe4m3-r16", "icarus")]


def _regress_elements(regress, bundle, sim, **kwargs):
    """One element bundle, with stalls on stream units; a combinational unit runs alone (bundles are streams)."""
    cfgs = ELEMENT_BUNDLES[bundle]
    stream = cfgs[0]["stages"] > 0
    return regress(cfgs if stream else cfgs[0], sim, stall=0.15 if stream else 0.0, **kwargs)


@pytest.mark.sim
@pytest.mark.parametrize("bundle, sim", ELEMENT_FAST)
def test_hif8_cfloat8_dot_units(bundle, sim, regress):
    result = _regress_elements(regress, bundle, sim, vectors=300, seed=16)
    assert result.vectors >= 300 + 30  # the directed dot products come first


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("sim", ("verilator", "icarus"))
@pytest.mark.parametrize("bundle", list(ELEMENT_BUNDLES))
def test_hif8_cfloat8_dot_units_long(bundle, sim, regress):
    _regress_elements(regress, bundle, sim, vectors=100_000, seed=1600)


# -- the anchored datapath (issue 34, item 1) ---------------------------------------------------------------------
#: Exact windows, both datapaths side by side on one operand stream (the golden model is the same for both):
#: E4M3 r = 8 f = 37 anchored and aligned, the fp8 unit r = 4 f = 67 (run-time selects) anchored, E4M3×E5M2 r = 4
#: anchored. make test: a few hundred dot products with stalls on each simulator; make regress: 100,000.
DATAPATH_BUNDLES = {
    "e4m3-r8-exact": [dict(_dot("e4m3", 8, 37, 2, raw=False), datapath="anchored"),
                      dict(_dot("e4m3", 8, 37, 2, raw=False), datapath="aligned")],
    "fp8-r4-exact": [dict(_dot("fp8", 4, 67, 3, raw=False), datapath="anchored")],
    "e4m3xe5m2-r4-exact": [dict(_dot("e4m3", 4, 51, 1, raw=False, fmt_b="e5m2"), datapath="anchored")],
    # one block: signed products and the subnormal-capable P6 (no negation, one normalizing shifter)
    "mxfp4-r32-exact": [dict(_dot("mxfp4_e2m1", 32, 14, 2, raw=False), datapath="anchored")],
}


@pytest.mark.sim
@pytest.mark.parametrize("sim", ("verilator", "icarus"))
@pytest.mark.parametrize("bundle", list(DATAPATH_BUNDLES))
def test_anchored_dot_units(bundle, sim, regress):
    result = regress(DATAPATH_BUNDLES[bundle], sim, vectors=300, seed=34, stall=0.15)
    assert result.vectors >= 300 + 30


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("sim", ("verilator", "icarus"))
@pytest.mark.parametrize("bundle", list(DATAPATH_BUNDLES))
def test_anchored_dot_units_long(bundle, sim, regress):
    regress(DATAPATH_BUNDLES[bundle], sim, vectors=100_000, seed=3400, stall=0.15)
