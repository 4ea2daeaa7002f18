"""The golden dot product of scalar operand codes in C++ (``sim/dot_golden.cpp``), the dot prover's fast oracle.

An independent twin of :func:`fpforge.golden.dot.dot` for scalar operand formats (E4M3, E5M2, FNUZ, FP6, FP4,
HiF8, CFloat8 at any bias, ``fp8`` at either select): the C++ has no per-format logic; each operand side is a
decode table of every code (:func:`decode_table`), made here from the format's own value decoder
(:func:`fpforge.golden.decode`) — not from the pipeline's ``dot_fields`` — and the window, sum, FP32
rounding and special values are the C++'s own. ``fpforge prove dot`` checks a sample of every chunk with
both oracles (:mod:`fpforge.sim.prove_dot`), so a divergence between them fails the proof.

The library is compiled once per source (``c++ -O2 -shared``, a few seconds) into
``fpforge.jobs.cache_dir("prove") / "dot_golden" / <hash of the source>``.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..golden.errors import ToolError, ToolMissing
from ..jobs import cache_dir

__all__ = ["covers", "cpp_dot_golden", "decode_table", "library_path"]

_SOURCE = Path(__file__).with_name("dot_golden.cpp")
#: Widest window and product the C++ computes exactly (128-bit sums, 64-bit products).
MAX_F = 120
MAX_W = 62


#: Widest block word the C++ golden takes as one code (its decode table holds k1 rows per word: 2**20 words of a
#: 4-element block are 64 MiB).
MAX_BLOCK_BITS = 20


def covers(cfg) -> bool:
    """Whether the C++ golden computes the dot unit ``cfg`` (``build_unit`` keywords): r <= 64, a window of at
    most :data:`MAX_F` bits, and scalar operands, or BDR operands of one block (r = k1) whose word has at most
    :data:`MAX_BLOCK_BITS` bits at an exact window wide enough that no element's product is cut (the C++ aligns
    products, the golden model block sums: they agree only where neither truncates)."""
    from ..golden.blockformat import BlockFormat
    from ..golden.dot.config import operand_format

    dc = _config(cfg)
    sides = [operand_format(f) for f in (dc.a, dc.b)]
    if not (dc.r <= 64 and dc.f <= MAX_F and dc.W <= MAX_W and dc.acc_bits <= 126):
        return False
    if all(s.dot_side.family == "scalar" for s in sides):
        return True
    if not all(isinstance(s, BlockFormat) for s in sides) or dc.nb != 1 or dc.f < dc.f_exact:
        return False
    if any(s.block_bits > MAX_BLOCK_BITS for s in sides):
        return False
    # an element's LSB exponent (block_decode_table) spans its magnitude's bits and the sub-block shifts
    spread = sum(s.m - 1 + s.beta for s in sides)
    return dc.f - 1 - dc.W >= spread


@lru_cache(maxsize=8)
def _config_of(fmt, r, f, fmt_b):
    from ..golden.dot import DotConfig

    return DotConfig(fmt, r, f, fmt_b)


def _config(cfg):
    return _config_of(cfg["format"], cfg["r"], cfg["f"], cfg["format_b"])


@lru_cache(maxsize=64)
def decode_table(fmt, select=None, bias=None) -> np.ndarray:
    """``(2**bits, 4)`` int64 rows ``(mag, e, sign, class)`` of every code of the scalar operand ``fmt`` (a
    ``ScalarSet`` name) under ``select`` and run-time ``bias``: the element is ``(-1)**sign * mag * 2**e``,
    class 0 finite, 1 NaN, 2 Inf.

    ``mag`` is the significand on the operand's common ``M`` fraction bits (the widest mantissa of its
    formats): ``e = max(floor(log2 |v|) - M, e0)``, ``e0`` the LSB exponent of the element's smallest
    exponent (its descriptor's ``dot_lsb`` at this bias, on M bits), so the window cuts the bits the
    datapath holds; the value ``v`` comes from the format's decoder.
    """
    from ..golden import decode
    from ..golden.dot.config import operand_format

    side = operand_format(fmt)
    el = side.formats[select or 0]
    codes = np.arange(1 << side.bits, dtype=np.int64)
    v = decode(el, codes & ((1 << el.bits) - 1), **({"bias": bias} if el.runtime_bias else {})).astype(np.float64)
    e0 = el.dot_lsb + (max(el.biases) - bias if el.runtime_bias else 0) - (side.M - el.mbits)
    nan, inf = np.isnan(v), np.isinf(v)
    finite = ~nan & ~inf & (v != 0)
    a = np.where(finite, np.abs(v), 1.0)
    _, ex = np.frexp(a)
    e = np.maximum(ex.astype(np.int64) - 1 - side.M, e0)
    mag = np.where(finite, np.ldexp(a, -e), 0.0)
    if not np.array_equal(mag, np.round(mag)) or mag.max() >= 2.0 ** (side.M + 1):
        raise ToolError(f"the C++ dot golden cannot represent {el.name}'s codes as {side.M + 1}-bit significands")
    cls = np.where(nan, 1, np.where(inf, 2, 0))
    table = np.stack([mag.astype(np.int64), np.where(finite, e, 0), np.signbit(v).astype(np.int64), cls], axis=1)
    table.flags.writeable = False
    return np.ascontiguousarray(table)


@lru_cache(maxsize=8)
def block_decode_table(fmt) -> np.ndarray:
    """``(2**block_bits * k1, 4)`` int64 rows ``(mag, e, sign, class)``: row ``w * k1 + i`` is element i of the
    block word ``w`` of the BDR format ``fmt`` (shared exponent and sub-block shifts included), from the format's
    own value decoder (``decode_values`` of the fields :func:`fpforge.golden.dot.from_operand_words` unpacks);
    ``mag`` an m-bit integer, ``e = floor(log2 |v|) - (m - 1)``; class 0 (BDR has no NaN or Inf)."""
    from ..golden.dot import from_operand_words
    from ..golden.dot.config import operand_format

    side = operand_format(fmt)
    n = 1 << side.block_bits
    enc = from_operand_words(side, np.arange(n, dtype=np.uint64)[:, None], side.k1)
    v = side.decode_values(enc.scale.astype(np.int64), enc.shift.astype(np.int64), enc.elem.astype(np.int64))
    v = np.asarray(v, np.float64).reshape(n * side.k1)
    finite = v != 0
    a = np.where(finite, np.abs(v), 1.0)
    _, ex = np.frexp(a)
    e = ex.astype(np.int64) - side.m
    mag = np.where(finite, np.ldexp(a, -e), 0.0)
    if not np.array_equal(mag, np.round(mag)) or mag.max() >= 2.0 ** side.m:
        raise ToolError(f"the C++ dot golden cannot represent {side.name}'s elements as {side.m}-bit magnitudes")
    table = np.stack([mag.astype(np.int64), np.where(finite, e, 0), np.signbit(v).astype(np.int64),
                      np.zeros(len(v), np.int64)], axis=1)
    table.flags.writeable = False
    return np.ascontiguousarray(table)


def _side_table(name, select, bias):
    """``(table, code bits, elements per code)`` of one operand side."""
    from ..golden.dot.config import operand_format

    side = operand_format(name)
    if side.dot_side.family == "scalar":
        return decode_table(name, select, bias), side.bits, 1
    return block_decode_table(name), side.block_bits, side.k1


def _compiler():
    for name in (os.environ.get("CXX"), "c++", "g++", "clang++"):
        if name and shutil.which(name):
            return shutil.which(name)
    raise ToolMissing("fpforge prove dot's C++ golden needs a C++ compiler (c++, g++ or clang++; or --golden numpy)")


def library_path() -> Path:
    """The compiled library (built now unless cached)."""
    source = _SOURCE.read_bytes()
    key = hashlib.sha256(source).hexdigest()[:16]
    final = cache_dir(os.path.join("prove", "dot_golden")) / key / "dot_golden.so"
    if final.is_file():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=final.parent, suffix=".so")
    os.close(fd)
    cmd = [_compiler(), "-O2", "-std=c++17", "-shared", "-fPIC", "-o", tmp, str(_SOURCE)]
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    if proc.returncode != 0:
        os.unlink(tmp)
        lines = [ln for ln in (proc.stderr + proc.stdout).splitlines() if "error" in ln] or ["no output"]
        raise ToolError(f"compiling the C++ dot golden failed: {lines[0].strip()}")
    os.replace(tmp, final)
    return final


@lru_cache(maxsize=1)
def _function():
    fn = ctypes.CDLL(str(library_path())).fpforge_dot_golden
    u64, i32, i64, p = ctypes.c_uint64, ctypes.c_int, ctypes.c_int64, ctypes.c_void_p
    fn.argtypes = [u64, u64, i32, i32, i32, i32, i32, i32, p, p, i32, i32, i64, i32, i32, p, p, p, p]
    fn.restype = i32
    return fn


def _pointer(arr):
    return None if arr is None else arr.ctypes.data


def cpp_dot_golden(cfg, start, count, a_bits, cond, patterns=None) -> dict:
    """``{output: uint64 array}`` of the golden dot product on operand patterns ``start .. start + count - 1``
    (``{B, A}``, A the low ``a_bits`` bits), or on ``patterns`` (uint64; then ``start`` and ``count`` are
    ignored), as :func:`fpforge.sim.prove_dot.dot_golden` returns them. ``cond``: a
    :class:`~fpforge.sim.prove_dot.DotCondition`."""

    if patterns is not None:
        patterns = np.ascontiguousarray(patterns, np.uint64)
        count = len(patterns)

    dc = _config(cfg)
    ta, bits_a, k1a = _side_table(cfg["format"], cond.sel_a, cond.bias_a)
    tb, bits_b, k1b = _side_table(cfg["format_b"] or cfg["format"], cond.sel_b, cond.bias_b)
    y = np.empty(count, np.uint64)
    raw = bool(cfg.get("raw"))
    total = np.empty(count, np.uint64) if raw else None
    expo = np.empty(count, np.uint64) if raw else None
    status = _function()(start, count, dc.r, a_bits, bits_a, bits_b, k1a, k1b, _pointer(ta), _pointer(tb), dc.W, dc.f,
                         dc.x_min + dc.c, dc.acc_bits, dc.exp_bits, _pointer(patterns), _pointer(y), _pointer(total),
                         _pointer(expo))
    if status:
        raise ToolError(f"the C++ dot golden does not take {dc.name} (r <= 64, f <= {MAX_F})")
    return {"y": y, "sum": total, "exp": expo} if raw else {"y": y}
