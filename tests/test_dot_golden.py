"""The dot-product golden model (golden/dot.py) against an independent reference written in this file from
the definitions of docs/dot.md: element values from the formats' own decoders (decode_block / decode) as
Fractions, exact block sums, block exponents from the scale fields, the f-bit window placed from the
formats' largest magnitudes, truncation toward zero, and one FP32 rounding (nearest even) written here
from scratch. Also: the exact reference (dot_exact) against plain Fraction arithmetic, the FP32 rounding
against the FPU (numpy float64 -> float32), the int64 and Python-int paths against each other, operand
port packing, symmetry, and the configuration rules."""

import math
from fractions import Fraction

import numpy as np
import pytest

from fpforge.golden import block_words, decode, decode_block, encode_block, get_format
from fpforge.golden.block import BlockEncoding, BlockFormat
from fpforge.golden.dot import (
    FP8,
    DotConfig,
    ScalarSet,
    dot,
    dot_exact,
    error_sweep,
    fp32_bits,
    from_operand_words,
    operand_format,
    operand_words,
)
from fpforge.sim.vectors import directed_dot_operands, random_dot_operands

QNAN, INF = 0x7FC00000, 0x7F800000


# -- the independent reference ------------------------------------------------------------------------------
def fp32_of(q: Fraction) -> int:
    """FP32 bits of the Fraction q, rounded to nearest even once (subnormals; beyond max -> Inf; 0 -> +0)."""
    if q == 0:
        return 0
    sign = 1 << 31 if q < 0 else 0
    q = abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    e = max(e, -126)
    quantum = Fraction(2) ** (e - 23)
    n = q / quantum
    k = n.numerator // n.denominator
    rem = n - k
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and k % 2 == 1):
        k += 1
    if k == 1 << 24:
        k, e = 1 << 23, e + 1
    if e > 127:
        return sign | INF
    if k < 1 << 23:  # subnormal (e == -126)
        return sign | k
    return sign | ((e + 127) << 23) | (k - (1 << 23))


def _frac(v):
    return Fraction(float(v))


def _bound_and_lsb(fmt):
    """(largest element magnitude entering a multiplier, largest element exponent offset, sub-block guard,
    exponent of magnitude 1) per the definitions in docs/dot.md."""
    if isinstance(fmt, BlockFormat):
        beta = 2**fmt.d2 - 1
        return 2**fmt.m - 1, 0, beta, 1 - fmt.m - beta
    el = fmt.element
    if fmt.is_int:
        return 128, 0, 0, -6
    top_field = 2**el.ebits - 1 - (1 if el.has_inf else 0)  # E5M2: the all-ones exponent holds Inf and NaN
    return 2 ** (el.mbits + 1) - 1, top_field - 1, 0, (1 - el.bias) - el.mbits


def _scalar_common(fs):
    """The scalar operand's common significand: (M, L, sig max, eoff(code, format) function)."""
    M = max(f.mbits for f in fs)
    L = min((1 - f.bias) - M for f in fs)

    def eoff(code, f):
        ef = (code >> f.mbits) & (2**f.ebits - 1)
        return max(ef, 1) - 1 + ((1 - f.bias) - M - L)

    sigmax = max((2 ** (f.mbits + 1) - 1) << (M - f.mbits) for f in fs)
    return M, L, sigmax, eoff


def reference(fa, fb, r, f, A, B, sel_a=None, sel_b=None):
    """FP32 bits (list) of the pipeline, per dot product, from the definitions."""
    fa, fb = operand_format(fa), operand_format(fb)
    out = []
    if isinstance(fa, ScalarSet):
        Ma, La, sa_max, eoff_a = _scalar_common(fa.formats)
        Mb, Lb, sb_max, eoff_b = _scalar_common(fb.formats)
        W = (sa_max * sb_max).bit_length()
        c = La + Lb
        x_min = 0
        n = len(A)
        sel_a = np.zeros(n, int) if sel_a is None else sel_a
        sel_b = np.zeros(n, int) if sel_b is None else sel_b
        for v in range(n):
            ea, eb = fa.formats[int(sel_a[v])], fb.formats[int(sel_b[v])]
            ca, cb = [int(x) for x in A[v]], [int(x) for x in B[v]]
            va = decode(ea, np.array(ca)).astype(np.float64)
            vb = decode(eb, np.array(cb)).astype(np.float64)
            blocks = [([va[i]], [vb[i]], eoff_a(ca[i], ea) + eoff_b(cb[i], eb)) for i in range(r)]
            out.append(_finish(blocks, W, c, x_min, f))
        return out
    k1 = fa.k1
    ma, oa, ga, la = _bound_and_lsb(fa)
    mb, ob, gb, lb = _bound_and_lsb(fb)
    smax = k1 * ma * mb * 2 ** (ga + gb)
    if not isinstance(fa, BlockFormat):
        smax <<= oa + ob
    W = smax.bit_length()
    c = la + lb
    bias_a = 2 ** (fa.d1 - 1) if isinstance(fa, BlockFormat) else 127
    bias_b = 2 ** (fb.d1 - 1) if isinstance(fb, BlockFormat) else 127
    x_min = -bias_a - bias_b if isinstance(fa, BlockFormat) else -254
    va = decode_block(fa, A).astype(np.float64).reshape(len(A.scale), r)
    vb = decode_block(fb, B).astype(np.float64).reshape(len(B.scale), r)
    sca = np.asarray(A.scale).astype(int).reshape(len(va), -1)
    scb = np.asarray(B.scale).astype(int).reshape(len(vb), -1)
    for v in range(len(va)):
        blocks = []
        for j in range(r // k1):
            s = slice(j * k1, (j + 1) * k1)
            blocks.append((va[v, s], vb[v, s], (sca[v, j] - bias_a) + (scb[v, j] - bias_b)))
        out.append(_finish(blocks, W, c, x_min, f))
    return out


def _finish(blocks, W, c, x_min, f):
    """Specials, exact block sums, window, truncation toward zero, one FP32 rounding."""
    prods = [float(a) * float(b) for blk in blocks for a, b in zip(blk[0], blk[1])]
    if any(math.isnan(p) for p in prods) or (any(p == math.inf for p in prods) and any(p == -math.inf for p in prods)):
        return QNAN
    if any(p == math.inf for p in prods):
        return INF
    if any(p == -math.inf for p in prods):
        return INF | 1 << 31
    vals, xs = [], []
    for a, b, x in blocks:
        s = sum((_frac(p) * _frac(q) for p, q in zip(a, b) if math.isfinite(p) and math.isfinite(q)), Fraction(0))
        vals.append(s)
        xs.append(int(x) if s != 0 else x_min)
    xm = max(xs)
    lsb = Fraction(2) ** (xm + c + W - (f - 1))
    total = 0
    for s in vals:
        t = s / lsb
        total += math.trunc(t)  # toward zero
    return fp32_of(total * lsb)


def _ops(cfg, n_random, seed):
    from fpforge.sim.vectors import concat_dot_operands

    return concat_dot_operands(cfg, [directed_dot_operands(cfg, seed), random_dot_operands(cfg, n_random, seed + 1)])


CONFIGS = [
    # (A, B, r, f)
    ("mx9", None, 16, 16), ("mx9", None, 64, 32), ("mx9", None, 64, 8), ("mx9", None, 32, 48),
    ("mx6", None, 16, 32), ("mx6", None, 64, 16), ("mx4", None, 16, 16), ("mx4", None, 64, 32),
    ("msfp12", None, 32, 12), ("msfp16", None, 32, 24),
    ("bdr_m3_k8_d3_k4_d2", None, 16, 16),  # d1 = 3 (clamped exponents), shifts 0..3
    ("bdr_m5_k8_d4_k2_d3", None, 24, 20),  # shifts 0..7, r = 3 blocks
    ("bdr_m1_k2_d1_k1_d1", None, 8, 8),  # 1-bit magnitudes, d1 = 1, k2 = 1
    ("mx9", "mx6", 32, 20), ("bdr_m4_k8_d5_k2_d1", "bdr_m2_k8_d8_k2_d2", 16, 16),  # mixed BDR
    ("mxfp8_e4m3", None, 32, 32), ("mxfp8_e4m3", None, 64, 16), ("mxfp8_e5m2", None, 32, 40),  # e5m2: Python ints
    ("mxfp6_e3m2", None, 32, 16), ("mxfp6_e2m3", None, 32, 24), ("mxfp4_e2m1", None, 64, 12),
    ("mxint8", None, 32, 16), ("mxint8", None, 64, 32), ("mxfp8_e4m3", "mxint8", 32, 24),
    ("mxfp8_e4m3", "mxfp8_e5m2", 32, 32),
    ("e4m3", None, 16, 16), ("e5m2", None, 16, 32), ("fp8", None, 16, 32), ("fp8", None, 16, 12),
    ("e4m3", "e5m2", 16, 24), ("e4m3fnuz", None, 8, 16), ("e3m2", None, 8, 12), ("e2m1", "e2m3", 8, 8),
    ("mx4", None, 32, 256),  # Python-int path (f > 61)
]


@pytest.mark.parametrize("fa, fb, r, f", CONFIGS, ids=[f"{a}x{b or a}-r{r}-f{f}" for a, b, r, f in CONFIGS])
def test_pipeline_matches_the_reference_from_the_definitions(fa, fb, r, f):
    cfg = DotConfig(fa, r, f, fb)
    ops = _ops(cfg, 150 if r >= 64 else 300, seed=r + f)
    res = dot(cfg, ops.a, None, ops.b, select_a=ops.sel_a, select_b=ops.sel_b)
    ref = reference(fa, fb or fa, r, f, ops.a, ops.b, ops.sel_a, ops.sel_b)
    bad = [i for i in range(ops.size) if int(res.y[i]) != ref[i]]
    assert not bad, [(i, hex(int(res.y[i])), hex(ref[i])) for i in bad[:5]]
    assert ops.size > 150
    if not cfg.specials:
        assert not res.nan.any() and not res.inf.any()


def test_reference_rounding_against_the_fpu():
    """fp32_of (this file) and fp32_bits (golden) against numpy's float64 -> float32 cast, which rounds to
    nearest even in hardware, on values exact in float64."""
    rng = np.random.default_rng(5)
    T = rng.integers(-(1 << 52), 1 << 52, 20_000) >> rng.integers(0, 52, 20_000)
    T[:100] = (1 << 24) + 1 + 2 * np.arange(100)  # ties at 24 bits
    exp = rng.integers(-200, 110, 20_000)
    exp[:100] = rng.integers(-180, -140, 100)
    with np.errstate(over="ignore"):
        want = np.ldexp(T.astype(np.float64), exp).astype(np.float32).view(np.uint32)
    want = np.where(T == 0, 0, want)  # -0 never: T = 0 is +0
    assert np.array_equal(fp32_bits(T, exp), want)
    for i in range(0, 20_000, 97):
        assert fp32_of(Fraction(int(T[i])) * Fraction(2) ** int(exp[i])) == int(want[i])


def test_exact_reference_is_the_exact_sum_rounded_once():
    for name, r in (("mx9", 64), ("mxfp8_e5m2", 32), ("fp8", 16), ("mxint8", 32)):
        cfg = DotConfig(name, r, 16)
        ops = _ops(cfg, 100, seed=9)
        ex = dot_exact(cfg, ops.a, None, ops.b, select_a=ops.sel_a, select_b=ops.sel_b)
        ref = reference(name, name, r, 256, ops.a, ops.b, ops.sel_a, ops.sel_b)  # f wide: nothing dropped...
        for i in range(ops.size):
            if ex.nan[i] or ex.inf[i]:
                assert int(ex.y[i]) == ref[i]
                continue
            assert int(ex.y[i]) == fp32_of(ex.fraction(i))
        # ... so where the window keeps every bit the reference and the exact sum agree
        keep = np.array([not (ex.nan[i] or ex.inf[i]) for i in range(ops.size)])
        assert keep.sum() > 50


def test_wide_windows_give_the_exact_sum_rounded_once():
    """With f large enough for the data's exponent spread, nothing is truncated: y == exact rounded once."""
    from fpforge.golden.dot import quantized_operands
    from fpforge.golden.qsnr import gaussian_vectors

    for name, r in (("mx9", 64), ("mx4", 64), ("mxfp8_e4m3", 64), ("mxint8", 32), ("e4m3", 64), ("fp8", 32)):
        cfg = DotConfig(name, r, 200)
        x = gaussian_vectors(500, r, 1)
        z = gaussian_vectors(500, r, 2)
        a, b = quantized_operands(cfg, x), quantized_operands(cfg, z, side="b")
        assert np.array_equal(dot(cfg, a, None, b).y, dot_exact(cfg, a, None, b).y)


def test_python_int_path_equals_int64_path(monkeypatch):
    cfg = DotConfig("mx9", 64, 32)
    ops = _ops(cfg, 500, seed=3)
    fast = dot(cfg, ops.a, None, ops.b)
    assert not cfg.wide and fast.sum.dtype == np.int64
    monkeypatch.setattr(DotConfig, "wide", property(lambda self: True))
    slow = dot(cfg, ops.a, None, ops.b)
    assert slow.sum.dtype == object
    assert np.array_equal(fast.y, slow.y) and np.array_equal(fast.exp, slow.exp)
    assert [int(v) for v in fast.sum] == [int(v) for v in slow.sum]


def test_truncation_toward_zero_is_sign_symmetric():
    """dot(-A, B) = -dot(A, B) bit for bit (zero stays +0): the window truncates magnitudes."""
    for name, r, f in (("mx9", 64, 16), ("mxint8", 32, 12), ("fp8", 16, 12), ("mxfp8_e4m3", 32, 16)):
        cfg = DotConfig(name, r, f)
        ops = _ops(cfg, 400, seed=4)
        a = ops.a
        if isinstance(a, BlockEncoding):
            fmt = cfg.a
            elem = np.asarray(a.elem).astype(np.int64)
            if isinstance(fmt, BlockFormat):
                neg = elem ^ (1 << fmt.m)
            elif fmt.is_int:
                neg = np.where(elem == 0x80, 0x80, (256 - elem) & 0xFF)  # -128 has no negation
            else:
                neg = elem ^ fmt.element.sign_mask
            na = BlockEncoding(fmt, a.scale, a.shift, neg.astype(a.elem.dtype))
            skip = (elem == 0x80).reshape(len(elem), -1).any(axis=1) if getattr(fmt, "is_int", False) else None
        else:
            na = np.asarray(a) ^ 0x80
            skip = None
        p = dot(cfg, a, None, ops.b, select_a=ops.sel_a, select_b=ops.sel_b)
        q = dot(cfg, na, None, ops.b, select_a=ops.sel_a, select_b=ops.sel_b)
        zero = (p.sum == 0) & ~p.nan & ~p.inf  # exact zero: +0 both ways
        ok = ~p.nan & ~zero
        if skip is not None:
            ok &= ~skip
            zero &= ~skip
        assert np.array_equal(q.y[ok], p.y[ok] ^ np.uint32(1 << 31))  # underflow keeps the sign
        assert np.array_equal(q.sum[ok & ~p.inf].astype(object), -p.sum[ok & ~p.inf].astype(object))
        assert np.all(q.y[zero] == 0) and np.all(p.y[zero] == 0) and zero.sum() > 5


def test_full_cancellation_is_exactly_plus_zero_and_raw_output_is_consistent():
    cfg = DotConfig("mx9", 64, 16)
    ops = directed_dot_operands(cfg, 1)
    res = dot(cfg, ops.a, None, ops.b)
    start = [i for i, t in ops.labels if t.startswith("full cancellation")][0]
    assert np.all(res.y[start : start + 8] == 0) and np.all(res.sum[start : start + 8] == 0)
    fin = ~res.nan & ~res.inf
    assert np.array_equal(fp32_bits(res.sum[fin], res.exp[fin]), res.y[fin])
    assert np.all(np.abs(res.sum.astype(np.int64)) < 2 ** (cfg.acc_bits - 1))
    assert res.exp.min() >= cfg.exp_min and res.exp.max() <= cfg.exp_max


def test_block_sum_bound_is_reached():
    """W is tight: the largest magnitudes at shift 0 make a block sum of exactly smax."""
    for name in ("mx9", "mx4", "bdr_m3_k8_d3_k4_d2", "mxint8"):
        cfg = DotConfig(name, get_format(name).k1, 64)
        ops = directed_dot_operands(cfg, 2)
        res = dot(cfg, ops.a, None, ops.b)
        start = [i for i, t in ops.labels if t.startswith("largest magnitudes")][0]
        S = res.sum[start : start + 4].astype(np.int64) >> (cfg.f - 1 - cfg.W)
        assert abs(int(S[0])) == cfg.smax or name == "mxint8"
        assert max(abs(int(s)) for s in S) <= cfg.smax
    assert DotConfig("mxint8", 32, 64).smax == 32 * 128 * 128


def test_scalar_fp8_baseline_and_selects():
    cfg = DotConfig("fp8", 4, 32)
    assert cfg.a is FP8 and cfg.k1 == 1 and cfg.nb == 4 and cfg.W == 8
    a = np.array([[0x38, 0x38, 0x00, 0x80]] * 4)  # e4m3: 1, 1, 0, -0 / e5m2: 0.5, 0.5, 0, -0
    b = np.array([[0x3C, 0xBC, 0x00, 0x00]] * 4)  # e4m3: 1.5, -1.5 / e5m2: 1, -1
    res = dot(cfg, a, None, b, select_a=[0, 1, 0, 1], select_b=[0, 0, 1, 1])
    assert res.value.tolist() == [0.0, 0.0, 0.0, 0.0]
    a[:, 1] = 0x30  # e4m3 0.5, e5m2 0.125
    res = dot(cfg, a, None, b, select_a=[0, 1, 0, 1], select_b=[0, 0, 1, 1])
    assert res.value.tolist() == [1.5 - 0.75, 0.75 - 0.1875, 1 - 0.5, 0.5 - 0.125]
    nan = dot(cfg, np.array([[0x7F, 0, 0, 0]]), None, np.array([[0x38, 0, 0, 0]]), select_a=[0], select_b=[0])
    assert nan.y[0] == QNAN  # E4M3 NaN
    inf0 = dot(cfg, np.array([[0x7C, 0, 0, 0]]), None, np.array([[0x00, 0, 0, 0]]), select_a=[1], select_b=[0])
    assert inf0.y[0] == QNAN  # E5M2 Inf x 0
    inf = dot(cfg, np.array([[0xFC, 0x7B, 0, 0]]), None, np.array([[0x38, 0x38, 0, 0]]), select_a=[1], select_b=[0])
    assert inf.y[0] == 0xFF800000  # -Inf plus a finite value


def test_ocp_nan_scale_gives_nan():
    cfg = DotConfig("mxint8", 64, 16)
    x = np.ones((3, 64), np.float32)
    a = encode_block("mxint8", x)
    a.scale[1, 1] = 0xFF
    b = encode_block("mxint8", x)
    res = dot(cfg, a, None, b)
    assert res.y.tolist() == [fp32_of(Fraction(64)), QNAN, fp32_of(Fraction(64))]
    assert res.nan.tolist() == [False, True, False]


def test_paper_example_mx9_window_drops_low_blocks():
    """Two mx9 blocks 40 binades apart at f = 16: the small block falls out of the window entirely."""
    cfg = DotConfig("mx9", 32, 16)
    x = np.concatenate([np.full(16, 1.0), np.full(16, 2.0**-40)]).astype(np.float32)[None]
    a = encode_block("mx9", x)
    b = encode_block("mx9", np.ones((1, 32), np.float32))
    assert dot(cfg, a, None, b).value[0] == 16.0
    assert dot(DotConfig("mx9", 32, 100), a, None, b).value[0] == np.float32(16 + 16 * 2.0**-40)


def test_operand_words_are_the_packed_blocks():
    rng = np.random.default_rng(1)
    for name, r in (("mx9", 64), ("bdr_m3_k8_d3_k4_d2", 24), ("mxfp4_e2m1", 64), ("mxint8", 32)):
        fmt = get_format(name)
        x = rng.standard_normal((5, r)).astype(np.float32)
        enc = encode_block(fmt, x)
        words = operand_words(fmt, enc)
        per_block = block_words(fmt, enc)
        nb = r // fmt.k1
        for v in range(5):
            want = sum(w << (fmt.block_bits * j) for j, w in enumerate(per_block[v * nb : (v + 1) * nb]))
            got = int.from_bytes(words[v].astype("<u8").tobytes(), "little")
            assert got == want
        back = from_operand_words(fmt, words, r)
        assert np.array_equal(back.elem, enc.elem) and np.array_equal(back.scale, enc.scale)
    codes = rng.integers(0, 256, (7, 16)).astype(np.uint64)
    words = operand_words("fp8", codes)
    assert int(words[0, 0]) == sum(int(c) << (8 * i) for i, c in enumerate(codes[0, :8]))
    assert np.array_equal(from_operand_words("fp8", words, 16), codes)


def test_packed_operands_are_accepted():
    from fpforge.golden import pack

    rng = np.random.default_rng(2)
    for name, r in (("mx9", 64), ("bdr_m3_k8_d3_k4_d2", 24), ("mxfp6_e2m3", 32)):
        cfg = DotConfig(name, r, 20)
        a = encode_block(name, rng.standard_normal((9, r)).astype(np.float32))
        b = encode_block(name, rng.standard_normal((9, r)).astype(np.float32))
        want = dot(cfg, a, None, b)
        got = dot(cfg, pack(name, a), None, pack(name, b))
        assert np.array_equal(got.y, want.y) and np.array_equal(got.sum, want.sum)
    codes = rng.integers(0, 256, (5, 16)).astype(np.uint8)
    cfg = DotConfig("e4m3", 16, 16)
    assert np.array_equal(dot(cfg, codes.tobytes(), None, codes.tobytes()).y, dot(cfg, codes, None, codes).y)
    with pytest.raises(ValueError, match="not a whole number of dot products"):
        dot(cfg, codes.tobytes()[:-1], None, codes.tobytes())


def test_error_sweep_improves_with_f():
    rows = error_sweep(("mx9", "e4m3"), (8, 16, 48), r=32, n_vectors=300)
    by = {(r["format"], r["f"]): r for r in rows}
    assert by[("mx9", 48)]["exact"] == 1.0 and by[("mx9", 8)]["exact"] < 0.5
    assert by[("mx9", 8)]["norm_max"] > by[("mx9", 16)]["norm_max"] > by[("mx9", 48)]["norm_max"]
    assert by[("e4m3", 48)]["exact"] > 0.99


@pytest.mark.parametrize(
    "args, message",
    [
        (("mx9", 20, 16), "r must be a positive multiple of k1 = 16 (mx9), not 20"),
        (("mx9", 32, 7), "must be an integer in 8..256, not 7"),
        (("mx9", 32, 257), "8..256, not 257"),
        (("mx9", 32, 16, "mxint8"), "must be of one family"),
        (("mx9", 32, 16, "msfp16"), "same block size k1 (and sub-block size k2)"),
        (("mxfp8_e4m3", 32, 16, "e4m3"), "must be of one family"),
        (("fp32", 4, 16), "cannot be a dot-product operand"),
        (("nope", 4, 16), "unknown dot-product operand format 'nope'"),
        (("uhp", 4, 16), "uhp is unsigned: scalar dot-product elements are signed formats"),
        (("binary8p3ue", 4, 16), "binary8p3ue is unsigned"),
    ],
)
def test_config_errors_name_the_rule(args, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        DotConfig(*args)


def test_operand_errors():
    cfg = DotConfig("mx9", 32, 16)
    enc = encode_block("mx9", np.ones((2, 32), np.float32))
    with pytest.raises(ValueError, match="r = 16 elements"):
        dot(DotConfig("mx9", 16, 16), enc, None, enc)
    with pytest.raises(TypeError, match="must be a BlockEncoding"):
        dot(cfg, np.zeros((2, 32)), None, enc)
    with pytest.raises(ValueError, match="encoded in 'mx6'"):
        dot(cfg, encode_block("mx6", np.ones((2, 32), np.float32)), None, enc)
    with pytest.raises(ValueError, match=r"select_a of fp8 must be integer codes in 0\.\.1 .*, not 2"):
        dot(DotConfig("fp8", 2, 16), np.zeros((1, 2), np.uint8), None, np.zeros((1, 2), np.uint8), select_a=[2])
    with pytest.raises(TypeError, match=r"operand A codes of fp8 must be integer codes in 0\.\.255"):
        dot(DotConfig("fp8", 2, 16), np.zeros((1, 2)), None, np.zeros((1, 2), np.uint8))
    assert dot("mx9", enc, "mx9", enc, f=16).y.shape == (2,)


def test_dot_operands_answer_the_datapaths_questions():
    """Issue 32 item 4: the datapath asks an operand what it can do (no switch on its family name). Each
    operand takes exactly one structure; the answers agree with its geometry."""
    from fpforge.golden.contract import BlockFormatLike
    from fpforge.golden.dot import operand_format
    from fpforge.golden.formats import REGISTRY

    names = [n for n, f in REGISTRY.items() if isinstance(f, BlockFormatLike)] + ["e4m3", "fp8", "hif8", "e2m1"]
    for name in names:
        side = operand_format(name).dot_side
        shapes = (side.product_shift, side.sub_block_guard, side.element_block_exponent)
        assert sum(shapes) == 1, (name, shapes)
        assert side.element_block_exponent == (side.fmt.k1 == 1), name  # scalar: one element per "block"
        assert side.sub_max == 0 or side.sub_block_guard, name  # only BDR has sub-block offsets
        if side.integer_elements:
            assert side.product_shift and side.eoff_max == 0, name  # INT elements: a product shift of 0
        if not side.product_shift:
            assert not side.integer_elements, name
    assert operand_format("mxint8").dot_side.integer_elements
    assert not operand_format("mxfp8_e4m3").dot_side.integer_elements
