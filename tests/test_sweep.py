"""fastsheng sweep (fastsheng.studies): variants and their checks, the multiplicity adjustment's
family-wise coverage, the flip detector, precision attainment, control variates' exact means,
resume of an interrupted sweep, the Dask backend and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from fastsheng import RulesError, get_rules
from fastsheng.studies import (
    SweepError,
    build_variants,
    controls,
    multiplicity,
    precision,
    robustness,
)
from fastsheng.studies.effects import Check, effect_table
from fastsheng.studies.sweep import sweep
from fastsheng.studies.variants import (
    MAX_VARIANTS,
    grid_settings,
    parse_assignments,
    parse_value,
)

STD = get_rules("standard")

# --------------------------------------------------------------------------------------------
# Variants


def test_values_are_toml_literals_else_strings():
    assert parse_value("70") == 70 and parse_value("0.5") == 0.5
    assert parse_value("true") is True and parse_value('["J", "A"]') == ["J", "A"]
    assert parse_value("linear") == "linear" and parse_value('"none"') == "none"
    assert parse_assignments("a=1; b.c=x ;b.d=2") == {"a": 1, "b.c": "x", "b.d": 2}
    with pytest.raises(SweepError, match="set twice"):
        parse_assignments("a=1;a=2")


def test_variants_from_sets_grid_and_presets():
    base, vs = build_variants(
        "standard",
        sets=["kitty_multiplier=linear", "throw_penalty=flat;throw_penalty_points=20"],
        grid={"throw_penalty_points": [5, 30], "throw_kitty": ["largest", "pair_4"]},
        rules=["super"],
    )
    assert base.rules == STD
    assert [v.label for v in vs][:2] == [
        "kitty_multiplier=linear",
        "throw_penalty=flat;throw_penalty_points=20",
    ]
    assert vs[1].rules.throw_penalty == "flat" and vs[1].rules.throw_penalty_points == 20
    grid = [v.settings for v in vs[2:6]]  # the product, first key slowest
    assert grid == [
        {"throw_penalty_points": 5, "throw_kitty": "largest"},
        {"throw_penalty_points": 5, "throw_kitty": "pair_4"},
        {"throw_penalty_points": 30, "throw_kitty": "largest"},
        {"throw_penalty_points": 30, "throw_kitty": "pair_4"},
    ]
    assert vs[-1].rules == get_rules("super")


def test_dotted_keys_of_one_switch_merge_into_one_dict(monkeypatch):
    seen = {}

    def replace(self, **kw):
        seen.update(kw)
        return self

    monkeypatch.setattr(type(STD), "replace", replace)
    from fastsheng.studies.variants import apply_settings

    apply_settings(STD, {"level_table.threshold": 70, "level_table.step": 30, "cap_tie": "x"})
    assert seen == {"level_table": {"threshold": 70, "step": 30}, "cap_tie": "x"}


def test_dotted_keys_set_a_data_valued_switch():
    _, vs = build_variants(sets=["level_table.threshold=70;level_table.step=30"])
    assert vs[0].rules.to_dict()["level_table"] == {"threshold": 70, "step": 30}
    _, vs = build_variants(grid={"level_table": {"threshold": [60, 100]}})
    assert [v.rules.to_dict()["level_table"]["threshold"] for v in vs] == [60, 100]
    with pytest.raises(SweepError, match="same rules as the baseline"):
        build_variants(sets=["level_table.threshold=80"])  # standard's own table
    with pytest.raises(RulesError, match="level_table"):
        build_variants(sets=["level_table.threshold=0"])


def test_variant_mistakes_are_named():
    with pytest.raises(RulesError, match="unknown field 'nope'"):
        build_variants(sets=["nope=1"])
    with pytest.raises(RulesError, match="kitty_multiplier = 'triple' is not valid"):
        build_variants(sets=["kitty_multiplier=triple"])
    with pytest.raises(SweepError, match="same rules as the baseline"):
        build_variants(sets=["kitty_multiplier=plus_two"])
    with pytest.raises(SweepError, match="same rules as the baseline"):
        build_variants(rules=["standard"])
    with pytest.raises(SweepError, match="play the same rules"):
        build_variants(sets=["throw_penalty_points=5", "throw_penalty_points=5"])
    with pytest.raises(SweepError, match="mixed modes"):
        build_variants(sets=["throw_penalty_points=5"], bots=["basic", "expert"])
    with pytest.raises(SweepError, match="no variants"):
        build_variants()


def test_sweep_is_public_api(tmp_path):
    import fastsheng as fs

    assert "sweep" in fs.__all__
    rep = fs.sweep(
        set=["throw_penalty_points=20"],
        metrics=["penalty"],
        n=500,
        seed=1,
        out=tmp_path / "s",
        workers=0,
        figures=False,
    )
    assert rep.table("metric_penalty").df["variant"].tolist() == ["throw_penalty_points=20"]


def test_a_sweep_of_line_ups_with_a_python_bot_gets_sims_smaller_batches(tmp_path):
    """One batch size for every run (the deals must pair), the smallest sim would give: a
    Python bot's line-up plays in batches of 1,000, not one 10,000-hand batch on one worker."""
    import fastsheng as fs
    from fastsheng.sim.runner import PYTHON_BATCH_SIZE

    fs.sweep(bots=["expert", "userbots.simple:LowCards,expert"], metrics=["dealer_won"], n=30,
             seed=1, out=tmp_path / "s", workers=0, figures=False)  # fmt: skip
    sizes = {json.loads(p.read_text())["batch_size"] for p in tmp_path.glob("s/runs/*/run.json")}
    assert sizes == {PYTHON_BATCH_SIZE["hands"]}


def test_matches_mode_is_refused_in_one_line():
    with pytest.raises(SweepError, match="hands mode only"):
        sweep(set=["throw_penalty_points=5"], mode="matches", n=10)


def test_a_grid_over_1000_variants_needs_force():
    grid = {"a": list(range(11)), "b": list(range(10)), "c": list(range(10))}
    with pytest.raises(SweepError, match="1,100 variants, more than 1,000; give --force"):
        grid_settings(grid)
    assert len(grid_settings(grid, force=True)) == 1100
    assert MAX_VARIANTS == 1000


# --------------------------------------------------------------------------------------------
# The multiplicity adjustment: family-wise coverage on data with known effects


def test_holm_adjusted_p_values():
    p = [0.01, 0.04, 0.03, float("nan"), 0.5]
    # sorted 0.01, 0.03, 0.04, 0.5 with k = 4: 0.04, 0.09, max(0.09, 0.08), 0.5
    assert np.allclose(multiplicity.holm(p)[[0, 2, 1, 4]], [0.04, 0.09, 0.09, 0.5])
    assert np.isnan(multiplicity.holm(p)[3])


def test_simultaneous_intervals_cover_every_known_effect_together():
    """8 variants sharing one baseline (so their effects are dependent), known effects, 300
    paired hands, 2,000 repetitions (vectorised): the 8 intervals at the sweep's level cover
    their true effects all together at least 95% of the time; 95% intervals each do so far
    less often. Under a second."""
    from scipy.stats import t as student

    rng = np.random.default_rng(16)
    k, n, reps = 8, 300, 2000
    effects = np.linspace(-0.05, 0.05, k)
    up, down = 0.05 + np.maximum(effects, 0), 0.05 + np.maximum(-effects, 0)
    base = (rng.random((reps, 1, n)) < 0.45).astype(float)
    w = rng.random((reps, k, n))
    go_up, go_down = w < up[:, None], w > 1 - down[:, None]
    variant = np.where(go_up, 1.0, np.where(go_down, 0.0, base))
    true = up * 0.55 - down * 0.45  # P(up) P(baseline 0) - P(down) P(baseline 1)
    d = variant - base
    mean, se = d.mean(axis=2), d.std(axis=2, ddof=1) / np.sqrt(n)

    def together(conf):
        h = student.ppf(0.5 + conf / 2, n - 1) * se
        return float(((mean - h <= true) & (true <= mean + h)).all(axis=1).mean())

    assert together(multiplicity.simultaneous_conf(k)) >= 0.945
    assert together(0.95) < 0.85  # one 95% interval each: the family undercovers


# Rare effects: a variant that changes a handful of hands. Paired values simulated with known
# effects by analysis/rare_effect_coverage.py (families shaped like docs/analysis.md's
# kitty-multiplier sweep, and a variant that wins a lost hand with probability 2e-4). With the
# t interval alone ([0, 0] when no pair differs) they were covered together 0.04 to 0.70 of
# the time at n = 300 and 2,000.


def _rare_coverage(key: str, n: int, reps: int) -> float:
    return _script("rare_effect_coverage").coverage(key, n, reps)


_RARE = ("signed_change", "defenders_total", "dealer_won")


@pytest.mark.parametrize("n", [300, 2000])
@pytest.mark.parametrize("key", _RARE)
def test_rare_effects_are_covered_family_wise(key, n):
    """400 samples each (about 1 s): the family's simultaneous intervals cover every true
    effect together at least 95% of the time (measured 0.97 to 1.00)."""
    assert _rare_coverage(key, n, 400) >= 0.95


@pytest.mark.slow
@pytest.mark.parametrize("n", [300, 2000])
@pytest.mark.parametrize("key", _RARE)
def test_rare_effects_are_covered_family_wise_slow(key, n):
    """The same with 4,000 samples: within two standard errors of 95% or above. About 25 s
    for the six together (measured on the 2-core machine)."""
    assert _rare_coverage(key, n, 4000) >= 0.95 - 2 * (0.95 * 0.05 / 4000) ** 0.5


def test_no_differing_hand_is_a_rate_bound_not_zero_width():
    """The docs' example: kitty_multiplier=linear changed no hand's winner in 20,000; its
    effect is bounded by the rate of differing hands, with p = 1, not [0, 0]."""
    from fastsheng.studies.effects import Metric

    n = 20_000
    rng = np.random.default_rng(5)
    m = Metric("y", "y", "share", "proportion", ("y",), lambda h: h["y"])
    base = pd.DataFrame({"y": (rng.random(n) < 0.42).astype(float)})
    up = base["y"].to_numpy().copy()
    up[np.flatnonzero(up == 0)[:9]] = 1.0  # 9 lost hands won
    t = effect_table(
        m, base, [(_V("same"), base.copy()), (_V("nine"), pd.DataFrame({"y": up}))], base_rules=None
    )
    same, nine = t.iloc[0], t.iloc[1]
    assert same["diff_lo"] < 0 < same["diff_hi"] and same["p_value"] == 1.0
    # with no hand the other way, 9 wins are some evidence: the bound's own p-value (0.08 here,
    # conservative: each rate is bounded on its own) agrees with the interval, which covers 0
    assert nine["diff_lo"] <= 0 < 9 / n <= nine["diff_hi"] and 0.01 < nine["p_value"] < 0.1
    assert "rate bound" in nine["interval"] and "only 9 of 20,000" in nine["warning"]


def test_rare_effect_is_scaled_by_each_runs_rules():
    """A sweep whose kitty bonus is 0 in every hand of the baseline and of both variants: each
    effect is bounded by the range a difference of two bonuses can take under the baseline's
    rules and the variant's own (+- 2,080 under standard twice, +- 3,840 with a linear
    multiplier), not by the range the runs show (all 0); each run's own mean by its own rules'
    range. A variant without known rules gives no bound (NaN), and only that variant."""
    from types import SimpleNamespace

    from fastsheng.studies.report.metrics import METRICS

    m, n = METRICS["kitty_bonus"], 500
    std = STD
    linear = std.replace(kitty_multiplier="linear")
    zero = pd.DataFrame({"kitty_bonus": np.zeros(n)})
    vs = [(SimpleNamespace(label=x, rules=r), zero.copy()) for x, r in (("a", std), ("b", linear))]
    t = effect_table(m, zero, vs, conf=0.95, base_rules=std)
    q = 1 - 0.0125 ** (1 / n)  # the rate bound's split: each side at 1.25%
    assert t["diff_hi"].tolist() == pytest.approx([2080 * q, 3840 * q])
    assert t["diff_lo"].tolist() == pytest.approx([-2080 * q, -3840 * q])
    assert t["mean_baseline_hi"].iloc[0] == pytest.approx(2080 * q)
    assert t["mean_variant_hi"].tolist() == pytest.approx([2080 * q, 3840 * q])
    vs.append((SimpleNamespace(label="c", rules=None), zero.copy()))
    t = effect_table(m, zero, vs, conf=0.95, base_rules=std)
    assert t["diff_hi"].isna().tolist() == [False, False, True]
    assert t["mean_variant_hi"].isna().tolist() == [False, False, True]
    assert "unknown" in t["warning"].iloc[2]


def test_rare_large_effect_is_covered_in_a_sweep():
    """One variant adds a kitty bonus of 5 to 2,000 points in about 1 hand of 300, n = 300:
    the sweep's interval covers it in at least 95% of the samples; with the old support (the
    range of the values seen, all 0 widened by the 5-point step) it missed every sample with
    no differing hand."""
    from fastsheng.studies.controls import mean_ci
    from fastsheng.studies.effects import paired_intervals
    from fastsheng.studies.report.metrics import METRICS

    m, n, reps = METRICS["kitty_bonus"], 300, 600
    rng = np.random.default_rng(12)
    sizes = np.array([5.0, 100.0, 400.0, 2000.0])
    truth = sizes.mean() / n
    xb = np.zeros(n)
    new = old = 0
    for _ in range(reps):
        xv = np.where(rng.random(n) < 1 / n, rng.choice(sizes, n), 0.0)
        (e,) = paired_intervals(m, xb, [xv], 0.95, rules=[STD, STD])
        new += e.lo <= truth <= e.hi
        w = max(xv.max(), 0.0) or 10.0  # the old support: the values' range, or +- 5
        o = mean_ci(xv - xb, None, 0.95, support=(-w, w), step=m.step)
        old += o.lo <= truth <= o.hi
    assert new / reps >= 0.95, new / reps
    assert old / reps < 0.8, old / reps


def test_p_values_agree_with_the_intervals():
    """The p-value is the interval's own test: 0 is outside the interval at the family's
    level exactly when p < 1 - that level (t quantiles, not a z-test)."""
    from fastsheng.studies.effects import Metric

    rng = np.random.default_rng(2)
    m = Metric("y", "y", "points", "mean", ("y",), lambda h: h["y"])
    n = 40
    base = pd.DataFrame({"y": rng.normal(size=n)})
    vs = [
        (_V(f"v{i}"), pd.DataFrame({"y": base["y"] + rng.normal(0.3 * i, 1, n)})) for i in range(6)
    ]
    t = effect_table(m, base, vs, base_rules=None)
    level = multiplicity.simultaneous_conf(6)
    for _, r in t.iterrows():
        assert (r["p_value"] < 1 - level) == (not r["diff_lo"] <= 0 <= r["diff_hi"])
    from scipy.stats import t as student

    d = vs[1][1]["y"] - base["y"]
    z = d.mean() / (d.std(ddof=1) / np.sqrt(n))
    assert t["p_value"].iloc[1] == pytest.approx(2 * student.sf(abs(z), n - 1))


def test_effect_table_uses_the_simultaneous_level():
    from fastsheng.studies import stats
    from fastsheng.studies.effects import Metric

    rng = np.random.default_rng(1)
    m = Metric("y", "y", "points", "mean", ("y",), lambda h: h["y"])
    base = pd.DataFrame({"y": rng.normal(size=500)})
    vs = [(_V(f"v{i}"), pd.DataFrame({"y": base["y"] + rng.normal(size=500)})) for i in range(5)]
    t = effect_table(m, base, vs, base_rules=None)
    d = vs[0][1]["y"] - base["y"]
    h = stats.t_value(1 - 0.05 / 5, 499) * d.std(ddof=1) / np.sqrt(500)
    assert t["diff_hi"].iloc[0] - t["diff"].iloc[0] == pytest.approx(h)
    assert "Bonferroni over 5" in t["interval"].iloc[0]


def test_both_runs_means_are_adjusted_alike():
    """With control variates on each run's mean, the baseline's is adjusted as the variant's:
    their difference is the adjusted paired effect (before, the baseline's mean was plain and
    the two did not subtract to diff)."""
    from fastsheng.studies.effects import Metric

    rng = np.random.default_rng(7)
    n = 3000
    x = rng.normal(size=(n, 2))
    m = Metric("y", "y", "points", "mean", ("y",), lambda h: h["y"])
    yb = 2 * x[:, 0] + rng.normal(size=n)
    base = pd.DataFrame({"y": yb})
    var = pd.DataFrame({"y": yb + 0.1 + x[:, 1] + rng.normal(size=n)})
    t = effect_table(m, base, [(_V("v"), var)], x=x, single_x=x, base_rules=None).iloc[0]
    assert t["mean_variant"] - t["mean_baseline"] == pytest.approx(t["diff"])
    assert t["mean_baseline"] != pytest.approx(yb.mean())  # adjusted, not the plain mean
    assert t["mean_baseline_lo"] < t["mean_baseline"] < t["mean_baseline_hi"]


class _V:
    rules = None  # made-up metrics: no range from the rules

    def __init__(self, label):
        self.label = label


# --------------------------------------------------------------------------------------------
# The flip detector


def test_verdicts():
    v = robustness.verdict
    assert v((0.02, 0.01, 0.03), (-0.03, -0.04, -0.02), (-0.05, -0.06, -0.04)) == "flips sign"
    assert v((-0.02, -0.03, -0.01), (0.03, 0.02, 0.04), (0.05, 0.04, 0.06)) == "flips sign"
    assert v((0.02, 0.01, 0.03), (0.05, 0.04, 0.06), (0.03, 0.02, 0.04)) == "grows"
    assert v((0.02, 0.01, 0.03), (0.005, -0.01, 0.02), (-0.015, -0.02, -0.01)) == "shrinks"
    assert v((0.02, 0.01, 0.03), (0.02, 0.0, 0.04), (0.0, -0.01, 0.01)) == "holds"
    # a sign change that an interval does not establish is not a flip
    assert v((0.02, 0.01, 0.03), (-0.01, -0.03, 0.01), (-0.03, -0.04, -0.02)) == "shrinks"
    # a change of an effect whose own interval covers 0 has no direction: not a verdict of
    # growth or shrinkage (before, the point estimate's sign decided, or 0 meant "grows")
    assert v((0.01, -0.01, 0.03), (0.05, 0.04, 0.06), (0.04, 0.03, 0.05)) == "changes"
    assert v((0.0, -0.01, 0.01), (-0.05, -0.06, -0.04), (-0.05, -0.06, -0.04)) == "changes"


def test_a_constructed_flip_is_detected():
    """The variant raises the metric by 0.1 per hand under the main line-up and lowers it by
    0.1 under the check line-up, on the same deals."""
    from fastsheng.studies.effects import Metric

    rng = np.random.default_rng(3)
    n = 2000
    y = rng.normal(size=n)
    m = Metric("y", "y", "points", "mean", ("y",), lambda h: h["y"])
    base = pd.DataFrame({"y": y})
    up = pd.DataFrame({"y": y + 0.1 + 0.05 * rng.normal(size=n)})
    down = pd.DataFrame({"y": y[:500] - 0.1 + 0.05 * rng.normal(size=500)})
    same = pd.DataFrame({"y": y[:500] + 0.1 + 0.05 * rng.normal(size=500)})
    check = Check("other", base.iloc[:500], [down, same])
    t = effect_table(
        m, base, [(_V("flip"), up), (_V("same"), up.copy())], check=check, base_rules=None
    )
    assert t["robustness"].tolist() == ["flips sign", "holds"]
    assert t["change"].iloc[0] == pytest.approx(-0.2, abs=0.02)


# --------------------------------------------------------------------------------------------
# Precision: a pilot, then a fixed n


@pytest.mark.parametrize(
    "draw",
    [
        lambda rng, k: rng.choice([-1.0, 0.0, 1.0], size=k, p=[0.04, 0.9, 0.06]),  # dealer_won
        lambda rng, k: rng.exponential(20.0, size=k) * (rng.random(k) < 0.1),  # a skewed bonus
    ],
    ids=["paired-share", "skewed-points"],
)
def test_the_achieved_half_width_is_within_the_target_on_95_percent_of_runs(draw):
    """1,000 repetitions of a pilot (2,000 draws) then the planned n (the pilot's draws are the
    first of the final sample, as in a sweep): the final interval, at the Bonferroni level of 8
    variants, is within the target at least 95% of the time. About 1 s each."""
    from fastsheng.studies import stats

    rng = np.random.default_rng(4)
    conf = multiplicity.simultaneous_conf(8)
    pop = draw(rng, 1_000_000)
    target = stats.z_value(conf) * pop.std() / np.sqrt(10_000)  # about 10,000 hands per run
    ok, ns = 0, []
    for _ in range(1000):
        pilot = pop[rng.integers(0, pop.size, 2000)]
        n = precision.planned_n(pilot, target, conf)
        y = np.concatenate([pilot, pop[rng.integers(0, pop.size, n - pilot.size)]])
        ok += stats.t_value(conf, n - 1) * y.std(ddof=1) / np.sqrt(n) <= target
        ns.append(n)
    assert ok / 1000 >= 0.95
    # and not wastefully: the median plan is within 50% of what the true variance needs
    assert 10_000 <= np.median(ns) <= 1.5 * 10_000


def test_pilot_size():
    assert precision.pilot_size(1000) == 1000
    assert precision.pilot_size(100_000) == 5000
    assert precision.pilot_size(10**9) == 50_000


# --------------------------------------------------------------------------------------------
# Control variates


def test_covariates_have_their_exact_means(tmp_path):
    """40,000 hands of standard at random levels: every covariate's mean within 4 standard
    errors of its exact value (about 2 s)."""
    from fastsheng.engine.hands import play_batch

    h = pd.concat(
        [
            play_batch(STD, ("random",) * 4, 5, b, 20_000, level="random")["hands"].to_pandas()
            for b in range(2)
        ]
    )
    cov = controls.covariates(h)
    for c, mu in controls.EXACT_MEANS.items():
        x = cov[c].to_numpy()
        assert abs(x.mean() - mu) < 4 * x.std() / np.sqrt(x.size), c
    # the side's points, the defenders' and the kitty's make 200
    assert controls.EXACT_MEANS["dealer_side_points"] * 2 + controls.EXACT_MEANS[
        "kitty_points_dealt"
    ] == pytest.approx(200)


def test_regression_adjustment_is_the_plain_mean_without_covariates():
    rng = np.random.default_rng(0)
    y = rng.normal(size=400)
    a, b = controls.mean_ci(y), controls.mean_ci(y, np.zeros((400, 0)))
    assert a.estimate == pytest.approx(y.mean()) and a.lo == pytest.approx(b.lo)
    x = rng.normal(size=(400, 2))
    e = controls.mean_ci(y + 3 * x[:, 0], x)
    assert e.var_ratio < 0.2 and e.lo < 0 < e.hi  # the covariate explains most of it
    assert controls.adjusted_values(y + 3 * x[:, 0], x).mean() == pytest.approx(e.estimate)


# --------------------------------------------------------------------------------------------
# Sweeps on the engine (in this process, small n)


def _flipping_batch(rules, bots, seed, batch, size, **kw):
    """The engine's batch, except that under the variant throw_penalty_points = 99 the dealer
    side wins every fifth hand with the expert and loses it with basic: an effect that flips
    sign with the line-up."""
    from fastsheng.engine.hands import play_batch

    tables = play_batch(rules, bots, seed, batch, size, **kw)
    if rules.throw_penalty_points != 99:
        return tables
    h = tables["hands"]
    fifth = pc.equal(pc.bit_wise_and(h["hand_id"], pa.scalar(3, h["hand_id"].type)), 0)
    side = "defenders" if bots[0].startswith("basic") else "dealer"
    winner = pc.if_else(fifth, pa.scalar(side), h["winner"].cast(pa.string()))
    tables["hands"] = h.set_column(h.schema.get_field_index("winner"), "winner", winner)
    return tables


def test_a_flip_is_red_on_the_page_and_said_in_the_summary(tmp_path, capsys):
    rep = sweep(
        "standard",
        set=["throw_penalty_points=99", "throw_penalty_points=20"],
        metrics=["dealer_won"],
        n=2000,
        seed=1,
        batch_size=1000,
        check_bots="basic",
        check_n=1000,
        out=tmp_path / "s",
        workers=0,
        batch_fn=_flipping_batch,
        quiet=False,
        figures=False,
    )
    t = rep.table("metric_dealer_won").df.set_index("variant")
    assert t.loc["throw_penalty_points=99", "robustness"] == "flips sign"
    assert t.loc["throw_penalty_points=20", "robustness"] != "flips sign"
    out = capsys.readouterr().out
    assert "FLIPS SIGN with basic: throw_penalty_points=99, dealer_won" in out
    page = (tmp_path / "s" / "index.html").read_text()
    assert 'class="flip" style="color:#c00' in page
    assert (tmp_path / "s" / "check" / "throw_penalty_points=99" / "run.json").is_file()


class _Counting:
    """The engine's batch function, counting calls; it fails once on (rules name, batch)."""

    def __init__(self, fail_on=None):
        self.calls, self.fail_on = [], fail_on

    def __call__(self, rules, bots, seed, batch, size, **kw):
        from fastsheng.engine.hands import play_batch

        if (rules.name, batch) == self.fail_on:
            self.fail_on = None
            raise KeyboardInterrupt
        self.calls.append((rules.name, batch))
        return play_batch(rules, bots, seed, batch, size, **kw)


def _outputs(folder: Path) -> dict[str, bytes]:
    files = sorted(folder.glob("*.csv")) + sorted(folder.glob("runs/*/hands/*.parquet"))
    return {str(p.relative_to(folder)): p.read_bytes() for p in files}


def test_an_interrupted_sweep_resumes_to_the_same_bytes(tmp_path):
    kw = dict(
        set=["kitty_multiplier=linear", "throw_penalty_points=20"],
        n=1500,
        seed=2,
        batch_size=500,
        workers=0,
        figures=False,
    )
    from fastsheng.sim.runner import RunInterrupted

    first = _Counting(fail_on=("standard+kitty_multiplier=linear", 1))
    with pytest.raises(RunInterrupted):
        sweep(out=tmp_path / "a", batch_fn=first, **kw)
    again = _Counting()
    sweep(out=tmp_path / "a", batch_fn=again, **kw)
    # the baseline and batch 0 of the interrupted variant are never played again
    assert again.calls == [("standard+kitty_multiplier=linear", b) for b in (1, 2)] + [
        ("standard+throw_penalty_points=20", b) for b in range(3)
    ]
    done = _Counting()
    sweep(out=tmp_path / "a", batch_fn=done, **kw)
    assert done.calls == []  # a finished sweep only reads
    sweep(out=tmp_path / "b", batch_fn=_Counting(), **kw)
    a, b = _outputs(tmp_path / "a"), _outputs(tmp_path / "b")
    assert a.keys() == b.keys() and len(a) == 11 + 9 + 1  # 11 metrics, 3 runs x 3 parts, variants
    assert a == b


def test_sweep_with_precision_and_controls(tmp_path):
    rep = sweep(
        "standard",
        set=["kitty_multiplier=cards"],
        metrics=["signed_change", "defenders_total"],
        precision=0.004,
        n=40_000,
        seed=3,
        out=tmp_path / "p",
        workers=0,
        figures=False,
    )
    t = rep.table("metric_signed_change").df
    p = rep.table("precision").df.iloc[0]
    assert 2000 < p["n"] <= 40_000 and t["n"].iloc[0] == p["n"]
    assert t["half_width"].iloc[0] <= 0.004 and p["achieved"] == t["half_width"].max()
    # control variates where they are on by default: this paired effect, each run's mean
    pts = rep.table("metric_defenders_total").df
    assert "control variates" in t["interval"].iloc[0]
    assert "control variates" not in pts["interval"].iloc[0]
    assert "control variates" in pts["mean_interval"].iloc[0]
    assert any("pilot run of 2,000 hands" in c for c in rep.conventions)
    assert (tmp_path / "p" / "pilot" / "baseline=standard" / "run.json").is_file()
    off = sweep(
        "standard",
        set=["kitty_multiplier=cards"],
        metrics=["signed_change"],
        n=p["n"],
        seed=3,
        out=tmp_path / "p",
        workers=0,
        figures=False,
        controls=False,
    )
    o = off.table("metric_signed_change").df  # the same runs, read again
    assert "control variates" not in o["interval"].iloc[0]
    assert o["diff"].iloc[0] == pytest.approx(t["diff"].iloc[0], abs=3 * t["se"].iloc[0])


@pytest.mark.slow
def test_sweep_on_dask_writes_what_the_local_backend_writes(tmp_path):
    """A sweep on a two-worker LocalCluster writes the bytes the local backend writes. About
    8 s (the cluster's start)."""
    distributed = pytest.importorskip("dask.distributed")
    kw = dict(
        set=["throw_penalty_points=20"],
        n=2000,
        seed=4,
        batch_size=500,
        figures=False,
        metrics=["dealer_won", "defenders_total"],
    )
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
    ) as cluster:
        sweep(out=tmp_path / "d", scheduler=cluster.scheduler_address, **kw)
    sweep(out=tmp_path / "l", workers=0, **kw)
    assert _outputs(tmp_path / "d") == _outputs(tmp_path / "l")


def test_grid_file_and_ordered_plot(tmp_path):
    grid = tmp_path / "g.toml"
    grid.write_text("[grid]\nthrow_penalty_points = [0, 20, 40]\n")
    rep = sweep(grid=grid, metrics=["penalty"], n=1000, seed=5, out=tmp_path / "g", workers=0)
    names = [f.name for f in rep.figures]
    assert names == ["forest_penalty", "by_throw_penalty_points"]
    assert rep.table("metric_penalty").df["variant"].tolist() == [
        "throw_penalty_points=0",
        "throw_penalty_points=20",
        "throw_penalty_points=40",
    ]
    meta = json.loads((tmp_path / "g" / "report.json").read_text())
    assert meta["same_deals"] == [1.0, 1.0, 1.0]
    # the page says how the intervals are adjusted: Bonferroni over the 3 variants
    assert any(
        c.startswith("Intervals: Bonferroni simultaneous 95% intervals over the 3")
        for c in rep.conventions
    )
    assert "Bonferroni over 3 (98.3333% each)" in rep.table("metric_penalty").df["interval"][0]
    plain = sweep(
        grid=grid,
        metrics=["penalty"],
        n=1000,
        seed=5,
        out=tmp_path / "g",
        workers=0,
        adjust=False,
        figures=False,
    )
    assert any("not adjusted" in c for c in plain.conventions)


# --------------------------------------------------------------------------------------------
# The command line


@pytest.mark.parametrize(
    "args, message",
    [
        (["--set", "nope=1"], "unknown field 'nope'"),
        (["--set", "kitty_multiplier=triple"], "is not valid; expected one of"),
        (["--set", "kitty_multiplier=plus_two"], "same rules as the baseline"),
        (["--set", "throw_penalty_points=5", "-b", "basic", "-b", "expert"], "mixed modes"),
        (["--set", "throw_penalty_points=5", "--precision", "x"], "--precision must be"),
        (["--set", "throw_penalty_points=5", "--metric", "bonus_per_capture"], "not one number"),
        (
            ["--set", "throw_penalty_points=5", "--precision", "1e-5", "-n", "2000"],
            "more than -n's cap of 2,000",
        ),
    ],
)
def test_cli_mistakes_are_one_line_and_exit_2(args, message, tmp_path, capsys):
    from fastsheng.apps.cli import main

    code = main(["sweep", *args, "-w", "0", "-q", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.startswith("error: ") and message in err and "\n" not in err


def test_cli_grid_over_1000_needs_force(tmp_path, capsys):
    from fastsheng.apps.cli import main

    grid = tmp_path / "g.toml"
    grid.write_text(
        "[grid]\nthrow_penalty_points = " + str(list(range(201))) + "\n"
        "defender_cap = [1, 2, 3, 4, 5]\n"
    )
    assert main(["sweep", "--grid", str(grid), "-q", "--out", str(tmp_path / "o")]) == 2
    assert "1,005 variants, more than 1,000; give --force" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# Control variates: coverage and unbiasedness by simulation (slow)


@pytest.fixture(scope="module")
def pools():
    """60,000 hands of standard and of super on the same deals (expert bots): the finite
    populations the coverage test resamples. About 10 s."""
    from fastsheng.engine.hands import play_batch
    from fastsheng.studies.report.columns import canonical_hands

    out = {}
    for name in ("standard", "super"):
        r = get_rules(name)
        raw = pd.concat(
            [play_batch(r, ("expert",) * 4, 77, b, 10_000)["hands"].to_pandas() for b in range(6)],
            ignore_index=True,
        )
        out[name] = (raw, canonical_hands(raw, r))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("n", [300, 3000, 30_000])
def test_control_variates_cover_at_95_percent_and_are_unbiased(pools, n):
    """Samples of n hands drawn (with replacement) from the 60,000-hand pools, 4,000 times: the
    regression-adjusted 95% intervals of what is adjusted by default (each run's mean of
    dealer_won, defenders_total, signed_change; the paired standard - super effect on
    signed_change) cover the pool's value 0.95 +- 0.01 of the time, and their mean error is
    within Monte Carlo noise of 0. The covariates' exact means are the pool's own means (a
    finite population whose covariate means are known exactly). The three take about 20 s of
    CPU together with the pools (a minute of wall time on the shared 2-core machine)."""
    from fastsheng.studies import stats
    from fastsheng.studies.effects import values
    from fastsheng.studies.report.metrics import METRICS

    raw, std = pools["standard"]
    _, sup = pools["super"]
    cov = controls.covariates(raw)[list(controls.COVARIATES)].to_numpy(float)
    x_all = cov - cov.mean(axis=0)
    ys = {k: values(METRICS[k], std) for k in ("dealer_won", "defenders_total", "signed_change")}
    ys["signed_change, standard - super"] = ys["signed_change"] - values(
        METRICS["signed_change"], sup
    )
    names = list(ys)
    y_all = np.column_stack([ys[k] for k in names])
    truth = y_all.mean(axis=0)
    big, p, q = len(raw), x_all.shape[1] + 1, y_all.shape[1]
    design = np.column_stack([np.ones(big), x_all])
    iu = np.triu_indices(p)
    # per-hand products whose sums over a sample give X'X, X'y and y'y: a sample drawn with
    # replacement is a vector of counts, its sums one matrix product (vectorised over samples)
    feats = np.column_stack(
        [
            design[:, iu[0]] * design[:, iu[1]],
            (design[:, :, None] * y_all[:, None, :]).reshape(big, p * q),
            y_all**2,
        ]
    )
    rng = np.random.default_rng(n)
    reps, chunk = 4000, 100
    t = stats.t_value(0.95, n - p)
    est, se = [], []
    for _ in range(reps // chunk):
        idx = rng.integers(0, big, (chunk, n)) + big * np.arange(chunk)[:, None]
        counts = np.bincount(idx.ravel(), minlength=chunk * big).reshape(chunk, big)
        sums = counts @ feats
        g = np.zeros((chunk, p, p))
        g[:, iu[0], iu[1]] = sums[:, : len(iu[0])]
        g[:, iu[1], iu[0]] = sums[:, : len(iu[0])]
        b = sums[:, len(iu[0]) : len(iu[0]) + p * q].reshape(chunk, p, q)
        yy = sums[:, len(iu[0]) + p * q :]
        coef = np.linalg.solve(g, b)
        rss = yy - (coef * b).sum(axis=1)
        est.append(coef[:, 0, :])
        se.append(np.sqrt(rss / (n - p) * np.linalg.inv(g)[:, 0, 0][:, None]))
    est, se = np.concatenate(est), np.concatenate(se)
    coverage = (np.abs(est - truth) <= t * se).mean(axis=0)
    assert np.all(np.abs(coverage - 0.95) <= 0.01), dict(zip(names, coverage, strict=True))
    errors = est - truth
    bias = errors.mean(axis=0)
    assert np.all(np.abs(bias) <= 4 * errors.std(axis=0) / np.sqrt(reps)), bias
    # the same numbers as the sweep's estimator, on the last sample
    last = np.repeat(np.arange(big), counts[-1])
    e = controls.mean_ci(y_all[last, 0], x_all[last], 0.95)
    assert e.estimate == pytest.approx(est[-1, 0]) and e.hi - e.estimate == pytest.approx(
        t * se[-1, 0]
    )


# --------------------------------------------------------------------------------------------
# The figures docs/analysis.md quotes are the scripts' output (slow)


def _script(name: str):
    import importlib

    return importlib.import_module(f"analysis.{name}")


def _check_quote(script: str, printed: str) -> None:
    import re

    doc = (Path(__file__).resolve().parents[1] / "docs" / "analysis.md").read_text()
    blocks = dict(re.findall(r"<!-- output of: (\S+) -->\n```\n(.*?)```", doc, re.S))
    quoted = [ln for ln in blocks[f"analysis/{script}.py"].splitlines() if ln.strip()]
    printed_lines = {" ".join(ln.split()) for ln in printed.splitlines()}
    assert quoted
    for ln in quoted:
        assert " ".join(ln.split()) in printed_lines, f"{script} does not print: {ln}"


@pytest.mark.slow
@pytest.mark.parametrize("script", ["sweep_example", "control_variates"])
def test_docs_sweep_figures_are_what_the_scripts_print(script, tmp_path, capsys):
    """About 30 s of CPU each (9 and 2 runs of expert hands, 20,000 and 60,000 each)."""
    n = {"sweep_example": "20000", "control_variates": "60000"}[script]
    _script(script).main([n, str(tmp_path)])
    _check_quote(script, capsys.readouterr().out)


@pytest.mark.slow
def test_docs_rare_effect_coverage_is_what_the_script_prints(capsys):
    """About 20 s of CPU (numpy only: no hands are played)."""
    _script("rare_effect_coverage").main([])
    _check_quote("rare_effect_coverage", capsys.readouterr().out)


# --------------------------------------------------------------------------------------------
# compare --precision / --check-bots


def test_compare_precision_and_a_flip_with_check_bots(tmp_path, capsys):
    from fastsheng.studies.report import compare_command

    flip = tmp_path / "flip.toml"
    flip.write_text("throw_penalty_points = 99\n")
    rep = compare_command(
        rules=[str(flip), "standard"],
        n=20_000,
        seed=1,
        batch_size=1000,
        out=tmp_path / "c",
        workers=0,
        batch_fn=_flipping_batch,
        precision=0.02,
        check_bots="basic",
        check_n=1000,
    )
    p = rep.table("precision").df.iloc[0]
    head = rep.table("headline").df.set_index("key").loc["dealer_won"]
    assert p["n"] == head["n"] and (head["diff_hi"] - head["diff_lo"]) / 2 <= 0.02
    rob = rep.table("robustness").df.set_index("key")
    assert rob.loc["dealer_won", "robustness"] == "flips sign"
    assert rob.loc["defenders_total", "robustness"] != "flips sign"
    assert "FLIPS SIGN with basic: dealer_won" in capsys.readouterr().out
    assert 'class="flip"' in (tmp_path / "c" / "index.html").read_text()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--bots", "basic", "--bots", "expert", "--check-bots", "random"], "mixed modes"),
        (["--rules", "standard", "--rules", "super", "--precision", "0"], "--precision must"),
        (
            ["--rules", "standard", "--rules", "super", "--precision", "1e-5", "-n", "2000"],
            "more than -n's cap of 2,000",
        ),
    ],
)
def test_compare_option_mistakes_are_one_line(args, message, tmp_path, capsys):
    from fastsheng.apps.cli import main

    code = main(["compare", *args, "-w", "0", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.startswith("error: ") and message in err and "\n" not in err


def test_compare_of_run_folders_refuses_precision(tmp_path):
    from fastsheng.studies.report import compare_command

    with pytest.raises(SweepError, match="give --rules, not run folders"):
        compare_command([tmp_path / "a", tmp_path / "b"], precision=0.01)


# --------------------------------------------------------------------------------------------
# What the console shows, and the friction of the command line


def test_the_console_shows_warnings_the_baseline_and_simultaneous_intervals(tmp_path, capsys):
    """The printed table is the CSV's: the baseline's mean, the intervals named simultaneous,
    the warning of a rare effect (kitty_multiplier=linear moves no winner in 400 hands); the
    progress goes to stderr, as sim's, and the bots are said as every other page says them."""
    rep = sweep(
        set=["kitty_multiplier=linear", "kitty_multiplier=cards"],
        metrics=["dealer_won"],
        n=400,
        seed=1,
        out=tmp_path / "s",
        workers=0,
        quiet=False,
        figures=False,
    )
    out, err = capsys.readouterr()
    assert "diff (simultaneous 95%)" in out and "mean_baseline" in out
    row = rep.table("metric_dealer_won").df.set_index("variant").loc["kitty_multiplier=linear"]
    assert row["warning"].startswith("only ") and row["diff_lo"] < 0 < row["diff_hi"]
    words = set(out.replace("│", " ").split())  # rich wraps a long cell over lines
    assert {"warning", "only", "bounded", "rate,"} <= words
    assert "[0/2] baseline=standard" in err and "[0/2]" not in out
    assert "bots: expert-v4 at all four seats" in rep.subtitle
    from fastsheng.studies.report import display_frame

    shown = display_frame(rep.table("metric_dealer_won"))
    assert "diff (simultaneous 95%)" in shown and "mean_variant (95% CI)" in shown


def test_precision_at_the_pilots_size_reuses_the_pilot(tmp_path):
    """A wide target needs no more hands than the pilot: its runs are the runs (linked, not
    played again), and the report reads the same hands."""
    calls = _Counting()
    rep = sweep(
        set=["throw_penalty_points=20"],
        metrics=["dealer_won"],
        precision=0.5,
        n=2000,
        seed=3,
        batch_size=1000,
        out=tmp_path / "p",
        workers=0,
        figures=False,
        batch_fn=calls,
    )
    assert rep.table("precision").df["n"].iloc[0] == 2000
    assert len(calls.calls) == 2 * 2  # the pilot's two runs of two batches, nothing more
    assert (tmp_path / "p" / "runs" / "throw_penalty_points=20" / "run.json").is_file()


def test_a_refused_precision_leaves_nothing_behind(tmp_path, capsys):
    from fastsheng.apps.cli import main

    out = tmp_path / "o"
    args = ["--set", "throw_penalty_points=5", "--precision", "1e-5", "-n", "2000"]
    assert main(["sweep", *args, "-w", "0", "-q", "--out", str(out)]) == 2
    assert "more than -n's cap" in capsys.readouterr().err
    assert not out.exists()
    cmp = tmp_path / "c"
    args = ["--rules", "standard", "--rules", "super", "--precision", "1e-5", "-n", "2000"]
    assert main(["compare", *args, "-w", "0", "--out", str(cmp)]) == 2
    assert not cmp.exists()


def test_a_grid_through_the_baselines_own_value_skips_it_with_a_note():
    notes: list[str] = []
    base, vs = build_variants(grid={"level_table": {"threshold": [60, 80, 100]}}, notes=notes)
    assert [v.label for v in vs] == ["level_table.threshold=60", "level_table.threshold=100"]
    assert "level_table.threshold=80 is the baseline's own rules" in notes[0]
    with pytest.raises(SweepError, match="same rules as the baseline"):  # asked for by name
        build_variants(sets=["level_table.threshold=80"])


@pytest.mark.parametrize("study", ["sweep", "compare"])
def test_check_n_without_check_bots_is_refused(study, tmp_path, capsys):
    from fastsheng.apps.cli import main

    what = (
        ["--set", "throw_penalty_points=5"]
        if study == "sweep"
        else ["-r", "standard", "-r", "super"]
    )
    code = main([study, *what, "--check-n", "100", "-w", "0", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.startswith("error: --check-n") and "--check-bots" in err
    assert "\n" not in err and not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--set", "take_over=70"], "did you mean level_table.threshold"),
        (["--set", "throw_penaly=flat"], "did you mean throw_penalty"),
        (
            ["--set", "throw_penalty_points=5", "-b", "exprt"],
            "unknown bot 'exprt'; did you mean expert",
        ),
        (["--set", "throw_penalty_points=5", "--check-bots", "basc"], "did you mean basic"),
    ],
)
def test_mistyped_names_get_a_suggestion(args, message, tmp_path, capsys):
    from fastsheng.apps.cli import main

    assert main(["sweep", *args, "-w", "0", "-q", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "fields:" not in err and "\n" not in err


def test_compare_suggests_a_bot_name(tmp_path, capsys):
    from fastsheng.apps.cli import main

    code = main(["compare", "-b", "expert", "-b", "exprt", "-n", "10", "--out", str(tmp_path)])
    assert code == 2 and "did you mean expert" in capsys.readouterr().err


def test_an_interrupted_sweep_prints_the_command_that_finishes_it(monkeypatch, tmp_path, capsys):
    from fastsheng.apps.cli import main
    from fastsheng.sim.runner import RunInterrupted
    from fastsheng.studies import sweep as sweep_module

    def stop(*args, **kwargs):
        raise RunInterrupted(1, 3, str(tmp_path / "s" / "runs" / "x"))

    monkeypatch.setattr(sweep_module, "sweep", stop)
    args = ["sweep", "--set", "kitty_multiplier=linear", "--set", "a=1;b=2", "-n", "300"]
    assert main([*args, "--out", str(tmp_path / "s")]) == 130
    err = capsys.readouterr().err
    assert "finish with: fastsheng sweep --rules standard --set kitty_multiplier=linear" in err
    assert "--set 'a=1;b=2' -n 300" in err and f"--out {tmp_path / 's'}" in err


def test_a_corrupt_part_says_to_run_the_same_sweep(tmp_path, capsys):
    """Not "--resume", which sweep does not have: the same command, printed."""
    from fastsheng.apps.cli import main
    from fastsheng.sim.runner import RunInterrupted

    kw = dict(set=["throw_penalty_points=20"], n=1500, seed=2, batch_size=500, workers=0)
    with pytest.raises(RunInterrupted):
        sweep(out=tmp_path / "a", batch_fn=_Counting(("standard+throw_penalty_points=20", 2)),
              figures=False, **kw)  # fmt: skip
    part = next((tmp_path / "a" / "runs" / "throw_penalty_points=20" / "hands").glob("*.parquet"))
    part.write_bytes(b"not parquet")
    with pytest.raises(SweepError, match="run the same sweep again"):
        sweep(out=tmp_path / "a", figures=False, **kw)
    args = ["sweep", "--set", "throw_penalty_points=20", "-n", "1500", "--seed", "2"]
    args += ["--batch-size", "500", "-w", "0", "-q", "--out", str(tmp_path / "a")]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert "corrupt part" in err and "--resume" not in err and "\n" not in err
    again = "fastsheng sweep --rules standard --set throw_penalty_points=20 -n 1500 --seed 2"
    assert f": {again} --batch-size 500 --level 2 --workers 0 --out " in err
    assert err.endswith(" --quiet")


def test_compare_precision_at_the_pilots_size_reuses_the_pilot(tmp_path):
    from fastsheng.studies.report import compare_command

    calls = _Counting()
    rep = compare_command(rules=["standard", "super"], n=2000, seed=1, batch_size=1000,
                          out=tmp_path / "c", workers=0, batch_fn=calls, precision=0.5,
                          quiet=True)  # fmt: skip
    assert rep.table("precision").df["n"].iloc[0] == 2000
    assert len(calls.calls) == 2 * 2  # the pilot's two runs of two batches, nothing more
    assert (tmp_path / "c" / "runs" / "super" / "run.json").is_file()
