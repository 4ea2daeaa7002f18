"""Sequential equivalence of a pipelined stream unit (``latency`` L >= 1) with its combinational core followed
by L registers (``fpforge equiv UNIT ... --latency L``; docs/prove.md, "Equivalence").

How:

1. The *gold* design is a reference written here in Verilog: fpforge's combinational unit (latency 0, the
   design ``fpforge prove`` and ``fpforge equiv`` check) followed by L payload registers and a valid shift
   register, with the stream unit's ports and handshake (``i_ready = ~o_valid | o_ready``; all stages
   advance together; a synchronous ``rst`` clears every stage). The *gate* design is fpforge's generated
   stream unit, or the module of a user's file (``against``) with the same ports.
2. Each design is wrapped with ``o_ready`` tied to 1 (every cycle moves data; ``i_valid`` stays a free
   input, so bubbles are covered) and ``o_payload`` masked by ``o_valid`` (a payload is compared on the
   cycles it is valid). ``clk``, ``rst``, ``i_valid`` and ``i_payload`` are free inputs every cycle; both
   designs start from their zero (reset) state.
3. yosys ``miter -equiv -flatten`` of the two wrapped designs (no ``-ignore_gold_x``, no optimization; ``x``
   constants set to 0 in both). Guard: the miter is also written as AIGER; a constant output, no AND gate
   or a missing input bit is ``unknown`` ("not trusted"), never ``proved``.
4. ``sat -tempinduct -prove trigger 0 -set-init-zero`` (SAT-based k-induction; at most ``4 L + 8`` steps):
   ``proved``, a counterexample (the per-cycle input sequence and both designs' outputs, from yosys' SAT
   model), or ``unknown`` after the timeout or the step bound. Engine ``dprove``: ABC's ``dprove`` on the
   AIGER miter (zero initial state) instead; its signal correspondence (``scorr``) merges the two designs'
   identical cores and registers, which SAT induction does not exploit. Where it finds a difference, the
   ``sat`` run above gives the per-cycle counterexample.
"""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path

from ..golden.errors import ToolError
from .equiv_core import SEQ_ENGINES

__all__ = ["SEQ_ENGINES", "equiv_stream", "stream_ports"]

def _layouts(spec):
    """``(core, input fields, output fields)``; fields are ``[(name, offset, width)]`` of the stream payloads,
    read from the core's signature (the stream unit is built only when it is converted)."""
    from ..hw.generate import build_unit
    from ..hw.pipeline import payload_layouts
    from .equiv_core import comb_spec
    from .ports import payload_fields

    core = build_unit(comb_spec(spec))
    ins, outs = payload_layouts(core.signature.members)
    return core, payload_fields(ins), payload_fields(outs)


def stream_ports(ins, outs) -> dict:
    """``{port: (direction, width)}`` of a stream unit with payload fields ``ins``/``outs``."""
    iw = sum(w for _, _, w in ins)
    ow = sum(w for _, _, w in outs)
    return {"clk": ("in", 1), "rst": ("in", 1), "i__valid": ("in", 1), "i__ready": ("out", 1),
            "i__payload": ("in", iw), "o__valid": ("out", 1), "o__ready": ("in", 1), "o__payload": ("out", ow)}


def _vec(w):
    return f"[{w - 1}:0] " if w > 1 else ""


def reference_verilog(core_name, ins, outs, latency, name="fpforge_equiv_ref") -> str:
    """Verilog of the reference: the combinational module ``core_name`` followed by ``latency`` registers,
    with a stream unit's ports and handshake."""
    iw = sum(w for _, _, w in ins)
    ow = sum(w for _, _, w in outs)
    conns = [f".{n}(i__payload[{o + w - 1}:{o}])" for n, o, w in ins]
    conns += [f".{n}(res[{o + w - 1}:{o}])" for n, o, w in outs]
    lines = [
        f"// reference: {core_name} followed by {latency} register stage(s) (fpforge equiv --latency)",
        f"module {name}(clk, rst, i__valid, i__payload, i__ready, o__valid, o__payload, o__ready);",
        "  input clk, rst, i__valid, o__ready;",
        f"  input {_vec(iw)}i__payload;",
        "  output i__ready, o__valid;",
        f"  output {_vec(ow)}o__payload;",
        f"  wire {_vec(ow)}res;",
        f"  {core_name} core({', '.join(conns)});",
    ]
    for k in range(latency):
        lines.append(f"  reg v{k} = 1'b0;")
        lines.append(f"  reg {_vec(ow)}p{k} = {ow}'d0;")
    last = latency - 1
    lines += [f"  wire advance = ~v{last} | o__ready;", "  assign i__ready = advance;",
              "  always @(posedge clk) begin",
              "    if (rst) begin",
              *[f"      v{k} <= 1'b0; p{k} <= {ow}'d0;" for k in range(latency)],
              "    end else if (advance) begin",
              "      v0 <= i__valid; p0 <= res;",
              *[f"      v{k} <= v{k - 1}; p{k} <= p{k - 1};" for k in range(1, latency)],
              "    end",
              "  end",
              f"  assign o__valid = v{last};",
              f"  assign o__payload = p{last};",
              "endmodule", ""]
    return "\n".join(lines)


def _side(name, top, iw, ow) -> str:
    """A wrapper of module ``top``: ``o_ready`` tied to 1, ``o_payload`` masked by ``o_valid``."""
    return (f"module {name}(clk, rst, i__valid, i__payload, i__ready, o__valid, o__payload);\n"
            f"  input clk, rst, i__valid;\n  input {_vec(iw)}i__payload;\n  output i__ready, o__valid;\n"
            f"  output {_vec(ow)}o__payload;\n  wire {_vec(ow)}p;\n"
            f"  {top} u(.clk(clk), .rst(rst), .i__valid(i__valid), .i__payload(i__payload), .i__ready(i__ready), "
            f".o__valid(o__valid), .o__payload(p), .o__ready(1'b1));\n"
            f"  assign o__payload = p & {{{ow}{{o__valid}}}};\nendmodule\n")


_PREP = "proc; flatten; delete t:$scopeinfo; memory; async2sync; dffunmap; setundef -zero; opt_clean\n"
_AIG = "techmap; setundef -zero; opt_clean; aigmap\n"


def _aig_script(gold_files, gate_files) -> str:
    """Both sides mapped to sequential AIGs (``gold.aig``, ``gate.aig``, registers initialized to zero) with
    their port maps, for ABC to build the miter (:func:`fpforge.sim.equiv_core.abc_miter`)."""
    return (f"read_verilog -sv {' '.join(gold_files)}\nhierarchy -top gold_side\nrename gold_side gold\n{_PREP}"
            f"{_AIG}write_aiger -zinit -map gold.map gold.aig\ndesign -reset\n"
            f"read_verilog -sv -noblackbox {' '.join(gate_files)}\nhierarchy -top gate_side\nrename gate_side gate\n"
            f"{_PREP}{_AIG}write_aiger -zinit -map gate.map gate.aig\n")


def _script(gold_files, gate_files, steps) -> str:
    return (f"read_verilog -sv {' '.join(gold_files)}\nhierarchy -top gold_side\nrename gold_side gold\n{_PREP}"
            "design -stash gold\n"
            f"read_verilog -sv -noblackbox {' '.join(gate_files)}\nhierarchy -top gate_side\nrename gate_side gate\n"
            f"{_PREP}design -stash gate\n"
            "design -copy-from gold -as gold gold\ndesign -copy-from gate -as gate gate\n"
            "miter -equiv -flatten gold gate miter\nhierarchy -top miter\ndesign -save m\n"
            "techmap; setundef -zero; opt_clean; aigmap\nwrite_aiger -zinit -map miter.map miter.aig\n"
            "design -load m\ndesign -copy-from gold -as gold gold\ndesign -copy-from gate -as gate gate\n"
            "miter -equiv -flatten -make_outputs gold gate miter_x\nhierarchy -top miter_x\n"
            "tee -o sat.log sat -tempinduct -prove trigger 0 -set-init-zero "
            f"-maxsteps {steps} -show-inputs -show-outputs miter_x\n")


_ROW = re.compile(r"^\s+(\d+)\s+\\(\S+)\s+.*?\s([01xz]+)\s*$", re.M)


def _trace(text):
    """``{step: {signal: value}}`` of the last model table of yosys ``sat``'s log."""
    table = text.rsplit("Time Signal Name", 1)[-1]
    steps = {}
    for step, sig, bits in _ROW.findall(table):
        steps.setdefault(int(step), {})[sig] = int(bits.replace("x", "0").replace("z", "0"), 2)
    return steps


def _split(value, fields):
    return {n: (value >> o) & ((1 << w) - 1) for n, o, w in fields}


def equiv_stream(spec, *, against=None, top=None, liberty=None, engine=SEQ_ENGINES[0], timeout=120.0):
    """Prove the stream unit ``spec`` (latency >= 1; fpforge's generated one, or the module ``top`` of the
    file ``against`` with its ports) equal to its combinational core followed by ``spec.latency`` registers.
    Arguments are checked by :func:`fpforge.sim.equiv.equiv`, which calls this.

    Returns
    -------
    EquivResult
        ``proved``; ``counterexample`` with ``cycles`` (per cycle: ``rst``, ``i_valid``, the input fields,
        and both designs' ``o_valid`` and output fields) and ``gold_outputs``/``gate_outputs`` of the first
        differing cycle, ``inputs`` of that cycle and ``golden`` (the golden model's outputs for the input
        ``latency`` cycles earlier, when the gold output is valid and no reset came between); or ``unknown``.
    """
    from ..hw.generate import build_unit, default_name, to_verilog
    from ..synth.errors import SynthError
    from ..synth.yosys import run_script
    from .equiv_core import EquivResult, _against_files, _aiger_header, _run_abc, _trusted, _yosys, abc_miter

    t0 = time.perf_counter()
    from .equiv_core import seq_latency

    latency = seq_latency(spec)
    core, ins, outs = _layouts(spec)
    core_name = default_name(core)
    # (default_name of the stream unit, which is built only when it is converted)
    stream_name = f"{core_name}_s{spec.stages}" if spec.unit == "dot" else f"{core_name}_l{latency}"
    expected = stream_ports(ins, outs)
    iw, ow = expected["i__payload"][1], expected["o__payload"][1]
    with tempfile.TemporaryDirectory(prefix="fpforge-equiv-") as tmp:
        work = Path(tmp)
        (work / "core.v").write_text(to_verilog(core, core_name))
        (work / "ref.v").write_text(reference_verilog(core_name, ins, outs, latency)
                                    + _side("gold_side", "fpforge_equiv_ref", iw, ow))
        if against is None:
            (work / "gate.v").write_text(to_verilog(build_unit(spec), stream_name))
            gate_files, gate_top, gate_desc = ["gate.v"], stream_name, f"generated {stream_name}"
        else:
            gate_files, gate_top, gate_desc = _against_files(work, against, top, liberty, expected,
                                                             sequential=latency)
        (work / "side.v").write_text(_side("gate_side", gate_top, iw, ow))
        gate_files.append("side.v")
        gold_desc = f"{core_name} + {latency} register stage{'s' * (latency != 1)}"
        steps = 4 * latency + 8
        full = _script(["core.v", "ref.v"], gate_files, steps)
        abc_out = None
        # dprove: both AIGs, their miter built by ABC (or, if their ports are not in the same order, yosys's
        # AIGER miter), then ABC; the full script only to trace a difference it finds
        script = _aig_script(["core.v", "ref.v"], gate_files) if engine == "dprove" else full
        (work / "run.ys").write_text(script)
        try:
            proc, log = run_script(work, "run.ys", timeout, f" proving {stream_name}")
        except SynthError as e:
            if "timed out" not in str(e):
                raise ToolError(str(e)) from None
            proc, log = None, ""
        if engine == "dprove" and proc is not None and proc.returncode == 0 and not abc_miter(work, stream_name):
            script = full.split("design -load m\n", 1)[0]  # yosys's miter, ports paired by name
            (work / "run.ys").write_text(script)
            left = max(1.0, timeout - (time.perf_counter() - t0))
            try:
                proc, log = run_script(work, "run.ys", left, f" proving {stream_name}")
            except SynthError as e:
                if "timed out" not in str(e):
                    raise ToolError(str(e)) from None
                proc, log = None, ""
        if engine == "dprove" and proc is not None and proc.returncode == 0:
            left = timeout - (time.perf_counter() - t0)
            abc_out = _run_abc(work, "read_aiger miter.aig; dprove", left) if left > 0 else None
        n_in = ands = 0
        base = dict(engine=engine, gold=gold_desc, gate=gate_desc, ports=expected)
        if (work / "miter.aig").is_file():
            n_in, ands, outs_lits = _aiger_header(work / "miter.aig")
            base.update(miter_ands=ands, miter_inputs=n_in)
            reason = _trusted(n_in, ands, outs_lits, 3 + iw)
            if reason is not None:
                return EquivResult("unknown", reason=reason, seconds=time.perf_counter() - t0, **base)
        by = "ABC dprove" if engine == "dprove" else "yosys sat -tempinduct"
        if proc is None:
            return EquivResult("unknown", reason=f"{by} did not decide within {timeout:g} s",
                               seconds=time.perf_counter() - t0, **base)
        if proc.returncode != 0:
            if not (work / "miter.aig").is_file() and against is not None:  # the user's design did not build
                _yosys(work, script.split("tee -o", 1)[0], Path(against).name, bad_input=True)
            _yosys(work, script, f"proving {stream_name}")  # raises the one-line error
        if engine == "dprove":
            if abc_out is None:
                return EquivResult("unknown", reason=f"{by} did not decide within {timeout:g} s",
                                   seconds=time.perf_counter() - t0, **base)
            if "Networks are equivalent" in abc_out:
                return EquivResult("proved", seconds=time.perf_counter() - t0, **base)
            if "NOT EQUIVALENT" not in abc_out.upper() and not re.search(r"^SATISFIABLE|asserted", abc_out, re.M):
                last = [ln for ln in abc_out.splitlines() if ln.strip()]
                return EquivResult("unknown", reason=f"{by} did not decide: {last[-1] if last else ''}",
                                   seconds=time.perf_counter() - t0, **base)
            # a difference: yosys sat's bounded model check gives the per-cycle trace to replay
            script = full
            (work / "run.ys").write_text(script)
            left = max(1.0, timeout - (time.perf_counter() - t0))
            try:
                proc, log = run_script(work, "run.ys", left, f" replaying ABC's counterexample of {stream_name}")
            except SynthError as e:
                raise ToolError(f"internal error: ABC dprove found the designs different; {e}") from None
        sat = (work / "sat.log").read_text(errors="replace") if (work / "sat.log").is_file() else log
        if "Induction step proven: SUCCESS!" in sat:
            return EquivResult("proved", seconds=time.perf_counter() - t0, **base)
        if engine == "dprove" and "model found for base case: FAIL!" not in sat:
            raise ToolError(f"internal error: ABC dprove found the designs different, yosys sat found no "
                            f"counterexample within {steps} cycles")
        if "model found for base case: FAIL!" not in sat:
            return EquivResult("unknown", reason=f"sat -tempinduct proved no induction step within {steps} steps",
                               seconds=time.perf_counter() - t0, **base)
        trace = _trace(sat)
        cycles = []
        first = None
        for step in sorted(trace):
            row = trace[step]
            cyc = {"cycle": step, "rst": row.get("in_rst", 0), "i_valid": row.get("in_i__valid", 0),
                   "inputs": _split(row.get("in_i__payload", 0), ins)}
            for side in ("gold", "gate"):
                cyc[side] = {"o_valid": row.get(f"{side}_o__valid", 0), "i_ready": row.get(f"{side}_i__ready", 0),
                             **_split(row.get(f"{side}_o__payload", 0), outs)}
            cycles.append(cyc)
            if first is None and cyc["gold"] != cyc["gate"]:
                first = cyc
        if first is None:
            raise ToolError("internal error: yosys sat found a counterexample on which both designs agree")
        golden = {}
        k = first["cycle"] - latency
        if first["gold"]["o_valid"] and k in trace and not any(c["rst"] for c in cycles[k - 1:first["cycle"] - 1]):
            from .equiv_core import comb_spec
            from .equiv_golden import golden_outputs

            golden = golden_outputs(comb_spec(spec), {}, cycles[k - 1]["inputs"])
        return EquivResult("counterexample", inputs=first["inputs"], golden=golden, gold_outputs=first["gold"],
                           gate_outputs=first["gate"], cycles=cycles, seconds=time.perf_counter() - t0, **base)
