"""fastsheng.evaluate (a bot against another on paired, seat-swapped deals) and
analysis/evaluate_policy.py, its short caller, at a tiny n."""

from __future__ import annotations

import numpy as np

import fastsheng as fs
from fastsheng.engine.agents import RandomBot
from fastsheng.engine.game import Game
from fastsheng.studies import stats


def script():
    from analysis import evaluate_policy

    return evaluate_policy


def test_evaluate_is_public_api():
    assert "evaluate" in fs.__all__ and callable(fs.evaluate)


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
    again = fs.evaluate(mod.HighLowBot, 4)  # a pure function of the policy, rules, seed and n
    assert np.array_equal(again["per_deal_net"], net)


def _stepped(make_bot, seed, deal, seating):
    """The hand stepped through fs.Game (hand `deal` of the run), the bot at seats
    `seating`, `seating` + 2: its team's net levels and whether it won."""
    g = Game("standard", seed=seed, hand_id=deal)
    bots = {s: make_bot() for s in (seating, seating + 2)}
    while g.phase != "done":
        s = g.to_act
        if s in bots:
            g.apply(bots[s].act(g.observation(s), g.legal_actions()))
        else:
            g.apply(g.bot_action("expert"))
    row = g.result()
    won = (row["dealer"] % 2 == seating) == (row["winner"] == "dealer")
    return (row["levels"] if won else -row["levels"]), won


def test_evaluate_agrees_with_the_hands_stepped_one_by_one():
    """HighLowBot draws no random numbers, so the step API replays evaluate's hands exactly:
    per deal, the mean of the two seatings' net levels and of the two hands won."""
    mod = script()
    r = fs.evaluate(mod.HighLowBot, 3, seed=3)
    for deal in range(3):
        (a, wa), (b, wb) = (_stepped(mod.HighLowBot, 3, deal, s) for s in (0, 1))
        assert r["per_deal_net"][deal] == (a + b) / 2
        assert r["per_deal_won"][deal] == (wa + wb) / 2


def test_a_bot_against_itself_nets_zero_and_a_random_policy_loses():
    same = fs.evaluate("expert", 6, opponent="expert")
    assert np.all(same["per_deal_net"] == 0) and same["won"] == 0.5
    r = fs.evaluate(RandomBot(), 5, seed=2)  # an object works as well as a class
    assert r["net"] < 0 and r["won"] < 0.5


def test_an_evaluation_too_small_for_an_interval_says_n_a_not_nan():
    """One deal gives no interval: the text says n/a (the ladder's pair row holds NaN ends)."""
    import fastsheng as fs
    from fastsheng.studies.evaluation import evaluation_text

    text = evaluation_text(fs.evaluate("basic", n=1))
    assert "[n/a]" in text and "nan" not in text.lower()
