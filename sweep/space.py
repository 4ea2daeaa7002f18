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
    abc_script = "..."                # default: fpforge.synth.DEFAULT_ABC_SCRIPT (fast flow: FAST_ABC_SCRIPT)
    flow = "standard"                 # "fast": synth -noabc; "reuse": multipliers synthesized once per shape
    [[grid]]
    family = "bdr"                    # bdr (default) or int
    m  = [2, 4]                       # an integer or a list, every key
    k1 = [16]
    d1 = [8]                          # default 8
    k2 = [2, 16]
    d2 = [0, 1]
    [[points]]
    preset = "fp8"                    # or family = "bdr", m = 7, k1 = 16, ... ; name = "label" (optional)

A point is a plain dict (``name, family, m, k1, d1, k2, d2, format, bits_per_element``); families:

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

import itertools
import tomllib
from pathlib import Path

from ..golden import get_format
from ..golden.block import BlockFormat, MXFormat, bdr
from ..golden.checks import MAX_SEED
from ..golden.dot import F_RANGE
from ..golden.errors import FpforgeTypeError, FpforgeValueError, UnknownName

__all__ = ["DEFAULT_SEED", "DEFAULT_VECTORS", "FAMILIES", "PRESETS", "Space", "load_space", "point", "preset_points",
           "grid_points"]

DEFAULT_VECTORS = 10_000
DEFAULT_SEED = 0
#: Values per QSNR vector (and per memory tile).
VECTOR_LENGTH = 256
FAMILIES = ("bdr", "ocp", "fp", "int")
#: Synthesis flows: ``standard`` is ``fpforge synth``'s; ``fast`` skips synth's generic ABC pass
#: (``pre_abc=False``) and maps with ``FAST_ABC_SCRIPT`` unless the space names its own script; ``reuse`` is
#: the standard flow with each multiplier synthesized once per shape and counted per instance (``reuse=True``).
FLOWS = ("standard", "fast", "reuse")

_BDR_PRESETS = ("mx9", "mx6", "mx4", "msfp12", "msfp16")
_OCP_PRESETS = ("mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4_e2m1", "mxint8")
#: Preset names a [[points]] table takes (besides any ``bdr_m<M>_k<K1>_d<D1>_k<K2>_d<D2>``).
#: Scalar elements with a dot-product unit of their own (not the FP8 unit): HiF8 and CFloat8.
_OWN_UNIT_PRESETS = ("hif8", "cfloat8_143", "cfloat8_152")
PRESETS = ("fp8", "e4m3", "e5m2", *_OWN_UNIT_PRESETS, *_BDR_PRESETS, *_OCP_PRESETS, "int8", "int4")
_KEYS = ("m", "k1", "d1", "k2", "d2")


def _int(name, value, lo, hi=None, where=""):
    if not isinstance(value, int) or isinstance(value, bool):
        raise FpforgeTypeError(f"{where}{name} must be an integer, not {value!r}")
    if value < lo or (hi is not None and value > hi):
        rng = f">= {lo}" if hi is None else f"in {lo}..{hi}"
        raise FpforgeValueError(f"{where}{name} must be an integer {rng}, not {value!r}")
    return value


def _bdr_point(fmt: BlockFormat, name=None) -> dict:
    for preset in _BDR_PRESETS:
        if get_format(preset) == fmt:
            name = name or preset
    return dict(name=name or fmt.name, family="bdr", m=fmt.m, k1=fmt.k1, d1=fmt.d1, k2=fmt.k2, d2=fmt.d2,
                format=fmt.name, bits_per_element=float(fmt.bits_per_element))


def _ocp_point(fmt: MXFormat, name=None) -> dict:
    if fmt.is_int:
        m, k2, d2 = fmt.element.bits - 1, fmt.k1, 0
    else:
        m, k2, d2 = fmt.element.mbits, 1, fmt.element.ebits
    return dict(name=name or fmt.name, family="ocp", m=m, k1=fmt.k1, d1=8, k2=k2, d2=d2, format=fmt.name,
                bits_per_element=float(fmt.bits_per_element))


def _fp_point(fmt_name, name=None) -> dict:
    fmt = get_format(fmt_name)
    ebits = getattr(fmt, "ebits", None)
    if ebits is None:  # HiF8: the bits of a sign-magnitude exponent covering its range -emax..emax
        ebits = (2 * fmt.emax + 1).bit_length()
    return dict(name=name or fmt.name, family="fp", m=fmt.mbits, k1=1, d1=None, k2=1, d2=ebits,
                format=fmt.name, bits_per_element=float(fmt.bits))


def _int_point(m, name=None) -> dict:
    _int("m", m, 1, 24, "int point: ")
    return dict(name=name or f"int{m + 1}", family="int", m=m, k1=VECTOR_LENGTH, d1=32, k2=VECTOR_LENGTH, d2=0,
                format=f"int{m + 1}", bits_per_element=float(m + 1))


def preset_points(preset: str, name=None) -> list:
    """The point(s) of a preset name (``fp8`` gives E4M3 and E5M2)."""
    if not isinstance(preset, str):
        raise FpforgeTypeError(f"preset must be a name, not {preset!r}")
    p = preset.strip().lower()
    if p == "fp8":
        return [_fp_point("e4m3"), _fp_point("e5m2")]
    if p in ("e4m3", "e5m2", *_OWN_UNIT_PRESETS):
        return [_fp_point(p, name)]
    if p.startswith("int") and p[3:].isdigit() and int(p[3:]) >= 2:
        return [_int_point(int(p[3:]) - 1, name)]
    try:
        fmt = get_format(p)
    except (KeyError, ValueError):
        fmt = None
    if isinstance(fmt, BlockFormat):
        return [_bdr_point(fmt, name)]
    if isinstance(fmt, MXFormat):
        return [_ocp_point(fmt, name)]
    raise UnknownName(f"unknown sweep preset {preset!r}; valid: {', '.join(PRESETS)}, intN (N >= 2) or "
                      "bdr_m<M>_k<K1>_d<D1>_k<K2>_d<D2>")


def point(family="bdr", *, name=None, m=None, k1=None, d1=8, k2=None, d2=0) -> dict:
    """One point from explicit parameters (``family`` bdr or int; see the module docstring)."""
    if family == "int":
        return _int_point(m, name)
    if family != "bdr":
        raise UnknownName(f"unknown point family {family!r}; valid with explicit parameters: bdr, int (ocp and "
                          "fp points come from presets)")
    if k2 is None:
        k2 = k1
    try:
        fmt = bdr(m, k1, d1, k2, d2)
    except ValueError as e:
        raise FpforgeValueError(str(e)) from None
    return _bdr_point(fmt, name)


def grid_points(table: dict, where: str) -> list:
    table = dict(table)
    family = table.pop("family", "bdr")
    if family not in ("bdr", "int"):
        raise UnknownName(f"{where}family must be bdr or int, not {family!r} (ocp and fp points come from "
                          "[[points]] presets)")
    allowed = ("m",) if family == "int" else _KEYS
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise FpforgeValueError(f"{where}unknown key(s) {', '.join(unknown)} for family {family}; valid: "
                                f"family, {', '.join(allowed)}")
    lists = {}
    for k in allowed:
        v = table.get(k, 8 if k == "d1" else None)
        if v is None:
            raise FpforgeValueError(f"{where}needs {k} (an integer or a list of integers)")
        v = v if isinstance(v, list) else [v]
        if not v:
            raise FpforgeValueError(f"{where}{k} is an empty list")
        for x in v:
            _int(k, x, 0, None, where)
        lists[k] = v
    out = []
    for combo in itertools.product(*(lists[k] for k in allowed)):
        cfg = dict(zip(allowed, combo))
        if family == "int":
            out.append(_int_point(cfg["m"]))
            continue
        if cfg["d2"] == 0:
            cfg["k2"] = cfg["k1"]
        if cfg["k2"] < 1 or cfg["k1"] < 1 or cfg["k1"] % cfg["k2"] or (cfg["d2"] and cfg["k2"] == cfg["k1"]):
            continue  # not a BDR configuration, or a shift that is always 0 (one sub-block): skipped
        out.append(point("bdr", **cfg))
    return out


def _dedupe(points):
    """Identical configurations once; the first table that names them gives the name."""
    seen, out = {}, []
    for p in points:
        key = (p["family"], p["format"])
        if key in seen:
            continue
        seen[key] = p
        out.append(p)
    names = {}
    for p in out:
        names.setdefault(p["name"], []).append(p)
    dup = [n for n, ps in names.items() if len(ps) > 1]
    if dup:
        raise FpforgeValueError(f"point name(s) used for different configurations: {', '.join(dup)}")
    return out


class Space:
    """A design space: ``name``, ``r``, ``f`` (int or ``"auto"``), ``vectors``, ``seed``, ``liberty`` (path
    or None), ``abc_script`` (or None), ``flow`` (:data:`FLOWS`), ``points`` (list of point dicts), ``description``, ``kind``
    (``"dot"``: the Fig. 7 sweep; area-table spaces are :class:`fpforge.sweep.area.AreaSpace`)."""

    kind = "dot"

    def __init__(self, name, points, *, r=16, f=24, vectors=DEFAULT_VECTORS, seed=DEFAULT_SEED, liberty=None,
                 abc_script=None, flow="standard", description=""):
        if not isinstance(name, str) or not name:
            raise FpforgeValueError(f"space name must be a non-empty string, not {name!r}")
        self.name = name
        self.r = _int("r", r, 1, None, "[dot] ")
        if f != "auto":
            _int("f", f, *F_RANGE, where="[dot] ")
        self.f = f
        self.vectors = _int("vectors", vectors, 1, None, "[qsnr] ")
        self.seed = _int("seed", seed, 0, MAX_SEED, "[qsnr] ")
        if liberty is not None and not Path(liberty).is_file():
            raise FpforgeValueError(f"[synth] liberty file not found: {str(liberty)!r}")
        self.liberty = None if liberty is None else str(Path(liberty).resolve())
        if abc_script is not None and (not isinstance(abc_script, str) or not abc_script.strip()):
            raise FpforgeValueError(f"[synth] abc_script must be a non-empty string, not {abc_script!r}")
        self.abc_script = abc_script
        if flow not in FLOWS:
            raise UnknownName(f"[synth] flow must be one of {', '.join(FLOWS)}, not {flow!r}")
        self.flow = flow
        self.description = description
        self.points = _dedupe(points)
        if not self.points:
            raise FpforgeValueError(f"space {name!r} has no points: add [[grid]] or [[points]] tables")

    def __repr__(self):
        return f"Space({self.name!r}, {len(self.points)} points, r={self.r}, f={self.f})"

    def with_(self, **kw):
        """A copy with ``vectors``, ``seed`` (or other settings) replaced; None keeps the value."""
        args = dict(r=self.r, f=self.f, vectors=self.vectors, seed=self.seed, liberty=self.liberty,
                    abc_script=self.abc_script, flow=self.flow, description=self.description)
        args.update({k: v for k, v in kw.items() if v is not None})
        return Space(self.name, self.points, **args)

    def r_of(self, p) -> int:
        """The dot-product length of point ``p``: the space's r, or k1 where k1 exceeds it (block formats)."""
        if p["family"] in ("bdr", "ocp") and p["k1"] > self.r:
            return p["k1"]
        return self.r


def from_dict(data: dict, where="") -> Space:
    """A :class:`Space` from parsed TOML data (see the module docstring)."""
    if not isinstance(data, dict):
        raise FpforgeTypeError(f"{where}a space is a TOML table, not {data!r}")
    unknown = sorted(set(data) - {"name", "description", "dot", "qsnr", "synth", "grid", "points"})
    if unknown:
        raise FpforgeValueError(f"{where}unknown top-level key(s) {', '.join(unknown)}; valid: name, description, "
                                "[dot], [qsnr], [synth], [[grid]], [[points]]")
    dot = data.get("dot", {})
    qs = data.get("qsnr", {})
    sy = data.get("synth", {})
    for tname, table, keys in (("dot", dot, ("r", "f")), ("qsnr", qs, ("vectors", "seed")),
                               ("synth", sy, ("liberty", "abc_script", "flow"))):
        if not isinstance(table, dict):
            raise FpforgeTypeError(f"{where}[{tname}] must be a table")
        bad = sorted(set(table) - set(keys))
        if bad:
            raise FpforgeValueError(f"{where}unknown key(s) {', '.join(bad)} in [{tname}]; valid: {', '.join(keys)}")
    if "r" not in dot:
        raise FpforgeValueError(f"{where}[dot] needs r (elements per dot product)")
    points = []
    for i, g in enumerate(data.get("grid", [])):
        points += grid_points(g, f"{where}[[grid]] #{i + 1}: ")
    for i, t in enumerate(data.get("points", [])):
        t = dict(t)
        w = f"{where}[[points]] #{i + 1}: "
        nm = t.pop("name", None)
        if "preset" in t:
            if t.keys() - {"preset"}:
                raise FpforgeValueError(f"{w}give a preset or explicit parameters, not both")
            points += preset_points(t["preset"], nm)
        else:
            bad = sorted(set(t) - {"family", *_KEYS})
            if bad:
                raise FpforgeValueError(f"{w}unknown key(s) {', '.join(bad)}; valid: preset, name, family, "
                                        f"{', '.join(_KEYS)}")
            points.append(point(t.pop("family", "bdr"), name=nm, **t))
    base = Path(where.rstrip(": ")).parent if where else Path(".")
    liberty = sy.get("liberty")
    if liberty is not None and not Path(liberty).is_absolute():
        liberty = str(base / liberty)
    return Space(data.get("name", "space"), points, r=dot["r"], f=dot.get("f", 24),
                 vectors=qs.get("vectors", DEFAULT_VECTORS), seed=qs.get("seed", DEFAULT_SEED), liberty=liberty,
                 abc_script=sy.get("abc_script"), flow=sy.get("flow", "standard"),
                 description=data.get("description", ""))


def load_space(space):
    """A built-in space by name (``fpforge.sweep.SPACES``), a TOML file path, or a :class:`Space` as is."""
    from .area import AREA_SPACES
    from .spaces import SPACES

    if isinstance(space, Space) or getattr(space, "kind", None) == "area":
        return space
    if not isinstance(space, (str, Path)):
        raise FpforgeTypeError(f"space must be a built-in name, a TOML file or a Space, not {space!r}")
    if str(space) in SPACES:
        return SPACES[str(space)]()
    if str(space) in AREA_SPACES:
        return AREA_SPACES[str(space)]()
    path = Path(space)
    if path.suffix.lower() != ".toml" or not path.is_file():
        raise UnknownName(f"unknown space {str(space)!r}: not a built-in space ({', '.join([*SPACES, *AREA_SPACES])}) "
                          "nor an existing .toml file")
    try:
        data = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise FpforgeValueError(f"{path.name}: not valid TOML: {e}") from None
    return from_dict(data, f"{path}: ")

