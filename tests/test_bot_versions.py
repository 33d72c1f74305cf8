"""Frozen bots: `basic-v1` and `expert-v1` play exactly as the day they were frozen.

A published dataset names its bots by version (run.json and the `bots` column record the resolved
name), so its hands must stay reproducible forever. The digests below were computed from the code
of that day; any change to what a v1 bot does changes a digest. Never update a v1 digest: add a new
version (`expert-v2`, ...) instead and point the unversioned name at it.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from fastsheng import bots as B
from fastsheng.hands import simulate_hands
from fastsheng.rules import list_presets

# SHA-256 of every column but `bots` of the hands and tricks tables (cards included) of 150 hands
# at random levels, seed 20261201, per preset: each frozen bot on all four seats, and the two
# against each other (expert-v1 at seats 0/2).
FROZEN = {
    "basic-v1": {
        "standard": "537cb64947c78b682cbf6bb8cbc8549955360ce6de7f736e8d8b1a7091400153",
        "super": "e0835d70bd00bd442949648ff22e2b1d9418e613394d4c9ededf678b4e735624",
        "classic": "58c5c539c94e53a6004d5db6e2bcc1904810e7167e5437fe27ec773d35e7e584",
        "twenty": "008afd9dc94464a64bd84c313fd1a0e8aa8a812b076e98eac134ae70872fcaf6",
        "renda": "368c0b570c23268caf6fa902e83a401ebeb3569d9110319aa65125a71ff2feec",
        "tournament": "fc0b98db37bf795e0e7d49a28a2fc1d1c1e2077e04cedd862c21b5b8bc894ad7",
        "jokerbid": "6536dc3dcc18516d27f8bd98d6e31502b0a3c707d313fa17d8e472bb414acdad",
        "huayun": "11f2c9ebe7e28b176650abfb5841e45ef21af657c8d34898c8e9edcf53155867",
        "yingchun": "c2d4763f9293fdb1f438cd5653ea0a393f30dd27d099d49ae6f1db16d2c2fbd4",
        "jifen": "dd80ec2988a57dbfb21d9b890fc80cd513ffec16582eec5fd2f3446b02d355a8",
        "duiju": "ec0b4e16c1a8c8699cdca9989f3fe09919f73cbd8c6f217a17fa486a99f7697c",
    },
    "expert-v1": {
        "standard": "516d5878d12879d9f59b09ae8a5391ab4636ec88bd5d351f709738c54553558c",
        "super": "d84726af62f5d165aa69694690dd6bbe057e6cb46f0425add13ec8864faeb350",
        "classic": "6f94143856973aafb1114570a903e72d1b18829626fc16b36152b23e9c30f8cb",
        "twenty": "5f079e36fdf8ec1fd9866f04c4a3a68b3ab9d14ecf0fded7d0106c7ce5501879",
        "renda": "3c5b7bf2e0b1545c460436577d4fe8c2c71810608660218e45aab8aeba917e69",
        "tournament": "ad9eb4c0d495c698252909622b9119dd0b3b987af7760df2558e881a12e3e43f",
        "jokerbid": "c6ad25524994a67f9ca4b3d399226b2f9f4446807af736bb5cdc0b055de9abd5",
        "huayun": "2def0ea316a76afd1e1077fbc9b44617d57226b590fa3ab5270df6b5c63418dc",
        "yingchun": "96c5bbd1e4282005d2d44245c005e0e897a7edef0cf8e44611609623eedd34b8",
        "jifen": "ba33a21ec7677f33ef9d138bf80bd7ef0dc698770b8255296b3f234c17f721d4",
        "duiju": "6043fccea791a967e0646055798b9a177b460de6e431fa61947579cb1d8733cd",
    },
    "expert-v1,basic-v1": {
        "standard": "ac0bf09f52b39c4adf2f8d3c68d051ae3d49dab885f377a601dd205728db57fe",
        "super": "a2ee9d61b1dae1fe769ea3d0a90c9c59036166d34e8b4eccdf08342afc6289c8",
        "classic": "65cabd881675d95a850bf9bdcc559a8304e5ab8de32cb5a0d25e6a104681189d",
        "twenty": "bc5442030f3a45acf5b39ed5a9834061d7a7f9fbbc2f7c925a9289df8122bd3c",
        "renda": "5b7d8be18bb41514c829290899b41a4ccaea81854e44bb1aef5746f0b123d1a6",
        "tournament": "4a156c1445841379583d4944878b9402a118b50cb3bd7411106bff377e15fce4",
        "jokerbid": "ec91b1a9b6b192a83aac743560936248faee7eed6748ba9c91026543b261f5e3",
        "huayun": "f71e9411d4534ca782c46060dcb5cf14ed1bd4cb09cb9bd0bba13db130ab5f71",
        "yingchun": "edb4bca9173d41bd92ff7b556e078ab58b8c30934c274a2227b03b9eef8cce4a",
        "jifen": "4027beab1a64030510ffe9858f16330c6cc87672b6b6c1005f21645a83d1b1bb",
        "duiju": "84f4b1a012187f292a041376c7cb577149cda505510462094aa2cf9a46e747ee",
    },
}


LINEUPS = {
    "basic-v1": "basic-v1",
    "expert-v1": "expert-v1",
    "expert-v1,basic-v1": ("expert-v1", "basic-v1", "expert-v1", "basic-v1"),
}


def digest(preset: str, bots) -> str:
    out = simulate_hands(preset, bots, 20261201, 150, level="random", tricks=True)
    h = hashlib.sha256()
    for name in ("hands", "tricks"):
        table = out[name]
        for col in sorted(c for c in table.column_names if c != "bots"):
            h.update(col.encode())
            h.update(json.dumps(table.column(col).to_pylist(), default=str).encode())
    return h.hexdigest()


@pytest.mark.parametrize("lineup", list(LINEUPS))
@pytest.mark.parametrize("preset", list_presets())
def test_frozen_bot_plays_as_frozen(preset, lineup):
    assert digest(preset, LINEUPS[lineup]) == FROZEN[lineup][preset]


def test_every_preset_is_pinned():
    for lineup in LINEUPS:
        assert sorted(FROZEN[lineup]) == sorted(list_presets())


def test_unversioned_names_resolve_to_a_version():
    assert B.resolve_bot("expert") == B.ALIASES["expert"]
    assert B.resolve_bot("basic") == B.ALIASES["basic"]
    assert B.resolve_bot("expert-v1") == "expert-v1"
    assert B.resolve_bot("random") == "random"
    for alias, version in B.ALIASES.items():
        assert alias in B.BOTS and version in B.BOTS
    assert B.resolve_bots("basic") == ("basic-v1",) * 4
    with pytest.raises(ValueError, match="'genius'.*expert-v1"):
        B.resolve_bot("genius")
    with pytest.raises(ValueError):
        B.resolve_bots(("basic", "basic"))


def test_the_bots_column_records_the_resolved_name():
    t = simulate_hands("standard", ("expert", "basic", "expert", "random"), 1, 5)
    names = t.column("bots").to_pylist()[0].split(",")
    assert names == [B.resolve_bot(n) for n in ("expert", "basic", "expert", "random")]
    assert all(n == "random" or "-v" in n for n in names)


def test_an_alias_plays_its_version():
    a = simulate_hands("standard", "expert", 3, 200).drop_columns(["bots"])
    b = simulate_hands("standard", B.resolve_bot("expert"), 3, 200).drop_columns(["bots"])
    assert a.equals(b)
