"""Intervals and tests of fastsheng.studies.stats: known values, and coverage checked by
simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fastsheng.studies import stats


def test_z_value():
    assert stats.z_value(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert stats.z_value(0.90) == pytest.approx(1.644854, abs=1e-6)
    with pytest.raises(ValueError):
        stats.z_value(1.0)


@pytest.mark.parametrize(
    "k,n,lo,hi",
    [
        # reference values (Newcombe 1998, Table I; Agresti & Coull 1998)
        (5, 10, 0.2366, 0.7634),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
    ],
)
def test_wilson_known_values(k, n, lo, hi):
    e = stats.wilson(k, n)
    assert e.estimate == pytest.approx(k / n)
    assert e.lo == pytest.approx(lo, abs=5e-5)
    assert e.hi == pytest.approx(hi, abs=5e-5)
    assert e.n == n and e.method == "wilson"


def test_wilson_edge_cases():
    e = stats.wilson(0, 0)
    assert math.isnan(e.estimate) and (e.lo, e.hi) == (0.0, 1.0)
    with pytest.raises(ValueError):
        stats.wilson(3, 2)
    p, lo, hi = stats.wilson(np.array([0, 3, 7]), np.array([7, 7, 7]))
    assert lo[0] == 0.0 and hi[2] == 1.0 and np.all(lo <= p) and np.all(p <= hi)


@pytest.mark.parametrize("p,n", [(0.5, 30), (0.1, 200), (0.03, 500), (0.27, 2000)])
def test_wilson_coverage_by_simulation(p, n):
    """Draw 20,000 binomial samples of a known p; the 95% Wilson interval must cover p about 95%
    of the time. Wilson's coverage oscillates with n and p (it is not exact), so we accept
    0.93-0.97; the Monte-Carlo error of the estimate itself is about 0.0015."""
    rng = np.random.default_rng(12345)
    k = rng.binomial(n, p, size=20_000)
    _, lo, hi = stats.wilson(k, np.full_like(k, n))
    coverage = np.mean((lo <= p) & (p <= hi))
    assert 0.93 <= coverage <= 0.97, coverage


def test_wald_undercovers_where_wilson_does_not():
    """The reason the report uses Wilson: at p = 0.03, n = 100 Wald covers far less than 95%."""
    rng = np.random.default_rng(7)
    p, n = 0.03, 100
    k = rng.binomial(n, p, size=20_000)
    _, lo, hi = stats.wald(k, np.full_like(k, n))
    wald_cov = np.mean((lo <= p) & (p <= hi))
    _, lo, hi = stats.wilson(k, np.full_like(k, n))
    wilson_cov = np.mean((lo <= p) & (p <= hi))
    assert wald_cov < 0.85 < 0.93 < wilson_cov


def test_mean_normal_matches_formula():
    x = np.array([0, 5, 5, 10, 40, 80, 80, 120], dtype=float)
    e = stats.mean_normal(x)
    half = 1.959964 * x.std(ddof=1) / math.sqrt(x.size)
    assert e.estimate == pytest.approx(x.mean())
    assert e.lo == pytest.approx(x.mean() - half, rel=1e-6)
    assert e.hi == pytest.approx(x.mean() + half, rel=1e-6)
    assert math.isnan(stats.mean_normal([]).estimate)


def test_bootstrap_counts_equal_index_resampling():
    """The multinomial-count bootstrap has the same distribution as classic index resampling:
    compare their replicate standard deviations with the analytic s/sqrt(n)."""
    rng = np.random.default_rng(3)
    x = rng.choice([0, 5, 10, 20, 40, 80, 160], size=400, p=[0.1, 0.2, 0.2, 0.2, 0.1, 0.1, 0.1])
    fast = stats.bootstrap_mean_distribution(x, n_boot=4000, seed=1)
    idx = rng.integers(0, x.size, size=(4000, x.size))
    slow = x[idx].mean(axis=1)
    se = x.std(ddof=0) / math.sqrt(x.size)
    assert fast.std() == pytest.approx(se, rel=0.06)
    assert slow.std() == pytest.approx(se, rel=0.06)
    assert fast.mean() == pytest.approx(x.mean(), abs=3 * se / math.sqrt(4000) * 10)


def test_bootstrap_continuous_fallback():
    x = np.random.default_rng(0).normal(size=5000)  # 5000 distinct values: index resampling
    e = stats.mean_bootstrap(x, n_boot=300, seed=2)
    n = stats.mean_normal(x)
    assert e.lo == pytest.approx(n.lo, abs=0.01) and e.hi == pytest.approx(n.hi, abs=0.01)


def test_mean_intervals_coverage_by_simulation():
    """Skewed discrete population with known mean (like defenders' points): both the normal and
    the bootstrap 95% intervals of the mean of n = 300 cover it 93-97% of 1,000 samples."""
    values = np.array([0, 10, 20, 40, 60, 80, 120, 200], dtype=float)
    probs = np.array([0.05, 0.1, 0.2, 0.25, 0.2, 0.1, 0.07, 0.03])
    mu = float(values @ probs)
    rng = np.random.default_rng(99)
    hits_norm = hits_boot = 0
    reps = 1000
    for i in range(reps):
        x = rng.choice(values, size=300, p=probs)
        hits_norm += stats.mean_normal(x).covers(mu)
        hits_boot += stats.mean_bootstrap(x, n_boot=400, seed=i).covers(mu)
    assert 0.93 <= hits_norm / reps <= 0.97
    assert 0.92 <= hits_boot / reps <= 0.97


def test_paired_diff_identical_samples_are_bounded_not_zero_width():
    """The same nonzero values twice (the same rules or bots twice): 1,000 agreeing pairs bound
    an effect, they do not prove it is 0. With the values' range the interval is the rate bound
    of 0 differing pairs (it was the zero-width [0, 0]); without it there is no bound (NaN)."""
    x = np.random.default_rng(1).integers(0, 40, 1000) * 5.0
    d = stats.paired_diff(x, x, support=(0, 200), step=5)
    h = 200 * (1 - 0.0125 ** (1 / 1000))  # a difference is at most 200 away, times the rate
    assert d.diff == 0 and d.n_differ == 0 and d.ci.method.startswith("rate bound")
    assert d.ci.lo == pytest.approx(-h) and d.ci.hi == pytest.approx(h) and h > 0.8
    assert not d.significant and d.p_value == 1.0
    # no variation in the differences: no MDE to speak of (was shown as 0.00), and a warning
    assert math.isnan(d.mde) and d.ci.warning
    unknown = stats.paired_diff(x, x)
    assert unknown.diff == 0 and math.isnan(unknown.ci.lo) and math.isnan(unknown.ci.hi)
    assert "unknown" in unknown.ci.warning and not unknown.significant
    assert math.isnan(unknown.p_value)


def test_paired_diff_constant_shift_is_not_zero_width():
    """Every pair differs by exactly 1 (sd 0): the t interval would be [1, 1]; the rate bound
    around the common difference is wide enough for what 500 pairs cannot see."""
    x = np.random.default_rng(2).integers(0, 6, 500).astype(float)
    d = stats.paired_diff(x + 1, x, support=(0, 6), step=1)
    assert d.diff == 1 and d.ci.lo < 1 < d.ci.hi and d.significant


def test_paired_diff_rare_effects_are_covered():
    """Effects resting on 0 to a few differing pairs in 300 (a share flipped in 1% or 0.2% of
    hands, card points gained in 0.5%): the interval covers the true effect at least 95% of the
    time, where the t interval (zero width when no pair differs) does not."""
    rng = np.random.default_rng(31)
    reps, n = 1000, 300

    def share(q):
        xb = (rng.random(n) < 0.4).astype(float)
        xa = np.where((xb == 0) & (rng.random(n) < q), 1.0, xb)
        return xa, xb, (0.0, 1.0), 1.0, 0.6 * q

    def points(q):
        xb = 5.0 * rng.binomial(40, 0.42, n)
        xa = xb + np.where(rng.random(n) < q, 5.0 * rng.integers(1, 5, n), 0.0)
        return xa, xb, (0.0, 200.0), 5.0, q * 12.5

    for draw, q in ((share, 0.01), (share, 0.002), (points, 0.005)):
        hits = t_hits = rare = 0
        for _ in range(reps):
            xa, xb, span, step, truth = draw(q)
            d = stats.paired_diff(xa, xb, support=span, step=step)
            hits += d.ci.covers(truth)
            rare += d.ci.method.startswith("rate bound")
            t = stats.mean_normal(xa - xb)  # no rare-case handling: [0, 0] with no difference
            t_hits += t.lo <= truth <= t.hi
        assert rare == reps  # every sample had fewer than 10 differing pairs
        assert hits / reps >= 0.95, (draw.__name__, q, hits / reps)
        assert t_hits / reps < 0.9, (draw.__name__, q, t_hits / reps)


def test_paired_diff_detects_shift_and_pairing_helps():
    """A shift of 1 point on a noisy outcome with shared noise: the paired interval is narrow and
    excludes 0; an unpaired look at the same data could not see it."""
    rng = np.random.default_rng(5)
    common = rng.integers(0, 40, 20_000) * 5.0
    a = common + rng.choice([0.0, 5.0], size=common.size, p=[0.8, 0.2])
    b = common
    d = stats.paired_diff(a, b)
    assert d.significant and d.ci.covers(1.0)
    unpaired_se = math.sqrt(a.var() / a.size + b.var() / b.size)
    assert (d.ci.hi - d.ci.lo) < 0.1 * (2 * 1.96 * unpaired_se)
    assert d.p_value < 1e-6
    with pytest.raises(ValueError):
        stats.paired_diff([1, 2], [1])


def test_paired_interval_coverage_by_simulation():
    """Known mean difference 0.1 of paired binary outcomes: the paired interval covers it
    about 95% of the time."""
    rng = np.random.default_rng(11)
    reps, n, hits = 600, 400, 0
    for _ in range(reps):
        base = rng.random(n)
        a = (base < 0.5).astype(float)
        b = (base < 0.4).astype(float)  # P(a) - P(b) = 0.1, strongly correlated
        hits += stats.paired_diff(a, b).ci.covers(0.1)
    assert 0.92 <= hits / reps <= 0.975


def test_mde_and_n_for_mde():
    # (1.96 + 0.8416) * sd / sqrt(n)
    assert stats.mde(1.0, 100) == pytest.approx(0.28016, abs=1e-4)
    assert stats.mde(30.0, 200_000) == pytest.approx(2.8016 * 30 / math.sqrt(200_000), rel=1e-4)
    assert stats.n_for_mde(stats.mde(2.0, 5000), 2.0) in (5000, 5001)
    assert stats.mde(1.0, 0) == float("inf")


def test_mde_has_the_promised_power():
    """At a true effect equal to the MDE, a z-test rejects about 80% of the time."""
    rng = np.random.default_rng(21)
    n, sd = 200, 3.0
    eff = stats.mde(sd, n)
    x = rng.normal(eff, sd, size=(4000, n))
    z = x.mean(axis=1) / (x.std(axis=1, ddof=1) / math.sqrt(n))
    power = np.mean(np.abs(z) > 1.959964)
    assert 0.77 <= power <= 0.83


def test_newcombe_diff():
    # Newcombe (1998) example: 56/70 vs 48/80 -> 0.2 [0.0524, 0.3339]
    e = stats.newcombe_diff(56, 70, 48, 80)
    assert e.estimate == pytest.approx(0.2)
    assert e.lo == pytest.approx(0.0524, abs=5e-4) and e.hi == pytest.approx(0.3339, abs=5e-4)


def test_quantile_ci():
    rng = np.random.default_rng(8)
    x = rng.normal(size=2001)
    e = stats.quantile_ci(x, 0.5)
    assert e.estimate == pytest.approx(np.sort(x)[1000])
    assert e.lo < e.estimate < e.hi
    # coverage of the true median 0
    hits = 0
    for _ in range(500):
        hits += stats.quantile_ci(rng.normal(size=301), 0.5).covers(0.0)
    assert 0.93 <= hits / 500 <= 0.985


def test_estimate_fmt():
    e = stats.wilson(5, 10)
    assert e.fmt(2) == "0.50 [0.24, 0.76]"
    assert e.fmt(1, scale=100) == "50.0 [23.7, 76.3]"
    assert stats.wilson(0, 0).fmt() == "n/a"


def test_ratio_cluster_coverage_by_simulation():
    """Throws per hand ~ Poisson(1.5), each failing with p = 0.2 but with a per-hand shared
    shock (so throws of one hand are dependent): the cluster interval for failed/throws covers
    0.2 about 95% of the time; n is the total number of throws."""
    rng = np.random.default_rng(4)
    hits, reps = 0, 1500
    for _ in range(reps):
        t = rng.poisson(1.5, 300)
        p_hand = np.clip(0.2 + rng.choice([-0.15, 0.15], size=300), 0, 1)
        f = rng.binomial(t, p_hand)
        e = stats.ratio_cluster(f, t)
        hits += e.covers(0.2)
    assert e.n == int(t.sum())
    assert 0.93 <= hits / reps <= 0.97
    assert math.isnan(stats.ratio_cluster([0], [0]).estimate)


def test_p_value_does_not_underflow():
    """1 - cdf(z) is 0 in double precision beyond z = 8.3; erfc keeps the tail."""
    assert stats.normal_p_value(10.0) == pytest.approx(1.5239706e-23, rel=1e-6)
    assert stats.normal_p_value(0.0) == 1.0


def test_no_zero_width_intervals_for_zero_counts():
    """0 failures in 300,000 throws: the Wilson bound, not [0, 0]; all-zero counts per hand in
    [0, 25]: the exact binomial bound 25 x (1 - 0.025^(1/n)), about 25 x 3.689 / n."""
    e = stats.ratio_cluster(np.zeros(100_000), np.full(100_000, 3))
    assert e.estimate == 0 and e.lo == 0 and e.hi == pytest.approx(1.2805e-5, rel=1e-3)
    assert e.hi == pytest.approx(stats.wilson(0, 300_000).hi)
    m = stats.mean_t(np.zeros(500), support=(0, 25))
    q = 1 - 0.025 ** (1 / 500)
    assert q == pytest.approx(-math.log(0.025) / 500, rel=0.01)
    assert m.lo == 0 and m.hi == pytest.approx(25 * q) and m.method.startswith("exact binomial")
    assert m.warning == ""


def test_mean_t_without_variation_scales_with_the_largest_value():
    """The bound of an all-0 sample is the largest value one unit can take times the rate bound,
    whatever the smallest nonzero value: a kitty bonus in [0, 2080] all 0 in 300 hands is
    bounded by 2080 q, not by 5 q (the smallest bonus); a signed value (a penalty) on both sides;
    a constant other than 0 towards both ends of the range; an unknown end: no bound there."""
    n = 300
    q = 1 - 0.025 ** (1 / n)
    zero = np.zeros(n)
    for top in (1.0, 80.0, 2080.0):
        e = stats.mean_t(zero, support=(0.0, top))
        assert (e.lo, e.hi) == (0.0, pytest.approx(top * q))
    assert stats.mean_t(zero, support=(0, 2080)).hi == pytest.approx(
        416 * stats.mean_t(zero, support=(0, 5)).hi
    )
    signed = stats.mean_t(zero, support=(-3000, 3000))
    assert signed.lo == pytest.approx(-3000 * q) and signed.hi == pytest.approx(3000 * q)
    ones = stats.mean_t(np.ones(n), support=(0, 1))  # a share with no failure
    assert ones.lo == pytest.approx(1 - q) and ones.hi == 1 and ones.estimate == 1
    four = stats.mean_t(np.full(n, 4.0), support=(1, 10))
    assert four.lo == pytest.approx(4 - 3 * q) and four.hi == pytest.approx(4 + 6 * q)
    # unknown ends: NaN with the reason, never a bound that could undercover
    top_unknown = stats.mean_t(zero, support=(0, math.inf))
    assert top_unknown.lo == 0 and math.isnan(top_unknown.hi)
    assert "largest value one unit can take is unknown" in top_unknown.warning
    none = stats.mean_t(zero)
    assert math.isnan(none.lo) and math.isnan(none.hi) and "unknown" in none.warning
    outside = stats.mean_t(zero, support=(1, 5))
    assert math.isnan(outside.hi) and "outside the range" in outside.warning
    # the range plays no part when the values vary
    x = np.arange(20.0)
    assert stats.mean_t(x, support=(0, 1e6)) == stats.mean_t(x)


def test_mean_t_matches_formula_and_skew_check():
    from scipy.stats import t

    x = np.random.default_rng(3).integers(0, 40, 200) * 5.0
    e = stats.mean_t(x)
    h = t.ppf(0.975, 199) * x.std(ddof=1) / math.sqrt(200)
    assert e.lo == pytest.approx(x.mean() - h) and e.hi == pytest.approx(x.mean() + h)
    assert e.warning == ""
    rare = np.zeros(300)
    rare[:4] = 1.0  # 4 events in 300: too few for a normal-theory interval
    assert "differ from the most common value" in stats.mean_t(rare).warning
    skewed = np.zeros(200)
    skewed[:12] = 40.0  # 12 events, skewness ~3.7: Cochran's rule wants n > 370
    assert "skewed" in stats.skew_check(skewed)
    assert stats.skew_check(np.ones(50)) == "no variation in the sample"


def test_paired_diff_of_two_eventless_samples_is_bounded():
    """No failed throw in either run: the difference is not known to be exactly 0, it lies within
    the exact binomial bound of each mean (about the Poisson 3.689 / n), a little tighter than
    the rate bound of 0 differing pairs."""
    d = stats.paired_diff(np.zeros(400), np.zeros(400), support=(0, 1), step=1)
    h = 1 - 0.025 ** (1 / 400)
    assert h == pytest.approx(-math.log(0.025) / 400, rel=0.01)
    assert d.diff == 0 and d.ci.lo == pytest.approx(-h) and d.ci.hi == pytest.approx(h)
    assert d.ci.method.startswith("exact binomial")
    assert not d.significant and math.isnan(d.mde)
    ones = stats.paired_diff(np.ones(400), np.ones(400), support=(0, 1), step=1)
    assert ones.ci.lo == pytest.approx(-h) and ones.ci.hi == pytest.approx(h)


def test_ratio_cluster_signed_values_summing_to_zero_use_the_cluster_interval():
    """Per-cluster sums of paired differences can total 0 while varying: that is not 'no
    events' and must not get the Wilson bound [0, ...]."""
    num = np.array([1.0, -1.0, 2.0, -2.0, 0.0] * 20)
    e = stats.ratio_cluster(num, np.full(num.size, 3.0))
    assert e.estimate == 0 and e.lo < 0 < e.hi and e.method == "ratio (cluster)"


def test_poisson_ratio_is_the_exact_garwood_interval():
    from scipy.stats import chi2

    e = stats.poisson_ratio([0, 0, 0], [0.5, 0.45, 0.0])
    assert (e.estimate, e.lo) == (0.0, 0.0) and e.hi == pytest.approx(3.8830, abs=1e-4)
    e = stats.poisson_ratio([3, 4], [2.0, 3.0])
    assert e.estimate == pytest.approx(7 / 5)
    assert e.lo == pytest.approx(chi2.ppf(0.025, 14) / 2 / 5)
    assert e.hi == pytest.approx(chi2.ppf(0.975, 16) / 2 / 5)
    assert not np.isfinite(stats.poisson_ratio([0], [0.0]).estimate)


@pytest.mark.parametrize("n, top", [(5_000, 10.0), (20_000, 10.0), (20_000, 5.0)])
def test_all_zero_bound_covers_top_times_bernoulli(n, top):
    """X = top x Bernoulli(1 / n) (one failed throw of 10 points in n hands, on average): the
    mean's interval covers top / n in at least 95% of samples. Exact, not simulated: the
    interval depends only on the number of events k, so coverage = sum over k of P(k) x
    [covers]. With a bound of 3.689 / n whatever the unit it was 0.63."""
    from scipy.stats import binom

    truth, cover = top / n, 0.0
    for k in range(0, 40):
        x = np.zeros(n)
        x[:k] = top
        cover += binom.pmf(k, n, 1 / n) * stats.mean_t(x, support=(0, top)).covers(truth)
    assert cover >= 0.95
    zero = stats.mean_t(np.zeros(n), support=(0, top))
    assert zero.hi == pytest.approx(top * (1 - 0.025 ** (1 / n)))
    assert zero.hi == pytest.approx(top * -math.log(0.025) / n, rel=0.01)


def _old_interval(x: np.ndarray, step: float) -> tuple[float, float]:
    """The interval before the fix: an all-0 sample bounded by ``step x 3.689 / n`` (``step``
    the metric's smallest nonzero value), any other the t interval."""
    if not x.any():
        return 0.0, step * -math.log(0.025) / x.size
    e = stats.mean_t(x)
    return e.lo, e.hi


def _coverage(n, p, values, reps, seed, interval) -> tuple[float, float]:
    """Simulated coverage of the mean of X, where X is 0 except in a share p of units, where it
    is one of ``values`` with equal chance, by ``interval(sample) -> (lo, hi)``; and the share
    of the samples that are all 0."""
    rng = np.random.default_rng(seed)
    values = np.asarray(values, dtype=float)
    truth = p * values.mean()
    hit = rng.random((reps, n)) < p
    x = np.where(hit, values[rng.integers(0, values.size, (reps, n))], 0.0)
    covered = 0
    for row in x:
        lo, hi = interval(row)
        covered += lo <= truth <= hi
    return covered / reps, float(np.mean(~x.any(axis=1)))


@pytest.mark.parametrize(
    "p, values",
    [
        (1 / 300, [100.0]),  # a rare event worth 100: a third of the samples are all 0
        (1 / 300, [5.0, 100.0]),  # ... worth 5 or 100 (a kitty bonus)
        (1 / 2000, [100.0]),  # rarer: most samples are all 0
    ],
)
def test_rare_large_values_are_covered_by_the_top_bound_not_the_step_bound(p, values):
    """A metric that is nonzero in a rare share p of hands and then large (a kitty bonus: 5 to
    hundreds of points), n = 300, 4,000 samples. mean_t with the metric's range [0, 100] (all 0:
    the bound 100 q; fewer than 10 nonzero: the rate bound; else the t interval) covers the true
    mean in at least 95% of samples. The old intervals (all 0 bounded by the smallest nonzero
    value, 5 x 3.689 / n; the t interval otherwise) undercover where all-0 samples are common
    and the mean is above 5 x 3.689 / 300 = 0.061, and the t interval alone undercovers a rare
    event of mixed sizes: the test can fail."""
    n, reps, top, step = 300, 4000, 100.0, 5.0
    new, zeros = _coverage(n, p, values, reps, 11, lambda x: _bounds(x, top))
    assert new >= 0.95, (new, zeros)
    old, _ = _coverage(n, p, values, reps, 11, lambda x: _old_interval(x, step))
    truth = p * np.mean(values)
    if truth > step * -math.log(0.025) / n:
        assert zeros > 0.3  # the all-0 case is common here, not a corner
        assert old < 0.8, old  # the step-scaled bound misses every one of them
    else:
        assert old >= 0.95  # too rare for the old bound to miss: the top bound costs nothing here
    if len(values) > 1 and p > 1 / 1000:
        # a rare event of mixed sizes: even with the right all-0 bound, the t interval of the
        # samples with a few events undercovers (a single bonus of 5 says nothing of the 100s);
        # the rate bound mean_t gives them instead holds
        t_only, _ = _coverage(n, p, values, reps, 11, lambda x: _t_or_top(x, top))
        assert t_only < 0.9, t_only


def _t_or_top(x: np.ndarray, top: float) -> tuple[float, float]:
    if not x.any():
        return 0.0, top * (1 - 0.025 ** (1 / x.size))
    e = stats.mean_t(x)  # no range: the t interval, whatever the number of events
    return e.lo, e.hi


def _bounds(x: np.ndarray, top: float) -> tuple[float, float]:
    e = stats.mean_t(x, support=(0.0, top))
    return e.lo, e.hi


def test_wilson_clustered_stays_in_0_1():
    """77 of 80 hands over 40 deals: the t interval gave [92.0%, 100.5%]."""
    y = np.array([1.0] * 37 + [0.5] * 3)
    e = stats.wilson_clustered(y)
    assert 0 < e.lo < e.estimate < e.hi < 1
    assert stats.wilson_clustered(np.ones(40)).hi == 1.0
    assert not np.isfinite(stats.wilson_clustered([1.0]).lo)  # one deal: no interval


def test_a_few_failed_throws_keep_their_share_above_0():
    """2 failures in about 8,000 throws (expert-v4, 5,000 hands): the normal cluster interval
    printed 0.024% [-0.009%, 0.056%]."""
    throws = np.full(5000, 2.0)
    throws[::3] = 1.0
    failed = np.zeros(5000)
    failed[[10, 4000]] = 1.0
    e = stats.ratio_cluster(failed, throws)
    assert 0 < e.lo < e.estimate < e.hi < 1
