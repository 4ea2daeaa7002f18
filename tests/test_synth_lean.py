"""The lean flow (``synthesize(..., pre_abc_script=LEAN_PRE_ABC_SCRIPT)``, the sweep's ``--flow lean``; real yosys,
no mocks): synth's generic ABC pass run with a script of the caller's, yosys' own script given explicitly giving
the flat flow's netlist exactly, the lean script's area on a real dot unit, the sweep's tasks and keys, bad input.
The >= 40-point comparison against the flat flow is ``make regress`` (tests/test_sweep_flows.py)."""

from __future__ import annotations

import json

import pytest

from fpforge.hw import build_unit, to_verilog
from fpforge.sweep import SPACES
from fpforge.sweep.evaluate import area_key, unit_spec
from fpforge.sweep.run import _area
from fpforge.synth import SynthError, flow, synthesize

pytestmark = pytest.mark.synth

#: yosys 0.70's own script of synth's generic `abc` pass (the gate library; `help abc`, and the script its log
#: echoes): given explicitly, the lean flow's mechanics must reproduce the flat flow bit for bit.
YOSYS_GENERIC_SCRIPT = ("strash; &get -n; &fraig -x; &put; scorr; dc2; dretime; strash; &get -n; &dch -f; &nf; "
                        "&put")


@pytest.fixture(scope="module")
def dot():
    # a real BDR dot unit, the paper's area method (I/O registered): r = 4, four 4x4 multipliers
    return to_verilog(build_unit(unit="dot", format="bdr_m4_k4_d8_k2_d1", r=4, f=12, io_registers=True), "dotl")


def test_yosys_own_generic_script_given_explicitly_is_the_flat_flow_exactly(dot):
    flat = synthesize(dot, "dotl", goal="area", netlist=True)
    own = synthesize(dot, "dotl", goal="area", netlist=True, pre_abc_script=YOSYS_GENERIC_SCRIPT)
    assert own["netlist_verilog"] == flat["netlist_verilog"] and own["area_um2"] == flat["area_um2"]
    assert own["pre_abc_script"] == YOSYS_GENERIC_SCRIPT and flat["pre_abc_script"] is None


def test_the_lean_script_maps_a_dot_unit_within_the_tolerance_of_the_flat_flow(dot):
    flat = synthesize(dot, "dotl", goal="area")
    lean = synthesize(dot, "dotl", goal="area", pre_abc_script=flow.LEAN_PRE_ABC_SCRIPT)
    assert lean["flip_flops"] == flat["flip_flops"]  # same registers: only the combinational mapping differs
    assert abs(lean["area_um2"] / flat["area_um2"] - 1) <= flow.REUSE_AREA_TOLERANCE
    assert "&fraig -x -C 100" in flow.LEAN_PRE_ABC_SCRIPT and "&dch" not in flow.LEAN_PRE_ABC_SCRIPT


@pytest.mark.parametrize("kw, message", [
    (dict(pre_abc_script=""), "pre_abc_script must be a non-empty string, got ''"),
    (dict(pre_abc_script=5), "pre_abc_script must be a non-empty string, got 5"),
    (dict(pre_abc_script="strash", pre_abc=False), "give one or the other"),
])
def test_a_bad_pre_abc_script_is_one_error(dot, kw, message):
    with pytest.raises(SynthError) as e:
        synthesize(dot, "dotl", **kw)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_the_lean_flow_is_the_paper_default_and_keys_its_script_apart():
    sp = SPACES["paper"]()
    assert sp.flow == "lean"
    p = sp.points[0]
    made = dict(verilog_sha256="0" * 64, top="t")
    lean = _area(sp, unit_spec(p, sp.rs[0], sp.fs[0]))
    assert lean["pre_abc_script"] == flow.LEAN_PRE_ABC_SCRIPT and "reuse" not in lean
    key = area_key(dict(lean, **made))
    flat = area_key(dict(_area(sp.with_(flow="flat"), unit_spec(p, sp.rs[0], sp.fs[0])), **made))
    # the flat key is the one it always was (no pre_abc_script): lean areas never mix with flat ones
    assert "pre_abc_script" not in flat and key == dict(flat, pre_abc_script=flow.LEAN_PRE_ABC_SCRIPT)


def test_fpforge_synth_flow_lean_runs_the_lean_generic_pass(tmp_path):
    from fpforge.cli import main
    from fpforge.hw import default_name

    unit = build_unit(unit="encoder", format="e4m3")
    api = synthesize(to_verilog(unit, default_name(unit)), default_name(unit), pre_abc_script=flow.LEAN_PRE_ABC_SCRIPT)
    out = tmp_path / "r.json"
    assert main(["synth", "encoder", "-f", "e4m3", "--flow", "lean", "--json", "-o", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert rep["flow"] == "lean" and rep["pre_abc_script"] == flow.LEAN_PRE_ABC_SCRIPT
    assert rep["area_um2"] == api["area_um2"] and rep["cell_count"] == api["cell_count"]
