"""HiFloat8 conversion units built from the tapered-format descriptor: ``HiF8Encoder`` and ``HiF8Decoder``.

The encoder is one datapath for every mantissa width: the operand's exponent ``E`` selects the width
``w(E)`` (3, 2, 1, or 0 in the denormal binades) and so the round position of the shared
:class:`~fpforge.hw.rounding.Rounder`; the rounded significand and the exponent then index the dot/exponent
prefix of the code. Hybrid rounding (``hr``) takes its threshold from the operand's own low bits (SR14 for
FP32, SR2 for FP16/BF16), so it needs no random port. The Ascend-compatible descriptor (``hif8_ascend``,
``compat="ascend"``) makes ``hr`` compare ``F >= T`` literally and adds Ascend's two range checks before
rounding (``|x| < 2^-23`` gives 0, ``|x| >= 1.25 × 2^15`` overflows), and decodes NaN to +qNaN.
Semantics: ``docs/hif8.md``.
"""

import math

from amaranth import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..golden.errors import FpforgeValueError
from ..golden.formats import SOURCES, TaperedFormat, get_format
from ..golden.rng import DEFAULT_RAND_BITS
from ..golden.tapered import HR_TA_BELOW, ascend_limits, hr_threshold_bits
from .classify import classify, unpack_source
from .fromspec import SpecBuilt, decoder_spec, encoder_spec
from .names import format_label
from .rounding import DecoderOptions, EncoderOptions, Rounder, mode_is

__all__ = ["HiF8Decoder", "HiF8Encoder", "tapered_dot_fields"]


def _tapered_format(fmt):
    fmt = get_format(fmt)
    if not isinstance(fmt, TaperedFormat):
        raise FpforgeValueError(f"{getattr(fmt, 'name', fmt)!r} is not a tapered format")
    return fmt


class HiF8Encoder(SpecBuilt, EncoderOptions, wiring.Component):
    """Source float (FP32/FP16/BF16) → HiF8 (or another tapered format), combinational.

    Parameters
    ----------
    fmt : str or TaperedFormat
        Target format (``hif8``, or ``hif8_literal``: hybrid rounding's SR14 rounds up when
        ``F14 >= T14`` even for exact values).
    source : str
        ``fp32``, ``fp16`` or ``bf16``.
    roundings : tuple of str
        Enabled modes among ``ta``, ``hr``, ``sr``, ``rne``, ``rtz``; several add a ``mode`` port.
    saturate : str or bool
        ``"off"``/False, ``"on"``/True or ``"runtime"`` (adds a ``sat`` port): overflow and ±Inf give ±2^15.
    nan_to_zero : bool
        NaN operands encode as 0x00.
    rand_bits : int
        R, width of ``rand`` when ``sr`` is enabled.

    Members
    -------
    a : In(source bits)
    y : Out(8)
    flags : Out(5)
    rand : In(rand_bits)
        Only with ``sr``.
    mode : In(3)
        Only with several roundings (``ROUNDING_MODES`` codes; unknown codes act as the first mode).
    sat : In(1)
        Only with ``saturate="runtime"``.
    """

    def __init__(self, fmt="hif8", source="fp32", roundings=("ta",), saturate=False, nan_to_zero=False,
                 rand_bits=DEFAULT_RAND_BITS):
        super().__init__(self._take_spec(self.spec))  # (checked in __new__: SpecBuilt)

    @classmethod
    def spec_of(cls, fmt="hif8", source="fp32", roundings=("ta",), saturate=False, nan_to_zero=False,
                rand_bits=DEFAULT_RAND_BITS):
        """The :class:`~fpforge.hw.spec.EncoderSpec` the arguments describe (``fmt`` may be the spec itself)."""
        spec = encoder_spec(cls, fmt, source, roundings, saturate, nan_to_zero, rand_bits,
                            ("fp32", ("ta",), False, False, DEFAULT_RAND_BITS))
        _tapered_format(spec.descriptor)
        return spec

    def describe(self):
        return (self._describe_options()
                + (", paper_literal 1" if self._fmt.variant_name == "literal" else ""))  # the legacy option's header

    def elaborate(self, platform):
        m = Module()
        fmt, src = self._fmt, self._src
        sign, exp, sig, nan, inf, nonzero, subnormal = unpack_source(
            m, src, self.a, normalize=src.emin > fmt.dml_emin,
            width=max(src.mbits, fmt.mbits) + 1)
        ms = len(sig) - 1
        lo, hi = fmt.dml_emin, fmt.emax

        # Base exponent: E, or the smallest denormal exponent below the range (the quantum stays there).
        eb = Signal(signed(len(exp) + 1), name="eb")
        m.d.comb += eb.eq(Mux(exp < lo, lo, exp))
        # Mantissa width at eb, from the descriptor (exponents above emax overflow whatever it is).
        wmax = fmt.mbits
        width = Signal(range(wmax + 1), name="mwidth")
        with m.Switch(eb):
            for e in range(lo, hi + 1):
                with m.Case(e):
                    m.d.comb += width.eq(fmt.mant_width(e))
            with m.Default():
                m.d.comb += width.eq(fmt.mant_width(hi))

        # Discard shift = ms - w(eb) + (eb - E), clamped to "everything".
        k = hr_threshold_bits(src)
        limit = ms + 1 + Rounder.frac_bits_for(self._roundings, self._rand_bits, k)
        shift = Signal(range(limit + 1), name="shift")
        below = Signal(signed(len(exp) + 2), name="below")
        m.d.comb += below.eq(eb - exp + ms - width)
        m.d.comb += shift.eq(Mux(below >= limit, limit, below[: len(shift)]))

        ascend = fmt.compat == "ascend" and "hr" in self._roundings
        m.submodules.rounder = rnd = Rounder(ms + 1, len(shift), self._roundings, self._rand_bits, k,
                                             fmt.hr_literal or ascend)
        m.d.comb += [rnd.sig.eq(sig), rnd.shift.eq(shift)]
        if "mode" in self.signature.members:
            m.d.comb += rnd.mode.eq(self.mode)
        if "sr" in self._roundings:
            m.d.comb += rnd.rand.eq(self.rand)
        if "hr" in self._roundings:
            # T14 = the 14 low source bits (FP32); T2 = (source LSB, 1) (FP16/BF16). Zero stays zero.
            lsbs = self.a[:k] if k == 14 else Cat(Const(1, 1), self.a[0])
            m.d.comb += [rnd.thresh.eq(lsbs), rnd.hr_sr.eq(nonzero & ((exp >= HR_TA_BELOW) | (exp <= -HR_TA_BELOW)))]

        # q in [2**w, 2**(w+1)] (or [0, 1] below the range): a carry moves to the next binade.
        q = rnd.q
        carry = Signal(name="carry")
        m.d.comb += carry.eq((q >> (width + 1)) != 0)
        er = Signal(signed(len(eb) + 1), name="er")
        m.d.comb += er.eq(eb + carry)
        man = Signal(wmax, name="man")
        m.d.comb += man.eq(q & ((Const(1, wmax + 1) << width) - 1))
        # Ascend's range checks under hr, before rounding: |x| < 2^-23 gives 0; |x| >= 1.25 * 2^15 overflows.
        tiny = huge = None  # (default units keep their netlist byte for byte)
        if ascend:
            flush_below, overflow_from = ascend_limits(fmt)
            e_flush = math.frexp(flush_below)[1] - 1  # 2^-23: below it the exponent alone decides
            sig_from = overflow_from / 2.0**hi * 2**ms  # 1.25 * 2^ms: the significand threshold in binade emax
            assert flush_below == 2.0**e_flush and sig_from == int(sig_from)  # not user input: fixed Ascend limits
            tiny, huge = Signal(name="ascend_tiny"), Signal(name="ascend_huge")
            hr_on = mode_is(self, "hr")
            m.d.comb += [tiny.eq(hr_on & nonzero & (exp < e_flush)),
                         huge.eq(hr_on & nonzero & ((exp > hi) | (exp == hi) & (sig >= int(sig_from))))]
        zero = Signal(name="zero")
        m.d.comb += zero.eq((q == 0) if tiny is None else (q == 0) | tiny)

        # Magnitude code from (er, man): the dot/exponent prefix of each exponent, from the descriptor.
        mag = Signal(fmt.bits - 1, name="mag")
        with m.If(~zero):
            with m.Switch(er):
                for e in range(lo, hi + 1):
                    with m.Case(e):
                        if e < fmt.emin:
                            m.d.comb += mag.eq(fmt.encode_denormal(e))
                        else:
                            m.d.comb += mag.eq(fmt.encode_normal(e, 0) | man)
        top_w = fmt.mant_width(hi)
        overflow = Signal()
        beyond = nonzero & ((er > hi) | (er == hi) & (man > (1 << top_w) - 2))
        m.d.comb += overflow.eq(beyond if huge is None else beyond & ~tiny | huge)
        inexact = Signal()
        m.d.comb += inexact.eq(nonzero & rnd.inexact)

        sat = {False: Const(0, 1), True: Const(1, 1)}.get(self._saturate)
        if sat is None:
            sat = self.sat
        ovf_sat = sat | mode_is(self, "rtz")
        smask = fmt.sign_mask
        neg = Mux(sign, smask, 0)
        y = self.y
        with m.If(nan):
            m.d.comb += y.eq(0 if self._nan_to_zero else fmt.nan_code())
        with m.Elif(inf | overflow):
            with m.If(sat | overflow & ovf_sat):
                m.d.comb += y.eq(neg | fmt.max_code)
            with m.Else():
                m.d.comb += y.eq(neg | fmt.inf_code)
        with m.Elif(zero):
            m.d.comb += y.eq(0)  # one zero: -0 and negative underflow give 0x00
        with m.Else():
            m.d.comb += y.eq(neg | mag)

        m.d.comb += self.flags.eq(Cat(
            nan,
            subnormal,
            overflow,
            inexact & ~overflow & (zero | (er < fmt.emin)),
            inexact | overflow | (inf & sat),
        ))
        return m


def tapered_dot_fields(fmt, code, bias=None):
    """The Amaranth twin of ``TaperedFormat.dot_fields``: ``(sign, sig, eoff, nan, inf)`` Values of a
    tapered code — the dot prefix picks the exponent width, the sign-magnitude exponent gets its hidden MSB
    back, the mantissa is left-aligned to ``mbits`` bits under the hidden bit (a denormal is ``2**mbits``
    at exponent ``M - dml_offset``, zero has ``sig = 0``), ``eoff = E - dml_emin``. (The offsets of zero,
    NaN and Inf are not read: their products are 0.)"""
    if bias is not None:
        raise FpforgeValueError(f"format {fmt.name!r} has a fixed bias")
    n, wmax = fmt.bits, fmt.mbits
    cls = classify(fmt, code)
    e = code[: fmt.dml_bits] - fmt.dml_offset  # the denormal prefix (no dot matches)
    man = Const(0, wmax)
    for dot, width, d in fmt.dots:
        w = fmt.mant_width_of_dot(width, d)
        hit = code[n - 1 - width : n - 1] == dot
        if d == 0:
            ed = Const(0, 1)
        else:
            em = code[w : w + d]
            mag = Cat(em[: d - 1], Const(1, 1))
            ed = Mux(em[d - 1], -mag, mag)
        e = Mux(hit, ed, e)
        man = Mux(hit, (code[:w] << (wmax - w)) if w else 0, man)
    sig = Cat(man[:wmax], ~cls.zero)
    return cls.sign, sig, e - fmt.dml_emin, cls.nan, cls.inf


class HiF8Decoder(SpecBuilt, DecoderOptions, wiring.Component):
    """HiF8 → FP32/FP16/BF16 bits, combinational and exact (all three hold every HiF8 value).

    The dot prefix selects the exponent width; the sign-magnitude exponent gets its hidden magnitude MSB
    back; denormal codes are powers of two. 0x80 gives the target's canonical NaN with the sign bit set (as
    the FNUZ decoders do; ``hif8_ascend``: +qNaN, as Ascend decodes it), ±Inf the target's ±Inf, 0x00 +0.

    Members
    -------
    a : In(8)
    y : Out(target bits)
    """

    def __init__(self, fmt="hif8", target="fp32"):
        fmt, tgt = self.spec.descriptor, SOURCES[self.spec.target]  # (checked in __new__: SpecBuilt)
        self._fmt, self._tgt = fmt, tgt
        super().__init__({"a": In(fmt.bits), "y": Out(tgt.bits)})

    @classmethod
    def spec_of(cls, fmt="hif8", target="fp32"):
        """The :class:`~fpforge.hw.spec.DecoderSpec` the arguments describe (``fmt`` may be the spec itself)."""
        spec = decoder_spec(cls, fmt, target, ("fp32",))
        _tapered_format(spec.descriptor)
        return spec

    def describe(self):
        return f"decoder {format_label(self._fmt)} -> {self._tgt.name}"

    def elaborate(self, platform):
        m = Module()
        fmt, tgt = self._fmt, self._tgt
        a, n = self.a, fmt.bits
        sign = a[n - 1]
        wmax = fmt.mbits
        # Exponent and a wmax-bit left-aligned mantissa of the code, one prefix at a time.
        e = Signal(signed(7), name="e")
        man = Signal(wmax, name="man")
        with m.If(a[n - 1 - fmt.dml[1] : n - 1] == fmt.dml[0]):
            m.d.comb += e.eq(a[: fmt.dml_bits] - fmt.dml_offset)
        for code, width, d in fmt.dots:
            w = fmt.mant_width_of_dot(width, d)
            with m.Elif(a[n - 1 - width : n - 1] == code):
                if d == 0:
                    m.d.comb += e.eq(0)
                else:
                    em = a[w : w + d]
                    mag = Cat(em[: d - 1], Const(1, 1))
                    m.d.comb += e.eq(Mux(em[d - 1], -mag, mag))
                if w:
                    m.d.comb += man.eq(a[:w] << (wmax - w))

        cls = classify(fmt, a)
        tneg = Mux(sign, tgt.sign_mask, 0)
        widen = tgt.mbits - wmax
        y = self.y
        with m.If(cls.nan):
            m.d.comb += y.eq(tgt.nan_code(fmt.compat != "ascend"))  # hif8_ascend: +qNaN, as Ascend decodes it
        with m.Elif(cls.zero):
            m.d.comb += y.eq(0)
        with m.Elif(cls.inf):
            m.d.comb += y.eq(tneg | tgt.inf_code)
        with m.Elif(e >= tgt.emin):
            m.d.comb += y.eq(tneg | ((e + tgt.bias) << tgt.mbits) | (man << widen))
        with m.Else():
            # Below the target's normal range (FP16 for 2^-15 and the denormals): a target subnormal.
            full = Cat(man, Const(1, 1)) << widen
            m.d.comb += y.eq(tneg | (full >> (tgt.emin - e)[:5]))
        return m
