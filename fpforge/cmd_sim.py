"""``fpforge sim``: a unit's cocotb regression against the golden model on Verilator and/or Icarus.

Builds are cached per configuration in ``fpforge.jobs.cache_dir("sim")`` (``--build-dir`` overrides;
``fpforge clean`` empties the cache). The number of vectors is printed before each run; on a terminal a
progress bar shows vectors done, the rate and the time left.
"""

from __future__ import annotations

import re
import sys

from .cliutil import UsageError, seed_arg
from .golden.registry import RUNTIME_BIASES
from .unitopts import add_unit_options

__all__ = ["add_parser", "run"]


def add_parser(sub):
    s = sub.add_parser("sim", help="run a unit's cocotb regression against the golden model")
    add_unit_options(s)
    s.add_argument("--simulator", default=None, choices=["verilator", "icarus", "all", "ghdl"],
                   help="default verilator (ghdl for --vhdl); `all` runs verilator and icarus and skips (with one "
                        "line) one that is missing; ghdl runs a user's VHDL (--vhdl)")
    s.add_argument("--vectors", type=int, default=None,
                   help="random vectors: FP32 operands per rounding/saturation pair, blocks, dot products or "
                        "scaled-encoder transfers (default per simulator and unit, printed before the run; table in "
                        "docs/sim.md; 16-bit sources and decoders are exhaustive and take none); large counts are "
                        "the long runs")
    s.add_argument("--seed-vectors", type=seed_arg, default=1, help="seed of the random vectors and stalls (default 1)")
    s.add_argument("--build-dir", default=None,
                   help="where simulator builds are kept (default: the cache, `fpforge clean` empties it)")
    s.add_argument("--biases", default=None,
                   help="run-time-bias formats: biases of the exhaustive/directed stimulus, a comma list or `all` "
                        "(default: FP32-source encoders 0,1,7,15,31,32,62,63; FP16/BF16-source encoders 0,7,32,63; "
                        "decoders of 8-bit formats all 64, of SHP 0,1,7,15,31,32,62,63)")
    u = s.add_argument_group("a user's design (docs/usage.md, \"Verify your own design\")")
    src = u.add_mutually_exclusive_group()
    src.add_argument("--verilog", nargs="+", default=None, metavar="FILE",
                     help="check this Verilog design (its files) instead of fpforge's unit, on verilator or icarus")
    src.add_argument("--vhdl", nargs="+", default=None, metavar="FILE",
                     help="check this VHDL design (its files) instead of fpforge's unit, on GHDL (ghdl on PATH or "
                          "FPFORGE_GHDL)")
    u.add_argument("--top", default=None, metavar="NAME",
                   help="the design's module or entity (default: the files' only one)")
    u.add_argument("--ports", default=None, metavar="MAP",
                   help="UNIT_PORT=USER_PORT,... from fpforge's port names (a, y, flags, mode, sat, bias, rand; a "
                        "stream adds clk, rst, i_valid, i_ready, o_valid, o_ready) to the design's; unnamed ports keep "
                        "their names; fpforge's ports the design lacks are not driven (inputs) or not checked "
                        "(outputs), and the output lists them")
    s.set_defaults(run=run)


def _design(args):
    """The user's design of --verilog/--vhdl (None without), its options checked; sets args.simulator."""
    from .cmd_prove import _parse_ports
    from .hw.generate import check_module_name

    files = args.verilog or args.vhdl
    if files is None:
        if args.top is not None or args.ports is not None:
            raise UsageError("--top and --ports apply to a user's design (--verilog FILE... or --vhdl FILE...)")
        if args.simulator == "ghdl":
            raise UsageError("--simulator ghdl runs a user's VHDL design (--vhdl FILE...); fpforge's units are "
                             "Verilog: verilator or icarus")
        args.simulator = args.simulator or "verilator"
        return None
    language = "verilog" if args.verilog else "vhdl"
    if language == "vhdl":
        if args.simulator in ("verilator", "icarus", "all"):
            what = "verilator and icarus simulate" if args.simulator == "all" else "it simulates"
            raise UsageError(f"--vhdl runs on GHDL: --simulator ghdl (or leave it out), not {args.simulator} ({what} "
                             "Verilog)")
        args.simulator = "ghdl"
    elif args.simulator == "ghdl":
        raise UsageError("--verilog runs on verilator or icarus (or `all`): ghdl simulates VHDL (--vhdl FILE...)")
    else:
        args.simulator = args.simulator or "verilator"
    for f in files:
        if not f.strip():
            raise UsageError(f"--{language} needs file names, not {f!r}")
    if args.top is not None and language == "verilog":
        check_module_name(args.top)
    elif args.top is not None and not re.fullmatch(r"[A-Za-z](_?[A-Za-z0-9])*", args.top):
        raise UsageError(f"--top {args.top!r} is not a VHDL entity name (a letter, then letters, digits and single "
                         "underscores)")
    ports = None if args.ports is None else _parse_ports(args.ports)
    from .sim.userdesign import UserDesign

    return UserDesign(files, language, args.top, ports)


def _biases(args, spec):
    from .cliutil import comma_list
    from .hw.spec import DecoderSpec, EncoderSpec

    if args.biases is None:
        return None
    if args.biases == "all":
        biases = RUNTIME_BIASES
    else:
        try:
            biases = tuple(comma_list(args.biases, "--biases", convert=int, example="0,7,63"))
        except UsageError as e:
            if "twice" in str(e):
                raise
            raise UsageError(f"--biases takes a comma list of integers 0..63 or `all`, not {args.biases!r}") from None
        if any(b not in RUNTIME_BIASES for b in biases):
            raise UsageError(f"--biases takes integers in 0..63, not {args.biases!r}")
    # (the scalar units' cases take biases: sim.cases' EncoderSpec and DecoderSpec builders)
    if not isinstance(spec, (EncoderSpec, DecoderSpec)) or not getattr(spec.descriptor, "runtime_bias", False):
        raise UsageError(f"--biases applies to run-time-bias formats (cfloat8_143, cfloat8_152, shp), not "
                         f"{spec.as_options().get('format')!r}")
    return biases


_RANDOM = {"encoder": "random FP32 values per rounding/saturation pair", "block-encoder": "random blocks",
           "block-decoder": "blocks", "dot": "random dot products", "scaled-encoder": "transfers"}


def _what(unit, vectors) -> str:
    """How the vector count came about, for the line printed before a run."""
    if vectors is None:
        return "every input pattern"
    return f"{vectors:,} {_RANDOM[unit]} (--vectors N for more) and the directed cases"


class _Bar:
    """``progress(done, total)`` for one run: prints the vector count once; a tqdm bar on a terminal."""

    def __init__(self, sim, what):
        self.sim, self.what, self.bar = sim, what, None
        self.tty = sys.stderr.isatty()

    def __call__(self, done, total):
        if self.bar is None:
            print(f"{self.sim}: {total:,} vectors: {self.what}", flush=True)
            if not self.tty:
                self.bar = False
                return
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=self.sim, unit="vec", unit_scale=True, dynamic_ncols=True,
                            leave=False, file=sys.stderr)
        if self.bar:
            self.bar.update(done - self.bar.n)

    def close(self):
        if self.bar:
            self.bar.close()


def run(args) -> int:
    from .sim.regress import regress_unit, resolve_vectors
    from .sim.run import SimulatorMissing, available_simulators
    from .unitopts import print_spec, unit_spec

    if args.name is not None:
        raise UsageError("--name sets the module name of generated Verilog; sim names its modules itself")
    spec = unit_spec(args)  # every option error before any simulator starts
    cfg = spec.as_options()
    design = _design(args)
    if design is not None:
        from .sim.userdesign import check_design_run

        for sim in (["verilator", "icarus"] if args.simulator == "all" else [args.simulator]):
            check_design_run(cfg, sim, design)
    biases = _biases(args, spec)
    from .jobs.cache import check_environment

    if args.build_dir is not None and not args.build_dir.strip():
        raise UsageError("--build-dir needs a directory name (an empty one would be the working directory)")
    check_environment(cache=args.build_dir is None)  # an unusable FPFORGE_CACHE/XDG_CACHE_HOME/HOME/TMPDIR
    if args.build_dir is not None:
        from pathlib import Path

        if Path(args.build_dir).exists() and not Path(args.build_dir).is_dir():
            raise UsageError(f"--build-dir {args.build_dir!r} is not a directory")
    sims = ["verilator", "icarus"] if args.simulator == "all" else [args.simulator]
    for sim in sims:
        resolve_vectors(cfg, "icarus" if sim == "ghdl" else sim, args.vectors)  # --vectors for an exhaustive unit
    if args.spec_json:  # after the same checks as a run (not the simulators' presence: no run follows)
        print_spec(spec)
        return 0
    reasons = available_simulators()
    if design is not None:
        _describe(design, cfg, spec)  # the port map's checks (a missing port, a width): before any simulator
    if sims == ["ghdl"]:
        from .sim.run import ghdl_executable

        ghdl_executable()  # GHDL missing: one line, exit 2
        reasons["ghdl"] = None
    if all(reasons[s] for s in sims):
        named = {s: r if r.startswith(s) else f"{s}: {r}" for s, r in reasons.items()}  # "verilator" once
        if len(sims) == 1:
            raise SimulatorMissing(named[sims[0]])
        raise SimulatorMissing("no simulator available: " + "; ".join(named.values()))
    ok = True
    for sim in sims:
        if reasons[sim]:
            print(f"{sim}: skipped — {reasons[sim]}", file=sys.stderr, flush=True)
            continue
        vectors = resolve_vectors(cfg, "icarus" if sim == "ghdl" else sim, args.vectors)
        bar = _Bar(sim, _what(cfg["unit"], vectors))
        try:
            result = regress_unit(spec, sim, vectors=vectors, seed=args.seed_vectors, build_root=args.build_dir,
                                  biases=biases, progress=bar, design=design)
        finally:
            bar.close()
        print(result.summary(), flush=True)
        if design is not None and not result.passed:
            print(f"  seed {args.seed_vectors}: the same command with --seed-vectors {args.seed_vectors} replays "
                  "these vectors", flush=True)
        ok &= result.passed
    return 0 if ok else 1


def _describe(design, cfg, spec):
    """Check ``design``'s ports against the unit's and print what is checked, before any simulator runs."""
    from .hw.generate import build_unit
    from .sim.ports import ports_of, stream_layouts

    unit = build_unit(spec)  # for its ports only (the CLI filters Amaranth's "never used" warning)
    if spec.latency:
        design.stream(*stream_layouts(unit))
    else:
        design.comb(ports_of(unit), 1)
    files = ", ".join(f.name for f in design.files)
    print(f"checking {design.what} {design.top} ({files}) as {spec.unit} {cfg.get('format')}"
          + (f", a stream of latency {spec.latency}" if spec.latency else ""), flush=True)
    for note in design.notes:
        print(f"  {note}", flush=True)
