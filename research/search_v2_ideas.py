"""Which ideas for a cheaper search win: each variant of search-v2 against search:k=32, per deal.

Question: for each idea (consistent worlds, racing the candidates, fewer worlds early, more late,
confirming a deviation on fresh worlds), does search-v2 stay as strong as today's search:k=32,
and at what share of its CPU time?

Method: every variant and search:k=32 play the same N deals against expert-v3, each deal twice
with the seats swapped (fastsheng.studies.ladder.pair_outcome gives each deal's net levels per
hand). Per deal, the variant's net minus search:k=32's on that same deal is the paired difference of
the table (mean, 95% normal interval over deals); the cost ratio is search:k=32's CPU seconds
per hand divided by the variant's, both measured in this process. The variants are search-v2
names with research settings (fastsheng.bots.spec.SearchV2Spec's k0, early, zdrop, ...: screening
only; the published search-v2 is the first row's defaults), spelled by `variant_name`.

Run: python research/search_v2_ideas.py [N] [SEED] [VARIANT ...]
     (default: 600 2024 and every variant below; a variant is a name of VARIANTS)
"""

from __future__ import annotations

import sys
import time

import numpy as np

from fastsheng.engine.hands import simulate_hands
from fastsheng.studies.ladder import pair_outcome

BASE = "expert-v3"
OLD = "search:k=32"
# idea -> (bot name, its research settings: fields of fastsheng.bots.spec.SearchV2Spec)
VARIANTS = {
    "published: consistent worlds, race 4 -> 32 with halving, drop off course": (
        "search-v2:k=32",
        {},
    ),
    "race without dropping off course (only those not ahead)": ("search-v2:k=32", {"zdrop": 0}),
    "that race on the frozen sampler's worlds": ("search-v2:k=32", {"zdrop": 0, "consistent": 0}),
    "that race, first round of 2 worlds": ("search-v2:k=32", {"zdrop": 0, "k0": 2}),
    "that race, a deviation confirmed on k/2 fresh worlds": (
        "search-v2:k=32",
        {"zdrop": 0, "confirm": 2},
    ),
    "that race, tricks 1-5 unsearched, 12+ at 2k worlds": (
        "search-v2:k=32",
        {"zdrop": 0, "early": 5, "early_div": 32, "late": 12, "late_mul": 2},
    ),
    "published, stricter drop (1.5)": ("search-v2:k=32", {"zdrop": 1.5}),
    "published, tricks 1-5 at k/2": (
        "search-v2:k=32",
        {"early": 5, "early_div": 2, "k0_early": 4},
    ),
    "published, 2 worlds first, tricks 1-5 at k/4": (
        "search-v2:k=32",
        {"k0": 2, "early": 5},
    ),
    "that race at k=64": ("search-v2:k=64", {"zdrop": 0}),
}


def variant_name(name: str, knobs: dict) -> str:
    """The search-v2 name that plays a variant: `name` with its research settings spelled."""
    return ",".join([name, *(f"{k}={v}" for k, v in knobs.items())])


def per_deal(x: str, n: int, seed: int) -> tuple[np.ndarray, float]:
    """X's net levels per deal against expert-v3, and X's CPU seconds per hand."""
    t0 = time.process_time()
    a = simulate_hands("standard", (x, BASE, x, BASE), seed, n, level="random").to_pandas()
    b = simulate_hands("standard", (BASE, x, BASE, x), seed, n, level="random").to_pandas()
    cpu = (time.process_time() - t0) / (2 * n)
    return np.asarray(pair_outcome(x, BASE, a, b).net, float), cpu


def main(argv: list[str]) -> None:
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return
    n = int(float(argv[0])) if argv else 600
    seed = int(argv[1]) if len(argv) > 1 else 2024
    names = argv[2:] or list(VARIANTS)
    old, old_cpu = per_deal(OLD, n, seed)
    print(f"{OLD} vs {BASE}: {old.mean():+.3f} over {n:,} deals, {1000 * old_cpu:.0f} ms/hand")
    print("| idea | deals | net levels/hand vs search:k=32 [95%] | CPU ratio (k=32 / it) |")
    print("|---|---|---|---|")
    for idea in names:
        net, cpu = per_deal(variant_name(*VARIANTS[idea]), n, seed)
        d = net - old
        half = 1.96 * d.std(ddof=1) / np.sqrt(n)
        print(
            f"| {idea} | {n:,} | {d.mean():+.3f} [{d.mean() - half:+.3f}, "
            f"{d.mean() + half:+.3f}] | {old_cpu / cpu:.1f}x |",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
