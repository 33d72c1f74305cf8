"""analysis/read_the_play.py and analysis/train_belief.py, their short runs: the knobs parse,
the learned judgement is loaded when asked for, and a belief trains, loads and switches on."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from fastsheng.bots import _infer


def script(name: str):
    # imported by its package's name, so that its worker function pickles (ProcessPoolExecutor)
    return importlib.import_module(name)


def test_fit_takes_a_bot_name_with_knobs_and_judges_when_asked(capsys):
    rtp = script("research.read_the_play")
    # "search:k=4" holds "=" but is the bot, not a knob
    rtp.main(["fit", "1", "2024", "search:k=4", "2", "model=expert-v4"])
    plain = capsys.readouterr().out
    rtp.main(["fit", "1", "2024", "search:k=4", "2", "soft=0.1", "model=expert-v4"])
    soft = capsys.readouterr().out
    assert "search:k=4" in plain and "judged by the learned model" in soft
    # the learned judgement is loaded, so it forgives some misfits: the figures differ
    assert plain.split("misfits")[1] != soft.split("misfits")[1]
    with pytest.raises(SystemExit, match="unknown knob"):
        rtp.main(["fit", "1", "2024", "expert-v3", "2", "steps=3"])
    with pytest.raises(SystemExit, match="chains takes a number"):
        rtp.knobs(["chains=four"])


def test_a_belief_trains_loads_and_switches_on(tmp_path, capsys):
    tb = script("training.train_belief")
    rows = tmp_path / "rows"
    tb.main(
        ["rows", str(rows), "--hands", "100", "--bot", "expert-v1", "--worlds", "1"]
        + ["--every", "30", "--workers", "1", "--kind", "2"]
    )
    with np.load(rows / "belief-s2160-b00001.npz") as z:  # batch 1 trains, 0 is held out
        assert z["x"].shape[1] == _infer.NB_IN_ and set(np.unique(z["y"])) == {0, 1}
        assert int(z["kind"]) == 2 and z["x"][:, -1].any()
    model = tmp_path / "belief.npz"
    tb.main(["fit", str(rows), str(model), "--hidden", "4", "--epochs", "1"])
    assert "ranks above a world" in capsys.readouterr().out
    was = _infer._tune()
    try:
        tb.set_belief(str(model))
        assert _infer._tune()["belief"] == 2
    finally:
        _infer._set_belief(None, None, None, None, None, None)
        _infer._tune(**was)
