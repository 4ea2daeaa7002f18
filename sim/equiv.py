"""Formal equivalence of a combinational unit's RTL with another design: its mapped gate-level netlist
(``netlist=True``) or any Verilog module with the same ports (``against=FILE``: a user's edit, an older
version, a netlist of library cells).

How (docs/prove.md, "Equivalence"):

1. yosys reads the *gold* design (fpforge's generated Verilog of the unit) and the *gate* design, flattens
   both (``proc; flatten``) and maps them to and-inverter graphs (``techmap; aigmap``). A netlist's cells
   are read as Verilog models generated from their Liberty ``function`` (:func:`fpforge.synth.cells.cell_models`,
   the models ``fpforge prove --netlist`` simulates), never as ``read_liberty -lib`` blackboxes, so yosys sees
   what each cell computes. ``x`` constants (a full-case default, an out-of-range ``$shiftx``) are set to 0 in
   both designs (``setundef -zero``); ``miter -ignore_gold_x`` is not used, as it lets yosys fold a miter to
   a constant and "prove" a wrong design. No optimization pass runs before ABC.
2. ``miter -equiv -flatten`` builds the miter (output ``trigger``: 1 where any output differs), written as
   AIGER. Guard: a miter whose output is a constant, or with no AND gate, is not trusted (``unknown``).
3. ABC (``yosys-abc``, shipped in the pyosys wheel) proves it with the chosen engine: ``iprove`` (the miter),
   ``dprove`` (the miter, ABC's sequential prover: CEC for a combinational miter), ``cec`` (``&cec`` of
   the two AIGs, output by output) or ``staged``: the RTL equal to itself after ``synth``'s word-level passes
   (``&cec``), that equal to itself after ``alumacc`` (yosys ``equiv_simple``, word level), that equal to the
   gate design (``&cec``) — the step ABC cannot take alone (reassociated adder trees) proved at word level.
4. A counterexample (ABC's ``write_cex``; for ``cec``, ``iprove`` on the miter finds it) is replayed through
   both designs (yosys ``eval``) and the golden model; a counterexample on which the two designs agree is
   reported as an internal error, never as a result.

A stream unit (``latency`` >= 1) is proved against its combinational core followed by ``latency`` registers
by :mod:`fpforge.sim.equiv_stream` (yosys ``sat -tempinduct``).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from ..golden.errors import ToolError
from .equiv_core import (
    DEFAULT_TIMEOUT,
    ENGINES,
    SEQ_ENGINES,
    EquivResult,
    _against_files,
    _aiger_header,
    _build_miter,
    _check_args,
    _counterexample,
    _eval,
    _input_bits,
    _run_abc,
    _staged,
    _trusted,
    _verdict,
    abc_binary,
    equiv_spec,
)
from .equiv_stream import equiv_stream

#: The default engine of a dot unit, by measurement (docs/prove.md, the record's section): ``staged`` proves the
#: MX4/MX6/MX9 r = 16 netlists, where iprove, cec and dprove all ran out of 120 s (the adder trees ``alumacc`` reassociates
#: defeat ABC's SAT sweeping; the staged engine proves that step at word level).
DOT_ENGINE = "staged"

__all__ = ["ENGINES", "DEFAULT_TIMEOUT", "SEQ_ENGINES", "EquivResult", "abc_binary", "equiv", "equiv_spec"]


def equiv(cfg, *, netlist=False, liberty=None, against=None, top=None, engine=None,
          timeout=DEFAULT_TIMEOUT) -> EquivResult:
    """Prove a combinational unit ``cfg`` (a spec or ``build_unit`` keywords: a scalar or block encoder or
    decoder, a dot-product unit)
    equivalent to its mapped netlist (``netlist=True``, onto ``liberty``: a path or ``fpforge45``/``osu018``,
    default fpforge45) or to the Verilog module ``top`` of the file ``against`` (default: its only module
    that no other instantiates; a netlist of library cells with ``liberty``).

    A stream unit (``latency`` L >= 1 in ``cfg``; a dot unit's ``stages``) is proved equal to its combinational core followed by L
    registers (:mod:`fpforge.sim.equiv_stream`): fpforge's generated stream unit when neither ``netlist`` nor
    ``against`` is given, else the module of ``against`` (same ports); ``engine`` ``tempinduct`` (default).
    ``engine`` None is the first of ``ENGINES`` (combinational; :data:`DOT_ENGINE` for a dot unit) or of
    ``SEQ_ENGINES`` (stream).

    Returns
    -------
    EquivResult
        ``proved``, ``counterexample`` (inputs, golden/gold/gate outputs) or ``unknown`` (after
        ``timeout`` seconds of ABC, or a miter not trusted).

    Raises
    ------
    FpforgeValueError
        A bad argument, a unit equiv does not handle (:func:`equiv_spec`), a file with no
        module or several candidates, ports that differ (each named), cells the library does not define.
    ToolMissing, ToolError
        No yosys-abc, or yosys/ABC failing on fpforge's own designs.
    """
    from ..hw.generate import build_unit, default_name, to_verilog
    from .equiv_core import seq_latency
    from .equiv_golden import golden_outputs
    from .regress import ports_of

    t0 = time.perf_counter()
    spec = equiv_spec(cfg)
    if engine is None:
        engine = SEQ_ENGINES[0] if seq_latency(spec) else DOT_ENGINE if spec.unit == "dot" else ENGINES[0]
    _check_args(netlist, against, liberty, top, engine, timeout, seq_latency(spec))
    if seq_latency(spec):
        return equiv_stream(spec, against=against, top=top, liberty=liberty, engine=engine, timeout=timeout)
    unit = build_unit(spec)
    name = default_name(unit)
    gold_text = to_verilog(unit, name)
    expected = {n: ("in" if d == "in" else "out", w) for n, (d, w) in ports_of(unit).items()}
    abc_binary()
    with tempfile.TemporaryDirectory(prefix="fpforge-equiv-") as tmp:
        work = Path(tmp)
        (work / "gold.v").write_text(gold_text)
        if netlist:
            from ..synth import synthesize
            from ..synth.cells import cell_models

            report = synthesize(gold_text, name, liberty=liberty, netlist=True)
            (work / "gate.v").write_text(report["netlist_verilog"])
            (work / "cells.v").write_text(cell_models(liberty, report["cells"]))
            gate_files, gate_top = ["gate.v", "cells.v"], name
            gate_desc = f"netlist ({Path(report['liberty']).name}, {report['cell_count']} cells)"
        else:
            gate_files, gate_top, gate_desc = _against_files(work, against, top, liberty, expected)
        gold_desc = f"generated {name}"
        bits_map = _build_miter(work, name, gate_top, gate_files, f"building the miter of {name}",
                                bad_input=not netlist)
        (work / "prep_eval.ys").write_text(
            f"read_verilog -sv gold.v\nhierarchy -top {name}\nproc; flatten; setundef -zero\ndesign -stash gold_eval\n"
            f"read_verilog -sv -noblackbox {' '.join(gate_files)}\nhierarchy -top {gate_top}\nproc; flatten; setundef -zero\n"
            "design -stash gate_eval\n")
        n_in, ands, outs = _aiger_header(work / "miter.aig")
        bits = _input_bits(bits_map)
        base = dict(engine=engine, gold=gold_desc, gate=gate_desc, miter_ands=ands, miter_inputs=n_in,
                    ports=expected)
        want_bits = sum(w for d, w in expected.values() if d == "in")
        reason = _trusted(n_in, ands, outs, want_bits)
        if reason is not None:
            return EquivResult("unknown", reason=reason, seconds=time.perf_counter() - t0, **base)
        if engine == "staged":
            verdict, why = _staged(work, name, timeout)
            if verdict is None:
                return EquivResult("unknown", reason=why, seconds=time.perf_counter() - t0, **base)
        else:
            commands = "&r gold.aig; &cec gate.aig" if engine == "cec" else \
                f"read_aiger miter.aig; {engine}; write_cex -n cex.txt"
            out = _run_abc(work, commands, timeout)
            if out is None:
                return EquivResult("unknown", reason=f"ABC ({engine}) did not decide within {timeout:g} s",
                                   seconds=time.perf_counter() - t0, **base)
            verdict = _verdict(engine, out)
        if verdict is None:
            last = [ln for ln in out.splitlines() if ln.strip()]
            return EquivResult("unknown", reason=f"ABC ({engine}) did not decide: {last[-1] if last else ''}",
                               seconds=time.perf_counter() - t0, **base)
        if verdict == "proved":
            return EquivResult("proved", seconds=time.perf_counter() - t0, **base)
        if engine in ("cec", "staged"):  # &cec keeps no counterexample: iprove on the miter finds one
            left = max(1.0, timeout - (time.perf_counter() - t0))
            out = _run_abc(work, "read_aiger miter.aig; iprove; write_cex -n cex.txt", left)
            if out is None or _verdict("iprove", out) != "counterexample":
                raise ToolError(f"internal error: {engine} found {name} and {gate_desc} different, iprove on their "
                                "miter did not find a counterexample")
        inputs = _counterexample(work / "cex.txt", bits, expected)
        outputs = [n for n, (d, _) in expected.items() if d == "out"]
        gold_out, gate_out = _eval(work, inputs, outputs, {n: w for n, (_, w) in expected.items()})
        if gold_out == gate_out:
            raise ToolError(f"internal error: ABC's counterexample {inputs} gives the same outputs in both designs")
        return EquivResult("counterexample", inputs=inputs, golden=golden_outputs(spec, expected, inputs),
                           gold_outputs=gold_out, gate_outputs=gate_out, seconds=time.perf_counter() - t0, **base)

