"""The MX-style dot-product unit (seed 004 §IV-B, Fig. 6), generated from a :class:`fpforge.golden.dot.DotConfig`.

``DotProduct(fmt, r, f, fmt_b=None, stages=0, raw=False)`` takes two operands per transfer — A and B, r
elements each, in the packed layouts of their formats (``operand_layout``: r/k1 blocks of
``fpforge.hw.block_layout``, block 0 in the low bits, or r scalar codes) — and delivers the FP32 dot
product and, with ``raw``, the fixed-point sum and its exponent. It is the bit-exact twin of
``fpforge.golden.dot.dot``; ``docs/dot.md`` has the diagram. Its parts, in pipeline order:

====  ================  =========================================================================================
part  name              what it does
====  ================  =========================================================================================
P1    products          per element: sign/magnitude (and exponent offset) decode, NaN/Inf classes; per lane a
                        ``mag_a × mag_b`` multiplier (OCP FP: the product shifted by ``eoff_a + eoff_b``); the
                        special classes reduced to three bits (NaN, +Inf, −Inf)
P2    block trees       per k1-block an adder tree of the signed products; at depth log2(k2) each sub-block sum
                        gets G guard bits and the conditional right shift by ``tau_a + tau_b``; block exponent
                        ``X = Ea + Eb`` (the smallest X when the block sum is 0)
P3    max exponent      a max tree over the r/k1 block exponents; per block the alignment distance
P4    alignment         per block an arithmetic barrel shifter into the f-bit window, the sticky bit of what fell
                        out, and the +1 correction for negative blocks that lost bits (truncation toward zero)
P5    fixed-point tree  an adder tree of the r/k1 aligned blocks and their corrections; the raw exponent
P6    normalize/round   leading-one detector, normalizing shift, the shared :class:`Rounder` (rne) to 24 bits or
                        to the FP32 subnormal grid, exponent, overflow to ±Inf, the special-value override
====  ================  =========================================================================================

``stages = 0`` is purely combinational (ports ``a``, ``b``, ``sel_a``/``sel_b`` for ``fp8``, ``bias_a``/``bias_b``
for CFloat8 operands, ``y``, ``sum``, ``exp``). ``stages = S >= 1`` is a valid/ready stream (``i``/``o``, ``amaranth.lib.stream``) with S register
stages placed at the part boundaries in the order :data:`STAGE_ORDER` (after P6 first, i.e. a registered
output; beyond six stages extra output registers are added for retiming): one dot product per cycle when
not stalled, the result exactly S cycles after its operands; all stages advance together unless the
output holds an untaken result; ``valid`` never depends on ``ready``.

``scale``/``amax``/``out_format`` add the FP8 RFC's epilogue behind P6 (:mod:`fpforge.hw.epilogue`, which
wraps the plain unit; ``docs/scaling.md``): scale fields in the payload, a running output amax, a cast to an
8-bit format, and one more register in a stream unit (``latency`` = S + 1).
"""

from amaranth import Cat, Const, Module, Mux, Signal, signed, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import bits_for

from .classify import highest_one_tree
from .dot_elements import decode_elements, operand_layout, reduce_tree, signed_bits
from .epilogue import EpilogueOptions, attach_epilogue
from .fromspec import SpecBuilt, dot_spec
from .pipeline import RegisteredIO  # (lived here before; the area method wraps any unit)
from .rounding import Rounder, read_only
from .spec_fields import DATAPATHS, resolve_datapath

__all__ = ["DATAPATHS", "DotProduct", "RegisteredIO", "STAGE_ORDER", "anchored_sum_bits", "operand_layout",
           "resolve_datapath"]


def anchored_sum_bits(cfg) -> int:
    """Bits of the anchored datapath's two's-complement sum: a block sum (W + 1 bits) shifted left by up to
    x_max - x_min, nb of them added."""
    return cfg.W + 1 + (cfg.x_max - cfg.x_min) + (cfg.nb - 1).bit_length()




def _fp32_select(m, zero, ovf, neg, bits):
    """P6's FP32 result ``y``: +0 for a zero sum, +-Inf on overflow, else ``{neg, bits[:31]}`` (every P6
    variant ends with it, before the special-value override)."""
    y = Signal(32, name="y")
    with m.If(zero):
        m.d.comb += y.eq(0)
    with m.Elif(ovf):
        m.d.comb += y.eq(Cat(Const(0x7F800000, 31), neg))
    with m.Else():
        m.d.comb += y.eq(Cat(bits[:31], neg))
    return y


def _carried(live, *names):
    """What a pipeline part passes on untouched, in ``live``'s order: the special-value side band
    (``sp_*``) and the signals ``names``."""
    return {k: v for k, v in live.items() if k.startswith("sp_") or k in names}


#: Part boundaries that get a register as ``stages`` grows: after P6 (the output), after P2 (block sums),
#: after P4 (aligned addends), after P1 (products), after P5 (the sum), after P3 (max exponent).
STAGE_ORDER = (6, 2, 4, 1, 5, 3)


class DotProduct(SpecBuilt, wiring.Component):
    """r-element dot product of two block (or scalar FP8) operands, FP32 result (``docs/dot.md``).

    Parameters
    ----------
    fmt : str or descriptor, or DotConfig
        Format of operand A: a BDR format (``mx9``, ``bdr(m, k1, d1, k2, d2)``, …), an OCP MX format, a narrow
        float (``e4m3``, ``e5m2``, ``hif8``, ``cfloat8_143``, … : each element through its descriptor's
        ``dot_fields`` and :data:`ELEMENT_GATEWARE`) or ``fp8`` (E4M3 or E5M2 per operand at run time:
        ``sel_a``/``sel_b`` ports, 0 = E4M3, 1 = E5M2). A ``DotConfig`` carries r, f and B as well.
    r : int
        Elements per dot product, a multiple of k1.
    f : int
        Bits of the fixed-point window (sign included), 8..256.
    fmt_b : str or descriptor, optional
        Format of operand B (default A's); same family and block size.
    stages : int
        0: combinational; S >= 1: a valid/ready stream with S register stages (``latency`` = S).
    raw : bool
        Also output the raw fixed-point sum ``sum`` (signed, ``acc_bits``) and its exponent ``exp``
        (signed): the finite result is exactly ``sum * 2**exp``.
    scale : bool
        The FP8 RFC's scales: inputs ``scale_a``, ``scale_b``, ``inv_scale_out`` (FP32 bits, payload fields);
        ``y = fp32(r * fp32(fp32(scale_a * scale_b) * inv_scale_out))`` and a ``flags`` output, bit for bit
        :func:`fpforge.golden.scaling.epilogue`.
    amax : bool
        (stages >= 1) Output ``amax``: the running max of ``|fp32(r * fp32(scale_a * scale_b))|`` (``|r|``
        without ``scale``) over the current tensor; input ``first`` (1: this dot product starts a tensor).
    out_format : str or descriptor, optional
        Cast ``y`` to this scalar format of at most 8 bits: output ``code`` (and ``flags``); a run-time-bias
        format adds a ``bias`` input.
    out_rounding : str, optional
        The cast's rounding mode (default the format's first; not ``sr``).
    saturate : bool
        The cast saturates (default True, the RFC's choice).

    Members
    -------
    a, b : In(operand_layout)
        (stages = 0) The operands.
    sel_a, sel_b : In(1)
        (stages = 0, ``fp8`` operands) The element format of each operand.
    bias_a, bias_b : In(6)
        (stages = 0, run-time-bias operands: CFloat8) The exponent bias of each operand, 0..63.
    y : Out(32)
        (stages = 0) The FP32 result.
    sum, exp : Out(signed)
        (stages = 0, ``raw``) The raw result.
    scale_a, scale_b, inv_scale_out, bias : In(32, 32, 32, 6)
        (stages = 0, epilogue) See ``scale`` and ``out_format``.
    code, flags : Out(format bits, 5)
        (stages = 0, epilogue) See ``out_format`` and ``scale``.
    i : In(stream.Signature(StructLayout a, b[, sel_a, sel_b][, bias_a, bias_b][, scale_a, scale_b, inv_scale_out][, first][, bias]))
        (stages >= 1) Operands (and the epilogue's fields).
    o : Out(stream.Signature(StructLayout y[, sum, exp][, code][, flags][, amax]))
        (stages >= 1) Results, ``latency`` cycles later when not stalled.

    Raises
    ------
    ValueError
        Bad format, r, f (the :class:`DotConfig` rules) or stages; ``amax`` on a combinational unit; an
        ``out_format`` that is not a scalar format of at most 8 bits, an unknown or ``sr`` rounding;
        ``out_rounding``/``saturate=False`` without ``out_format``.
    TypeError
        A switch that is not a bool.
    """

    def __init__(self, fmt, r=None, f=None, *, fmt_b=None, stages=0, raw=False, scale=False, amax=False,
                 out_format=None, out_rounding=None, saturate=True, datapath="auto"):
        spec = self.spec  # (checked in __new__: SpecBuilt)
        cfg, stages = spec.config, spec.stages
        self._cfg, self._stages, self._raw = cfg, stages, spec.raw
        self._datapath = resolve_datapath(cfg, spec.datapath, raw=spec.raw)
        self._epilogue = EpilogueOptions(spec.scale, spec.amax, spec.out_format, spec.rounding,
                                         True if spec.saturate is None else spec.saturate, stages)
        ins = {"a": operand_layout(cfg.a, cfg.r), "b": operand_layout(cfg.b, cfg.r)}
        for side, fmt_ in (("sel_a", cfg.a), ("sel_b", cfg.b)):
            if fmt_.dot_side.element_block_exponent and fmt_.select_bits:
                ins[side] = unsigned(fmt_.select_bits)
        for side, fmt_ in (("bias_a", cfg.a), ("bias_b", cfg.b)):
            if fmt_.dot_side.element_block_exponent and fmt_.bias_bits:
                ins[side] = unsigned(fmt_.bias_bits)
        outs = {"y": unsigned(32)}
        if self._raw:
            outs["sum"] = signed(cfg.acc_bits)
            outs["exp"] = signed(cfg.exp_bits)
        ins.update(self._epilogue.inputs())
        outs.update(self._epilogue.outputs())
        self._ins, self._outs = ins, outs
        if stages == 0:
            members = {n: In(s) for n, s in ins.items()}
            members.update({n: Out(s) for n, s in outs.items()})
        else:
            members = {"i": In(stream.Signature(data.StructLayout(ins))),
                       "o": Out(stream.Signature(data.StructLayout(outs)))}
        super().__init__(members)

    @classmethod
    def spec_of(cls, fmt, r=None, f=None, *, fmt_b=None, stages=0, raw=False, scale=False, amax=False,
                out_format=None, out_rounding=None, saturate=True, datapath="auto"):
        """The :class:`~fpforge.hw.spec.DotSpec` the arguments describe (``fmt`` may be the spec itself)."""
        return dot_spec(cls, fmt, r, f, fmt_b, stages, raw, scale, amax, out_format, out_rounding, saturate,
                        datapath)

    # -- properties -------------------------------------------------------------------------------------
    config = read_only("_cfg", "The :class:`~fpforge.golden.dot.DotConfig` of the unit.")
    stages = read_only("_stages", "Register stages of the pipeline (0: combinational).")
    raw = read_only("_raw", "Whether the raw fixed-point sum and exponent are outputs.")
    datapath = read_only("_datapath", "The datapath built: ``aligned`` or ``anchored`` (``auto`` resolved, "
                                      ":func:`resolve_datapath`).")
    epilogue = read_only("_epilogue", "The epilogue's options (``epilogue.enabled`` is False for the plain unit).")

    @property
    def latency(self) -> int:
        """Cycles from operands to result when not stalled: stages (0 for the combinational unit), plus one
        for the epilogue's register in a stream unit with an epilogue."""
        return self._stages + (1 if self._stages and self._epilogue.enabled else 0)

    @property
    def boundaries(self) -> tuple:
        """The part boundaries (1..6, see :data:`STAGE_ORDER`) that hold a register, in pipeline order."""
        return tuple(sorted(STAGE_ORDER[: min(self._stages, len(STAGE_ORDER))]))

    @property
    def input_ports(self) -> dict:
        """``{name: shape}`` of the operand ports (the stream payload fields)."""
        return dict(self._ins)

    @property
    def output_ports(self) -> dict:
        return dict(self._outs)

    def describe(self):
        text = self._cfg.describe()
        if self._datapath == "anchored":
            text += ", anchored datapath"
        if self._raw:
            text += ", raw sum and exponent"
        if self._epilogue.enabled:
            text += ", " + self._epilogue.describe()
        if self._stages:
            text += f", {self._stages} stages at part boundaries {','.join(map(str, self.boundaries))}"
            if self._stages > len(STAGE_ORDER):
                text += f" + {self._stages - len(STAGE_ORDER)} output"
            if self._epilogue.enabled:
                text += " + 1 epilogue"
        else:
            text += ", combinational"
        return text

    # -- elaboration --------------------------------------------------------------------------------------
    def elaborate(self, platform):
        if self._epilogue.enabled:  # the plain unit inside, the epilogue behind its FP32 result
            return attach_epilogue(self, DotProduct(self._cfg, stages=self._stages, raw=self._raw,
                                                    datapath=self._datapath), platform)
        m = Module()
        if self._stages == 0:
            src = {n: getattr(self, n) for n in self._ins}
            advance = None
        else:
            src = {n: getattr(self.i.p, n) for n in self._ins}
            advance = Signal()
            m.d.comb += [advance.eq(~self.o.valid | self.o.ready), self.i.ready.eq(advance)]

        boundaries = set(self.boundaries)
        valids = []
        valid_in = self.i.valid if self._stages else None

        def boundary(k, live):
            nonlocal valid_in
            if k not in boundaries:
                return live
            regs = {}
            for name, v in live.items():
                regs[name] = Signal(v.shape(), name=f"b{k}_{name}")
            v = Signal(name=f"b{k}_valid")
            with m.If(advance):
                m.d.sync += [regs[n].eq(live[n]) for n in live]
                m.d.sync += v.eq(valid_in)
            valid_in = v
            valids.append(v)
            return regs

        live = boundary(1, self._products(m, src))
        if self._datapath == "anchored":  # P3..P5: anchor offsets, left shifts, the fixed-anchor sum
            parts = (self._block_sums, self._anchor_offsets, self._anchor_shift, self._anchor_sum,
                     self._fp32_anchored)
        else:
            parts = (self._block_sums, self._max_exponent, self._align, self._sum, self._fp32)  # P2..P6
        for k, part in enumerate(parts, start=2):
            live = boundary(k, part(m, live))
        for k in range(len(STAGE_ORDER), self._stages):  # extra output registers
            boundaries.add(7 + k)
            live = boundary(7 + k, live)

        dst = self if self._stages == 0 else self.o.p
        for name in self._outs:
            m.d.comb += getattr(dst, name).eq(live[name])
        if self._stages:
            m.d.comb += self.o.valid.eq(valid_in)
        return m

    # -- P1: element decode (hw/dot_elements.py), products, special classes -------------------------------------
    def _products(self, m, src):
        cfg = self._cfg
        sa, sb = cfg.sa, cfg.sb
        live = {}
        pnans, pposs, pnegs = [], [], []
        prod_bits = sa.mag_bits + sb.mag_bits
        if cfg.product_shift:
            prod_bits += sa.eoff_max + sb.eoff_max
        self._prod_bits = prod_bits
        x_bits = signed_bits(cfg.x_min, cfg.x_max)
        # A NaN or Inf element's product is overridden by the special value in P6 (`_specials`), so only the
        # aligned datapath's raw sum needs its magnitude zeroed; the anchored one has no raw outputs.
        mask = self._datapath == "aligned"
        for j in range(cfg.nb):
            ea, blk_a = decode_elements(m, cfg.k1, sa, cfg.a, src["a"], src.get("sel_a"), j, f"a{j}",
                                        src.get("bias_a"), mask=mask)
            eb, blk_b = decode_elements(m, cfg.k1, sb, cfg.b, src["b"], src.get("sel_b"), j, f"b{j}",
                                        src.get("bias_b"), mask=mask)
            for i, (xa, xb) in enumerate(zip(ea, eb)):
                neg = Signal(name=f"p{j}_{i}_neg")
                if self._datapath == "anchored" and cfg.product_shift and not cfg.sub_block_guard:
                    # the anchored block sum takes signed products, negated before their shift: a 9-bit negation
                    # instead of a 37-bit one in the block's adder tree
                    pm = Signal(sa.mag_bits + sb.mag_bits, name=f"pm{j}_{i}")
                    q = Signal(signed(len(pm) + 1), name=f"q{j}_{i}")
                    m.d.comb += [pm.eq(xa.mag * xb.mag), q.eq(Mux(neg, -pm, pm))]
                    p = Signal(signed(prod_bits + 1), name=f"p{j}_{i}")
                    m.d.comb += p.eq(q << (xa.eoff + xb.eoff))
                else:
                    p = Signal(prod_bits, name=f"p{j}_{i}")
                    if cfg.product_shift:
                        m.d.comb += p.eq((xa.mag * xb.mag) << (xa.eoff + xb.eoff))
                    else:
                        m.d.comb += p.eq(xa.mag * xb.mag)
                m.d.comb += neg.eq(xa.sign ^ xb.sign)
                live[f"p{j}_{i}"] = p
                live[f"n{j}_{i}"] = neg
                if cfg.specials:
                    pnan = xa.nan | xb.nan | (xa.inf & xb.zero) | (xa.zero & xb.inf)
                    pinf = (xa.inf | xb.inf) & ~pnan
                    pnans.append(pnan)
                    pposs.append(pinf & ~neg)
                    pnegs.append(pinf & neg)
            X = Signal(signed(x_bits), name=f"x{j}")
            if cfg.element_block_exponent:
                m.d.comb += X.eq(ea[0].eoff + eb[0].eoff)
            elif cfg.sub_block_guard:
                m.d.comb += X.eq(blk_a.scale - cfg.a.scale_bias + blk_b.scale - cfg.b.scale_bias)
                for s in range(cfg.n_sub if cfg.G else 0):
                    t = Signal(range(cfg.G + 1), name=f"tau{j}_{s}")
                    ta = blk_a.shift[s] if cfg.a.d2 else 0
                    tb = blk_b.shift[s] if cfg.b.d2 else 0
                    m.d.comb += t.eq(ta + tb)
                    live[f"tau{j}_{s}"] = t
            else:
                m.d.comb += X.eq(blk_a.scale - cfg.a.scale.bias + blk_b.scale - cfg.b.scale.bias)
            live[f"x{j}"] = X
        if cfg.specials:
            nan, pos, ngt = Signal(name="sp_nan"), Signal(name="sp_pinf"), Signal(name="sp_ninf")
            m.d.comb += [nan.eq(Cat(*pnans).any()), pos.eq(Cat(*pposs).any()), ngt.eq(Cat(*pnegs).any())]
            live.update(sp_nan=nan, sp_pinf=pos, sp_ninf=ngt)
        return live

    # -- P2: block adder trees with the sub-block shift ----------------------------------------------------------
    def _block_sums(self, m, live):
        cfg = self._cfg
        out = _carried(live)
        W = cfg.W
        for j in range(cfg.nb):
            signed_p = []
            for i in range(cfg.k1):
                p, neg = live[f"p{j}_{i}"], live[f"n{j}_{i}"]
                if p.shape().signed:  # the anchored datapath's shifted products come negated from P1
                    signed_p.append(p)
                    continue
                sp = Signal(signed(len(p) + 1), name=f"sp{j}_{i}")
                m.d.comb += sp.eq(Mux(neg, -p, p))
                signed_p.append(sp)
            subs = []
            for s in range(cfg.n_sub):
                part = reduce_tree(m, signed_p[s * cfg.k2 : (s + 1) * cfg.k2], "add", f"t{j}_{s}")
                if cfg.sub_block_guard and cfg.G:
                    shifted = Signal(signed(len(part) + cfg.G), name=f"sh{j}_{s}")
                    # the paper's conditional right shift at depth log2(k2), exact with G guard bits
                    m.d.comb += shifted.eq((part << cfg.G) >> live[f"tau{j}_{s}"])
                    part = shifted
                subs.append(part)
            total = reduce_tree(m, subs, "add", f"blk{j}")
            S = Signal(signed(W + 1), name=f"s{j}")
            m.d.comb += S.eq(total)
            if self._datapath == "anchored":  # a zero sum shifts to zero wherever it is anchored
                X = live[f"x{j}"]
            else:
                X = Signal(live[f"x{j}"].shape(), name=f"xz{j}")
                m.d.comb += X.eq(Mux(S == 0, cfg.x_min, live[f"x{j}"]))
            out[f"s{j}"] = S
            out[f"x{j}"] = X
        return out

    # -- P3: max exponent and alignment distances -------------------------------------------------------------
    def _max_exponent(self, m, live):
        cfg = self._cfg
        out = _carried(live, *(f"s{j}" for j in range(cfg.nb)))
        xs = [live[f"x{j}"] for j in range(cfg.nb)]
        xm = Signal(xs[0].shape(), name="xmax")
        m.d.comb += xm.eq(reduce_tree(m, xs, "max", "xm"))
        out["xmax"] = xm
        W, f = cfg.W, cfg.f
        r0 = max(0, W - (f - 1))
        width = W + 1 + max(0, f - 1 - W)
        for j in range(cfg.nb):
            d = Signal(range(cfg.x_max - cfg.x_min + 1), name=f"d{j}")
            m.d.comb += d.eq(xm - xs[j])
            t = Signal(range(width + 1), name=f"t{j}")
            with m.If(d + r0 >= width):
                m.d.comb += t.eq(width)
            with m.Else():
                m.d.comb += t.eq(d + r0)
            out[f"t{j}"] = t
        return out

    # -- P4: alignment into the f-bit window ------------------------------------------------------------------
    def _align(self, m, live):
        cfg = self._cfg
        out = _carried(live, "xmax")
        W, f = cfg.W, cfg.f
        p = max(0, f - 1 - W)
        width = W + 1 + p
        for j in range(cfg.nb):
            S, t = live[f"s{j}"], live[f"t{j}"]
            x = Signal(signed(width), name=f"al{j}_x")
            m.d.comb += x.eq(S << p)
            fl = Signal(signed(width), name=f"al{j}_floor")
            m.d.comb += fl.eq(x >> t)
            below = Signal(width, name=f"al{j}_mask")  # ones below bit t: the bits shifted out
            m.d.comb += below.eq(~(Const((1 << width) - 1, width) << t)[:width])
            sticky = Signal(name=f"al{j}_sticky")
            m.d.comb += sticky.eq((x.as_unsigned() & below).any())
            A = Signal(signed(f), name=f"a{j}")
            corr = Signal(name=f"c{j}")
            m.d.comb += [A.eq(fl), corr.eq(S[-1] & sticky)]
            out[f"a{j}"] = A
            out[f"c{j}"] = corr
        return out

    # -- P5: the fixed-point adder tree -------------------------------------------------------------------------
    def _sum(self, m, live):
        cfg = self._cfg
        out = _carried(live)
        addends = [live[f"a{j}"] for j in range(cfg.nb)]
        corr = [Cat(live[f"c{j}"], Const(0, 1)).as_signed() for j in range(cfg.nb)]
        total = reduce_tree(m, addends, "add", "acc")
        ncorr = reduce_tree(m, corr, "add", "corr")
        T = Signal(signed(cfg.acc_bits), name="sum")
        m.d.comb += T.eq(total + ncorr)
        E = Signal(signed(cfg.exp_bits), name="exp")
        m.d.comb += E.eq(live["xmax"] + (cfg.c + cfg.W - (cfg.f - 1)))
        out["sum"] = T
        out["exp"] = E
        return out

    # -- anchored P3..P5: each block sum (P2's adder trees) shifted LEFT by its offset from x_min into a
    # fixed-anchor sum, one balanced adder tree; one block is not shifted at all (the sum keeps the block exponent).
    def _anchor_offsets(self, m, live):
        cfg = self._cfg
        out = _carried(live, *(f"s{j}" for j in range(cfg.nb)))
        if cfg.nb == 1:
            out["x0"] = live["x0"]
            return out
        for j in range(cfg.nb):
            d = Signal(range(cfg.x_max - cfg.x_min + 1), name=f"d{j}")
            m.d.comb += d.eq(live[f"x{j}"] - cfg.x_min)
            out[f"d{j}"] = d
        return out

    def _anchor_shift(self, m, live):
        cfg = self._cfg
        if cfg.nb == 1:
            return dict(live)
        out = _carried(live)
        span = cfg.x_max - cfg.x_min
        for j in range(cfg.nb):
            s = live[f"s{j}"]
            A = Signal(signed(len(s) + span), name=f"a{j}")
            m.d.comb += A.eq(s << live[f"d{j}"])
            out[f"a{j}"] = A
        return out

    def _anchor_sum(self, m, live):
        cfg = self._cfg
        out = _carried(live)
        E = Signal(signed(cfg.exp_bits), name="exp")
        if cfg.nb == 1:
            T = live["s0"]
            m.d.comb += E.eq(live["x0"] + cfg.c)
        else:
            T = Signal(signed(anchored_sum_bits(cfg)), name="acc_total")
            m.d.comb += T.eq(reduce_tree(m, [live[f"a{j}"] for j in range(cfg.nb)], "add", "acc"))
            m.d.comb += E.eq(cfg.x_min + cfg.c)
        out["sum"] = T
        out["exp"] = E
        return out

    # -- P6: normalize and round to FP32 ---------------------------------------------------------------------
    def _fp32(self, m, live):
        """The aligned P6: the magnitude |T| normalized, then the shared :class:`Rounder` to 24 bits or to the
        FP32 subnormal grid."""
        cfg = self._cfg
        T, E = live["sum"], live["exp"]
        mb = len(T) - 1  # |T| < 2**mb (T has cfg.acc_bits bits)
        wn = max(mb, 24)
        neg = Signal(name="neg")
        mag = Signal(mb, name="mag")
        m.d.comb += [neg.eq(T[-1]), mag.eq(Mux(T[-1], -T, T))]
        ebits = max(cfg.exp_bits, bits_for(mb)) + 2
        e = Signal(signed(ebits), name="lead_exp")
        lsh = Signal(range(mb), name="norm_shift")
        # the lead exponent's static range: the FP32 subnormal and overflow logic only where e can get there
        e_lo, e_hi = cfg.exp_min, cfg.exp_max
        lead = highest_one_tree(m, mag, "lead")
        m.d.comb += [e.eq(E + lead), lsh.eq(mb - 1 - lead)]
        e_hi += mb - 1
        norm = Signal(wn, name="norm")
        m.d.comb += norm.eq((Cat(Const(0, wn - mb), mag) << lsh)[:wn])
        limit = wn + 1
        shift = Signal(range(wn + 2), name="round_shift")
        if e_lo >= -126:  # never subnormal: round at bit wn - 24
            m.d.comb += shift.eq(wn - 24)
        else:
            sub = Signal(signed(max(ebits, 9) + 1), name="sub_shift")
            m.d.comb += sub.eq(-126 - e)
            with m.If(sub <= 0):
                m.d.comb += shift.eq(wn - 24)
            with m.Elif(sub >= limit - (wn - 24)):
                m.d.comb += shift.eq(limit)
            with m.Else():
                m.d.comb += shift.eq(wn - 24 + sub)
        m.submodules.rounder = rnd = Rounder(wn, len(shift), ("rne",))
        m.d.comb += [rnd.sig.eq(norm), rnd.shift.eq(shift)]
        field = Signal(range(256), name="exp_field")
        big = Signal(name="exp_big")
        if e_hi > 127:
            m.d.comb += big.eq(e > 127)
        if e_lo >= -126:
            m.d.comb += field.eq((e + 126)[:8])
        else:
            with m.If(e >= -126):
                m.d.comb += field.eq((e + 126)[:8])
        bits = Signal(33, name="bits")
        m.d.comb += bits.eq((field << 23) + rnd.q[:25])
        ovf = big | (bits >= 0x7F800000) if e_hi >= 127 else big  # e <= 126 rounds at most to 2**127
        y = self._specials(m, live, _fp32_select(m, mag == 0, ovf, neg, bits))
        return self._fp32_out(live, y, T, E)

    def _fp32_anchored(self, m, live):
        """The anchored P6: one normalizing shift, no negation, no second (denormalizing) shifter behind it.

        ``v = 2|T| - neg`` (T's bits inverted when negative, over one more bit below) is what is normalized; a
        negative sum's missing +1 is folded into the rounding increment (round up by ``R | (all(low) & K[0])``
        when negative, ``R & (K[0] | any(low))`` when positive: ``low + 1`` carries into R exactly when ``low`` is
        all ones). The shift that puts the FP32 subnormal LSB (2**-149) at the result's LSB, ``s_sub``, depends
        on the exponent E alone, so it is ready before the sum: a one-hot *marker* at ``s_sub`` ORed into the
        leading-zero count's input limits the count to ``min(lsh, s_sub)``, the normal or the subnormal shift.
        When ``s_sub < 0`` (the sum lies below the subnormal grid: the unit's smallest scales) the word is shifted
        right by ``-s_sub`` instead, on a branch beside the normalizing shifter; below ``-24`` everything rounds
        to a signed zero. The exponent field is ``e + 126 + K[23]``: 0 on the subnormal grid, where
        ``e = -126`` by construction. A unit whose result cannot be subnormal (the scalar formats) has neither
        the marker nor the right-shift branch: their conditions are false for every exponent it can have."""
        cfg = self._cfg
        T, E = live["sum"], live["exp"]
        mb = len(T) - 1
        wn = max(mb + 1, 25)
        low0 = wn - mb  # v's bits below T's (the first holds neg)
        neg = Signal(name="neg")
        vt = Signal(wn, name="vt")  # T's magnitude bits, zeros below
        v = Signal(wn, name="ones")  # 2**low0 |T| - neg: vt inverted when negative
        m.d.comb += [neg.eq(T[-1]), vt.eq(Cat(Const(0, low0), T[:mb])), v.eq(vt ^ neg.replicate(wn))]
        e_lo, e_hi = cfg.x_min + cfg.c, (cfg.x_max if cfg.nb == 1 else cfg.x_min) + cfg.c
        s_lo, s_hi = wn + 125 + e_lo - low0, wn + 125 + e_hi - low0
        s_sub = Signal(signed(signed_bits(s_lo, s_hi)), name="sub_shift")
        m.d.comb += s_sub.eq(E + (wn + 125 - low0))
        k = bits_for(wn - 1)
        marker = Signal(wn, name="sub_marker")  # bit wn - 1 - max(s_sub, 0) when s_sub < wn
        if s_lo < wn:
            with m.If(s_sub < 0):
                m.d.comb += marker.eq(1 << (wn - 1))
            with m.Elif(s_sub < wn):
                m.d.comb += marker.eq(Const(1 << (wn - 1), wn) >> s_sub.as_unsigned()[:k])
        pad = (1 << k) - wn
        lead = highest_one_tree(m, Cat(Const(0, pad), v | marker), "lead")
        lsh = Signal(k, name="norm_shift")  # min(leading zeros of v, s_sub)
        e = Signal(signed(max(cfg.exp_bits, bits_for(wn)) + 3), name="lead_exp")
        m.d.comb += [lsh.eq(~lead[:k]), e.eq(E - low0 + lead - pad)]
        # v << lsh is (vt << lsh) ^ neg with the vacated bits = neg: vt is shifted, the 25 kept bits inverted
        norm = Signal(wn, name="norm")
        m.d.comb += norm.eq((vt << lsh)[:wn])
        K, R, z = Signal(24, name="keep"), Signal(name="round_bit"), Signal(name="below")
        fld = Signal(9, name="exp_field")
        m.d.comb += [K.eq(norm[wn - 24 :] ^ neg.replicate(24)), R.eq(norm[wn - 25] ^ neg),
                     z.eq(norm[: wn - 25].any() if wn > 25 else 0)]
        m.d.comb += fld.eq(Mux(K[23], e + 127, e + 126))
        if s_lo < 0:  # (the marker at the top: norm is vt unshifted, z what lies below v's top 25 bits)
            q = Signal(range(25), name="denorm_shift")
            right = Signal(25, name="denorm")  # v's top 25 bits shifted right by q = -s_sub (1..24)
            m.d.comb += [q.eq(-s_sub), right.eq(v[wn - 25 :] >> q)]
            reach = Signal(24, name="denorm_reach")  # the q lowest of those bits fall below the round bit
            m.d.comb += reach.eq(~(Const((1 << 24) - 1, 24) << q)[:24])
            with m.If(s_sub < -24):
                m.d.comb += [K.eq(0), R.eq(0), z.eq(0), fld.eq(0)]
            with m.Elif(s_sub < 0):
                m.d.comb += [K.eq(right[1:]), R.eq(right[0]), fld.eq(0),
                             z.eq(norm[: wn - 25].any() | (vt[wn - 25 : wn - 1] & reach).any())]
        up = Signal(name="round_up")
        m.d.comb += up.eq(Mux(neg, R | (~z & K[0]), R & (K[0] | z)))
        bits = Signal(32, name="bits")
        m.d.comb += bits.eq(Cat(K[:23], fld[:8]) + up)
        ovf = (e > 127) | (bits >= 0x7F800000) if e_hi + mb - 1 >= 127 else Const(0, 1)
        return self._fp32_out(live, self._specials(m, live, _fp32_select(m, v == 0, ovf, neg, bits)), T, E)

    def _fp32_out(self, live, y, T, E):
        """P6's outputs: ``y`` after the special-value override, and the raw sum and exponent with ``raw``."""
        out = {"y": y}
        if self._raw:
            out["sum"] = T
            out["exp"] = E
        return out

    def _specials(self, m, live, y):
        """``y`` with the special-value override (NaN, +Inf, -Inf of the products) when the format has them."""
        if not self._cfg.specials:
            return y
        nan, pos, ngt = live["sp_nan"], live["sp_pinf"], live["sp_ninf"]
        yo = Signal(32, name="y_special")
        with m.If(nan | (pos & ngt)):
            m.d.comb += yo.eq(0x7FC00000)
        with m.Elif(pos):
            m.d.comb += yo.eq(0x7F800000)
        with m.Elif(ngt):
            m.d.comb += yo.eq(0xFF800000)
        with m.Else():
            m.d.comb += yo.eq(y)
        return yo
