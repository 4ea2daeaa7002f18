"""Block gateware (hw/block.py) in Amaranth's simulator against the golden model: every rounding of the
BDR and OCP paths, the packed port layout, the k1-draw generator and its draw order through Pipeline,
and constructor errors. (The cocotb runs on Verilator/Icarus are in test_block_regress.py.)"""

import numpy as np
import pytest
from amaranth import Module
from amaranth.lib import data
from amaranth.sim import Simulator

from fpforge.golden import block_words, decode_block_bits, encode_block, get_format, random_bits
from fpforge.hw import BlockDecoder, BlockEncoder, Pipeline, Xorshift32, block_layout, build_unit
from fpforge.sim.vectors import directed_blocks, random_blocks

__all__: list[str] = []


def _src_int(row):
    return int.from_bytes(np.ascontiguousarray(row).tobytes(), "little")


def _run_comb(fmt, rounding, x, draws=None, source="fp32"):
    """(encoder words, decoder FP32 words per block) from the comb units for float32 blocks ``x``."""
    enc = BlockEncoder(fmt, source, (rounding,))
    dec = BlockDecoder(fmt)
    enc_words = block_words(fmt, encode_block(fmt, x, rounding=rounding, seed=0))
    got_enc, got_dec = [], []
    R = 16

    async def tb(ctx):
        for b in range(len(x)):
            ctx.set(enc.a.as_value(), _src_int(x[b]))
            if draws is not None:
                ctx.set(enc.rand, sum(int(d) << (R * j) for j, d in enumerate(draws[b])))
            ctx.set(dec.a.as_value(), enc_words[b])
            await ctx.delay(1e-9)
            got_enc.append(ctx.get(enc.y.as_value()))
            y = ctx.get(dec.y.as_value())
            got_dec.append([(y >> (32 * i)) & 0xFFFFFFFF for i in range(fmt.k1)])

    m = Module()
    m.submodules.enc, m.submodules.dec = enc, dec
    sim = Simulator(m)
    sim.add_testbench(tb)
    sim.run()
    return enc_words, got_enc, got_dec


@pytest.mark.parametrize("name, rounding", [("mx9", "ta"), ("mx4", "sr"), ("msfp12", "rne"), ("mx6", "rtz"),
                                            ("bdr_m5_k8_d4_k2_d3", "ta"), ("mxfp8_e5m2", "rne"),
                                            ("mxfp6_e3m2", "ta"), ("mxint8", "sr")])
def test_comb_units_match_golden(name, rounding):
    fmt = get_format(name)
    x = np.concatenate([directed_blocks(fmt), random_blocks(fmt.k1, 24, 11)])
    draws = random_bits(0, x.size, 16).reshape(len(x), fmt.k1) if rounding == "sr" else None
    expected, got_enc, got_dec = _run_comb(fmt, rounding, x, draws)
    assert got_enc == expected
    from fpforge.golden import from_block_words

    exp_dec = decode_block_bits(fmt, from_block_words(fmt, expected)).reshape(len(x), fmt.k1)
    assert got_dec == exp_dec.tolist()


def test_block_layout_is_the_packed_layout():
    mx9 = get_format("mx9")
    layout = block_layout(mx9)
    assert isinstance(layout, data.StructLayout) and layout.size == mx9.block_bits == 144
    assert [(n, f.offset) for n, f in layout] == [("scale", 0), ("shift", 8), ("elem", 16)]
    assert block_layout("mxfp4_e2m1").size == 8 + 32 * 4
    assert [n for n, _ in block_layout("msfp16")] == ["scale", "elem"]


def test_xorshift_offers_consecutive_draws_per_step():
    rng = Xorshift32(seed=77, bits=8, draws=5)
    seen = []

    async def tb(ctx):
        ctx.set(rng.en, 1)
        for _ in range(4):
            v = ctx.get(rng.rand)
            seen.extend((v >> (8 * j)) & 0xFF for j in range(5))
            await ctx.tick()

    sim = Simulator(rng)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    assert seen == random_bits(77, 20, 8).tolist()


def test_stream_encoder_sr_uses_k1_draws_per_block_in_golden_order():
    fmt = get_format("mx4")
    x = random_blocks(16, 12, 5, specials=False)
    unit = build_unit("block-encoder", format="mx4", rounding=("sr",), latency=2, seed=123)
    assert isinstance(unit, Pipeline) and unit.latency == 2
    expected = block_words(fmt, encode_block(fmt, x, rounding="sr", seed=123))
    got = []

    async def tb(ctx):
        ctx.set(unit.o.ready, 1)
        sent = 0
        for cycle in range(60):
            offer = sent < len(x) and cycle % 5 != 4  # every fifth cycle a gap: no draws may be consumed
            ctx.set(unit.i.valid, int(offer))
            if offer:
                ctx.set(unit.i.p.a.as_value(), _src_int(x[sent]))
            await ctx.delay(1e-9)
            accepted = offer and ctx.get(unit.i.ready)
            if ctx.get(unit.o.valid):
                got.append(ctx.get(unit.o.p.y.as_value()))
            await ctx.tick()
            sent += int(bool(accepted))

    sim = Simulator(unit)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    assert got == expected


def test_constructor_errors_name_the_choices():
    with pytest.raises(ValueError, match="valid choices: fp32, bf16"):
        BlockEncoder("mx9", "fp16")
    with pytest.raises(ValueError, match="valid choices: ta, rne, rtz, sr"):
        BlockEncoder("mx9", "fp32", ("hr",))
    with pytest.raises(ValueError, match="valid choices: fp32"):
        BlockDecoder("mx9", "bf16")
    with pytest.raises(ValueError, match="FP32 cannot hold every bdr_m20_k16_d8_k2_d2 value"):
        BlockDecoder("bdr_m20_k16_d8_k2_d2")
    with pytest.raises(ValueError, match="is a block format; its units are block-encoder, block-decoder"):
        build_unit("encoder", format="mx9")
    with pytest.raises(ValueError, match="is a scalar format; its units are encoder, decoder"):
        build_unit("block-encoder", format="e4m3")
    with pytest.raises(ValueError, match="'e4m3' is a scalar format; its units are encoder, decoder"):
        BlockEncoder("e4m3")
