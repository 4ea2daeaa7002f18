"""fpforge's import graph has no cycles and no import that reaches up a layer (issue 32, item 3).

Every ``import`` statement of every fpforge module is read with :mod:`ast` — at module level and inside
functions, classes, ``if``/``try`` blocks alike, since an import moved into a function hides a cycle, it does
not remove it — relative and absolute, ``from . import x`` resolving to the submodule ``x``. The graph of
``fpforge.*`` modules must then be acyclic, and an import may only point down (or sideways inside a layer):

    golden < jobs < hw < synth < sim < sweep < fpforge (the CLI: cli, cmd_*, unitopts, results, plots, ...)

This is the layering docs/architecture.md states ("Layers"): ``golden`` is the numbers and imports no other
role; ``jobs`` (cache, executor, store) needs only golden's errors; ``hw`` is the gateware; ``synth`` runs
yosys (on ``jobs``' process groups); ``sim`` simulates and proves units (the prover also proves the
synthesized netlist); ``sweep`` runs all of them over a design space; the CLI package ``fpforge/`` is the top.

An edge is "module A imports module B": ``from .pkg import name`` is an edge to ``pkg.name`` when ``name`` is a
submodule, else to ``pkg`` (its ``__init__`` defines ``name``). Importing ``pkg.mod`` also runs the
``__init__`` of each enclosing package; those implicit edges are not counted (every package would be in a
cycle with its own modules), but an explicit import of a package is.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Folder of each fpforge package (pyproject.toml's ``[tool.setuptools.package-dir]``).
PACKAGES = {
    "fpforge": "fpforge", "fpforge.golden": "golden", "fpforge.golden.dot": "golden/dot", "fpforge.hw": "hw",
    "fpforge.sim": "sim", "fpforge.sim.vectors": "sim/vectors", "fpforge.synth": "synth", "fpforge.jobs": "jobs",
    "fpforge.sweep": "sweep",
}

#: The layers, lowest first; a module is in the layer of its role package (``fpforge.golden.dot`` is golden).
LAYERS = ["fpforge.golden", "fpforge.jobs", "fpforge.hw", "fpforge.synth", "fpforge.sim", "fpforge.sweep", "fpforge"]

#: Upward imports tolerated, as (importer, imported): none since the results writer moved to ``jobs/results.py``.
#: An entry must name an import that exists (test below), so the set cannot hide a new one.
ALLOWED_UPWARD: set = set()


def _modules() -> dict[str, Path]:
    """Every fpforge module name -> its file."""
    modules = {}
    for package, folder in PACKAGES.items():
        for path in sorted((ROOT / folder).glob("*.py")):
            modules[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return modules


MODULES = _modules()


def _is_package(name: str) -> bool:
    return name in PACKAGES


def _imports(name: str, path: Path) -> set[str]:
    """The fpforge modules ``name`` (at ``path``) imports anywhere in its source."""
    tree = ast.parse(path.read_text(), str(path))
    here = name if _is_package(name) else name.rpartition(".")[0]  # the package relative imports start from
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module
            for alias in node.names:  # a name that is a submodule is an edge to it, any other name to the package
                found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in MODULES else target)
    edges = set()
    for target in found:
        if target != "fpforge" and not target.startswith("fpforge."):
            continue
        # ``import fpforge.sim.vectors.dot`` names a module; keep the longest prefix that is one.
        while target not in MODULES and "." in target:
            target = target.rpartition(".")[0]
        if target in MODULES and target != name:
            edges.add(target)
    return edges


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _layer(name: str) -> int:
    package = next(p for p in sorted(PACKAGES, key=len, reverse=True) if name == p or name.startswith(p + "."))
    role = package if package in LAYERS else package.rpartition(".")[0]
    return LAYERS.index(role)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each as one cycle through it."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_one_cycle(graph, component) for component in components]


def _one_cycle(graph, component: set[str]) -> list[str]:
    """A shortest cycle through the first module of ``component`` (breadth-first inside it)."""
    start = min(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for v in frontier:
            for w in sorted(graph[v] & component):
                if w == start:
                    return paths[v] + [start]
                if w not in paths:
                    paths[w] = paths[v] + [w]
                    following.append(w)
        frontier = following
    raise AssertionError(f"no cycle through {start}")  # a strongly connected component always has one


def test_the_graph_covers_every_installed_package():
    """PACKAGES is pyproject.toml's package-dir: a new package cannot escape the graph."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["tool"]["setuptools"]["package-dir"] == PACKAGES


def test_the_graph_sees_every_package_and_its_imports():
    """The parser finds the modules and the edges it must (so an empty graph cannot pass the tests below)."""
    assert {"fpforge.cli", "fpforge.golden.formats", "fpforge.golden.dot.config", "fpforge.hw.spec",
            "fpforge.sim.vectors.dot", "fpforge.sweep.run", "fpforge.jobs.store"} <= set(MODULES)
    assert "fpforge.golden.errors" in GRAPH["fpforge.jobs.store"]  # from ..golden.errors import ...
    assert "fpforge.hw.spec" in GRAPH["fpforge.hw.generate"]  # relative, same package


def test_an_import_inside_a_function_and_from_dot_import_submodule_count(tmp_path, monkeypatch):
    source = ("from . import b\n"
              "def f():\n"
              "    from .c import thing\n"
              "    import fpforge.golden.errors\n"
              "class K:\n"
              "    try:\n"
              "        from ..golden import formats\n"
              "    except ImportError:\n"
              "        pass\n")
    path = tmp_path / "a.py"
    path.write_text(source)
    for name in ("fpforge.sim.b", "fpforge.sim.c", "fpforge.sim.a"):
        monkeypatch.setitem(MODULES, name, path)
    assert _imports("fpforge.sim.a", path) == {"fpforge.sim.b", "fpforge.sim.c", "fpforge.golden.errors",
                                                  "fpforge.golden.formats"}


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert _cycles(graph) == [["a", "b", "c", "a"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    cycles = _cycles(GRAPH)
    assert not cycles, "import cycles (one per group of modules that import each other):\n" + "\n".join(
        " -> ".join(cycle) for cycle in cycles)


def test_no_import_reaches_up_a_layer():
    upward = sorted((a, b) for a, targets in GRAPH.items() for b in targets
                    if _layer(b) > _layer(a) and (a, b) not in ALLOWED_UPWARD)
    assert not upward, "imports from a lower layer to a higher one (" + " < ".join(LAYERS) + "):\n" + "\n".join(
        f"{a} imports {b}" for a, b in upward)


def test_each_allowed_upward_import_still_exists():
    """An entry of ALLOWED_UPWARD that no longer happens must go, so the set cannot hide a new import."""
    stale = [(a, b) for a, b in sorted(ALLOWED_UPWARD) if b not in GRAPH.get(a, ())]
    assert not stale, f"ALLOWED_UPWARD entries that no longer happen: {stale}"
