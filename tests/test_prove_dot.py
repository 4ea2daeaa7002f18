"""`fpforge prove dot`: exhaustive dot-unit proofs on the C++ harness, and proof that they can fail.

- OCP FP4 (E2M1) at r = 2: all 2^16 operand patterns proved; the harness' own y on every pattern against an
  independent oracle (decoded element values, exact products and sum in Fractions, rounded once to FP32);
- the golden dot product the prover compares with, against the same oracle on E4M3 r = 2 samples;
- a mutant (the unit with one output bit flipped on one operand pattern) proved through `--verilog`: exit 1
  and the pattern printed as codes and values, the expected value being the exact dot product;
- run-time ports as conditions (fp8 selects, CFloat8 bias pairs), resumption, a BDR block unit.
The r = 2 FP8 proofs (2^32 patterns) run in `make prove`; `make bench` measures their rate.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from fpforge.cli import main
from fpforge.golden import decode
from fpforge.golden.dot import dot
from fpforge.hw.generate import build_unit, to_verilog
from fpforge.hw.spec import as_spec
from fpforge.jobs import Store
from fpforge.sim.harness import HarnessRun, build_harness
from fpforge.sim.prove_dot import DotCondition, DotProofUnit, dot_conditions, dot_golden, prove_dot

pytestmark = pytest.mark.sim

FP4 = dict(unit="dot", format="e2m1", r=2, f=16)  # f_exact of E2M1 r = 2 is 9: the window drops nothing


@pytest.fixture(scope="module")
def fp4_unit():
    return DotProofUnit.generated(FP4)


def _exact_fp32(fmt, a_codes, b_codes, bias=None):
    """FP32 bits of sum(a_i * b_i), from decoded element values in exact Fractions, rounded once (the sums
    of these tests fit a float64 exactly, so float() is exact and the float32 cast the one rounding)."""
    kw = {} if bias is None else {"bias": bias}
    va, vb = decode(fmt, np.asarray(a_codes), **kw), decode(fmt, np.asarray(b_codes), **kw)
    total = sum((Fraction(float(x)) * Fraction(float(y)) for x, y in zip(va, vb)), Fraction(0))
    return int(np.array([float(total)], np.float32).view(np.uint32)[0]) if total else 0  # 0: +0 (the unit's)


def test_fp4_r2_every_pattern_proved(fp4_unit):
    assert fp4_unit.domain == 1 << 16
    (res,) = prove_dot(fp4_unit, jobs=1, store=False, progress=False)
    assert res.passed and res.vectors == 1 << 16 and res.mismatches == 0, res.first


def test_fp4_r2_harness_against_exact_oracle(fp4_unit):
    """The Verilated unit's y on all 2^16 patterns equals the exact dot product (no golden model involved)."""
    spec = fp4_unit.harness_spec
    with HarnessRun(build_harness(spec), spec, [(0, 1 << 16, 0, ())]) as run:
        y = run.read(1 << 16).astype(np.uint32)
    p = np.arange(1 << 16)
    codes = [(p >> s) & 0xF for s in (0, 4, 8, 12)]  # a0, a1, b0, b1
    oracle = np.array([_exact_fp32("e2m1", (a0, a1), (b0, b1)) for a0, a1, b0, b1 in zip(*codes)], np.uint32)
    assert np.array_equal(y, oracle), np.flatnonzero(y != oracle)[:5]


def test_golden_dot_against_exact_oracle_e4m3_sample():
    cfg = dict(unit="dot", format="e4m3", format_b="e4m3", r=2, f=37)  # f = f_exact
    rng = np.random.default_rng(29)
    p = rng.integers(0, 1 << 32, 3000, dtype=np.uint64)
    codes = [(p >> np.uint64(s)) & np.uint64(0xFF) for s in (0, 8, 16, 24)]
    keep = ~np.any([(c & np.uint64(0x7F)) == 0x7F for c in codes], axis=0)  # no NaN operand
    p = p[keep]
    y = dot_golden(cfg, p, 16, DotCondition())["y"]
    a0, a1, b0, b1 = (c[keep] for c in codes)
    oracle = [_exact_fp32("e4m3", (int(w), int(x)), (int(v), int(z))) for w, x, v, z in zip(a0, a1, b0, b1)]
    assert y.tolist() == oracle


MUTANT_PATTERN = 0x1432  # A = [0x2 (1.0), 0x3 (1.5)], B = [0x4 (2.0), 0x1 (0.5)]: 2.75


def _mutant(path, top):
    """The generated unit renamed, inside a module of the unit's name and ports that flips bit 0 of y on one
    operand pattern."""
    text = to_verilog(build_unit(as_spec(FP4)), top + "_orig")
    text += (f"\nmodule {top} (input [7:0] a, input [7:0] b, output [31:0] y);\n"
             f"  wire [31:0] t;\n  {top}_orig u (.a(a), .b(b), .y(t));\n"
             f"  assign y = t ^ {{31'b0, a == 8'h{MUTANT_PATTERN & 0xFF:02x} && b == 8'h{MUTANT_PATTERN >> 8:02x}}};\n"
             "endmodule\n")
    path.write_text(text)
    return path


def test_mutant_caught_with_the_pattern_as_values(tmp_path, capsys, fp4_unit):
    path = _mutant(tmp_path / "mutant.v", fp4_unit.top)
    rc = main(["prove", "dot", "--preset", "e2m1", "--r", "2", "--f", "16", "--verilog", str(path), "--jobs", "1"])
    out = capsys.readouterr().out
    assert rc == 1, out
    assert "1 mismatches" in out and "FAILED: 1 mismatches" in out
    expected = _exact_fp32("e2m1", (0x2, 0x3), (0x4, 0x1))
    assert expected == 0x40300000  # 1 * 2 + 1.5 * 0.5 = 2.75
    golden = dot("e2m1", np.array([[0x2, 0x3]]), b=np.array([[0x4, 0x1]]), f=16).y[0]
    assert int(golden) == expected
    line = next(ln for ln in out.splitlines() if "pattern 0x" in ln)
    assert line.split() == ["pattern", "0x1432:", "A=[0x2", "(1),", "0x3", "(1.5)]", "B=[0x4", "(2),", "0x1",
                            "(0.5)]:", "expected", "y=0x40300000", "(2.75),", "got", "y=0x40300001",
                            "(2.75000024)"]


def test_mutant_caught_by_the_api(tmp_path, fp4_unit):
    unit = DotProofUnit.from_file(FP4, _mutant(tmp_path / "m.v", fp4_unit.top))
    (res,) = prove_dot(unit, jobs=1, store=False, progress=False)
    assert res.mismatches == 1 and not res.passed
    assert res.first == [{"pattern": MUTANT_PATTERN, "expected": {"y": 0x40300000}, "actual": {"y": 0x40300001}}]


def test_cli_proves_fp4_and_estimates(capsys):
    assert main(["prove", "dot", "--preset", "e2m1", "--r", "2", "--f", "16", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "PROVED: 65,536 vectors" in out
    assert main(["prove", "dot", "--preset", "e2m1", "--r", "2", "--f", "16", "--estimate", "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "ns CPU per pattern" in out and "projected:" in out and "on 2 idle cores" in out


def test_conditions_are_the_runtime_ports():
    from fpforge.sim.prove_dot import _dot_spec

    fp8 = _dot_spec(dict(unit="dot", format="fp8", r=2, f=24))
    assert dot_conditions(fp8) == [DotCondition(s, t) for s in (0, 1) for t in (0, 1)]
    cf = _dot_spec(dict(unit="dot", format="cfloat8_143", r=2, f=24))
    assert dot_conditions(cf, [7, 63]) == [DotCondition(None, None, a, b) for a in (7, 63) for b in (7, 63)]
    assert len(dot_conditions(cf)) == 9  # DOT_BIASES (0, 7, 63) on each side


def test_runtime_ports_driven_per_condition():
    """fp8 selects and CFloat8 biases reach the unit: a slice of each condition proved (the golden model reads
    the same select/bias), and the conditions give different results on the same patterns."""
    for cfg, conds in ((dict(unit="dot", format="fp8", r=2, f=24), None),
                       (dict(unit="dot", format="cfloat8_143", r=2, f=24), [(None, None, 7, 63), (None, None, 0, 0)])):
        unit = DotProofUnit.generated(cfg)
        res = prove_dot(unit, conds, start=0x3C3C0000, end=0x3C3C0000 + 4096, jobs=1, store=False, progress=False)
        assert all(r.passed for r in res), [r.first for r in res]
    p = np.array([0x38383838], np.uint64)
    ys = {dot_golden(unit.golden_cfg, p, 16, DotCondition(None, None, a, b))["y"][0] for a, b in ((7, 63), (0, 0))}
    assert len(ys) == 2


def test_resumes_from_finished_chunks(tmp_path, fp4_unit):
    store = Store(tmp_path / "chunks")
    (first,) = prove_dot(fp4_unit, chunk=1 << 14, jobs=1, store=store, progress=False)
    (again,) = prove_dot(fp4_unit, chunk=1 << 14, jobs=1, store=store, progress=False)
    assert first.chunks == again.chunks == 4 and first.resumed == 0 and again.resumed == 4
    assert again.passed


def test_bdr_block_unit_every_pattern():
    """The smallest BDR units: the shared scale is operand bits (2^20 patterns: 2 x (4-bit scale + 2 x 3-bit
    elements))."""
    unit = DotProofUnit.generated(dict(unit="dot", format="bdr_m2_k2_d4_k2_d0", r=2, f=16))
    assert unit.pattern_bits == 20
    (res,) = prove_dot(unit, jobs=1, store=False, progress=False)
    assert res.passed, res.first


def test_committed_dot_table_is_its_data_and_lists_the_record():
    """docs/results.md's dot-proofs section is rendered from docs/results/dot-proofs.json, and its rows are the
    record's units under their conditions."""
    from fpforge.jobs.results import read_data
    from fpforge.sim.prove_table import dot_proofs_markdown, dot_record_configs

    doc = read_data("dot-proofs")
    assert doc["markdown"].endswith(dot_proofs_markdown(doc["data"]).split("\n", 1)[1])
    rows = doc["data"]["rows"]
    want = []
    for cfg in dot_record_configs():
        from fpforge.sim.prove_dot import _dot_spec

        want += [(cfg["format"], c.label()) for c in dot_conditions(_dot_spec(cfg))]
    assert [(r["format"], r["condition"]) for r in rows] == want
    assert all(r["record"]["mismatches"] == 0 for r in rows if r["record"] is not None)


def test_record_proves_the_selected_rows_and_writes_the_table(tmp_path, monkeypatch, capsys):
    """`prove dot --record --only X` proves X's rows (or finds them recorded) and writes the dot-proofs section
    with every row of the record, X's proved, the others as recorded or not run."""
    import fpforge.jobs.results
    from fpforge.jobs.results import read_data

    doc = tmp_path / "results.md"
    monkeypatch.setattr(fpforge.jobs.results, "RESULTS_PATH", doc)
    assert main(["prove", "dot", "--record", "--only", "bdr_m2_k2_d4_k2_d0", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "dot rows run, 0 with mismatches; table written to" in out
    data = read_data("dot-proofs", doc)["data"]
    (row,) = [r for r in data["rows"] if r["format"] == "bdr_m2_k2_d4_k2_d0"]
    assert row["record"]["vectors"] == row["patterns"] == 1 << 20 and row["record"]["mismatches"] == 0
    assert len(row["key"]) == 16
    text = doc.read_text()
    assert "<!-- results:dot-proofs -->" in text and "| fpforge_dot_bdr_m2_k2_d4_k2_d0_r2_f32 |" in text


@pytest.mark.parametrize("fmt,r,bits", [("e2m1", 4, 4), ("e2m1", 2, 4), ("e4m3", 2, 8), ("e3m2", 2, 6)])
def test_operand_codes_are_the_public_unpacking(fmt, r, bits):
    """The prover's operand codes (byte and nibble views of the pattern numbers for 8- and 4-bit codes) are
    what fpforge.golden.dot.from_operand_words unpacks from the A and B port values."""
    from fpforge.golden.dot import from_operand_words
    from fpforge.sim.prove_dot import _operands

    p = np.random.default_rng(bits * r).integers(0, 1 << (2 * bits * r), 2000, dtype=np.uint64)
    a, b = _operands(dict(format=fmt, format_b=fmt, r=r), p, bits * r)
    ref_a = from_operand_words(fmt, (p & np.uint64((1 << bits * r) - 1))[:, None], r)
    ref_b = from_operand_words(fmt, (p >> np.uint64(bits * r))[:, None], r)
    assert np.array_equal(np.asarray(a, np.int64), np.asarray(ref_a, np.int64))
    assert np.array_equal(np.asarray(b, np.int64), np.asarray(ref_b, np.int64))


def test_user_file_with_other_ports_is_refused_naming_them(tmp_path, fp4_unit):
    path = tmp_path / "w.v"
    path.write_text(f"module {fp4_unit.top} (input [7:0] a, input [3:0] b, output [31:0] y, output z);\n"
                    "  assign y = 0; assign z = 0;\nendmodule\n")
    with pytest.raises(ValueError) as e:
        DotProofUnit.from_file(FP4, path)
    assert "b is an input of 4 bits, expected an input of 8" in str(e.value)
    assert "unexpected port z (output, 1 bit)" in str(e.value)
