"""Tesla CFloat golden model: descriptors, the bias argument, directed semantics (the examples of
docs/cfloat.md, worked by hand from the guide), flags, and the two encoder paths.

The bulk comparison with an independent reference is tests/test_cfloat_oracle.py; here each expected code
is written out from the guide's definitions, so a reader can check it on paper.
"""

import ml_dtypes
import numpy as np
import pytest

from fpforge.golden import (
    decode,
    decode_bits,
    encode,
    encode_flags,
    encode_with_flags,
    get_format,
    list_formats,
    minifloat,
)
from fpforge.golden.formats import RUNTIME_BIASES, FloatFormat

INV, DEN, OVF, UNF, INX = 1, 2, 4, 8, 16


# -- descriptors --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, bits, ebits, mbits, span", [
    ("cfloat8_143", 8, 4, 3, (-62, 15)),  # the guide: "the entire exponent range [-62, 15]"
    ("cfloat8_152", 8, 5, 2, (-62, 31)),  # "[-62, 31]"
    ("shp", 16, 5, 10, (-62, 31)),
])
def test_runtime_bias_descriptors(name, bits, ebits, mbits, span):
    f = get_format(name)
    assert name in list_formats() and f.runtime_bias and f.bias is None
    assert (f.bits, f.ebits, f.mbits, f.signed, f.denormals) == (bits, ebits, mbits, True, "cfloat")
    assert (f.has_inf, f.num_high_nans, f.has_neg_zero, f.has_nan) == (False, 0, True, False)  # no Inf/NaN: clamps
    assert f.exponent_span == span and list(f.biases) == list(range(64)) == list(RUNTIME_BIASES)
    assert f.roundings[:2] == ("rne", "sr")  # the guide's two modes; rne is the default
    with pytest.raises(ValueError, match=rf"format '{name}' has a run-time bias: its emin depends on it"):
        f.emin


def test_limits_at_a_bias_follow_the_guide():
    f = get_format("cfloat8_143").at(0)  # the guide's example: E from 1 to 15 at bias 0
    assert (f.emin, f.emax, f.max_value, f.min_normal) == (1, 15, 1.875 * 2**15, 2.0)
    assert (f.min_subnormal, f.max_subnormal) == (2.0**-3, 0.875)  # 2^-bias × 0.001 .. 0.111
    f = get_format("cfloat8_143").at(63)
    assert (f.emin, f.emax) == (-62, -48)
    f = get_format("cfloat8_152").at(31)
    assert (f.emin, f.emax, f.max_subnormal) == (-30, 0, 0.75 * 2.0**-31)
    ieee = get_format("cfloat8_152").at(31).with_(denormals="ieee")
    assert (ieee.min_subnormal, ieee.max_subnormal) == (2.0**-32, 0.75 * 2.0**-30)


def test_uhp_descriptor():
    f = get_format("uhp")
    assert (f.bits, f.ebits, f.mbits, f.bias, f.signed, f.ftz) == (16, 6, 10, 31, False, True)
    assert (f.has_inf, f.num_high_nans) == (True, 1023)  # IEEE specials: the all-ones exponent binade
    assert f.sign_mask == 0 and not f.has_neg_zero and not f.has_subnormals
    assert f.inf_code == 0xFC00 and f.nan_code() == f.nan_code(True) == 0xFE00  # exponent 111111, 1000000000
    assert f.max_code == 0xFBFF and f.max_value == (2 - 2**-10) * 2**31 and f.min_normal == 2.0**-30
    assert f.min_subnormal == f.min_normal  # nothing smaller is delivered
    assert f.layout == "E6 M10, bias 31"


@pytest.mark.parametrize("kwargs, match", [
    (dict(bias=1.5), "bias must be an integer or None"),
    (dict(bias=None, nan="fnuz", signed=False), "unsigned format cannot use the fnuz NaN"),
    (dict(bias=3, denormals="half"), "denormals must be one of ieee, cfloat"),
    (dict(bias=3, ftz=True, denormals="cfloat"), "flush-to-zero format delivers no denormals"),
])
def test_descriptor_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        FloatFormat("x", 4, 3, **kwargs)


def test_unsigned_and_ftz_are_general_fields():
    """An unsigned E4M4 with IEEE specials: widths, masks and limits derived, no sign bit anywhere."""
    f = FloatFormat("u44", 4, 4, 7, signed=False)
    assert (f.bits, f.mag_mask, f.sign_mask, f.max_code) == (8, 0xFF, 0, 0xEF)
    assert f.nan_code() == 0xF8 and f.inf_code == 0xF0 and f.emax == 7
    assert decode(f, [0x10, 0xF0]).tolist() == [2.0**-6, np.inf]
    assert encode(f, np.float32([-1.0, 1.0])).tolist() == [0xF8, 0x70]


# -- the bias argument ------------------------------------------------------------------------------
X = np.float32([1.0, 3.0, 1e-5, -2.5])


@pytest.mark.parametrize("call", [
    lambda **k: encode("cfloat8_143", X, **k),
    lambda **k: encode_flags("shp", X, **k),
    lambda **k: decode("cfloat8_152", [1, 2, 3, 4], **k),
])
def test_bias_is_required_and_checked(call):
    with pytest.raises(ValueError, match=r"has a run-time bias: pass bias= an integer in 0\.\.63"):
        call()
    for bad in (64, -1):
        with pytest.raises(ValueError, match=r"must be an integer in 0\.\.63, not"):
            call(bias=bad)
    for bad in (2.0, True):  # never cast: a wrong type is a TypeError
        with pytest.raises(TypeError, match=r"must be an integer in 0\.\.63, not"):
            call(bias=bad)
    with pytest.raises(ValueError, match=r"must be integers in 0\.\.63 .*, not 64"):
        call(bias=np.array([1, 2, 64, 3]))
    with pytest.raises(TypeError, match=r"must be integers in 0\.\.63 .*, not an array of float64"):
        call(bias=np.array([1.0, 2.0, 3.0, 4.0]))
    with pytest.raises(ValueError, match=r"bias of shape \(3,\) does not broadcast to the operand shape \(4,\)"):
        call(bias=np.array([1, 2, 3]))


def test_fixed_bias_formats_still_reject_a_bias():
    with pytest.raises(ValueError, match="format 'uhp' has a fixed bias; bias must be None, not 31"):
        encode("uhp", X, bias=31)


def test_scalar_array_and_broadcast_biases_agree():
    x = np.random.default_rng(0).standard_normal((50, 8)).astype(np.float32) * 1e-3
    rows = np.arange(50)[:, None] % 64  # one bias per row, broadcast along the row
    per_row = encode("cfloat8_143", x, bias=rows)
    for r in (0, 17, 49):
        assert np.array_equal(per_row[r], encode("cfloat8_143", x[r], bias=r))
    assert np.array_equal(encode("cfloat8_143", x, bias=np.int8(12)), encode("cfloat8_143", x, bias=12))
    assert np.array_equal(encode("cfloat8_143", x, bias=np.full(x.shape, 12)), encode("cfloat8_143", x, bias=12))
    assert per_row.shape == x.shape and per_row.dtype == np.uint8
    assert encode("shp", np.float32(1.0), bias=15).shape == ()
    assert encode("shp", np.zeros(0, np.float32), bias=np.zeros(0, int)).shape == (0,)


def test_table_path_equals_exact_path_for_every_bias():
    """A scalar bias takes the memoised table of fmt.at(bias) for arrays of >= 65536 values; arrays of
    several biases take the exact path. Every BF16 pattern at 12 biases, both paths, codes and flags."""
    x = np.arange(1 << 16, dtype=np.uint16).view(ml_dtypes.bfloat16)
    biases = np.array([0, 1, 5, 13, 20, 31, 32, 40, 47, 55, 62, 63])
    for r in ("rne", "rtz"):
        table = [np.stack(encode_with_flags("cfloat8_152", x, rounding=r, bias=int(b))) for b in biases]
        bias = np.repeat(biases, x.size).reshape(len(biases), -1)
        exact = encode_with_flags("cfloat8_152", np.tile(x, len(biases)).reshape(len(biases), -1), rounding=r, bias=bias)
        assert np.array_equal(np.stack(table, axis=1), np.stack(exact))
    assert any(key[0].name == "cfloat8_152" and key[0].bias == 63 for key in minifloat._LUTS)


def test_ieee_denormals_option():
    assert encode("cfloat8_143", np.float32([2.0**-8]), bias=7).tolist() == [0x04]  # 0.100 × 2^-7 (guide)
    assert encode("cfloat8_143", np.float32([2.0**-8]), bias=7, ieee_denormals=True).tolist() == [0x02]  # 0.010 × 2^-6
    assert encode("cfloat8_143", np.float32([2.0**-7]), bias=7).tolist() == [0x07]  # 2^-bias lies in the gap
    for fmt in ("e4m3", "uhp", "hif8"):
        with pytest.raises(ValueError, match=r"ieee_denormals applies to .*cfloat8_143, cfloat8_152, shp\), not"):
            encode(fmt, X, ieee_denormals=True)
    with pytest.raises(ValueError, match="ieee_denormals applies"):
        decode("e5m2", [0], ieee_denormals=True)


# -- directed: the denormal gap (docs/cfloat.md), at bias 0 for cfloat8_143 ----------------------------
# Values: denormals k/8 (k = 1..7), so the largest is 0.875; the smallest normal is 2; the gap (0.875, 2)
# has width 1.125 and its midpoint is 1.4375 = 1.0111b (a tie: the smallest normal's code 0x08 is even).
GAP = [
    # x, rne, ta, rtz, flags(rne)
    (0.875, 0x07, 0x07, 0x07, 0),  # the largest denormal, exact
    (0.9, 0x07, 0x07, 0x07, UNF | INX),  # inside the gap, below 2^-bias = 1
    (0.9375, 0x07, 0x07, 0x07, UNF | INX),  # would round up to 1.0 at the denormal spacing: no such value
    (1.0, 0x07, 0x07, 0x07, UNF | INX),  # 2^-bias: the gap binade starts here
    (1.4375, 0x08, 0x08, 0x07, INX),  # the midpoint: ties to even (0x08) and away agree
    (1.4374999, 0x07, 0x07, 0x07, UNF | INX),
    (1.4375001, 0x08, 0x08, 0x07, INX),  # rounds to the smallest normal: not tiny, no underflow
    (1.99, 0x08, 0x08, 0x07, INX),
    (2.0, 0x08, 0x08, 0x08, 0),
]


@pytest.mark.parametrize("x, rne, ta, rtz, flags", GAP)
def test_the_denormal_gap_at_bias_0(x, rne, ta, rtz, flags):
    v = np.float32([x, -x])
    for r, want in (("rne", rne), ("ta", ta), ("rtz", rtz)):
        assert encode("cfloat8_143", v, rounding=r, bias=0).tolist() == [want, want | 0x80], r
    assert encode_flags("cfloat8_143", v, bias=0).tolist() == [flags, flags]


def test_the_gap_moves_with_the_bias():
    for b in (0, 1, 30, 63):
        mid = np.float32(1.4375 * 2.0**-b)
        assert encode("cfloat8_143", np.array([np.nextafter(mid, np.float32(0)), mid], np.float32),
                      bias=b).tolist() == [0x07, 0x08]
        # cfloat8_152: denormals k/4 × 2^-b, gap (0.75, 2) × 2^-b, midpoint 1.375 (0x04 even)
        mid = np.float32(1.375 * 2.0**-b)
        assert encode("cfloat8_152", np.array([np.nextafter(mid, np.float32(0)), mid], np.float32),
                      bias=b).tolist() == [0x03, 0x04]
    # SHP: largest denormal (1 - 2^-10) × 2^-b, midpoint (1.5 - 2^-11) × 2^-b
    mid = np.float32((1.5 - 2.0**-11) * 2.0**-20)
    assert encode("shp", np.array([np.nextafter(mid, np.float32(0)), mid], np.float32), bias=20).tolist() == [0x3FF, 0x400]


def test_sr_in_the_gap_uses_the_gap_width():
    """x = 1.3 at bias 0: d = (1.3 - 0.875) / 1.125 = 0.3777…; with R = 16, up iff rand >= 2^16 - floor(d·2^16)."""
    x = np.float32(1.3)
    d = (float(x) - 0.875) / 1.125
    k = int(d * 2**16)
    rand = np.array([2**16 - k - 1, 2**16 - k, 0, 2**16 - 1])
    got = encode("cfloat8_143", np.full(4, x), rounding="sr", rand=rand, bias=0)
    assert got.tolist() == [0x07, 0x08, 0x07, 0x08]


# -- directed: clamping and flags ----------------------------------------------------------------------
CLAMP = [
    # fmt, bias, x, code, flags
    ("cfloat8_143", 0, 61440.0, 0x7F, 0),  # max 1.111 × 2^15
    ("cfloat8_143", 0, 63487.0, 0x7F, INX),  # below max + half ulp (61440 + 2048)
    ("cfloat8_143", 0, 63488.0, 0x7F, OVF | INX),  # the tie rounds to the even 2^16 beyond max: overflow
    ("cfloat8_143", 0, 1e30, 0x7F, OVF | INX),
    ("cfloat8_143", 0, np.inf, 0x7F, INX),  # ±Inf clamps to ±max: inexact only (as saturation)
    ("cfloat8_143", 0, -np.inf, 0xFF, INX),
    ("cfloat8_143", 0, np.nan, 0x7F, INV),  # NaN: ±max with its sign, invalid only
    ("cfloat8_143", 0, -np.nan, 0xFF, INV),
    ("cfloat8_143", 0, -0.0, 0x80, 0),
    ("cfloat8_143", 0, 0.01, 0x00, UNF | INX),  # below half the smallest denormal 1/8
    ("cfloat8_143", 0, 1e-45, 0x00, DEN | UNF | INX),  # FP32 subnormal operand
    ("cfloat8_152", 63, 1.75 * 2.0**-32, 0x7F, 0),  # bias 63: max 1.11 × 2^-32
    ("shp", 0, 2.0**31 * (2 - 2**-10), 0x7FFF, 0),
    ("shp", 0, 2.0**32, 0x7FFF, OVF | INX),
]


@pytest.mark.parametrize("fmt, bias, x, code, flags", CLAMP)
def test_clamping_and_flags(fmt, bias, x, code, flags):
    c, f = encode_with_flags(fmt, np.float32([x]), bias=bias)
    assert (int(c[0]), int(f[0])) == (code, flags)


UHP = [
    # x, code, flags
    (1.0, 0x7C00, 0),  # 2^0: exponent field 31
    (-1.0, 0xFE00, INV),  # negative non-zero: canonical NaN
    (-0.0, 0x0000, 0),  # -0 is +0
    (-1e-45, 0xFE00, INV | DEN),  # a negative FP32 subnormal is non-zero too
    (1e-45, 0x0000, DEN | UNF | INX),  # flushed
    (np.inf, 0xFC00, 0),
    (-np.inf, 0xFE00, INV),
    (np.nan, 0xFE00, INV),
    (2.0**-30, 0x0400, 0),  # the smallest normal
    (2.0**-31, 0x0000, UNF | INX),  # a denormal result (exact!) is flushed: inexact, underflow
    (2.0**-30 * (1 - 2**-12), 0x0400, INX),  # rounds up to the smallest normal: kept
    (2.0**-30 * (1 - 2**-10), 0x0000, UNF | INX),  # rounds to the largest denormal: flushed
    (2.0**32, 0xFC00, OVF | INX),
]


@pytest.mark.parametrize("x, code, flags", UHP)
def test_uhp_semantics(x, code, flags):
    c, f = encode_with_flags("uhp", np.float32([x]))
    assert (int(c[0]), int(f[0])) == (code, flags)


def test_uhp_options():
    x = np.float32([-1.0, np.nan, 2.0**32, np.inf, 1.0])
    assert encode("uhp", x, nan_to_zero=True).tolist() == [0, 0, 0xFC00, 0xFC00, 0x7C00]
    assert encode("uhp", x, saturate=True).tolist() == [0xFE00, 0xFE00, 0xFBFF, 0xFBFF, 0x7C00]
    assert encode_flags("uhp", x, saturate=True).tolist() == [INV, INV, OVF | INX, INX, 0]
    assert encode("uhp", x, rounding="rtz").tolist() == [0xFE00, 0xFE00, 0xFBFF, 0xFC00, 0x7C00]


def test_decode_directed():
    assert decode("cfloat8_143", [0x01, 0x07, 0x08, 0x7F, 0xFF], bias=0).tolist() == [0.125, 0.875, 2, 61440, -61440]
    assert decode("cfloat8_143", [0x01, 0x08], bias=0, ieee_denormals=True).tolist() == [0.25, 2]
    assert decode("cfloat8_152", [0x01, 0x04, 0x7F], bias=63).tolist() == [2.0**-65, 2.0**-62, 1.75 * 2.0**-32]
    assert decode("shp", [0x3C00, 0x0001], bias=15).tolist() == [1.0, 2.0**-25]
    assert decode("uhp", [0x7C00, 0x0001, 0xFC00]).tolist() == [1.0, 0.0, np.inf]
    assert decode_bits("cfloat8_143", [0x88], "bf16", bias=3).tolist() == [0xBE80]  # -2^(1-3): 1 01111101 0000000
    with pytest.raises(ValueError, match=r"codes of uhp must be integer codes in 0\.\.65535"):
        decode("uhp", [1 << 16])
