"""The FP8 RFC's dot-product epilogue (seed 002): per-tensor scales, a running output amax and a saturating cast
of the FP32 result, attached to :class:`fpforge.hw.dot.DotProduct` by its ``scale``/``amax``/``out_format``
keywords. The bit-exact twin of :func:`fpforge.golden.scaling.epilogue` (``docs/scaling.md``).

Every part is an existing unit: :class:`~fpforge.hw.scaling.Fp32Multiplier` (IEEE binary32, rne, canonical
NaN) for ``s_ab = fp32(scale_a * scale_b)``, ``c = fp32(s_ab * inv_scale_out)``, ``y = fp32(r * c)`` and
``fp32(r * s_ab)``; the format's encoder (:func:`~fpforge.hw.scaling.scalar_encoder`) for the cast; the
scaled encoder's running maximum (:func:`~fpforge.hw.scaling.running_max`) for the amax. The two scale
products are computed from the input payload, beside the dot product's front end, and travel with their
operands (64 bits plus ``first`` per register stage); the result multiply, the cast and the amax update sit
behind the dot product's FP32 result, with one more register boundary in a stream unit.
"""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..golden.formats import RUNTIME_BIAS_BITS
from .epilogue_options import EpilogueOptions  # (the options are read by the dot spec, below the gateware)
from .scaling import Fp32Multiplier, running_max, scalar_encoder

__all__ = ["EPILOGUE_INPUTS", "EpilogueCore", "EpilogueOptions", "EpilogueScales", "attach_epilogue"]

#: The epilogue's input payload fields (after the operands), in payload order.
EPILOGUE_INPUTS = ("scale_a", "scale_b", "inv_scale_out", "first", "bias")


class EpilogueScales(wiring.Component):
    """``s_ab = fp32(scale_a * scale_b)`` and ``c = fp32(s_ab * inv_scale_out)``, combinational (two
    :class:`Fp32Multiplier`; any FP32 bits, IEEE semantics, canonical NaN)."""

    def __init__(self):
        super().__init__({"scale_a": In(32), "scale_b": In(32), "inv_scale_out": In(32),
                          "s_ab": Out(32), "c": Out(32)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.mul_ab = ab = Fp32Multiplier()
        m.submodules.mul_c = mc = Fp32Multiplier()
        m.d.comb += [ab.a.eq(self.scale_a), ab.scale.eq(self.scale_b), mc.a.eq(ab.y), mc.scale.eq(self.inv_scale_out),
                     self.s_ab.eq(ab.y), self.c.eq(mc.y)]
        return m


class EpilogueCore(wiring.Component):
    """The epilogue behind one FP32 result ``r``, combinational.

    ``y = fp32(r * c)`` (``r`` without ``scale``), ``flags`` = the multiply's flags ORed with the cast's,
    ``code`` = ``cast(y)`` in the output format, ``amax = first ? m : max(amax_prev, m)`` with
    ``m = |fp32(r * s_ab)|`` (``|r|`` without ``scale``), magnitudes compared as FP32 bit patterns.
    """

    def __init__(self, options: EpilogueOptions):
        self._opt = options
        members = {"r": In(32)}
        if options.scale:
            members.update(s_ab=In(32), c=In(32))
        if options.amax:
            members.update(first=In(1), amax_prev=In(32))
        if options.format is not None and options.format.runtime_bias:
            members["bias"] = In(RUNTIME_BIAS_BITS)
        members["y"] = Out(32)
        members.update({n: Out(s) for n, s in options.outputs().items()})
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        opt = self._opt
        y, flags = self.r, None
        if opt.scale:
            m.submodules.mul_y = my = Fp32Multiplier()
            m.d.comb += [my.a.eq(self.r), my.scale.eq(self.c)]
            y, flags = my.y, my.flags
        m.d.comb += self.y.eq(y)
        if opt.format is not None:
            m.submodules.cast = enc = scalar_encoder(opt.format, "fp32", (opt.rounding,), opt.saturate)
            m.d.comb += [enc.a.eq(y), self.code.eq(enc.y)]
            if "bias" in enc.signature.members:
                m.d.comb += enc.bias.eq(self.bias)
            flags = enc.flags if flags is None else enc.flags | flags
        if flags is not None:
            m.d.comb += self.flags.eq(flags)
        if opt.amax:
            mag = Signal(31, name="amax_mag")
            if opt.scale:
                m.submodules.mul_amax = ma = Fp32Multiplier()
                m.d.comb += [ma.a.eq(self.r), ma.scale.eq(self.s_ab), mag.eq(ma.y[:31])]
            else:
                m.d.comb += mag.eq(self.r[:31])
            m.d.comb += self.amax.eq(running_max(m, [mag], self.first, self.amax_prev[:31]))
        return m


def attach_epilogue(unit, core, platform=None):
    """Elaborate ``unit`` (a DotProduct with an epilogue): ``core`` (the plain DotProduct of the same
    configuration and stages) computes ``r``; the scales, the epilogue and, for a stream, the side-band
    register chain (enabled with the core's stages) and the epilogue's output register around it."""
    m = Module()
    opt = unit.epilogue
    m.submodules.dot = core
    m.submodules.epilogue = ep = EpilogueCore(opt)
    stream = unit.stages > 0
    src = unit.i.p if stream else unit
    if stream:
        m.d.comb += [getattr(core.i.p, n).eq(getattr(src, n)) for n in core.input_ports]
        m.d.comb += [core.i.valid.eq(unit.i.valid), unit.i.ready.eq(core.i.ready)]
    else:
        m.d.comb += [getattr(core, n).eq(getattr(src, n)) for n in core.input_ports]
    side = {}
    if opt.scale:
        m.submodules.scales = sc = EpilogueScales()
        m.d.comb += [sc.scale_a.eq(src.scale_a), sc.scale_b.eq(src.scale_b), sc.inv_scale_out.eq(src.inv_scale_out)]
        side.update(s_ab=sc.s_ab, c=sc.c)
    for name in ("first", "bias"):
        if name in opt.inputs():
            side[name] = getattr(src, name)
    if stream:  # the side band moves with the core's stages (they all advance on the core's i.ready)
        for k in range(core.latency):
            regs = {n: Signal(v.shape(), name=f"e{k}_{n}") for n, v in side.items()}
            with m.If(core.i.ready):
                m.d.sync += [regs[n].eq(v) for n, v in side.items()]
            side = regs
    res = core.o.p if stream else core
    m.d.comb += ep.r.eq(res.y)
    for name, value in side.items():
        m.d.comb += getattr(ep, name).eq(value)
    outs = {"y": ep.y}
    for name in core.output_ports:
        if name != "y":
            outs[name] = getattr(res, name)
    outs.update({n: getattr(ep, n) for n in opt.outputs()})
    if not stream:
        m.d.comb += [getattr(unit, n).eq(v) for n, v in outs.items()]
        return m
    advance = Signal(name="e_advance")
    m.d.comb += [advance.eq(~unit.o.valid | unit.o.ready), core.o.ready.eq(advance)]
    valid = Signal(name="e_valid")
    with m.If(advance):
        m.d.sync += valid.eq(core.o.valid)
        m.d.sync += [getattr(unit.o.p, n).eq(v) for n, v in outs.items()]
    m.d.comb += unit.o.valid.eq(valid)
    if opt.amax:
        amax = Signal(32, name="amax_reg")  # the tensor's running amax after the last result taken in
        m.d.comb += ep.amax_prev.eq(amax)
        with m.If(advance & core.o.valid):
            m.d.sync += amax.eq(ep.amax)
    return m
