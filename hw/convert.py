"""Combinational conversion units built from format descriptors: ``Encoder`` and ``Decoder``.

Both are purely combinational ``wiring.Component``s with the ports of SPEC-NOTES §1 (``a``, ``y``,
``flags`` and, where needed, ``rand``, ``mode``, ``sat``, ``bias``); :class:`fpforge.hw.pipeline.Pipeline`
wraps either in a valid/ready stream of any latency.

A format with a run-time bias (Tesla CFloat8, SHP) gets a 6-bit ``bias`` input: it moves ``emin`` (and
with it the round position below the normal range, the exponent field and the decoded exponent) at run
time; nothing else about the datapath changes. The CFloat guide's denormals (``2**-bias * 0.m``) leave a
gap below the smallest normal, where the encoder rounds between the largest denormal and the smallest
normal with a small comparator beside the shared ``Rounder`` (``docs/cfloat.md``).
"""

from amaranth import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..golden.errors import FpforgeValueError
from ..golden.formats import RUNTIME_BIAS_BITS, SOURCES, FloatFormat, get_format
from ..golden.rng import DEFAULT_RAND_BITS
from .classify import fields as _fields
from .classify import highest_one, unpack_source
from .fromspec import SpecBuilt, decoder_spec, encoder_spec
from .names import format_label
from .rounding import (
    SATURATE_CHOICES,
    DecoderOptions,
    EncoderOptions,
    check_roundings,
    check_saturate,
    emin_span,
    mode_is,
    round_to_format,
)

# The shared encoder parts moved to .rounding and .classify; the names stay importable from here.
__all__ = ["Decoder", "Encoder", "SATURATE_CHOICES", "check_roundings", "check_saturate", "mode_is", "round_to_format",
           "unpack_source"]

def _float_format(fmt):
    fmt = get_format(fmt)
    if not isinstance(fmt, FloatFormat) or fmt.dtype is not None:
        raise FpforgeValueError(f"{getattr(fmt, 'name', fmt)!r} is not a narrow float format (sign, exponent, "
                                f"mantissa)")
    return fmt


class Encoder(SpecBuilt, EncoderOptions, wiring.Component):
    """Source float (FP32/FP16/BF16) → narrow float format, combinational.

    Parameters
    ----------
    fmt : str or FloatFormat
        Target format (a variant such as ``cfloat8_143_ieee`` is a format of its own).
    source : str
        ``fp32``, ``fp16`` or ``bf16``.
    roundings : tuple of str
        Enabled rounding modes; more than one adds a ``mode`` port (``ROUNDING_MODES`` codes).
    saturate : str or bool
        ``"off"``/False, ``"on"``/True, or ``"runtime"`` (adds a ``sat`` port).
    nan_to_zero : bool
        NaN operands (and, in an unsigned format, negative ones) encode as +0.
    rand_bits : int
        R, width of ``rand`` when ``sr`` is enabled.

    Members
    -------
    a : In(source bits)
    y : Out(format bits)
    flags : Out(5)
        invalid, denormal, overflow, underflow, inexact (bit 0 first), as ``fpforge.golden.Flag``.
    rand : In(rand_bits)
        Only with ``sr``.
    mode : In(3)
        Only with several roundings.
    sat : In(1)
        Only with ``saturate="runtime"``.
    bias : In(6)
        Only for a run-time-bias format (CFloat8, SHP): the exponent bias, 0..63, per value.
    """

    def __init__(self, fmt, source="fp32", roundings=("rne",), saturate=False, nan_to_zero=False,
                 rand_bits=DEFAULT_RAND_BITS):
        members = self._take_spec(self.spec)  # (checked in __new__: SpecBuilt)
        fmt = self._fmt
        if fmt.runtime_bias:
            members["bias"] = In(RUNTIME_BIAS_BITS)
        super().__init__(members)

    @classmethod
    def spec_of(cls, fmt, source="fp32", roundings=("rne",), saturate=False, nan_to_zero=False,
                rand_bits=DEFAULT_RAND_BITS):
        """The :class:`~fpforge.hw.spec.EncoderSpec` the arguments describe (``fmt`` may be the spec itself)."""
        spec = encoder_spec(cls, fmt, source, roundings, saturate, nan_to_zero, rand_bits,
                            ("fp32", ("rne",), False, False, DEFAULT_RAND_BITS))
        _float_format(spec.descriptor)
        return spec

    def describe(self):
        """One line naming the configuration (for the Verilog header)."""
        return self._describe_options() + _describe_format(self._fmt)

    def elaborate(self, platform):
        m = Module()
        fmt, src = self._fmt, self._src
        M = fmt.mbits
        guide = fmt.denormals == "cfloat"
        emin_lo, emin_hi = emin_span(fmt)
        # Source subnormals must be normalized where they can land at or above the target's denormal
        # quantum's binade (the gap binade for the guide's denormals).
        sign, exp, sig, nan, inf, nonzero, subnormal = unpack_source(
            m, src, self.a, normalize=src.emin > emin_lo - guide, width=max(src.mbits, fmt.mbits) + 1)

        # emin = 1 - bias: a constant, or from the run-time bias port.
        if fmt.runtime_bias:
            emin = Signal(signed(RUNTIME_BIAS_BITS + 2), name="emin")
            m.d.comb += emin.eq(1 - self.bias)
        else:
            emin = fmt.emin
        # A normalized zero carries the exponent of the source's lowest subnormal: with a run-time bias
        # that can lie above emin, so zero must not take the normal path there.
        rnd, mag_r, under = round_to_format(
            m, fmt, exp, sig, self._roundings, self._rand_bits, src.emax, emin=emin,
            nonzero=nonzero if src.emin - src.mbits > emin_lo else None,
            mag_name="mag_r" if guide or fmt.ftz else "mag")
        if "mode" in self.signature.members:
            m.d.comb += rnd.mode.eq(self.mode)
        if "sr" in self._roundings:
            m.d.comb += rnd.rand.eq(self.rand)
        if guide or fmt.ftz:
            mag = Signal(len(mag_r), name="mag")  # after the gap and flush-to-zero rules
            m.d.comb += mag.eq(mag_r)
        else:
            mag = mag_r
        overflow = Signal()
        m.d.comb += overflow.eq(nonzero & (mag > fmt.max_code))
        inexact = Signal()
        m.d.comb += inexact.eq(nonzero & rnd.inexact)

        if guide:
            # The gap (lo, hi) between the largest denormal lo = (2**M - 1) * u and the smallest normal
            # hi = 2**(M + 1) * u, u = 2**(-bias - M): below the normal range the rounder's s = v / u.
            # Round between lo and hi with d = (s - lo/u) / (2**M + 1) (docs/cfloat.md).
            q0 = rnd.trunc
            gap = Signal(name="gap")
            m.d.comb += gap.eq(nonzero & (under > 0) & ((q0 > (1 << M) - 1) | (q0 == (1 << M) - 1) & rnd.discarded))
            near_up = (Cat(rnd.round_bit, q0) >= 3 * (1 << M) - 1)  # 2 s >= 2**M + 1 + 2 (2**M - 1)
            ups = {"rne": near_up, "ta": near_up, "rtz": Const(0, 1)}
            if "sr" in self._roundings:
                r = self._rand_bits
                comp = Signal(r + 1, name="gap_comp")  # 2**R - rand
                m.d.comb += comp.eq((1 << r) - self.rand)
                lhs = Signal(r + M + 2, name="gap_lhs")  # floor((s - (2**M - 1)) * 2**R)
                m.d.comb += lhs.eq(Cat(rnd.frac[rnd.frac_bits - r :], (q0 - ((1 << M) - 1))[: M + 2]))
                rhs = Signal(r + M + 2, name="gap_rhs")  # (2**R - rand) * (2**M + 1)
                m.d.comb += rhs.eq((comp << M) + comp)
                ups["sr"] = lhs >= rhs
            gap_up = Signal(name="gap_up")
            m.d.comb += gap_up.eq(ups[self._roundings[0]])
            for r_name in self._roundings[1:]:
                with m.If(mode_is(self, r_name)):
                    m.d.comb += gap_up.eq(ups[r_name])
            with m.If(gap):
                m.d.comb += [mag.eq(Mux(gap_up, 1 << M, (1 << M) - 1)), inexact.eq(1)]
        if fmt.ftz:
            # Flush to zero: a result below the smallest normal (rounded as if denormals existed) is 0.
            with m.If(nonzero & (mag_r != 0) & (mag_r < (1 << M))):
                m.d.comb += [mag.eq(0), inexact.eq(1)]

        # Saturation (fixed or run-time); rtz never rounds a finite operand to an infinity.
        # A format without NaN (nan style "none") clamps: it always saturates, a NaN gives ±max.
        sat = {False: Const(0, 1), True: Const(1, 1)}.get(self._saturate)
        if sat is None:
            sat = self.sat
        if not fmt.has_nan:
            sat = Const(1, 1)
        ovf_sat = sat | mode_is(self, "rtz")

        smask = fmt.sign_mask
        neg = Mux(sign, smask, 0)
        if fmt.has_nan:
            nan_code = Mux(sign, fmt.nan_code(True), fmt.nan_code(False))
        else:
            nan_code = neg | fmt.max_code
        # An unsigned format has no negative non-zero value: such operands, -Inf included, give NaN.
        unsigned = not fmt.signed
        if unsigned:
            negative = Signal(name="negative")
            m.d.comb += negative.eq(sign & (nonzero | inf))
        big = fmt.inf_code if fmt.has_inf else None  # ±Inf where the format has it, else NaN
        y = self.y
        with m.If(nan | negative if unsigned else nan):
            m.d.comb += y.eq(0 if self._nan_to_zero else nan_code)
        with m.Elif(inf | overflow):
            with m.If(sat | overflow & ovf_sat):
                m.d.comb += y.eq(neg | fmt.max_code)
            with m.Else():
                m.d.comb += y.eq(nan_code if big is None else neg | big)
        with m.Else():
            m.d.comb += y.eq(neg | mag[: fmt.mag_bits])
            if not fmt.has_neg_zero:
                with m.If(mag == 0):
                    m.d.comb += y.eq(0)

        invalid = nan | (inf & ~sat) if not fmt.has_inf else nan
        flags = [invalid, subnormal, overflow, inexact & ~overflow & (mag < (1 << M)), inexact | overflow | (inf & sat)]
        if unsigned:  # a negative operand sets invalid (and denormal) only
            flags = [flags[0] | negative, subnormal] + [f & ~negative for f in flags[2:]]
        m.d.comb += self.flags.eq(Cat(*flags))
        return m


def _describe_format(fmt):
    """The header's note on a format's bias and denormals (empty for plain fixed-bias IEEE-style ones)."""
    text = ""
    if fmt.runtime_bias:
        text += f", bias run-time ({RUNTIME_BIAS_BITS}-bit port)"
    if fmt.denormals == "cfloat":
        text += ", denormals 2^-bias*0.m"
    elif fmt.runtime_bias:
        text += ", ieee_denormals 1"
    if fmt.ftz:
        text += ", denormals flushed to zero"
    if not fmt.signed:
        text += ", unsigned"
    return text


class Decoder(SpecBuilt, DecoderOptions, wiring.Component):
    """Narrow float format → FP32/FP16/BF16 bits, combinational and exact.

    NaN codes give the target's canonical quiet NaN with the code's sign bit; values below the target's
    smallest normal become target subnormals (every FP8 value is exact in all three targets). A
    run-time-bias format gets a ``bias`` input and must land in the target's normal range for every bias
    (CFloat8 → FP32/BF16, SHP → FP32); denormal codes of a flush-to-zero format (UHP) decode to +0.

    Parameters
    ----------
    fmt : str or FloatFormat
    target : str
        ``fp32``, ``fp16`` or ``bf16``.

    Members
    -------
    a : In(format bits)
    y : Out(target bits)
    bias : In(6)
        Only for a run-time-bias format.
    """

    def __init__(self, fmt, target="fp32"):
        fmt, tgt = self.spec.descriptor, SOURCES[self.spec.target]  # (checked in __new__: SpecBuilt)
        self._fmt, self._tgt = fmt, tgt
        members = {"a": In(fmt.bits), "y": Out(tgt.bits)}
        if fmt.runtime_bias:
            members["bias"] = In(RUNTIME_BIAS_BITS)
        super().__init__(members)

    @classmethod
    def spec_of(cls, fmt, target="fp32"):
        """The :class:`~fpforge.hw.spec.DecoderSpec` the arguments describe (``fmt`` may be the spec itself)."""
        spec = decoder_spec(cls, fmt, target, ("fp32",))
        _float_format(spec.descriptor)
        return spec

    def describe(self):
        return f"decoder {format_label(self._fmt)} -> {self._tgt.name}" + _describe_format(self._fmt)

    def elaborate(self, platform):
        m = Module()
        fmt, tgt = self._fmt, self._tgt
        sign, ef, mf, nan, inf = _fields(fmt, self.a)
        widen = tgt.mbits - fmt.mbits
        tneg = Mux(sign, tgt.sign_mask, 0)
        y = self.y
        M = fmt.mbits

        with m.If(nan):
            m.d.comb += y.eq(Mux(sign, tgt.nan_code(True), tgt.nan_code(False)))
        with m.Elif(inf):
            m.d.comb += y.eq(tneg | tgt.inf_code)
        with m.Else():
            if fmt.runtime_bias:
                self._runtime(m, ef, mf, tneg)
                return m
            # Normal codes: rebias and widen. Exponents the target holds only as subnormals, and the
            # format's own subnormals, come from small tables computed here from the descriptors.
            m.d.comb += y.eq(tneg | ((ef + (tgt.bias - fmt.bias)) << tgt.mbits) | (mf << widen))
            low = [e for e in range(1, fmt.exp_max_field + 1) if e - fmt.bias < tgt.emin]
            with m.Switch(ef):
                with m.Case(0):
                    with m.Switch(mf):
                        for man in range(1 << M):
                            with m.Case(man):
                                if man == 0 or fmt.ftz:  # zero; a flush-to-zero format's denormals
                                    m.d.comb += y.eq(tneg if fmt.has_neg_zero else 0)
                                else:
                                    p = man.bit_length() - 1
                                    frac = (man << (M - p)) & ((1 << M) - 1)
                                    m.d.comb += y.eq(tneg | self._value(frac, fmt.subnormal_exp - M + p))
                for e in low:
                    with m.Case(e):
                        with m.Switch(mf):
                            for man in range(1 << M):
                                with m.Case(man):
                                    m.d.comb += y.eq(tneg | self._value(man, e - fmt.bias))
        return m

    def _runtime(self, m, ef, mf, tneg):
        """A run-time bias: every value is a target normal (checked in __init__), so the exponent field is
        ``ef + tgt.bias - bias`` for normal codes and, for a denormal code 0.m × 2**sub_e (``sub_e`` =
        ``-bias`` for the guide's denormals, ``1 - bias`` for IEEE's), ``tgt.bias + sub_e - M + p`` with
        ``p`` the leading one of ``m``, which is shifted out as the hidden bit."""
        fmt, tgt = self._fmt, self._tgt
        M, y = fmt.mbits, self.y
        widen = tgt.mbits - M
        field = Signal(signed(tgt.ebits + 2), name="field")
        frac = Signal(M, name="frac")
        with m.If(ef == 0):
            p = highest_one(m, mf, "lead")
            lshift = Signal(range(M + 1), name="lshift")
            sub_e0 = 0 if fmt.denormals == "cfloat" else 1
            m.d.comb += [lshift.eq(M - p), frac.eq((mf << lshift)[:M]),
                         field.eq(tgt.bias + sub_e0 - M + p - self.bias)]
        with m.Else():
            m.d.comb += [frac.eq(mf), field.eq(ef + tgt.bias - self.bias)]
        with m.If((ef == 0) & (mf == 0)):
            m.d.comb += y.eq(tneg)
        with m.Else():
            m.d.comb += y.eq(tneg | (field[: tgt.ebits] << tgt.mbits) | (frac << widen))

    def _value(self, man, e):
        """Target bits of +1.man * 2**e (``man`` has fmt.mbits bits), normal or subnormal there."""
        fmt, tgt = self._fmt, self._tgt
        widen = tgt.mbits - fmt.mbits
        if e >= tgt.emin:
            return ((e + tgt.bias) << tgt.mbits) | (man << widen)
        return (((1 << fmt.mbits) | man) << widen) >> (tgt.emin - e)
