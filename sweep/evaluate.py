"""Per-point work of a sweep, run on the workers: numerics (QSNR, the auto window width), Verilog (one
unit generated, for its hash) and area (one synthesized unit). Each is a module-level function of one
JSON-able task returning a JSON-able dict, so :func:`fpforge.jobs.run_tasks` can ship them to local
processes or Dask workers and store their results.

Cache keys (:func:`numerics_key`, :func:`verilog_key`, :func:`area_key`) hold what a result depends on:

* numerics: the point's format, the QSNR data (vectors, length, seed), the dot-product geometry for
  ``f = "auto"``, and a hash of the golden model's source;
* Verilog: the unit's spec hash (:attr:`fpforge.hw.spec.UnitSpec.sha256`; a task carries the spec's JSON
  form, with a module ``name`` when the unit is not to have its default one; :func:`unit_spec` makes the
  sweep's dot-product specs), the module name, a hash of the gateware generator's and golden model's
  source and the Amaranth version; the result is the Verilog's SHA-256, its top name and the Verilog
  itself (zlib, base64: the area task synthesizes it without generating it again);
* area: that SHA-256 and top name (the generated Verilog itself), the liberty file's SHA-256, the ABC
  script, the flow and the yosys build and version; with PPA (a ``clock_ns`` in the task) also the liberty's
  path, the clock, the activity and the OpenSTA version. A change of fpforge's source regenerates the Verilog
  (cheap) and resynthesizes only the units whose Verilog changed; a warm rerun only reads files.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import resource
import time
import zlib
from importlib import metadata
from pathlib import Path

import numpy as np

from ..jobs import canonical_json
from .space import VECTOR_LENGTH

__all__ = ["area_key", "area_task", "generator_hash", "numerics_key", "numerics_task", "quantize_int",
           "task_spec", "task_unit", "unit_spec", "verilog_key", "verilog_task"]

_ROOT = Path(__file__).resolve().parent.parent
#: Fraction of dot products that must be exact for ``f = "auto"``.
AUTO_EXACT = 0.99
#: Dot products (pairs of r-value slices of the QSNR vectors) checked for ``f = "auto"``.
AUTO_DOTS = 10_000

#: yosys's time limit per sweep unit (synthesize's own default is 600 s): the flat standard flow of the largest
#: units runs longer (bdr_m9_k64_d8_k64_d0 at r = 64 spent over 600 s in synth's generic ABC pass under
#: `paper --flow standard --ppa`, where its r = 64 neighbours took 7 to 153 s); a limit, not a budget.
SWEEP_SYNTH_TIMEOUT_S = 3600.0


# -- keys -----------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def _source_hash(*folders) -> str:
    h = hashlib.sha256()
    for folder in folders:
        for path in sorted((_ROOT / folder).glob("*.py")):
            h.update(f"{folder}/{path.name}\0".encode())
            h.update(path.read_bytes())
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def generator_hash() -> str:
    """SHA-256 of what fixes a unit's Verilog: the hw/ and golden/ sources and the Amaranth version."""
    try:
        amaranth = metadata.version("amaranth")
    except metadata.PackageNotFoundError:
        amaranth = "?"
    return hashlib.sha256(f"{_source_hash('hw', 'golden')} amaranth {amaranth}".encode()).hexdigest()


@functools.lru_cache(maxsize=8)
def _file_hash(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def unit_spec(p, r, f):
    """The :class:`~fpforge.hw.spec.DotSpec` of point ``p``'s dot-product unit at length ``r`` and window ``f``,
    with the paper's area method (combinational, I/O registers only)."""
    fp = "fp8" if p["format"] in ("e4m3", "e5m2") else p["format"]  # HiF8, CFloat8: units of their own
    fmt = {"fp": fp, "int": f"bdr_m{p['m']}_k{r}_d1_k{r}_d0"}.get(p["family"], p["format"])
    return _dot_spec(fmt, r, f)


@functools.lru_cache(maxsize=1 << 16)  # a sweep asks for each spec (and the FP8 baseline's) several times
def _dot_spec(fmt, r, f):
    from ..hw.spec import DotSpec

    return DotSpec(format=fmt, r=r, f=f, io_registers=True)


def task_spec(unit):
    """``(spec, module name or None)`` of a task's ``unit``: a spec's JSON form, with ``name`` when the
    module is not to have its default name."""
    from ..hw.spec import UnitSpec

    unit = dict(unit)
    name = unit.pop("name", None)
    return UnitSpec.from_dict(unit), name


def numerics_key(task) -> dict:
    return dict(kind="numerics", task=task, golden=_source_hash("golden"))


def verilog_key(task) -> dict:
    return dict(kind="verilog", **_spec_key(canonical_json(task["unit"])), generator=generator_hash())


_SPEC_KEYS: dict = {}


def _spec_key(unit_json) -> dict:
    if unit_json not in _SPEC_KEYS:
        if len(_SPEC_KEYS) >= 1 << 17:
            _SPEC_KEYS.clear()
        spec, name = task_spec(json.loads(unit_json))
        _SPEC_KEYS[unit_json] = dict(spec=spec.sha256, name=name)
    return _SPEC_KEYS[unit_json]


def task_unit(spec) -> dict:
    """``spec.to_dict()``, the unit of a task, with its Verilog key's spec hash remembered (a spec's JSON form
    reads back as the same spec, so the key need not build it again)."""
    unit = spec.to_dict()
    _SPEC_KEYS.setdefault(canonical_json(unit), dict(spec=spec.sha256, name=None))
    return unit


def area_key(task) -> dict:
    from ..synth import DEFAULT_LIBERTY, yosys_backend

    key = dict(kind="area", verilog=task["verilog_sha256"], top=task["top"],
               liberty=_file_hash(task.get("liberty") or DEFAULT_LIBERTY), abc=_abc_script(task),
               yosys=list(yosys_backend()))
    if task.get("pre_abc") is False:
        key["pre_abc"] = False
    if task.get("pre_abc_script"):  # the lean flow's generic pass (absent: yosys' own, the keys as before)
        key["pre_abc_script"] = task["pre_abc_script"]
    if task.get("reuse"):
        from ..synth.flow import REUSE_RULE

        key["reuse"] = REUSE_RULE
    if task.get("clock_ns") is not None:  # PPA: the library (path and contents), clock, activity and OpenSTA
        from ..synth.sta import sta_version

        key.update(liberty_path=str(task.get("liberty") or DEFAULT_LIBERTY), clock_ns=task["clock_ns"],
                   activity=task.get("activity", "vectorless"), power=True, sta=_sta_version(sta_version))
        if key["activity"] == "workload":  # the simulator and the workloads (their stimulus, their length)
            from ..synth import activity as workload_module

            key["workload"] = [_file_hash(workload_module.__file__), workload_module.DEFAULT_CYCLES]
    return key


@functools.lru_cache(maxsize=1)
def _sta_version(fn):
    return fn()


def _abc_script(task):
    """The ABC script of an area task, the key's ``abc``: the space's own, else its goal's for its flow (with PPA
    and the area goal, the relaxed one of the two mappings ``synthesize`` tries)."""
    from ..synth.flow import goal_script

    if task.get("abc_script"):
        return task["abc_script"]
    return goal_script("area" if task.get("goal") == "area" else "delay", task.get("pre_abc") is not False)


# -- numerics -------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=2)
def _vectors(n, length, seed):
    from ..golden.qsnr import gaussian_vectors

    x = gaussian_vectors(n, length, seed)
    x.setflags(write=False)
    return x


def quantize_int(x, m) -> np.ndarray:
    """INT-like quantization: each row of ``x`` scaled by its FP32 amax to a sign and ``m`` magnitude bits
    (symmetric, ``±(2**m - 1)``), rounded half away from zero, scaled back (float64)."""
    x = np.asarray(x, np.float32)
    top = float(2**m - 1)
    amax = np.abs(x).max(axis=-1, keepdims=True).astype(np.float64)
    s = np.where(amax > 0, amax / top, 1.0)
    v = x.astype(np.float64) / s
    q = np.minimum(np.floor(np.abs(v) + 0.5), top) * np.sign(v)
    return q * s


#: Vectors per numpy pass: chunks that stay in the CPU caches run about 3x faster than one big array.
CHUNK = 512


def _qsnr(p, x):
    return np.concatenate([_qsnr_chunk(p, x[i : i + CHUNK]) for i in range(0, x.shape[0], CHUNK)])


def _qsnr_chunk(p, x):
    from ..golden.qsnr import qsnr

    if p["family"] == "int":
        x64 = x.astype(np.float64)
        noise = ((x64 - quantize_int(x, p["m"])) ** 2).sum(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return -10.0 * np.log10(noise / (x64**2).sum(axis=-1))
    return qsnr(p["format"], x)


def _auto_f(p, x, r):
    """Smallest f whose pipeline result is bit-identical to the exact sum for >= AUTO_EXACT of the dot
    products of the QSNR data (binary search over the window widths)."""
    from ..golden.dot import F_RANGE, DotConfig, dot, dot_exact, quantized_operands

    spec = unit_spec(p, r, F_RANGE[0])
    rows = x.reshape(-1, r)
    n = min(AUTO_DOTS, rows.shape[0] // 2)
    xa, xb = rows[0 : 2 * n : 2], rows[1 : 2 * n : 2]
    base = spec.config
    sel = 1 if p["format"] == "e5m2" else 0  # the FP8 unit's mode for this point's format
    a = quantized_operands(base, xa, sel)
    b = quantized_operands(base, xb, sel, side="b")
    kw = {}
    if base.a.name == "fp8":
        kw = dict(select_a=np.full(n, sel, np.int64), select_b=np.full(n, sel, np.int64))
    elif getattr(base.a, "bias_bits", 0):  # CFloat8 at bias 0 (quantized_operands' default)
        kw = dict(bias_a=0, bias_b=0)
    exact = dot_exact(base, a, None, b, **kw).y

    def ok(f):
        cfg = DotConfig(spec.format, r, f, spec.format_b)
        return float((dot(cfg, a, None, b, **kw).y == exact).mean()) >= AUTO_EXACT

    lo, hi = F_RANGE[0], min(F_RANGE[1], base.f_exact)
    if not ok(hi):
        return hi
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def numerics_task(task) -> dict:
    """QSNR (mean and 5th percentile, dB) of the point ``task["point"]`` on ``task["vectors"]`` Gaussian
    vectors of 256 values (seed ``task["seed"]``), and with ``task["auto_r"]`` the auto window width."""
    p = task["point"]
    x = _vectors(task["vectors"], VECTOR_LENGTH, task["seed"])
    q = _qsnr(p, x)
    out = dict(qsnr_db=float(np.mean(q)), qsnr_p5_db=float(np.percentile(q, 5)))
    if task.get("auto_r"):
        out["f"] = _auto_f(p, x, task["auto_r"])
    return out


# -- area -----------------------------------------------------------------------------------------------
def _child_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _generate(unit_cfg):
    from ..hw import build_unit, default_name, to_verilog

    spec, name = task_spec(unit_cfg)
    unit = build_unit(spec)
    top = name or default_name(unit)
    return top, to_verilog(unit, top)


def verilog_task(task) -> dict:
    """Generate the unit ``task["unit"]``: its top module name, the SHA-256 of its Verilog and the Verilog
    (``verilog_zlib``: zlib-compressed, base64; a few kB)."""
    t0 = time.perf_counter()
    top, verilog = _generate(task["unit"])
    data = verilog.encode()
    packed = base64.b64encode(zlib.compress(data, 6)).decode("ascii")
    return dict(top=top, verilog_sha256=hashlib.sha256(data).hexdigest(),
                generate_s=round(time.perf_counter() - t0, 3), verilog_zlib=packed)


def area_task(task) -> dict:
    """Synthesize the unit ``task["unit"]`` (a spec's JSON form, :func:`task_spec`), whose Verilog must hash to
    ``task["verilog_sha256"]``, onto ``task["liberty"]`` (None: the bundled library) with the task's ABC
    script and flow; the area report plus synthesis times (wall, and yosys CPU). The Verilog is
    ``task["verilog_zlib"]`` (from :func:`verilog_task`) when the task carries it, else generated here."""
    from ..golden.errors import ToolError
    from ..synth import synthesize, yosys_backend

    if task.get("verilog_zlib"):
        top, verilog = task["top"], zlib.decompress(base64.b64decode(task["verilog_zlib"])).decode()
    else:
        top, verilog = _generate(task["unit"])
    sha = hashlib.sha256(verilog.encode()).hexdigest()
    if task.get("verilog_sha256") not in (None, sha) or task.get("top") not in (None, top):
        raise ToolError(f"the Verilog of {top} differs between two generations on this worker and the client "
                        "(fpforge versions differ?)")
    t1 = time.perf_counter()
    c1 = _child_cpu()
    ppa = task.get("clock_ns") is not None
    kw = dict(clock_ns=task["clock_ns"], power=True, activity=task.get("activity", "vectorless"),
              abc_script=task.get("abc_script")) if ppa else dict(abc_script=_abc_script(task))
    if ppa and task.get("goal") == "area":
        kw["goal"] = "area"
    if ppa and kw["activity"] == "workload":  # the unit's own data: the sweep's Gaussian vectors, quantized
        kw["workload"] = task_spec(task["unit"])[0]
    # (PPA without a space's own ABC script: the flow's delay-target script)
    rep = synthesize(verilog, top, liberty=task.get("liberty"), pre_abc=task.get("pre_abc", True),
                     pre_abc_script=task.get("pre_abc_script"), reuse=bool(task.get("reuse")),
                     timeout=SWEEP_SYNTH_TIMEOUT_S, **kw)
    t2 = time.perf_counter()
    backend, version = yosys_backend()
    out = dict(area_um2=rep["area_um2"], ge=rep["ge"], cell_count=rep["cell_count"],
               flip_flops=rep["flip_flops"], logic_depth=rep["logic_depth"], top=top, verilog_sha256=sha,
               yosys=f"{version} ({backend})", synth_s=round(t2 - t1, 3), synth_cpu_s=round(_child_cpu() - c1, 3))
    if ppa:
        out.update({k: rep[k] for k in ("clock_ns", "delay_ns", "slack_ns", "power_mw", "energy_pj")})
    if task.get("reuse"):
        out["reused_multipliers"] = rep["reused_multipliers"]
    return out
