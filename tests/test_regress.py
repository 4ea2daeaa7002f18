"""cocotb regressions of the conversion units (FP8, HiF8) on Verilator and Icarus against the golden model.

Fast tier (`make test`):
- every encoder shape (8 formats: FP8, HiF8, OCP FP6/FP4 × 3 sources) built with all the format's roundings (FP8: rne, ta, rtz, sr;
  HiF8: ta, hr, sr, rne, rtz) and a run-time `sat` port, so one model checks every (mode, saturation) pair: all 65,536 FP16 / BF16 patterns, or ≥ 100k random FP32
  patterns plus the directed corner cases of `fpforge.sim.vectors.directed`;
- fixed-option builds (no `mode`/`sat` ports; `nan_to_zero`; `sr` alone with its `rand` port);
- stream variants with random valid/ready stalls and an exact-latency check, including encoders whose own
  xorshift32 generator must reproduce the golden codes for the seed;
- every decoder (8 formats × 3 targets) on all of its codes.
Long tier (`make regress`, marked slow): 10M random FP32 patterns per encoder configuration.
"""

import pytest

from fpforge.golden import get_format

FORMATS = ("e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz", "hif8", "e3m2", "e2m3", "e2m1")
SOURCES = ("fp32", "fp16", "bf16")
SIMS = ("verilator", "icarus")
ALL = ("rne", "ta", "rtz", "sr")


@pytest.mark.sim
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_encoder_every_mode_and_saturation(fmt, source, sim, regress):
    modes = get_format(fmt).roundings
    cfg = dict(unit="encoder", format=fmt, source=source, rounding=modes, saturate="runtime", seed=11)
    result = regress(cfg, sim, vectors=100_000, seed=3)
    per_config = result.vectors // (2 * len(modes))
    assert per_config >= (65_536 if source != "fp32" else 100_000)


FIXED = [
    dict(format="e4m3", source="fp32", rounding=("rne",)),
    dict(format="e5m2", source="fp32", rounding=("rtz",), saturate=True),
    dict(format="e4m3fnuz", source="bf16", rounding=("ta",), nan_to_zero=True),
    dict(format="e5m2fnuz", source="fp16", rounding=("sr",), rand_bits=8, seed=99),
    dict(format="e4m3", source="fp16", rounding=("rne", "sr"), saturate=True, nan_to_zero=True),
    dict(format="hif8", source="fp32", rounding=("ta",)),
    dict(format="hif8", source="fp32", rounding=("hr",), paper_literal=True),
    dict(format="hif8", source="bf16", rounding=("hr", "ta"), saturate=True, nan_to_zero=True),
    dict(format="hif8", source="fp16", rounding=("sr",), rand_bits=8, seed=4242),
]


@pytest.mark.sim
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("opts", FIXED, ids=lambda o: "-".join(str(v) if not isinstance(v, tuple) else "+".join(v)
                                                             for v in o.values()))
def test_encoder_fixed_options(opts, sim, regress):
    regress(dict(unit="encoder", **opts), sim, vectors=100_000, seed=5)


STREAMS = [
    dict(unit="encoder", format="e4m3", source="fp32", rounding=ALL, saturate="runtime", latency=2, seed=7),
    dict(unit="encoder", format="e5m2fnuz", source="bf16", rounding=("sr",), latency=1, seed=12345),
    dict(unit="encoder", format="e5m2", source="fp16", rounding=("rne",), latency=4),
    dict(unit="decoder", format="e4m3", target="fp16", latency=3),
    dict(unit="encoder", format="hif8", source="fp32", rounding=get_format("hif8").roundings, saturate="runtime",
         latency=2, seed=77),
    dict(unit="decoder", format="hif8", target="fp16", latency=1),
]


@pytest.mark.sim
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("cfg", STREAMS, ids=lambda c: f"{c['unit']}-{c['format']}-l{c['latency']}")
def test_stream_latency_and_backpressure(cfg, sim, regress):
    regress(cfg, sim, vectors=20_000, seed=9, stream_vectors=12_000)


@pytest.mark.sim
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("target", SOURCES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_decoder_all_codes(fmt, target, sim, regress):
    result = regress(dict(unit="decoder", format=fmt, target=target), sim)
    assert result.vectors == 1 << get_format(fmt).bits


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_encoder_fp32_ten_million(fmt, sim, regress):
    """make regress: 10M random FP32 patterns per (mode, saturation) configuration."""
    modes = get_format(fmt).roundings
    cfg = dict(unit="encoder", format=fmt, source="fp32", rounding=modes, saturate="runtime", seed=21)
    for chunk in range(10):
        result = regress(cfg, sim, vectors=1_000_000, seed=1000 + chunk)
        assert result.vectors // (2 * len(modes)) >= 1_000_000
