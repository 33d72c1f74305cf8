"""A hand one decision at a time: the step API (docs/game.md).

``Game`` drives the very C state machine the simulator plays with (fastsheng._game), stopping at
every decision: who acts, the legal actions, an observation of what any seat may know, a cheap
copy, a world redealt consistently with one seat's knowledge, and the built-in bots' choice.

Actions come in two forms. A decision with at most ``Game.MAX_ACTIONS`` legal plays is offered
whole (kinds "pass", "show", "lead", "follow"). A larger one (a burial; most leads, which may
be any set of cards of one suit; a void follower's choice of any N cards) is offered card by
card: kind "card" actions for the cards that can still complete a legal play (``legal_cards``),
applied with ``apply_card``; a follow or burial completes itself at its size, a lead is closed
by the "done" action. Declaring is always offered whole.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from functools import lru_cache
from numbers import Integral
from typing import Any

import numpy as np

from fastsheng import _state
from fastsheng.bots.lineup import lineup_for
from fastsheng.bots.names import BOT_INDEX, is_builtin, resolve_bot
from fastsheng.cards import RANKS, as_code, as_codes, format_cards
from fastsheng.engine.actions import DECISION_KINDS, Action, card_action, make_action
from fastsheng.engine.checks import as_rules, core_level, positive, seed_state
from fastsheng.engine.observation import (
    Observation,
    Show,
    TrickRecord,
    make_observation,
    register_world_maker,
)
from fastsheng.engine.positions import play_tricks, start_position
from fastsheng.engine.refusals import card_refusal, play_refusal, show_refusal
from fastsheng.engine.schema import HAND_DTYPE, hands_table
from fastsheng.engine.traces import decode_trace
from fastsheng.errors import IllegalPlay
from fastsheng.rules import Rules

__all__ = ["Action", "Game"]


@lru_cache(maxsize=256)
def _stream(seed: int, batch: int) -> tuple[int, ...]:
    """Batch `batch`'s stream state (as simulate_hands seeds it), kept for the next hands of the
    batch: a SeedSequence costs more than the rest of a Game's start."""
    return tuple(int(x) for x in seed_state(seed, batch))


def check_seed(seed: object) -> int:
    """A seed as every entry point takes it: a whole number >= 0 (numpy ints too). A float,
    a string or a bool is refused, never rounded or parsed."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, not {seed!r}")
    return int(seed)


@functools.lru_cache(maxsize=256)
def _c_bot(name: str):
    """bot_action's name -> (the C bot it resolves to, that bot's line-up at every seat);
    read-only, so one per name serves every game."""
    resolved = resolve_bot(name)
    if not is_builtin(resolved):
        raise ValueError(f"{name!r} is not a built-in C bot")
    return resolved, lineup_for(resolved)


MAX_TRIES = _state.MAX_TRIES_  # rejection proposals of sample_world before its fallback


def rng_words(rng: Any) -> list[int]:
    """Four 64-bit words for a world's stream from any rng a user holds: a random.Random (the
    one the bot protocol hands a bot in reset), a numpy Generator or RandomState, an int seed
    or None (fresh entropy)."""
    if isinstance(rng, random.Random):
        return [rng.getrandbits(64) for _ in range(4)]
    if isinstance(rng, np.random.RandomState):
        return [int(x) for x in rng.randint(0, 2**64, size=4, dtype=np.uint64)]
    if isinstance(rng, np.random.Generator):
        gen = rng
    elif rng is None or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)):
        if rng is not None and rng < 0:
            raise ValueError(f"rng: a seed must be a non-negative int, not {rng}")
        gen = np.random.default_rng(None if rng is None else int(rng))
    else:
        raise TypeError(
            "rng must be a random.Random, a numpy Generator or RandomState, an int seed or "
            f"None, not {type(rng).__name__}"
        )
    return [int(x) for x in gen.integers(0, 2**64, size=4, dtype=np.uint64)]


def world_from_public(
    public: bytes,
    rules: Rules,
    batch: int,
    picked: Sequence[int],
    rng: Any,
    players: Sequence[set[str]] | None = None,
) -> Game:
    """A world dealt from a sealed public state (Game.sample_world, Observation.sample_world)."""
    core, exact = _state.GameCore.world(public, rng_words(rng), MAX_TRIES)
    g = Game.__new__(Game)
    g.rules = rules
    g._init(core, batch, run=False)
    g._picked = list(picked)
    if players is not None:
        g._players = [set(p) for p in players]
    g.sample_exact = exact
    return g


register_world_maker(world_from_public)


def _seat(seat: Any) -> int:
    """A seat argument, 0..3 (``Game.hand(-1)`` answered with a hand)."""
    if isinstance(seat, bool) or not (isinstance(seat, int | np.integer) and 0 <= seat < 4):
        raise ValueError(f"seat must be 0..3, not {seat!r}")
    return int(seat)


class Game:
    """A hand of 双升 stepped from Python. ``Game(rules, seed, hand_id, level)`` deals exactly
    hand `hand_id` of ``simulate_hands(rules, bots, seed, ...)`` (same `batch_size`, `level` and
    `first_hand`); playing every decision with ``g.apply(g.bot_action(name))`` plays it exactly
    as the simulator does."""

    MAX_ACTIONS = 64  # larger legal sets are offered card by card
    sample_exact = True  # False on a world sample_world could not draw exactly uniformly

    def __init__(
        self,
        rules: Rules | str,
        seed: int = 0,
        hand_id: int = 0,
        level: str = "2",
        *,
        batch_size: int = 10_000,
        first_hand: bool = False,
    ):
        self.rules = as_rules(rules)
        seed = check_seed(seed)  # before the stream cache: 1.0 == 1 would hit its entry
        batch_size = positive("batch_size", batch_size)
        if isinstance(hand_id, bool) or not isinstance(hand_id, (int, np.integer)) or hand_id < 0:
            raise ValueError(f"hand_id must be a non-negative int, not {hand_id!r}")
        batch, index = divmod(int(hand_id), batch_size)
        core = _state.GameCore()
        core.start_hand(
            self.rules.core_fields(),
            [BOT_INDEX["expert-v1"]] * 4,
            0xF,
            _stream(seed, batch),
            index,
            core_level(level),
            batch * batch_size,
            int(first_hand),
        )
        self._init(core, batch)

    @classmethod
    def _view(cls, core, rules: Rules, batch: int) -> Game:
        """A Game over a core that is already running (fastsheng.engine.pybatch)."""
        g = cls.__new__(cls)
        g.rules = rules
        g._init(core, batch, run=False)
        return g

    def _init(self, core, batch: int, run: bool = True) -> None:
        self._core = core
        self._batch = batch
        self._picked: list[int] = []
        self._decoded = 0
        self._shows: list[Show] = []
        self._tricks: list[TrickRecord] = []
        self._dealer: int | None = None
        self._burier: int | None = None
        self._eff: tuple[int, ...] | None = None
        self._tuples: dict[str, tuple] = {}
        self._bot_cache: tuple[str, Action] | None = None
        self._offered: list[Action] | None = None
        self._players: list[set[str]] = [set(), set(), set(), set()]
        if run:
            self._core.run()

    @classmethod
    def from_position(
        cls,
        rules: Rules | str,
        level: str,
        trump: str | None,
        dealer: int,
        hands: Sequence[Sequence[int | str] | str],
        kitty: Sequence[int | str] | str,
        tricks: Sequence[Sequence[Sequence[int | str] | str]] = (),
        *,
        seed: int = 0,
    ) -> Game:
        """A mid-hand position: the kitty buried (`kitty`, by the dealer), `hands` the four hands
        before `tricks` were played (each trick: the plays in order from its leader, the dealer
        leading the first and each winner the next; the last trick may stop mid-trick). Cards
        are codes or names ("AS", or a string "AS AS 10H" for a hand). The position must be a
        physical deal (four hands of one size, 8 in the kitty, at most two of a card) and every
        play is checked by the rules: a ValueError (IllegalPlay for a play) names what is not."""
        rules = as_rules(rules)
        core = start_position(rules, level, trump, dealer, hands, kitty, check_seed(seed))
        g = cls.__new__(cls)
        g.rules = rules
        g._init(core, 0)
        play_tricks(g, tricks)
        return g

    # --- state -----------------------------------------------------------------------------

    @property
    def phase(self) -> str:
        """ "declare" | "bury" | "chaodi" | "play" | "done"."""
        return self._core.phase

    @property
    def to_act(self) -> int:
        """The seat whose decision it is (-1 when the hand is over)."""
        return self._core.pending[1]

    @property
    def decision(self) -> str | None:
        """ "declare" | "bury" | "lead" | "follow", None when the hand is over."""
        return self._core.pending[0]

    @property
    def picked(self) -> tuple[int, ...]:
        """Cards chosen so far in the card-by-card form."""
        return tuple(sorted(self._picked))

    def hand(self, seat: int) -> list[int]:
        """The cards `seat` holds (all seats: for analysis; bots get ``observation``)."""
        return self._core.hand(_seat(seat))

    def clone(self) -> Game:
        """An independent copy (a C struct copy)."""
        g = Game.__new__(Game)
        g.rules = self.rules
        g._core = self._core.copy()
        g._batch = self._batch
        g._picked = list(self._picked)
        g._copy_record(self)
        g._bot_cache = None
        g._offered = None
        g._players = [set(p) for p in self._players]
        return g

    def _copy_record(self, other: Game) -> None:
        self._decoded = other._decoded
        self._shows = list(other._shows)
        self._tricks = list(other._tricks)
        self._dealer = other._dealer
        self._burier = other._burier
        self._eff = other._eff
        self._tuples = {}

    # --- legal actions ---------------------------------------------------------------------

    def legal_actions(self) -> tuple[Action, ...]:
        """The legal actions now, whole or card by card (see the module docstring): a tuple, so
        an offer cannot be edited; ``apply`` trusts only the objects of the latest offer."""
        kind = self.decision
        if kind is None:
            return ()
        if kind == "declare":
            out = [Action("pass", (), 0)]
            for i, (_, _, cards) in enumerate(self._core.show_options()):
                out.append(Action("show", tuple(cards), i + 1))
            offer = self._offered = tuple(out)
            return offer
        if not self._picked:
            whole = self._whole_plays(kind)
            if whole is not None:
                offer = self._offered = tuple(
                    [make_action(kind, tuple(c), i) for i, c in enumerate(whole)]
                )
                return offer
        out = [card_action(c, i) for i, c in enumerate(self.legal_cards())]
        if kind == "lead" and self._picked:
            out.append(Action("done", self.picked, len(out)))
        offer = self._offered = tuple(out)
        return offer

    def _whole_plays(self, kind: str) -> list[list[int]] | None:
        if kind == "follow":
            return self._core.follows([], self.MAX_ACTIONS)
        if kind == "lead":
            if self._core.lead_count(self.to_act) > self.MAX_ACTIONS:
                return None
            return self._core.leads(self.to_act)
        return None  # a burial: always card by card

    def legal_cards(self) -> list[int]:
        """Card-by-card form: the codes (distinct, sorted) that can extend the cards picked so
        far to a legal play."""
        kind = self.decision
        seat = self.to_act
        if kind == "bury":
            rest = list(self._core.bury_pool())
            for c in self._picked:
                rest.remove(c)
            return sorted(set(rest))
        if kind == "follow":
            return self._core.follow_cards(self._picked)
        if kind == "lead":
            return self._core.lead_cards(seat, self._picked)
        return []

    # --- acting ----------------------------------------------------------------------------

    def apply(self, action: Action | int | Sequence[int | str] | str) -> None:
        """Apply an Action of the current ``legal_actions()`` (or ``bot_action``), or a whole play
        as cards: codes or names, ``[12, 12]``, ``["AS", "AS"]`` or ``"AS AS"`` ([] passes a
        call); one card alone as its code (``12``, a single-card play, as ``[12]``) or its name
        (``"AS"``). An Action that is not from the current offer is checked like cards; an
        illegal play raises IllegalPlay naming the rule, cards that are not cards a ValueError."""
        cached = self._bot_cache
        if cached is not None and action is cached[1]:  # bot_action's, for this very state
            self._bot_cache = None
            self._offered = None
            self._players[self._core.pending[1]].add(cached[0])
            self._picked = []
            self._commit_ready()
            return
        if self.decision is None:
            raise IllegalPlay("the hand is over")
        self._bot_cache = None
        offered = self._offered
        self._offered = None  # whatever happens next, that offer is spent
        if isinstance(action, Action):
            i = action.id
            if (
                offered is not None
                and type(i) is int
                and 0 <= i < len(offered)
                and (offered[i] is action)
            ):
                self._apply_offered(action)  # legal by construction, no second check
            else:
                self._apply_unoffered(action)
            return
        seat = self.to_act
        # a bare code is one card, as a name is (a bool is no code: as_codes refuses it)
        one = isinstance(action, Integral) and not isinstance(action, bool)
        self._commit([as_code(action)] if one else as_codes(action))
        self._players[seat].add("user")

    def _apply_offered(self, action: Action) -> None:
        seat = self.to_act
        kind = action.kind
        if kind == "card":
            self._add_card(action.cards[0], checked=True)
            return
        if kind in ("lead", "follow"):
            self._core.decide_cards(list(action.cards))
            self._picked = []
            self._commit_ready()
        else:
            self._commit([] if kind == "pass" else list(action.cards))
        self._players[seat].add("user")

    def _apply_unoffered(self, action: Action) -> None:
        """An Action that is not an object of the current offer: its kind must fit the decision
        and its cards are checked like cards given as a list."""
        decision, seat = self._core.pending
        kind = action.kind
        if kind not in DECISION_KINDS[decision]:
            raise IllegalPlay(
                f"a {kind!r} action does not fit seat {seat}'s {decision} decision "
                f"(it takes {', '.join(repr(k) for k in DECISION_KINDS[decision])})"
            )
        cards = as_codes(action.cards)
        if kind == "card":
            if len(cards) != 1:
                raise IllegalPlay(f"a 'card' action holds one card, not {len(cards)}")
            self.apply_card(cards[0])
            return
        if kind == "done":
            if not self._picked or sorted(cards) != sorted(self._picked):
                raise IllegalPlay(
                    f"'done' closes the lead picked so far ({format_cards(self.picked) or 'none'})"
                    f", not {format_cards(cards) or 'nothing'}"
                )
            self._commit(list(self._picked))
        elif kind == "pass":
            if cards:
                raise IllegalPlay("a 'pass' action holds no cards")
            self._commit([])
        else:
            self._commit(cards)
        self._players[seat].add("user")

    def apply_card(self, code: int | str) -> None:
        """Card-by-card form: add one card (a code or a name, "AS") to the play being built; a
        follow or burial is applied when it reaches its size."""
        self._offered = None
        self._bot_cache = None  # a bot_action asked before no longer fits the picks
        self._add_card(code, checked=False)

    def _add_card(self, code: int | str, checked: bool) -> None:
        decision, seat = self._core.pending
        if decision is None:
            raise IllegalPlay("the hand is over")
        if decision == "declare":
            raise IllegalPlay("no play is being built now (declaring is offered whole)")
        if not checked:
            code = as_code(code)
            if code not in self.legal_cards():
                raise IllegalPlay(card_refusal(self._core, code, self.picked))
        self._picked.append(code)
        need = (
            8
            if decision == "bury"
            else (self._core.follow_need() if decision == "follow" else None)
        )
        if need is not None and len(self._picked) == need:
            # every card picked could extend the picks to a legal play (legal_cards), so at
            # its size the play is legal: no second check
            self._commit(list(self._picked), checked=True)
            self._players[seat].add("user")

    def _commit(self, cards: list[int], checked: bool = False) -> None:
        kind, seat = self._core.pending
        cards = sorted(cards)
        if kind == "declare":
            if not cards:
                self._core.decide_show(-1)
            else:
                opts = [sorted(c) for _, _, c in self._core.show_options()]
                if cards not in opts:
                    raise IllegalPlay(show_refusal(seat, cards, opts))
                self._core.decide_show(opts.index(cards))
        else:
            reason = None if checked else play_refusal(self._core, kind, seat, cards)
            if reason:
                raise IllegalPlay(reason)
            self._core.decide_cards(cards)
        self._picked = []
        self._commit_ready()

    def _commit_ready(self) -> None:
        self._core.run()

    def bot_action(self, name: Any = "expert") -> Action | Sequence[int]:
        """The Action the built-in bot `name` takes for the seat to act, drawing from this game's
        own bot stream exactly as the simulator would (ask once per decision). A Python bot
        object is asked too: its ``act`` gets the seat's observation and the current offer (its
        state, and its ``reset``, are the caller's), and its answer is returned for ``apply``,
        which checks it."""
        kind = self._core.pending[0]
        if kind is None:
            raise IllegalPlay("the hand is over")
        if not isinstance(name, str):
            if isinstance(name, type) or not callable(getattr(name, "act", None)):
                raise ValueError(
                    "bot_action takes a bot name or a bot object with an act method (an "
                    f"instance: its state is yours, e.g. bot_action(MyBot())), not {name!r}"
                )
            return name.act(self.observation(self.to_act), self.legal_actions())
        resolved, lineup = _c_bot(name)
        out = self._core.bot_decision(lineup)
        if kind == "declare":
            if out < 0:
                act = Action("pass", (), 0)
            else:
                act = Action("show", tuple(self._core.show_options()[out][2]), out + 1)
        else:
            act = make_action(kind, tuple(out), -1)  # the core lists codes in ascending order
        self._bot_cache = (resolved, act)
        return act

    # --- what a seat knows -----------------------------------------------------------------

    def _sync_events(self) -> None:
        """Decode the trace written since the last call into the public record."""
        n = self._core.trace_len
        if n <= self._decoded:
            return
        for ev in decode_trace(self._core.trace_array()[self._decoded :]):
            t = ev["type"]
            if t == "deal":  # a redeal starts the calls afresh
                self._shows = []
            elif t in ("show", "chaodi"):
                self._shows.append(
                    Show(ev["seat"], ev["action"], tuple(ev["cards"]), t == "chaodi")
                )
            elif t == "trick":
                self._tricks.append(
                    TrickRecord(
                        ev["leader"],
                        tuple(ev["attempted"]),
                        ev["failed"],
                        tuple(tuple(p) for p in ev["plays"]),
                        ev["winner"],
                        ev["points"],
                    )
                )
            elif t == "trump":
                self._dealer = ev["dealer"]
                self._eff = None
            elif t == "bury":
                self._burier = ev["seat"]
        self._decoded = n

    def observation(self, seat: int) -> Observation:
        """What `seat` may know now (a frozen dataclass; ``.to_tensor()`` for learning)."""
        seat = _seat(seat)
        (
            phase,
            decision,
            to_act,
            level,
            trump,
            standing,
            core_dealer,
            first_hand,
            hand,
            kitty,
            current,
            defender_points,
            hand_sizes,
            voids,
            trace_len,
            nopairs,
            lead_attempt,
            lead_failed,
            barred,
        ) = self._core.obs_state(seat)  # one call: this runs at every Python bot decision
        if trace_len > self._decoded:
            self._sync_events()
        dealer = self._dealer
        if dealer is None and not first_hand:
            dealer = core_dealer  # a later hand's dealer is known before the deal
        open_calls = trump < 0
        return make_observation(  # Observation(...), built fast: this runs at every decision
            seat,
            phase,
            to_act,
            decision,
            level,
            dealer,
            None if open_calls else trump,
            standing,
            hand,
            kitty,
            self._burier,
            self._record("_shows"),
            self._record("_tricks"),
            current,
            defender_points,
            hand_sizes,
            voids,
            self._effs() if not open_calls else (),
            self.picked if seat == to_act else (),
            nopairs,
            lead_attempt,
            lead_failed,
            barred,
            self._core.public_state(seat),  # sealed: no reference to this game
            self.rules,
            self._batch,
        )

    def _record(self, name: str) -> tuple:
        """The list as a tuple, rebuilt only when it grew (observations share it)."""
        items = getattr(self, name)
        cached = self._tuples.get(name)
        if cached is None or cached[0] is not items or len(cached[1]) != len(items):
            cached = (items, tuple(items))
            self._tuples[name] = cached
        return cached[1]

    def _effs(self) -> tuple[int, ...]:
        if self._eff is None:
            self._eff = tuple(self._core.effs())
        return self._eff

    def sample_world(self, seat: int, rng: Any = None) -> Game:
        """A game whose cards hidden from `seat` (the other hands, the kitty unless it knows it,
        the undealt cards) are redealt consistently with everything public: same counts, voids
        (shows-out in the trick in progress too), pair obligations, every past follow legal and
        every throw checked with the same result, cards taken back after a failed throw kept by
        the thrower, shown and unplayed cards kept by their seat (or in the kitty it buried).
        Uniform over the consistent deals (rejection sampling); when the constraints are so
        tight that ``MAX_TRIES`` proposals fail, a constrained deal that is consistent but not
        exactly uniform (``world.sample_exact`` is then False). The world is dealt from the
        sealed public state alone (as ``observation(seat).sample_world``): its trace, result and
        every answer come from its own cards. `rng`: a random.Random, a numpy Generator or
        RandomState, an int seed or None."""
        seat = _seat(seat)
        picked = self._picked if seat == self.to_act else []
        return world_from_public(
            self._core.public_state(int(seat)),
            self.rules,
            self._batch,
            picked,
            rng,
            self._players,
        )

    def trace(self) -> list[dict[str, Any]]:
        """Every event of the hand so far (the deal, calls, trump, burial, finished tricks, the
        result), decoded as ``trace_hand(...)["events"]``; ``format_trace`` prints them. It holds
        the whole deal: a record for people and tools, not for a bot's eyes (``observation``)."""
        return decode_trace(self._core.trace_array())

    # --- the end ---------------------------------------------------------------------------

    def result(self) -> dict[str, Any]:
        """After "done": the hand's row, with the same fields and values as its
        ``simulate_hands`` row (`bots`: the built-in bots that played each seat, "user" for
        decisions made otherwise)."""
        if self.phase != "done":
            raise IllegalPlay(f"the hand is not over (phase {self.phase!r})")
        rows = np.frombuffer(self._core.row_bytes(), dtype=HAND_DTYPE).copy()
        names = [",".join(sorted(p)) if p else "none" for p in self._players]
        return hands_table(rows, self._batch, self.rules, names, False).to_pylist()[0]

    def __repr__(self) -> str:
        lv = RANKS[self._core.level]
        return f"<Game {self.rules.name} level {lv} phase={self.phase} to_act={self.to_act}>"
