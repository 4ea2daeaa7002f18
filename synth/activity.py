"""Switching activity from a gate-level simulation of a workload (``activity="workload"``, docs/ppa.md).

The mapped netlist (``write_verilog -noattr -simple-lhs``, what OpenSTA reads) is simulated cycle by cycle
with zero delay: one stimulus vector per clock cycle, every cell computing the Boolean ``function`` its
liberty gives it, every flip-flop (an ``ff`` group) giving out at cycle t the ``next_state`` it saw at
cycle t-1 (0 at the first cycle; ``clear``/``preset`` force it at once). The simulator is bit-parallel over
time: a net's whole waveform is one Python integer (bit t = the value at cycle t), so one cell costs one
big-integer expression for all the cycles together — about 1 µs per cell and 4096 cycles, far less than a
Verilator build of the netlist (10-60 s). Toggles of a net are the set bits of ``v ^ (v >> 1)`` over the
first n-1 cycles; its activity is toggles / (n - 1) transitions per clock period and its duty the fraction
of cycles at 1. Glitches are not counted (zero delay), wires carry no parasitics.

Workloads (:func:`workload_stimulus`, the unit's own data, not random bit patterns):

* dot products: the sweep's Gaussian vectors (``golden.qsnr.gaussian_vectors``, seeds 1 and 2 for A and
  B), quantized by the unit's operand formats (``golden.dot.quantized_operands``: block formats with their
  encoder, scalar formats with a per-vector amax scale, saturating RNE); ``fp8`` selects 0 (E4M3),
  run-time biases 0;
* encoders: FP32 values of the QSNR distribution (256-element Gaussian vectors, each scaled by its amax
  scale as the QSNR measurement scales it), in the unit's source format; the unit's first rounding mode,
  ``sat`` 0, the golden generator's draws on ``rand``, a run-time ``bias`` 0 (values and codes at that bias);
* decoders: the codes those values encode to (saturating, the format's first rounding mode).

Pipelined (stream) units, units with an epilogue (``scale``/``amax``), block units and the scaled encoder
have no workload here: :func:`check_workload` says so in one line.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ..golden.errors import FpforgeTypeError, FpforgeValueError

__all__ = ["DEFAULT_CYCLES", "check_workload", "has_workload", "instance_activities", "net_activity", "parse_netlist",
           "workload_stimulus"]

#: Stimulus vectors (clock cycles) of a workload: enough for activities to ~1 % on the busy nets.
DEFAULT_CYCLES = 4096

_ID = r"(?:\\\S+|[A-Za-z_][\w$]*)"
_DECL = re.compile(rf"^\s*(input|output|inout|wire)\s+(?:signed\s+)?(?:\[(\d+):(\d+)\]\s*)?({_ID})\s*;", re.M)
_INST = re.compile(rf"^\s*({_ID})\s+({_ID})\s*\((.*?)\);", re.M | re.S)
_CONN = re.compile(rf"\.({_ID})\s*\(\s*(.*?)\s*\)\s*(?:,|$)", re.S)
_ASSIGN = re.compile(r"^\s*assign\s+(.*?)\s*=\s*(.*?)\s*;", re.M | re.S)
_CONST = re.compile(r"^(\d+)'([bhd])([0-9a-fA-FxXzZ_]+)$")


def _strip_escape(name: str) -> str:
    return name[1:] if name.startswith("\\") else name


class Netlist:
    """A flat gate-level netlist: ``ports`` ({name: (direction, width, ranged)}), ``wires`` ({name: (width,
    ranged)}), ``instances`` ([(cell type, instance name, {pin: bit})]) and ``assigns`` ([(bit, bit)]); a bit
    is ``"name"`` or ``"name[i]"``, or the constants ``"1'b0"``/``"1'b1"``."""

    def __init__(self, top, ports, wires, instances, assigns):
        self.top, self.ports, self.wires, self.instances, self.assigns = top, ports, wires, instances, assigns

    def bits(self, name):
        width, ranged = self.wires.get(name, (1, False))
        return [f"{name}[{i}]" for i in range(width)] if ranged else [name]


def parse_netlist(text: str, top: str) -> Netlist:
    """Read module ``top`` of a yosys ``write_verilog -noattr -simple-lhs`` netlist."""
    m = re.search(rf"^module\s+{re.escape(top)}\s*\(.*?\);(.*?)^endmodule", text, re.M | re.S)
    if m is None:
        raise FpforgeValueError(f"the netlist has no module {top!r}")
    body = re.sub(r"/\*.*?\*/|//[^\n]*", "", m.group(1), flags=re.S)
    ports, wires = {}, {}
    for kind, msb, lsb, name in _DECL.findall(body):
        name = _strip_escape(name)
        width = abs(int(msb) - int(lsb)) + 1 if msb else 1
        if msb and int(lsb) != 0:
            raise FpforgeValueError(f"net {name} of {top} is declared [{msb}:{lsb}]; the simulator reads [N:0]")
        wires[name] = (width, bool(msb))
        if kind != "wire":
            ports[name] = (kind, width, bool(msb))
    net = Netlist(top, ports, wires, [], [])
    for ctype, iname, conns in _INST.findall(body):
        if ctype in ("input", "output", "inout", "wire", "assign", "module"):
            continue
        pins = {}
        for pin, expr in _CONN.findall(conns.strip()):
            bits = _expand(net, expr)
            if len(bits) != 1:
                raise FpforgeValueError(f"pin {pin} of {iname} connects {len(bits)} bits; cells have 1-bit pins")
            pins[_strip_escape(pin)] = bits[0]
        net.instances.append((_strip_escape(ctype), _strip_escape(iname), pins))
    for lhs, rhs in _ASSIGN.findall(body):
        lb, rb = _expand(net, lhs), _expand(net, rhs)
        if len(lb) != len(rb):
            raise FpforgeValueError(f"assign {lhs} = {rhs}: {len(lb)} bits from {len(rb)}")
        net.assigns.extend(zip(lb, rb))
    return net


def _expand(net: Netlist, expr: str) -> list:
    """The bits of a Verilog expression (LSB first): a name, a bit or part select, a constant, a
    concatenation of those."""
    expr = expr.strip()
    if expr.startswith("{") and expr.endswith("}"):
        parts, depth, cur = [], 0, ""
        for ch in expr[1:-1]:
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
                continue
            depth += ch == "{"
            depth -= ch == "}"
            cur += ch
        parts.append(cur)
        out = []
        for p in reversed(parts):  # the last part is the least significant
            out.extend(_expand(net, p))
        return out
    c = _CONST.match(expr.replace(" ", ""))
    if c:
        width, base, digits = int(c.group(1)), c.group(2), c.group(3).lower().replace("_", "")
        if base == "d":
            value = int(digits)
            return [f"1'b{(value >> i) & 1}" for i in range(width)]
        per = 1 if base == "b" else 4
        bits = "".join(d if per == 1 else (d * 4 if d in "xz" else f"{int(d, 16):04b}") for d in digits)
        bits = bits.rjust(width, "0")[-width:]
        return [f"1'b{'0' if b in 'xz' else b}" for b in reversed(bits)]  # x/z: 0 (as the prover's --x-assign 0)
    m = re.fullmatch(rf"({_ID})\s*(?:\[(\d+)(?::(\d+))?\])?", expr)
    if m is None:
        raise FpforgeValueError(f"cannot read the netlist expression {expr!r}")
    name = _strip_escape(m.group(1))
    if m.group(2) is None:
        return net.bits(name)
    hi = int(m.group(2))
    lo = hi if m.group(3) is None else int(m.group(3))
    return [f"{name}[{i}]" for i in range(min(hi, lo), max(hi, lo) + 1)]


# -- cell models ----------------------------------------------------------------------------------------
def _python_function(function: str, inputs, table: int) -> str:
    """A Python expression over ``v0..vk`` (big integers) and ``M`` (all ones) with truth table ``table``."""
    tokens = re.findall(r"[A-Za-z_]\w*|\S", function)
    index = {p: i for i, p in enumerate(inputs)}
    if tokens and all(t in index or t in "()!&|^*+01" for t in tokens):
        spelled = {"!": "~", "*": "&", "+": "|", "0": "0", "1": "M"}
        expr = " ".join(f"v{index[t]}" if t in index else spelled.get(t, t) for t in tokens)
        if _table_of(expr, len(inputs)) == table:
            return expr
    terms = []
    for k in range(1 << len(inputs)):
        if (table >> k) & 1:
            terms.append("(" + " & ".join((f"v{i}" if (k >> i) & 1 else f"~v{i}") for i in range(len(inputs)))
                         + ")" if inputs else "M")
    return " | ".join(terms) if terms else "0"


def _table_of(expr: str, n: int) -> int | None:
    full = (1 << (1 << n)) - 1
    env = {f"v{i}": sum(1 << k for k in range(1 << n) if (k >> i) & 1) for i in range(n)}
    env["M"] = full
    try:
        return eval(expr, {"__builtins__": {}}, env) & full  # noqa: S307 - built from checked tokens
    except (SyntaxError, TypeError):
        return None


def _ff_groups(liberty_text: str) -> dict:
    """``{cell: (state var, inverted var, next_state, clear, preset)}`` of the liberty's ``ff`` groups."""
    out = {}
    for m in re.finditer(r"\bcell\s*\(\s*\"?([^\s\")]+)\"?\s*\)\s*\{", liberty_text):
        start = m.end()
        nxt = re.search(r"\bcell\s*\(", liberty_text[start:])
        block = liberty_text[start:start + nxt.start()] if nxt else liberty_text[start:]
        ff = re.search(r"\bff\s*\(\s*\"?(\w+)\"?\s*,\s*\"?(\w+)\"?\s*\)\s*\{([^}]*)\}", block)
        if ff:
            attrs = dict(re.findall(r"(\w+)\s*:\s*\"?([^\";]*)\"?\s*;", ff.group(3)))
            out[m.group(1)] = (ff.group(1), ff.group(2), attrs.get("next_state"), attrs.get("clear"),
                               attrs.get("preset"))
    return out


def _models(lib_path: Path, lib, types) -> dict:
    """``{cell type: (input pins, {output pin: compiled function}, ff or None)}`` for the cells used."""
    from .liberty import function_truth_table

    ffs = None
    models = {}
    for t in types:
        cell = lib.cells.get(t)
        if cell is None:
            raise FpforgeValueError(f"the netlist uses cell {t!r}, which {lib_path.name} does not define")
        inputs = list(cell.inputs)
        if cell.sequential:
            if ffs is None:
                ffs = _ff_groups(Path(lib_path).read_text(errors="replace"))
            ff = ffs.get(t)
            if not cell.has_ff or ff is None or not ff[2]:
                raise FpforgeValueError(f"cell {t} of {lib_path.name} is a latch or a sequential cell without an ff "
                                        "next_state: the workload simulation handles flip-flops only")
            state, state_n, next_state, clear, preset = ff
            funcs = {}
            for pin, f in cell.outputs.items():
                table = function_truth_table(f, [state, state_n]) if f else None  # bit k: state = k & 1, ...
                at_one, at_zero = (None, None) if table is None else ((table >> 1) & 1, (table >> 2) & 1)
                if (at_one, at_zero) not in ((1, 0), (0, 1)):  # ... its inverse = k >> 1 (k = 1: 1/0, k = 2: 0/1)
                    raise FpforgeValueError(f"output {pin} of {t} is {f!r}, not its state {state} or {state_n}")
                funcs[pin] = at_one == 0
            compiled = [(e and compile(_python_function(e, inputs, function_truth_table(e, inputs)), t, "eval"))
                        for e in (next_state, clear, preset)]
            if any(e and function_truth_table(e, inputs) is None for e in (next_state, clear, preset)):
                raise FpforgeValueError(f"cell {t}: cannot read its ff group over pins {inputs}")
            models[t] = (inputs, funcs, compiled)
            continue
        funcs = {}
        for pin, f in cell.outputs.items():
            table = function_truth_table(f, inputs) if f else None
            if table is None:
                raise FpforgeValueError(f"output {pin} of cell {t} has no Boolean function to simulate ({f!r})")
            funcs[pin] = compile(_python_function(f, inputs, table), f"{t}.{pin}", "eval")
        models[t] = (inputs, funcs, None)
    return models


# -- simulation -----------------------------------------------------------------------------------------
def _waveforms(values: np.ndarray, width: int, n: int) -> list[int]:
    """Per bit of a port (LSB first), the waveform over ``n`` cycles as an integer (bit t = cycle t)."""
    values = np.asarray(values)
    if values.ndim == 1:
        values = values.reshape(n, 1)
    words = values.astype(np.uint64)
    out = []
    for b in range(width):
        w = b // 64
        bits = ((words[:, w] >> np.uint64(b % 64)) & np.uint64(1)).astype(np.uint8) if w < words.shape[1] \
            else np.zeros(n, np.uint8)
        out.append(int.from_bytes(np.packbits(bits, bitorder="little").tobytes(), "little"))
    return out


def _check_values(top, port, width, values):
    """One value per cycle for an input port of ``width`` bits: non-negative integers below 2**width (1-D), or
    ``(n, ceil(width / 64))`` uint64 words; anything else is one clear error (no cast)."""
    v = np.asarray(values)
    if v.dtype.kind not in "iub":
        raise FpforgeTypeError(f"stimulus of {top}.{port} must be integers (one value per cycle), not {v.dtype}")
    words = -(-width // 64)
    if v.ndim == 2 and width > 64:
        if v.shape[1] != words or v.dtype != np.uint64:
            raise FpforgeValueError(f"stimulus of {top}.{port} ({width} bits) must be (n, {words}) uint64 words, not "
                                    f"{v.shape} {v.dtype}")
        return
    if v.ndim == 2 and v.shape[1] == 1:
        v = v[:, 0]
    if v.ndim != 1:
        raise FpforgeValueError(f"stimulus of {top}.{port} must be one value per cycle (1-D), not shape {v.shape}")
    if v.size and (v.dtype.kind == "i" and v.min() < 0 or width < 64 and int(v.max()) >> width):
        raise FpforgeValueError(f"stimulus of {top}.{port} must be in 0..2**{width}-1 (its width), not "
                                f"{int(v.min()) if v.min() < 0 else int(v.max())}")


def net_activity(netlist_text: str, top: str, liberty, stimulus: dict, *, clock_ports=("clk",),
                 waves: bool = False) -> dict:
    """Simulate a mapped netlist on ``stimulus`` and count the toggles of every net.

    Parameters
    ----------
    netlist_text : str
        The netlist (yosys ``write_verilog -noattr -simple-lhs``).
    top : str
        Its module.
    liberty : str or Path
        The liberty it is mapped to (cell functions and ff groups).
    stimulus : dict
        ``{input port: values}``, one value per cycle (1-D integers, or ``(n, words)`` uint64 words, least
        significant first, for ports wider than 64 bits); every input port but the clock needs one, all the
        same length n >= 2.

    Returns
    -------
    dict
        ``cycles`` (n), ``nets`` ({bit: (toggles, ones)}: every port bit and every cell output) and
        ``instances`` ({instance: (cell type, output bit of each output pin)}); with ``waves``, also
        ``waves`` ({bit: waveform}, bit t of the integer = the bit's value at cycle t).
    """
    from .liberty import check_liberty

    lib_path, lib = check_liberty(liberty)
    net = parse_netlist(netlist_text, top)
    if not isinstance(stimulus, dict):
        raise FpforgeTypeError(f"stimulus must be a dict {{input port: values}}, not {type(stimulus).__name__}")
    inputs = {p: w for p, (d, w, _) in net.ports.items() if d == "input" and p not in clock_ports}
    missing = sorted(set(inputs) - set(stimulus))
    extra = sorted(set(stimulus) - set(inputs))
    if missing or extra:
        raise FpforgeValueError(f"the stimulus of {top} must drive its inputs {', '.join(sorted(inputs))}"
                                + (f"; missing {', '.join(missing)}" if missing else "")
                                + (f"; {', '.join(extra)} not an input" if extra else ""))
    for p, w in inputs.items():
        _check_values(top, p, w, stimulus[p])
    lengths = {len(np.asarray(v)) for v in stimulus.values()}
    if len(lengths) != 1 or min(lengths) < 2:
        raise FpforgeValueError(f"every stimulus port needs the same number (>= 2) of cycles, not {sorted(lengths)}")
    n = lengths.pop()
    mask = (1 << n) - 1
    value: dict[str, int] = {"1'b0": 0, "1'b1": mask}
    for p, w in inputs.items():
        for bit, wave in zip(net.bits(p), _waveforms(stimulus[p], w, n)):
            value[bit] = wave
    for p in clock_ports:
        for bit in net.bits(p) if p in net.ports else ():
            value[bit] = 0  # a clock is not data: its power is OpenSTA's (clock pins toggle twice a period)

    models = _models(lib_path, lib, {t for t, _, _ in net.instances})
    alias = {}
    for lhs, rhs in net.assigns:
        alias[lhs] = rhs
    # Kahn's order over cells: a cell waits for its inputs (a flop for its data/clear/preset inputs only).
    driver = {}
    for k, (t, _, pins) in enumerate(net.instances):
        for pin in models[t][1]:
            if pin in pins:
                driver[pins[pin]] = k

    def resolve(bit, seen=()):
        while bit in alias and bit not in value and bit not in driver:
            bit = alias[bit]
        return bit

    waiting, users = [], {}
    for k, (t, _, pins) in enumerate(net.instances):
        deps = set()
        for pin in models[t][0]:
            if pin not in pins:
                raise FpforgeValueError(f"instance {net.instances[k][1]} ({t}) leaves input {pin} unconnected")
            src = resolve(pins[pin])
            if src not in value:
                if src not in driver:
                    raise FpforgeValueError(f"net {src} of {top} has no driver")
                deps.add(src)
        waiting.append(len(deps))
        for d in deps:
            users.setdefault(d, []).append(k)
    ready = [k for k, c in enumerate(waiting) if c == 0]
    done = 0
    while ready:
        k = ready.pop()
        done += 1
        t, _, pins = net.instances[k]
        ins, funcs, ff = models[t]
        env = {f"v{i}": value[resolve(pins[p])] for i, p in enumerate(ins)}
        env["M"] = mask
        if ff is None:
            outs = {pin: eval(code, {"__builtins__": {}}, env) & mask for pin, code in funcs.items()}  # noqa: S307
        else:
            nxt, clear, preset = (eval(c, {"__builtins__": {}}, env) & mask if c else 0 for c in ff)  # noqa: S307
            state = (nxt << 1) & mask
            state = (state & ~clear) | preset
            outs = {pin: (~state & mask if inv else state) for pin, inv in funcs.items()}
        for pin, wave in outs.items():
            if pin in pins:
                bit = pins[pin]
                value[bit] = wave
                for u in users.pop(bit, ()):
                    waiting[u] -= 1
                    if waiting[u] == 0:
                        ready.append(u)
    if done != len(net.instances):
        raise FpforgeValueError(f"{top} has a combinational loop or a register feedback loop: the workload "
                                "simulation handles feed-forward netlists (no stream or accumulator units)")
    for bit in list(alias):
        src = resolve(bit)
        if bit not in value and src in value:
            value[bit] = value[src]
    low = (1 << (n - 1)) - 1
    nets = {b: (((v ^ (v >> 1)) & low).bit_count(), v.bit_count()) for b, v in value.items()
            if not b.startswith("1'b")}
    instances = {name: (t, {pin: pins[pin] for pin in models[t][1] if pin in pins})
                 for t, name, pins in net.instances}
    out = {"cycles": n, "nets": nets, "instances": instances}
    if waves:
        out["waves"] = {b: v for b, v in value.items() if not b.startswith("1'b")}
    return out


def instance_activities(netlist_text: str, top: str, liberty, stimulus: dict) -> tuple[dict, int]:
    """``({instance: toggles of its output per clock period}, cycles)``: what the power analysis annotates
    (:func:`net_activity`'s toggles / (cycles - 1); the mean over the outputs of a multi-output cell)."""
    sim = net_activity(netlist_text, top, liberty, stimulus)
    n = sim["cycles"]
    activities = {}
    for name, (_, outs) in sim["instances"].items():
        toggles = [sim["nets"][b][0] for b in outs.values() if b in sim["nets"]]
        activities[name] = (sum(toggles) / len(toggles) / (n - 1)) if toggles else 0.0
    return activities, n


# -- workloads ------------------------------------------------------------------------------------------
def check_workload(spec) -> None:
    """None if unit ``spec`` has a workload, else a one-line :class:`FpforgeValueError` saying why."""
    from ..hw.spec import DecoderSpec, DotSpec, EncoderSpec, UnitSpec

    if not isinstance(spec, UnitSpec):
        raise FpforgeTypeError(f"workload must be a unit spec (fpforge.hw.spec) or a dict of port values, not "
                               f"{type(spec).__name__}")
    why = None
    if isinstance(spec, DotSpec):
        if spec.stages:
            why = "a pipelined (stream) dot unit (stages > 0)"
        elif spec.scale or spec.amax:
            why = "a dot unit with the scale/amax epilogue"
    elif isinstance(spec, (EncoderSpec, DecoderSpec)):
        if spec.latency:
            why = f"a pipelined (stream) {spec.unit} (latency > 0)"
    else:
        why = f"a {spec.unit} unit"
    if why is not None:
        raise FpforgeValueError(f"no workload for {why}: activity 'workload' covers combinational dot units "
                                "(io_registers too), encoders and decoders; use activity 'vectorless'")


def has_workload(spec) -> bool:
    try:
        check_workload(spec)
    except FpforgeValueError:
        return False
    return True


def _qsnr_values(fmt, n: int, seed: int = 0) -> np.ndarray:
    """``n`` FP32 values of the QSNR distribution as the format's QSNR measurement encodes them: 256-element
    Gaussian vectors, each scaled by its amax scale."""
    from ..golden.qsnr import amax_scale, gaussian_vectors

    rows = -(-n // 256)
    x = gaussian_vectors(rows, 256, seed).astype(np.float64)
    amax = np.abs(x).max(axis=-1, keepdims=True)
    s = np.where(amax > 0, amax_scale(fmt.max_value, np.where(amax > 0, amax, 1.0)), 1.0)
    with np.errstate(over="ignore", invalid="ignore"):
        return (x * s).astype(np.float32).reshape(-1)[:n]


def _source_bits(x: np.ndarray, source: str) -> np.ndarray:
    if source == "fp32":
        return x.view(np.uint32).astype(np.uint64)
    if source == "fp16":
        with np.errstate(over="ignore"):
            return x.astype(np.float16).view(np.uint16).astype(np.uint64)
    return (x.view(np.uint32) >> np.uint32(16)).astype(np.uint64)  # bf16: the top half (truncated)


def workload_stimulus(spec, n: int = DEFAULT_CYCLES, ports=None) -> dict:
    """``{input port: values}`` of unit ``spec``'s workload over ``n`` cycles (module docstring).

    ``ports``: the unit's input ports ({name: width}); constant ports the workload does not set (``rst``,
    selects, biases) are held at 0. Raises :class:`FpforgeValueError` for a unit without a workload."""
    from ..golden import ROUNDING_MODES, encode_with_flags, random_bits
    from ..hw.spec import DotSpec, EncoderSpec

    check_workload(spec)
    out: dict = {}
    if isinstance(spec, DotSpec):
        from ..golden.dot import operand_words, quantized_operands
        from ..golden.qsnr import gaussian_vectors

        dc = spec.config
        for side, seed in (("a", 1), ("b", 2)):
            x = gaussian_vectors(n, dc.r, seed)
            out[side] = operand_words(getattr(dc, side), quantized_operands(dc, x, side=side))
    else:
        fmt = spec.descriptor
        if getattr(fmt, "runtime_bias", False):  # CFloat8/SHP: the bias port held at 0, the values at that bias
            fmt = fmt.at(0)
        x = _qsnr_values(fmt, n)
        rounding = (getattr(spec, "rounding", None) or fmt.roundings[:1])[0]
        if isinstance(spec, EncoderSpec):
            out["a"] = _source_bits(x, spec.source)
            rand_bits = spec.rand_bits or 16
            out["rand"] = random_bits(spec.seed or 0, n, rand_bits).astype(np.uint64)
            out["mode"] = np.full(n, ROUNDING_MODES[rounding], np.uint64)
        else:
            codes, _ = encode_with_flags(fmt, x, rounding="rne" if rounding == "sr" else rounding, saturate=True)
            out["a"] = np.asarray(codes).astype(np.uint64)
    if ports is not None:
        out = {p: v for p, v in out.items() if p in ports}
        for p in ports:
            if p not in out and p != "clk":
                out[p] = np.zeros(n, np.uint64)
    return out
