"""fastsheng.studies.realism: the panel's figures on a handmade table whose answers are known, and
the trump-lead reading checked against the hands' traces."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from fastsheng.cards import is_joker, parse_card, parse_cards, rank_of, suit_of
from fastsheng.engine.hands import decode_traces, play_batch
from fastsheng.rules import get_rules
from fastsheng.studies import realism

STANDARD = get_rules("standard")  # the defenders take over from 80


def handmade():
    """Four hands, listed out of hand_id order (the join must not rely on it)."""
    hands = pd.DataFrame(
        {
            "hand_id": [10, 3, 7, 42],
            "dealer": [0, 1, 2, 3],
            "trump": ["S", "NT", "H", "D"],
            "level": ["2", "5", "K", "A"],
            "kitty_points_dealt": [15, 5, 20, 25],
            "kitty_points_buried": [10, 0, 5, 25],
            "kitty_captured": [True, False, True, False],
            "trick_points": [70, 40, 100, 75],
            "kitty_bonus": [20, 0, 10, 0],
            "penalty": [0, 0, 0, 0],
            "defenders_total": [90, 40, 110, 75],
            "throws": [2, 0, 1, 0],
            "failed_throws": [1, 0, 0, 0],
            "throw_risk": [0.5, 0.0, 0.25, 0.0],  # the leaders' own estimates
            "winner": ["defenders", "dealer", "defenders", "dealer"],
        }
    )
    # (hand_id, trick, leader, leader's cards); the other seats hold trumps, to catch a reader
    # that looks at the wrong seat
    leads = [
        (10, 0, 0, "3S"),  # the dealer leads trump: not a defender
        (10, 1, 1, "AH AH"),  # a defender, side suit
        (10, 2, 3, "2H"),  # a defender leads the level rank: trump -> counts
        (3, 0, 1, "AS"),  # no trump: the dealer
        (3, 1, 0, "AS"),  # a defender, side suit (no trump suit)
        (3, 5, 2, "BJ"),  # trick 6: outside tricks 1-5
        (7, 4, 1, "4H 4H"),  # trick 5, a defender leads the trump suit -> counts
        (42, 0, 3, "SJ"),  # the dealer
        (42, 1, 1, "5D"),  # the dealer's partner
        (42, 2, 0, "KC"),  # a defender, side suit
    ]
    cols = {"hand_id": [], "trick": [], "leader": [], **{f"cards_{s}": [] for s in range(4)}}
    for hid, trick, leader, cards in leads:
        cols["hand_id"].append(hid)
        cols["trick"].append(trick)
        cols["leader"].append(leader)
        led = parse_cards(cards)
        for s in range(4):
            cols[f"cards_{s}"].append(led if s == leader else [parse_card("BJ")] * len(led))
    tricks = pa.table(
        {
            "hand_id": pa.array(cols["hand_id"], pa.uint64()),
            "trick": pa.array(cols["trick"], pa.uint8()),
            "leader": pa.array(cols["leader"], pa.uint8()),
            **{f"cards_{s}": pa.array(cols[f"cards_{s}"], pa.list_(pa.uint8())) for s in range(4)},
        }
    )
    return hands, tricks


def test_panel_on_handmade_hands():
    hands, tricks = handmade()
    p = realism.realism_panel(hands, STANDARD, tricks).set_index("key")
    assert list(p.index) == list(realism.METRICS)
    expected = {
        "kitty_points_dealt": 65 / 4,
        "kitty_points_buried": 40 / 4,
        "kitty_captured": 2 / 4,
        "kitty_decides": 1 / 4,  # hand 10: 70 -> dealer side up, 90 with the bonus -> take over
        "throws_per_hand": 3 / 4,
        "hands_with_throw": 2 / 4,
        "failed_per_throw": 1 / 3,
        "hands_with_failed_throw": 1 / 4,
        "failed_vs_expected": 1 / 0.75,  # 1 failure where 0.75 were expected
        "defender_early_trump": 2 / 4,
        "dealer_side_wins": 2 / 4,
    }
    for key, value in expected.items():
        assert p.loc[key, "estimate"] == pytest.approx(value), key
        assert p.loc[key, "lo"] <= value <= p.loc[key, "hi"], key
    assert p.loc["failed_per_throw", "n"] == 3  # throws, not hands
    assert (p.drop(index=["failed_per_throw", "failed_vs_expected"])["n"] == 4).all()
    assert p.loc["kitty_captured", "method"] == "wilson"


def test_early_trump_flags_per_hand_in_hands_order():
    hands, tricks = handmade()
    flags = realism.early_trump_lead_by_defenders(hands, tricks)
    assert flags.tolist() == [True, False, True, False]
    assert realism.early_trump_lead_by_defenders(hands, tricks.to_pandas()).tolist() == [
        True,
        False,
        True,
        False,
    ]


def test_runs_without_throw_risk_have_no_calibration_row():
    hands, tricks = handmade()
    p = realism.realism_panel(hands.drop(columns=["throw_risk"]), STANDARD, tricks)
    assert "failed_vs_expected" not in set(p["key"])
    hands["throw_risk"] = 0.0  # bots that keep no estimate: n/a, not a division by zero
    row = realism.realism_panel(hands, STANDARD, tricks).set_index("key")
    assert row.loc["failed_vs_expected", "n"] == 0
    assert not np.isfinite(row.loc["failed_vs_expected", "estimate"])


def test_panel_without_tricks_has_no_trump_lead_row():
    hands, _ = handmade()
    p = realism.realism_panel(hands, STANDARD)
    assert "defender_early_trump" not in set(p["key"])
    assert len(p) == len(realism.METRICS) - 1


def test_no_failed_throw_still_gets_an_upper_bound():
    hands, _ = handmade()
    hands["failed_throws"] = 0
    row = realism.realism_panel(hands, STANDARD).set_index("key")
    assert row.loc["failed_per_throw", "estimate"] == 0
    assert row.loc["failed_per_throw", "hi"] > 0.3  # 0 of 3 throws bounds little


@pytest.mark.parametrize(
    "card, trump, level, expected",
    [
        ("BJ", 4, 0, True),
        ("SJ", 0, 5, True),
        ("7C", 4, 5, True),  # level rank 7 (index 5) in no trump
        ("7C", 1, 0, False),
        ("3H", 1, 0, True),  # trump suit H
        ("AD", 4, 0, False),
    ],
)
def test_lead_is_trump(card, trump, level, expected):
    got = realism.lead_is_trump(np.array([parse_card(card)]), np.array([trump]), np.array([level]))
    assert bool(got[0]) is expected


def test_trump_leads_agree_with_the_traces():
    """The vectorised reading against a plain loop over every traced hand."""
    out = play_batch("standard", "random", 9, 0, 300, level="random", tricks=True, trace=True)
    hands = out["hands"].to_pandas()
    fast = realism.early_trump_lead_by_defenders(hands, out["tricks"])
    slow = []
    for tr in decode_traces(out["traces"]):
        level = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"].index(
            tr["level"]
        )
        trump_ev = next(e for e in tr["events"] if e["type"] == "trump")
        suit = "SHCD".index(trump_ev["trump"]) if trump_ev["trump"] else None
        dealer = trump_ev["dealer"]
        tricks = [e for e in tr["events"] if e["type"] == "trick"][:5]
        hit = False
        for t in tricks:
            c = t["plays"][0][0]
            trump = is_joker(c) or rank_of(c) == level or suit_of(c) == suit
            hit |= (t["leader"] - dealer) % 2 == 1 and trump
        slow.append(hit)
    assert fast.tolist() == slow
    assert 0 < sum(slow) < len(slow)  # the random bot leads trump as a defender now and then


def test_panel_table_side_by_side():
    hands, tricks = handmade()
    a = realism.realism_panel(hands, STANDARD, tricks)
    b = realism.realism_panel(hands, STANDARD)
    t = realism.panel_table({"A": a, "B": b})
    assert list(t.columns) == ["metric", "unit", "A", "B", "warning"]
    assert len(t) == len(realism.METRICS)
    row = t.set_index("metric").loc[realism.METRICS["defender_early_trump"][0]]
    assert row["A"].startswith("50% [") and row["B"] == "n/a"


# --------------------------------------------------------------------------------------------
# The realism section of `fastsheng report`


@pytest.mark.parametrize("tricks", [True, False])
def test_report_realism_section_agrees_with_the_panel(tmp_path, tricks):
    from fastsheng.sim.runner import RunSpec, run
    from fastsheng.studies.report.runs import load_run
    from fastsheng.studies.report.single import compute_report

    spec = RunSpec(
        rules=STANDARD,
        bots=("random", "expert", "random", "expert"),  # trump leads and throws both happen
        seed=4,
        n=600,
        batch_size=250,  # three parts, the last one truncated
        level="random",
        tricks=tricks,
    )
    run(spec, str(tmp_path / "r"), workers=0)
    rep = compute_report(load_run(tmp_path / "r"), figures=False)
    section = rep.table("realism").df.set_index("key")
    # the same hands, straight from the engine
    sizes = (250, 250, 100)
    tables = [
        play_batch(STANDARD, spec.bots, 4, b, k, batch_size=250, level="random", tricks=True)
        for b, k in enumerate(sizes)
    ]
    hands = pd.concat([t["hands"].to_pandas() for t in tables], ignore_index=True)
    trick_table = pa.concat_tables([t["tricks"] for t in tables])
    panel = realism.realism_panel(hands, STANDARD, trick_table).set_index("key")
    same = {
        "kitty_buried": "kitty_points_buried",
        "kitty_captured": "kitty_captured",
        "kitty_flips_all": "kitty_decides",
        "throws": "throws_per_hand",
        "throw_hand": "hands_with_throw",
        "failure_rate": "failed_per_throw",
        "failed_hand": "hands_with_failed_throw",
        "failed_vs_expected": "failed_vs_expected",  # the calibration row docs/bots.md promises
        "dealer_won": "dealer_side_wins",
    }
    if tricks:
        same["defender_early_trump"] = "defender_early_trump"
        assert 0 < section.loc["defender_early_trump", "estimate"] < 1
    else:
        assert "defender_early_trump" not in section.index
    assert set(section.index) == set(same)
    for key, panel_key in same.items():
        assert section.loc[key, "estimate"] == pytest.approx(panel.loc[panel_key, "estimate"]), key
        assert section.loc[key, "n"] == panel.loc[panel_key, "n"], key
        for end in ("lo", "hi"):
            assert section.loc[key, f"estimate_{end}"] == pytest.approx(panel.loc[panel_key, end])


# --------------------------------------------------------------------------------------------
# Small-n honesty: few hands give wide, not wrong, intervals


def test_no_failure_where_0_95_were_expected_is_bounded_by_3_88():
    """0 failures against 0.95 expected: the exact Poisson bound [0, 3.689 / 0.95], not the
    normal interval's [0, 0]."""
    hands, _ = handmade()
    hands["failed_throws"] = 0
    hands["throw_risk"] = [0.5, 0.0, 0.45, 0.0]
    row = realism.realism_panel(hands, STANDARD).set_index("key").loc["failed_vs_expected"]
    assert row["estimate"] == 0 and row["lo"] == 0
    assert row["hi"] == pytest.approx(3.883, abs=1e-3)
    assert "only 0 failures" in row["warning"]
    cell = realism.panel_table({"A": realism.realism_panel(hands, STANDARD)})
    cell = cell.set_index("metric").loc[realism.METRICS["failed_vs_expected"][0]]
    assert cell["A"] == "0.0 [0.0, 3.9]" and "A: only 0 failures" in cell["warning"]


@pytest.fixture(scope="module")
def expert_risks():
    """The failures expert (v4) expects hand by hand, standard rules, 20,000 hands: the panel's
    default size (lineup_panel); about 1.5 s."""
    from fastsheng.engine.hands import simulate_hands

    h = simulate_hands("standard", "expert", 2026, 20_000, level="random").to_pandas()
    return h["throw_risk"].to_numpy(np.float64)


@pytest.mark.parametrize("hands", [5_000, 20_000])  # bench_realism's and lineup_panel's sizes
def test_calibration_covers_on_the_bots_own_estimates(expert_risks, hands):
    """Failures drawn from the bots' own estimates (each hand fails with its throw_risk, so the
    true ratio is 1): the interval covers 1 in at least 95% of 2,000 draws (the normal interval
    covered 0.80 at 5,000 hands and 0.91 at 20,000)."""
    risk = expert_risks[:hands]
    assert 0.5 < risk.sum() < 20  # a handful of expected failures: the small-n case
    live = risk[risk > 0]
    rng = np.random.default_rng(np.random.SeedSequence(17, spawn_key=(hands,)))
    draws = rng.random((2000, live.size)) < np.minimum(live, 1.0)
    covered = [realism.calibration(d.astype(float), live).covers(1.0) for d in draws]
    assert np.mean(covered) >= 0.95


def test_panel_table_keeps_a_narrow_interval_visible():
    """[0, 0.00074] is not "0.00 [0.00, 0.00]"."""
    panel = pd.DataFrame(
        {
            "key": ["kitty_points_buried", "kitty_captured"],
            "metric": ["points buried in the final kitty", "defenders capture the kitty"],
            "unit": ["points (mean)", "share of hands"],
            "estimate": [0.0, 0.0],
            "lo": [0.0, 0.0],
            "hi": [0.00074, 0.0000184],
            "n": [20_000, 200_000],
            "method": ["exact", "wilson"],
            "warning": ["", ""],
        }
    )
    t = realism.panel_table({"A": panel})
    assert t["A"].tolist() == ["0.00000 [0.00000, 0.00074]", "0.0000% [0.0000%, 0.0018%]"]
    assert t["warning"].tolist() == ["", ""]


def test_an_all_zero_mean_is_bounded_by_the_largest_value_a_hand_can_take():
    """Buried points all 0 over 4 hands: a hand may still bury up to 80 points (8 kitty cards of
    10), so the bound is 80 x (1 - 0.025^(1/4)), not 5 (the smallest nonzero value) x that; a
    hand may throw up to 25 times (one lead a trick)."""
    hands, _ = handmade()
    hands["kitty_points_buried"] = 0
    hands["throws"] = 0
    hands["failed_throws"] = 0
    panel = realism.realism_panel(hands, STANDARD).set_index("key")
    q = 1 - 0.025 ** (1 / 4)
    row = panel.loc["kitty_points_buried"]
    assert row["lo"] == 0 and row["hi"] == pytest.approx(80 * q)
    assert row["hi"] > 5 * -np.log(0.025) / 4  # above the old step-scaled bound
    assert panel.loc["throws_per_hand", "hi"] == pytest.approx(25 * q)


@pytest.mark.slow
@pytest.mark.parametrize("rules, hands", [("standard", 200_000), ("renda", 20_000)])
def test_calibration_covers_at_the_documented_sizes(rules, hands):
    """Failures drawn from expert's own estimates (true ratio 1) at docs/bots.md's 200,000
    hands under `standard` (about 70 expected failures) and at the panel's 20,000 under
    `renda` (about 600): coverage at least 0.95 of 1,000 draws. About 13 s and 1 s."""
    from fastsheng.engine.hands import simulate_hands

    h = simulate_hands(rules, "expert", 2026, hands, level="random").to_pandas()
    live = h["throw_risk"].to_numpy(np.float64)
    live = live[live > 0]
    rng = np.random.default_rng(np.random.SeedSequence(17, spawn_key=(hands,)))
    covered = []
    for _ in range(10):
        draws = rng.random((100, live.size)) < np.minimum(live, 1.0)
        covered += [realism.calibration(d.astype(float), live).covers(1.0) for d in draws]
    assert np.mean(covered) >= 0.95


def test_report_realism_section_is_cluster_robust_in_matches_mode(tmp_path):
    """The section's note promises cluster-robust intervals with the match as the cluster in
    matches mode; it used the i.i.d. ones. About 3 s."""
    from fastsheng.sim.runner import RunSpec, run
    from fastsheng.studies.report.metrics import clustered
    from fastsheng.studies.report.runs import load_run
    from fastsheng.studies.report.single import compute_report

    spec = RunSpec(rules=STANDARD, bots=("basic",) * 4, seed=3, n=20, batch_size=10, mode="matches")
    run(spec, str(tmp_path / "m"), workers=0)
    loaded = load_run(tmp_path / "m")
    rep = compute_report(loaded, figures=False)
    t = rep.table("realism")
    assert "cluster-robust" in t.note
    df = t.df.set_index("key")
    assert set(df.loc[df["n"] > 0, "interval"]) == {"cluster-robust, matches as clusters"}
    h = loaded.hands
    dealer_won = h["winner"].astype(str).to_numpy() == "dealer"
    e = clustered(dealer_won.astype(float), None, h["match_id"].to_numpy())
    assert df.loc["dealer_won", "estimate"] == pytest.approx(e.estimate)
    assert df.loc["dealer_won", "estimate_lo"] == pytest.approx(e.lo)
