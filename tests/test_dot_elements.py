"""HiF8 and CFloat8 (run-time bias) as dot-product elements, golden side (issue 16): each descriptor's
``dot_fields`` against its own decoder on every code (and bias), the pipeline against a reference written here
from the definitions of docs/dot.md — element values from ``decode`` as Fractions, the exponent offsets from
those values and the formats' limits, the window from the significand bound, truncation toward zero, one FP32
rounding — the exact reference against Fraction sums, the bias as an exact power-of-two scale, the derived
widths, and ``error_sweep`` on the new elements. (The RTL side: test_dot_hw.py, test_dot_regress.py.)"""

import math
from fractions import Fraction

import numpy as np
import pytest
from test_dot_golden import INF, QNAN, fp32_of

from fpforge.golden import decode, get_format, list_formats
from fpforge.golden.contract import ScalarFormat
from fpforge.golden.dot import DotConfig, ScalarSet, dot, dot_exact, error_sweep, operand_format
from fpforge.golden.taperedformat import TaperedFormat
from fpforge.sim.vectors import concat_dot_operands, directed_dot_operands, random_dot_operands
from fpforge.sim.vectors.dot import bias_kwargs

__all__: list[str] = []


def _elements():
    """Every narrow scalar format a dot product takes (signed, denormals delivered)."""
    out = []
    for n in list_formats():
        f = get_format(n)
        if isinstance(f, ScalarFormat) and f.dtype is None and f.signed and not f.ftz:
            out.append(n)
    return out


ELEMENTS = _elements()


def test_the_new_elements_are_accepted():
    for name in ("hif8", "hif8_ascend", "cfloat8_143", "cfloat8_152", "cfloat8_143_ieee", "e4m3", "e2m1"):
        assert name in ELEMENTS
        assert isinstance(operand_format(name), ScalarSet)
    assert operand_format("cfloat8_143").bias_bits == 6 and operand_format("hif8").bias_bits == 0


@pytest.mark.parametrize("name", ELEMENTS)
def test_dot_fields_are_the_decoded_values(name):
    """sig * 2**(eoff + dot_lsb) is the code's value from the format's own decoder, for every code (and the
    biases 0, 1, 37 and 63); offsets lie in 0..dot_eoff_max, significands below 2**(mbits + 1)."""
    el = get_format(name)
    codes = np.arange(1 << el.bits)
    if el.bits > 8:  # (SHP: 2**16 codes) a sample, the largest finite codes and the top of each sign included
        top = np.array([el.max_code, el.max_code | el.sign_mask, el.mag_mask, el.mag_mask | el.sign_mask, 1, 0])
        codes = np.unique(np.concatenate([np.random.default_rng(0).integers(0, 1 << el.bits, 3000), top]))
    seen_max = 0
    for bias in ((0, 1, 37, 63) if el.runtime_bias else (None,)):
        want = decode(el, codes, bias=bias).astype(np.float64)
        sign, sig, eoff, nan, inf = el.dot_fields(codes, bias)
        assert np.array_equal(nan, np.isnan(want)) and np.array_equal(inf, np.isinf(want))
        fin = ~nan & ~inf
        assert (sig[fin] >= 0).all() and (sig[fin] < 1 << (el.mbits + 1)).all()
        assert (eoff[fin] >= 0).all() and (eoff[fin] <= el.dot_eoff_max).all()
        for k in np.nonzero(fin)[0]:
            got = Fraction(int(sig[k])) * Fraction(2) ** (int(eoff[k]) + el.dot_lsb) * (-1) ** int(sign[k])
            assert got == Fraction(float(want[k])) or (got == 0 and want[k] == 0), (name, bias, hex(codes[k]))
        seen_max = max(seen_max, int(eoff[fin & (sig != 0)].max()))
    if el.runtime_bias or isinstance(el, TaperedFormat):
        assert seen_max == el.dot_eoff_max  # the bound is reached (at bias 0)


# -- the independent reference ------------------------------------------------------------------------------
def _floor_exponent(el, bias):
    """Exponent of the hidden bit of the smallest significand that carries one: IEEE denormals sit at emin,
    the CFloat guide's one binade lower; HiF8's denormals are powers of two (no floor)."""
    if isinstance(el, TaperedFormat):
        return -math.inf
    b = el.bias if bias is None else bias
    return (1 - b) if el.denormals == "ieee" else -b


def _lowest(el):
    """The smallest hidden-bit exponent over every bias."""
    if isinstance(el, TaperedFormat):
        return el.dml_emin
    return min(_floor_exponent(el, b) for b in (el.biases if el.runtime_bias else (None,)))


def _side(fmt):
    """(common mantissa bits M, common LSB exponent L, largest significand) of a scalar operand."""
    M = max(f.mbits for f in fmt.formats)
    L = min(_lowest(f) - M for f in fmt.formats)
    return M, L, max((2 ** (f.mbits + 1) - 1) << (M - f.mbits) for f in fmt.formats)


def _offset(v, el, bias, M, L):
    """The exponent offset of a finite non-zero value from its binade and the format's floor."""
    q = abs(Fraction(float(v)))
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    return max(e, _floor_exponent(el, bias)) - M - L


def reference(cfg, A, B, sel_a, sel_b, bias_a, bias_b):
    """FP32 bits of the pipeline per dot product, from the definitions."""
    Ma, La, ma = _side(cfg.a)
    Mb, Lb, mb = _side(cfg.b)
    W = (ma * mb).bit_length()
    c, f = La + Lb, cfg.f
    out = []
    for v in range(len(A)):
        ea, eb = cfg.a.formats[int(sel_a[v])], cfg.b.formats[int(sel_b[v])]
        ba = int(bias_a[v]) if ea.runtime_bias else None
        bb = int(bias_b[v]) if eb.runtime_bias else None
        va = decode(ea, np.array([int(x) for x in A[v]]), bias=ba).astype(np.float64)
        vb = decode(eb, np.array([int(x) for x in B[v]]), bias=bb).astype(np.float64)
        prods = [float(x) * float(y) for x, y in zip(va, vb)]
        if any(math.isnan(p) for p in prods) or (math.inf in prods and -math.inf in prods):
            out.append(QNAN)
            continue
        if math.inf in prods or -math.inf in prods:
            out.append(INF if math.inf in prods else INF | 1 << 31)
            continue
        vals, xs = [], []
        for x, y in zip(va, vb):
            s = Fraction(float(x)) * Fraction(float(y))
            vals.append(s)
            xs.append(_offset(x, ea, ba, Ma, La) + _offset(y, eb, bb, Mb, Lb) if s != 0 else 0)
        lsb = Fraction(2) ** (max(xs) + c + W - (f - 1))
        out.append(fp32_of(sum(math.trunc(s / lsb) for s in vals) * lsb))
    return out


def _ops(cfg, n_random, seed):
    return concat_dot_operands(cfg, [directed_dot_operands(cfg, seed), random_dot_operands(cfg, n_random, seed + 1)])


CONFIGS = [
    ("hif8", None, 16, 16), ("hif8", None, 16, 24), ("hif8", None, 4, 60),
    ("cfloat8_143", None, 8, 24), ("cfloat8_152", None, 16, 32), ("cfloat8_143_ieee", None, 8, 16),
    ("hif8", "e4m3", 16, 20), ("e5m2", "hif8", 8, 12), ("cfloat8_143", "hif8", 8, 16),
    ("e4m3", "cfloat8_152", 8, 24), ("cfloat8_152", "cfloat8_143", 4, 200),
]


@pytest.mark.parametrize("fa, fb, r, f", CONFIGS, ids=[f"{a}x{b or a}-r{r}-f{f}" for a, b, r, f in CONFIGS])
def test_pipeline_matches_the_reference_from_the_definitions(fa, fb, r, f):
    cfg = DotConfig(fa, r, f, fb)
    ops = _ops(cfg, 200, seed=r + f)
    res = dot(cfg, ops.a, None, ops.b, select_a=ops.sel_a, select_b=ops.sel_b, **bias_kwargs(cfg, ops))
    ref = reference(cfg, ops.a, ops.b, ops.sel_a, ops.sel_b, ops.bias_a, ops.bias_b)
    bad = [i for i in range(ops.size) if int(res.y[i]) != ref[i]]
    assert not bad, [(i, hex(int(res.y[i])), hex(ref[i])) for i in bad[:5]]
    finite = ~res.nan & ~res.inf
    assert finite.sum() > 150 and (res.y[finite] != 0).sum() > 100
    if cfg.a.bias_bits:
        assert {0, 63} <= set(ops.bias_a.tolist())


def test_exact_reference_is_the_fraction_sum_rounded_once():
    for fa, fb in (("hif8", None), ("cfloat8_143", None), ("cfloat8_152", "hif8"), ("hif8", "e4m3")):
        cfg = DotConfig(fa, 8, 16, fb)
        ops = _ops(cfg, 100, seed=3)
        kw = bias_kwargs(cfg, ops)
        ex = dot_exact(cfg, ops.a, None, ops.b, **kw)
        for i in range(ops.size):
            ba = int(ops.bias_a[i]) if cfg.a.bias_bits else None
            bb = int(ops.bias_b[i]) if cfg.b.bias_bits else None
            va = decode(cfg.a.formats[0], np.asarray(ops.a[i]), bias=ba).astype(np.float64)
            vb = decode(cfg.b.formats[0], np.asarray(ops.b[i]), bias=bb).astype(np.float64)
            if ex.nan[i] or ex.inf[i]:
                with np.errstate(invalid="ignore"):
                    assert not np.isfinite(va * vb).all()
                continue
            total = sum((Fraction(float(x)) * Fraction(float(y)) for x, y in zip(va, vb)), Fraction(0))
            assert ex.fraction(i) == total
            assert int(ex.y[i]) == fp32_of(total)


def test_wide_windows_give_the_exact_sum_rounded_once():
    """f >= f_exact (which covers every bias): the pipeline is the exact sum rounded once, for raw codes."""
    rng = np.random.default_rng(5)
    for fa, fb in (("hif8", None), ("cfloat8_143", None), ("cfloat8_152", "e4m3"), ("hif8", "cfloat8_143")):
        cfg0 = DotConfig(fa, 8, 8, fb)
        cfg = DotConfig(fa, 8, min(cfg0.f_exact, 256), fb)
        assert cfg.f_exact <= 256
        a = rng.integers(0, 256, (3000, 8))
        b = rng.integers(0, 256, (3000, 8))
        kw = {k: rng.integers(0, 64, 3000) for k, s in (("bias_a", cfg.a), ("bias_b", cfg.b)) if s.bias_bits}
        assert np.array_equal(dot(cfg, a, None, b, **kw).y, dot_exact(cfg, a, None, b, **kw).y)


def test_the_bias_is_an_exact_power_of_two_scale():
    """At biases (ba, bb) the raw sum is the one at (0, 0) and the exponent is lower by ba + bb: the window
    moves with the elements."""
    cfg = DotConfig("cfloat8_143", 16, 20, "cfloat8_152")
    rng = np.random.default_rng(2)
    a = rng.integers(0, 256, (500, 16))
    b = rng.integers(0, 256, (500, 16))
    ba, bb = rng.integers(0, 64, 500), rng.integers(0, 64, 500)
    r0 = dot(cfg, a, None, b, bias_a=0, bias_b=0)
    r1 = dot(cfg, a, None, b, bias_a=ba, bias_b=bb)
    nz = r0.sum != 0
    assert nz.sum() > 400
    assert np.array_equal(r1.sum, r0.sum) and np.array_equal(r1.exp[nz], r0.exp[nz] - ba[nz] - bb[nz])


def test_widths_cover_every_bias():
    cfg = DotConfig("cfloat8_143", 16, 24)
    # offsets: exponent field 0..15 plus 63 - bias; the LSB of a significand at bias 63 is 2^-66
    assert (cfg.sa.eoff_max, cfg.sa.lsb, cfg.c, cfg.x_max) == (15 + 63, -66, -132, 156)
    assert cfg.exp_min == cfg.c + cfg.W - 23 and cfg.exp_max == 156 + cfg.c + cfg.W - 23
    h = DotConfig("hif8", 16, 24)
    assert (h.sa.eoff_max, h.sa.lsb, h.W) == (15 + 22, -25, 8)  # 2^-22 .. 2^15, significands of 4 bits
    mixed = DotConfig("hif8", 16, 24, "e4m3")
    assert mixed.c == -25 + (-6 - 3) and mixed.x_max == 37 + 14


def test_bias_arguments_are_checked():
    cfg = DotConfig("cfloat8_143", 4, 16, "hif8")
    codes = np.zeros((2, 4), np.uint8)
    assert dot(cfg, codes, None, codes, bias_a=[3, 4]).y.tolist() == [0, 0]
    with pytest.raises(ValueError, match="pass bias_a="):
        dot(cfg, codes, None, codes)
    with pytest.raises(ValueError, match="hif8 has a fixed bias"):
        dot(cfg, codes, None, codes, bias_a=1, bias_b=1)
    with pytest.raises(ValueError, match="0..63"):
        dot(cfg, codes, None, codes, bias_a=-1)
    with pytest.raises(TypeError, match="bias_a"):
        dot(cfg, codes, None, codes, bias_a=np.float32(3))
    with pytest.raises(ValueError, match="does not broadcast"):
        dot(cfg, codes, None, codes, bias_a=[1, 2, 3])


def test_error_sweep_takes_the_new_elements():
    rows = error_sweep(("hif8", "cfloat8_143", "cfloat8_152"), (16, 200), r=16, n_vectors=200, seed=1)
    assert [r["format"] for r in rows] == ["hif8", "hif8", "cfloat8_143", "cfloat8_143", "cfloat8_152",
                                           "cfloat8_152"]
    for r in rows:
        assert 0 <= r["norm_max"] < 2**-8
        if r["f"] >= r["f_exact"]:
            assert r["exact"] == 1.0
