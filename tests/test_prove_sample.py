"""The prove-harness checks of `make test` (`fpforge.sim.prove_sample`): the FP32 sample covers what it says,
the scattered draws are the golden generator's, and a wrong unit fails the check.

- every directed corner of `fpforge.sim.vectors.directed` (and ±8 patterns around it) is inside the
  sample; the slices are sorted and disjoint; more than 100k patterns per (mode, sat) pair;
- `states_at` (jump-ahead for scattered indices) against `fpforge.golden.random_bits` one index at a time;
- a mutant E4M3 encoder (overflow threshold moved one code down, as in test_prove.py) checked on the
  sample through `check_unit`: operands that round to 448 are reported as mismatches.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from fpforge.golden import random_bits
from fpforge.hw.generate import build_unit, default_name, to_verilog
from fpforge.sim.prove_sample import CORNER_RADIUS, check_unit, sample_segments, states_at
from fpforge.sim.prove_unit import ProofUnit
from fpforge.sim.vectors import directed

E4M3_ALL = dict(unit="encoder", format="e4m3", source="fp32", rounding=("rne", "ta", "rtz", "sr"), saturate="runtime")


@pytest.mark.parametrize("fmt", ["e4m3", "e2m1", "hif8"])
def test_fp32_sample_covers_every_corner(fmt):
    segs = sample_segments(dict(unit="encoder", format=fmt, source="fp32"))
    starts = np.array([s for s, _ in segs])
    ends = starts + np.array([n for _, n in segs])
    assert np.all(starts[1:] > ends[:-1])  # sorted, disjoint, not even touching (merged)
    assert sum(n for _, n in segs) > 100_000
    corners = directed(fmt, "fp32").astype(np.int64)
    for d in (-CORNER_RADIUS, 0, CORNER_RADIUS):
        p = np.clip(corners + d, 0, (1 << 32) - 1)
        k = np.searchsorted(starts, p, side="right") - 1
        assert np.all((k >= 0) & (p < ends[k])), "a corner outside the sample"


def test_16_bit_sources_and_decoders_are_whole_domains():
    assert sample_segments(dict(unit="encoder", format="e5m2", source="bf16")) == [(0, 65_536)]
    assert sample_segments(dict(unit="decoder", format="e5m2", target="fp32")) == [(0, 256)]


def test_states_at_scattered_indices_are_the_golden_generators():
    idx = np.array([0, 1, 5, 1000, 123_456_789, (1 << 32) - 1, 77])
    got = states_at(9, idx)
    assert [int(v) for v in got] == [int(random_bits(9, 1, 32, start=int(i))[0]) for i in idx]


@pytest.mark.sim
def test_mutant_fails_the_sample_check(tmp_path):
    unit = build_unit(**E4M3_ALL)
    verilog = to_verilog(unit, default_name(unit))
    assert len(re.findall(r"> 7'h7e;", verilog)) == 1, "the generated Verilog changed: pick another mutation"
    path = tmp_path / "mutant.v"
    path.write_text(verilog.replace("> 7'h7e;", "> 7'h7d;"))
    mutant = ProofUnit.from_file(E4M3_ALL, path)
    results = check_unit(mutant, sample_segments(E4M3_ALL), [c for c in mutant.conditions() if c.mode == "rne"])
    rne0 = results[0]
    assert rne0.condition.sat == 0 and rne0.mismatches > 0
    # the first: an operand above the 416/448 midpoint, which rounds to 448 (0x7e) and the mutant overflows
    first = rne0.first[0]
    assert 0x43D00000 <= first["a"] <= 0x43E00000 and first["expected"]["y"] == 0x7E and first["actual"]["y"] == 0x7F
