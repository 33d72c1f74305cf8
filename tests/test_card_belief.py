"""The per-card belief (fastsheng.bots._card_belief): its features read only what the seat may
know, its rows say where the free copies lie, its probabilities are a distribution over the
places a copy may lie in, a fit reads the record better than uniform worlds, and a name that
weighs its chains by a fit (`cards_path=`, `lam=`) plays otherwise, while the name without it
plays as before (docs/bots.md, "search-v3: reading the play")."""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fastsheng.bots import _card_belief, _guided_search, _reading, bot_spec, resolve_bot
from fastsheng.bots.catalog import CARD_MODELS
from fastsheng.bots.lineup import lineup_for
from fastsheng.engine.game import Game
from fastsheng.engine.hands import simulate_hands

TRAINING = Path(__file__).resolve().parents[1] / "training"
NP, NF = _card_belief.NPLACE_, _card_belief.NCF_


def script(name: str):
    return importlib.import_module(name)


def rows_of(g: Game, seat: int):
    x, fr, ok, at = _reading.card_rows(g._core, seat)
    return (
        np.frombuffer(x, np.float32).reshape(54, NP, NF),
        np.frombuffer(fr, np.int32),
        np.frombuffer(ok, np.int32).reshape(54, NP),
        np.frombuffer(at, np.int32).reshape(54, NP),
    )


def positions(preset: str, seed: int, hands: int, every: int = 7):
    """Games stopped at some leads and follows of expert-v3 play."""
    for hand_id in range(hands):
        g = Game(preset, seed=seed, hand_id=hand_id, level="random")
        n = 0
        while g.phase != "done":
            if g.phase == "play":
                n += 1
                if n % every == 0:
                    yield g
            g.apply(g.bot_action("expert-v3"))


@pytest.mark.parametrize("preset", ["standard", "super"])
def test_the_features_read_only_what_the_seat_may_know(preset):
    # a world of the seat has the same record and the seat's own cards, other hidden cards:
    # every feature, free count and allowed place must be the same there
    rng = random.Random(5)
    seen = 0
    for g in positions(preset, 31, 3):
        seat = g.to_act
        x, fr, ok, _ = rows_of(g, seat)
        w = g.sample_world(seat, rng)
        wx, wfr, wok, _ = rows_of(w, seat)
        assert np.array_equal(fr, wfr) and np.array_equal(ok, wok)
        assert np.array_equal(x, wx)
        seen += 1
    assert seen > 10


def test_the_rows_say_where_the_free_copies_lie():
    tricks_read = False
    for g in positions("standard", 32, 3):
        seat = g.to_act
        x, fr, ok, at = rows_of(g, seat)
        assert (at.sum(1) == fr).all()  # every free copy lies somewhere
        assert not (at * (1 - ok)).any()  # and only where it may
        assert ((fr > 0) == (x[:, :, 0] == 1).all(1)).all()  # rows for the free codes only
        # the place one-hots, and the kitty a place only while the seat has not seen it
        assert (x[fr > 0][:, :, 8:12] == np.eye(4)).all()
        tricks_read |= bool(x[:, :, 20:22].any())
    assert tricks_read  # some seat let an opponent keep a trick a free card would have taken


def test_the_probabilities_are_a_distribution_over_the_places(tmp_path):
    rng = np.random.default_rng(3)
    h = 5
    model = tmp_path / "cards.npz"
    np.savez(
        model,
        mu=np.zeros(NF, np.float32),
        sd=np.ones(NF, np.float32),
        w1=rng.standard_normal((h, NF)).astype(np.float32),
        b1=np.full(h, 0.1, np.float32),
        w2=rng.standard_normal(h).astype(np.float32),
    )
    lineup = lineup_for(f"search-v3:infer=10,cards_path={model}")
    for g in positions("standard", 33, 2, every=11):
        seat = g.to_act
        _, fr, ok, _ = rows_of(g, seat)
        lq = np.frombuffer(_reading.card_logq(g._core, seat, lineup), np.float32).reshape(5, 54)
        for code in np.flatnonzero(fr):
            places = [4 if p == 3 else (seat + 1 + p) % 4 for p in range(NP) if ok[code, p]]
            assert np.exp(lq[places, code]).sum() == pytest.approx(1, abs=1e-4)
            assert not lq[[p for p in range(5) if p not in places], code].any()
    # a seat without a per-card model has no such belief
    assert (
        _reading.card_logq(Game("standard", seed=1, hand_id=0)._core, 0, lineup_for("search-v3"))
        is None
    )


def test_a_fit_reads_the_record_better_than_uniform_worlds(tmp_path):
    tc = script("training.train_card_belief")
    rows = tmp_path / "rows"
    tc.main(
        ["rows", str(rows), "--hands", "250", "--bot", "expert-v3", "--every", "4"]
        + ["--workers", "1"]
    )
    f = tc.fit(str(rows), str(tmp_path / "cards.npz"), 8, 2, 1, 3e-3)
    # expert-v3's play says where its cards lie: fewer bits per free copy than uniform worlds
    assert f["model"] < f["uniform"] - 0.05
    # `score` reads the saved model on the same held-out rows as fit did
    got = tc.score(str(rows), [str(tmp_path / "cards.npz")])
    assert got[str(tmp_path / "cards.npz")] == pytest.approx(f["model"], abs=1e-4)
    assert got["uniform worlds"] == pytest.approx(f["uniform"])
    # a name weighs its chains by the fit at the power lam
    setting = tc.cards_setting(str(tmp_path / "cards.npz"), 0.5)
    assert bot_spec(f"search-v3:infer=46,{setting}").core_fields()["lam"] == 0.5
    assert bot_spec(f"search-v3:infer=46,{tc.cards_setting('x.npz', 0)}").core_fields()["lam"] == 0
    # the chain weighs its worlds by it: the name that reads it plays otherwise (and records
    # the setting), at lam 0 it plays as without it, and the published name plays as before
    plain_name, read_name = (
        "search-v3:k=16,cands=4,infer=46",
        f"search-v3:k=16,cands=4,infer=46,{setting}",
    )

    def hands(x: str):
        h = simulate_hands("standard", (x, "expert") * 2, 17, 3, level="random").to_pandas()
        return h.drop(columns="bots"), h["bots"].iloc[0]

    plain, _ = hands(plain_name)
    _guided_search._infer_counts(reset=True)
    read, bots = hands(read_name)
    assert _guided_search._infer_counts()["chains"] > 0
    assert not read.equals(plain)
    assert bots.startswith(resolve_bot(read_name)) and "lam=0.5" in bots
    zero = f"search-v3:k=16,cands=4,infer=46,{tc.cards_setting(str(tmp_path / 'cards.npz'), 0)}"
    assert hands(zero)[0].equals(plain)
    assert hands(plain_name)[0].equals(plain)


def test_the_chain_s_worlds_hold_every_free_copy_once():
    # training/train_card_belief.py `sharp` reads the chain's worlds through chain_marginals:
    # the chain of a search-v3 seat at infer=10 (no burial, no belief), 7 worlds 5 swaps apart
    # after 20
    lineup = lineup_for("search-v3:infer=10")
    for g in positions("standard", 34, 2, every=13):
        seat = g.to_act
        _, fr, ok, _ = rows_of(g, seat)
        cnt = np.frombuffer(_reading.chain_marginals(g._core, lineup, seat, 7, 5, 20, 1), np.int32)
        cnt = cnt.reshape(5, 54)[[4 if p == 3 else (seat + 1 + p) % 4 for p in range(NP)]].T
        assert (cnt.sum(1) == 7 * fr).all()
        assert not (cnt * (1 - ok)).any()


def sharp_figures(*args: str) -> tuple[str, dict]:
    """`train_card_belief.py sharp` as run from the command line, on the shipped per-card
    belief: its header and figures."""
    model = str(Path(_card_belief.__file__).parent / "models" / CARD_MODELS[1][0].file)
    cmd = [sys.executable, str(TRAINING / "train_card_belief.py"), "sharp", model]
    cmd += ["--hands", "1", "--bot", "expert", "--every", "6", "--seed", "5", "--worlds", "6"]
    out = subprocess.run(cmd + ["--lam", "0.5", *args], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    return lines[0], {k.strip(): float(v) for k, v in (x.rsplit(":", 1) for x in lines[1:])}


def test_sharp_s_extra_chains_read_as_the_chain_of_c():
    # `sharp --chain` compares other settings of (c)'s chain (docs/bots.md, "How sharp each
    # reading is, at equal noise"): a chain's seed depends on the decision alone, so the
    # chain of (c) asked again as an extra setting must read exactly as the named one, and
    # --steps/--burn reach every chain (a figure that moves with them)
    _, a = sharp_figures(
        "--steps", "5", "--burn", "20", "--chain", "10", "5", "0.5", "--chain", "7", "3", "0.5"
    )
    named = a["the chain of (c) with the cards, lam=0.5"]
    assert a["the chain of (c) at infer=10, kitty=5, lam=0.5"] == named
    assert a["the chain of (c) at infer=7, kitty=3, lam=0.5"] > 0
    head, b = sharp_figures("--steps", "7", "--burn", "20")
    assert b["the chain of (c) with the cards, lam=0.5"] != named
    assert "(7 swaps apart after 20)" in head
