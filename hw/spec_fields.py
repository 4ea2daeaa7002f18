"""The per-field checks of the unit specs (:mod:`fpforge.hw.spec`): ``check(value, spec) -> canonical value``,
one per option, raising a one-line fpforge error on bad input. A spec field names its check
(``option(default, field_stages)``); checks run in declaration order, so a check may read the fields declared
before it."""

from __future__ import annotations

from ..golden.block import BlockFormat
from ..golden.checks import as_bool, as_int, as_seed
from ..golden.dot import F_RANGE
from ..golden.errors import FpforgeTypeError, FpforgeValueError
from ..golden.formats import SOURCES
from ..golden.taperedformat import TaperedFormat

__all__ = ["BLOCK_DECODER_TARGETS", "MAX_LATENCY", "MAX_PORT_BITS", "SCALED_SOURCES", "SCALINGS",
           "check_block_decodable", "check_block_encodable", "check_choice", "check_decodable", "check_lanes",
           "check_port_bits", "field_dot_rounding", "field_dot_saturate", "field_flag", "field_lanes",
           "field_latency", "field_operand", "field_rand_bits", "field_rounding", "field_saturate",
           "field_scaled_source", "field_scaling", "field_seed", "field_source", "field_stages", "field_target"]

#: Largest ``latency`` (conversion units) and ``stages`` (dot units): register stages beyond this only
#: add flip-flops, and a typo such as 1000000 would otherwise build for hours.
MAX_LATENCY = 64
#: Largest width of one port (a block of a block unit, an operand of a dot unit), in bits.
MAX_PORT_BITS = 1 << 16
#: Scale options of a scaled encoder (:mod:`fpforge.hw.scaling`): an FP32 multiply, or a power-of-two exponent
#: add (scale ``2**k``, ``k`` a signed 9-bit port).
SCALINGS = ("fp32", "pow2")
#: Sources of the scaled encoder.
SCALED_SOURCES = ("fp32", "bf16")
#: Targets of the block decoder.
BLOCK_DECODER_TARGETS = ("fp32",)


def check_choice(value, choices, what, unknown=False):
    """``value`` if it is one of ``choices`` (names), else a one-line error naming them."""
    if unknown and (not isinstance(value, str) or value not in choices):
        raise FpforgeValueError(f"unknown {what} {str(value)[:40]!r}; valid choices: {', '.join(choices)}")
    if not isinstance(value, str) or value not in choices:
        raise FpforgeValueError(f"{what} must be one of {', '.join(choices)}, not {str(value)[:40]!r}")
    return value


def check_lanes(lanes):
    """``lanes`` if it is a lane count a scaled encoder takes (1..64)."""
    if isinstance(lanes, bool) or not isinstance(lanes, int) or not 1 <= lanes <= 64:
        raise FpforgeValueError(f"lanes must be an integer in 1..64, not {lanes!r}")
    return lanes


def field_dot_rounding(value, spec):
    """A dot unit's cast rounds with one mode: a name, or a one-name list (the command line's form)."""
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise FpforgeValueError(f"a dot unit's cast to out_format rounds with one mode, not {','.join(value)}")
        value = value[0]
    return value


def field_dot_saturate(value, spec):
    """The cast's saturation: True/False ('on'/'off'), None for the default (True with a cast)."""
    if isinstance(value, str) and value == "runtime":
        raise FpforgeValueError("a dot unit's cast saturates or not at build time: saturate must be True or "
                                "False, not 'runtime'")
    return {"on": True, "off": False}.get(value, value) if isinstance(value, str) else value


def check_port_bits(what, bits):
    if bits > MAX_PORT_BITS:
        raise FpforgeValueError(f"{what} would be a {bits}-bit port; fpforge builds ports of up to {MAX_PORT_BITS} "
                                "bits (fewer elements or a smaller block)")


# -- rules between a unit's format and its other fields (the spec's ``_check``) -------------------------------
def check_decodable(fmt, target):
    """A scalar decoder's rule: its ``target`` (a source format's name) holds every value of ``fmt`` exactly
    (at every bias, for a run-time-bias format)."""
    tgt = SOURCES[target]
    if isinstance(fmt, TaperedFormat):
        if fmt.mbits > tgt.mbits or fmt.emax > tgt.emax or fmt.min_subnormal < tgt.min_subnormal:
            raise FpforgeValueError(f"{tgt.name} cannot hold every {fmt.name} value exactly")
        return
    lowest = (fmt.at(max(fmt.biases)) if fmt.runtime_bias else fmt).min_subnormal
    if fmt.mbits > tgt.mbits or fmt.exponent_span[1] > tgt.emax or lowest < tgt.min_subnormal:
        raise FpforgeValueError(f"{tgt.name} cannot hold every {fmt.name} value exactly"
                                + (" at every bias" if fmt.runtime_bias else ""))
    if fmt.runtime_bias and lowest < tgt.min_normal:  # (no such target exists among fp32/fp16/bf16)
        raise FpforgeValueError(f"a {fmt.name} decoder needs a target whose normals hold every value")


def check_block_encodable(fmt):
    """A block encoder's rule: a BDR format's element mantissa has at most 24 bits."""
    if isinstance(fmt, BlockFormat) and fmt.m > 24:
        raise FpforgeValueError(f"block encoders support m <= 24, not {fmt.m!r}")


def check_block_decodable(fmt):
    """A block decoder's rule: FP32 holds every value of the block format exactly."""
    if isinstance(fmt, BlockFormat) and not fmt.float32_exact:
        raise FpforgeValueError(f"FP32 cannot hold every {fmt.name} value exactly (needs m <= 24, "
                                f"2**(d1-1) + 2**d2 + m <= 151); block decoders exist for formats it can hold")


# -- per-field checks: check(value, spec) -> canonical value -------------------------------------------------
def field_source(value, spec):
    from .rounding import source_format

    value = "fp32" if value is None else value
    if spec.unit == "block-encoder":
        return source_format(value, "block encoder source", ("fp32", "bf16")).name
    return source_format(value).name


def field_target(value, spec):
    from .rounding import source_format

    return source_format(value if value is not None else "fp32", "target").name


def field_scaled_source(value, spec):
    return check_choice("fp32" if value is None else value, SCALED_SOURCES, "source of a scaled encoder")


def field_rounding(value, spec):
    from .rounding import check_roundings

    if value is not None and not isinstance(value, str):
        if not isinstance(value, (tuple, list)) or not all(isinstance(r, str) for r in value):
            raise FpforgeTypeError(f"rounding must be a mode name or a tuple of them, not {value!r}")
        if not value:
            raise FpforgeValueError("rounding names no mode; give at least one (or None for the format's default)")
    fmt = spec.descriptor  # the format's field is checked before this one
    return check_roundings(fmt, fmt.roundings[:1] if value is None else value)


def field_saturate(value, spec):
    if isinstance(value, str) and value in ("off", "on"):
        return value == "on"
    if not (isinstance(value, bool) or isinstance(value, str) and value == "runtime"):
        raise FpforgeTypeError(f"saturate must be True, False or 'runtime' ('off'/'on' for False/True), not "
                               f"{value!r}")
    return value


def field_flag(name):
    return lambda value, spec: as_bool(value, name)


def field_latency(lo=0):
    def check(value, spec):
        value = as_int(value, "latency", 0, MAX_LATENCY)
        if value < lo:
            raise FpforgeValueError(f"a scaled encoder is a stream (its running amax is a register): latency "
                                    f"must be an integer >= 1, not {value!r}")
        return value
    return check


def field_stages(value, spec):
    return as_int(value, "stages", 0, MAX_LATENCY)


def field_rand_bits(value, spec):
    return None if value is None else as_int(value, "rand_bits", 1, 32)


def field_seed(value, spec):
    return as_seed(value)


def field_lanes(value, spec):
    return check_lanes(value)


def field_scaling(value, spec):
    return check_choice("fp32" if value is None else value, SCALINGS, "scaling")


def field_operand(value, spec):
    from ..golden.dot import operand_format

    return None if value is None else operand_format(value).name


def field_datapath(value, spec):
    """A dot unit's datapath: ``auto``, ``aligned`` or ``anchored`` (:data:`fpforge.hw.dot.DATAPATHS`; the rule
    between it and the window is in ``DotSpec._check``)."""
    return check_choice(value, ("auto", "aligned", "anchored"), "datapath")


#: The dot unit's datapaths (``docs/dot.md``, "Datapaths"): ``aligned`` — the paper's max-exponent tree, right
#: shifts into the f-bit window, sticky and correction; ``anchored`` — every block sum shifted left by its
#: exponent offset from x_min into one fixed-point sum (exact windows only, f >= f_exact); ``auto`` — the
#: smaller of the two (:func:`resolve_datapath`).
DATAPATHS = ("auto", "aligned", "anchored")

#: The widest exact window ``auto`` anchors (measured, bench/bench_qor.py at r = 8: anchored is smaller up to
#: HiF8's f = 83; CFloat8 with run-time biases, f = 165, did not even synthesize within 600 s anchored, against
#: 76 s and 5,754 um^2 aligned).
AUTO_ANCHORED_MAX_F = 96

#: The narrowest exact window at which ``auto`` anchors a unit of one block (measured, ``python bench/bench_qor.py
#: --targets``, the section ``bench-qor-targets`` of docs/results.md: one block anchored is smaller at MXFP8's
#: f_exact 42 and 70 and larger at every f_exact <= 24, where the anchored P6's fixed logic — the subnormal
#: marker, the right-shift branch — outweighs the aligned P6's second shifter on a short sum).
AUTO_ONE_BLOCK_MIN_F = 40


def resolve_datapath(cfg, datapath="auto", *, raw=False) -> str:
    """The datapath ``datapath`` names for the :class:`DotConfig` ``cfg``: ``aligned`` or ``anchored``.

    ``auto`` picks ``anchored`` when it is allowed (an exact window, f >= ``cfg.f_exact``, and no ``raw``
    outputs) and either more than one block is summed (exact windows up to :data:`AUTO_ANCHORED_MAX_F`) or one
    block's exact window is at least :data:`AUTO_ONE_BLOCK_MIN_F` bits; else ``aligned`` (docs/dot.md has the
    measurements behind the rule). Both give the same result bits for every input.

    Raises
    ------
    ValueError
        An unknown datapath; ``anchored`` with a window narrower than ``cfg.f_exact`` or with ``raw`` outputs
        (the raw sum and exponent are the aligned datapath's, relative to the largest block exponent).
    """
    if not isinstance(datapath, str) or datapath not in DATAPATHS:
        raise FpforgeValueError(f"datapath must be one of {', '.join(DATAPATHS)}, not {str(datapath)[:40]!r}")
    exact = cfg.f >= cfg.f_exact
    if datapath == "anchored":
        if not exact and cfg.f_exact > F_RANGE[1]:
            raise FpforgeValueError(f"datapath anchored needs an exact window, f >= {cfg.f_exact} for {cfg.a.name}"
                                    f"{'' if cfg.a == cfg.b else ' x ' + cfg.b.name}, r={cfg.r}: beyond the largest "
                                    f"window {F_RANGE[1]}; use datapath aligned or auto (or a smaller r)")
        if not exact:
            raise FpforgeValueError(f"datapath anchored needs an exact window: f >= {cfg.f_exact} for {cfg.a.name}"
                                    f"{'' if cfg.a == cfg.b else ' x ' + cfg.b.name}, r={cfg.r} (the smallest f "
                                    f"that allows it), not f={cfg.f}; use datapath aligned or auto")
        if raw:
            raise FpforgeValueError("datapath anchored has no raw outputs (the raw sum and exponent are the aligned "
                                    "datapath's); use datapath aligned or auto with raw")
        return "anchored"
    if datapath == "auto":
        wide = cfg.f_exact <= AUTO_ANCHORED_MAX_F if cfg.nb > 1 else cfg.f_exact >= AUTO_ONE_BLOCK_MIN_F
        return "anchored" if exact and not raw and wide else "aligned"
    return "aligned"
