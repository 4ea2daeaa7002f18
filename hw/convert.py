"""Combinational conversion units built from format descriptors: ``Encoder`` and ``Decoder``.

Both are purely combinational ``wiring.Component``s with the ports of SPEC-NOTES §1 (``a``, ``y``,
``flags`` and, where needed, ``rand``, ``mode``, ``sat``); :class:`fpforge.hw.pipeline.Pipeline` wraps
either in a valid/ready stream of any latency.
"""

from amaranth import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..golden.formats import ROUNDING_MODES, SOURCES, Flag, FloatFormat, get_format
from ..golden.rng import DEFAULT_RAND_BITS
from .rounding import MODE_WIDTH, Rounder

__all__ = ["Decoder", "Encoder", "SATURATE_CHOICES", "round_to_format"]

SATURATE_CHOICES = ("off", "on", "runtime")


def _source(name, what="source"):
    try:
        return SOURCES[name]
    except KeyError:
        raise ValueError(f"unknown {what} {name!r}; valid choices: {', '.join(SOURCES)}") from None


def _float_format(fmt):
    fmt = get_format(fmt)
    if not isinstance(fmt, FloatFormat) or fmt.name in SOURCES:
        raise ValueError(f"{getattr(fmt, 'name', fmt)!r} is not a narrow float format")
    return fmt


def _fields(fmt, bits):
    """(sign, exponent field, mantissa field, nan, inf) of a code signal."""
    sign = bits[fmt.bits - 1]
    exp = bits[fmt.mbits : fmt.mbits + fmt.ebits]
    man = bits[: fmt.mbits]
    if fmt.nan == "ieee":
        top = exp == fmt.exp_max_field
        return sign, exp, man, top & (man != 0), top & (man == 0)
    if fmt.nan == "fn":
        return sign, exp, man, bits[: fmt.bits - 1] == fmt.sign_mask - 1, Const(0, 1)
    if fmt.nan == "none":
        return sign, exp, man, Const(0, 1), Const(0, 1)
    return sign, exp, man, bits == fmt.sign_mask, Const(0, 1)


def unpack_source(m, src, a, *, normalize, width):
    """Split source bits ``a`` into signals for an encoder.

    Returns ``(sign, exp, sig, nan, inf, nonzero, subnormal)``: ``sig`` is ``width`` bits wide with the
    hidden bit at its top (source mantissa left-aligned below it) and ``exp`` the signed unbiased exponent.
    With ``normalize``, subnormal operands are normalized (``sig`` gets its leading one at the top and
    ``exp`` the true exponent) — needed where they can land inside the target's range; otherwise they keep
    ``exp = emin`` and leading zeros.
    """
    sign, ef, mf, nan, inf = _fields(src, a)
    nonzero = Signal(name="nonzero")
    subnormal = Signal(name="subnormal")
    m.d.comb += [nonzero.eq((ef != 0) & ~nan & ~inf | (mf != 0) & (ef == 0)),
                 subnormal.eq((ef == 0) & (mf != 0))]
    ms = width - 1
    pad = ms - src.mbits
    e_lo = src.emin - src.mbits
    exp = Signal(signed(max(e_lo.bit_length(), src.emax.bit_length()) + 2), name="exp")
    sig = Signal(width, name="sig")
    if normalize:
        p = _highest_one(m, mf, "lead")
        lshift = Signal(range(src.mbits + 1), name="lshift")
        m.d.comb += lshift.eq(src.mbits - p)
        with m.If(ef == 0):
            m.d.comb += [exp.eq(e_lo + p), sig.eq((Cat(Const(0, pad), mf) << lshift)[:width])]
        with m.Else():
            m.d.comb += [exp.eq(ef - src.bias), sig.eq(Cat(Const(0, pad), mf, Const(1, 1)))]
    else:
        m.d.comb += [exp.eq(Mux(ef == 0, src.emin, ef - src.bias)),
                     sig.eq(Cat(Const(0, pad), mf, ef != 0))]
    return sign, exp, sig, nan, inf, nonzero, subnormal


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
    roundings = tuple(dict.fromkeys(roundings))
    for r in roundings:
        if r not in fmt.roundings:
            raise ValueError(
                f"format {fmt.name!r} has no rounding {r!r}; valid choices: {', '.join(fmt.roundings)}"
            )
    if not roundings:
        raise ValueError("at least one rounding mode is needed")
    return roundings


def check_saturate(saturate):
    saturate = {False: "off", True: "on"}.get(saturate, saturate)
    if saturate not in SATURATE_CHOICES:
        raise ValueError(f"saturate must be one of {', '.join(SATURATE_CHOICES)}, not {saturate!r}")
    return saturate


def _highest_one(m, value, name):
    """Position of the most significant 1 of ``value`` (0 when value is 0)."""
    pos = Signal(range(max(len(value), 2)), name=name)
    for i in range(len(value)):
        with m.If(value[i]):
            m.d.comb += pos.eq(i)
    return pos


def round_to_format(m, fmt, exp, sig, roundings, rand_bits, exp_max):
    """The magnitude code of ``sig * 2**(exp - (len(sig) - 1))`` in ``fmt`` before any overflow handling.

    ``sig`` has its leading (hidden) bit at the top, ``exp`` is the signed unbiased exponent (at most
    ``exp_max``). Returns ``(rounder, mag)``: the :class:`Rounder` submodule (the caller drives its
    ``mode``/``rand``) and ``mag = (max(exp - emin, 0) << mbits) + q`` — a mantissa carry moves into the
    exponent by itself; ``mag > fmt.max_code`` is overflow. Used by :class:`Encoder` and by the OCP MX
    block encoder (``fpforge.hw.block``) with ``exp`` already divided by the block scale.
    """
    ms = len(sig) - 1
    # Discard shift = (ms - mbits) + max(0, emin - exp), clamped to "everything".
    limit = ms + 1 + Rounder.frac_bits_for(roundings, rand_bits)
    under = Signal(signed(len(exp) + 1), name="under")
    m.d.comb += under.eq(fmt.emin - exp)
    shift = Signal(range(limit + 1), name="shift")
    base = ms - fmt.mbits
    with m.If(under <= 0):
        m.d.comb += shift.eq(base)
    with m.Elif(under >= limit - base):
        m.d.comb += shift.eq(limit)
    with m.Else():
        m.d.comb += shift.eq(base + under[: len(shift)])

    m.submodules.rounder = rnd = Rounder(ms + 1, len(shift), roundings, rand_bits)
    m.d.comb += [rnd.sig.eq(sig), rnd.shift.eq(shift)]

    # Magnitude code: (max(exp - emin, 0) << mbits) + q; a mantissa carry moves into the exponent.
    ep_max = max(exp_max - fmt.emin, 1)
    ep = Signal(range(ep_max + 1), name="ep")
    with m.If(under < 0):
        m.d.comb += ep.eq(exp - fmt.emin)
    mag = Signal(len(ep) + fmt.mbits + 2, name="mag")
    m.d.comb += mag.eq((ep << fmt.mbits) + rnd.q)
    return rnd, mag


class Encoder(wiring.Component):
    """Source float (FP32/FP16/BF16) → narrow float format, combinational.

    Parameters
    ----------
    fmt : str or FloatFormat
        Target format.
    source : str
        ``fp32``, ``fp16`` or ``bf16``.
    roundings : tuple of str
        Enabled rounding modes; more than one adds a ``mode`` port (``ROUNDING_MODES`` codes).
    saturate : str or bool
        ``"off"``/False, ``"on"``/True, or ``"runtime"`` (adds a ``sat`` port).
    nan_to_zero : bool
        NaN operands encode as +0.
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
    """

    def __init__(self, fmt, source="fp32", roundings=("rne",), saturate=False, nan_to_zero=False,
                 rand_bits=DEFAULT_RAND_BITS):
        fmt = _float_format(fmt)
        src = _source(source)
        roundings = check_roundings(fmt, roundings)
        saturate = check_saturate(saturate)
        if not 1 <= rand_bits <= 32:
            raise ValueError(f"rand_bits must be in 1..32, not {rand_bits!r}")
        self._fmt, self._src = fmt, src
        self._roundings, self._saturate = roundings, saturate
        self._nan_to_zero, self._rand_bits = bool(nan_to_zero), rand_bits
        members = {"a": In(src.bits), "y": Out(fmt.bits), "flags": Out(len(Flag))}
        if "sr" in roundings:
            members["rand"] = In(rand_bits)
        if len(roundings) > 1:
            members["mode"] = In(MODE_WIDTH)
        if saturate == "runtime":
            members["sat"] = In(1)
        super().__init__(members)

    @property
    def format(self):
        return self._fmt

    @property
    def source(self):
        return self._src

    @property
    def roundings(self):
        return self._roundings

    @property
    def saturate(self):
        return self._saturate

    @property
    def nan_to_zero(self):
        return self._nan_to_zero

    @property
    def rand_bits(self):
        return self._rand_bits

    def describe(self):
        """One line naming the configuration (for the Verilog header)."""
        return (f"encoder {self._src.name} -> {self._fmt.name}, rounding {','.join(self._roundings)}, "
                f"saturate {self._saturate}, nan_to_zero {int(self._nan_to_zero)}"
                + (f", rand_bits {self._rand_bits}" if "sr" in self._roundings else ""))

    def elaborate(self, platform):
        m = Module()
        fmt, src = self._fmt, self._src
        sign, exp, sig, nan, inf, nonzero, subnormal = unpack_source(
            m, src, self.a, normalize=src.emin > fmt.emin, width=max(src.mbits, fmt.mbits) + 1)
        ms = len(sig) - 1

        rnd, mag = round_to_format(m, fmt, exp, sig, self._roundings, self._rand_bits, src.emax)
        if "mode" in self.signature.members:
            m.d.comb += rnd.mode.eq(self.mode)
        if "sr" in self._roundings:
            m.d.comb += rnd.rand.eq(self.rand)
        overflow = Signal()
        m.d.comb += overflow.eq(nonzero & (mag > fmt.max_code))
        inexact = Signal()
        m.d.comb += inexact.eq(nonzero & rnd.inexact)

        # Saturation (fixed or run-time); rtz never rounds a finite operand to an infinity.
        # A format without NaN (nan style "none") clamps: it always saturates, a NaN gives ±max.
        sat = {"off": Const(0, 1), "on": Const(1, 1)}.get(self._saturate)
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
        big = fmt.inf_code if fmt.has_inf else None  # ±Inf where the format has it, else NaN
        y = self.y
        with m.If(nan):
            m.d.comb += y.eq(0 if self._nan_to_zero else nan_code)
        with m.Elif(inf | overflow):
            with m.If(sat | overflow & ovf_sat):
                m.d.comb += y.eq(neg | fmt.max_code)
            with m.Else():
                m.d.comb += y.eq(nan_code if big is None else neg | big)
        with m.Else():
            m.d.comb += y.eq(neg | mag[: fmt.bits - 1])
            if not fmt.has_neg_zero:
                with m.If(mag == 0):
                    m.d.comb += y.eq(0)

        invalid = nan | (inf & ~sat) if not fmt.has_inf else nan
        m.d.comb += self.flags.eq(Cat(
            invalid,
            subnormal,
            overflow,
            inexact & ~overflow & (mag < (1 << fmt.mbits)),
            inexact | overflow | (inf & sat),
        ))
        return m


class Decoder(wiring.Component):
    """Narrow float format → FP32/FP16/BF16 bits, combinational and exact.

    NaN codes give the target's canonical quiet NaN with the code's sign bit; values below the target's
    smallest normal become target subnormals (every FP8 value is exact in all three targets).

    Members
    -------
    a : In(format bits)
    y : Out(target bits)
    """

    def __init__(self, fmt, target="fp32"):
        fmt = _float_format(fmt)
        tgt = _source(target, "target")
        if fmt.mbits > tgt.mbits or fmt.emax > tgt.emax or fmt.min_subnormal < tgt.min_subnormal:
            raise ValueError(f"{tgt.name} cannot hold every {fmt.name} value exactly")
        self._fmt, self._tgt = fmt, tgt
        super().__init__({"a": In(fmt.bits), "y": Out(tgt.bits)})

    @property
    def format(self):
        return self._fmt

    @property
    def target(self):
        return self._tgt

    def describe(self):
        return f"decoder {self._fmt.name} -> {self._tgt.name}"

    def elaborate(self, platform):
        m = Module()
        fmt, tgt = self._fmt, self._tgt
        sign, ef, mf, nan, inf = _fields(fmt, self.a)
        widen = tgt.mbits - fmt.mbits
        tneg = Mux(sign, tgt.sign_mask, 0)
        y = self.y

        def value(man, e):
            """Target bits of +1.man * 2**e (``man`` has fmt.mbits bits), normal or subnormal there."""
            if e >= tgt.emin:
                return ((e + tgt.bias) << tgt.mbits) | (man << widen)
            return (((1 << fmt.mbits) | man) << widen) >> (tgt.emin - e)

        with m.If(nan):
            m.d.comb += y.eq(Mux(sign, tgt.nan_code(True), tgt.nan_code(False)))
        with m.Elif(inf):
            m.d.comb += y.eq(tneg | tgt.inf_code)
        with m.Else():
            # Normal codes: rebias and widen. Exponents the target holds only as subnormals, and the
            # format's own subnormals, come from small tables computed here from the descriptors.
            m.d.comb += y.eq(tneg | ((ef + (tgt.bias - fmt.bias)) << tgt.mbits) | (mf << widen))
            low = [e for e in range(1, fmt.exp_max_field + 1) if e - fmt.bias < tgt.emin]
            with m.Switch(ef):
                with m.Case(0):
                    with m.Switch(mf):
                        for man in range(1 << fmt.mbits):
                            with m.Case(man):
                                if man == 0:
                                    m.d.comb += y.eq(tneg if fmt.has_neg_zero else 0)
                                else:
                                    p = man.bit_length() - 1
                                    frac = (man << (fmt.mbits - p)) & ((1 << fmt.mbits) - 1)
                                    m.d.comb += y.eq(tneg | value(frac, fmt.emin - fmt.mbits + p))
                for e in low:
                    with m.Case(e):
                        with m.Switch(mf):
                            for man in range(1 << fmt.mbits):
                                with m.Case(man):
                                    m.d.comb += y.eq(tneg | value(man, e - fmt.bias))
        return m
