"""``fpforge equiv``: formal equivalence of a combinational unit's RTL with its mapped gate-level netlist
(``--netlist``) or with a Verilog module of the same ports (``--against FILE``): a yosys miter proved by ABC;
with ``--latency L``, a stream unit against its combinational core followed by L registers (yosys
``sat -tempinduct``, :mod:`fpforge.sim.equiv_stream`).
Exit 0 proved, 1 counterexample, 3 unknown (timeout), 2 bad input."""

from __future__ import annotations

import json

from .cliutil import UsageError, positive_number

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    from .sim.equiv import DEFAULT_TIMEOUT, ENGINES
    from .sim.equiv_core import EQUIV_UNITS
    from .sim.equiv_stream import SEQ_ENGINES
    from .unitopts import add_unit_options

    p = subparsers.add_parser(
        "equiv", help="prove a unit's RTL equivalent to its netlist or another Verilog module (yosys + ABC)",
        description="Build a miter of fpforge's Verilog of the unit (gold) and a second design (gate) with yosys and "
                    "prove it with ABC: proved (exit 0), a counterexample replayed through the golden model and "
                    "both designs (exit 1), or unknown after --timeout (exit 3). Scalar and block encoders and "
                    "decoders, dot-product units; with --latency L (a dot unit: --stages S), the stream unit "
                    "against its combinational core followed by L registers (yosys sat -tempinduct or ABC dprove).")
    add_unit_options(p, units=EQUIV_UNITS)
    g = p.add_argument_group("equivalence")
    g.add_argument("--netlist", action="store_true",
                   help="against the unit's gate-level netlist after synthesis onto --liberty (cells read as "
                        "models of their liberty functions)")
    g.add_argument("--against", default=None, metavar="FILE",
                   help="against a Verilog module with the unit's ports (a user's edit, an older version, a "
                        "netlist of --liberty cells)")
    g.add_argument("--top", default=None, metavar="MODULE",
                   help="the module of --against FILE (default: its only module no other one instantiates)")
    g.add_argument("--liberty", default=None,
                   help="liberty file or name (fpforge45, the default, or osu018): the library --netlist maps onto, "
                        "or the cells an --against netlist instantiates")
    g.add_argument("--engine", default=None, choices=list(dict.fromkeys(ENGINES + SEQ_ENGINES)),
                   help="engine: iprove (ABC on the miter; default), cec (ABC &cec of the two designs), dprove, or staged (RTL to "
                        "word-level passes to alumacc to gates, each step proved; default for a dot unit); with "
                        "--latency: tempinduct (yosys SAT induction; default) or dprove (ABC on the sequential miter)")
    g.add_argument("--timeout", type=_timeout, default=DEFAULT_TIMEOUT, metavar="S",
                   help=f"seconds ABC may prove for before the result is unknown (default {DEFAULT_TIMEOUT:g})")
    g.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(run=run)
    return p


_timeout = positive_number("the timeout", "seconds")


def _check(args):
    from .sim.equiv import ENGINES
    from .sim.equiv_stream import SEQ_ENGINES

    seq = args.latency or args.stages
    opt = f"--latency {args.latency}" if args.latency else f"--stages {args.stages}"
    with_opt = "--latency" if args.latency else opt
    if seq:
        if args.netlist:
            raise UsageError(f"{opt} --netlist: sequential equivalence with the mapped netlist "
                             "is not available; give no design (the generated stream unit) or --against FILE")
        if args.engine is not None and args.engine not in SEQ_ENGINES:
            raise UsageError(f"--engine {args.engine} proves combinational units; with {with_opt} valid: "
                             f"{', '.join(SEQ_ENGINES)}")
    elif args.engine is not None and args.engine not in ENGINES:
        raise UsageError(f"--engine {args.engine} proves stream units (give --latency L); valid without "
                         f"--latency: {', '.join(ENGINES)}")
    if args.netlist and args.against is not None:
        raise UsageError("choose one of --netlist (the unit's mapped netlist) and --against FILE")
    if not args.netlist and args.against is None and not seq:
        raise UsageError("equiv needs the design to compare with: --netlist (the unit's mapped netlist) or "
                         "--against FILE (a Verilog module with the unit's ports)")
    if args.top is not None and args.against is None:
        raise UsageError("--top names the module of --against FILE")
    if args.name is not None:
        raise UsageError("--name: equiv compares fpforge's own module; --top picks the module of --against FILE")


def _hex(value, width):
    return f"{value:#0{2 + (width + 3) // 4}x}"


def _values(values, ports):
    return " ".join(f"{n}={_hex(v, ports[n][1])}" for n, v in values.items())


def _print(result, ports, cfg):
    import numpy as np

    from .golden import SOURCES
    from .hw.spec import DecoderSpec, EncoderSpec

    gate = f"{result.gate}"
    print(f"equiv: {result.gold} vs {gate}")
    miter = f"miter of {result.miter_ands:,} AND gates, {result.miter_inputs} inputs"
    if result.status == "proved":
        by = "yosys sat -tempinduct" if result.engine == "tempinduct" else f"ABC {result.engine}"
        print(f"proved by {by} ({miter}) in {result.seconds:.1f} s")
        return
    if result.status == "unknown":
        built = miter if result.miter_ands else "the miter was not built"
        print(f"unknown: {result.reason} ({built}; {result.seconds:.1f} s)")
        return
    if result.cycles:
        _print_cycles(result, cfg)
        return
    print(f"counterexample found by ABC {result.engine} ({miter}) in {result.seconds:.1f} s")
    inputs = _values(result.inputs, ports)
    if isinstance(cfg.get("spec"), EncoderSpec):
        src = SOURCES[cfg["source"]]
        word = np.array([result.inputs["a"]], np.uint32 if src.bits == 32 else np.uint16)
        inputs += f" ({float(word.view(src.dtype)[0]):.9g})"
    print(f"  inputs:        {inputs}")
    differ = [n for n in result.gold_outputs if result.gold_outputs[n] != result.gate_outputs.get(n)]
    golden = _values(result.golden, ports) if result.golden else "(no value: a mode code the unit does not have)"
    print(f"  golden model:  {golden}")
    print(f"  gold (RTL):    {_values(result.gold_outputs, ports)}")
    print(f"  gate:          {_values(result.gate_outputs, ports)}   (differs in {', '.join(differ)})")
    spec = cfg.get("spec")
    if spec is not None and not isinstance(spec, (EncoderSpec, DecoderSpec)):
        from .sim.equiv_golden import port_values

        shown = port_values(spec, result.inputs)
        if shown:
            print(f"  inputs as values: {' '.join(f'{n}={v}' for n, v in shown.items())}")
        for label, outs in (("golden model", result.golden), ("gold (RTL)", result.gold_outputs),
                            ("gate", result.gate_outputs)):
            shown = {n: v for n, v in port_values(spec, result.inputs, outs).items() if n in outs}
            if shown:
                print(f"  {label + ' as values:':<26}{' '.join(f'{n}={v}' for n, v in shown.items())}")
    if result.golden:
        wrong = [d for d, out in (("gold", result.gold_outputs), ("gate", result.gate_outputs)) if out != result.golden]
        print(f"  the golden model agrees with {'neither' if len(wrong) == 2 else 'gold' if wrong == ['gate'] else 'gate'}")


def _fields(outputs):
    return {n: v for n, v in outputs.items() if n not in ("o_valid", "i_ready")}


def _print_cycles(result, cfg):
    """A stream unit's counterexample, one line per cycle (o_payload compared only when o_valid is 1)."""
    miter = f"miter of {result.miter_ands:,} AND gates, {result.miter_inputs} inputs"
    by = "ABC dprove (trace by yosys sat)" if result.engine == "dprove" else "yosys sat -tempinduct"
    print(f"counterexample found by {by} ({miter}) in {result.seconds:.1f} s; "
          f"o_ready held 1, o_payload compared when o_valid is 1")
    for c in result.cycles:
        ins = " ".join(f"{n}={v:#x}" for n, v in c["inputs"].items())
        outs = {s: f"o_valid={c[s]['o_valid']} " + " ".join(f"{n}={v:#x}" for n, v in _fields(c[s]).items())
                for s in ("gold", "gate")}
        mark = "   <- differs" if c["gold"] != c["gate"] else ""
        print(f"  cycle {c['cycle']}: rst={c['rst']} i_valid={c['i_valid']} {ins} | gold: {outs['gold']} | "
              f"gate: {outs['gate']}{mark}")
    if result.golden:
        golden = " ".join(f"{n}={v:#x}" for n, v in result.golden.items())
        print(f"  golden model (on the input {cfg['latency']} cycles before the first difference): {golden}; "
              f"it agrees with {'gold' if _fields(result.gold_outputs) == result.golden else 'neither'}")


def run(args) -> int:
    from .sim.equiv import equiv, equiv_spec
    from .sim.equiv_core import comb_spec, seq_latency
    from .unitopts import print_spec
    from .unitopts import unit_config as options_config

    _check(args)
    cfg = options_config(args)
    if args.spec_json:
        print_spec(equiv_spec(cfg))
        return 0
    result = equiv(cfg, netlist=args.netlist, liberty=args.liberty, against=args.against, top=args.top,
                   engine=args.engine, timeout=args.timeout)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        spec = equiv_spec(cfg)
        core = comb_spec(spec)
        _print(result, result.ports, dict(core.as_options(), latency=seq_latency(spec), spec=core))
    return result.exit_code
