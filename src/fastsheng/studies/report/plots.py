"""The report's plots (matplotlib, object API: no global pyplot state). Each ``*_figure`` function
builds a matplotlib Figure from numbers already computed (so tests can inspect what is drawn);
:func:`png` turns it into bytes."""

from __future__ import annotations

import io
import math
import textwrap

import numpy as np
import pandas as pd

__all__ = [
    "png",
    "hist_shares",
    "points_hist_figure",
    "bars_figure",
    "forest_figure",
    "MULTIPLE_COMPARISONS",
    "multiple_comparisons",
]

BIN = 5  # points are multiples of 5: one bin per possible total

MULTIPLE_COMPARISONS = (
    "{k} intervals at 95% each: about {expected:.2f} of them exclude 0 by chance when nothing "
    "differs; for one pre-chosen metric read its own interval, for any of them use p < 0.05/{k} "
    "(Bonferroni)"
)


def multiple_comparisons(k: int) -> str:
    """The caveat for k intervals, one text for the page and its plot (k / 20 has at most two
    decimals, so it is shown exactly: 17 intervals are 0.85, not 0.8 here and 0.9 there)."""
    return MULTIPLE_COMPARISONS.format(k=k, expected=k / 20)


def _figure(width: float = 7.0, height: float = 3.6):
    from matplotlib.figure import Figure as MplFigure

    return MplFigure(figsize=(width, height), dpi=100, layout="constrained")


def png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def hist_shares(x: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Share of the values of ``x`` in each bin: the bars sum to 1 over the bins."""
    counts, _ = np.histogram(x, bins=edges)
    return counts / max(x.size, 1)


def points_hist_figure(
    groups: dict[str, np.ndarray], xlabel: str, title: str, total: str | None = None
):
    """One step line per group: the share of its hands in each 5-point bin (sums to 1).
    ``total`` names the group of all hands, which the others split: it is drawn as a wide grey
    band under them, since a group holding most hands (suit trump) would hide its line."""
    fig = _figure()
    ax = fig.add_subplot()
    xs = [g for g in groups.values() if g.size]
    allx = np.concatenate(xs) if xs else np.array([0.0])
    lo, hi = float(allx.min()), float(allx.max())
    edges = np.arange(math.floor(lo / BIN) * BIN - BIN / 2, math.ceil(hi / BIN) * BIN + BIN, BIN)
    for label, x in groups.items():
        if x.size:
            # a search's name runs past 90 characters: wrapped, so the legend cannot squeeze
            # the axes to nothing
            name = textwrap.fill(f"{label} (n={x.size:,})", 70, break_on_hyphens=False)
            style = (
                {"color": "0.6", "linewidth": 5.0, "alpha": 0.6, "zorder": 1}
                if label == total
                else {"linewidth": 1.6, "zorder": 2}
            )
            ax.stairs(hist_shares(x, edges), edges, label=name, **style)
    ax.axvline(80, color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"share of hands in each {BIN}-point bin (sums to 1)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return fig


def bars_figure(labels: list[str], p, lo, hi, ylabel: str, title: str, colors=None):
    fig = _figure()
    ax = fig.add_subplot()
    x = np.arange(len(labels))
    p, lo, hi = (np.asarray(v, dtype=float) for v in (p, lo, hi))
    ax.bar(x, p, color=colors or "#4c72b0", alpha=0.85)
    err = [np.maximum(p - lo, 0), np.maximum(hi - p, 0)]
    ax.errorbar(x, p, yerr=err, fmt="none", ecolor="black", capsize=4, linewidth=1)
    tilt = len(labels) > 4
    ax.set_xticks(
        x, labels, rotation=30 if tilt else 0, ha="right" if tilt else "center", fontsize=9
    )
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return fig


def forest_figure(df: pd.DataFrame, title: str):
    """Paired differences on one axis as standardized differences (difference / pooled per-hand
    SD, columns ``std_diff``, ``std_diff_lo``, ``std_diff_hi``), so that metrics in points,
    levels and shares can sit side by side without dividing by a mean that may be 0. Metrics
    that vary in neither run are listed but not drawn."""
    fig = _figure(10.0, 0.36 * len(df) + 1.8)
    ax = fig.add_subplot()
    y = np.arange(len(df))[::-1]
    d, lo, hi = (df[c].to_numpy(dtype=float) for c in ("std_diff", "std_diff_lo", "std_diff_hi"))
    ok = np.isfinite(d)
    sig = ok & ((lo > 0) | (hi < 0))
    ax.errorbar(
        d[ok],
        y[ok],
        xerr=[d[ok] - lo[ok], hi[ok] - d[ok]],
        fmt="o",
        color="black",
        ecolor="grey",
        capsize=3,
    )
    ax.scatter(d[sig], y[sig], color="#c44e52", zorder=3, label="interval excludes 0")
    ax.axvline(0, color="grey", linewidth=1)
    labels = [m if o else f"{m} (no variation)" for m, o in zip(df["metric"], ok, strict=True)]
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel("A - B in standard deviations of the per-hand values (95% paired t interval)")
    k = len(df)
    caveat = textwrap.fill(multiple_comparisons(k), 90)
    ax.set_title(f"{title}\n{caveat}", fontsize=8)
    if sig.any():
        ax.legend(fontsize=8, loc="lower right")
    return fig
