"""analysis/rules_across_bots.py: the verdicts, and the script end to end on a tiny n."""

from __future__ import annotations

import pandas as pd
import pytest


@pytest.fixture(scope="module")
def study():
    from analysis import rules_across_bots

    return rules_across_bots


def rows(*cells):
    return pd.DataFrame(
        [{"lineup": b, "diff": (lo + hi) / 2, "lo": lo, "hi": hi} for b, lo, hi in cells]
    )


def test_verdicts(study):
    v = study.verdict
    assert v(rows(("weak", 0.01, 0.03), ("strong", -0.04, -0.02))).startswith(
        "FLIPS with bot strength: > 0 for weak; < 0 for strong"
    )
    assert v(rows(("weak", 0.01, 0.03), ("strong", 0.02, 0.05))) == "holds: > 0 for every line-up"
    assert v(rows(("weak", -0.01, 0.03), ("strong", -0.05, -0.02))) == (
        "holds (< 0) where measurable; indistinguishable from 0 for weak"
    )
    assert v(rows(("weak", -0.01, 0.03), ("strong", -0.05, 0.02))) == (
        "no line-up shows a difference"
    )
    assert v(rows(("weak", 0.0, 0.0), ("strong", 0.0, 0.0))).startswith("no hand differs")


def test_size_changes_are_paired_over_common_deals(study):
    import numpy as np

    per_hand = {"a": np.zeros(400), "b": np.r_[np.ones(200), np.zeros(200)], "c": np.ones(100)}
    out = study.size_changes(per_hand)
    assert [(s["from"], s["to"], s["n"]) for s in out] == [("a", "b", 400), ("b", "c", 100)]
    assert out[0]["change"] == pytest.approx(0.5) and out[0]["lo"] > 0
    assert out[1]["change"] == 0.0  # the first 100 deals of b are all ones, as c


def test_study_runs_end_to_end(study, tmp_path, capsys):
    table = study.main(["300", str(tmp_path)], workers=0, bots=["random", "basic-v1"])
    n_rows = len(study.COMPARISONS) * len(study.METRICS) * 2
    assert len(table) == n_rows and (table["n"] == 300).all()
    assert (table["lo"] <= table["diff"]).all() and (table["diff"] <= table["hi"]).all()
    # neither bot ever fails a throw: the penalty variant changes no hand at all, and the
    # interval bounds what 300 unchanged hands allow (never the zero-width [0, 0])
    pen = table[table["comparison"] == "standard - no throw penalty"]
    assert (pen["diff"] == 0).all() and (pen["lo"] < 0).all() and (pen["hi"] > 0).all()
    assert (pen["lo"] == -pen["hi"]).all()
    out = capsys.readouterr().out
    assert "standard - no throw penalty, dealer side wins: no hand differs" in out
