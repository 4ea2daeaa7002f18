"""The shared rounding unit: round an unsigned integer right by a run-time bit count.

Every encoder in fpforge reduces its job to ``q = round(sig / 2**shift)``: FP8 targets with a shift that
depends on the operand's exponent, HiF8 with a mantissa width that depends on it too, CFloat with a
run-time bias, MX elements with the block's shared exponent. This unit does only that step, for every
rounding mode, exactly as the golden model does it (``fpforge.golden.minifloat``).
"""

from operator import attrgetter

import numpy as np
from amaranth import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import bits_for

from ..golden.checks import as_int, describe
from ..golden.errors import FpforgeTypeError, FpforgeValueError
from ..golden.formats import ROUNDING_MODES, SOURCES, Flag
from ..golden.rng import DEFAULT_RAND_BITS
from .names import format_label

__all__ = ["MODE_WIDTH", "SATURATE_CHOICES", "DecoderOptions", "EncoderOptions", "Rounder", "check_rand_bits", "check_roundings",
           "check_saturate", "emin_span", "encoder_members", "SATURATE_WORDS", "mode_is", "read_only", "round_to_format", "source_format"]

SATURATE_CHOICES = ("off", "on", "runtime")
#: The one spelling of ``saturate`` (the spec's: False, True, "runtime") as the Verilog header prints it.
SATURATE_WORDS = {False: "off", True: "on", "runtime": "runtime"}

#: Width of every run-time ``mode`` port (codes from ``ROUNDING_MODES``).
MODE_WIDTH = 3

_GENERIC = ("rne", "ta", "rtz", "sr", "hr")


class Rounder(wiring.Component):
    """Round ``sig`` right by ``shift`` bits.

    Parameters
    ----------
    width : int
        Width of ``sig``.
    shift_width : int
        Width of ``shift``; shifts of ``width + round bits`` or more discard everything.
    modes : tuple of str
        Enabled rounding modes (``rne``, ``ta``, ``rtz``, ``sr``, ``hr``). With one mode, ``mode`` is
        ignored.
    rand_bits : int
        R, the random bits per value used by ``sr``.
    thresh_bits : int
        K, the width of the ``hr`` threshold (HiF8's SR14 / SR2).
    paper_literal : bool
        ``hr`` compares ``F >= T`` even when nothing was discarded (see ``docs/hif8.md``).
    expose : bool
        Add the ``trunc``, ``frac`` and ``discarded`` outputs (units without them keep the same netlist).
    lsb_flip : bool
        Add the ``lsb_flip`` input: the LSB of the code being rounded is ``q[0] ^ lsb_flip`` (``rne`` ties go
        to the even code). A format without mantissa bits needs it: its ``q`` is the hidden bit and its
        code's LSB is the exponent field's.

    Members
    -------
    sig : In(width)
        The magnitude to round.
    shift : In(shift_width)
        How many low bits to discard.
    mode : In(3)
        Run-time rounding mode (``ROUNDING_MODES`` codes); codes not enabled act as ``modes[0]``.
    rand : In(rand_bits)
        Random bits for ``sr`` (present only when ``sr`` is enabled).
    q : Out(width + 1)
        ``sig >> shift`` rounded.
    inexact : Out(1)
        ``q`` differs from ``sig / 2**shift``: some discarded bit was non-zero, or the value was rounded
        up although nothing was discarded (only paper-literal ``hr`` does that).
    round_bit : Out(1)
        The most significant discarded bit (the half-ulp bit); encoders with their own rules use it.
    trunc : Out(width)
        Only with ``expose``: ``sig >> shift`` before rounding (``q`` minus the round-up).
    frac : Out(frac_bits)
        Only with ``expose``: the top ``frac_bits`` discarded bits (``round_bit`` is the most
        significant); with ``trunc`` and ``discarded`` they let an encoder round where the spacing is not
        a power of two (the CFloat denormal gap).
    discarded : Out(1)
        Only with ``expose``: some discarded bit is non-zero.
    thresh : In(thresh_bits)
        ``hr`` only: the threshold ``T`` the top K discarded bits ``F`` are compared with.
    hr_sr : In(1)
        ``hr`` only: 1 selects the thresholded rounding (``F >= T``), 0 selects ``ta``.
    lsb_flip : In(1)
        Only with ``lsb_flip``: flips the parity ``rne`` reads from ``q[0]``.

    Notes
    -----
    ``sr`` rounds up when ``F + rand >= 2**R`` where ``F`` is the top R discarded bits (bits beyond the
    operand read as zero): an exact value never moves, and the probability of rounding up is
    ``F / 2**R``.
    """

    def __init__(self, width, shift_width, modes=("rne",), rand_bits=16, thresh_bits=14, paper_literal=False,
                 expose=False, lsb_flip=False):
        if width < 1:
            raise FpforgeValueError(f"width must be positive, not {width!r}")
        modes = tuple(modes)
        if not modes or any(m not in _GENERIC for m in modes):
            raise FpforgeValueError(f"modes must be drawn from {', '.join(_GENERIC)}, not {modes!r}")
        self._width = width
        self._modes = modes
        self._rand_bits = rand_bits
        self._thresh_bits = thresh_bits
        self._paper_literal = bool(paper_literal)
        self._frac_bits = self.frac_bits_for(modes, rand_bits, thresh_bits)
        members = {
            "sig": In(width),
            "shift": In(shift_width),
            "mode": In(MODE_WIDTH),
            "q": Out(width + 1),
            "inexact": Out(1),
            "round_bit": Out(1),
        }
        self._expose = bool(expose)
        if expose:
            members.update({"trunc": Out(width), "frac": Out(self._frac_bits), "discarded": Out(1)})
        if "sr" in modes:
            members["rand"] = In(rand_bits)
        if "hr" in modes:
            members["thresh"] = In(thresh_bits)
            members["hr_sr"] = In(1)
        if lsb_flip:
            members["lsb_flip"] = In(1)
        super().__init__(members)

    @staticmethod
    def frac_bits_for(modes, rand_bits=16, thresh_bits=14):
        """How many discarded bits the unit keeps apart (the rest only feed the sticky bit)."""
        return max([1] + [rand_bits] * ("sr" in modes) + [thresh_bits] * ("hr" in modes))

    @property
    def modes(self):
        return self._modes

    @property
    def frac_bits(self):
        return self._frac_bits

    def elaborate(self, platform):
        m = Module()
        w, f = self._width, self._frac_bits
        ext = Cat(Const(0, f), self.sig)  # sig << f
        shifted = Signal(w + f)
        m.d.comb += shifted.eq(ext >> self.shift)
        q = shifted[f:]
        frac = shifted[:f]
        # Bits of ext below the kept round bits: ext[i] for i < shift.
        below = Cat(*(self.shift > i for i in range(w + f)))
        sticky_low = (ext & below).any()
        sticky = sticky_low | (frac[: f - 1].any() if f > 1 else 0)
        rbit = frac[f - 1]

        odd = q[0] ^ self.lsb_flip if "lsb_flip" in self.signature.members else q[0]
        ups = {
            "rne": rbit & (sticky | odd),
            "ta": rbit,
            "rtz": Const(0, 1),
        }
        discarded = Signal()
        m.d.comb += discarded.eq(frac.any() | sticky_low)
        if "sr" in self._modes:
            r = self._rand_bits
            ups["sr"] = (frac[f - r :] + self.rand)[r]  # carry out of the R-bit add
        if "hr" in self._modes:
            k = self._thresh_bits
            thr_up = frac[f - k :] >= self.thresh
            if not self._paper_literal:
                thr_up = thr_up & discarded
            ups["hr"] = Mux(self.hr_sr, thr_up, rbit)
        up = Signal()
        if len(self._modes) == 1:
            m.d.comb += up.eq(ups[self._modes[0]])
        else:
            with m.Switch(self.mode):
                for name in self._modes[1:]:
                    with m.Case(ROUNDING_MODES[name]):
                        m.d.comb += up.eq(ups[name])
                with m.Default():
                    m.d.comb += up.eq(ups[self._modes[0]])
        # Inexact: the result differs from the operand. Only paper-literal ``hr`` can round up an exact
        # value (nothing discarded), and that result is inexact too.
        m.d.comb += [
            self.q.eq(q + up),
            self.inexact.eq(discarded | up),
            self.round_bit.eq(rbit),
        ]
        if self._expose:
            m.d.comb += [self.trunc.eq(q), self.frac.eq(frac), self.discarded.eq(discarded)]
        return m


def mode_is(unit, name):
    """1 when ``unit`` (with ``roundings`` and maybe a ``mode`` port) is rounding with ``name``."""
    modes = unit.roundings
    if name not in modes:
        return Const(0, 1)
    if len(modes) == 1:
        return Const(1, 1)
    if modes[0] != name:
        return unit.mode == ROUNDING_MODES[name]
    # The first mode also covers every code that names no enabled mode.
    return ~Cat(*(unit.mode == ROUNDING_MODES[r] for r in modes[1:])).any()


def check_roundings(fmt, roundings):
    """Validate an encoder's rounding list against the format; return it as a tuple."""
    if isinstance(roundings, str):
        roundings = (roundings,)
    if not isinstance(roundings, (tuple, list)) or not all(isinstance(r, str) for r in roundings):
        raise FpforgeTypeError(f"roundings must be a mode name or a tuple of them, not {describe(roundings)}")
    roundings = tuple(dict.fromkeys(roundings))
    for r in roundings:
        if r not in fmt.roundings:
            raise FpforgeValueError(
                f"format {fmt.name!r} has no rounding {r!r}; valid choices: {', '.join(fmt.roundings)}"
            )
    if not roundings:
        raise FpforgeValueError("at least one rounding mode is needed")
    return roundings


def check_saturate(saturate):
    """``saturate`` in its one spelling (False, True or "runtime"; "off"/"on" are read as False/True)."""
    if isinstance(saturate, (bool, np.bool_)):
        return bool(saturate)
    if not isinstance(saturate, str) or saturate not in SATURATE_CHOICES:
        raise FpforgeValueError(f"saturate must be one of {', '.join(SATURATE_CHOICES)}, not {saturate!r}")
    return {"off": False, "on": True}.get(saturate, saturate)


def check_rand_bits(rand_bits):
    """``rand_bits`` (R, the random bits per value for ``sr``) checked to lie in 1..32."""
    return as_int(rand_bits, "rand_bits", 1, 32)


def source_format(name, what="source", choices=tuple(SOURCES)):
    """The descriptor of an encoder's source (or a decoder's target, ``what="target"``) among ``choices``."""
    if not isinstance(name, str) or name not in choices:  # (a str first: junk such as an array is never compared)
        raise FpforgeValueError(f"unknown {what} {str(name)[:40]!r}; valid choices: {', '.join(choices)}")
    return SOURCES[name]


def read_only(attr, doc=None):
    """A read-only property returning ``self.<attr>`` (the units keep their parameters private)."""
    return property(attrgetter(attr), doc=doc)


class DecoderOptions:
    """What the decoders share: ``format`` and ``target`` as read-only properties."""

    format = read_only("_fmt")
    target = read_only("_tgt")


class EncoderOptions:
    """What the scalar encoders (FP8 family, HiF8) share: their options, checked once and kept as read-only
    properties, the ports the options imply, and the head of the Verilog header line."""

    format = read_only("_fmt")
    source = read_only("_src")
    roundings = read_only("_roundings")
    saturate = read_only("_saturate")
    nan_to_zero = read_only("_nan_to_zero")
    rand_bits = read_only("_rand_bits")

    def _take_spec(self, spec) -> dict:
        """Keep the options of a checked :class:`~fpforge.hw.spec.EncoderSpec`; return the ports (:func:`encoder_members`)."""
        self._fmt, self._src = spec.descriptor, SOURCES[spec.source]
        self._roundings, self._saturate = spec.rounding, spec.saturate
        self._nan_to_zero = spec.nan_to_zero
        self._rand_bits = DEFAULT_RAND_BITS if spec.rand_bits is None else spec.rand_bits
        return encoder_members(self._fmt, self._src, self._roundings, self._saturate, self._rand_bits)

    def _describe_options(self):
        """The header line's source, target and options (callers append format-specific notes)."""
        return (f"encoder {self._src.name} -> {format_label(self._fmt)}, rounding {','.join(self._roundings)}, "
                f"saturate {SATURATE_WORDS[self._saturate]}, nan_to_zero {int(self._nan_to_zero)}"
                + (f", rand_bits {self._rand_bits}" if "sr" in self._roundings else ""))


def encoder_members(fmt, src, roundings, saturate, rand_bits) -> dict:
    """A scalar encoder's ports ``a``, ``y``, ``flags``, ``rand`` (with ``sr``), ``mode`` (several roundings) and
    ``sat`` (``saturate="runtime"``), in order (without a run-time-bias format's ``bias``)."""
    members = {"a": In(src.bits), "y": Out(fmt.bits), "flags": Out(len(Flag))}
    if "sr" in roundings:
        members["rand"] = In(rand_bits)
    if len(roundings) > 1:
        members["mode"] = In(MODE_WIDTH)
    if saturate == "runtime":
        members["sat"] = In(1)
    return members


def emin_span(fmt):
    """(lowest emin, highest emin) over the biases the format can take."""
    lo, hi = fmt.exponent_span
    return lo, 1 - min(fmt.biases)


def round_to_format(m, fmt, exp, sig, roundings, rand_bits, exp_max, *, emin=None, nonzero=None,
                    mag_name="mag"):
    """The magnitude code of ``sig * 2**(exp - (len(sig) - 1))`` in ``fmt`` before any overflow handling.

    ``sig`` has its leading (hidden) bit at the top, ``exp`` is the signed unbiased exponent (at most
    ``exp_max``). Returns ``(rounder, mag, under)``: the :class:`Rounder` submodule (the caller drives its
    ``mode``/``rand``), ``mag = (max(exp - emin, 0) << mbits) + q`` — a mantissa carry moves into the
    exponent by itself; ``mag > fmt.max_code`` is overflow — and ``under = emin - exp``. Used by
    :class:`Encoder` and by the OCP MX block encoder (``fpforge.hw.block``) with ``exp`` already divided by
    the block scale.

    ``emin`` is the format's smallest normal exponent, ``fmt.emin`` by default or a signal computed from a
    run-time bias port. With the guide's CFloat denormals the quantum below the normal range is
    ``2**(emin - 1 - mbits)`` (half IEEE's scale) and the rounder exposes ``trunc``/``frac`` for the gap
    rule the caller applies. ``nonzero``, when given, keeps a zero operand off the normal path (needed where
    a normalized zero's exponent can lie above a run-time ``emin``).
    """
    ms = len(sig) - 1
    M = fmt.mbits
    guide = fmt.denormals == "cfloat"
    if emin is None:
        emin = fmt.emin
    # Discard shift = (ms - mbits) + max(0, emin - exp), clamped to "everything"; below the normal range
    # the quantum is 2**(emin - guide - mbits) (the guide's denormals have half IEEE's scale).
    limit = ms + 1 + Rounder.frac_bits_for(roundings, rand_bits)
    # emin - exp over every value exp's signal can hold: one bit wider than exp, or more when emin lies far
    # below the source's exponents (P3109 binary8p1u*: emin = -127 against an FP16 source).
    emin_lo, emin_hi = emin_span(fmt)
    reach = 1 << (len(exp) - 1)
    under = Signal(signed(max(len(exp) + 1, bits_for(emin_lo - reach + 1, True), bits_for(emin_hi + reach, True))),
                   name="under")
    m.d.comb += under.eq(emin - exp)
    shift = Signal(range(limit + 1), name="shift")
    base = ms - M
    underq = under - 1 if guide else under  # how far below the denormal quantum's binade
    with m.If(under <= 0):
        m.d.comb += shift.eq(base)
    with m.Elif(underq >= limit - base):
        m.d.comb += shift.eq(limit)
    with m.Else():
        m.d.comb += shift.eq(base + underq[: len(shift)])

    # Without mantissa bits (P3109 p = 1) q is the hidden bit and the code's LSB is the exponent's: ties to
    # even read ep[0] too.
    m.submodules.rounder = rnd = Rounder(ms + 1, len(shift), roundings, rand_bits, expose=guide,
                                         lsb_flip=M == 0 and "rne" in roundings)
    m.d.comb += [rnd.sig.eq(sig), rnd.shift.eq(shift)]

    # Magnitude code: (max(exp - emin, 0) << mbits) + q; a mantissa carry moves into the exponent.
    ep_max = max(exp_max - emin_lo, 1)
    ep = Signal(range(ep_max + 1), name="ep")
    normal = under < 0 if nonzero is None else (under < 0) & nonzero
    with m.If(normal):
        m.d.comb += ep.eq(exp - emin)
    if "lsb_flip" in rnd.signature.members:
        m.d.comb += rnd.lsb_flip.eq(ep[0])
    mag = Signal(len(ep) + M + 2, name=mag_name)
    m.d.comb += mag.eq((ep << M) + rnd.q)
    return rnd, mag, under
