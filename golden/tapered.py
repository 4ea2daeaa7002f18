"""Bit-exact conversion between the source formats and tapered formats (HiFloat8).

For a finite non-zero operand ``v`` (see ``docs/hif8.md`` for the reasoning):

1. ``E = floor(log2 |v|)``, exact (source subnormals included).
2. The quantum is ``2**qe`` with ``qe = E - w(E)``, ``w(E)`` the mantissa width HiF8 has at exponent ``E``
   (3, 2 or 1 bits for normals, 0 in the denormal binades 2^-22..2^-16, whose values are powers of two);
   below the smallest denormal the quantum stays ``2**-22``; an exponent above ``emax`` overflows
   whatever the rounding. ``s = |v| / 2**qe = q0 + d``.
3. ``q = q0 + up`` with ``up`` as for every format (``ta``, ``rne``, ``rtz``, ``sr``) or, for ``hr``, TA
   when ``|E| < 4`` and the simplified stochastic rounding of §3.2 otherwise: ``F`` = the top K discarded
   bits (``floor(d * 2**K)``), ``T`` = the 14 low source bits (FP32, K = 14) or ``(source LSB, 1)``
   (FP16/BF16, K = 2); round up when ``F >= T`` and ``d != 0``, or ``F >= T`` alone in the variant
   ``hif8_literal`` (``fmt.hr_literal``; the API's ``paper_literal=True``).
   The variant ``hif8_ascend`` (``compat="ascend"``: Huawei Ascend's conversions, issue 15) reads ``F >= T``
   literally too, and before rounding sends ``|v|`` below half the smallest denormal (2^-23) to zero and
   ``|v|`` from half-way between the largest value and the Inf slot (1.25 × 2^15) to overflow.
4. The result value ``q * 2**qe`` is exact in HiF8 unless it exceeds the largest finite value (2^15):
   that is overflow (the Inf code sits where 1.5 × 2^15 would be). The code is looked up by value.

Everything is vectorised over numpy arrays; float64 holds every intermediate exactly.
"""

from __future__ import annotations

import numpy as np

from .classify import classify
from .errors import FpforgeTypeError, FpforgeValueError, UnknownName
from .registry import Flag, get_format
from .rounding import round_up

__all__ = ["COMPAT_CHOICES", "HR_TA_BELOW", "ascend_limits", "encode_exact", "hr_threshold_bits", "value_table",
           "with_compat"]

#: ``compat`` values of a tapered format: fpforge's own semantics, or Huawei Ascend's (``docs/hif8.md``).
#: (Here, below :class:`~fpforge.golden.taperedformat.TaperedFormat`, whose methods read this module.)
COMPAT_CHOICES = ("default", "ascend")

#: Hybrid rounding uses TA while the source exponent satisfies ``|E| < HR_TA_BELOW`` (seed 000, eq. 3).
HR_TA_BELOW = 4

_TABLES: dict = {}


def hr_threshold_bits(src) -> int:
    """K, the width of HR's threshold/fraction: 14 for FP32 (SR14), 2 for FP16/BF16 (SR2)."""
    return 14 if src.bits == 32 else 2


def with_compat(fmt, compat):
    """``fmt``, or its ``compat`` variant (``compat="ascend"``: ``hif8_ascend``, a variant like any other:
    :mod:`fpforge.golden.registry`).

    ``None`` and ``"default"`` leave ``fmt`` as it is (``hif8_ascend`` stays Ascend-compatible).

    Raises
    ------
    ValueError
        An unknown ``compat`` (the message names the choices), or ``"ascend"`` for a format without
        such a variant.
    TypeError
        ``compat`` is neither None nor a string.
    """
    if compat is None:
        return fmt
    if not isinstance(compat, str):
        raise FpforgeTypeError(f"compat must be a name ({', '.join(COMPAT_CHOICES)}) or None, not {compat!r}")
    if compat == "default":
        return fmt
    if compat not in COMPAT_CHOICES:
        raise UnknownName(f"unknown compat {compat!r}; valid choices: {', '.join(COMPAT_CHOICES)}")
    fmt = get_format(fmt)
    if getattr(fmt, "compat", None) == compat:
        return fmt
    if compat not in getattr(fmt, "variants", ()):
        raise FpforgeValueError(f"compat={compat!r} applies to HiF8 (hif8), not {getattr(fmt, 'name', fmt)!r}")
    return fmt.variant(compat)


def ascend_limits(fmt):
    """``(flush_below, overflow_from)`` of Ascend's range checks: half the smallest denormal (2^-23) and the
    midpoint between the largest finite value and the Inf slot (1.25 × 2^15)."""
    return fmt.min_subnormal / 2, fmt.max_value + fmt.top_quantum / 2


def value_table(fmt) -> np.ndarray:
    """float64 value of every code, parsed field by field from the descriptor; NaN carries sign 1."""
    if fmt.name in _TABLES:
        return _TABLES[fmt.name]
    n = 1 << fmt.bits
    vals = np.full(n, np.nan)
    codes = np.arange(n)
    mag = codes & (fmt.sign_mask - 1)
    neg = codes >= fmt.sign_mask
    for code, width, d in fmt.dots:
        w = fmt.mant_width_of_dot(width, d)
        hit = (mag >> (fmt.bits - 1 - width)) == code
        em = (mag >> w) & ((1 << d) - 1)
        if d == 0:
            e = np.zeros(n, np.int64)
        else:
            m = (1 << (d - 1)) | (em & ((1 << (d - 1)) - 1))
            e = np.where(em >> (d - 1), -m, m)
        man = mag & ((1 << w) - 1)
        vals = np.where(hit, np.ldexp(1.0 + man / 2.0**w, e), vals)
    dml = (mag >> fmt.dml_bits) == fmt.dml[0]
    m_field = mag & ((1 << fmt.dml_bits) - 1)
    vals = np.where(dml & (m_field > 0), np.ldexp(1.0, m_field - fmt.dml_offset), vals)
    vals = np.where(dml & (m_field == 0), np.where(neg, np.nan, 0.0), vals)
    vals = np.where(mag == fmt.inf_code, np.inf, vals)
    vals = np.where(neg, -vals, vals)
    if fmt.compat == "ascend":  # Ascend decodes its NaN to +qNaN
        vals[fmt.nan_code()] = np.abs(vals[fmt.nan_code()])
    _TABLES[fmt.name] = vals
    return vals


def _lattice(fmt):
    """Sorted non-negative finite values and their codes, and w(E) over [dml_emin - 1, emax + 1]."""
    key = ("lattice", fmt.name)
    if key not in _TABLES:
        vals = value_table(fmt)[: fmt.sign_mask]
        ok = np.isfinite(vals)
        order = np.argsort(vals[ok], kind="stable")
        pv, pc = vals[ok][order], np.arange(fmt.sign_mask)[ok][order]
        lo, hi = fmt.dml_emin - 1, fmt.emax + 1
        widths = np.array([fmt.mant_width(e) if fmt.mant_width(e) is not None else -1
                           for e in range(lo, hi + 1)], np.int64)
        widths[0] = 0  # below the range: quantum 2**dml_emin (handled by clamping E)
        widths[-1] = widths[-2]  # above the range: quantum of the top binade
        _TABLES[key] = (pv, pc, lo, widths)
    return _TABLES[key]


def encode_exact(fmt, src, x, rounding, saturate, nan_to_zero, draws):
    """Codes and flags of ``x`` (a float32/float16/bfloat16 array) in ``fmt``.

    ``draws`` is the array of R-bit random draws for ``sr`` (with ``R`` as its second element:
    ``(rand, R)``), None otherwise.
    """
    shape = x.shape
    word = np.uint32 if src.bits == 32 else np.uint16
    bits = x.ravel().view(word).astype(np.int64)
    cls = classify(src, bits)
    sign, nan, inf, subnormal = cls.sign, cls.nan, cls.inf, cls.subnormal

    with np.errstate(invalid="ignore"):
        v = np.abs(x.ravel().astype(np.float64))
    nonzero = ~(nan | inf) & (v != 0)
    pv, pc, lo, widths = _lattice(fmt)
    with np.errstate(invalid="ignore", divide="ignore"):
        _, e = np.frexp(np.where(nonzero, v, 1.0))
    E = e.astype(np.int64) - 1
    Ec = np.clip(E, lo, fmt.emax + 1)
    # Above emax the quantum follows E (keeps s small); such operands overflow whatever the rounding.
    qe = np.where(E < fmt.dml_emin, fmt.dml_emin, np.where(E > fmt.emax, E - widths[-1], Ec - widths[Ec - lo]))
    s = np.ldexp(np.where(nonzero, v, 0.0), -qe)
    q0 = np.floor(s)
    d = s - q0
    q0 = q0.astype(np.int64)

    ascend = rounding == "hr" and fmt.compat == "ascend"
    if rounding == "hr":
        k = hr_threshold_bits(src)
        f = np.floor(np.ldexp(d, k)).astype(np.int64)
        t = bits & 0x3FFF if k == 14 else ((bits & 1) << 1) | 1
        sr_up = f >= t
        if not (fmt.hr_literal or ascend):
            sr_up &= d != 0
        up = np.where(np.abs(E) < HR_TA_BELOW, d >= 0.5, sr_up)
    else:
        up = round_up(q0, d, rounding, *(draws if rounding == "sr" else ()))
    if ascend:  # range checks before rounding: below 2^-23 -> 0 (q0 is 0 there), from 1.25 * 2^15 -> overflow
        flush_below, overflow_from = ascend_limits(fmt)
        up &= ~(v < flush_below)
    r = np.ldexp((q0 + up).astype(np.float64), qe)
    if ascend:
        r = np.where(nonzero & (v >= overflow_from), np.inf, r)
    # Inexact: the result differs from the operand. ``up`` with ``d == 0`` happens only under hr with
    # hr_literal (an exact value whose 14 low bits are zero rounds up), and is inexact too.
    inexact = nonzero & ((d != 0) | up)
    overflow = nonzero & (r > fmt.max_value)
    mag = pc[np.minimum(np.searchsorted(pv, np.minimum(r, fmt.max_value)), len(pv) - 1)]

    neg = sign == 1
    smask = fmt.sign_mask
    code = np.where(neg & (mag != 0), mag | smask, mag)
    if saturate or rounding == "rtz":
        ovf_code = fmt.max_code
    else:
        ovf_code = fmt.inf_code
    code = np.where(overflow, np.where(neg, ovf_code | smask, ovf_code), code)
    inf_code = fmt.max_code if saturate else fmt.inf_code
    code = np.where(inf, np.where(neg, inf_code | smask, inf_code), code)
    code = np.where(nan, 0 if nan_to_zero else fmt.nan_code(), code)

    flags = np.zeros(v.shape, np.int64)
    flags |= np.where(nan, int(Flag.INVALID), 0)
    flags |= np.where(subnormal, int(Flag.DENORMAL), 0)
    flags |= np.where(overflow, int(Flag.OVERFLOW), 0)
    flags |= np.where(inexact & ~overflow & (r < fmt.min_normal), int(Flag.UNDERFLOW), 0)
    flags |= np.where(inexact | overflow | (inf & saturate), int(Flag.INEXACT), 0)
    return code.astype(np.uint8).reshape(shape), flags.astype(np.uint8).reshape(shape)
