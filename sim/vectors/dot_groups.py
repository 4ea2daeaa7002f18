"""The directed dot-product stimulus, one named function per group of corner cases
(:data:`BLOCK_GROUPS` for block operands, :data:`SCALAR_GROUPS` for scalar FP8 operands, each in the order
it draws from the generator); :func:`fpforge.sim.vectors.dot.directed_dot_operands` runs them."""

from __future__ import annotations

import numpy as np

from .dot_codes import (
    DotOperands,
    block_operands,
    eoff_top,
    flip_sign,
    is_int_operand,
    labelled_group,
    max_codes,
    pos_codes,
    random_biases,
    scalar_codes,
    scalar_dot_fields,
    scale_range,
    stack_blocks,
    takes_bias,
    with_sign,
)

__all__ = ["BLOCK_GROUPS", "SCALAR_GROUPS", "directed_groups"]


class _BlockContext:
    """What the groups of block operands share: the configuration, the generator, the groups so far."""

    def __init__(self, cfg, rng):
        self.cfg, self.rng, self.groups = cfg, rng, []
        self.a, self.b, self.nb, self.k1 = cfg.a, cfg.b, cfg.nb, cfg.k1

    def fields(self, fmt, n, *, scale=None, nonzero=False, neg=None):
        """Random (scale, shifts, signed element codes) of n operands, scales near the middle of the range."""
        lo, hi = scale_range(fmt)
        mid = (lo + hi) // 2
        sc = self.rng.integers(max(lo, mid - 4), min(hi, mid + 4) + 1, (n, self.nb)) if scale is None \
            else np.broadcast_to(np.asarray(scale), (n, self.nb))
        sh = self.rng.integers(0, fmt.beta + 1, (n, self.nb, fmt.n_sub)) if fmt.dot_side.sub_block_guard else None
        el = pos_codes(fmt, self.rng, (n, self.nb, self.k1), nonzero=nonzero)
        neg = self.rng.random((n, self.nb, self.k1)) < 0.5 if neg is None else neg
        return sc, sh, with_sign(fmt, el, neg)

    def ops(self, fmt, sc, sh, el):
        return block_operands(fmt, sc, sh, el)


class _ScalarContext:
    """What the groups of scalar operands share: every (sel_a, sel_b) pair in turn, the groups so far."""

    def __init__(self, cfg, rng):
        self.cfg, self.rng, self.groups = cfg, rng, []
        self.a, self.b = cfg.a, cfg.b
        self.pairs = [(x, y) for x in range(len(cfg.a.formats)) for y in range(len(cfg.b.formats))]
        self.bias_rng = np.random.default_rng(rng.integers(1 << 32))  # run-time biases apart from the codes

    def sels(self, n):
        idx = np.arange(n) % len(self.pairs)
        return np.array([self.pairs[i][0] for i in idx]), np.array([self.pairs[i][1] for i in idx])

    def add(self, a, b, sa, sb, label, bias_a=None, bias_b=None):
        """One group; operands with a run-time bias get random biases (a quarter each at 0 and 63) unless given."""
        n = len(sa)
        if bias_a is None and takes_bias(self.a):
            bias_a = random_biases(self.bias_rng, n)
        if bias_b is None and takes_bias(self.b):
            bias_b = random_biases(self.bias_rng, n)
        self.groups.append(DotOperands(a.astype(np.uint64), b.astype(np.uint64), sa, sb, [(0, label)], bias_a,
                                       bias_b))

    @staticmethod
    def sign_of(fmt, sel):
        return np.array([fmt.formats[s].sign_mask for s in sel])[:, None]


# -- block operands --------------------------------------------------------------------------------------
def block_zeros(ctx):
    """Zeros."""
    cfg, rng, fa, fb, nb, fields, ops = ctx.cfg, ctx.rng, ctx.a, ctx.b, ctx.nb, ctx.fields, ctx.ops
    n = 6
    sa, ha, ea = fields(fa, n)
    sb, hb, eb = fields(fb, n)
    za = with_sign(fa, np.zeros_like(ea), rng.random(ea.shape) < 0.5)
    zb = with_sign(fb, np.zeros_like(eb), rng.random(eb.shape) < 0.5)
    ctx.groups.append(labelled_group(cfg, ops(fa, sa, ha, za), ops(fb, sb, hb, eb), "zeros: A all zero"))
    ctx.groups.append(labelled_group(cfg, ops(fa, sa, ha, za), ops(fb, sb, hb, zb), "zeros: both all zero"))
    if nb > 1:
        la, ha_ = scale_range(fa)
        lb, hb_ = scale_range(fb)
        sa, ha, ea = fields(fa, n, nonzero=True)
        sb, hb, eb = fields(fb, n, nonzero=True)
        sa = sa.copy()
        sb = sb.copy()
        sa[:, 0], sb[:, 0] = ha_, hb_
        ea = ea.copy()
        ea[:, 0] = with_sign(fa, np.zeros_like(ea[:, 0]), rng.random(ea[:, 0].shape) < 0.5)
        ctx.groups.append(labelled_group(cfg, ops(fa, sa, ha, ea), ops(fb, sb, hb, eb),
                             "zeros: a zero block at the largest scales beside live blocks"))


def block_cancellation(ctx):
    """Full cancellation."""
    cfg, fa, fb, nb, k1, fields, ops = ctx.cfg, ctx.a, ctx.b, ctx.nb, ctx.k1, ctx.fields, ctx.ops
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
        eb[:, h : 2 * h] = flip_sign(fb, eb[:, :h])
        if nb % 2:
            ea[:, -1] = with_sign(fa, np.zeros_like(ea[:, -1]), False)
    else:
        h = k1 // 2
        ea[:, :, h:] = ea[:, :, :h]
        eb[:, :, h:] = flip_sign(fb, eb[:, :, :h])
        for arr in (ha, hb):
            if arr is not None:
                arr[:, :, :] = arr[:, :, :1]  # one shift per block: the mirrored halves cancel exactly
    ctx.groups.append(labelled_group(cfg, ops(fa, sa, ha, ea), ops(fb, sb, hb, eb), "full cancellation: exact zero"))
    eb2 = eb.copy()
    eb2[:, -1, -1] = flip_sign(fb, eb2[:, -1, -1])
    ctx.groups.append(labelled_group(cfg, ops(fa, sa, ha, ea), ops(fb, sb, hb, eb2), "near cancellation: a small residue"))


def dominant_block(ctx):
    """One dominant block."""
    cfg, fa, fb, nb, fields = ctx.cfg, ctx.a, ctx.b, ctx.nb, ctx.fields
    if nb > 1:
        W, f = cfg.W, cfg.f
        dists = sorted({1, W - 1, f - 3, f - 2, f - 1, f, f + 1, f + 5, 2 * f + W, 10**6})
        la, ha_ = scale_range(fa)
        rows_a, rows_b = [], []
        for d in dists:
            for _ in range(2):
                sa, ha, ea = fields(fa, 1, nonzero=True)
                sb, hb, eb = fields(fb, 1, nonzero=True)
                sa = sa.copy()
                sa[:, :] = ha_
                sa[:, 1:] = max(la, ha_ - d)
                sb = np.full_like(sb, (scale_range(fb)[0] + scale_range(fb)[1]) // 2)
                if fa.dot_side.sub_block_guard:
                    ha[:, 0] = 0
                rows_a.append((sa, ha, ea))
                rows_b.append((sb, hb, eb))
        ctx.groups.append(labelled_group(cfg, stack_blocks(fa, rows_a), stack_blocks(fb, rows_b),
                             "one dominant block, the others at distances around the window edge and beyond"))


def extreme_scales(ctx):
    """Extreme scales."""
    cfg, fa, fb, fields = ctx.cfg, ctx.a, ctx.b, ctx.fields
    la, ha_ = scale_range(fa)
    lb, hb_ = scale_range(fb)
    rows_a, rows_b = [], []
    for s_a, s_b in ((ha_, hb_), (la, lb), (ha_, lb), (la, hb_)):
        for _ in range(3):
            sa, ha, ea = fields(fa, 1, scale=s_a, nonzero=True)
            sb, hb, eb = fields(fb, 1, scale=s_b, nonzero=True)
            rows_a.append((sa, ha, ea))
            rows_b.append((sb, hb, eb))
    ctx.groups.append(labelled_group(cfg, stack_blocks(fa, rows_a), stack_blocks(fb, rows_b), "largest and smallest scales"))


def scale_sweep(ctx):
    """The result exponent across FP32's subnormal boundary: sweep the scale of A with B at its lowest."""
    cfg, fa, fb, fields = ctx.cfg, ctx.a, ctx.b, ctx.fields
    la, ha_ = scale_range(fa)
    lb, hb_ = scale_range(fb)
    rows_a, rows_b = [], []
    mid_b = lb
    for s_a in range(la, ha_ + 1, max(1, (ha_ - la) // 48)):
        sa, ha, ea = fields(fa, 1, scale=s_a, nonzero=True)
        sb, hb, eb = fields(fb, 1, scale=mid_b + (s_a % 3), nonzero=True)
        rows_a.append((sa, ha, ea))
        rows_b.append((sb, hb, eb))
    ctx.groups.append(labelled_group(cfg, stack_blocks(fa, rows_a), stack_blocks(fb, rows_b), "scale sweep (FP32 range ends)"))


def shift_combinations(ctx):
    """Every sub-block shift combination."""
    cfg, fa, fb, nb, fields, ops = ctx.cfg, ctx.a, ctx.b, ctx.nb, ctx.fields, ctx.ops
    if fa.dot_side.sub_block_guard and (fa.beta or fb.beta):
        combos = [(x, y) for x in range(fa.beta + 1) for y in range(fb.beta + 1)]
        n = len(combos) * 2
        sa, ha, ea = fields(fa, n, nonzero=True)
        sb, hb, eb = fields(fb, n, nonzero=True)
        for v in range(n):
            for j in range(nb):
                for s in range(fa.n_sub):
                    ta, tb = combos[(v + s + j) % len(combos)]
                    ha[v, j, s], hb[v, j, s] = ta, tb
        ctx.groups.append(labelled_group(cfg, ops(fa, sa, ha, ea), ops(fb, sb, hb, eb), "every sub-block shift combination"))
        sa, ha, ea = fields(fa, 4, nonzero=True)
        sb, hb, eb = fields(fb, 4, nonzero=True)
        ha[:] = fa.beta
        hb[:] = fb.beta
        ctx.groups.append(labelled_group(cfg, ops(fa, sa, ha, ea), ops(fb, sb, hb, eb), "all sub-blocks at the largest shift"))


def largest_block_magnitudes(ctx):
    """Largest magnitudes (the W bound), both signs."""
    cfg, fa, fb, nb, k1, fields, ops = ctx.cfg, ctx.a, ctx.b, ctx.nb, ctx.k1, ctx.fields, ctx.ops
    n = 4
    sa, ha, _ = fields(fa, n)
    sb, hb, _ = fields(fb, n)
    if ha is not None:
        ha[:] = 0
        hb[:] = 0
    ma, mb = max_codes(fa), max_codes(fb)
    neg = (np.arange(n) % 2 == 1)[:, None, None]
    ea = with_sign(fa, np.broadcast_to(ma, (n, nb, k1)), np.broadcast_to(neg, (n, nb, k1)))
    eb = np.broadcast_to(mb, (n, nb, k1)).copy()
    if is_int_operand(fa):
        ea = np.where(neg, 0x80, ea)  # -128
    if is_int_operand(fb):
        eb = np.where(np.arange(n)[:, None, None] >= 2, 0x80, eb)
    ctx.groups.append(labelled_group(cfg, ops(fa, sa, ha, ea), ops(fb, sb, hb, eb), "largest magnitudes, both signs"))


def single_product_blocks(ctx):
    """A single non-zero product in every lane."""
    cfg, fa, fb, nb, k1, fields, ops = ctx.cfg, ctx.a, ctx.b, ctx.nb, ctx.k1, ctx.fields, ctx.ops
    n = cfg.r
    sa, ha, ea = fields(fa, n, nonzero=True)
    sb, hb, eb = fields(fb, n, nonzero=True)
    lane = np.arange(cfg.r).reshape(1, nb, k1) == np.arange(n)[:, None, None]
    ea = np.where(lane, ea, with_sign(fa, np.zeros_like(ea), False))
    ctx.groups.append(labelled_group(cfg, ops(fa, sa, ha, ea), ops(fb, sb, hb, eb), "a single non-zero product in every lane"))


def block_specials(ctx):
    """Special values (operands that can carry NaN/Inf only)."""
    if ctx.cfg.specials:
        ctx.groups.append(_specials_block(ctx))


def _specials_block(ctx):
    """NaN scale, NaN elements, Inf elements (with finite, with zero, of both signs)."""
    cfg, fa, fb, fields, ops = ctx.cfg, ctx.a, ctx.b, ctx.fields, ctx.ops
    n = 10
    sa, ha, ea = fields(fa, n, nonzero=True)
    sb, hb, eb = fields(fb, n, nonzero=True)
    sa, sb, ea, eb = sa.copy(), sb.copy(), ea.copy(), eb.copy()
    sa[0, 0] = 0xFF  # NaN scale in A
    sb[1, -1] = 0xFF  # NaN scale in B
    for fmt, arr, rows in ((fa, ea, (2, 3)), (fb, eb, (4,))):
        el = fmt.element if fmt.dot_side.product_shift else None
        if el is None or is_int_operand(fmt) or not (el.has_nan or el.has_inf):
            continue
        arr[rows[0], 0, 1] = el.nan_code()
        if el.has_inf:
            arr[rows[-1], 0, 2] = el.inf_code  # +Inf x finite
            arr[5, 0, 3] = el.inf_code | el.sign_mask  # -Inf
            arr[6, 0, 3] = el.inf_code  # +Inf ...
            arr[6, -1, 4] = el.inf_code | el.sign_mask  # ... and -Inf: NaN
    # Inf x 0
    for fmt, arr, other, oarr in ((fa, ea, fb, eb), (fb, eb, fa, ea)):
        el = fmt.element if fmt.dot_side.product_shift else None
        if el is not None and not is_int_operand(fmt) and el.has_inf:
            arr[7, 0, 0] = el.inf_code
            oarr[7, 0, 0] = with_sign(other, np.zeros(1, np.int64), False)[0]
    return labelled_group(cfg, ops(fa, sa, ha, ea), ops(fb, sb, hb, eb), "special values: NaN/Inf elements and scales")


# -- scalar operands -------------------------------------------------------------------------------------
def scalar_zeros(ctx):
    """Zeros; zero elements at the largest exponent beside live ones."""
    rng, fa, fb, r, pairs = ctx.rng, ctx.a, ctx.b, ctx.cfg.r, ctx.pairs
    sels, add, sign_of = ctx.sels, ctx.add, ctx.sign_of
    n = 2 * len(pairs)
    sa, sb = sels(n)
    a = scalar_codes(fa, sa, rng, (n, r)) & sign_of(fa, sa)
    b = scalar_codes(fb, sb, rng, (n, r))
    add(a, b, sa, sb, "zeros: A all zero (±0)")
    add(a, b & sign_of(fb, sb), sa, sb, "zeros: both all zero")
    # zero elements at the largest exponent beside live ones
    a = scalar_codes(fa, sa, rng, (n, r))
    a[:, 0] = 0
    b = scalar_codes(fb, sb, rng, (n, r), ef=lambda el: el.max_code >> el.mbits, level=eoff_top)
    add(a, b, sa, sb, "zeros: a zero element against the largest exponent")


def scalar_cancellation(ctx):
    """Full cancellation and a residue."""
    rng, fa, fb, r, pairs = ctx.rng, ctx.a, ctx.b, ctx.cfg.r, ctx.pairs
    sels, add, sign_of = ctx.sels, ctx.add, ctx.sign_of
    n = 4 * len(pairs)
    sa, sb = sels(n)
    a = scalar_codes(fa, sa, rng, (n, r))
    b = scalar_codes(fb, sb, rng, (n, r))
    h = r // 2
    a[:, h : 2 * h] = a[:, :h]
    b[:, h : 2 * h] = b[:, :h] ^ sign_of(fb, sb)
    if r % 2:
        a[:, -1] = 0
    add(a, b, sa, sb, "full cancellation: exact zero")
    b2 = b.copy()
    b2[:, 0] ^= sign_of(fb, sb)[:, 0]
    add(a, b2, sa, sb, "near cancellation: a residue")


def dominant_product(ctx):
    """One dominant product, the others at distances around the window edge."""
    cfg, rng, fa, fb, r, pairs = ctx.cfg, ctx.rng, ctx.a, ctx.b, ctx.cfg.r, ctx.pairs
    add = ctx.add
    rows = []
    for d in sorted({1, cfg.W - 1, cfg.f - 3, cfg.f - 2, cfg.f - 1, cfg.f, cfg.f + 2, 10**6}):
        for s_a, s_b in pairs:
            el_a, el_b = fa.formats[s_a], fb.formats[s_b]
            if not hasattr(el_a, "exp_max_field") or not hasattr(el_b, "exp_max_field"):  # by exponent offsets
                top = eoff_top(el_a)
                lv = np.full((1, r), max(0, top - d))
                lv[0, 0] = top
                a = scalar_codes(fa, np.array([s_a]), rng, (1, r), ef=lambda el: np.maximum(
                    1, (el.max_code >> el.mbits) - np.minimum(d, top - lv)), level=lambda el: lv)
                b = scalar_codes(fb, np.array([s_b]), rng, (1, r), ef=lambda el: max(1, el.exp_max_field // 2),
                                  level=lambda el: eoff_top(el) // 2)
                rows.append((a, b, s_a, s_b))
                continue
            top_a = el_a.max_code >> el_a.mbits
            a = scalar_codes(fa, np.array([s_a]), rng, (1, r))
            b = scalar_codes(fb, np.array([s_b]), rng, (1, r))
            # product exponent offsets: A's exponent field sets the distance, B at its middle
            mid_b = max(1, el_b.exp_max_field // 2)
            a_e = np.full(r, max(1, top_a - d))
            a_e[0] = top_a
            a = (a & ~(el_a.exp_max_field << el_a.mbits)) | (a_e << el_a.mbits)
            _, _, _, nan, _ = scalar_dot_fields(el_a, a)
            a = np.where(nan, a - 1, a)
            b = (b & ~(el_b.exp_max_field << el_b.mbits)) | (mid_b << el_b.mbits)
            rows.append((a, b, s_a, s_b))
    add(np.concatenate([x[0] for x in rows]), np.concatenate([x[1] for x in rows]),
        np.array([x[2] for x in rows]), np.array([x[3] for x in rows]),
        "one dominant product, the others at distances around the window edge")


def extreme_exponents(ctx):
    """Extreme exponents: largest (overflow is impossible for FP8 sums; checks the top) and subnormals."""
    rng, fa, fb, r, pairs = ctx.rng, ctx.a, ctx.b, ctx.cfg.r, ctx.pairs
    sels, add = ctx.sels, ctx.add
    n = 3 * len(pairs)
    sa, sb = sels(n)
    top = lambda el: el.max_code >> el.mbits  # noqa: E731
    a = scalar_codes(fa, sa, rng, (n, r), ef=top, level=eoff_top)
    b = scalar_codes(fb, sb, rng, (n, r), ef=top, level=eoff_top)
    ends = np.arange(n) % 2 == 0  # largest exponents at the smallest bias, and at the largest
    add(a, b, sa, sb, "largest exponents", np.where(ends, 0, 63), np.where(ends, 0, 63))
    a = scalar_codes(fa, sa, rng, (n, r), ef=lambda el: 0, level=lambda el: 0)
    b = scalar_codes(fb, sb, rng, (n, r), ef=lambda el: 0, level=lambda el: 0)
    add(a, b, sa, sb, "subnormal elements", np.where(ends, 63, 0), np.where(ends, 63, 0))


def single_products(ctx):
    """Every lane alone."""
    rng, fa, fb, r = ctx.rng, ctx.a, ctx.b, ctx.cfg.r
    sels, add = ctx.sels, ctx.add
    n = r
    sa, sb = sels(n)
    a = scalar_codes(fa, sa, rng, (n, r))
    a = np.where(np.eye(r, dtype=bool)[:n], a, 0)
    b = scalar_codes(fb, sb, rng, (n, r))
    add(a, b, sa, sb, "a single non-zero product in every lane")


def largest_scalar_magnitudes(ctx):
    """Largest magnitudes, same sign."""
    fa, fb, r, pairs = ctx.a, ctx.b, ctx.cfg.r, ctx.pairs
    sels, add = ctx.sels, ctx.add
    n = len(pairs)
    sa, sb = sels(n)
    a = np.array([[fa.formats[s].max_code] * r for s in sa])
    b = np.array([[fb.formats[s].max_code] * r for s in sb])
    add(a, b, sa, sb, "largest magnitudes")


def scalar_specials(ctx):
    """Specials."""
    cfg, rng, fa, fb, r, pairs = ctx.cfg, ctx.rng, ctx.a, ctx.b, ctx.cfg.r, ctx.pairs
    sels, add = ctx.sels, ctx.add
    if cfg.specials:
        n = 6 * len(pairs)
        sa, sb = sels(n)
        a = scalar_codes(fa, sa, rng, (n, r))
        b = scalar_codes(fb, sb, rng, (n, r))
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


#: The directed groups of block operands, in the order they draw from the generator.
BLOCK_GROUPS = (block_zeros, block_cancellation, dominant_block, extreme_scales, scale_sweep, shift_combinations,
                largest_block_magnitudes, single_product_blocks, block_specials)

#: The directed groups of scalar operands, in the order they draw from the generator.
SCALAR_GROUPS = (scalar_zeros, scalar_cancellation, dominant_product, extreme_exponents, single_products,
                 largest_scalar_magnitudes, scalar_specials)


def directed_groups(cfg, rng) -> list:
    """The DotOperands of every directed group of ``cfg`` (block or scalar operands), in order."""
    scalar = cfg.a.dot_side.element_block_exponent
    ctx = (_ScalarContext if scalar else _BlockContext)(cfg, rng)
    for group in SCALAR_GROUPS if scalar else BLOCK_GROUPS:
        group(ctx)
    return ctx.groups
