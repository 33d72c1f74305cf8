"""analysis/evaluate_policy.py: a user policy against `expert` on paired deals, run at a tiny n."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from fastsheng import stats
from fastsheng.agents import RandomBot

DEAL_COLUMNS = ["dealer", "kitty_points_dealt"] + [
    f"{c}_{s}" for c in ("points", "jokers", "level_cards") for s in range(4)
]


def script():
    path = Path(__file__).resolve().parents[1] / "analysis" / "evaluate_policy.py"
    spec = importlib.util.spec_from_file_location("analysis_evaluate_policy", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_evaluate_policy_runs_and_reports_a_t_interval(capsys):
    mod = script()
    r = mod.main(["4"])
    out = capsys.readouterr().out
    assert "HighLowBot vs expert-v" in out and "net levels / hand" in out
    net = r["per_deal_net"]
    assert r["deals"] == len(net) == 4
    assert np.array_equal(net * 2, np.round(net * 2))  # the mean of two whole level changes
    e = stats.mean_t(net)
    assert (r["net"], r["net_lo"], r["net_hi"]) == (e.estimate, e.lo, e.hi)
    assert r["net_lo"] <= r["net"] <= r["net_hi"]
    again = mod.evaluate(mod.HighLowBot, 4)  # a pure function of the policy, rules, seed and n
    assert np.array_equal(again["per_deal_net"], net)


def test_both_seatings_get_the_same_cards_and_the_sign_follows_the_winner():
    mod = script()
    for deal in range(3):
        a, won_a, row_a = mod.play_hand(RandomBot, "standard", 3, deal, 0)
        b, won_b, row_b = mod.play_hand(RandomBot, "standard", 3, deal, 1)
        assert {c: row_a[c] for c in DEAL_COLUMNS} == {c: row_b[c] for c in DEAL_COLUMNS}
        for seating, (net, won, row) in enumerate([(a, won_a, row_a), (b, won_b, row_b)]):
            dealer_side = row["dealer"] % 2 == seating
            assert won == (dealer_side == (row["winner"] == "dealer"))
            assert net == (row["levels"] if won else -row["levels"])
            assert row["bots"].split(",")[seating] == "user"


def test_a_random_policy_loses_to_expert():
    """Deterministic for the seed: uniform random play loses levels to the expert bot."""
    r = script().evaluate(RandomBot, 5, seed=2)
    assert r["net"] < 0 and r["won"] < 0.5
