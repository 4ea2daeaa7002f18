"""Exhaustive dot-product proofs (``fpforge prove dot``): every operand pattern of a small combinational dot
unit, simulated by the prover's Verilator C++ harness, against the golden dot product, bit for bit.

A dot unit's input patterns are all its operand bits: the A and B ports (r codes of a scalar format, or
r/k1 packed blocks of a block format: shared scales and shifts count), at most :data:`MAX_PATTERN_BITS`
(2**36) of them. The harness counts one input ``a`` through them: the unit is wrapped in a module whose
``a`` is ``{B, A}`` (A in the low bits), so pattern ``p`` is ``A = p mod 2**bits(A)``, ``B = p >> bits(A)``.
The run-time selects (``sel_a``/``sel_b`` of ``fp8`` operands) and biases (``bias_a``/``bias_b`` of CFloat8
operands) are not operand bits: they are held constant over a proof, one *condition* per combination —
both selects of each operand, and each (bias_a, bias_b) pair of a chosen set of biases (default
:data:`DOT_BIASES`).

The golden side (``golden``): ``"cpp"``, the default for scalar operand formats and one-block BDR units (a
decode table of every block word), is the C++ twin of the golden
dot product (:mod:`fpforge.sim.dot_golden`, about 15x faster than numpy); every chunk checks a random sample of
:data:`SAMPLE` of its patterns, and every mismatch it keeps, against the public vectorised model
:func:`fpforge.golden.dot.dot` too, so a divergence of the two oracles fails the chunk (never hidden).
``"numpy"`` (the default for the other block units) is that model alone over every pattern, a batch (:data:`BATCH`
dot products) of numpy arrays at a time: operand codes are cut from the pattern numbers with shifts (scalar
formats) or unpacked by :func:`fpforge.golden.dot.from_operand_words` (block formats). Every output of the
unit is compared: ``y`` (FP32 bits) and, with ``raw``, ``sum`` and ``exp`` (two's complement, masked to their
widths).

Chunks (:data:`CHUNK` patterns), parallel workers, the record of finished chunks (resumption) and the
progress bar are the encoder prover's (:mod:`fpforge.sim.prove`, ``fpforge.jobs``); a chunk's record key
holds the harness key (Verilog, wrapper, C++ source), the golden model's and the prover's versions, the
unit's configuration, the condition and the range.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import itertools
import json
import operator
import time
from functools import cached_property, lru_cache
from typing import NamedTuple

import numpy as np

from ..golden.errors import FpforgeTypeError, FpforgeValueError, ToolError
from ..jobs import Store, TaskFailure, cache_dir, executor, run_tasks
from .dot_golden import library_path
from .harness import HarnessRun, HarnessSpec, build_harness
from .prove import ProofResult

__all__ = ["CHUNK", "DOT_BIASES", "GOLDENS", "SAMPLE", "DotCondition", "DotProofResult", "DotProofUnit",
           "MAX_PATTERN_BITS", "check_dot_chunk", "dot_conditions", "dot_golden", "estimate_dot", "golden_of",
           "prove_dot", "prover_version"]

#: The largest dot unit the prover takes: 2**36 operand patterns (A and B bits together).
MAX_PATTERN_BITS = 36
#: Patterns per chunk (a task, the unit of resumption): 2**24, 256 chunks for an r = 2 FP8 unit.
CHUNK = 1 << 24
#: Patterns per numpy batch inside a chunk (2**18 measured fastest for r = 2 FP8: 2**16 and 2**20 are 10-50 % slower).
BATCH = 1 << 18
#: Patterns per C++ golden batch (the harness' records of a batch are read at once).
CPP_BATCH = 1 << 20
#: Mismatches kept per chunk and per condition (all are counted).
KEEP = 10
#: The golden sides of a proof: the C++ twin (checked against numpy on a sample) or the numpy model alone.
GOLDENS = ("cpp", "numpy")
#: Patterns per chunk the numpy golden model checks the C++ one on (with the C++ golden).
SAMPLE = 1 << 12
#: Biases of each CFloat8 operand a proof runs at when none are given: every (bias_a, bias_b) pair of these
#: (0: the largest values, 7: the IEEE-like bias of cfloat8_143, 63: the smallest values).
DOT_BIASES = (0, 7, 63)


class DotCondition(NamedTuple):
    """What is held constant during one proof: the element format select of each ``fp8`` operand and the
    bias of each run-time-bias operand (None: the unit has no such port)."""

    sel_a: int | None = None
    sel_b: int | None = None
    bias_a: int | None = None
    bias_b: int | None = None

    def label(self) -> str:
        parts = [f"{k}={v}" for k, v in self._asdict().items() if v is not None]
        return " ".join(parts) or "all operands"

    def port_value(self, name) -> int:
        return int(getattr(self, name))

    def golden_kwargs(self) -> dict:
        names = {"sel_a": "select_a", "sel_b": "select_b", "bias_a": "bias_a", "bias_b": "bias_b"}
        return {names[k]: v for k, v in self._asdict().items() if v is not None}


def _dot_spec(cfg):
    """The :class:`~fpforge.hw.spec.DotSpec` of ``cfg`` (a spec or ``build_unit`` keywords), checked for
    what the dot prover handles."""
    from ..hw.spec import DotSpec, UnitSpec, as_spec

    if isinstance(cfg, UnitSpec):
        spec = cfg
    elif isinstance(cfg, dict):
        if cfg.get("unit", "dot") != "dot":
            raise FpforgeValueError(f"fpforge prove dot proves dot units, not {cfg.get('unit')!r}")
        spec = as_spec({**cfg, "unit": "dot"})
    else:
        raise FpforgeTypeError(f"a dot unit is a DotSpec or a dict of build_unit keywords, not "
                               f"{type(cfg).__name__}")
    if not isinstance(spec, DotSpec):
        raise FpforgeValueError(f"fpforge prove dot proves dot units, not {spec.unit!r} units")
    if spec.stages:
        raise FpforgeValueError(f"fpforge prove dot checks the combinational dot unit (stages 0), not stages "
                                f"{spec.stages}; a pipeline's core is that unit (fpforge equiv --latency checks the "
                                "pipeline against it)")
    if spec.io_registers:
        raise FpforgeValueError("fpforge prove dot checks the combinational dot unit; --io-registers adds registers "
                                "(drop it)")
    if spec.scale or spec.amax or spec.out_format is not None:
        raise FpforgeValueError("fpforge prove dot checks the plain dot unit (FP32 result); the epilogue (--scale, "
                                "--amax, --out-format) is not proved exhaustively (drop those options)")
    out_bits = 32 + spec.config.acc_bits + spec.config.exp_bits
    if spec.raw and out_bits > 64:
        raise FpforgeValueError(f"the outputs of the dot unit with --raw are {out_bits} bits (y, sum, exp); the prover "
                                "compares up to 64 per pattern (drop --raw: y, the FP32 result, is proved alone, or "
                                "give a smaller --f)")
    bits = sum(spec.config.operand_bits)
    if bits > MAX_PATTERN_BITS:
        a, b = spec.config.operand_bits
        raise FpforgeValueError(f"dot unit {spec.format} x {spec.format_b} at r = {spec.r} has 2^{bits} operand "
                                f"patterns ({a} + {b} operand bits); fpforge prove dot proves at most "
                                f"2^{MAX_PATTERN_BITS} (e.g. e4m3/e5m2/hif8/cfloat8 at r = 2, e2m1 at r = 4, "
                                "e3m2/e2m3 at r = 2, a small bdr(...) block)")
    return spec


def dot_conditions(spec, biases=None) -> list:
    """Every combination of the unit's run-time ports: both selects of each ``fp8`` operand, each
    (bias_a, bias_b) pair of ``biases`` (default :data:`DOT_BIASES`) for run-time-bias operands.

    Raises
    ------
    FpforgeValueError
        Biases outside 0..63, none, or biases for a unit without run-time-bias operands.
    """
    cfg = spec.config
    sides = {}
    for name, side in (("a", cfg.sa), ("b", cfg.sb)):
        fmt = side.fmt
        scalar = side.family == "scalar"
        sides[f"sel_{name}"] = tuple(range(len(fmt.formats))) if scalar and fmt.select_bits else (None,)
        sides[f"bias_{name}"] = "bias" if scalar and fmt.bias_bits else (None,)
    runtime = "bias" in (sides["bias_a"], sides["bias_b"])
    if biases is not None:
        if not runtime:
            raise FpforgeValueError(f"--bias applies to dot units of run-time-bias operands (cfloat8_143, "
                                    f"cfloat8_152), not {spec.format} x {spec.format_b}")
        biases = tuple(biases)
        bad = [b for b in biases if isinstance(b, bool) or not isinstance(b, int) or not 0 <= b <= 63]
        if bad or not biases:
            raise FpforgeValueError(f"biases must be integers in 0..63, not {bad[0] if bad else 'none'!r}")
    biases = DOT_BIASES if biases is None else biases
    for k in ("bias_a", "bias_b"):
        if sides[k] == "bias":
            sides[k] = biases
    return [DotCondition(sa, sb, ba, bb) for sa, sb, ba, bb in
            itertools.product(sides["sel_a"], sides["sel_b"], sides["bias_a"], sides["bias_b"])]


class DotProofUnit:
    """A combinational dot unit and the Verilog that is proved: :meth:`generated` (fpforge's) or
    :meth:`from_file` (a user's module with the unit's ports).

    Members
    -------
    spec : DotSpec
    top : str
        The unit's module.
    origin : str
    sources : tuple of str
        The unit's Verilog (the prover adds its wrapper).
    ports : dict
        ``{name: (direction, width)}`` of the unit.
    """

    def __init__(self, spec, sources, top, origin, ports):
        self.spec, self.sources, self.top, self.origin, self.ports = spec, tuple(sources), top, origin, dict(ports)
        self.config = spec.config
        out_bits = sum(w for d, w in self.ports.values() if d == "out")
        if out_bits > 64:
            raise FpforgeValueError(f"the outputs of {top} are {out_bits} bits; the prover compares up to 64 per "
                                    "pattern (drop --raw: y, the FP32 result, is proved alone)")

    @classmethod
    def generated(cls, cfg, name=None):
        """The Verilog fpforge generates for the dot unit ``cfg``."""
        from ..hw.generate import build_unit, default_name, to_verilog
        from .ports import ports_of

        spec = _dot_spec(cfg)
        unit = build_unit(spec)
        name = name or default_name(unit)
        return cls(spec, (to_verilog(unit, name),), name, "generated", ports_of(unit))

    @classmethod
    def from_file(cls, cfg, path, name=None):
        """A user's Verilog file implementing the dot unit ``cfg`` with the same ports (module ``name``, else
        the generated unit's name, else the file's only module)."""
        from pathlib import Path

        from .harness import module_ports
        from .prove_unit import _check_ports, _modules

        ref = cls.generated(cfg)
        try:
            text = Path(path).read_text(errors="replace")
        except OSError as e:
            raise FpforgeValueError(f"cannot read Verilog file {str(path)!r}: {e.strerror or e}") from None
        found = _modules(text)
        top = name or (ref.top if ref.top in found else found[0] if len(found) == 1 else None)
        if top is None or top not in found:
            raise FpforgeValueError(f"{Path(path).name} defines no module {name or ref.top!r} (it defines "
                                    f"{', '.join(found) or 'no module'}); name the unit's module with --top")
        _check_ports(f"{Path(path).name}: module {top}", module_ports([text], top), ref.ports)
        return cls(ref.spec, (text,), top, f"file {Path(path).name}", ref.ports)

    # -- derived facts --------------------------------------------------------------------------------------
    @property
    def a_bits(self) -> int:
        return self.ports["a"][1]

    @property
    def b_bits(self) -> int:
        return self.ports["b"][1]

    @property
    def pattern_bits(self) -> int:
        return self.a_bits + self.b_bits

    @property
    def domain(self) -> int:
        """Number of operand patterns: 2**(bits of A + bits of B)."""
        return 1 << self.pattern_bits

    @property
    def module(self) -> str:
        return self.top

    @cached_property
    def verilog_hash(self) -> str:
        return hashlib.sha256("\0".join(self.sources).encode()).hexdigest()[:12]

    @property
    def fixed(self) -> tuple:
        return tuple(n for n in ("sel_a", "sel_b", "bias_a", "bias_b") if n in self.ports)

    @property
    def outputs(self) -> tuple:
        return tuple((n, w) for n, (d, w) in self.ports.items() if d == "out")

    def wrapper(self) -> tuple:
        """``(Verilog, module name)`` of the module the harness drives: input ``a`` = ``{B, A}``."""
        from .lanes import verilog_port

        name = f"{self.top}__fpforge_dot"
        A, P = self.a_bits, self.pattern_bits
        decl = [f"  input [{P - 1}:0] a;"]
        conn = [f".a(a[{A - 1}:0])", f".b(a[{P - 1}:{A}])"]
        ports = ["a"]
        for n in self.fixed:
            decl.append(f"  input [{self.ports[n][1] - 1}:0] {verilog_port(n)};")
            conn.append(f".{verilog_port(n)}({verilog_port(n)})")
            ports.append(verilog_port(n))
        for n, w in self.outputs:
            decl.append(f"  output [{w - 1}:0] {verilog_port(n)};")
            conn.append(f".{verilog_port(n)}({verilog_port(n)})")
            ports.append(verilog_port(n))
        text = (f"// fpforge prove dot: operands A and B of {self.top} as one input a = {{B, A}}.\n"
                f"module {name} ({', '.join(ports)});\n" + "\n".join(decl) + "\n"
                f"  {self.top} u ({', '.join(conn)});\nendmodule\n")
        return text, name

    @cached_property
    def harness_spec(self) -> HarnessSpec:
        text, name = self.wrapper()
        ports = [("a", "in", self.pattern_bits)] + [(n, "in", self.ports[n][1]) for n in self.fixed]
        ports += [(n, "out", w) for n, w in self.outputs]
        return HarnessSpec((*self.sources, text), name, tuple(ports))

    @property
    def golden_cfg(self) -> dict:
        return self.spec.as_options()

    def conditions(self, biases=None) -> list:
        return dot_conditions(self.spec, biases)

    def describe(self) -> str:
        return self.spec.config.describe()

    def operands(self, pattern: int):
        """``(A codes or block, B codes or block)`` of one pattern, as the golden model reads them."""
        return _operands(self.golden_cfg, np.array([pattern], np.uint64), self.a_bits)


# -- the golden side (runs in a worker) ----------------------------------------------------------------------
@lru_cache(maxsize=16)
def _scalar_bits(fmt):
    """Bits of a code of a scalar operand format (0: a block format)."""
    from ..golden.dot.config import operand_format

    fmt = operand_format(fmt)
    return fmt.bits if fmt.dot_side.family == "scalar" else 0


def _side_operand(fmt, words, r):
    from ..golden.dot import from_operand_words
    from ..golden.dot.config import operand_format

    fmt = operand_format(fmt)
    if fmt.dot_side.family == "scalar":  # r codes of fmt.bits bits, element 0 lowest: shifts, no unpacking
        bits = fmt.bits
        shifts = np.arange(r, dtype=np.uint64) * np.uint64(bits)
        return ((words[:, None] >> shifts[None, :]) & np.uint64((1 << bits) - 1)).astype(np.int64)
    return from_operand_words(fmt, words[:, None], r)


def _operands(cfg, patterns, a_bits):
    r = cfg["r"]
    bits = _scalar_bits(cfg["format"])
    if bits in (4, 8) and bits == _scalar_bits(cfg["format_b"]) and a_bits == bits * r:
        codes = patterns.view(np.uint8).reshape(len(patterns), 8)  # little-endian: A's codes, then B's
        if bits == 4:  # two codes per byte, the low nibble first
            codes = np.stack((codes & 15, codes >> 4), axis=-1).reshape(len(patterns), 16)
        return codes[:, :r], codes[:, r:2 * r]
    a_words = patterns & np.uint64((1 << a_bits) - 1)
    b_words = patterns >> np.uint64(a_bits)
    return (_side_operand(cfg["format"], a_words, cfg["r"]), _side_operand(cfg["format_b"], b_words, cfg["r"]))


@lru_cache(maxsize=8)
def _dot_config(fmt, r, f, fmt_b):
    from ..golden.dot import DotConfig

    return DotConfig(fmt, r, f, fmt_b)  # ~40 ms to construct: once per worker, not once per batch


def dot_golden(cfg, patterns, a_bits, cond: DotCondition) -> dict:
    """``{output: uint64 array}`` of the golden dot product on the operand ``patterns`` (uint64,
    ``{B, A}``), every output masked to its width (``y``; ``sum``/``exp`` with ``raw``)."""
    from ..golden.dot import dot

    dc = _dot_config(cfg["format"], cfg["r"], cfg["f"], cfg["format_b"])
    a, b = _operands(cfg, patterns, a_bits)
    res = dot(dc, a, None, b, **cond.golden_kwargs())
    out = {"y": res.y.astype(np.uint64)}
    if cfg.get("raw"):
        for name, width in (("sum", dc.acc_bits), ("exp", dc.exp_bits)):
            v = getattr(res, name)
            out[name] = (np.asarray(v).astype(np.int64).astype(np.uint64)) & np.uint64((1 << width) - 1)
    return out


def golden_of(cfg, golden=None) -> str:
    """The golden side of a proof of the dot unit ``cfg`` (``build_unit`` keywords): ``golden`` checked, or,
    when None, ``"cpp"`` where the C++ golden covers the unit (scalar operands, one BDR block) and ``"numpy"``
    elsewhere.

    Raises
    ------
    FpforgeValueError
        Not one of :data:`GOLDENS`, or ``"cpp"`` for a unit the C++ golden does not cover.
    """
    from .dot_golden import MAX_BLOCK_BITS, MAX_F, covers

    if golden is None:
        return "cpp" if covers(cfg) else "numpy"
    if golden not in GOLDENS:
        raise FpforgeValueError(f"the golden side of a dot proof is one of {', '.join(GOLDENS)}, not {golden!r}")
    if golden == "cpp" and not covers(cfg):
        raise FpforgeValueError(f"the C++ golden computes scalar operand formats at r <= 64, f <= {MAX_F} (e4m3, e5m2, "
                                f"hif8, cfloat8, fp8, FP6, FP4) and one BDR block of at most {MAX_BLOCK_BITS} bits at an "
                                f"exact window, not {cfg['format']} r={cfg['r']} f={cfg['f']}: use --golden numpy")
    return golden


def _packed(exp, fields, n):
    """The outputs ``exp`` packed into records as the harness writes them."""
    if len(fields) == 1 and fields[0][1] == 0:  # y alone: the record is y
        return exp[fields[0][0]]
    packed = np.zeros(n, np.uint64)
    for name, shift, _ in fields:
        packed |= exp[name] << np.uint64(shift)
    return packed


def _oracles_agree(cfg, a_bits, cond, patterns, cpp_packed, fields):
    """Raise ToolError unless the numpy golden model gives ``cpp_packed`` (the C++ golden's packed outputs) on
    ``patterns``."""
    ref = _packed(dot_golden(cfg, patterns, a_bits, cond), fields, len(patterns))
    bad = np.flatnonzero(ref != cpp_packed)
    if len(bad):
        i = bad[0]
        raise ToolError(f"the C++ and numpy golden dot products disagree on {len(bad)} of {len(patterns)} sampled "
                        f"patterns, first {int(patterns[i]):#x} ({cond.label()}): numpy {int(ref[i]):#x}, C++ "
                        f"{int(cpp_packed[i]):#x} (packed outputs); prove with --golden numpy and report it")


def check_dot_chunk(task) -> dict:
    """Run one chunk: ``task`` holds ``spec`` (HarnessSpec), ``cfg``, ``a_bits``, ``cond``, ``start``, ``count``
    and ``golden`` (one of :data:`GOLDENS`, default numpy). Returns vectors, the mismatch count, the first
    :data:`KEEP` mismatches, seconds.

    Raises
    ------
    ToolError
        With the C++ golden: the numpy model disagrees with it on the chunk's sample or on a kept mismatch.
    """
    from .dot_golden import cpp_dot_golden

    spec, cfg, cond = task["spec"], task["cfg"], DotCondition(*task["cond"])
    start, count, a_bits = task["start"], task["count"], task["a_bits"]
    cpp = task.get("golden", "numpy") == "cpp"
    t0, c_start = time.perf_counter(), time.process_time()
    exe = build_harness(spec)
    fixed = [cond.port_value(n) for n in spec.fixed]
    fields = [(n, *spec.field(n)) for n, _ in spec.outputs]
    golden_cpu, bad_count, first = 0.0, 0, []
    rng = np.random.default_rng(start)  # the sample: reproducible per chunk
    batch = CPP_BATCH if cpp else BATCH
    with HarnessRun(exe, spec, [(start, count, 0, fixed)]) as run:
        for s in range(start, start + count, batch):
            n = min(batch, start + count - s)
            rec = run.read(n).astype(np.uint64)
            c0 = time.process_time()
            if cpp:
                packed = _packed(cpp_dot_golden(cfg, s, n, a_bits, cond), fields, n)
            else:
                packed = _packed(dot_golden(cfg, np.arange(s, s + n, dtype=np.uint64), a_bits, cond), fields, n)
            golden_cpu += time.process_time() - c0
            bad = np.flatnonzero(rec != packed)
            bad_count += len(bad)
            kept = bad[: max(0, KEEP - len(first))]
            if cpp:
                picks = np.unique(np.concatenate([rng.integers(0, n, -(-SAMPLE * n // count)), kept]))
                _oracles_agree(cfg, a_bits, cond, (s + picks).astype(np.uint64), packed[picks], fields)
            for i in kept:
                first.append({"pattern": s + int(i),
                              "expected": {nm: (int(packed[i]) >> sh) & ((1 << w) - 1) for nm, sh, w in fields},
                              "actual": {nm: (int(rec[i]) >> sh) & ((1 << w) - 1) for nm, sh, w in fields}})
        harness_cpu = run.close()
    return {"vectors": count, "mismatches": bad_count, "first": first, "seconds": time.perf_counter() - t0,
            "harness_cpu": harness_cpu, "golden_cpu": golden_cpu, "worker_cpu": time.process_time() - c_start,
            "finished": time.time()}


# -- a whole proof ------------------------------------------------------------------------------------------
class DotProofResult(ProofResult):
    """One condition (a :class:`DotCondition`) of a dot unit over patterns ``[start, end)``: the encoder
    prover's record, the same fields and verdict."""


@lru_cache(maxsize=1)
def prover_version() -> str:
    """A hash of the dot prover's sources (this module, the harness and its C++ main, the C++ golden)."""
    from pathlib import Path

    from .prove import _tree_hash

    here = Path(__file__).parent
    return _tree_hash([here / "prove_dot.py", here / "harness.py", here / "prove_harness.cpp",
                       here / "dot_golden.py", here / "dot_golden.cpp"])


def _chunks(start, end, chunk):
    k = start - start % chunk
    while k < end:
        yield max(k, start), min(k + chunk, end)
        k += chunk


def prove_dot(unit: DotProofUnit, conditions=None, *, start=0, end=None, chunk=CHUNK, jobs=None, scheduler=None,
              pool=None, store=True, progress=True, on_result=None, golden=None) -> list:
    """Prove the dot unit under each of ``conditions`` (default :meth:`DotProofUnit.conditions`) over operand
    patterns ``[start, end)`` (default all ``unit.domain``); arguments as :func:`fpforge.sim.prove.prove`;
    ``golden``: the golden side (:func:`golden_of`; None: C++ where it covers the unit).

    Returns
    -------
    list of DotProofResult
    """
    from .prove import golden_version

    domain = unit.domain
    end = domain if end is None else end
    for name, v in (("start", start), ("end", end), ("chunk", chunk)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise FpforgeTypeError(f"{name} must be an integer, not {v!r}")
    if not 0 <= start < end <= domain:
        raise FpforgeValueError(f"range {start:#x}:{end:#x} is not inside the unit's operand patterns "
                                f"0x0:{domain:#x}")
    if chunk < 1:
        raise FpforgeValueError(f"chunk must be positive, not {chunk!r}")
    conditions = unit.conditions() if conditions is None else [DotCondition(*c) for c in conditions]
    golden = golden_of(unit.golden_cfg, golden)
    spec = unit.harness_spec
    build_harness(spec)
    if golden == "cpp":
        library_path()  # compiled once here, not in each worker
    if store is True:
        store = Store(cache_dir("prove") / "chunks")
    elif store is False:
        store = None
    cfg = unit.golden_cfg
    results = []
    with executor(jobs=jobs, scheduler=scheduler) if pool is None else contextlib.nullcontext(pool) as ex:
        for cond in conditions:
            ident = json.dumps({"prover": prover_version(), "golden": golden_version(), "harness": spec.key,
                                "cfg": cfg, "cond": list(cond), "oracle": golden}, sort_keys=True)
            tasks = [dict(spec=spec, cfg=cfg, a_bits=unit.a_bits, cond=tuple(cond), start=a, count=b - a, golden=golden,
                          key=f"dot|{ident}|{a}:{b}") for a, b in _chunks(start, end, chunk)]
            res = DotProofResult(unit.top, unit.origin, cond, unit.verilog_hash, start, end, chunks=len(tasks),
                                 date=datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M"))
            t0, started = time.perf_counter(), time.time()
            label = f"{unit.top} {cond.label()}" if progress else None
            runner = run_tasks(check_dot_chunk, tasks, executor=ex, store=store, key=operator.itemgetter("key"),
                               progress=label)
            for task, outcome in runner:
                if isinstance(outcome, TaskFailure):
                    runner.close()
                    raise ToolError(f"{unit.top} {cond.label()}: chunk {task['start']:#x}+{task['count']:#x} "
                                    f"failed: {outcome.message}")
                res.vectors += outcome["vectors"]
                res.mismatches += outcome["mismatches"]
                res.first.extend(outcome["first"])
                res.harness_cpu += outcome["harness_cpu"]
                res.golden_cpu += outcome["golden_cpu"]
                res.worker_cpu += outcome["worker_cpu"]
                res.resumed += outcome["finished"] < started
            res.seconds = time.perf_counter() - t0
            res.first = sorted(res.first, key=lambda m: m["pattern"])[:KEEP]
            results.append(res)
            if on_result is not None:
                on_result(res)
    return results


def estimate_dot(unit: DotProofUnit, conditions=None, *, sample=1 << 22, cores=1, golden=None) -> dict:
    """Measure one condition on ``sample`` patterns (one chunk, in this process; the harness is built first)
    and project the whole proof: ``{"sample", "seconds", "ns_per_pattern", "harness_ns", "golden_ns",
    "golden", "patterns", "conditions", "projected_seconds"}`` (CPU time per pattern x all patterns x
    conditions / ``cores``; ``golden`` as :func:`prove_dot`)."""
    conditions = unit.conditions() if conditions is None else list(conditions)
    golden = golden_of(unit.golden_cfg, golden)
    spec = unit.harness_spec
    build_harness(spec)
    n = min(sample, unit.domain)
    start = (unit.domain - n) // 2  # the middle of the range: neither all-zero nor the first codes only
    out = check_dot_chunk(dict(spec=spec, cfg=unit.golden_cfg, a_bits=unit.a_bits, cond=tuple(conditions[0]),
                               start=start, count=n, golden=golden))
    ns = (out["harness_cpu"] + out["worker_cpu"]) / n * 1e9
    return {"sample": n, "seconds": out["seconds"], "mismatches": out["mismatches"], "ns_per_pattern": ns,
            "harness_ns": out["harness_cpu"] / n * 1e9, "golden_ns": out["golden_cpu"] / n * 1e9, "golden": golden,
            "patterns": unit.domain, "conditions": len(conditions),
            "projected_seconds": ns * 1e-9 * unit.domain * len(conditions) / max(1, cores)}
