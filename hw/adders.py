"""Log-depth multi-operand addition for the anchored dot datapath (``fpforge.hw.dot``, docs/dot.md "Datapaths"):
a carry-save (Wallace) reduction of many addends to two words with full adders, and one parallel-prefix
(Sklansky) carry-propagate adder, written in gates so the depth stays logarithmic whatever the mapper does.

Addends are *terms* modulo ``2**width``: ``("mag", bits, neg)`` is ``-bits`` when ``neg`` else ``bits``
(``bits`` unsigned; the negation is folded into the reduction as ``~bits + 1``), ``("signed", value)`` a
two's-complement value. Sign extension never enters the reduction: a term of w bits contributes its w bits,
one inverted sign bit at column w, and a constant ``-2**w`` that all terms share in one constant word.
"""

from amaranth import Cat, Const, Mux, Signal, signed

__all__ = ["PREFIX_STYLES", "compress", "prefix_add", "sum_terms"]


def compress(m, columns, width, name):
    """Reduce ``columns`` (``width`` lists of 1-bit Values, column i weighing ``2**i``) with full adders until
    every column holds at most two bits (Wallace); carries out of column ``width - 1`` are dropped (the sum is
    modulo ``2**width``). Returns the two words (unsigned Signals of ``width`` bits) whose sum is the total."""
    cols = [list(c) for c in columns]
    stage = 0
    while max(len(c) for c in cols) > 2:
        nxt = [[] for _ in range(width)]
        for i, col in enumerate(cols):
            k = 0
            while len(col) - k >= 3:
                x, y, z = col[k : k + 3]
                s, c = Signal(name=f"{name}_s{stage}_{i}_{k // 3}"), Signal(name=f"{name}_c{stage}_{i}_{k // 3}")
                m.d.comb += [s.eq(x ^ y ^ z), c.eq((x & y) | (x & z) | (y & z))]
                nxt[i].append(s)
                if i + 1 < width:
                    nxt[i + 1].append(c)
                k += 3
            nxt[i].extend(col[k:])
        cols, stage = nxt, stage + 1
    words = []
    for w in range(2):
        word = Signal(width, name=f"{name}_w{w}")
        m.d.comb += word.eq(Cat(*(c[w] if len(c) > w else Const(0, 1) for c in cols)))
        words.append(word)
    return words


#: The parallel-prefix carry networks :func:`prefix_add` builds (docs/dot.md "Datapaths" has their measured area
#: and depth in the anchored dot unit).
PREFIX_STYLES = ("sklansky", "brent_kung", "han_carlson")


def _prefix_pairs(width, style):
    """The (i, j) merges of each level of the carry network: ``(G, P)[i] = (G, P)[i] o (G, P)[j]`` for every
    pair of a level, the levels in order; afterwards ``G[i]`` is the carry out of bits 0..i."""
    levels = []
    if style == "sklansky":
        span = 1
        while span < width:
            levels.append([(i, (i // span) * span - 1) for i in range(width) if i & span])
            span *= 2
    elif style == "brent_kung":
        span = 1
        while span < width:  # up-sweep: the power-of-two blocks
            levels.append([(i, i - span) for i in range(2 * span - 1, width, 2 * span)])
            span *= 2
        span //= 4
        while span >= 1:  # down-sweep: the rest
            levels.append([(i, i - span) for i in range(3 * span - 1, width, 2 * span)])
            span //= 2
    else:  # han_carlson: Kogge-Stone on the odd bits, then one level for the even ones
        span = 1
        while span < width:
            levels.append([(i, i - span) for i in range(1, width, 2) if i - span >= 0])
            span *= 2
        levels.append([(i, i - 1) for i in range(2, width, 2)])
    return [lvl for lvl in levels if lvl]


def prefix_add(m, a, b, name, style="sklansky"):
    """``a + b`` modulo ``2**len(a)`` (``a``, ``b`` of equal width) as a parallel-prefix adder with the carry
    network ``style`` (:data:`PREFIX_STYLES`): generate/propagate per bit, the network's merges, then one XOR
    per bit."""
    width = len(a)
    p = [a[i] ^ b[i] for i in range(width)]
    G, P = [a[i] & b[i] for i in range(width)], list(p)
    for k, pairs in enumerate(_prefix_pairs(width, style)):
        nG, nP = list(G), list(P)
        for i, j in pairs:
            nG[i] = G[i] | (P[i] & G[j])
            nP[i] = P[i] & P[j]
        lvl = Signal(width, name=f"{name}_g{k}")
        m.d.comb += lvl.eq(Cat(*nG))
        G, P = [lvl[i] for i in range(width)], nP
    out = Signal(width, name=name)
    m.d.comb += out.eq(Cat(p[0], *(p[i] ^ G[i - 1] for i in range(1, width))))
    return out


def sum_terms(m, terms, width, name):
    """The two's-complement sum (a signed Signal of ``width`` bits, modulo ``2**width``) of ``terms`` (see the
    module docstring): one carry-save reduction and one :func:`prefix_add`. The signs' ``+1`` and the sign
    extensions go into one correction word (``sum(neg * (1 - 2**w)) + constant``), computed beside the terms, so
    every column of the reduction holds at most one bit per term plus one."""
    columns = [[] for _ in range(width)]
    const, negs = 0, []
    for term in terms:
        if term[0] == "mag":
            _, bits, neg = term
            w = min(len(bits), width)
            for i in range(w):
                columns[i].append(bits[i] ^ neg)
            negs.append((neg, (1 - (1 << w)) % (1 << width)))  # -bits = ~bits + 1 - 2**w (mod 2**width)
        else:
            _, value = term
            w = min(len(value), width)
            for i in range(w - 1):
                columns[i].append(value[i])
            if w < width:  # the sign bit weighs -2**(w - 1): ~s * 2**(w - 1) - 2**(w - 1)
                columns[w - 1].append(~value[w - 1])
                const -= 1 << (w - 1)
            else:
                columns[w - 1].append(value[w - 1])
    if negs or const % (1 << width):
        corr = Signal(width, name=f"{name}_corr")
        parts = [Mux(neg, c, 0) for neg, c in negs]
        while len(parts) > 1:  # a balanced tree of the sign corrections (off the critical path)
            parts = [parts[i] + parts[i + 1] for i in range(0, len(parts) - 1, 2)] + parts[len(parts) & ~1:]
        m.d.comb += corr.eq((parts[0] if parts else 0) + const % (1 << width))
        for i in range(width):
            columns[i].append(corr[i])
    a, b = compress(m, columns, width, name)
    total = Signal(signed(width), name=f"{name}_sum")
    m.d.comb += total.eq(prefix_add(m, a, b, f"{name}_cpa"))
    return total
