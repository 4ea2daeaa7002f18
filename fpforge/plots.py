"""Figures drawn with matplotlib from the golden model's descriptors (Agg backend, deterministic SVG)."""

from __future__ import annotations

import io

from .golden.errors import FpforgeValueError

__all__ = ["plot_precision", "plot_scaling"]


def _save(fig, fmt) -> bytes:
    """The figure as PNG or SVG bytes without a date or software stamp (identical bytes for identical
    inputs), then closed."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    buf = io.BytesIO()
    meta = {"Date": None} if fmt == "svg" else {"Software": None}
    fig.savefig(buf, format=fmt, metadata=meta)
    plt.close(fig)
    return buf.getvalue()


def plot_precision(formats, fmt="png", bias=None) -> bytes:
    """The HiF8 paper's Fig. 1: significand precision (bits, hidden bit included, denormals normalized)
    against exponent for each format, as PNG or SVG bytes (identical bytes for identical inputs).

    Parameters
    ----------
    formats : list of str or descriptors
        One step line each, in this order.
    fmt : str
        ``"png"`` or ``"svg"``.
    bias : int, optional
        The bias of the run-time-bias formats among ``formats`` (CFloat8, SHP); labelled ``name@bias``.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    from .golden import get_format
    from .golden.contract import ScalarFormat
    from .golden.summary import precision_by_exponent

    descs = [get_format(f) for f in formats]
    with matplotlib.rc_context({"svg.hashsalt": "fpforge", "svg.fonttype": "none"}):
        fig, ax = plt.subplots(figsize=(8, 3.6), dpi=120)
        styles = ("-", "--", "-.", ":")
        for i, d in enumerate(descs):  # the first format on top, dashes apart where lines overlap
            rt = isinstance(d, ScalarFormat) and d.runtime_bias
            if rt and bias is None:
                raise FpforgeValueError(f"{d.name} has a run-time bias: give a bias (--bias B, 0..63) to plot it")
            e, bits = precision_by_exponent(d, bias if rt else None)
            ax.step(e, bits, where="mid", label=f"{d.name}@{bias}" if rt else d.name, linewidth=2.2 if i == 0 else 1.6,
                    linestyle=styles[i % len(styles)], zorder=len(descs) - i + 2)
        ax.set_xlabel("exponent (denormals normalized)")
        ax.set_ylabel("significand bits (hidden bit included)")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(bottom=0)
        ax.set_title("Significand precision over exponent")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
        return _save(fig, fmt)


def plot_scaling(result, title, fmt="png") -> bytes:
    """The scaling demo's figure (``fpforge scaling-demo``): the tensor's amax per step, then the QSNR and
    the saturated fraction per step for each recipe of :func:`fpforge.golden.scaling_demo.run_demo`'s
    ``result``; PNG or SVG bytes (identical for identical inputs)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    steps = result["steps"]
    with matplotlib.rc_context({"svg.hashsalt": "fpforge", "svg.fonttype": "none"}):
        fig, axes = plt.subplots(3, 1, figsize=(9, 8.4), dpi=110, sharex=True,
                                 gridspec_kw={"height_ratios": [1, 2, 1.4]})
        axes[0].plot(steps, np.log2(result["amax"].astype(np.float64)), color="black", linewidth=1.2)
        axes[0].set_ylabel("log2 amax")
        axes[0].set_title(title)
        styles = ("-", "--", "-.", ":")
        for i, label in enumerate(result["labels"]):
            kw = dict(label=label, linewidth=2.0 if i == 0 else 1.2, linestyle=styles[i % len(styles)],
                      color="black" if i == 0 else None, zorder=10 if i == 0 else 2)
            q = np.nan_to_num(result["qsnr"][label], posinf=np.nan)
            axes[1].plot(steps, q, **kw)
            axes[2].plot(steps, 100 * result["saturated"][label], **kw)
        axes[1].set_ylabel("QSNR (dB)")
        axes[1].set_ylim(bottom=min(0, axes[1].get_ylim()[0]))
        axes[2].set_ylabel("saturated values (%)")
        axes[2].set_xlabel("step")
        for ax in axes:
            ax.grid(True, alpha=0.3)
        axes[1].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
        return _save(fig, fmt)
