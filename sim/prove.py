"""Exhaustive proofs: every input of a combinational unit, simulated by a Verilator C++ harness, against the
golden model, bit for bit (outputs and flags).

A proof is one *condition* of a unit — one value of each of its run-time ports other than the data input:
a rounding ``mode``, a ``sat`` value, a ``bias`` — over a range of input patterns (default: the whole
domain, 2**32 for an FP32 source). It is cut into chunks (:data:`CHUNK` patterns, aligned to multiples of
it) that run as independent tasks on local processes or a Dask cluster (the ``fpforge.jobs`` contract);
every finished chunk is recorded, keyed by the harness (Verilog, wrapper, C++ source, flags), the golden
model's version, the prover's version, the unit configuration, the condition, the seed and the range, so
an interrupted proof resumes where it stopped. A chunk runs the harness (:mod:`fpforge.sim.harness`) and,
batch by batch, computes the expected records with the public golden API (``encode_with_flags`` /
``decode_bits``) and compares them with numpy.

Stochastic rounding: the unit's ``rand`` port is driven, in every mode, with the golden generator's
sequence for ``seed`` (default :data:`PROOF_SEED`): input pattern ``i`` gets draw ``i``
(``fpforge.golden.random_bits(seed, n, R, start=i)``), which is what ``encode(..., rounding="sr")`` uses for
the array of all patterns in order. The harness reports the draw each vector got, and a chunk checks it
against the golden generator, so the statement "pattern i was checked with draw i" is itself checked.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import operator
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..golden import DEFAULT_RAND_BITS, SOURCES, decode_bits, encode_with_flags, random_bits
from ..golden.errors import FpforgeValueError, ToolError
from ..jobs import Store, TaskFailure, cache_dir, executor, run_tasks
from .cases import unit_format
from .harness import HarnessRun, build_harness
from .prove_unit import Condition, ProofUnit, prove_kind

__all__ = ["BATCH", "CHUNK", "PROOF_SEED", "Condition", "ProofResult", "ProofUnit", "check_chunk", "golden_version",
           "prove", "prover_version", "ProofGolden"]

#: Seed of the draws on the ``rand`` port (pattern i gets draw i); ``--seed`` chooses another.
PROOF_SEED = 0
#: Patterns per chunk (a task, the unit of resumption): 2**24, 256 chunks for an FP32 source.
CHUNK = 1 << 24
#: Patterns per numpy batch inside a chunk (golden model and comparison).
BATCH = 1 << 20
#: Mismatches kept per chunk and per proof (all are counted).
KEEP = 10


def _tree_hash(paths) -> str:
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


@lru_cache(maxsize=1)
def golden_version() -> str:
    """Version of the golden model a proof was checked against: a hash of the ``fpforge.golden`` sources."""
    from .. import golden

    return _tree_hash(Path(golden.__file__).parent.glob("*.py"))


@lru_cache(maxsize=1)
def prover_version() -> str:
    """A hash of the prover's own sources (comparison, harness, C++ main)."""
    here = Path(__file__).parent
    return _tree_hash([here / "prove.py", here / "prove_unit.py", here / "harness.py", here / "prove_harness.cpp"])


@dataclass
class ProofResult:
    """The outcome of one condition of a unit over ``[start, end)``: CPU seconds of the harness processes,
    of the golden model, and of the workers' Python side as a whole (golden model included)."""

    unit: str
    origin: str
    condition: Condition
    verilog_hash: str
    start: int
    end: int
    vectors: int = 0
    mismatches: int = 0
    first: list = field(default_factory=list)
    seconds: float = 0.0
    harness_cpu: float = 0.0
    golden_cpu: float = 0.0
    worker_cpu: float = 0.0
    chunks: int = 0
    resumed: int = 0
    date: str = ""

    @property
    def passed(self) -> bool:
        return self.mismatches == 0 and self.vectors == self.end - self.start

    @property
    def rate(self) -> float:
        return self.vectors / self.seconds if self.seconds else 0.0


# -- one chunk (runs in a worker) ----------------------------------------------------------------------
class ProofGolden:
    """Expected records of a condition, packed the way the harness packs the unit's outputs."""

    def __init__(self, cfg, spec, cond):
        self.cfg, self.cond = cfg, cond
        self.fmt = unit_format(cfg)  # the variant descriptor (ieee_denormals / paper_literal resolved)
        self.dtype = spec.record_dtype
        self.fields = {n: spec.field(n)[0] for n, _ in spec.outputs}
        self.out_bits = sum(w for _, w in spec.outputs)
        self.rand_bits = spec.rand_bits
        self.encodes = prove_kind(cfg).encodes
        if self.encodes:
            src = SOURCES[cfg.get("source", "fp32")]
            self.word = np.uint32 if src.bits == 32 else np.uint16
            self.src = src
            self.kwargs = dict(rounding=cond.mode, saturate=bool(cond.sat), nan_to_zero=bool(cfg.get("nan_to_zero")),
                               rand_bits=cfg.get("rand_bits", DEFAULT_RAND_BITS))
        else:
            self.word = np.uint32 if self.fmt.bits > 16 else np.uint16
            self.kwargs = {}
        if cond.bias is not None:
            self.kwargs["bias"] = cond.bias

    def expected(self, start, n, seed):
        """``(records, draws)`` of patterns ``start .. start+n-1``; draws only where the golden model uses
        them (``sr``)."""
        a = np.arange(start, start + n, dtype=self.word)
        draws = None
        if self.encodes:
            if self.cond.mode == "sr":
                draws = random_bits(seed, n, self.rand_bits, start=start)
            y, flags = encode_with_flags(self.fmt, a.view(self.src.dtype), rand=draws, **self.kwargs)
            outs = {"y": y, "flags": flags}
        else:
            outs = {"y": decode_bits(self.fmt, a, self.cfg.get("target", "fp32"), **self.kwargs)}
        t = self.dtype.type
        rec = np.zeros(n, self.dtype)
        for name, shift in self.fields.items():
            rec |= outs[name].astype(self.dtype) << t(shift)
        return rec, draws


def _unpack(value, fields):
    return {n: (int(value) >> s) & ((1 << w) - 1) for n, s, w in fields}


def check_chunk(task) -> dict:
    """Run one chunk: ``task`` holds ``spec`` (HarnessSpec), ``cfg``, ``cond``, ``start``, ``count`` and
    ``seed``. Returns vectors, mismatch count, the first :data:`KEEP` mismatches, wall and CPU seconds."""
    spec, cfg, cond = task["spec"], task["cfg"], Condition(*task["cond"])
    start, count, seed = task["start"], task["count"], task["seed"]
    t0, c_start = time.perf_counter(), time.process_time()
    exe = build_harness(spec)
    golden = ProofGolden(cfg, spec, cond)
    state = int(random_bits(seed, 1, 32, start=start)[0]) if spec.rand_bits else 0
    fixed = [cond.port_value(name) for name in spec.fixed]
    fields = [(n, *spec.field(n)) for n, _ in spec.outputs]
    t = spec.record_dtype.type
    out_mask = t((1 << golden.out_bits) - 1)
    golden_cpu, bad_count, first = 0.0, 0, []
    with HarnessRun(exe, spec, [(start, count, state, fixed)]) as run:
        for s in range(start, start + count, BATCH):
            n = min(BATCH, start + count - s)
            rec = run.read(n)
            c0 = time.process_time()
            exp, draws = golden.expected(s, n, seed)
            golden_cpu += time.process_time() - c0
            if draws is not None and not np.array_equal(rec >> t(golden.out_bits), draws.astype(rec.dtype)):
                i = int(np.flatnonzero((rec >> t(golden.out_bits)) != draws)[0])
                raise ToolError(f"internal error: the harness drove draw {int(rec[i]) >> golden.out_bits:#x} on "
                                f"pattern {s + i:#x}, the golden generator gives {int(draws[i]):#x}")
            bad = np.flatnonzero((rec & out_mask) != exp)
            bad_count += len(bad)
            for i in bad[: max(0, KEEP - len(first))]:
                first.append({"a": s + int(i), "expected": _unpack(exp[i], fields),
                              "actual": _unpack(rec[i] & out_mask, fields),
                              "rand": int(rec[i]) >> golden.out_bits if spec.rand_bits else None})
        harness_cpu = run.close()
    return {"vectors": count, "mismatches": bad_count, "first": first, "seconds": time.perf_counter() - t0,
            "harness_cpu": harness_cpu, "golden_cpu": golden_cpu, "worker_cpu": time.process_time() - c_start,
            "finished": time.time()}


# -- a whole proof ---------------------------------------------------------------------------------------
def _chunks(start, end, chunk):
    k = start - start % chunk
    while k < end:
        yield max(k, start), min(k + chunk, end)
        k += chunk


def prove(unit: ProofUnit, conditions=None, *, start=0, end=None, seed=PROOF_SEED, chunk=CHUNK, jobs=None,
          scheduler=None, pool=None, store=True, progress=True, on_result=None) -> list:
    """Prove ``unit`` under each of ``conditions`` (default: all of the unit's, :meth:`ProofUnit.conditions`)
    over input patterns ``[start, end)`` (default: the whole domain).

    Parameters
    ----------
    unit : ProofUnit
        The unit and the Verilog that is proved (generated, a user's file, or the synthesized netlist).
    seed : int
        Seed of the draws on the ``rand`` port.
    jobs, scheduler : int, str
        Local processes (default: all cores), or the address of a Dask scheduler.
    pool : executor, optional
        An executor from ``fpforge.jobs.executor`` to reuse (then ``jobs``/``scheduler`` are ignored).
    store : bool or Store
        Record finished chunks (default: in ``fpforge.jobs.cache_dir("prove") / "chunks"``) and take
        finished ones from there; False recomputes everything.
    progress : bool
        A progress bar per condition (chunks, rate, ETA; only on a TTY).
    on_result : callable, optional
        Called with each :class:`ProofResult` as its condition finishes.

    Returns
    -------
    list of ProofResult
        One per condition, in order.

    Raises
    ------
    FpforgeValueError
        A range outside the unit's domain, a bad chunk size.
    ToolMissing, ToolError
        Verilator or the C++ compiler missing or failing, a harness that crashed.
    """
    domain = unit.domain
    end = domain if end is None else end
    for name, v in (("start", start), ("end", end), ("chunk", chunk), ("seed", seed)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise FpforgeValueError(f"{name} must be an integer, not {v!r}")
    if not 0 <= start < end <= domain:
        raise FpforgeValueError(f"range {start:#x}:{end:#x} is not inside the unit's input patterns 0x0:{domain:#x}")
    if chunk < 1:
        raise FpforgeValueError(f"chunk must be positive, not {chunk!r}")
    conditions = unit.conditions() if conditions is None else list(conditions)
    spec = unit.harness_spec
    build_harness(spec)  # once, here, before the workers need it
    if store is True:
        store = Store(cache_dir("prove") / "chunks")
    elif store is False:
        store = None
    results = []
    with executor(jobs=jobs, scheduler=scheduler) if pool is None else contextlib.nullcontext(pool) as ex:
        for cond in conditions:
            res = _prove_condition(unit, spec, cond, start, end, seed, chunk, ex, store, progress)
            results.append(res)
            if on_result is not None:
                on_result(res)
    return results


def _prove_condition(unit, spec, cond, start, end, seed, chunk, ex, store, progress):
    cfg = unit.golden_cfg
    ident = json.dumps({"prover": prover_version(), "golden": golden_version(), "harness": spec.key, "cfg": cfg,
                        "spec": unit.spec.sha256, "cond": list(cond), "seed": seed if spec.rand_bits else None},
                       sort_keys=True)
    tasks = [dict(spec=spec, cfg=cfg, cond=tuple(cond), start=a, count=b - a, seed=seed,
                  key=f"{ident}|{a}:{b}") for a, b in _chunks(start, end, chunk)]
    res = ProofResult(unit.top, unit.origin, cond, unit.verilog_hash, start, end, chunks=len(tasks),
                      date=datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M"))
    t0, started = time.perf_counter(), time.time()
    label = f"{unit.top} {cond.label()}" if progress else None
    runner = run_tasks(check_chunk, tasks, executor=ex, store=store, key=operator.itemgetter("key"), progress=label)
    for task, outcome in runner:
        if isinstance(outcome, TaskFailure):
            runner.close()
            raise ToolError(f"{unit.top} {cond.label()}: chunk {task['start']:#x}+{task['count']:#x} failed: "
                            f"{outcome.message}")
        res.vectors += outcome["vectors"]
        res.mismatches += outcome["mismatches"]
        res.first.extend(outcome["first"])
        res.harness_cpu += outcome["harness_cpu"]
        res.golden_cpu += outcome["golden_cpu"]
        res.worker_cpu += outcome["worker_cpu"]
        res.resumed += outcome["finished"] < started  # taken from the store: finished by an earlier run
    res.seconds = time.perf_counter() - t0
    res.first = sorted(res.first, key=lambda m: m["a"])[:KEEP]
    return res
