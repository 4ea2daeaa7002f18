"""Bit-exact conversion between the source formats (FP32, FP16, BF16) and sign/exponent/mantissa formats.

The rules, for a finite non-zero operand ``v`` (see ``docs/semantics.md`` for the reasoning):

1. ``E = floor(log2 |v|)``; the target quantum is ``2**qe`` with ``qe = max(E, emin) - mbits``.
2. ``s = |v| / 2**qe`` splits into ``q0 = floor(s)`` and the discarded fraction ``d = s - q0`` in [0, 1).
3. The truncated magnitude code is ``(max(E - emin, 0) << mbits) + q0`` (q0 carries the hidden bit).
4. Add 1 to it (a carry out of the mantissa moves into the exponent field by itself) when
   ``rne``: d > 1/2, or d = 1/2 and the truncated code is odd (its LSB is q0's, or the exponent's when
   ``mbits = 0``); ``ta``: d >= 1/2; ``rtz``: never; ``sr``: ``floor(d * 2**R) + rand >= 2**R`` with
   ``rand`` the value's R-bit draw. The result overflowed when it exceeds the largest finite code.

Formats with the CFloat guide's denormals (``2**-bias * 0.m``, ``docs/cfloat.md``) use the quantum
``2**(-bias - mbits)`` below the normal range, and an operand strictly between the largest denormal ``lo``
and the smallest normal ``hi`` (the gap) rounds to one of those two with ``d = (v - lo) / (hi - lo)`` in
step 3 (``lo``'s significand is odd, so a tie goes to ``hi``). Flush-to-zero formats flush a result below
the smallest normal to zero; unsigned formats give the canonical NaN for negative non-zero operands.
A run-time bias may differ per element: ``emin`` and the denormal quantum are then arrays.

Everything is vectorised over numpy arrays; float64 holds every intermediate exactly.
"""

from __future__ import annotations

import numpy as np

from . import fastpath, rng, tapered
from .checks import as_bool, as_codes, as_int, as_seed, as_source
from .contract import BlockFormatLike, ScalarFormat
from .errors import FpforgeTypeError, FpforgeValueError
from .formats import RUNTIME_BIASES, SOURCES, FloatFormat, get_format, resolve_variant, source_of
from .minifloat_exact import (  # noqa: F401 - _TABLES: re-exported with the rest
    _TABLES,
    _TABLES_KEEP,
    MAX_TABLE_BITS,
    _code_values,
    code_dtype,
    encode_exact,
    value_table,
)
from .taperedformat import TaperedFormat

__all__ = ["MAX_TABLE_BITS", "code_dtype", "decode", "decode_bits", "encode", "encode_exact", "encode_flags",
           "encode_with_flags", "resolve_bias", "scalar_format", "value_table", "sr_draws"]


def _check_rounding(fmt, rounding):
    if not isinstance(rounding, str) or rounding not in fmt.roundings:
        raise FpforgeValueError(
            f"format {fmt.name!r} has no rounding {rounding!r}; valid choices: {', '.join(fmt.roundings)}"
        )


def resolve_bias(fmt, bias, shape):
    """Check ``bias`` against ``fmt`` and return ``(fmt, per_element_bias)``.

    A fixed-bias format takes no bias. A run-time-bias format needs one: a scalar (or an array holding
    one value) gives the fixed-bias descriptor ``fmt.at(bias)`` and None; an array of several biases,
    broadcast to ``shape``, is returned flattened (int64) with ``fmt`` unchanged.

    Raises
    ------
    ValueError
        Missing, non-integer or out-of-range bias (the message names 0..63), a bias for a fixed-bias
        format, or an array that does not broadcast to ``shape``.
    """
    array = isinstance(bias, (list, tuple)) or (isinstance(bias, np.ndarray) and bias.ndim > 0)
    if not getattr(fmt, "runtime_bias", False) or bias is None or not array:
        if isinstance(bias, np.ndarray):
            bias = bias.item() if bias.dtype.kind in "iu" else bias
        return fmt.at(bias), None
    b = as_codes(bias, 0, name=f"bias of {fmt.name!r}", hi=RUNTIME_BIASES.stop - 1, what="integers")
    try:
        b = np.broadcast_to(b, shape)
    except ValueError:
        raise FpforgeValueError(f"bias of shape {b.shape} does not broadcast to the operand shape "
                                f"{tuple(shape)}") from None
    if b.size and b.min() == b.max():
        return fmt.at(int(b.flat[0])), None
    return fmt, b.reshape(-1).astype(np.int64, copy=False)


def _check_rand(rand, n, rand_bits):
    """``rand`` flattened, checked: one integer draw per value, each in 0..2**rand_bits - 1."""
    rand = np.asarray(as_codes(rand, rand_bits, name=f"rand (draws of rand_bits={rand_bits})"))
    if rand.size != n:
        raise FpforgeValueError(f"rand must hold one draw per value ({n}), not {rand.size} (shape {rand.shape})")
    return rand.reshape(-1)


def sr_draws(n, *, seed, rand, rand_bits):
    rand_bits = as_int(rand_bits, "rand_bits (random bits per value)", 1, 32)
    if rand is not None:
        return _check_rand(rand, n, rand_bits).astype(np.int64)
    return rng.random_bits(0 if seed is None else seed, n, rand_bits).astype(np.int64)


def _scalar_format(fmt, what):
    """The scalar descriptor ``fmt`` names; a block format or anything else is refused, naming the way."""
    fmt = get_format(fmt)
    if not isinstance(fmt, ScalarFormat):
        name = getattr(fmt, "name", None)
        if isinstance(fmt, BlockFormatLike):
            raise FpforgeValueError(f"{what}() takes a scalar format; {name!r} is a block format "
                                    f"(use {what}_block)")
        raise FpforgeTypeError(f"{what}() takes a scalar format name or descriptor, not {fmt!r}")
    return fmt


def encode_with_flags(
    fmt,
    x,
    *,
    rounding: str | None = None,
    saturate: bool = False,
    nan_to_zero: bool = False,
    seed: int | None = None,
    bias=None,
    rand=None,
    rand_bits: int = rng.DEFAULT_RAND_BITS,
    paper_literal: bool = False,
    ieee_denormals: bool = False,
    compat: str | None = None,
):
    """Encode ``x`` into ``fmt``; return ``(codes, flags)``.

    Parameters
    ----------
    fmt : str or FloatFormat
        Target format.
    x : array of float32, float16 or ml_dtypes.bfloat16
        The dtype names the source format.
    rounding : str
        ``rne``, ``ta``, ``rtz``, ``sr`` or ``hr`` (one of the format's ``roundings``; the default ``None``
        means the format's first, ``rne`` for FP8 and ``ta`` for HiF8).
    saturate : bool
        Overflow and infinite operands give ±max instead of Inf/NaN (formats without Inf/NaN — CFloat8,
        SHP, OCP FP6/FP4 — always clamp).
    nan_to_zero : bool
        NaN operands — and, in an unsigned format (UHP), negative ones — encode as +0 (the invalid flag
        still records them).
    seed : int or None
        Seed of the generator for ``sr`` (None means 0). Draw ``i`` goes to the ``i``-th value in C order.
    bias : int or array of int
        Run-time-bias formats only (CFloat8, SHP), and required there: 0..63, a scalar or an integer
        array broadcastable to ``x`` (one bias per element).
    rand : array of int, optional
        Explicit R-bit draws for ``sr``, one per value (overrides ``seed``).
    rand_bits : int
        R, the random bits per value for ``sr``.
    paper_literal : bool
        HiF8 ``hr`` only: compare ``F14 >= T14`` literally, so that an exact value whose 14 low bits are
        zero rounds up (seed 000 §3.2 read to the letter); by default exact values stay exact.
    ieee_denormals : bool
        CFloat formats only: denormals ``2**(1 - bias) * 0.m`` (IEEE) instead of the guide's
        ``2**-bias * 0.m``.
    compat : str
        HiF8 only: ``"ascend"`` gives the bits of Huawei Ascend's conversions (the descriptor
        ``hif8_ascend``: ``hr`` compares ``F >= T`` literally, flushes ``|x| < 2^-23`` to zero and overflows
        from ``1.25 × 2^15``; every other mode is unchanged); ``"default"``/None: the format as named.

    Raises
    ------
    ValueError
        Unknown rounding for the format; a missing or bad bias; ``ieee_denormals`` for another format;
        an unknown ``compat``, or ``compat="ascend"`` for another format than HiF8.
    TypeError
        Source dtype is not float32/float16/bfloat16.
    """
    return _encode(fmt, x, (0, 1), rounding, saturate, nan_to_zero, seed, bias, rand, rand_bits, paper_literal,
                   ieee_denormals, compat)


def scalar_format(fmt, *, paper_literal=False, ieee_denormals=False, compat=None):
    """The scalar descriptor named by ``fmt`` with the variant sugar (``paper_literal``, ``ieee_denormals``,
    ``compat``) resolved (the API boundary).

    Raises
    ------
    FpforgeTypeError
        Not a scalar format.
    FpforgeValueError
        A flag the format has no variant for.
    """
    fmt = get_format(fmt)
    if not isinstance(fmt, ScalarFormat):
        raise FpforgeTypeError(f"encode() and decode() handle scalar formats, not {getattr(fmt, 'name', fmt)!r}")
    fmt = tapered.with_compat(fmt, compat)
    return resolve_variant(fmt, paper_literal=paper_literal, ieee_denormals=ieee_denormals)


def _encode(fmt, x, outputs, rounding=None, saturate=False, nan_to_zero=False, seed=None, bias=None, rand=None,
            rand_bits=rng.DEFAULT_RAND_BITS, paper_literal=False, ieee_denormals=False, compat=None):
    """:func:`encode_with_flags` returning only ``outputs`` (0: codes, 1: flags) — a table lookup
    gathers only what is asked for."""
    fmt = scalar_format(_scalar_format(fmt, "encode"), ieee_denormals=as_bool(ieee_denormals, "ieee_denormals"),
                        compat=compat)
    x = as_source(x)
    saturate, nan_to_zero = as_bool(saturate, "saturate"), as_bool(nan_to_zero, "nan_to_zero")
    paper_literal = as_bool(paper_literal, "paper_literal")
    seed = as_seed(seed)
    rand_bits = as_int(rand_bits, "rand_bits (random bits per value)", 1, 32)
    fmt, bias = resolve_bias(fmt, bias, x.shape)
    if rounding is None:
        rounding = fmt.roundings[0]
    _check_rounding(fmt, rounding)
    if paper_literal:
        if not (isinstance(fmt, TaperedFormat) and rounding == "hr"):
            raise FpforgeValueError("paper_literal applies to HiF8 hybrid rounding (rounding='hr') only")
        fmt = resolve_variant(fmt, paper_literal=True)
    if rand is not None and rounding != "sr":
        raise FpforgeValueError(f"rand (explicit draws) applies to stochastic rounding (rounding='sr'), not "
                                f"{rounding!r}")
    src = source_of(x)
    opts = (rounding, saturate, nan_to_zero)
    if fmt == SOURCES["fp32"] and rounding != "sr":  # every source value is an FP32 number
        return _encode_fp32(fmt, src, x, opts, outputs)
    if rounding != "sr" and x.size >= _LUT_MIN_SIZE and bias is None:
        lut = _lut(fmt, src, opts)
        if lut is not None:
            idx = _lut_index(src, x)
            return tuple(lut[k].take(idx) for k in outputs)
    if x.size >= _LUT_MIN_SIZE:  # the integer-domain encoders, where one applies
        result = fastpath.encode(fmt, src, x, opts, bias, seed=seed, rand=rand, rand_bits=rand_bits, exact=_exact,
                                 check=_check_rand)
        if result is not None:
            return tuple(result[k] for k in outputs)
    draws = None
    if rounding == "sr":
        draws = (sr_draws(x.size, seed=seed, rand=rand, rand_bits=rand_bits), rand_bits)
    result = _exact(fmt, src, x, opts, draws, bias)
    return tuple(result[k] for k in outputs)


def _encode_fp32(fmt, src, x, opts, outputs):
    """Into FP32 (a cast of the source, exact): a zero or a normal finite operand (normal in its source
    format) is its own value's bits with no flag; the rest (subnormal operands, Inf, NaN: flags, saturation,
    nan_to_zero) through the exact model."""
    v = x.reshape(-1).astype(np.float32)
    codes = v.view(np.uint32)
    flags = np.zeros(v.shape, np.uint8)
    a = np.abs(v)
    rest = np.flatnonzero(~((a >= np.float32(2.0 ** (1 - src.bias))) & (a <= np.float32(fmt.max_value)) | (v == 0)))
    if len(rest):
        c, f = _exact(fmt, src, x.reshape(-1)[rest], opts, None)
        codes[rest], flags[rest] = c, f
    return tuple((codes.reshape(x.shape), flags.reshape(x.shape))[k] for k in outputs)


def _exact(fmt, src, x, opts, draws, bias=None):
    """The exact model of the descriptor (``opts``: rounding, saturate, nan_to_zero); ``bias`` is None
    (fixed-bias ``fmt``) or the flattened per-element biases."""
    return fmt.encode_exact(src, x, *opts, draws, bias)


# -- memoised fast path ---------------------------------------------------------------------------
# For deterministic rounding the result depends on the operand only through its top bits and whether
# the rest is non-zero, as long as the round bit lies in the top bits. For 16-bit sources the table is
# indexed by the whole pattern. For FP32 it is indexed by the top 16 bits and one sticky bit, valid when
# at least 17 mantissa bits are discarded (round bit at position 16 or above); the table is filled by the
# exact model itself, so both paths give identical results (tests/test_golden.py checks this).
#
# A run-time-bias format with one bias for the whole array uses the table of ``fmt.at(bias)``; arrays of
# several biases take the exact path (tests/test_cfloat_golden.py checks both). At most ``_LUT_KEEP``
# tables are kept (the oldest is dropped first): a sweep over 64 biases must not hold 64 tables per mode.
# Size: a table has 2**16 (16-bit sources) or 2**17 (FP32) entries of a code (1-2 bytes) and a flag byte,
# at most 384 KiB; 256 of them at most 96 MiB.
_LUT_MIN_SIZE = 1 << 16
_LUT_KEEP = 256
_LUTS: dict = {}


def _lut(fmt, src, opts):
    key = (fmt, src.name, opts)
    if key not in _LUTS:
        if len(_LUTS) >= _LUT_KEEP:
            del _LUTS[next(iter(_LUTS))]
        if src.bits == 16:
            pats = np.arange(1 << 16, dtype=np.uint16).view(src.dtype)
        elif src.bits == 32 and src.mbits - fmt.mbits >= 17 and opts[0] != "hr":  # hr reads the low bits
            idx = np.arange(1 << 17, dtype=np.uint32)
            pats = ((idx >> 1) << 16 | (idx & 1)).view(np.float32)
        else:
            _LUTS[key] = None
            return None
        _LUTS[key] = _exact(fmt, src, pats, opts, None)
    return _LUTS[key]


def _lut_index(src, x):
    """Table index of each operand: the pattern (16-bit sources), or top 16 bits and a sticky bit."""
    if src.bits == 16:
        return x.view(np.uint16)
    b = x.view(np.uint32)
    sticky = b & np.uint32(0xFFFF)
    sticky += np.uint32(0xFFFF)  # bit 16 set iff the low half is non-zero
    sticky >>= np.uint32(16)
    idx = b >> np.uint32(15)
    idx &= np.uint32(0x1FFFE)
    idx |= sticky
    return idx


def encode(fmt, x, **kwargs):
    """Encode ``x`` into ``fmt`` and return the codes (see :func:`encode_with_flags`)."""
    return _encode(fmt, x, (0,), **kwargs)[0]


def encode_flags(fmt, x, **kwargs):
    """The flags of :func:`encode` (same arguments): bit 0 invalid, 1 denormal, 2 overflow, 3 underflow,
    4 inexact."""
    return _encode(fmt, x, (1,), **kwargs)[0]


def decode(fmt, codes, *, bias=None, ieee_denormals=False, compat=None) -> np.ndarray:
    """Exact values of ``codes`` as float32; NaN codes give a quiet NaN with the code's sign bit (HiF8 with
    ``compat="ascend"``: +qNaN, as Ascend decodes it; the source formats keep the NaN's payload, below).

    ``codes`` are integers (an integer array, a Python int or a list of ints) in ``0 .. 2**bits - 1``;
    the result has their shape. ``bias`` (required for run-time-bias formats, 0..63) is a scalar or an
    integer array broadcastable to ``codes``; ``ieee_denormals`` and ``compat`` as for :func:`encode_with_flags`.
    Denormal codes of a flush-to-zero format (UHP) decode to 0. Formats of up to ``MAX_TABLE_BITS``
    bits decode through a memoised table of every code. The source formats decode as numpy and ml_dtypes
    widen them, bit for bit (NaN payloads, signalling NaNs included): FP32 is a bit reinterpretation and
    BF16 a shift (both at memory speed), FP16 the exact widening.

    Raises
    ------
    TypeError
        ``codes`` are not integers (floats, bools, ...); ``fmt`` is not a scalar format.
    ValueError
        A code out of range; a missing or bad bias.
    """
    fmt = scalar_format(_scalar_format(fmt, "decode"), ieee_denormals=as_bool(ieee_denormals, "ieee_denormals"),
                        compat=compat)
    codes = as_codes(codes, fmt.bits, of=fmt.name)
    fmt, bias = resolve_bias(fmt, bias, codes.shape)
    if fmt == SOURCES["fp32"]:  # a bit reinterpretation: memory speed (a copy, never a view of the caller's)
        return codes.astype(np.uint32).view(np.float32)
    if fmt == SOURCES["bf16"]:  # the high half of an FP32 word
        return (codes.astype(np.uint32) << np.uint32(16)).view(np.float32)
    if bias is not None:  # per-element biases: one table row per bias
        return _bias_table(fmt)[bias, codes.reshape(-1)].reshape(codes.shape)
    if fmt.bits > MAX_TABLE_BITS:  # no 2**bits table
        return _code_values(fmt, codes.ravel().astype(np.int64)).astype(np.float32).reshape(codes.shape)
    return _f32_table(fmt)[codes]


_F32_TABLES: dict = {}


def _f32_table(fmt: FloatFormat) -> np.ndarray:
    """float32 value of every code of ``fmt`` (<= MAX_TABLE_BITS bits), memoised like :func:`value_table`.
    FP16 widens exactly as numpy's cast does: a NaN keeps its sign and payload (quiet bit included)."""
    table = _F32_TABLES.get(fmt)
    if table is None:
        if fmt == SOURCES["fp16"]:
            c = np.arange(1 << 16, dtype=np.uint32)
            table = c.astype(np.uint16).view(np.float16).astype(np.float32)
            nan = (c & 0x7C00 == 0x7C00) & (c & 0x3FF != 0)  # bit for bit, whatever the CPU's cast does to sNaNs
            table.view(np.uint32)[nan] = ((c & 0x8000) << 16 | 0x7F800000 | (c & 0x3FF) << 13)[nan]
        else:
            table = fmt.value_table().astype(np.float32)
        if len(_F32_TABLES) >= _TABLES_KEEP:
            del _F32_TABLES[next(iter(_F32_TABLES))]
        _F32_TABLES[fmt] = table
    return table


def _bias_table(fmt) -> np.ndarray:
    """``table[bias, code]``: float32 values of a run-time-bias format at every bias (64 x 2**bits)."""
    key = ("bias", fmt)
    table = _F32_TABLES.get(key)
    if table is None:
        table = np.stack([_f32_table(fmt.at(b)) for b in RUNTIME_BIASES])
        _F32_TABLES[key] = table
    return table


def decode_bits(fmt, codes, target="fp32", *, bias=None, ieee_denormals=False, compat=None) -> np.ndarray:
    """Decode into ``target`` (fp32, fp16 or bf16) bit patterns, as the RTL decoder delivers them.

    Every FP8 value is exact in all three targets; NaN becomes the target's canonical quiet NaN with
    the code's sign bit (HiF8 ``compat="ascend"``: positive). ``bias``, ``ieee_denormals`` and ``compat``
    as for :func:`decode`.
    """
    fmt = tapered.with_compat(_scalar_format(fmt, "decode_bits"), compat)
    tgt = _target(target)
    vals = decode(fmt, codes, bias=bias, ieee_denormals=ieee_denormals)
    if tgt == SOURCES["fp32"]:  # the values are FP32 numbers: their bits, a NaN made canonical (sign kept)
        bits = vals.view(np.uint32)
        return np.where(np.isnan(vals), bits & np.uint32(0x80000000) | np.uint32(0x7FC00000), bits).astype(np.uint32)
    return encode(tgt, vals, rounding="rne")


def _target(name):
    if not isinstance(name, str) or name not in SOURCES:
        raise FpforgeValueError(f"unknown target {name!r}; valid targets: {', '.join(SOURCES)}")
    return SOURCES[name]
