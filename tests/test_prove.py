"""`fpforge prove`: the Verilator C++ harness against the golden model, and proof that it can fail.

- an FP32 -> E4M3 encoder (all roundings, run-time sat) on a 2^24 slice of its inputs in every (mode, sat)
  pair, and the harness' raw outputs in rne against ml_dtypes (an independent oracle of the codes);
- a mutant (one constant of the generated Verilog changed) proved through `fpforge prove --verilog`:
  exit 1 and the counterexample printed;
- the gate-level netlist of a decoder proved on all codes (cells simulated from their liberty functions),
  and the cell models' truth tables against the textbook functions of the cells;
- resumption (finished chunks come from the store, a corrupt entry is recomputed), port checks of a user's
  file, and one-line errors for bad input.
Whole 2^32 domains run in `make prove`.
"""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

from fpforge.cli import main
from fpforge.golden.errors import FpforgeValueError
from fpforge.hw.generate import build_unit, default_name, to_verilog
from fpforge.sim.prove import Condition, ProofUnit, prove

pytestmark = pytest.mark.sim

E4M3_ALL = dict(unit="encoder", format="e4m3", source="fp32", rounding=("rne", "ta", "rtz", "sr"), saturate="runtime")
#: FP32 patterns of [2^-7, 2^-5): E4M3 subnormals, the subnormal/normal boundary at 2^-6 and normals.
SLICE = (0x3C000000, 0x3D000000)
#: FP32 patterns from 448 (E4M3's largest finite value) upwards: rounding to max, overflow, saturation.
TOP = (0x43E00000, 0x43E00000 + (1 << 16))


@pytest.fixture(scope="module")
def e4m3_unit():
    return ProofUnit.generated(E4M3_ALL)


def test_encoder_slice_every_mode_and_saturation(e4m3_unit):
    results = prove(e4m3_unit, start=SLICE[0], end=SLICE[1], jobs=1, store=False, progress=False)
    assert [r.condition for r in results] == [Condition(m, s) for m in E4M3_ALL["rounding"] for s in (0, 1)]
    for r in results:
        assert r.vectors == SLICE[1] - SLICE[0] and r.mismatches == 0, (r.condition, r.first)


def test_harness_codes_match_ml_dtypes(e4m3_unit):
    """The harness' own y in rne without saturation equals ml_dtypes' float32 -> float8_e4m3fn cast."""
    from fpforge.sim.harness import HarnessRun, build_harness

    spec = e4m3_unit.harness_spec
    start, n = TOP[0] - (1 << 16), 1 << 17  # below and above the largest finite value
    with HarnessRun(build_harness(spec), spec, [(start, n, 1, (0, 0))]) as run:  # mode rne, sat 0
        rec = run.read(n)
    shift, width = spec.field("y")
    y = (rec.astype(np.uint64) >> np.uint64(shift)) & np.uint64((1 << width) - 1)
    x = np.arange(start, start + n, dtype=np.uint32).view(np.float32)
    ref = x.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    assert np.array_equal(y, ref.astype(np.uint64))


def test_mutant_is_caught_through_the_cli(tmp_path, capsys):
    unit = build_unit(**E4M3_ALL)
    verilog = to_verilog(unit, default_name(unit))
    # The overflow comparison: a magnitude above 0x7e (448) overflows. The mutant says above 0x7d.
    assert len(re.findall(r"> 7'h7e;", verilog)) == 1, "the generated Verilog changed: pick another mutation"
    path = tmp_path / "mutant.v"
    path.write_text(verilog.replace("> 7'h7e;", "> 7'h7d;"))
    rc = main(["prove", "encoder", "-f", "e4m3", "--rounding", "all", "--sat-port", "--verilog", str(path),
               "--range", f"{TOP[0]:#x}:{TOP[1]:#x}", "--jobs", "1", "--fresh"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "FAILED" in out
    assert "a=0x43e00000 (448) rne sat=0: expected y=0x7e flags=0x00, got y=0x7f" in out


def test_netlist_of_a_decoder(capsys):
    rc = main(["prove", "decoder", "-f", "e5m2", "--target", "fp16", "--netlist", "--jobs", "1", "--fresh"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "netlist (fpforge45.lib" in out and "PROVED: 256 vectors" in out


def _model_output(text, cell, values):
    """Evaluate the output of ``cell``'s model in ``text`` for input values (pin order), in Python."""
    body = text[text.index(f"module {cell} ("):]
    body = body[: body.index("endmodule")]
    pins = re.findall(r"^  input (\w+);", body, re.M)
    env = dict(zip(pins, values))
    table = re.search(r"localparam \[\d+:0\] \w+ = \d+'b([01]+);", body)
    if table:
        bits = table.group(1)
        return int(bits[len(bits) - 1 - sum(v << i for i, v in enumerate(values))])
    expr = re.search(r"assign \w+ = (.*);", body).group(1).replace("1'b0", "0").replace("1'b1", "1")
    return eval(expr, {"__builtins__": {}}, env) & 1


def test_cell_models_compute_the_textbook_functions(tmp_path):
    """Every model (an expression, or a table where the Verilog spelling would differ) computes the cell's
    textbook function on every input assignment."""
    from fpforge.synth.cells import cell_models

    odd = tmp_path / "odd.lib"
    odd.write_text('library (odd) {\n'
                   '  cell (ODD_X1) { area : 1; pin (A) { direction : input; } pin (B) { direction : input; }\n'
                   '    pin (Z) { direction : output; function : "A B\'"; } }\n'
                   '  cell (PREC_X1) { area : 1; pin (A) { direction : input; } pin (B) { direction : input; }\n'
                   '    pin (C) { direction : input; } pin (Z) { direction : output; function : "A ^ B & C"; } }\n}\n')
    textbook = {"NAND2_X1": lambda a, b: not (a and b), "NOR3_X1": lambda a, b, c: not (a or b or c),
                "XNOR2_X1": lambda a, b: a == b, "AOI21_X1": lambda a, b1, b2: not (a or (b1 and b2)),
                "OAI21_X1": lambda a, b1, b2: not (a and (b1 or b2)), "MUX2_X1": lambda a, b, s: b if s else a,
                "INV_X1": lambda a: not a, "ODD_X1": lambda a, b: a and not b,
                "PREC_X1": lambda a, b, c: (a != b) and c}  # liberty: ^ binds tighter than &
    for text in (cell_models(), cell_models(odd)):
        for cell, fn in textbook.items():
            if f"module {cell} (" not in text:
                continue
            n = fn.__code__.co_argcount
            for k in range(1 << n):
                values = [(k >> i) & 1 for i in range(n)]
                assert _model_output(text, cell, values) == int(bool(fn(*values))), (cell, values)
    assert "localparam" in cell_models(odd) and "~(A1 & A2)" in cell_models()
    with pytest.raises(FpforgeValueError, match="sequential"):
        cell_models(cells=["DFF_X1"])


def test_interrupted_proof_resumes(e4m3_unit, tmp_path):
    from fpforge.sim.prove import Store

    store = Store(tmp_path / "chunks")
    cond = [Condition("rne", 1)]
    kw = dict(start=TOP[0], end=TOP[0] + 4 * 4096, chunk=4096, jobs=1, store=store, progress=False)
    first = prove(e4m3_unit, cond, **kw)[0]
    assert first.resumed == 0 and first.chunks == 4 and first.passed
    entries = sorted((tmp_path / "chunks").rglob("*.json"))
    assert len(entries) == 4
    entries[0].write_text("{ truncated")  # an interrupted write that survived
    again = prove(e4m3_unit, cond, **kw)[0]
    assert again.resumed == 3 and again.vectors == first.vectors and again.mismatches == 0


def test_user_file_with_other_ports_is_refused(tmp_path):
    path = tmp_path / "enc.v"
    path.write_text("module fpforge_enc_fp32_e4m3(input [31:0] a, output [6:0] y, input sat);\n"
                    "assign y = a[6:0];\nendmodule\n")
    with pytest.raises(FpforgeValueError) as e:
        ProofUnit.from_file(dict(unit="encoder", format="e4m3"), path)
    msg = str(e.value)
    assert "missing output flags (5 bits)" in msg and "y is an output of 7 bits, expected an output of 8" in msg
    assert "unexpected port sat (input, 1 bit)" in msg


@pytest.mark.parametrize("argv, message", [
    (["encoder", "-f", "e4m3", "--range", "5:2"], "--range '5:2' is reversed"),
    (["encoder", "-f", "e4m3", "--range", "zz"], "--range takes START:END"),
    (["encoder", "-f", "e4m3", "--bias", "3"], "--bias applies to run-time-bias formats"),
    (["encoder", "-f", "cfloat8_143", "--bias", "64"], "biases must be integers in 0..63"),
    (["encoder", "-f", "e4m3", "--latency", "2"], "combinational units (latency 0)"),
    (["block-encoder", "-f", "mx9"], "invalid choice"),
    (["encoder", "-f", "e4m3", "--netlist", "--verilog", "x.v"], "choose one of --verilog FILE and --netlist"),
    (["encoder", "-f", "e4m3", "--verilog", "/nonexistent/x.v"], "'/nonexistent/x.v': no such file"),
    (["encoder", "-f", "e4m3", "--jobs", "0"], "--jobs must be positive"),
    (["all", "-f", "e4m3"], "proves the record list"),
    (["encoder", "-f", "e4m3", "--estimate"], "apply to `fpforge prove all`"),
    (["all", "--only", "e4m3,nothing-like-this"], "--only takes FORMAT[:MODE[:SAT]] items"),
    (["all", "--only", "e4m3:hr"], "--only takes FORMAT[:MODE[:SAT]] items"),
    (["all", "--fresh"], "takes --fresh with --estimate only"),
])
def test_bad_input_is_one_line(argv, message, capsys):
    assert main(["prove", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_record_is_every_8_bit_encoder_in_every_pair():
    """`make prove`'s list: the issue's record (FP8 x4, HiF8, FP6/FP4, CFloat8 at four biases), all modes."""
    from fpforge.golden import get_format
    from fpforge.sim.prove_table import record_configs

    cfgs = {c["format"]: c for c in record_configs()}
    assert {"e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz", "hif8", "e3m2", "e2m3", "e2m1", "cfloat8_143",
            "cfloat8_152"} <= set(cfgs)
    assert not {"fp32", "fp16", "bf16", "shp", "uhp", "mx9"} & set(cfgs)
    for name, cfg in cfgs.items():
        assert cfg["source"] == "fp32" and cfg["saturate"] == "runtime"
        assert set(cfg["rounding"]) == set(get_format(name).roundings)
    conds = ProofUnit.generated(cfgs["cfloat8_143"]).conditions()
    assert len(conds) == 4 * 4 * 2 and {c.bias for c in conds} == {0, 7, 31, 63}


def test_estimate_samples_with_jobs_and_progress(e4m3_unit, capsys):
    """--fresh: the row measured now on a sample, its unit a task on --jobs; off a terminal a progress line
    per unit (done/total, rate, ETA) on stderr."""
    assert main(["prove", "all", "--only", "e4m3:rne:0", "--estimate", "--fresh", "--jobs", "2"]) == 0
    out, err = capsys.readouterr()
    assert re.search(r"fpforge_enc_fp32_e4m3 +rne sat=0 +[\d.]+ ns/vector +[\d.]+ min  sample\n", out), out
    assert "# sampling 1 row of 1 unit on 2 local processes" in out
    assert "total: " in out and "for 1 row to prove on 2 idle cores" in out
    assert re.search(r"^estimate: 1/1 units \(fpforge_enc_fp32_e4m3, harness (cached|built in \d+ s)\), \d+ s, "
                     r"[\d.]+ units/min, ETA 0 s$", err, re.M), err


def test_estimate_from_the_proof_table_builds_nothing(tmp_path, monkeypatch, capsys):
    """Rows the proof table has (under today's key or an earlier one) are projected from their CPU time over
    all 2^32 inputs, with no harness built: the figures are the table's, divided by the cores."""
    from fpforge.sim.prove_table import committed_table

    monkeypatch.setenv("FPFORGE_CACHE", str(tmp_path))
    assert main(["prove", "all", "--only", "e4m3:rne:0,hif8:hr:1", "--estimate", "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert not list((tmp_path / "prove").glob("harness/*/harness")) and "# sampling" not in out
    rows = committed_table()["rows"]  # docs/results/proofs.json
    for top, fmt, mode, sat in (("fpforge_enc_fp32_e4m3", "e4m3", "rne", 0),
                                ("fpforge_enc_fp32_hif8", "hif8", "hr", 1)):
        row = next(r for r in rows if (r["unit"], r["format"], r["mode"], r["sat"], r["bias"]) == (top, fmt, mode, sat, None))
        assert row["record"]["vectors"] == 1 << 32
        cpu = row["record"]["cpu"]
        line = re.search(rf"{top} +{mode} sat={sat} +([\d.]+) ns/vector +([\d.]+) min  (table: |proved )", out)
        assert line, out
        assert float(line[1]) == pytest.approx(cpu * 1e9 / 2**32, abs=0.06)
        assert float(line[2]) == pytest.approx(cpu / 2 / 60, abs=0.06)


def test_estimate_sources(tmp_path):
    """A row recorded under today's key is `proved` (a run skips it), one only in a table `table`, the rest
    (and every row with fresh) `sample`."""
    from fpforge.sim.prove_table import RowStore, estimate_sources, table_data

    unit = ProofUnit.generated(dict(unit="encoder", format="e2m1", rounding=("rne",)))
    c0, c1 = Condition("rne", 0), Condition("rne", 1)
    section = table_data([(unit, c0, dict(_ROW_RECORD)), (unit, c1, None)])  # CPU time 140.2 s
    rows = RowStore(tmp_path, carried={})
    got = estimate_sources([(unit, [c0, c1])], rows, table=section)
    assert [(kind, ns) for _, _, kind, ns, _ in got] == [("table", pytest.approx(140.2e9 / 2**32)), ("sample", None)]
    assert "2026-01-02 03:04, 2 cores" == got[0][4]
    rows.put(unit, c0, 0, dict(_ROW_RECORD))
    got = estimate_sources([(unit, [c0, c1])], rows, table=section)
    assert [(kind, ns) for _, _, kind, ns, _ in got] == [("proved", pytest.approx(140.2e9 / 2**32)),
                                                         ("sample", None)]
    got = estimate_sources([(unit, [c0, c1])], rows, table=section, fresh=True)
    assert [kind for _, _, kind, _, _ in got] == ["sample", "sample"]


#: A finished row of the record, as RowStore keeps it (the proof table's tests).
_ROW_RECORD = dict(vectors=1 << 32, mismatches=0, seconds=71.5, cpu=140.2, resumed=0, date="2026-01-02 03:04",
                   machine="2 cores")


def test_table_marks_rows_not_run():
    from fpforge.sim.prove_table import table_markdown

    unit = ProofUnit.generated(dict(unit="encoder", format="e2m1", rounding=("rne",)))
    rec = dict(_ROW_RECORD)
    text = table_markdown([(unit, Condition("rne", 0), rec), (unit, Condition("rne", 1), None)])
    assert f"| fpforge_enc_fp32_e2m1 | e2m1 | rne | 0 | - | `{unit.verilog_hash}` | 4,294,967,296 | 0 | 72 s | 140 s |" in text
    assert "| rne | 1 | - |" in text and "not run" in text and "1 of 2 rows run, 1 proved" in text
    assert "Summed over the rows run: wall 0.02 h, CPU 0.04 h." in text


def test_headline_counts_mismatch_rows(tmp_path):
    """The headline's proof line is read from the proof table's JSON (docs/results/proofs.json)."""
    from fpforge.cmd_report import _proof_summary
    from fpforge.jobs.results import write_section
    from fpforge.sim.prove_table import proofs_markdown, table_data

    unit = ProofUnit.generated(dict(unit="encoder", format="e2m1", rounding=("rne",)))
    rec = dict(_ROW_RECORD)
    rows = [(unit, Condition("rne", 0), rec), (unit, Condition("rne", 1), dict(rec, mismatches=3)),
            (unit, Condition("ta", 0), None)]
    path = tmp_path / "results.md"
    data = table_data(rows)
    write_section("proofs", proofs_markdown(data), command="make prove", path=path, data=data)
    path.write_text("")  # the markdown view is not read
    assert _proof_summary(tmp_path / "results").startswith("2 of 3 rows, 1 with a mismatch (table of ")
    assert _proof_summary(tmp_path / "nothing") == "no proof table yet (`make prove`)"


def test_committed_table_carries_proved_rows_to_a_fresh_store(tmp_path):
    """The proof store falls back on the rows of the committed table's JSON (not its markdown view)."""
    from fpforge.jobs.results import write_section
    from fpforge.sim.prove_table import (
        RowStore,
        committed_table,
        proofs_markdown,
        table_data,
        table_markdown,
        table_records,
    )

    unit = ProofUnit.generated(dict(unit="encoder", format="e2m1", rounding=("rne", "ta")))
    ok, bad, slow = Condition("rne", 0), Condition("rne", 1), Condition("ta", 0)
    rows = [(unit, ok, dict(_ROW_RECORD)), (unit, bad, dict(_ROW_RECORD, mismatches=3)),
            (unit, slow, dict(_ROW_RECORD, seconds=1234.0, resumed=1)), (unit, Condition("ta", 1), None)]
    path = tmp_path / "results.md"
    data = table_data(rows)
    write_section("proofs", proofs_markdown(data), command="make prove", path=path, data=data)
    path.write_text("")  # the markdown view is not read
    store = RowStore(tmp_path / "rows", carried=table_records(committed_table(path)))
    got = store.get(unit, ok, 0)
    assert got is not None and got["carried"] and got["mismatches"] == 0 and got["vectors"] == 1 << 32
    assert (got["seconds"], got["cpu"], got["date"]) == (71.5, 140.2, "2026-01-02 03:04")  # as recorded: JSON
    assert store.get(unit, slow, 0)["seconds"] == 1234.0 and store.get(unit, slow, 0)["resumed"]
    # A row with mismatches is proved again (to print its counterexamples); another seed is another key.
    assert store.get(unit, bad, 0) is None and store.get(unit, ok, 1) is None
    assert store.get(unit, Condition("ta", 1), 0) is None
    # Written again from the carried rows, the table is the same.
    again = [(u, c, store.get(u, c, 0)) for u, c, _ in rows]
    again[1] = rows[1]
    assert table_markdown(again) == table_markdown(rows)


@pytest.mark.slow
def test_prove_all_builds_harnesses_in_parallel(tmp_path, monkeypatch, capsys):
    """`prove all` builds the harnesses it needs as parallel tasks on its pool, with a progress line per
    harness (done/total, rate, ETA) off a terminal, before proving (a private cache: both built cold)."""
    from fpforge.cmd_prove import build_harnesses
    from fpforge.sim.harness import harness_cached
    from fpforge.sim.prove import executor

    monkeypatch.setenv("FPFORGE_CACHE", str(tmp_path))
    units = [ProofUnit.generated(dict(unit="encoder", format=f, rounding=("rne",))) for f in ("e2m1", "e3m2")]
    with executor(jobs=2) as pool:
        assert build_harnesses(units + units[:1], pool) == 2
        assert build_harnesses(units, pool) == 0
    assert all(harness_cached(u.harness_spec) for u in units)
    out, err = capsys.readouterr()
    assert "building 2 harnesses in parallel" in out
    assert re.search(r"^building: 2/2 harnesses \(fpforge_enc_fp32_e\dm\d\), \d+ s, [\d.]+ harnesses/min, ETA 0 s$",
                     err, re.M), err
