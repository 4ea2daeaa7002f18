"""The scaled encoder of the FP8 RFC (seed 002): k lanes of FP32/BF16 times a per-tensor scale, cast to a
narrow format, and the running amax of the inputs for the next step's scale.

Every lane computes ``p = fp32(x * scale)`` — an IEEE round-to-nearest-even FP32 product
(:class:`Fp32Multiplier`, or with ``scaling="pow2"`` an exponent add ``x * 2**k``, rounded the same way
where the result is an FP32 subnormal or overflows) — and feeds ``p`` to the format's ordinary FP32
encoder (``Encoder``/``HiF8Encoder``), so the cast is double-rounded exactly as
:func:`fpforge.golden.scaling.scaled_encode_with_flags` defines (``docs/scaling.md``). The flags of the two
operations are ORed. The scale's unpacking (normalization of a subnormal scale) is shared by the lanes.
"""

from amaranth import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..golden.formats import RUNTIME_BIAS_BITS, SOURCES, Flag, TaperedFormat, get_format, resolve_variant
from ..golden.rng import DEFAULT_RAND_BITS
from ..golden.scaling import SCALE_EXP_BITS, SCALE_EXP_RANGE
from .convert import Encoder, round_to_format, unpack_source
from .fromspec import SpecBuilt, rand_bits_of, scaled_encoder_spec
from .hif8 import HiF8Encoder
from .names import format_label
from .pipeline import Pipeline
from .rounding import MODE_WIDTH, SATURATE_WORDS, encoder_members
from .spec_fields import SCALED_SOURCES, SCALINGS, check_choice, check_lanes  # re-exported: the unit's options

__all__ = ["SCALINGS", "SCALED_SOURCES", "Fp32Multiplier", "ScaledEncoder", "ScaledEncoderCore", "check_lanes",
           "running_max",
           "scalar_encoder"]

_FP32 = SOURCES["fp32"]
_QNAN = 0x7FC00000
_INF = 0x7F800000


def scalar_encoder(fmt, source="fp32", roundings=None, saturate=False, nan_to_zero=False,
                   rand_bits=DEFAULT_RAND_BITS, ieee_denormals=False, paper_literal=False):
    """The combinational encoder the descriptor calls for (``HiF8Encoder`` for tapered formats); the
    ``ieee_denormals``/``paper_literal`` sugar resolves to the variant descriptor here."""
    fmt = resolve_variant(get_format(fmt), ieee_denormals=ieee_denormals, paper_literal=paper_literal)
    roundings = roundings or fmt.roundings[:1]
    return (HiF8Encoder if isinstance(fmt, TaperedFormat) else Encoder)(fmt, source, roundings, saturate,
                                                                      nan_to_zero, rand_bits)


class _Product(wiring.Component):
    """``x * scale`` rounded once to FP32 (the scale arrives unpacked), or ``x * 2**k``; IEEE flags."""

    def __init__(self, source, scaling):
        self._src = SOURCES[source]
        self._scaling = scaling
        members = {"a": In(self._src.bits), "p": Out(32), "flags": Out(len(Flag))}
        if scaling == "pow2":
            members["k"] = In(signed(SCALE_EXP_BITS))
        else:
            members.update({"s_sign": In(1), "s_exp": In(signed(10)), "s_sig": In(24), "s_nan": In(1),
                            "s_inf": In(1), "s_nonzero": In(1), "s_sub": In(1)})
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        src = self._src
        w = src.mbits + 1
        sign, ex, sx, nan_x, inf_x, nz_x, sub_x = unpack_source(m, src, self.a, normalize=True, width=w)
        exp = Signal(signed(12), name="pexp")
        if self._scaling == "pow2":
            sig = Signal(max(w, 24), name="psig")
            m.d.comb += [sig.eq(sx << (len(sig) - w)), exp.eq(ex + self.k)]
            nan, inf, nonzero, denormal = nan_x, inf_x, nz_x, sub_x
            exp_max = src.emax + SCALE_EXP_RANGE[1]
        else:
            prod = Signal(w + 24, name="prod")
            m.d.comb += prod.eq(sx * self.s_sig)
            top = prod[-1]
            sig = Signal(w + 24, name="psig")
            m.d.comb += [sig.eq(Mux(top, prod, prod << 1)), exp.eq(ex + self.s_exp + top)]
            sign = sign ^ self.s_sign
            zero_x = ~nz_x & ~nan_x & ~inf_x
            zero_s = ~self.s_nonzero & ~self.s_nan & ~self.s_inf
            nan = nan_x | self.s_nan | (inf_x & zero_s) | (zero_x & self.s_inf)
            inf = inf_x | self.s_inf
            nonzero = nz_x & self.s_nonzero
            denormal = sub_x | self.s_sub
            exp_max = src.emax + _FP32.emax + 1
        rnd, mag, _ = round_to_format(m, _FP32, exp, sig, ("rne",), DEFAULT_RAND_BITS, exp_max, nonzero=nonzero)
        overflow = Signal(name="overflow")
        inexact = Signal(name="inexact")
        m.d.comb += [overflow.eq(nonzero & (mag > _FP32.max_code)), inexact.eq(nonzero & rnd.inexact | overflow)]
        neg = Mux(sign, 1 << 31, 0)
        with m.If(nan):
            m.d.comb += self.p.eq(_QNAN)
        with m.Elif(inf | overflow):
            m.d.comb += self.p.eq(neg | _INF)
        with m.Else():
            m.d.comb += self.p.eq(neg | mag[:31])
        tiny = mag < (1 << _FP32.mbits)
        m.d.comb += self.flags.eq(Cat(nan, denormal, overflow, inexact & ~overflow & tiny, inexact))
        return m



def _unpack_scale(m, scale):
    """The FP32 scale normalized once for every lane: ``(sign, exp, sig, nan, inf, nonzero, subnormal)``."""
    return unpack_source(m, _FP32, scale, normalize=True, width=24)


def _connect_scale(m, product, parts):
    sign, exp, sig, nan, inf, nonzero, sub = parts
    m.d.comb += [product.s_sign.eq(sign), product.s_exp.eq(exp), product.s_sig.eq(sig), product.s_nan.eq(nan),
                 product.s_inf.eq(inf), product.s_nonzero.eq(nonzero), product.s_sub.eq(sub)]


class Fp32Multiplier(wiring.Component):
    """``x * scale`` as an IEEE binary32 product (round to nearest even, subnormals, canonical NaN
    ``0x7FC00000``), combinational; ``scaling="pow2"`` multiplies by ``2**k`` instead (an exponent add).

    Parameters
    ----------
    source : str
        ``fp32`` or ``bf16`` (the operand ``a``; BF16 is widened exactly).
    scaling : str
        ``fp32`` (port ``scale``, FP32 bits) or ``pow2`` (port ``scale_exp``, signed 9-bit ``k``).

    Members
    -------
    a : In(source bits)
    scale : In(32)
        Only with ``scaling="fp32"``.
    scale_exp : In(signed(9))
        Only with ``scaling="pow2"``.
    y : Out(32)
    flags : Out(5)
        invalid (NaN result), denormal (a subnormal operand), overflow, underflow, inexact.
    """

    def __init__(self, source="fp32", scaling="fp32"):
        self._source = check_choice(source, SCALED_SOURCES, "source")
        self._scaling = check_choice(scaling, SCALINGS, "scaling")
        members = {"a": In(SOURCES[source].bits)}
        members.update({"scale": In(32)} if scaling == "fp32" else {"scale_exp": In(signed(SCALE_EXP_BITS))})
        members.update({"y": Out(32), "flags": Out(len(Flag))})
        super().__init__(members)

    source = property(lambda self: SOURCES[self._source])
    scaling = property(lambda self: self._scaling)

    def describe(self):
        return f"multiplier {self._source} x {'fp32 scale' if self._scaling == 'fp32' else '2^k'} -> fp32, rne"

    def elaborate(self, platform):
        m = Module()
        m.submodules.product = prod = _Product(self._source, self._scaling)
        m.d.comb += [prod.a.eq(self.a), self.y.eq(prod.p), self.flags.eq(prod.flags)]
        if self._scaling == "fp32":
            _connect_scale(m, prod, _unpack_scale(m, self.scale))
        else:
            m.d.comb += prod.k.eq(self.scale_exp)
        return m


class ScaledEncoderCore(SpecBuilt, wiring.Component):
    """``lanes`` scaled casts and the amax update, combinational (:class:`ScaledEncoder` registers it).

    Parameters are :class:`ScaledEncoder`'s (without ``latency``/``seed``). ``amax_prev`` is the running
    amax before this transfer; ``amax`` is ``first ? max|a| : max(amax_prev, max|a|)`` over the lanes,
    magnitudes compared as FP32 bit patterns (BF16 shifted up 16 bits): a NaN wins, then +Inf.
    """

    def __init__(self, fmt, source="fp32", lanes=1, scaling="fp32", roundings=None, saturate=False,
                 nan_to_zero=False, rand_bits=DEFAULT_RAND_BITS, ieee_denormals=False, paper_literal=False):
        spec = self.spec  # (checked in __new__: SpecBuilt; its latency and seed are the stream's)
        fmt = spec.descriptor
        self._cfg = dict(fmt=fmt, source=spec.source, lanes=spec.lanes, scaling=spec.scaling,
                         roundings=spec.rounding, saturate=spec.saturate, nan_to_zero=spec.nan_to_zero,
                         rand_bits=rand_bits_of(spec), ieee_denormals=fmt.variant_name == "ieee",
                         paper_literal=fmt.variant_name == "literal")
        super().__init__(self.members_of(spec))

    @classmethod
    def spec_of(cls, fmt, source="fp32", lanes=1, scaling="fp32", roundings=None, saturate=False,
                nan_to_zero=False, rand_bits=DEFAULT_RAND_BITS, ieee_denormals=False, paper_literal=False):
        """The :class:`~fpforge.hw.spec.ScaledEncoderSpec` the arguments describe (``fmt`` may be the spec)."""
        return scaled_encoder_spec(cls, fmt, source, lanes, scaling, roundings, saturate, nan_to_zero, rand_bits,
                                   ieee_denormals, paper_literal)

    @staticmethod
    def members_of(spec) -> dict:
        """The ports of the core of a :class:`~fpforge.hw.spec.ScaledEncoderSpec` (read from the spec: the
        lane encoder's ``mode``/``sat``/``rand`` ports as :func:`~fpforge.hw.rounding.encoder_members` gives them)."""
        src, fmt, lanes, rand_bits = SOURCES[spec.source], spec.descriptor, spec.lanes, rand_bits_of(spec)
        lane = encoder_members(fmt, SOURCES["fp32"], spec.rounding, spec.saturate, rand_bits)
        members = {"a": In(lanes * src.bits)}
        members.update({"scale": In(32)} if spec.scaling == "fp32" else {"scale_exp": In(signed(SCALE_EXP_BITS))})
        members.update({"first": In(1), "amax_prev": In(32)})
        if "mode" in lane:
            members["mode"] = In(MODE_WIDTH)
        if "sat" in lane:
            members["sat"] = In(1)
        if fmt.runtime_bias:
            members["bias"] = In(RUNTIME_BIAS_BITS)
        if "rand" in lane:
            members["rand"] = In(lanes * rand_bits)
        members.update({"y": Out(lanes * fmt.bits), "flags": Out(lanes * len(Flag)), "amax": Out(32)})
        return members

    @property
    def config(self) -> dict:
        """The configuration (format descriptor, source, lanes, scaling, roundings, saturate, ...)."""
        return dict(self._cfg)

    format = property(lambda self: self._cfg["fmt"])
    source = property(lambda self: SOURCES[self._cfg["source"]])
    lanes = property(lambda self: self._cfg["lanes"])
    scaling = property(lambda self: self._cfg["scaling"])
    roundings = property(lambda self: self._cfg["roundings"])
    rand_draws = property(lambda self: self._cfg["lanes"], doc="Draws per transfer (one per lane, lane 0 first).")

    def describe(self):
        c = self._cfg
        text = (f"scaled encoder {c['lanes']} x {c['source']} * {'fp32 scale' if c['scaling'] == 'fp32' else '2^k'}"
                f" -> {format_label(c['fmt'])}, rounding {','.join(c['roundings'])}, "
                f"saturate {SATURATE_WORDS[c['saturate']]}, "
                f"nan_to_zero {int(c['nan_to_zero'])}")
        if "sr" in c["roundings"]:
            text += f", rand_bits {c['rand_bits']}"
        if c["ieee_denormals"]:
            text += ", ieee_denormals 1"
        if c["paper_literal"]:
            text += ", paper_literal 1"
        return text

    def elaborate(self, platform):
        m = Module()
        c = self._cfg
        src, fmt, k = SOURCES[c["source"]], c["fmt"], c["lanes"]
        R, nf = c["rand_bits"], len(Flag)
        parts = _unpack_scale(m, self.scale) if c["scaling"] == "fp32" else None
        mags = []
        for j in range(k):
            a = self.a[j * src.bits : (j + 1) * src.bits]
            m.submodules[f"mul{j}"] = prod = _Product(c["source"], c["scaling"])
            m.submodules[f"enc{j}"] = enc = scalar_encoder(fmt, "fp32", c["roundings"], c["saturate"],
                                                           c["nan_to_zero"], R, c["ieee_denormals"],
                                                           c["paper_literal"])
            m.d.comb += [prod.a.eq(a), enc.a.eq(prod.p)]
            if parts is None:
                m.d.comb += prod.k.eq(self.scale_exp)
            else:
                _connect_scale(m, prod, parts)
            for name in ("mode", "sat", "bias"):
                if name in self.signature.members:
                    m.d.comb += getattr(enc, name).eq(getattr(self, name))
            if "rand" in self.signature.members:
                m.d.comb += enc.rand.eq(self.rand[j * R : (j + 1) * R])
            m.d.comb += [self.y[j * fmt.bits : (j + 1) * fmt.bits].eq(enc.y),
                         self.flags[j * nf : (j + 1) * nf].eq(enc.flags | prod.flags)]
            mag = Signal(31, name=f"mag{j}")  # FP32 magnitude bits
            m.d.comb += mag.eq(a[:31] if src.bits == 32 else Cat(Const(0, 16), a[:15]))
            mags.append(mag)
        m.d.comb += self.amax.eq(running_max(m, mags, self.first, self.amax_prev[:31]))
        return m


def running_max(m, mags, first, prev):
    """The running amax update of the scaled encoder (and the dot epilogue): ``first ? row : max(prev, row)``
    with ``row`` the largest of ``mags`` (31-bit FP32 magnitude bit patterns, a balanced comparator tree);
    as FP32 bit patterns a NaN wins, then +Inf. Returns the value (31 bits)."""
    level = 0
    while len(mags) > 1:  # a balanced comparator tree
        nxt = []
        for i in range(0, len(mags) - 1, 2):
            top = Signal(31, name=f"max{level}_{i // 2}")
            m.d.comb += top.eq(Mux(mags[i] >= mags[i + 1], mags[i], mags[i + 1]))
            nxt.append(top)
        mags = nxt + mags[len(mags) - len(mags) % 2 :]
        level += 1
    row = mags[0]
    return Mux(first | (row > prev), row, prev)


def _layout(members, skip=()):
    return data.StructLayout({n: mb.shape for n, mb in members.items() if n not in skip})


class ScaledEncoder(SpecBuilt, wiring.Component):
    """A valid/ready stream of ``lanes`` scaled casts per transfer with a running amax.

    Input payload (first field least significant): ``a`` (lane 0 lowest), ``scale`` (FP32 bits) or
    ``scale_exp`` (signed ``k``, scale ``2**k``), ``first`` (1: this transfer starts a new tensor), then
    ``mode``/``sat``/``bias`` where the configuration has them. Output payload: ``y`` (lane 0 lowest),
    ``flags`` (5 bits per lane), ``amax``: the largest input magnitude of the current tensor up to and
    including this transfer, as FP32 bits (+0 after reset until a ``first``). The result of a transfer
    leaves exactly ``latency`` cycles after it entered when not stalled; ``sr`` draws come from an internal
    xorshift32 (``seed``), one per lane per accepted transfer.

    Parameters
    ----------
    fmt : str or descriptor
        Any scalar target format (``bias`` port for run-time-bias formats).
    source : str
        ``fp32`` or ``bf16``.
    lanes : int
        Values per transfer, 1..64.
    scaling : str
        ``fp32`` (an FP32 multiplier per lane) or ``pow2`` (an exponent add per lane).
    roundings, saturate, nan_to_zero, rand_bits, ieee_denormals, paper_literal
        As for the format's plain encoder (a run-time ``mode``/``sat`` with several roundings / ``"runtime"``).
    latency : int
        Register stages, at least 1 (the amax is a register).
    seed : int
        Generator seed for ``sr``.
    """

    def __init__(self, fmt, source="fp32", lanes=1, scaling="fp32", roundings=None, saturate=False,
                 nan_to_zero=False, rand_bits=DEFAULT_RAND_BITS, ieee_denormals=False, paper_literal=False,
                 latency=1, seed=0):
        members = ScaledEncoderCore.members_of(self.spec)  # (checked in __new__: SpecBuilt)
        ins = {n: mb for n, mb in members.items() if mb.flow == In}
        outs = {n: mb for n, mb in members.items() if mb.flow == Out}
        self._parts = None
        super().__init__({
            "i": In(stream.Signature(_layout(ins, skip=("amax_prev", "rand")))),
            "o": Out(stream.Signature(_layout(outs))),
        })

    @classmethod
    def spec_of(cls, fmt, source="fp32", lanes=1, scaling="fp32", roundings=None, saturate=False,
                nan_to_zero=False, rand_bits=DEFAULT_RAND_BITS, ieee_denormals=False, paper_literal=False,
                latency=1, seed=0):
        """The :class:`~fpforge.hw.spec.ScaledEncoderSpec` the arguments describe (``fmt`` may be the spec)."""
        return scaled_encoder_spec(cls, fmt, source, lanes, scaling, roundings, saturate, nan_to_zero, rand_bits,
                                   ieee_denormals, paper_literal, latency, seed)

    def _core_and_pipe(self):
        """The core and its pipeline, built when first needed (a unit only asked for its signature builds none)."""
        if self._parts is None:
            core = ScaledEncoderCore(self.spec)
            self._parts = core, Pipeline(core, self.spec.latency, self.spec.seed or 0)
        return self._parts

    core = property(lambda self: self._core_and_pipe()[0])
    latency = property(lambda self: self.spec.latency)
    seed = property(lambda self: self.spec.seed or 0)

    def describe(self):
        return self._core_and_pipe()[1].describe()

    def elaborate(self, platform):
        m = Module()
        core, pipe = self._core_and_pipe()
        m.submodules.pipe = pipe
        amax = Signal(32, name="amax_reg")
        for name, _ in self.i.p.shape():
            m.d.comb += getattr(pipe.i.p, name).eq(getattr(self.i.p, name))
        m.d.comb += [pipe.i.p.amax_prev.eq(amax), pipe.i.valid.eq(self.i.valid), self.i.ready.eq(pipe.i.ready),
                     self.o.valid.eq(pipe.o.valid), self.o.p.eq(pipe.o.p), pipe.o.ready.eq(self.o.ready)]
        with m.If(self.i.valid & self.i.ready):
            m.d.sync += amax.eq(core.amax)
        return m
