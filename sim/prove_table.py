"""The proof record (``make prove``): every FP32 -> 8-bit encoder shape in every mode and saturation pair,
proved over all 2**32 inputs, and the table of the results (``docs/results.md``, section ``proofs``).

The list comes from the format registry, so formats added later (IEEE P3109, variants) join it with no
change here: every scalar format of at most 8 bits gets an FP32-source encoder built with all of its
roundings and a run-time ``sat`` port; a run-time-bias format (CFloat8) is proved at each bias of
:data:`~fpforge.sim.prove_unit.DEFAULT_BIASES` (0, 7, 31, 63). Each finished row is recorded with its
wall time, date and machine, so a run that is interrupted, or done in parts (``--only``), ends with one
table of every row; rows not proved yet say so.

The table is the lasting record, the row store (in the user's cache) only a copy on one machine: each row
of the table carries the first 16 hex digits of its record key (the prover's and the golden model's
sources, the unit's harness spec and configuration, the condition, the seed), and :class:`RowStore` reads
the proved rows of the committed table whose key is the one the row has today. The table is kept as data,
``docs/results/proofs.json`` (:func:`table_data`: every row, its record and key, and the sums); the
markdown of ``docs/results.md`` is its view (:func:`proofs_markdown`). A fresh clone on a new
machine therefore goes on where the table stopped; a row whose unit, prover or golden model changed since
has another key and is proved again.
"""

from __future__ import annotations

from ..golden import get_format, list_formats
from ..jobs import MISSING, Store, cache_dir, digest
from ..jobs.results import markdown_table, read_data
from .prove_unit import ProofUnit

__all__ = ["DOT_RECORD", "DotRowStore", "dot_proofs_markdown", "dot_record_configs", "dot_row_key", "dot_table_data",
           "ESTIMATE_SAMPLE", "KEY_DIGITS", "RowStore", "committed_table", "estimate", "estimate_sources",
           "proofs_markdown", "record_configs", "row_key", "sample_unit", "table_cpu", "table_data", "table_markdown",
           "table_records"]

#: Hex digits of a row's record key shown in the proof table (64 bits).
KEY_DIGITS = 16


def record_configs() -> list:
    """Unit configurations of the record: FP32 -> every registered scalar format of at most 8 bits, all of
    its roundings, run-time saturation."""
    out = []
    for name in list_formats(kind="scalar"):  # (not the sources; variants and P3109 included)
        fmt = get_format(name)
        if fmt.bits > 8:
            continue
        out.append(dict(unit="encoder", format=name, source="fp32", rounding=tuple(fmt.roundings),
                        saturate="runtime"))
    return out


def row_key(unit: ProofUnit, cond, seed) -> str:
    """Key of a row's record: a hash of everything the proof depended on."""
    from .prove import golden_version, prover_version

    return digest({"prover": prover_version(), "golden": golden_version(), "harness": unit.harness_spec.key,
                   "cfg": unit.golden_cfg, "cond": list(cond), "seed": seed})


def committed_table(path=None):
    """The data of the committed proof table (``docs/results/proofs.json``, :func:`table_data`'s form), or
    None if there is none. ``path``: another proofs JSON, or the results document it sits beside."""
    doc = read_data("proofs", path)
    return None if doc is None else doc["data"]


def _rows_of(table):
    """The rows of a proof table's data (None: none), each a dict with its ``record`` (None: not run)."""
    if table is None:
        return []
    rows = table.get("rows") if isinstance(table, dict) else None
    if not isinstance(rows, list):
        from ..golden.errors import FpforgeValueError

        raise FpforgeValueError("the proof table's data has no list of rows (regenerate docs/results/proofs.json "
                                "with `fpforge report proofs`)")
    return [r for r in rows if isinstance(r, dict)]


def table_records(table) -> dict:
    """``{key prefix: record}`` of the rows of a proof table (``table``: its data, :func:`table_data`'s form)
    that were proved with no mismatch and carry their record key. (A row with mismatches is not carried: it is
    proved again, so its counterexamples are printed.)"""
    out = {}
    for row in _rows_of(table):
        rec, key = row.get("record"), row.get("key")
        if not isinstance(rec, dict) or not isinstance(key, str) or len(key) != KEY_DIGITS:
            continue
        try:
            carried = dict(vectors=int(rec["vectors"]), mismatches=int(rec["mismatches"]), first=[],
                           seconds=float(rec["seconds"]), resumed=bool(rec.get("resumed")), date=str(rec["date"]),
                           machine=str(rec["machine"]), carried=True)
            if rec.get("cpu") is not None:
                carried["cpu"] = float(rec["cpu"])
        except (KeyError, TypeError, ValueError):
            continue  # a row edited by hand out of shape
        if carried["mismatches"] == 0:
            out[key] = carried
    return out


class RowStore:
    """Finished rows of the record (a condition proved over the whole domain): vectors, mismatches, the
    first mismatches, wall seconds, date and machine, keyed by everything the proof depended on.

    ``carried``: rows of a committed proof table (:func:`table_records`) to fall back on; by default those of
    ``docs/results/proofs.json`` when ``directory`` is the default store, none otherwise.
    """

    def __init__(self, directory=None, carried=None):
        self.store = Store(cache_dir("prove") / "rows" if directory is None else directory)
        if carried is None and directory is None:
            carried = table_records(committed_table())
        self.carried = carried or {}

    def get(self, unit, cond, seed):
        """The row's record (from this machine's store, else from the committed table), or None."""
        key = row_key(unit, cond, seed)
        rec = self.store.get(key)
        if rec is MISSING:
            return self.carried.get(key[:KEY_DIGITS])
        return rec

    def put(self, unit, cond, seed, record) -> None:
        self.store.put(row_key(unit, cond, seed), record)


#: Patterns per sample of :func:`estimate`, at 0x3c000000 (FP32 values from 2^-7 up).
ESTIMATE_SAMPLE = 1 << 22


def table_cpu(table) -> dict:
    """``{(unit, format, mode, sat, bias): (CPU seconds, date, machine)}`` of the rows of a proof table (``table``:
    its data) run over all 2**32 inputs with a CPU time, whatever their record key: what a row cost when it was
    last proved (by the golden model and prover of then). ``sat`` and ``bias`` as the table shows them."""
    out = {}
    for row in _rows_of(table):
        rec = row.get("record")
        if not isinstance(rec, dict) or rec.get("vectors") != 1 << 32 or rec.get("cpu") is None:
            continue
        key = (row.get("unit"), row.get("format"), row.get("mode"), str(row.get("sat")), _bias(row.get("bias")))
        out[key] = (float(rec["cpu"]), rec.get("date", ""), rec.get("machine", ""))
    return out


def _bias(bias):
    return "-" if bias is None else str(bias)


def estimate_sources(selected, rows=None, *, fresh=False, table=None):
    """Where each row of ``selected`` (``(unit, conditions)`` pairs) gets its CPU time per vector from,
    without building anything: ``[(unit, cond, kind, ns, info)]`` with ``kind``

    * ``"proved"``: ``rows`` (a :class:`RowStore`) has the row under today's key — a run skips it; ``ns``
      from its recorded CPU time (None if it has none), ``info`` its date;
    * ``"table"``: the proof table ``table`` (its data; default: docs/results/proofs.json's) has the same row (unit,
      format, mode, sat, bias) proved over all 2**32 inputs under an earlier key; ``ns`` = its CPU time / 2**32,
      ``info`` its date and machine;
    * ``"sample"``: neither (or ``fresh``): to be measured by :func:`estimate`; ``ns`` and ``info`` None.
    """
    from .prove import PROOF_SEED

    if table is None and not fresh:
        table = committed_table()
    earlier = {} if fresh else table_cpu(table)
    out = []
    for unit, conds in selected:
        for cond in conds:
            rec = None if fresh or rows is None else rows.get(unit, cond, PROOF_SEED)
            old = earlier.get((unit.top, unit.cfg["format"], cond.mode, str(cond.sat), _bias(cond.bias)))
            if rec is not None:
                ns = 1e9 * rec["cpu"] / rec["vectors"] if rec.get("cpu") and rec.get("vectors") else None
                out.append((unit, cond, "proved", ns, rec.get("date", "")))
            elif old is not None:
                out.append((unit, cond, "table", 1e9 * old[0] / 2**32, f"{old[1]}, {old[2]}"))
            else:
                out.append((unit, cond, "sample", None, None))
    return out


def sample_unit(task) -> dict:
    """One task of :func:`estimate` (runs in a worker): build the unit's harness (unless cached), then check
    a sample of ``task["sample"]`` patterns under each of ``task["conds"]``. Returns the build's wall seconds
    and, per condition, CPU nanoseconds per vector (harness + worker) and the sample's mismatches."""
    import time

    from .harness import build_harness, harness_cached
    from .prove import PROOF_SEED, check_chunk

    spec, sample = task["spec"], task["sample"]
    t0 = time.perf_counter()
    cached = harness_cached(spec)
    build_harness(spec)
    build = None if cached else time.perf_counter() - t0
    rows = []
    for cond in task["conds"]:
        out = check_chunk(dict(spec=spec, cfg=task["cfg"], cond=tuple(cond), start=0x3C000000, count=sample,
                               seed=PROOF_SEED))
        rows.append(dict(ns=1e9 * (out["harness_cpu"] + out["worker_cpu"]) / sample, mismatches=out["mismatches"]))
    return dict(build=build, rows=rows)


def estimate(selected, sample=ESTIMATE_SAMPLE, *, executor=None):
    """Measure the rows of ``selected`` (``(unit, conditions)`` pairs) on a sample of ``sample`` patterns
    each. Yields ``(unit, rows, build)`` per unit as the units finish (completion order, not
    ``selected``'s): ``rows`` are ``(condition, ns, mismatches)`` — CPU nanoseconds per vector (harness +
    worker) and the mismatches found in the sample (checked like any chunk); a whole row takes about
    ``2**32 * ns / cores`` on idle cores — and ``build`` the harness build's wall seconds (None: cached).

    Each unit is one task (:func:`sample_unit`) on ``executor`` (``fpforge.jobs.executor``; None: in this
    process), so the units' harnesses build and run in parallel.

    Raises
    ------
    ToolError
        A unit's harness failed to build or run (the first failure stops the estimate).
    """
    from ..golden.errors import ToolError
    from .prove import TaskFailure, run_tasks

    tasks = [dict(spec=unit.harness_spec, cfg=unit.golden_cfg, conds=[tuple(c) for c in conds], sample=sample,
                  index=i) for i, (unit, conds) in enumerate(selected)]
    runner = run_tasks(sample_unit, tasks, executor=executor)
    for task, out in runner:
        unit, conds = selected[task["index"]]
        if isinstance(out, TaskFailure):
            runner.close()
            raise ToolError(f"estimating {unit.top}: {out.message}")
        yield unit, [(cond, row["ns"], row["mismatches"]) for cond, row in zip(conds, out["rows"])], out["build"]


def _fmt_seconds(s):
    return f"{s:.0f} s" if s < 600 else f"{s / 60:.1f} min"


_COLUMNS = ("unit", "format", "mode", "sat", "bias", "Verilog sha256", "vectors", "mismatches", "wall time",
            "CPU time", "date", "machine", "key")


def table_data(rows, *, total_seconds=None) -> dict:
    """The proof table as data (what ``docs/results/proofs.json`` holds): ``rows`` are ``(unit, condition,
    record or None)`` of the record (draws of :data:`~fpforge.sim.prove.PROOF_SEED`). Each row: ``unit``
    (the top), ``format``, ``mode``, ``sat``, ``bias`` (None: fixed), ``verilog_sha256`` (as shown), ``record``
    (None: not run; else ``vectors``, ``mismatches``, ``seconds``, ``cpu`` (None: not measured), ``resumed``,
    ``date``, ``machine``) and ``key`` (the record key's first :data:`KEY_DIGITS` hex digits; None: not run);
    then the sums over the rows run (``wall_seconds``, ``cpu_seconds``) and ``run_seconds`` (this run's wall
    time, None if not given)."""
    from .prove import PROOF_SEED

    out, wall_sum, cpu_sum = [], 0.0, 0.0
    for unit, cond, rec in rows:
        row = dict(unit=unit.top, format=unit.cfg["format"], mode=cond.mode, sat=cond.sat, bias=cond.bias,
                   verilog_sha256=unit.verilog_hash, record=None, key=None)
        if rec is not None:
            row["record"] = dict(vectors=rec["vectors"], mismatches=rec["mismatches"], seconds=rec["seconds"],
                                 cpu=rec.get("cpu"), resumed=bool(rec.get("resumed")), date=rec["date"],
                                 machine=rec["machine"])
            row["key"] = row_key(unit, cond, PROOF_SEED)[:KEY_DIGITS]
            wall_sum += rec["seconds"]
            cpu_sum += rec.get("cpu", 0.0) or 0.0
        out.append(row)
    return dict(columns=list(_COLUMNS), rows=out, wall_seconds=wall_sum, cpu_seconds=cpu_sum, run_seconds=total_seconds)


def table_markdown(rows, *, total_seconds=None) -> str:
    """Markdown of the proof table; ``rows`` are ``(unit, condition, record or None)`` of the record (draws of
    :data:`~fpforge.sim.prove.PROOF_SEED`)."""
    return proofs_markdown(table_data(rows, total_seconds=total_seconds))


def proofs_markdown(table) -> str:
    """Markdown of the proof table from its data (:func:`table_data`): the view ``docs/results.md`` shows."""
    lines = ["## Exhaustive proofs (`fpforge prove`)", "",
             "Every input pattern of each unit checked bit for bit (code and flags) against the golden model by "
             "the Verilator C++ harness ([docs/prove.md](prove.md)); `sr` draws: seed 0, pattern i gets draw i.",
             "The wall time depends on the machine and its load (column `machine`); the CPU time (the harness "
             "processes and the workers' Python side, golden model included, summed) less so. `key`: the row's "
             "record key (a hash of the prover's and the golden model's sources, the unit and the condition); a "
             "fresh clone takes a row with today's key from this table instead of proving it again.", ""]
    cells, done, proved = [], 0, 0
    for row in _rows_of(table):
        head = [row["unit"], row["format"], row["mode"], row["sat"], _bias(row["bias"]), f"`{row['verilog_sha256']}`"]
        rec = row["record"]
        if rec is None:
            cells.append(head + ["not run", "", "", "", "", "", ""])
            continue
        done += 1
        proved += rec["mismatches"] == 0
        wall = _fmt_seconds(rec["seconds"]) + (" (resumed)" if rec.get("resumed") else "")
        cpu = "-" if rec.get("cpu") is None else _fmt_seconds(rec["cpu"])
        cells.append(head + [f"{rec['vectors']:,}", f"{rec['mismatches']:,}", wall, cpu, rec["date"], rec["machine"],
                             f"`{row['key']}`"])
    lines.append(markdown_table(_COLUMNS, cells, "llllllrrrrlll"))
    lines += ["", f"{done} of {len(cells)} rows run, {proved} proved (no mismatch on all 2^32 inputs). "
                  f"Summed over the rows run: wall {table['wall_seconds'] / 3600:.2f} h, CPU "
                  f"{table['cpu_seconds'] / 3600:.2f} h. "
                  "(resumed): the row finished a run interrupted earlier; its wall time is the last run's."]
    if table.get("run_seconds") is not None:
        lines[-1] += f" Wall time of this run: {_fmt_seconds(table['run_seconds'])}."
    return "\n".join(lines) + "\n"


# -- exhaustive dot-product proofs (`fpforge prove dot --record`) ---------------------------------------------
#: The dot units of the record: every operand pattern (at most 2^36) against the golden dot product, at the
#: window f = 32. FP8 at r = 2 (2^32 patterns; CFloat8 at each (bias_a, bias_b) pair of
#: :data:`~fpforge.sim.prove_dot.DOT_BIASES`, ``fp8`` at its four selects), OCP FP4 at r = 4 (2^32), FP6 at r = 2
#: (2^24), and the smallest BDR units (2^20 and 2^36; no OCP MX unit fits: 32 elements and an 8-bit scale).
DOT_RECORD = (
    ("e4m3", 2), ("e5m2", 2), ("hif8", 2), ("cfloat8_143", 2), ("cfloat8_152", 2), ("fp8", 2), ("e2m1", 4),
    ("e3m2", 2), ("e2m3", 2), ("bdr_m2_k2_d4_k2_d0", 2), ("bdr_m2_k4_d4_k2_d1", 4),
)
#: The window of every unit of :data:`DOT_RECORD`.
DOT_RECORD_F = 32


def dot_record_configs() -> list:
    """Unit configurations of the dot record (:data:`DOT_RECORD`)."""
    return [dict(unit="dot", format=fmt, r=r, f=DOT_RECORD_F) for fmt, r in DOT_RECORD]


def dot_row_key(unit, cond) -> str:
    """Key of a dot row's record: the dot prover's and the golden model's sources, the unit's harness and
    configuration, the condition."""
    from .prove import golden_version
    from .prove_dot import prover_version

    return digest({"prover": prover_version(), "golden": golden_version(), "harness": unit.harness_spec.key,
                   "cfg": unit.golden_cfg, "cond": list(cond)})


class DotRowStore:
    """Finished rows of the dot record, keyed by :func:`dot_row_key` (in ``cache_dir("prove") / "dot-rows"``)."""

    def __init__(self, directory=None):
        self.store = Store(cache_dir("prove") / "dot-rows" if directory is None else directory)

    def get(self, unit, cond):
        rec = self.store.get(dot_row_key(unit, cond))
        return None if rec is MISSING else rec

    def put(self, unit, cond, record) -> None:
        self.store.put(dot_row_key(unit, cond), record)


_DOT_COLUMNS = ("unit", "operands", "r", "f", "condition", "patterns", "mismatches", "wall time", "CPU time", "date",
                "machine", "key")


def dot_table_data(rows) -> dict:
    """The dot proof table as data: ``rows`` are ``(unit, condition, record or None)``."""
    out = []
    for unit, cond, rec in rows:
        row = dict(unit=unit.top, format=unit.spec.format, r=unit.spec.r, f=unit.spec.f, condition=cond.label(),
                   patterns=unit.domain, verilog_sha256=unit.verilog_hash, record=None, key=None)
        if rec is not None:
            row["record"] = {k: rec.get(k) for k in ("vectors", "mismatches", "seconds", "cpu", "date", "machine")}
            row["key"] = dot_row_key(unit, cond)[:KEY_DIGITS]
        out.append(row)
    return dict(columns=list(_DOT_COLUMNS), rows=out)


def dot_proofs_markdown(table) -> str:
    """Markdown of the dot proof table from its data (:func:`dot_table_data`)."""
    lines = ["## Exhaustive dot-product proofs (`fpforge prove dot`)", "",
             "Every operand pattern of each combinational dot unit (A and B bits, block scales included) checked bit "
             "for bit (the FP32 result) against the golden dot product by the Verilator C++ harness "
             "([docs/prove.md](prove.md#dot-product-units-fpforge-prove-dot)).", ""]
    cells, done, proved = [], 0, 0
    for row in _rows_of(table):
        bits = int(row["patterns"]).bit_length() - 1
        head = [row["unit"], row["format"], str(row["r"]), str(row["f"]), row["condition"], f"2^{bits}"]
        rec = row["record"]
        if rec is None:
            cells.append(head + ["not run", "", "", "", "", ""])
            continue
        done += 1
        proved += rec["mismatches"] == 0
        cpu = "-" if rec.get("cpu") is None else _fmt_seconds(rec["cpu"])
        cells.append(head + [f"{rec['mismatches']:,}", _fmt_seconds(rec["seconds"]), cpu, rec["date"], rec["machine"],
                             f"`{row['key']}`"])
    lines.append(markdown_table(_DOT_COLUMNS, cells, "llrrlrrrrlll"))
    lines += ["", f"{done} of {len(cells)} rows run, {proved} proved (no mismatch on every operand pattern)."]
    return "\n".join(lines) + "\n"
