"""cocotb regressions of the Tesla CFloat units (CFloat8, SHP, UHP) on Verilator and Icarus.

One model per unit shape, with ``bias`` (and ``mode``/``sat``) as run-time ports driven per vector: the
bias changes from each vector to the next (``fpforge.sim.vectors.stimulus_with_bias``).

Fast tier (`make test`), both simulators:
- encoders FP32 → cfloat8_143 / cfloat8_152 / shp / uhp built with every rounding (rne, sr, ta, rtz;
  uhp also a run-time `sat` port): per (mode, sat) pair, 100k random FP32 operands on Verilator (10k on
  Icarus), each with its own bias (all 64 occur), plus the directed cases (every value, midpoint and
  ±1 ulp — the denormal gap and the overflow threshold among them —, binade edges, ±Inf/NaN, negative UHP
  operands) of each bias in ``DEFAULT_BIASES``;
- encoders BF16 → cfloat8_143 / cfloat8_152: all 65,536 patterns × ``EXHAUSTIVE_BIASES`` × every rounding
  (Verilator; the Icarus pass is in make regress);
- IEEE denormals (FP32 → cfloat8_143, rne + sr);
- a stream encoder (latency 2, every rounding, its own xorshift32) whose bias changes on every transfer,
  with random stalls and the exact-latency check;
- decoders cfloat8_143 → FP32 and cfloat8_152 → BF16 on all 256 codes × all 64 biases; SHP → FP32 on all
  65,536 codes × ``DEFAULT_BIASES``; UHP → FP32 on all codes.
Long tier (`make regress`): BF16 → CFloat8 at all 64 biases, the other decoder targets, FP16 sources,
SHP/UHP options, a stream decoder, SHP at all 64 biases, and 10 × 1M random FP32 operands per encoder.
"""

import numpy as np
import pytest

from fpforge.golden import get_format
from fpforge.sim.vectors import DEFAULT_BIASES, EXHAUSTIVE_BIASES, stimulus_with_bias

SIMS = ("verilator", "icarus")
CFLOAT = ("cfloat8_143", "cfloat8_152", "shp", "uhp")
CFLOAT8 = ("cfloat8_143", "cfloat8_152")


def _all_modes(fmt):
    fmt = get_format(fmt)
    return dict(rounding=fmt.roundings, **({"saturate": "runtime"} if fmt.has_nan else {}))


#: Random FP32 operands per (mode, sat) pair in make test: the bulk on Verilator, a shorter run on Icarus
#: (~2,000 vectors/s there) that checks the same Verilog on the second simulator.
FP32_VECTORS = {"verilator": 100_000, "icarus": 10_000}


@pytest.mark.sim
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("fmt", CFLOAT)
def test_fp32_encoder_every_mode_every_bias(fmt, sim, regress):
    cfg = dict(unit="encoder", format=fmt, source="fp32", seed=31, **_all_modes(fmt))
    result = regress(cfg, sim, vectors=FP32_VECTORS[sim], seed=4)
    pairs = len(cfg["rounding"]) * (2 if "saturate" in cfg else 1)
    assert result.vectors // pairs >= FP32_VECTORS[sim]


@pytest.mark.sim
@pytest.mark.parametrize("sim", [SIMS[0], pytest.param(SIMS[1], marks=pytest.mark.slow)])
@pytest.mark.parametrize("fmt", CFLOAT8)
def test_bf16_encoder_all_patterns_at_the_exhaustive_biases(fmt, sim, regress):
    cfg = dict(unit="encoder", format=fmt, source="bf16", seed=32, **_all_modes(fmt))
    result = regress(cfg, sim)
    assert result.vectors == 65_536 * len(EXHAUSTIVE_BIASES) * len(cfg["rounding"])


FIXED = [dict(format="cfloat8_143", source="fp32", rounding=("rne", "sr"), ieee_denormals=True, seed=5)]
FIXED_SLOW = [
    dict(format="shp", source="fp32", rounding=("rne",), ieee_denormals=True),
    dict(format="uhp", source="fp32", rounding=("rne", "rtz"), saturate=True, nan_to_zero=True),
    dict(format="cfloat8_152", source="fp16", rounding=("sr",), rand_bits=8, seed=77),
    dict(format="cfloat8_143", source="fp16", rounding=("rne", "ta"), ieee_denormals=True),
]


def _opts_id(o):
    return "-".join(str(v) if not isinstance(v, tuple) else "+".join(v) for v in o.values())


@pytest.mark.sim
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("opts", FIXED + [pytest.param(o, marks=pytest.mark.slow) for o in FIXED_SLOW],
                         ids=_opts_id)
def test_encoder_fixed_options(opts, sim, regress):
    regress(dict(unit="encoder", **opts), sim, vectors=FP32_VECTORS[sim], seed=6)  # exhaustive sources drop it


STREAMS = [
    dict(unit="encoder", format="cfloat8_143", source="fp32", rounding=("rne", "sr", "ta", "rtz"), latency=2,
         seed=2024),
    pytest.param(dict(unit="decoder", format="shp", target="fp32", latency=1), marks=pytest.mark.slow),
]


@pytest.mark.sim
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("cfg", STREAMS, ids=["encoder-cfloat8_143-l2", "decoder-shp-l1"])
def test_stream_bias_changes_every_transfer(cfg, sim, regress):
    """The first 12,000 vectors of the case, each with a different bias from its predecessor: the first
    200 unstalled (exact latency), the rest under random input gaps and output backpressure; the SR
    encoder's own xorshift32 must reproduce the golden codes for its seed."""
    if cfg["unit"] == "encoder":
        _, bias = stimulus_with_bias(cfg["format"], cfg["source"], 20_000, 9)
        assert np.all(np.diff(bias[:12_000].astype(np.int64)) != 0)
    regress(cfg, sim, vectors=20_000, seed=9, stream_vectors=12_000)


DECODERS = [dict(format="cfloat8_143", target="fp32"), dict(format="cfloat8_152", target="bf16"),
            dict(format="shp", target="fp32"), dict(format="uhp", target="fp32")]
DECODERS_SLOW = [dict(format="cfloat8_143", target="bf16"), dict(format="cfloat8_152", target="fp32"),
                 dict(format="cfloat8_143", target="bf16", ieee_denormals=True),
                 dict(format="shp", target="fp32", ieee_denormals=True)]


@pytest.mark.sim
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("opts", DECODERS + [pytest.param(o, marks=pytest.mark.slow) for o in DECODERS_SLOW],
                         ids=_opts_id)
def test_decoder_all_codes_all_biases(opts, sim, regress):
    fmt = get_format(opts["format"])
    result = regress(dict(unit="decoder", **opts), sim)
    biases = 64 if fmt.bits == 8 else (len(DEFAULT_BIASES) if fmt.runtime_bias else 1)
    assert result.vectors == (1 << fmt.bits) * biases


# -- make regress --------------------------------------------------------------------------------------
@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("fmt", CFLOAT8)
def test_bf16_encoder_all_patterns_all_biases(fmt, sim, regress):
    cfg = dict(unit="encoder", format=fmt, source="bf16", seed=33, **_all_modes(fmt))
    for chunk in range(8):  # 8 biases at a time
        result = regress(cfg, sim, biases=range(8 * chunk, 8 * chunk + 8))
        assert result.vectors == 65_536 * 8 * len(cfg["rounding"])


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("sim", SIMS)
def test_shp_decoder_all_biases(sim, regress):
    regress(dict(unit="decoder", format="shp", target="fp32"), sim, biases=range(64))


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("fmt", CFLOAT)
def test_fp32_encoder_ten_million(fmt, sim, regress):
    """10 × 1M random FP32 operands per (mode, sat) pair, and the directed cases of all 64 biases."""
    cfg = dict(unit="encoder", format=fmt, source="fp32", seed=34, **_all_modes(fmt))
    for chunk in range(10):
        biases = range(64) if chunk == 0 else DEFAULT_BIASES
        regress(cfg, sim, vectors=1_000_000, seed=2000 + chunk, biases=biases)
