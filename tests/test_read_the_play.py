"""research/read_the_play.py and training/train_belief.py, their short runs: the knobs parse
and reach the names that search, the learned judgement is read when asked for, and a belief
trains, loads and switches on in the name that reads it."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from fastsheng.bots import _infer, _reading, bot_spec
from fastsheng.bots.lineup import lineup_for
from fastsheng.bots.names import BOT_INDEX
from fastsheng.engine.game import Game


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
    # the name that reads the play by it: the file's kind, loaded into its seats
    name = f"search-v3:infer=10,{tb.belief_setting(str(model))}"
    assert bot_spec(name).core_fields()["belief"] == 2
    assert bot_spec(name).belief_model() == (str(model), None)
    # a game's misfits read by it are its -log P (hundredths of a nat, whole units), not the
    # 0/1 count of the same line-up without it
    read, plain = lineup_for(name), lineup_for("search-v3:infer=10")
    g = Game("standard", seed=3, hand_id=0, level="random")
    differ = False
    while g.phase != "done" and not differ:
        if g.phase == "play":
            seat, bot = g.to_act, BOT_INDEX[tb.MODEL_BOT]
            differ = _reading.misfits(g._core, seat, bot, read) != _reading.misfits(
                g._core, seat, bot, plain
            )
        g.apply(g.bot_action("expert-v1"))
    assert differ


def test_the_strength_knobs_reach_the_names_that_search(tmp_path):
    rtp = script("research.read_the_play")
    k = rtp.knobs(["steps=3", "z=0.5", "oracle=16", "chains=2", "soft=0.1", "model=expert-v4"])
    # a search-v3 name that reads the play takes them all; z and oracle reach one that does not
    got = bot_spec(rtp.with_knobs("search-v3:k=16,infer=10", k))
    assert (got.steps, got.z, got.oracle, got.chains, got.soft, got.model) == (
        3,
        0.5,
        1,
        2,
        0.1,
        "expert-v4",
    )
    got = bot_spec(rtp.with_knobs("search-v3:k=32", k))
    assert (got.z, got.oracle, got.steps, got.chains, got.soft) == (0.5, 0, 20, 1, 0.0)
    # a name's own chains win; any other bot is kept as it is
    assert bot_spec(rtp.with_knobs("search-v3:k=16,infer=10,chains=4", k)).chains == 4
    assert rtp.with_knobs("search:k=4", k) == "search:k=4"
    assert rtp.with_knobs("expert", k) == "expert"
    cards = rtp.with_knobs("search-v4", rtp.knobs(["cards=/x/Cards.npz"]))
    assert (bot_spec(cards).cards_path, bot_spec(cards).lam) == ("/x/Cards.npz", 1.0)
