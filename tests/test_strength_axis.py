"""analysis/strength_axis.py: the paired pieces on made-up data, and the script end to end in its
smoke mode (expert-v1, expert-v4 on 200 deals, search:k=2 on 50 and 30 under super; about 9 s of
CPU)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


@pytest.fixture(scope="module")
def axis():
    from analysis import strength_axis

    return strength_axis


def test_paired_quantile_difference(axis):
    x = np.arange(500, dtype=float) % 37
    d, lo, hi = axis.paired_quantile_diff(x + 5, x, 0.5, 0)
    assert (d, lo, hi) == (5.0, 5.0, 5.0)  # a shift of every deal moves every resample alike
    d, lo, hi = axis.paired_quantile_diff(x, np.random.default_rng(1).permutation(x), 0.9, 1)
    assert d == 0.0 and lo < 0 < hi  # same values, other deals: the median moves by chance


def _frames(axis, shifts: dict[str, float], n: int = 3000):
    """Per bot, per-hand values of every figure: Bernoulli(0.3 + shift) for shares, a normal
    total shifted by 10 * shift, on the same deals (a common component per deal)."""
    rng = np.random.default_rng(7)
    base = rng.random(n)
    noise = rng.normal(0, 1, n)
    out = {}
    for bot, s in shifts.items():
        cols = {}
        for key, (_, unit, _) in axis.FIGURES.items():
            if unit == "share":
                cols[key] = (base < 0.3 + s).astype(float)
            else:
                cols[key] = 80 + 10 * s + 20 * noise + rng.normal(0, 1, n)
        out[bot] = pd.DataFrame(cols, index=np.arange(n))
    return out


def test_verdict_is_paired_over_common_deals(axis):
    moving = _frames(axis, {"a": 0.0, "b": 0.0, "c": 0.1})
    steps = axis.last_steps(moving, {})
    assert steps["verdict"].str.startswith("still moving (b -> c)").all()
    assert (steps["last_n"] == 3000).all()
    settled = _frames(axis, {"a": 0.0, "b": 0.1, "c": 0.1})
    steps = axis.last_steps(settled, {})
    assert steps["verdict"].str.startswith("no move detected from b to c").all()
    # the move from the first bot is still seen, in the right direction
    assert (steps["total_lo"] > 0).all()
    # the strongest played fewer deals: pairs are the deals both played
    settled["c"] = settled["c"].iloc[:500]
    steps = axis.last_steps(settled, {})
    assert (steps["last_n"] == 500).all() and (steps["total_n"] == 500).all()


def test_smoke_run_end_to_end(axis, tmp_path, capsys):
    png = tmp_path / "axis.png"
    table, steps = axis.main([str(tmp_path / "runs"), "--smoke", "--plot", str(png)])
    bots = list(axis.SMOKE_AXIS)
    assert list(dict.fromkeys(table["bot"])) == bots
    n_keys = len(axis.FIGURES) + len(axis.QUANTILES) + 1  # + the balance
    assert len(table) == n_keys * len(bots)
    assert (table["lo"] <= table["estimate"]).all() and (table["estimate"] <= table["hi"]).all()
    inside = table["vs_lo"] <= table["vs_strongest"]
    assert (inside & (table["vs_strongest"] <= table["vs_hi"])).all()
    # the strongest against itself: exactly 0; the others paired on the search's 50 deals
    # (30 under super: the balance is paired over the deals all four runs played)
    top = table[table["bot"] == bots[-1]]
    assert (top["vs_strongest"] == 0).all()
    balance = table["key"] == "balance"
    assert (table.loc[~balance, "n_paired"] == 50).all()
    assert (table.loc[balance, "n_paired"] == 30).all() and (
        table.loc[balance, "n"] == 200
    ).sum() == 2
    assert set(steps["key"]) == set(axis.FIGURES) | {"balance"}
    assert png.read_bytes()[:4] == b"\x89PNG"
    out = capsys.readouterr().out
    assert "search:k=2 (= search:k=2,cands=8,base=expert-v3) 50" in out  # versioned names
    assert "| dealer side wins |" in out
    assert "| expert-v1 → expert-v4 | expert-v4 → search:k=2 |" in out  # each step, paired
    # a second call reads the runs back instead of playing them again: the same table
    again, _ = axis.main([str(tmp_path / "runs"), "--smoke", "--read-only"])
    pd.testing.assert_frame_equal(table, again)
