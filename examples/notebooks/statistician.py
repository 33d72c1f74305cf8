# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # A statistician's questions, from the Parquet dataset
#
# `fastsheng sim` writes one Parquet row per hand (the columns are listed in
# the schema in docs/sim.md). This notebook makes a small dataset, reads it back
# with pandas and answers two questions with honest 95% intervals from
# `fastsheng.studies.stats` (how each is made: docs/analysis.md):
#
# 1. How often do the defenders capture the kitty, and what is it worth to them?
# 2. How are the defenders' points distributed?
#
# Every figure here comes from 50,000 hands of `standard` played by `expert` at all four seats
# (seed 1); run it again and every number is the same.

# %%
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import fastsheng as fs
from fastsheng.studies.stats import mean_t, quantile_ci, wilson

# %% [markdown]
# ## 1. Make the dataset
#
# The shell command is `fastsheng sim -n 5e4 --seed 1 --out RUN`; here it runs through the
# notebook's own interpreter (`python -m fastsheng.apps.cli`), into a temporary folder. The
# summary it prints is computed from the same rows we read below.

# %%
run = Path(tempfile.mkdtemp(prefix="fastsheng-stat-")) / "run"
cmd = [sys.executable, "-m", "fastsheng.apps.cli", "sim", "-n", "5e4", "--seed", "1"]
done = subprocess.run([*cmd, "--out", str(run)], capture_output=True, text=True)
if done.returncode:
    raise RuntimeError(f"fastsheng sim failed:\n{done.stderr}")
# the summary without its first two lines and its last (the temporary folder, and the speed
# of this machine, which is no figure of the dataset)
print("\n".join(done.stdout.splitlines()[2:-1]))

# %% [markdown]
# ## 2. Read it
#
# A run folder holds `run.json` (the rules with every switch, the bots, the seed) and the
# parts `hands/part-*.parquet`; pandas reads the folder as one table. String columns come back
# as categoricals.

# %%
manifest = json.loads((run / "run.json").read_text())
hands = pd.read_parquet(run / "hands")
rules = fs.get_rules(manifest["rules_name"])
print(f"{len(hands):,} hands, rules {manifest['rules_name']}, bots {manifest['bots']}")
hands[["hand_id", "trump", "defenders_total", "kitty_captured", "kitty_mult", "winner"]].head()

# %% [markdown]
# ## 3. The kitty
#
# The defenders *capture* the kitty when they win the last trick (`kitty_captured`); they then
# add its points times a multiplier set by the last lead (`kitty_mult`: ×2 for a single, ×4 for
# a pair, more for tractors and throws under `standard`), the `kitty_bonus`.
#
# A share of hands is a proportion: the Wilson score interval, which keeps its coverage near 0
# and 1, where the textbook interval does not.

# %%
n = len(hands)
captured = wilson(int(hands["kitty_captured"].sum()), n)
print(f"defenders capture the kitty in {captured.fmt(scale=100)} % of hands")

lead_rows = []
for kind, g in hands.groupby("last_lead_kind", observed=True):
    got = g[g["kitty_captured"]]
    share = wilson(len(got), len(g))
    bonus = mean_t(got["kitty_bonus"])
    lead_rows.append(
        {
            "last lead": kind,
            "hands": len(g),
            "captured": share.estimate,
            "lo": share.lo,
            "hi": share.hi,
            "multiplier": float(g["kitty_mult"].mean()),
            "bonus per capture": bonus.fmt(),
        }
    )
by_lead = pd.DataFrame(lead_rows).set_index("last lead")
by_lead

# %%
fig, ax = plt.subplots(figsize=(7, 3.4))
x = np.arange(len(by_lead))
err = [by_lead["captured"] - by_lead["lo"], by_lead["hi"] - by_lead["captured"]]
ax.bar(x, by_lead["captured"], yerr=err, capsize=4, color="tab:blue")
ax.axhline(captured.estimate, color="grey", lw=1, ls="--", label="all hands")
ax.set_xticks(
    x,
    [
        f"{k}, ×{m:.3g}\n{h:,} hands"
        for k, m, h in zip(by_lead.index, by_lead["multiplier"], by_lead["hands"], strict=True)
    ],
)
ax.set_ylabel("share captured")
ax.set_title("Kitty capture by the last trick's lead, mean multiplier (95% Wilson)")
ax.legend()
fig.tight_layout()

# %% [markdown]
# How often does the kitty *decide* the hand? It changes the hand's outcome when the level
# outcome (side and levels, from the rules' level table: `fs.level_outcome`) at the
# defenders' total differs from the outcome without the bonus; it *flips* the hand when the
# side that goes up differs. (These are the report's `kitty_decides` and the realism panel's
# "kitty decides the hand", docs/bots.md.) Only the distinct totals need the level table.

# %%
with_bonus = hands["defenders_total"].to_numpy().astype(int)
without = np.maximum(0, with_bonus - hands["kitty_bonus"].to_numpy().astype(int))
outcome = {int(t): fs.level_outcome(rules, int(t)) for t in np.unique([with_bonus, without])}
changes = np.array([outcome[a] != outcome[b] for a, b in zip(with_bonus, without, strict=True)])
flips = np.array([outcome[a][0] != outcome[b][0] for a, b in zip(with_bonus, without, strict=True)])
n_captured = int(hands["kitty_captured"].sum())
for what, hit in (("changes the outcome of", changes), ("flips the side that goes up in", flips)):
    k = int(hit.sum())
    print(f"the kitty {what} {wilson(k, n).fmt(scale=100)} % of all hands,")
    print(f"    {wilson(k, n_captured).fmt(scale=100)} % of the hands where it is captured")

# %% [markdown]
# ## 4. The defenders' points
#
# `defenders_total` is the defenders' trick points plus the kitty bonus and any throw
# penalties: the number the level table reads (under `standard`: below 80 the dealer side goes
# up, 40 points a level; 80 and above the defenders take over the deal). Totals move in steps
# of 5. The mean gets a Student t interval; the median a distribution-free interval between
# two order statistics; the share of hands at each total a Wilson interval.

# %%
total = hands["defenders_total"].to_numpy()
print(f"mean   {mean_t(total).fmt()}")
print(f"median {quantile_ci(total, 0.5).fmt()}")
take_over = wilson(int((total >= 80).sum()), n)
print(f"defenders reach 80 (take over) in {take_over.fmt(scale=100)} % of hands")

values, counts = np.unique(total, return_counts=True)
share, lo, hi = wilson(counts, np.full_like(counts, n))
fig, ax = plt.subplots(figsize=(7, 3.2))
ax.bar(values, share, width=4, yerr=[share - lo, hi - share], capsize=2, color="tab:orange")
for line in (40, 80, 120):
    ax.axvline(line, color="grey", lw=1, ls="--")
ax.set_xlabel("defenders' total (one bar per total; dashed: the level table's bands)")
ax.set_ylabel("share of hands")
ax.set_title(f"Defenders' points, {n:,} hands (95% Wilson per bar)")
fig.tight_layout()

# %% [markdown]
# The level outcome each total leads to, as shares of hands (`winner` and `levels`):

# %%
# dealer side's levels counted up, the defenders' down; 0 is a take-over without a level
signed = np.where(hands["winner"] == "dealer", 1, -1) * hands["levels"].astype(int)
rows = []
for v in sorted(set(signed.tolist()), reverse=True):
    k = int((signed == v).sum())
    label = f"dealer +{v}" if v > 0 else "take over" if v == 0 else f"defenders +{-v}"
    rows.append({"outcome": label, "hands": k, "share, % (95%)": wilson(k, n).fmt(scale=100)})
pd.DataFrame(rows).set_index("outcome")

# %% [markdown]
# Going further: `fastsheng report RUN` computes these tables (and many more, as HTML and CSV)
# from the same folder; DuckDB and Spark read the parts directly (docs/sim.md).
