"""fastsheng.studies.ladder and `fastsheng ladder`: paired seatings, the pair figures,
Bradley–Terry."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from fastsheng.apps import cli
from fastsheng.engine.hands import simulate_hands
from fastsheng.rules import get_rules
from fastsheng.studies import ladder
from fastsheng.studies.ladder.outcomes import _share
from fastsheng.studies.ladder.output import _pair_display, _text


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
    from fastsheng.rules import get_rules
    from fastsheng.sim import runner
    from fastsheng.sim.dataset import DatasetError
    from fastsheng.studies.ladder.pairs import _read_outcome_columns

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


# --------------------------------------------------------------------------------------------
# Bot names as given, and small-n honesty


def test_cli_ladder_keeps_a_module_path_s_case(capsys, tmp_path, monkeypatch):
    """`userbots.simple:LowCards` was lowercased to `...:lowcards` and failed; built-in names
    still match in any case (`Expert`), in --bots and in --max-deals."""
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent))
    out = tmp_path / "lad"
    code, stdout, err = run_cli(
        capsys,
        *("ladder", "--bots", "userbots.simple:LowCards,Expert", "-n", "12", "--seed", "2"),
        *("--max-deals", "expert=6", "-w", "0", "-q", "-o", str(out)),
    )
    assert code == 0, err
    assert "Expert vs userbots.simple:LowCards" in stdout
    meta = json.loads((out / "ladder.json").read_text())
    assert meta["bots"] == ["userbots.simple:LowCards", "Expert"]
    assert meta["resolved"] == ["userbots.simple:LowCards", ladder.resolve_bot_name("expert")]
    assert pd.read_csv(out / "pairs.csv")["deals"].tolist() == [6]


def test_bot_objects_and_classes_play_in_the_ladder(tmp_path):
    """A bot class, and an object, go to the runner as themselves (the shared resolver makes
    them BotRefs), filed under their module:Class."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from userbots.simple import AsExpert, LowCards

    spec = ladder.LadderSpec((LowCards, AsExpert(), "expert"), 6, 1, get_rules("standard"))
    assert spec.bots[0] is LowCards
    assert spec.labels == ("userbots.simple:LowCards", "userbots.simple:AsExpert", "expert")
    assert ladder.run_path(Path("o"), LowCards, "x").name == "userbots.simple_LowCards_vs_x"
    lad = ladder.play_ladder(spec, tmp_path, workers=0, n_boot=20)
    assert set(lad.pairs["x"]) | set(lad.pairs["y"]) == set(spec.labels)
    played = json.loads((ladder.run_path(tmp_path, LowCards, "expert") / "run.json").read_text())
    assert played["bots"][0] == "userbots.simple:LowCards"


def test_cli_ladder_of_one_deal_says_n_a_and_why(capsys, tmp_path):
    """-n 1: a choix traceback (RuntimeError) and a zero-width "95%" interval before; now no
    interval (n/a) and a line saying why there is no rating."""
    for markdown in ((), ("--markdown",)):
        code, out, err = run_cli(
            capsys,
            *("ladder", "--bots", "random,expert", "-n", "1", "--seed", "1", "-w", "0", "-q"),
            *("-o", str(tmp_path / f"lad{len(markdown)}"), *markdown),
        )
        assert code == 0 and "Traceback" not in err, err
        assert "[n/a]" in out and "fewer than 2 deals" in out
        assert "no Bradley–Terry rating: expert never lost a hand" in out


def test_a_bot_that_wins_every_hand_has_no_rating_only_a_statement():
    wins = np.full(20, 2, np.int8)
    o = ladder.PairOutcome("expert", "random", np.full(20, 1.5), wins)
    r = ladder.bt_ratings(["expert", "random"], [o], n_boot=50)
    assert r["rating"].isna().all() and r["rating_lo"].isna().all()
    assert "expert never lost a hand" in r.attrs["note"] and "random never won" in r.attrs["note"]
    row = ladder.pair_row(o)  # no variation in the net levels: n/a, not [1.5, 1.5]
    assert row["net"] == 1.5 and np.isnan(row["net_lo"]) and "no interval" in row["warning"]
    assert row["won"] == 1.0 and row["won_hi"] == 1.0 and 0.8 < row["won_lo"] < 1.0


def test_nearly_always_winning_has_a_rough_rating_not_a_traceback():
    """39 of 40 hands: most bootstrap replicates have a bot that never lost (choix raised
    RuntimeError on them); the rating stands, its interval said to be rough."""
    wins = np.full(20, 2, np.int8)
    wins[3] = 1
    o = ladder.PairOutcome("expert", "random", np.linspace(0, 2, 20), wins)
    r = ladder.bt_ratings(["expert", "random"], [o], n_boot=200)
    assert np.isfinite(r["rating"]).all() and r["rating"][0] > 0
    assert r.attrs["prior_share"] > 0.2 and "rough" in r.attrs["note"]


def test_a_share_near_1_stays_below_100_percent():
    """96.2% at 40 deals printed [92.0%, 100.5%] (a t interval on the deals)."""
    wins = np.array([2] * 37 + [1] * 3, np.int8)
    row = ladder.pair_row(ladder.PairOutcome("x", "y", np.linspace(-1, 3, 40), wins))
    assert row["won"] == pytest.approx(77 / 80)
    assert 0.85 < row["won_lo"] < row["won"] < row["won_hi"] < 1.0


def test_skew_warnings_reach_the_printed_and_markdown_tables(small_ladder):
    spec, lad = small_ladder
    pairs = lad.pairs.copy()
    pairs.loc[0, "warning"] = "won: only 3 observations differ from the most common value"
    lad2 = ladder.Ladder(spec, pairs, lad.ratings, lad.out, lad.outcomes, 0.0, lad.fit)
    for text in (ladder.ladder_text(lad2), ladder.ladder_markdown(lad2)):
        assert "warning" in text and "only 3 observations differ" in text
    assert "warning" not in _text(_pair_display(lad.pairs.assign(warning="")))


def _bt_outcomes(theta: dict, n: int, rng, p_of=None) -> list:
    out = []
    for x, y in itertools.combinations(theta, 2):
        p = p_of(x, y) if p_of else 1 / (1 + np.exp(-(theta[x] - theta[y])))
        out.append(ladder.PairOutcome(x, y, np.zeros(n), rng.binomial(2, p, n).astype(np.int8)))
    return out


def _fit(outcomes, bots):
    r = ladder.bt_ratings(bots, outcomes, n_boot=2)
    return ladder.bt_fit(r, outcomes)[0]


def test_bt_fit_flags_a_misfit_and_passes_a_true_model():
    """Intransitive strengths (a beats b, b beats c, c beats a, 70% each) cannot be ratings:
    the fit says so. Data drawn from a Bradley–Terry model: rejected at 5% in about 5% of
    ladders (here at most 12% of 100)."""
    rng = np.random.default_rng(np.random.SeedSequence(3))
    beats = {("a", "b"), ("b", "c"), ("c", "a")}
    cyc = _bt_outcomes(
        {"a": 0, "b": 0, "c": 0}, 2000, rng, lambda x, y: 0.7 if (x, y) in beats else 0.3
    )
    fit = _fit(cyc, ["a", "b", "c"])
    assert fit.fits is False and fit.p_value < 1e-6 and fit.df == 1
    assert "does not fit" in fit.text() and "pair table is the measurement" in fit.text()
    theta = {"a": 1.0, "b": 0.3, "c": -0.2, "d": -1.1}
    rejected = [not _fit(_bt_outcomes(theta, 3000, rng), list(theta)).fits for _ in range(100)]
    assert np.mean(rejected) <= 0.12


def test_ladder_prints_the_fit_beside_the_ratings(small_ladder):
    spec, lad = small_ladder
    assert lad.fit is not None and lad.fit.df == 1
    assert "fit to the pair shares: chi-square" in ladder.ladder_text(lad)
    assert np.isfinite(lad.pairs["bt_z"]).all()
    assert abs(lad.pairs["bt_z"]).max() == pytest.approx(lad.fit.max_abs_z)


@pytest.fixture(scope="module")
def expert_random_deals():
    """expert vs random on 4,000 paired deals (both seatings), from the simulator: about 2 s."""
    a = simulate_hands("standard", ("expert", "random") * 2, 99, 4000).to_pandas()
    b = simulate_hands("standard", ("random", "expert") * 2, 99, 4000).to_pandas()
    return ladder.pair_outcome("expert", "random", a, b)


def _share_coverage(pool, n: int, reps: int, seed: int) -> float:
    """Coverage of the pair table's share interval for n deals drawn from ``pool`` (whose mean
    is then the truth): the deals' values are 0, 1/2 or 1, so a draw is a multinomial count."""
    y = pool.wins / 2.0
    values, counts = np.unique(y, return_counts=True)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(n,)))
    hits = [
        _share(np.repeat(values, c) * 2, False).covers(y.mean())
        for c in rng.multinomial(n, counts / counts.sum(), size=reps)
    ]
    return float(np.mean(hits))


@pytest.mark.parametrize("n", [40, 300])
def test_share_interval_covers_on_simulator_deals(expert_random_deals, n):
    """Near 100% (expert wins ~97% of hands against random) at few deals: the t interval
    covered 0.89 at 40 deals; the bounded one covers at least 0.94 of 1,000 draws."""
    assert _share_coverage(expert_random_deals, n, 1000, 5) >= 0.94


def test_docs_quote_the_rating_difference_of_their_own_table():
    """docs/bots.md explains the misfit with expert-v1 vs random's model share: the exponent it
    quotes must be the difference of the ratings in its table (it quoted 3.077 for a table whose
    ratings differ by 3.081), and the share must be 1 / (1 + e^-d)."""
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "bots.md").read_text()
    row = re.search(
        r"\| `standard` \| ([+−-][\d.]+) \[.*?\| ([+−-][\d.]+) \[.*?\| ([+−-][\d.]+) \[", doc
    )
    v1, _, rnd = (float(v.replace("−", "-")) for v in row.groups())
    quoted = re.search(r"model 1 / \(1 \+ e\^−([\d.]+)\) =\s+([\d.]+)%", doc)
    d, share = float(quoted.group(1)), float(quoted.group(2))
    assert abs(d - (v1 - rnd)) <= 0.0015, (d, v1 - rnd)
    assert share == pytest.approx(100 / (1 + math.exp(-d)), abs=0.05)


@pytest.mark.slow
def test_docs_ladder_and_its_fit_reproduce(tmp_path):
    """The docs' `standard` ladder (random, basic-v1, expert-v1, 100,000 deals, seed 2024): the
    ratings' difference docs/bots.md quotes and the fit it reports. About 30 s of CPU (63 s wall
    on 2 shared cores)."""
    spec = ladder.LadderSpec(
        ("random", "basic-v1", "expert-v1"), 100_000, 2024, get_rules("standard")
    )
    lad = ladder.play_ladder(spec, tmp_path, n_boot=200)
    r = lad.ratings.set_index("bot")["rating"]
    assert r["expert-v1"] - r["random"] == pytest.approx(3.080, abs=0.0005)
    assert lad.fit.df == 1 and lad.fit.chi2 == pytest.approx(1152, abs=1) and not lad.fit.fits
    z = lad.pairs.set_index(["x", "y"])["bt_z"]
    assert z[("expert-v1", "random")] == pytest.approx(26.6, abs=0.05)


@pytest.mark.slow
def test_share_interval_covers_at_the_ladder_s_sizes():
    """The share interval on expert vs random deals from the simulator (20,000 paired deals as
    the pool, the truth its mean) at 20,000 deals (the size `fastsheng ladder` suggests) and
    2,000: coverage at least 0.935 of 600 draws. About 4 s."""
    a = simulate_hands("standard", ("expert", "random") * 2, 7, 20_000).to_pandas()
    b = simulate_hands("standard", ("random", "expert") * 2, 7, 20_000).to_pandas()
    pool = ladder.pair_outcome("expert", "random", a, b)
    for n in (2_000, 20_000):
        assert _share_coverage(pool, n, 600, 11) >= 0.935, n


@pytest.mark.slow
def test_rating_interval_covers_on_simulator_deals():
    """The ratings' bootstrap interval, on deals of random, basic and expert from the simulator
    (5,000 paired deals per pair as the pool; the truth is the pool's rating), at 2,000 deals
    drawn jointly for all pairs as the ladder plays them: each bot's interval covers its truth
    in at least 88% of 50 ladders (95% nominal; 150 correlated intervals). About 60 s."""
    bots = ["random", "basic", "expert"]
    pool = []
    for x, y in itertools.combinations(bots, 2):
        a = simulate_hands("standard", (x, y) * 2, 5, 5000).to_pandas()
        b = simulate_hands("standard", (y, x) * 2, 5, 5000).to_pandas()
        pool.append(ladder.pair_outcome(x, y, a, b))
    truth = ladder.bt_ratings(bots, pool, n_boot=2).set_index("bot")["rating"]
    rng = np.random.default_rng(np.random.SeedSequence(23))
    hits = []
    for _ in range(50):
        idx = rng.integers(0, 5000, 2000)
        sub = [ladder.PairOutcome(o.x, o.y, o.net[idx], o.wins[idx]) for o in pool]
        r = ladder.bt_ratings(bots, sub, n_boot=200).set_index("bot")
        hits += [r.loc[b, "rating_lo"] <= truth[b] <= r.loc[b, "rating_hi"] for b in bots]
    assert np.mean(hits) >= 0.88


def test_a_ladder_with_a_python_bot_gets_sims_smaller_batches():
    """The ladder's default batch size is sim's for the line-up: one batch of 10,000 hands of a
    slow Python bot would sit on one worker."""
    from fastsheng.sim.runner import DEFAULT_BATCH_SIZE, PYTHON_BATCH_SIZE
    from fastsheng.studies.ladder.command import _default_batch_size

    assert _default_batch_size(["random", "expert"]) == DEFAULT_BATCH_SIZE["hands"]
    python = _default_batch_size(["expert", "userbots.simple:LowCards"])
    assert python == PYTHON_BATCH_SIZE["hands"] < DEFAULT_BATCH_SIZE["hands"]
