"""The sweep's plots: one forest plot per metric on a common standardised axis, and the metric
against an ordered (numeric) switch's value."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd

from fastsheng.studies.report.plots import _figure
from fastsheng.studies.robustness import FLIP

__all__ = ["common_limits", "forest", "against_value"]

RED = "#c44e52"


def common_limits(tables: list[pd.DataFrame]) -> tuple[float, float]:
    """One x range for every forest plot (so effects of different metrics compare by eye)."""
    vals = np.concatenate(
        [t[c].to_numpy(float) for t in tables for c in ("std_diff_lo", "std_diff_hi")] or [[0.0]]
    )
    vals = vals[np.isfinite(vals)]
    lo, hi = (float(vals.min()), float(vals.max())) if vals.size else (-0.1, 0.1)
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    pad = 0.05 * (hi - lo or 0.2)
    return lo - pad, hi + pad


def forest(df: pd.DataFrame, title: str, limits: tuple[float, float], note: str):
    """Variants on the y axis, the standardised effect (difference / pooled per-hand SD) with
    its simultaneous interval; red: established (Holm) or, with a check line-up, flips sign."""
    fig = _figure(9.0, 0.34 * len(df) + 1.9)
    ax = fig.add_subplot()
    y = np.arange(len(df))[::-1]
    d, lo, hi = (df[c].to_numpy(float) for c in ("std_diff", "std_diff_lo", "std_diff_hi"))
    ok = np.isfinite(d)
    ax.errorbar(
        d[ok],
        y[ok],
        xerr=[d[ok] - lo[ok], hi[ok] - d[ok]],
        fmt="o",
        color="black",
        ecolor="grey",
        capsize=3,
    )
    est = df["established"].to_numpy(bool) & ok
    ax.scatter(d[est], y[est], color="#4c72b0", zorder=3, label="established (Holm)")
    if "robustness" in df:
        flip = (df["robustness"].to_numpy() == FLIP) & ok
        if flip.any():
            ax.scatter(
                d[flip],
                y[flip],
                color=RED,
                marker="D",
                s=50,
                zorder=4,
                label="flips sign with the check line-up",
            )
    ax.axvline(0, color="grey", linewidth=1)
    labels = [v if o else f"{v} (no variation)" for v, o in zip(df["variant"], ok, strict=True)]
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlim(*limits)
    ax.set_xlabel("variant - baseline in SDs of the per-hand values (simultaneous 95%)")
    ax.set_title(f"{title}\n{textwrap.fill(note, 100)}", fontsize=8)
    if est.any() or ("robustness" in df and (df["robustness"] == FLIP).any()):
        ax.legend(fontsize=8, loc="best")
    return fig


def against_value(panels: list[tuple[str, str, pd.DataFrame]], key: str):
    """Each metric (one panel per ``(metric, unit, points)``) against the value of the ordered
    switch ``key``: the baseline mean + the paired effect with its simultaneous interval;
    ``points``: value, estimate, lo, hi, group (the variant's other settings), baseline."""
    cols = min(3, len(panels))
    rows = -(-len(panels) // cols)
    fig = _figure(3.4 * cols + 0.6, 2.6 * rows + 0.6)
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax, (metric, unit, points) in zip(axes, panels, strict=False):
        for group, g in points[~points["baseline"]].groupby("group", sort=False):
            g = g.sort_values("value")
            x, est = g["value"].to_numpy(float), g["estimate"].to_numpy(float)
            err = [est - g["lo"].to_numpy(float), g["hi"].to_numpy(float) - est]
            ax.errorbar(
                x,
                est,
                yerr=err,
                fmt="o-",
                capsize=3,
                linewidth=1,
                label=str(group) if group else None,
            )
        base = points[points["baseline"]]
        if len(base):
            ax.scatter(base["value"], base["estimate"], color=RED, zorder=4, s=40, label="baseline")
        ax.set_xlabel(key, fontsize=8)
        ax.set_title(textwrap.shorten(f"{metric} ({unit})", 60), fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    handles, labels = axes[0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, fontsize=7, loc="outside lower center", ncols=4)
    fig.suptitle(
        f"Each metric against {key} (paired on the same deals, simultaneous 95%)", fontsize=9
    )
    return fig
