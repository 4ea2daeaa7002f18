"""Gateware checks in Amaranth's own simulator: constructors, the generator, the pipeline, determinism."""

import numpy as np
import pytest
from amaranth.sim import Simulator

from fpforge.golden import encode_with_flags, get_format, random_bits
from fpforge.hw import Decoder, Encoder, Pipeline, Rounder, Xorshift32, build_unit, to_verilog


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(fmt="e9m9"), "unknown format 'e9m9'; valid formats: .*e4m3"),
        (dict(fmt="e4m3", source="fp64"), "unknown source 'fp64'; valid choices: fp32, fp16, bf16"),
        (dict(fmt="e4m3", roundings=("hr",)), "has no rounding 'hr'; valid choices: rne, ta, rtz, sr"),
        (dict(fmt="e4m3", roundings=("sr",), rand_bits=0), "rand_bits must be an integer in 1..32"),
        (dict(fmt="fp16"), "'fp16' is a source/target format: encoders convert from it"),
    ],
)
def test_encoder_rejects_bad_parameters(kwargs, match):
    with pytest.raises((ValueError, KeyError), match=match):
        Encoder(**kwargs)


def test_encoder_saturate_names_its_spellings():
    with pytest.raises(TypeError, match="saturate must be True, False or 'runtime' \\('off'/'on' for False/True\\)"):
        Encoder("e4m3", saturate="maybe")


def test_decoder_rejects_unknown_target():
    with pytest.raises(ValueError, match="unknown target 'fp8'; valid choices: fp32, fp16, bf16"):
        Decoder("e4m3", "fp8")


def test_build_unit_rejects_negative_latency_and_unknown_unit():
    with pytest.raises(ValueError, match=r"latency must be an integer in 0\.\.64, not -1"):
        build_unit("encoder", format="e4m3", latency=-1)
    with pytest.raises(ValueError, match="unknown unit 'mac'; valid units: encoder, decoder"):
        build_unit("mac", format="e4m3")


def test_rounder_rejects_unknown_mode():
    with pytest.raises(ValueError, match="modes must be drawn from"):
        Rounder(8, 4, ("xx",))


def test_ports_follow_the_configuration():
    assert set(Encoder("e4m3").signature.members) == {"a", "y", "flags"}
    enc = Encoder("e5m2", "fp16", ("rne", "sr"), "runtime", rand_bits=12)
    assert set(enc.signature.members) == {"a", "y", "flags", "rand", "mode", "sat"}
    assert enc.signature.members["rand"].shape == 12
    assert set(Decoder("e4m3", "bf16").signature.members) == {"a", "y"}


@pytest.mark.parametrize("seed", [0, 1, 0xDEADBEEF, 2**32 - 1])
def test_generator_matches_golden_stream(seed):
    """The RTL generator yields the golden draws, one per enabled cycle, and holds when not enabled."""
    dut = Xorshift32(seed, bits=16)
    expected = random_bits(seed, 50, 16)
    got = []

    async def bench(ctx):
        for i in range(60):
            enable = i % 6 != 5  # hold every sixth cycle
            ctx.set(dut.en, enable)
            if enable:
                got.append(ctx.get(dut.rand))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert got == expected.tolist()


def test_pipeline_latency_and_backpressure_with_internal_generator():
    """A 3-stage SR encoder: exact latency when unstalled; in order under stalls; golden codes by seed."""
    core = Encoder("e4m3", "fp16", ("sr",))
    dut = Pipeline(core, latency=3, seed=42)
    x = np.random.default_rng(3).standard_normal(200).astype(np.float16)
    exp_y, exp_f = encode_with_flags("e4m3", x, rounding="sr", seed=42)
    bits = x.view(np.uint16).tolist()
    out, times, sent = [], [], []
    rng = np.random.default_rng(9)

    async def bench(ctx):
        cycle = 0
        i = 0
        while len(out) < len(bits) and cycle < 5000:
            stall_out = len(out) >= 100 and rng.random() < 0.4
            gap_in = i >= 100 and rng.random() < 0.3
            ctx.set(dut.o.ready, not stall_out)
            if i < len(bits) and not gap_in:
                ctx.set(dut.i.valid, 1)
                ctx.set(dut.i.p.a, bits[i])
            else:
                ctx.set(dut.i.valid, 0)
            in_fire = ctx.get(dut.i.valid) and ctx.get(dut.i.ready)
            out_fire = ctx.get(dut.o.valid) and ctx.get(dut.o.ready)
            if out_fire:
                out.append((ctx.get(dut.o.p.y), ctx.get(dut.o.p.flags)))
                times.append(cycle)
            if in_fire:
                sent.append(cycle)
                i += 1
            await ctx.tick()
            cycle += 1

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert [y for y, _ in out] == exp_y.tolist()
    assert [f for _, f in out] == exp_f.tolist()
    # First 100 values: no stalls, so each leaves exactly `latency` cycles after it entered.
    assert [t - s for s, t in zip(sent[:100], times[:100])] == [3] * 100


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(unit="encoder", format="e4m3", rounding=("rne", "ta", "rtz", "sr"), saturate="runtime"),
        dict(unit="encoder", format="e5m2fnuz", source="fp16", rounding=("sr",), latency=2, seed=7),
        dict(unit="decoder", format="e5m2", target="bf16", latency=1),
    ],
)
def test_verilog_is_deterministic_and_path_free(kwargs):
    a = to_verilog(build_unit(**kwargs))
    b = to_verilog(build_unit(**kwargs))
    assert a == b
    assert "/work" not in a and "/home" not in a and "/tmp" not in a
    assert a.startswith("// Generated by fpforge ")


# -- HiF8 ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(fmt="e4m3"), "'e4m3' is not a tapered format"),
        (dict(roundings=("rtn",)), "format 'hif8' has no rounding 'rtn'; valid choices: ta, hr, sr, rne, rtz"),
        (dict(source="fp8"), "unknown source 'fp8'; valid choices: fp32, fp16, bf16"),
    ],
)
def test_hif8_encoder_rejects_bad_parameters(kwargs, match):
    from fpforge.hw import HiF8Encoder

    with pytest.raises((ValueError, KeyError), match=match):
        HiF8Encoder(**kwargs)


def test_hif8_ports_and_default_rounding():
    from fpforge.hw import HiF8Decoder, HiF8Encoder

    unit = build_unit("encoder", format="hif8")
    assert isinstance(unit, HiF8Encoder) and unit.roundings == ("ta",)
    assert set(unit.signature.members) == {"a", "y", "flags"}  # hr needs no random port
    assert set(HiF8Encoder(roundings=("ta", "hr")).signature.members) == {"a", "y", "flags", "mode"}
    assert set(HiF8Encoder(roundings=("sr",)).signature.members) == {"a", "y", "flags", "rand"}
    assert isinstance(build_unit("decoder", format="hif8", target="fp16"), HiF8Decoder)
    with pytest.raises(ValueError, match=r"paper_literal applies to HiF8 hybrid rounding \(hif8\), not 'e4m3'"):
        build_unit("encoder", format="e4m3", paper_literal=True)
    with pytest.raises(ValueError, match="paper_literal applies to hybrid rounding: enable rounding 'hr'"):
        build_unit("encoder", format="hif8", rounding=("ta",), paper_literal=True)
    literal = build_unit("encoder", format="hif8", rounding=("hr",), paper_literal=True)
    assert literal.format is get_format("hif8_literal") and "paper_literal 1" in literal.describe()


@pytest.mark.parametrize("source", ["fp32", "fp16", "bf16"])
def test_hif8_encoder_matches_golden_on_directed_cases(source):
    """Amaranth's simulator on the directed corner cases, every mode (the cocotb runs cover the rest)."""
    import ml_dtypes

    from fpforge.golden import ROUNDING_MODES
    from fpforge.sim.vectors import directed

    modes = ("ta", "hr", "sr", "rne", "rtz")
    dut = build_unit("encoder", format="hif8", source=source, rounding=modes, saturate="runtime")
    stim = directed("hif8", source)[::7]
    dt = {"fp32": np.float32, "fp16": np.float16, "bf16": ml_dtypes.bfloat16}[source]
    x = stim.astype(np.uint32 if source == "fp32" else np.uint16).view(dt)
    rand = random_bits(5, len(x), 16)
    bad = []

    async def bench(ctx):
        for r in modes:
            for s in (0, 1):
                y, f = encode_with_flags("hif8", x, rounding=r, saturate=bool(s), rand=rand if r == "sr" else None)
                ctx.set(dut.mode, ROUNDING_MODES[r])
                ctx.set(dut.sat, s)
                for i in range(len(x)):
                    ctx.set(dut.a, int(stim[i]))
                    ctx.set(dut.rand, int(rand[i]))
                    got = (ctx.get(dut.y), ctx.get(dut.flags))
                    if got != (y[i], f[i]):
                        bad.append((r, s, hex(int(stim[i])), got, (int(y[i]), int(f[i]))))

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
    assert not bad, bad[:5]


@pytest.mark.parametrize("paper_literal", [False, True])
def test_rounder_flags_a_paper_literal_round_up_of_an_exact_value_as_inexact(paper_literal):
    """hr with F = T = 0: nothing is discarded; paper-literal SR14 still rounds up, and that is inexact."""
    rnd = Rounder(8, 4, ("hr",), thresh_bits=2, paper_literal=paper_literal)
    seen = {}

    async def bench(ctx):
        ctx.set(rnd.hr_sr, 1)
        ctx.set(rnd.thresh, 0)
        for sig in (0b1010_0000, 0b1010_0100):  # shift 4: exact, then F = 01 >= T = 00 with bits discarded
            ctx.set(rnd.sig, sig)
            ctx.set(rnd.shift, 4)
            seen[sig] = (ctx.get(rnd.q), ctx.get(rnd.inexact))

    sim = Simulator(rnd)
    sim.add_testbench(bench)
    sim.run()
    assert seen[0b1010_0000] == ((0b1011, 1) if paper_literal else (0b1010, 0))
    assert seen[0b1010_0100] == (0b1011, 1)
