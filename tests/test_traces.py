"""Whole hands replayed through the plain-Python reference (fastsheng.reference).

Every hand the C core plays is traced (the deal, every show, the burial, every trick) and then
replayed here with the reference rules: every show allowed, every lead and follow legal, every
throw check, trick winner and score identical, cards conserved (108) and trick points + kitty
points = 200.
"""

from __future__ import annotations

from collections import Counter

import pytest

from fastsheng import reference
from fastsheng.cards import RANKS, points_of
from fastsheng.engine.hands import decode_traces, format_trace, play_batch, trace_hand
from fastsheng.reference import handflow
from fastsheng.rules import get_rules, list_presets

PRESETS = list_presets()
MIXES = [
    ("random", "random", "random", "random"),
    ("basic", "random", "basic", "random"),
    ("_chaos", "basic", "_chaos", "expert"),
    ("expert", "basic", "expert", "basic"),
]


def _points(cards) -> int:
    return sum(points_of(c) for c in cards)


def replay(trace: dict, rules, **settings) -> dict:
    """Replay one trace through the reference hand flow (fastsheng.reference.handflow, which
    raises at the first show, burial, lead or follow the rules do not allow) and assert that the
    core decided everything as the reference does. Returns a summary."""
    hand = handflow.replay(rules, trace, **settings)
    events = trace["events"]
    shows = [e for e in events if e["type"] in ("show", "chaodi")]
    assert [(e["seat"], e["cards"], e["action"], e["type"] == "chaodi") for e in shows] == [
        (s.seat, list(s.cards), s.action, s.after_burial) for s in hand.shows
    ]
    trumps = [e for e in events if e["type"] == "trump"]
    assert [(e["dealer"], e["trump"], e["set"], e["declarer"]) for e in trumps] == [
        tuple(t) for t in hand.trumps
    ]
    buries = [e for e in events if e["type"] == "bury"]
    assert sorted(buries[-1]["cards"]) == sorted(hand.kitty.elements())
    tricks = [e for e in events if e["type"] == "trick"]
    assert len(tricks) == len(hand.tricks)
    for ev, t in zip(tricks, hand.tricks, strict=True):
        assert (ev["leader"], sorted(ev["attempted"]), ev["failed"]) == (
            t.leader,
            list(t.attempted),
            t.failed,
        ), (ev, t)
        assert ev["plays"] == [list(p) for p in t.plays], (ev, t)
        assert (ev["winner"], ev["points"]) == (t.winner, t.points), (ev, t)
    result = hand.result()
    (core,) = [e for e in events if e["type"] == "result"]
    assert {k: v for k, v in core.items() if k != "type"} == {
        k: getattr(result, k) for k in core if k != "type"
    }
    # cards conserved: every card played once, the rest in the kitty
    played = Counter()
    for t in hand.tricks:
        for p in t.plays:
            played.update(p)
    assert played + hand.kitty == Counter(c for c in range(54) for _ in range(2)), "cards lost"
    assert sum(t.points for t in hand.tricks) + _points(hand.kitty.elements()) == 200
    # deal features: each seat's 25 cards under the final trump (after any 炒底)
    ctx0 = reference.Context(rules, level=result.level, trump=hand.trump)
    lv = RANKS.index(result.level)
    features = []
    for cards in hand.dealt_hands:
        units = ctx0.units(cards)
        features.append(
            {
                "trumps": sum(ctx0.is_trump(c) for c in cards),
                "pairs": sum(1 for k, _ in units if k == "pair")
                + sum(len(u) // 2 for k, u in units if k == "tractor"),
                "tractors": sum(1 for k, _ in units if k == "tractor"),
                "jokers": sum(c >= 52 for c in cards),
                "points": _points(cards),
                "level_cards": sum(c < 52 and c % 13 == lv for c in cards),
            }
        )
    return {"result": result, "features": features}


def _check_row(summary: dict, row: dict, *, matches: bool = False) -> None:
    """The reference's outcome is the simulator's row, column by column."""
    for name, value in summary["result"].columns().items():
        if matches and name == "levels_climbed":
            continue  # the match's real climb: checked against reference.handflow.Match
        assert row[name] == value, (name, value, row)
    for seat, f in enumerate(summary["features"]):
        for name, value in f.items():
            assert row[f"{name}_{seat}"] == value, (name, seat, value, row)


def _replay_batch(preset, bots, seed, n, **kw):
    rules = get_rules(preset)
    out = play_batch(rules, bots, seed, 0, n, trace=True, check=True, **kw)
    traces = decode_traces(out["traces"])
    assert len(traces) == out["hands"].num_rows
    rows = out["hands"].to_pylist()
    for tr, row in zip(traces, rows, strict=True):
        _check_row(replay(tr, rules), row)
    return out


@pytest.mark.parametrize("preset", PRESETS)
def test_replay_every_preset(preset):
    """≥ 1,000 hands per preset, mixed bots, random levels, later hands and hand 1."""
    per = 250
    for k, bots in enumerate(MIXES):
        _replay_batch(preset, bots, 1000 + k, per, level="random", first_hand=(k % 2 == 1))


@pytest.mark.parametrize("preset", PRESETS)
def test_replay_no_call_fallbacks(preset):
    """Nobody calls: the fallback of the rules sets trump (and hand 1 redeals)."""
    out = _replay_batch(preset, ("_mute", "_mute", "_mute", "_mute"), 31, 60, level="random")
    df = out["hands"].to_pandas()
    assert df["declarer"].isna().all()
    assert set(df["trump_set"]) == {"none" if preset in ("classic", "tournament") else "kitty"}
    out = _replay_batch(preset, ("_mute", "basic", "_mute", "_mute"), 31, 20, first_hand=True)
    assert (out["hands"].to_pandas()["dealer"] == 1).all() or get_rules(
        preset
    ).hand1_dealer == "random"


@pytest.mark.parametrize("preset", ["standard", "classic", "jokerbid"])
def test_replay_hand_1_that_nobody_ever_calls(preset):
    """Dealt again MAX_REDEALS times, then played with the seat dealt first as the dealer and
    the no-call fallback (the simulator's bound, not a rule)."""
    out = _replay_batch(preset, ("_mute",) * 4, 5, 3, first_hand=True)
    assert out["hands"].column("n_redeals").to_pylist() == [handflow.MAX_REDEALS] * 3


class ChaodiBot:
    """Never calls while the cards are dealt; after each burial shows whatever it may (炒底,
    rare with the built-in bots); otherwise uniform over the legal actions."""

    def reset(self, seat, rules, rng):
        self.rng = rng

    def act(self, observation, legal_actions):
        if observation.phase == "declare":
            return legal_actions[0]  # pass
        if observation.phase == "chaodi":
            return legal_actions[-1]
        return legal_actions[self.rng.randrange(len(legal_actions))]


@pytest.mark.parametrize("preset", ["super", "twenty"])
@pytest.mark.parametrize("callers", ["_mute", "random"])
def test_replay_chaodi(preset, callers):
    """炒底 over a called trump and over a trump from the kitty (super: overcall_after_burial =
    yes; twenty: if_declared, so never over the kitty's trump)."""
    bots = (callers, ChaodiBot, callers, ChaodiBot)
    out = _replay_batch(preset, bots, 3, 40, level="random")
    chaodi = out["hands"].column("n_chaodi").to_pylist()
    if preset == "twenty" and callers == "_mute":
        assert not any(chaodi)
    else:
        assert sum(n > 0 for n in chaodi) >= 5


def _replay_matches(rules, bots, seed, n):
    """Whole matches: every hand replayed with the level, dealer and hand-1 flag that
    reference.handflow.Match gives it, and the match's levels, climbs, winner and cap checked."""
    out = play_batch(rules, bots, seed, 0, n, mode="matches", trace=True, check=True)
    traces = decode_traces(out["traces"])
    rows = out["hands"].to_pylist()
    by_match: dict[int, list] = {}
    for tr, row in zip(traces, rows, strict=True):
        assert tr["hand_id"] == row["hand_id"]
        by_match.setdefault(row["match_id"], []).append((tr, row))
    finals = {m["match_id"]: m for m in out["matches"].to_pylist()}
    assert set(by_match) == set(finals)
    for match_id, hands in by_match.items():
        match = handflow.Match(rules, hands[0][0]["events"][0]["first_seat"])
        results = []
        for tr, row in hands:
            level, dealer, first = match.next_hand()
            before = (match.hand_no + 1, RANKS[match.levels[0]], RANKS[match.levels[1]])
            assert (row["hand_no"], row["level_team0"], row["level_team1"]) == before
            assert (tr["events"][0]["first_seat"], tr["first_hand"]) == (dealer, first)
            summary = replay(tr, rules, level=level, first_seat=dealer, first_hand=first)
            _check_row(summary, row, matches=True)
            results.append(summary["result"])
            assert row["levels_climbed"] == match.record(summary["result"])
        final = finals[match_id]
        assert (final["hands"], final["winner"], final["capped"], final["first_dealer"]) == (
            match.hand_no,
            match.winner,
            match.capped,
            results[0].dealer,
        )
        assert (final["level_team0"], final["level_team1"]) == tuple(RANKS[x] for x in match.levels)
    return out


@pytest.mark.parametrize("preset", PRESETS)
def test_replay_matches(preset):
    """5 whole matches per preset (about 75 hands, 0.5 s)."""
    _replay_matches(get_rules(preset), ("_chaos", "basic", "random", "expert"), 7, 5)


@pytest.mark.parametrize("preset", ["standard", "yingchun", "jifen"])
def test_replay_capped_matches(preset):
    """hand_cap ends the matches: the higher level wins, equal levels go by cap_tie."""
    rules = get_rules(preset).replace(hand_cap=4)
    out = _replay_matches(rules, ("expert", "basic", "expert", "basic"), 3, 6)
    assert out["matches"].column("capped").to_pylist() == [True] * 6


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_replay_every_preset_slow(preset):
    """4,000 hands per preset (about 40 s of CPU each, 7 minutes in all). It was 10,000 (about
    15 minutes) before the whole matches and the 炒底 bots below joined the slow set:
    they reach what more hands of the same bots rarely do (hand 1's calls and dealers, levels
    across hands, 炒底), for a tenth of the time."""
    for k, bots in enumerate(MIXES):
        _replay_batch(preset, bots, 5000 + k, 1000, level="random", first_hand=(k % 2 == 1))


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_replay_matches_slow(preset):
    """40 whole matches per preset, two line-ups (about 570 hands, 5 s of CPU each, 1 minute in
    all)."""
    rules = get_rules(preset)
    _replay_matches(rules, ("_chaos", "basic", "random", "expert"), 70, 20)
    _replay_matches(rules, ("expert", "random", "basic", "expert"), 71, 20)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["super", "twenty"])
def test_replay_chaodi_slow(preset):
    """400 hands with 炒底 bots per preset (about 6 s of CPU each)."""
    for k, callers in enumerate(("random", "_mute", "basic", "expert")):
        _replay_batch(preset, (callers, ChaodiBot, callers, ChaodiBot), 40 + k, 100, level="random")


def test_trace_hand_matches_batch_trace():
    out = play_batch("standard", "basic", 11, 3, 20, trace=True)
    batch_traces = decode_traces(out["traces"])
    for index in (0, 7, 19):
        tr = trace_hand("standard", "basic", 11, 3, index, 20)
        assert tr["events"] == batch_traces[index]["events"]
        assert tr["hand_id"] == 3 * 20 + index


def test_trace_hand_in_a_match():
    out = play_batch("standard", "basic", 5, 0, 2, mode="matches", trace=True)
    traces = decode_traces(out["traces"])
    hands = out["hands"].to_pylist()
    # hand 3 of match 1
    k = next(i for i, h in enumerate(hands) if h["match_id"] == 1 and h["hand_no"] == 3)
    tr = trace_hand("standard", "basic", 5, 0, 1, 2, mode="matches", hand_no=3)
    assert tr["events"] == traces[k]["events"]


def test_format_trace_prints_every_trick():
    tr = trace_hand("super", "expert", 3, 0, 5, 10)
    text = format_trace(tr)
    ntricks = sum(1 for e in tr["events"] if e["type"] == "trick")
    assert text.count("trick: seat") == ntricks
    assert "buries" in text and "total" in text
    assert tr["level"] in RANKS
