"""The registry contract: every registered format (``list_formats()``: sources, scalar formats, variants,
P3109, block formats) answers what the code relies on, checked from its own codes (as ml_dtypes tests every
dtype from one list). A format added to the registry is covered here with nothing else to write.

Scalar formats (at three biases for a run-time bias):

* decode∘encode is the identity on every finite code (16-bit formats: all codes; 32-bit: a sample);
* the classifier agrees with the decoded values (NaN, Inf, zero, subnormal below the smallest normal,
  normal between it and the largest finite value), and the descriptor's special codes decode to them;
* the limits equal the decoded extremes (largest finite value and its code, smallest normal, smallest
  positive value), and the value one top-binade step beyond the largest overflows;
* the RTL (encoder from FP16, default rounding and a run-time ``sat`` port; decoder to FP32) builds, passes
  ``verilator --lint-only -Wall``, and agrees with the golden model in Amaranth's simulator on every code
  (decoder) and on the directed corner cases (encoder, a sample, both saturation settings).

Block formats: unpack∘pack and from_block_words∘block_words are the identity, quantization is idempotent,
and the block units build (their Verilog is linted in test_lint.py and simulated in test_block_regress.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from fpforge.golden import (
    block_words,
    decode,
    decode_bits,
    encode_block,
    encode_with_flags,
    from_block_words,
    get_format,
    list_formats,
    pack,
    quantize,
    unpack,
)
from fpforge.golden.classify import classify
from fpforge.golden.contract import BlockFormatLike, ScalarFormat
from fpforge.golden.registry import Flag
from fpforge.hw import build_unit, to_verilog
from fpforge.sim.vectors import directed

from helpers import run_comb

SCALAR = [n for n in list_formats() if isinstance(get_format(n), ScalarFormat)]
BLOCK = [n for n in list_formats() if isinstance(get_format(n), BlockFormatLike)]
NARROW = [n for n in SCALAR if get_format(n).dtype is None]


def _concrete(name):
    """The fixed-bias descriptors to check: the format, or a run-time-bias format at three biases."""
    fmt = get_format(name)
    return [fmt.at(b) for b in (0, 7, 63)] if fmt.runtime_bias else [fmt]


def _codes(fmt):
    if fmt.bits <= 16:
        return np.arange(1 << fmt.bits, dtype=np.int64)
    rng = np.random.default_rng(fmt.bits)
    return np.concatenate([rng.integers(0, 1 << fmt.bits, 200_000), [0, fmt.max_code, fmt.sign_mask]])


def test_every_registered_name_is_a_descriptor_of_one_kind():
    assert SCALAR and BLOCK and set(SCALAR).isdisjoint(BLOCK) and set(SCALAR) | set(BLOCK) == set(list_formats())
    for name in list_formats():
        fmt = get_format(name)
        assert fmt.name == name and get_format(name.upper()) is fmt
        assert fmt.base.variant(fmt.variant_name) is fmt  # every variant is reachable from its base


@pytest.mark.parametrize("name", SCALAR)
def test_decode_encode_is_the_identity_on_every_finite_code(name):
    for fmt in _concrete(name):
        codes = _codes(fmt)
        cls = classify(fmt, codes)
        keep = ~cls.nan & ~cls.inf & ~(cls.subnormal & fmt.ftz)  # flushed codes read as zero
        vals = decode(fmt, codes[keep])
        got = encode_with_flags(fmt, vals, rounding=fmt.roundings[0])
        assert np.array_equal(got[0].astype(np.int64), codes[keep]), name
        assert not (got[1] & ~Flag.DENORMAL).any(), name  # exact (FP32-subnormal values raise only denormal)


@pytest.mark.parametrize("name", SCALAR)
def test_classes_and_special_codes_agree_with_the_decoded_values(name):
    for fmt in _concrete(name):
        codes = _codes(fmt)
        cls = classify(fmt, codes)
        v = np.abs(decode(fmt, codes).astype(np.float64))
        finite = ~cls.nan & ~cls.inf
        assert np.array_equal(cls.nan, np.isnan(v)) and np.array_equal(cls.inf, np.isinf(v))
        assert np.all(v[cls.zero] == 0) and not np.any(v[cls.normal] == 0)
        assert np.all(v[cls.normal] >= fmt.min_normal) and np.all(v[finite] <= fmt.max_value)
        if fmt.ftz:
            assert np.all(v[cls.subnormal] == 0)
        else:
            assert np.all((v[cls.subnormal] > 0) & (v[cls.subnormal] < fmt.min_normal))
        assert (cls.nan | cls.inf | cls.zero | cls.subnormal | cls.normal).all()
        assert int(cls.nan.sum() + cls.inf.sum() + cls.zero.sum() + cls.subnormal.sum() + cls.normal.sum()) == len(codes)
        for negative in (False, True):
            if fmt.has_nan:
                assert np.isnan(decode(fmt, [fmt.nan_code(negative)])[0])
        if fmt.has_inf:
            assert np.isinf(decode(fmt, [fmt.inf_code])[0]) and fmt.inf_code > 0
        if fmt.bits <= 16:
            assert fmt.has_nan == cls.nan.any() and fmt.has_inf == cls.inf.any()


@pytest.mark.parametrize("name", SCALAR)
def test_limits_equal_the_decoded_extremes(name):
    for fmt in _concrete(name):
        codes = _codes(fmt)
        cls = classify(fmt, codes)
        v = decode(fmt, codes).astype(np.float64)
        finite = ~cls.nan & ~cls.inf & (v > 0)
        assert v[finite].max() == fmt.max_value == decode(fmt, [fmt.max_code])[0]
        if fmt.bits <= 16:
            assert v[finite].min() == fmt.min_subnormal
            assert v[cls.normal & (v > 0)].min() == fmt.min_normal
        beyond = np.float32(fmt.max_value + fmt.top_quantum)
        if np.isfinite(beyond) and beyond == fmt.max_value + fmt.top_quantum:
            flags = encode_with_flags(fmt, np.float32([beyond]), rounding="rtz")[1]
            assert flags[0] & Flag.OVERFLOW, name


def _rtl_cases(fmt):
    """(encoder stimulus as FP16 patterns, decoder codes) for a short simulation."""
    f = fmt.at(7) if fmt.runtime_bias else fmt
    stim = directed(f, "fp16")
    rng = np.random.default_rng(len(stim))
    stim = stim if len(stim) <= 300 else np.sort(rng.choice(stim, 300, replace=False))
    codes = np.arange(1 << fmt.bits) if fmt.bits <= 8 else np.sort(rng.choice(1 << fmt.bits, 300, replace=False))
    return stim.astype(np.uint64), codes


@pytest.mark.parametrize("name", NARROW)
def test_rtl_builds_lints_and_matches_the_golden_model(name, tmp_path):
    from fpforge.sim.run import available_simulators, lint

    fmt = get_format(name)
    enc = build_unit("encoder", format=name, source="fp16", saturate="runtime")
    dec = build_unit("decoder", format=name, target="fp32")
    reason = available_simulators()["verilator"]
    if not reason:
        for unit in (enc, dec):
            path = tmp_path / "unit.v"
            path.write_text(to_verilog(unit))
            result = lint(path)
            assert result.returncode == 0 and "%Warning" not in result.stderr, result.stderr
    stim, codes = _rtl_cases(fmt)
    bias = {"bias": 7} if fmt.runtime_bias else {}
    x = stim.astype(np.uint16).view(np.float16)
    for sat in (0, 1):
        want = encode_with_flags(fmt, x, rounding=fmt.roundings[0], saturate=bool(sat), **bias)
        got = run_comb(enc, {"a": stim, "sat": sat, **bias}, ("y", "flags"))
        assert got["y"] == want[0].tolist() and got["flags"] == want[1].tolist(), name
    want = decode_bits(fmt, codes, "fp32", **bias)
    got = run_comb(dec, {"a": codes, **bias}, ("y",))
    assert got["y"] == want.tolist(), name
    if reason:
        pytest.skip(f"verilator not available for the lint step: {reason}")


@pytest.mark.parametrize("name", BLOCK)
def test_block_layout_round_trips_and_units_build(name):
    fmt = get_format(name)
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((4, 2 * fmt.k1)) * 2.0 ** rng.integers(-20, 20, (4, 1))).astype(np.float32)
    enc = encode_block(fmt, x)
    for back in (unpack(fmt, pack(fmt, enc), x.shape), from_block_words(fmt, block_words(fmt, enc), x.shape)):
        for field in ("scale", "shift", "elem"):
            assert np.array_equal(getattr(back, field), getattr(enc, field)), (name, field)
    q = quantize(fmt, x)
    assert np.array_equal(quantize(fmt, q.astype(np.float32)), q)
    build_unit("block-encoder", format=name)
    build_unit("block-decoder", format=name)
