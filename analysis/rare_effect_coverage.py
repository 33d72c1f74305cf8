"""Rare effects in a sweep: does the family of simultaneous intervals cover a variant that
changes only a handful of hands?

Question: a sweep's variant may change almost nothing (``kitty_multiplier=linear`` under
``standard`` moves the level change in 6 hands of 20,000 and no winner). Do the sweep's
Bonferroni intervals still cover every true effect of the family together 95% of the time at
small n, where such an effect rests on 0 to 9 differing hands?

Method: paired per-hand values simulated in numpy with known effects (no hands are played):
families shaped like docs/analysis.md's kitty-multiplier sweep (linear and powers change the
same 3 or 6 hands in 10,000, cards many: the level change, in levels, and the defenders'
total, in points) and a family where one variant turns a lost hand into a win with
probability 2e-4 (the dealer side's win). For each family and n = 300 and 2,000, 1,000 samples;
the share whose intervals all cover their true effects, with the plain t interval of each
difference (what the sweep used before: [v, v] when no pair differs) and with the sweep's
(``fastsheng.studies.effects.paired_intervals``: the rate bound below 10 differing pairs, each
worth at most the range of a difference under ``standard``'s rules).
Then three variants each moving lam hands one way at n = 2,000 (a share, and levels): where the
t interval is still used above 10 differing pairs. tests/test_sweep.py uses these families
(asserting 95%) and checks docs/analysis.md's quote of this output (slow).

Run: python analysis/rare_effect_coverage.py [SAMPLES]   (default 1,000; about 40 s)
"""

from __future__ import annotations

import sys

import numpy as np

from fastsheng import get_rules
from fastsheng.studies import multiplicity, stats
from fastsheng.studies.effects import paired_intervals
from fastsheng.studies.report.metrics import METRICS

# the rules the families are shaped after; their values lie in its ranges (levels -3..3,
# points 0..220), which bound a rare effect in the sweep
RULES = get_rules("standard")

LEVELS = np.array([3, 2, 1, 0, -1, -2, -3], float)
LEVEL_P = np.array([0.05, 0.15, 0.22, 0.30, 0.20, 0.06, 0.02])


def kitty_family(rng, n: int, key: str):
    """The baseline's values, the three variants' and their true effects (linear, powers,
    cards), for ``signed_change`` (levels) or ``defenders_total`` (points)."""
    u = rng.random(n)
    if key == "signed_change":  # 3e-4 of hands move one level, mostly up
        xb = rng.choice(LEVELS, size=n, p=LEVEL_P)
        rare = np.where(u < 2e-4, 1.0, np.where(u < 3e-4, -1.0, 0.0))
        w = rng.random(n)
        common = np.where(w < 0.03, 1.0, np.where(w < 0.04, -1.0, 0.0))
        return xb, [xb + rare, xb + rare, xb + common], [1e-4, 1e-4, 0.02]
    xb = 5.0 * rng.binomial(40, 0.42, n)  # 6e-4 of hands gain 5..20 points
    size = 5.0 * rng.integers(1, 5, n)
    rare = np.where(u < 6e-4, size, 0.0)
    common = np.where(rng.random(n) < 0.06, -size, 0.0)
    return xb, [xb + rare, xb + rare, xb + common], [7.5e-3, 7.5e-3, -0.75]


def flip_family(rng, n: int, key: str = "dealer_won"):
    """dealer_won: one variant wins a lost hand with probability 2e-4, one flips 2% of hands."""
    xb = (rng.random(n) < 0.42).astype(float)
    flip = (xb == 0) & (rng.random(n) < 2e-4)
    other = rng.random(n) < 0.02
    flipped = [np.where(flip, 1.0, xb), np.where(other, 1.0 - xb, xb)]
    return xb, flipped, [0.58 * 2e-4, 0.02 * (0.58 - 0.42)]


FAMILIES = {
    "signed_change": kitty_family,
    "defenders_total": kitty_family,
    "dealer_won": flip_family,
}


def one_way_family(rng, n: int, key: str, lam: float):
    """Three variants, each moving about ``lam`` hands one step up (independently)."""
    if key == "dealer_won":
        xb = (rng.random(n) < 0.42).astype(float)
        p = lam / n / 0.58
        return xb, [np.where((xb == 0) & (rng.random(n) < p), 1.0, xb) for _ in range(3)]
    xb = rng.choice(LEVELS, size=n, p=LEVEL_P)
    return xb, [xb + (rng.random(n) < lam / n) for _ in range(3)]


def t_intervals(xb, xvs, conf):
    """The plain t interval of each difference (zero width when no pair differs)."""
    out = []
    for xv in xvs:
        d = xv - xb
        h = stats.t_value(conf, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size)
        out.append((d.mean() - h, d.mean() + h))
    return out


def sweep_intervals(key, xb, xvs, conf):
    rules = [RULES] * (1 + len(xvs))
    return [(e.lo, e.hi) for e in paired_intervals(METRICS[key], xb, xvs, conf, rules=rules)]


def together(intervals, truth) -> bool:
    return all(lo <= t <= hi for (lo, hi), t in zip(intervals, truth, strict=True))


def coverage(key: str, n: int, reps: int, method: str = "sweep", seed: int | None = None):
    """Family-wise coverage of ``FAMILIES[key]`` at ``n`` over ``reps`` samples."""
    rng = np.random.default_rng(n if seed is None else seed)
    ok = 0
    for _ in range(reps):
        xb, xvs, truth = FAMILIES[key](rng, n, key)
        conf = multiplicity.simultaneous_conf(len(xvs))
        its = (
            sweep_intervals(key, xb, xvs, conf) if method == "sweep" else t_intervals(xb, xvs, conf)
        )
        ok += together(its, truth)
    return ok / reps


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    reps = int(argv[0]) if argv else 1000
    print(f"family-wise coverage of simultaneous 95% intervals, {reps:,} samples each")
    print(f"{'family':>16} {'n':>6} {'t interval':>11} {'sweep':>6}")
    for key in FAMILIES:
        for n in (300, 2000):
            t = coverage(key, n, reps, "t")
            s = coverage(key, n, reps, "sweep")
            print(f"{key:>16} {n:>6,} {t:>11.3f} {s:>6.3f}")
    n = 2000
    print(f"\nthree variants each moving lam hands one way, n = {n:,}: sweep's coverage")
    print(f"{'lam':>4} {'dealer_won':>11} {'signed_change':>14}")
    for lam in (5, 15, 25, 40):
        row = []
        for key in ("dealer_won", "signed_change"):
            rng = np.random.default_rng(lam)
            ok = 0
            conf = multiplicity.simultaneous_conf(3)
            for _ in range(reps):
                xb, xvs = one_way_family(rng, n, key, lam)
                truth = [lam / n] * 3
                ok += together(sweep_intervals(key, xb, xvs, conf), truth)
            row.append(ok / reps)
        print(f"{lam:>4} {row[0]:>11.3f} {row[1]:>14.3f}")


if __name__ == "__main__":
    main()
