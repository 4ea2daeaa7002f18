"""Every bad command line of tests/bad_inputs.py (every subcommand x every option class: unknown names,
out-of-range numbers, wrong types, conflicting options, unusable paths, a directory as -o, missing tools)
gives exactly one line ``fpforge: error: ...`` naming the problem, exit status 2, no traceback, and leaves no
file behind. Runs ``fpforge.cli.main`` in-process (the same code path as the console script)."""

from __future__ import annotations

import os

import pytest

from fpforge.cli import main

from bad_inputs import CLI_CASES, PLACE_FILES
from error_messages import assert_no_internals


def _tree(root):
    out = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".cache"]
        for name in dirnames + filenames:
            out.add(os.path.relpath(os.path.join(dirpath, name), root))
    return out


@pytest.fixture
def places(tmp_path, monkeypatch):
    """A working directory with the placeholders of the cases, and a private cache."""
    (tmp_path / "adir").mkdir()
    (tmp_path / "adir.png").mkdir()
    (tmp_path / "empty").mkdir()
    (tmp_path / "afile.txt").write_text("not verilog\n")
    (tmp_path / "bad.lib").write_text("this is not a liberty file\n")
    for key, text in PLACE_FILES.items():
        (tmp_path / f"{key}.lib").write_text(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FPFORGE_CACHE", str(tmp_path / ".cache"))
    return {"dir": str(tmp_path / "adir"), "file": str(tmp_path / "afile.txt"), "badlib": str(tmp_path / "bad.lib"),
            "empty": str(tmp_path / "empty"), **{key: str(tmp_path / f"{key}.lib") for key in PLACE_FILES}}


def test_there_are_at_least_150_cases_with_unique_ids():
    ids = [c[0] for c in CLI_CASES]
    assert len(ids) >= 150 and len(set(ids)) == len(ids)


@pytest.mark.parametrize("argv, expected, env", [pytest.param(a, e, s, id=i) for i, a, e, s in CLI_CASES])
def test_bad_command_line_is_one_clear_line(argv, expected, env, places, monkeypatch, capsys):
    for key, value in env.items():
        monkeypatch.setenv(key, value.format(**places))
    argv = [a.format(**places) for a in argv]
    before = _tree(".")
    status = main(argv)
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert "Traceback" not in err, err
    assert status == 2, f"exit {status}\nstdout: {out}\nstderr: {err}"
    assert len(lines) == 1 and lines[0].startswith("fpforge: error: "), err
    assert expected.format(**places) in lines[0], lines[0]
    assert_no_internals(lines[0])
    assert _tree(".") == before, "files left behind: " + ", ".join(sorted(_tree(".") - before))


def test_sim_help_states_the_default_biases(capsys, monkeypatch):
    """The --biases help quotes the defaults the stimulus really uses (it once gave wrong ones)."""
    from fpforge.sim.vectors import DEFAULT_BIASES, EXHAUSTIVE_BIASES

    monkeypatch.setenv("COLUMNS", "400")  # no line breaks inside the quoted lists
    assert main(["sim", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert f"FP32-source encoders {','.join(map(str, DEFAULT_BIASES))}" in text
    assert f"FP16/BF16-source encoders {','.join(map(str, EXHAUSTIVE_BIASES))}" in text
    assert "decoders of 8-bit formats all 64" in text
