"""cocotb regressions of the IEEE P3109 binary8 units, generated from their descriptors alone, against the
golden model (itself checked against gfloat in test_p3109_golden.py).

Fast tier (`make test`), a handful of shapes that cover the corners (precision 1 — no mantissa bits — and 7,
a 7- and an 8-bit exponent field, signed and unsigned, extended and finite):
- Verilator: encoders built with every rounding (rne, ta, rtz, sr) and a run-time `sat` port, so one model
  checks every (mode, saturation) pair: FP16 → binary8p1se and BF16 → binary8p7se on all 65,536 patterns;
- Icarus: FP32 → binary8p3uf (the same build) on 5k random patterns plus the directed corner cases,
  FP32 → binary8p4ue (rne and sr, saturating), and the decoders binary8p1ue → FP32 and binary8p7sf → BF16
  on every code.
Long tier (`make regress`): every format × every source on both simulators (all FP16/BF16 patterns, 100k
random FP32 patterns plus the directed cases, every (mode, sat) pair), and every decoder target that holds
the format's values.
"""

import pytest

from fpforge.golden import get_format
from fpforge.golden.formats import P3109_FORMATS, SOURCES

SIMS = ("verilator", "icarus")
ALL = ("rne", "ta", "rtz", "sr")


def _encoder(fmt, source):
    return dict(unit="encoder", format=fmt, source=source, rounding=ALL, saturate="runtime", seed=19)


FAST = [("verilator", _encoder("binary8p1se", "fp16"), 65_536 * 8),
        ("verilator", _encoder("binary8p7se", "bf16"), 65_536 * 8),
        ("icarus", _encoder("binary8p3uf", "fp32"), 5_000 * 8),
        ("icarus", dict(unit="encoder", format="binary8p4ue", source="fp32", rounding=("rne", "sr"), saturate=True,
                        seed=7), 5_000 * 2),
        ("icarus", dict(unit="decoder", format="binary8p1ue", target="fp32"), 256),
        ("icarus", dict(unit="decoder", format="binary8p7sf", target="bf16"), 256)]


def _id(case):
    sim, cfg, _ = case
    return "-".join([cfg["unit"], cfg["format"], cfg.get("source", cfg.get("target", "")), sim])


@pytest.mark.sim
@pytest.mark.parametrize("case", FAST, ids=_id)
def test_representative_shapes(case, regress):
    sim, cfg, at_least = case
    result = regress(cfg, sim, vectors=5_000 if sim == "icarus" else 20_000, seed=6)
    assert result.vectors >= at_least


def _holds(fmt, target):
    """The target can hold every value of the format exactly (else no decoder exists)."""
    f, t = get_format(fmt), SOURCES[target]
    return f.mbits <= t.mbits and f.emax <= t.emax and f.min_subnormal >= t.min_subnormal


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("fmt", P3109_FORMATS)
def test_every_encoder(fmt, source, sim, regress):
    result = regress(_encoder(fmt, source), sim, vectors=100_000, seed=8)
    assert result.vectors // 8 >= (65_536 if source != "fp32" else 100_000)


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("target", SOURCES)
@pytest.mark.parametrize("fmt", P3109_FORMATS)
def test_every_decoder(fmt, target, sim, regress):
    if not _holds(fmt, target):
        pytest.skip(f"{target} cannot hold every {fmt} value: no such decoder")
    assert regress(dict(unit="decoder", format=fmt, target=target), sim).vectors == 256
