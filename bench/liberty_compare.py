"""Compare fpforge's Liberty reader (synth/liberty.py) with the ``liberty-parser`` package from PyPI.

Issue 12 item 8: keep whichever is smaller and right. Both read the same libraries; the script compares the
cells, areas, input pins, output pin functions and their evaluated truth tables, times both, and counts the
code each needs. Libraries: the bundled ``fpforge45.lib`` (Nangate45 X1 cells), the sky130_fd_sc_hd-style
test library of ``tests/test_synth.py``, any ``*.lib`` given on the command line, and a synthetic ~3 MB library
with NLDM timing tables (the size and shape of a vendor library: the parsers must skip the tables).

    pip install liberty-parser      # not a dependency of fpforge: GPL-3.0-or-later, pulls lark and sympy
    python bench/liberty_compare.py [more.lib ...]
"""

import importlib.metadata as md
import pathlib
import re
import sys
import time

from fpforge.synth import liberty as ours

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _sky130_style() -> str:
    text = (ROOT / "tests" / "test_synth.py").read_text()
    return re.search(r'SKY_STYLE_LIB = r"""(.*?)"""', text, re.S).group(1)


_TABLE = ('        {kind} ("delay_template_7x7") {{\n'
          '          index_1 ("0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64");\n'
          '          index_2 ("0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064");\n'
          '          values ({rows});\n        }}\n')


def _with_timing(text: str, copies: int) -> str:
    """``text`` with four 7x7 timing tables after every output pin's function, its cells repeated ``copies``
    times under new names (``_T<i>``): a vendor-sized library with the reader's interesting part unchanged."""
    rows = ", \\\n            ".join('"' + ", ".join(f"{0.01 * (r + c + 1):.6f}" for c in range(7)) + '"'
                                    for r in range(7))
    tables = "".join(_TABLE.format(kind=k, rows=rows) for k in ("cell_rise", "cell_fall", "rise_transition",
                                                                "fall_transition"))
    timed = re.sub(r'(function\s*:\s*"[^"]*"\s*;)', lambda m: m.group(1) + '\n      timing () {\n'
                   '        related_pin : "A";\n' + tables + '      }\n', text)
    first = re.search(r"^\s*cell\s*\(", timed, re.M).start()
    head, cells = timed[:first], timed[first:].rsplit("}", 1)[0]
    out = [head]
    for i in range(copies):
        out.append(re.sub(r'cell\s*\(\s*("?)(\w+)\1\s*\)', lambda m: f'cell ({m.group(1)}{m.group(2)}_T{i}{m.group(1)})',
                          cells))
    return "".join(out) + "}\n"


def read_ours(text):
    lib = ours.parse_liberty_text(text, "x")
    return {n: (c.area, tuple(c.inputs), {p: (f, None if f is None else ours.function_truth_table(f, c.inputs))
                                          for p, f in c.outputs.items()})
            for n, c in lib.cells.items()}


def read_theirs(text):
    """The glue fpforge would need around liberty-parser (what ``read_liberty`` + the evaluator do)."""
    from liberty.boolean_functions import parse_boolean_function
    from liberty.parser import parse_liberty

    lib = parse_liberty(text)
    cells = {}
    for cell in lib.get_groups("cell"):
        name = str(cell.args[0]).strip('"')
        area = cell.get("area")
        ins, outs = [], {}
        for pin in cell.get_groups("pin"):
            pname = str(pin.args[0]).strip('"')
            direction = str(pin.get("direction")).strip('"')
            if direction == "input":
                ins.append(pname)
            elif direction == "output":
                f = pin.get("function")
                outs[pname] = None if f is None else str(f).strip('"')
        tables = {}
        for p, f in outs.items():
            tt = None
            if f is not None:
                expr, tt = parse_boolean_function(f), 0
                syms = {s.name: s for s in expr.free_symbols}
                if not set(syms) <= set(ins):  # a flop's state (IQ): not combinational
                    tables[p] = (f, None)
                    continue
                for k in range(1 << len(ins)):
                    env = {syms[v]: bool((k >> i) & 1) for i, v in enumerate(ins) if v in syms}
                    tt |= int(bool(expr.subs(env))) << k
            tables[p] = (f, tt)
        cells[name] = (None if area is None else float(area), tuple(ins), tables)
    return cells


def _timed(fn, text, reps=1):
    best = None
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn(text)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return out, best


def _dist_size(name):
    """Installed size of a distribution (bytes of its files) and its code lines (.py)."""
    dist = md.distribution(name)
    size = lines = 0
    for f in dist.files or ():
        p = pathlib.Path(dist.locate_file(f))
        if p.is_file():
            size += p.stat().st_size
            if p.suffix == ".py":
                lines += sum(1 for _ in p.open(errors="replace"))
    return size, lines


def main(argv):
    libs = {"fpforge45.lib (Nangate45 X1)": (ROOT / "synth" / "fpforge45.lib").read_text(),
            "sky130_fd_sc_hd-style (tests)": _sky130_style()}
    for p in argv:
        libs[pathlib.Path(p).name] = pathlib.Path(p).read_text()
    libs["fpforge45 + timing tables, x60 cells"] = _with_timing(libs["fpforge45.lib (Nangate45 X1)"], 60)
    t0 = time.perf_counter()
    import liberty.boolean_functions  # noqa: F401
    import liberty.parser  # noqa: F401
    print(f"liberty-parser import (lark, sympy): {time.perf_counter() - t0:.2f} s (not in the times below)")
    read_theirs("library (x) { }")  # first call builds the grammars
    print(f"{'library':42} {'bytes':>9} {'cells':>6}  {'ours s':>7} {'theirs s':>8}  same")
    for label, text in libs.items():
        a, ta = _timed(read_ours, text, 3)
        b, tb = _timed(read_theirs, text)
        same = a == b
        print(f"{label:42} {len(text):9d} {len(a):6d}  {ta:7.3f} {tb:8.3f}  {same}")
        if not same:
            for n in sorted(set(a) | set(b)):
                if a.get(n) != b.get(n):
                    print(f"   {n}: ours {a.get(n)}\n   {' ' * len(n)}  theirs {b.get(n)}")
    src = pathlib.Path(ours.__file__).read_text().splitlines()
    code = [ln for ln in src if ln.strip() and not ln.strip().startswith("#")]
    glue = pathlib.Path(__file__).read_text()
    glue_lines = len(re.search(r"def read_theirs.*?\n\n\n", glue, re.S).group(0).strip().splitlines())
    print(f"\nsynth/liberty.py: {len(src)} lines ({len(code)} non-blank, non-comment), no dependency")
    print(f"glue around liberty-parser (read_theirs above): {glue_lines} lines, plus the GE reference and the "
          f"checks synth/liberty.py has (SynthError messages, caching)")
    for name in ("liberty-parser", "lark", "sympy", "mpmath"):
        try:
            size, lines = _dist_size(name)
            print(f"  {name:15} {md.version(name):10} {size / 1e6:6.1f} MB installed, {lines:7d} lines of Python, "
                  f"license {md.metadata(name).get('License-Expression') or md.metadata(name).get('License')}")
        except md.PackageNotFoundError:
            print(f"  {name}: not installed")


if __name__ == "__main__":
    main(sys.argv[1:])
