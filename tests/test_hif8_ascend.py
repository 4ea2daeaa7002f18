"""HiF8 ``compat="ascend"`` (issue 15) against a small reference written from the issue's text, not from
``fpforge.golden.tapered``.

The reference builds HiF8's codes from the paper's Tables 2-3 (dot prefix, sign-magnitude exponent,
mantissa; denormals ``2^(M-23)``), then applies the issue's rule for hybrid rounding as Ascend does it:
``|x| < 2^-23`` gives 0; ``|x| >= 1.25 × 2^15`` overflows; otherwise, between the neighbours ``lo <= |x| < hi``
(the Inf code standing where 1.5 × 2^15 would be), TA when ``|E| < 4`` and else round up iff ``F >= T``
read literally: ``F`` the top K bits of ``(|x| - lo) / (hi - lo)``, ``T`` the 14 low source bits (FP32,
K = 14) or ``(LSB, 1)`` (FP16/BF16, K = 2). Decoding: every value as the default, NaN as +qNaN.
Compared on every FP16/BF16 pattern and more than 1M FP32 patterns.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from fpforge.golden import decode, decode_bits, encode, encode_with_flags, get_format, list_formats

DTYPES = {"fp32": np.float32, "fp16": np.float16, "bf16": ml_dtypes.bfloat16}
INF, MAX, NAN = 0x6F, 0x6E, 0x80


# -- the reference -------------------------------------------------------------------------------------
def _code(e, man, width):
    """Table 2/3: the magnitude code of 2^e × 1.man (``width`` mantissa bits)."""
    a = abs(e)
    dot, d = next((p, d) for p, d, lo, hi in (("0001", 0, 0, 0), ("001", 1, 1, 1), ("01", 2, 2, 3), ("10", 3, 4, 7),
                                              ("11", 4, 8, 15)) if lo <= a <= hi)
    em = "" if d == 0 else ("1" if e < 0 else "0") + format(a, "b")[1:]  # sign, magnitude without its MSB
    return int(dot + em + (format(man, f"0{width}b") if width else ""), 2)


def _grid():
    """Sorted positive finite HiF8 values with their codes, 0 first; the Inf slot 1.5 × 2^15 last."""
    pairs = [(0.0, 0)] + [(2.0 ** (m - 23), m) for m in range(1, 8)]  # zero, denormals 0000 + M
    for e in range(-15, 16):
        w = 3 if abs(e) <= 3 else 2 if abs(e) <= 7 else 1
        for man in range(1 << w):
            pairs.append((2.0**e * (1 + man / 2**w), _code(e, man, w)))
    pairs.sort()
    vals = np.array([v for v, _ in pairs])
    codes = np.array([c for _, c in pairs])
    assert vals[-1] == 1.5 * 2**15 and codes[-1] == INF and vals[-2] == 2**15 and codes[-2] == MAX
    return vals, codes


GRID, GRID_CODES = _grid()


def ascend_reference(x, saturate=False, ascend_saturation=False):
    """(codes, flags) of ``encode(hif8, x, rounding="hr", compat="ascend")`` by the issue's rule.

    ``ascend_saturation`` reproduces what the issue reports Huawei's code does under saturation (a value
    in [2^15, 1.25 × 2^15) that rounds up still gives Inf); fpforge gives ±2^15 there (saturation).
    """
    x = np.asarray(x)
    nbits = x.dtype.itemsize * 8
    bits = x.ravel().view(np.uint32 if nbits == 32 else np.uint16).astype(np.int64)
    mbits = {32: 23, 16: 10 if x.dtype == np.float16 else 7}[nbits]
    with np.errstate(invalid="ignore"):
        v = x.ravel().astype(np.float64)
    nan, inf = np.isnan(v), np.isinf(v)
    a = np.where(nan | inf, 0.0, np.abs(v))
    subnormal = (a != 0) & (a < {23: 2.0**-126, 10: 2.0**-14, 7: 2.0**-126}[mbits])
    E = np.frexp(np.where(a > 0, a, 1.0))[1] - 1
    hi_i = np.minimum(np.searchsorted(GRID, a, side="right"), len(GRID) - 1)
    lo, hi = GRID[hi_i - 1], GRID[hi_i]
    d = (a - lo) / (hi - lo)
    if nbits == 32:
        F, T = np.floor(d * 2**14), bits & 0x3FFF
    else:
        F, T = np.floor(d * 4), ((bits & 1) << 1) | 1
    up = np.where(np.abs(E) < 4, d >= 0.5, F >= T)
    pick = np.where(up, hi_i, hi_i - 1)
    result = GRID[pick]
    flush = a < 2.0**-23
    overflow = (a >= 1.25 * 2**15) | (GRID_CODES[pick] == INF)
    result = np.where(flush, 0.0, result)
    code = np.where(flush, 0, GRID_CODES[pick])
    ovf_code = np.full(a.shape, MAX if saturate else INF)
    if saturate and ascend_saturation:  # their check runs before rounding: a round-up lands on Inf
        ovf_code = np.where(a < 1.25 * 2**15, INF, MAX)
    code = np.where(overflow, ovf_code, code)
    code = np.where(inf, MAX if saturate else INF, code)
    code = np.where(np.signbit(v) & (code != 0), code | 0x80, code)
    code = np.where(nan, NAN, code)
    nonzero = (a != 0) & ~nan & ~inf
    inexact = nonzero & ((result != a) | overflow)
    flags = (nan * 1 | subnormal * 2 | (nonzero & overflow) * 4
             | (inexact & ~overflow & (result < 2.0**-15)) * 8 | (inexact | (inf & saturate)) * 16)
    return code.astype(np.uint8).reshape(x.shape), flags.astype(np.uint8).reshape(x.shape)


def reference_decode_fp32(codes):
    """FP32 bits of every code: the grid's values, signed; 0x80 is +qNaN, 0x6F/0xEF ±Inf."""
    value = dict(zip(GRID_CODES.tolist(), GRID.tolist()))
    out = []
    for c in np.asarray(codes).tolist():
        mag = c & 0x7F
        if c == NAN:
            out.append(0x7FC00000)
            continue
        v = np.inf if mag == INF else value[mag]
        out.append(int(np.array(-v if c & 0x80 and mag else v, np.float32).view(np.uint32)))
    return np.array(out, np.uint32)


# -- stimulus ------------------------------------------------------------------------------------------
def all16(src):
    return np.arange(1 << 16, dtype=np.uint16).view(DTYPES[src])


def fp32_patterns(n=1_000_000, seed=15):
    """Half uniform over all 2^32 patterns; half with exponents from 2^-30 to 2^17 (both classes, the TA
    and SR regions, subnormal and overflow neighbourhoods), a quarter of them with low bits cleared (exact
    values, ties, T14 = 0); plus the issue's corners: 2^-23, 1.25 × 2^15, 1.5 × 2^15 ± 0..300 ulps,
    and every exact HiF8 value ± 0..3 ulps."""
    rng = np.random.default_rng(seed)
    uniform = rng.integers(0, 1 << 32, n // 2, dtype=np.uint64).astype(np.uint32)
    m = n - n // 2
    e = rng.integers(-30, 18, m)
    man = rng.integers(0, 1 << 23, m).astype(np.uint32)
    k = rng.integers(0, 24, m).astype(np.uint32)
    man = np.where(rng.random(m) < 0.25, man & (np.uint32(0xFFFFFFFF) << k), man)
    near = (rng.integers(0, 2, m).astype(np.uint32) << np.uint32(31)) | ((e + 127).astype(np.uint32) << np.uint32(23)) | man
    centres = np.array([2.0**-23, 1.25 * 2**15, 1.5 * 2**15], np.float32).view(np.int32).astype(np.int64)
    corners = (centres[:, None] + np.arange(-300, 301)[None, :]).ravel()
    exact = GRID[:-1].astype(np.float32).view(np.int32).astype(np.int64)
    exact = (exact[:, None] + np.arange(-3, 4)[None, :]).ravel()
    extra = np.concatenate([corners, exact])
    extra = extra[extra >= 0].astype(np.uint32)
    return np.concatenate([uniform, near, extra, extra | np.uint32(1 << 31)]).view(np.float32)


def assert_same(got, want, x, what):
    for g, w, name in zip(got, want, ("codes", "flags")):
        bad = np.flatnonzero(g.ravel() != w.ravel())
        if bad.size:
            bits = x.ravel().view(np.uint32 if x.dtype.itemsize == 4 else np.uint16)
            rows = [f"x=0x{int(bits[i]):X} ({float(x.ravel()[i])!r}): reference 0x{int(w.ravel()[i]):02X}, "
                    f"golden 0x{int(g.ravel()[i]):02X}" for i in bad[:8]]
            pytest.fail(f"{what}: {bad.size} of {x.size} {name} differ: " + "; ".join(rows))


# -- encode --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("saturate", [False, True], ids=["nosat", "sat"])
@pytest.mark.parametrize("src", ["fp16", "bf16", "fp32"])
def test_ascend_hr_matches_the_reference(src, saturate):
    x = all16(src) if src != "fp32" else fp32_patterns()
    assert x.size >= 65_536 and (src != "fp32" or x.size > 1_000_000)
    want = ascend_reference(x, saturate)
    got = encode_with_flags("hif8", x, rounding="hr", compat="ascend", saturate=saturate)
    assert_same(got, want, x, f"{src} hr ascend sat={saturate}")
    # the variant's name is the same thing; small arrays take the exact model, large ones the fast path
    small = encode_with_flags("hif8_ascend", x[:4096], rounding="hr", saturate=saturate)
    assert_same(small, (want[0][:4096], want[1][:4096]), x[:4096], f"{src} hr ascend, exact model")


@pytest.mark.parametrize("src", ["fp16", "bf16", "fp32"])
@pytest.mark.parametrize("rounding", ["ta", "rne", "rtz", "sr"])
def test_other_modes_are_unchanged_by_ascend(src, rounding):
    """TA is what Ascend does already; sr/rne/rtz, which Ascend's references do not have, stay fpforge's."""
    x = all16(src) if src != "fp32" else fp32_patterns(300_000, 16)
    for sat in (False, True):
        want = encode_with_flags("hif8", x, rounding=rounding, saturate=sat, seed=5)
        got = encode_with_flags("hif8", x, rounding=rounding, saturate=sat, seed=5, compat="ascend")
        assert all(np.array_equal(g, w) for g, w in zip(got, want)), (rounding, sat)


def test_the_differences_have_the_issues_sizes():
    """Counted with the reference: FP16 → 128 halves in [1.25, 1.5) × 2^15 (0x7901 → 0x6F, fpforge 0x6E);
    BF16 widened to FP32 → the 26,368 normal BF16 values below 2^-23 (and the 254 BF16 subnormals, FP32
    subnormals once widened, which the default also sends to ±2^-22), beside the default rule."""
    h = all16("fp16")
    default = encode("hif8", h, rounding="hr")
    ref = ascend_reference(h)[0]
    assert np.count_nonzero(default != ref) == 128
    assert encode("hif8", np.array([0x7901], np.uint16).view(np.float16), rounding="hr")[0] == 0x6E
    assert ref[0x7901] == 0x6F
    b = all16("bf16")
    wide = b.astype(np.float32)
    literal = encode("hif8", wide, rounding="hr", paper_literal=True)
    ref = ascend_reference(wide)[0]
    diff = literal != ref
    with np.errstate(invalid="ignore"):  # NaN patterns
        a = np.abs(wide.astype(np.float64))
    assert np.all(diff == ((a > 0) & (a < 2.0**-23)))
    subnormal = (b.view(np.uint16) & 0x7F80) == 0
    assert np.count_nonzero(diff & ~subnormal) == 26_368 and np.count_nonzero(diff & subnormal) == 254


def test_saturation_keeps_fpforge_semantics():
    """Under saturation a value in [2^15, 1.25 × 2^15) that hybrid rounding rounds up gives ±2^15 (Ascend's
    code gives Inf there: its range check runs before rounding; documented in docs/hif8.md)."""
    x = np.array([2**15 + 512, -(2**15 + 512), 40960.0, 1e9], np.float32)  # 2^15 + 512: T14 = 0, F14 = 512
    codes, flags = encode_with_flags("hif8", x, rounding="hr", compat="ascend", saturate=True)
    assert codes.tolist() == [0x6E, 0xEE, 0x6E, 0x6E] and all(f & 4 for f in flags.tolist())
    theirs = ascend_reference(x, saturate=True, ascend_saturation=True)[0]
    assert theirs.tolist() == [INF, INF | 0x80, MAX, MAX]


@pytest.mark.parametrize("x, code, flags", [
    (2.0**-23, 0x01, 8 | 16), (np.nextafter(np.float32(2.0**-23), np.float32(0)), 0x00, 8 | 16),
    (np.nextafter(np.float32(2.0**-23), np.float32(1)), 0x01, 8 | 16), (-(2.0**-100), 0x00, 8 | 16),
    (1.25 * 2**15, INF, 4 | 16), (np.nextafter(np.float32(40960), np.float32(0)), MAX, 16),
    (24.0, 0x43, 16), (2.0**15, INF, 4 | 16), (0.0, 0x00, 0), (float("inf"), INF, 0), (float("nan"), NAN, 1),
])
def test_ascend_directed(x, code, flags):
    """The issue's corners (FP32): below 2^-23 flushes (underflow + inexact; 2^-23 itself is not below and
    rounds up: F14 = 2^13 >= T14 = 0), 1.25 × 2^15 overflows,
    24.0 → 28.0 and 2^15 → Inf under the literal F >= T (T14 = 0); just below 40960 the low bits decide."""
    got = encode_with_flags("hif8", np.array([x], np.float32), rounding="hr", compat="ascend")
    assert (int(got[0][0]), int(got[1][0])) == (code, flags)


# -- decode --------------------------------------------------------------------------------------------
def test_decode_nan_is_positive_and_every_value_agrees():
    codes = np.arange(256)
    want = reference_decode_fp32(codes)
    assert np.array_equal(decode("hif8", codes, compat="ascend").view(np.uint32), want)
    assert np.array_equal(decode("hif8_ascend", codes).view(np.uint32), want)
    default = decode("hif8", codes).view(np.uint32)
    assert np.flatnonzero(default != want).tolist() == [NAN] and default[NAN] == 0xFFC00000
    for target, qnan in (("fp32", 0x7FC00000), ("fp16", 0x7E00), ("bf16", 0x7FC0)):
        bits = decode_bits("hif8", codes, target, compat="ascend")
        assert bits[NAN] == qnan
        assert np.array_equal(np.delete(bits, NAN), np.delete(decode_bits("hif8", codes, target), NAN))


# -- API ------------------------------------------------------------------------------------------------
def test_variant_descriptor_and_keyword():
    f = get_format("hif8_ascend")
    assert f.compat == "ascend" and get_format("hif8").compat == "default" and "hif8_ascend" in list_formats()
    x = fp32_patterns(70_000, 3)
    a = encode("hif8", x, rounding="hr", compat="ascend")
    assert np.array_equal(a, encode("hif8_ascend", x, rounding="hr"))
    assert np.array_equal(a, encode("hif8_ascend", x, rounding="hr", compat="ascend", paper_literal=True))
    assert np.array_equal(a, encode("hif8_ascend", x, rounding="hr", compat="default"))


@pytest.mark.parametrize("fmt, compat, match", [("e4m3", "ascend", "applies to HiF8"), ("hif8", "huawei", "valid choices: default, ascend"),
                                                ("cfloat8_143", "ascend", "applies to HiF8")])
def test_bad_compat_is_one_clear_error(fmt, compat, match):
    kw = dict(bias=3) if fmt.startswith("cfloat") else {}
    with pytest.raises(ValueError, match=match):
        encode(fmt, np.ones(3, np.float32), compat=compat, **kw)
    with pytest.raises(ValueError, match=match):
        decode(fmt, np.zeros(3, np.uint8), compat=compat, **kw)


def test_cli_compat_flag(tmp_path, capsys):
    from fpforge.cli import main

    out = tmp_path / "enc.v"
    assert main(["verilog", "encoder", "-f", "hif8", "--compat", "ascend", "--rounding", "hr,ta", "-o", str(out)]) == 0
    text = out.read_text()
    assert "module fpforge_enc_fp32_hif8_ascend" in text and "hif8_ascend" in text.splitlines()[0]
    assert main(["verilog", "encoder", "-f", "e4m3", "--compat", "ascend"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "applies to HiF8" in err[0]
    assert main(["verilog", "decoder", "-f", "hif8", "--compat", "ascend", "--target", "bf16", "-o",
                 str(tmp_path / "dec.v")]) == 0
    assert "fpforge_dec_hif8_ascend_bf16" in (tmp_path / "dec.v").read_text()


def test_prove_and_cases_resolve_the_keyword():
    """``compat="ascend"`` in a unit configuration means the descriptor for the prover and the cocotb cases
    too (the golden side and the RTL then agree on what they check)."""
    from fpforge.sim.cases import encoder_case
    from fpforge.sim.prove_unit import unit_config

    cfg = unit_config(dict(unit="encoder", format="hif8", compat="ascend", rounding="hr"))
    assert cfg["format"] == "hif8_ascend" and "compat" not in cfg
    case = encoder_case(dict(unit="encoder", format="hif8", compat="ascend", source="fp16", rounding=("hr",)))
    x = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    assert np.array_equal(case.expected["y"], encode("hif8_ascend", x, rounding="hr"))
