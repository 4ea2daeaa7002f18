"""Golden expectations for a unit configuration: stimulus in, expected port values out (numpy, per batch).

A configuration is the keyword set of :func:`fpforge.hw.build_unit`. For an encoder built with several
rounding modes and/or a run-time ``sat`` port, one case holds every (mode, sat) combination back to back,
so one simulator build checks them all. Random draws for ``sr`` follow the golden generator: vector ``i``
of the whole case takes draw ``i`` of the unit's seed — the same stream the RTL generator produces.
A run-time-bias format (CFloat8, SHP) drives its ``bias`` port with each vector's own bias
(:func:`fpforge.sim.vectors.stimulus_with_bias`), so consecutive vectors change the bias.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..golden import ROUNDING_MODES, RUNTIME_BIASES, SOURCES, decode_bits, encode_with_flags, get_format, random_bits
from ..golden.formats import resolve_variant
from ..golden.layout import ints_to_words, pack_lanes, twos_words, words_to_ints
from ..golden.rng import DEFAULT_RAND_BITS
from ..golden.tapered import with_compat
from .vectors import DEFAULT_BIASES, stimulus_with_bias

__all__ = ["UnitCase", "block_decoder_case", "block_encoder_case", "decoder_case", "dot_bundle_case", "dot_case", "encoder_case",
           "CASES", "unit_case", "wide_words"]


@dataclass
class UnitCase:
    """Per-port arrays (uint64) for the combinational ports of a unit: ``inputs`` and ``expected``."""

    inputs: dict = field(default_factory=dict)
    expected: dict = field(default_factory=dict)
    labels: list = field(default_factory=list)  # (first index, description) per block

    @property
    def size(self):
        return len(next(iter(self.inputs.values())))


def _check_cfg(cfg, what, unit=False):
    """``cfg`` is a :class:`fpforge.hw.UnitSpec` or a dict of :func:`fpforge.hw.build_unit` keywords (with
    ``unit`` for :func:`unit_case`); anything else is one clear TypeError/ValueError."""
    from ..golden.errors import FpforgeTypeError, UnknownName
    from ..hw.spec import SPECS, DotSpec, UnitSpec

    if isinstance(cfg, UnitSpec):
        return
    if not isinstance(cfg, dict):
        raise FpforgeTypeError(f"cfg of {what} must be a unit spec (fpforge.hw.UnitSpec) or a dict of build_unit "
                               f"keywords (spec.as_options()), not {cfg!r}"[:300])
    units = tuple(kind.unit for kind in CASES)  # the spec classes a case is built for
    kind = SPECS.get(cfg.get("unit")) if isinstance(cfg.get("unit"), str) else None
    if unit and kind not in CASES:
        raise UnknownName(f"cfg['unit'] of {what} must be one of {', '.join(units)}, not {cfg.get('unit')!r}")
    if "format" not in cfg and kind is not DotSpec:
        raise UnknownName(f"cfg of {what} names no format (a 'format' key; see fpforge.golden.list_formats())")


def unit_format(cfg):
    """The descriptor a unit configuration names: a spec's, or a keyword dict's ``format`` with the variant
    sugar (``ieee_denormals``, ``paper_literal``, ``compat``) resolved, as :func:`fpforge.hw.build_unit`
    resolves it."""
    from ..hw.spec import UnitSpec, descriptor_of

    if isinstance(cfg, UnitSpec):
        return cfg.descriptor
    fmt = with_compat(descriptor_of(cfg["format"]), cfg.get("compat"))
    return resolve_variant(fmt, ieee_denormals=cfg.get("ieee_denormals", False),
                           paper_literal=cfg.get("paper_literal", False))


def _as_float(bits, source):
    src = SOURCES[source]
    word = np.uint32 if src.bits == 32 else np.uint16
    return bits.astype(word).view(src.dtype)


def encoder_case(cfg, *, n_random=100_000, seed=1, stim=None, biases=None):
    """Every (mode, sat) combination of an encoder configuration over the standard stimulus.

    ``biases``: for a run-time-bias format, the biases the exhaustive and directed stimulus is repeated
    for (default: ``EXHAUSTIVE_BIASES`` for 16-bit sources, ``DEFAULT_BIASES`` for FP32; random FP32
    operands get a random bias each, from all 64). ``stim`` may be ``(patterns, bias)``.
    """
    _check_cfg(cfg, "encoder_case")
    fmt, source = unit_format(cfg), cfg.get("source", "fp32")
    roundings = cfg.get("rounding") or fmt.roundings[:1]
    roundings = (roundings,) if isinstance(roundings, str) else tuple(roundings)
    saturate = {False: "off", True: "on"}.get(cfg.get("saturate", False), cfg.get("saturate", False))
    sats = (0, 1) if saturate == "runtime" else ((1,) if saturate == "on" else (0,))
    rand_bits = cfg.get("rand_bits", DEFAULT_RAND_BITS)
    bias = None
    if stim is None:
        stim, bias = stimulus_with_bias(fmt, source, n_random, seed, biases)
    elif isinstance(stim, tuple):
        stim, bias = stim
    x = _as_float(stim, source)
    blocks = [(r, s) for r in roundings for s in sats]
    n = len(stim)
    draws = random_bits(cfg.get("seed", 0), n * len(blocks), rand_bits).astype(np.uint64)
    case = UnitCase()
    ins = {"a": [], "mode": [], "sat": [], "rand": [], "bias": []}
    exp = {"y": [], "flags": []}
    extra = {} if bias is None else {"bias": bias.astype(np.int64)}
    for k, (r, s) in enumerate(blocks):
        rand = draws[k * n : (k + 1) * n]
        y, f = encode_with_flags(fmt, x, rounding=r, saturate=bool(s), nan_to_zero=cfg.get("nan_to_zero", False),
                                 rand=rand if r == "sr" else None, rand_bits=rand_bits, **extra)
        ins["a"].append(stim)
        ins["mode"].append(np.full(n, ROUNDING_MODES[r], np.uint64))
        ins["sat"].append(np.full(n, s, np.uint64))
        ins["rand"].append(rand)
        if bias is not None:
            ins["bias"].append(bias.astype(np.uint64))
        exp["y"].append(y.astype(np.uint64))
        exp["flags"].append(f.astype(np.uint64))
        case.labels.append((k * n, f"rounding {r}, saturate {s}"))
    keep = ["a"]
    if "sr" in roundings:
        keep.append("rand")
    if len(roundings) > 1:
        keep.append("mode")
    if saturate == "runtime":
        keep.append("sat")
    if bias is not None:
        keep.append("bias")
    case.inputs = {p: np.concatenate(ins[p]) for p in keep}
    case.expected = {p: np.concatenate(v) for p, v in exp.items()}
    return case


def decoder_case(cfg, *, biases=None):
    """All codes of the format, decoded to the target; a run-time-bias format repeats them for each bias
    of ``biases`` (default: all 64 for 8-bit codes, :data:`DEFAULT_BIASES` for wider ones)."""
    _check_cfg(cfg, "decoder_case")
    fmt = unit_format(cfg)
    codes = np.arange(1 << fmt.bits, dtype=np.uint64)
    if not fmt.runtime_bias:
        y = decode_bits(fmt, codes, cfg.get("target", "fp32")).astype(np.uint64)
        return UnitCase(inputs={"a": codes}, expected={"y": y}, labels=[(0, "all codes")])
    if biases is None:
        biases = RUNTIME_BIASES if fmt.bits <= 8 else DEFAULT_BIASES
    biases = np.asarray(tuple(biases), dtype=np.uint64)
    # Interleave: code-major, so the bias changes from one vector to the next.
    a = np.repeat(codes, len(biases))
    bias = np.tile(biases, len(codes))
    y = decode_bits(fmt, a, cfg.get("target", "fp32"), bias=bias.astype(np.int64)).astype(np.uint64)
    return UnitCase(inputs={"a": a, "bias": bias}, expected={"y": y},
                    labels=[(0, f"all codes × biases {','.join(map(str, biases.tolist()))}")])


def unit_case(cfg, *, biases=None, **kwargs):
    """The case of a unit (a :class:`~fpforge.hw.spec.UnitSpec`, or a dict of ``build_unit`` keywords): the
    case builder of its spec's class in :data:`CASES`. ``biases`` applies to scalar units; ``kwargs``
    (``n_random``, ``seed``, ``stim``, ...) go to the builder."""
    from ..hw.spec import as_spec

    if not hasattr(cfg, "unit"):
        _check_cfg(cfg, "unit_case", unit=True)
    spec = as_spec(cfg)
    return CASES[type(spec)](spec.as_options(), biases, **kwargs)


def _case_table():
    from ..hw.spec import BlockDecoderSpec, BlockEncoderSpec, DecoderSpec, DotSpec, EncoderSpec

    return {
        EncoderSpec: lambda c, biases, **kw: encoder_case(c, **kw, **({} if biases is None else {"biases": biases})),
        DecoderSpec: lambda c, biases, **kw: decoder_case(c, biases=biases),
        BlockEncoderSpec: lambda c, biases, **kw: block_encoder_case(c, **kw),
        BlockDecoderSpec: lambda c, biases, **kw: block_decoder_case(c, **kw),
        DotSpec: lambda c, biases, **kw: dot_case(c, **kw),
    }

# -- block units ------------------------------------------------------------------------------------------
def wide_words(ints, width) -> np.ndarray:
    """Python ints of ``width`` bits as ``(n, ceil(width / 64))`` uint64 words, least significant first
    (how cases carry ports wider than 64 bits; :func:`fpforge.golden.layout.ints_to_words`)."""
    return ints_to_words(ints, width, wide=True)


def block_source_bits(x, source):
    """float32 blocks -> source bit patterns (uint32 / uint16 for bf16)."""
    import ml_dtypes

    if source == "bf16":
        with np.errstate(over="ignore"):
            return x.astype(ml_dtypes.bfloat16).view(np.uint16), x.astype(ml_dtypes.bfloat16)
    return x.view(np.uint32), x


def block_encoder_case(cfg, *, n_random=20_000, seed=1):
    """The directed blocks under every enabled rounding, then ``n_random`` random blocks with the rounding
    (run-time ``mode``) cycling block by block.

    Block ``v`` of the whole case takes draws ``v*k1 .. v*k1+k1-1`` of the unit's seed for ``sr`` (what the
    stream pipeline's generator supplies; a latency-0 unit gets them on its ``rand`` port).
    """
    from ..golden.block import block_words, encode_block
    from .vectors import directed_blocks, random_blocks

    fmt = get_format(cfg["format"])
    source = cfg.get("source", "fp32")
    roundings = cfg.get("rounding") or fmt.roundings[:1]
    roundings = (roundings,) if isinstance(roundings, str) else tuple(roundings)
    rand_bits = cfg.get("rand_bits", DEFAULT_RAND_BITS)
    directed = directed_blocks(fmt, seed)
    nd, M = len(directed), len(roundings)
    x = np.concatenate([np.tile(directed, (M, 1)), random_blocks(fmt.k1, n_random, seed)])
    modes = np.concatenate([np.repeat(np.arange(M), nd), np.arange(n_random) % M])
    bits, xs = block_source_bits(x, source)
    n = len(x)
    draws = random_bits(cfg.get("seed", 0), n * fmt.k1, rand_bits).reshape(n, fmt.k1)
    y = np.zeros((n, -(-fmt.block_bits // 64)), np.uint64)
    for k, r in enumerate(roundings):
        idx = np.nonzero(modes == k)[0]
        enc = encode_block(fmt, xs[idx], rounding=r, rand=draws[idx].ravel() if r == "sr" else None,
                           rand_bits=rand_bits)
        y[idx] = wide_words(block_words(fmt, enc), fmt.block_bits)
    case = UnitCase()
    case.labels = [(k * nd, f"directed blocks, rounding {r}") for k, r in enumerate(roundings)]
    case.labels.append((M * nd, f"random blocks, rounding cycling {'/'.join(roundings)}"))
    case.inputs = {"a": pack_lanes(bits, SOURCES[source].bits)}
    if M > 1:
        case.inputs["mode"] = np.array([ROUNDING_MODES[roundings[k]] for k in modes], np.uint64)
    if "sr" in roundings:
        case.inputs["rand"] = pack_lanes(draws, rand_bits)
    case.expected = {"y": y}
    return case


def block_decoder_case(cfg, *, n_random=20_000, seed=1):
    """What the block encoder case produces (the directed blocks under every rounding, then ``n_random // 2``
    random blocks, roundings cycling) and ``n_random - n_random // 2`` random bit patterns (codes no encoder
    produces: NaN elements, INT8 -128, scale 0xFE …), decoded to FP32 bits."""
    from ..golden.block import decode_block_bits, from_block_words
    fmt = get_format(cfg["format"])
    enc_case = block_encoder_case(dict(format=fmt.name, rounding=fmt.roundings, seed=seed),
                                  n_random=n_random // 2, seed=seed)
    words = words_to_ints(enc_case.expected["y"])
    rng = np.random.default_rng(seed)
    nbytes = -(-fmt.block_bits // 8)
    raw = rng.integers(0, 256, (n_random - n_random // 2, nbytes), dtype=np.uint8)
    mask = (1 << fmt.block_bits) - 1
    n_enc = len(words)
    words += [int.from_bytes(row.tobytes(), "little") & mask for row in raw]
    y = decode_block_bits(fmt, from_block_words(fmt, words)).reshape(len(words), fmt.k1)
    labels = [(start, "encoded " + text) for start, text in enc_case.labels] + [(n_enc, "random bit patterns")]
    return UnitCase(inputs={"a": wide_words(words, fmt.block_bits)}, expected={"y": pack_lanes(y, 32)},
                    labels=labels)


# -- dot products -----------------------------------------------------------------------------------------
def dot_config(cfg):
    """The :class:`fpforge.golden.dot.DotConfig` of a ``unit="dot"`` configuration."""
    from ..golden.dot import DotConfig

    return DotConfig(cfg["format"], cfg["r"], cfg["f"], cfg.get("format_b"))


def _selects(fmt) -> bool:
    """The operand format is chosen per dot product at run time (``fp8``: a ``sel`` port)."""
    return fmt.dot_side.element_block_exponent and fmt.select_bits > 0


def dot_case(cfg, *, n_random=20_000, seed=1, directed=True):
    return dot_bundle_case([cfg], n_random=n_random, seed=seed, directed=directed, prefix=False)


def dot_bundle_case(cfgs, *, n_random=20_000, seed=1, directed=True, prefix=True):
    """The directed dot products of the (first) configuration (``sim.vectors.directed_dot_operands``), then
    ``n_random`` random ones (``random_dot_operands``: quantized Gaussian data with spread block scales and
    raw bit patterns), with golden FP32 results (and the raw sum/exponent for ``raw`` units) of every
    configuration on those operands — outputs named ``u<k>_<port>`` (``prefix``) plus ``desync`` = 0 for a
    bundle (:func:`fpforge.sim.regress.regress_bundle`)."""
    from ..golden.dot import dot, operand_words
    from .vectors import concat_dot_operands, directed_dot_operands, random_dot_operands
    from .vectors.dot import bias_kwargs

    dc = dot_config(cfgs[0])
    groups = []
    if directed:
        groups.append(directed_dot_operands(dc, seed))
    if n_random:
        groups.append(random_dot_operands(dc, n_random, seed + 1))
    ops = concat_dot_operands(dc, groups)
    case = UnitCase(labels=ops.labels)
    case.inputs = {"a": operand_words(dc.a, ops.a), "b": operand_words(dc.b, ops.b)}
    for side, fmt, sel in (("sel_a", dc.a, ops.sel_a), ("sel_b", dc.b, ops.sel_b)):
        if _selects(fmt):
            case.inputs[side] = np.asarray(sel, np.uint64)
    for side, bias in bias_kwargs(dc, ops).items():  # CFloat8 operands: bias_a/bias_b ports
        case.inputs[side] = np.asarray(bias, np.uint64)
    for k, cfg in enumerate(cfgs):
        ck = dot_config(cfg)
        sel_a = ops.sel_a if _selects(ck.a) else None
        sel_b = ops.sel_b if _selects(ck.b) else None
        res = dot(ck, ops.a, None, ops.b, select_a=sel_a, select_b=sel_b, **bias_kwargs(ck, ops))
        pre = f"u{k}_" if prefix else ""
        case.expected[pre + "y"] = res.y.astype(np.uint64)
        if cfg.get("raw"):
            case.expected[pre + "sum"] = twos_words(res.sum, ck.acc_bits)
            case.expected[pre + "exp"] = twos_words(res.exp, ck.exp_bits)
    if prefix:
        case.expected["desync"] = np.zeros(case.size, np.uint64)
    return case


#: The case builder of each spec class: ``builder(options, biases, **kwargs)`` (the one place a unit's kind
#: picks its stimulus; the scaled encoder's case is :func:`fpforge.sim.scaling.scaled_encoder_case`).
CASES = _case_table()
