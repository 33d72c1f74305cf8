"""`fastsheng play`: the hand shown trumps first, illegal plays refused with their rule, calls,
burial, tricks and the score shown, the hand saved so `fastsheng replay` prints it; end to end
under a pseudo-terminal (pexpect) with prompt_toolkit's completion."""

from __future__ import annotations

import io
import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from fastsheng.apps import cli
from fastsheng.apps.terminal import (
    Console,
    Table,
    hand_groups,
    load_saved,
    play_command,
    replay_game,
    replay_saved,
    save_hand,
    sort_cards,
)
from fastsheng.cards import RANKS, format_cards, parse_cards
from fastsheng.engine.game import Game
from fastsheng.rules import get_rules, list_presets

FASTSHENG = str(Path(sys.executable).with_name("fastsheng"))


# ---------------------------------------------------------------------------------------------
# The order of a hand


def test_trumps_first_in_the_rules_order():
    cards = parse_cards("3S KS AS 2D 2C 3H AH 2S 2H SJ BJ 5C 10D")
    # level 2, trump H: jokers, the trump suit's level card, the other level cards, hearts
    assert format_cards(sort_cards(cards, 0, 1)) == "BJ SJ 2H 2S 2C 2D AH 3H AS KS 3S 5C 10D"
    # no trump: jokers then the four level cards
    assert format_cards(sort_cards(cards, 0, 4)) == "BJ SJ 2S 2H 2C 2D AS KS 3S AH 3H 5C 10D"
    # calls still open: only the jokers and level cards are known trumps
    groups = hand_groups(cards, 0, None)
    assert [name for name, _ in groups] == ["trumps", "spades", "hearts", "clubs", "diamonds"]
    assert format_cards(groups[0][1]) == "BJ SJ 2S 2H 2C 2D"


@pytest.mark.parametrize("preset", list_presets())
def test_groups_are_the_cores_effective_suits(preset):
    """Each group holds exactly the cards the core treats as that effective suit."""
    for k in range(6):
        g = Game(preset, seed=3, hand_id=k, level="random")
        while g.phase in ("declare", "bury"):
            g.apply(g.bot_action("expert"))
        o = g.observation(k % 4)
        names = ("spades", "hearts", "clubs", "diamonds", "trumps")
        for name, cards in hand_groups(o.hand, o.level, o.trump):
            assert {names[o.eff[c]] for c in cards} == {name}, (preset, k)
        assert sorted(sort_cards(o.hand, o.level, o.trump)) == sorted(o.hand)


# ---------------------------------------------------------------------------------------------
# A table driven by a script (no terminal)


class Scripted(Console):
    """A console whose answers come from `answer(table, prompt)`; records what is shown."""

    def __init__(self, answer):
        self.answer = answer
        self.lines: list[str] = []
        self.table: Table | None = None
        self._session = None

    def say(self, text: str = "") -> None:
        self.lines.extend(str(text).split("\n"))

    def ask(self, prompt: str, words) -> str:
        self.lines.append(prompt)
        return self.answer(self.table, prompt, words)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def table(answer, rules="super", seed=5, hand_id=0, seat=0, level="2") -> tuple[Table, Scripted]:
    con = Scripted(answer)
    t = Table(Game(rules, seed=seed, hand_id=hand_id, level=level), seat, ["expert-v1"] * 4, con)
    con.table = t
    return t, con


def illegal_single_follow(g: Game) -> int | None:
    """A card of the hand that is not a legal one-card follow now (None: every card is)."""
    legal = set(g.legal_cards())
    return next((c for c in g.hand(g.to_act) if c not in legal), None)


def test_illegal_follow_is_refused_with_its_rule_then_auto_finishes(tmp_path):
    said: dict[str, object] = {}

    def answer(t: Table, prompt: str, words) -> str:
        g = t.g
        if prompt.startswith("call"):
            return ""
        if "illegal" not in said and g.decision == "follow" and len(g.legal_cards()) < 25:
            bad = illegal_single_follow(g)
            if bad is not None and prompt.startswith("your play (1 card)"):
                said["illegal"] = format_cards([bad])
                said["words"] = words("")
                said["legal"] = [format_cards([c]) for c in g.legal_cards()]
                return format_cards([bad]).lower()
        if "illegal" in said and "help" not in said:
            said["help"] = True
            return "?"
        return "auto"

    t, con = table(answer)
    t.play()
    text = con.text
    assert "illegal" in said, "the scripted hand offered no illegal follow"
    assert re.search(r"illegal: must follow suit: .*docs/rules.md §5", text)
    # the completion offers exactly the legal cards (and the commands)
    assert sorted(w for w in said["words"] if w not in ("help", "hand", "auto", "quit")) == sorted(
        said["legal"]
    )
    assert "your legal follows" in text  # `?` after the refusal
    # every trick shown with its plays, winner and points; the score from the hand's row
    row = t.g.result()
    assert len(re.findall(r"^trick \d+: seat \d", text, re.M)) == row["n_tricks"]
    assert len(re.findall(r"-> seat \d.* wins \d+ points; defenders have \d+", text)) == 17
    last = re.findall(r"defenders have (\d+)", text)[-1]
    assert int(last) == row["trick_points"]
    assert f"score: defenders {row['defenders_total']}" in text
    assert ("you win" in text) == (row["winner"] == "defenders")  # seat 0 defends this hand

    path = save_hand(t, get_rules("super"), 5, 0, "2", tmp_path / "h.json")
    data = load_saved(path)
    assert data["row"] == row
    # the moves are the hand: played again they give the same events and row
    again = replay_game(data)
    assert again.trace() == data["trace"]["events"] == t.g.trace()
    assert again.result()["defenders_total"] == row["defenders_total"]
    assert any(m["by"] == "human" and m["decision"] == "declare" for m in data["moves"])
    shown = replay_saved(path)
    assert shown.startswith("hand 0  rules super  level 2  bots human,expert-v1")
    assert shown.count("\ntrick: seat") == row["n_tricks"]


def test_the_person_buries_eight_cards():
    # seat 3 deals hand 0 of seed 5 (not a first hand: the dealer is known before the deal)
    buried: list[int] = []

    def answer(t: Table, prompt: str, words) -> str:
        g = t.g
        if prompt.startswith("call"):
            return ""
        if prompt.startswith("bury"):
            pool = sorted(g.observation(3).hand + g.observation(3).kitty)
            if not buried:
                buried.extend(pool[:7])
                return format_cards(pool[:7])  # one short
            buried[:] = pool[:8]
            return format_cards(pool[:8])
        return "auto"

    t, con = table(answer, seat=3)
    t.play()
    assert "you take the kitty:" in con.text
    assert "illegal: the kitty is 8 cards; 7 given" in con.text
    bury = [e for e in t.g.trace() if e["type"] == "bury"]
    assert bury[0]["seat"] == 3 and sorted(bury[0]["cards"]) == buried
    o = t.g.observation(3)
    assert "you buried " + format_cards(sort_cards(buried, o.level, o.trump)) in con.text
    assert t.moves[[m["decision"] for m in t.moves].index("bury")]["by"] == "human"


def test_calls_are_offered_and_made():
    def answer(t: Table, prompt: str, words) -> str:
        if prompt.startswith("call"):
            return "1"  # the first call offered
        return "auto"

    t, con = table(answer)
    t.play()
    shows = [e for e in t.g.trace() if e["type"] == "show"]
    assert shows[0]["seat"] == 0
    assert re.search(r"you may call: \[1\] 2C", con.text)
    assert "seat 0 (you) declares 2C" in con.text


def test_no_declines_calls_until_a_new_one_is_possible():
    asked: list[str] = []

    def answer(t: Table, prompt: str, words) -> str:
        if prompt.startswith("call"):
            asked.append(prompt)
            return "no"
        return "auto"

    t, _ = table(answer)
    t.play()
    offers = sum(1 for m in t.moves if m["seat"] == 0 and m["decision"] == "declare")
    assert 1 <= len(asked) < offers  # the later offers of the same call were passed for you


def test_unknown_card_and_empty_line_ask_again():
    answers = iter(["XZ", "", "auto"])

    def answer(t: Table, prompt: str, words) -> str:
        return "" if prompt.startswith("call") else next(answers)

    t, con = table(answer)
    t.play()
    assert "unknown card 'XZ': write cards like AS 10H" in con.text
    assert "type the cards to play" in con.text
    assert t.g.phase == "done"


def failing_throw(seed: int = 11) -> tuple[Game, list[int]]:
    """A game at its first lead, and two single side-suit cards of the leader whose throw
    fails (another seat can beat one of them)."""
    for k in range(50):
        g = Game("standard", seed=seed, hand_id=k, level="2")
        while g.decision != "lead":
            g.apply(g.bot_action("expert"))
        hand = g.hand(g.to_act)
        eff = g.observation(g.to_act).eff
        singles = sorted(c for c in set(hand) if hand.count(c) == 1 and eff[c] != 4)
        for a, b in itertools.combinations(singles, 2):
            if eff[a] != eff[b]:
                continue
            trial = g.clone()
            trial.apply([a, b])
            if len(trial.observation(0).current_trick[0][1]) == 1:  # one card actually led
                return g, [a, b]
    raise AssertionError("no failing throw found")


def test_a_failed_throw_is_shown():
    g, throw = failing_throw()
    leader = g.to_act
    con = Scripted(lambda t, prompt, words: format_cards(throw) if "lead" in prompt else "auto")
    t = Table(g, leader, ["expert-v1"] * 4, con)
    con.table = t
    t.play()
    first = next(e for e in g.trace() if e["type"] == "trick")
    assert first["failed"] and sorted(first["attempted"]) == sorted(throw)
    o = g.observation(leader)
    tried = format_cards(sort_cards(throw, o.level, o.trump))
    assert f"trick 1: seat {leader} (you) leads " in con.text
    assert f"(tried to throw {tried}: the throw failed)" in con.text


def test_score_line_names_the_level_change():
    seen = set()
    for k in range(40):
        t, con = table(lambda t, prompt, words: "auto", hand_id=k, level="4")
        t.play()
        row = t.g.result()
        line = next(x for x in con.lines if x.startswith("score: "))
        n = row["levels_climbed"]
        if row["winner"] == "dealer":
            plural = "s" if n != 1 else ""
            want = f"keeps the deal and climbs {n} level{plural}: 4 -> {RANKS[2 + n]}"
        else:
            want = f"take the deal and climb {n} level" if n else "take the deal (no level gained)"
        assert want in line, (k, row, line)
        team = row["dealer"] % 2 if row["winner"] == "dealer" else 1 - row["dealer"] % 2
        assert f"(seats {team} and {team + 2})" in line
        assert con.lines[-1] == ("you win" if team == 0 else "you lose")
        seen.add((row["winner"], n > 0))
    assert len(seen) >= 3, seen  # dealer climbs, defenders take over with and without levels


def test_the_end_line_says_when_the_kitty_was_not_captured():
    """ "kitty bonus 0 (x2)" read as a capture worth nothing: an uncaptured kitty says so."""
    seen = set()
    for k in range(12):
        t, con = table(lambda t, prompt, words: "auto", hand_id=k)
        t.play()
        row = t.g.result()
        line = next(x for x in con.lines if x.startswith("defenders ") and "from tricks" in x)
        if row["kitty_captured"]:
            assert f"kitty bonus {row['kitty_bonus']} (x{row['kitty_mult']})" in line, line
        else:
            assert "kitty not captured" in line and "kitty bonus" not in line, line
        seen.add(bool(row["kitty_captured"]))
    assert seen == {True, False}


# ---------------------------------------------------------------------------------------------
# The command without a terminal


def test_play_command_from_piped_lines_saves_a_replayable_hand(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    code = play_command(get_rules("super"), "expert", 0, 5, stdin=io.StringIO("auto\n"), stdout=out)
    assert code == 0
    saved = sorted((tmp_path / "plays").glob("*.json"))
    assert [p.name for p in saved] == ["super-s5-h0-seat0.json"]
    assert "saved plays/super-s5-h0-seat0.json" in out.getvalue()
    # a second hand of the same deal does not overwrite the first
    play_command(get_rules("super"), "expert", 0, 5, stdin=io.StringIO("auto\n"), stdout=out)
    assert (tmp_path / "plays" / "super-s5-h0-seat0-2.json").exists()

    capsys.readouterr()
    assert cli.main(["replay", str(saved[0])]) == 0
    shown = capsys.readouterr().out
    assert "seat 0 played by a person" in shown and "\ntrick: seat 3 leads" in shown
    assert cli.main(["replay", str(saved[0]), "--hand", "1"]) == 2
    (tmp_path / "x.json").write_text("{}")
    assert cli.main(["replay", str(tmp_path / "x.json")]) == 2
    assert "not a hand saved by fastsheng play" in capsys.readouterr().err


def test_end_of_input_quits_cleanly_without_saving(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    assert play_command(get_rules("super"), "expert", 0, 5, stdin=io.StringIO(""), stdout=out) == 0
    assert out.getvalue().rstrip().endswith("bye: the hand was not finished (nothing saved)")
    assert not (tmp_path / "plays").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--seat", "4"], "--seat must be 0..3"),
        (["--bots", "expert,basic,random"], "one bot name, two (team 0"),
        (["--bots", "nobody"], "unknown bot 'nobody'"),
        (["--level", "Z"], "unknown level 'Z'"),
        (["--seed", "-1"], "--seed must be at least 0"),
    ],
)
def test_user_mistakes_are_one_line(args, message, capsys):
    assert cli.main(["play", *args]) == 2
    out = capsys.readouterr()
    assert out.err.strip().splitlines() == [out.err.strip()]
    assert message in out.err and out.err.startswith("error: ")
    assert out.out == ""  # nothing drawn or dealt before the mistake is found


# ---------------------------------------------------------------------------------------------
# End to end under a pseudo-terminal

# prompt_toolkit redraws a prompt as it is typed: sync on the lines printed once before each
CALL = r"you may call: .*\(Enter passes"
TURN = r"your hand \(\d+ cards\):"
PLAY = r"your play \((\d+) cards?\)>"


def spawn(tmp_path, *args):
    env = dict(os.environ, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm")
    return pexpect.spawn(
        FASTSHENG,
        ["play", *args],
        cwd=str(tmp_path),
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 120),
    )


def first_follow(seed: int) -> Game:
    """The game where the person at seat 0 first follows, passing every call before."""
    g = Game("super", seed=seed, hand_id=0, level="2")
    while not (g.to_act == 0 and g.decision in ("lead", "follow")):
        g.apply([] if g.to_act == 0 else g.bot_action("expert"))
    return g


def unique_prefix(g: Game) -> tuple[str, str]:
    """(prefix, card): a legal card that Tab completes from a prefix one character short."""
    words = [format_cards([c]) for c in g.legal_cards()] + ["help", "hand", "auto", "quit"]
    for w in words[:-4]:
        p = w[:-1]
        if sum(x.upper().startswith(p.upper()) for x in words) == 1:
            return p.lower(), w
    raise AssertionError("no card with a unique prefix")


def test_play_end_to_end_in_a_terminal(tmp_path):
    g = first_follow(5)
    assert g.decision == "follow" and len(g.legal_cards()) < len(g.hand(0))
    bad = format_cards([illegal_single_follow(g)])
    prefix, card = unique_prefix(g)

    child = spawn(tmp_path, "--rules", "super", "--bots", "expert", "--seat", "0", "--seed", "5")
    seen = []
    while child.expect([CALL, TURN]) == 0:
        child.expect("call>")
        seen.append(child.before)
        child.sendline("")  # Enter passes a call
    assert seen  # calls were offered during the deal
    child.expect(PLAY)
    assert child.match.group(1) == "1" and "trumps" in child.before
    child.sendline(bad)
    child.expect(r"illegal: must follow suit: seat 0 holds \d+ \w+ and must play 1 .*§5")
    child.expect(PLAY)
    child.sendline("?")
    child.expect("your legal follows")
    child.expect(PLAY)
    child.send(prefix + "\t")  # Tab completes the card
    child.expect(re.escape(card))
    child.send("\r")
    child.expect(r"seat 0 \(you\) +" + re.escape(card))  # the trick shows the completed card
    child.expect(TURN)
    child.expect(r"your (lead|play).*>")
    child.sendline("auto")
    child.expect(r"score: defenders (\d+)")
    total = int(child.match.group(1))
    child.expect(r"saved (\S+\.json)")
    path = tmp_path / child.match.group(1)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in child.before

    data = json.loads(path.read_text())
    assert data["row"]["defenders_total"] == total
    human = [m for m in data["moves"] if m["by"] == "human" and m["decision"] == "follow"]
    assert human and human[0]["cards"] == card
    proc = subprocess.run(
        [FASTSHENG, "replay", str(path)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert f"total {total};" in proc.stdout
    assert re.search(rf"\n    seat 0: {re.escape(card)}\n", proc.stdout)


@pytest.mark.parametrize("key, code, line", [("c", 130, "interrupted"), ("d", 0, "bye")])
def test_ctrl_c_and_ctrl_d_exit_cleanly(tmp_path, key, code, line):
    child = spawn(tmp_path, "--rules", "super", "--seed", "5")
    child.expect(CALL)
    child.expect("call>")
    child.sendcontrol(key)
    child.expect(pexpect.EOF)
    rest = child.before
    child.close()
    assert child.exitstatus == code
    assert line in rest and "Traceback" not in rest
    assert not (tmp_path / "plays").exists()


def test_help_at_the_burial_and_a_card_by_card_lead_in_a_terminal(tmp_path):
    """`?` where the options are cards (the burial; a lead offered card by card, the usual
    first lead) lists them instead of crashing and losing the hand. ~3 s."""
    g = Game("super", seed=5, hand_id=0, level="2")  # seat 3 deals; it passes every call
    while not (g.to_act == 3 and g.decision == "bury"):
        g.apply([] if g.to_act == 3 else g.bot_action("expert"))
    burial = format_cards(sorted(g.hand(3) + list(g.observation(3).kitty))[:8])
    child = spawn(tmp_path, "--rules", "super", "--seed", "5", "--seat", "3")
    while child.expect([CALL, r"you take the kitty"]) == 0:
        child.expect("call>")
        child.sendline("")
    child.expect(r"bury 8 cards>")
    child.sendline("?")
    child.expect(r"bury any 8 of: ")
    child.expect(r"bury 8 cards>")
    child.sendline(burial)
    child.expect(r"you buried ")
    child.expect(r"your lead>")
    child.sendline("?")
    child.expect(r"lead one card, a pair, a tractor")
    child.expect(r"your lead>")
    child.sendline("auto")
    child.expect(r"saved (\S+\.json)")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "Traceback" not in child.before


def test_a_hand_finished_where_it_cannot_be_written_is_saved_elsewhere(tmp_path, monkeypatch):
    """`plays` cannot be made (a file of that name: as for a folder without write access) and
    `--out` a path under a file: the hand goes to the temporary folder, and says so."""
    import tempfile

    monkeypatch.chdir(tmp_path)
    (tmp_path / "plays").write_text("not a folder")
    spare = tmp_path / "tmp"
    spare.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spare))
    rules = get_rules("standard")
    for out in (None, tmp_path / "plays" / "h.json"):
        shown = io.StringIO()
        assert play_command(rules, seed=5, out=out, stdin=io.StringIO("auto\n"), stdout=shown) == 0
        text = shown.getvalue()
        assert re.search(
            r"warning: cannot write \S*plays\S* \(.*\); saving in \S*fastsheng-plays", text
        )
        path = Path(re.search(r"saved (\S+\.json)", text).group(1))
        assert path.parent == spare / "fastsheng-plays" and load_saved(path)["seed"] == 5
    assert len(list((spare / "fastsheng-plays").glob("*.json"))) == 2
    # --out a folder: the hand is saved in it under its usual name
    assert play_command(rules, seed=5, out=spare, stdin=io.StringIO("auto\n"), stdout=shown) == 0
    assert (spare / "standard-s5-h0-seat0.json").exists()


def test_a_superscript_digit_at_the_call_prompt_is_not_a_call_number():
    answers = iter(["²", ""])

    def answer(t: Table, prompt: str, words) -> str:
        if prompt.startswith("call"):
            return next(answers, "")
        return "auto"

    t, con = table(answer)
    t.play()  # "²" is a digit to str.isdigit, not to int(): asked again, then passed
    assert "unknown card '²'" in con.text and t.g.phase == "done"
