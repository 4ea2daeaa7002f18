"""cocotb regressions of the block units (BlockEncoder, BlockDecoder) on Verilator and Icarus against the
golden model (golden/block.py), with valid/ready stalls and the exact-latency check of sim/testbench.py.

Each configuration is one model built with every rounding the format offers on its run-time ``mode`` port
(and ``sr`` with the pipeline's own k1-draw generator), so one build checks all of them. Stimulus
(``fpforge.sim.vectors``): the directed blocks (all zeros, ±0, a single non-zero in every lane, an outlier
2^20 above the rest, every sub-block at its largest shift, rounding midpoints, the saturation threshold,
the shared exponent at both ends of its range, FP32 subnormals, NaN/±Inf members) under every rounding,
then random blocks with the rounding cycling block by block. Decoders get what the encoder produces plus
random bit patterns (codes no encoder makes).

Budget (docs/block.md, "Simulation budget"): Verilator runs ~2,500 blocks/s here, Icarus ~140 blocks/s for
16-lane units and ~80 for 32-lane ones, so:
- fast tier (the cycle behaviour: stalls, backpressure, exact latency, and every rounding on the directed
  blocks): Verilator the directed blocks and 2,000 random blocks per encoder configuration and for the
  decoders of five formats that cover every decode path; Icarus the directed blocks (under every rounding)
  and 300 random blocks for every encoder and decoder;
- slow tier (`make regress`): Verilator 1,000,000 random blocks per configuration, Icarus 20,000.
"""

import pytest

from fpforge.golden import get_format

FORMATS = [
    ("mx9", "fp32", 1), ("mx6", "bf16", 2), ("mx4", "fp32", 1), ("msfp16", "fp32", 1),
    ("mxfp8_e4m3", "fp32", 1), ("mxfp4_e2m1", "bf16", 1), ("mxint8", "fp32", 3),
    ("bdr_m3_k8_d8_k4_d2", "fp32", 1),  # k1 = 8, k2 = 4, d2 = 2 (shifts 0..3)
    ("bdr_m5_k8_d4_k2_d3", "fp32", 2),  # d1 = 4: the shared exponent clamps at -8 and 7; shifts 0..7
]
FAST = {"verilator": 2_000, "icarus": 300}
SLOW = {"verilator": 1_000_000, "icarus": 20_000}


def _run(regress, cfg, sim, vectors, seed=3, stall=0.15):
    return regress(cfg, sim, vectors=vectors, seed=seed, stall=stall)


def _encoder(fmt, source, latency):
    return dict(unit="block-encoder", format=fmt, source=source, rounding=get_format(fmt).roundings,
                latency=latency, seed=17)


@pytest.mark.sim
@pytest.mark.parametrize("sim", ("verilator", "icarus"))
@pytest.mark.parametrize("fmt, source, latency", FORMATS, ids=[f[0] for f in FORMATS])
def test_block_encoder_every_rounding_with_backpressure(fmt, source, latency, sim, regress):
    n = FAST[sim]
    result = _run(regress, _encoder(fmt, source, latency), sim, n)
    assert result.vectors >= n


# Decoders: every decode path (BDR with and without shifts, small d1, FP elements with NaN/Inf codes, INT8)
# gets a Verilator build with 2k blocks in the fast tier; the other decoders differ only in widths and
# run there in the slow tier. Icarus runs every decoder on the directed blocks and 300 random ones in the fast tier.
DECODERS_FAST = [(f, lat, sim) for f, _, lat in FORMATS for sim in ("verilator", "icarus")
                 if sim == "icarus" or f in ("mx9", "msfp16", "mxfp8_e4m3", "mxint8", "bdr_m5_k8_d4_k2_d3")]


@pytest.mark.sim
@pytest.mark.parametrize("fmt, latency, sim", DECODERS_FAST, ids=[f"{f}-{s}" for f, _, s in DECODERS_FAST])
def test_block_decoder_with_backpressure(fmt, latency, sim, regress):
    n = FAST[sim]
    result = _run(regress, dict(unit="block-decoder", format=fmt, latency=latency), sim, n)
    assert result.vectors >= n


@pytest.mark.sim
@pytest.mark.parametrize("sim", ("verilator", "icarus"))
def test_combinational_block_encoder_with_rand_port(sim, regress):
    cfg = dict(unit="block-encoder", format="bdr_m5_k8_d4_k2_d3", source="bf16", rounding=("ta", "sr"),
               rand_bits=8, seed=5)
    _run(regress, cfg, sim, FAST[sim])


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("sim", ("verilator", "icarus"))
@pytest.mark.parametrize("unit", ("block-encoder", "block-decoder"))
@pytest.mark.parametrize("fmt, source, latency", FORMATS, ids=[f[0] for f in FORMATS])
def test_block_units_long(fmt, source, latency, unit, sim, regress):
    """make regress: 1M random blocks per configuration on Verilator (in chunks), 20k on Icarus."""
    cfg = _encoder(fmt, source, latency) if unit == "block-encoder" else dict(unit=unit, format=fmt,
                                                                             latency=latency)
    total, chunk = SLOW[sim], min(SLOW[sim], 100_000)
    for k in range(total // chunk):
        _run(regress, cfg, sim, chunk, seed=1000 + k)
