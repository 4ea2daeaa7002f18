"""The error policy, checked on the source: bad input raises fpforge's error classes, the command line
tells bugs from bad input.

* No module of golden/, hw/, sim/, synth/, jobs/ or fpforge/ raises a bare ``ValueError``, ``TypeError`` or
  ``KeyError``: those report bad input and must be ``FpforgeValueError``, ``FpforgeTypeError`` or
  ``UnknownName`` (subclasses of both the built-in and ``FpforgeError``), which ``fpforge.cli.main`` prints
  as one line. A new module that forgets fails here, naming the line. An internal lookup that only a bug
  can reach says so on its line (``# not user input: ...``) and stays a built-in (exit 70 if it fires).
* No ``assert`` guards input a user can reach (``python -O`` drops asserts, and an ``AssertionError`` is a
  bug report): an internal invariant says so on its line (``# not user input: ...``); a check of the
  caller's input raises an fpforge error instead.
* Every public exception class defined in those packages is an ``FpforgeError``.
* ``main`` turns an unexpected exception into exit status 70 with "internal error ... this is a bug" and
  the traceback, never into a usage error.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("golden", "hw", "sim", "synth", "jobs", "sweep", "fpforge")
BARE = {"ValueError", "TypeError", "KeyError"}


def _sources():
    for pkg in PACKAGES:
        yield from sorted((ROOT / pkg).glob("*.py"))


def test_no_bare_builtin_errors_for_bad_input():
    found = []
    for path in _sources():
        text = path.read_text()
        lines = text.splitlines()
        tree = ast.parse(text, str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and node.exc is not None:
                exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if "# not user input:" in lines[node.end_lineno - 1]:
                    continue
                if isinstance(exc, ast.Name) and exc.id in BARE:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: raise {exc.id}")
    assert not found, "use fpforge.golden.errors (FpforgeValueError, FpforgeTypeError, UnknownName):\n" + \
        "\n".join(found)


def test_asserts_are_marked_internal_invariants():
    found = []
    for path in _sources():
        lines = path.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(lines), str(path))):
            if isinstance(node, ast.Assert) and "# not user input:" not in lines[node.end_lineno - 1]:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    assert not found, ("an assert that can see user input must raise FpforgeValueError/FpforgeTypeError; an "
                       "internal invariant says `# not user input: why` on its line:\n" + "\n".join(found))


def test_public_exception_classes_are_fpforge_errors():
    import importlib

    from fpforge.golden.errors import FpforgeError

    bad = []
    for path in _sources():
        pkg = path.parent.name
        module = f"fpforge.{path.stem}" if pkg == "fpforge" else f"fpforge.{pkg}.{path.stem}"
        if path.stem in ("__main__",) or path.stem.startswith("_"):
            continue
        mod = importlib.import_module(module.replace(".__init__", ""))
        for name, obj in vars(mod).items():
            if (isinstance(obj, type) and issubclass(obj, Exception) and not name.startswith("_")
                    and obj.__module__ == mod.__name__ and not issubclass(obj, FpforgeError)):
                bad.append(f"{module}.{name}")
    assert not bad, f"exception classes that are not FpforgeError: {bad}"


def test_an_unexpected_exception_is_reported_as_a_bug(monkeypatch, capsys):
    from fpforge import cli, cmd_formats

    def broken(args):
        raise TypeError("a programming error inside fpforge")

    monkeypatch.setattr(cmd_formats, "run", broken)
    assert cli.main(["formats"]) == cli.EXIT_BUG
    err = capsys.readouterr().err
    assert err.startswith("fpforge: internal error: TypeError: a programming error inside fpforge (this is a bug")
    assert "Traceback (most recent call last)" in err


@pytest.mark.parametrize("exc, status", [(KeyboardInterrupt(), 130), (MemoryError(), 2)])
def test_interrupt_and_memory_exhaustion_are_one_line(monkeypatch, capsys, exc, status):
    from fpforge import cli, cmd_formats

    def stop(args):
        raise exc

    monkeypatch.setattr(cmd_formats, "run", stop)
    assert cli.main(["formats"]) == status
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
