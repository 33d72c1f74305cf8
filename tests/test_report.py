"""fastsheng report / compare: every table recomputed independently from the raw Parquet, the
paired comparison on identical and on clearly different variants, and the HTML checked in a real
headless Chromium (skipped only when no Chromium is installed).

Two kinds of runs are used: *synthetic* runs, written by the real runner and dataset code with a
small stand-in batch function (known ground truth, deals drawn first so that two rule variants
with the same seed see the same deals), and, when the engine is built, *real* runs of
``fastsheng.engine.hands.play_batch``.
"""

from __future__ import annotations

import base64
import json
import math
import os
import re
import select
import shutil
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fastsheng.rules import get_rules
from fastsheng.sim.runner import RunSpec, run
from fastsheng.studies import report

try:
    from fastsheng import level_outcome
except ImportError:
    from fastsheng._core import level_outcome

# --------------------------------------------------------------------------------------------
# A synthetic batch function: same output form as fastsheng.engine.hands.play_batch (a subset of its
# columns), deal-dependent draws first, the rules used only for the level outcome.

_MULT = {"single": 2, "pair": 4, "tractor": 8, "throw": 3}


def fake_batch(rules, bots, seed, batch, size, *, mode="hands", level="2", tricks=False):
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(batch,)))
    kitty_points = rng.choice([0, 5, 10, 15, 20, 25, 30], size=size)
    dealer = rng.integers(0, 4, size)
    trick = rng.integers(0, 37, size) * 5
    kinds = rng.choice(list(_MULT), size=size, p=[0.55, 0.3, 0.1, 0.05])
    cap = rng.random(size) < 0.25
    declarer = np.where(rng.random(size) < 0.95, rng.integers(0, 4, size), -1)
    trump = rng.choice(["S", "H", "C", "D", "NT"], size=size, p=[0.23, 0.23, 0.23, 0.23, 0.08])
    overcalls = rng.poisson(0.3, size)
    throws = rng.poisson(0.8, size)
    failed = rng.binomial(throws, 0.2)
    buried = np.minimum(kitty_points, rng.choice([0, 5, 10], size=size))
    mult = np.array([_MULT[k] for k in kinds])
    bonus = np.where(cap, mult * buried, 0)
    pen = -10 * failed * (rng.random(size) < 0.5)
    total = np.maximum(0, trick + bonus + pen)
    outcome = [level_outcome(rules, int(t)) for t in total]
    hands = pa.table(
        {
            "hand_id": batch * 1000 + np.arange(size),
            "level": np.full(size, level),
            "dealer": dealer,
            "declarer": declarer,
            "trump": trump,
            "overcalls": overcalls,
            "declarations": overcalls + (declarer >= 0),
            "kitty_points": kitty_points,
            "kitty_buried_points": buried,
            "defender_trick_points": trick,
            "last_lead_kind": kinds,
            "kitty_captured": cap,
            "kitty_multiplier": mult,
            "kitty_bonus": bonus,
            "throws": throws,
            "failed_throws": failed,
            "penalty": pen,
            "defenders_total": total,
            "winner": [o[0] for o in outcome],
            "level_change": [o[1] for o in outcome],
        }
    )
    return {"hands": hands}


def _fake_run(path: Path, rules, seed: int, n: int = 4000) -> Path:
    spec = RunSpec(rules=rules, bots=("basic",) * 4, seed=seed, n=n, batch_size=1000)
    run(spec, str(path), workers=0, batch_fn=fake_batch)
    return path


def _engine_available() -> bool:
    try:
        import fastsheng.engine.hands  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("runs")
    std = get_rules("standard")
    sup = std.replace(level_table="super", name="standard-super-table")
    return {
        "a": _fake_run(base / "a", std, seed=1),
        "a_again": _fake_run(base / "a_again", std, seed=1),
        "a_other_seed": _fake_run(base / "a_other_seed", std, seed=2),
        "super_table": _fake_run(base / "super_table", sup, seed=1),
    }


@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    if not _engine_available():
        pytest.skip("fastsheng.engine.hands (the engine) is not built yet")
    from fastsheng.engine.hands import BOTS

    path = tmp_path_factory.mktemp("real") / "run"
    bot = "expert" if "expert" in BOTS else next(iter(BOTS))
    spec = RunSpec(rules=get_rules("standard"), bots=(bot,) * 4, seed=7, n=2000, batch_size=500)
    run(spec, str(path), workers=0)
    return path


# --------------------------------------------------------------------------------------------
# Independent recomputation helpers (no fastsheng.studies.stats: the formulas written out again)


def raw_hands(path: Path) -> pd.DataFrame:
    """The hands table straight from the Parquet parts."""
    parts = sorted((path / "hands").glob("part-*.parquet"))
    return pa.concat_tables([pq.read_table(p) for p in parts]).to_pandas()


def col(df: pd.DataFrame, canon: str) -> str:
    """The simulator's name of a canonical column (the one mapping shared with report.py)."""
    for name in report.HAND_COLUMNS[canon]:
        if name in df.columns:
            return name
    raise KeyError(canon)


def has(df: pd.DataFrame, canon: str) -> bool:
    return any(name in df.columns for name in report.HAND_COLUMNS[canon])


def wilson_ref(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float, float]:
    p = k / n
    centre = (k + z * z / 2) / (n + z * z)
    half = z * math.sqrt(n) / (n + z * z) * math.sqrt(p * (1 - p) + z * z / (4 * n))
    return p, max(0.0, centre - half), min(1.0, centre + half)


def cluster_ref(x, groups, z: float = 1.959963984540054) -> tuple[float, float, float]:
    """Mean of per-hand values with hands clustered in matches: ratio of per-match sums, delta
    method (written out again, independently of fastsheng.studies.stats)."""
    g = pd.DataFrame({"x": np.asarray(x, float), "g": np.asarray(groups)}).groupby("g")["x"]
    num, den = g.sum().to_numpy(), g.count().to_numpy().astype(float)
    k, r = num.size, num.sum() / den.sum()
    se = math.sqrt(((num - r * den) ** 2).sum() / (k - 1) / k) / (den.sum() / k)
    return r, r - z * se, r + z * se


def check_prop(row, k: int, n: int, est="p"):
    p, lo, hi = wilson_ref(k, n)
    assert int(row["n"]) == n
    assert row[est] == pytest.approx(p, abs=1e-12)
    assert row[f"{est}_lo"] == pytest.approx(lo, abs=1e-9)
    assert row[f"{est}_hi"] == pytest.approx(hi, abs=1e-9)


def check_mean(row, x: np.ndarray, est="mean", support=None):
    """Mean and its interval, exactly (no Monte Carlo: the same numbers from any seed, so full
    precision in the CSV is honest), recomputed here from the formulas: the Student t interval;
    with ``support`` (the range one hand's value can take) a sample without variation gets the
    exact binomial bound, scaled by the distance to the ends of the range, and one with fewer
    than 10 values away from the most common one the rate bound (Clopper-Pearson limits of the
    rates above and below it at 1 - 0.05/4 each, times the distance to each end)."""
    from scipy.stats import beta
    from scipy.stats import t as student

    x = np.asarray(x, dtype=float)
    assert int(row["n"]) == x.size
    assert row[est] == pytest.approx(x.mean(), rel=1e-12, abs=1e-12)
    lo, hi = row[f"{est}_lo"], row[f"{est}_hi"]
    values, counts = np.unique(x, return_counts=True)
    c = float(values[np.argmax(counts)])
    away = x.size - int(counts.max())
    if support is not None and away < 10:
        a, b = support
        if away == 0:  # every value c: at most q = 1 - 0.025^(1/n) of hands differ
            q = 1 - 0.025 ** (1 / x.size)
            want = (c - (c - a) * q, c + (b - c) * q)
        else:
            k_up, k_down = int((x > c).sum()), int((x < c).sum())
            up_hi = beta.ppf(1 - 0.0125, k_up + 1, x.size - k_up)
            down_hi = beta.ppf(1 - 0.0125, k_down + 1, x.size - k_down)
            want = (max(c - (c - a) * down_hi, a), min(c + (b - c) * up_hi, b))
        assert lo == pytest.approx(want[0], rel=1e-9, abs=1e-12)
        assert hi == pytest.approx(want[1], rel=1e-9, abs=1e-12)
        assert lo <= x.mean() <= hi and hi > lo  # never zero width
        return
    half = student.ppf(0.975, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size)
    assert lo == pytest.approx(x.mean() - half, rel=1e-9, abs=1e-12)
    assert hi == pytest.approx(x.mean() + half, rel=1e-9, abs=1e-12)


def by_key(df: pd.DataFrame, key: str) -> dict:
    return {r[key]: r for r in df.to_dict("records")}


# --------------------------------------------------------------------------------------------
# report: every table recomputed from the raw Parquet


def _check_report_against_raw(path: Path, rules) -> None:
    raw = raw_hands(path)
    n = len(raw)
    rep = report.compute_report(report.load_run(path), figures=False)
    names = {t.name for t in rep.tables}
    total = raw[col(raw, "defenders_total")].to_numpy(float)
    win = raw[col(raw, "winner")].astype(str).str.lower().to_numpy()
    dealer_won = np.char.startswith(win.astype(str), "dealer")
    trump = raw[col(raw, "trump")].astype(str).to_numpy()
    nt = np.isin(trump, ["NT", "nt"])

    # headline
    head = by_key(rep.table("headline").df, "key")
    span = {k: report.METRICS[k].value_range(rules) for k in report.METRICS}
    check_mean(head["defenders_total"], total, "estimate", span["defenders_total"])
    check_prop(head["dealer_won"], int(dealer_won.sum()), n, "estimate")
    check_prop(head["no_trump"], int(nt.sum()), n, "estimate")

    # defenders' points by trump kind: n, mean, sd, quantiles
    tab = by_key(rep.table("points_by_trump").df, "trump")
    for label, mask in (("all", np.ones(n, bool)), ("suit", ~nt), ("no trump", nt)):
        if not mask.any():
            continue
        x = total[mask]
        row = tab[label]
        check_mean(row, x, support=span["defenders_total"])
        assert row["sd"] == pytest.approx(x.std(ddof=1))
        xs = np.sort(x)
        for q, name in ((0.1, "q10"), (0.25, "q25"), (0.5, "median"), (0.75, "q75"), (0.9, "q90")):
            assert row[name] == xs[math.ceil(q * x.size) - 1]

    # histogram
    hist = rep.table("points_histogram").df
    values, counts = np.unique(total, return_counts=True)
    assert hist["defenders_total"].tolist() == values.tolist()
    assert hist["all"].tolist() == counts.tolist()

    # level change: outcome labels from (winner, level_change)
    lc = np.abs(raw[col(raw, "level_change")].to_numpy(int))
    labels = [
        f"dealer +{k}" if d else ("defenders take over" if k == 0 else f"defenders +{k}")
        for d, k in zip(dealer_won, lc, strict=True)
    ]
    expect = pd.Series(labels).value_counts()
    got = by_key(rep.table("level_change").df, "outcome")
    assert set(got) == set(expect.index)
    for label, k in expect.items():
        check_prop(got[label], int(k), n)
    # ... and they agree with the rules' level table
    for t, d, k in zip(total, dealer_won, lc, strict=True):
        side, levels = level_outcome(rules, int(t))
        assert (side == "dealer") == d and levels == k

    # dealer-side win rate by trump kind
    dw = by_key(rep.table("dealer_win").df, "group")
    check_prop(dw["all hands"], int(dealer_won.sum()), n, "estimate")
    if (~nt).any():
        check_prop(dw["trump: suit"], int(dealer_won[~nt].sum()), int((~nt).sum()), "estimate")

    # kitty
    if has(raw, "kitty_captured"):
        cap = raw[col(raw, "kitty_captured")].to_numpy(bool)
        kt = by_key(rep.table("kitty").df, "key")
        check_prop(kt["kitty_captured"], int(cap.sum()), n, "estimate")
        if has(raw, "kitty_buried"):
            buried = raw[col(raw, "kitty_buried")]
            check_mean(kt["kitty_buried"], buried, "estimate", span["kitty_buried"])
            assert "buried by the burier" in kt["kitty_buried"]["metric"]
        bonus = raw[col(raw, "kitty_bonus")].to_numpy(float)
        check_mean(kt["kitty_bonus"], bonus, "estimate", span["kitty_bonus"])
        if cap.sum() > 1:
            check_mean(kt["bonus_per_capture"], bonus[cap], "estimate", span["kitty_bonus"])
        # decided by the kitty: the level outcome without the bonus, row by row
        decides = flips = 0
        for t, b in zip(total.astype(int), bonus.astype(int), strict=True):
            with_b = level_outcome(rules, int(t))
            without = level_outcome(rules, max(0, int(t) - int(b)))
            decides += with_b != without
            flips += with_b[0] != without[0]
        check_prop(kt["kitty_decides"], decides, n, "estimate")
        # the share of the kitty-decided hands, as the label promises
        check_prop(kt["kitty_flips"], flips, decides, "estimate")
        assert "share of the kitty-decided hands" in kt["kitty_flips"]["metric"]
        # by the last trick's lead kind: capture probability and bonus per capture, both with
        # their intervals
        kinds = raw[col(raw, "last_lead_kind")].astype(str).to_numpy()
        lead = rep.table("kitty_by_lead").df
        kb = by_key(lead[lead["key"] == "kitty_captured"], "last_lead_kind")
        bb = by_key(lead[lead["key"] == "bonus_per_capture"], "last_lead_kind")
        assert set(kb) == set(np.unique(kinds))
        for kind in np.unique(kinds):
            m = kinds == kind
            check_prop(kb[kind], int(cap[m].sum()), int(m.sum()), "estimate")
            if cap[m].sum() > 1:
                check_mean(bb[kind], bonus[m & cap], "estimate", span["kitty_bonus"])

    # throws
    if has(raw, "throws"):
        t = raw[col(raw, "throws")].to_numpy(float)
        f = raw[col(raw, "failed_throws")].to_numpy(float)
        th = by_key(rep.table("throws").df, "key")
        check_prop(th["throw_hand"], int((t > 0).sum()), n, "estimate")
        check_prop(th["failed_hand"], int((f > 0).sum()), n, "estimate")
        assert th["throws"]["estimate"] == pytest.approx(t.mean())
        r = th["failure_rate"]
        assert int(r["n"]) == int(t.sum())
        if t.sum() > 0:
            assert r["estimate"] == pytest.approx(f.sum() / t.sum())
            assert r["estimate_lo"] <= r["estimate"] <= r["estimate_hi"]
        else:
            assert math.isnan(r["estimate"])

    # declarations: who declared relative to the dealer, overcalls, no trump
    dec = by_key(
        rep.table("declarations").df.assign(key=lambda d: d["question"] + "|" + d["answer"]), "key"
    )
    declarer = raw[col(raw, "declarer")].fillna(-1).to_numpy(int)
    dealer = raw[col(raw, "dealer")].to_numpy(int)
    rel = (declarer - dealer) % 4
    roles = np.where(
        declarer < 0,
        "nobody",
        np.where(rel == 0, "dealer", np.where(rel == 2, "dealer's partner", "defender")),
    )
    for role in np.unique(roles):
        check_prop(
            dec[f"standing caller at the close of the deal (before burial)|{role}"],
            int((roles == role).sum()),
            n,
        )
    if has(raw, "overcalls"):
        oc = raw[col(raw, "overcalls")].to_numpy(int)
        check_prop(dec["at least one overcall|yes"], int((oc > 0).sum()), n)
    check_prop(dec["no-trump hand|yes"], int(nt.sum()), n)
    # who set the final trump and who buried the final kitty (after 炒底)
    for seat, question in (
        (
            "final_caller",
            "whose call set the final trump (last chaodi 炒底 overcaller, else declarer)",
        ),
        ("burier", "who buried the final kitty"),
    ):
        if seat in raw:
            s = raw[seat].astype("float").fillna(-1).to_numpy(int)
            rel = (s - dealer) % 4
            roles = np.where(
                s < 0,
                "nobody",
                np.where(rel == 0, "dealer", np.where(rel == 2, "dealer's partner", "defender")),
            )
            for role in np.unique(roles):
                check_prop(dec[f"{question}|{role}"], int((roles == role).sum()), n)
    # the levels actually climbed, beside the raw level-table value
    if "levels_climbed" in raw:
        climbed = raw["levels_climbed"].to_numpy(int)
        signed = np.where(dealer_won, climbed, -climbed)
        check_mean(head["signed_climbed"], signed, "estimate", span["signed_climbed"])
        got = by_key(rep.table("levels_climbed").df, "outcome")
        dealer_up = dealer_won & (climbed > 0)
        if dealer_up.any():
            k = int(climbed[dealer_up].max())
            check_prop(got[f"dealer +{k}"], int((climbed[dealer_up] == k).sum()), n)
        assert "levels_climbed" in rep.table("levels_climbed").note
    assert {"headline", "points_by_trump", "level_change", "dealer_win"} <= names


def test_report_tables_match_raw_parquet_synthetic(runs):
    _check_report_against_raw(runs["a"], get_rules("standard"))
    _check_report_against_raw(
        runs["super_table"], get_rules("standard").replace(level_table="super")
    )


def test_report_tables_match_raw_parquet_real(real_run):
    raw = raw_hands(real_run)
    assert {"burier", "final_caller", "levels_climbed"} <= set(raw.columns)
    _check_report_against_raw(real_run, get_rules("standard"))


def test_report_at_level_a_separates_table_value_from_levels_climbed(tmp_path):
    """At level A a dealer-side win records +1..+3 in the level table (column levels)
    but climbs nothing; the report shows both, each table saying which it uses."""
    if not _engine_available():
        pytest.skip("fastsheng.engine.hands (the engine) is not built yet")
    spec = RunSpec(
        rules=get_rules("standard"), bots=("basic",) * 4, seed=4, n=1000, batch_size=500, level="A"
    )
    run(spec, str(tmp_path / "a"), workers=0)
    rep = report.compute_report(report.load_run(tmp_path / "a"), figures=False)
    table_value = by_key(rep.table("level_change").df, "outcome")
    climbed = by_key(rep.table("levels_climbed").df, "outcome")
    assert table_value["dealer +1"]["count"] > 0  # the raw table value
    assert not any(k.startswith("dealer +") for k in climbed)  # nothing to climb past A
    head = by_key(rep.table("headline").df, "key")
    assert head["signed_change"]["estimate"] != head["signed_climbed"]["estimate"]
    assert "level-table value" in head["signed_change"]["metric"]


def test_report_command_writes_html_and_csv(runs, tmp_path, capsys):
    out = tmp_path / "rep"
    rep = report.report_command(runs["a"], out)
    printed = capsys.readouterr().out
    assert "dealer side wins the hand" in printed and "index.html" in printed
    html_text = (out / "index.html").read_text()
    assert html_text.startswith("<!DOCTYPE html>")
    assert html_text.count("data:image/png;base64,") == len(rep.figures) >= 3
    assert "<script" not in html_text and "http://" not in html_text.replace(
        "http://www.w3.org", ""
    )
    for t in rep.tables:
        csv = pd.read_csv(out / f"{t.name}.csv")
        assert list(csv.columns) == [str(c) for c in t.df.columns]
        assert len(csv) == len(t.df)
        num = t.df.select_dtypes("number").columns
        np.testing.assert_allclose(
            csv[[str(c) for c in num]].to_numpy(float), t.df[num].to_numpy(float), rtol=1e-9
        )
    # default output folder: RUN/report
    report.report_command(runs["a"], quiet=True)
    assert (runs["a"] / "report" / "index.html").is_file()


# --------------------------------------------------------------------------------------------
# compare


def test_compare_identical_variants_same_deals_finds_nothing(runs):
    rep = report.compute_compare(
        report.load_run(runs["a"]), report.load_run(runs["a_again"]), figures=False
    )
    d = rep.table("headline").df
    assert len(d) >= 10
    assert (d["diff"] == 0).all() and (d["diff_lo"] <= 0).all() and (d["diff_hi"] >= 0).all()
    assert not d["excludes_0"].any()
    assert rep.meta["deal_check"]["same_share"] == 1.0


def test_compare_identical_variants_other_seed_interval_covers_zero(runs):
    """Same rules, independent deals (seed 1 vs 2, paired by hand_id but independent): the
    main metrics' intervals cover 0, and the MDE is the formula (1.96 + 0.8416) sd / sqrt(n)."""
    rep = report.compute_compare(
        report.load_run(runs["a"]), report.load_run(runs["a_other_seed"]), figures=False
    )
    d = by_key(rep.table("headline").df, "key")
    for metric in ("defenders_total", "dealer_won", "kitty_captured", "kitty_bonus"):
        assert d[metric]["diff_lo"] <= 0 <= d[metric]["diff_hi"], metric
    a, b = raw_hands(runs["a"]), raw_hands(runs["a_other_seed"])
    diff = a["defenders_total"].to_numpy(float) - b["defenders_total"].to_numpy(float)
    row = d["defenders_total"]
    assert row["diff"] == pytest.approx(diff.mean())
    assert row["mde"] == pytest.approx(2.8016 * diff.std(ddof=1) / math.sqrt(diff.size), rel=1e-4)
    assert rep.meta["deal_check"]["same_share"] < 0.5


def test_compare_different_level_tables_finds_the_difference(runs):
    rep = report.compute_compare(
        report.load_run(runs["a"]), report.load_run(runs["super_table"]), figures=False
    )
    d = by_key(rep.table("headline").df, "key")
    # same deals, same play: the points are identical ...
    assert d["defenders_total"]["diff"] == 0
    # ... but the super table gives the dealer side more levels for the same total
    row = d["dealer_gain"]
    assert row["excludes_0"] and row["diff_hi"] < 0
    # recomputed from the raw Parquet
    a, b = raw_hands(runs["a"]), raw_hands(runs["super_table"])

    def dealer_gain(df):
        dealer = df["winner"].astype(str).str.startswith("dealer").to_numpy()
        return np.where(dealer, df["level_change"].to_numpy(int), 0)

    diff = dealer_gain(a) - dealer_gain(b)
    assert row["diff"] == pytest.approx(diff.mean())
    assert row["n"] == len(diff)
    lc = by_key(rep.table("level_change").df, "outcome")
    assert lc["dealer +6"]["p_a"] == 0 and lc["dealer +6"]["p_b"] > 0


def test_compare_command_writes_output(runs, tmp_path, capsys):
    out = tmp_path / "cmp"
    report.compare_command([runs["a"], runs["super_table"]], out=out)
    printed = capsys.readouterr().out
    assert "dealer side's levels" in printed
    assert (out / "index.html").is_file() and (out / "headline.csv").is_file()
    with pytest.raises(ValueError):
        report.compare_command([runs["a"]], out=out)


def test_compare_of_two_line_ups_names_each_bot_once_and_draws_long_names(tmp_path):
    """A search's resolved name holds commas and runs past 90 characters: the title says each
    line-up as the footer does (a comma-joined line-up of four such names cannot be read back),
    and the figures keep their axes (a legend that long once squeezed them to nothing, with a
    matplotlib warning on the user's console)."""
    long = "search-v3:k=1024,close=31,early=0,top=7,infer=10,kitty=5,belief=1,cards=1,chains=4"
    std = get_rules("standard")
    a, b = tmp_path / "a", tmp_path / "b"
    for path, bot in ((a, "basic"), (b, long)):
        spec = RunSpec(rules=std, bots=(bot,) * 4, seed=1, n=1000, batch_size=500)
        run(spec, str(path), workers=0, batch_fn=fake_batch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rep = report.compare_command([a, b], out=tmp_path / "cmp", quiet=True)
    resolved = json.loads((b / "run.json").read_text())["bots"][0]
    assert rep.title == (
        f"fastsheng compare: A = basic-v1 at all four seats vs B = {resolved} at all four seats"
    )
    assert "points_hist" in {f.name for f in rep.figures}


def test_compare_command_simulates_both_variants(tmp_path):
    """compare --rules a --rules b: two runs with the same seed, n and batch size."""
    out = tmp_path / "cmp"
    rep = report.compare_command(
        rules=["standard", "super"],
        n=1500,
        seed=3,
        batch_size=500,
        out=out,
        workers=0,
        quiet=True,
        batch_fn=fake_batch,
    )
    ma = json.loads((out / "runs" / "standard" / "run.json").read_text())
    mb = json.loads((out / "runs" / "super" / "run.json").read_text())
    assert (ma["seed"], ma["n"], ma["batch_size"]) == (mb["seed"], mb["n"], mb["batch_size"])
    assert rep.meta["deal_check"]["same_share"] == 1.0
    assert (out / "index.html").is_file()


# --------------------------------------------------------------------------------------------
# The HTML in a real browser: headless Chromium driven over the DevTools pipe


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        p = shutil.which(name)
        if p:
            return p
    return None


class DevTools:
    """Minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (fd 3: commands
    in, fd 4: answers out, NUL-separated JSON). No extra package needed."""

    def __init__(self, exe: str, width: int = 1200, height: int = 900):
        r_in, w_in = os.pipe()
        r_out, w_out = os.pipe()
        self.profile = tempfile.mkdtemp(prefix="fastsheng-chromium-")

        def child_fds():
            a, b = os.dup(r_in), os.dup(w_out)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [
                exe,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                f"--user-data-dir={self.profile}",
                "--remote-debugging-pipe",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            pass_fds=(3, 4, r_in, w_out),
            preexec_fn=child_fds,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(r_in)
        os.close(w_out)
        self.w, self.r = w_in, r_out
        self.buf = b""
        self.next_id = 0
        self.events: list[dict] = []

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self.r], [], [], left)
            if ready:
                chunk = os.read(self.r, 1 << 20)
                if not chunk:
                    raise EOFError("Chromium closed the DevTools pipe")
                self.buf += chunk
        msg, _, self.buf = self.buf.partition(b"\0")
        return json.loads(msg)

    def send(self, method: str, params=None, session=None, timeout: float = 30.0) -> dict:
        self.next_id += 1
        mid = self.next_id
        m = {"id": mid, "method": method, "params": params or {}}
        if session:
            m["sessionId"] = session
        os.write(self.w, json.dumps(m).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            msg = self._read(deadline)
            if msg.get("id") == mid:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_event(self, method: str, timeout: float = 30.0) -> dict:
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            msg = self._read(deadline)
            if msg.get("method") == method:
                return msg
            self.events.append(msg)

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self.w, self.r):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)


def load_in_chromium(url: str, screenshot: Path | None = None) -> dict:
    """Open ``url``; return the title, every image's load state, the number of tables and every
    console error/warning, uncaught exception and failed load."""
    exe = chromium_path()
    assert exe is not None
    c = DevTools(exe)
    try:
        target = c.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        sid = c.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            c.send(f"{domain}.enable", session=sid)
        c.send("Page.navigate", {"url": url}, session=sid)
        c.wait_event("Page.loadEventFired")
        expr = """JSON.stringify({title: document.title,
            images: Array.from(document.images).map(i => [i.alt, i.complete, i.naturalWidth]),
            tables: document.querySelectorAll('table').length,
            height: document.documentElement.scrollHeight})"""
        res = c.send("Runtime.evaluate", {"expression": expr, "returnByValue": True}, session=sid)
        info = json.loads(res["result"]["value"])
        if screenshot is not None:
            clip = {"x": 0, "y": 0, "width": 1200, "height": min(info["height"], 8000), "scale": 1}
            shot = c.send(
                "Page.captureScreenshot",
                {"format": "png", "captureBeyondViewport": True, "clip": clip},
                session=sid,
            )
            screenshot.write_bytes(base64.b64decode(shot["data"]))
        c.send("Runtime.evaluate", {"expression": "0"}, session=sid)  # flush pending events
        errors = []
        for e in c.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                errors.append(d.get("exception", {}).get("description") or d.get("text", "?"))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in (
                "error",
                "assert",
                "warning",
            ):
                errors.append(
                    " ".join(
                        str(a.get("value", a.get("description", ""))) for a in p.get("args", [])
                    )
                )
            elif m == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
                errors.append(p["entry"].get("text", ""))
            elif m == "Network.loadingFailed":
                errors.append(f"load failed: {p.get('errorText')}")
        info["errors"] = errors
        return info
    finally:
        c.close()


needs_chromium = pytest.mark.skipif(
    chromium_path() is None,
    reason="Chromium is not installed (apt-get install -y chromium); CI installs it",
)


@needs_chromium
def test_browser_check_catches_errors(tmp_path):
    """The checker itself: a page with a broken image and a script error is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text(
        "<!DOCTYPE html><html><head><title>bad</title></head><body>"
        '<img alt="gone" src="missing.png"><script>console.error("boom");'
        "notAFunction();</script></body></html>"
    )
    info = load_in_chromium(bad.as_uri())
    assert info["title"] == "bad"
    assert info["images"][0][2] == 0
    assert any("boom" in e for e in info["errors"])
    assert any("notAFunction" in e for e in info["errors"])


@needs_chromium
def test_report_and_compare_html_render_in_chromium(runs, tmp_path):
    rep_dir, cmp_dir = tmp_path / "report", tmp_path / "compare"
    rep = report.report_command(runs["a"], rep_dir, quiet=True)
    cmp = report.compare_command([runs["a"], runs["super_table"]], out=cmp_dir, quiet=True)
    for folder, r in ((rep_dir, rep), (cmp_dir, cmp)):
        shot = folder / "screenshot.png"
        info = load_in_chromium((folder / "index.html").as_uri(), shot)
        assert info["errors"] == []
        assert info["title"] == r.title
        assert info["tables"] == len(r.tables)
        assert len(info["images"]) == len(r.figures) > 0
        assert all(complete and width > 0 for _, complete, width in info["images"])
        png = shot.read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000


# --------------------------------------------------------------------------------------------
# analysis/ scripts run end to end on a small run


def _script(name: str):
    import importlib

    return importlib.import_module(f"analysis.{name}")


def test_analysis_scripts_run(runs, capsys):
    a = str(runs["a"])
    kinds = _script("kitty_odds").main([a])
    raw = raw_hands(runs["a"])
    assert kinds["hands"].sum() == len(raw)
    table = _script("score_distribution").main([a])
    assert table.iloc[0]["hands"] == len(raw)
    assert (runs["a"] / "analysis-score-distribution.png").is_file()
    bal = _script("variant_balance").main([a, str(runs["super_table"])])
    row = bal.set_index("metric").loc["levels gained by the dealer side"]
    assert row["hi95"] < 0
    assert "paired hands" in capsys.readouterr().out


@pytest.mark.parametrize("n", [1, 12])
def test_kitty_odds_on_a_tiny_run_prints_no_bounds_it_cannot_give(tmp_path, capsys, n):
    """A t interval from a few hands ([-58.5, 68.5] for a bonus, [-inf, inf] from one) is no
    answer: the script says there are too few hands, and counts hands in the singular too."""
    run = _fake_run(tmp_path / "tiny", get_rules("standard"), seed=3, n=n)
    _script("kitty_odds").main([str(run)])
    out = capsys.readouterr().out
    assert "too few hands for an interval" in out
    assert "inf" not in out and "[-" not in out and " -" not in out.replace(" - ", "")
    assert f"({n} hand{'s' if n > 1 else ''})" in out


def test_analysis_bot_strength_runs(tmp_path):
    try:
        from fastsheng.engine.hands import BOTS

        bots = list(BOTS)[:2]
    except ImportError:
        bots = ["basic", "expert"]
    # the stand-in batch function ignores the bots: no difference, interval covers 0 exactly
    table = _script("bot_strength").main(["1000", str(tmp_path)], batch_fn=fake_batch, bots=bots)
    row = table.iloc[0]
    assert row["deals"] == 1000 and row["lo95"] <= 0 <= row["hi95"]


def test_analysis_duckdb_script(runs, capsys):
    pytest.importorskip("duckdb")
    t = _script("kitty_sql_duckdb").main([str(runs["a"])])
    assert t["n"].dtype.kind == "i" and t["k"].dtype.kind == "i"  # counts, not 13.0000
    printed = capsys.readouterr().out.splitlines()
    assert printed[1].split()[1:3] == [str(t["n"].iloc[0]), str(t["k"].iloc[0])]
    raw = raw_hands(runs["a"])
    for r in t.to_dict("records"):
        m = raw["last_lead_kind"].astype(str) == r["lead_kind"]
        k = int(raw.loc[m, "kitty_captured"].sum())
        p, lo, hi = wilson_ref(k, int(m.sum()))
        assert r["n"] == m.sum() and r["p"] == pytest.approx(p)
        assert r["lo95"] == pytest.approx(lo) and r["hi95"] == pytest.approx(hi)


# --------------------------------------------------------------------------------------------
# real engine: matches tables and a real paired comparison


@pytest.fixture(scope="module")
def real_match_run(tmp_path_factory):
    if not _engine_available():
        pytest.skip("fastsheng.engine.hands (the engine) is not built yet")
    path = tmp_path_factory.mktemp("realm") / "run"
    spec = RunSpec(
        rules=get_rules("standard"),
        bots=("basic",) * 4,
        seed=3,
        n=60,
        batch_size=30,
        mode="matches",
    )
    run(spec, str(path), workers=0)
    return path


def test_match_tables_match_raw_parquet(real_match_run):
    parts = sorted((real_match_run / "matches").glob("part-*.parquet"))
    mt = pa.concat_tables([pq.read_table(p) for p in parts]).to_pandas()
    hands = raw_hands(real_match_run)
    rep = report.compute_report(report.load_run(real_match_run), figures=False)
    m = by_key(rep.table("matches").df, "metric")
    x = mt["hands"].to_numpy(float)
    check_mean(m["hands per match (mean)"], x, "estimate")
    winner = mt["winner"].astype(str).map({"team0": 0, "team1": 1}).fillna(-1).to_numpy(int)
    decided = winner >= 0
    fd_team = mt["first_dealer"].to_numpy(int) % 2
    check_prop(
        m["first dealer's team wins the match"],
        int((winner[decided] == fd_team[decided]).sum()),
        int(decided.sum()),
        "estimate",
    )
    check_prop(
        m["team 0 (seats 0, 2) wins the match"],
        int((winner[decided] == 0).sum()),
        int(decided.sum()),
        "estimate",
    )
    # the hands of a match are dependent: intervals over hands are cluster-robust by match
    head = by_key(rep.table("headline").df, "key")
    dealer_won = hands["winner"].astype(str).eq("dealer").to_numpy()
    r, lo, hi = cluster_ref(dealer_won, hands["match_id"])
    row = head["dealer_won"]
    assert row["estimate"] == pytest.approx(r) and row["n"] == len(hands)
    assert row["estimate_lo"] == pytest.approx(lo) and row["estimate_hi"] == pytest.approx(hi)
    assert "matches as clusters" in row["interval"]
    # hand1_dealer = final: the first dealer is the hand-1 caller, and the label says so
    assert "calling strength" in m["first dealer's team wins the match"]["detail"]
    # win probability by level: one observation per decided match and level,
    # the match's first hand at that level, whichever team deals it; in plain Python
    win_of = dict(zip(mt["match_id"].tolist(), winner.tolist(), strict=True))
    seen, counts = set(), {}
    for r in hands.sort_values(["match_id", "hand_no"]).itertuples():
        key = (r.match_id, str(r.level))
        if key in seen or win_of[r.match_id] < 0:
            continue
        seen.add(key)
        k, nn = counts.get(str(r.level), (0, 0))
        counts[str(r.level)] = (k + (win_of[r.match_id] == r.dealer % 2), nn + 1)
    tab = rep.table("win_prob_by_level")
    got = by_key(tab.df, "level")
    assert set(got) == set(counts)
    for level, (k, nn) in counts.items():
        check_prop(got[level], k, nn)
        # never both teams of one match in a row: at most one observation per match
        assert nn <= int(decided.sum())
    # under must-play 2 both teams deal at level 2: counting both made that row 0.5 by
    # construction; now it is the hand-1 dealer's team, a real question
    assert "2" in got and "Estimand" in tab.note
    # the subtitle does not claim a fixed level in matches mode
    assert "level 2;" not in rep.subtitle and not rep.subtitle.endswith("level 2")


def test_real_compare_level_tables(tmp_path):
    """Real engine, same seed: standard vs standard with the super level table. The deals and
    the play are the same (identical points), the level outcomes differ."""
    if not _engine_available():
        pytest.skip("fastsheng.engine.hands (the engine) is not built yet")
    std = get_rules("standard")
    paths = []
    for name, rules in (("std", std), ("sup", std.replace(level_table="super", name="sup"))):
        spec = RunSpec(rules=rules, bots=("basic",) * 4, seed=9, n=3000, batch_size=1000)
        run(spec, str(tmp_path / name), workers=0)
        paths.append(tmp_path / name)
    rep = report.compute_compare(
        report.load_run(paths[0]), report.load_run(paths[1]), figures=False
    )
    assert rep.meta["deal_check"]["same_share"] == 1.0
    d = by_key(rep.table("headline").df, "key")
    assert d["defenders_total"]["diff"] == 0
    assert d["defender_gain"]["diff_hi"] < 0
    same = report.compute_compare(
        report.load_run(paths[0]), report.load_run(paths[0]), figures=False
    )
    assert (same.table("headline").df["diff"] == 0).all()


def test_cli_report_and_compare(runs, tmp_path, capsys):
    from fastsheng.apps.cli import main

    assert main(["report", str(runs["a"]), "--out", str(tmp_path / "r")]) == 0
    assert (tmp_path / "r" / "index.html").is_file()
    assert (
        main(["compare", str(runs["a"]), str(runs["super_table"]), "-o", str(tmp_path / "c")]) == 0
    )
    assert (tmp_path / "c" / "headline.csv").is_file()
    assert "dealer side's levels" in capsys.readouterr().out
    assert main(["report", str(tmp_path / "nothing")]) == 2
    assert main(["compare", "--rules", "standard"]) == 2
    err = capsys.readouterr().err
    assert err.count("error: ") == 2 and "Traceback" not in err


def test_compare_matches_per_match_table(real_match_run, tmp_path):
    spec = RunSpec(
        rules=get_rules("super"), bots=("basic",) * 4, seed=3, n=60, batch_size=30, mode="matches"
    )
    other = tmp_path / "super"
    run(spec, str(other), workers=0)
    rep = report.compute_compare(
        report.load_run(real_match_run), report.load_run(other), figures=False
    )
    d = by_key(rep.table("match_differences").df, "metric")
    ha = pd.read_parquet(real_match_run / "matches").sort_values("match_id")["hands"]
    hb = pd.read_parquet(other / "matches").sort_values("match_id")["hands"]
    diff = ha.to_numpy(float) - hb.to_numpy(float)
    assert d["hands per match"]["diff"] == pytest.approx(diff.mean())
    assert d["hands per match"]["n"] == 60
    note = rep.table("headline").note
    assert "matches mode" in note and "rotated" in note and "cluster-robust" in note
    # per-hand differences: cluster-robust by match (the hands of a match are dependent)
    ra, rb = raw_hands(real_match_run), raw_hands(other)
    both = ra.merge(rb, on="hand_id", suffixes=("_a", "_b"))
    diff = both["defenders_total_a"].to_numpy(float) - both["defenders_total_b"].to_numpy(float)
    r, lo, hi = cluster_ref(diff, both["match_id_a"])
    row = by_key(rep.table("headline").df, "key")["defenders_total"]
    assert row["diff"] == pytest.approx(r)
    assert row["diff_lo"] == pytest.approx(lo) and row["diff_hi"] == pytest.approx(hi)


# --------------------------------------------------------------------------------------------
# Honest numbers: shares, intervals, notices and labels that say what they measure


def test_points_histogram_plots_shares_that_sum_to_one():
    """The histogram's bars are shares of hands per 5-point bin (summing to 1 per
    group), and the axis says so (it drew a density per point, 5x too low)."""
    from fastsheng.studies.report import plots

    x = np.array([0, 5, 5, 10, 80, 85, 120, 120, 120], dtype=float)
    fig = plots.points_hist_figure({"all": x, "some": x[:3]}, "points", "t")
    ax = fig.axes[0]
    heights = [p.get_data().values for p in ax.patches]
    assert len(heights) == 2
    for h in heights:
        assert h.sum() == pytest.approx(1.0)
    assert heights[0].max() == pytest.approx(3 / 9)  # three hands at 120 of nine
    assert "5-point bin" in ax.get_ylabel() and "sums to 1" in ax.get_ylabel()


def test_all_hands_stays_visible_under_the_trump_kind_that_holds_most_hands(runs, monkeypatch):
    """Suit-trump hands are most hands: a line of "all hands" drawn like the others vanished
    under theirs. It is a wide grey band beneath them, first in the legend."""
    from matplotlib.colors import to_rgba

    from fastsheng.studies.report import plots

    drawn = {}
    real = plots.points_hist_figure

    def kept(groups, xlabel, title, total=None):
        drawn["fig"], drawn["total"] = real(groups, xlabel, title, total=total), total
        return drawn["fig"]

    monkeypatch.setattr(plots, "points_hist_figure", kept)
    report.compute_report(report.load_run(runs["a"]))
    assert drawn["total"] == "all hands"
    ax = drawn["fig"].axes[0]
    lines = {p.get_label().split(" (n=")[0]: p for p in ax.patches}
    assert list(lines)[0] == "all hands" and "suit" in lines
    band, suit = lines["all hands"], lines["suit"]
    assert band.get_linewidth() > 2 * suit.get_linewidth() and band.get_zorder() < suit.get_zorder()
    assert to_rgba(band.get_edgecolor()) != to_rgba(suit.get_edgecolor())


def test_intervals_stay_visible_when_shown():
    """No interval collapsed by rounding, no negative zero, tiny p-values as < 1e-15,
    MDE n/a where the paired SD is 0."""
    t = report.Table(
        "x",
        "x",
        pd.DataFrame(
            {
                "metric": ["a", "b", "c"],
                "unit": ["share", "share", "points"],
                "estimate": [0.002, -0.0003, 0.0],
                "estimate_lo": [0.00195, -0.0005, 0.0],
                "estimate_hi": [0.00205, -0.0001, 1.2e-5],
                "p_value": [0.0, 1e-20, 0.0432],
                "mde": [float("nan"), 0.0004, 2.5],
            }
        ),
    )
    shown = report.display_frame(t)
    cells = shown["estimate (95% CI)"].tolist()
    for cell in cells:
        est, lo, hi = re.fullmatch(r"(\S+) \[(\S+), (\S+)\]", cell).groups()
        assert lo != hi, cell
    assert cells[0].startswith("0.2") and cells[0].endswith("%]")
    assert "-0.0%" not in cells[1] and cells[1].count("-") == 3  # excludes 0: all negative
    assert cells[2].startswith("0")  # not "0 [0, 0]"
    assert shown["p_value"].tolist() == ["< 1e-15", "< 1e-15", "0.043"]
    assert shown["mde"].tolist()[0] == "n/a"


def test_zero_failures_get_a_bound_not_zero_width():
    """0 failed throws in many throws: the failure rate's interval is [0, Wilson upper],
    not [0, 0]."""
    from fastsheng.studies.report.metrics import METRICS, estimate_row

    h = pd.DataFrame({"throws": np.full(1000, 2), "failed_throws": np.zeros(1000, int)})
    row = estimate_row(METRICS["failure_rate"], h)
    assert row["estimate"] == 0 and row["estimate_lo"] == 0
    assert row["estimate_hi"] == pytest.approx(wilson_ref(0, 2000)[2])
    # failed throws per hand, all 0: at most 1 - 0.025^(1/n) of hands fail (about 3.689 / n),
    # each at most 25 times (one throw per trick), so the bound is 25 times that, not 1 times
    row = estimate_row(METRICS["failed_throws"], h)
    q = 1 - 0.025 ** (1 / 1000)
    assert row["estimate_lo"] == 0 and row["estimate_hi"] == pytest.approx(25 * q)
    # a kitty bonus all 0: scaled by the largest bonus the run's rules allow (80 kitty points
    # times standard's largest multiplier, 26 for a tractor of 12 pairs), not by 5 points
    from fastsheng.rules import get_rules

    h = pd.DataFrame({"kitty_bonus": np.zeros(1000, int)})
    row = estimate_row(METRICS["kitty_bonus"], h, rules=get_rules("standard"))
    assert row["estimate_hi"] == pytest.approx(80 * 26 * q)
    assert row["estimate_hi"] > 400 * 5 * q
    super_ = estimate_row(METRICS["kitty_bonus"], h, rules=get_rules("super"))
    assert super_["estimate_hi"] == pytest.approx(80 * 48 * q)  # linear: 4k, k = 12 pairs
    # without the rules the largest bonus is unknown: no upper bound, and the row says why
    unknown = estimate_row(METRICS["kitty_bonus"], h)
    assert unknown["estimate_lo"] == 0 and math.isnan(unknown["estimate_hi"])
    assert "unknown" in unknown["warning"]
    # a penalty is signed (a defender's failed throw lowers the total): bounded on both sides
    h = pd.DataFrame({"penalty": np.zeros(1000, int)})
    pen = estimate_row(METRICS["penalty"], h, rules=get_rules("standard"))
    assert pen["estimate_lo"] == pytest.approx(-10 * 300 * q)  # 10 per card, 300 cards back
    assert pen["estimate_hi"] == pytest.approx(10 * 300 * q)
    none = estimate_row(METRICS["penalty"], h, rules=get_rules("renda"))  # no penalty at all
    assert none["estimate_lo"] == none["estimate_hi"] == 0


def test_every_mean_metric_has_a_range():
    """Every mean of the report bounds a sample without variation by the range one hand's value
    can take (never the smallest nonzero value): known for every preset's rules."""
    from fastsheng.rules import get_rules, list_presets

    means = [m for m in report.METRICS.values() if m.kind == "mean"]
    assert means and all(m.bounds is not None for m in means)
    for name in list_presets():
        rules = get_rules(name)
        for m in means:
            lo, hi = m.value_range(rules)
            assert math.isfinite(lo) and math.isfinite(hi) and lo <= 0 <= hi, (name, m.key)
            # only a penalty can be 0 in every hand: rules without one (none, half_stake)
            assert hi > 0 or (m.key == "penalty" and rules.throw_penalty in ("none", "half_stake"))
    standard = get_rules("standard")
    assert report.METRICS["kitty_points"].value_range(standard) == (0, 80)
    assert report.METRICS["trick_points"].value_range(standard) == (0, 200)
    assert report.METRICS["throws"].value_range(standard) == (0, 25)
    assert report.METRICS["mult_per_capture"].value_range(standard) == (0, 26)
    # standard's total: 200 card points + 2080 kitty bonus + 3000 of dealer-side penalties
    assert report.METRICS["defenders_total"].value_range(standard) == (0, 5280)
    # levels by the table: dealer +3 at most; defenders +1 per 40 points from 120 to 5280
    assert report.METRICS["signed_change"].value_range(standard) == (-(1 + 5160 // 40), 3)


def test_compare_identical_runs_mde_not_applicable(runs):
    rep = report.compute_compare(
        report.load_run(runs["a"]), report.load_run(runs["a_again"]), figures=False
    )
    t = rep.table("headline")
    assert t.df["mde"].isna().all()  # no pair differs: no SD to plan with (was 0.00)
    assert set(report.display_frame(t)["mde"]) == {"n/a"}
    # and no interval of zero width: the rate bound of 0 differing hands within each metric's
    # range (it was [0, 0]), so no identical pair of runs "differs" and none claims exactly 0
    df = t.df
    assert (df["diff"] == 0).all() and (df["pairs_differing"] == 0).all()
    assert (df["diff_lo"] < 0).all() and (df["diff_hi"] > 0).all()
    assert not df["excludes_0"].any() and (df["p_value"] == 1).all()
    won = df.set_index("key").loc["dealer_won"]
    n = int(won["n"])
    assert won["diff_hi"] == pytest.approx(1 - 0.0125 ** (1 / n))  # a share: each within [0, 1]
    lc = rep.table("level_change").df
    assert (lc["diff_lo"] < 0).all() and (lc["diff_hi"] > 0).all()


@pytest.fixture(scope="module")
def simulated_pairs():
    """Standard vs super over the same 40,000 deals (real engine), canonical tables."""
    if not _engine_available():
        pytest.skip("fastsheng.engine.hands (the engine) is not built yet")
    from fastsheng.engine.hands import play_batch

    out = []
    for name in ("standard", "super"):
        rules = get_rules(name)
        parts = [play_batch(rules, ("expert",) * 4, 5, b, 10_000)["hands"] for b in range(4)]
        out.append(report.canonical_hands(pa.concat_tables(parts).to_pandas(), rules))
    return out


@pytest.mark.parametrize("key,n", [("kitty_decides", 300), ("kitty_bonus", 300)])
def test_paired_interval_covers_on_simulator_data_at_small_n(simulated_pairs, key, n):
    """Many paired samples of n hands drawn from one big simulated comparison, whose
    full-sample mean difference is the truth: compare's interval covers it (the percentile
    bootstrap it used covered 0.83 for "decided by the kitty" at n = 300)."""
    from fastsheng.studies import stats
    from fastsheng.studies.report.metrics import METRICS, support

    m = METRICS[key]
    rules = (get_rules("standard"), get_rules("super"))
    a, b = (np.asarray(m.value(h), float) for h in simulated_pairs)
    truth = float((a - b).mean())
    rng = np.random.default_rng(2024)
    reps = 1000
    hits = 0
    for _ in range(reps):
        idx = rng.integers(0, a.size, n)
        xa, xb = a[idx], b[idx]  # as compare's paired_row: the range under both runs' rules
        d = stats.paired_diff(xa, xb, support=support(m, [xa, xb], rules), step=m.step)
        hits += d.ci.covers(truth)
    assert hits / reps >= 0.92, hits / reps


def test_rare_paired_difference_is_scaled_by_the_rules_range():
    """Two runs whose kitty bonus is 0 in every hand: the paired difference is bounded by the
    largest bonus one hand can take under the runs' rules (80 kitty points x 26 = 2,080 under
    standard), not by the range the runs show (all 0, which gave +- 5 points x q); with two
    rules, by the larger of the two; with rules not known, no bound (NaN), never a narrower
    one."""
    from fastsheng.studies.report.metrics import METRICS, paired_row

    m, n = METRICS["kitty_bonus"], 300
    std = get_rules("standard")
    zero = pd.DataFrame({"kitty_bonus": np.zeros(n)})
    q = 1 - 0.025 ** (1 / n)  # each mean's exact one-sided bound at 2.5%: no event in n hands
    row = paired_row(m, zero, zero.copy(), rules=(std, std))
    assert row["diff"] == 0 and row["pairs_differing"] == 0
    assert row["diff_hi"] == pytest.approx(2080 * q) and row["diff_lo"] == pytest.approx(-2080 * q)
    assert row["diff_hi"] > 10 * 3.689 / n * 100  # the observed range's bound was about 0.04
    linear = std.replace(kitty_multiplier="linear")  # 48 for the largest tractor: 3,840
    row = paired_row(m, zero, zero.copy(), rules=(std, linear))
    assert row["diff_hi"] == pytest.approx(3840 * q)
    row = paired_row(m, zero, zero.copy(), rules=(std, None))
    assert np.isnan(row["diff_lo"]) and np.isnan(row["diff_hi"]) and not row["excludes_0"]
    assert "unknown" in row["warning"]
    # the observed range is a safety net: a value beyond the rules' range still widens it
    big = pd.DataFrame({"kitty_bonus": np.r_[np.zeros(n - 1), 5000.0]})
    row = paired_row(m, big, zero, rules=(std, std))
    assert row["diff_hi"] > 5000 * (1 - 0.0125 ** (1 / n))


def test_rare_large_effect_is_covered_with_the_rules_range():
    """A variant that adds a kitty bonus of 5 to 2,000 points in about 1 hand of 300 (the
    baseline has none), n = 300: compare's interval, bounded by the rules' range, covers the
    true mean difference in at least 95% of the samples; bounded by the range the sample shows
    (the old support: all 0 widened by the 5-point step) it misses every sample in which no
    hand differs (about 37% of them)."""
    from fastsheng.studies import stats
    from fastsheng.studies.report.metrics import METRICS, paired_row

    m, n, reps = METRICS["kitty_bonus"], 300, 600
    std = get_rules("standard")
    rng = np.random.default_rng(11)
    sizes = np.array([5.0, 100.0, 400.0, 2000.0])
    truth = sizes.mean() / n
    zero = pd.DataFrame({"kitty_bonus": np.zeros(n)})
    new = old = 0
    for _ in range(reps):
        xa = np.where(rng.random(n) < 1 / n, rng.choice(sizes, n), 0.0)
        row = paired_row(m, pd.DataFrame({"kitty_bonus": xa}), zero, rules=(std, std))
        new += row["diff_lo"] <= truth <= row["diff_hi"]
        lo, hi = min(xa.min(), 0.0), max(xa.max(), 0.0)
        seen = (lo - 5.0, hi + 5.0) if lo == hi else (lo, hi)
        ci = stats.paired_diff(xa, np.zeros(n), support=seen, step=m.step).ci
        old += ci.covers(truth)
    assert new / reps >= 0.95, new / reps
    assert old / reps < 0.8, old / reps


def test_forest_plot_standardized_with_caveat(runs):
    """The forest plot draws standardized differences (difference / pooled SD), finite
    where B's mean is 0 or tiny, and carries the multiple-comparisons caveat."""
    from fastsheng.studies.report import plots

    rep = report.compute_compare(
        report.load_run(runs["a"]), report.load_run(runs["super_table"]), figures=True
    )
    d = rep.table("headline").df
    a, b = raw_hands(runs["a"]), raw_hands(runs["super_table"])
    gain_a = np.where(a["winner"].astype(str) == "dealer", a["level_change"], 0).astype(float)
    gain_b = np.where(b["winner"].astype(str) == "dealer", b["level_change"], 0).astype(float)
    pooled = math.sqrt((gain_a.var(ddof=1) + gain_b.var(ddof=1)) / 2)
    row = by_key(d, "key")["dealer_gain"]
    assert row["std_diff"] == pytest.approx((gain_a - gain_b).mean() / pooled)
    fig = next(f for f in rep.figures if f.name == "paired_diffs")
    assert "Bonferroni" in fig.note
    tiny = pd.DataFrame(
        {
            "metric": ["zero mean", "tiny mean"],
            "mean_b": [0.0, 1e-7],
            "std_diff": [0.1, -0.05],
            "std_diff_lo": [0.05, -0.08],
            "std_diff_hi": [0.15, -0.02],
        }
    )
    ax = plots.forest_figure(tiny, "t").axes[0]
    xs = np.concatenate([np.asarray(line.get_xdata(), float).ravel() for line in ax.lines])
    assert np.all(np.abs(xs[np.isfinite(xs)]) < 1)  # no 142,406% from dividing by B's mean
    assert "Bonferroni" in ax.get_title()


def fake_batch_other_dealer(rules, bots, seed, batch, size, **kw):
    """Like fake_batch, but the dealer of every 50th hand moves one seat (as a rule that picks
    the dealer differently would): the cards are the same, the deal is not."""
    out = fake_batch(rules, bots, seed, batch, size, **kw)
    h = out["hands"]
    dealer = h["dealer"].to_numpy().copy()
    dealer[::50] = (dealer[::50] + 1) % 4
    return {"hands": h.set_column(h.schema.get_field_index("dealer"), "dealer", pa.array(dealer))}


def test_compare_deal_check_includes_the_dealer(runs, tmp_path):
    """Compare's deal check looks at the dealer too (it compared first_seat only and
    said 100% identical when 1.42% of the dealers differed)."""
    spec = RunSpec(
        rules=get_rules("standard"), bots=("basic",) * 4, seed=1, n=4000, batch_size=1000
    )
    run(spec, str(tmp_path / "other"), workers=0, batch_fn=fake_batch_other_dealer)
    rep = report.compute_compare(
        report.load_run(runs["a"]), report.load_run(tmp_path / "other"), figures=False
    )
    deal = rep.meta["deal_check"]
    assert "dealer" in deal["columns"]
    assert deal["same_dealer_share"] == pytest.approx(1 - 80 / 4000)
    assert deal["same_share"] < 1.0
    assert "only 98.00%" in rep.table("headline").note
    setup = by_key(rep.table("setup").df, "")
    assert "98.0000%" in setup["same cards and dealer (columns checked)"]["A"]


def test_notice_on_every_output(runs, tmp_path, capsys):
    """The incomplete-dataset notice (from the dataset check): on the page, in the headline, in
    every CSV and in report.json."""
    notice = "incomplete: 3 of 4 batches"
    out = tmp_path / "rep"
    rep = report.report_command(runs["a"], out, notice=notice)
    assert notice in capsys.readouterr().out
    assert notice in (out / "index.html").read_text()
    assert json.loads((out / "report.json").read_text())["notice"] == notice
    for t in rep.tables:
        first = (out / f"{t.name}.csv").read_text().splitlines()[0]
        assert first == f"# notice: {notice}"
        assert len(pd.read_csv(out / f"{t.name}.csv", comment="#")) == len(t.df)
    cmp = report.compare_command([runs["a"], runs["a_again"]], out=tmp_path / "c", notice=notice)
    assert cmp.notice == notice and notice in (tmp_path / "c" / "index.html").read_text()
    # without a notice the CSVs are plain
    report.report_command(runs["a"], tmp_path / "plain", quiet=True)
    assert not (tmp_path / "plain" / "headline.csv").read_text().startswith("#")


def test_adding_a_section_is_one_function(runs, tmp_path, monkeypatch):
    """A section is a function of the context added to REPORT_SECTIONS: its table gets an HTML
    section, a navigation link and a CSV with no further code."""
    from fastsheng.studies.report import sections
    from fastsheng.studies.report.metrics import Metric

    extra = Metric("big_total", "hands with a total of 120 or more", "share", "proportion",
                   ("defenders_total",), lambda h: h["defenders_total"] >= 120)  # fmt: skip

    def panel(ctx):
        t = sections.grouped_table("panel", "A new panel", [extra], ctx.hands, "trump_kind")
        return [t]

    monkeypatch.setattr(sections, "REPORT_SECTIONS", (*sections.REPORT_SECTIONS, panel))
    monkeypatch.setattr("fastsheng.studies.report.single.REPORT_SECTIONS", sections.REPORT_SECTIONS)
    rep = report.report_command(runs["a"], tmp_path / "r", quiet=True)
    df = rep.table("panel").df
    raw = raw_hands(runs["a"])
    nt = raw["trump"].astype(str) == "NT"
    big = raw["defenders_total"].to_numpy() >= 120
    check_prop(by_key(df, "trump_kind")["no trump"], int(big[nt].sum()), int(nt.sum()), "estimate")
    page = (tmp_path / "r" / "index.html").read_text()
    assert 'id="panel"' in page and 'href="#panel"' in page
    assert (tmp_path / "r" / "panel.csv").is_file()


def test_report_page_states_the_conventions(runs, tmp_path):
    """Hands mode's conventions and which level column each table uses are on the page."""
    rep = report.report_command(runs["a"], tmp_path / "r", quiet=True)
    page = (tmp_path / "r" / "index.html").read_text()
    assert "random seat" in page and "later-hand rules" in page and "fixed by --level" in page
    assert "levels_climbed" in page and "raw level-table value" in page
    assert "level-table value" in rep.table("level_change").title
    sim = (Path(__file__).resolve().parents[1] / "docs" / "sim.md").read_text()
    for text in (sim,):
        assert "random seat" in text and "later-hand rules" in text and "levels_climbed" in text


# --------------------------------------------------------------------------------------------
# item 6: every number quoted in docs/analysis.md is printed by a script in analysis/


def _doc_outputs() -> dict[str, list[str]]:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "analysis.md").read_text()
    blocks = re.findall(r"<!-- output of: (\S+) -->\n```\n(.*?)```", doc, re.S)
    return {script: [ln for ln in body.splitlines() if ln.strip()] for script, body in blocks}


def _norm(line: str) -> str:
    return " ".join(line.split())


def _check_quote(script: str, printed: str) -> None:
    lines = {_norm(ln) for ln in printed.splitlines()}
    quoted = _doc_outputs()[script]
    assert quoted
    for ln in quoted:
        assert _norm(ln) in lines, f"docs/analysis.md quotes a line {script} does not print: {ln}"


def test_docs_quote_only_scripts_that_exist():
    root = Path(__file__).resolve().parents[1]
    outputs = _doc_outputs()
    assert set(outputs) == {
        "analysis/variant_balance.py",
        "analysis/interval_coverage.py",
        "analysis/control_variates.py",  # checked by tests/test_sweep.py
        "analysis/sweep_example.py",  # checked by tests/test_sweep.py
        "analysis/rare_effect_coverage.py",  # checked by tests/test_sweep.py
    }
    assert all((root / s).is_file() for s in outputs)


def test_docs_pairing_example_is_what_variant_balance_prints(tmp_path, capsys):
    """The pairing example of docs/analysis.md (switches that differ, variance ratios) is the
    output of analysis/variant_balance.py with its defaults (it said 'only the level table' and
    ratios of 'over 100' and 14, which no script printed)."""
    if not _engine_available():
        pytest.skip("fastsheng.engine.hands (the engine) is not built yet")
    _script("variant_balance").main([], out=tmp_path, workers=0)
    _check_quote("analysis/variant_balance.py", capsys.readouterr().out)


@pytest.mark.slow
def test_docs_coverage_table_is_what_interval_coverage_prints(capsys):
    """About 20 s: the coverage figures of docs/analysis.md are the script's output."""
    if not _engine_available():
        pytest.skip("fastsheng.engine.hands (the engine) is not built yet")
    _script("interval_coverage").main([])
    _check_quote("analysis/interval_coverage.py", capsys.readouterr().out)


def test_shares_shown_as_percentages_even_without_unit_column(runs):
    """The dealer-side win table does not show its unit column; its shares are still shown as
    percentages (one unit per column: shares in %, the rest in their own unit)."""
    rep = report.compute_report(report.load_run(runs["a"]), figures=False)
    shown = report.display_frame(rep.table("dealer_win"))
    assert all(c.endswith("%]") for c in shown["estimate (95% CI)"])
    kitty = report.display_frame(rep.table("kitty"))
    units = rep.table("kitty").df["unit"].tolist()
    for cell, unit in zip(kitty["estimate (95% CI)"], units, strict=True):
        assert cell.endswith("%]") == (unit == "share"), (cell, unit)


def test_every_cjk_term_on_a_page_or_figure_has_a_latin_gloss():
    """A machine without CJK fonts draws 炒底 as boxes: every CJK term in the text the studies
    put on their pages and figures (their string literals, docstrings aside) stands beside its
    pinyin or English ("chaodi 炒底 (overcall after burial)")."""
    import ast

    import fastsheng.studies

    cjk = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
    gloss = {"炒底": "chaodi", "双升": "Shengji"}  # a new term: its pinyin here, and on the page
    bare = []
    for path in sorted(Path(fastsheng.studies.__file__).parent.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            if id(node) in docstrings:
                continue
            text = node.value
            for m in cjk.finditer(text):
                word = gloss.get(m.group())
                before, after = text[: m.start()], text[m.end() :]
                if word is None or not (
                    before.endswith(f"{word} ") or after.startswith(f" ({word}")
                ):
                    bare.append(f"{path.name}:{node.lineno}: {text!r}")
    assert not bare, "\n".join(bare)
