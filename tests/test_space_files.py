"""Space files (``fpforge sweep FILE.toml``) are checked whole before any work.

A fuzz over malformed variants of one valid space file, each made by breaking one thing (a wrong TOML type
for a key, a value no unit can take, a key a family ignores, a name in another case, an unknown table or
key): every variant must give exactly one line ``fpforge: error: FILE: [table] key: what is wrong (valid:
...)`` naming the table and the key that was broken, exit status 2, no traceback, no file written and no
work started (the executor and the task runner are never reached: a sentinel there would stop the test).
The Python API raises the same message as a TypeError (wrong types) or ValueError (the rest).
Also: the size of a large grid is told before it is expanded, a huge one is refused, and expansion is fast.
"""

from __future__ import annotations

import copy
import datetime
import importlib
import json
import math
import os
import time

import pytest

from fpforge.cli import main
from fpforge.golden.errors import FpforgeError
from fpforge.sweep.space import LARGE_GRID, MAX_POINTS, load_space

VALID = {
    "name": "fuzz",
    "description": "a valid space the fuzz test breaks one key at a time",
    "dot": {"r": 16, "f": 24},
    "qsnr": {"vectors": 64, "seed": 1},
    "synth": {"liberty": "cells.lib", "abc_script": "strash; map", "flow": "reuse"},
    "grid": [
        {"family": "bdr", "m": [2, 4], "k1": [16], "d1": [8], "k2": [2, 16], "d2": [0, 1]},
        {"family": "int", "m": [3, 5]},
    ],
    "points": [
        {"preset": "fp8"},
        {"preset": "mx9", "name": "my_mx9"},
        {"family": "bdr", "m": 3, "k1": 32, "k2": 4, "d2": 1, "name": "p3"},
        {"family": "int", "m": 7},
    ],
}

# Where each key lives: (path into VALID, the label the error must name).
_SCALARS = {  # key path -> kind
    ("name",): "name", ("description",): "str",
    ("dot", "r"): "ints", ("dot", "f"): "f", ("qsnr", "vectors"): "int", ("qsnr", "seed"): "int",
    ("synth", "liberty"): "str", ("synth", "abc_script"): "str", ("synth", "flow"): "enum",
    ("grid", 0, "family"): "enum", ("grid", 1, "family"): "enum",
    ("points", 0, "preset"): "enum", ("points", 1, "preset"): "enum", ("points", 1, "name"): "name",
    ("points", 2, "family"): "enum", ("points", 2, "name"): "name", ("points", 3, "family"): "enum",
    **{("grid", 0, k): "ints" for k in ("m", "k1", "d1", "k2", "d2")}, ("grid", 1, "m"): "ints",
    **{("points", 2, k): "int" for k in ("m", "k1", "k2", "d2")}, ("points", 3, "m"): "int",
}
_WRONG_TYPES = {
    "int": ["16", 1.5, True, [16], {"a": 1}, datetime.date(2026, 1, 1)],
    "ints": ["16", 1.5, True, {"a": 1}, ["2"], [2.0], [True], [[2]], datetime.date(2026, 1, 1)],
    "str": [5, 1.5, True, ["x"], {"a": 1}],
    "name": [5, 1.5, False, ["x"], {"a": 1}],
    "enum": [5, True, ["bdr"], {"a": 1}, 1.5],
    "f": [1.5, True, ["24"], [24.0], [True], {"a": 1}],
}
_BAD_VALUES = {
    ("name",): [""], ("dot", "r"): [0, -16, 2**21, [], [16, 16], [16, 0], [16, 2**21]],
    ("dot", "f"): [7, 257, 0, -24, "AUTO", "Auto", "automatic", "", "24", [], [24, 24], [24, 7], ["auto"], [24, "auto"]],
    ("qsnr", "vectors"): [0, -1, 10**7], ("qsnr", "seed"): [-1],
    ("synth", "liberty"): ["", "missing.lib", "."], ("synth", "abc_script"): ["", "  "],
    ("synth", "flow"): ["Reuse", "REUSE", " reuse", "fastest", ""],
    ("grid", 0, "family"): ["BDR", "Bdr", "ocp", "fp", ""], ("grid", 1, "family"): ["INT", "Int", "integer"],
    ("grid", 0, "m"): [[0], [25], [-1], [], [2, 2], 0], ("grid", 0, "k1"): [[0], [48], [3], [512], [-16], 24],
    ("grid", 0, "d1"): [[0], [9]], ("grid", 0, "k2"): [[0], [3], [32], [-2]], ("grid", 0, "d2"): [[5], [-1], [0, 5]],
    ("grid", 1, "m"): [[0], [25], []],
    ("points", 0, "preset"): ["FP8", "Fp8", " fp8", "fp9", "", "int1", "int26", "bdr_m7_k48_d8_k2_d1"],
    ("points", 1, "preset"): ["MX9", "Mx9", "mx9 ", "mx10"], ("points", 1, "name"): ["", " "],
    ("points", 2, "family"): ["Bdr", "ocp", "fp"], ("points", 2, "m"): [0, 25], ("points", 2, "k1"): [0, 48, 12],
    ("points", 2, "k2"): [0, 3, 64], ("points", 2, "d2"): [5, -1], ("points", 3, "m"): [0, 25],
    ("points", 3, "family"): ["INT", "Int"],
}


def _label(path):
    if len(path) == 1:
        return path[0]  # a top-level key: "name: ..."
    if path[0] in ("dot", "qsnr", "synth"):
        return f"[{path[0]}] {path[1]}"
    return f"[[{path[0]}]] #{path[1] + 1} {path[2]}"


def _set(path, value):
    def mutate(data):
        node = data
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = value
    return mutate


def _pop(path):
    def mutate(data):
        node = data
        for step in path[:-1]:
            node = node[step]
        del node[path[-1]]
    return mutate


def _cases():
    """``(id, mutate, label, exception type)``: one broken thing each."""
    out = []
    for path, kind in _SCALARS.items():
        for v in _WRONG_TYPES[kind]:
            out.append((f"type-{'.'.join(map(str, path))}-{v!r}", _set(path, v), _label(path), TypeError))
    for path, values in _BAD_VALUES.items():
        for v in values:
            out.append((f"value-{'.'.join(map(str, path))}-{v!r}", _set(path, v), _label(path), ValueError))
    # values that only fail with another key's value: k1 against r, a k2 or d2 that gives no point
    out += [
        ("value-r-not-tiled-by-k1", _set(("dot", "r"), 24), "[[grid]] #1 k1", ValueError),
        ("value-r-not-tiled-by-preset", lambda d: (d.update(grid=[]), d["dot"].update(r=24)), "[[points]] #2 preset",
         ValueError),
        ("value-k2-equal-k1-with-shift-only", _set(("grid", 0, "d2"), [1]), "[[grid]] #1 k2", ValueError),
        ("value-d2-with-one-sub-block", lambda d: d["grid"][0].update(k2=[16]), "[[grid]] #1 d2", ValueError),
        ("value-k1-without-a-sub-block", lambda d: d["grid"][0].update(k1=[16, 1], k2=[2], d2=[1]), "[[grid]] #1 k1",
         ValueError),
        ("value-duplicate-point-name", _set(("points", 3, "name"), "my_mx9"), "[[points]] #4 name", ValueError),
    ]
    # keys a family ignores, a preset with parameters, missing keys
    for k, v in (("k1", [16]), ("k2", [2]), ("d1", [8]), ("d2", [1])):
        out.append((f"ignored-grid-int-{k}", _set(("grid", 1, k), v), f"[[grid]] #2 {k}", ValueError))
    for k, v in (("k1", 16), ("k2", 2), ("d1", 8), ("d2", 1)):
        out.append((f"ignored-point-int-{k}", _set(("points", 3, k), v), f"[[points]] #4 {k}", ValueError))
    for k, v in (("m", 3), ("family", "bdr"), ("k1", 16)):
        out.append((f"ignored-preset-with-{k}", _set(("points", 1, k), v), f"[[points]] #2 {k}", ValueError))
    for path in (("dot", "r"), ("grid", 0, "m"), ("grid", 0, "k1"), ("grid", 0, "k2"), ("grid", 0, "d2"),
                 ("grid", 1, "m"), ("points", 2, "m"), ("points", 2, "k1"), ("points", 3, "m")):
        out.append((f"missing-{'.'.join(map(str, path))}", _pop(path), _label(path), ValueError))
    # unknown tables and keys
    for path in (("foo",), ("Name",), ("grids",), ("dot", "k1"), ("dot", "R"), ("qsnr", "vector"),
                 ("synth", "liberty_file"), ("grid", 0, "q"), ("grid", 0, "name"), ("grid", 0, "M"),
                 ("grid", 1, "preset"), ("points", 0, "q"), ("points", 2, "K1")):
        out.append((f"unknown-{'.'.join(map(str, path))}", _set(path, 1), _label(path), ValueError))
    out.append(("unknown-table", _set(("extra",), {"x": 1}), "extra", ValueError))
    # tables of the wrong TOML type
    for key, v in (("grid", 5), ("grid", {"m": [2]}), ("grid", [5]), ("grid", "mx9"), ("points", "mx9"),
                   ("points", {"preset": "mx9"}), ("points", ["mx9"]), ("dot", 5), ("dot", [16]), ("qsnr", "x"),
                   ("synth", 5)):
        out.append((f"type-table-{key}-{v!r}", _set((key,), v), key, TypeError))
    return out


CASES = _cases()


# -- a small TOML writer (what a user would have typed) -----------------------------------------------------
def _value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_value(x)}" for k, x in v.items()) + "}"
    raise AssertionError(v)


def to_toml(data) -> str:
    lines, tables = [], []
    for k, v in data.items():
        if isinstance(v, dict):
            tables.append(f"[{k}]\n" + "".join(f"{kk} = {_value(vv)}\n" for kk, vv in v.items()))
        elif isinstance(v, list) and v and all(isinstance(t, dict) for t in v):
            tables += [f"[[{k}]]\n" + "".join(f"{kk} = {_value(vv)}\n" for kk, vv in t.items()) for t in v]
        else:
            lines.append(f"{k} = {_value(v)}\n")
    return "".join(lines) + "\n".join(tables)


class _WorkStarted(BaseException):
    """Raised by the sentinels: a sweep got past validation."""


@pytest.fixture
def space_dir(tmp_path, monkeypatch):
    """A working directory with the liberty file the valid space names, a private cache and sentinels where
    work would start (the local/Dask executor and the task runner)."""
    (tmp_path / "cells.lib").write_text("library (fuzz) { }\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FPFORGE_CACHE", str(tmp_path / ".cache"))
    run_mod = importlib.import_module("fpforge.sweep.run")
    jobs = importlib.import_module("fpforge.jobs")

    def sentinel(*args, **kw):
        raise _WorkStarted()

    monkeypatch.setattr(jobs, "executor", sentinel)
    monkeypatch.setattr(run_mod, "run_tasks", sentinel)
    return tmp_path


def _tree(root):
    return {os.path.relpath(os.path.join(d, n), root) for d, dirs, files in os.walk(root) for n in dirs + files}


def test_the_fuzz_has_many_distinct_cases():
    ids = [c[0] for c in CASES]
    assert len(ids) >= 250 and len(set(ids)) == len(ids)


def test_the_valid_file_passes_and_reaches_the_work(space_dir):
    """The control: unbroken, the file loads (its points as written) and the sweep starts work."""
    path = space_dir / "space.toml"
    path.write_text(to_toml(VALID))
    sp = load_space(str(path))
    names = [p["name"] for p in sp.points]
    assert names == ["bdr_m2_k16_d8_k16_d0", "mx4", "bdr_m4_k16_d8_k16_d0", "mx6", "int4", "int6", "e4m3", "e5m2",
                     "my_mx9", "p3", "int8"]
    assert (sp.r, sp.f, sp.vectors, sp.seed, sp.flow) == (16, 24, 64, 1, "reuse")
    with pytest.raises(_WorkStarted):
        main(["sweep", str(path)])


@pytest.mark.parametrize("mutate, label, exc", [pytest.param(m, lab, e, id=i) for i, m, lab, e in CASES])
def test_a_malformed_space_file_is_one_line_before_any_work(space_dir, capsys, mutate, label, exc):
    data = copy.deepcopy(VALID)
    mutate(data)
    path = space_dir / "space.toml"
    path.write_text(to_toml(data))
    before = _tree(space_dir)
    status = main(["sweep", "space.toml"])  # _WorkStarted would escape main and fail the test
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert "Traceback" not in err and status == 2, err
    assert len(lines) == 1, err
    line = lines[0]
    assert line.startswith(f"fpforge: error: space.toml: {label}: "), line
    assert line.endswith(")") and "(valid: " in line, line
    assert _tree(space_dir) == before and not (space_dir / ".cache").exists()
    with pytest.raises(exc) as info:  # the API: the same words, a TypeError or a ValueError of fpforge's
        load_space("space.toml")
    assert isinstance(info.value, FpforgeError) and str(info.value) == line.removeprefix("fpforge: error: ")


def _big_grid(copies):
    grid = {"m": list(range(1, 25)), "k1": [1 << i for i in range(9)], "d1": list(range(1, 9)),
            "k2": [1 << i for i in range(9)], "d2": list(range(5))}
    return dict(VALID, grid=[grid] * copies, points=[])


def test_a_large_grid_says_its_size_before_expanding(space_dir, capsys):
    told = []
    (space_dir / "big.toml").write_text(to_toml(_big_grid(1)))
    combos = 24 * 9 * 8 * 9 * 5
    assert combos > LARGE_GRID
    sp = load_space("big.toml", announce=told.append)
    assert told[0] == f"big.toml: [[grid]] tables span {combos:,} points; expanding"
    assert told[1].startswith(f"big.toml: {len(sp.points):,} distinct points")
    # the command line prints both on stderr before the work (stopped here by the sentinel)
    with pytest.raises(_WorkStarted):
        main(["sweep", "big.toml"])
    assert f"fpforge: big.toml: [[grid]] tables span {combos:,} points; expanding" in capsys.readouterr().err
    (space_dir / "small.toml").write_text(to_toml(VALID))
    told.clear()
    load_space("small.toml", announce=told.append)
    assert told == []


def test_a_grid_beyond_the_limit_is_refused_without_expanding(space_dir, capsys):
    copies = MAX_POINTS // (24 * 9 * 8 * 9 * 5) + 1
    (space_dir / "huge.toml").write_text(to_toml(_big_grid(copies)))
    t0 = time.process_time()
    assert main(["sweep", "huge.toml"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"fpforge: error: huge.toml: [[grid]]: the grids span {copies * 77_760:,} points, more than a space "
                   f"holds (split it into several spaces) (valid: at most {MAX_POINTS:,} points)")
    assert time.process_time() - t0 < 2  # counted, not expanded (expanding them takes ~10 s)


def test_122304_grid_points_expand_in_seconds(space_dir):
    """The issue's size: 122,304 grid combinations load, check and expand in well under the ~95 s they took
    before the first output (CPU time; measured ~0.5 s)."""
    data = _big_grid(1)
    data["grid"] = [data["grid"][0], dict(data["grid"][0], k2=[1, 2, 4, 8, 16]),
                    dict(data["grid"][0], k1=[1, 2, 4, 8, 16, 32, 64], k2=[1], d2=[0])]
    assert sum(math.prod(len(v) for v in g.values()) for g in data["grid"]) == 122_304
    (space_dir / "g.toml").write_text(to_toml(data))
    t0 = time.process_time()
    sp = load_space("g.toml")
    assert time.process_time() - t0 < 10
    assert len(sp.points) == 29_376  # every BDR configuration of these values, once
