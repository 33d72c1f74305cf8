"""Frozen bots: `basic-v1`, `expert-v1..v4`, `learned-v1` play exactly as the day they were frozen.

A published dataset names its bots by version (run.json and the `bots` column record the resolved
name), so its hands must stay reproducible forever. The digests below were computed from the code
of that day; any change to what a frozen bot does changes a digest. Never update a frozen digest:
add a new version (`expert-v4`, ...) instead and point the unversioned name at it.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from fastsheng.bots import names as B
from fastsheng.engine.hands import simulate_hands
from fastsheng.rules import list_presets

# SHA-256 of the play columns (all but `bots` and the deal-description columns below) of the hands
# and tricks tables (cards included) of 150 hands at random levels, seed 20261201, per preset:
# each frozen bot on all four seats, and against another version (the first named at seats 0/2).
# The deal-description columns describe the cards, not the bots' play: they were redefined (deal
# features under the final trump) or added (burier, final_caller, levels_climbed) after the freeze,
# with every play column checked identical before and after.
DEAL_COLUMNS = {"burier", "final_caller", "levels_climbed"} | {
    f"{f}_{s}"
    for f in ("trumps", "pairs", "tractors", "jokers", "points", "level_cards")
    for s in range(4)
}
# Columns added after a bot's freeze that record its play: `throw_risk` (0.3: the leaders' own
# estimates of failure) is 0 for every bot frozen before expert-v4 (test below) and is left out
# of their digests; expert-v4's digests include it.
ADDED_AFTER = {"throw_risk"}
BEFORE_V4 = ("basic-v1", "expert-v1", "expert-v2", "expert-v3")
FROZEN = {
    "basic-v1": {
        "standard": "f206482cd23511e7cd80a0e737a71d77c0b0bbe2875775f6674a2d019677687b",
        "super": "74d0cd03dd88e59dbc7e62bd5e4f4db92935899a1a8bcbfc056ecfdad46f8a6c",
        "classic": "ea67226df52731bfb2e36772a76d5a3d9cfaebf32035e0dfdea5d82ec14b5a6a",
        "twenty": "217e75a544139e5e97f25b04d4429cfae1c70c7feec06dfb48d865f0bc0977a3",
        "renda": "761f712f22e7982286e9deaa1702c8cb5cc982a308a268518d8f509a06744097",
        "tournament": "ab79f9120b453374cade05c940d7f839838ea6c39a245cd4ab1ba9154bfa382a",
        "jokerbid": "ed0d11cafa8cf4114a54b8af48f9f75b9b4bae5a391ef8f4cc3b9a508e748654",
        "huayun": "6ea6a1dd0dcffab6196799b7384f282166c42bde357bcb0988d5320fad1dfd8a",
        "yingchun": "39ac909598e8c48367a56299c3b8e1b4e3140c93c31daed26cfd132a53b87da2",
        "jifen": "0cfbbd5898d85ed48a1528b1d82532b86010c7042433ec5222f855839e1c7a23",
        "duiju": "1668fac132c50ee22ef6471ab53f6c5fac653f24200c151e2906a01bf72b2bec",
    },
    "expert-v1": {
        "standard": "92a5f7f2af46cf64fb78c74d13a8104af470c9cc9079cec83b2915a6d2d2e11e",
        "super": "61ddcb70fa8bfcef2bfe3400e190e2cf5a61715a76115630a3873c752b8e5381",
        "classic": "ff703fa0be6be320065714d837568ff4fbae583a6c4625d0e2df675eb304a1b9",
        "twenty": "cba0e628b5530928acd76d16609a1ccb0069b5d712900de3e7b95dd769333528",
        "renda": "7bb5746beba8f9dc3906c7abfc702110e1efe1e1061d2305aca874930f18981f",
        "tournament": "0732e4ee67445f0c988799217ca2924c4dc76ded54ca860a291e92cd2323ea18",
        "jokerbid": "d1299442d4dfc86b9d8b7768f368762b3ea1e38ff9fc3eb46887da54cb5b88ac",
        "huayun": "7c99775642c268a5145b842c72fd1d3247ae4482b6ee1e454fed5d6dd4cc1fcf",
        "yingchun": "12b466a8f48fdf7131270ff75642eacd49ed13d8e12a4076a8ff7ed0748ce1c0",
        "jifen": "4c72fa601ac7d3f799fbea8f8cc93b529dbcdd705403ea7d4fbc441177ae64f7",
        "duiju": "2496a8fe62fbbb0311f4935e7fbad9ab0cabc08c7ffd9fb3fc1e29a364271f66",
    },
    "expert-v1,basic-v1": {
        "standard": "314bbdd665e58d5d70f063b09b1916f5040ef484db55a81972d7425d2292b9df",
        "super": "934543c9c81482f54b772c5ae52837af1d47b8e21765d24bdbccfc118ee72a44",
        "classic": "2eb7111c601d578d056fee053015b766a9ab105179947e6370d1b6f3d8a041d4",
        "twenty": "6376027dfcb94247f0f081089aea1cd75e7f37b84a6c59704eb9aae81064ff6c",
        "renda": "210a8795db817821cf4073dee7c368e03fc5b84a028bf3a1a32b912f3ef2962c",
        "tournament": "d438cab40b66fd81c3d87824b138e1426083bc134836e461a0db0b2103ef6057",
        "jokerbid": "73d34e2b1babf23ab321035775d1eff14fcbbec4619d595a56dd222dec4f85c9",
        "huayun": "cb19a7686b9a1fad2f00f84497869258ff5ba5be8d99c63cf3176e12b4f2b6dc",
        "yingchun": "f32148e30e3b4a1a6c24bc1b9368972dc95df0c85c25f9aaa8f09ba698343729",
        "jifen": "5010bdfebead574bd3e718fe1a5e390643137660c2b9b8e677c61ad34205ba41",
        "duiju": "d772df499ca488604389490db762030fe7e3f5f6bcb64c88bbff621322f751ba",
    },
    "expert-v2": {
        "standard": "da81afa96525e2f8ecfbbbbaf1f86787494e57eae133605a7d42f79d99ce8779",
        "super": "a1b2498495e6e77454c820cc6bc39ad42d658faa783e921462d3e6d7fc02241d",
        "classic": "f5b194a839b625bc529c323e322d8a3f76abae1755defbe8e24d3ac630e4f1bf",
        "twenty": "e701bab9380f2dbbc732b5c819c5657153fa9fac1eff22946d128642e1dc3a6e",
        "renda": "c947722db65149ed9b38e76879a380ceb047e8f2b6c26c4f5b5a238cc2773008",
        "tournament": "a62229bd1e057938c0c5102b08c501ac48b42be6ce759e646c3df79f07b678b9",
        "jokerbid": "0addd0114387743ed23e5155403f2478b6110956b0f73d05c2f434b3cf0be61a",
        "huayun": "635e198b321c84e0f539cbaf5510a84dce9d73d377a311ec95978711af0971a2",
        "yingchun": "ef63c01b71bd7e6261a2190386dafe9c1f14e774cf508ccdaad1f3fa7f716702",
        "jifen": "0c13b22832560a779c1b091a18388c1303395c9b68c6ae93f1f73fc90afe0681",
        "duiju": "ee7364b780c022465a384b60d0ec816c44aa327bf0c7957fa4ba984f114e8ea2",
    },
    "expert-v2,expert-v1": {
        "standard": "39304ee943c64158cc694dc3a1123b262ce54f1105199f250129962b97d9cf5e",
        "super": "eaf1f41f3e5e9f102725518387bd159cb1d3e900afc6db53e096b502a7ce3c08",
        "classic": "e01a62e2966f96f781f9099d616e83d104cf899de5af891b2c88e384ad69405e",
        "twenty": "b257963b5bdf2d3d166124fd9ca9c98b4b74f50a0c7d5021054a705bda8a6626",
        "renda": "d7eff40fab21b2a9d240b76ea95e285725864c15593b4b367220abfe03d6ae46",
        "tournament": "8a37b98cc957e4a1a772563d3b2d979472c01a18da14c09233f264f73e85bb88",
        "jokerbid": "555b3769509f84a8c961ae018bfa1c03fc8f0edebb0fd4a790bfc6423a3dc409",
        "huayun": "45894ac34e546a287293e81994e9a4caebceca664e5f971596793b49407a3fc0",
        "yingchun": "fd4181a2085f9fc5709258a851e11f682cec99c537e85493797ef095382800e3",
        "jifen": "35fac315201d5706894aced0e72653c66b19d2021a444aeb7c7480bcfa7faaa3",
        "duiju": "a60a4e6c6cc11184ab7229d9d85acdab21377845eb53f9db08d4e34079404211",
    },
    "expert-v3": {
        "standard": "482547eca01cc26a212314992a78a33345e6c4f60c555174e18408cc9c372f96",
        "super": "8bc489658aaed6048cd356d318529dfc7a373549193ed96ffcead7bcab0dd5fe",
        "classic": "0c4768bab44aaaff5023d6b1b966c3d7e536c257c6ea643c62360f3c0fc912bb",
        "twenty": "a8282712ba5587fb964d83f42fb8a5a3ae3126d07804b35361a76ce7291c87e7",
        "renda": "3f78e323b143fa386913c305d495b2a46c840f544f1a788e0560e5d4f08e302a",
        "tournament": "d963b4bf17b485915d897da9eafe521b443d45f5d6f75f189668b740e1a7eaf7",
        "jokerbid": "b392d1fe0d9c231092f475fb4e23fcf9dcf2d622514f484abf1bea9f202bb4e6",
        "huayun": "0f616d116f2cc17894bc70dc6dcff218dd9561dce0fd4e53e915c5532970eaa7",
        "yingchun": "d61070367f7ba8c21c85b0b4d23cd5ae739db7f2264c70d19c75031580bd08d6",
        "jifen": "09870e8551ee17883a686c3e7bea3a5e08b008a92019aedcac575573e1898aae",
        "duiju": "82b36d5ca5d8f83aa59ff144d5fdc3b45863a220a9f133100a2bfc3d98148822",
    },
    "expert-v3,expert-v2": {
        "standard": "8182f08a03819540b2d13727ba622aa0a6d7db0a99aa3795e760360627a807af",
        "super": "90a4f0306289d874c7f4fe9e736ce7dbe4891cc100d9f13c0b98206891011024",
        "classic": "3dd95e0cf34282b73da92db052d557bd98da125d4df5ac4350e1a6d1fedcc178",
        "twenty": "aafa06ae91cb0f4c5a2a2d414a9cd36a4c5abe21a06cdfc9f3ebbd852cd4ee05",
        "renda": "22dce48abef5e2e6496e5741a416b3054c80b7885dfb0e4bf81bf238d0bcec0b",
        "tournament": "e4dc460cb828245ff8b017461f556a42e4821a4f89a27a5729bb8fe99b57e1e4",
        "jokerbid": "c2046e65c9ec086ead3e4649716156bd23be4f33283963b59ec633d997b9ac87",
        "huayun": "a6230efa4022c6fbd814bacf97a2dada2f3b1d9d2d79221d11da5decf79cfe01",
        "yingchun": "e955221dd75e7524c6f8697efca52f8487dc15e0f1e07b4cb7c0c92b176c067c",
        "jifen": "c3706b58ccd2faae1cd7cc5921b6e8fba370d29596ae2a4f8025874af0f4d26f",
        "duiju": "c2185cde0f51192f9961ee0a7a73c5437dbab313188816634fe818de837257ee",
    },
    "expert-v4": {
        "standard": "576321c0e60d262c6887299c9cc8ff328258d721c3cb289b148a1ddd549ced56",
        "super": "f2806afff7ceab49dd8f11fc5a68b1e198975154bc5f4b33f786df23e6f75af0",
        "classic": "c1d739faed8238b055352a2f04a26dc19ced0245be9ee59f6d88f132315a591a",
        "twenty": "6a1025535f59b6574b2fa7e7652398d1171da452afd634e87f19bf58a750486f",
        "renda": "f1e7e2e782551fae4eb51f6c6083afd98fa7a8cb85b89ed229eda6ae8d06b8c0",
        "tournament": "6d685852dedcfa9ab4ee786c43fe6b2f3fc258eb0a13013d5aa0a2a7f28efba9",
        "jokerbid": "0cec986c596a92332082ccb6dc5c8767d0ed87f0df69c6213217d577d0a9abdc",
        "huayun": "8707459d8f2aa740160d861a8633d57c7ac7e30f1e14237f8dd2397434999f01",
        "yingchun": "18ba584fbc6e5997ed2ce4562470a7ba602805b0c27029c42d3e2d9d11b4f194",
        "jifen": "85fac00ca4d77088b999fe889db172e3072c03366f1d7d5f89eab9750bdb3bdf",
        "duiju": "e0ced74bca7be653f63eb7732ebb447c64aba1156f787143790544fe7aac79c1",
    },
    "expert-v4,expert-v3": {
        "standard": "65dfe44924540f0b0539005382f7ad8ce6a652112c7c39bba97f58486e263210",
        "super": "491d5f7af88e820593aa44bfdc237771c591ff39881947bcaaac96de054d9563",
        "classic": "e20b85b340bfd34e6bc49c61e8ebb67435f80e30e4f323ba2a53592121561695",
        "twenty": "6a1025535f59b6574b2fa7e7652398d1171da452afd634e87f19bf58a750486f",
        "renda": "7bd4d89c0f301e33cf0f8635d4812599881d4621050e228a95236815ed6086c0",
        "tournament": "4f24368bb0232cae501bf86ee0fb531060d3551d70b57bd066619ce06eca314c",
        "jokerbid": "80e45a1fb601bca191830adfb0ee2bb951dafb2b8b37cadf6557f877f17f796c",
        "huayun": "c6c13d4b43947e5a8e6f197f720c31dfc257074819fe96b2774108ed55086230",
        "yingchun": "645b75194c2a2ca5861077d40743cc5e9d2ed02f3cc27264f777d014e2a3121b",
        "jifen": "87010459c089bec2fee6f29198c006464a4a45198648dc1b328b56c2f8448000",
        "duiju": "967cb5b85e5d802bc4c3e5e5e1e08cbb5fcbc1e585a3b636c8d4225767afcf45",
    },
    # learned-v1: the model fastsheng/bots/models/learned-v1.npz of its day (by its hash)
    "learned-v1": {
        "standard": "1e96693e81a40f46f346e53368d7e064c7c09766d4e110be559d6e30742fbe19",
        "super": "337db38fb232c8eed74a6cdcad8af8ac2e1c4857548f24aa5072db6311cc0012",
        "classic": "5e6ed1266d2957ad44236044d4a6758bf17d8d43cdd8fdc0bdeb06401477c0bf",
        "twenty": "3d16df6a1d5ddba813b7c7281d74250fb5fde087d301f96c86aaabc0f31fde43",
        "renda": "a51c1edd2f785ebb44d7904231a132bceab30c8a6e5f59494faf6cc60e3b0b83",
        "tournament": "7fa5bf6c1e4c5d5cec0f38b78adc57a460a8f0e9fee5d9f8bc9c5c60e563da98",
        "jokerbid": "688cb3d71b63ac2e7f7183fa36df4628f97d70d2a4faf01620ea7045317e813f",
        "huayun": "458d0fd0809c4b6305fff712502f4220d396be0955d49e9a2a523045bbb5f784",
        "yingchun": "03d926177b1f0a9d244170348762407ee63fe5d4e017c12fa4c301977931ba59",
        "jifen": "8a613f6fcf77f59f2d4869d722e8ed4b9773195f69d33a79619f19ffe2798dde",
        "duiju": "d22a3ba20b913ba9e2a52eddfa85ef4ef537ff847a067decc07ad8c91252c854",
    },
    "learned-v1,expert-v4": {
        "standard": "62f9351cbe8dfed7e2bf786a3a2617a03603e6bc1114e1350788384222c1ef81",
        "super": "1a34374771fb74065de913facfc2dcae13ef493a7b184fe070a7628fa3fe832e",
        "classic": "6d17df2be6a86ba3d745e87c3e1cc75f37f42217eb5fb8d80f590612ae62ee10",
        "twenty": "83d2d5c21c9296b45cc1e60c97c1aa36aa24a7cb3afd488ec4c1ff53c0937563",
        "renda": "a75b11999e0f2fd596f6998ad55d76485f76248ea1f022b43473fec71dd4567e",
        "tournament": "fb86b06660b8e569c1bb550625ebfaed91a588fc2ca2367732c204be23a75877",
        "jokerbid": "7f9bc1e012fddab36418f71af69e463386f11fbddbead5f9d340ed0ef3248add",
        "huayun": "0c593f44ad1c1069bcea46321e2e8987b82e06bc75ff0308edc1922bc2201acd",
        "yingchun": "420b1c9a26adbaa3e43d01bbdd1f79a464d2f9a43327dfa2fa92642cf020cf0b",
        "jifen": "cf409276cc04dc9adb4530bd62a16a6c9049e5c8761dafcebd4733161c994bc5",
        "duiju": "ee0909668c2a0726f60608447e57e94b4be8a757c37d0a6729370dfb9ed750cf",
    },
}


LINEUPS = {
    "basic-v1": "basic-v1",
    "expert-v1": "expert-v1",
    "expert-v1,basic-v1": ("expert-v1", "basic-v1", "expert-v1", "basic-v1"),
    "expert-v2": "expert-v2",
    "expert-v2,expert-v1": ("expert-v2", "expert-v1", "expert-v2", "expert-v1"),
    "expert-v3": "expert-v3",
    "expert-v3,expert-v2": ("expert-v3", "expert-v2", "expert-v3", "expert-v2"),
    "expert-v4": "expert-v4",
    "expert-v4,expert-v3": ("expert-v4", "expert-v3", "expert-v4", "expert-v3"),
    "learned-v1": "learned-v1",
    "learned-v1,expert-v4": ("learned-v1", "expert-v4", "learned-v1", "expert-v4"),
}


def digest(preset: str, bots, skip=frozenset()) -> str:
    out = simulate_hands(preset, bots, 20261201, 150, level="random", tricks=True)
    h = hashlib.sha256()
    skip = DEAL_COLUMNS | skip | {"bots"}
    for name in ("hands", "tricks"):
        table = out[name]
        for col in sorted(c for c in table.column_names if c not in skip):
            h.update(col.encode())
            h.update(json.dumps(table.column(col).to_pylist(), default=str).encode())
    return h.hexdigest()


@pytest.mark.parametrize("lineup", list(LINEUPS))
@pytest.mark.parametrize("preset", list_presets())
def test_frozen_bot_plays_as_frozen(preset, lineup):
    skip = ADDED_AFTER if lineup.split(",")[0] in BEFORE_V4 else frozenset()
    assert digest(preset, LINEUPS[lineup], skip) == FROZEN[lineup][preset]


@pytest.mark.parametrize("preset", ["renda", "standard"])
def test_bots_frozen_before_v4_never_take_a_throw_risk(preset):
    bots = ("expert-v3", "expert-v2", "expert-v1", "basic-v1")
    t = simulate_hands(preset, bots, 11, 2000).to_pandas()
    assert t["throw_risk"].sum() == 0 and t["failed_throws"].sum() == 0


def test_every_preset_is_pinned():
    for lineup in LINEUPS:
        assert sorted(FROZEN[lineup]) == sorted(list_presets())


def test_unversioned_names_resolve_to_a_version():
    assert B.resolve_bot("expert") == B.ALIASES["expert"]
    assert B.resolve_bot("basic") == B.ALIASES["basic"]
    assert B.resolve_bot("expert-v1") == "expert-v1"
    assert B.resolve_bot("random") == "random"
    for alias, version in B.ALIASES.items():
        assert alias in B.BOTS and B.resolve_bot(alias) == B.resolve_bot(version)
        # an unversioned name points at a version; a frozen search name at a search-v3 setting
        assert version in B.BOTS or version.startswith("search-v3:")
    assert B.resolve_bots("basic") == ("basic-v1",) * 4
    with pytest.raises(ValueError, match="'genius'.*expert-v1"):
        B.resolve_bot("genius")
    with pytest.raises(ValueError, match="two .team 0"):
        B.resolve_bots(("basic", "basic", "basic"))


def test_the_bots_column_records_the_resolved_name():
    t = simulate_hands("standard", ("expert", "basic", "expert", "random"), 1, 5)
    names = t.column("bots").to_pylist()[0].split(",")
    assert names == [B.resolve_bot(n) for n in ("expert", "basic", "expert", "random")]
    assert all(n == "random" or "-v" in n for n in names)


def test_an_alias_plays_its_version():
    a = simulate_hands("standard", "expert", 3, 200).drop_columns(["bots"])
    b = simulate_hands("standard", B.resolve_bot("expert"), 3, 200).drop_columns(["bots"])
    assert a.equals(b)
