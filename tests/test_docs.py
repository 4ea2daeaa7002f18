"""The documentation is executable: every ```python and ```sh block of README.md and docs/*.md runs, and
the results the text claims are checked.

Conventions (docs/reliability.md, "Executable documentation"):

* ```python blocks of one file run in order in one namespace (a fresh working directory, a private
  fpforge cache). A statement whose line ends in ``# -> EXPR`` claims its value: the value of an
  expression statement, or of the assigned name, must equal ``EXPR`` (a Python expression; numpy's
  ``array``, dtypes, ``nan`` and ``inf`` are in scope). Arrays compare element by element; when ``EXPR``
  spells ``dtype=`` the dtypes must match too.
* ```sh blocks: every line is a command (``#`` starts a comment). ``fpforge ...`` lines run through
  ``fpforge.cli.main`` and must exit 0; ``# -> TEXT`` claims ``TEXT`` appears in what the command printed.
  Other commands (``make``, ``pip``, ...) are only allowed in marked blocks.
* A block preceded by ``<!-- skip: reason -->`` is not run (shown as skipped with the reason); one preceded
  by ``<!-- long: reason -->`` (simulations, synthesis) runs only in ``make regress``, where each of its
  commands must also finish within the README's promise of two minutes.
* Blocks in other languages (or none: diagrams, pseudo-code) are prose.

The blocks are found by parsing whatever the files hold, so a rewritten README is covered as it stands.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import shlex
import time
import tokenize
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LONG_LIMIT_S = 120  # the README's promise for every command it shows

_FENCE = re.compile(r"^```(\w*)\s*$")
_MARK = re.compile(r"^<!--\s*(skip|long)\s*:\s*(.*?)\s*-->\s*$")


def blocks(path: Path):
    """``(language, first line number, text, mark, reason)`` of every fenced block of ``path``."""
    lines = path.read_text().splitlines()
    out, i = [], 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        lang, start = m.group(1).lower(), i + 1
        j = start
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        mark = _MARK.match(lines[k].strip()) if k >= 0 else None
        out.append((lang, start + 1, "\n".join(lines[start:j]) + "\n", *(mark.groups() if mark else (None, None))))
        i = j + 1
    return out


def _cases(kind):
    params = []
    for path in DOCS:
        for lang, line, text, mark, reason in blocks(path):
            if lang != kind or mark == "skip":
                continue
            ident = f"{path.relative_to(ROOT)}:{line}"
            marks = [pytest.mark.slow] if mark == "long" else []
            params.append(pytest.param(path, line, text, mark, reason, id=ident, marks=marks))
    return params


def _python_files():
    """One case per file (its blocks run in order); a second, ``slow`` case with the long blocks too."""
    params = []
    for path in DOCS:
        found = [(line, text, mark, reason) for lang, line, text, mark, reason in blocks(path) if lang == "python"]
        if not found:
            continue
        name = str(path.relative_to(ROOT))
        params.append(pytest.param(path, found, False, id=name))
        if any(m == "long" for _, _, m, _ in found):
            params.append(pytest.param(path, found, True, id=name + "-long", marks=[pytest.mark.slow]))
    return params


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """A fresh working directory and a private fpforge cache."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FPFORGE_CACHE", str(tmp_path / ".cache"))
    return tmp_path


# -- python ---------------------------------------------------------------------------------------------
def _claims(text):
    """``{line: expected expression}`` from ``# -> EXPR`` comments."""
    out = {}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT and tok.string.startswith("# ->"):
            out[tok.start[0]] = tok.string[4:].strip()
    return out


_SCOPE = {"array": np.array, "nan": np.nan, "inf": np.inf, "np": np,
          **{t: getattr(np, t) for t in ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
                                         "float16", "float32", "float64", "bool_")}}


def _same(value, expected, text) -> bool:
    if isinstance(value, (np.ndarray, np.generic)) or isinstance(expected, np.ndarray):
        got, want = np.asarray(value), np.asarray(expected)
        if "dtype=" in text and got.dtype != want.dtype:
            return False
        return got.shape == want.shape and bool(np.array_equal(got, want, equal_nan=got.dtype.kind in "fc"))
    if isinstance(value, float) and isinstance(expected, float) and np.isnan(value) and np.isnan(expected):
        return True
    return value == expected


def run_python(text, namespace, where):
    claims = _claims(text)
    tree = ast.parse(text, where)
    for stmt in tree.body:
        code = compile(ast.Module([stmt], []), where, "exec")
        claim = claims.get(stmt.end_lineno)
        if claim is None:
            exec(code, namespace)
            continue
        if isinstance(stmt, ast.Expr):
            value = eval(compile(ast.Expression(stmt.value), where, "eval"), namespace)
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            exec(code, namespace)
            value = namespace[stmt.targets[0].id]
        else:
            raise AssertionError(f"{where}:{stmt.lineno}: '# ->' needs an expression or `name = ...`")
        expected = eval(claim, {**_SCOPE, **namespace})
        assert _same(value, expected, claim), (f"{where}:{stmt.lineno}: the text claims {claim}, the code gives "
                                               f"{value!r}")
    return len(claims)


@pytest.mark.parametrize("path, found, long", _python_files())
def test_python_blocks_run_and_their_claims_hold(path, found, long, sandbox):
    namespace = {"__name__": "__doc_example__"}
    for line, text, mark, reason in found:
        if mark == "skip" or (mark == "long" and not long):
            continue  # reported by test_marked_block_is_skipped / the -long case
        run_python(text, namespace, f"{path.relative_to(ROOT)}:{line}")


def _skipped():
    return [pytest.param(reason, id=f"{path.relative_to(ROOT)}:{line}")
            for path in DOCS for lang, line, _, mark, reason in blocks(path)
            if mark == "skip" and lang in ("python", "sh")]


@pytest.mark.parametrize("reason", _skipped())
def test_marked_block_is_skipped(reason):
    """Each block marked ``<!-- skip: reason -->`` shows up as skipped, with its reason."""
    assert reason, "a skip mark needs a reason"
    pytest.skip(reason)


# -- sh -------------------------------------------------------------------------------------------------
def commands(text):
    """``(command words, claim or None)`` of each command line of an sh block."""
    out = []
    for raw in text.splitlines():
        line, claim = raw, None
        if "# ->" in line:
            line, claim = line.split("# ->", 1)
            claim = claim.strip()
        words = shlex.split(line, comments=True)
        if words:
            out.append((words, claim))
    return out


def run_fpforge(words):
    """(status, output) of one fpforge command line, in-process."""
    from fpforge.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(words[1:])
    return status, out.getvalue() + err.getvalue()


@pytest.mark.parametrize("path, line, text, mark, reason", _cases("sh"))
def test_sh_blocks_run(path, line, text, mark, reason, sandbox):
    for words, claim in commands(text):
        where = f"{path.relative_to(ROOT)}:{line}: {' '.join(words)}"
        assert words[0] == "fpforge", (f"{where}: only fpforge commands run here; mark the block "
                                       "<!-- skip: reason --> or <!-- long: reason -->" if mark != "long" else
                                       f"{where}: long blocks run fpforge commands only")
        t0 = time.monotonic()
        status, output = run_fpforge(words)
        seconds = time.monotonic() - t0
        assert status == 0, f"{where}: exit status {status}\n{output[-2000:]}"
        if claim:
            assert claim in output, f"{where}: the text claims {claim!r} in the output:\n{output[-2000:]}"
        if mark == "long":
            assert seconds < LONG_LIMIT_S, f"{where}: took {seconds:.0f} s, more than the promised {LONG_LIMIT_S} s"


def test_every_doc_file_was_parsed():
    """The parser sees the blocks (a broken fence would hide every block after it)."""
    for path in DOCS:
        fences = sum(1 for line in path.read_text().splitlines() if line.startswith("```"))
        assert fences % 2 == 0, f"{path.name}: unbalanced ``` fences"
        assert len(blocks(path)) == fences // 2, path.name


def test_the_checker_catches_a_wrong_claim():
    """The claim check can fail: the README's old comment (0x7a, 0x00 for 300 and 1e-3 in E4M3) is caught."""
    old = ('import numpy as np\nfrom fpforge.golden import encode\n'
           'codes = encode("e4m3", np.float32([1.0, 300.0, 1e-3]))  # -> array([0x38, 0x7a, 0x00], dtype=uint8)\n')
    with pytest.raises(AssertionError, match="the text claims"):
        run_python(old, {}, "old README")
    assert run_python(old.replace("0x7a, 0x00", "0x79, 0x01"), {}, "new README") == 1
    with pytest.raises(AssertionError, match="dtype"):  # a claimed dtype is checked too
        run_python("import numpy as np\nx = np.zeros(2, np.int16)  # -> array([0, 0], dtype=uint8)\n", {}, "dtype")
