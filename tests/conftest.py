"""Shared pytest fixtures. Each group below belongs to one family of test modules; keep them separate."""

from __future__ import annotations

import numpy as np
import pytest


# -- golden model (tests/test_golden.py, tests/test_golden_oracle.py) ------------------------------
def _golden_fp32_sample(fmt, n: int, seed) -> np.ndarray:
    """``n`` float32 values for checking encoders into ``fmt``; the same ``seed`` gives the same values.

    The first half are uniform over all 2**32 bit patterns (so NaNs with every payload, infinities,
    zeros and FP32 subnormals all occur); the second half are weighted to the target's range: random
    sign, unbiased exponent uniform in ``[emin - mbits - 3, emax + 2]`` (below the smallest subnormal up
    to past the overflow threshold), random mantissa, and for a quarter of them the ``k`` low mantissa
    bits cleared (``k`` uniform in 0..23) so that exact values, ties and the sticky boundary of the
    memoised path all occur often.
    """
    rng = np.random.default_rng(seed)
    n_uniform = n // 2
    n_weighted = n - n_uniform
    uniform = rng.integers(0, 1 << 32, size=n_uniform, dtype=np.uint32)

    sign = rng.integers(0, 2, size=n_weighted, dtype=np.uint32) << np.uint32(31)
    e = rng.integers(fmt.emin - fmt.mbits - 3, fmt.emax + 3, size=n_weighted)
    exp_field = (e + 127).astype(np.uint32) << np.uint32(23)
    man = rng.integers(0, 1 << 23, size=n_weighted, dtype=np.uint32)
    k = rng.integers(0, 24, size=n_weighted).astype(np.uint32)
    truncate = rng.random(n_weighted) < 0.25
    man = np.where(truncate, man & (np.uint32(0xFFFFFFFF) << k), man)
    weighted = sign | exp_field | man
    return np.concatenate([uniform, weighted]).view(np.float32)


@pytest.fixture(scope="session")
def golden_fp32_sample():
    """The sampler :func:`_golden_fp32_sample` (``fmt``, ``n``, ``seed``) -> float32 array."""
    return _golden_fp32_sample


# -- cocotb regressions (tests/test_*regress.py) ---------------------------------------------------
@pytest.fixture(scope="session")
def simulators():
    """``{name: reason}``: an empty reason where the simulator is usable."""
    from fpforge.sim.run import available_simulators

    return available_simulators()


@pytest.fixture
def regress(request, simulators):
    """``regress(cfg, sim, **kwargs)``: ``regress_unit`` (a list of dot configurations: ``regress_bundle``)
    on ``sim`` under ``build/test-sim``; skips, naming the reason, where the simulator is missing, and
    fails unless every vector matched. Returns the :class:`~fpforge.sim.run.Result`. ``vectors`` is the
    random count where the unit has random vectors; an exhaustive unit (decoder, 16-bit source, whose
    regress_unit refuses a count) runs without it, so one parametrized test can pass it for every source."""
    from fpforge.sim.regress import exhaustive, regress_bundle, regress_unit

    build_root = request.config.rootpath / "build" / "test-sim"

    def run(cfg, sim, **kwargs):
        reason = simulators.get(sim)
        if reason:
            pytest.skip(f"{sim} not available: {reason}")
        if not isinstance(cfg, list) and exhaustive(cfg):
            kwargs.pop("vectors", None)
        result = (regress_bundle if isinstance(cfg, list) else regress_unit)(cfg, sim, build_root=build_root,
                                                                             **kwargs)
        assert result.passed, result.summary()
        return result

    return run


@pytest.fixture
def harness_check():
    """``harness_check(cfg)``: the combinational unit ``cfg`` on the Verilator C++ harness of ``fpforge
    prove`` (:mod:`fpforge.sim.prove_sample`: every 16-bit pattern or code; FP32: slices around every
    directed corner plus scattered slices) under every (mode, sat) pair; fails unless every vector of
    every condition matched, skips where Verilator is missing. Returns the ``ProofResult`` list."""
    from fpforge.golden.errors import ToolMissing
    from fpforge.sim.prove_sample import check_unit, describe, sample_segments
    from fpforge.sim.prove_unit import ProofUnit

    def run(cfg):
        try:
            segments = sample_segments(cfg)
            results = check_unit(ProofUnit.generated(cfg), segments)
        except ToolMissing as e:
            pytest.skip(str(e))
        n = sum(count for _, count in segments)
        assert results and all(r.vectors == n for r in results), [(r.condition, r.vectors) for r in results]
        assert not any(r.mismatches for r in results), describe(results)
        return results

    return run


# -- scheduling ------------------------------------------------------------------------------------
def pytest_collection_modifyitems(config, items):
    """Run the simulator and synthesis tests first (stable order otherwise).

    They are the long ones; started first, the two xdist workers (``--dist worksteal`` in the Makefile)
    finish together instead of one waiting on a late long simulation while the other sits idle.
    """
    def weight(item):
        return 0 if item.get_closest_marker("sim") else 1 if item.get_closest_marker("synth") else 2

    items.sort(key=weight)
