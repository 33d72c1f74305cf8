"""fastsheng.ladder and `fastsheng ladder`: paired seatings, the pair figures, Bradley–Terry."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from fastsheng import cli, ladder
from fastsheng.hands import simulate_hands
from fastsheng.rules import get_rules


def run_cli(capsys, *args):
    code = cli.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(code, err, *words):
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for word in words:
        assert word in lines[0], lines[0]


# --------------------------------------------------------------------------------------------
# Outcomes of one seating and of a pair


def test_seating_outcome_by_hand():
    hands = pd.DataFrame(
        {
            "dealer": [0, 1, 2, 3, 1],
            "winner": ["dealer", "dealer", "defenders", "defenders", "defenders"],
            "levels": [2, 1, 0, 3, 1],
        }
    )
    net0, won0 = ladder.seating_outcome(hands)
    # team 0 deals and goes up 2; team 1 deals and goes up 1; team 1 takes team 0's deal (no
    # level); team 0 takes team 1's deal and goes up 3; team 0 takes team 1's deal, +1
    assert net0.tolist() == [2, -1, 0, 3, 1]
    assert won0.tolist() == [True, False, False, True, True]


def test_a_bot_against_itself_nets_exactly_zero_on_every_deal():
    a = simulate_hands("standard", "basic", 11, 400).to_pandas()
    b = simulate_hands("standard", "basic", 11, 400).to_pandas()
    p = ladder.pair_outcome("basic", "basic", a, b)
    assert p.deals == 400
    assert (p.net == 0).all()  # each deal: the same hand seen from both teams
    assert (p.wins == 1).all()
    row = ladder.pair_row(p)
    assert row["net"] == row["net_lo"] == row["net_hi"] == 0.0
    assert row["won"] == 0.5


def test_pair_outcome_refuses_different_deals():
    a = simulate_hands("standard", ("expert", "basic") * 2, 1, 200).to_pandas()
    b = simulate_hands("standard", ("basic", "expert") * 2, 2, 200).to_pandas()
    with pytest.raises(ladder.LadderError, match="different cards"):
        ladder.pair_outcome("expert", "basic", a, b)


def test_swapped_is_the_other_side():
    p = ladder.PairOutcome("x", "y", np.array([1.0, -0.5, 0.0]), np.array([2, 0, 1], np.int8))
    q = p.swapped()
    assert (q.x, q.y) == ("y", "x")
    assert q.net.tolist() == [-1.0, 0.5, 0.0]
    assert q.wins.tolist() == [0, 2, 1]


# --------------------------------------------------------------------------------------------
# A small ladder, played for real in-process


@pytest.fixture(scope="module")
def small_ladder(tmp_path_factory):
    out = tmp_path_factory.mktemp("ladder")
    spec = ladder.LadderSpec(("random", "basic", "expert"), 300, 5, get_rules("standard"))
    lad = ladder.play_ladder(spec, out, workers=0, n_boot=300)
    return spec, lad


def test_pairing_swaps_seats_on_identical_deals(small_ladder):
    spec, lad = small_ladder
    for x, y in spec.pairs:
        one = ladder.run_path(lad.out, x, y)
        two = ladder.run_path(lad.out, y, x)
        rx, ry = ladder.resolve_bot_name(x), ladder.resolve_bot_name(y)  # recorded as played
        assert json.loads((one / "run.json").read_text())["bots"] == [rx, ry, rx, ry]
        assert json.loads((two / "run.json").read_text())["bots"] == [ry, rx, ry, rx]
        a = pq.read_table(one / "hands").to_pandas().sort_values("hand_id")
        b = pq.read_table(two / "hands").to_pandas().sort_values("hand_id")
        assert len(a) == len(b) == spec.n
        # the same cards to the same seats: the deal-only features agree seat by seat
        for col in ["dealer", "first_seat", "kitty_points_dealt"] + [
            f"{f}_{s}" for f in ("points", "jokers", "pairs", "level_cards") for s in range(4)
        ]:
            assert (a[col].to_numpy() == b[col].to_numpy()).all(), (x, y, col)
        # ... and the play differs (different bots hold them)
        assert (a["defenders_total"].to_numpy() != b["defenders_total"].to_numpy()).any()


def test_small_ladder_tables(small_ladder):
    spec, lad = small_ladder
    assert list(lad.ratings["bot"]) == ["expert", "basic", "random"]
    assert (lad.ratings["rating_lo"] <= lad.ratings["rating"]).all()
    assert (lad.ratings["rating"] <= lad.ratings["rating_hi"]).all()
    assert abs(lad.ratings["rating"].sum()) < 1e-9
    # X is the higher-rated bot of each pair, and beats Y
    assert list(zip(lad.pairs["x"], lad.pairs["y"], strict=True)) == [
        ("expert", "basic"),
        ("expert", "random"),
        ("basic", "random"),
    ]
    assert (lad.pairs["net_lo"] > 0).all()
    assert (lad.pairs["won"] > 0.5).all()
    assert (lad.pairs["deals"] == spec.n).all()
    # the pair table is the outcomes' means
    for row, o in zip(lad.pairs.itertuples(), lad.outcomes, strict=True):
        assert row.net == pytest.approx(o.net.mean())
        assert row.won == pytest.approx(o.wins.mean() / 2)


def test_ladder_is_reproducible_and_resumes(small_ladder, tmp_path):
    spec, lad = small_ladder
    again = ladder.play_ladder(spec, lad.out, workers=0, n_boot=300)  # finished runs reused
    pd.testing.assert_frame_equal(again.pairs, lad.pairs)
    fresh = ladder.play_ladder(spec, tmp_path, workers=0, n_boot=300)
    pd.testing.assert_frame_equal(fresh.pairs, lad.pairs)
    pd.testing.assert_frame_equal(fresh.ratings, lad.ratings)


# --------------------------------------------------------------------------------------------
# Bradley–Terry


def test_bradley_terry_recovers_known_strengths():
    theta = np.array([1.0, 0.3, -0.2, -1.1])
    theta -= theta.mean()
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
    wins = 1e6 * p  # expected counts: the MLE is the truth
    np.fill_diagonal(wins, 0)
    est, regularized = ladder.bradley_terry(wins)
    assert not regularized
    np.testing.assert_allclose(est, theta, atol=1e-4)


def test_bradley_terry_survives_a_bot_that_never_wins():
    wins = np.array([[0, 60, 100], [40, 0, 100], [0, 0, 0]], float)
    est, regularized = ladder.bradley_terry(wins)
    assert regularized and np.all(np.isfinite(est))
    assert est[0] > est[1] > est[2]


def test_bt_ratings_order_and_coverage_on_synthetic_deals():
    rng = np.random.default_rng(4)
    bots = ["c", "a", "b"]  # listed out of order on purpose
    theta = {"a": 0.8, "b": 0.0, "c": -0.8}
    outcomes = []
    for x, y in [("c", "a"), ("c", "b"), ("a", "b")]:
        p = 1 / (1 + np.exp(-(theta[x] - theta[y])))
        wins = rng.binomial(2, p, size=4000).astype(np.int8)
        outcomes.append(ladder.PairOutcome(x, y, np.zeros(4000), wins))
    r = ladder.bt_ratings(bots, outcomes, n_boot=300, seed=1)
    assert list(r["bot"]) == ["a", "b", "c"]
    for row in r.itertuples():
        assert row.rating_lo <= theta[row.bot] <= row.rating_hi, row
    assert np.allclose(r["elo"], r["rating"] * 400 / np.log(10))


def test_bt_ratings_with_a_capped_pair_use_its_prefix_only():
    rng = np.random.default_rng(2)
    full, short = 3000, 400
    outcomes = [
        ladder.PairOutcome("a", "b", np.zeros(full), rng.binomial(2, 0.6, full).astype(np.int8)),
        ladder.PairOutcome("a", "s", np.zeros(short), rng.binomial(2, 0.8, short).astype(np.int8)),
        ladder.PairOutcome("b", "s", np.zeros(short), rng.binomial(2, 0.7, short).astype(np.int8)),
    ]
    r = ladder.bt_ratings(["a", "b", "s"], outcomes, n_boot=200).set_index("bot")
    w = np.zeros((3, 3))
    for o, (i, j) in zip(outcomes, [(0, 1), (0, 2), (1, 2)], strict=True):
        w[i, j], w[j, i] = o.wins.sum(), 2 * o.deals - o.wins.sum()
    expected, _ = ladder.bradley_terry(w)
    np.testing.assert_allclose(r.loc[["a", "b", "s"], "rating"], expected)
    # the short pairs are less certain: s's interval is wider than b's
    width = r["rating_hi"] - r["rating_lo"]
    assert width["s"] > width["b"]


# --------------------------------------------------------------------------------------------
# The command


def test_cli_ladder_writes_tables(capsys, tmp_path):
    out = tmp_path / "lad"
    code, stdout, err = run_cli(
        capsys,
        *("ladder", "--bots", "random,basic", "-n", "200", "--seed", "3", "--workers", "0"),
        *("--batch-size", "100", "-o", str(out), "-q", "--markdown"),
    )
    assert code == 0, err
    assert "| basic vs random | 200 |" in stdout
    assert "--seed 3" in stdout
    for name in ("pairs.csv", "ratings.csv", "ladder.md", "ladder.json"):
        assert (out / name).is_file()
    pairs = pd.read_csv(out / "pairs.csv")
    assert list(pairs["x"]) == ["basic"] and pairs["net"][0] > 0
    meta = json.loads((out / "ladder.json").read_text())
    assert meta["seed"] == 3 and meta["n"] == 200 and meta["bots"] == ["random", "basic"]


def test_max_deals_names_a_bot_or_its_base_name():
    class FakeSpec(ladder.LadderSpec):  # no name check: the parameters are search's business
        def __post_init__(self):
            pass

    spec = FakeSpec(("expert", "search:k=8,cands=4"), 1000, 1, None, max_deals=(("search", 50),))
    assert spec.deals("expert", "search:k=8,cands=4") == 50
    assert spec.deals("expert", "basic") == 1000
    spec = FakeSpec(("expert", "basic"), 1000, 1, None, max_deals=(("expert", 70), ("basic", 60)))
    assert spec.deals("expert", "basic") == 60


def test_cli_max_deals_caps_the_pairs_of_a_bot(capsys, tmp_path):
    out = tmp_path / "lad"
    code, _, err = run_cli(
        capsys,
        *("ladder", "--bots", "random,basic,expert", "-n", "300", "--max-deals", "random=100"),
        *("--seed", "2", "--workers", "0", "--batch-size", "150", "-q", "-o", str(out)),
    )
    assert code == 0, err
    pairs = pd.read_csv(out / "pairs.csv")
    deals = {frozenset((x, y)): d for x, y, d in pairs[["x", "y", "deals"]].itertuples(index=False)}
    assert deals == {
        frozenset(("expert", "basic")): 300,
        frozenset(("expert", "random")): 100,
        frozenset(("basic", "random")): 100,
    }
    capped = pq.read_table(ladder.run_path(out, "random", "basic") / "hands").to_pandas()
    full = pq.read_table(ladder.run_path(out, "basic", "expert") / "hands").to_pandas()
    capped, full = capped.sort_values("hand_id"), full.sort_values("hand_id")
    # the capped pair played the first 100 of the same deals
    assert capped["hand_id"].tolist() == list(range(100))
    for col in ("dealer", "kitty_points_dealt", "points_0", "jokers_3"):
        assert (capped[col].to_numpy() == full[col].to_numpy()[:100]).all(), col
    assert json.loads((out / "ladder.json").read_text())["max_deals"] == {"random": 100}


@pytest.mark.parametrize(
    "args, words",
    [
        (("--bots", "expert", "-n", "10"), ("at least two bots",)),
        (("--bots", "expert,basic,expert", "-n", "10"), ("'expert'", "twice")),
        (("--bots", "expert,nobot", "-n", "10"), ("unknown bot", "nobot")),
        (("--bots", "expert,,basic", "-n", "10"), ("comma-separated",)),
        (("--bots", "expert,basic"), ("missing -n",)),
        (("--bots", "expert,basic", "-n", "ten"), ("-n must be a whole number",)),
        (("--bots", "expert,basic", "-n", "10", "--level", "Z"), ("unknown --level",)),
        (("--bots", "expert,basic", "-n", "10", "--rules", "nope"), ("nope",)),
        (("--bots", "expert,basic", "-n", "10", "--workers", "-1"), ("--workers",)),
        (("--bots", "expert,basic", "-n", "1e13"), ("-n", "at most")),
        (("--bots", "expert,basic", "-n", "10", "--max-deals", "nobot=5"), ("not in --bots",)),
        (("--bots", "expert,basic", "-n", "10", "--max-deals", "basic"), ("BOT=N",)),
        (("--bots", "expert,basic", "-n", "10", "--max-deals", "basic=0"), ("at least 1",)),
    ],
)
def test_cli_ladder_errors(capsys, tmp_path, args, words):
    code, _, err = run_cli(capsys, "ladder", *args, "-o", str(tmp_path / "x"))
    assert_one_line_error(code, err, *words)
    assert not (tmp_path / "x").exists()


def test_an_alias_and_its_version_are_rated_once(capsys, tmp_path):
    """`expert` names expert-v4: listed with it, it is one bot, rated once and said so (it was
    rated twice, as two bots netting exactly 0 against each other)."""
    newest = ladder.resolve_bot_name("expert")
    spec = ladder.LadderSpec(("basic", "expert", newest), 50, 8, get_rules("standard"))
    assert spec.bots == ("basic", "expert") and spec.merged == ((newest, "expert"),)
    with pytest.raises(ladder.LadderError, match="at least two bots.*one bot"):
        ladder.LadderSpec(("Basic", "basic-v1"), 50, 8, get_rules("standard"))
    code, out, err = run_cli(
        capsys,
        *("ladder", "--bots", f"random,expert,{newest}", "-n", "30", "--seed", "1", "-w", "0"),
        *("-q", "-o", str(tmp_path / "lad")),
    )
    assert code == 0, err
    assert f"{newest} is the same bot as expert: rated once" in out
    assert out.count("expert vs random") == 1 and newest + " vs" not in out
    meta = json.loads((tmp_path / "lad" / "ladder.json").read_text())
    assert meta["bots"] == ["random", "expert"] and meta["merged"] == {newest: "expert"}


def test_cli_ladder_refuses_a_folder_of_another_ladder(capsys, tmp_path):
    out = str(tmp_path / "lad")
    common = ("ladder", "--bots", "random,basic", "--seed", "3", "--workers", "0", "-q", "-o", out)
    code, _, err = run_cli(capsys, *common, "-n", "100")
    assert code == 0, err
    code, _, err = run_cli(capsys, *common, "-n", "150")  # same folder, other n
    assert_one_line_error(code, err, "disagrees", "n 150")


def test_a_pair_row_does_not_depend_on_the_other_bots(small_ladder):
    spec, lad = small_ladder
    two = ladder.LadderSpec(("random", "basic"), spec.n, spec.seed, spec.rules)
    alone = ladder.play_ladder(two, lad.out, workers=0, n_boot=100)  # the runs are reused
    # (the model's share of the pair, bt_won / bt_z, is the ratings': it depends on them all)
    row = lad.pairs.set_index(["x", "y"]).loc[("basic", "random")].drop(["bt_won", "bt_z"])
    pd.testing.assert_series_equal(
        alone.pairs.set_index(["x", "y"]).loc[("basic", "random")].drop(["bt_won", "bt_z"]),
        row,
        check_names=False,
    )


def test_a_corrupt_pair_part_is_refused_not_read(tmp_path):
    """The ladder reads its pair runs through the verified reader: a part whose bytes disagree
    with run.json stops it, naming the part."""
    from fastsheng import runner
    from fastsheng.dataset import DatasetError
    from fastsheng.ladder import _read_outcome_columns
    from fastsheng.rules import get_rules

    spec = runner.RunSpec(
        rules=get_rules("standard"), bots=("expert",) * 4, seed=1, n=20, batch_size=10
    )
    runner.run(spec, tmp_path / "pair", workers=1)
    assert len(_read_outcome_columns(tmp_path / "pair")) == 20
    part = sorted((tmp_path / "pair" / "hands").glob("part-*.parquet"))[0]
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0xFF
    part.write_bytes(bytes(data))
    with pytest.raises(DatasetError, match="part-00000"):
        _read_outcome_columns(tmp_path / "pair")
