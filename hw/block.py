"""Block-format gateware: ``BlockEncoder`` (k1 source values -> one block) and ``BlockDecoder`` (one
block -> k1 FP32 values), generated from the golden descriptors (``fpforge.golden.block``).

Both are combinational ``wiring.Component``s; :class:`fpforge.hw.pipeline.Pipeline` makes them
valid/ready streams of any latency (one block per cycle). The block port is
:func:`block_layout` — an ``amaranth.lib.data.StructLayout`` built from ``fmt.fields``, least
significant field first — so its bits are exactly a block of ``fpforge.golden.pack`` /
``block_words``.

Encoder structure (bit-exact twin of ``golden/block.py``):

1. Each lane unpacks its source value (``unpack_source``, subnormals normalized to their true exponent).
2. A max-exponent tree: per sub-block of ``k2`` lanes, then across the sub-blocks (zero lanes count as
   -inf, NaN/Inf lanes as +inf).
3. BDR: ``E`` = the block maximum clamped to the d1 range; ``tau_j = clamp(E - Es_j, 0, 2**d2 - 1)``; each
   lane rounds ``sig`` right by ``E - tau - m + 1 - (exp - ms)`` on the shared :class:`Rounder` and
   saturates at ``2**m - 1``. OCP: scale exponent ``clamp(Emax - emax_elem, -127, 127)`` (0xFF when a lane
   is NaN/Inf); each lane encodes ``x / X`` into the element format with ``round_to_format`` (the FP8
   encoders' path) and saturates; INT8 lanes round ``|x| * 2**(6 - sexp)`` on the Rounder, saturate at 127
   and negate.
4. Stochastic rounding: a ``rand`` port of ``k1 * R`` bits, lane ``j`` in bits ``j*R …``; in a stream the
   pipeline's generator supplies draws ``b*k1 + j`` for block ``b`` (``rand_draws = k1``).
"""

from amaranth import Cat, Const, Module, Mux, Signal, signed, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..golden.block import BlockFormat, as_block_format
from ..golden.formats import ROUNDING_MODES, SOURCES
from ..golden.rng import DEFAULT_RAND_BITS
from .classify import classify, float_fields, highest_one, unpack_source
from .fromspec import SpecBuilt, block_decoder_spec, block_encoder_spec
from .rounding import (
    MODE_WIDTH,
    DecoderOptions,
    Rounder,
    read_only,
    round_to_format,
)

__all__ = ["BlockDecoder", "BlockEncoder", "block_layout", "values_layout"]

_LO = -(1 << 10)  # exponent of a zero lane: below every clamp
_HI = (1 << 10) - 1  # exponent of a NaN/Inf lane: above every clamp
_EXP = signed(12)


def block_layout(fmt) -> data.StructLayout:
    """The block's bit layout from the descriptor: fields least significant first, arrays element 0 first."""
    fmt = as_block_format(fmt)
    fields = {}
    for name, width, count in fmt.fields:
        fields[name] = unsigned(width) if name == "scale" else data.ArrayLayout(unsigned(width), count)
    return data.StructLayout(fields)


def values_layout(bits, k1) -> data.ArrayLayout:
    """``k1`` values of ``bits`` bits, value 0 least significant."""
    return data.ArrayLayout(unsigned(bits), k1)


def _max(m, a, b, name):
    out = Signal(_EXP, name=name)
    m.d.comb += out.eq(Mux(a > b, a, b))
    return out


def _max_tree(m, values, name):
    level = 0
    while len(values) > 1:
        nxt = []
        for i in range(0, len(values) - 1, 2):
            nxt.append(_max(m, values[i], values[i + 1], f"{name}_l{level}_{i // 2}"))
        if len(values) % 2:
            nxt.append(values[-1])
        values, level = nxt, level + 1
    return values[0]


class _Unpack(wiring.Component):
    """One lane: source bits -> sign, signed exponent, significand (hidden bit on top), classes."""

    def __init__(self, src):
        self._src = src
        super().__init__({"a": In(src.bits), "sign": Out(1), "exp": Out(_EXP), "sig": Out(src.mbits + 1),
                          "nonzero": Out(1), "special": Out(1), "eff": Out(_EXP)})

    def elaborate(self, platform):
        m = Module()
        sign, exp, sig, nan, inf, nonzero, _ = unpack_source(m, self._src, self.a, normalize=True,
                                                             width=self._src.mbits + 1)
        special = nan | inf
        m.d.comb += [self.sign.eq(sign), self.exp.eq(exp), self.sig.eq(sig), self.nonzero.eq(nonzero),
                     self.special.eq(special),
                     self.eff.eq(Mux(special, _HI, Mux(nonzero, exp, _LO)))]
        return m


def _round_at(m, lane, discard):
    """Round ``lane.sig`` with ``discard`` (a signed expression: how many low bits of ``sig`` fall below
    the result's LSB; clamped to 0 and to "everything") on a shared :class:`Rounder` driven by the lane's
    ``mode``. Returns ``(rounder, raw)``: ``raw < 0`` means the value lies above the result's range."""
    ms = len(lane.sig) - 1
    limit = ms + 1 + Rounder.frac_bits_for(lane._roundings, lane._rand_bits)
    raw = Signal(signed(14))
    m.d.comb += raw.eq(discard)
    shift = Signal(range(limit + 1))
    with m.If(raw >= limit):
        m.d.comb += shift.eq(limit)
    with m.Elif(raw > 0):
        m.d.comb += shift.eq(raw[: len(shift)])
    m.submodules.rounder = rnd = Rounder(ms + 1, len(shift), lane._roundings, lane._rand_bits)
    m.d.comb += [rnd.sig.eq(lane.sig), rnd.shift.eq(shift), rnd.mode.eq(lane.mode)]
    return rnd, raw


class _BdrLane(wiring.Component):
    """One BDR element: round ``sig * 2**(exp - ms)`` to a multiple of ``2**lsb`` and saturate."""

    def __init__(self, src, m_bits, roundings, rand_bits):
        self._src, self._m, self._roundings, self._rand_bits = src, m_bits, roundings, rand_bits
        members = {"sign": In(1), "exp": In(_EXP), "sig": In(src.mbits + 1), "nonzero": In(1),
                   "special": In(1), "lsb": In(_EXP), "mode": In(MODE_WIDTH), "code": Out(m_bits + 1)}
        if "sr" in roundings:
            members["rand"] = In(rand_bits)
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        qmax = (1 << self._m) - 1
        rnd, raw = _round_at(m, self, self.lsb - self.exp + self._src.mbits)
        if "sr" in self._roundings:
            m.d.comb += rnd.rand.eq(self.rand)
        q = Signal(self._m)
        with m.If(self.special | (self.nonzero & ((raw < 0) | (rnd.q > qmax)))):
            m.d.comb += q.eq(qmax)
        with m.Else():
            m.d.comb += q.eq(rnd.q)
        m.d.comb += self.code.eq(Cat(q, self.sign))
        return m


class _OcpLane(wiring.Component):
    """One OCP MX element: ``x / 2**sexp`` into the element format (saturating), or INT8."""

    def __init__(self, src, fmt, roundings, rand_bits):
        self._src, self._fmt, self._roundings, self._rand_bits = src, fmt, roundings, rand_bits
        members = {"sign": In(1), "exp": In(_EXP), "sig": In(src.mbits + 1), "nonzero": In(1),
                   "sexp": In(_EXP), "mode": In(MODE_WIDTH), "code": Out(fmt.elem_bits)}
        if "sr" in roundings:
            members["rand"] = In(rand_bits)
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        fmt, src = self._fmt, self._src
        ms = src.mbits
        if fmt.is_int:
            el = fmt.element
            rnd, raw = _round_at(m, self, self.sexp - el.frac_bits - self.exp + ms)
            q = Signal(el.bits)
            with m.If(self.nonzero & ((raw < 0) | (rnd.q > el.max_code))):
                m.d.comb += q.eq(el.max_code)
            with m.Else():
                m.d.comb += q.eq(rnd.q)
            m.d.comb += self.code.eq(Mux(self.sign, -q, q))
        else:
            el = fmt.element
            xe = Signal(_EXP)
            m.d.comb += xe.eq(self.exp - self.sexp)
            rnd, mag, _ = round_to_format(m, el, xe, self.sig, self._roundings, self._rand_bits, el.emax + 2)
            m.d.comb += rnd.mode.eq(self.mode)
            code = Signal(el.bits - 1)
            with m.If(self.nonzero & ((xe > el.emax + 1) | (mag > el.max_code))):
                m.d.comb += code.eq(el.max_code)
            with m.Else():
                m.d.comb += code.eq(mag)
            m.d.comb += self.code.eq(Cat(code, self.sign))
        if "sr" in self._roundings:
            m.d.comb += rnd.rand.eq(self.rand)
        return m


class BlockEncoder(SpecBuilt, wiring.Component):
    """k1 FP32 or BF16 values -> one block of a BDR or OCP MX format, combinational.

    Parameters
    ----------
    fmt : str, BlockFormat or MXFormat
        Block format.
    source : str
        ``fp32`` or ``bf16``.
    roundings : tuple of str
        Enabled roundings (from ``fmt.roundings``); more than one adds a run-time ``mode`` port.
    rand_bits : int
        R, random bits per element for ``sr``.

    Members
    -------
    a : In(ArrayLayout(source bits, k1))
        The k1 source values, value 0 least significant.
    y : Out(block_layout(fmt))
        The block: ``scale``, ``shift`` (BDR with d2 > 0), ``elem``.
    mode : In(3)
        Only with several roundings (``ROUNDING_MODES`` codes).
    rand : In(k1 * rand_bits)
        Only with ``sr``: lane j's draw in bits ``j*R .. j*R+R-1``.
    """

    def __init__(self, fmt, source="fp32", roundings=None, rand_bits=DEFAULT_RAND_BITS):
        spec = self.spec  # (checked in __new__: SpecBuilt)
        fmt, src, roundings = spec.descriptor, SOURCES[spec.source], spec.rounding
        rand_bits = DEFAULT_RAND_BITS if spec.rand_bits is None else spec.rand_bits
        self._fmt, self._src, self._roundings, self._rand_bits = fmt, src, roundings, rand_bits
        members = {"a": In(values_layout(src.bits, fmt.k1)), "y": Out(block_layout(fmt))}
        if len(roundings) > 1:
            members["mode"] = In(MODE_WIDTH)
        if "sr" in roundings:
            members["rand"] = In(fmt.k1 * rand_bits)
        super().__init__(members)

    @classmethod
    def spec_of(cls, fmt, source="fp32", roundings=None, rand_bits=DEFAULT_RAND_BITS):
        """The :class:`~fpforge.hw.spec.BlockEncoderSpec` the arguments describe (``fmt`` may be the spec)."""
        return block_encoder_spec(cls, fmt, source, roundings, rand_bits, ("fp32", None, DEFAULT_RAND_BITS))

    format = read_only("_fmt")
    source = read_only("_src")
    roundings = read_only("_roundings")
    rand_bits = read_only("_rand_bits")

    @property
    def rand_draws(self):
        """Draws consumed per block (one per element), for :class:`Pipeline`'s generator."""
        return self._fmt.k1

    def describe(self):
        return (f"block encoder {self._src.name} -> {self._fmt.name} ({self._fmt.layout}), rounding "
                f"{','.join(self._roundings)}" + (f", rand_bits {self._rand_bits}" if "sr" in self._roundings else ""))

    def elaborate(self, platform):
        m = Module()
        fmt, src = self._fmt, self._src
        k1 = fmt.k1
        mode = self.mode if "mode" in self.signature.members else Const(
            ROUNDING_MODES[self._roundings[0]], MODE_WIDTH)
        lanes = []
        for i in range(k1):
            u = _Unpack(src)
            m.submodules[f"unpack{i}"] = u
            m.d.comb += u.a.eq(self.a[i])
            lanes.append(u)

        if isinstance(fmt, BlockFormat):
            subs = [_max_tree(m, [u.eff for u in lanes[j * fmt.k2 : (j + 1) * fmt.k2]], f"es{j}")
                    for j in range(fmt.n_sub)]
            top = _max_tree(m, subs, "emax")
            E = Signal(_EXP, name="E")
            with m.If(top > fmt.e_max):
                m.d.comb += E.eq(fmt.e_max)
            with m.Elif(top < fmt.e_min):
                m.d.comb += E.eq(fmt.e_min)
            with m.Else():
                m.d.comb += E.eq(top)
            m.d.comb += self.y.scale.eq(E + fmt.scale_bias)
            for j in range(fmt.n_sub):
                diff = Signal(signed(13), name=f"diff{j}")
                tau = Signal(range(fmt.beta + 1), name=f"tau{j}")
                m.d.comb += diff.eq(E - subs[j])
                with m.If(diff >= fmt.beta):
                    m.d.comb += tau.eq(fmt.beta)
                with m.Elif(diff > 0):
                    m.d.comb += tau.eq(diff[: len(tau)])
                if fmt.d2:
                    m.d.comb += self.y.shift[j].eq(tau)
                lsb = Signal(_EXP, name=f"lsb{j}")
                m.d.comb += lsb.eq(E - tau - fmt.m + 1)
                for i in range(j * fmt.k2, (j + 1) * fmt.k2):
                    q = _BdrLane(src, fmt.m, self._roundings, self._rand_bits)
                    m.submodules[f"lane{i}"] = q
                    u = lanes[i]
                    m.d.comb += [q.sign.eq(u.sign), q.exp.eq(u.exp), q.sig.eq(u.sig), q.nonzero.eq(u.nonzero),
                                 q.special.eq(u.special), q.lsb.eq(lsb), q.mode.eq(mode),
                                 self.y.elem[i].eq(q.code)]
                    if "sr" in self._roundings:
                        R = self._rand_bits
                        m.d.comb += q.rand.eq(self.rand[i * R : (i + 1) * R])
        else:
            bad = Signal(name="bad")
            m.d.comb += bad.eq(Cat(*(u.special for u in lanes)).any())
            leaves = []
            for i, u in enumerate(lanes):
                fe = Signal(_EXP, name=f"fe{i}")
                m.d.comb += fe.eq(Mux(u.nonzero, u.exp, _LO))
                leaves.append(fe)
            top = _max_tree(m, leaves, "emax")
            sexp = Signal(_EXP, name="sexp")
            raw = Signal(_EXP, name="sexp_raw")
            m.d.comb += raw.eq(top - fmt.emax_elem)
            with m.If(raw > fmt.scale.emax):
                m.d.comb += sexp.eq(fmt.scale.emax)
            with m.Elif(raw < fmt.scale.emin):
                m.d.comb += sexp.eq(fmt.scale.emin)
            with m.Else():
                m.d.comb += sexp.eq(raw)
            m.d.comb += self.y.scale.eq(Mux(bad, fmt.scale.nan_code, sexp + fmt.scale.bias))
            for i, u in enumerate(lanes):
                q = _OcpLane(src, fmt, self._roundings, self._rand_bits)
                m.submodules[f"lane{i}"] = q
                m.d.comb += [q.sign.eq(u.sign), q.exp.eq(u.exp), q.sig.eq(u.sig), q.nonzero.eq(u.nonzero),
                             q.sexp.eq(sexp), q.mode.eq(mode), self.y.elem[i].eq(Mux(bad, 0, q.code))]
                if "sr" in self._roundings:
                    R = self._rand_bits
                    m.d.comb += q.rand.eq(self.rand[i * R : (i + 1) * R])
        return m


class _ToFP32(wiring.Component):
    """``(-1)**sign * q * 2**lsb`` -> FP32 bits (exact where FP32 holds it; beyond FP32's range ±Inf)."""

    def __init__(self, q_bits):
        self._q_bits = q_bits
        super().__init__({"sign": In(1), "q": In(q_bits), "lsb": In(_EXP), "y": Out(32)})

    def elaborate(self, platform):
        m = Module()
        p = highest_one(m, self.q, "lead")
        e = Signal(_EXP)
        m.d.comb += e.eq(self.lsb + p)
        mag = Signal(31)
        frac = Signal(23)
        m.d.comb += frac.eq(((self.q << 23) >> p)[:23])
        sub_shift = Signal(signed(14))
        m.d.comb += sub_shift.eq(self.lsb + 149)
        with m.If(self.q == 0):
            m.d.comb += mag.eq(0)
        with m.Elif(e > 127):
            m.d.comb += mag.eq(0xFF << 23)
        with m.Elif(e >= -126):
            m.d.comb += mag.eq(Cat(frac, (e + 127)[:8]))
        with m.Elif(sub_shift >= 0):
            m.d.comb += mag.eq((self.q << sub_shift[:5])[:31])
        with m.Else():  # below 2**-149: not reachable for the formats a decoder accepts
            m.d.comb += mag.eq(self.q >> (-sub_shift)[:5])
        m.d.comb += self.y.eq(Cat(mag, self.sign))
        return m


class BlockDecoder(SpecBuilt, DecoderOptions, wiring.Component):
    """One block of a BDR or OCP MX format -> k1 FP32 values, combinational and exact.

    OCP blocks with scale 0xFF, and NaN element codes (E5M2), give the quiet NaN 0x7FC00000; values beyond
    FP32's range (only from codes no encoder produces, e.g. scale 0xFE with a large element) give ±Inf.

    Members
    -------
    a : In(block_layout(fmt))
    y : Out(ArrayLayout(32, k1))
    """

    def __init__(self, fmt, target="fp32"):
        fmt, tgt = self.spec.descriptor, SOURCES[self.spec.target]  # (checked in __new__: SpecBuilt)
        self._fmt, self._tgt = fmt, tgt
        super().__init__({"a": In(block_layout(fmt)), "y": Out(values_layout(32, fmt.k1))})

    @classmethod
    def spec_of(cls, fmt, target="fp32"):
        """The :class:`~fpforge.hw.spec.BlockDecoderSpec` the arguments describe (``fmt`` may be the spec)."""
        return block_decoder_spec(cls, fmt, target, ("fp32",))

    def describe(self):
        return f"block decoder {self._fmt.name} ({self._fmt.layout}) -> fp32"

    def elaborate(self, platform):
        m = Module()
        fmt = self._fmt
        if isinstance(fmt, BlockFormat):
            E = Signal(_EXP, name="E")
            m.d.comb += E.eq(self.a.scale - fmt.scale_bias)
            for i in range(fmt.k1):
                j = i // fmt.k2
                lane = _ToFP32(fmt.m)
                m.submodules[f"lane{i}"] = lane
                tau = self.a.shift[j] if fmt.d2 else 0
                code = self.a.elem[i]
                m.d.comb += [lane.sign.eq(code[fmt.m]), lane.q.eq(code[: fmt.m]),
                             lane.lsb.eq(E - tau - fmt.m + 1), self.y[i].eq(lane.y)]
            return m
        nan_scale = Signal(name="nan_scale")
        X = Signal(_EXP, name="X")
        m.d.comb += [nan_scale.eq(self.a.scale == fmt.scale.nan_code), X.eq(self.a.scale - fmt.scale.bias)]
        el = fmt.element
        for i in range(fmt.k1):
            code = self.a.elem[i]
            lane = _ToFP32(el.bits if fmt.is_int else el.mbits + 1)
            m.submodules[f"lane{i}"] = lane
            nan = Const(0, 1)
            inf = Const(0, 1)
            if fmt.is_int:
                neg = code[el.bits - 1]
                m.d.comb += [lane.sign.eq(neg), lane.q.eq(Mux(neg, -code, code)),
                             lane.lsb.eq(X - el.frac_bits)]
            else:
                ef, mf = float_fields(el, code)
                cls = classify(el, code)
                m.d.comb += [lane.sign.eq(cls.sign),
                             lane.q.eq(Mux(ef == 0, mf, Cat(mf, Const(1, 1)))),
                             lane.lsb.eq(X + Mux(ef == 0, el.emin, ef - el.bias) - el.mbits)]
                nan, inf = cls.nan, cls.inf
            with m.If(nan_scale | nan):
                m.d.comb += self.y[i].eq(0x7FC00000)
            with m.Elif(inf):
                m.d.comb += self.y[i].eq(Cat(Const(0xFF << 23, 31), code[el.bits - 1]))
            with m.Else():
                m.d.comb += self.y[i].eq(lane.y)
        return m
