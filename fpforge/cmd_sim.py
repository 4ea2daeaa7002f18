"""``fpforge sim``: a unit's cocotb regression against the golden model on Verilator and/or Icarus.

Builds are cached per configuration in ``fpforge.jobs.cache_dir("sim")`` (``--build-dir`` overrides;
``fpforge clean`` empties the cache). The number of vectors is printed before each run; on a terminal a
progress bar shows vectors done, the rate and the time left.
"""

from __future__ import annotations

import sys

from .cliutil import UsageError, seed_arg
from .golden.registry import RUNTIME_BIASES
from .unitopts import add_unit_options

__all__ = ["add_parser", "run"]


def add_parser(sub):
    s = sub.add_parser("sim", help="run a unit's cocotb regression against the golden model")
    add_unit_options(s)
    s.add_argument("--simulator", default="verilator", choices=["verilator", "icarus", "all"],
                   help="default verilator; `all` runs both and skips (with one line) one that is missing")
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
    s.set_defaults(run=run)


def _biases(args, cfg):
    from .cliutil import comma_list
    from .golden import get_format

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
    if cfg["unit"] not in ("encoder", "decoder") or not getattr(get_format(cfg["format"]), "runtime_bias", False):
        raise UsageError(f"--biases applies to run-time-bias formats (cfloat8_143, cfloat8_152, shp), not "
                         f"{cfg.get('format')!r}")
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
    biases = _biases(args, cfg)
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
        resolve_vectors(cfg, sim, args.vectors)  # --vectors for an exhaustive unit, ...
    if args.spec_json:  # after the same checks as a run (not the simulators' presence: no run follows)
        print_spec(spec)
        return 0
    reasons = available_simulators()
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
        vectors = resolve_vectors(cfg, sim, args.vectors)
        bar = _Bar(sim, _what(cfg["unit"], vectors))
        try:
            result = regress_unit(spec, sim, vectors=vectors, seed=args.seed_vectors, build_root=args.build_dir,
                                  biases=biases, progress=bar)
        finally:
            bar.close()
        print(result.summary(), flush=True)
        ok &= result.passed
    return 0 if ok else 1
