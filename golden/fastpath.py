"""Integer-domain encoders: the exact model's codes and flags at tens of millions of values per second.

The exact model (``minifloat._encode_exact``, ``tapered.encode_exact``) works in float64 and stays the
reference. This module reproduces it bit for bit from the source bits alone, for the paths the memoised
table of ``minifloat`` cannot serve: stochastic rounding (``sr``), HiF8 hybrid rounding (``hr``) from
FP32, a run-time bias given per value (CFloat8, SHP), and FP32 into formats with more than six mantissa
bits (SHP, UHP, FP16/BF16 as targets).

How (FP32 operands; FP16/BF16 ones are widened to FP32 bits first, exactly):

* **Class.** An operand's result depends on its sign, exponent field, the top ``P`` mantissa bits and
  whether the other ``23 - P`` bits are all zero (the sticky bit) — plus, for ``sr`` and ``hr``, one
  decision ``up`` (round up or not) that reads the low bits. ``P = mbits + 1`` holds the round bit (the
  deterministic modes, HR's TA branch); ``sr`` needs ``P = mbits``. Below the target's normal range the
  quantum only grows, so the same ``P`` bits still fix the truncated value.
* **Table.** One entry per class (and per ``up``), filled by running the exact model on representatives
  of the class: its result holds for every member (tests check it on every FP16/BF16 pattern and millions
  of FP32 ones). For ``sr``/``hr`` an entry packs both results, the down one and the up one, with the
  number ``nd`` of discarded bits at that exponent: ``D = floor(d · 2^32)``, the discarded fraction as a
  32-bit integer, is then ``(sig << 32 >> nd) mod 2^32``.
* **Decision.** ``sr``: ``floor(d · 2^R) + rand >= 2^R`` is the carry out of ``D + (rand << (32 - R))``.
  ``hr`` (SR14): ``F14 >= T14`` is ``D >> 18 >= (bits & 0x3FFF)``; the table's TA-branch entries ignore it.
  The CFloat guide's denormal gap (spacing not a power of two) is decided in float64 for the few operands
  in it: ``up`` iff ``v >= lo + (2^R - rand) · (hi - lo) / 2^R``, exact in float64.
* **Run-time bias per value.** Encoding ``v`` with bias ``b`` is encoding ``v · 2^b`` with bias 0 (every
  limit scales by ``2^-b``): the exponent field of a normal operand gets ``b`` added (clamped at 254, deep
  in the overflow range of bias 0), and the bias-0 table serves every bias. Zeros and FP32 subnormals round
  the same way at every bias (below half the smallest denormal even at bias 63).

Memory: every table is at most ``2^(12 + mbits)`` entries of 2, 4 or 8 bytes — 64–128 KiB for the 8-bit
formats, 8 MiB for the 10-bit mantissas (SHP, UHP, FP16 as a target). Tables are kept up to
``TABLE_BYTES`` in total (64 MiB; the oldest go first); building one costs one exact-model run over its
representatives (a few ms for 8-bit formats, ~0.5 s for SHP), so a table is built only for at least a
quarter as many operands as it has representatives (or when it exists already).
"""

from __future__ import annotations

import numpy as np

from . import rng
from .errors import FpforgeValueError
from .formats import SOURCES, FloatFormat, TaperedFormat

__all__ = ["CHUNK", "TABLE_BYTES", "Draws", "encode", "encode_fast", "fast_path", "table_bytes"]

#: Operands processed per step (scratch arrays stay in the L2 cache).
CHUNK = 1 << 15

#: Upper limit of the memory all fast-path tables hold together.
TABLE_BYTES = 64 << 20

_TABLES: dict = {}
# Layout of a uint64 entry of an sr/hr table: bits 0-23 the down result, 24-47 the up result (each
# ``code | flags << 16``), bit 55 the hidden bit of the class's significand (where ``sig << 32`` has it),
# bits 56-62 ``nd`` (0..64), bit 63 the gap marker (the class lies in the CFloat guide's denormal gap: its
# ``entry >> 56`` is then >= 128, so the shift by it gives D = 0, and the decision is made apart).
_UP_SHIFT = 24
_HID = np.uint64(1 << 55)
_ND_SHIFT = np.uint64(56)
_GAP = np.uint64(1 << 63)
_M32 = np.uint64(0xFFFFFFFF)


def table_bytes() -> int:
    """Bytes held by the fast-path tables now."""
    return sum(t.nbytes for t in _TABLES.values())


def _remember(key, table):
    while _TABLES and table_bytes() + table.nbytes > TABLE_BYTES:
        del _TABLES[next(iter(_TABLES))]
    _TABLES[key] = table
    return table


def fast_path(fmt, src, rounding, per_value_bias: bool) -> str | None:
    """Which fast path encodes ``src`` into ``fmt`` with ``rounding`` (``"sr"``, ``"hr"`` or ``"det"``), or
    None when the exact model must (or the memoised table of ``minifloat`` will) do it."""
    if isinstance(fmt, TaperedFormat):
        if fmt.mbits > 8:
            return None
    elif not isinstance(fmt, FloatFormat) or fmt.mbits > 10 or fmt.ebits > 8:
        return None
    elif fmt.mbits == 0 and not fmt.runtime_bias and fmt.subnormal_exp <= -126:  # (binary8p1u*) the sr
        return None  # classes mis-round FP32/BF16 subnormal operands there (found by test_p3109_golden)
    if rounding == "sr":
        return "sr"
    if rounding == "hr":
        return "hr" if src.bits == 32 else None  # 16-bit sources: minifloat's pattern table
    if per_value_bias:
        return "det"
    if src.bits == 32 and src.mbits - fmt.mbits < 17:  # minifloat's table needs 17 discarded bits
        return "det"
    return None


def encode(fmt, src, x, opts, bias=None, *, seed, rand, rand_bits, exact, check):
    """``(codes, flags)`` through the fast path that serves this encode, or None (see :func:`fast_path`).

    ``fmt`` is the fixed-bias descriptor, or the run-time-bias one with ``bias`` the flattened per-value
    biases; ``exact`` the exact model and ``check`` the ``rand`` validator of ``minifloat``.
    """
    path = fast_path(fmt, src, opts[0], bias is not None)
    if path is None:
        return None
    table_fmt = fmt if bias is None else fmt.at(0)
    if (table_fmt, opts, path) not in _TABLES and x.size < _representatives(table_fmt, path) // 4:
        return None  # building the table would cost more than the exact model on these few operands
    draws = None
    if path == "sr":
        if not 1 <= rand_bits <= 32:
            raise FpforgeValueError(f"random bits per value must be in 1..32, not {rand_bits!r}")
        draws = Draws(x.size, seed=seed, rand=rand, rand_bits=rand_bits, blocks=rng.state_blocks, check=check)
    return encode_fast(table_fmt, src, x, opts, path=path, exact=exact, src32=SOURCES["fp32"], bias=bias,
                       draws=draws)


def _representatives(fmt, path) -> int:
    """Operands the exact model encodes to build the table of ``path``: one or two per class."""
    return (1 << (10 + _class_bits(fmt, path))) * (1 if path == "det" else 2)


# -- per-exponent facts -------------------------------------------------------------------------------
def _quantum_exponent(fmt, E: int) -> int:
    """``qe``: the target quantum is ``2**qe`` for an operand of exponent ``E`` (the exact model's rule)."""
    if isinstance(fmt, TaperedFormat):
        if E < fmt.dml_emin:
            return fmt.dml_emin
        if E > fmt.emax:
            return E - fmt.mant_width(fmt.emax)
        return E - fmt.mant_width(E)
    return (E if E >= fmt.emin else fmt.subnormal_exp) - fmt.mbits


def _discarded_bits(fmt) -> np.ndarray:
    """``nd`` per FP32 exponent field: bits of the 24-bit significand below the target quantum."""
    nd = np.empty(256, np.int64)
    for ef in range(256):
        lsb = max(ef, 1) - 150  # exponent of the significand's last bit
        # A subnormal's own exponent is below every target's range: any E < -126 has the same quantum.
        E = ef - 127 if ef else -127
        nd[ef] = _quantum_exponent(fmt, min(E, 254 - 127)) - lsb
    return np.clip(nd, 0, 64)


def _gap(fmt):
    """``(lo, hi)``: the CFloat guide's gap between the largest denormal and the smallest normal, or None."""
    if not isinstance(fmt, FloatFormat) or not fmt.has_subnormals or fmt.subnormal_exp >= fmt.emin:
        return None
    return fmt.max_subnormal, fmt.min_normal


# -- tables --------------------------------------------------------------------------------------------
def _pack(code, flags, fmt):
    """code | flags << width: uint16 for 8-bit codes, uint32 for 16-bit ones."""
    if fmt.bits <= 8:
        return code.astype(np.uint16) | (flags.astype(np.uint16) << np.uint16(8))
    return code.astype(np.uint32) | (flags.astype(np.uint32) << np.uint32(16))


def _reps(P, low):
    """Representatives of every class: ``(class >> 1) << (23 - P)`` with the low bits ``low`` (an int, or
    an array per class) where the sticky bit is set and zero where it is not."""
    c = np.arange(1 << (10 + P), dtype=np.uint32)
    top = (c >> np.uint32(1)) << np.uint32(23 - P)
    sticky = (c & np.uint32(1)).astype(bool)
    return np.where(sticky, top | np.uint32(low), top).astype(np.uint32)


def _class_bits(fmt, path) -> int:
    return fmt.mbits + (0 if path == "sr" else 1)


def _det_table(fmt, src32, opts, exact):
    """Deterministic modes: entry = packed result per class (any member of a class gives it)."""
    P = _class_bits(fmt, "det")
    reps = _reps(P, 1).view(np.float32)
    code, flags = exact(fmt, src32, reps, opts, None)
    return _pack(code, flags, fmt)


def _updown_table(fmt, src32, opts, exact, path):
    """``sr``/``hr``: one uint64 entry per class (layout above)."""
    P = _class_bits(fmt, path)
    L = 23 - P
    if path == "sr":
        # down: no draw rounds up; up: the largest fraction of the class with the largest draw (its up-result
        # is every member's; a class where even that stays down never rounds up).
        down_reps, up_reps = _reps(P, 1), _reps(P, (1 << L) - 1)
        n = len(down_reps)
        dr = (np.zeros(n, np.int64), 32)
        ur = (np.full(n, (1 << 32) - 1, np.int64), 32)
    else:
        # hr: members whose F14 >= T14 (T14 = 0: the top free bit alone) and F14 < T14 (T14 = 0x3FFF, the
        # free bits above it zero, so F14 has a zero where T14 has a one); needs L >= 15.
        if L < 15:
            raise ValueError(  # an internal table's precondition
                f"hr fast path needs at least 15 free bits per class, not {L}")  # not user input: a table bug
        down_reps, up_reps = _reps(P, 0x3FFF), _reps(P, 1 << (L - 1))
        dr = ur = None
    cd, fd = exact(fmt, src32, down_reps.view(np.float32), opts, dr)
    cu, fu = exact(fmt, src32, up_reps.view(np.float32), opts, ur)
    u64 = np.uint64
    entry = (cd.astype(u64) | (fd.astype(u64) << u64(16))
             | (cu.astype(u64) << u64(_UP_SHIFT)) | (fu.astype(u64) << u64(_UP_SHIFT + 16)))
    ef = (down_reps >> np.uint32(23)) & np.uint32(0xFF)
    entry |= _discarded_bits(fmt)[ef].astype(u64) << _ND_SHIFT
    entry |= np.where(ef != 0, _HID, u64(0))
    gap = _gap(fmt)
    if gap is not None and path == "sr":
        lo, hi = gap
        with np.errstate(invalid="ignore"):  # NaN classes (never in the gap)
            base = np.abs((down_reps & np.uint32(~((1 << L) - 1) & 0xFFFFFFFF)).view(np.float32).astype(np.float64))
        sticky = (np.arange(len(down_reps)) & 1).astype(bool)
        # Every member of a class with the sticky bit lies strictly between base and the next class.
        in_gap = np.where(sticky, (base >= lo) & (base < hi), (base > lo) & (base < hi))
        in_gap &= (ef != 0) & (ef != 255)
        entry |= np.where(in_gap, _GAP, u64(0))
    return entry


def _table(fmt, src32, opts, exact, path):
    key = (fmt, opts, path)
    table = _TABLES.get(key)
    if table is None:
        build = _det_table if path == "det" else _updown_table
        args = (fmt, src32, opts, exact) + (() if path == "det" else (path,))
        table = _remember(key, build(*args))
    return table


# -- operands ------------------------------------------------------------------------------------------
class Draws:
    """The ``sr`` draws, handed out chunk by chunk, left-aligned in uint32 (``rand << (32 - R)``).

    From an explicit array ``rand`` (checked by ``check(rand, n, R)``), or streamed from the generator's
    states for ``seed`` (``rng.state_blocks``: never the whole array at once).
    """

    def __init__(self, n, *, seed=None, rand=None, rand_bits=16, blocks=None, check=None):
        self.bits = rand_bits
        self._mask = np.uint32((0xFFFFFFFF << (32 - rand_bits)) & 0xFFFFFFFF)
        self._rand = None if rand is None else check(rand, n, rand_bits)
        self._blocks = None if rand is not None else blocks(0 if seed is None else seed, n)
        self._block, self._at, self._next = np.empty(0, np.uint32), 0, 0

    def take(self, s, e, out):
        """Write the draws of operands ``s .. e - 1`` into ``out`` (chunks must come in order)."""
        if self._rand is not None:
            np.left_shift(self._rand[s:e], 32 - self.bits, out=out, casting="unsafe")
            return out
        assert s == self._next, "draws are streamed in order"  # not user input: the chunk loops go in order
        done = 0
        while done < e - s:
            if self._at == len(self._block):
                self._block, self._at = next(self._blocks), 0
            k = min(e - s - done, len(self._block) - self._at)
            np.bitwise_and(self._block[self._at : self._at + k], self._mask, out=out[done : done + k])
            self._at += k
            done += k
        self._next = e
        return out


def _widen(src, chunk, out, flags):
    """FP32 patterns of a chunk of operands into ``out`` (exact for FP16/BF16), and for FP16 the mask
    ``flags`` (uint8) of its subnormal operands' denormal flag (they are normal in FP32)."""
    if src.bits == 32:
        return chunk.view(np.uint32), None
    p = chunk.view(np.uint16)
    if src.ebits == 8:  # BF16: the top half of an FP32 pattern
        np.left_shift(p, np.uint32(16), out=out, casting="unsafe")
        return out, None
    with np.errstate(invalid="ignore"):
        out.view(np.float32)[:] = chunk
    # subnormal: magnitude - 1 < 2^mbits - 1 (a zero magnitude wraps to 0xFFFF)
    mag = np.bitwise_and(p, np.uint16(0x7FFF))
    mag -= np.uint16(1)
    np.less(mag, np.uint16((1 << src.mbits) - 1), out=flags.view(bool))
    flags <<= np.uint8(1)  # Flag.DENORMAL
    return out, flags


def _bias_caps():
    """Largest bias each FP32 exponent field may take (0 for zeros/subnormals and Inf/NaN)."""
    ef = np.arange(256, dtype=np.uint32)
    return np.where((ef >= 1) & (ef <= 254), 254 - ef, 0).astype(np.uint32)


_CAPS = _bias_caps()


def encode_fast(fmt, src, x, opts, *, path, exact, src32, bias=None, draws=None):
    """``(codes, flags)`` of ``x`` (float32/float16/bfloat16 array) in ``fmt``, equal to the exact model's.

    Parameters
    ----------
    fmt : FloatFormat or TaperedFormat
        Fixed-bias target descriptor (a run-time-bias format's ``at(0)`` when ``bias`` is an array).
    src : FloatFormat
        The source format of ``x``.
    opts : tuple
        ``(rounding, saturate, nan_to_zero)`` as the exact model takes them (the variant is in ``fmt``).
    path : str
        ``"sr"``, ``"hr"`` or ``"det"`` (:func:`fast_path`).
    exact : callable
        ``exact(fmt, src, x, opts, draws)``: the exact model, used to fill the tables.
    src32 : FloatFormat
        The FP32 descriptor (tables are built for FP32 operands).
    bias : array of int, optional
        Per-value biases (flattened), ``fmt`` being the bias-0 descriptor.
    draws : Draws, optional
        ``sr``: the draws.
    """
    table = _table(fmt, src32, opts, exact, path)
    if bias is not None:
        bias = bias.astype(np.uint32)
    flat = x.reshape(-1)
    n = flat.size
    codes = np.empty(n, np.uint16 if fmt.bits > 8 else np.uint8)
    flags = np.empty(n, np.uint8)
    P = _class_bits(fmt, path)
    sh = np.uint32(23 - P)
    low = np.uint32((1 << (23 - P)) - 1)
    gap = _gap(fmt) if path == "sr" else None
    c = min(CHUNK, max(n, 1))
    wide32, t32, r32 = np.empty(c, np.uint32), np.empty(c, np.uint32), np.empty(c, np.uint32)
    ii, jj = np.empty(c, np.intp), np.empty(c, np.intp)
    e64, y64, z64 = np.empty(c, np.uint64), np.empty(c, np.uint64), np.empty(c, np.uint64)
    marked, sub8 = np.empty(c, bool), np.empty(c, np.uint8)
    for s in range(0, n, CHUNK):
        e = min(s + CHUNK, n)
        k = e - s
        bb, sub16 = _widen(src, flat[s:e], wide32[:k], sub8[:k])
        i, j, t = ii[:k], jj[:k], t32[:k]
        # class index 2 * (bits >> (23 - P)) + sticky, as (bits >> sh) + ((bits + low) >> sh)
        np.add(bb, low, out=i, dtype=np.intp)  # (no wrap at the top patterns)
        i >>= sh
        np.right_shift(bb, sh, out=j)
        i += j
        if bias is not None:  # v * 2^bias with bias 0: add the bias to a normal operand's exponent field
            np.right_shift(bb, np.uint32(23), out=t)
            t &= np.uint32(0xFF)
            np.take(_CAPS, t, out=t, mode="wrap")
            np.minimum(t, bias[s:e], out=t)
            np.left_shift(t, np.uint32(P + 1), out=j)
            i += j
        cs, fs = codes[s:e], flags[s:e]
        if path == "det":
            ent = table.take(i, mode="wrap")
            np.copyto(cs, ent, casting="unsafe")
            np.right_shift(ent, 8 if fmt.bits <= 8 else 16, out=fs, casting="unsafe")
        else:
            ee, yy, zz = e64[:k], y64[:k], z64[:k]
            np.take(table, i, out=ee, mode="wrap")
            # D = floor(d * 2^32): the significand's bits below the quantum, left-aligned in 32 bits
            np.bitwise_and(bb, np.uint32(0x7FFFFF), out=zz, casting="unsafe")
            zz <<= np.uint64(32)
            np.bitwise_and(ee, _HID, out=yy)
            yy |= zz
            np.right_shift(ee, _ND_SHIFT, out=zz)
            yy >>= zz
            yy &= _M32
            if path == "sr":  # round up on the carry out of D + draw
                rr = draws.take(s, e, r32[:k])
                yy += rr
                yy >>= np.uint64(32)
                if gap is not None:
                    np.greater_equal(ee, _GAP, out=marked[:k])
                    if marked[:k].any():
                        _gap_decisions(gap, np.flatnonzero(marked[:k]), bb, t if bias is not None else None,
                                       rr, draws.bits, yy)
            else:  # hr (SR14): F14 = D >> 18 against T14 = the 14 low source bits
                yy >>= np.uint64(18)
                np.bitwise_and(bb, np.uint32(0x3FFF), out=zz, casting="unsafe")
                np.greater_equal(yy, zz, out=yy, casting="unsafe")
            yy *= np.uint64(_UP_SHIFT)
            ee >>= yy
            np.copyto(cs, ee, casting="unsafe")
            np.right_shift(ee, np.uint64(16), out=fs, casting="unsafe")
        if sub16 is not None:
            fs |= sub16
    return codes.reshape(x.shape), flags.reshape(x.shape)


def _gap_decisions(gap, where, bb, shift, rr, rand_bits, up):
    """Set ``up`` for a chunk's operands ``where`` in the CFloat guide's denormal gap ``(lo, hi)`` (spacing
    not a power of two): ``v >= lo + (2^R - rand) (hi - lo) / 2^R``, exact in float64, with ``v`` the
    operand scaled by ``2^shift`` (its per-value bias) when there is one. ``rr``: the left-aligned draws."""
    lo, hi = gap
    v = np.abs(bb[where].view(np.float32).astype(np.float64))
    if shift is not None:
        v *= _POW2.take(shift[where])
    r = (rr[where] >> np.uint32(32 - rand_bits)).astype(np.float64)
    up[where] = v >= lo + (2.0**rand_bits - r) * np.ldexp(hi - lo, -rand_bits)


_POW2 = np.ldexp(1.0, np.arange(256))  # 2^shift for the per-value bias shifts (at most 254)
