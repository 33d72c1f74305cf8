"""`fastsheng play`: a person plays one seat of a hand at the terminal against three bots.

The hand is a :class:`fastsheng.Game`; the other seats are the built-in C bots
(``Game.bot_action``). Cards are typed in the usual notation (``AS KS``, ``10h``, ``sj``) with Tab
completion of the cards that can still make a legal play (prompt_toolkit on a terminal; plain
lines otherwise, so moves can be piped in). An illegal play is refused with the rule it breaks.
The finished hand is saved as JSON (its moves, its events and its row) that
``fastsheng replay FILE`` prints move by move (docs/game.md).
"""

from __future__ import annotations

import json
import secrets
import sys
import tempfile
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from fastsheng.bots.names import is_builtin, resolve_bot, split_bots
from fastsheng.cards import RANKS, format_cards, parse_cards
from fastsheng.engine.checks import core_level
from fastsheng.engine.game import Action, Game
from fastsheng.engine.traces import format_trace
from fastsheng.errors import FastshengError, IllegalPlay
from fastsheng.rules import Rules

__all__ = ["play_command", "sort_cards", "hand_groups", "load_saved", "replay_saved", "replay_game"]

SAVE_FORMAT = "fastsheng-play"
SAVE_VERSION = 1
HUMAN = "human"  # the name the saved hand gives the person's seat
PLAYS = "plays"  # the folder finished hands are saved in (under the current folder)
EXIT_INTERRUPTED = 130
_GROUP_NAMES = ("spades", "hearts", "clubs", "diamonds", "trumps")
_COMMANDS = ("help", "hand", "auto", "quit")


class PlayError(FastshengError):
    """A mistake in the command line of `fastsheng play` or a file given to replay."""


# --------------------------------------------------------------------------------------------
# The order cards are shown in


def _card_key(code: int, level: int, trump: int | None) -> tuple[int, int]:
    """(group, strength) of a card: group 0 the trumps, then the side suits in S H C D order;
    strength 0 the highest. `trump` 0..3, 4 no trump, None while calls are open (only the
    jokers and the level cards are known trumps then)."""
    if code >= 52:
        return 0, 53 - code  # BJ, then SJ
    suit, rank = divmod(code, 13)
    if rank == level:  # the trump suit's level card, then the others (equal), by suit
        return 0, 2 if suit == trump else 3 + suit
    if suit == trump:
        return 0, 7 + 12 - rank
    return 1 + suit, 12 - rank


def sort_cards(cards: Sequence[int], level: int, trump: int | None) -> list[int]:
    """Cards as a hand is read: trumps first (BJ, SJ, the level cards, the trump suit high to
    low), then each side suit high to low."""
    return sorted(cards, key=lambda c: (_card_key(c, level, trump), c))


def hand_groups(cards: Sequence[int], level: int, trump: int | None) -> list[tuple[str, list]]:
    """[(group name, cards high to low)], trumps first, empty groups left out."""
    groups: dict[int, list[int]] = {}
    for c in sort_cards(cards, level, trump):
        groups.setdefault(_card_key(c, level, trump)[0], []).append(c)
    out = []
    for g, members in sorted(groups.items()):
        name = "trumps" if g == 0 else _GROUP_NAMES[g - 1]
        out.append((name, members))
    return out


# --------------------------------------------------------------------------------------------
# Reading lines: prompt_toolkit on a terminal, plain lines otherwise


class Console:
    """Prints, and asks for a line with completion of the words `words(text_before_word)`."""

    def __init__(self, stdin: TextIO, stdout: TextIO, interactive: bool | None = None):
        self.stdin = stdin
        self.stdout = stdout
        if interactive is None:
            interactive = stdin.isatty() and stdout.isatty()
        self._session = None
        if interactive:
            from prompt_toolkit import PromptSession

            self._session = PromptSession(complete_while_typing=False)

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def ask(self, prompt: str, words: Callable[[str], list[str]]) -> str:
        """One line (EOFError at the end of input, KeyboardInterrupt on Ctrl-C)."""
        if self._session is not None:
            return self._session.prompt(prompt, completer=_completer(words))
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            self.say()  # end the prompt's line
            raise EOFError
        return line.rstrip("\r\n")


def _completer(words: Callable[[str], list[str]]):
    from prompt_toolkit.completion import Completer, Completion

    class WordCompleter(Completer):
        def get_completions(self, document, complete_event):
            word = document.get_word_before_cursor(WORD=True)
            before = document.text_before_cursor[: len(document.text_before_cursor) - len(word)]
            for w in words(before):
                if w.upper().startswith(word.upper()):
                    yield Completion(w, start_position=-len(word))

    return WordCompleter()


# --------------------------------------------------------------------------------------------
# The table


class Table:
    """One hand: the person at `seat`, built-in bots at the others."""

    def __init__(self, game: Game, seat: int, bots: Sequence[str], console: Console):
        self.g = game
        self.seat = seat
        self.bots = list(bots)
        self.console = console
        self.say = console.say
        self.moves: list[dict[str, Any]] = []
        self.auto = False  # the bot at the person's seat plays the rest
        self.no_calls: set[tuple[int, ...]] = set()  # calls the person declined for the deal
        self._events = 0  # events of the trace already shown
        self._tricks = 0
        self._dealer: int | None = None
        self._defenders = 0

    # --- names ---

    def name(self, s: int) -> str:
        if s == self.seat:
            return f"seat {s} (you)"
        if s == (self.seat + 2) % 4:
            return f"seat {s} (partner)"
        return f"seat {s}"

    def _obs(self):
        return self.g.observation(self.seat)

    def _order(self) -> tuple[int, int | None]:
        """(level, trump) to sort by: while calls are open, the standing call's trump."""
        o = self._obs()
        trump = o.trump if o.trump is not None else (o.standing_call or (None, None))[1]
        return o.level, trump

    def _sorted(self, cards: Sequence[int]) -> list[int]:
        return sort_cards(cards, *self._order())

    def _fmt(self, cards: Sequence[int]) -> str:
        return format_cards(self._sorted(cards)) or "-"

    def show_hand(self, compact: bool = False) -> None:
        hand = self._obs().hand
        groups = hand_groups(hand, *self._order())
        if compact:
            self.say("  your cards: " + "  |  ".join(format_cards(c) for _, c in groups))
            return
        self.say(f"your hand ({len(hand)} cards):")
        for label, cards in groups:
            self.say(f"  {label:<9} {format_cards(cards)}")

    # --- the loop ---

    def play(self) -> None:
        o = self._obs()
        self.say(
            f"rules {self.g.rules.name}, level {RANKS[o.level]}; you are seat {self.seat}, "
            f"your partner seat {(self.seat + 2) % 4}; bots: "
            + ", ".join(f"seat {s} {self.bots[s]}" for s in range(4) if s != self.seat)
        )
        if o.dealer is not None:
            self.say(f"{self.name(o.dealer)} deals")
        self.say("type cards like AS KS 10H SJ BJ; Tab completes; ? lists your legal options")
        while self.g.phase != "done":
            self.show_events()
            if self.g.to_act == self.seat and not self.auto:
                self.person_turn()
            else:
                self.bot_turn()
        self.show_events()

    def bot_turn(self) -> None:
        seat = self.g.to_act
        name = self.bots[seat]
        self._apply(self.g.bot_action(name), name if seat != self.seat else f"{name} (auto)")

    def apply(self, cards: list[int]) -> None:
        """The person's play (IllegalPlay leaves the game as it was)."""
        self._apply(cards, HUMAN)

    def _apply(self, action: Action | list[int], by: str) -> None:
        seat, decision = self.g.to_act, self.g.decision
        cards = action.cards if isinstance(action, Action) else action
        self.g.apply(action)
        self.moves.append(
            {"seat": seat, "decision": decision, "cards": format_cards(cards), "by": by}
        )

    # --- the person's decisions ---

    def person_turn(self) -> None:
        decision = self.g.decision
        if decision == "declare":
            self.declare_turn()
            return
        o = self._obs()
        if decision == "bury":
            self.say(f"you take the kitty: {self._fmt(o.kitty or ())}")
            self.show_hand()
            prompt = "bury 8 cards> "
        else:
            self.show_hand()
            if o.current_trick:
                so_far = "; ".join(
                    f"{self.name(s)} {'leads' if i == 0 else 'plays'} {self._fmt(c)}"
                    for i, (s, c) in enumerate(o.current_trick)
                )
                self.say(f"trick {self._tricks + 1} so far: {so_far}")
                need = len(o.current_trick[0][1])
                prompt = f"your play ({need} card{'s' if need > 1 else ''})> "
            else:
                prompt = f"trick {self._tricks + 1}: your lead> "
        self.ask_until_legal(prompt, self.card_words)

    def declare_turn(self) -> None:
        acts = [a for a in self.g.legal_actions() if a.kind == "show"]
        if acts and all(a.cards in self.no_calls for a in acts):
            self.apply([])  # declined for the rest of the deal ("no")
            return
        self.show_hand(compact=True)
        calls = "  ".join(f"[{i + 1}] {format_cards(a.cards)}" for i, a in enumerate(acts))
        self.say(f"  you may call: {calls}   (Enter passes; no: pass until a new call is possible)")
        self.ask_until_legal("call> ", self.call_words, calls=acts)

    def ask_until_legal(self, prompt: str, words, calls: Sequence[Action] | None = None) -> None:
        while True:
            line = self.console.ask(prompt, words).strip()
            cmd = line.lower()
            if cmd in ("?", "help"):
                self.say(self.options_text())
            elif cmd == "hand":
                self.show_hand()
            elif cmd == "auto":
                self.auto = True
                self.say(f"the {self.bots[self.seat]} bot plays the rest of your hand")
                return
            elif cmd in ("quit", "exit"):
                raise EOFError
            elif calls is not None and cmd in ("", "pass", "no"):
                if cmd == "no":
                    self.no_calls.update(a.cards for a in calls)
                self.apply([])
                return
            elif not line:
                self.say("type the cards to play (e.g. AS or 10H 10H), or ? for your options")
            elif self.try_cards(line, calls):
                return

    def try_cards(self, line: str, calls: Sequence[Action] | None) -> bool:
        if calls is not None and line.isascii() and line.isdigit():  # "²" is a digit, no int
            k = int(line)
            if not 1 <= k <= len(calls):
                self.say(f"no call [{k}]: choose 1..{len(calls)} or Enter to pass")
                return False
            self.apply(list(calls[k - 1].cards))
            return True
        try:
            cards = parse_cards(line)
        except ValueError as exc:
            self.say(f"{exc}: write cards like AS 10H 2C SJ BJ (? lists your options)")
            return False
        try:
            self.apply(cards)
        except IllegalPlay as exc:
            self.say(f"illegal: {exc}")
            return False
        return True

    def card_words(self, before: str) -> list[str]:
        """Completions: the cards that can still extend what is typed to a legal play."""
        try:
            typed = parse_cards(before)
        except ValueError:
            return []
        g = self.g.clone()
        try:
            for c in typed:
                g.apply_card(c)
        except IllegalPlay:
            return []
        if g.decision != self.g.decision or g.to_act != self.g.to_act:
            return []  # the play is complete
        cards = [format_cards([c]) for c in self._sorted(g.legal_cards())]
        return cards + (list(_COMMANDS) if not typed else [])

    def call_words(self, before: str) -> list[str]:
        cards = {c for a in self.g.legal_actions() for c in a.cards}
        return [format_cards([c]) for c in self._sorted(cards)] + ["pass", "no", *_COMMANDS]

    def options_text(self) -> str:
        """The legal options now, for `help`/`?`."""
        g = self.g
        kind = g.decision
        acts = g.legal_actions()
        if kind == "declare":
            calls = [format_cards(a.cards) for a in acts if a.kind == "show"]
            text = "calls: " + "; ".join(calls) + "; or Enter to pass"
        elif acts and acts[0].kind in ("lead", "follow"):
            plays = [self._fmt(a.cards) for a in acts]
            text = f"your legal {kind}s ({len(plays)}): " + "; ".join(plays)
        else:  # card by card: only this decision's text (a follow's reads the trick)
            cards = self._fmt(g.legal_cards())
            if kind == "bury":
                text = f"bury any 8 of: {cards}"
            elif kind == "lead":
                text = (
                    "lead one card, a pair, a tractor, or several cards of one suit (a throw: "
                    f"it fails if another seat can beat a part of it); you can lead: {cards}"
                )
            else:
                need = len(self._obs().current_trick[0][1])
                text = f"follow with {need} cards; legal cards to start with: {cards}"
        text += ". Commands: hand (show it), auto (a bot plays the rest), quit."
        return textwrap.fill(text, 100, subsequent_indent="  ")

    # --- what happened ---

    def show_events(self) -> None:
        events = self.g.trace()
        for ev in events[self._events :]:
            self.show_event(ev)
        self._events = len(events)

    def show_event(self, ev: dict[str, Any]) -> None:
        kind = ev["type"]
        if kind == "deal":
            self.say(f"the deal starts with {self.name(ev['first_seat'])}")
        elif kind == "redeal":
            self.say("nobody called: the cards are dealt again")
        elif kind in ("show", "chaodi"):
            when = "after the burial" if kind == "chaodi" else f"after card {ev['dealt']}"
            self.say(f"{self.name(ev['seat'])} {ev['action']}s {self._fmt(ev['cards'])} ({when})")
        elif kind == "trump":
            self._dealer = ev["dealer"]
            d = ev["dealer"]
            trump = ev["trump"] or "none (no trump)"
            side = "dealer side" if d % 2 == self.seat % 2 else "defenders"
            self.say(
                f"trump {trump} ({ev['set']}); dealer {self.name(d)} with {self.name((d + 2) % 4)}"
                f"; you are on the {side}"
            )
        elif kind == "bury":
            if ev["seat"] == self.seat:
                self.say(f"you buried {self._fmt(ev['cards'])}")
            else:
                self.say(f"{self.name(ev['seat'])} takes the kitty and buries 8 cards")
        elif kind == "trick":
            self.show_trick(ev)
        elif kind == "result":
            self.show_result(ev)

    def show_trick(self, ev: dict[str, Any]) -> None:
        self._tricks += 1
        leader = ev["leader"]
        head = f"trick {self._tricks}: {self.name(leader)} leads {self._fmt(ev['plays'][0])}"
        if ev["failed"]:
            head += f" (tried to throw {self._fmt(ev['attempted'])}: the throw failed)"
        self.say(head)
        for k in range(1, 4):
            self.say(f"  {self.name((leader + k) % 4):<18} {self._fmt(ev['plays'][k])}")
        winner = ev["winner"]
        if self._dealer is not None and winner % 2 != self._dealer % 2:
            self._defenders += ev["points"]
        self.say(
            f"  -> {self.name(winner)} wins {ev['points']} points; defenders have {self._defenders}"
        )

    def show_result(self, ev: dict[str, Any]) -> None:
        row = self.g.result()
        kitty = (  # "kitty bonus 0 (x2)" would read as a capture worth nothing
            f"kitty bonus {ev['kitty_bonus']} (x{ev['kitty_mult']})"
            if row["kitty_captured"]
            else "kitty not captured"
        )
        self.say(f"defenders {ev['trick_points']} from tricks, {kitty}, penalty {ev['penalty']}")
        dealer = self._dealer if self._dealer is not None else row["dealer"]
        won = ev["winner"]
        seats = dealer % 2 if won == "dealer" else 1 - dealer % 2
        team = f"seats {seats} and {seats + 2}"
        climbed = row["levels_climbed"]
        if won == "dealer":
            lv = RANKS.index(row["level"])
            change = f"climbs {climbed} level{'s' if climbed != 1 else ''}"
            if climbed:
                change += f": {row['level']} -> {RANKS[min(lv + climbed, 12)]}"
            change = f"the dealer side ({team}) keeps the deal and {change}"
        else:
            change = f"the defenders ({team}) take the deal" + (
                f" and climb {climbed} level{'s' if climbed != 1 else ''}"
                if climbed
                else " (no level gained)"
            )
        stake = f", stake x{row['stake']}" if row["stake"] > 1 else ""
        self.say(f"score: defenders {ev['defenders_total']}{stake}; {change}")
        self.say("you win" if seats == self.seat % 2 else "you lose")


# --------------------------------------------------------------------------------------------
# The command


def _bot_names(bots: str, seat: int) -> list[str]:
    names = [b.strip() for b in split_bots(bots)]
    if len(names) == 1:
        names *= 4
    elif len(names) == 2:  # the teams, as everywhere: seats 0/2, then 1/3
        names *= 2
    if len(names) != 4 or not all(names):
        raise PlayError(
            f"--bots takes one bot name, two (team 0 at seats 0/2, team 1 at seats 1/3) or four "
            f"(one per seat), not {bots!r}"
        )
    out = []
    for n in names:
        resolved = resolve_bot(n)
        if not is_builtin(resolved):
            raise PlayError(f"{n!r} is not a built-in bot")
        out.append(resolved)
    return out


def play_command(
    rules: Rules,
    bots: str = "expert",
    seat: int = 0,
    seed: int | None = None,
    hand_id: int = 0,
    level: str = "2",
    out: Path | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Play one hand; returns the exit code (0, or 130 on Ctrl-C). `seed` None: drawn at
    random and printed."""
    if not 0 <= seat < 4:
        raise PlayError(f"--seat must be 0..3, not {seat}")
    names = _bot_names(bots, seat)
    core_level(level)  # a bad level fails before a seed is drawn
    drawn = seed is None
    if seed is None:
        seed = secrets.randbelow(2**32)
    game = Game(rules, seed=seed, hand_id=hand_id, level=level)
    console = Console(stdin or sys.stdin, stdout or sys.stdout)
    table = Table(game, seat, names, console)
    again = f" (drawn: --seed {seed} deals it again)" if drawn else ""
    console.say(f"hand {hand_id} of seed {seed}{again}")
    try:
        table.play()
    except KeyboardInterrupt:
        print("interrupted: the hand was not finished (nothing saved)", file=sys.stderr)
        return EXIT_INTERRUPTED
    except EOFError:
        console.say("bye: the hand was not finished (nothing saved)")
        return 0
    try:
        path = save_hand(table, rules, seed, hand_id, level, out)
    except OSError as exc:  # an unwritable folder must not lose the hand: save it elsewhere
        wanted = Path(out) if out is not None else Path(PLAYS)
        spare = Path(tempfile.gettempdir()) / "fastsheng-plays"
        console.say(f"warning: cannot write {wanted} ({exc.strerror or exc}); saving in {spare}")
        try:
            path = save_hand(table, rules, seed, hand_id, level, None, folder=spare)
        except OSError as exc2:
            print(
                f"error: cannot save the hand in {wanted} nor in {spare} ({exc2.strerror or exc2});"
                " give a writable file with --out",
                file=sys.stderr,
            )
            return 1
    console.say(f"saved {path}; `fastsheng replay {path}` shows it move by move")
    return 0


# --------------------------------------------------------------------------------------------
# The saved hand


def _free_path(rules: Rules, seed: int, hand_id: int, seat: int, folder: Path) -> Path:
    stem = f"{rules.name}-s{seed}-h{hand_id}-seat{seat}"
    path = folder / f"{stem}.json"
    k = 2
    while path.exists():
        path = folder / f"{stem}-{k}.json"
        k += 1
    return path


def save_hand(
    table: Table,
    rules: Rules,
    seed: int,
    hand_id: int,
    level: str,
    out: Path | None,
    folder: Path = Path(PLAYS),
) -> Path:
    """Write the finished hand: what replays it (rules, seed, hand, moves) and what shows it
    (events, row). `out` None (or an existing folder): a free name in `folder` (or `out`)."""
    g = table.g
    bots = list(table.bots)
    bots[table.seat] = HUMAN
    row = g.result()
    data = {
        "format": SAVE_FORMAT,
        "version": SAVE_VERSION,
        "rules": rules.to_dict(),
        "seed": seed,
        "hand_id": hand_id,
        "level": level,
        "seat": table.seat,
        "bots": bots,
        "moves": table.moves,
        "row": row,
        "trace": {
            "rules": rules.name,
            "bots": bots,
            "seed": seed,
            "hand_id": hand_id,
            "level": row["level"],
            "events": g.trace(),
        },
    }
    if out is not None and Path(out).is_dir():
        folder, out = Path(out), None
    path = Path(out) if out is not None else _free_path(rules, seed, hand_id, table.seat, folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return path


def load_saved(path: Path) -> dict[str, Any]:
    """A hand saved by `fastsheng play` (PlayError when the file is not one)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PlayError(f"{path}: not a hand saved by fastsheng play ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
        raise PlayError(f"{path}: not a hand saved by fastsheng play")
    if data.get("version") != SAVE_VERSION:
        raise PlayError(f"{path}: saved hand version {data.get('version')!r} is not supported")
    return data


def replay_saved(path: Path) -> str:
    """The saved hand move by move (what `fastsheng replay FILE` prints)."""
    data = load_saved(path)
    try:
        text = format_trace(data["trace"])
    except (KeyError, TypeError, IndexError) as exc:
        raise PlayError(f"{path}: the saved hand is incomplete ({exc})") from None
    return f"{text}\n(seat {data['seat']} played by a person; saved by fastsheng play)"


def replay_game(data: dict[str, Any]) -> Game:
    """The saved hand played again from its moves (a check that the file is the hand)."""
    g = Game(Rules.from_dict(data["rules"]), data["seed"], data["hand_id"], data["level"])
    for m in data["moves"]:
        if g.to_act != m["seat"] or g.decision != m["decision"]:
            raise PlayError(f"move {m} does not fit the hand (seat {g.to_act}, {g.decision})")
        g.apply(parse_cards(m["cards"]))
    return g
