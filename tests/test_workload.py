"""The workload of ``activity="workload"`` (fpforge.synth.activity, docs/ppa.md "Power from a workload"):
the stimulus of each kind of unit, and the gate-level simulator against the golden model on real mapped
netlists (yosys on the bundled fpforge45 cells: no OpenSTA needed). Fast: a few seconds."""

from __future__ import annotations

import re

import numpy as np
import pytest

from fpforge.golden import decode_bits, get_format
from fpforge.hw.generate import build_unit, default_name, to_verilog
from fpforge.hw.spec import DecoderSpec, DotSpec, EncoderSpec
from fpforge.synth import DEFAULT_LIBERTY, synthesize
from fpforge.synth.activity import DEFAULT_CYCLES, has_workload, net_activity, workload_stimulus

__all__: list[str] = []


def _inputs(verilog, name):
    body = re.search(rf"module {re.escape(name)}\b.*?endmodule", verilog, re.S).group(0)
    return {m[1]: int(m[0]) + 1 if m[0] else 1
            for m in re.findall(r"^\s*input\s+(?:\[(\d+):0\]\s*)?(\w+);", body, re.M)}


SPECS = [EncoderSpec(format="e4m3"), EncoderSpec(format="cfloat8_143"), EncoderSpec(format="hif8", source="fp16"),
         EncoderSpec(format="e5m2", rounding=("rne", "sr"), saturate="runtime"), DecoderSpec(format="e5m2"),
         DecoderSpec(format="cfloat8_152"), DotSpec(format="mx6", r=16, f=32), DotSpec(format="fp8", r=2, f=32),
         DotSpec(format="cfloat8_143", r=2, f=32, io_registers=True)]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.key if hasattr(s, "key") else str(s))
def test_stimulus_drives_every_input_and_varies(spec):
    verilog, name = (lambda u: (to_verilog(u, default_name(u)), default_name(u)))(build_unit(spec))
    ports = _inputs(verilog, name)
    assert has_workload(spec)
    st = workload_stimulus(spec, ports=ports)
    assert set(st) == set(ports) - {"clk"}
    for p, v in st.items():
        assert len(v) == DEFAULT_CYCLES
    data = st["a"]
    assert len(np.unique(data, axis=0)) > 32  # real data, not a constant


def test_encoder_values_are_the_qsnr_distribution():
    """Each 256-value vector is scaled by its amax scale: its largest magnitude is the format's max (the
    scale is rounded to FP32's significand, so within a few ulp)."""
    st = workload_stimulus(EncoderSpec(format="e4m3"))
    x = st["a"].astype(np.uint32).view(np.float32)[: 256 * 16].reshape(16, 256)
    assert np.allclose(np.abs(x).max(axis=1), get_format("e4m3").max_value, rtol=1e-6)
    assert st["mode"].max() == st["mode"].min()


def _netlist(spec, liberty=None):
    unit = build_unit(spec)
    name = default_name(unit)
    rep = synthesize(to_verilog(unit, name), name, netlist=True, liberty=liberty)
    text = rep["netlist_verilog"]
    return text, name


def _word(waves, port, width, n):
    out = np.zeros(n, np.uint64)
    for i in range(width):
        w = waves.get(f"{port}[{i}]", 0)
        bits = np.frombuffer(w.to_bytes((n + 7) // 8, "little"), np.uint8)
        out |= np.unpackbits(bits, bitorder="little")[:n].astype(np.uint64) << np.uint64(i)
    return out


def test_simulated_decoder_netlist_matches_the_golden_model():
    """All 256 E4M3 codes through the mapped decoder (1-bit cells of fpforge45): the simulated outputs are
    the golden decodes, and the toggles of the output bits are theirs."""
    spec = DecoderSpec(format="e4m3")
    text, name = _netlist(spec)
    codes = np.arange(256, dtype=np.uint64)
    sim = net_activity(text, name, DEFAULT_LIBERTY, {"a": codes}, waves=True)
    want = decode_bits(get_format("e4m3"), codes, "fp32").astype(np.uint64)
    assert np.array_equal(_word(sim["waves"], "y", 32, 256), want)
    bit5 = (want >> np.uint64(5)) & np.uint64(1)
    assert sim["nets"]["y[5]"][0] == int(np.count_nonzero(bit5[1:] != bit5[:-1]))


def _osu018():
    from fpforge.golden.errors import FpforgeError
    from fpforge.synth.tech import resolve_liberty

    try:
        return resolve_liberty("osu018")
    except FpforgeError as e:
        pytest.skip(str(e))


@pytest.mark.parametrize("lib", ["fpforge45", "osu018"])
def test_registered_dot_unit_outputs_the_golden_dot_two_cycles_later(lib):
    """An E2M1 dot unit with registered inputs and outputs (flip-flops: fpforge45's DFF_X1, osu018's
    DFFPOSX1): cycle t's output is the golden dot product of cycle t-2's operands (the workload's own vectors)."""
    liberty = DEFAULT_LIBERTY if lib == "fpforge45" else _osu018()
    from fpforge.golden.dot import dot, quantized_operands
    from fpforge.golden.qsnr import gaussian_vectors

    spec = DotSpec(format="e2m1", r=2, f=16, io_registers=True)
    text, name = _netlist(spec, liberty)
    n = 64
    st = {k: v[:n] for k, v in workload_stimulus(spec).items()}
    st["rst"] = np.zeros(n, np.uint64)
    sim = net_activity(text, name, liberty, st, waves=True)
    dc = spec.config
    qa = quantized_operands(dc, gaussian_vectors(DEFAULT_CYCLES, 2, 1)[:n], side="a")
    qb = quantized_operands(dc, gaussian_vectors(DEFAULT_CYCLES, 2, 2)[:n], side="b")
    want = dot(dc, qa, None, qb).y.astype(np.uint64)
    got = _word(sim["waves"], "y", 32, n)
    assert np.array_equal(got[2:], want[:-2])
    assert got[0] == 0
