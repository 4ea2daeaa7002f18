"""The dot-product unit's parts that do not depend on its pipeline: the operand ports, the element decode of
every operand family (P1's front end, one Amaranth twin per scalar descriptor kind, as the golden
``dot_fields`` of each descriptor), and the reduction trees the parts share (``fpforge.hw.dot``)."""

from amaranth import Cat, Const, Mux, Signal, signed, unsigned
from amaranth.lib import data
from amaranth.utils import bits_for

from ..golden.checks import as_int
from ..golden.errors import FpforgeValueError
from ..golden.floatformat import FloatFormat
from ..golden.taperedformat import TaperedFormat
from .block import block_layout
from .classify import classify, float_fields
from .hif8 import tapered_dot_fields
from .spec_fields import MAX_PORT_BITS

__all__ = ["ELEMENT_GATEWARE", "Element", "decode_elements", "float_dot_fields", "operand_layout", "reduce_tree",
           "signed_bits"]


def operand_layout(fmt, r) -> data.ArrayLayout:
    """The operand port: r/k1 blocks in their packed layout (block 0 lowest), or r scalar codes; ``fmt`` is a
    dot-product operand format (a name or descriptor, :func:`fpforge.golden.dot.operand_format`)."""
    from ..golden.dot import operand_format

    fmt = operand_format(fmt)
    k1 = 1 if fmt.dot_side.element_block_exponent else fmt.k1
    r = as_int(r, "r (elements)", 1, MAX_PORT_BITS)
    if r % k1:
        raise FpforgeValueError(f"r must be a positive multiple of {fmt.name}'s block size {k1}, not {r}")
    if fmt.dot_side.element_block_exponent:
        return data.ArrayLayout(unsigned(fmt.bits), r)
    return data.ArrayLayout(block_layout(fmt), r // fmt.k1)


def signed_bits(lo, hi):
    """Width of a signed signal holding lo..hi."""
    return max(bits_for(lo, True), bits_for(hi, True))


def reduce_tree(m, values, op, name):
    """Balanced reduction of ``values`` with ``op`` (``"add"`` or ``"max"``), intermediate signals named."""
    level = 0
    while len(values) > 1:
        nxt = []
        for i in range(0, len(values) - 1, 2):
            a, b = values[i], values[i + 1]
            if op == "add":
                out = Signal(signed(max(len(a), len(b)) + 1), name=f"{name}_l{level}_{i // 2}")
                m.d.comb += out.eq(a + b)
            else:
                out = Signal(signed(max(len(a), len(b))), name=f"{name}_l{level}_{i // 2}")
                m.d.comb += out.eq(Mux(a > b, a, b))
            nxt.append(out)
        if len(values) % 2:
            nxt.append(values[-1])
        values, level = nxt, level + 1
    return values[0]


class Element:
    """Decoded element signals: sign, magnitude (0 for NaN/Inf unless not masked), eoff, nan, inf, zero."""

    def __init__(self, sign, mag, eoff, nan, inf, zero):
        self.sign, self.mag, self.eoff, self.nan, self.inf, self.zero = sign, mag, eoff, nan, inf, zero


def float_dot_fields(el, code, bias=None):
    """The Amaranth twin of ``FloatFormat.dot_fields``: (sign, significand with hidden bit, eoff, nan, inf)
    of a sign/exponent/mantissa code (Values); ``bias`` the run-time bias port of a run-time-bias format."""
    cls = classify(el, code)
    ef, mf = float_fields(el, code)
    sig = Cat(mf, ef != 0)
    eoff = Mux(ef == 0, 0, ef - 1) if el.denormals == "ieee" else ef
    if el.runtime_bias:
        eoff = eoff + (max(el.biases) - bias)
    return cls.sign, sig, eoff, cls.nan, cls.inf


#: The Amaranth twin of each scalar descriptor's ``dot_fields`` (as ``generate.SCALAR_GATEWARE`` picks the
#: encoders and decoders).
ELEMENT_GATEWARE = {FloatFormat: float_dot_fields, TaperedFormat: tapered_dot_fields}


def decode_elements(m, k1, side, fmt, word, sel, j, name, bias=None, *, mask=True):
    """Per element of block ``j`` of one operand (``side``: its :class:`~fpforge.golden.dot.OperandSide`, ``fmt``
    its descriptor, ``word`` the operand port, ``sel``/``bias`` its run-time select and bias): the list of
    :class:`Element` signals, and the block (scale, shifts) for block formats (None for scalar operands).
    ``mask``: a NaN or Inf element's magnitude is 0 (else its code's significand, for a unit whose result
    overrides such products anyway)."""
    elems = []
    if side.element_block_exponent:
        code = word[j]
        choices = []
        for el in fmt.formats:
            s, sig, eoff, nan, inf = ELEMENT_GATEWARE[type(el)](el, code[: el.bits], bias)
            sig = Cat(Const(0, fmt.M - el.mbits), sig)
            choices.append((s, sig, eoff + fmt.eoff_base(el), nan, inf))
        sign, mag, eoff = Signal(name=f"{name}_s"), Signal(side.mag_bits, name=f"{name}_sig"), \
            Signal(side.eoff_bits, name=f"{name}_eoff")
        nan, inf = Signal(name=f"{name}_nan"), Signal(name=f"{name}_inf")
        pick = list(choices[-1])  # the last choice also takes select values beyond the list
        for idx in range(len(choices) - 2, -1, -1):
            pick = [Mux(sel == idx, c, p) for c, p in zip(choices[idx], pick)]
        m.d.comb += [sign.eq(pick[0]), mag.eq(pick[1]), eoff.eq(pick[2]), nan.eq(pick[3]), inf.eq(pick[4])]
        zero = Signal(name=f"{name}_zero")
        m.d.comb += zero.eq((mag == 0) & ~nan & ~inf)
        masked = Signal(side.mag_bits, name=f"{name}_mag")
        m.d.comb += masked.eq(Mux(nan | inf, 0, mag) if mask else mag)
        return [Element(sign, masked, eoff, nan, inf, zero)], None
    blk = word[j]
    if side.sub_block_guard:
        for i in range(k1):
            code = blk.elem[i]
            mag = code[: fmt.m]
            elems.append(Element(code[fmt.m], mag, Const(0, 1), Const(0, 1), Const(0, 1), mag == 0))
        return elems, blk
    el = fmt.element
    block_nan = Signal(name=f"{name}_scale_nan")
    m.d.comb += block_nan.eq(blk.scale == fmt.scale.nan_code)
    for i in range(k1):
        code = blk.elem[i]
        if side.integer_elements:
            s = code[el.bits - 1]
            mag = Signal(side.mag_bits, name=f"{name}_{i}_abs")
            m.d.comb += mag.eq(Mux(s, (~code + 1)[: el.bits], code))
            eoff, nan, inf = Const(0, 1), Const(0, 1), Const(0, 1)
        else:
            s, mag, eoff, nan, inf = float_dot_fields(el, code)
        zero = (mag == 0) & ~nan & ~inf
        nan = nan | block_nan
        masked = Signal(side.mag_bits, name=f"{name}_{i}_mag")
        m.d.comb += masked.eq(Mux(nan | inf, 0, mag) if mask else mag)
        ev = Signal(side.eoff_bits, name=f"{name}_{i}_eoff")
        m.d.comb += ev.eq(eoff)
        elems.append(Element(s, masked, ev, nan, inf, zero))
    return elems, blk
