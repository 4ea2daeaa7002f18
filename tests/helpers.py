"""Helpers shared by the test modules (import as ``from helpers import ...``; pytest puts tests/ on the path).

* :func:`fpforge`: the command line in a subprocess, as a user runs it.
* :func:`all_patterns`: every bit pattern of a 16-bit source, as that source's numpy values.
* :data:`TINY`: a sweep space of three cheap dot units (tests of the sweep and of killed sweeps).
* :func:`ppa_missing`: why delay/power cannot be measured here (no OpenSTA, no osu018), or None.
* :func:`run_comb`: drive a combinational Amaranth unit vector by vector and read its outputs, in
  Amaranth's own simulator (async testbench).
"""

from __future__ import annotations

import functools
import subprocess
import sys

import ml_dtypes
import numpy as np

__all__ = ["SIXTEEN_BIT", "TINY", "all_patterns", "dot_case", "fpforge", "ppa_missing", "run_comb"]

#: A sweep space of three cheap dot units and the r = 2 FP8 baseline: a few seconds of yosys each.
TINY = """
name = "tiny"
[dot]
r = 2
f = 8
[qsnr]
vectors = 64
[[grid]]
m = [1]
k1 = [2]
k2 = [1]
d2 = [0, 1]
[[points]]
preset = "e4m3"
"""


#: The 16-bit sources and their numpy dtypes.
SIXTEEN_BIT = {"fp16": np.float16, "bf16": ml_dtypes.bfloat16}


@functools.lru_cache(maxsize=1)
def ppa_missing() -> str | None:
    """The one-line reason OpenSTA or the osu018 cells are missing (the PPA tests skip with it), or None."""
    from fpforge.golden.errors import FpforgeError
    from fpforge.synth.sta import sta_command
    from fpforge.synth.tech import resolve_liberty

    try:
        sta_command()
        resolve_liberty("osu018")
    except FpforgeError as exc:
        return str(exc)
    return None


def fpforge(*args, cwd=None) -> subprocess.CompletedProcess:
    """Run ``python -m fpforge ARGS`` and capture its output (text)."""
    return subprocess.run([sys.executable, "-m", "fpforge", *args], capture_output=True, text=True, cwd=cwd)


def all_patterns(source: str) -> np.ndarray:
    """Every bit pattern of the 16-bit source ``fp16`` or ``bf16``, viewed as its values."""
    return np.arange(1 << 16, dtype=np.uint16).view(SIXTEEN_BIT[source])


def run_comb(dut, inputs: dict, outputs) -> dict:
    """Apply ``inputs`` (``{port: sequence of ints}``, equal lengths; a scalar is held) to the combinational
    ``dut`` one vector at a time and return ``{port: [int, ...]}`` for every name in ``outputs``."""
    from amaranth.sim import Simulator

    n = max(len(v) for v in inputs.values() if np.ndim(v))
    got = {name: [] for name in outputs}

    async def bench(ctx):
        for i in range(n):
            for name, values in inputs.items():
                ctx.set(getattr(dut, name), int(values[i] if np.ndim(values) else values))
            for name in outputs:
                got[name].append(ctx.get(getattr(dut, name)))

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
    return got


def dot_case(cfg, n_random, seed):
    """A dot unit's directed and ``n_random`` random operands, the golden results, and the operands' words as
    Python ints (one per dot product, for Amaranth's simulator): ``(ops, res, words_a, words_b)``."""
    from fpforge.golden.dot import dot, operand_words
    from fpforge.sim.vectors import concat_dot_operands, directed_dot_operands, random_dot_operands
    from fpforge.sim.vectors.dot import bias_kwargs

    def ints(words):
        return [int.from_bytes(np.ascontiguousarray(row.astype("<u8")).tobytes(), "little") for row in words]

    ops = concat_dot_operands(cfg, [directed_dot_operands(cfg, seed), random_dot_operands(cfg, n_random, seed)])
    res = dot(cfg, ops.a, None, ops.b, select_a=ops.sel_a, select_b=ops.sel_b, **bias_kwargs(cfg, ops))
    return ops, res, ints(operand_words(cfg.a, ops.a)), ints(operand_words(cfg.b, ops.b))
