"""Design spaces: what a sweep measures, from a TOML file or a built-in name.

A space is a dot-product geometry (``r``, ``f``), the QSNR data parameters, the synthesis settings and a
list of points. Points come from ``[[grid]]`` tables (the cartesian product of their lists) and
``[[points]]`` tables (one preset each, or explicit parameters). The schema (docs/sweep.md)::

    name = "small"
    description = "..."              # optional
    [dot]
    r = 16                            # elements per dot product
    f = 24                            # window bits, or "auto"
    [qsnr]                            # optional
    vectors = 10000                   # >= 1 (default 10,000; --vectors overrides)
    seed = 0                          # (--seed overrides)
    [synth]                           # optional
    liberty = "path/to/cells.lib"     # default: the bundled fpforge45.lib
    goal = "area"                     # the mapping goal: area (the paper's method; the default without ppa) or
                                      # delay (fpforge synth's default; the default with ppa)
    abc_script = "..."                # instead of goal: an ABC script of your own
    flow = "standard"                 # "fast": synth -noabc; "reuse": multipliers synthesized once per shape
    clock_ns = 3.0                    # clock period of the PPA columns (default: none)
    ppa = false                       # true: delay, slack, power and energy per unit (needs clock_ns, a
                                      # liberty with timing and power tables, e.g. osu018; OpenSTA)
    activity = "workload"             # power's switching activity: workload (gate-level simulation) or vectorless
    [[grid]]
    family = "bdr"                    # bdr (default) or int
    m  = [2, 4]                       # an integer or a list, every key
    k1 = [16]
    d1 = [8]                          # default 8
    k2 = [2, 16]
    d2 = [0, 1]
    [[points]]
    preset = "fp8"                    # or family = "bdr", m = 7, k1 = 16, ... ; name = "label" (optional)

A space file is checked whole before any point is made (:func:`from_dict`): TOML types, values a unit can
take (m 1..24, d1 1..8, d2 0..4, k1 dividing the 256-value QSNR vectors and, below r, r; k2 dividing k1;
every value of a grid giving at least one point), keys a family ignores and names spelled exactly
(lowercase: ``"AUTO"`` is refused with the spelling). Every error reads ``FILE: [table] key: what is wrong
(valid: ...)``. Grids are counted before they are expanded (:data:`LARGE_GRID`, :data:`MAX_POINTS`).

A point is a :class:`~fpforge.sweep.points.Point` (``name, family, m, k1, d1, k2, d2, format,
bits_per_element``; frozen, read like a mapping too); families:

* ``bdr`` — BDR(m, k1, d1, k2, d2) (MX9/MX6/MX4, MSFP12/16 and any other); a grid keeps only the
  combinations where k2 divides k1 and, with d2 > 0, k2 < k1 (a single sub-block's shift is always 0);
  d2 = 0 (no second level: block floating point) makes k2 = k1.
* ``ocp`` — the OCP MX formats (``mxfp8_e4m3`` ... ``mxint8``): m element mantissa (INT8: magnitude) bits,
  k1 = 32, d1 = 8, k2 = 1 and d2 = element exponent bits (INT8: k2 = 32, d2 = 0).
* ``fp`` — the scalar FP8 formats E4M3 and E5M2 (per-vector FP32 amax scale outside the unit, as in the
  QSNR table): m mantissa bits, k1 = k2 = 1, d2 exponent bits. Both run on the paper's configurable FP8
  unit (E4M3 or E5M2 per operand), so their area is the baseline's. ``fp8`` as a preset gives both.
  HiF8 (``hif8``: m = 3, its widest mantissa; d2 = 5, the bits of its exponent range ±15) and CFloat8
  (``cfloat8_143``, ``cfloat8_152``: measured at bias 0, like the QSNR table; their unit has the 6-bit bias
  inputs) run on units of their own element format.
* ``int`` — INT-like: a sign and m magnitude bits, symmetric, with a per-vector FP32 amax scale
  (k1 = the 256-value vector, d1 = 32); the unit is an integer dot product of r elements (the scale is
  applied outside, like FP8's), synthesized as BDR(m, r, 1, r, 0).
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import tomllib
from pathlib import Path

from ..golden import get_format, list_formats
from ..golden.block import BlockFormat, MXFormat, bdr
from ..golden.checks import MAX_SEED
from ..golden.dot import F_RANGE, MAX_R
from ..golden.errors import FpforgeTypeError, FpforgeValueError, UnknownName
from ..synth.flow import FLOWS as _SYNTH_FLOWS
from .points import POINT_FIELDS, Point

__all__ = ["BDR_PRESETS", "DEFAULT_SEED", "DEFAULT_VECTORS", "FAMILIES", "LARGE_GRID", "MAX_POINTS", "MAX_VECTORS",
           "OCP_PRESETS", "PRESETS", "SWEEP_GOALS", "Space", "from_dict", "grid_points", "load_space", "point", "preset_points"]

DEFAULT_VECTORS = 10_000
DEFAULT_SEED = 0
#: Values per QSNR vector (and per memory tile).
VECTOR_LENGTH = 256
FAMILIES = ("bdr", "ocp", "fp", "int")
#: Synthesis flows: ``standard`` is ``fpforge synth``'s; ``fast`` skips synth's generic ABC pass
#: (``pre_abc=False``) and maps with ``FAST_ABC_SCRIPT`` unless the space names its own script; ``reuse`` is
#: the standard flow with each multiplier synthesized once per shape and counted per instance (``reuse=True``).
#: ``flat`` is the standard flow under the name the comparisons use (``--flow flat``: the whole unit flattened
#: and mapped at once; same tasks, same cache entries as ``standard``). ``lean`` is the standard flow with a
#: lighter generic ABC pass (``pre_abc_script=LEAN_PRE_ABC_SCRIPT``: SAT sweeping capped, no choices before the
#: generic mapping), ~1.5x less yosys CPU, areas unbiased against the flat flow's (docs/sweep.md, "The lean flow").
FLOWS = _SYNTH_FLOWS
#: Mapping goals of a sweep (``[synth] goal``, ``--goal``; fpforge.synth.flow.GOALS): ``area`` maps for the least
#: area, depth relaxed (``&nf -R 1000``: the MX paper's "synthesis maps for minimum area"), the default of an
#: area-only sweep; ``delay`` is ``fpforge synth``'s default (minimum depth, then area), the default with PPA,
#: where ``area`` means the least area that meets the clock (two mappings per unit). docs/synth.md, "Mapping goal".
SWEEP_GOALS = ("area", "delay")
#: Pareto costs of a dot-product sweep (``--cost``): area x memory (the paper's), energy x memory, area x delay,
#: each factor relative to the FP8 unit at the same r and f. The last two need PPA (``ppa=True``, ``clock_ns``).
COSTS = ("area-memory", "energy-memory", "area-delay")

#: The registry's named BDR formats (MX9/6/4, MSFP12/16) and OCP MX formats, in registration order: a format
#: registered as a BlockFormat or an MXFormat is a sweep preset of family bdr or ocp.
BDR_PRESETS = tuple(n for n in list_formats("block") if type(get_format(n)) is BlockFormat)
OCP_PRESETS = tuple(n for n in list_formats("block") if isinstance(get_format(n), MXFormat))
#: Scalar elements with a dot-product unit of their own (not the FP8 unit): HiF8 and CFloat8 (a choice of
#: the sweep: the other narrow floats of the registry are not points of its spaces).
_OWN_UNIT_PRESETS = ("hif8", "cfloat8_143", "cfloat8_152")
#: Preset names a [[points]] table takes (besides any ``bdr_m<M>_k<K1>_d<D1>_k<K2>_d<D2>``).
PRESETS = ("fp8", "e4m3", "e5m2", *_OWN_UNIT_PRESETS, *BDR_PRESETS, *OCP_PRESETS, "int8", "int4")
_KEYS = ("m", "k1", "d1", "k2", "d2")


def _int(name, value, lo, hi=None, where=""):
    if not isinstance(value, int) or isinstance(value, bool):
        raise FpforgeTypeError(f"{where}{name}: must be an integer, not {_show(value)}")
    if value < lo or (hi is not None and value > hi):
        rng = f">= {lo}" if hi is None else f"in {lo}..{hi}"
        raise FpforgeValueError(f"{where}{name}: must be an integer {rng}, not {value!r}")
    return value


_TOML_TYPES = {str: "a string", bool: "a boolean", int: "an integer", float: "a float", list: "an array",
               dict: "a table"}


def _show(value) -> str:
    """``value`` as the space file spells it, and its TOML type: ``'16' (a string)``."""
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    kind = _TOML_TYPES.get(type(value), "a date/time" if hasattr(value, "isoformat") else type(value).__name__)
    return f"{text} ({kind})"


def _problem(cls, where, table, key, what, valid=None):
    """``cls("FILE: [table] key: what (valid: ...)")``, the one shape of a space file's errors."""
    head = " ".join(x for x in (table, key) if x)
    return cls(f"{where}{head + ': ' if head else ''}{what}" + (f" (valid: {valid})" if valid else ""))


def _choice(where, table, key, value, choices, valid=None):
    """An enumerated value, spelled exactly (names are lowercase; ``"AUTO"`` is refused with the spelling)."""
    valid = valid or ", ".join(choices)
    if not isinstance(value, str):
        raise _problem(FpforgeTypeError, where, table, key, f"must be a name, not {_show(value)}", valid)
    if value not in choices:
        fixed = value.strip().lower()
        if fixed in choices:
            raise _problem(UnknownName, where, table, key, f"{value!r} is spelled {fixed!r} (names are lowercase, "
                           "exactly as listed)", valid)
        raise _problem(UnknownName, where, table, key, f"unknown {key} {value!r}", valid)
    return value


@functools.lru_cache(maxsize=1)
def _block_presets() -> dict:
    """The registered BDR formats by their parameters (what :func:`~fpforge.golden.block.bdr` returns)."""
    from ..golden.blockformat import BLOCK_NAMES

    fmts = [get_format(n) for n in BLOCK_NAMES]
    return {f: f for f in fmts if isinstance(f, BlockFormat)}


def _bdr_point(fmt: BlockFormat, name=None) -> Point:
    fmt = _block_presets().get(fmt, fmt)
    if name is None and fmt.name in BDR_PRESETS:
        name = fmt.name
    return Point(name=name or fmt.name, family="bdr", m=fmt.m, k1=fmt.k1, d1=fmt.d1, k2=fmt.k2, d2=fmt.d2,
                format=fmt.name, bits_per_element=float(fmt.bits_per_element))


def _ocp_point(fmt: MXFormat, name=None) -> Point:
    if fmt.is_int:
        m, k2, d2 = fmt.element.bits - 1, fmt.k1, 0
    else:
        m, k2, d2 = fmt.element.mbits, 1, fmt.element.ebits
    return Point(name=name or fmt.name, family="ocp", m=m, k1=fmt.k1, d1=8, k2=k2, d2=d2, format=fmt.name,
                bits_per_element=float(fmt.bits_per_element))


def _fp_point(fmt_name, name=None) -> Point:
    fmt = get_format(fmt_name)
    ebits = getattr(fmt, "ebits", None)
    if ebits is None:  # HiF8: the bits of a sign-magnitude exponent covering its range -emax..emax
        ebits = (2 * fmt.emax + 1).bit_length()
    return Point(name=name or fmt.name, family="fp", m=fmt.mbits, k1=1, d1=None, k2=1, d2=ebits,
                format=fmt.name, bits_per_element=float(fmt.bits))


def _int_point(m, name=None) -> Point:
    _int("m", m, 1, 24, "int point ")
    return Point(name=name or f"int{m + 1}", family="int", m=m, k1=VECTOR_LENGTH, d1=32, k2=VECTOR_LENGTH, d2=0,
                format=f"int{m + 1}", bits_per_element=float(m + 1))


#: What a ``preset`` may name, for messages.
PRESET_CHOICES = (f"{', '.join(PRESETS)}, intN (N = 2..25) or bdr_m<M>_k<K1>_d<D1>_k<K2>_d<D2>")


def _preset(p, name):
    if p != p.strip().lower():
        return None
    if p == "fp8":
        return [_fp_point("e4m3"), _fp_point("e5m2")]
    if p in ("e4m3", "e5m2", *_OWN_UNIT_PRESETS):
        return [_fp_point(p, name)]
    if p.startswith("int") and p[3:].isdigit() and 2 <= int(p[3:]) <= 25 and p[3] != "0":
        return [_int_point(int(p[3:]) - 1, name)]
    try:
        fmt = get_format(p)
    except (KeyError, ValueError):
        fmt = None
    if isinstance(fmt, BlockFormat):
        return [_bdr_point(fmt, name)]
    if isinstance(fmt, MXFormat):
        return [_ocp_point(fmt, name)]
    return None


def preset_points(preset: str, name=None, where="", table="") -> list:
    """The point(s) of a preset name (``fp8`` gives E4M3 and E5M2); names are spelled exactly (lowercase)."""
    if not isinstance(preset, str):
        raise _problem(FpforgeTypeError, where, table, "preset", f"must be a name, not {_show(preset)}",
                       PRESET_CHOICES)
    pts = _preset(preset, name)
    if pts is None:
        fixed = preset.strip().lower()
        if fixed != preset and _preset(fixed, name) is not None:
            raise _problem(UnknownName, where, table, "preset", f"{preset!r} is spelled {fixed!r} (names are "
                           "lowercase, exactly as listed)", PRESET_CHOICES)
        raise _problem(UnknownName, where, table, "preset", f"unknown sweep preset {preset!r}", PRESET_CHOICES)
    return pts


def point(family="bdr", *, name=None, m=None, k1=None, d1=8, k2=None, d2=0) -> Point:
    """One point from explicit parameters (``family`` bdr or int; see the module docstring). An int point
    takes only ``m``: k1, d1, k2 and d2 are fixed by the family and refused, not ignored."""
    if family == "int":
        given = [k for k, v, default in (("k1", k1, None), ("d1", d1, 8), ("k2", k2, None), ("d2", d2, 0))
                 if v != default]
        if given:
            raise FpforgeValueError(f"{given[0]}: family int takes only m (k1 = 256 values per FP32 scale, d1 = 32)"
                                    " (valid: name, family, m)")
        return _int_point(m, name)
    if family != "bdr":
        raise UnknownName(f"family: unknown point family {family!r}; ocp and fp points come from presets (valid "
                          "with explicit parameters: bdr, int)")
    if k2 is None:
        k2 = k1
    try:
        fmt = bdr(m, k1, d1, k2, d2)
    except ValueError as e:
        raise FpforgeValueError(str(e)) from None
    return _bdr_point(fmt, name)


#: Block sizes a unit can take: k1 divides the QSNR vector length (a block never straddles two vectors).
K1_CHOICES = tuple(1 << i for i in range((VECTOR_LENGTH).bit_length() - 1 + 1))
#: Ranges of the other parameters (BlockFormat's rules).
_RANGES = {"m": (1, 24), "d1": (1, 8), "d2": (0, 4)}
#: A space file whose grids span more points than this says how many before expanding them.
LARGE_GRID = 10_000
#: No space holds more points (a sweep of a million synthesized units is months of CPU: split it).
MAX_POINTS = 1_000_000


def _rs(r):
    """``r`` (None, an int or several values) as a tuple of values."""
    return () if r is None else tuple(r) if isinstance(r, (list, tuple)) else (r,)


def _k1_choices(r):
    """Block sizes that tile the QSNR vectors and (below it) every dot-product length of ``r``."""
    return [k for k in K1_CHOICES if all(k >= x or x % k == 0 for x in _rs(r))]


def _check_value(where, table, key, x, r=None):
    """One value of m, k1, d1, k2 or d2 (an int already), against what a unit can take."""
    if key in _RANGES:
        lo, hi = _RANGES[key]
        if not lo <= x <= hi:
            raise _problem(FpforgeValueError, where, table, key, f"{x} is out of range", f"{lo}..{hi}")
    elif x < 1:
        raise _problem(FpforgeValueError, where, table, key, f"{x}: a {'block' if key == 'k1' else 'sub-block'} "
                       "holds at least one value", "1, 2, 4, ... dividing k1" if key == "k2" else
                       ", ".join(map(str, _k1_choices(r))))
    elif key == "k1" and VECTOR_LENGTH % x:
        raise _problem(FpforgeValueError, where, table, key, f"{x} does not divide the QSNR vector length "
                       f"{VECTOR_LENGTH}", ", ".join(map(str, _k1_choices(r))))
    elif key == "k1" and any(x < y and y % x for y in _rs(r)):
        y = next(y for y in _rs(r) if x < y and y % x)
        raise _problem(FpforgeValueError, where, table, key, f"{x} does not divide [dot] r = {y} (blocks smaller "
                       "than r tile the dot product)", ", ".join(map(str, _k1_choices(r))))


def _check_tiles(p, r, where, label, key):
    """A block point's blocks tile its QSNR vectors and its dot product (k1 >= r makes r = k1)."""
    if p["family"] not in ("bdr", "ocp"):
        return
    k1 = p["k1"]
    if VECTOR_LENGTH % k1:
        raise _problem(FpforgeValueError, where, label, key, f"{p['name']} has k1 = {k1}, which does not divide the "
                       f"QSNR vector length {VECTOR_LENGTH}", f"k1 in {', '.join(map(str, _k1_choices(r)))}")
    for y in _rs(r):
        if k1 < y and y % k1:
            raise _problem(FpforgeValueError, where, label, key, f"{p['name']} has k1 = {k1}, which does not divide "
                           f"[dot] r = {y} (blocks smaller than r tile the dot product)",
                           f"k1 in {', '.join(map(str, _k1_choices(r)))}, or [dot] r a multiple of {k1}")


def _ints(where, table, key, v, lists):
    """An integer, or with ``lists`` also an array of integers, as a list."""
    what = "an integer or an array of integers" if lists else "an integer"
    vs = v if lists and isinstance(v, list) else [v]
    if lists and not vs:
        raise _problem(FpforgeValueError, where, table, key, "is an empty array", what)
    for x in vs:
        if not isinstance(x, int) or isinstance(x, bool):
            tail = f" ({x!r} is {_show(x).rsplit('(', 1)[1][:-1]})" if x is not v else ""
            raise _problem(FpforgeTypeError, where, table, key, f"must be {what}, not {_show(v)}{tail}", what)
    dup = sorted({x for x in vs if vs.count(x) > 1})
    if dup:
        raise _problem(FpforgeValueError, where, table, key, f"lists {dup[0]} more than once", "distinct integers")
    return vs


def _makes_bdr(k1, k2, d2):
    return k1 % k2 == 0 and (d2 == 0 or k2 < k1)


def _grid_lists(table, where="", label="[[grid]]", r=None):
    """Check one [[grid]] table (types, each value, each value giving a point); returns (family, lists)."""
    if not isinstance(table, dict):
        raise _problem(FpforgeTypeError, where, label, "", f"must be a table, not {_show(table)}", "a table")
    table = dict(table)
    family = _choice(where, label, "family", table.pop("family", "bdr"), ("bdr", "int"),
                     "bdr, int; ocp and fp points come from [[points]] presets")
    allowed = ("m",) if family == "int" else _KEYS
    for k in table:
        if k in allowed:
            continue
        if k in _KEYS:
            raise _problem(FpforgeValueError, where, label, k, "family int takes only m (a sign and m magnitude "
                           "bits; k1 = 256 values per FP32 scale, d1 = 32)", "family, m")
        raise _problem(UnknownName, where, label, k, "unknown key", f"family, {', '.join(allowed)}")
    lists = {}
    for k in allowed:
        if k not in table and k != "d1":
            raise _problem(FpforgeValueError, where, label, k, "missing", "an integer or an array of integers")
        lists[k] = _ints(where, label, k, table.get(k, 8), True)
        for x in lists[k]:
            _check_value(where, label, k, x, r)
    if family == "bdr":
        made = [(k1, k2, d2) for k1 in lists["k1"] for k2 in lists["k2"] for d2 in lists["d2"] if _makes_bdr(k1, k2, d2)]
        cands = {"k1": _k1_choices(r), "k2": sorted({d for k1 in lists["k1"] for d in range(1, k1 + 1) if k1 % d == 0}),
                 "d2": range(5)}
        for key in ("k2", "d2", "k1"):  # blame a sub-block size first, a block size last
            i = ("k1", "k2", "d2").index(key)
            used = {t[i] for t in made}
            for v in lists[key]:
                if v in used:
                    continue
                others = {k: lists[k] for k in ("k1", "k2", "d2") if k != key}
                ok = [c for c in cands[key] if any(_makes_bdr(**dict(zip(("k1", "k2", "d2"), t)))
                                                   for t in itertools.product(*[[c] if k == key else lists[k]
                                                                                for k in ("k1", "k2", "d2")]))]
                ctx = ", ".join(f"{k} = {v_}" for k, v_ in others.items())
                raise _problem(FpforgeValueError, where, label, key, f"{v} gives no point with {ctx}: k2 must divide "
                               "k1, and be smaller than k1 where d2 > 0 (one sub-block's shift is always 0)",
                               ", ".join(map(str, ok)) if ok else "k2 dividing k1, k2 < k1 where d2 > 0")
    return family, lists


def _grid_size(lists) -> int:
    return math.prod(len(v) for v in lists.values())


def _expand(family, lists) -> list:
    if family == "int":
        return [_int_point(m) for m in lists["m"]]
    out = []
    for m, k1, d1, k2, d2 in itertools.product(*(lists[k] for k in _KEYS)):
        if _makes_bdr(k1, k2, d2):
            out.append(_bdr_point(BlockFormat(m, k1, d1, k1 if d2 == 0 else k2, d2)))
    return out


def grid_points(table: dict, where: str = "", label: str = "[[grid]]", r=None) -> list:
    """The points of one grid table (the cartesian product of its lists; see the module docstring): each value
    is checked (and, with ``r``, k1 against the dot-product length), and every value must give a point."""
    return _expand(*_grid_lists(table, where, label, r))


def _dedupe(points, where="", labels=None):
    """Identical configurations once; the first table that names them gives the name."""
    labels = labels or [""] * len(points)
    seen, out, first = {}, [], {}
    for p, label in zip(points, labels):
        key = (p["family"], p["format"])
        if key in seen:
            continue
        seen[key] = p
        out.append(p)
        if p["name"] in first:
            other, olabel = first[p["name"]]
            raise _problem(FpforgeValueError, where, label, "name", f"{p['name']!r} is also the name of a different "
                           f"point ({other['format']}{', ' + olabel if olabel else ''})", "a name of its own")
        first[p["name"]] = (p, label)
    return out


class Space:
    """A design space: ``name``, ``r``, ``f`` (int or ``"auto"``), ``vectors``, ``seed``, ``liberty`` (path
    or None), ``abc_script`` (or None), ``goal`` (:data:`SWEEP_GOALS`; None: ``"area"``, ``"delay"`` with PPA),
    ``flow`` (:data:`FLOWS`), ``points`` (list of :class:`~fpforge.sweep.points.Point`), ``description``, ``kind``
    (``"dot"``: the Fig. 7 sweep; area-table spaces are :class:`fpforge.sweep.area.AreaSpace`). ``where`` and
    ``labels`` (each point's table) only word the errors of a space file."""

    kind = "dot"

    def __init__(self, name, points, *, r=16, f=24, vectors=DEFAULT_VECTORS, seed=DEFAULT_SEED, liberty=None,
                 abc_script=None, flow="standard", description="", where="", labels=None, clock_ns=None, ppa=False,
                 activity="workload", cost="area-memory", goal=None):
        if not isinstance(name, str) or not name:
            raise _problem(FpforgeValueError, where, "", "name", f"must be a non-empty string, not {name!r}",
                           "a non-empty string")
        _check_name(name, where)
        self.name = name
        self.rs = _axis_values("r", r, where)
        self.fs = _axis_values("f", f, where)
        #: The space's r and f as given: an integer (f: or "auto"), or a list when the space sweeps that axis.
        self.r = self.rs[0] if len(self.rs) == 1 else list(self.rs)
        self.f = self.fs[0] if len(self.fs) == 1 else list(self.fs)
        self.vectors = _int("vectors", vectors, 1, MAX_VECTORS, where + "[qsnr] ")
        self.seed = _int("seed", seed, 0, MAX_SEED, where + "[qsnr] ")
        if liberty is not None and not isinstance(liberty, (str, Path)):
            raise _problem(FpforgeTypeError, where, "[synth]", "liberty", f"must be a path, not {_show(liberty)}",
                           "an existing liberty file")
        if liberty is not None and not Path(liberty).is_file():
            raise _problem(FpforgeValueError, where, "[synth]", "liberty", f"file not found: {str(liberty)!r}",
                           "an existing liberty file")
        self.liberty = None if liberty is None else str(Path(liberty).resolve())
        if abc_script is not None and (not isinstance(abc_script, str) or not abc_script.strip()):
            raise _problem(FpforgeValueError, where, "[synth]", "abc_script",
                           f"must be a non-empty string, not {abc_script!r}", "an ABC script")
        self.abc_script = abc_script
        _choice(where, "[synth]", "flow", flow, FLOWS)
        self.flow = flow
        self.clock_ns, self.ppa, self.activity, self.cost = _check_ppa(where, clock_ns, ppa, activity, cost)
        if goal is not None:
            _choice(where, "[synth]", "goal", goal, SWEEP_GOALS)
            if abc_script is not None:
                raise _problem(FpforgeValueError, where, "[synth]", "goal", "an abc_script decides the mapping itself",
                               "goal or abc_script, not both")
        self._goal = goal
        if self.ppa and flow == "reuse":
            raise _problem(FpforgeValueError, where, "[synth]", "flow", "the reuse flow counts multiplier instances "
                           "in a hierarchical netlist; timing and power need the flat one", "standard, fast with PPA")
        if not isinstance(description, str):
            raise _problem(FpforgeTypeError, where, "", "description", f"must be a string, not {_show(description)}",
                           "a string")
        self.description = description
        if not isinstance(points, (list, tuple)) or not all(
                isinstance(p, Point) or (isinstance(p, dict) and set(POINT_FIELDS) <= p.keys()) for p in points):
            raise _problem(FpforgeTypeError, where, "", "points", f"must be a list of points, not {_show(points)}",
                           "Points from fpforge.sweep.point or preset_points")
        points = [Point.from_record(p) for p in points]
        self.points = _dedupe(points, where, labels)
        if not self.points:
            raise _problem(FpforgeValueError, where, "", "", f"space {name!r} has no points",
                           "add [[grid]] or [[points]] tables")
        for p, label in zip(points, labels or [""] * len(points)):
            _check_tiles(p, self.rs, where, label, "k1")  # (a space built in Python too)

    def __repr__(self):
        return f"Space({self.name!r}, {len(self.points)} points, r={self.r}, f={self.f})"

    @property
    def goal(self) -> str | None:
        """The mapping goal (:data:`SWEEP_GOALS`): the space's own, else ``"area"`` (``"delay"`` with PPA);
        None when the space gives its own ``abc_script``."""
        if self.abc_script is not None:
            return None
        return self._goal or ("delay" if self.ppa else "area")

    def with_(self, **kw):
        """A copy with ``vectors``, ``seed`` (or other settings) replaced; None keeps the value."""
        args = dict(r=self.r, f=self.f, vectors=self.vectors, seed=self.seed, liberty=self.liberty,
                    abc_script=self.abc_script, flow=self.flow, description=self.description, clock_ns=self.clock_ns,
                    ppa=self.ppa, activity=self.activity, cost=self.cost, goal=self._goal)
        args.update({k: v for k, v in kw.items() if v is not None})
        return Space(self.name, self.points, **args)

    @property
    def axes(self) -> tuple:
        """The swept axes: ``"r"`` and/or ``"f"`` where the space lists more than one value."""
        return tuple(a for a, vs in (("r", self.rs), ("f", self.fs)) if len(vs) > 1)

    def r_of(self, p, r=None) -> int:
        """The dot-product length of point ``p`` at the space's r (or ``r``, one of :attr:`rs`): that r, or k1
        where k1 exceeds it (block formats)."""
        r = self.rs[0] if r is None else r
        if p["family"] in ("bdr", "ocp") and p["k1"] > r:
            return p["k1"]
        return r

    def cells(self) -> list:
        """What the sweep measures: ``(point, r, f)`` for every point at every r and f of the space, r being the
        unit's length (:meth:`r_of`). A block point whose k1 exceeds several values of r is one unit of k1
        elements: measured once per f."""
        out, seen = [], set()
        for r in self.rs:
            for f in self.fs:
                for p in self.points:
                    key = (p["name"], self.r_of(p, r), f)
                    if key not in seen:
                        seen.add(key)
                        out.append((p, key[1], f))
        return out

    def group_r(self, r) -> int:
        """The swept r a unit of length ``r`` belongs to (its Pareto group, its facet): the largest value of
        :attr:`rs` not above it (a block point whose k1 exceeds r runs at r = k1)."""
        below = [x for x in self.rs if x <= r]
        return max(below) if below else r


def _check_ppa(where, clock_ns, ppa, activity, cost):
    """The PPA settings of a space (``[synth] clock_ns``, ``ppa``, ``activity``; the Pareto ``cost``), checked:
    ``ppa`` needs ``clock_ns``; the energy and delay costs need ``ppa``."""
    if clock_ns is not None:
        if isinstance(clock_ns, bool) or not isinstance(clock_ns, (int, float)):
            raise _problem(FpforgeTypeError, where, "[synth]", "clock_ns", f"must be a number, not {_show(clock_ns)}",
                           "a clock period in ns > 0")
        if not (math.isfinite(clock_ns) and clock_ns > 0):
            raise _problem(FpforgeValueError, where, "[synth]", "clock_ns", f"{clock_ns!r} is not a period",
                           "a clock period in ns > 0")
        clock_ns = float(clock_ns)
    if not isinstance(ppa, bool):
        raise _problem(FpforgeTypeError, where, "[synth]", "ppa", f"must be true or false, not {_show(ppa)}",
                       "true, false")
    _choice(where, "[synth]", "activity", activity, ("workload", "vectorless"),
            "workload (toggles of a gate-level simulation on the sweep's Gaussian vectors), vectorless")
    _choice(where, "", "cost", cost, COSTS)
    if ppa and clock_ns is None:
        raise _problem(FpforgeValueError, where, "[synth]", "ppa", "delay, power and energy need a clock period",
                       "give clock_ns (--clock-ns T)")
    if cost != "area-memory" and not ppa:
        raise _problem(FpforgeValueError, where, "", "cost", f"cost {cost} needs the PPA columns",
                       "area-memory without PPA; --ppa --clock-ns T (or [synth] ppa = true, clock_ns) for "
                       + ", ".join(COSTS[1:]))
    return clock_ns, ppa, activity, cost


_AXIS_VALID = {"r": f"an integer 1..{MAX_R}, or an array of them",
               "f": f"an integer {F_RANGE[0]}..{F_RANGE[1]} or \"auto\", or an array of integers"}


def _axis_values(key, v, where=""):
    """The values of ``[dot] r`` or ``[dot] f`` (an integer or a list of distinct ones; f also "auto", alone) as
    a tuple, each checked against what a dot-product unit takes."""
    valid = _AXIS_VALID[key]
    if key == "f" and isinstance(v, str):
        return (_choice(where, "[dot]", "f", v, ("auto",), valid),)
    if isinstance(v, tuple):
        v = list(v)
    if key == "f" and isinstance(v, list) and "auto" in v:
        raise _problem(FpforgeValueError, where, "[dot]", "f", f"\"auto\" is a value of its own, not in an array "
                       f"({v!r})", valid)
    vs = _ints(where, "[dot]", key, v, True)
    lo, hi = (1, MAX_R) if key == "r" else F_RANGE
    for x in vs:
        if not lo <= x <= hi:
            raise _problem(FpforgeValueError, where, "[dot]", key, f"{x} is out of range", valid)
    return tuple(vs)


#: What a space's name may be: it names files (``docs/results/NAME.csv``) and the docs/results.md section.
SPACE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")


def _check_name(name, where=""):
    if not SPACE_NAME.match(name):
        raise _problem(FpforgeValueError, where, "", "name", f"{name!r} is not a plain name (it names the results: "
                       "docs/results/NAME.csv, the docs/results.md section)",
                       "letters, digits, '_', '-' and '.', starting with a letter or digit")


_TOP = {"name": "", "description": "", "dot": "[dot]", "qsnr": "[qsnr]", "synth": "[synth]", "grid": "[[grid]]",
        "points": "[[points]]"}
_TABLE_KEYS = {"dot": ("r", "f"), "qsnr": ("vectors", "seed"), "synth": ("liberty", "goal", "abc_script", "flow", "clock_ns",
                                                                             "ppa", "activity")}
_POINT_KEYS = ("preset", "name", "family", *_KEYS)
#: QSNR vectors a space may ask for (``fpforge.golden.qsnr.MAX_VALUES`` values of 256).
MAX_VECTORS = (1 << 24) // VECTOR_LENGTH


def _tables(where, data, key):
    """``data[key]``: a table (``[dot]``) or an array of tables (``[[grid]]``), checked for its TOML type."""
    v = data.get(key, [] if key in ("grid", "points") else {})
    if key in ("grid", "points"):
        if not isinstance(v, list) or not all(isinstance(t, dict) for t in v):
            raise _problem(FpforgeTypeError, where, "", key, f"must be an array of tables [[{key}]], not {_show(v)}",
                           f"[[{key}]] tables")
        return v
    if not isinstance(v, dict):
        raise _problem(FpforgeTypeError, where, "", key, f"must be a table [{key}], not {_show(v)}",
                       ", ".join(_TABLE_KEYS[key]))
    for k in v:
        if k not in _TABLE_KEYS[key]:
            raise _problem(UnknownName, where, f"[{key}]", k, "unknown key", ", ".join(_TABLE_KEYS[key]))
    return v


def _point_table(where, label, t, r):
    """The point(s) of one [[points]] table, checked."""
    t = dict(t)
    for k in t:
        if k not in _POINT_KEYS:
            raise _problem(UnknownName, where, label, k, "unknown key", ", ".join(_POINT_KEYS))
    nm = t.pop("name", None)
    if nm is not None and (not isinstance(nm, str) or not nm.strip()):
        raise _problem(FpforgeTypeError if not isinstance(nm, str) else FpforgeValueError, where, label, "name",
                       f"must be a non-empty string, not {_show(nm)}", "a non-empty string")
    if "preset" in t:
        if t.keys() - {"preset"}:
            extra = sorted(t.keys() - {"preset"})[0]
            raise _problem(FpforgeValueError, where, label, extra, "a preset fixes every parameter: give a preset "
                           "or explicit parameters, not both", "preset, name")
        pts = preset_points(t["preset"], nm, where, label)
    else:
        family = _choice(where, label, "family", t.pop("family", "bdr"), ("bdr", "int"),
                         "bdr, int; ocp and fp points come from presets")
        allowed = ("m",) if family == "int" else _KEYS
        for k in t:
            if k not in allowed:
                raise _problem(FpforgeValueError, where, label, k, "family int takes only m (a sign and m magnitude "
                               "bits; k1 = 256 values per FP32 scale, d1 = 32)", "name, family, m")
        for k in allowed:
            if k not in t and k in ("m", "k1"):
                raise _problem(FpforgeValueError, where, label, k, "missing (or give a preset)", "an integer")
            if k in t:
                _ints(where, label, k, t[k], False)
                _check_value(where, label, k, t[k], r)
        if "k2" in t and t["k1"] % t["k2"]:
            divisors = [d for d in range(1, t["k1"] + 1) if t["k1"] % d == 0]
            raise _problem(FpforgeValueError, where, label, "k2", f"{t['k2']} does not divide k1 = {t['k1']}",
                           ", ".join(map(str, divisors)))
        pts = [point(family, name=nm, **t)]
    for p in pts:  # presets: k1 against the QSNR vectors and r
        _check_tiles(p, r, where, label, "preset" if "preset" in t else "k1")
    return pts


def from_dict(data: dict, where="", announce=None) -> Space:
    """A :class:`Space` from parsed TOML data (see the module docstring), every table and key checked before
    any point is made: errors read ``WHERE[table] key: what is wrong (valid: ...)``. ``announce(text)`` is
    told the number of grid points before a grid of more than :data:`LARGE_GRID` points is expanded."""
    if not isinstance(data, dict):
        raise FpforgeTypeError(f"{where}a space is a TOML table, not {_show(data)}")
    for k in data:
        if k not in _TOP:
            raise _problem(UnknownName, where, "", k, "unknown table or key", ", ".join(v or k for k, v in _TOP.items()))
    stem = Path(where.rstrip(": ")).stem if where else ""
    name = data.get("name", stem if SPACE_NAME.match(stem) else "space")  # default: the file's name
    if not isinstance(name, str) or not name.strip():
        raise _problem(FpforgeTypeError if not isinstance(name, str) else FpforgeValueError, where, "", "name",
                       f"must be a non-empty string, not {_show(name)}", "a non-empty string")
    _check_name(name, where)
    description = data.get("description", "")
    if not isinstance(description, str):
        raise _problem(FpforgeTypeError, where, "", "description", f"must be a string, not {_show(description)}",
                       "a string")
    dot, qs, sy = (_tables(where, data, k) for k in ("dot", "qsnr", "synth"))
    grids, tables = _tables(where, data, "grid"), _tables(where, data, "points")
    if "r" not in dot:
        raise _problem(FpforgeValueError, where, "[dot]", "r", "missing (elements per dot product)",
                       f"an integer 1..{MAX_R}")
    r = _axis_values("r", dot["r"], where)
    f = _axis_values("f", dot.get("f", 24), where)
    vectors = _ints(where, "[qsnr]", "vectors", qs.get("vectors", DEFAULT_VECTORS), False)[0]
    if not 1 <= vectors <= MAX_VECTORS:
        raise _problem(FpforgeValueError, where, "[qsnr]", "vectors", f"{vectors} is out of range",
                       f"1..{MAX_VECTORS:,} (vectors of {VECTOR_LENGTH} values)")
    seed = _ints(where, "[qsnr]", "seed", qs.get("seed", DEFAULT_SEED), False)[0]
    if seed < 0:
        raise _problem(FpforgeValueError, where, "[qsnr]", "seed", f"{seed} is negative", "an integer >= 0")
    liberty = sy.get("liberty")
    if liberty is not None:
        if not isinstance(liberty, str) or not liberty.strip():
            raise _problem(FpforgeTypeError if not isinstance(liberty, str) else FpforgeValueError, where, "[synth]",
                           "liberty", f"must be a path (a string), not {_show(liberty)}",
                           "a liberty file, relative to the space file")
        base = Path(where.rstrip(": ")).parent if where else Path(".")
        path = Path(liberty) if Path(liberty).is_absolute() else base / liberty
        if not path.is_file():
            raise _problem(FpforgeValueError, where, "[synth]", "liberty", f"file not found: {str(path)!r}",
                           "a liberty file, relative to the space file")
        liberty = str(path)
    abc = sy.get("abc_script")
    if abc is not None and (not isinstance(abc, str) or not abc.strip()):
        raise _problem(FpforgeTypeError if not isinstance(abc, str) else FpforgeValueError, where, "[synth]",
                       "abc_script", f"must be a non-empty string, not {_show(abc)}", "an ABC script")
    flow = _choice(where, "[synth]", "flow", sy.get("flow", "standard"), FLOWS)
    checked = [(f"[[grid]] #{i + 1}", *_grid_lists(g, where, f"[[grid]] #{i + 1}", r)) for i, g in enumerate(grids)]
    points, labels = [], []
    for i, t in enumerate(tables):
        label = f"[[points]] #{i + 1}"
        pts = _point_table(where, label, t, r)
        points += pts
        labels += [label] * len(pts)
    total = sum(_grid_size(lists) for _, _, lists in checked)
    if total > MAX_POINTS:
        raise _problem(FpforgeValueError, where, "[[grid]]", "", f"the grids span {total:,} points, more than a "
                       "space holds (split it into several spaces)", f"at most {MAX_POINTS:,} points")
    if total > LARGE_GRID and announce is not None:
        announce(f"{where}[[grid]] tables span {total:,} points; expanding")
    grid_pts, grid_labels = [], []
    for label, family, lists in checked:
        pts = _expand(family, lists)
        grid_pts += pts
        grid_labels += [label] * len(pts)
    space = Space(name, grid_pts + points, r=r[0] if len(r) == 1 else list(r), f=f[0] if len(f) == 1 else list(f), vectors=vectors, seed=seed, liberty=liberty, abc_script=abc,
                  flow=flow, description=description, where=where, labels=grid_labels + labels,
                  clock_ns=sy.get("clock_ns"), ppa=sy.get("ppa", False),
                  activity=sy.get("activity", "workload"), goal=sy.get("goal"))
    if total > LARGE_GRID and announce is not None:
        announce(f"{where}{len(space.points):,} distinct points (grid combinations that are not BDR configurations "
                 "skipped, identical ones merged)")
    return space


#: The catalogues of built-in spaces (``{name: function returning the space}``), in the order they are listed:
#: ``fpforge.sweep.SPACES`` (:mod:`fpforge.sweep.spaces`) and the area tables (``fpforge.sweep.area.AREA_SPACES``).
#: Each module adds its own (:func:`register_spaces`), so that this module, below both, imports neither;
#: ``fpforge.sweep`` imports both, so the catalogue is complete once any sweep module is imported.
BUILT_IN_SPACES: list = []


def register_spaces(catalogue: dict) -> dict:
    """Add a catalogue of built-in spaces (``{name: function returning the space}``) to those
    :func:`load_space` knows by name; returns it."""
    BUILT_IN_SPACES.append(catalogue)
    return catalogue


def load_space(space, announce=None):
    """A built-in space by name (``fpforge.sweep.SPACES``, ``fpforge.sweep.area.AREA_SPACES``), a TOML file
    path, or a :class:`Space` as is. A TOML file is checked whole before any point is made (:func:`from_dict`;
    ``announce`` is told the size of a large grid before it is expanded)."""
    if isinstance(space, Space) or getattr(space, "kind", None) == "area":
        return space
    if not isinstance(space, (str, Path)):
        raise FpforgeTypeError(f"space must be a built-in name, a TOML file or a Space, not {space!r}")
    for catalogue in BUILT_IN_SPACES:
        if str(space) in catalogue:
            return catalogue[str(space)]()
    path = Path(space)
    if path.suffix.lower() != ".toml" or not path.is_file():
        names = [name for catalogue in BUILT_IN_SPACES for name in catalogue]
        raise UnknownName(f"unknown space {str(space)!r}: not a built-in space ({', '.join(names)}) "
                          "nor an existing .toml file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))  # a BOM is allowed
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise FpforgeValueError(f"{space}: not valid TOML: {e}") from None
    except OSError as e:
        raise FpforgeValueError(f"{space}: cannot read: {e.strerror or e}") from None
    return from_dict(data, f"{space}: ", announce)

