"""Format summaries computed from the descriptors: the rows of the HiF8 paper's Table 4 and the data of
its Fig. 1 (significand precision against exponent)."""

from __future__ import annotations

import math

import numpy as np

from .formats import FloatFormat, TaperedFormat, get_format
from .minifloat import _classify, decode

__all__ = ["SUMMARY_ROWS", "code_class", "precision_by_exponent", "summary"]

SUMMARY_ROWS = ("Infinities", "NaN", "Zero", "Max positive normal", "Min positive normal",
                "Max positive denormal", "Min positive denormal", "Exponent", "Exponent (+denormal)")


def code_class(fmt, codes) -> np.ndarray:
    """Class of each code: ``nan``, ``inf``, ``zero``, ``subnormal`` (``denormal`` for tapered formats)
    or ``normal``."""
    fmt = get_format(fmt)
    codes = np.asarray(codes).astype(np.int64)
    vals = decode(fmt, codes).astype(np.float64)
    nan, inf = _classify(fmt, codes)
    tiny = np.abs(vals) < fmt.min_normal
    small = "denormal" if isinstance(fmt, TaperedFormat) else "subnormal"
    out = np.where(tiny, small, "normal").astype(object)
    out[vals == 0] = "zero"
    out[inf] = "inf"
    out[nan] = "nan"
    return out


def _power(v: float) -> str:
    """``2^e`` or ``m×2^e`` for an exact binary value."""
    m, e = math.frexp(v)
    m, e = m * 2, e - 1
    if m == 1:
        return f"2^{e}"
    k = -math.log2(2 - m)
    if k > 3 and k == int(k):
        return f"2^{e}×(2-2^-{int(k)})"
    return f"{m:g}×2^{e}"


def _pattern(fmt, code: int) -> str:
    return format(code, f"0{fmt.bits}b")


def summary(fmt) -> dict:
    """The Table 4 rows of ``fmt`` as ``{row: text}`` (values with their bit patterns)."""
    fmt = get_format(fmt)
    n = 1 << fmt.bits
    codes = np.arange(n)
    vals = decode(fmt, codes).astype(np.float64)
    cls = code_class(fmt, codes)
    pos = codes < (n >> 1)

    def pick(mask, which):
        idx = np.flatnonzero(mask & pos)
        if idx.size == 0:
            return None
        i = idx[np.argmax(vals[idx])] if which == "max" else idx[np.argmin(vals[idx])]
        return int(i)

    def entry(i):
        return "N/A" if i is None else f"{_power(vals[i])} ({_pattern(fmt, i)})"

    inf = pick(cls == "inf", "min")
    nan = np.flatnonzero(cls == "nan")
    zero = np.flatnonzero(cls == "zero")
    small = (cls == "subnormal") | (cls == "denormal")
    emin_all = math.frexp(fmt.min_subnormal)[1] - 1
    return {
        "Infinities": "N/A" if inf is None else f"±{_pattern(fmt, inf)[1:]}",
        "NaN": f"{_pattern(fmt, int(nan[0]))}" + (f" (+{nan.size - 1} more)" if nan.size > 1 else ""),
        "Zero": ", ".join(_pattern(fmt, int(z)) for z in zero),
        "Max positive normal": entry(pick(cls == "normal", "max")),
        "Min positive normal": entry(pick(cls == "normal", "min")),
        "Max positive denormal": entry(pick(small, "max")),
        "Min positive denormal": entry(pick(small, "min")),
        "Exponent": f"[{fmt.emin}, {fmt.emax}]",
        "Exponent (+denormal)": f"[{emin_all}, {fmt.emax}]",
    }


def precision_by_exponent(fmt):
    """``(exponents, bits)``: significand precision (hidden bit included) of the values at each exponent,
    denormals normalized (a subnormal with k significant bits counts k), as in the paper's Fig. 1."""
    fmt = get_format(fmt)
    if isinstance(fmt, TaperedFormat):
        exps = np.arange(fmt.dml_emin, fmt.emax + 1)
        return exps, np.array([fmt.mant_width(int(e)) + 1 for e in exps])
    assert isinstance(fmt, FloatFormat)
    sub = np.arange(fmt.emin - fmt.mbits, fmt.emin)
    exps = np.concatenate([sub, np.arange(fmt.emin, fmt.emax + 1)])
    bits = np.concatenate([sub - (fmt.emin - fmt.mbits) + 1, np.full(fmt.emax - fmt.emin + 1, fmt.precision)])
    return exps, bits
