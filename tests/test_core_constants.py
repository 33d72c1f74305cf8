"""The choice indices the C modules use (the enum block of _core.pxd) agree with rules.CHOICES."""

import re
from pathlib import Path

import fastsheng
from fastsheng.rules import CHOICES

# constant -> (Rules field, value)
MEANING = {
    "CHAIN_FULL": ("tractor_chain", "full"),
    "CHAIN_LIMITED": ("tractor_chain", "limited"),
    "FOLLOW_SHAPE": ("throw_follow", "shape"),
    "FOLLOW_SUIT": ("throw_follow", "suit"),
    "FILL_ANY": ("void_fill", "any"),
    "FILL_TRUMP_FIRST": ("void_fill", "trump_first"),
    "OVERTRUMP_DECISIVE": ("overtrump_throw", "decisive"),
    "OVERTRUMP_EVERY": ("overtrump_throw", "every"),
    "TK_AT_LEAST_3": ("throw_kitty", "at_least_3"),
    "TK_LARGEST": ("throw_kitty", "largest"),
    "TK_PAIR_4": ("throw_kitty", "pair_4"),
    "ND_KITTY1": ("no_declaration", "kitty1"),
    "ND_KITTY3": ("no_declaration", "kitty3"),
    "ND_KITTY3_SKIP": ("no_declaration", "kitty3_skip_jokers"),
    "ND_NO_TRUMP": ("no_declaration", "no_trump"),
    "ND_FLIP_LEVEL": ("no_declaration", "flip_level"),
    "ND_RANDOM_KITTY": ("no_declaration", "random_kitty"),
    "H1_FINAL": ("hand1_dealer", "final"),
    "H1_FIRST": ("hand1_dealer", "first"),
    "H1_RANDOM": ("hand1_dealer", "random"),
    "OAB_NO": ("overcall_after_burial", "no"),
    "OAB_YES": ("overcall_after_burial", "yes"),
    "OAB_IF_DECLARED": ("overcall_after_burial", "if_declared"),
    "CLOSES_DEAL": ("declaring_closes", "deal"),
    "BONUS_LEVEL": ("overcall_bonus", "level"),
    "BONUS_STAKE": ("overcall_bonus", "stake"),
    "PEN_PER_CARD": ("throw_penalty", "per_card"),
    "PEN_NONE": ("throw_penalty", "none"),
    "PEN_FLAT": ("throw_penalty", "flat"),
    "PEN_HALF_STAKE": ("throw_penalty", "half_stake"),
    "TIE_DEALER": ("cap_tie", "dealer"),
}


def test_choice_indices_match_rules_choices():
    text = (Path(fastsheng.__file__).parent / "_core.pxd").read_text(encoding="utf-8")
    block = text[text.index("# Choice indices of rules_t") :]
    block = block[: block.index("\n\n")]
    constants = dict(
        (name, int(value)) for name, value in re.findall(r"^    (\w+) = (\d+)", block, re.M)
    )
    assert constants.keys() == MEANING.keys()
    for name, value in constants.items():
        field, choice = MEANING[name]
        assert CHOICES[field].index(choice) == value, name
