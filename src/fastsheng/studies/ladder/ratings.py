"""The Bradley–Terry rating of a ladder's bots on hands won (``choix``), its bootstrap interval
over deals, and its fit to the pair shares."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fastsheng.studies.ladder.outcomes import CONF, PairOutcome

__all__ = [
    "BTFit",
    "ELO_PER_LOGIT",
    "N_BOOT",
    "bradley_terry",
    "bt_fit",
    "bt_ratings",
    "finite_mle",
]

N_BOOT = 1000  # bootstrap replicates of the Bradley–Terry rating
ELO_PER_LOGIT = 400.0 / math.log(10.0)


def bradley_terry(wins: np.ndarray) -> tuple[np.ndarray, bool]:
    """Maximum-likelihood Bradley–Terry ratings (log-odds, mean 0) of a square matrix
    ``wins[i, j]`` = times i beat j, and whether a small prior had to be added (a bot that never
    beat anyone, or was never beaten, has an infinite MLE)."""
    import choix

    w = np.asarray(wins, dtype=np.float64)
    theta = None
    if finite_mle(w):
        try:
            theta = choix.ilsr_pairwise_dense(w)
        except (ValueError, RuntimeError):  # no stationary distribution, or no convergence
            theta = None
    regularized = theta is None or not np.all(np.isfinite(theta))
    if regularized:
        for alpha in (0.01, 0.1, 1.0):
            try:
                theta = choix.ilsr_pairwise_dense(w, alpha=alpha)
                break
            except (ValueError, RuntimeError):
                continue
        else:
            theta = np.zeros(w.shape[0])
    return theta - theta.mean(), regularized


def finite_mle(wins: np.ndarray) -> bool:
    """Whether Bradley–Terry has a finite maximum likelihood: every bot beat, through some chain
    of wins, every other (the win graph is strongly connected; Zermelo's condition)."""
    from scipy.sparse.csgraph import connected_components

    w = np.asarray(wins, dtype=np.float64)
    k, _ = connected_components(w > 0, directed=True, connection="strong")
    return k == 1


def _why_no_rating(bots: Sequence[str], w: np.ndarray) -> str:
    unbeaten = [b for i, b in enumerate(bots) if w[:, i].sum() == 0]
    winless = [b for i, b in enumerate(bots) if w[i, :].sum() == 0]
    parts = [f"{', '.join(unbeaten)} never lost a hand"] if unbeaten else []
    parts += [f"{', '.join(winless)} never won a hand"] if winless else []
    what = "; ".join(parts) or "the bots split into groups one of which never beat the other"
    return (
        f"no Bradley–Terry rating: {what} (such a bot has no finite rating); "
        "the pair table is the measurement"
    )


def _win_matrix(k: int, ij: list[tuple[int, int]], sums: np.ndarray) -> np.ndarray:
    """wins[i, j] of the pairs ``ij`` from (X's wins of each pair | deals the pair played)."""
    w = np.zeros((k, k))
    for p, (i, j) in enumerate(ij):
        a, played = sums[p], sums[len(ij) + p]
        w[i, j] += a
        w[j, i] += 2.0 * played - a
    return w


def bt_ratings(
    bots: Sequence[str], outcomes: Sequence[PairOutcome], *, n_boot: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """One row per bot: the Bradley–Terry rating on hands won with its 95% percentile-bootstrap
    interval. Every pair plays the same deals (a pair with a capped bot: the first ones), so the
    bootstrap resamples deals jointly for every pair; a capped pair counts the resampled deals
    that fall in its prefix. No finite rating (a bot never lost, or never won): NaN, and
    ``ratings.attrs["note"]`` says why; with fewer than 2 deals in a pair the interval is NaN.
    ``attrs["prior_share"]``: the share of bootstrap replicates that needed a small prior."""
    index = {b: i for i, b in enumerate(bots)}
    k = len(bots)
    n = max(o.deals for o in outcomes)
    # deals x (X's wins of each pair | whether the pair played the deal), zero past a prefix
    data = np.zeros((n, 2 * len(outcomes)), np.float32)
    for p, o in enumerate(outcomes):
        data[: o.deals, p] = o.wins
        data[: o.deals, len(outcomes) + p] = 1.0
    ij = [(index[o.x], index[o.y]) for o in outcomes]
    w = _win_matrix(k, ij, data.sum(axis=0))
    nan = np.full(k, np.nan)
    note, prior_share = "", 0.0
    if not finite_mle(w):
        theta, lo, hi = nan, nan, nan
        note = _why_no_rating(bots, w)
    else:
        theta, _ = bradley_terry(w)
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0,)))
        reps = np.empty((n_boot, k))
        priors = 0
        chunk = max(1, min(n_boot, int(2e7 // max(n, 1))))
        for start in range(0, n_boot, chunk):
            stop = min(n_boot, start + chunk)
            counts = np.stack(
                [np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(start, stop)]
            ).astype(np.float32)
            for r, sums in enumerate(counts @ data):
                reps[start + r], regularized = bradley_terry(_win_matrix(k, ij, sums))
                priors += regularized
        lo, hi = np.quantile(reps, [(1 - CONF) / 2, (1 + CONF) / 2], axis=0)
        prior_share = priors / n_boot
        if min(o.deals for o in outcomes) < 2:  # resampling one deal says nothing of the next
            lo, hi = nan, nan
            note = "fewer than 2 deals in a pair: no interval"
        elif prior_share > 0.01:
            note = (
                f"{100 * prior_share:.0f}% of the bootstrap replicates had a bot that never "
                "lost or never won (a small prior was added): the interval is rough"
            )
    out = pd.DataFrame(
        {
            "bot": list(bots),
            "rating": theta,
            "rating_lo": lo,
            "rating_hi": hi,
            "elo": theta * ELO_PER_LOGIT,
            "elo_lo": lo * ELO_PER_LOGIT,
            "elo_hi": hi * ELO_PER_LOGIT,
        }
    )
    out = out.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)
    out.attrs.update(note=note, prior_share=prior_share)
    return out


@dataclass(frozen=True)
class BTFit:
    """How well the ratings reproduce the pair shares: per pair z = (measured share - the
    model's share) / its standard error over deals; ``chi2`` = sum of z^2 on ``df`` = pairs -
    (bots - 1) degrees of freedom and its p-value (NaN when df is 0: two bots, where the rating
    is the pair's share). ``fits``: p >= 0.05. The pairs share deals, so the z are not quite
    independent; the seat swap takes out most of what they share (the cards)."""

    chi2: float
    df: int
    p_value: float
    max_abs_z: float
    worst: tuple[str, str] | None
    fits: bool | None  # None: nothing to test

    def text(self) -> str:
        from fastsheng.studies.numfmt import fmt_p

        if self.fits is None:
            if self.df == 0 and np.isfinite(self.chi2):
                return "two bots: the rating difference is the pair's share, nothing to test"
            return "fit of the model: n/a"
        worst = f" ({self.worst[0]} vs {self.worst[1]})" if self.worst else ""
        head = (
            f"fit to the pair shares: chi-square {self.chi2:,.1f} on {self.df} df, "
            f"p {fmt_p(self.p_value) if self.p_value < 1e-15 else '= ' + fmt_p(self.p_value)}, "
            f"largest |z| {self.max_abs_z:.1f}{worst}"
        )
        if self.fits:
            return head + ": no misfit detected at this number of deals"
        return (
            head + ": the model does not fit these pairs; the pair table is the measurement, "
            "the ratings only a summary"
        )


def bt_fit(ratings: pd.DataFrame, outcomes: Sequence[PairOutcome]) -> tuple[BTFit, list[dict]]:
    """The fit of the ratings to the pair shares (:class:`BTFit`) and per pair the model's share
    (``bt_won``) and z (``bt_z``; NaN where the pair's share has no standard error)."""
    from scipy.stats import chi2 as chi2_dist

    theta = dict(zip(ratings["bot"], ratings["rating"], strict=True))
    rows, zs = [], []
    worst, worst_z = None, 0.0
    for o in outcomes:
        d = theta[o.x] - theta[o.y]
        model = 1.0 / (1.0 + math.exp(-d)) if np.isfinite(d) else float("nan")
        y = o.wins / 2.0
        se = float(y.std(ddof=1)) / math.sqrt(y.size) if y.size > 1 else 0.0
        z = (float(y.mean()) - model) / se if se > 0 and np.isfinite(model) else float("nan")
        rows.append({"bt_won": model, "bt_z": z})
        if np.isfinite(z):
            zs.append(z)
            if abs(z) >= worst_z:
                worst, worst_z = (o.x, o.y), abs(z)
    df = len(zs) - (len(ratings) - 1)
    nan = float("nan")
    if not zs or not np.all(np.isfinite(ratings["rating"])):
        return BTFit(nan, max(df, 0), nan, nan, None, None), rows
    stat = float(np.sum(np.square(zs)))
    if df <= 0:
        return BTFit(stat, 0, nan, worst_z, worst, None), rows
    p = float(chi2_dist.sf(stat, df))
    return BTFit(stat, df, p, worst_z, worst, p >= 0.05), rows
