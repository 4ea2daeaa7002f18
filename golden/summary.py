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

from .errors import FpforgeTypeError, FpforgeValueError
from .formats import FloatFormat, TaperedFormat, get_format
from .minifloat import _classify, with_denormals

__all__ = ["SUMMARY_ROWS", "bias_ranges", "code_class", "code_fields", "precision_by_exponent", "summary",
           "summary_table"]


def _concrete(fmt, bias=None, ieee_denormals=False):
    """The fixed-bias descriptor the rows are read from (``bias`` for a run-time-bias format)."""
    return with_denormals(get_format(fmt), ieee_denormals).at(bias)

#: Row names of :func:`summary`, in the order of the paper's Table 4.
SUMMARY_ROWS = ("Infinities", "NaN", "Zero", "Max positive normal", "Min positive normal",
                "Max positive denormal", "Min positive denormal", "Exponent", "Exponent (+denormal)")


def code_class(fmt, codes) -> np.ndarray:
    """Class of each code, read from its fields: ``nan``, ``inf``, ``zero``, ``normal``, and
    ``subnormal`` (a FloatFormat code with exponent field 0 and a non-zero mantissa; ``flushed`` in a
    flush-to-zero format, where it reads as 0) or ``denormal`` (a tapered code with the denormal prefix
    and ``M >= 1``). The class does not depend on a run-time bias."""
    fmt = get_format(fmt)
    codes = np.asarray(codes).astype(np.int64)
    mag = codes & (fmt.sign_mask - 1) if fmt.signed else codes
    if isinstance(fmt, TaperedFormat):
        prefixed = (mag >> fmt.dml_bits) == fmt.dml[0]
        low = mag & ((1 << fmt.dml_bits) - 1)
        zero, small = prefixed & (low == 0), prefixed & (low != 0)
        name = "denormal"
    else:
        low = mag & ((1 << fmt.mbits) - 1)
        prefixed = (mag >> fmt.mbits) == 0
        zero, small = prefixed & (low == 0), prefixed & (low != 0)
        name = "flushed" if fmt.ftz else "subnormal"
    nan, inf = _classify(fmt, codes)
    out = np.full(codes.shape, "normal", dtype=object)
    out[small] = name
    out[zero] = "zero"
    out[inf] = "inf"
    out[nan] = "nan"
    return out


def code_fields(fmt, code: int) -> tuple[list[str], str]:
    """The bit fields of one code, most significant first, and what they mean.

    FloatFormat: ``[S, E, M]`` and ``"E=<unbiased exponent>"`` (``"subnormal"`` for field 0; ``S`` is
    ``""`` for an unsigned format; a run-time-bias format must be given as ``fmt.at(bias)``).
    TaperedFormat: ``[S, dot, Em, M]`` and ``"D=<d> E=<exponent>"`` (``Em`` is ``""`` when ``D = 0``),
    or ``[S, prefix, M]`` and ``"DML M=<m>"`` for the denormal prefix.
    """
    fmt = get_format(fmt)
    b = format(int(code), f"0{fmt.bits}b")
    s, mag = (b[0], b[1:]) if fmt.signed else ("", b)
    if isinstance(fmt, FloatFormat):
        e, m = mag[: fmt.ebits], mag[fmt.ebits :]
        ef = int(e, 2)
        return [s, e, m], ("subnormal" if ef == 0 else f"E={ef + fmt.emin - 1}")
    w = fmt.dml[1]
    if mag[:w] == format(fmt.dml[0], f"0{w}b"):
        return [s, mag[:w], mag[w:]], f"DML M={int(mag[w:], 2)}"
    for dot, width, d in fmt.dots:
        if mag[:width] == format(dot, f"0{width}b"):
            em, man = mag[width : width + d], mag[width + d :]
            e = 0 if d == 0 else (-1 if em[0] == "1" else 1) * int("1" + em[1:], 2)
            return [s, mag[:width], em, man], f"D={d} E={e}"
    raise FpforgeValueError(f"code {code:#x} matches no dot prefix of {fmt.name}")


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
    if isinstance(fmt, FloatFormat) and fmt.nan == "ieee":
        ones = "1" * fmt.ebits
        return f"{'± ' if fmt.signed else ''}{ones} M≠0"  # every non-zero mantissa under the all-ones exponent
    code = fmt.nan_code(negative=True)
    if code is None:  # no NaN at all (OCP FP6/FP4, CFloat8)
        return "N/A"
    if isinstance(fmt, FloatFormat) and fmt.nan == "fn":  # S.1…1.1…1, both signs
        return _pattern(fmt, code, "±")
    return _pattern(fmt, code)  # the single NaN (FNUZ, HiF8)


def summary(fmt, bias=None, ieee_denormals=False) -> dict:
    """The Table 4 rows of ``fmt`` as ``{row: text}``, keyed by :data:`SUMMARY_ROWS`.

    Values are powers of two or ``m×2^e``, each followed by its code grouped by field; ``±`` stands for
    either sign bit; a row the format has no code for reads ``N/A`` (denormal rows of a flush-to-zero
    format: ``N/A (flushed)``). A run-time-bias format needs ``bias`` (its rows hold for that bias).
    """
    fmt = _concrete(fmt, bias, ieee_denormals)
    if isinstance(fmt, TaperedFormat):
        min_normal_code = fmt.encode_normal(fmt.emin, 0)
        dml_max = fmt.encode_denormal(fmt.dml_emax)
        dml_min = fmt.encode_denormal(fmt.dml_emin)
        max_dml = (dml_max, 2.0**fmt.dml_emax)
        min_dml = (dml_min, fmt.min_subnormal)
        zero = _pattern(fmt, fmt.dml[0] << fmt.dml_bits)
        emin_all = fmt.dml_emin
    else:
        min_normal_code = 1 << fmt.mbits
        has_sub = fmt.has_subnormals
        max_dml = ((1 << fmt.mbits) - 1, fmt.max_subnormal) if has_sub else (None, 0.0)
        min_dml = (1, fmt.min_subnormal) if has_sub else (None, 0.0)
        zero = _pattern(fmt, 0, "±" if fmt.has_neg_zero else None)
        emin_all = math.frexp(fmt.min_subnormal)[1] - 1
    inf = fmt.inf_code
    no_dml = "N/A (flushed)" if getattr(fmt, "ftz", False) else "N/A"
    return {
        "Infinities": "N/A" if inf is None else _pattern(fmt, inf, "±"),
        "NaN": _nan_pattern(fmt),
        "Zero": zero,
        "Max positive normal": _entry(fmt, fmt.max_code, fmt.max_value),
        "Min positive normal": _entry(fmt, min_normal_code, fmt.min_normal),
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
    fmts = [get_format(f) for f in formats]
    cols, names = [], []
    for f in fmts:
        rt = getattr(f, "runtime_bias", False)
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
    base = with_denormals(get_format(fmt), ieee_denormals)
    if not getattr(base, "runtime_bias", False):
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
    if isinstance(fmt, TaperedFormat):
        exps = np.arange(fmt.dml_emin, fmt.emax + 1)
        return exps, np.array([fmt.mant_width(int(e)) + 1 for e in exps])
    if not isinstance(fmt, FloatFormat):
        raise FpforgeTypeError(f"precision_by_exponent takes a scalar format, not {fmt!r}")
    fmt = fmt.at(bias)
    normal = np.arange(fmt.emin, fmt.emax + 1)
    if not fmt.has_subnormals:
        return normal, np.full(len(normal), fmt.precision)
    lo = fmt.subnormal_exp - fmt.mbits  # 2^e with lo <= e < subnormal_exp: e - lo + 1 bits
    sub = np.arange(lo, fmt.subnormal_exp)
    return (np.concatenate([sub, normal]),
            np.concatenate([sub - lo + 1, np.full(len(normal), fmt.precision)]))
