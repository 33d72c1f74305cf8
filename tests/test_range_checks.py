"""Out-of-range indices raise ValueError naming the argument: they used
to answer silently from past the end of a table (``Context.effective_suit(100)`` gave 6,
``Game.hand(-1)`` a hand)."""

import pytest

import fastsheng as fs


@pytest.mark.parametrize("method", ["effective_suit", "is_trump", "key"])
@pytest.mark.parametrize("code", [-1, 54, 100])
def test_a_context_refuses_a_code_that_is_no_card(method, code):
    ctx = fs.Context(fs.get_rules("standard"), level="2", trump="S")
    with pytest.raises(ValueError, match=rf"code must be a card code 0\.\.53, not {code}"):
        getattr(ctx, method)(code)
    assert getattr(ctx, method)(0) == getattr(ctx, method)(0)  # a card still answers


@pytest.mark.parametrize("seat", [-1, 4, 100, True, 1.0, "0"])
@pytest.mark.parametrize("method", ["hand", "observation", "sample_world"])
def test_a_game_refuses_a_seat_that_is_no_seat(method, seat):
    g = fs.Game("standard", seed=1)
    with pytest.raises(ValueError, match="seat must be 0..3"):
        getattr(g, method)(seat)
    assert isinstance(g.hand(3), list)
