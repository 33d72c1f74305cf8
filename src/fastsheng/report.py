"""``fastsheng report`` and ``fastsheng compare``: the standard questions about a run, answered with
honest uncertainty, as an HTML page (tables + embedded PNG plots), CSV tables and a printed
headline.

Reading a run: :func:`load_run` reads ``RUN/run.json`` and the Parquet parts, and
:func:`canonical_hands` / :func:`canonical_matches` turn the simulator's columns into the few
columns the computations use. The names of the simulator's columns live in one place,
:data:`HAND_COLUMNS` / :data:`MATCH_COLUMNS` (first candidate present wins).

Intervals (see :mod:`fastsheng.stats`): every proportion has a Wilson 95% interval, every mean a
95% percentile-bootstrap interval (2,000 replicates, exact count bootstrap), every paired
difference a paired-bootstrap interval, and a ratio of sums (failed throws per throw) a
cluster-robust normal interval with the hand as the cluster. Sample sizes are in every table.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fastsheng import stats

__all__ = [
    "HAND_COLUMNS",
    "MATCH_COLUMNS",
    "Run",
    "Table",
    "Figure",
    "Report",
    "load_run",
    "canonical_hands",
    "canonical_matches",
    "compute_report",
    "compute_compare",
    "render_html",
    "write_report",
    "report_command",
    "compare_command",
]

CONF = 0.95
N_BOOT = 2000

# --------------------------------------------------------------------------------------------
# Column names of the simulator's tables: canonical name -> candidates in the Parquet (first
# present wins). This is the one place to adjust when the simulator renames a column.

HAND_COLUMNS: dict[str, tuple[str, ...]] = {
    "hand_id": ("hand_id",),
    "match_id": ("match_id",),
    "hand_no": ("hand_no", "hand_index", "hand_in_match", "hand_number"),
    "level": ("level", "level_rank"),
    "dealer": ("dealer",),
    "declarer": ("declarer",),
    "trump": ("trump", "trump_suit"),
    "trump_source": ("trump_set", "trump_source", "trump_set_by", "trump_how", "trump_from"),
    "declarations": ("n_shows", "declarations", "n_declarations", "calls", "shows"),
    "overcalls": ("n_overcalls", "overcalls"),
    "kitty_points": ("kitty_points_dealt", "kitty_points", "kitty_dealt_points"),
    "kitty_buried": ("kitty_points_buried", "kitty_buried_points", "buried_points", "buried"),
    "trick_points": (
        "defender_trick_points",
        "defenders_trick_points",
        "trick_points",
        "defender_points",
        "defenders_points",
    ),
    "last_winner": ("last_trick_winner", "last_winner"),
    "last_lead_kind": ("last_lead_kind", "last_trick_lead_kind", "last_trick_kind"),
    "kitty_captured": ("kitty_captured", "kitty_capture", "defenders_took_kitty"),
    "kitty_multiplier": ("kitty_mult", "kitty_multiplier", "multiplier"),
    "kitty_bonus": ("kitty_bonus", "bonus"),
    "throws": ("throws", "n_throws"),
    "failed_throws": ("failed_throws", "n_failed_throws", "throws_failed"),
    "penalty": ("penalty", "throw_penalty", "penalties", "penalty_points"),
    "defenders_total": ("defenders_total", "defender_total"),
    "dealer_won": ("dealer_won", "dealer_side_won", "dealer_wins"),
    "winner": ("winner", "winning_side", "winner_side", "side_up", "advancing_side"),
    "level_change": ("levels", "level_change", "level_delta", "levels_up"),
    "next_dealer": ("next_dealer",),
}

MATCH_COLUMNS: dict[str, tuple[str, ...]] = {
    "match_id": ("match_id",),
    "winner": ("winner", "winning_team", "winner_team"),
    "hands": ("hands", "hands_played", "n_hands"),
    "first_dealer": ("first_dealer",),
    "level_team0": ("level_team0", "final_level_0", "level_0", "final_level_team0"),
    "level_team1": ("level_team1", "final_level_1", "level_1", "final_level_team1"),
    "capped": ("capped",),
}

RANK_ORDER = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
LEAD_KIND_ORDER = ("single", "pair", "tractor", "throw")


def _pick(df: pd.DataFrame, candidates: Iterable[str]) -> str | None:
    for name in candidates:
        if name in df.columns:
            return name
    return None


def resolve_columns(df: pd.DataFrame, spec: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """canonical name -> the column of ``df`` that holds it (only those present)."""
    out = {}
    for canon, cands in spec.items():
        name = _pick(df, cands)
        if name is not None:
            out[canon] = name
    return out


def _as_str(s: pd.Series) -> pd.Series:
    if isinstance(s.dtype, pd.CategoricalDtype):
        s = s.astype(object)
    return s.map(
        lambda v: None if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)
    )


def _side_is_dealer(s: pd.Series) -> pd.Series:
    """A winner column -> True where the dealer side advanced: strings 'dealer'/'defenders', or
    the engine's code (0 = dealer side advances, 1 = defenders take over)."""
    if s.dtype == bool:
        return ~s  # a boolean 'winner' column can only mean "the defenders won"
    if pd.api.types.is_numeric_dtype(s.dtype):
        return s.to_numpy() == 0
    st = _as_str(s).str.lower()
    return st.str.startswith("dealer") | st.str.startswith("declarer") | st.eq("attack")


def canonical_hands(raw: pd.DataFrame, rules: Any = None) -> pd.DataFrame:
    """The hands table with canonical columns (see :data:`HAND_COLUMNS`) plus derived ones:
    ``trump_kind`` ('suit'/'no trump'), ``dealer_won``, ``outcome`` (e.g. 'dealer +2'),
    ``signed_change`` (levels, + for the dealer side, - for the defenders), ``declarer_role`` and,
    with ``rules``, ``kitty_decides`` / ``kitty_flips_side``."""
    cols = resolve_columns(raw, HAND_COLUMNS)
    df = pd.DataFrame({canon: raw[name].to_numpy() for canon, name in cols.items()})
    n = len(df)
    if "hand_id" not in df:
        df["hand_id"] = np.arange(n)
    if "level" in df:
        if pd.api.types.is_numeric_dtype(df["level"].dtype):  # engine code 0..12 = 2..A
            df["level"] = [RANK_ORDER[int(v)] for v in df["level"]]
        df["level"] = _as_str(df["level"])
    if "trump" in df:
        t = df["trump"]
        if pd.api.types.is_numeric_dtype(t.dtype):  # engine code 0..3 = S H C D, 4 = NT
            t = pd.Series(["SHCD"[int(v)] if 0 <= v < 4 else "NT" for v in t])
        t = _as_str(t)
        nt = (
            t.str.upper().isin(["NT", "N", "NONE", "NO TRUMP", "NO_TRUMP", "NOTRUMP", ""])
            | t.isna()
        )
        df["trump"] = t.fillna("NT")
        df["trump_kind"] = np.where(nt, "no trump", "suit")
    if "last_lead_kind" in df and pd.api.types.is_numeric_dtype(df["last_lead_kind"].dtype):
        df["last_lead_kind"] = [
            LEAD_KIND_ORDER[int(v)] if 0 <= v < 4 else str(v) for v in df["last_lead_kind"]
        ]
    if "trump_source" in df and pd.api.types.is_numeric_dtype(df["trump_source"].dtype):
        names = ("declared", "overcall", "kitty", "none")
        df["trump_source"] = [names[int(v)] if 0 <= v < 4 else str(v) for v in df["trump_source"]]
    for c in ("trump_source", "last_lead_kind"):
        if c in df:
            df[c] = _as_str(df[c]).fillna("none")
    for c in ("kitty_captured",):
        if c in df:
            df[c] = df[c].astype(bool)
    if "dealer_won" in df:
        df["dealer_won"] = df["dealer_won"].astype(bool)
    elif "winner" in df:
        df["dealer_won"] = _side_is_dealer(df["winner"]).to_numpy()
    elif "defenders_total" in df:
        df["dealer_won"] = df["defenders_total"].to_numpy() < 80
    if "level_change" in df and "dealer_won" in df:
        lc = df["level_change"].to_numpy().astype(int)
        lc = np.abs(lc)
        side = np.where(df["dealer_won"], "dealer", "defenders")
        df["outcome"] = [
            f"{s} +{k}" if (s == "dealer" or k > 0) else "defenders take over"
            for s, k in zip(side, lc, strict=True)
        ]
        df["signed_change"] = np.where(df["dealer_won"], lc, -lc)
    if "declarer" in df and "dealer" in df:
        dec = pd.to_numeric(df["declarer"], errors="coerce")
        dl = df["dealer"].to_numpy()
        role = np.full(n, "nobody", dtype=object)
        has = dec.notna().to_numpy() & dec.fillna(-1).between(0, 3).to_numpy()
        d = dec.fillna(-1).to_numpy().astype(int)
        rel = (d - dl) % 4
        role[has & (rel == 0)] = "dealer"
        role[has & (rel == 2)] = "dealer's partner"
        role[has & (rel % 2 == 1)] = "defender"
        df["declarer_role"] = role
    if "kitty_bonus" not in df and {"kitty_captured", "kitty_multiplier", "kitty_buried"} <= set(
        df
    ):
        df["kitty_bonus"] = np.where(
            df["kitty_captured"], df["kitty_multiplier"] * df["kitty_buried"], 0
        )
    if rules is not None and {"defenders_total", "kitty_bonus"} <= set(df):
        outcome = _level_outcome_fn(rules)
        if outcome is not None:
            total = df["defenders_total"].to_numpy().astype(int)
            without = np.maximum(0, total - df["kitty_bonus"].to_numpy().astype(int))
            cache: dict[int, tuple[str, int]] = {}

            def oc(t: int) -> tuple[str, int]:
                if t not in cache:
                    cache[t] = tuple(outcome(rules, int(t)))
                return cache[t]

            with_b = [oc(t) for t in total]
            without_b = [oc(t) for t in without]
            df["kitty_decides"] = [a != b for a, b in zip(with_b, without_b, strict=True)]
            df["kitty_flips_side"] = [a[0] != b[0] for a, b in zip(with_b, without_b, strict=True)]
    return df


def canonical_matches(raw: pd.DataFrame) -> pd.DataFrame:
    cols = resolve_columns(raw, MATCH_COLUMNS)
    df = pd.DataFrame({canon: raw[name].to_numpy() for canon, name in cols.items()})
    if "match_id" not in df:
        df["match_id"] = np.arange(len(df))
    return df


def _level_outcome_fn(rules: Any) -> Callable | None:
    try:
        from fastsheng import level_outcome  # type: ignore[attr-defined]
    except ImportError:
        try:
            from fastsheng._core import level_outcome
        except ImportError:  # pragma: no cover - the core is always built
            return None
    return level_outcome


# --------------------------------------------------------------------------------------------
# Reading a run


@dataclass
class Run:
    """A run folder read back: its manifest and its tables (raw, as in the Parquet)."""

    path: str
    manifest: dict[str, Any]
    hands: pd.DataFrame
    matches: pd.DataFrame | None = None

    @property
    def label(self) -> str:
        m = self.manifest
        return f"{m.get('rules_name', '?')} / {','.join(m.get('bots', []) or ['?'])}"

    @property
    def rules(self) -> Any:
        spec = self.manifest.get("rules")
        if not spec:
            return None
        try:
            from fastsheng.rules import Rules

            return Rules.from_dict(spec)
        except Exception:  # an older/foreign manifest: the report still works without it
            return None


def _read_table(path: Path) -> pd.DataFrame | None:
    if not path.is_dir():
        return None
    parts = sorted(p for p in path.glob("part-*.parquet"))
    if not parts:
        return None
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = [pq.read_table(p) for p in parts]
    return pa.concat_tables(tables, promote_options="default").to_pandas()


def load_run(path: str | os.PathLike[str]) -> Run:
    """Read a run folder written by ``fastsheng sim`` (or any folder with ``hands/part-*.parquet``
    and a ``run.json``)."""
    p = Path(path)
    manifest_path = p / "run.json"
    if not manifest_path.is_file():
        raise FileNotFoundError(f"{p}: no run.json; is this a fastsheng run folder?")
    manifest = json.loads(manifest_path.read_text())
    hands = _read_table(p / "hands")
    if hands is None:
        raise FileNotFoundError(f"{p}: no hands/part-*.parquet")
    sort = _pick(hands, HAND_COLUMNS["hand_id"])
    if sort is not None:
        hands = hands.sort_values(sort, kind="stable").reset_index(drop=True)
    matches = _read_table(p / "matches")
    if matches is not None and "match_id" in matches:
        matches = matches.sort_values("match_id", kind="stable").reset_index(drop=True)
    return Run(str(p), manifest, hands, matches)


# --------------------------------------------------------------------------------------------
# Report model


@dataclass
class Table:
    """One result table. ``df`` is what goes to CSV; in HTML every triple of columns ``X``,
    ``X_lo``, ``X_hi`` is shown as one cell ``X [lo, hi]``; columns in ``percent`` are shown
    as percentages."""

    name: str
    title: str
    df: pd.DataFrame
    note: str = ""
    percent: tuple[str, ...] = ()
    digits: int = 2
    collapsed: bool = False  # long tables: folded in the HTML (<details>), complete in the CSV
    show: tuple[str, ...] = ()  # columns shown in HTML / console (default: all); CSV has all
    console: tuple[str, ...] = ()  # columns printed by the command (default: ``show``)


@dataclass
class Figure:
    name: str
    title: str
    png: bytes
    note: str = ""
    section: str = ""  # the table it is shown under (default: at the end)


@dataclass
class Report:
    title: str
    subtitle: str
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    headline: str = "headline"
    meta: dict[str, Any] = field(default_factory=dict)

    def table(self, name: str) -> Table:
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(name)


def _prop_row(label: dict[str, Any], k: int, n: int) -> dict[str, Any]:
    e = stats.wilson(int(k), int(n), CONF)
    return {**label, "n": int(n), "count": int(k), "p": e.estimate, "p_lo": e.lo, "p_hi": e.hi}


def _mean_row(label: dict[str, Any], x: np.ndarray, name: str = "mean", seed: int = 0):
    e = stats.mean_bootstrap(x, CONF, N_BOOT, seed)
    return {name: e.estimate, f"{name}_lo": e.lo, f"{name}_hi": e.hi, **label} | {"n": e.n}


def _ordered(values: Iterable[str], order: Sequence[str]) -> list[str]:
    vals = list(dict.fromkeys(v for v in values if v is not None))
    rank = {v: i for i, v in enumerate(order)}
    return sorted(vals, key=lambda v: (rank.get(v, len(order)), v))


def _level_order(values: Iterable[str]) -> list[str]:
    return _ordered(values, RANK_ORDER)


def _outcome_key(label: str) -> tuple[int, int]:
    side, _, rest = label.partition(" +")
    if side == "dealer":
        return (0, -int(rest))
    if label == "defenders take over":
        return (1, 0)
    return (1, int(rest) if rest.isdigit() else 99)


# --------------------------------------------------------------------------------------------
# Plots (matplotlib, object API: no global pyplot state)


def _figure(width=7.0, height=3.6):
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(width, height), dpi=100, layout="constrained")
    return fig


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _plot_points_hist(groups: dict[str, np.ndarray], xlabel: str, title: str) -> bytes:
    fig = _figure()
    ax = fig.add_subplot()
    allx = np.concatenate([g for g in groups.values() if g.size]) if groups else np.array([0])
    lo, hi = (float(allx.min()), float(allx.max())) if allx.size else (0.0, 1.0)
    bins = np.arange(math.floor(lo / 5) * 5 - 2.5, math.ceil(hi / 5) * 5 + 7.5, 5.0)
    if bins.size > 90:
        bins = np.linspace(lo - 0.5, hi + 0.5, 61)
    for label, x in groups.items():
        if x.size:
            ax.hist(
                x,
                bins=bins,
                density=True,
                histtype="step",
                linewidth=1.6,
                label=f"{label} (n={x.size:,})",
            )
    ax.axvline(80, color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of hands per 5 points")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return _png(fig)


def _plot_bars(labels: list[str], p, lo, hi, ylabel: str, title: str, colors=None) -> bytes:
    fig = _figure()
    ax = fig.add_subplot()
    x = np.arange(len(labels))
    p, lo, hi = (np.asarray(v, dtype=float) for v in (p, lo, hi))
    ax.bar(x, p, color=colors or "#4c72b0", alpha=0.85)
    ax.errorbar(
        x,
        p,
        yerr=[np.maximum(p - lo, 0), np.maximum(hi - p, 0)],
        fmt="none",
        ecolor="black",
        capsize=4,
        linewidth=1,
    )
    ax.set_xticks(
        x,
        labels,
        rotation=30 if len(labels) > 4 else 0,
        ha="right" if len(labels) > 4 else "center",
        fontsize=9,
    )
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return _png(fig)


def _plot_forest(df: pd.DataFrame, title: str) -> bytes:
    """Paired differences with their intervals, one row per metric, each in its own unit."""
    fig = _figure(7.5, 0.42 * len(df) + 1.2)
    ax = fig.add_subplot()
    y = np.arange(len(df))[::-1]
    d, lo, hi = (df[c].to_numpy(dtype=float) for c in ("diff", "diff_lo", "diff_hi"))
    # each metric on its own scale: show differences relative to the interval half-width of B
    scale = np.where(np.abs(df["mean_b"].to_numpy(dtype=float)) > 0, np.abs(df["mean_b"]), 1.0)
    rel = 100 * d / scale
    rlo, rhi = 100 * lo / scale, 100 * hi / scale
    sig = (lo > 0) | (hi < 0)
    ax.errorbar(
        rel, y, xerr=[rel - rlo, rhi - rel], fmt="o", color="black", ecolor="grey", capsize=3
    )
    ax.scatter(rel[sig], y[sig], color="#c44e52", zorder=3, label="interval excludes 0")
    ax.axvline(0, color="grey", linewidth=1)
    ax.set_yticks(y, df["metric"].tolist())
    ax.set_xlabel("difference A - B, % of B's mean (95% paired-bootstrap interval)")
    ax.set_title(title)
    if sig.any():
        ax.legend(fontsize=8, loc="lower right")
    return _png(fig)


# --------------------------------------------------------------------------------------------
# The report of one run


def _points_summary(h: pd.DataFrame, by: str | None, label_name: str) -> list[dict]:
    rows = []
    groups = (
        [("all", h)]
        if by is None
        else [
            (g, h[h[by] == g])
            for g in (
                _level_order(h[by].unique()) if by == "level" else sorted(h[by].dropna().unique())
            )
        ]
    )
    for g, sub in groups:
        x = sub["defenders_total"].to_numpy(dtype=float)
        if x.size == 0:
            continue
        r = _mean_row({label_name: g}, x)
        qs = np.quantile(x, [0.1, 0.25, 0.5, 0.75, 0.9], method="inverted_cdf")
        med = stats.quantile_ci(x, 0.5, CONF)
        r.update(
            {
                "sd": float(x.std(ddof=1)) if x.size > 1 else float("nan"),
                "q10": qs[0],
                "q25": qs[1],
                "median": qs[2],
                "median_lo": med.lo,
                "median_hi": med.hi,
                "q75": qs[3],
                "q90": qs[4],
            }
        )
        rows.append(r)
    return rows


def _cols_first(df: pd.DataFrame, first: Sequence[str]) -> pd.DataFrame:
    first = [c for c in first if c in df.columns]
    return df[first + [c for c in df.columns if c not in first]]


def compute_report(run: Run, *, figures: bool = True) -> Report:
    """Every table and plot of ``fastsheng report`` for one run."""
    h = canonical_hands(run.hands, run.rules)
    m = run.manifest
    n = len(h)
    rep = Report(
        title=f"fastsheng report: {m.get('rules_name', '?')}",
        subtitle=(
            f"{n:,} hands; rules {m.get('rules_name', '?')}; bots {', '.join(m.get('bots', []))}; "
            f"seed {m.get('seed', '?')}; mode {m.get('mode', '?')}; level {m.get('level', '?')}"
        ),
        meta={
            "run": run.path,
            "n_hands": n,
            **{
                k: m.get(k)
                for k in ("rules_name", "bots", "seed", "n", "batch_size", "mode", "level")
            },
        },
    )
    T = rep.tables.append

    # ---- headline --------------------------------------------------------------------------
    head: list[dict] = []

    def hp(metric, k, nn):
        r = _prop_row({"metric": metric, "kind": "proportion"}, k, nn)
        head.append(
            {
                "metric": metric,
                "kind": "proportion",
                "estimate": r["p"],
                "estimate_lo": r["p_lo"],
                "estimate_hi": r["p_hi"],
                "n": r["n"],
            }
        )

    def hm(metric, x, seed=0):
        e = stats.mean_bootstrap(x, CONF, N_BOOT, seed)
        head.append(
            {
                "metric": metric,
                "kind": "mean",
                "estimate": e.estimate,
                "estimate_lo": e.lo,
                "estimate_hi": e.hi,
                "n": e.n,
            }
        )

    if "defenders_total" in h:
        hm("defenders' total points (mean)", h["defenders_total"].to_numpy(float))
    if "dealer_won" in h:
        hp("dealer side wins the hand", h["dealer_won"].sum(), n)
    if "signed_change" in h:
        hm("level change, + dealer side / - defenders (mean)", h["signed_change"].to_numpy(float))
    if "kitty_captured" in h:
        hp("defenders capture the kitty", h["kitty_captured"].sum(), n)
    if "kitty_bonus" in h:
        hm("kitty bonus per hand (mean)", h["kitty_bonus"].to_numpy(float))
    if "kitty_decides" in h:
        hp(
            "hands decided by the kitty (level outcome differs without the bonus)",
            h["kitty_decides"].sum(),
            n,
        )
    if "trump_kind" in h:
        hp("no-trump hands", (h["trump_kind"] == "no trump").sum(), n)
    if "overcalls" in h:
        hp("hands with an overcall", (h["overcalls"] > 0).sum(), n)
    if "throws" in h:
        hp("hands with a throw", (h["throws"] > 0).sum(), n)
    if "failed_throws" in h:
        hp("hands with a failed throw", (h["failed_throws"] > 0).sum(), n)
    rep.tables.insert(
        0,
        Table(
            "headline",
            "Headline",
            pd.DataFrame(head),
            "Proportions: Wilson 95% intervals. Means: 95% percentile-bootstrap intervals "
            f"({N_BOOT} replicates). n = hands.",
            digits=3,
        ),
    )

    # ---- defenders' points -----------------------------------------------------------------
    if "defenders_total" in h:
        rows = _points_summary(h, None, "trump")
        if "trump_kind" in h:
            rows += _points_summary(h, "trump_kind", "trump")
        T(
            Table(
                "points_by_trump",
                "Defenders' total points by trump kind",
                _cols_first(pd.DataFrame(rows), ["trump", "n", "mean"]),
                "Total = trick points + kitty bonus +- throw penalties. Mean: bootstrap 95% "
                "interval; median: distribution-free order-statistic interval; q10..q90: "
                "empirical quantiles.",
                digits=1,
            )
        )
        if "level" in h:
            T(
                Table(
                    "points_by_level",
                    "Defenders' total points by level",
                    _cols_first(
                        pd.DataFrame(_points_summary(h, "level", "level")), ["level", "n", "mean"]
                    ),
                    "Level = the dealer side's level rank of the hand.",
                    digits=1,
                )
            )
        hist = h.groupby(["defenders_total"]).size().rename("all").to_frame()
        if "trump_kind" in h:
            hist = hist.join(
                h.groupby(["defenders_total", "trump_kind"]).size().unstack(fill_value=0)
            )
        hist = hist.fillna(0).astype(int).reset_index()
        hist["share_all"] = hist["all"] / n
        T(
            Table(
                "points_histogram",
                "Histogram of defenders' total points (counts)",
                hist,
                "Counts of hands by exact total; share_all = count / all hands.",
                digits=4,
                collapsed=True,
            )
        )
        if figures:
            groups = {"all hands": h["defenders_total"].to_numpy(float)}
            if "trump_kind" in h:
                for g in sorted(h["trump_kind"].unique()):
                    groups[g] = h.loc[h["trump_kind"] == g, "defenders_total"].to_numpy(float)
            rep.figures.append(
                Figure(
                    "points_hist",
                    "Distribution of the defenders' total",
                    _plot_points_hist(
                        groups,
                        "defenders' total points",
                        "Defenders' total by trump kind (dashed: 80, take-over)",
                    ),
                    section="points_by_trump",
                )
            )
            if "level" in h and h["level"].nunique() > 1:
                tab = pd.DataFrame(_points_summary(h, "level", "level"))
                rep.figures.append(
                    Figure(
                        "points_by_level",
                        "Mean defenders' total by level",
                        _plot_bars(
                            tab["level"].tolist(),
                            tab["mean"],
                            tab["mean_lo"],
                            tab["mean_hi"],
                            "mean defenders' total (95% CI)",
                            "Defenders' total by level",
                        ),
                        section="points_by_level",
                    )
                )

    # ---- level change ----------------------------------------------------------------------
    if "outcome" in h:
        counts = h["outcome"].value_counts()
        labels = sorted(counts.index, key=_outcome_key)
        rows = [_prop_row({"outcome": o}, counts[o], n) for o in labels]
        T(
            Table(
                "level_change",
                "Level change per hand",
                pd.DataFrame(rows),
                "Which side goes up how many levels (as recorded by the simulator; 'defenders "
                "take over' = they only win the deal). p: Wilson 95% interval.",
                percent=("p",),
            )
        )
        if figures:
            tab = pd.DataFrame(rows)
            colors = ["#4c72b0" if o.startswith("dealer") else "#c44e52" for o in tab["outcome"]]
            rep.figures.append(
                Figure(
                    "level_change",
                    "Level-change distribution",
                    _plot_bars(
                        tab["outcome"].tolist(),
                        tab["p"],
                        tab["p_lo"],
                        tab["p_hi"],
                        "share of hands (95% Wilson)",
                        "Level change per hand",
                        colors,
                    ),
                    section="level_change",
                )
            )

    # ---- dealer side -----------------------------------------------------------------------
    if "dealer_won" in h:
        rows = [_prop_row({"group": "all hands"}, h["dealer_won"].sum(), n)]
        for by, name in (("trump_kind", "trump"), ("level", "level")):
            if by in h and h[by].nunique() > 1 or by == "trump_kind" and by in h:
                order = _level_order(h[by].unique()) if by == "level" else sorted(h[by].unique())
                for g in order:
                    sub = h[h[by] == g]
                    rows.append(
                        _prop_row({"group": f"{name}: {g}"}, sub["dealer_won"].sum(), len(sub))
                    )
        T(
            Table(
                "dealer_win",
                "Dealer-side win rate",
                pd.DataFrame(rows),
                "The dealer side 'wins' a hand when the defenders' total is below the take-over "
                "threshold (it goes up). Wilson 95% intervals.",
                percent=("p",),
            )
        )

    # ---- kitty -----------------------------------------------------------------------------
    if "kitty_captured" in h:
        rows = []
        cap = h["kitty_captured"].to_numpy(bool)

        def km(metric, x, unit="points"):
            r = _mean_row({"metric": metric, "unit": unit}, np.asarray(x, float), "estimate")
            r["kind"] = "mean"
            rows.append(r)

        def kp(metric, k, nn):
            r = _prop_row({"metric": metric, "unit": "share"}, k, nn)
            rows.append(
                {
                    "metric": metric,
                    "unit": "share",
                    "kind": "proportion",
                    "estimate": r["p"],
                    "estimate_lo": r["p_lo"],
                    "estimate_hi": r["p_hi"],
                    "n": r["n"],
                }
            )

        if "kitty_points" in h:
            km("points in the kitty as dealt", h["kitty_points"])
        if "kitty_buried" in h:
            km("points buried by the dealer", h["kitty_buried"])
        kp("capture probability", cap.sum(), n)
        if "kitty_bonus" in h:
            km("kitty bonus per hand (all hands)", h["kitty_bonus"])
            if cap.any():
                km("kitty bonus per capture", h.loc[cap, "kitty_bonus"])
        if "kitty_multiplier" in h and cap.any():
            km("multiplier per capture", h.loc[cap, "kitty_multiplier"], "x")
        if "kitty_decides" in h:
            kp(
                "hands decided by the kitty: level outcome differs without the bonus",
                h["kitty_decides"].sum(),
                n,
            )
            kp("  ... of which the winning side flips", h["kitty_flips_side"].sum(), n)
            if cap.any():
                kp(
                    "decided by the kitty, among captures",
                    h.loc[cap, "kitty_decides"].sum(),
                    int(cap.sum()),
                )
        T(
            Table(
                "kitty",
                "Kitty",
                _cols_first(pd.DataFrame(rows), ["metric", "unit", "kind", "estimate"]),
                "A capture: the defenders win the last trick and add the buried points x the "
                "multiplier. 'Decided by the kitty': the level outcome (side and levels, from the "
                "rules' level table) at max(0, total - bonus) differs from the one at the total.",
                digits=3,
            )
        )
        if "last_lead_kind" in h:
            rows = []
            for kind in _ordered(h["last_lead_kind"].unique(), LEAD_KIND_ORDER):
                sub = h[h["last_lead_kind"] == kind]
                r = _prop_row({"last_lead_kind": kind}, sub["kitty_captured"].sum(), len(sub))
                if "kitty_bonus" in h and sub["kitty_captured"].any():
                    r["bonus_per_capture"] = float(
                        sub.loc[sub["kitty_captured"], "kitty_bonus"].mean()
                    )
                rows.append(r)
            T(
                Table(
                    "kitty_by_lead",
                    "Kitty capture probability by the last trick's lead kind",
                    pd.DataFrame(rows),
                    "n = hands whose last trick was led with that kind; p = share captured "
                    "(Wilson 95%).",
                    percent=("p",),
                )
            )
            if figures:
                tab = pd.DataFrame(rows)
                rep.figures.append(
                    Figure(
                        "kitty_by_lead",
                        "Capture probability by last lead",
                        _plot_bars(
                            [
                                f"{k}\n(n={c:,})"
                                for k, c in zip(tab["last_lead_kind"], tab["n"], strict=True)
                            ],
                            tab["p"],
                            tab["p_lo"],
                            tab["p_hi"],
                            "P(capture) (95% Wilson)",
                            "Kitty capture probability by the last trick's lead",
                        ),
                        section="kitty_by_lead",
                    )
                )

    # ---- throws ----------------------------------------------------------------------------
    if "throws" in h:
        rows = []
        t = h["throws"].to_numpy(float)
        e = stats.mean_normal(t, CONF)
        rows.append(
            {
                "metric": "throws per hand",
                "estimate": e.estimate,
                "estimate_lo": e.lo,
                "estimate_hi": e.hi,
                "n": n,
                "kind": "mean (normal)",
            }
        )
        r = _prop_row({}, int((t > 0).sum()), n)
        rows.append(
            {
                "metric": "hands with a throw",
                "estimate": r["p"],
                "estimate_lo": r["p_lo"],
                "estimate_hi": r["p_hi"],
                "n": n,
                "kind": "proportion",
            }
        )
        if "failed_throws" in h:
            f = h["failed_throws"].to_numpy(float)
            e = stats.mean_normal(f, CONF)
            rows.append(
                {
                    "metric": "failed throws per hand",
                    "estimate": e.estimate,
                    "estimate_lo": e.lo,
                    "estimate_hi": e.hi,
                    "n": n,
                    "kind": "mean (normal)",
                }
            )
            r = _prop_row({}, int((f > 0).sum()), n)
            rows.append(
                {
                    "metric": "hands with a failed throw",
                    "estimate": r["p"],
                    "estimate_lo": r["p_lo"],
                    "estimate_hi": r["p_hi"],
                    "n": n,
                    "kind": "proportion",
                }
            )
            e = stats.ratio_cluster(f, t, CONF)
            rows.append(
                {
                    "metric": "failure rate per throw",
                    "estimate": e.estimate,
                    "estimate_lo": e.lo,
                    "estimate_hi": e.hi,
                    "n": int(t.sum()),
                    "kind": "ratio (cluster-robust)",
                }
            )
        if "penalty" in h:
            e = stats.mean_normal(h["penalty"].to_numpy(float), CONF)
            rows.append(
                {
                    "metric": "penalty points per hand",
                    "estimate": e.estimate,
                    "estimate_lo": e.lo,
                    "estimate_hi": e.hi,
                    "n": n,
                    "kind": "mean (normal)",
                }
            )
        T(
            Table(
                "throws",
                "Throws",
                _cols_first(pd.DataFrame(rows), ["metric", "kind"]),
                "Per-hand means: normal 95% intervals. Failure rate per throw = failed / all "
                "throws, with a cluster-robust (delta-method) interval treating hands as "
                "clusters; its n is the number of throws.",
                digits=4,
            )
        )

    # ---- declarations ----------------------------------------------------------------------
    drows = []
    if "declarer_role" in h:
        counts = h["declarer_role"].value_counts()
        for role in _ordered(counts.index, ("dealer", "dealer's partner", "defender", "nobody")):
            drows.append(
                _prop_row({"question": "who declared trump", "answer": role}, counts[role], n)
            )
    if "declarer" in h:
        dec = pd.to_numeric(h["declarer"], errors="coerce").fillna(-1).astype(int)
        counts = dec.value_counts()
        for seat in sorted(counts.index):
            drows.append(
                _prop_row(
                    {
                        "question": "declaring seat",
                        "answer": "nobody" if seat < 0 else f"seat {seat}",
                    },
                    counts[seat],
                    n,
                )
            )
    if "trump_source" in h:
        counts = h["trump_source"].value_counts()
        for src in sorted(counts.index):
            drows.append(
                _prop_row({"question": "how trump was set", "answer": src}, counts[src], n)
            )
    if "trump_kind" in h:
        drows.append(
            _prop_row(
                {"question": "no-trump hand", "answer": "yes"},
                (h["trump_kind"] == "no trump").sum(),
                n,
            )
        )
    if "overcalls" in h:
        drows.append(
            _prop_row(
                {"question": "at least one overcall", "answer": "yes"},
                (h["overcalls"] > 0).sum(),
                n,
            )
        )
    if drows:
        extra = ""
        if "declarations" in h:
            e = stats.mean_normal(h["declarations"].to_numpy(float))
            extra += f" Mean shows per hand: {e.fmt(3)} (normal 95%)."
        if "overcalls" in h:
            e = stats.mean_normal(h["overcalls"].to_numpy(float))
            extra += f" Mean overcalls per hand: {e.fmt(3)}."
        T(
            Table(
                "declarations",
                "Declarations",
                pd.DataFrame(drows),
                "Shares of hands with Wilson 95% intervals." + extra,
                percent=("p",),
            )
        )

    # ---- matches ---------------------------------------------------------------------------
    if run.matches is not None and len(run.matches):
        _match_tables(rep, run, h, figures)
    return rep


def _team_codes(s: pd.Series) -> pd.Series:
    """A match winner column -> 0 (seats 0/2), 1 (seats 1/3), anything else (draw) -> -1."""
    if pd.api.types.is_numeric_dtype(s.dtype):
        v = pd.to_numeric(s, errors="coerce").fillna(-1).astype(int)
    else:
        st = _as_str(s).fillna("").str.lower()
        v = pd.Series(np.where(st.str.contains("0"), 0, np.where(st.str.contains("1"), 1, -1)))
    return v.where(v.isin([0, 1]), -1)


def _match_tables(rep: Report, run: Run, h: pd.DataFrame, figures: bool) -> None:
    mt = canonical_matches(run.matches)
    nm = len(mt)
    rows = []
    if "hands" in mt:
        x = mt["hands"].to_numpy(float)
        e = stats.mean_bootstrap(x, CONF, N_BOOT)
        q = np.quantile(x, [0.1, 0.5, 0.9], method="inverted_cdf")
        rows.append(
            {
                "metric": "hands per match (mean)",
                "estimate": e.estimate,
                "estimate_lo": e.lo,
                "estimate_hi": e.hi,
                "n": nm,
                "detail": f"q10 {q[0]:.0f}, median {q[1]:.0f}, q90 {q[2]:.0f}",
            }
        )
    if {"winner", "first_dealer"} <= set(mt):
        w = _team_codes(mt["winner"])
        decided = w.isin([0, 1])
        fd_team = mt["first_dealer"].to_numpy().astype(int) % 2
        k = int((w[decided].astype(int).to_numpy() == fd_team[decided.to_numpy()]).sum())
        nd = int(decided.sum())
        r = _prop_row({}, k, nd)
        rows.append(
            {
                "metric": "first dealer's team wins the match",
                "estimate": r["p"],
                "estimate_lo": r["p_lo"],
                "estimate_hi": r["p_hi"],
                "n": nd,
                "detail": "Wilson; among decided matches; 0.5 = no advantage",
            }
        )
        if nd < nm:
            r = _prop_row({}, nm - nd, nm)
            rows.append(
                {
                    "metric": "drawn / undecided matches",
                    "estimate": r["p"],
                    "estimate_lo": r["p_lo"],
                    "estimate_hi": r["p_hi"],
                    "n": nm,
                    "detail": "Wilson",
                }
            )
        r = _prop_row({}, int((w[decided] == 0).sum()), nd)
        rows.append(
            {
                "metric": "team 0 (seats 0, 2) wins the match",
                "estimate": r["p"],
                "estimate_lo": r["p_lo"],
                "estimate_hi": r["p_hi"],
                "n": nd,
                "detail": "Wilson; seat/bot advantage",
            }
        )
    if rows:
        rep.tables.append(Table("matches", "Matches", pd.DataFrame(rows), "n = matches.", digits=3))
    # win probability by level: P(a team wins the match | it deals a hand at level L), one
    # observation per (match, team, level): the first hand that team deals at that level
    if {"match_id", "dealer", "level"} <= set(h) and {"match_id", "winner"} <= set(mt):
        hh = h[["match_id", "dealer", "level"]].copy()
        if "hand_no" in h:
            hh["order"] = h["hand_no"].to_numpy()
        else:
            hh["order"] = h["hand_id"].to_numpy()
        hh["team"] = hh["dealer"].astype(int) % 2
        hh = hh.sort_values(["match_id", "order"]).drop_duplicates(["match_id", "team", "level"])
        win = pd.Series(_team_codes(mt["winner"]).to_numpy(), index=mt["match_id"].to_numpy())
        hh["won"] = hh["match_id"].map(win).astype(float) == hh["team"]
        rows = []
        for lv in _level_order(hh["level"].unique()):
            sub = hh[hh["level"] == lv]
            rows.append(_prop_row({"level": lv}, int(sub["won"].sum()), len(sub)))
        tab = pd.DataFrame(rows)
        rep.tables.append(
            Table(
                "win_prob_by_level",
                "Match win probability by the dealing team's level",
                tab,
                "For each match and team, the first hand that team deals at level L; p = share of "
                "those teams that go on to win the match (Wilson 95%; both teams of one match can "
                "appear in one row, so rows are mildly dependent).",
                percent=("p",),
            )
        )
        if figures and len(tab):
            rep.figures.append(
                Figure(
                    "win_prob_by_level",
                    "Match win probability by level",
                    _plot_bars(
                        tab["level"].tolist(),
                        tab["p"],
                        tab["p_lo"],
                        tab["p_hi"],
                        "P(dealing team wins match)",
                        "Match win probability by level",
                    ),
                    section="win_prob_by_level",
                )
            )


# --------------------------------------------------------------------------------------------
# Compare: two runs over the same deals


PAIRED_METRICS: list[tuple[str, str, str, Callable[[pd.DataFrame], Any]]] = [
    # (metric, unit, needs column, per-hand value)
    ("defenders' total", "points", "defenders_total", lambda h: h["defenders_total"]),
    ("defenders' trick points", "points", "trick_points", lambda h: h["trick_points"]),
    ("dealer side wins", "share", "dealer_won", lambda h: h["dealer_won"]),
    (
        "level change (+dealer / -defenders)",
        "levels",
        "signed_change",
        lambda h: h["signed_change"],
    ),
    (
        "dealer side levels gained",
        "levels",
        "signed_change",
        lambda h: np.maximum(h["signed_change"], 0),
    ),
    (
        "defenders' levels gained",
        "levels",
        "signed_change",
        lambda h: np.maximum(-h["signed_change"], 0),
    ),
    ("kitty captured", "share", "kitty_captured", lambda h: h["kitty_captured"]),
    ("kitty bonus", "points", "kitty_bonus", lambda h: h["kitty_bonus"]),
    ("decided by the kitty", "share", "kitty_decides", lambda h: h["kitty_decides"]),
    ("no-trump hand", "share", "trump_kind", lambda h: h["trump_kind"] == "no trump"),
    ("hand with an overcall", "share", "overcalls", lambda h: h["overcalls"] > 0),
    ("throws per hand", "count", "throws", lambda h: h["throws"]),
    ("failed throws per hand", "count", "failed_throws", lambda h: h["failed_throws"]),
    ("points buried", "points", "kitty_buried", lambda h: h["kitty_buried"]),
]


# columns that depend on the shuffle only (not on rules or bots): the per-seat deal features
# that do not depend on the trump, and the kitty as dealt
_DEAL_ONLY = ("kitty_points_dealt", "kitty_points", "first_seat", "deal_hash")
_DEAL_FEATURES = ("points", "jokers", "pairs", "level_cards")


def _deal_check(a: pd.DataFrame, b: pd.DataFrame) -> dict[str, Any]:
    """Whether the two runs dealt the same cards: compares every column that depends on the deal
    only (per-seat deal features, the kitty as dealt). Returns the columns compared and the share
    of hands where all of them agree."""
    deal_cols = [
        c
        for c in a.columns
        if c in b.columns
        and (
            c in _DEAL_ONLY
            or c.startswith("deal_")
            or any(c.startswith(f"{p}_") and c[len(p) + 1 :].isdigit() for p in _DEAL_FEATURES)
        )
    ]
    if not deal_cols:
        return {"columns": [], "same_share": float("nan")}
    same = np.ones(len(a), dtype=bool)
    for c in deal_cols:
        same &= a[c].astype(str).to_numpy() == b[c].astype(str).to_numpy()
    return {"columns": deal_cols, "same_share": float(same.mean()) if len(a) else float("nan")}


def _pair_frames(a: pd.DataFrame, b: pd.DataFrame, key: str):
    if key in a and key in b:
        common = np.intersect1d(a[key].to_numpy(), b[key].to_numpy())
        a = a.set_index(key).loc[common].reset_index()
        b = b.set_index(key).loc[common].reset_index()
    else:
        k = min(len(a), len(b))
        a, b = a.iloc[:k].reset_index(drop=True), b.iloc[:k].reset_index(drop=True)
    return a, b


def compute_compare(
    run_a: Run,
    run_b: Run,
    *,
    label_a: str | None = None,
    label_b: str | None = None,
    figures: bool = True,
    n_boot: int = N_BOOT,
) -> Report:
    """Paired comparison of two runs of the same deals (same seed, n and batch size): for every
    per-hand metric the mean difference A - B with its paired-bootstrap 95% interval, the normal
    interval, a p-value, and the minimum detectable effect at this n (power 0.8)."""
    la = label_a or run_a.label
    lb = label_b or run_b.label
    ha = canonical_hands(run_a.hands, run_a.rules)
    hb = canonical_hands(run_b.hands, run_b.rules)
    ha, hb = _pair_frames(ha, hb, "hand_id")
    raw_a, raw_b = _pair_frames(run_a.hands, run_b.hands, _pick(run_a.hands, ("hand_id",)) or "")
    n = len(ha)
    ma, mb = run_a.manifest, run_b.manifest
    same_seed = ma.get("seed") == mb.get("seed") and ma.get("batch_size") == mb.get("batch_size")
    deal = _deal_check(raw_a, raw_b)
    rep = Report(
        title=f"fastsheng compare: A = {la} vs B = {lb}",
        subtitle=(
            f"{n:,} paired hands (by hand_id); seed A {ma.get('seed')}, seed B "
            f"{mb.get('seed')}; batch size {ma.get('batch_size')} / {mb.get('batch_size')}"
        ),
        meta={
            "run_a": run_a.path,
            "run_b": run_b.path,
            "label_a": la,
            "label_b": lb,
            "n_pairs": n,
            "same_seed_and_batches": bool(same_seed),
            "deal_check": deal,
        },
    )
    rows = []
    for i, (metric, unit, need, fn) in enumerate(PAIRED_METRICS):
        if need not in ha or need not in hb:
            continue
        xa = np.asarray(fn(ha), dtype=float)
        xb = np.asarray(fn(hb), dtype=float)
        d = stats.paired_diff(xa, xb, CONF, n_boot, seed=i)
        rows.append(
            {
                "metric": metric,
                "unit": unit,
                "n": d.n,
                "mean_a": d.mean_a,
                "mean_b": d.mean_b,
                "diff": d.diff,
                "diff_lo": d.boot.lo,
                "diff_hi": d.boot.hi,
                "normal_lo": d.normal.lo,
                "normal_hi": d.normal.hi,
                "p_value": d.p_value,
                "mde": d.mde,
                "sd_diff": d.sd_diff,
                "pairs_differing": d.n_differ,
                "excludes_0": bool(not d.boot.covers(0.0)),
            }
        )
    diffs = pd.DataFrame(rows)
    pairing = (
        "identical deals (common random numbers)"
        if deal["same_share"] == 1.0
        else "same seed"
        if same_seed
        else "different seeds: pairs are independent"
    )
    if deal["columns"] and deal["same_share"] < 1.0:
        pairing += f" (only {deal['same_share']:.1%} of paired hands were dealt the same cards)"
    if ma.get("mode") == "matches" or mb.get("mode") == "matches":
        pairing += (
            "; matches mode: hands are paired by hand_id, i.e. only the hand numbers both "
            "matches reached (early hands weigh more): prefer the per-match table"
        )
    rep.tables.append(
        Table(
            "headline",
            "Paired differences A - B",
            diffs,
            f"A = {la}; B = {lb}. Pairing: {pairing}. diff = mean over hands of (A - B), with a "
            f"paired-bootstrap 95% interval ({n_boot} replicates) and the normal interval; "
            "p_value: two-sided z-test of no difference; mde: the smallest true difference this "
            "n detects with 80% power at the 5% level, (1.96 + 0.84) sd_diff / sqrt(n). Shares are "
            "differences of proportions (e.g. 0.02 = 2 percentage points). No correction for "
            "testing many metrics at once. The CSV also has normal_lo/hi, sd_diff and the count of "
            "hands whose value differs.",
            digits=3,
            show=(
                "metric",
                "unit",
                "n",
                "mean_a",
                "mean_b",
                "diff",
                "diff_lo",
                "diff_hi",
                "p_value",
                "mde",
            ),
            console=("metric", "mean_a", "mean_b", "diff", "diff_lo", "diff_hi", "mde"),
        )
    )
    # level-change distribution side by side (paired difference per outcome)
    if "outcome" in ha and "outcome" in hb:
        outs = sorted(set(ha["outcome"]) | set(hb["outcome"]), key=_outcome_key)
        lrows = []
        for j, o in enumerate(outs):
            d = stats.paired_diff(
                ha["outcome"] == o, hb["outcome"] == o, CONF, n_boot, seed=100 + j
            )
            ea = stats.wilson(int((ha["outcome"] == o).sum()), n)
            eb = stats.wilson(int((hb["outcome"] == o).sum()), n)
            lrows.append(
                {
                    "outcome": o,
                    "n": n,
                    "p_a": ea.estimate,
                    "p_a_lo": ea.lo,
                    "p_a_hi": ea.hi,
                    "p_b": eb.estimate,
                    "p_b_lo": eb.lo,
                    "p_b_hi": eb.hi,
                    "diff": d.diff,
                    "diff_lo": d.boot.lo,
                    "diff_hi": d.boot.hi,
                    "mde": d.mde,
                }
            )
        rep.tables.append(
            Table(
                "level_change",
                "Level-change distribution, A vs B",
                pd.DataFrame(lrows),
                "p_a, p_b: Wilson 95%; diff: paired bootstrap 95%.",
                percent=("p_a", "p_b", "diff"),
                digits=2,
            )
        )
    # matches mode: paired per-match metrics (match i of A vs match i of B; the first hands share
    # their deals, later hands diverge with the play)
    if run_a.matches is not None and run_b.matches is not None:
        mta, mtb = canonical_matches(run_a.matches), canonical_matches(run_b.matches)
        mta, mtb = _pair_frames(mta, mtb, "match_id")
        mrows = []
        per_match = [
            ("hands per match", lambda m: m["hands"] if "hands" in m else None),
            ("team 0 (seats 0, 2) wins", lambda m: _team_codes(m["winner"]) == 0),
            (
                "first dealer's team wins",
                lambda m: _team_codes(m["winner"]) == m["first_dealer"].astype(int) % 2,
            ),
            ("drawn", lambda m: _team_codes(m["winner"]) < 0),
        ]
        for j, (metric, fn) in enumerate(per_match):
            try:
                xa, xb = fn(mta), fn(mtb)
            except KeyError:
                continue
            if xa is None:
                continue
            d = stats.paired_diff(
                np.asarray(xa, float), np.asarray(xb, float), CONF, n_boot, seed=200 + j
            )
            mrows.append(
                {
                    "metric": metric,
                    "n": d.n,
                    "mean_a": d.mean_a,
                    "mean_b": d.mean_b,
                    "diff": d.diff,
                    "diff_lo": d.boot.lo,
                    "diff_hi": d.boot.hi,
                    "p_value": d.p_value,
                    "mde": d.mde,
                }
            )
        if mrows:
            rep.tables.append(
                Table(
                    "match_differences",
                    "Paired differences per match, A - B",
                    pd.DataFrame(mrows),
                    "Matches paired by match_id (same seed: the same first deal; the later deals "
                    "differ once the two variants' matches diverge, so the pairing is weaker than "
                    "for hands). Paired-bootstrap 95% intervals.",
                    digits=3,
                )
            )
    # each run's own headline, side by side
    for tag, run in (("a", run_a), ("b", run_b)):
        sub = compute_report(run, figures=False)
        t = sub.table("headline")
        rep.tables.append(
            Table(
                f"headline_{tag}",
                f"Headline of {tag.upper()} = {la if tag == 'a' else lb}",
                t.df,
                t.note,
                digits=3,
            )
        )
    setup = pd.DataFrame(
        [
            {"": "rules", "A": ma.get("rules_name"), "B": mb.get("rules_name")},
            {"": "bots", "A": ",".join(ma.get("bots", [])), "B": ",".join(mb.get("bots", []))},
            {"": "seed", "A": ma.get("seed"), "B": mb.get("seed")},
            {"": "n", "A": ma.get("n"), "B": mb.get("n")},
            {"": "batch size", "A": ma.get("batch_size"), "B": mb.get("batch_size")},
            {
                "": "mode / level",
                "A": f"{ma.get('mode')} / {ma.get('level')}",
                "B": f"{mb.get('mode')} / {mb.get('level')}",
            },
            {"": "switches that differ", "A": ", ".join(_rules_diff(ma, mb)) or "none", "B": ""},
            {
                "": "deals identical (columns checked)",
                "A": (f"{deal['same_share']:.4%} of hands" if deal["columns"] else "not checked"),
                "B": ", ".join(deal["columns"])[:200],
            },
        ]
    )
    rep.tables.append(Table("setup", "The two runs", setup, ""))
    if figures and len(diffs):
        rep.figures.append(
            Figure(
                "paired_diffs",
                "Paired differences",
                _plot_forest(diffs, "A - B, paired (95% CI)"),
                section="headline",
            )
        )
        if "defenders_total" in ha:
            rep.figures.append(
                Figure(
                    "points_hist",
                    "Defenders' total, A and B",
                    _plot_points_hist(
                        {
                            f"A: {la}": ha["defenders_total"].to_numpy(float),
                            f"B: {lb}": hb["defenders_total"].to_numpy(float),
                        },
                        "defenders' total points",
                        "Defenders' total, A vs B",
                    ),
                    section="level_change",
                )
            )
    return rep


def _rules_diff(ma: dict, mb: dict) -> list[str]:
    ra, rb = ma.get("rules") or {}, mb.get("rules") or {}
    return sorted(
        f"{k}: {ra.get(k)} / {rb.get(k)}"
        for k in set(ra) | set(rb)
        if k != "name" and ra.get(k) != rb.get(k)
    )


# --------------------------------------------------------------------------------------------
# Output: CSV, HTML, console


def _fmt_num(v: Any, digits: int, pct: bool = False) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "n/a" if not (isinstance(v, float) and math.isinf(v)) else ("∞" if v > 0 else "-∞")
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        if pct:
            return f"{100 * float(v):.{max(digits - 1, 1)}f}%"
        if float(v).is_integer() and abs(v) < 1e15 and digits <= 1:
            return f"{int(v):,}"
        return f"{float(v):,.{digits}f}"
    return str(v)


def display_frame(t: Table, columns: Sequence[str] = ()) -> pd.DataFrame:
    """The table as shown: interval triples merged into 'est [lo, hi]' strings."""
    df = t.df
    columns = columns or t.show
    if columns:
        df = df[[c for c in columns if c in df.columns]]
    cols = list(df.columns)
    out: dict[str, list[str]] = {}
    skip = set()
    for c in cols:
        if c in skip:
            continue
        lo, hi = f"{c}_lo", f"{c}_hi"
        pct = c in t.percent or (c == "estimate" and "kind" in df and False)
        if lo in df and hi in df:
            skip |= {lo, hi}
            vals = []
            for i in range(len(df)):
                row_pct = pct or _row_is_share(df, i, c)
                vals.append(
                    f"{_fmt_num(df[c].iloc[i], t.digits, row_pct)} "
                    f"[{_fmt_num(df[lo].iloc[i], t.digits, row_pct)}, "
                    f"{_fmt_num(df[hi].iloc[i], t.digits, row_pct)}]"
                )
            out[f"{c} (95% CI)"] = vals
        else:
            out[c] = [_fmt_num(v, t.digits, pct and c != "n") for v in df[c]]
    return pd.DataFrame(out)


def _row_is_share(df: pd.DataFrame, i: int, col: str) -> bool:
    if col not in ("estimate", "diff"):
        return False
    for k in ("kind", "unit"):
        if k in df and str(df[k].iloc[i]) in ("proportion", "share"):
            return True
    return False


_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans',sans-serif;margin:2rem auto;
max-width:1100px;color:#222;line-height:1.4;padding:0 1rem}
h1{font-size:1.5rem;margin-bottom:.2rem}
h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
.sub{color:#555} .note{color:#555;font-size:.9rem;max-width:60rem}
table{border-collapse:collapse;font-size:.88rem;margin:.5rem 0} th,td{border:1px solid #ddd;
padding:.25rem .5rem;text-align:right} th{background:#f4f4f4} td:first-child,th:first-child{
text-align:left} tr:nth-child(even) td{background:#fafafa} figure{margin:1rem 0}
figcaption{color:#555;font-size:.9rem} img{max-width:100%;height:auto;border:1px solid #eee}
nav a{margin-right:.8rem} code{background:#f4f4f4;padding:0 .2rem}
"""


def render_html(rep: Report) -> str:
    """A self-contained HTML page: inline CSS, tables, PNGs as data: URIs, no scripts."""
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(rep.title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{e(rep.title)}</h1>",
        f'<p class="sub">{e(rep.subtitle)}</p>',
        "<nav>"
        + "".join(f'<a href="#{e(t.name)}">{e(t.title)}</a>' for t in rep.tables)
        + "</nav>",
    ]
    placed = {t.name for t in rep.tables}

    def fig_html(f: Figure) -> str:
        b64 = base64.b64encode(f.png).decode("ascii")
        return (
            f'<figure id="fig-{e(f.name)}"><img alt="{e(f.title)}" '
            f'src="data:image/png;base64,{b64}">'
            f"<figcaption>{e(f.title)}{(': ' + e(f.note)) if f.note else ''}"
            "</figcaption></figure>"
        )

    for t in rep.tables:
        parts.append(f'<h2 id="{e(t.name)}">{e(t.title)}</h2>')
        if t.note:
            parts.append(f'<p class="note">{e(t.note)}</p>')
        body = display_frame(t).to_html(index=False, border=0, escape=True, classes="results")
        if t.collapsed:
            body = f"<details><summary>{len(t.df):,} rows (show)</summary>{body}</details>"
        parts.append(body)
        parts.append(f'<p class="note">CSV: <a href="{e(t.name)}.csv">{e(t.name)}.csv</a></p>')
        parts.extend(fig_html(f) for f in rep.figures if f.section == t.name)
    rest = [f for f in rep.figures if f.section not in placed]
    if rest:
        parts.append('<h2 id="plots">Plots</h2>')
        parts.extend(fig_html(f) for f in rest)
    parts.append(
        '<p class="note">Made by <code>fastsheng</code>. Intervals: see '
        "docs/analysis.md.</p></body></html>"
    )
    return "\n".join(parts)


def write_report(rep: Report, out: str | os.PathLike[str]) -> Path:
    """Write ``out/index.html`` and one CSV per table; return the HTML's path."""
    outp = Path(out)
    outp.mkdir(parents=True, exist_ok=True)
    for t in rep.tables:
        t.df.to_csv(outp / f"{t.name}.csv", index=False)
    for f in rep.figures:
        (outp / f"{f.name}.png").write_bytes(f.png)
    (outp / "report.json").write_text(json.dumps(rep.meta, indent=1, default=str) + "\n")
    index = outp / "index.html"
    index.write_text(render_html(rep), encoding="utf-8")
    return index


def print_headline(rep: Report, console: Any = None) -> None:
    from rich.console import Console
    from rich.table import Table as RichTable

    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=140)
    t = rep.table(rep.headline)
    shown = display_frame(t, t.console)
    rt = RichTable(title=rep.title, caption=rep.subtitle, show_lines=False)
    for c in shown.columns:
        rt.add_column(str(c), justify="left" if c in ("metric", "unit", "kind") else "right")
    for _, row in shown.iterrows():
        rt.add_row(*[str(v) for v in row])
    console.print(rt)


def report_command(
    run: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    quiet: bool = False,
    console: Any = None,
) -> Report:
    """``fastsheng report RUN [--out DIR]``: write ``RUN/report/`` (or DIR) and print the
    headline."""
    r = load_run(run)
    rep = compute_report(r)
    where = Path(out) if out else Path(run) / "report"
    index = write_report(rep, where)
    if not quiet:
        print_headline(rep, console)
        _say(console, f"wrote {index} and {len(rep.tables)} CSV tables")
    return rep


def _say(console: Any, text: str) -> None:
    if console is not None:
        console.print(text)
    else:
        print(text)


def compare_command(
    runs: Sequence[str | os.PathLike[str]] = (),
    *,
    rules: Sequence[str] = (),
    bots: Sequence[str] = (),
    n: int = 20_000,
    seed: int = 0,
    batch_size: int | None = None,
    mode: str = "hands",
    level: str = "2",
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    quiet: bool = False,
    console: Any = None,
    batch_fn: Any = None,
) -> Report:
    """``fastsheng compare``: either two existing runs (``runs=[A, B]``), or simulate two variants
    that differ in rules (``rules=[a, b]``) or bots (``bots=[a, b]``) over the same deals
    (same seed, n and batch size: common random numbers) into ``OUT/a`` and ``OUT/b``, then
    compare. Writes ``OUT/index.html`` + CSVs (default ``OUT``: ``compare-<a>-vs-<b>``)."""
    runs = [str(r) for r in runs]
    if runs:
        if len(runs) != 2 or rules or bots:
            raise ValueError("give exactly two run folders, or two --rules / two --bots")
        run_a, run_b = load_run(runs[0]), load_run(runs[1])
        la, lb = _short_label(run_a, run_b)
        where = (
            Path(out)
            if out
            else Path(runs[0]).parent / (f"compare-{Path(runs[0]).name}-vs-{Path(runs[1]).name}")
        )
    else:
        rules = list(rules) or []
        bots = list(bots) or []
        if len(rules) == 2 and len(bots) <= 1:
            variants = [(r, bots[0] if bots else None) for r in rules]
            labels = list(rules)
        elif len(bots) == 2 and len(rules) <= 1:
            variants = [(rules[0] if rules else "standard", b) for b in bots]
            labels = [_lineup_label(b) for b in bots]
        else:
            raise ValueError(
                "give two --rules (and at most one --bots), or two --bots (and at "
                "most one --rules), or two run folders"
            )
        if labels[0] == labels[1]:
            labels = [f"{labels[0]}-A", f"{labels[1]}-B"]
        where = Path(out) if out else Path(f"compare-{_safe(labels[0])}-vs-{_safe(labels[1])}")
        paths = []
        for (rl, bt), lab in zip(variants, labels, strict=True):
            p = where / "runs" / _safe(lab)
            simulate_run(
                p,
                rules=rl,
                bots=bt,
                n=n,
                seed=seed,
                batch_size=batch_size,
                mode=mode,
                level=level,
                workers=workers,
                batch_fn=batch_fn,
            )
            paths.append(p)
        run_a, run_b = load_run(paths[0]), load_run(paths[1])
        la, lb = labels
    rep = compute_compare(run_a, run_b, label_a=la, label_b=lb)
    index = write_report(rep, where)
    if not quiet:
        print_headline(rep, console)
        _say(console, f"wrote {index} and {len(rep.tables)} CSV tables")
    return rep


def _short_label(a: Run, b: Run) -> tuple[str, str]:
    ma, mb = a.manifest, b.manifest
    if ma.get("rules_name") != mb.get("rules_name") or ma.get("rules") != mb.get("rules"):
        if ma.get("bots") == mb.get("bots"):
            return str(ma.get("rules_name")), str(mb.get("rules_name"))
    if ma.get("bots") != mb.get("bots") and ma.get("rules") == mb.get("rules"):
        return ",".join(ma.get("bots", [])), ",".join(mb.get("bots", []))
    return Path(a.path).name, Path(b.path).name


def _safe(s: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in s)


def _bots_tuple(b: str | None) -> tuple[str, str, str, str]:
    """A line-up (1 name, 2 = team 0, team 1, or 4) as the four versioned names it plays."""
    from fastsheng.bots import resolve_bots

    if b is None:
        return resolve_bots("expert")
    parts = [p.strip() for p in b.split(",") if p.strip()]
    if len(parts) == 2:  # team 0 (seats 0, 2), team 1 (seats 1, 3)
        parts = [parts[0], parts[1], parts[0], parts[1]]
    if len(parts) not in (1, 4):
        raise ValueError(f"bots: give 1, 2 (team 0, team 1) or 4 names, got {b!r}")
    return resolve_bots(parts[0] if len(parts) == 1 else parts)


def _lineup_label(b: str | None) -> str:
    """``expert`` -> ``expert-v1``; ``expert,basic`` -> ``expert-v1,basic-v1``: the label of a
    line-up names the versions that played."""
    names = _bots_tuple(b)
    if len(set(names)) == 1:
        return names[0]
    if names[0] == names[2] and names[1] == names[3]:
        return f"{names[0]},{names[1]}"
    return ",".join(names)


def simulate_run(
    out: str | os.PathLike[str],
    *,
    rules: str,
    bots: str | None,
    n: int,
    seed: int,
    batch_size: int | None = None,
    mode: str = "hands",
    level: str = "2",
    workers: int | None = None,
    batch_fn: Any = None,
) -> Path:
    """Simulate one run into ``out`` with :func:`fastsheng.runner.run` (reusing a finished run
    with the same configuration)."""
    from fastsheng.rules import rules_from_spec
    from fastsheng.runner import DEFAULT_BATCH_SIZE, RunSpec, run

    spec = RunSpec(
        rules=rules_from_spec(rules),
        bots=_bots_tuple(bots),
        seed=seed,
        n=n,
        batch_size=batch_size or DEFAULT_BATCH_SIZE[mode],
        mode=mode,
        level=level,
    )
    p = Path(out)
    resume = (p / "run.json").is_file()
    run(spec, str(p), workers=workers, resume=resume, batch_fn=batch_fn)
    return p
