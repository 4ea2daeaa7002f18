"""The equivalence rows of the proof record (``make prove``; docs/prove.md, "Equivalence rows").

Rows (:func:`equiv_rows`), from the units of the docs' area tables (:data:`fpforge.sweep.area.AREA_SPACES`):

- every encoder, decoder, block encoder and block decoder (combinational core: latency 0, no I/O registers)
  against its mapped netlist on ``fpforge45`` and on ``osu018`` (ABC, :data:`DEFAULT_ENGINE`);
- every dot unit with r <= 16 (its combinational core) against its netlist on both libraries (engine ``staged``);
- the stream units: every scalar and block unit at latency 1 and 2, every such dot unit at stages 1 and 2,
  against its combinational core followed by the registers (ABC ``dprove``).

Each row is ``proved``, ``counterexample`` or ``unknown`` with the measured wall time (an ``unknown`` says
why: the budget it ran out of). Rows are keyed by what decides them: the unit's spec, the comparison, the
engine, the sources of the synthesis flow and of the equivalence code (:func:`_sources_digest`)
and the generated Verilog of the unit (and, for a stream row, of its combinational core; :func:`rtl_digest`),
and kept in ``docs/results/equiv.json`` with the budget (``--timeout``) each was run with; a rerun skips a
row whose key is unchanged and that was decided (proved or a counterexample) or given at least the budget
asked now (``--rerun`` runs the selected rows again all the same: to re-measure their times, say on an idle
machine). A change to the hardware generator thus re-runs the rows of the units whose Verilog it changes,
not the whole record; the section counts rows recorded under an earlier key apart, as not current. Run::

    python -m fpforge.equiv_record [--only SUBSTRING] [--kind netlist|stream] [--unit UNIT] [--limit N]
                                   [--timeout S] [--jobs N] [--rerun] [--list]

The store is the data of the ``equiv`` section of docs/results.md: every run rewrites the section (a summary
by unit kind and comparison, then every row) with its provenance.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

__all__ = ["DEFAULT_ENGINE", "equiv_rows", "row_key", "run_rows", "section_markdown", "table_markdown"]

#: The ABC engine of the combinational rows (dot units: sim.equiv.DOT_ENGINE, ``staged``, by measurement).
DEFAULT_ENGINE = "iprove"
#: Seconds each row may prove for (ABC or sat -tempinduct) before it is ``unknown``.
ROW_TIMEOUT = 600.0
LIBERTIES = ("fpforge45", "osu018")
_DOCS = Path(__file__).resolve().parent.parent / "docs" / "results" / "equiv.json"


def _label(spec) -> str:
    opts = {k: v for k, v in spec.as_options().items()
            if k not in ("unit", "latency", "stages", "io_registers") and v is not False and v is not None}
    return f"{spec.unit} " + " ".join(f"{k}={','.join(v) if isinstance(v, tuple) else v}" for k, v in opts.items())


def equiv_rows() -> list:
    """``[(row id, spec, kind, liberty)]``: ``kind`` ``netlist`` (with ``liberty``) or ``stream``."""
    import dataclasses

    from .hw.spec import UnitSpec
    from .sim.equiv_core import EQUIV_UNITS
    from .sweep.area import AREA_SPACES

    cores = {}
    for make in AREA_SPACES.values():
        for cfg in make().units():
            if cfg.get("unit") not in EQUIV_UNITS:
                continue
            spec = UnitSpec.from_dict({k: v for k, v in cfg.items() if k != "name"})  # name: the module's
            if spec.unit == "dot":
                if spec.r > 16 or spec.amax:
                    continue
                spec = dataclasses.replace(spec, io_registers=False, stages=0)
            else:
                spec = dataclasses.replace(spec, latency=0)
            cores[spec.sha256] = spec
    rows = []
    for spec in sorted(cores.values(), key=_label):
        for lib in LIBERTIES:
            rows.append((f"{_label(spec)} | netlist {lib}", spec, "netlist", lib))
    for spec in sorted(cores.values(), key=_label):
        if spec.unit != "dot" and "sr" in (getattr(spec, "rounding", None) or ()):
            continue
        for depth in (1, 2):
            seq = dataclasses.replace(spec, **({"stages": depth} if spec.unit == "dot" else {"latency": depth}))
            rows.append((f"{_label(spec)} | {'stages' if spec.unit == 'dot' else 'latency'} {depth}", seq,
                         "stream", None))
    return rows


def _digest(paths) -> str:
    h = hashlib.sha256()
    for path in sorted(paths):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _sources_digest() -> str:
    """A hash of the sources that turn a unit's Verilog into a verdict: the synthesis flow (the netlist, the cell
    models) and the equivalence code (miters, engines, the stream references)."""
    root = Path(__file__).resolve().parent.parent
    return _digest([*root.glob("sim/equiv*.py"), *root.glob("synth/*.py")])


def _generator_digest() -> str:
    """A hash of everything a unit's generated Verilog can depend on: the gateware and golden sources and the
    Amaranth version (the key of :func:`rtl_digest`'s cache)."""
    from importlib.metadata import version

    root = Path(__file__).resolve().parent.parent
    return _digest([*root.glob("hw/*.py"), *root.glob("golden/**/*.py")]) + version("amaranth")


def rtl_digest(spec, cache=None) -> str:
    """SHA-256 of the Verilog the row of ``spec`` compares: the unit's (and, for a stream unit, its combinational
    core's). ``cache``: a dict of digests by spec hash for one generator version (:func:`_rtl_digests`)."""
    from .hw.generate import build_unit, default_name, to_verilog
    from .sim.equiv_core import comb_spec, seq_latency

    if cache is not None and spec.sha256 in cache:
        return cache[spec.sha256]
    h = hashlib.sha256()
    for s in (spec, comb_spec(spec)) if seq_latency(spec) else (spec,):
        unit = build_unit(s)
        h.update(to_verilog(unit, default_name(unit)).encode())
    digest = h.hexdigest()
    if cache is not None:
        cache[spec.sha256] = digest
    return digest


def _rtl_digests(specs, progress=True) -> dict:
    """:func:`rtl_digest` of every spec of ``specs``, by spec hash; kept in the cache (``equiv/rtl``) under the
    generator's version, so that an unchanged generator costs no Verilog generation."""
    from tqdm import tqdm

    from .jobs.cache import cache_dir, write_atomic

    path = cache_dir("equiv") / f"rtl-{hashlib.sha256(_generator_digest().encode()).hexdigest()[:16]}.json"
    try:
        known = json.loads(path.read_text())
        known = known if isinstance(known, dict) else {}
    except (OSError, ValueError):
        known = {}
    todo = [s for s in {s.sha256: s for s in specs}.values() if s.sha256 not in known]
    for i, spec in enumerate(tqdm(todo, desc="equiv row keys (Verilog)", unit="unit",
                                  disable=not progress or not todo)):
        rtl_digest(spec, known)
        if i % 25 == 24 or i == len(todo) - 1:  # kept as it goes: an interrupted run loses little
            write_atomic(path, json.dumps(known, sort_keys=True).encode())
    return known


def row_key(spec, kind, liberty, engine, sources=None, rtl=None) -> str:
    """The row's key: ``sources`` (default :func:`_sources_digest`) and ``rtl`` (default :func:`rtl_digest`).
    The budget is not part of it: a decided row stays decided under any budget (:func:`_current`)."""
    text = json.dumps({"spec": spec.sha256, "kind": kind, "liberty": liberty, "engine": engine,
                       "sources": sources or _sources_digest(), "rtl": rtl or rtl_digest(spec)}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _current(rec, key, timeout) -> bool:
    """Whether the recorded row ``rec`` stands for ``key`` at the budget ``timeout``: same key, and decided or
    given at least that budget."""
    return bool(rec) and rec.get("key") == key and (rec.get("status") in ("proved", "counterexample")
                                                    or rec.get("timeout", 0) >= timeout)


def current_keys(progress=True, rids=None) -> dict:
    """``{row id: key}`` of every row (or of the rows ``rids``) under the present sources and generator."""
    sources = _sources_digest()
    rows = [row for row in equiv_rows() if rids is None or row[0] in rids]
    rtl = _rtl_digests([spec for _, spec, _, _ in rows], progress)
    return {rid: row_key(spec, kind, lib, _engine(spec, kind), sources, rtl[spec.sha256])
            for rid, spec, kind, lib in rows}


def _engine(spec, row_kind) -> str:
    """The engine of a row, by measurement (docs/prove.md): netlist rows ``iprove`` (dot units ``staged``);
    stream rows ``dprove`` (ABC's signal correspondence merges the two cores: every block encoder's stream
    row proved, where ``sat -tempinduct`` was undecided at 120 s; on the miter ABC builds, it also proves
    every dot unit at stages 1 in about 10 s, where ``sat -tempinduct`` proved only the MX units')."""
    from .sim.equiv import DOT_ENGINE

    if row_kind == "netlist":
        return DOT_ENGINE if spec.unit == "dot" else DEFAULT_ENGINE
    return "dprove"


COMMAND = "python -m fpforge.equiv_record"


def _load(path):
    """The recorded rows of the store ``path`` (a results section's JSON; an older store held ``rows`` at its
    top level)."""
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return {}
    rows = (doc.get("data") or {}).get("rows") if "data" in doc else doc.get("rows")
    return rows if isinstance(rows, dict) else {}


def _save(path, rows, doc=None, keys=None):
    """Write the store ``path`` and the section ``equiv`` of ``doc`` (default: docs/results.md for the committed
    store, else ``path`` with the suffix .md), both atomically."""
    from .jobs.results import write_section

    path = Path(path)
    if doc is None:
        doc = None if path.resolve() == _DOCS else path.with_suffix(".md")
    write_section("equiv", section_markdown(rows, keys), command=COMMAND, path=doc, data={"rows": rows},
                  data_file=path)


def _row_task(task):
    """One row in a worker: ``(spec, kind, liberty, engine, timeout)`` -> its record without the key."""
    from .sim.equiv import equiv

    spec, kind, lib, engine, timeout = task
    t0 = time.perf_counter()
    r = equiv(spec, netlist=kind == "netlist", liberty=lib, engine=engine, timeout=timeout)
    return {"status": r.status, "engine": r.engine, "seconds": round(time.perf_counter() - t0, 1),
            "miter_ands": r.miter_ands, "reason": r.reason, "date": time.strftime("%Y-%m-%d"),
            "counterexample": r.inputs if r.status == "counterexample" else {}}


def run_rows(only=None, limit=None, timeout=ROW_TIMEOUT, path=_DOCS, progress=True, jobs=1, doc=None,
             kind=None, unit=None, rerun=False) -> dict:
    """Run the rows whose id contains ``only`` (and whose comparison is ``kind``, ``netlist`` or ``stream``,
    if given; and whose unit is ``unit``, if given; at most ``limit`` of them not already recorded with today's
    key; with ``rerun``, recorded or not) on ``jobs`` local processes (0: in this process); record each as it
    finishes (atomically, in ``path`` and its section of ``doc``). A row that fails to run (a tool error) is
    recorded as ``unknown`` with the error. Returns the recorded rows."""
    from tqdm import tqdm

    from .jobs.executor import TaskFailure, executor

    done = _load(path)
    rows = [row for row in equiv_rows() if not ((only and only not in row[0]) or (kind and kind != row[2])
                                                or (unit and unit != row[1].unit))]
    keys = current_keys(progress, {row[0] for row in rows} | set(done))  # the rows to run, and those recorded
    todo = []
    for rid, spec, row_kind, lib in rows:
        if not rerun and _current(done.get(rid), keys[rid], timeout):
            continue
        todo.append((rid, spec, row_kind, lib, _engine(spec, row_kind), keys[rid]))
    todo = todo[:limit] if limit is not None else todo
    if not todo:
        return done
    meta = {rid: (engine, key) for rid, _, _, _, engine, key in todo}
    with executor(jobs=jobs) as pool, tqdm(total=len(todo), desc="equiv rows", unit="row",
                                            disable=not progress) as bar:
        items = [(rid, (spec, kind, lib, engine, timeout)) for rid, spec, kind, lib, engine, _ in todo]
        for rid, out in pool.run(_row_task, items):
            engine, key = meta[rid]
            if isinstance(out, TaskFailure):
                out = {"status": "unknown", "engine": engine, "seconds": 0.0, "miter_ands": 0,
                       "reason": f"failed: {out.message}", "date": time.strftime("%Y-%m-%d"), "counterexample": {}}
            done[rid] = {"key": key, "timeout": timeout, **out}
            _save(path, done, doc, keys)
            bar.update(1)
    return done


#: What a row of the section can be (:func:`_state`), in the order the tables count them.
STATES = ("proved", "counterexample", "unknown", "earlier key", "not run")


def _state(rec, rid, keys) -> str:
    """``not run``, ``earlier key`` (recorded under other sources or Verilog than ``keys`` names) or the status."""
    if rec is None:
        return "not run"
    if keys is not None and rec.get("key") != keys.get(rid):
        return "earlier key"
    return rec["status"]


def table_markdown(rows=None, path=_DOCS, keys=None) -> str:
    """The equivalence rows as a markdown table (every row of :func:`equiv_rows`; rows not run say so, and,
    given ``keys`` (:func:`current_keys`), so do rows recorded under an earlier key)."""
    rows = _load(path) if rows is None else rows
    lines = ["| unit | comparison | result | engine | miter ANDs | seconds | date |", "|---|---|---|---|---|---|---|"]
    n = dict.fromkeys(STATES, 0)
    for rid, *_ in equiv_rows():
        unit, comparison = rid.split(" | ")
        rec = rows.get(rid)
        state = _state(rec, rid, keys)
        n[state] += 1
        if rec is None:
            lines.append(f"| {unit} | {comparison} | not run | | | | |")
            continue
        status = rec["status"] + (f" ({rec['reason']})" if rec["reason"] else "")
        if state == "earlier key":
            status = f"earlier key (then: {status})"
        lines.append(f"| {unit} | {comparison} | {status} | {rec['engine']} | {rec['miter_ands']:,} | "
                     f"{rec['seconds']:.1f} | {rec.get('date', '')} |")
    lines.append("")
    lines.append(", ".join(f"{v} {k}" for k, v in n.items() if v or k != "earlier key"))
    return "\n".join(lines) + "\n"


def _group(rid) -> str:
    unit, comparison = rid.split(" | ")
    kind = unit.split(" ")[0]
    return f"{kind} | {comparison.replace('latency', 'stream latency').replace('stages', 'stream stages')}"


def section_markdown(rows, keys=None) -> str:
    """The ``equiv`` section of docs/results.md: a summary by unit kind and comparison, then every row (``keys``:
    as :func:`table_markdown`)."""
    import statistics

    groups = {}
    for rid, *_ in equiv_rows():
        groups.setdefault(_group(rid), []).append((rid, rows.get(rid)))
    lines = ["## Equivalence rows (`fpforge equiv`, the record)", "",
             "Every encoder, decoder, block and dot unit of the area tables (dot units: r <= 16) against its "
             "mapped netlist on fpforge45 and osu018 (ABC `iprove`; dot units the `staged` engine), and as a stream unit at "
             "latency (dot: stages) 1 and 2 against its combinational core and the registers (ABC `dprove` on the sequential miter); "
             "method and limits in [docs/prove.md](prove.md#equivalence-rows-of-the-record). Seconds: the whole "
             "check's wall time (generation, synthesis, miter, engine) on a shared machine. *Earlier key*: a row "
             "recorded before a change to its unit's Verilog, the synthesis flow or the equivalence code (its "
             "result is not claimed for the present code; `make prove` runs it again).", "",
             "| units | comparison | rows | proved | counterexample | unknown | earlier key | not run | median s | max s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    total = dict.fromkeys(STATES, 0)
    for name, recs in groups.items():
        n = dict.fromkeys(STATES, 0)
        for rid, rec in recs:
            n[_state(rec, rid, keys)] += 1
        for k in total:
            total[k] += n[k]
        secs = [rec["seconds"] for rid, rec in recs if _state(rec, rid, keys) in ("proved", "counterexample", "unknown")]
        kind, comparison = name.split(" | ")
        counts = " | ".join(str(n[k]) for k in total)
        lines.append(f"| {kind} | {comparison} | {len(recs)} | {counts} | "
                     + (f"{statistics.median(secs):.1f} | {max(secs):.1f} |" if secs else " | |"))
    budgets = sorted({rec["timeout"] for rid, rec in rows.items() if rec.get("timeout")
                      and _state(rec, rid, keys) != "earlier key"})
    lines += ["", f"{sum(total.values())} rows: " + ", ".join(f"{v} {k}" for k, v in total.items()) + "."
              + (f" Budget per row (`--timeout`): {', '.join(f'{b:g}' for b in budgets)} s." if budgets else ""), "",
              "<details><summary>Every row</summary>", "", table_markdown(rows, keys=keys).rstrip("\n"), "",
              "</details>"]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m fpforge.equiv_record", description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default=None, help="rows whose id contains this text")
    p.add_argument("--limit", type=int, default=None, help="run at most N rows")
    p.add_argument("--timeout", type=float, default=ROW_TIMEOUT, help="seconds per row before it is unknown")
    p.add_argument("--kind", choices=("netlist", "stream"), default=None,
                   help="only the netlist rows or only the stream rows")
    p.add_argument("--unit", choices=("encoder", "decoder", "block-encoder", "block-decoder", "dot"), default=None,
                   help="only the rows of this kind of unit")
    p.add_argument("--jobs", type=int, default=1, help="rows run at once in local processes (default 1; 0: in "
                                                        "this process)")
    p.add_argument("--rerun", action="store_true", help="run the selected rows even where the record has them "
                                                          "under the present key (to re-measure their times)")
    p.add_argument("--list", action="store_true", help="list the row ids and stop")
    p.add_argument("--markdown", action="store_true", help="print the table (recorded rows) and stop")
    args = p.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        p.error(f"--limit must be a positive integer, not {args.limit}")
    if args.jobs < 0:
        p.error(f"--jobs must be an integer >= 0, not {args.jobs}")
    if not args.timeout > 0 or args.timeout == float("inf"):
        p.error(f"--timeout must be a finite number of seconds > 0, not {args.timeout}")
    if args.list:
        for rid, *_ in equiv_rows():
            print(rid)
        return 0
    if not args.markdown:
        run_rows(only=args.only, limit=args.limit, timeout=args.timeout, jobs=args.jobs, kind=args.kind,
                 unit=args.unit, rerun=args.rerun)
    sys.stdout.write(table_markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
