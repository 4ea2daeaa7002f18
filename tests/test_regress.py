"""Regressions of the conversion units (FP8, HiF8, OCP FP6/FP4) against the golden model: the bulk on the
Verilator C++ harness of `fpforge prove`, cocotb on Verilator and Icarus for smoke runs and streams.

Fast tier (`make test`):
- bit-exactness on the prove harness (`fpforge.sim.prove_sample`) of every combinational encoder shape
  (8 formats × 3 sources) built with all the format's roundings (FP8: rne, ta, rtz, sr; HiF8: ta, hr, sr,
  rne, rtz) and a run-time `sat` port, and of every fixed-option build (no `mode`/`sat` ports;
  `nan_to_zero`; `paper_literal`; `sr` alone with an 8-bit `rand` port), in every (mode, sat) pair: all
  65,536 FP16 / BF16 patterns; FP32: ±8 patterns around every directed corner of
  `fpforge.sim.vectors.directed` (every value ±1 ulp, every rounding midpoint ±1 ulp — underflow and
  overflow thresholds —, binade edges, ±0, subnormals, ±Inf, NaNs, ±max; HiF8 also the hybrid-rounding
  thresholds) plus 256 slices of 512 patterns (half anywhere, half in the format's range): 142k–160k
  patterns per pair, more than the 100k random of the cocotb run it replaces; `sr` with draw i on pattern i
  (seed 0), as `fpforge prove` drives it;
- the same shapes on cocotb as a smoke run (the testbench and ports): 2,000 patterns per (mode, sat) pair,
  half directed corners (the specials always) and half random; every shape on Icarus, one source per
  format on Verilator (the others in make regress);
- stream variants with random valid/ready stalls and an exact-latency check (300 patterns per pair),
  including encoders whose own xorshift32 generator must reproduce the golden codes for the seed;
- every decoder (8 formats × 3 targets) on all of its 256 codes on cocotb: every one on Icarus, one target
  per format on Verilator (the others in make regress).
Long tier (`make regress`, marked slow): 10M random FP32 patterns per encoder configuration, every FP16 /
BF16 pattern and the fixed-option builds with 100k on cocotb, the streams with 12,000 transfers.
"""

import pytest

from fpforge.golden import get_format

FORMATS = ("e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz", "hif8", "e3m2", "e2m3", "e2m1")
SOURCES = ("fp32", "fp16", "bf16")
SIMS = ("verilator", "icarus")
ALL = ("rne", "ta", "rtz", "sr")
#: Patterns per (mode, sat) pair of a cocotb smoke run (the bulk runs on the prove harness).
SMOKE = 2_000


def _every_mode(fmt, source, seed=11):
    return dict(unit="encoder", format=fmt, source=source, rounding=get_format(fmt).roundings, saturate="runtime",
                seed=seed)


@pytest.mark.sim
@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_encoder_every_mode_and_saturation_on_harness(fmt, source, harness_check):
    results = harness_check(_every_mode(fmt, source))
    assert len(results) == 2 * len(get_format(fmt).roundings)
    assert results[0].vectors >= (65_536 if source != "fp32" else 100_000)


def _shapes_by_simulator():
    """(fmt, source, sim) of every shape: every one on Icarus (a build takes a second); on Verilator, whose
    bulk check of every shape runs on the harness above, one source per format in make test (the sources
    taken in turn, so each occurs), the others in make regress."""
    return [pytest.param(fmt, source, sim,
                         marks=[pytest.mark.slow] if sim == "verilator" and j != i % len(SOURCES) else [])
            for i, fmt in enumerate(FORMATS) for j, source in enumerate(SOURCES) for sim in SIMS]


@pytest.mark.sim
@pytest.mark.parametrize("fmt, source, sim", _shapes_by_simulator())
def test_encoder_every_mode_and_saturation(fmt, source, sim, regress):
    """cocotb smoke run: every (mode, sat) pair on SMOKE patterns."""
    result = regress(_every_mode(fmt, source), sim, smoke=SMOKE, seed=3)
    assert result.vectors == SMOKE * 2 * len(get_format(fmt).roundings)


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


def _fixed_id(o):
    return "-".join(str(v) if not isinstance(v, tuple) else "+".join(v) for v in o.values())


@pytest.mark.sim
@pytest.mark.parametrize("opts", FIXED, ids=_fixed_id)
def test_encoder_fixed_options_on_harness(opts, harness_check):
    harness_check(dict(unit="encoder", **opts))


@pytest.mark.sim
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("opts", FIXED, ids=_fixed_id)
def test_encoder_fixed_options(opts, sim, regress):
    regress(dict(unit="encoder", **opts), sim, smoke=SMOKE, seed=5)


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
    """300 patterns per (mode, sat) pair (decoders: all codes): the first 200 transfers unstalled (exact
    latency), then random input gaps and output holds."""
    regress(cfg, sim, seed=9, smoke=300)


@pytest.mark.sim
@pytest.mark.parametrize("fmt, target, sim", _shapes_by_simulator())
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


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("source", ("fp16", "bf16"))
@pytest.mark.parametrize("fmt", FORMATS)
def test_encoder_every_16bit_pattern_on_cocotb(fmt, source, sim, regress):
    """make regress: every FP16 / BF16 pattern in every (mode, sat) pair through cocotb."""
    result = regress(_every_mode(fmt, source), sim, seed=3)
    assert result.vectors == 65_536 * 2 * len(get_format(fmt).roundings)


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("opts", FIXED, ids=_fixed_id)
def test_encoder_fixed_options_long(opts, sim, regress):
    regress(dict(unit="encoder", **opts), sim, vectors=100_000, seed=5)


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("cfg", STREAMS, ids=lambda c: f"{c['unit']}-{c['format']}-l{c['latency']}")
def test_stream_latency_and_backpressure_long(cfg, sim, regress):
    regress(cfg, sim, vectors=20_000, seed=9, stream_vectors=12_000)
