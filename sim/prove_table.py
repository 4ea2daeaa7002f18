"""The proof record (``make prove``): every FP32 -> 8-bit encoder shape in every mode and saturation pair,
proved over all 2**32 inputs, and the table of the results (``docs/results.md``, section ``proofs``).

The list comes from the format registry, so formats added later (IEEE P3109, variants) join it with no
change here: every scalar format of at most 8 bits gets an FP32-source encoder built with all of its
roundings and a run-time ``sat`` port; a run-time-bias format (CFloat8) is proved at each bias of
:data:`~fpforge.sim.prove_unit.DEFAULT_BIASES` (0, 7, 31, 63). Each finished row is recorded with its
wall time, date and machine, so a run that is interrupted, or done in parts (``--only``), ends with one
table of every row; rows not proved yet say so.
"""

from __future__ import annotations

from ..golden import get_format, list_formats
from ..jobs import cache_dir
from .prove_unit import ProofUnit

try:
    from ..jobs import MISSING, Store, digest
except ImportError:
    from ._jobs_standin import MISSING, Store, digest

__all__ = ["ESTIMATE_SAMPLE", "RowStore", "estimate", "record_configs", "table_markdown"]


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


class RowStore:
    """Finished rows of the record (a condition proved over the whole domain): vectors, mismatches, the
    first mismatches, wall seconds, date and machine, keyed by everything the proof depended on."""

    def __init__(self, directory=None):
        self.store = Store(cache_dir("prove") / "rows" if directory is None else directory)

    @staticmethod
    def _key(unit: ProofUnit, cond, seed) -> str:
        from .prove import golden_version, prover_version

        return digest({"prover": prover_version(), "golden": golden_version(), "harness": unit.harness_spec.key,
                       "cfg": unit.golden_cfg, "cond": list(cond), "seed": seed})

    def get(self, unit, cond, seed):
        """The row's record, or None."""
        rec = self.store.get(self._key(unit, cond, seed))
        return None if rec is MISSING else rec

    def put(self, unit, cond, seed, record) -> None:
        self.store.put(self._key(unit, cond, seed), record)


#: Patterns per sample of :func:`estimate`, at 0x3c000000 (FP32 values from 2^-7 up).
ESTIMATE_SAMPLE = 1 << 22


def estimate(selected, sample=ESTIMATE_SAMPLE):
    """Yield ``(unit, condition, ns, mismatches)`` — CPU nanoseconds per vector (harness + worker) measured
    on one sample of ``sample`` patterns, and the mismatches found there (a sample is checked like any
    chunk) — for each row of ``selected`` (``(unit, conditions)`` pairs); a whole row takes about
    ``2**32 * ns / cores`` on idle cores."""
    from .prove import PROOF_SEED, check_chunk

    for unit, conds in selected:
        for cond in conds:
            out = check_chunk(dict(spec=unit.harness_spec, cfg=unit.golden_cfg, cond=tuple(cond), start=0x3C000000,
                                   count=sample, seed=PROOF_SEED))
            yield unit, cond, 1e9 * (out["harness_cpu"] + out["worker_cpu"]) / sample, out["mismatches"]


def _fmt_seconds(s):
    return f"{s:.0f} s" if s < 600 else f"{s / 60:.1f} min"


def table_markdown(rows, *, total_seconds=None) -> str:
    """Markdown of the proof table; ``rows`` are ``(unit, condition, record or None)``."""
    lines = ["## Exhaustive proofs (`fpforge prove`)", "",
             "Every input pattern of each unit checked bit for bit (code and flags) against the golden model by "
             "the Verilator C++ harness ([docs/prove.md](prove.md)); `sr` draws: seed 0, pattern i gets draw i.",
             "The wall time depends on the machine's load (its last column); the CPU time (the harness processes and "
             "the workers' Python side, golden model included, summed) does much less.",
             "", "| unit | format | mode | sat | bias | Verilog sha256 | vectors | mismatches | wall time | CPU time "
                 "| date | machine |",
             "|---|---|---|---|---|---|---:|---:|---:|---:|---|---|"]
    done = proved = 0
    wall_sum = cpu_sum = 0.0
    for unit, cond, rec in rows:
        bias = "-" if cond.bias is None else str(cond.bias)
        head = f"| {unit.top} | {unit.cfg['format']} | {cond.mode} | {cond.sat} | {bias} | `{unit.verilog_hash}` |"
        if rec is None:
            lines.append(head + " not run | | | | | |")
            continue
        done += 1
        proved += rec["mismatches"] == 0
        wall_sum += rec["seconds"]
        cpu_sum += rec.get("cpu", 0.0)
        wall = _fmt_seconds(rec["seconds"]) + (" (resumed)" if rec.get("resumed") else "")
        cpu = _fmt_seconds(rec["cpu"]) if "cpu" in rec else "-"
        lines.append(head + f" {rec['vectors']:,} | {rec['mismatches']:,} | {wall} | {cpu} | {rec['date']} | "
                            f"{rec['machine']} |")
    lines += ["", f"{done} of {len(rows)} rows run, {proved} proved (no mismatch on all 2^32 inputs). "
                  f"Summed over the rows run: wall {wall_sum / 3600:.2f} h, CPU {cpu_sum / 3600:.2f} h. "
                  "(resumed): the row finished a run interrupted earlier; its wall time is the last run's."]
    if total_seconds is not None:
        lines[-1] += f" Wall time of this run: {_fmt_seconds(total_seconds)}."
    return "\n".join(lines) + "\n"
