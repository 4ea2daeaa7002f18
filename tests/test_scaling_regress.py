"""cocotb regressions of the scaled encoder and its FP32 multiplier on Verilator and Icarus, bit for bit
against ``fpforge.golden.scaling`` (whose product is checked against numpy's float32 multiply and whose casts
against ml_dtypes in ``test_scaling_golden.py``).

Fast tier (`make test`):
- the FP32 multiplier (combinational, 16 lanes): every BF16 pattern (as FP32) times 8 scales (Icarus: 1) —
  1.0, full-mantissa ones, subnormals, overflow-prone, negative — then 100k random pairs aimed at the
  subnormal, tie and overflow ranges (Icarus 20k) and every special operand × every special scale; the
  power-of-two variant with BF16 operands: every pattern × 6 exponents (Icarus: 1) and 20k random (10k);
- two scaled-encoder streams with random stalls, exact latency, ``first``/amax and every (mode, sat) pair:
  E4M3 from FP32 with an FP32 scale (2 lanes, all roundings incl. the internal ``sr`` generator, run-time
  ``sat``), and CFloat8_1_4_3 from BF16 with a power-of-two scale (4 lanes, a run-time bias per tensor).
Long tier (`make regress`, marked slow): every scalar format of at most 8 bits × both scalings, 20k
transfers (Icarus 4k), and the multiplier on 64 scales × all BF16 patterns plus 2M random pairs.
"""

import pytest

from fpforge.golden import get_format, list_formats

SIMS = ("verilator", "icarus")
SCALES = (0x3F800000, 0x3F400001, 0x00000003, 0x2F1A2B3C, 0x7E800000, 0x4F7FFFFF, 0x80C00000, 0x1F800001)
EXPONENTS = (0, -130, 127, -20, 200, -256)


def _multiplier(sim, simulators, request, source, scaling, **kwargs):
    from fpforge.sim.scaling import regress_multiplier

    reason = simulators.get(sim)
    if reason:
        pytest.skip(f"{sim} not available: {reason}")
    result = regress_multiplier(sim, source, scaling, build_root=request.config.rootpath / "build" / "test-sim",
                                **kwargs)
    assert result.passed, result.summary()
    return result


@pytest.mark.sim
@pytest.mark.parametrize("sim", SIMS)
def test_fp32_multiplier_every_bf16_pattern_times_scales(sim, simulators, request):
    scales = SCALES if sim == "verilator" else SCALES[1:2]
    n = 100_000 if sim == "verilator" else 20_000
    result = _multiplier(sim, simulators, request, "fp32", "fp32", n_random=n, exhaustive_scales=scales, seed=2,
                         lanes=16)
    assert result.vectors >= len(scales) * 65_536 + n


@pytest.mark.sim
@pytest.mark.parametrize("sim", SIMS)
def test_pow2_multiplier_every_bf16_pattern_times_exponents(sim, simulators, request):
    exps = EXPONENTS if sim == "verilator" else EXPONENTS[1:2]
    n = 20_000 if sim == "verilator" else 10_000
    _multiplier(sim, simulators, request, "bf16", "pow2", n_random=n, exhaustive_scales=exps, seed=3, lanes=16)


STREAMS = [
    dict(unit="scaled-encoder", format="e4m3", source="fp32", lanes=2, scaling="fp32",
         rounding=("rne", "ta", "rtz", "sr"), saturate="runtime", latency=2, seed=3),
    dict(unit="scaled-encoder", format="cfloat8_143", source="bf16", lanes=4, scaling="pow2",
         rounding=("rne", "sr", "rtz"), latency=1, seed=8),
]


@pytest.mark.sim
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("cfg", STREAMS, ids=lambda c: f"{c['format']}-{c['source']}-{c['scaling']}-x{c['lanes']}")
def test_scaled_encoder_stream(cfg, sim, regress):
    regress(cfg, sim, vectors=3000 if sim == "verilator" else 700, seed=11)


SMALL = [n for n in list_formats(kind="scalar") if get_format(n).bits <= 8]


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("scaling", ["fp32", "pow2"])
@pytest.mark.parametrize("fmt", SMALL)
def test_scaled_encoder_every_small_format(fmt, scaling, sim, regress):
    """make regress: every scalar format of at most 8 bits, all its roundings, run-time saturation."""
    modes = get_format(fmt).roundings
    source = "bf16" if (SMALL.index(fmt) + (scaling == "pow2")) % 2 else "fp32"
    cfg = dict(unit="scaled-encoder", format=fmt, source=source, lanes=3, scaling=scaling, rounding=modes,
               saturate="runtime", latency=2, seed=17)
    regress(cfg, sim, vectors=20_000 if sim == "verilator" else 4000, seed=23)


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("sim", SIMS)
def test_fp32_multiplier_long(sim, simulators, request):
    """make regress: 64 scales × every BF16 pattern, 2M random pairs."""
    import numpy as np

    scales = tuple(int(v) for v in np.random.default_rng(31).integers(0, 1 << 32, 56, dtype=np.uint64)) + SCALES
    _multiplier(sim, simulators, request, "fp32", "fp32", n_random=2_000_000, exhaustive_scales=scales, seed=5)
