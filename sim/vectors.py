"""Stimulus: exhaustive 16-bit patterns, random FP32 and directed corner cases for the conversion units;
random and directed blocks for the block units; random and directed operand pairs for the dot-product units.

Run-time-bias formats (CFloat8, SHP) pair every operand with a bias: :func:`stimulus_with_bias` repeats
the 16-bit patterns for each bias of a set, builds the directed cases of each such bias from
``fmt.at(bias)``, and gives every random FP32 operand its own random bias (all 64) with half of them drawn
near that bias's range.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..golden.errors import FpforgeValueError
from ..golden import SOURCES, decode, get_format
from ..golden.formats import RUNTIME_BIASES

__all__ = ["DEFAULT_BIASES", "EXHAUSTIVE_BIASES", "all_patterns", "directed", "random_patterns", "stimulus",
           "stimulus_with_bias", "tapered_thresholds", "DotOperands", "concat_dot_operands", "directed_dot_operands", "random_dot_operands"]

#: Biases the directed FP32 cases and the SHP decoder cover in ``make test``: both ends and their
#: neighbours, the middle with every bit flipping between 31 and 32, and the E4M3/E5M2-like 7 and 15
#: (the issue's SHP decoder list plus 7); ``make regress``: all 64.
DEFAULT_BIASES = (0, 1, 7, 15, 31, 32, 62, 63)

#: Biases the exhaustive 16-bit-source encoder runs cover in ``make test`` (each costs 65,536 vectors
#: per rounding mode): both ends, the E4M3-like 7, and 32 (bit 5 set); ``make regress``: all 64.
EXHAUSTIVE_BIASES = (0, 7, 32, 63)


def all_patterns(source: str) -> np.ndarray:
    """Every bit pattern of a 16-bit source, as uint64."""
    src = SOURCES[source]
    if src.bits != 16:
        raise FpforgeValueError(f"only 16-bit sources are enumerated, not {source!r}")
    return np.arange(1 << 16, dtype=np.uint64)


def random_patterns(source: str, n: int, seed: int, exp_range=None) -> np.ndarray:
    """``n`` random patterns: half uniform over all bit patterns, half with unbiased exponents in
    ``exp_range = (lo, hi)`` (scalars or arrays of ``n - n // 2``; default ``(-30, 20)``, near the FP8 range)."""
    src = SOURCES[source]
    rng = np.random.default_rng(seed)
    uniform = rng.integers(0, 1 << src.bits, n - n // 2, dtype=np.uint64)
    half = n // 2
    lo, hi = (-30, 20) if exp_range is None else exp_range
    exp = np.clip(rng.integers(np.asarray(lo) + src.bias, np.asarray(hi) + src.bias, half), 0,
                  src.exp_max_field).astype(np.uint64)
    man = rng.integers(0, 1 << src.mbits, half, dtype=np.uint64)
    sign = rng.integers(0, 2, half).astype(np.uint64)
    near = (sign << np.uint64(src.bits - 1)) | (exp << np.uint64(src.mbits)) | man
    return np.concatenate([uniform, near])


def _bits(values, source):
    src = SOURCES[source]
    return np.asarray(values, dtype=np.float64).astype(src.dtype).view(
        np.uint32 if src.bits == 32 else np.uint16).astype(np.uint64)


def _values(fmt) -> np.ndarray:
    """Sorted distinct finite non-negative values of a fixed-bias ``fmt``; a flush-to-zero format's
    denormals are included (they are its rounding grid below the smallest normal)."""
    grid = fmt.with_(ftz=False) if getattr(fmt, "ftz", False) else fmt
    vals = decode(grid, np.arange(1 << fmt.bits)).astype(np.float64)
    return np.unique(vals[np.isfinite(vals) & (vals >= 0)])


def directed(fmt, source: str = "fp32", *, bias=None, ieee_denormals=False, dense_limit=512,
             extras=True) -> np.ndarray:
    """Corner cases of converting ``source`` into ``fmt``, both signs, as source bit patterns (uint64).

    Every finite value of the format and its ±1 source-ulp neighbours; every rounding midpoint between
    consecutive values (including 0 and the smallest subnormal: the underflow threshold, the largest
    denormal and the smallest normal: the CFloat denormal gap, and the largest value and the next one
    beyond it: the overflow threshold) and its ±1 ulp neighbours; every power of two of the source and its
    neighbours (binade boundaries); source subnormals; ±0, ±Inf, ±max of the source; NaNs with assorted
    payloads. A run-time-bias format needs ``bias``. A format with more than ``dense_limit`` values
    (SHP, UHP) keeps, instead of every value, the lowest and highest 32, 16 on each side of the smallest
    normal, the first and last two of every binade, and a fixed sample of 96 more. ``extras=False``
    leaves out what does not depend on the format (source powers of two outside the format's range,
    source subnormals, ±Inf, NaNs, ±source max): the second and later biases of a run need them once.
    """
    from ..golden.minifloat import with_denormals

    fmt = with_denormals(get_format(fmt), ieee_denormals).at(bias)
    src = SOURCES[source]
    dt = src.dtype
    pos = _values(fmt)
    step = fmt.top_quantum
    beyond = np.array([pos[-1] + step, pos[-1] + 2 * step])
    grid = np.concatenate([pos, beyond])
    keep = np.arange(len(grid) - 1)
    if len(pos) > dense_limit:
        at = int(np.searchsorted(grid, fmt.min_normal))
        binade = np.frexp(grid)[1]
        edges = np.flatnonzero(np.diff(binade) != 0)
        keep = np.unique(np.concatenate([
            keep[:32], keep[-32:], keep[max(at - 16, 0): at + 16], edges, edges - 1, edges + 1,
            np.random.default_rng(len(pos)).choice(keep, 96)]))
        keep = keep[(keep >= 0) & (keep < len(grid) - 1)]
    lo, hi = grid[keep], grid[keep + 1]
    e_lo, e_hi = src.emin - src.mbits, src.emax
    if not extras:
        e_lo, e_hi = max(e_lo, int(np.frexp(pos[1])[1]) - 3), min(e_hi, int(np.frexp(grid[-1])[1]) + 2)
    centres = np.concatenate([lo, hi, (lo + hi) / 2, 2.0 ** np.arange(e_lo, e_hi + 1)])
    centres = centres[centres < 2.0 ** (src.emax + 1)].astype(dt)
    with np.errstate(over="ignore"):
        up = np.nextafter(centres, np.array(np.inf, dtype=dt))
        down = np.nextafter(centres, np.array(0, dtype=dt))
    finite = np.concatenate([centres, up, down]).astype(np.float64)
    finite = finite[np.isfinite(finite)]
    uint = lambda v: np.asarray(v, dtype=np.uint64)  # noqa: E731
    exp_all = ((1 << src.ebits) - 1) << src.mbits
    payloads = np.array([1, 2, 3, 1 << (src.mbits - 1), (1 << (src.mbits - 1)) | 1, (1 << src.mbits) - 1])
    special = np.concatenate([
        uint([0, exp_all]),  # +0, +Inf
        uint(exp_all | payloads),  # NaNs: signalling and quiet, assorted payloads
        uint([1, 2, 3, (1 << src.mbits) - 1, 1 << (src.mbits - 1)]),  # source subnormals
        uint([exp_all - 1]),  # largest finite source value
    ]) if extras else uint([0])
    mags = np.concatenate([_bits(finite, source), special]) & np.uint64((1 << (src.bits - 1)) - 1)
    sign = np.uint64(1 << (src.bits - 1))
    out = np.unique(np.concatenate([mags, mags | sign]))
    return out


def tapered_thresholds(fmt, source: str = "fp32", *, seed=0) -> np.ndarray:
    """FP32 operands around a tapered format's thresholds, both signs: half the smallest denormal (2^-23,
    where Ascend's ``hr`` flushes), half-way from the largest value to the Inf slot (1.25 × 2^15, where it
    overflows) and the Inf slot (1.5 × 2^15): ±0..32 ulps and 64 random low-14-bit patterns in the
    threshold's ulp window on each side (hybrid rounding compares the top discarded bits with them)."""
    fmt = get_format(fmt)
    if SOURCES[source].bits != 32:
        return np.empty(0, np.uint64)
    rng = np.random.default_rng(seed)
    centres = np.array([fmt.min_subnormal / 2, fmt.max_value + fmt.top_quantum / 2, fmt.max_value + fmt.top_quantum],
                       np.float32).view(np.int32).astype(np.int64)
    near = (centres[:, None] + np.arange(-32, 33)[None, :]).ravel()
    window = (centres[:, None] & ~0x3FFF) + rng.integers(-0x4000, 0x8000, (3, 64))
    mags = np.concatenate([near, window.ravel()]).astype(np.uint64)
    return np.unique(np.concatenate([mags, mags | np.uint64(1 << 31)]))


def stimulus(fmt, source: str, n_random: int, seed: int) -> np.ndarray:
    """The standard stimulus: all patterns for 16-bit sources; directed + ``n_random`` random for FP32 (and
    for a tapered format the neighbourhoods of its thresholds, :func:`tapered_thresholds`)."""
    if SOURCES[source].bits == 16:
        return all_patterns(source)
    extra = [tapered_thresholds(fmt, source, seed=seed)] if getattr(get_format(fmt), "kind", "") == "tapered" else []
    return np.concatenate([directed(fmt, source), *extra, random_patterns(source, n_random, seed)])


def stimulus_with_bias(fmt, source: str, n_random: int, seed: int, biases=None, *,
                       ieee_denormals=False):
    """``(patterns, biases)`` for a run-time-bias format (``biases`` is None for a fixed-bias one, with
    :func:`stimulus`'s patterns).

    16-bit sources: every pattern once per bias of ``biases`` (default ``EXHAUSTIVE_BIASES``), pattern
    by pattern. FP32: the directed cases of each bias of ``biases`` (default ``DEFAULT_BIASES``), taken
    round-robin, then ``n_random`` random operands, each with a random bias from all 64, half of them
    with an exponent near that bias's range (below the smallest denormal to past the overflow threshold).
    Consecutive vectors never share a bias while more than one bias is left.
    """
    fmt = get_format(fmt)
    if not getattr(fmt, "runtime_bias", False):
        return stimulus(fmt, source, n_random, seed), None
    if biases is None:
        biases = EXHAUSTIVE_BIASES if SOURCES[source].bits == 16 else DEFAULT_BIASES
    biases = np.asarray(tuple(biases), dtype=np.uint64)
    if SOURCES[source].bits == 16:  # pattern-major: the bias changes from each vector to the next
        pats = all_patterns(source)
        return np.repeat(pats, len(biases)), np.tile(biases, len(pats))
    parts = [directed(fmt, source, bias=int(b), ieee_denormals=ieee_denormals, extras=False) for b in biases]
    # The bias-independent cases (NaNs, ±Inf, source subnormals, ...) once, spread over the biases.
    extra = np.setdiff1d(directed(fmt, source, bias=int(biases[0]), ieee_denormals=ieee_denormals), parts[0])
    parts = [np.concatenate([p, extra[i :: len(biases)]]) for i, p in enumerate(parts)]
    # Stratified merge: element k of a set of n sits at (k + 1/2) / n, so the sets run out together.
    pos = np.concatenate([(np.arange(len(p)) + 0.5) / len(p) for p in parts])
    which = np.concatenate([np.full(len(p), i) for i, p in enumerate(parts)])
    order = np.lexsort((which, pos))
    dpats, dbias = np.concatenate(parts)[order], biases[which[order]]
    # Random operands: each bias differs from the one before (a random non-zero step mod 64).
    rng = np.random.default_rng([seed, 64])
    n_b = RUNTIME_BIASES.stop
    rb = (rng.integers(0, n_b) + np.cumsum(rng.integers(1, n_b, n_random))) % n_b
    half = n_random - n_random // 2  # random_patterns: uniform half first, then the "near" half
    near = rb[half:].astype(np.int64)
    rand = random_patterns(source, n_random, seed,
                           exp_range=(-near - fmt.mbits - 3, (fmt.max_code >> fmt.mbits) - near + 3))
    pats = np.concatenate([dpats, rand])
    bias = np.concatenate([dbias, rb.astype(np.uint64)])
    # A directed case whose bias equals its predecessor's goes to the end (removing it cannot make its
    # neighbours equal: they differ unless the next one is such a case too).
    dup = np.concatenate([[False], bias[1:] == bias[:-1]])
    return np.concatenate([pats[~dup], pats[dup]]), np.concatenate([bias[~dup], bias[dup]])


# -- block formats ----------------------------------------------------------------------------------------
def random_blocks(k1, n_blocks, seed, *, specials=True, span=(-140, 127)):
    """float32 blocks ``(n_blocks, k1)`` that exercise block formats: per block a random base exponent in
    ``span`` (FP32 subnormals included), per element an exponent below it by 0..2 (70%) or 0..30, ±0 (8%),
    a quarter with the low mantissa bits cleared (exact values and rounding ties), an outlier 2**20 above
    the rest in 10% of the blocks, and (``specials``) NaN/±Inf members (0.4% of the elements)."""
    rng = np.random.default_rng(seed)
    base = rng.integers(span[0], span[1] + 1, (n_blocks, 1))
    drop = np.where(rng.random((n_blocks, k1)) < 0.7, rng.integers(0, 3, (n_blocks, k1)),
                    rng.integers(0, 31, (n_blocks, k1)))
    e = np.clip(base - drop, -149, 127)
    man = rng.integers(0, 1 << 23, (n_blocks, k1)).astype(np.uint32)
    k = rng.integers(0, 24, (n_blocks, k1)).astype(np.uint32)
    man = np.where(rng.random((n_blocks, k1)) < 0.25, man & (np.uint32(0xFFFFFFFF) << k), man)
    normal = e >= -126
    field = np.where(normal, e + 127, 0).astype(np.uint32)
    # A subnormal with exponent e: leading one at bit e + 149 of the 23-bit field, random bits below.
    lead = np.clip(e + 149, 0, 22).astype(np.uint32)
    sub_man = (np.uint32(1) << lead) | (man >> (np.uint32(23) - lead))
    man = np.where(normal, man, sub_man)
    sign = rng.integers(0, 2, (n_blocks, k1)).astype(np.uint32) << np.uint32(31)
    bits = sign | (field << np.uint32(23)) | man
    bits = np.where(rng.random((n_blocks, k1)) < 0.08, sign, bits)  # ±0
    outlier = rng.random(n_blocks) < 0.1
    col = rng.integers(0, k1, n_blocks)
    x = bits.view(np.float32)
    big = np.ldexp(np.abs(x[np.arange(n_blocks), col]).astype(np.float64).clip(2.0**-100), 20)
    x[outlier, col[outlier]] = np.minimum(big, 2.0**127)[outlier].astype(np.float32)
    if specials:
        which = rng.random((n_blocks, k1)) < 0.004
        kinds = rng.choice(np.array([np.nan, np.inf, -np.inf, -np.nan], np.float32), (n_blocks, k1))
        x = np.where(which, kinds, x)
    return x.astype(np.float32)


def directed_blocks(fmt, seed=0):
    """float32 blocks ``(n, k1)`` of the corner cases of a block format (BDR or OCP MX):

    all zeros (±0); a single non-zero in every lane; one outlier 2**20 above the rest; every sub-block at
    its largest shift (and just above it); elements exactly at rounding midpoints (half a step above a
    representable magnitude, lane 0 pinning the shared exponent) and just at the saturation threshold;
    the shared exponent at both ends of its range (FP32's largest values, FP32 subnormals, and beyond a
    small d1 range); NaN, +Inf and -Inf members.
    """
    fmt = get_format(fmt)
    k1 = fmt.k1
    rng = np.random.default_rng(seed)
    rows = []
    zeros = np.zeros(k1)
    rows.append(zeros)
    rows.append(np.where(np.arange(k1) % 3 == 1, -0.0, 0.0))
    for i in range(k1):  # a single non-zero in every lane
        r = zeros.copy()
        r[i] = (-1) ** i * 1.375 * 2.0 ** (i - 8)
        rows.append(r)
    for i in range(0, k1, max(1, k1 // 4)):  # one outlier 2^20 above the rest
        r = rng.uniform(1, 2, k1) * rng.choice([-1, 1], k1)
        r[i] = 1.5 * 2.0**20
        rows.append(r)
    beta = getattr(fmt, "beta", 0)
    k2 = getattr(fmt, "k2", k1)
    for extra in (0, 1, 3):  # every sub-block but the first at (and below) its largest shift
        r = rng.uniform(1, 2, k1) * 2.0 ** -(beta + extra) * rng.choice([-1, 1], k1)
        r[0] = 1.0
        rows.append(r)
        r = r.copy()
        r[k2:] = 2.0 ** -(beta + extra)  # exactly 2^(E - beta - extra)
        rows.append(r)
    # Rounding midpoints: magnitudes exactly half a step above a representable one.
    for _ in range(6):
        r = np.empty(k1)
        if getattr(fmt, "family", "") == "bdr":
            m = fmt.m
            taus = rng.integers(0, beta + 1, fmt.n_sub)
            for j in range(fmt.n_sub):
                lo = 1 << (m - 1) if k2 == 1 else 0
                q = rng.integers(lo, (1 << m) - 1, k2)
                r[j * k2 : (j + 1) * k2] = (q + 0.5) * 2.0 ** (-int(taus[j]) - m + 1)
                r[j * k2] = 2.0 ** -int(taus[j])  # pins the sub-block's largest exponent
        elif fmt.is_int:
            q = rng.integers(0, 126, k1)
            r[:] = (q + 0.5) / 64
        else:
            vals = np.unique(np.abs(decode(fmt.element, np.arange(1 << fmt.element.bits))))
            vals = vals[np.isfinite(vals)]
            c = rng.integers(0, len(vals) - 1, k1)
            r[:] = (vals[c] + vals[c + 1]) / 2 / 2.0**fmt.emax_elem
        r[0] = 1.0
        r *= rng.choice([-1, 1], k1) * 2.0 ** rng.integers(-20, 20)
        rows.append(r)
    # The saturation threshold: just below the next power of two.
    r = np.full(k1, 1.9999999)
    r[1::2] = -1.99
    rows.append(r)
    # Shared exponent at both ends of its range.
    f32 = np.finfo(np.float32)
    rows.append(np.full(k1, float(f32.max)) * rng.choice([-1, 1], k1))
    rows.append(rng.uniform(1, 2, k1) * 2.0**127)
    rows.append(np.arange(1, k1 + 1) * 2.0**-149)  # FP32 subnormals
    rows.append(rng.uniform(1, 2, k1) * 2.0**-126)
    d1 = getattr(fmt, "d1", 8)
    lo, hi = -(2 ** (d1 - 1)), 2 ** (d1 - 1) - 1
    for e in (lo - 3, lo, hi, hi + 3):
        if -149 <= e <= 127:
            rows.append(rng.uniform(1, 2, k1) * 2.0**e * rng.choice([-1, 1], k1))
    # NaN / Inf members.
    for special in (np.nan, np.inf, -np.inf):
        r = rng.uniform(1, 2, k1)
        r[k1 // 2] = special
        rows.append(r)
    r = rng.uniform(1, 2, k1)
    r[0], r[-1] = np.inf, np.nan
    rows.append(r)
    with np.errstate(over="ignore"):
        return np.array(rows).astype(np.float32)


# -- dot products -----------------------------------------------------------------------------------------
@dataclass
class DotOperands:
    """Operands of n dot products of a :class:`fpforge.golden.dot.DotConfig`: ``a``/``b`` (BlockEncoding
    (n, r) or scalar codes (n, r)), the run-time selects of ``fp8`` operands (n,), and labels
    ``(first index, description)``."""

    a: object
    b: object
    sel_a: np.ndarray
    sel_b: np.ndarray
    labels: list

    @property
    def size(self):
        return len(self.sel_a)


def _concat_operands(fmt, parts):
    from ..golden.block import BlockEncoding

    if isinstance(parts[0], BlockEncoding):
        return BlockEncoding(fmt, np.concatenate([p.scale for p in parts]), np.concatenate([p.shift for p in parts]),
                             np.concatenate([p.elem for p in parts]))
    return np.concatenate([np.asarray(p, np.uint64) for p in parts])


def concat_dot_operands(cfg, groups):
    """One DotOperands from several (labels kept, indices shifted)."""
    labels, start = [], 0
    for g in groups:
        labels += [(start + i, t) for i, t in g.labels]
        start += g.size
    return DotOperands(_concat_operands(cfg.a, [g.a for g in groups]), _concat_operands(cfg.b, [g.b for g in groups]),
                       np.concatenate([g.sel_a for g in groups]), np.concatenate([g.sel_b for g in groups]), labels)


def _raw_side(fmt, n, nb, rng, *, spread, zero_frac=0.2, special_frac=0.0):
    """Raw random fields of one operand: block scales around a per-vector base (offsets up to ``spread``
    per vector), random shifts and element bits; elements zeroed with ``zero_frac``; for formats with
    NaN/Inf codes, those codes replaced except in a ``special_frac`` share of the vectors."""
    from ..golden.block import BlockEncoding, BlockFormat
    from ..golden.dot import ScalarSet, _float_fields

    if isinstance(fmt, ScalarSet):
        codes = rng.integers(0, 1 << fmt.bits, (n, nb)).astype(np.int64)
        codes = np.where(rng.random((n, nb)) < zero_frac, codes & (1 << (fmt.bits - 1)), codes)
        return codes
    k1 = fmt.k1
    top = (1 << fmt.scale_bits) - 1
    span = np.asarray(spread)[:, None]
    base = rng.integers(0, top + 1, (n, 1))
    off = np.round((rng.random((n, nb)) * 2 - 1) * span).astype(np.int64)
    scale = np.clip(base + off, 0, top - (0 if isinstance(fmt, BlockFormat) else 1))
    if not isinstance(fmt, BlockFormat):  # OCP: a NaN scale in a few vectors
        nan = (rng.random((n, nb)) < 0.5) & (rng.random((n, 1)) < special_frac)
        scale = np.where(nan, 0xFF, scale)
    elem = rng.integers(0, 1 << fmt.elem_bits, (n, nb, k1)).astype(np.int64)
    elem = np.where(rng.random((n, nb, k1)) < zero_frac, elem & (1 << (fmt.elem_bits - 1)), elem)
    if isinstance(fmt, BlockFormat):
        shift = rng.integers(0, fmt.beta + 1, (n, nb, fmt.n_sub)) if fmt.d2 else np.zeros((n, nb, fmt.n_sub))
    else:
        shift = np.zeros((n, nb, 0))
        if not fmt.is_int and fmt.element.nan != "none":
            _, _, _, enan, einf = _float_fields(fmt.element, elem)
            keep = rng.random((n, 1, 1)) < special_frac
            elem = np.where((enan | einf) & ~keep, elem & (fmt.element.sign_mask | 1), elem)
    return BlockEncoding(fmt, scale.astype(np.uint16), shift.astype(np.uint8), elem.astype(np.uint32))


def _scalar_clean(fmt, codes, sel, rng, special_frac):
    """Replace NaN/Inf codes of scalar operands except in a ``special_frac`` share of the vectors."""
    from ..golden.dot import _float_fields

    out = codes.copy()
    keep = rng.random((len(codes), 1)) < special_frac
    for idx, el in enumerate(fmt.formats):
        _, _, _, nan, inf = _float_fields(el, codes)
        bad = (nan | inf) & ~keep & (sel == idx)[:, None]
        out = np.where(bad, codes & (el.sign_mask | 1), out)
    return out


def random_dot_operands(cfg, n, seed):
    """``n`` random operand pairs for ``cfg``: half real data — variable-variance Gaussian vectors whose
    blocks (or elements) are scaled by a further 2**u, |u| up to 0, 3, 12 or 40 per vector, quantized into the
    format (``encode_block``; scalar formats with a per-vector amax scale, or none for a quarter) — and half
    raw bit patterns (block scales around a per-vector base with spreads 0 … the whole range, random shifts
    and elements, 20 % zero elements; NaN/Inf codes and NaN scales kept in 5 % of the vectors). ``fp8``
    selects are random per vector."""
    from ..golden.dot import ScalarSet, quantized_operands
    from ..golden.qsnr import gaussian_vectors

    rng = np.random.default_rng(seed)
    n_real = n // 2
    n_raw = n - n_real
    nb, r = cfg.nb, cfg.r
    ops = []
    sels = {}
    for side, fmt in (("a", cfg.a), ("b", cfg.b)):
        sel = rng.integers(0, len(fmt.formats), n) if isinstance(fmt, ScalarSet) else np.zeros(n, np.int64)
        sels[side] = sel
        x = gaussian_vectors(max(n_real, 1), r, seed + (side == "b"), log2_sigma=(-30, 30))[:n_real]
        spreads = rng.choice([0, 3, 12, 40], (n_real, 1))
        u = np.round((rng.random((n_real, nb)) * 2 - 1) * spreads)
        x = (x.reshape(n_real, nb, cfg.k1) * np.exp2(u)[:, :, None]).reshape(n_real, r).astype(np.float32)
        if isinstance(fmt, ScalarSet):
            real = np.zeros((n_real, r), np.uint64)
            for idx in range(len(fmt.formats)):
                pick = sel[:n_real] == idx
                if pick.any():
                    real[pick] = quantized_operands(cfg, x[pick], select=idx, side=side)
            unscaled = rng.random(n_real) < 0.25
            from ..golden.minifloat import encode
            for idx, el in enumerate(fmt.formats):
                pick = unscaled & (sel[:n_real] == idx)
                if pick.any():
                    real[pick] = encode(el, x[pick], saturate=True).astype(np.uint64)
            raw = _raw_side(fmt, n_raw, r, rng, spread=None)
            raw = _scalar_clean(fmt, raw, sel[n_real:], rng, 0.05)
            ops.append(np.concatenate([real, raw.astype(np.uint64)]))
        else:
            from ..golden.block import encode_block

            real = encode_block(fmt, x)
            spread = rng.choice([0, 2, 8, 40, 1 << fmt.scale_bits], n_raw)
            raw = _raw_side(fmt, n_raw, nb, rng, spread=spread, special_frac=0.05)
            ops.append(_concat_operands(fmt, [real, raw]))
    labels = [(0, "random: quantized Gaussian data with spread block scales"), (n_real, "random: raw bit patterns")]
    return DotOperands(ops[0], ops[1], sels["a"], sels["b"], labels)


def _pos_codes(fmt, rng, shape, *, nonzero=False, el=None):
    """Random finite non-negative element codes (BDR magnitude, OCP/scalar float code, INT8 0..127)."""
    from ..golden.block import BlockFormat
    from ..golden.dot import _float_fields

    if isinstance(fmt, BlockFormat):
        return rng.integers(1 if nonzero else 0, 1 << fmt.m, shape)
    el = el if el is not None else fmt.element
    if getattr(fmt, "is_int", False):
        return rng.integers(1 if nonzero else 0, 128, shape)
    codes = rng.integers(1 if nonzero else 0, el.sign_mask, shape)
    _, _, _, nan, inf = _float_fields(el, codes)
    return np.where(nan | inf, 1 << el.mbits, codes)  # specials -> the smallest normal


def _with_sign(fmt, codes, neg, el=None):
    from ..golden.block import BlockFormat

    if isinstance(fmt, BlockFormat):
        return np.where(neg, codes | (1 << fmt.m), codes)
    if getattr(fmt, "is_int", False):
        return np.where(neg, (256 - codes) & 0xFF, codes)
    el = el if el is not None else fmt.element
    return np.where(neg, codes | el.sign_mask, codes)


def _block_ops(fmt, scale, shift, elem):
    from ..golden.block import BlockEncoding

    n = scale.shape[0]
    shift = np.zeros((n, scale.shape[1], fmt.n_sub if fmt.family == "bdr" else 0)) if shift is None else shift
    return BlockEncoding(fmt, np.asarray(scale).astype(np.uint16), np.asarray(shift).astype(np.uint8),
                         np.asarray(elem).astype(np.uint32))


def _scale_range(fmt):
    """(lowest, highest finite) scale field."""
    top = (1 << fmt.scale_bits) - 1
    return 0, top if fmt.family == "bdr" else top - 1


def _fp32_tie(T, exp):
    """Per dot product: the FP32 rounding of T * 2**exp is an exact tie (and whether the kept LSB is odd)."""
    T = np.asarray(T)
    exp = np.asarray(exp, np.int64)
    ties, odds = [], []
    for t, e in zip(T.tolist(), exp.tolist()):
        mag = abs(int(t))
        L = mag.bit_length()
        lead = e + L - 1
        drop = L - 24 if lead >= -126 else -149 - e
        if mag == 0 or drop <= 0:
            ties.append(False)
            odds.append(False)
            continue
        ties.append(mag & ((1 << drop) - 1) == 1 << (drop - 1))
        odds.append(bool((mag >> drop) & 1))
    return np.array(ties, bool), np.array(odds, bool)


def directed_dot_operands(cfg, seed=0):
    """The corner cases of a dot-product configuration (issue 6), each group labelled:

    zeros (all-zero operands; a zero block at the largest scale beside live blocks — it must not set the
    max exponent); full cancellation (mirrored blocks, or mirrored halves of a block, with B negated: the
    exact sum is 0); a residue after near-cancellation; one dominant block with the others at distances
    around the window edge (f - 1) and beyond; the largest and smallest scales (overflow to Inf, FP32
    subnormals and underflow) and a sweep of the result exponent across FP32's subnormal boundary; every
    sub-block shift combination (tau_a, tau_b); the largest magnitudes (the block-sum bound W); a single
    non-zero product in every lane; sums whose FP32 rounding is an exact tie (even and odd), found by search
    over sparse and dense candidates; special values (NaN and Inf elements, NaN scales, Inf x 0, +Inf with
    -Inf). ``fp8`` operands cycle through every (sel_a, sel_b) pair.
    """
    from ..golden.dot import ScalarSet, dot

    rng = np.random.default_rng(seed)
    if isinstance(cfg.a, ScalarSet):
        groups = _directed_scalar(cfg, rng)
    else:
        groups = _directed_block(cfg, rng)
    ops = concat_dot_operands(cfg, groups)
    # Exact FP32 ties, by search.
    cands = _tie_candidates(cfg, rng)
    res = dot(cfg, cands.a, None, cands.b, select_a=cands.sel_a, select_b=cands.sel_b)
    tie, odd = _fp32_tie(res.sum, res.exp)
    tie &= ~res.nan & ~res.inf
    pick = np.concatenate([np.nonzero(tie & odd)[0][:12], np.nonzero(tie & ~odd)[0][:12]])
    if len(pick):
        sub = _take(cfg, cands, np.sort(pick), "FP32 rounding ties (even and odd kept LSB)")
        ops = concat_dot_operands(cfg, [ops, sub])
    return ops


def _take(cfg, ops, idx, label):
    from ..golden.block import BlockEncoding

    def take(fmt, x):
        if isinstance(x, BlockEncoding):
            return BlockEncoding(fmt, x.scale[idx], x.shift[idx], x.elem[idx])
        return np.asarray(x)[idx]

    return DotOperands(take(cfg.a, ops.a), take(cfg.b, ops.b), ops.sel_a[idx], ops.sel_b[idx], [(0, label)])


def _group(cfg, a, b, label, sel_a=None, sel_b=None):
    n = a.scale.shape[0] if hasattr(a, "scale") else len(a)
    z = np.zeros(n, np.int64)
    return DotOperands(a, b, z if sel_a is None else sel_a, z if sel_b is None else sel_b, [(0, label)])


def _directed_block(cfg, rng):
    fa, fb = cfg.a, cfg.b
    nb, k1 = cfg.nb, cfg.k1
    groups = []

    def fields(fmt, n, *, scale=None, nonzero=False, neg=None):
        lo, hi = _scale_range(fmt)
        sc = rng.integers(max(lo, (lo + hi) // 2 - 4), min(hi, (lo + hi) // 2 + 4) + 1, (n, nb)) if scale is None \
            else np.broadcast_to(np.asarray(scale), (n, nb))
        sh = rng.integers(0, fmt.beta + 1, (n, nb, fmt.n_sub)) if fmt.family == "bdr" else None
        el = _pos_codes(fmt, rng, (n, nb, k1), nonzero=nonzero)
        neg = rng.random((n, nb, k1)) < 0.5 if neg is None else neg
        return sc, sh, _with_sign(fmt, el, neg)

    def ops(fmt, sc, sh, el):
        return _block_ops(fmt, sc, sh, el)

    # zeros
    n = 6
    sa, ha, ea = fields(fa, n)
    sb, hb, eb = fields(fb, n)
    za = _with_sign(fa, np.zeros_like(ea), rng.random(ea.shape) < 0.5)
    zb = _with_sign(fb, np.zeros_like(eb), rng.random(eb.shape) < 0.5)
    groups.append(_group(cfg, ops(fa, sa, ha, za), ops(fb, sb, hb, eb), "zeros: A all zero"))
    groups.append(_group(cfg, ops(fa, sa, ha, za), ops(fb, sb, hb, zb), "zeros: both all zero"))
    if nb > 1:
        la, ha_ = _scale_range(fa)
        lb, hb_ = _scale_range(fb)
        sa, ha, ea = fields(fa, n, nonzero=True)
        sb, hb, eb = fields(fb, n, nonzero=True)
        sa = sa.copy()
        sb = sb.copy()
        sa[:, 0], sb[:, 0] = ha_, hb_
        ea = ea.copy()
        ea[:, 0] = _with_sign(fa, np.zeros_like(ea[:, 0]), rng.random(ea[:, 0].shape) < 0.5)
        groups.append(_group(cfg, ops(fa, sa, ha, ea), ops(fb, sb, hb, eb),
                             "zeros: a zero block at the largest scales beside live blocks"))
    # full cancellation
    n = 8
    sa, ha, ea = fields(fa, n, nonzero=True)
    sb, hb, eb = fields(fb, n, nonzero=True)
    ea, eb = ea.copy(), eb.copy()
    if nb >= 2:
        h = nb // 2
        for arr in (sa, sb):
            arr[:, h : 2 * h] = arr[:, :h]
        for arr in (ha, hb):
            if arr is not None:
                arr[:, h : 2 * h] = arr[:, :h]
        ea[:, h : 2 * h] = ea[:, :h]
        eb[:, h : 2 * h] = _flip(fb, eb[:, :h])
        if nb % 2:
            ea[:, -1] = _with_sign(fa, np.zeros_like(ea[:, -1]), False)
    else:
        h = k1 // 2
        ea[:, :, h:] = ea[:, :, :h]
        eb[:, :, h:] = _flip(fb, eb[:, :, :h])
        for arr in (ha, hb):
            if arr is not None:
                arr[:, :, :] = arr[:, :, :1]  # one shift per block: the mirrored halves cancel exactly
    groups.append(_group(cfg, ops(fa, sa, ha, ea), ops(fb, sb, hb, eb), "full cancellation: exact zero"))
    eb2 = eb.copy()
    eb2[:, -1, -1] = _flip(fb, eb2[:, -1, -1])
    groups.append(_group(cfg, ops(fa, sa, ha, ea), ops(fb, sb, hb, eb2), "near cancellation: a small residue"))
    # one dominant block
    if nb > 1:
        W, f = cfg.W, cfg.f
        dists = sorted({1, W - 1, f - 3, f - 2, f - 1, f, f + 1, f + 5, 2 * f + W, 10**6})
        la, ha_ = _scale_range(fa)
        rows_a, rows_b = [], []
        for d in dists:
            for _ in range(2):
                sa, ha, ea = fields(fa, 1, nonzero=True)
                sb, hb, eb = fields(fb, 1, nonzero=True)
                sa = sa.copy()
                sa[:, :] = ha_
                sa[:, 1:] = max(la, ha_ - d)
                sb = np.full_like(sb, (_scale_range(fb)[0] + _scale_range(fb)[1]) // 2)
                if fa.family == "bdr":
                    ha[:, 0] = 0
                rows_a.append((sa, ha, ea))
                rows_b.append((sb, hb, eb))
        groups.append(_group(cfg, _stack(fa, rows_a), _stack(fb, rows_b),
                             "one dominant block, the others at distances around the window edge and beyond"))
    # extreme scales
    la, ha_ = _scale_range(fa)
    lb, hb_ = _scale_range(fb)
    rows_a, rows_b = [], []
    for s_a, s_b in ((ha_, hb_), (la, lb), (ha_, lb), (la, hb_)):
        for _ in range(3):
            sa, ha, ea = fields(fa, 1, scale=s_a, nonzero=True)
            sb, hb, eb = fields(fb, 1, scale=s_b, nonzero=True)
            rows_a.append((sa, ha, ea))
            rows_b.append((sb, hb, eb))
    groups.append(_group(cfg, _stack(fa, rows_a), _stack(fb, rows_b), "largest and smallest scales"))
    # the result exponent across FP32's subnormal boundary: sweep the scale of A with B at its lowest
    rows_a, rows_b = [], []
    mid_b = lb
    for s_a in range(la, ha_ + 1, max(1, (ha_ - la) // 48)):
        sa, ha, ea = fields(fa, 1, scale=s_a, nonzero=True)
        sb, hb, eb = fields(fb, 1, scale=mid_b + (s_a % 3), nonzero=True)
        rows_a.append((sa, ha, ea))
        rows_b.append((sb, hb, eb))
    groups.append(_group(cfg, _stack(fa, rows_a), _stack(fb, rows_b), "scale sweep (FP32 range ends)"))
    # every sub-block shift combination
    if fa.family == "bdr" and (fa.beta or fb.beta):
        combos = [(x, y) for x in range(fa.beta + 1) for y in range(fb.beta + 1)]
        n = len(combos) * 2
        sa, ha, ea = fields(fa, n, nonzero=True)
        sb, hb, eb = fields(fb, n, nonzero=True)
        for v in range(n):
            for j in range(nb):
                for s in range(fa.n_sub):
                    ta, tb = combos[(v + s + j) % len(combos)]
                    ha[v, j, s], hb[v, j, s] = ta, tb
        groups.append(_group(cfg, ops(fa, sa, ha, ea), ops(fb, sb, hb, eb), "every sub-block shift combination"))
        sa, ha, ea = fields(fa, 4, nonzero=True)
        sb, hb, eb = fields(fb, 4, nonzero=True)
        ha[:] = fa.beta
        hb[:] = fb.beta
        groups.append(_group(cfg, ops(fa, sa, ha, ea), ops(fb, sb, hb, eb), "all sub-blocks at the largest shift"))
    # largest magnitudes (the W bound), both signs
    n = 4
    sa, ha, _ = fields(fa, n)
    sb, hb, _ = fields(fb, n)
    if ha is not None:
        ha[:] = 0
        hb[:] = 0
    ma, mb = _max_codes(fa), _max_codes(fb)
    neg = (np.arange(n) % 2 == 1)[:, None, None]
    ea = _with_sign(fa, np.broadcast_to(ma, (n, nb, k1)), np.broadcast_to(neg, (n, nb, k1)))
    eb = np.broadcast_to(mb, (n, nb, k1)).copy()
    if getattr(fa, "is_int", False):
        ea = np.where(neg, 0x80, ea)  # -128
    if getattr(fb, "is_int", False):
        eb = np.where(np.arange(n)[:, None, None] >= 2, 0x80, eb)
    groups.append(_group(cfg, ops(fa, sa, ha, ea), ops(fb, sb, hb, eb), "largest magnitudes, both signs"))
    # a single non-zero product in every lane
    n = cfg.r
    sa, ha, ea = fields(fa, n, nonzero=True)
    sb, hb, eb = fields(fb, n, nonzero=True)
    lane = np.arange(cfg.r).reshape(1, nb, k1) == np.arange(n)[:, None, None]
    ea = np.where(lane, ea, _with_sign(fa, np.zeros_like(ea), False))
    groups.append(_group(cfg, ops(fa, sa, ha, ea), ops(fb, sb, hb, eb), "a single non-zero product in every lane"))
    # special values
    if cfg.specials:
        groups.append(_specials_block(cfg, rng, fields, ops))
    return groups


def _flip(fmt, codes):
    from ..golden.block import BlockFormat

    if isinstance(fmt, BlockFormat):
        return codes ^ (1 << fmt.m)
    if getattr(fmt, "is_int", False):
        return (256 - codes) & 0xFF
    return codes ^ fmt.element.sign_mask


def _max_codes(fmt):
    from ..golden.block import BlockFormat

    if isinstance(fmt, BlockFormat):
        return (1 << fmt.m) - 1
    if fmt.is_int:
        return 127
    return fmt.element.max_code


def _stack(fmt, rows):
    sc = np.concatenate([r[0] for r in rows])
    sh = None if rows[0][1] is None else np.concatenate([r[1] for r in rows])
    el = np.concatenate([r[2] for r in rows])
    return _block_ops(fmt, sc, sh, el)


def _specials_block(cfg, rng, fields, ops):
    """NaN scale, NaN elements, Inf elements (with finite, with zero, of both signs)."""
    fa, fb = cfg.a, cfg.b
    n = 10
    sa, ha, ea = fields(fa, n, nonzero=True)
    sb, hb, eb = fields(fb, n, nonzero=True)
    sa, sb, ea, eb = sa.copy(), sb.copy(), ea.copy(), eb.copy()
    sa[0, 0] = 0xFF  # NaN scale in A
    sb[1, -1] = 0xFF  # NaN scale in B
    for fmt, arr, rows in ((fa, ea, (2, 3)), (fb, eb, (4,))):
        el = getattr(fmt, "element", None)
        if el is None or getattr(fmt, "is_int", False) or el.nan == "none":
            continue
        arr[rows[0], 0, 1] = el.nan_code()
        if el.has_inf:
            arr[rows[-1], 0, 2] = el.inf_code  # +Inf x finite
            arr[5, 0, 3] = el.inf_code | el.sign_mask  # -Inf
            arr[6, 0, 3] = el.inf_code  # +Inf ...
            arr[6, -1, 4] = el.inf_code | el.sign_mask  # ... and -Inf: NaN
    # Inf x 0
    for fmt, arr, other, oarr in ((fa, ea, fb, eb), (fb, eb, fa, ea)):
        el = getattr(fmt, "element", None)
        if el is not None and not getattr(fmt, "is_int", False) and el.has_inf:
            arr[7, 0, 0] = el.inf_code
            oarr[7, 0, 0] = _with_sign(other, np.zeros(1, np.int64), False)[0]
    return _group(cfg, ops(fa, sa, ha, ea), ops(fb, sb, hb, eb), "special values: NaN/Inf elements and scales")


def _scalar_codes(fmt, sel, rng, shape, *, ef=None, nonzero=True):
    """Finite codes of the scalar operand, format per vector from ``sel``; ``ef`` forces exponent fields."""
    from ..golden.dot import _float_fields

    out = np.zeros(shape, np.int64)
    for idx, el in enumerate(fmt.formats):
        codes = rng.integers(1 if nonzero else 0, el.sign_mask, shape)
        if ef is not None:
            e = np.broadcast_to(np.asarray(ef(el)), shape)
            codes = (e << el.mbits) | (codes & ((1 << el.mbits) - 1))
        _, _, _, nan, inf = _float_fields(el, codes)
        codes = np.where(nan | inf, codes - (1 << el.mbits), codes)
        codes = codes | (rng.integers(0, 2, shape) * el.sign_mask)
        out = np.where((sel == idx).reshape((-1,) + (1,) * (len(shape) - 1)), codes, out)
    return out


def _directed_scalar(cfg, rng):
    from ..golden.dot import _float_fields

    fa, fb = cfg.a, cfg.b
    r = cfg.r
    pairs = [(x, y) for x in range(len(fa.formats)) for y in range(len(fb.formats))]
    groups = []

    def sels(n):
        idx = np.arange(n) % len(pairs)
        return np.array([pairs[i][0] for i in idx]), np.array([pairs[i][1] for i in idx])

    def add(a, b, sa, sb, label):
        groups.append(DotOperands(a.astype(np.uint64), b.astype(np.uint64), sa, sb, [(0, label)]))

    def sign_of(fmt, sel):
        return np.array([fmt.formats[s].sign_mask for s in sel])[:, None]

    # zeros
    n = 2 * len(pairs)
    sa, sb = sels(n)
    a = _scalar_codes(fa, sa, rng, (n, r)) & sign_of(fa, sa)
    b = _scalar_codes(fb, sb, rng, (n, r))
    add(a, b, sa, sb, "zeros: A all zero (±0)")
    add(a, b & sign_of(fb, sb), sa, sb, "zeros: both all zero")
    # zero elements at the largest exponent beside live ones
    a = _scalar_codes(fa, sa, rng, (n, r))
    a[:, 0] = 0
    b = _scalar_codes(fb, sb, rng, (n, r), ef=lambda el: el.exp_max_field - (el.nan == "ieee"))
    add(a, b, sa, sb, "zeros: a zero element against the largest exponent")
    # full cancellation and a residue
    n = 4 * len(pairs)
    sa, sb = sels(n)
    a = _scalar_codes(fa, sa, rng, (n, r))
    b = _scalar_codes(fb, sb, rng, (n, r))
    h = r // 2
    a[:, h : 2 * h] = a[:, :h]
    b[:, h : 2 * h] = b[:, :h] ^ sign_of(fb, sb)
    if r % 2:
        a[:, -1] = 0
    add(a, b, sa, sb, "full cancellation: exact zero")
    b2 = b.copy()
    b2[:, 0] ^= sign_of(fb, sb)[:, 0]
    add(a, b2, sa, sb, "near cancellation: a residue")
    # one dominant product, the others at distances around the window edge
    rows = []
    for d in sorted({1, cfg.W - 1, cfg.f - 3, cfg.f - 2, cfg.f - 1, cfg.f, cfg.f + 2, 10**6}):
        for s_a, s_b in pairs:
            el_a, el_b = fa.formats[s_a], fb.formats[s_b]
            top_a = el_a.exp_max_field - (el_a.nan == "ieee")
            a = _scalar_codes(fa, np.array([s_a]), rng, (1, r))
            b = _scalar_codes(fb, np.array([s_b]), rng, (1, r))
            # product exponent offsets: A's exponent field sets the distance, B at its middle
            mid_b = max(1, el_b.exp_max_field // 2)
            a_e = np.full(r, max(1, top_a - d))
            a_e[0] = top_a
            a = (a & ~(el_a.exp_max_field << el_a.mbits)) | (a_e << el_a.mbits)
            _, _, _, nan, _ = _float_fields(el_a, a)
            a = np.where(nan, a - 1, a)
            b = (b & ~(el_b.exp_max_field << el_b.mbits)) | (mid_b << el_b.mbits)
            rows.append((a, b, s_a, s_b))
    add(np.concatenate([x[0] for x in rows]), np.concatenate([x[1] for x in rows]),
        np.array([x[2] for x in rows]), np.array([x[3] for x in rows]),
        "one dominant product, the others at distances around the window edge")
    # extreme exponents: largest (overflow is impossible for FP8 sums; checks the top) and subnormals
    n = 3 * len(pairs)
    sa, sb = sels(n)
    a = _scalar_codes(fa, sa, rng, (n, r), ef=lambda el: el.exp_max_field - (el.nan == "ieee"))
    b = _scalar_codes(fb, sb, rng, (n, r), ef=lambda el: el.exp_max_field - (el.nan == "ieee"))
    add(a, b, sa, sb, "largest exponents")
    a = _scalar_codes(fa, sa, rng, (n, r), ef=lambda el: 0)
    b = _scalar_codes(fb, sb, rng, (n, r), ef=lambda el: 0)
    add(a, b, sa, sb, "subnormal elements")
    # every lane alone
    n = r
    sa, sb = sels(n)
    a = _scalar_codes(fa, sa, rng, (n, r))
    a = np.where(np.eye(r, dtype=bool)[:n], a, 0)
    b = _scalar_codes(fb, sb, rng, (n, r))
    add(a, b, sa, sb, "a single non-zero product in every lane")
    # largest magnitudes, same sign
    n = len(pairs)
    sa, sb = sels(n)
    a = np.array([[fa.formats[s].max_code] * r for s in sa])
    b = np.array([[fb.formats[s].max_code] * r for s in sb])
    add(a, b, sa, sb, "largest magnitudes")
    # specials
    if cfg.specials:
        n = 6 * len(pairs)
        sa, sb = sels(n)
        a = _scalar_codes(fa, sa, rng, (n, r))
        b = _scalar_codes(fb, sb, rng, (n, r))
        for v in range(n):
            el_a, el_b = fa.formats[sa[v]], fb.formats[sb[v]]
            kind = v // len(pairs)
            if kind == 0 and el_a.has_nan:
                a[v, 1] = el_a.nan_code()
            elif kind == 1 and el_b.has_nan:
                b[v, 2] = el_b.nan_code(True)
            elif kind == 2 and el_a.has_inf:
                a[v, 0] = el_a.inf_code  # +Inf x finite
            elif kind == 3 and el_a.has_inf:
                a[v, 0] = el_a.inf_code
                b[v, 0] = 0  # Inf x 0
            elif kind == 4 and el_b.has_inf:
                b[v, 0] = el_b.inf_code
                b[v, 1] = el_b.inf_code | el_b.sign_mask  # +Inf and -Inf
                a[v, 1] = a[v, 1] & ~el_a.sign_mask
                a[v, 0] = a[v, 0] & ~el_a.sign_mask
            elif kind == 5 and el_b.has_inf:
                b[v, 3] = el_b.inf_code | el_b.sign_mask
                a[v, 3] = a[v, 3] | el_a.sign_mask  # -Inf x negative = +Inf
        add(a, b, sa, sb, "special values: NaN, Inf, Inf x 0, +Inf with -Inf")
    return groups


def _tie_candidates(cfg, rng):
    """Sparse and dense operands whose sums often need FP32 rounding near a tie."""
    from ..golden.dot import ScalarSet

    n = 6000
    if isinstance(cfg.a, ScalarSet):
        sa = rng.integers(0, len(cfg.a.formats), n)
        sb = rng.integers(0, len(cfg.b.formats), n)
        a = _scalar_codes(cfg.a, sa, rng, (n, cfg.r), ef=lambda el: rng.integers(0, el.exp_max_field, (n, cfg.r)))
        b = _scalar_codes(cfg.b, sb, rng, (n, cfg.r), ef=lambda el: rng.integers(0, el.exp_max_field, (n, cfg.r)))
        keep = rng.random((n, cfg.r)) < rng.choice([0.1, 0.3, 1.0], (n, 1))
        return DotOperands(np.where(keep, a, 0).astype(np.uint64), b.astype(np.uint64), sa, sb, [(0, "ties")])
    out = []
    for fmt in (cfg.a, cfg.b):
        lo, hi = _scale_range(fmt)
        # half near the middle of the scale range (normal-range ties when T is wide), half low (subnormal ties)
        base = np.where(rng.random((n, 1)) < 0.5, rng.integers(lo, hi + 1, (n, 1)),
                        rng.integers(lo, lo + max(2, (hi - lo) // 3) + 1, (n, 1)))
        sc = np.clip(base + rng.integers(-2, 3, (n, cfg.nb)), lo, hi)
        sh = rng.integers(0, fmt.beta + 1, (n, cfg.nb, fmt.n_sub)) if fmt.family == "bdr" else None
        el = _pos_codes(fmt, rng, (n, cfg.nb, cfg.k1))
        el = _with_sign(fmt, el, rng.random(el.shape) < 0.5)
        keep = rng.random(el.shape) < rng.choice([0.05, 0.2, 1.0], (n, 1, 1))
        el = np.where(keep, el, 0)
        out.append(_block_ops(fmt, sc, sh, el))
    z = np.zeros(n, np.int64)
    return DotOperands(out[0], out[1], z, z, [(0, "ties")])
