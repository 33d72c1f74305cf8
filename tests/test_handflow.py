"""fastsheng.reference.handflow, the plain-Python hand flow of docs/rules.md §10–§11, on hands
written here: each rule it enforces refuses what breaks it, and the fallbacks, the dealer rules
and the match bookkeeping give the values the page states. (tests/test_traces.py checks it
against the simulator on random hands and matches of every preset.)"""

from __future__ import annotations

import dataclasses
import random

import pytest

from fastsheng.cards import RANKS, full_deck, parse_cards
from fastsheng.engine.hands import trace_hand
from fastsheng.errors import IllegalPlay
from fastsheng.reference import handflow
from fastsheng.reference.handflow import Hand, Match, fallback_trump, random_kitty_dealer
from fastsheng.rules import get_rules

STANDARD = get_rules("standard")


def _kitty(text: str) -> list[int]:
    return parse_cards(text)


@pytest.mark.parametrize(
    ("preset", "kitty", "trump"),
    [
        ("standard", "3H 4S 5C 6D 7S 8S 9S 10S", "H"),  # kitty1: the first card
        ("standard", "SJ 4S 5C 6D 7S 8S 9S 10S", None),  # ... a joker: no trump
        ("super", "3H 4S 5C 6D 7S 8S 9S 10S", "C"),  # kitty3: the third card
        ("super", "3H 4S BJ 6D 7S 8S 9S 10S", None),
        ("renda", "3H 4S SJ BJ 7D 8S 9S 10S", "D"),  # kitty3_skip_jokers: the next non-joker
        ("renda", "3H 4S SJ BJ SJ BJ 7C 8S", "C"),
        ("classic", "3H 4S 5C 6D 7S 8S 9S 10S", None),  # no_trump
        ("huayun", "3H 4S 5C 2D 7S 2S 9S 10S", "D"),  # flip_level: the first level card
        ("huayun", "3H 4S 5C 6D 7S 8S 9C 10D", "D"),  # ... else the highest pip: 10 high
        ("huayun", "3H 4S 9C 9H 7S 8S AS KD", "H"),  # 9s tie: H before C (S > H > D > C)
        ("huayun", "JS QH 3C 3D AS KD JH QS", "D"),  # 3s tie: D before C; A = 1, J/Q/K a half
    ],
)
def test_fallback_trump(preset, kitty, trump):
    assert fallback_trump(get_rules(preset), "2", _kitty(kitty)) == trump


def test_random_kitty_needs_the_drawn_card_and_its_twin_deals():
    rules = get_rules("jokerbid")
    kitty = _kitty("3H 4S 5C 6D 7S 8S 9S SJ")
    assert fallback_trump(rules, "2", kitty, pick=3) == "D"
    assert fallback_trump(rules, "2", kitty, pick=7) is None
    with pytest.raises(ValueError, match="drawn card"):
        fallback_trump(rules, "2", kitty)
    hands = [parse_cards("AS"), parse_cards("6D"), parse_cards("KS"), parse_cards("QS")]
    assert random_kitty_dealer(hands, parse_cards("6D")[0], 0) == 1  # the other side: it deals
    assert random_kitty_dealer(hands, parse_cards("6D")[0], 3) == 3  # its own side: no change
    assert random_kitty_dealer(hands, parse_cards("5C")[0], 0) == 0  # nobody holds it


def test_deal_is_one_card_at_a_time_from_the_first_seat():
    deck = full_deck()
    random.Random(3).shuffle(deck)
    hands, kitty = handflow.deal(deck, 2)
    assert hands[2][:2] == [deck[0], deck[4]] and hands[3][0] == deck[1]
    assert kitty == deck[100:] and all(len(h) == 25 for h in hands)
    with pytest.raises(ValueError, match="double deck"):
        handflow.deal(deck[:-1] + [deck[0]], 0)


def _deck(seed: int = 7) -> list[int]:
    deck = full_deck()
    random.Random(seed).shuffle(deck)
    return deck


def _received(deck, first, seat, code):
    """The index in the deck of the first copy of `code` that `seat` receives, or None."""
    return next((j for j in range(100) if deck[j] == code and (first + j) % 4 == seat), None)


def _level_card(deck, first):
    """(seat, code, index) of the first level-2 card dealt to a seat."""
    j = next(j for j in range(100) if deck[j] < 52 and deck[j] % 13 == 0)
    return (first + j) % 4, deck[j], j


def test_a_show_needs_the_card_received_and_comes_in_the_asking_order():
    deck = _deck()
    seat, code, j = _level_card(deck, 0)
    hand = Hand(STANDARD, "2", deck, 0)
    with pytest.raises(IllegalPlay, match="does not hold"):
        hand.show(seat, [code], j)  # card j is not dealt yet after j cards
    assert hand.show(seat, [code], j + 1) == "declare"
    with pytest.raises(IllegalPlay, match="not asked now"):
        hand.show(seat, [code], j)  # after an earlier card than the last show
    with pytest.raises(IllegalPlay, match="not asked now"):
        hand.show(seat, [code], j + 1)  # asked once per card
    with pytest.raises(IllegalPlay, match="may not make a show"):
        hand.show((seat + 1) % 4, [], 100)  # nothing is no show


def test_a_later_hand_without_a_call_takes_the_fallback_and_the_dealer_buries():
    deck = _deck()
    hand = Hand(STANDARD, "2", deck, 1)
    assert hand.close_calls()
    assert (hand.dealer, hand.trump_set, hand.declarer) == (1, "kitty", None)
    assert hand.trump == fallback_trump(STANDARD, "2", deck[100:])
    held = sorted(hand.hands[1].elements())
    with pytest.raises(IllegalPlay, match="has the kitty"):
        hand.bury(2, held[:8])
    with pytest.raises(IllegalPlay, match="cannot bury"):
        hand.bury(1, held[:7])
    with pytest.raises(IllegalPlay, match="cannot bury"):
        hand.bury(1, held[:7] + sorted(hand.hands[0].elements())[:1])
    hand.bury(1, held[:8])
    assert hand.phase == "play"  # standard: no 炒底
    with pytest.raises(IllegalPlay, match="play phase"):
        hand.chaodi(2, [])
    assert sorted(hand.kitty.elements()) == held[:8]


def test_hand_1_without_a_call_is_dealt_again():
    hand = Hand(STANDARD, "2", _deck(1), 3, first_hand=True)
    assert not hand.close_calls()
    with pytest.raises(IllegalPlay, match="redeal phase"):
        hand.bury(3, [])
    hand.redeal(_deck(2))
    assert (hand.phase, hand.redeals, hand.first_seat) == ("deal", 1, 3)


def _trace(preset="standard", bots="basic", index=4):
    return trace_hand(preset, bots, 11, 0, index, 10, level="random")


def _edit(trace, kind, change, nth=0):
    """A copy of the trace with the nth event of `kind` changed by `change(event)`."""
    events = [dict(e) for e in trace["events"]]
    at = [i for i, e in enumerate(events) if e["type"] == kind][nth]
    change(events[at])
    return {**trace, "events": events}


def test_replay_plays_the_hand_the_core_played():
    tr = _trace()
    hand = handflow.replay(STANDARD, tr)
    result = hand.result()
    (core,) = [e for e in tr["events"] if e["type"] == "result"]
    assert (result.defenders_total, result.winner, result.next_dealer) == (
        core["defenders_total"],
        core["winner"],
        core["next_dealer"],
    )
    assert len(hand.tricks) == sum(e["type"] == "trick" for e in tr["events"])


def test_replay_refuses_a_burial_of_cards_not_held():
    tr = _trace()
    bury = next(e for e in tr["events"] if e["type"] == "bury")
    deal = tr["events"][0]
    hands, kitty = handflow.deal(deal["deck"], deal["first_seat"])
    stranger = next(c for c in range(54) if c not in hands[bury["seat"]] + kitty)

    def swap_buried(ev):
        ev["cards"] = bury["cards"][:7] + [stranger]

    with pytest.raises(IllegalPlay, match="cannot bury"):
        handflow.replay(STANDARD, _edit(tr, "bury", swap_buried))


def _play_phase(seed: int = 7, dealer: int = 0) -> Hand:
    hand = Hand(STANDARD, "5", _deck(seed), dealer)
    hand.close_calls()
    hand.bury(dealer, sorted(hand.hands[dealer].elements())[:8])
    return hand


def test_leads_and_follows_go_by_the_rules():
    hand = _play_phase()
    ctx, held = hand.ctx, sorted(hand.hands[0].elements())
    with pytest.raises(IllegalPlay, match="leads first"):
        hand.follow([held[0]])
    mixed = [held[0], next(c for c in held if ctx.effective_suit(c) != ctx.effective_suit(held[0]))]
    with pytest.raises(IllegalPlay):
        hand.lead(mixed)  # two effective suits
    with pytest.raises(IllegalPlay, match="cannot lead"):
        hand.lead([next(c for c in range(54) if c not in held)])
    # lead a single of a suit the next seat holds beside other suits: it must follow suit
    nxt = sorted(hand.hands[1].elements())
    lead = next(c for c in held if any(ctx.effective_suit(x) == ctx.effective_suit(c) for x in nxt))
    suit = ctx.effective_suit(lead)
    assert hand.lead([lead]) == [lead]
    with pytest.raises(IllegalPlay, match="may not follow"):
        hand.follow([next(c for c in nxt if ctx.effective_suit(c) != suit)])
    hand.follow([next(c for c in nxt if ctx.effective_suit(c) == suit)])
    with pytest.raises(IllegalPlay, match="under way"):
        hand.lead([held[-1]])


def test_replay_refuses_a_show_out_of_order_and_a_redeal_after_a_call():
    tr = _trace()
    shows = [e for e in tr["events"] if e["type"] == "show"]
    assert shows, "the traced hand has a call"

    def too_early(ev):
        ev["dealt"] = 0

    with pytest.raises(ValueError):
        handflow.replay(STANDARD, _edit(tr, "show", too_early))
    events = [e for e in tr["events"] if e["type"] != "trump"]
    at = next(i for i, e in enumerate(events) if e["type"] == "bury")
    redealt = {**tr, "events": events[:at] + [{"type": "redeal"}] + events[at:]}
    with pytest.raises(IllegalPlay, match="dealt again"):
        handflow.replay(STANDARD, redealt)


def _result(**fields):
    tr = _trace()
    base = handflow.replay(STANDARD, tr).result()
    return dataclasses.replace(base, **fields)


def test_match_climbs_stop_at_unwon_must_play_ranks_and_the_end_rank_wins():
    # standard: must-play 2, J, A (docs/rules.md §12)
    match = Match(STANDARD, 0)
    assert match.next_hand() == (RANKS.index("2"), 0, True)
    win = _result(dealer=0, winner="dealer", levels=3, next_dealer=2)
    assert match.record(win) == 3  # 2 won as the dealer side: 2 -> 5
    assert match.next_hand() == (RANKS.index("5"), 2, False)
    lose = _result(dealer=2, winner="defenders", levels=2, next_dealer=3)
    assert match.record(lose) == 0  # team 1 has not won 2 as the dealer side: it stays
    assert match.levels == [RANKS.index("5"), RANKS.index("2")]
    match.levels[0] = RANKS.index("10")
    assert match.record(_result(dealer=3, winner="dealer", levels=3, next_dealer=1)) == 3
    assert match.record(_result(dealer=1, winner="defenders", levels=3, next_dealer=2)) == 1
    assert match.levels[0] == RANKS.index("J")  # J is a must-play rank
    match.levels[0] = RANKS.index("A")
    match.won[0] |= 1 << RANKS.index("A")
    assert match.record(_result(dealer=2, winner="dealer", levels=2, next_dealer=0)) == 0
    assert match.winner == "team0" and not match.capped
    with pytest.raises(IllegalPlay, match="over"):
        match.next_hand()


@pytest.mark.parametrize(("preset", "winner"), [("yingchun", "team1"), ("jifen", "draw")])
def test_match_cap_with_equal_levels(preset, winner):
    """cap_tie: "dealer" gives the match to the side that deals next (reading), "draw" a draw."""
    rules = get_rules(preset).replace(hand_cap=1)
    match = Match(rules, 0)
    match.record(_result(dealer=0, winner="defenders", levels=0, next_dealer=1))
    assert (match.winner, match.capped, match.levels[0] == match.levels[1]) == (winner, True, True)
