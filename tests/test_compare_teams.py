"""compare's team view (seat-swapped, as the ladder measures it), report's per-team split, and
compare's friction: progress, folder names, a rerun with other options."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from fastsheng.engine.hands import simulate_hands
from fastsheng.sim.dataset import DatasetError
from fastsheng.studies.ladder import pair_outcome, pair_row
from fastsheng.studies.report import compare_command
from fastsheng.studies.report.runs import load_run
from fastsheng.studies.report.single import compute_report

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

COLS = ["hand_id", "winner", "levels", "dealer", "kitty_points_dealt"] + [
    f"points_{s}" for s in range(4)
]


def test_compare_of_two_teams_reports_the_ladders_seat_swapped_view(tmp_path):
    rep = compare_command(
        bots=["basic,expert", "expert"], n=150, seed=4, workers=0, out=tmp_path / "c", quiet=True
    )
    t = rep.table("teams").df
    assert len(t) == 1  # expert vs expert needs no team view
    row = t.iloc[0]
    # the same figures as the ladder's pair row over the same deals, computed independently
    a = simulate_hands("standard", ["basic", "expert"], 4, 150).select(COLS).to_pandas()
    b = simulate_hands("standard", ["expert", "basic"], 4, 150).select(COLS).to_pandas()
    want = pair_row(pair_outcome("basic-v1", "expert-v4", a, b))
    assert row["X vs Y"] == "basic-v1 vs expert-v4" and row["deals"] == 150
    for k in ("net", "net_lo", "net_hi", "won", "won_lo", "won_hi"):
        assert row[k] == pytest.approx(want[k])
    assert row["net"] < 0  # basic loses levels to expert
    assert (tmp_path / "c" / "runs" / "basic-v1_expert-v4-seats-swapped" / "run.json").is_file()
    assert (tmp_path / "c" / "teams.csv").is_file()
    head = rep.table("headline")  # the page's caveat is the plot's (next test)
    from fastsheng.studies.report import plots

    assert plots.multiple_comparisons(len(head.df)) in head.note


def test_the_compare_page_and_its_plot_give_one_multiple_comparisons_figure():
    """17 intervals: 0.85 expected to exclude 0 by chance, on the page and in the plot (the page
    said "about 0.8" and the plot "about 0.9")."""
    import pandas as pd

    from fastsheng.studies.report import plots

    for k in (16, 17, 19):
        df = pd.DataFrame(
            {
                "metric": [f"m{i}" for i in range(k)],
                "std_diff": 0.1,
                "std_diff_lo": -0.1,
                "std_diff_hi": 0.3,
            }
        )
        title = " ".join(plots.forest_figure(df, "A - B").axes[0].get_title().split())
        assert f"about {k / 20:.2f} of them" in title
        assert " ".join(plots.multiple_comparisons(k).split()) in title


def test_report_of_a_mixed_lineup_splits_by_team(tmp_path):
    from fastsheng.apps.cli import main

    out = tmp_path / "r"
    assert (
        main(
            [
                "sim",
                "-n",
                "400",
                "--bots",
                "expert,basic,expert,basic",
                "--seed",
                "2",
                "--workers",
                "0",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    run = load_run(out)
    t = compute_report(run, figures=False).table("teams").df
    assert set(t["team"]) == {"team 0 (expert-v4)", "team 1 (basic-v1)"}
    won = t[t["question"] == "hands the team wins"].set_index("team")["estimate"]
    assert won.sum() == pytest.approx(1.0)
    h = run.hands
    team0_won = (h["winner"].astype(str) == "dealer").to_numpy() == (h["dealer"] % 2 == 0)
    assert won["team 0 (expert-v4)"] == pytest.approx(np.mean(team0_won))
    net = t[t["question"].str.startswith("net levels")].set_index("team")["estimate"]
    assert net["team 0 (expert-v4)"] == pytest.approx(-net["team 1 (basic-v1)"]) and net.iloc[0] > 0
    # one bot everywhere: no split
    main(["sim", "-n", "50", "--seed", "2", "--workers", "0", "--out", str(tmp_path / "e"), "-q"])
    assert "teams" not in [x.name for x in compute_report(load_run(tmp_path / "e")).tables]


def test_compare_shows_progress_names_a_rules_file_by_its_stem_and_hints_at_out(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.toml").write_text('preset = "standard"\nkitty_multiplier = "plus_two"\n')
    compare_command(rules=["standard", "x.toml"], n=60, seed=1, workers=0, quiet=False)
    assert (tmp_path / "compare-standard-vs-x" / "index.html").is_file()
    err = capsys.readouterr().err
    assert "sim: 60 hands of standard" in err  # each run's progress (a bar on a terminal)
    with pytest.raises(DatasetError, match="disagrees.*seed 2 .run.json: 1.*give another --out"):
        compare_command(rules=["standard", "x.toml"], n=60, seed=2, workers=0, quiet=True)


def test_compare_of_a_python_bot_picks_one_small_batch_size_for_both_runs(tmp_path):
    rep = compare_command(
        bots=["userbots.simple:LowCards,expert", "expert"],
        n=40,
        seed=1,
        workers=0,
        out=tmp_path / "c",
        quiet=True,
    )
    sizes = {load_run(p).manifest["batch_size"] for p in (tmp_path / "c" / "runs").iterdir()}
    assert sizes == {1_000}  # PYTHON_BATCH_SIZE, for every run of the compare: the deals pair
    assert rep.meta["deal_check"]["same_share"] == 1.0


def test_a_bad_rules_set_is_refused_before_anything_is_played(tmp_path, capsys):
    """compare --rules standard --rules nosuch used to play standard first, then fail."""
    from fastsheng.apps.cli import main

    out = tmp_path / "c"
    code = main(
        ["compare", "--rules", "standard", "--rules", "nosuch", "-n", "5", "--out", str(out)]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "unknown preset 'nosuch'" in err[0]
    assert not (out / "runs").exists()
