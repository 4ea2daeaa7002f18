"""The dot unit's datapaths (hw/dot.py, docs/dot.md "Datapaths"): the anchored datapath (left shifts into a
fixed-anchor sum) gives the golden model's FP32 result bit for bit — the same bits as the aligned datapath — on
directed and random operands, combinational and pipelined; ``auto``'s choice; the aligned datapath's Verilog
is what an explicit ``datapath="aligned"`` gives; the rules (exact window, no raw outputs)."""

import numpy as np
import pytest
from amaranth.sim import Simulator

from fpforge.golden.dot import DotConfig
from fpforge.golden.errors import FpforgeValueError
from fpforge.hw import DotProduct, build_unit, default_name, to_verilog
from fpforge.hw.dot import anchored_sum_bits, resolve_datapath
from fpforge.hw.spec_fields import AUTO_ANCHORED_MAX_F, AUTO_ONE_BLOCK_MIN_F

from helpers import dot_case

__all__: list[str] = []


def _fields(ops, k):
    out = {}
    for port in ("sel_a", "sel_b", "bias_a", "bias_b"):
        v = getattr(ops, port, None)
        if v is not None:
            out[port] = int(v[k])
    return out


def _words(fmt, enc):
    """One operand's words (one Python int per dot product) for Amaranth's simulator."""
    from fpforge.golden.dot import operand_words

    return [int.from_bytes(np.ascontiguousarray(row.astype("<u8")).tobytes(), "little")
            for row in operand_words(fmt, enc)]


def _y_of(dut, wa, wb, fields=None):
    """``y`` of the combinational unit ``dut`` for each pair of operand words (and the run-time ports in
    ``fields[k]``, where the unit has them), in Amaranth's simulator."""
    got = []

    async def tb(ctx):
        for k in range(len(wa)):
            ctx.set(dut.a.as_value(), wa[k])
            ctx.set(dut.b.as_value(), wb[k])
            for port, v in (fields[k] if fields else {}).items():
                if port in dut.signature.members:
                    ctx.set(getattr(dut, port), v)
            await ctx.delay(1e-9)
            got.append(ctx.get(dut.y))

    sim = Simulator(dut)
    sim.add_testbench(tb)
    sim.run()
    return got


# exact windows (f = f_exact) of several families; one block for the OCP MX formats (two blocks of E8M0 scales
# span more than the largest window)
EXACT = [("e4m3", None, 8), ("e4m3", "e5m2", 4), ("fp8", None, 4), ("hif8", None, 4), ("cfloat8_143", None, 2),
         ("mxfp4_e2m1", None, 32), ("mxint8", None, 32), ("bdr_m2_k4_d2_k2_d1", None, 8)]


@pytest.mark.parametrize("name, b, r", EXACT)
def test_anchored_matches_golden_and_aligned(name, b, r):
    cfg = DotConfig(name, r, DotConfig(name, r, 24, b).f_exact, b)
    ops, res, wa, wb = dot_case(cfg, 60, seed=r)
    units = {dp: DotProduct(cfg, datapath=dp) for dp in ("anchored", "aligned")}
    assert units["anchored"].datapath == "anchored" and units["aligned"].datapath == "aligned"
    fields = [_fields(ops, k) for k in range(ops.size)]
    got = {dp: _y_of(dut, wa, wb, fields) for dp, dut in units.items()}
    want = [int(v) for v in res.y]
    bad = [k for k in range(ops.size) if got["anchored"][k] != want[k]]
    assert not bad, [(k, hex(got["anchored"][k]), hex(want[k])) for k in bad[:4]]
    assert got["aligned"] == want


@pytest.mark.parametrize("stages", [1, 3, 6])
def test_anchored_stream_pipeline(stages):
    cfg = DotConfig("e4m3", 8, 37)
    ops, res, wa, wb = dot_case(cfg, 30, seed=stages)
    dut = DotProduct(cfg, stages=stages, datapath="anchored")
    assert dut.latency == stages
    got = []

    async def tb(ctx):
        ctx.set(dut.o.ready, 1)
        for k in range(ops.size + stages):
            ctx.set(dut.i.valid, int(k < ops.size))
            if k < ops.size:
                ctx.set(dut.i.p.a.as_value(), wa[k])
                ctx.set(dut.i.p.b.as_value(), wb[k])
            if ctx.get(dut.o.valid):
                got.append(ctx.get(dut.o.p.y))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    assert got == [int(v) for v in res.y]


def test_auto_picks_anchored_only_where_it_is_allowed_and_smaller():
    exact = DotConfig("e4m3", 8, 37)
    assert exact.f_exact == 37
    assert resolve_datapath(exact) == "anchored"
    assert resolve_datapath(DotConfig("e4m3", 8, 36)) == "aligned"  # a truncating window
    assert resolve_datapath(exact, raw=True) == "aligned"  # raw outputs are the aligned datapath's
    # one block: anchored only where its exact window is wide (bench_qor.py --targets measures both)
    assert resolve_datapath(DotConfig("mxfp8_e4m3", 32, 42)) == "anchored"
    assert DotConfig("mxfp8_e4m3", 32, 42).f_exact >= AUTO_ONE_BLOCK_MIN_F > DotConfig("mxfp6_e3m2", 32, 24).f_exact
    assert resolve_datapath(DotConfig("mxfp6_e3m2", 32, 24)) == "aligned"
    assert resolve_datapath(DotConfig("mx9", 16, 32)) == "aligned"
    wide = DotConfig("cfloat8_143", 8, DotConfig("cfloat8_143", 8, 24).f_exact)  # run-time biases: f_exact 165
    assert wide.f_exact > AUTO_ANCHORED_MAX_F and resolve_datapath(wide) == "aligned"  # too wide to anchor
    hif8 = DotConfig("hif8", 8, 83)
    assert hif8.f_exact <= AUTO_ANCHORED_MAX_F and resolve_datapath(hif8) == "anchored"
    assert DotProduct(exact).datapath == "anchored"
    assert build_unit("dot", format="e4m3", r=8, f=37).datapath == "anchored"
    assert "_anch" in default_name(build_unit("dot", format="e4m3", r=8, f=37))
    assert "_anch" not in default_name(build_unit("dot", format="e4m3", r=8, f=37, datapath="aligned"))


def test_anchored_sum_is_no_wider_than_the_aligned_one():
    for name, b, r in EXACT:
        cfg = DotConfig(name, r, DotConfig(name, r, 24, b).f_exact, b)
        if cfg.nb > 1:
            assert anchored_sum_bits(cfg) <= cfg.acc_bits, name


def test_aligned_verilog_is_the_default_of_a_truncating_window():
    a = to_verilog(build_unit("dot", format="e4m3", r=4, f=24), "top")
    b = to_verilog(build_unit("dot", format="e4m3", r=4, f=24, datapath="aligned"), "top")
    c = to_verilog(build_unit("dot", format="e4m3", r=4, f=37, datapath="anchored"), "top")
    assert a == b
    assert "xmax" in a and "xmax" not in c and "al0_sticky" in a and "al0_sticky" not in c


@pytest.mark.filterwarnings("ignore::amaranth.hdl._ir.UnusedElaboratable")
@pytest.mark.parametrize("kwargs, message", [
    (dict(format="e4m3", r=8, f=36, datapath="anchored"), "f >= 37"),
    (dict(format="mxfp8_e4m3", r=32, f=41, datapath="anchored"), "f >= 42"),
    (dict(format="mxfp8_e4m3", r=64, f=256, datapath="anchored"), "largest window"),
    (dict(format="e4m3", r=8, f=37, datapath="anchored", raw=True), "no raw outputs"),
    (dict(format="e4m3", r=8, f=37, datapath="fast"), "auto, aligned, anchored"),
    (dict(format="e4m3", r=8, f=37, datapath=1), "auto, aligned, anchored"),
])
def test_datapath_errors(kwargs, message):
    with pytest.raises(FpforgeValueError, match=message):
        build_unit("dot", **kwargs)
    fmt = kwargs.pop("format")
    with pytest.raises(FpforgeValueError, match=message):
        DotProduct(fmt, **kwargs)


@pytest.mark.parametrize("width", [1, 2, 3, 5, 8, 13])
def test_balanced_leading_one_is_the_highest_set_bit(width):
    from amaranth import Module, Signal

    from fpforge.hw.classify import highest_one_tree

    m = Module()
    v = Signal(width)
    pos = highest_one_tree(m, v, "lead")
    got = []

    async def tb(ctx):
        for x in range(1 << width):
            ctx.set(v, x)
            await ctx.delay(1e-9)
            got.append(ctx.get(pos))

    sim = Simulator(m)
    sim.add_testbench(tb)
    sim.run()
    assert got == [max(x.bit_length() - 1, 0) for x in range(1 << width)]


def test_anchored_one_block_rounds_negative_powers_of_two_across_the_subnormal_grid():
    """The one-block anchored P6 normalizes a negative sum's one's complement and folds the +1 into the
    rounding (hw/dot.py ``_fp32_anchored``): its hardest inputs are negative sums that are powers of two (the
    one's complement's leading one is a place lower) and sums on, just above and below the FP32 subnormal grid
    (the marker-limited shift, the right-shift branch, the signed zero). Sums of -1, -4 (-6 + 2), -1.5 and
    +1 at result exponents -180..-120, against the golden model, both datapaths."""
    from fpforge.golden.block import BlockEncoding
    from fpforge.golden.dot import dot

    cfg = DotConfig("mxfp4_e2m1", 32, 14)
    patterns = [{0: 0b1010}, {0: 0b1111, 5: 0b0100}, {3: 0b1011}, {31: 0b0010}, {0: 0b1010, 1: 0b1010}]
    elem, scale = [], []
    for x in range(-180, -119):
        for pat in patterns:
            row = np.zeros(32, np.uint8)
            for i, code in pat.items():
                row[i] = code
            elem.append(row)
            scale.append(x + 254)  # the element's exponent 0 at x: scale_a - 127 + scale_b - 127, scale_b = 0
    n = len(elem)
    a = BlockEncoding(cfg.a, np.array(scale, np.uint8)[:, None], np.zeros((n, 1, 0), np.uint8),
                      np.array(elem)[:, None, :])
    b = BlockEncoding(cfg.b, np.zeros((n, 1), np.uint8), np.zeros((n, 1, 0), np.uint8),
                      np.full((n, 1, 32), 0b0010, np.uint8))
    want = [int(v) for v in dot(cfg, a, None, b).y]
    assert any(w == 0x80000000 for w in want) and any(w & 0x7F800000 == 0 and w & 0x7FFFFF for w in want)

    wa, wb = _words(cfg.a, a), _words(cfg.b, b)
    for dp in ("anchored", "aligned"):
        got = _y_of(DotProduct(cfg, datapath=dp), wa, wb)
        bad = [k for k in range(n) if got[k] != want[k]]
        assert not bad, (dp, [(k, hex(got[k]), hex(want[k])) for k in bad[:4]])


def _pow2_code(e):
    """The E4M3 code of 2**e, e in -9..8 (subnormal below -6)."""
    return (e + 7) << 3 if e >= -6 else 1 << (e + 9)


def test_anchored_scalar_unit_rounds_sums_of_signed_powers_of_two():
    """Every anchored unit normalizes the one's complement of a negative sum and folds the +1 into the rounding
    (hw/dot.py ``_fp32_anchored``), also where the result cannot be subnormal (E4M3, r = 8, exact window). Sums
    of eight signed powers of two whose exponents sit 0, 1, 23, 24, 25, 30 and 34 places below the largest
    one: negative powers of two, ties to even on both signs, just above and below a tie; against the golden
    model (the aligned datapath gives the same bits)."""
    from fpforge.golden.dot import dot

    cfg = DotConfig("e4m3", 8, DotConfig("e4m3", 8, 24).f_exact)
    rng = np.random.default_rng(34)
    n = 1500
    a, b = np.zeros((n, 8), np.uint64), np.zeros((n, 8), np.uint64)
    for k in range(n):
        top = int(rng.integers(-2, 17))
        for i in range(8):
            e = top - (0 if i == 0 else int(rng.choice([0, 1, 23, 24, 25, 30, 34])))
            if e < -18:
                continue
            ea = int(rng.integers(max(-9, e - 8), min(8, e + 9) + 1))
            a[k, i] = _pow2_code(ea) | (0x80 if rng.random() < 0.5 else 0)
            b[k, i] = _pow2_code(e - ea)
    want = [int(v) for v in dot(cfg, a, None, b).y]
    # negative powers of two and results whose fraction is not zero (rounded or not) among them
    assert any(w >> 31 and w & 0x7F800000 and not w & 0x7FFFFF for w in want) and len(set(want)) > 300

    wa, wb = _words(cfg.a, a), _words(cfg.b, b)
    for dp in ("anchored", "aligned"):
        got = _y_of(DotProduct(cfg, datapath=dp), wa, wb)
        bad = [k for k in range(n) if got[k] != want[k]]
        assert not bad, (dp, [(k, hex(got[k]), hex(want[k])) for k in bad[:4]])
