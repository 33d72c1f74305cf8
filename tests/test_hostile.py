"""Hostile cases of the open game: stale or edited offers, garbage given as cards,
positions that are no deal, bots failing in every way, seeds of the wrong type, and the C loop
left running with a signal pending. Each is refused in one line (or stopped), never trusted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import fastsheng as fs
from fastsheng.apps import cli
from fastsheng.cards import parse_cards
from fastsheng.engine.game import Action, Game
from fastsheng.engine.hands import simulate_hands
from fastsheng.errors import BotError, IllegalPlay

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

P = parse_cards


def to_decision(g: Game, *kinds: str) -> Game:
    while g.decision not in kinds:
        g.apply(g.bot_action("expert"))
    return g


def small_position(**kw) -> Game:
    """Seat 0 leads (dealer 0, trump spades, level 2) from two-card hands."""
    args = dict(
        rules="standard",
        level="2",
        trump="S",
        dealer=0,
        hands=["AH KH", "QH 3C", "5D 6D", "10D JD"],
        kitty="2D 3D 4D 7D 8D 9D QD KD",
    )
    args.update(kw)
    return Game.from_position(**args)


# ---------------------------------------------------------------------------------------------
# Game.apply: only the current offer is trusted


def test_a_kept_offer_is_checked_once_the_state_moved():
    g = to_decision(Game("standard", seed=1), "lead")
    kept = g.legal_actions()
    assert isinstance(kept, tuple)  # an offer cannot be edited in place
    g.apply(g.bot_action("expert"))  # the bot's lead: the kept offer is now stale
    seat, decision = g.to_act, g.decision
    stale = next(a for a in kept if a.cards[0] not in g.legal_cards())
    with pytest.raises(IllegalPlay):
        g.apply(stale)
    assert (g.to_act, g.decision, g.picked) == (seat, decision, ())  # nothing was applied


def test_a_bot_that_overwrites_its_offer_is_named_not_fastsheng():
    with pytest.raises(BotError) as e:
        simulate_hands("standard", ["expert", "userbots.hostile:OverwritesItsOffer"] * 2, 3, 20)
    msg = str(e.value)
    assert msg.startswith("bot userbots.hostile:OverwritesItsOffer (seat ") and "bug" not in msg
    assert "illegal action" in msg
    assert "must follow" in msg or "cannot be part of a legal follow" in msg


@pytest.mark.parametrize(
    "given, match",
    [
        ([12.9], r"not a card: 12\.9"),
        ("12", r"unknown card '12'"),
        ({}, r"not dict"),
        ([True], r"not a card: True"),
        (Action("card", (), 0), r"holds one card, not 0"),
        (Action("show", (12,), 1), r"'show' action does not fit seat 0's lead"),
        (Action("bury", (12,), 0), r"'bury' action does not fit"),
        (Action("done", (12,), 9), r"'done' closes the lead picked so far"),
    ],
)
def test_garbage_is_refused_in_one_line_and_changes_nothing(given, match):
    g = small_position()
    with pytest.raises(ValueError, match=match) as e:
        g.apply(given)
    assert "\n" not in str(e.value)
    assert (g.to_act, g.decision, g.picked, g.hand(0)) == (0, "lead", (), P("KH AH"))


def test_a_pass_or_an_empty_dict_is_no_answer_at_a_call():
    g = to_decision(Game("standard", seed=2), "declare")
    seat = g.to_act
    with pytest.raises(ValueError, match="not dict"):
        g.apply({})
    with pytest.raises(IllegalPlay, match="'lead' action does not fit"):
        g.apply(Action("lead", (), 0))
    assert g.to_act == seat and g.decision == "declare"
    g.apply([])  # the documented pass still passes


def test_cards_go_in_as_names_everywhere():
    g = small_position(tricks=[["AH", "QH", "5D", "10D"]])  # names in tricks (and hands, kitty)
    assert g.to_act == 0 and g.hand(0) == P("KH")
    g.apply("KH")  # a whole play as a string
    g.apply(["3C"])  # a list of names
    g.apply_card("6d")  # one card by name, any case
    assert g.decision == "follow" and g.to_act == 3
    g.apply(Action("follow", ("JD",), 0))  # an Action made by hand, checked
    assert g.phase == "done"


def test_a_bare_card_code_is_a_single_card_play():
    """A code 0..53 goes in wherever cards go in: apply(12) is apply([12]), numpy ints too."""
    import numpy as np

    g = small_position(tricks=[["AH", "QH", "5D", "10D"]])
    g.apply(P("KH")[0])
    g.apply(np.int64(P("3C")[0]))
    assert g.decision == "follow" and g.to_act == 2 and g.hand(1) == []
    for garbage, match in ((True, "not bool True"), (12.0, "not float 12.0"), (54, "code: 54")):
        with pytest.raises(ValueError, match=match):
            g.apply(garbage)
    with pytest.raises(IllegalPlay, match="does not hold"):
        g.apply(P("AS")[0])
    assert g.to_act == 2 and g.hand(2) == P("6D")


def test_refusals_name_cards_and_say_what_is_wrong():
    g = small_position(hands=["AH AH", "QH 3C", "5D 6D", "10D JD"], kitty="2D 3D 4D 7D 8D 9D QD KD")
    with pytest.raises(IllegalPlay, match="seat 0 holds only two AH; the play has 3"):
        g.apply("AH AH AH")
    g2 = small_position(hands=["AH KH", "QH 3C", "5D 6D", "10D JD"])
    with pytest.raises(IllegalPlay, match="seat 0 holds only one AH; the play has 2"):
        g2.apply("AH AH")
    with pytest.raises(IllegalPlay, match="does not hold 9S"):
        g2.apply("9S")
    g3 = small_position(tricks=[["AH", "QH", "5D", "10D"], ["KH", "3C", "6D", "JD"]])
    assert g3.phase == "done"
    with pytest.raises(IllegalPlay, match="the hand is over"):
        g3.apply_card("AS")


def test_a_bot_returning_a_float_code_is_refused():
    with pytest.raises(
        BotError, match=r"userbots.hostile:FloatCode \(seat 2\).*not a card: \d+\.4"
    ):
        simulate_hands(
            "standard", ["expert", "expert", "userbots.hostile:FloatCode", "expert"], 1, 5
        )


# ---------------------------------------------------------------------------------------------
# Game.from_position: a position is a physical deal, tricks are tricks


@pytest.mark.parametrize(
    "change, match",
    [
        (dict(hands=["AH KH 4H", "QH 3C", "5D 6D", "10D JD"]), r"same size.*not 3/2/2/2"),
        (dict(hands=["AH AH", "AH 3C", "5D 6D", "10D JD"]), r"AH appears 3 times \(2 in seat 0"),
        (dict(hands=["AH KH", "QH 3C", "2D 2D", "10D JD"]), r"2D appears 3 times.*1 in the kitty"),
        (dict(kitty="2D 3D 4D"), r"kitty: 8 cards, got 3"),
        (dict(level="random"), r"one level, a rank 2\.\.A"),
        (dict(tricks=[["AH", "QH", "5D"], ["10D"]]), r"tricks\[0\] has 3 plays"),
        (dict(tricks=[["AH QH 5D 10D"]]), r"tricks\[0\]\[0\] \(seat 0\): seat 0 does not hold"),
        (dict(tricks=[["AH", "3C", "5D", "10D"]]), r"tricks\[0\]\[1\] \(seat 1\): must follow"),
        (
            dict(tricks=[[[25], [23], [42], [47]], [[24], [27], [43], [48]], [[12]]]),
            r"tricks\[2\]: the hand is over",
        ),
        (dict(hands=[[0.5, 12], "QH 3C", "5D 6D", "10D JD"]), r"hands\[0\]: not a card: 0\.5"),
        (dict(seed=1.5), r"seed must be a non-negative int"),
    ],
)
def test_a_position_that_is_no_deal_is_refused(change, match):
    with pytest.raises(ValueError, match=match):
        small_position(**change)


HANG = textwrap.dedent(
    """
    import sys
    from fastsheng import _state
    from fastsheng.bots.names import BOT_INDEX
    from fastsheng.cards import full_deck
    from fastsheng.engine.game import Game
    from fastsheng.engine.positions import position_stream
    from fastsheng.rules import get_rules
    import random
    deck = full_deck()
    random.Random(1).shuffle(deck)
    hands = [deck[:30], deck[30:50], deck[50:75], deck[75:100]]   # unequal: no validation here
    rules = get_rules("standard")
    core = _state.GameCore()
    core.start_position(rules.core_fields(), [BOT_INDEX["expert-v1"]] * 4, 0xF,
                        position_stream(0), 0, 0, 1, hands, deck[100:], 0)
    g = Game._view(core, rules, 0)
    core.run()
    while g.phase != "done":
        g.apply(g.bot_action("search:k=4,cands=2"))
    print("finished")
    """
)


def test_the_core_cannot_spin_on_a_hand_shorter_than_the_lead():
    """Playing unequal hands (which from_position now refuses) once spun forever in C, with
    the GIL released and Ctrl-C ignored; the fallback loops are bounded. ~2 s."""
    proc = subprocess.run([sys.executable, "-c", HANG], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "finished" in proc.stdout, proc.stderr


def test_a_signal_stops_a_batch_inside_c():
    """A batch runs in one nogil call; Python's signal handlers still run every 1,024 hands,
    and what they raise (KeyboardInterrupt on Ctrl-C) stops the batch."""

    class Alarm(Exception):
        pass

    def ring(signum, frame):
        raise Alarm

    old = signal.signal(signal.SIGALRM, ring)
    t0 = time.perf_counter()
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        with pytest.raises(Alarm):
            simulate_hands("standard", "expert", seed=1, n=400_000, batch_size=400_000)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert time.perf_counter() - t0 < 2.0  # the batch itself takes several seconds
    # the next batch runs as ever
    assert simulate_hands("standard", "expert", seed=1, n=10).num_rows == 10


# ---------------------------------------------------------------------------------------------
# A bot's failure is one line naming the bot


@pytest.mark.parametrize(
    "bot, match",
    [
        (
            "RaisesInInit",
            r"bot 'userbots.hostile:RaisesInInit': RaisesInInit\(\) raised "
            r"RuntimeError: no config file",
        ),
        ("RefusesInInit", r"bot 'userbots.hostile:RefusesInInit'.*ValueError: bad setting"),
        (
            "RaisesInReset",
            r"bot userbots.hostile:RaisesInReset \(seat 1\) raised KeyError.*"
            r"in reset\(\) before hand 0",
        ),
        ("Exits", r"bot userbots.hostile:Exits \(seat 1\) raised SystemExit \(sys.exit\(3\)\)"),
    ],
)
def test_a_failing_bot_is_a_bot_error_naming_it(bot, match):
    with pytest.raises(BotError, match=match):
        simulate_hands("standard", ["expert", f"userbots.hostile:{bot}"] * 2, seed=1, n=3)


def test_a_failing_constructor_is_one_line_in_the_cli(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bots = "userbots.hostile:RaisesInInit,expert,expert,expert"
    assert cli.main(["sim", "-n", "10", "--bots", bots, "--quiet", "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: bot 'userbots.hostile:RaisesInInit'") and err.count("\n") == 1


def _cli(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-m", "fastsheng.apps.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )


@pytest.mark.parametrize(
    "bot, match",
    [
        ("userbots.parent_only:Bot", "could not be made in this process"),
        ("userbots.hostile:Exits", r"raised SystemExit \(sys.exit\(3\)\)"),
    ],
)
def test_a_bot_failing_on_a_worker_is_one_line_and_not_retried(tmp_path, bot, match):
    """Two spawned CLI runs, ~4 s each."""
    r = _cli(
        "sim",
        "-n",
        "20",
        "--workers",
        "1",
        "--seed",
        "1",
        "--bots",
        f"expert,{bot},expert,expert",
        "--out",
        str(tmp_path / "run"),
        "--quiet",
        cwd=tmp_path,
    )
    assert r.returncode == 1, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith(f"error: batch 0 failed: bot {bot} (seat 1)")
    assert __import__("re").search(match, lines[0]) and "exited with code" not in r.stderr


# ---------------------------------------------------------------------------------------------
# Seeds: one rule everywhere, whatever ran before


def test_a_float_seed_is_refused_even_after_its_int_ran():
    Game("standard", seed=1)  # fills the stream cache for seed 1
    for bad in (1.0, 1.5, "7", True, -1):
        with pytest.raises(ValueError, match="seed must be a non-negative int"):
            Game("standard", seed=bad)


def test_env_reset_takes_the_seeds_env_takes():
    pytest.importorskip("pettingzoo")
    from fastsheng.apps.env import raw_env

    e = raw_env(seed=3)
    for bad in (1.5, "7", True):
        with pytest.raises(ValueError, match="seed must be a non-negative int"):
            raw_env(seed=bad)
        with pytest.raises(ValueError, match="seed must be a non-negative int"):
            e.reset(seed=bad)
    e.reset(seed=7)
    assert e.game.hand(0) == fs.Game("standard", seed=7).hand(0)
