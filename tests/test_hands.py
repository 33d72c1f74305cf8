"""The Python API of whole hands and matches (fastsheng.engine.hands): columns and types,
reproducibility, batch independence, deal statistics against combinatorics, match rules."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest

from fastsheng import reference
from fastsheng.bots.names import resolve_bot
from fastsheng.cards import RANKS
from fastsheng.engine import hands as H
from fastsheng.engine.checks import seed_state
from fastsheng.rules import get_rules, list_presets


def test_bots_tuple():
    assert H.BOTS == (
        "random",
        "basic",
        "expert",
        "basic-v1",
        "expert-v1",
        "expert-v2",
        "expert-v3",
        "expert-v4",
        "learned-v1",
        "search",
        "search-v2",
        "search-v3",
        "search-v4",
    )


def test_unknown_bot_is_named():
    with pytest.raises(ValueError, match="'genius'"):
        H.play_batch("standard", "genius", 1, 0, 10)
    with pytest.raises(ValueError, match="'nobody'"):
        H.simulate_hands("standard", ("basic", "basic", "nobody", "basic"), 1, 10)
    with pytest.raises(ValueError, match="got 3"):  # one, two (the teams) or four names
        H.simulate_hands("standard", ("basic", "basic", "basic"), 1, 10)


def test_bad_arguments():
    with pytest.raises(ValueError):
        H.play_batch("standard", "basic", -1, 0, 10)
    with pytest.raises(ValueError):
        H.play_batch("standard", "basic", 1, 0, 0)
    with pytest.raises(ValueError):
        H.play_batch("standard", "basic", 1, 0, 10, level="Z")
    with pytest.raises(ValueError):
        H.play_batch("standard", "basic", 1, 0, 10, mode="games")


def test_hand_columns_and_types():
    out = H.play_batch("standard", ("expert", "basic", "random", "basic"), 3, 2, 50, tricks=True)
    t = out["hands"]
    matches_only = {"match_id", "hand_no", "level_team0", "level_team1"}
    assert set(H.HAND_COLUMNS) - matches_only - {"forfeit"} == set(t.column_names)  # isolated
    assert t.schema.field("hand_id").type == pa.uint64()
    assert t.column("hand_id").to_pylist() == list(range(100, 150))
    assert t.schema.field("batch").type == pa.uint32()
    assert set(t.column("batch").to_pylist()) == {2}
    assert pa.types.is_dictionary(t.schema.field("rules").type)
    assert t.column("rules").to_pylist()[0] == "standard"
    # the resolved (versioned) names: a dataset names the bots that played it
    expected = ",".join(resolve_bot(n) for n in ("expert", "basic", "random", "basic"))
    assert t.column("bots").to_pylist()[0] == expected
    assert t.schema.field("kitty_captured").type == pa.bool_()
    assert t.schema.field("trick_points").type == pa.int16()
    assert t.schema.field("trumps_3").type == pa.uint8()
    assert set(t.column("trump").to_pylist()) <= {"S", "H", "C", "D", "NT"}
    assert set(t.column("winner").to_pylist()) <= {"dealer", "defenders"}
    assert set(t.column("level").to_pylist()) == {"2"}
    tr = out["tricks"]
    assert set(H.TRICK_COLUMNS) == set(tr.column_names)
    # tricks agree with hands: points per hand, cards per trick
    df = tr.to_pandas()
    hd = t.to_pandas().set_index("hand_id")
    assert (df.groupby("hand_id").size() == hd["n_tricks"]).all()
    for s in range(4):
        assert (df[f"cards_{s}"].map(len) == df["ncards"]).all()
    total = df.groupby("hand_id")["points"].sum() + hd["kitty_points_buried"]
    assert (total == 200).all()


def test_hands_mode_invariants_every_preset():
    for preset in list_presets():
        rules = get_rules(preset)
        df = H.simulate_hands(rules, "basic", 5, 300, level="random").to_pandas()
        assert (df["trick_points"] >= 0).all() and (df["trick_points"] <= 200).all()
        assert (df["defenders_total"] >= 0).all()
        assert ((df["trick_points"] % 5) == 0).all()
        for s in range(4):
            assert (df[f"points_{s}"] <= 200).all()
        dealt = sum(df[f"points_{s}"] for s in range(4)) + df["kitty_points_dealt"]
        assert (dealt == 200).all()
        for total, side, levels in zip(
            df["defenders_total"], df["winner"], df["levels"], strict=True
        ):
            exp = reference.hand_levels(rules, int(total), 0)
            if rules.overcall_bonus != "level":
                assert (side, levels) == exp


def test_reproducible_and_batch_independent():
    a = H.play_batch("standard", "basic", 42, 3, 200, tricks=True)
    b = H.play_batch("standard", "basic", 42, 3, 200, tricks=True)
    assert a["hands"].equals(b["hands"]) and a["tricks"].equals(b["tricks"])
    c = H.play_batch("standard", "basic", 42, 4, 200)
    assert not a["hands"].column("trick_points").equals(c["hands"].column("trick_points"))
    # a run's batch 3 is the same whether batches 0..2 ran or not
    run = H.simulate_hands("standard", "basic", 42, 800, batch_size=200)
    tail = run.slice(600, 200)
    assert tail.drop(["batch"]).equals(a["hands"].drop(["batch"]))


def test_truncated_batch_is_a_prefix():
    full = H.simulate_hands("super", "expert", 9, 300, batch_size=300)
    cut = H.simulate_hands("super", "expert", 9, 120, batch_size=300)
    assert cut.equals(full.slice(0, 120))
    many = H.simulate_hands("super", "expert", 9, 450, batch_size=300)
    assert many.slice(0, 300).equals(full)
    assert many.column("hand_id").to_pylist() == list(range(450))
    # the driver's form: play_batch(batch, size, batch_size=full size)
    last = H.play_batch("super", "expert", 9, 1, 150, batch_size=300)["hands"]
    assert last.equals(many.slice(300, 150))
    m_full = H.play_batch("super", "basic", 9, 2, 6, mode="matches")
    m_cut = H.play_batch("super", "basic", 9, 2, 4, mode="matches", batch_size=6)
    assert m_cut["matches"].equals(m_full["matches"].slice(0, 4))
    assert m_cut["matches"].column("match_id").to_pylist() == [12, 13, 14, 15]


def test_random_level_is_uniform_enough():
    df = H.simulate_hands("standard", "random", 8, 2600, level="random").to_pandas()
    counts = df["level"].value_counts()
    assert len(counts) == 13
    assert counts.min() > 120


def test_deal_statistics_match_combinatorics():
    n = 4000
    df = H.simulate_hands("standard", "random", 123, n).to_pandas()
    pairs = np.concatenate([df[f"pairs_{s}"].to_numpy(float) for s in range(4)])
    exp_pairs = 54 * (25 * 24) / (108 * 107)
    # 4n seat-hands (dependent within a deal: a generous 5 sigma of the per-hand spread)
    se = pairs.std() / math.sqrt(n)
    assert abs(pairs.mean() - exp_pairs) < 5 * se, (pairs.mean(), exp_pairs)
    kitty = df["kitty_points_dealt"].to_numpy(float)
    exp_kitty = 200 * 8 / 108
    assert abs(kitty.mean() - exp_kitty) < 5 * kitty.std() / math.sqrt(n)
    jokers = np.concatenate([df[f"jokers_{s}"].to_numpy(float) for s in range(4)])
    assert abs(jokers.mean() - 4 * 25 / 108) < 5 * jokers.std() / math.sqrt(n)
    seats = df["dealer"].value_counts()
    assert seats.min() > n / 4 - 5 * math.sqrt(n * 3 / 16)


def test_first_hand_mode_dealer_from_calls():
    df = H.simulate_hands("standard", "basic", 2, 300, first_hand=True).to_pandas()
    assert df["declarer"].notna().all()  # hand 1 redeals until somebody calls
    assert (df["dealer"] == df["declarer"]).all()  # hand1_dealer = final
    df = H.simulate_hands("classic", "random", 2, 300, first_hand=True).to_pandas()
    assert df["declarer"].notna().all()
    df = H.simulate_hands("huayun", "random", 2, 300, first_hand=True).to_pandas()
    assert (df["dealer"] == df["first_seat"]).all()  # random first dealer


def test_no_call_fallback_from_the_kitty():
    # jokerbid: a call needs a level card and a joker of its colour, so hands without a call
    # happen; trump then comes from a random kitty card
    df = H.simulate_hands("jokerbid", "basic", 4, 2000).to_pandas()
    assert set(df["trump_set"]) <= {"declared", "overcall", "kitty"}
    nocall = df[df["declarer"].isna()]
    assert len(nocall) > 0
    assert (nocall["trump_set"] == "kitty").all()
    assert (df.loc[df["declarer"].notna(), "trump_set"] != "kitty").all()


def test_chaodi_and_stakes_in_super():
    df = H.simulate_hands("super", "random", 6, 1500).to_pandas()
    assert df["n_chaodi"].sum() > 0
    assert (df["stake"] == 2 ** df["n_overcalls"].clip(upper=15)).all()


def test_overcall_level_bonus_in_duiju():
    df = H.simulate_hands("duiju", "random", 6, 1500).to_pandas()
    assert (df["bonus_levels"] == df["n_overcalls"]).all()
    assert (df["n_overcalls"] > 0).any()


def test_failed_throws_and_penalties():
    rules = get_rules("standard")
    df = H.simulate_hands(rules, "_chaos", 7, 500).to_pandas()
    assert df["failed_throws"].sum() > 0
    fails = df[df["failed_throws"] > 0]
    assert (fails["penalty"] != 0).any()


def test_matches():
    out = H.play_batch("standard", "basic", 1, 0, 8, mode="matches")
    m = out["matches"].to_pandas()
    h = out["hands"].to_pandas()
    assert set(H.MATCH_COLUMNS) == set(out["matches"].column_names)
    assert len(m) == 8
    assert (h.groupby("match_id").size() == m.set_index("match_id")["hands"]).all()
    rules = get_rules("standard")
    for _, match in m.iterrows():
        hs = h[h["match_id"] == match["match_id"]].sort_values("hand_no")
        assert hs["hand_no"].tolist() == list(range(1, len(hs) + 1))
        assert hs["level_team0"].iloc[0] == "2" and hs["level_team1"].iloc[0] == "2"
        last = hs.iloc[-1]
        assert match["winner"] in ("team0", "team1")
        team = 0 if match["winner"] == "team0" else 1
        assert last["dealer"] % 2 == team and last["winner"] == "dealer"
        assert last[f"level_team{team}"] == rules.end_rank
        # every hand's dealer is the previous hand's next dealer
        assert (hs["dealer"].iloc[1:].to_numpy() == hs["next_dealer"].iloc[:-1].to_numpy()).all()


def test_match_hand_cap():
    rules = get_rules("standard").replace(hand_cap=5, cap_tie="draw")
    m = H.simulate_matches(rules, "basic", 3, 20).to_pandas()
    assert (m["hands"] <= 5).all()
    assert m["capped"].any()
    capped = m[m["capped"]]
    ties = capped[capped["level_team0"] == capped["level_team1"]]
    assert (ties["winner"] == "draw").all()


@pytest.mark.parametrize("preset", ["standard", "twenty", "tournament", "duiju"])
def test_match_levels_follow_the_reference(preset):
    """Level bookkeeping of whole matches against fastsheng.reference.handflow.Match (advance,
    must-play, end rank, next dealer, the climb of each hand)."""
    from fastsheng.reference.handflow import Match

    rules = get_rules(preset)
    out = H.play_batch(rules, ("expert", "basic", "basic", "random"), 12, 0, 6, mode="matches")
    h = out["hands"].to_pandas()
    m = out["matches"].to_pandas().set_index("match_id")
    for match_id, hs in h.groupby("match_id"):
        hs = hs.sort_values("hand_no")
        match = Match(rules, int(hs["first_seat"].iloc[0]))
        for _, row in hs.iterrows():
            level, first_seat, _ = match.next_hand()  # IllegalPlay once the match is won
            assert [RANKS.index(row["level_team0"]), RANKS.index(row["level_team1"])] == (
                match.levels
            )
            assert (RANKS.index(row["level"]), row["first_seat"]) == (level, first_seat)
            assert match.record(row) == row["levels_climbed"]
        final = m.loc[match_id]
        assert [RANKS.index(final["level_team0"]), RANKS.index(final["level_team1"])] == (
            match.levels
        )
        assert (final["winner"], final["capped"]) == (match.winner, match.capped)


def _xoshiro(state):
    """xoshiro256** in plain Python (Blackman & Vigna)."""
    s = [int(x) for x in state]
    mask = (1 << 64) - 1

    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & mask

    while True:
        result = (rotl((s[1] * 5) & mask, 7) * 9) & mask
        t = (s[1] << 17) & mask
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        yield result


def test_rng_is_xoshiro256starstar_with_lemire():
    from fastsheng import _game

    state = [int(x) for x in seed_state(12345, 7)]
    ref = _xoshiro(state)
    assert _game._rng_draws(state, 0, 50) == [next(ref) for _ in range(50)]
    # Lemire's bounded integers on the same draws: floor(x * n / 2^64), rejecting the low part
    for bound in (1, 4, 13, 108, 10**18 + 9):
        ref = _xoshiro(state)
        out = []
        while len(out) < 200:
            x = next(ref)
            m = x * bound
            lo = m & ((1 << 64) - 1)
            if lo < bound and lo < (2**64 - bound) % bound:
                continue
            out.append(m >> 64)
        assert _game._rng_draws(state, bound, 200) == out
    # the bots' stream (the jump) differs from the cards' stream
    assert _game._rng_draws(state, 0, 5, True) != _game._rng_draws(state, 0, 5)


def test_levels_climbed_is_the_match_real_climb():
    """matches mode: `levels_climbed` is exactly how far the winner's level moved, which the
    end rank and must-play ranks can make smaller than the table's `levels`."""
    out = H.simulate_matches("standard", "expert", seed=3, n=40, hands=True)
    h = out["hands"].to_pandas()
    rank = {r: i for i, r in enumerate(RANKS)}
    seen_short = 0
    for _, m in h.groupby("match_id"):
        m = m.sort_values("hand_no")
        rows = m.to_dict("records")
        for a, b in zip(rows, rows[1:], strict=False):
            team = a["dealer"] % 2 if a["winner"] == "dealer" else 1 - a["dealer"] % 2
            key = f"level_team{team}"
            assert rank[b[key]] - rank[a[key]] == a["levels_climbed"]
            assert a["levels_climbed"] <= a["levels"]
            seen_short += a["levels_climbed"] < a["levels"]
    assert seen_short > 0  # must-play ranks and the end rank do stop climbs


def test_hands_mode_levels_climbed_stops_at_the_end_rank():
    t = H.simulate_hands("standard", "expert", seed=2, n=400, level="A").to_pandas()
    assert (t["levels_climbed"] == 0).all() and (t["levels"] > 0).any()
    t = H.simulate_hands("standard", "expert", seed=2, n=400, level="3").to_pandas()
    assert (t["levels_climbed"] == t["levels"]).all()  # 4, 5 are not must-play ranks


def test_bot_stream_batch_reproduces_runs_made_before_per_hand_streams():
    """Random bots draw from the bots' stream: per hand now, per batch before 0.2 (kept so
    old runs resume and replay identically); deterministic bots never draw."""
    a = H.play_batch("standard", "random", 5, 0, 50, bot_stream="hand")["hands"]
    b = H.play_batch("standard", "random", 5, 0, 50, bot_stream="batch")["hands"]
    assert a.column("level").equals(b.column("level"))  # the deals are the same
    assert a.column("trick_points") != b.column("trick_points")
    e1 = H.play_batch("standard", "expert", 5, 0, 50, bot_stream="hand")["hands"]
    e2 = H.play_batch("standard", "expert", 5, 0, 50, bot_stream="batch")["hands"]
    assert e1.equals(e2)
