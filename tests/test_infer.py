"""Reading the play (fastsheng.bots._infer): the replay that counts a world's misfits, and
search-v3's `infer`, whose race draws its worlds from a chain weighted by them.

The replay must be the game's own: in a hand every seat plays with expert-v3, the real deal
explains every play (0 misfits from every seat's side, at every decision), and every world
`Game.sample_world` deals (consistent with the whole public record) replays without a
contradiction."""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import pytest
from botcheck import play_digest, same_decisions_in_worlds

from fastsheng.bots import _guided_search, _infer, _reading
from fastsheng.bots.lineup import lineup_for
from fastsheng.bots.names import BOT_INDEX, bot_spec, resolve_bot
from fastsheng.engine.game import Game
from fastsheng.engine.hands import simulate_hands
from fastsheng.sim.local import resolve_workers
from fastsheng.studies import stats
from fastsheng.studies.ladder import pair_outcome

EXPERT3 = BOT_INDEX["expert-v3"]


def play_decisions(preset: str, seed: int, hand_id: int, bot: str = "expert-v3"):
    """Every lead/follow position of one hand played by `bot` at all four seats."""
    g = Game(preset, seed=seed, hand_id=hand_id, level="random")
    while g.phase != "done":
        if g.phase == "play":
            yield g
        g.apply(g.bot_action(bot))


@pytest.mark.parametrize("preset", ["standard", "super", "tournament"])
def test_the_real_deal_explains_every_play_of_its_own_bot(preset):
    seen = 0
    for hand_id in range(3):
        for g in play_decisions(preset, 41, hand_id):
            for seat in range(4):
                assert _reading.misfits(g._core, seat, EXPERT3) == 0
            seen += 1
    assert seen > 100


def test_another_bot_misfits_and_worlds_replay_without_contradiction():
    rng = random.Random(5)
    worlds = misfit = 0
    for hand_id in range(3):
        for i, g in enumerate(play_decisions("standard", 43, hand_id)):
            # expert-v1 would have played some of expert-v3's plays otherwise
            misfit += _reading.misfits(g._core, 0, BOT_INDEX["expert-v1"]) > 0
            if i % 7 == 3:
                seat = g.to_act
                w = g.sample_world(seat, rng)
                assert _reading.misfits(w._core, seat, EXPERT3) >= 0
                worlds += 1
    assert worlds > 20 and misfit > 10


def test_a_learned_model_is_asked_in_the_replayed_game():
    # learned-v1 reads the game around the table (its phase and trick), so the replay is a game:
    # its own play it explains better than expert-v4, its base, does, and far better than the
    # cards of a uniform consistent world do (a replay that asked it out of its game would not;
    # its candidates' draws come from the replay's own stream, so a few misfits remain)
    lu = lineup_for("learned-v1")  # its table of bots: the learned row with its model
    learned, expert4 = BOT_INDEX["learned-v1"], BOT_INDEX["expert-v4"]
    rng = random.Random(3)
    own, base, world = [], [], []
    for hand_id in range(3):
        for g in play_decisions("standard", 47, hand_id, "learned-v1"):
            seat = g.to_act
            own.append(_reading.misfits(g._core, seat, learned, lu))
            base.append(_reading.misfits(g._core, seat, expert4, lu))
            world.append(_reading.misfits(g.sample_world(seat, rng)._core, seat, learned, lu))
    assert min(own) >= 0 and len(own) > 100
    assert sum(own) < 0.8 * sum(base) and sum(own) < 0.3 * sum(world)


def test_a_learned_base_reads_the_play():
    # its replay once asked learned-v1 out of any game and crashed the process
    bots = ("search-v3:k=8,base=learned-v1,infer=20", "expert-v3")
    t = simulate_hands("standard", bots, 11, 2, level="random")
    assert t.num_rows == 2


def test_the_research_settings_of_the_replay():
    # leads and follows counted apart (kinds) add up; the learned judgement (soft) forgives
    # some misfits; each is a setting of the reading seat's spec, read by that seat alone
    leads_only, follows_only = lineup_for("search-v3:kinds=1"), lineup_for("search-v3:kinds=2")
    judged = lineup_for("search-v3:soft=0.1")
    seen = forgiven = 0
    for g in play_decisions("standard", 45, 0, "search-v3:k=8"):
        seat = g.to_act
        both = _reading.misfits(g._core, seat, EXPERT3)
        assert _reading.misfits(g._core, seat, EXPERT3, lineup_for("search-v3")) == both
        leads = _reading.misfits(g._core, seat, EXPERT3, leads_only)
        follows = _reading.misfits(g._core, seat, EXPERT3, follows_only)
        assert leads + follows == both
        soft = _reading.misfits(g._core, seat, EXPERT3, judged)
        assert 0 <= soft <= both
        forgiven += soft < both
        seen += both > 0
    assert seen > 10 and forgiven > 0


def rows_of(g, seat: int) -> np.ndarray:
    x = np.frombuffer(_reading.decision_rows(g._core, seat, EXPERT3), np.float32)
    return x.reshape(-1, _infer.NB_IN_)


def test_the_belief_rows_are_one_per_past_decision_of_another_seat():
    # the learned belief's training rows (analysis/train_belief.py): one per past lead or follow
    # of the other seats, the last column 1 where expert-v3 would have played otherwise
    actors = []
    seen = 0
    g = Game("standard", seed=45, hand_id=0, level="random")
    while g.phase != "done":
        if g.phase == "play":
            for seat in range(4):
                x = rows_of(g, seat)
                assert len(x) == sum(a != seat for a in actors)
                assert x[:, -1].sum() == _reading.misfits(g._core, seat, EXPERT3)
                assert np.isfinite(x).all() and (x[:, 0] == 1).all()
            # kind 2: the features of the model's own play, the same label
            x2 = np.frombuffer(_reading.decision_rows(g._core, seat, EXPERT3, 2), np.float32)
            x2 = x2.reshape(-1, _infer.NB_IN_)
            assert (x2[:, -1] == x[:, -1]).all()
            assert (x2[x[:, -1] == 0] == x[x[:, -1] == 0]).all()
            seen += x[:, -1].sum() > 0
            actors.append(g.to_act)
        g.apply(g.bot_action("search-v3:k=8"))
    assert seen > 10 and len(actors) > 40


def test_the_learned_belief_weighs_the_decisions(tmp_path):
    # a belief that sees only the misfit column (logit -2 per misfit) counts as 2 misfits each
    # within its range; cleared, the plain count is back; a model of the wrong shape is refused
    n = _infer.NB_IN_
    w1 = np.zeros((2, n), np.float32)
    w1[0][n - 1] = 1.0

    def belief(tmp, kind, w2, hi, lo, inputs=n):
        path = tmp / f"belief-{kind}-{inputs}.npz"
        np.savez(
            path,
            mu=np.zeros(inputs),
            sd=np.ones(inputs),
            w1=w1[:, :inputs],
            b1=np.zeros(2),
            w2=np.array(w2),
            b2=np.float32(0),
            hi=np.float32(hi),
            lo=np.float32(lo),
            kind=np.int8(kind),
        )
        return lineup_for(f"search-v3:belief_kind={kind},belief_path={path}")

    one = belief(tmp_path, 1, [-2.0, 0.0], 0.0, -8.0)
    checked = 0
    for g in play_decisions("standard", 45, 0, "search-v3:k=8"):
        seat = g.to_act
        plain = _reading.misfits(g._core, seat, EXPERT3)
        assert _reading.misfits(g._core, seat, EXPERT3, one) == 2 * plain
        checked += plain > 0
    assert checked > 10
    # the model of deviations (belief 2): at even odds every past decision of another seat
    # costs log 2 (69 hundredths), whatever was played
    two = belief(tmp_path, 2, [0.0, 0.0], 8.0, 0.0)
    for g in play_decisions("standard", 45, 0, "search-v3:k=8"):
        seat = g.to_act
        assert _reading.misfits(g._core, seat, EXPERT3, two) == 69 * len(rows_of(g, seat)) // 100
    with pytest.raises(ValueError, match="inputs"):
        belief(tmp_path, 2, [0.0, 0.0], 8.0, 0.0, inputs=n - 1)


@pytest.mark.parametrize("preset", ["standard", "super"])
def test_the_real_deal_explains_its_own_bots_burial(preset):
    # reading the burial (kitty=): the kitty expert-v3 buried is the one it buries again from
    # the burier's cards of the real deal; a uniform world's kitty mostly is not
    burial = lineup_for("search-v3:infer=10,kitty=1,kinds=0")  # the burial read alone
    rng = random.Random(2)
    real, world = [], []
    for hand_id in range(4):
        for g in play_decisions(preset, 49, hand_id):
            for seat in range(4):
                real.append(_reading.misfits(g._core, seat, EXPERT3, burial))
            w = g.sample_world(g.to_act, rng)
            world.append(_reading.misfits(w._core, g.to_act, EXPERT3, burial))
    assert len(real) > 400 and set(real) == {0}
    assert sum(world) > len(world)


def test_kitty_names_and_play():
    name = resolve_bot("search-v3:infer=6,kitty=8")
    assert name.endswith(",infer=6,kitty=8")
    spec = bot_spec(name)
    assert (spec.k, spec.infer, spec.kitty) == (64, 6, 8)
    assert "kitty" not in resolve_bot("search-v3:infer=6")
    for bad in ("search-v3:kitty=2", "search-v3:infer=6,kitty=16"):
        with pytest.raises(ValueError, match="kitty"):
            resolve_bot(bad)
    plays_reproducibly_and_otherwise("search-v3:k=16,infer=6,kitty=8", "search-v3:k=16,infer=6")


def test_the_oracle_knob_changes_only_its_seats():
    # analysis only (the worth of knowing the cards): a seat with oracle=1 races on the real
    # deal; the other seats of the line-up play as they do without it
    def hands(bots):
        t = simulate_hands("standard", bots, 13, 3, level="random", tricks=True)["tricks"]
        return t.drop_columns(["bots"]).to_pandas() if "bots" in t.column_names else t.to_pandas()

    plain = hands(("search-v3:k=9", "search-v3:k=8"))
    cheat = hands(("search-v3:k=9,oracle=1", "search-v3:k=8"))
    assert not plain.equals(cheat)
    assert hands(("search-v3:k=9", "search-v3:k=8")).equals(plain)


def test_the_chains_knob_draws_a_race_s_worlds_from_several_chains():
    # chains=3 opens three inference chains per race and takes the worlds from them in turn;
    # one chain is the published default, and a run of chains=3 leaves it playing as before
    bots = ("search-v3:k=16,cands=4,infer=46", "expert") * 2
    plain = simulate_hands("standard", bots, 17, 3, level="random").to_pandas()
    _guided_search._infer_counts(reset=True)
    three = simulate_hands(
        "standard",
        ("search-v3:k=16,cands=4,infer=46,chains=3", "expert") * 2,
        17,
        3,
        level="random",
    ).to_pandas()
    c = _guided_search._infer_counts(reset=True)
    assert c["chains"] >= 3 and c["chains"] % 3 == 0
    assert len(three) == len(plain)
    assert simulate_hands("standard", bots, 17, 3, level="random").to_pandas().equals(plain)


def test_infer_names():
    assert resolve_bot("search-v3") == resolve_bot("search-v3:infer=0")
    assert "infer" not in resolve_bot("search-v3")
    name = resolve_bot("search-v3:infer=35")
    assert name.endswith(",infer=35")
    assert (bot_spec(name).k, bot_spec(name).infer) == (64, 35)
    for bad in ("search-v3:infer=128", "search-v3:infer=-1", "search-v3:infer=x"):
        with pytest.raises(ValueError, match="infer"):
            resolve_bot(bad)


def test_belief_names():
    # spelled out only when set, needs infer, rides above kitty; its model loads with the name
    assert "belief" not in resolve_bot("search-v3:infer=10")
    name = resolve_bot("search-v3:infer=10,kitty=5,belief=1")
    assert name.endswith(",infer=10,kitty=5,belief=1")
    spec = bot_spec(name)
    assert (spec.k, spec.infer, spec.kitty, spec.belief) == (64, 10, 5, 1)
    assert spec.core_fields()["belief"] == 2  # the shipped belief is a model of deviations
    for bad, what in (("search-v3:belief=1", "set infer"), ("search-v3:infer=5,belief=2", "0..1")):
        with pytest.raises(ValueError, match=what):
            resolve_bot(bad)


def test_cards_names():
    # spelled out only when set, needs infer, rides above belief; its model loads with the name
    assert "cards" not in resolve_bot("search-v3:infer=10,kitty=5,belief=1")
    name = resolve_bot("search-v3:infer=10,kitty=5,belief=1,cards=1")
    assert name.endswith(",infer=10,kitty=5,belief=1,cards=1")
    spec = bot_spec(name)
    assert (spec.infer, spec.belief, spec.cards) == (10, 1, 1)
    assert spec.core_fields()["lam"] == 0.5  # the shipped per-card model's power
    for bad, what in (("search-v3:cards=1", "set infer"), ("search-v3:infer=5,cards=2", "0..1")):
        with pytest.raises(ValueError, match=what):
            resolve_bot(bad)


def test_gate_names():
    # the race's gate in tenths of a standard error: spelled out only when not the published 10
    assert "gate" not in resolve_bot("search-v3:infer=10,gate=10")
    name = resolve_bot("search-v3:k=4096,infer=10,kitty=5,belief=1,cards=1,gate=5")
    assert name.endswith(",infer=10,kitty=5,belief=1,cards=1,gate=5")
    assert (bot_spec(name).k, bot_spec(name).gate) == (4096, 5)
    assert bot_spec(resolve_bot("search-v3:infer=10")).gate == 10
    for bad in ("0", "11", "x", "0.5"):
        with pytest.raises(ValueError, match="gate must be an integer in 1..10"):
            resolve_bot(f"search-v3:gate={bad}")


def test_the_gate_plays_as_the_research_setting_z():
    """gate=5 plays the hands the research setting z=0.5 plays with the same name (the gate in
    tenths of a standard error is z, docs/research/reading-the-play.md); both other hands than
    the published name."""
    name = "search-v3:k=8,cands=4,infer=10,kitty=5,belief=1,cards=1"

    def lineup(suffix):
        return (name + suffix, "expert", name + suffix, "basic")

    assert digest("standard", lineup(",gate=5")) == digest("standard", lineup(",z=0.5"))
    assert digest("standard", lineup(",gate=5")) != digest("standard", lineup(""))


def test_chains_names():
    # a race's chains: spelled out only when 4, bit 30 of the worlds word (0 there: one chain),
    # above cards' two bits; they are infer's
    assert "chains" not in resolve_bot("search-v3:infer=10,chains=1")
    name = resolve_bot("search-v3:k=4096,infer=10,kitty=5,belief=1,cards=1,gate=5,chains=4")
    assert name.endswith(",cards=1,gate=5,chains=4")
    spec = bot_spec(name)
    assert (spec.k, spec.gate, spec.cards, spec.chains) == (4096, 5, 1, 4)
    assert bot_spec(resolve_bot("search-v3:infer=10,cards=1")).chains == 1
    for bad in ("0", "17", "x"):
        with pytest.raises(ValueError, match="chains must be an integer in 1..16"):
            resolve_bot(f"search-v3:infer=10,chains={bad}")
    with pytest.raises(ValueError, match="set infer"):
        resolve_bot("search-v3:chains=4")


def tampered(tmp_path, monkeypatch, file: str) -> None:
    """The package's models folder replaced by one where `file` is changed by a byte."""
    from fastsheng.bots import lineup

    for f in (Path(_infer.__file__).parent / "models").iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes() + (b"\0" if f.name == file else b""))
    monkeypatch.setattr(lineup, "_package_file", lambda name: str(tmp_path / name))
    lineup._shipped.cache_clear()


def test_a_shipped_card_belief_is_checked(tmp_path, monkeypatch):
    from fastsheng.bots import lineup

    tampered(tmp_path, monkeypatch, "card-belief-v1.npz")
    try:
        with pytest.raises(ValueError, match="card belief .*SHA-256"):
            lineup.make_lineup([bot_spec("search-v3:infer=10,cards=1")] * 4)
    finally:
        lineup._shipped.cache_clear()


def test_cards_plays_legal_reproducible_and_otherwise():
    plays_reproducibly_and_otherwise(
        "search-v3:k=16,infer=10,belief=1,cards=1", "search-v3:k=16,infer=10,belief=1"
    )


def test_a_shipped_belief_is_checked(tmp_path, monkeypatch):
    from fastsheng.bots import lineup

    tampered(tmp_path, monkeypatch, "belief-v1.npz")
    try:
        with pytest.raises(ValueError, match="belief .*SHA-256"):
            lineup.make_lineup([bot_spec("search-v3:infer=10,belief=1")] * 4)
    finally:
        lineup._shipped.cache_clear()


def test_belief_plays_legal_reproducible_and_otherwise():
    plays_reproducibly_and_otherwise("search-v3:k=16,infer=10,belief=1", "search-v3:k=16,infer=10")


def plays_reproducibly_and_otherwise(bot: str, other: str) -> None:
    """`bot` against expert-v3: the same hands twice, others than `other`'s (simulate_hands
    raises on an illegal play; the chain's worlds change some decisions)."""
    a = simulate_hands("standard", (bot, "expert-v3"), 3, 4, level="random").to_pandas()
    b = simulate_hands("standard", (bot, "expert-v3"), 3, 4, level="random").to_pandas()
    off = simulate_hands("standard", (other, "expert-v3"), 3, 4, level="random")
    assert a.equals(b)
    assert not a.equals(off.to_pandas())


def test_infer_plays_legal_reproducible_and_otherwise():
    plays_reproducibly_and_otherwise("search-v3:k=16,infer=35", "search-v3:k=16")


def digest(preset: str, lineup) -> str:
    return play_digest(preset, lineup, 20261202, 8)


# SHA-256 of every column but `bots` of the hands and tricks of 8 hands (seed 20261202, random
# levels): search-v3 with infer as published; never update them, add a version instead
INFER_DIGESTS = {
    ("search-v3:k=8,cands=4,infer=46", "standard"): (
        "ae03c77653558319eb8c90757e41fc27f7dbc78a3e5a1624fdbe1b46f7394512"
    ),
    ("search-v3:k=8,cands=4,infer=10,kitty=5,belief=1", "standard"): (
        "4f53f92f6e521d05b284060d76b0f1ab5ee0f7559bf5a978161e444e6eacd32e"
    ),
    ("search-v3:k=8,cands=4,infer=10,kitty=5,belief=1,cards=1", "standard"): (
        "369967feee466d5142ab38b87fb192d1285ef13303537cee845d5be621eba929"
    ),
    ("search-v3:k=8,cands=4,infer=10,kitty=5,belief=1,cards=1,gate=5", "standard"): (
        "76e582b9a02e2942f9c8fd44a4ebf0449c3fdc3333334732097b2d9c3ac0d31c"
    ),
    ("search-v3:k=8,cands=4,infer=10,kitty=5,belief=1,cards=1,chains=4", "standard"): (
        "0eb5c41e4a2546ba018f8977ffc8edebf674a611a0bbc1fde6e2f55acd459017"
    ),
}


@pytest.mark.parametrize("name, preset", sorted(INFER_DIGESTS))
def test_infer_plays_as_frozen(name, preset):
    got = digest(preset, (name, "expert", name, "basic"))
    off = name.rsplit(",", 1)[0]  # the name less its last reading
    assert got != digest(preset, (off, "expert", off, "basic"))
    assert got == INFER_DIGESTS[name, preset]


@pytest.mark.parametrize(
    "name",
    [
        "search-v3:k=8,cands=4,infer=46",
        "search-v3:k=8,cands=4,infer=10,kitty=5,belief=1",
        "search-v3:k=8,cands=4,infer=10,kitty=5,belief=1,cards=1",
        "search-v3:k=8,cands=4,infer=10,kitty=5,belief=1,cards=1,gate=5",
        "search-v3:k=8,cands=4,infer=10,kitty=5,belief=1,cards=1,chains=4",
    ],
)
@pytest.mark.parametrize("hand_id", [0, 1])
def test_infer_decides_from_what_its_seat_may_know(hand_id, name):
    """Two games that differ only in cards the deciding seat cannot see (a consistent world),
    with the same bot stream, get the same decision at every lead and follow: the chain reads
    the public record (the tricks in order, shown cards) and the worlds it walks, never the
    real deal."""
    differed = same_decisions_in_worlds(name, 12, hand_id)
    assert differed > 10


def paired_net(x: str, y: str, seeds, n: int):
    """X against Y over N deals of each seed, each deal played twice with the seats swapped
    (`standard`, random levels): the t interval of X's net levels/hand over the deals pooled.
    The seatings play in processes of their own, as many at once as there are cores (CI has
    two): each is a pure function of its arguments, so the result is the serial one, in about
    half the wall time of these gates, the slow suite's largest tests."""
    jobs = [(seed, bots) for seed in seeds for bots in ((x, y, x, y), (y, x, y, x))]
    # spawn: a fresh interpreter, nothing of pytest's process (or the beliefs its C core holds)
    workers = resolve_workers(None, len(jobs))
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as ex:
        futures = [
            ex.submit(simulate_hands, "standard", bots, seed, n, level="random")
            for seed, bots in jobs
        ]
        tables = [f.result().to_pandas() for f in futures]
    nets = [pair_outcome(x, y, a, b).net for a, b in zip(tables[::2], tables[1::2], strict=True)]
    return stats.mean_t(np.concatenate(nets))


@pytest.mark.slow
def test_reading_the_play_wins_over_search_v3():
    """search-v3:infer=46 against search-v3 (the same race over uniform consistent worlds) over
    1,500 paired deals (seats swapped, seed 2114): the 95% interval above 0 (+0.034 [+0.022,
    +0.045] over 3,000 deals in docs/bots.md). About 170 s of CPU."""
    net = paired_net("search-v3:infer=46", "search-v3", (2114,), 1500)
    assert net.lo > 0, net


@pytest.mark.slow
def test_reading_the_burial_wins_over_reading_the_play_alone():
    """search-v3:infer=46,kitty=2 against search-v3:infer=46 over 2,000 paired deals (seats
    swapped, 1,000 each of seeds 2140 and 2141, pooled): the 95% interval above 0 (docs/bots.md,
    "search-v3: reading the play"). About 7 minutes of CPU."""
    net = paired_net("search-v3:infer=46,kitty=2", "search-v3:infer=46", (2140, 2141), 1000)
    assert net.lo > 0, net


@pytest.mark.slow
def test_the_largest_race_with_four_chains_wins_over_search_k128():
    """The strongest of the races built to be +0.05 over `search:k=128`,
    `search-v3:k=1024,close=31,early=0,top=7,infer=10,kitty=5,belief=1,cards=1,chains=4`, against
    `search:k=128` over 300 paired deals (seats swapped, seed 2251): the 95% interval above 0. A
    regression gate, not proof of that +0.05: this seed was measured before the gate was written
    (+0.067 [+0.017, +0.116]); over eight fresh seeds the name is above +0.05 (docs/bots.md, "Four
    chains"). It replaced the gate of the same race with one chain (seed 2131), which its frozen
    digests still hold, to keep the slow suite in CI's budget. About 13 minutes of CPU."""
    x = "search-v3:k=1024,close=31,early=0,top=7,infer=10,kitty=5,belief=1,cards=1,chains=4"
    net = paired_net(x, "search:k=128", (2251,), 300)
    assert net.lo > 0, net
