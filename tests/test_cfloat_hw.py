"""Tesla CFloat gateware in Amaranth's simulator: ports, constructor errors, determinism, and the corners
(the denormal gap under every rounding and every draw, FP16 sources, UHP options, IEEE-denormal decoders)
against the golden model. The cocotb runs (tests/test_cfloat_regress.py) cover the bulk."""

import ml_dtypes
import numpy as np
import pytest
from amaranth.sim import Simulator

from fpforge.golden import ROUNDING_MODES, decode_bits, encode_with_flags, get_format, random_bits
from fpforge.hw import Decoder, Encoder, Pipeline, build_unit, default_name, to_verilog
from fpforge.sim.vectors import directed


def test_bias_is_a_six_bit_input_port_of_run_time_bias_units_only():
    for fmt in ("cfloat8_143", "cfloat8_152", "shp"):
        enc = Encoder(fmt, "fp32", ("rne", "sr"))
        assert set(enc.signature.members) == {"a", "y", "flags", "rand", "mode", "bias"}
        assert enc.signature.members["bias"].shape == 6
        assert set(Decoder(fmt, "fp32").signature.members) == {"a", "y", "bias"}
    assert set(Encoder("uhp", "fp32").signature.members) == {"a", "y", "flags"}
    assert set(Encoder("e4m3").signature.members) == {"a", "y", "flags"}
    text = to_verilog(build_unit("encoder", format="cfloat8_143", source="bf16"))
    assert "input [5:0] bias;" in text and "input [15:0] a;" in text and "output [7:0] y;" in text
    # In a stream unit the bias travels in the input payload, after a and mode: 32 + 3 + 6 bits.
    unit = build_unit("encoder", format="shp", rounding=("rne", "sr"), latency=1)
    assert [name for name, _ in unit.i.p.shape()] == ["a", "mode", "bias"] and unit.i.p.shape().size == 41
    assert "input [40:0] i__payload;" in to_verilog(unit)


def test_one_model_serves_every_bias():
    """The bias is never an elaboration parameter: there is nothing to choose at build time."""
    a = to_verilog(build_unit("encoder", format="cfloat8_152", rounding=("rne",)))
    b = to_verilog(build_unit("encoder", format="cfloat8_152", rounding=("rne",)))
    assert a == b and "/work" not in a and "/tmp" not in a
    assert "bias run-time (6-bit port), denormals 2^-bias*0.m" in a.splitlines()[0]
    with pytest.raises(TypeError):
        build_unit("encoder", format="cfloat8_152", bias=3)


@pytest.mark.parametrize("call, match", [
    (lambda: build_unit("encoder", format="e4m3", ieee_denormals=True), r"ieee_denormals applies to .*cfloat8_143.*not 'e4m3'"),
    (lambda: build_unit("decoder", format="uhp", ieee_denormals=True), r"ieee_denormals applies to .*not 'uhp'"),
    (lambda: build_unit("encoder", format="hif8", ieee_denormals=True), r"ieee_denormals applies"),
    (lambda: Encoder("hif8"), r"'hif8' is not a narrow float format"),
    (lambda: Decoder("cfloat8_143", "fp16"), r"fp16 cannot hold every cfloat8_143 value exactly at every bias"),
    (lambda: Decoder("shp", "bf16"), r"bf16 cannot hold every shp value exactly at every bias"),
    (lambda: Decoder("uhp", "fp16"), r"fp16 cannot hold every uhp value exactly"),
    (lambda: Encoder("shp", roundings=("hr",)), r"has no rounding 'hr'; valid choices: rne, sr, ta, rtz"),
])
def test_constructor_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_default_names_tell_the_denormal_variant_apart():
    assert default_name(build_unit("encoder", format="shp", ieee_denormals=True)) == "fpforge_enc_fp32_shp_ieeedn"
    assert default_name(build_unit("encoder", format="shp_ieee")) == "fpforge_enc_fp32_shp_ieeedn"
    assert default_name(Decoder("cfloat8_152_ieee")) == "fpforge_dec_cfloat8_152_fp32_ieeedn"
    assert default_name(build_unit("decoder", format="cfloat8_143", target="bf16", latency=2)) == \
        "fpforge_dec_cfloat8_143_bf16_l2"


def _run_encoder(dut, fmt, src_bits, x, bias, modes, rand, rand_bits=16, **golden_kw):
    """Drive every vector in every mode through ``dut``; return the mismatches against the golden model."""
    bad = []
    f = get_format(fmt)

    async def bench(ctx):
        for r in modes:
            kw = dict(golden_kw)
            if f.runtime_bias:
                kw["bias"] = bias
            y, fl = encode_with_flags(fmt, x, rounding=r, rand=rand if r == "sr" else None, rand_bits=rand_bits, **kw)
            if "mode" in dut.signature.members:
                ctx.set(dut.mode, ROUNDING_MODES[r])
            for i in range(len(x)):
                ctx.set(dut.a, int(src_bits[i]))
                if "rand" in dut.signature.members:
                    ctx.set(dut.rand, int(rand[i]))
                if f.runtime_bias:
                    ctx.set(dut.bias, int(bias[i]))
                got = (ctx.get(dut.y), ctx.get(dut.flags))
                if got != (y[i], fl[i]):
                    bad.append((r, hex(int(src_bits[i])), float(x[i]), int(bias[i]) if f.runtime_bias else None,
                                got, (int(y[i]), int(fl[i]))))

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
    return bad


@pytest.mark.parametrize("fmt", ["cfloat8_143", "cfloat8_152", "shp"])
def test_the_denormal_gap_under_every_mode_and_every_draw(fmt):
    """Operands across the gap (lo, hi) at biases 0, 21 and 63, each meeting all 16 draws of a 4-bit SR:
    the RTL's gap comparator (hi - lo is not a power of two) against the golden model."""
    f = get_format(fmt)
    M = f.mbits
    pts, biases = [], []
    for b in (0, 21, 63):
        lo, hi = ((1 << M) - 1) * 2.0 ** (-b - M), 2.0 ** (1 - b)
        grid = np.linspace(lo, hi, 23)
        v = np.concatenate([grid, (lo + hi) / 2 * np.array([1 - 2**-20, 1, 1 + 2**-20]),
                            np.nextafter(np.float32([lo, 2.0**-b, hi]), np.float32(0)),
                            np.nextafter(np.float32([lo, 2.0**-b]), np.float32(1))]).astype(np.float32)
        pts.append(np.concatenate([v, -v]))
        biases.append(np.full(2 * len(v), b))
    x, bias = np.repeat(np.concatenate(pts), 16), np.repeat(np.concatenate(biases), 16)
    rand = np.tile(np.arange(16), len(x) // 16)
    dut = Encoder(fmt, "fp32", f.roundings, rand_bits=4)
    bad = _run_encoder(dut, fmt, x.view(np.uint32), x, bias, f.roundings, rand, rand_bits=4)
    assert not bad, bad[:5]


@pytest.mark.parametrize("fmt, ieee", [("cfloat8_143", False), ("cfloat8_152", True)])
def test_fp16_sources_normalize_their_subnormals(fmt, ieee):
    """FP16 subnormals (2^-24..2^-15) are normal CFloat8 values at high biases: the encoder normalizes them.
    Directed cases of biases 20 and 40 (every value, midpoint, ±1 ulp) plus every FP16 subnormal."""
    fmt = get_format(fmt).variant("ieee" if ieee else None)
    stim = np.concatenate([directed(fmt, "fp16", bias=20)[::3],
                           directed(fmt, "fp16", bias=40)[::3],
                           np.arange(1, 1024, 7, dtype=np.uint64), np.arange(0x8001, 0x8400, 13, dtype=np.uint64)])
    bias = np.resize(np.array([20, 40, 33, 63, 5]), len(stim))
    x = stim.astype(np.uint16).view(np.float16)
    dut = Encoder(fmt, "fp16", ("rne", "sr"))
    rand = random_bits(3, len(x), 16)
    bad = _run_encoder(dut, fmt, stim, x, bias, ("rne", "sr"), rand)
    assert not bad, bad[:5]


def test_uhp_nan_to_zero_and_fixed_saturation():
    stim = directed("uhp", "fp32")[::4]
    x = stim.astype(np.uint32).view(np.float32)
    dut = Encoder("uhp", "fp32", ("rne", "rtz"), saturate=True, nan_to_zero=True)
    bad = _run_encoder(dut, "uhp", stim, x, None, ("rne", "rtz"), None, saturate=True, nan_to_zero=True)
    assert not bad, bad[:5]


@pytest.mark.parametrize("fmt, target", [("cfloat8_143", "bf16"), ("cfloat8_152", "fp32"), ("shp", "fp32")])
def test_ieee_denormal_decoders(fmt, target):
    f = get_format(fmt)
    codes = np.arange(1 << f.bits) if f.bits == 8 else np.concatenate([np.arange(0, 2048), np.arange(0x8000, 0x8400)])
    dut = Decoder(f"{fmt}_ieee", target)
    bad = []

    async def bench(ctx):
        for b in (0, 1, 31, 62, 63):
            want = decode_bits(fmt, codes, target, bias=b, ieee_denormals=True)
            ctx.set(dut.bias, b)
            for i, c in enumerate(codes):
                ctx.set(dut.a, int(c))
                if ctx.get(dut.y) != want[i]:
                    bad.append((b, hex(int(c)), hex(ctx.get(dut.y)), hex(int(want[i]))))

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
    assert not bad, bad[:5]


def test_stream_encoder_with_internal_generator_and_changing_bias():
    """A 2-stage SR pipeline: the bias changes on every transfer and under stalls; codes follow the seed."""
    dut = Pipeline(Encoder("cfloat8_143", "bf16", ("sr",)), latency=2, seed=99)
    x = (np.random.default_rng(4).standard_normal(150) * 2.0 ** -20).astype(ml_dtypes.bfloat16)
    bias = (np.arange(150) * 7) % 64
    want_y, want_f = encode_with_flags("cfloat8_143", x, rounding="sr", seed=99, bias=bias)
    bits = x.view(np.uint16).tolist()
    out = []
    rng = np.random.default_rng(2)

    async def bench(ctx):
        i = cycle = 0
        while len(out) < len(bits) and cycle < 3000:
            ctx.set(dut.o.ready, rng.random() > 0.3)
            if i < len(bits) and rng.random() > 0.3:
                ctx.set(dut.i.valid, 1)
                ctx.set(dut.i.p.a, bits[i])
                ctx.set(dut.i.p.bias, int(bias[i]))
            else:
                ctx.set(dut.i.valid, 0)
            fire_in = ctx.get(dut.i.valid) and ctx.get(dut.i.ready)
            if ctx.get(dut.o.valid) and ctx.get(dut.o.ready):
                out.append((ctx.get(dut.o.p.y), ctx.get(dut.o.p.flags)))
            if fire_in:
                i += 1
            await ctx.tick()
            cycle += 1

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert [y for y, _ in out] == want_y.tolist() and [f for _, f in out] == want_f.tolist()
