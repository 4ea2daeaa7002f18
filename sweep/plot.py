"""The sweep's figure (the MX paper's Fig. 7): QSNR against cost = area x memory relative to FP8, log x axis,
every point coloured by its bits per element, the Pareto frontier as a line, every named format labelled (its
marker drawn above the frontier line), and a caption saying how the INT/FP8 points' per-vector FP32 scale
is counted."""

from __future__ import annotations

import io
import math

import numpy as np

from ..golden.errors import FpforgeValueError
from .table import SCALE_BITS, SCALED_FAMILIES

__all__ = ["FACETS", "LABELS", "check_facet", "label", "pareto_figure", "plot_pareto", "scale_caption"]

#: Points labelled on the figure (row name -> label), when present; ``intN`` points are labelled ``INTN``
#: (:func:`label`).
LABELS = {"mx9": "MX9", "mx6": "MX6", "mx4": "MX4", "e4m3": "E4M3", "e5m2": "E5M2", "msfp12": "MSFP12",
          "msfp16": "MSFP16", "mxfp8_e4m3": "MXFP8 (E4M3)", "mxfp8_e5m2": "MXFP8 (E5M2)", "mxint8": "MXINT8",
          "mxfp6_e3m2": "MXFP6 (E3M2)", "mxfp6_e2m3": "MXFP6 (E2M3)", "mxfp4_e2m1": "MXFP4", "int8": "INT8",
          "hif8": "HiF8", "cfloat8_143": "CFloat8 1-4-3", "cfloat8_152": "CFloat8 1-5-2"}

#: Marks the label of a point whose QSNR uses a per-vector FP32 scale outside its format (the caption says).
SCALE_MARK = "*"


def label(row):
    """The figure's label of a row (a dict with ``name`` and ``family``), or None for an unnamed grid point.
    Points whose QSNR uses a per-vector FP32 scale outside the format (INT, FP8) end in ``*``."""
    name = row["name"]
    text = LABELS.get(name)
    if text is None and row.get("family") == "int" and name.startswith("int") and name[3:].isdigit():
        text = name.upper()
    if text is None:
        return None
    return text + SCALE_MARK if row.get("family") in SCALED_FAMILIES else text


def scale_caption(rows):
    """The caption line on the INT/FP8 points' per-vector FP32 scale under the rows' reading (None: no such
    point)."""
    from .space import VECTOR_LENGTH

    scaled = [r for r in rows if r.get("family") in SCALED_FAMILIES]
    if not scaled:
        return None
    per = SCALE_BITS / VECTOR_LENGTH
    if any(r.get("scale_bits_counted") for r in scaled):
        return (f"{SCALE_MARK} INT and FP8 points: QSNR with a per-vector FP32 scale ({SCALE_BITS} bits per "
                f"{VECTOR_LENGTH} values), COUNTED here: +{per:g} bits per element in their bits, memory and cost "
                "(--count-scale-bits).")
    return (f"{SCALE_MARK} INT and FP8 points: QSNR with a per-vector FP32 scale ({SCALE_BITS} bits per {VECTOR_LENGTH}"
            f" values) that their bits per element and memory do NOT count (the paper's reading; "
            f"--count-scale-bits adds +{per:g} bits per element).")


# Label offsets tried around a point (points), nearest first.
_OFFSETS = [(dx * s, dy * s) for s in (1.0, 1.4, 1.8, 2.3, 2.7, 3.2, 3.8, 4.5, 5.3) for dx, dy in
            ((14, 10), (14, -14), (-14, 10), (-14, -14), (0, 16), (0, -20), (22, 0), (-22, 0),
             (8, 18), (-8, 18), (8, -20), (-8, -20), (22, 6), (-22, 6), (22, -8), (-22, -8))]


def _crosses(a, b, c, d):
    """Whether segments ab and cd cross (proper intersection)."""
    def side(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    return side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0


def _place_labels(ax, fig, items, xy_all):
    """Annotate ``items`` ((x, y, text)) choosing, for each, the offset whose text box overlaps the fewest
    already placed labels and plotted points, whose box and leader line hide no other labelled point and
    cross no placed label, and which stays inside the axes (a greedy repel; deterministic). Text boxes are
    computed from the renderer's text extents, before anything is drawn."""
    from matplotlib.transforms import Bbox

    renderer = fig.canvas.get_renderer()
    to_px = ax.transData.transform
    pts_px = np.asarray(to_px(xy_all) if len(xy_all) else np.zeros((0, 2)))
    frame = ax.get_window_extent(renderer)
    scale = fig.dpi / 72.0
    fontsize = 8.5
    placed, leaders = [], []
    named_px = [tuple(to_px((x, y))) for x, y, _ in items]
    for x, y, text in sorted(items, key=lambda t: (t[0], -t[1])):
        w, h, _ = renderer.get_text_width_height_descent(text, _font(fontsize), ismath=False)
        w, h = w + 10 * scale, h + 10 * scale  # the white box around the text (pad 0.2 em), with a margin
        px, py = to_px((x, y))
        others = [(qx, qy) for qx, qy in named_px if math.hypot(qx - px, qy - py) > 1]
        best = None
        for dx, dy in _OFFSETS:
            ox, oy = px + dx * scale, py + dy * scale
            x0 = ox if dx > 0 else ox - w if dx < 0 else ox - w / 2
            y0 = oy if dy > 0 else oy - h if dy < 0 else oy - h / 2
            box = Bbox.from_bounds(x0, y0, w, h)
            score = 2000 * sum(box.overlaps(b) for b in placed)  # (worse than leaving the axes: never, if avoidable)
            score += int(np.count_nonzero((pts_px[:, 0] >= box.x0 - 3) & (pts_px[:, 0] <= box.x1 + 3)
                                          & (pts_px[:, 1] >= box.y0 - 3) & (pts_px[:, 1] <= box.y1 + 3)))
            score += 100 * sum(1 for qx, qy in others if box.x0 - 6 <= qx <= box.x1 + 6 and box.y0 - 6 <= qy <= box.y1 + 6)
            leader = [(px + (ox - px) * t / 16, py + (oy - py) * t / 16) for t in range(2, 17)]
            score += 100 * sum(1 for b in placed if any(b.contains(lx, ly) for lx, ly in leader))
            score += 100 * sum(1 for qx, qy in others if any(math.hypot(qx - lx, qy - ly) < 7 for lx, ly in leader))
            score += 50 * sum(1 for a, b in leaders if _crosses((px, py), (ox, oy), a, b))
            if not (frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1):
                score += 1000
            score += math.hypot(dx, dy) / 100
            if best is None or score < best[0]:
                best = (score, dx, dy, box)
        _, dx, dy, box = best
        placed.append(box)
        leaders.append(((px, py), (px + dx * scale, py + dy * scale)))
        ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=fontsize,
                    ha="left" if dx > 0 else "right" if dx < 0 else "center",
                    va="bottom" if dy > 0 else "top" if dy < 0 else "center",
                    bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="none", alpha=0.85),
                    arrowprops=dict(arrowstyle="-", lw=0.6, color="0.25", shrinkA=0, shrinkB=4), zorder=_Z_LABEL)


def _font(size):
    from matplotlib.font_manager import FontProperties

    return FontProperties(size=size)


# Drawing order: grid, points, the frontier line and its rings, then the named formats' markers above the
# line (a named point on the frontier stays visible), then the labels.
_Z_POINTS, _Z_FRONT, _Z_NAMED, _Z_LABEL = 3, 4, 7, 8


#: Axes a figure can facet by (one subplot per value, when the space sweeps that axis).
FACETS = ("r", "f")


def check_facet(space, facet):
    """``facet`` (None, ``"r"`` or ``"f"``) against the axes ``space`` sweeps; returns it."""
    if facet is None:
        return None
    if facet not in FACETS:
        raise FpforgeValueError(f"unknown facet {facet!r} (valid: {', '.join(FACETS)})")
    axes = getattr(space, "axes", ())
    if facet not in axes:
        vals = getattr(space, facet, "?")
        raise FpforgeValueError(f"cannot facet by {facet}: space {space.name!r} does not sweep it ({facet} = {vals}); "
                                f"valid: {', '.join(axes) if axes else 'none (give [dot] r or f a list, or --r/--f)'}")
    return facet


def plot_pareto(result, fmt="png", title=None, facet=None) -> bytes:
    """Fig. 7 of the MX paper from a :class:`~fpforge.sweep.SweepResult`, as PNG or SVG bytes (identical
    bytes for identical results). Points without a cost (failed or unsynthesized) are left out."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if fmt not in ("png", "svg"):
        raise FpforgeValueError(f"figure format must be png or svg, not {fmt!r}")
    check_facet(result.space, facet)
    with matplotlib.rc_context({"svg.hashsalt": "fpforge", "svg.fonttype": "none", "font.size": 10}):
        fig = pareto_figure(result, title, facet)
        try:
            buf = io.BytesIO()
            meta = {"Software": None} if fmt == "png" else {"Creator": None, "Date": None}
            fig.savefig(buf, format=fmt, metadata=meta)
        finally:
            plt.close(fig)
    return buf.getvalue()


def _axis_text(values):
    return ", ".join(map(str, values)) if isinstance(values, (list, tuple)) else str(values)


def pareto_figure(result, title=None, facet=None):
    """The figure of :func:`plot_pareto` as a matplotlib Figure (the caller closes it): its axes' texts are
    the labels (``ax.texts``), ``fig.texts`` the caption. ``facet`` (``"r"`` or ``"f"``, an axis the space
    sweeps): one subplot per value of that axis, in one figure, sharing the QSNR axis. Each (r, f) group's
    frontier is drawn (its own, :func:`~fpforge.sweep.table.pareto_groups`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .table import rf_group

    rows = [r for r in result.rows if r.get("cost") is not None and r.get("qsnr_db") is not None
            and math.isfinite(r["qsnr_db"])]
    if not rows:
        raise FpforgeValueError("nothing to plot: no point has both a QSNR and a cost (run with synthesis)")
    sp = result.space
    check_facet(sp, facet)
    caption = scale_caption(rows)
    groups = [rf_group(r, sp) for r in rows]
    if facet:
        i = FACETS.index(facet)
        values = sorted({g[i] for g in groups}, key=str)
        panels = [(f"{facet} = {v}", [r for r, g in zip(rows, groups) if g[i] == v]) for v in values]
    else:
        panels = [(None, rows)]
    n = len(panels)
    fig, axs = plt.subplots(1, n, figsize=(9 if n == 1 else 5.2 * n, 6.4 if caption else 6), dpi=150, sharey=True,
                            squeeze=False)
    bits = [r["bits_per_element"] for r in rows]
    sc = None
    for ax, (head, prows) in zip(axs[0], panels):
        sc = _draw(ax, prows, [rf_group(r, sp) for r in prows], min(bits), max(bits), getattr(sp, "cost", "area-memory"))
        if head:
            ax.set_title(head, fontsize=10)
    for ax in axs[0][1:]:
        ax.set_ylabel("")
    cb = fig.colorbar(sc, ax=axs[0][0] if n == 1 else list(axs[0]), pad=0.015)
    cb.set_label("bits per element")
    head = (title or f"{sp.name}: {len(rows)} formats, r = {_axis_text(sp.r)}, f = {_axis_text(sp.f)}, "
            f"{sp.vectors:,} vectors" + (", INT/FP8 scale bits counted" if result.scale_bits_counted else ""))
    if n == 1:
        axs[0][0].set_title(head, fontsize=11)
    else:
        fig.suptitle(head, fontsize=11)
    if caption:
        import textwrap

        fig.text(0.01, 0.01, "\n".join(textwrap.wrap(caption, 150 if n == 1 else 95 * n)), fontsize=8, ha="left",
                 va="bottom")
    if n == 1:
        fig.tight_layout(rect=(0, 0.05, 1, 1) if caption else (0, 0, 1, 1))
    else:
        fig.subplots_adjust(left=0.05, right=0.9, top=0.88, bottom=0.17 if caption else 0.1, wspace=0.08)
    for ax, (_, prows) in zip(axs[0], panels):
        named = [(r, label(r)) for r in prows if label(r)]
        _place_labels(ax, fig, [(r["cost"], r["qsnr_db"], text) for r, text in named],
                      [(r["cost"], r["qsnr_db"]) for r in prows])
    return fig


def _draw(ax, rows, groups, vmin, vmax, cost="area-memory"):
    """One panel: the points, each (r, f) group's frontier, the named formats; returns the points' collection."""
    from matplotlib.ticker import FuncFormatter, LogLocator

    xs = [r["cost"] for r in rows]
    ys = [r["qsnr_db"] for r in rows]
    sc = ax.scatter(xs, ys, c=[r["bits_per_element"] for r in rows], cmap="viridis", vmin=vmin, vmax=vmax, s=14,
                    alpha=0.75, linewidths=0, zorder=_Z_POINTS)
    keys = list(dict.fromkeys(groups))
    for i, key in enumerate(keys):
        front = sorted((r["cost"], r["qsnr_db"]) for r, g in zip(rows, groups) if g == key and r.get("pareto"))
        if not front:
            continue
        fx, fy = zip(*front)
        color = "crimson" if len(keys) == 1 else f"C{i % 10}"
        text = "Pareto frontier" + (f" (r = {key[0]}, f = {key[1]})" if len(keys) > 1 else "")
        ax.step(fx, fy, where="post", color=color, lw=1.4, zorder=_Z_FRONT, label=text)
        ax.scatter(fx, fy, s=22, facecolors="none", edgecolors=color, lw=0.9, zorder=_Z_FRONT)
    named = [(r, label(r)) for r in rows if label(r)]
    ax.scatter([r["cost"] for r, _ in named], [r["qsnr_db"] for r, _ in named], s=46, marker="D",
               c=[r["bits_per_element"] for r, _ in named], cmap="viridis", vmin=vmin, vmax=vmax,
               edgecolors="black", linewidths=0.9, zorder=_Z_NAMED, gid="named")
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(base=2))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.axvline(1.0, color="0.5", lw=0.8, ls="--", zorder=1)
    from .table import COST_LABELS

    what = COST_LABELS[cost]
    ax.set_xlabel(f"{what}, relative to FP8 (E4M3 + E5M2 unit, 8 bits) = 1   (log scale)",
                  fontsize=10 if len(keys) == 1 else 8)
    ax.set_ylabel("QSNR (dB), mean over vectors")
    ax.grid(True, which="major", color="0.9", lw=0.6, zorder=0)
    ax.scatter([], [], s=46, marker="D", facecolors="none", edgecolors="black", label="named formats")
    ax.legend(loc="lower right", fontsize=9 if len(keys) == 1 else 7, frameon=True)
    return sc
