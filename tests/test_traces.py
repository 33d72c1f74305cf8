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
from fastsheng.cards import RANKS
from fastsheng.engine.hands import decode_traces, format_trace, play_batch, trace_hand
from fastsheng.rules import get_rules, list_presets

PRESETS = list_presets()
MIXES = [
    ("random", "random", "random", "random"),
    ("basic", "random", "basic", "random"),
    ("_chaos", "basic", "_chaos", "expert"),
    ("expert", "basic", "expert", "basic"),
]


def _points(cards) -> int:
    return sum({3: 5, 8: 10, 11: 10}.get(c % 13, 0) for c in cards if c < 52)


def trump_name(trump):
    return "NT" if trump is None else trump


def fallback_trump(rules, level: str, kitty: list[int]):
    """Trump of a later hand nobody called (docs/rules.md §10.3), or "?" for random_kitty."""
    nd = rules.no_declaration
    suit = lambda c: None if c >= 52 else "SHCD"[c // 13]  # noqa: E731
    if nd == "kitty1":
        return suit(kitty[0])
    if nd == "kitty3":
        return suit(kitty[2])
    if nd == "kitty3_skip_jokers":
        return next((suit(c) for c in kitty[2:] if c < 52), None)
    if nd == "no_trump":
        return None
    if nd == "flip_level":
        lv = RANKS.index(level)
        for c in kitty:
            if c < 52 and c % 13 == lv:
                return suit(c)

        def pip(c):  # doubled: 10 high, A = 1, J/Q/K a half
            r = c % 13
            return 2 * (r + 2) if r <= 8 else (2 if r == 12 else 1)

        tie = {"S": 0, "H": 1, "D": 2, "C": 3}
        best = min((c for c in kitty if c < 52), key=lambda c: (-pip(c), tie[suit(c)]))
        return suit(best)
    return "?"


def replay(trace: dict, rules) -> dict:
    """Replay one trace through the reference; assert every rule. Returns a summary."""
    level = trace["level"]
    first_hand = trace["first_hand"]
    events = trace["events"]
    deal_at = max(i for i, e in enumerate(events) if e["type"] == "deal")
    deal = events[deal_at]
    deck, first = deal["deck"], deal["first_seat"]
    assert sorted(deck) == sorted(c for c in range(54) for _ in range(2)), "not a double deck"
    hands = [Counter() for _ in range(4)]
    for j in range(100):
        hands[(first + j) % 4][deck[j]] += 1
    kitty = Counter(deck[100:])
    kitty_dealt_points = _points(deck[100:])
    history: list[tuple[int, list[int]]] = []
    dealer = trump = None
    trump_set = None
    ctx = None
    tricks = []
    result = None
    overcalls = 0
    kitty_trump = None
    for ev in events[deal_at + 1 :]:
        kind = ev["type"]
        if kind == "show":
            seat, dealt = ev["seat"], ev["dealt"]
            held = Counter(deck[j] for j in range(dealt) if (first + j) % 4 == seat)
            assert not Counter(ev["cards"]) - held, "a show of cards not held"
            assert reference.can_declare(rules, level, history, seat, ev["cards"], first_hand), (
                f"show not allowed: {ev} after {history}"
            )
            if ev["action"] == "overcall":
                overcalls += 1
            history.append((seat, ev["cards"]))
        elif kind == "trump":
            if trump_set in ("kitty", "none") and ev["set"] == "overcall":
                pass  # 炒底 over a trump from the kitty: keep kitty_trump for later shows
            else:
                kitty_trump = trump_name(ev["trump"]) if ev["set"] in ("kitty", "none") else None
            if ev["set"] in ("kitty", "none") and trump_set is None:
                assert not first_hand and not history
                expected = fallback_trump(rules, level, deck[100:])
                assert expected == "?" or expected == ev["trump"], (expected, ev)
                assert (ev["set"] == "none") == (rules.no_declaration == "no_trump")
            dealer, trump, trump_set = ev["dealer"], ev["trump"], ev["set"]
            ctx = reference.Context(rules, level=level, trump=trump)
            if ev["set"] in ("declared", "overcall"):
                call = reference.standing_call(
                    rules, level, history, first_hand, kitty_trump=kitty_trump
                )
                assert call is not None
        elif kind == "chaodi":
            seat = ev["seat"]
            assert not Counter(ev["cards"]) - hands[seat], "a 炒底 show of cards not held"
            assert reference.can_declare(
                rules, level, history, seat, ev["cards"], False, kitty_trump=kitty_trump
            ), f"炒底 not allowed: {ev}"
            if ev["action"] == "overcall":
                overcalls += 1
            history.append((seat, ev["cards"]))
        elif kind == "bury":
            seat = ev["seat"]
            full = hands[seat] + kitty
            buried = Counter(ev["cards"])
            assert sum(buried.values()) == 8
            assert not buried - full, "buried cards not held"
            hands[seat] = full - buried
            kitty = buried
            assert sum(hands[seat].values()) == 25
        elif kind == "trick":
            leader = ev["leader"]
            plays = ev["plays"]
            attempted = ev["attempted"]
            assert not Counter(attempted) - hands[leader], "lead of cards not held"
            ctx.lead_kind(attempted)  # raises IllegalPlay for two suits
            others = [sorted(hands[(leader + k) % 4].elements()) for k in (1, 2, 3)]
            actual = ctx.check_throw(attempted, others)
            assert sorted(actual) == sorted(plays[0]), (attempted, actual, plays[0])
            assert ev["failed"] == (len(actual) != len(attempted))
            hands[leader] -= Counter(plays[0])
            for k in (1, 2, 3):
                seat = (leader + k) % 4
                hand = sorted(hands[seat].elements())
                assert ctx.is_legal_follow(hand, plays[0], plays[k]), (
                    f"illegal follow by seat {seat}: {plays[k]} to {plays[0]} from {hand}"
                )
                hands[seat] -= Counter(plays[k])
            barred = ()
            if (
                ev["failed"]
                and rules.partner_no_trump_after_failed_throw
                and leader % 2 == dealer % 2
            ):
                idx = (dealer + 2 - leader) % 4
                barred = (idx,) if idx else ()
            w = ctx.trick_winner(plays, barred=barred)
            assert (leader + w) % 4 == ev["winner"], (plays, w, ev)
            assert ctx.trick_points(plays) == ev["points"]
            tricks.append(ev)
        elif kind == "result":
            result = ev
    assert result is not None and tricks
    assert all(sum(h.values()) == 0 for h in hands), "cards left in a hand"
    played = Counter()
    for t in tricks:
        for p in t["plays"]:
            played.update(p)
    assert played + kitty == Counter(c for c in range(54) for _ in range(2)), "cards not conserved"
    trick_pts_all = sum(t["points"] for t in tricks)
    assert trick_pts_all + _points(kitty.elements()) == 200
    # score
    defenders = 1 - dealer % 2
    trick_points = sum(t["points"] for t in tricks if t["winner"] % 2 == defenders)
    assert trick_points == result["trick_points"]
    last = tricks[-1]
    mult = ctx.kitty_multiplier(last["plays"][0])
    assert mult == result["kitty_mult"]
    bonus = _points(kitty.elements()) * mult if last["winner"] % 2 == defenders else 0
    assert bonus == result["kitty_bonus"]
    penalty = 0
    for t in tricks:
        if not t["failed"]:
            continue
        back = len(t["attempted"]) - len(t["plays"][0])
        amount = {
            "per_card": rules.throw_penalty_points * back,
            "flat": rules.throw_penalty_points,
        }.get(rules.throw_penalty, 0)
        penalty += amount if t["leader"] % 2 == dealer % 2 else -amount
    assert penalty == result["penalty"]
    total = max(0, trick_points + bonus + penalty)
    assert total == result["defenders_total"]
    side, n = reference.hand_levels(rules, total, overcalls)
    assert (side, n) == (result["winner"], result["levels"])
    assert result["next_dealer"] == reference.next_dealer(dealer, side)
    # deal features: each seat's 25 cards under the final trump (after any 炒底)
    trumps = [e for e in events[deal_at + 1 :] if e["type"] == "trump"]
    ctx0 = reference.Context(rules, level=level, trump=trumps[-1]["trump"])
    buries = [e for e in events[deal_at + 1 :] if e["type"] == "bury"]
    lv = RANKS.index(level)
    features = []
    for seat in range(4):
        cards = [deck[j] for j in range(100) if (first + j) % 4 == seat]
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
    return {
        "dealer": dealer,
        "trump": trump,
        "burier": buries[-1]["seat"],
        "final_caller": trumps[-1]["declarer"],
        "kitty_buried": _points(kitty.elements()),
        "kitty_dealt": kitty_dealt_points,
        "total": total,
        "features": features,
    }


def _replay_batch(preset, bots, seed, n, **kw):
    rules = get_rules(preset)
    out = play_batch(rules, bots, seed, 0, n, trace=True, check=True, **kw)
    traces = decode_traces(out["traces"])
    assert len(traces) == out["hands"].num_rows
    rows = out["hands"].to_pylist()
    for tr, row in zip(traces, rows, strict=True):
        s = replay(tr, rules)
        assert s["dealer"] == row["dealer"]
        assert s["total"] == row["defenders_total"]
        assert s["kitty_dealt"] == row["kitty_points_dealt"]
        assert (s["trump"] or "NT") == row["trump"]
        assert s["burier"] == row["burier"]
        assert s["final_caller"] == row["final_caller"]
        assert s["kitty_buried"] == row["kitty_points_buried"]
        for seat, f in enumerate(s["features"]):
            for name, value in f.items():
                assert row[f"{name}_{seat}"] == value, (name, seat, value, row)
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


@pytest.mark.parametrize("preset", PRESETS)
def test_replay_matches(preset):
    rules = get_rules(preset)
    out = play_batch(
        rules,
        ("_chaos", "basic", "random", "expert"),
        7,
        0,
        2,
        mode="matches",
        trace=True,
        check=True,
    )
    traces = decode_traces(out["traces"])
    for tr in traces:
        replay(tr, rules)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_replay_every_preset_slow(preset):
    for k, bots in enumerate(MIXES):
        _replay_batch(preset, bots, 5000 + k, 2500, level="random", first_hand=(k % 2 == 1))


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
