"""What no error message may contain (issue 30, class 6): a doubled ``fpforge: error: fpforge:`` prefix, a
private name (an identifier with a leading underscore) or the name of one of fpforge's internal functions
(``precision_by_exponent takes ...`` for ``fpforge plot``). Used by tests/test_cli_errors.py and
tests/test_api_errors.py on every bad input of tests/bad_inputs.py."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
_PACKAGES = ("golden", "hw", "sim", "synth", "jobs", "sweep", "fpforge")
_PRIVATE = re.compile(r"(?<![^\s'\"(`,=])_[A-Za-z]\w*")  # an identifier of its own, not a part of a word


@functools.lru_cache(maxsize=1)
def internal_names() -> frozenset:
    """Snake-case names of fpforge's functions that are not also a parameter, keyword, field or listed name (a
    message may say ``rand_bits must be ...`` or name a CSV column, not ``precision_by_exponent takes ...``)."""
    defs, words = set(), set()
    for pkg in _PACKAGES:
        for path in (_ROOT / pkg).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    defs.add(node.name)
                    a = node.args
                    words.update(x.arg for x in a.posonlyargs + a.args + a.kwonlyargs)
                elif isinstance(node, ast.keyword) and node.arg:
                    words.add(node.arg)
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                    words.add(node.target.id)  # a dataclass field (a CSV/JSON column) is a user-visible name
                elif (isinstance(node, ast.Assign) and isinstance(node.value, (ast.Tuple, ast.List))
                      and not any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)):
                    words.update(e.value for e in node.value.elts  # a listed name (COLUMNS, choices) is one too
                                 if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return frozenset(d for d in defs - words if "_" in d.strip("_") and not d.startswith("_"))


def internals_in(message: str, *, functions=True) -> list:
    """The doubled prefixes, private names and (``functions``: for the command line, whose user calls no
    function) function names in ``message``, an error line or an exception's text."""
    text = message.removeprefix("fpforge: error: ")
    found = ["doubled prefix"] if re.match(r"fpforge( [\w-]+)?: ", text) else []
    found += _PRIVATE.findall(text)
    if functions:
        found += [w for w in re.findall(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b", text) if w in internal_names()]
    return found


def assert_no_internals(message: str, *, functions=True) -> None:
    leaks = internals_in(message, functions=functions)
    assert not leaks, f"{leaks} in: {message}"
