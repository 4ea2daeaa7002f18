"""`fpforge verilog ... --fusesoc DIR`: the Verilog and a CAPI2 core, validated by the real FuseSoC (the
``fusesoc`` package of the test extras, run as a subprocess): ``core-info`` finds the core by its VLNV,
``run --setup`` resolves it (a dependent core too) into an EDAM file naming the toplevel and the Verilog file,
and the core's ``lint`` target runs Verilator on the file (and fails on a broken one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from fpforge.cli import main
from fpforge.hw.fusesoc import core_name, core_text, core_version, write_fusesoc
from fpforge.hw.spec import spec_from_options

UNITS = {
    "encoder": (["encoder", "-f", "e4m3"], dict(unit="encoder", format="e4m3")),
    "decoder": (["decoder", "-f", "hif8", "--target", "bf16"], dict(unit="decoder", format="hif8", target="bf16")),
    "block-encoder": (["block-encoder", "-f", "mx9"], dict(unit="block-encoder", format="mx9")),
}


def _fusesoc(cwd, *args, check=True, env=None):
    """The real fusesoc command line (a private HOME: its cache and config stay in the test's directory)."""
    env = dict(os.environ, HOME=str(cwd), XDG_CACHE_HOME=str(cwd / ".xdg"), **(env or {}))
    p = subprocess.run([sys.executable, "-m", "fusesoc.main", *args], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=120)
    if check:
        assert p.returncode == 0, p.stdout + p.stderr
    return p


def _generate(tmp_path, capsys, argv, cores="cores"):
    assert main(["verilog", *argv, "--fusesoc", str(tmp_path / cores)]) == 0
    out = capsys.readouterr().out.split()
    assert len(out) == 2 and out[0].endswith(".v") and out[1].endswith(".core"), out
    return out


@pytest.mark.parametrize("kind", list(UNITS))
def test_fusesoc_core_info_and_setup_report_toplevel_and_file(kind, tmp_path, capsys):
    argv, options = UNITS[kind]
    v_path, core_path = _generate(tmp_path, capsys, argv)
    module = os.path.basename(v_path)[:-2]
    spec = spec_from_options(**options)
    assert sorted(os.listdir(tmp_path / "cores")) == sorted([f"{module}.v", f"{module}.core"])
    # the Verilog is what `fpforge verilog -o` writes
    assert main(["verilog", *argv, "-o", str(tmp_path / "plain.v")]) == 0
    assert (tmp_path / "plain.v").read_text() == (tmp_path / "cores" / f"{module}.v").read_text()
    assert f"module {module}(" in (tmp_path / "plain.v").read_text()

    vln = f"fpforge:{spec.unit}:{module}"
    info = _fusesoc(tmp_path, "--cores-root", "cores", "core-info", vln).stdout
    assert f"Name:        {vln}:{core_version(spec)}" in info, info
    assert spec.sha256 in info and "lint" in info and "default" in info

    _fusesoc(tmp_path, "--cores-root", "cores", "run", "--setup", "--target", "lint", "--build-root", "build", vln)
    [eda] = [os.path.join(d, f) for d, _, fs in os.walk(tmp_path / "build") for f in fs if f.endswith(".eda.yml")]
    text = open(eda).read()
    assert f"toplevel: {module}\n" in text, text
    assert "file_type: verilogSource" in text and f"/{module}.v\n" in text, text
    # the spec is in the core: its JSON (as a comment) and one parameter per field
    core = (tmp_path / "cores" / f"{module}.core").read_text()
    assert core.startswith("CAPI=2:\n")
    comment = "\n".join(line[4:] for line in core.splitlines() if line.startswith("#   "))
    assert json.loads(comment) == spec.to_dict()
    for field in spec.to_dict():
        assert f"  fpforge_{field}:\n" in core


def test_version_is_numeric_and_follows_the_spec():
    a, b = spec_from_options(unit="encoder", format="e4m3"), spec_from_options(unit="encoder", format="e5m2")
    va, vb = core_version(a), core_version(b)
    assert va != vb and va.split(".")[-1] == str(int(a.sha256[:8], 16))
    assert all(part.isdigit() for part in va.split("."))
    assert core_name(a, "m") == f"fpforge:encoder:m:{va}"
    assert core_text(a, "m", "m.v") == core_text(spec_from_options(unit="encoder", format="E4M3"), "m", "m.v")


def test_a_dependent_core_resolves_and_the_lint_target_runs_verilator(tmp_path, capsys):
    from fpforge.sim.run import verilator_env

    _generate(tmp_path, capsys, ["encoder", "-f", "e4m3", "--name", "my_enc"])
    (tmp_path / "dep").mkdir()
    (tmp_path / "dep" / "top.core").write_text(
        "CAPI=2:\nname: me:lib:top:1.0\nfilesets:\n  rtl:\n    depend: [\">=fpforge:encoder:my_enc:0\"]\n"
        "targets:\n  default:\n    flow: lint\n    flow_options: {tool: verilator}\n    filesets: [rtl]\n"
        "    toplevel: my_enc\n")
    _fusesoc(tmp_path, "--cores-root", "cores", "--cores-root", "dep", "run", "--setup", "--build-root", "b2",
             "me:lib:top")
    [eda] = [os.path.join(d, f) for d, _, fs in os.walk(tmp_path / "b2") for f in fs if f.endswith(".eda.yml")]
    assert "/my_enc.v\n" in open(eda).read()

    exe = verilator_env()
    env = {"PATH": os.environ["PATH"], "VERILATOR_ROOT": str(exe.parent.parent)}
    lint = ["--cores-root", "cores", "run", "--target", "lint", "--build-root", "build", "fpforge:encoder:my_enc"]
    _fusesoc(tmp_path, *lint, env=env)
    with open(tmp_path / "cores" / "my_enc.v", "a") as f:  # a syntax error: the lint target must fail
        f.write("module broken(input a); wire b = a endmodule\n")
    p = _fusesoc(tmp_path, *lint, check=False, env=env)
    assert p.returncode != 0, p.stdout + p.stderr


def test_fusesoc_overwrites_and_creates_only_the_last_directory(tmp_path, capsys):
    _generate(tmp_path, capsys, ["encoder", "-f", "e4m3"], cores="new")  # created
    _generate(tmp_path, capsys, ["encoder", "-f", "e4m3"], cores="new")  # regenerated in place
    assert sorted(os.listdir(tmp_path / "new")) == ["fpforge_enc_fp32_e4m3.core", "fpforge_enc_fp32_e4m3.v"]


def test_spec_json_with_fusesoc_checks_dir_and_writes_nothing(tmp_path, capsys):
    assert main(["verilog", "encoder", "-f", "e4m3", "--fusesoc", str(tmp_path / "d"), "--spec-json"]) == 0
    assert json.loads(capsys.readouterr().out)["unit"] == "encoder"
    assert not (tmp_path / "d").exists()


def test_write_fusesoc_api_errors(tmp_path):
    from fpforge.golden.errors import FpforgeTypeError, FpforgeValueError

    spec = spec_from_options(unit="encoder", format="e4m3")
    with pytest.raises(FpforgeTypeError, match="verilog must be the Verilog text"):
        write_fusesoc(tmp_path, spec, "m", b"module m; endmodule")
    with pytest.raises(FpforgeValueError, match="module name must be a Verilog identifier"):
        write_fusesoc(tmp_path, spec, "a-b", "module m; endmodule")
    with pytest.raises(FpforgeTypeError, match="spec must be a UnitSpec"):
        core_text({"unit": "encoder"}, "m", "m.v")
    with pytest.raises(FpforgeValueError, match="does not exist"):
        write_fusesoc(tmp_path / "x" / "y", spec, "m", "module m; endmodule")
    (tmp_path / "m.core").mkdir()  # the core's path is taken by a directory: nothing written
    with pytest.raises(FpforgeValueError, match="is a directory"):
        write_fusesoc(tmp_path, spec, "m", "module m; endmodule")
    assert os.listdir(tmp_path) == ["m.core"]
