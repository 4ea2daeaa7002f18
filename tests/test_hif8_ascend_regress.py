"""cocotb regressions of the Ascend-compatible HiF8 units (``compat="ascend"``, issue 15) on Verilator and
Icarus against the golden model (itself checked against the issue's rule in tests/test_hif8_ascend.py).

Fast tier (`make test`): on Verilator one model per source with hybrid rounding and other modes beside it
(FP32: all five, so the hr-only range checks are seen to stay out of the other modes) and a run-time `sat`
port; on Icarus one `hr` + `sat` model per source and the decoders into all three targets. Stimulus: all
65,536 FP16/BF16 patterns per (mode, sat) pair; FP32: 100k random patterns, the directed corners of every
HiF8 value and midpoint (±1 ulp), and ±0..32 ulps plus 64 random low-14-bit patterns around 2^-23,
1.25 × 2^15 and 1.5 × 2^15 (``fpforge.sim.vectors.tapered_thresholds``).
Long tier (`make regress`): every mode on both simulators for every source (FP32: 1M random per pair on
Verilator, 200k on Icarus), the decoders on Verilator, and a latency-2 stream with stalls.
"""

import pytest

ALL = ("ta", "hr", "sr", "rne", "rtz")
SOURCES = ("fp32", "fp16", "bf16")

FAST = [
    ("verilator", dict(source="fp32", rounding=("hr",) + tuple(m for m in ALL if m != "hr"))),
    ("verilator", dict(source="fp16", rounding=("hr", "ta"))),
    ("verilator", dict(source="bf16", rounding=("hr", "rne"))),
    ("icarus", dict(source="fp32", rounding=("hr",))),
    ("icarus", dict(source="fp16", rounding=("hr",))),
    ("icarus", dict(source="bf16", rounding=("hr",))),
]


def _cfg(**kw):
    return dict(dict(unit="encoder", format="hif8", compat="ascend", saturate="runtime", seed=15), **kw)


@pytest.mark.sim
@pytest.mark.parametrize("sim, opts", FAST, ids=lambda v: v if isinstance(v, str) else
                         f"{v['source']}-{'+'.join(v['rounding'])}")
def test_ascend_encoder(sim, opts, regress):
    result = regress(_cfg(**opts), sim, vectors=100_000, seed=15)
    pairs = 2 * len(opts["rounding"])
    assert result.vectors // pairs >= (65_536 if opts["source"] != "fp32" else 100_000)


@pytest.mark.sim
@pytest.mark.parametrize("target", SOURCES)
def test_ascend_decoder_all_codes(target, regress):
    result = regress(dict(unit="decoder", format="hif8", compat="ascend", target=target), "icarus")
    assert result.vectors == 256


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("sim", ("verilator", "icarus"))
@pytest.mark.parametrize("source", SOURCES)
def test_ascend_encoder_every_mode_long(source, sim, regress):
    """make regress: every mode and saturation; FP32 with 1M random patterns per pair on Verilator, 200k on
    Icarus (about 20 times slower)."""
    n = 1_000_000 if sim == "verilator" else 200_000
    result = regress(_cfg(source=source, rounding=ALL), sim, vectors=n, seed=16)
    assert result.vectors // (2 * len(ALL)) >= (65_536 if source != "fp32" else n)


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("target", SOURCES)
def test_ascend_decoder_verilator(target, regress):
    regress(dict(unit="decoder", format="hif8_ascend", target=target), "verilator")


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("sim", ("verilator", "icarus"))
def test_ascend_stream_with_stalls(sim, regress):
    regress(_cfg(source="fp32", rounding=ALL, latency=2, seed=77), sim, vectors=20_000, seed=9, stream_vectors=12_000)
