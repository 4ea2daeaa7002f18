"""Liberty reading: cell areas, pins, pin functions and sequential cells, and the GE reference cell.

A small hand-written reader (tokenizer + group walker) that keeps what the flow needs and skips the rest
(timing tables, power, pg_pins).  :func:`read_liberty` is the public entry: it returns a :class:`Liberty`
whose :class:`Cell` objects carry ``area``, ``inputs``, ``outputs`` (pin -> Liberty function string or
None), ``sequential``, ``has_ff`` and ``dont_use`` -- what a gate-level netlist simulator needs besides
the flow.  :func:`function_truth_table` evaluates a pin function.

Decision (issue 12, measured by ``bench/liberty_compare.py``, docs/synth.md): the ``liberty-parser`` package
from PyPI reads ``fpforge45.lib``, the sky130_fd_sc_hd-style test library and a 3 MB library with timing tables
to the same cells, areas, functions and truth tables, but is GPL-3.0-or-later, needs lark and sympy (81 MB), takes 3 s
to import and 8x longer on the 3 MB library; it would replace ~175 of these lines. The hand-written reader stays.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from .errors import SynthError
from .tech import DEFAULT_LIBERTY, resolve_liberty

__all__ = ["DEFAULT_LIBERTY", "Cell", "Liberty", "function_truth_table", "nand2_reference", "read_liberty",
           "check_liberty", "find_nand2", "parse_liberty_text"]

_TOKEN_RE = re.compile(
    r'"(?:[^"\\]|\\.)*"'  # quoted string
    r"|/\*.*?\*/"  # block comment
    r"|//[^\n]*"  # line comment
    r"|\\"  # line-continuation backslash
    r"|[{}();:,]"  # punctuation
    r'|[^\s{}();:,"\\]+',  # word / number
    re.DOTALL,
)

_SEQUENTIAL_GROUPS = frozenset({"ff", "ff_bank", "latch", "latch_bank", "statetable"})


@dataclass
class Cell:
    name: str
    area: float | None = None
    inputs: list[str] = field(default_factory=list)
    outputs: dict[str, str | None] = field(default_factory=dict)  # pin -> function
    has_ff: bool = False
    sequential: bool = False
    dont_use: bool = False
    capacitance: dict[str, float] = field(default_factory=dict)  # input pin -> capacitance (library unit)


@dataclass
class Liberty:
    name: str
    cells: dict[str, Cell]
    #: NLDM delay tables (``cell_rise``/``cell_fall`` groups) and power data (``internal_power`` groups) found
    #: in some cell: what static timing (``--clock-ns``) and power (``--power``) need.
    has_timing: bool = False
    has_power: bool = False
    #: The library's ``capacitive_load_unit`` in femtofarads (None when the library does not say).
    cap_unit_ff: float | None = None
    #: Latches without an area (marked ``dont_use``): the flow passes them to dfflibmap and abc as ``-dont_use``.
    unpriced: list[str] = field(default_factory=list)


def _strip_quotes(tok: str) -> str:
    if len(tok) >= 2 and tok[0] == '"' and tok[-1] == '"':
        return tok[1:-1]
    return tok


def parse_liberty_text(text: str, label: str) -> Liberty:
    """Parse Liberty text into cells (area, pins, functions, sequential flag)."""
    toks: list[tuple[str, int]] = []
    for m in _TOKEN_RE.finditer(text):
        t = m.group()
        if t.startswith("/*") or t.startswith("//") or t == "\\":
            continue
        toks.append((t, m.start()))

    def fail(msg: str, pos: int | None) -> SynthError:
        where = f" (line {text.count(chr(10), 0, pos) + 1})" if pos is not None else ""
        return SynthError(f"malformed liberty {label}: {msg}{where}")

    n = len(toks)
    i = 0
    lib_name: str | None = None
    cells: dict[str, Cell] = {}
    has_timing = has_power = False
    cap_unit_ff: float | None = None
    # Stack of (group type, group arguments, enclosing cell or None).
    stack: list[tuple[str, list[str], Cell | None]] = []

    while i < n:
        tok, pos = toks[i]
        if tok == "}":
            if not stack:
                raise fail("unbalanced '}'", pos)
            stack.pop()
            i += 1
            if not stack and lib_name is not None:
                break  # end of the library group; ignore trailing text
            continue
        if tok in "{();:,":
            if tok == ";":  # stray semicolon
                i += 1
                continue
            raise fail(f"unexpected {tok!r}", pos)
        name = tok
        if i + 1 >= n:
            raise fail(f"unexpected end of file after {name!r}", pos)
        nxt = toks[i + 1][0]
        if nxt == ":":  # simple attribute
            if i + 2 >= n:
                raise fail(f"attribute {name!r} has no value", pos)
            value = _strip_quotes(toks[i + 2][0])
            i += 3
            if i < n and toks[i][0] == ";":
                i += 1
            cur = stack[-1] if stack else None
            if cur is not None:
                gtype, garg, cell = cur
                if gtype == "cell" and cell is not None:
                    if name == "area":
                        try:
                            cell.area = float(value)
                        except ValueError:
                            raise fail(f"cell {cell.name}: area {value!r} is not a number", pos) from None
                        if not math.isfinite(cell.area) or cell.area < 0:
                            raise fail(f"cell {cell.name}: area {value!r} must be a finite number >= 0", pos)
                    elif name == "dont_use":
                        cell.dont_use = value.lower() == "true"
                elif gtype == "pin" and cell is not None and len(stack) >= 2 and stack[-2][0] == "cell":
                    for pin in garg:  # pin (A, B) { ... } declares several pins
                        if name == "direction":
                            d = value.lower()
                            if d in ("input", "inout") and pin not in cell.inputs:
                                cell.inputs.append(pin)
                            if d in ("output", "inout"):
                                cell.outputs.setdefault(pin, None)
                        elif name == "function":
                            cell.outputs[pin] = value
                        elif name == "capacitance":
                            try:
                                cell.capacitance[pin] = float(value)
                            except ValueError:
                                pass  # a cap that is not a number: the flow does not need it
            continue
        if nxt == "(":
            j = i + 2
            args: list[str] = []
            while j < n and toks[j][0] != ")":
                if toks[j][0] in "{};":
                    raise fail(f"unterminated argument list of {name!r}", toks[j][1])
                if toks[j][0] != ",":
                    args.append(_strip_quotes(toks[j][0]))
                j += 1
            if j >= n:
                raise fail(f"unterminated argument list of {name!r}", pos)
            j += 1  # past ')'
            if j < n and toks[j][0] == "{":  # group
                arg0 = args[0] if args else ""
                parent = stack[-1] if stack else None
                if parent is None:
                    if name != "library":
                        raise fail(f"expected 'library (...)' group, found {name!r}", pos)
                    lib_name = arg0
                    stack.append(("library", args, None))
                elif name == "cell" and parent[0] == "library":
                    cell = Cell(arg0)
                    cells[arg0] = cell
                    stack.append(("cell", args, cell))
                else:
                    cell = parent[2]
                    if cell is not None and parent[0] == "cell" and name in _SEQUENTIAL_GROUPS:
                        cell.sequential = True
                        if name in ("ff", "ff_bank"):
                            cell.has_ff = True
                    if cell is not None and name in ("cell_rise", "cell_fall"):
                        has_timing = True
                    elif cell is not None and name == "internal_power":
                        has_power = True
                    stack.append((name, args, cell))
                i = j + 1
                continue
            # complex attribute: name (args) ;
            if name == "capacitive_load_unit" and len(stack) == 1 and len(args) == 2:
                cap_unit_ff = _cap_unit_ff(args)
            i = j
            if i < n and toks[i][0] == ";":
                i += 1
            continue
        raise fail(f"expected ':' or '(' after {name!r}, found {nxt!r}", toks[i + 1][1])

    if lib_name is None:
        raise SynthError(f"malformed liberty {label}: no 'library (...) {{' group")
    if stack:
        raise SynthError(f"malformed liberty {label}: unterminated group {stack[-1][0]!r} (missing '}}')")
    if not cells:
        raise SynthError(f"malformed liberty {label}: library {lib_name!r} defines no cells")
    unpriced: list[str] = []
    for cell in cells.values():  # a logic cell of no area would make every area (and GE) it maps to too small
        if not cell.dont_use and any(cell.outputs.values()) and not cell.area:
            if cell.sequential and not cell.has_ff:  # a latch without an area (osu018's LATCH: area 0): the
                cell.dont_use = True  # flow leaves it out (-dont_use) instead of pricing it at 0
                unpriced.append(cell.name)
                continue
            what = "no area" if cell.area is None else "area 0"
            raise SynthError(f"malformed liberty {label}: logic cell {cell.name} has {what}; every cell with an output "
                             "function needs a positive area (mark it dont_use to leave it out)")
    return Liberty(lib_name, cells, has_timing, has_power, cap_unit_ff, unpriced)


def _cap_unit_ff(args: list[str]) -> float | None:
    """``capacitive_load_unit (1, pf)`` in femtofarads."""
    scale = {"ff": 1.0, "pf": 1e3, "nf": 1e6}.get(args[1].strip().lower())
    try:
        value = float(args[0])
    except ValueError:
        return None
    return value * scale if scale is not None and math.isfinite(value) and value > 0 else None


@functools.lru_cache(maxsize=8)
def _load_liberty_cached(path: str, mtime_ns: int, size: int) -> Liberty:
    label = Path(path).name
    data = Path(path).read_bytes()
    return parse_liberty_text(data.decode("latin-1"), label)


def check_liberty(liberty: str | Path) -> tuple[Path, Liberty]:
    """Validate a Liberty file and parse it; raise :class:`SynthError` if bad. A library name (``fpforge45``,
    ``osu018``: :mod:`fpforge.synth.tech`) stands for its file."""
    if not isinstance(liberty, (str, Path)) or not str(liberty):
        from ..golden.errors import FpforgeTypeError

        raise FpforgeTypeError(f"liberty must be a liberty file's path (str or Path) or None, not {liberty!r}")
    path = Path(resolve_liberty(liberty))
    if not path.exists():
        raise SynthError(f"liberty file not found: {str(liberty)!r}")
    if not path.is_file():
        raise SynthError(f"liberty path is not a file: {str(liberty)!r}")
    try:
        with open(path, "rb") as fh:
            head = fh.read(1 << 16)
    except OSError as exc:
        raise SynthError(f"liberty file {str(liberty)!r} is unreadable: {exc.strerror or exc}") from None
    if b"\x00" in head or head[:2] == b"\x1f\x8b":
        raise SynthError(f"liberty file {str(liberty)!r} is not a text file (compressed or binary?)")
    text_head = head.decode("latin-1")
    if not re.search(r"\blibrary\s*\(", text_head):
        raise SynthError(f"malformed liberty {path.name}: no 'library (' group near the start of the file")
    st = path.stat()
    resolved = str(path.resolve())
    lib = _load_liberty_cached(resolved, st.st_mtime_ns, st.st_size)
    return path.resolve(), lib


# --------------------------------------------------------------------------
# Liberty function expressions -> truth tables
# --------------------------------------------------------------------------

_FN_TOKEN_RE = re.compile(r"\s*(?:([A-Za-z_][A-Za-z0-9_\[\]\.]*)|([01])|(.))")


def _function_truth_table(expr: str, variables: Sequence[str]) -> int | None:
    """Truth table of a Liberty function over ``variables`` as an int bitmask.

    Bit ``k`` of the result is the function value for the input assignment in
    which variable ``i`` equals bit ``i`` of ``k``.  Returns ``None`` if the
    expression cannot be parsed or uses a name not in ``variables``.
    Precedence (Liberty): ``'`` / ``!`` > ``^`` > ``&``, ``*``, space > ``|``, ``+``.
    """
    nvars = len(variables)
    full = (1 << (1 << nvars)) - 1
    var_tt: dict[str, int] = {}
    for i, v in enumerate(variables):
        tt = 0
        for k in range(1 << nvars):
            if (k >> i) & 1:
                tt |= 1 << k
        var_tt[v] = tt

    toks: list[tuple[str, str]] = []
    for m in _FN_TOKEN_RE.finditer(expr):
        if m.group(1):
            toks.append(("id", m.group(1)))
        elif m.group(2):
            toks.append(("const", m.group(2)))
        elif m.group(3):
            toks.append(("op", m.group(3)))
    pos = 0

    class _Bad(Exception):
        pass

    def peek() -> tuple[str, str] | None:
        return toks[pos] if pos < len(toks) else None

    def starts_operand(t: tuple[str, str] | None) -> bool:
        return t is not None and (t[0] in ("id", "const") or t[1] in ("(", "!"))

    def parse_or() -> int:
        nonlocal pos
        v = parse_and()
        while (t := peek()) is not None and t[1] in ("|", "+"):
            pos += 1
            v |= parse_and()
        return v

    def parse_and() -> int:
        nonlocal pos
        v = parse_xor()
        while True:
            t = peek()
            if t is not None and t[1] in ("&", "*"):
                pos += 1
                v &= parse_xor()
            elif starts_operand(t):  # implicit AND by juxtaposition
                v &= parse_xor()
            else:
                return v

    def parse_xor() -> int:
        nonlocal pos
        v = parse_unary()
        while (t := peek()) is not None and t[1] == "^":
            pos += 1
            v ^= parse_unary()
        return v

    def parse_unary() -> int:
        nonlocal pos
        t = peek()
        if t is not None and t[1] == "!":
            pos += 1
            return full ^ parse_unary()
        v = parse_primary()
        while (t := peek()) is not None and t[1] == "'":
            pos += 1
            v = full ^ v
        return v

    def parse_primary() -> int:
        nonlocal pos
        t = peek()
        if t is None:
            raise _Bad
        pos += 1
        if t[0] == "id":
            if t[1] not in var_tt:
                raise _Bad
            return var_tt[t[1]]
        if t[0] == "const":
            return full if t[1] == "1" else 0
        if t[1] == "(":
            v = parse_or()
            if peek() is None or peek()[1] != ")":  # type: ignore[index]
                raise _Bad
            pos += 1
            return v
        raise _Bad

    try:
        result = parse_or()
    except (_Bad, RecursionError):
        return None
    if pos != len(toks):
        return None
    return result


_NAND2_TT = 0b0111  # !(a & b) over (a, b): true except for a = b = 1


def _is_nand2(cell: Cell) -> bool:
    if cell.sequential or len(cell.outputs) != 1:
        return False
    func = next(iter(cell.outputs.values()))
    if not func:
        return False
    used = [p for p in cell.inputs if re.search(rf"(?<![A-Za-z0-9_\[\]\.]){re.escape(p)}(?![A-Za-z0-9_\[\]\.])", func)]
    if len(used) != 2:
        return False
    return _function_truth_table(func, used) == _NAND2_TT


def find_nand2(lib: Liberty) -> Cell | None:
    named = lib.cells.get("NAND2_X1")
    if named is not None and named.area is not None and _is_nand2(named):
        return named
    candidates = [c for c in lib.cells.values() if c.area is not None and _is_nand2(c)]
    if not candidates:
        return None
    usable = [c for c in candidates if not c.dont_use] or candidates
    return min(usable, key=lambda c: (c.area, c.name))


def nand2_reference(liberty: str | Path | None = None) -> tuple[str, float] | None:
    """The GE reference cell of a Liberty library.

    Parameters
    ----------
    liberty : str or Path, optional
        Liberty file; defaults to the bundled ``fpforge45.lib``.

    Returns
    -------
    tuple of (str, float) or None
        ``(cell name, area)`` of the reference 2-input NAND, or ``None`` if
        the library has none.  Rule: ``NAND2_X1`` if present and a 2-input
        NAND, else the smallest-area cell whose single output is the NAND of
        exactly two inputs (ties: alphabetical).

    Raises
    ------
    SynthError
        If the file is missing, unreadable or malformed.
    """
    _, lib = check_liberty(DEFAULT_LIBERTY if liberty is None else liberty)
    cell = find_nand2(lib)
    if cell is None or cell.area is None:
        return None
    return cell.name, cell.area


def read_liberty(liberty: str | Path | None = None) -> Liberty:
    """The cells of a Liberty file (default: the bundled ``fpforge45.lib``), parsed once per file
    version: ``name`` and ``cells`` (name -> :class:`Cell`: ``area``, ``inputs``, ``outputs`` as pin ->
    function, ``sequential``, ``has_ff``, ``dont_use``). Do not modify the result. Raises
    :class:`SynthError` if the file is missing, unreadable or malformed."""
    return check_liberty(DEFAULT_LIBERTY if liberty is None else liberty)[1]


def function_truth_table(expr: str, variables: Sequence[str]) -> int | None:
    """Truth table of a Liberty pin function over ``variables`` as an int bitmask (see
    :func:`_function_truth_table`); None if it does not parse or uses other names."""
    return _function_truth_table(expr, variables)


# Old private names, kept for callers of the single-module flow.
_Cell = Cell
_Liberty = Liberty
