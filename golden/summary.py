"""Format summaries computed from the descriptors: the rows of the HiF8 paper's Table 4 and the data of
its Fig. 1 (significand precision against exponent).

Nothing here is a per-format constant: codes come from the descriptor's own properties (``max_code``,
``inf_code``, ``nan_code``, ``encode_normal``, ...), values from its limits (``max_value``, ``min_normal``,
...), so the rows hold for any format the registry gains. Codes are never enumerated, so 32-bit formats
work too; the tests check every row of every format of up to 16 bits against the golden decoder.
"""

from __future__ import annotations

import math

import numpy as np

from .classify import classify
from .contract import ScalarFormat
from .errors import FpforgeTypeError, FpforgeValueError
from .formats import get_format, resolve_variant

__all__ = ["SUMMARY_ROWS", "bias_ranges", "code_class", "code_fields", "precision_by_exponent", "summary",
           "summary_table"]


def _concrete(fmt, bias=None, ieee_denormals=False):
    """The fixed-bias descriptor the rows are read from (``bias`` for a run-time-bias format)."""
    return resolve_variant(fmt, ieee_denormals=ieee_denormals).at(bias)

#: Row names of :func:`summary`, in the order of the paper's Table 4.
SUMMARY_ROWS = ("Infinities", "NaN", "Zero", "Max positive normal", "Min positive normal",
                "Max positive denormal", "Min positive denormal", "Exponent", "Exponent (+denormal)")


def code_class(fmt, codes) -> np.ndarray:
    """Class of each code (:func:`fpforge.golden.classify.classify`): ``nan``, ``inf``, ``zero``,
    ``normal``, and ``subnormal`` (``flushed`` in a flush-to-zero format, where it reads as 0; ``denormal``
    for a tapered format's denormal prefix, as its document names them). The class does not depend on a
    run-time bias."""
    fmt = get_format(fmt)
    return classify(fmt, codes).names(fmt.subnormal_name)


def code_fields(fmt, code: int) -> tuple[list[str], str]:
    """The bit fields of one code, most significant first, and what they mean (the descriptor's
    ``code_fields``: ``[S, E, M]`` and ``"E=<unbiased exponent>"`` for a sign/exponent/mantissa format,
    ``[S, dot, Em, M]`` or ``[S, prefix, M]`` for HiF8)."""
    return get_format(fmt).code_fields(code)


def _pattern(fmt, code: int, sign: str | None = None) -> str:
    """The code's bits grouped by field (``0 11 0111 0``); ``sign`` replaces the sign bit (``±``)."""
    fields, _ = code_fields(fmt, code)
    if sign is not None and fmt.signed:
        fields[0] = sign
    return " ".join(f for f in fields if f)


def _power(v: float, below: bool = False) -> str:
    """An exact binary value as ``2^e``, ``m×2^e``, or, for long significands ``2 - 2^-k``,
    ``2^e×(2-2^-k)`` — written ``2^(e+1)×(1-2^-(k+1))`` when ``below`` (a subnormal), as Table 4 does."""
    m, e = math.frexp(v)
    m, e = m * 2, e - 1
    if m == 1:
        return f"2^{e}"
    k = -math.log2(2 - m)
    if k > 3 and k == int(k):
        return f"2^{e + 1}×(1-2^-{int(k) + 1})" if below else f"2^{e}×(2-2^-{int(k)})"
    text = f"{m:g}"
    return f"{text if float(text) == m else repr(m)}×2^{e}"


def _entry(fmt, code, value, below=False) -> str:
    return "N/A" if code is None else f"{_power(value, below)} ({_pattern(fmt, code)})"


def _nan_pattern(fmt) -> str:
    code = fmt.nan_code(negative=True)
    if code is None:  # no NaN at all (OCP FP6/FP4, CFloat8)
        return "N/A"
    if fmt.has_inf and fmt.mbits and fmt.num_high_nans == (1 << fmt.mbits) - 1:
        # every non-zero mantissa under the all-ones exponent (IEEE)
        return f"{'± ' if fmt.signed else ''}{code_fields(fmt, code)[0][1]} M≠0"
    if fmt.num_high_nans == 1:  # S.1…1.1…1, both signs (OCP E4M3; unsigned P3109: the top code)
        return _pattern(fmt, code, "±")
    return _pattern(fmt, code)  # the single NaN at 1000…0 (FNUZ, HiF8, signed P3109)


def summary(fmt, bias=None, ieee_denormals=False) -> dict:
    """The Table 4 rows of ``fmt`` as ``{row: text}``, keyed by :data:`SUMMARY_ROWS`.

    Values are powers of two or ``m×2^e``, each followed by its code grouped by field; ``±`` stands for
    either sign bit; a row the format has no code for reads ``N/A`` (denormal rows of a flush-to-zero
    format: ``N/A (flushed)``). A run-time-bias format needs ``bias`` (its rows hold for that bias).
    """
    fmt = _concrete(fmt, bias, ieee_denormals)
    has_sub = fmt.has_subnormals
    max_dml = (fmt.max_subnormal_code, fmt.max_subnormal) if has_sub else (None, 0.0)
    min_dml = (fmt.min_subnormal_code, fmt.min_subnormal) if has_sub else (None, 0.0)
    zero = _pattern(fmt, 0, "±" if fmt.has_neg_zero else None)
    emin_all = math.frexp(fmt.min_subnormal)[1] - 1
    inf = fmt.inf_code
    no_dml = "N/A (flushed)" if fmt.ftz else "N/A"
    return {
        "Infinities": "N/A" if inf is None else _pattern(fmt, inf, "±"),
        "NaN": _nan_pattern(fmt),
        "Zero": zero,
        "Max positive normal": _entry(fmt, fmt.max_code, fmt.max_value),
        "Min positive normal": _entry(fmt, fmt.min_normal_code, fmt.min_normal),
        "Max positive denormal": _entry(fmt, *max_dml, below=True) if max_dml[0] is not None else no_dml,
        "Min positive denormal": _entry(fmt, *min_dml, below=True) if min_dml[0] is not None else no_dml,
        "Exponent": f"[{fmt.emin}, {fmt.emax}]",
        "Exponent (+denormal)": f"[{emin_all}, {fmt.emax}]",
    }


def summary_table(formats, bias=None, ieee_denormals=False) -> list[list[str]]:
    """Table 4 for several formats: a header row ``["", name, ...]`` then one row per
    :data:`SUMMARY_ROWS` entry, one column per format in the order given.

    ``bias`` and ``ieee_denormals`` apply to the run-time-bias formats among ``formats`` (whose header
    reads ``name@bias``); a run-time-bias format without ``bias`` is an error.
    """
    if isinstance(formats, str) or not isinstance(formats, (list, tuple)):
        raise FpforgeTypeError(f"formats must be a list of format names, not {formats!r}"[:200])
    fmts = [get_format(f) for f in formats]
    for f in fmts:
        if not isinstance(f, ScalarFormat):
            raise FpforgeValueError(f"{f.name!r} is a block format: the summary rows (specials, limits, exponent "
                                    "ranges) describe scalar formats; `fpforge formats` lists its layout")
    cols, names = [], []
    for f in fmts:
        rt = f.runtime_bias
        cols.append(summary(f, bias if rt else None, ieee_denormals if rt else False))
        names.append(f"{f.name}@{bias}" if rt else f.name)
    return [["", *names]] + [[r, *(c[r] for c in cols)] for r in SUMMARY_ROWS]


def bias_ranges(fmt, ieee_denormals=False) -> list[dict]:
    """The Tesla guide's Tables 4 and 5 for a run-time-bias format: for every bias, the range of the
    normal numbers and the exponents they span, plus the denormal range.

    Returns one dict per bias with ``bias``, ``emin``, ``emax``, ``min_normal``, ``max_normal`` (exact
    floats) and the guide's text ``±[1.000 × 2^emin, 1.111 × 2^emax]`` under ``range``, and
    ``min_denormal`` / ``max_denormal``.
    """
    base = resolve_variant(fmt, ieee_denormals=ieee_denormals)
    if not getattr(base, "runtime_bias", False):  # (a block format has no bias of its own either)
        raise FpforgeValueError(f"format {base.name!r} has a fixed bias; bias ranges list run-time-bias formats "
                                f"(cfloat8_143, cfloat8_152, shp)")
    rows = []
    for b in base.biases:
        f = base.at(b)
        top = format(f.max_code & ((1 << f.mbits) - 1), f"0{f.mbits}b")
        rows.append(dict(bias=b, emin=f.emin, emax=f.emax, min_normal=f.min_normal, max_normal=f.max_value,
                         min_denormal=f.min_subnormal, max_denormal=f.max_subnormal,
                         range=f"±[1.{'0' * f.mbits} × 2^{f.emin}, 1.{top} × 2^{f.emax}]"))
    return rows


def precision_by_exponent(fmt, bias=None) -> tuple[np.ndarray, np.ndarray]:
    """``(exponents, bits)``: the significand precision in bits (hidden bit included) of the values
    at each exponent from the smallest denormal's to ``emax``, denormals normalized as in the paper's
    Fig. 1 (a subnormal with k significant bits counts k; a HiF8 denormal, an exact power of two, 1).
    Exponents with no value (the CFloat denormal gap) are left out; ``bias`` for run-time-bias formats."""
    fmt = get_format(fmt)
    if not isinstance(fmt, ScalarFormat):
        raise FpforgeTypeError(f"precision_by_exponent takes a scalar format, not {getattr(fmt, 'name', fmt)!r}")
    return fmt.at(bias).precision_by_exponent()
