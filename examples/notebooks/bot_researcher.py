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
# # A bot researcher: write a bot, evaluate it, step through a hand
#
# A bot is any object with `act(observation, legal_actions)`, and optionally
# `reset(seat, rules, rng)`, called before every hand (docs/game.md, and `examples/mybot.py`
# for a bot module to copy). This notebook asks one question, *what is calling trump worth to
# the expert bot?*, by writing a bot that plays like `expert` but never calls, evaluating it
# against `expert` on paired deals, and then stepping through one hand it plays.

# %%
import random

import matplotlib.pyplot as plt
import numpy as np

import fastsheng as fs
from fastsheng.studies.stats import mean_t

# %% [markdown]
# ## 1. The bot
#
# `fs.bot("expert")` is the built-in expert as a Python bot: it decides from the observation
# alone, so it can be the base of our own. `Quiet` passes at every call (the `declare`
# decision) and lets the expert do everything else: the burial, the leads and the follows.
# The `rng` that `reset` receives is seeded from the run's seed: a bot that draws from it
# (never from the clock) keeps every run reproducible.


# %%
class Quiet:
    """expert, except that it never calls trump."""

    def reset(self, seat, rules, rng):
        self.base = fs.bot("expert")
        self.base.reset(seat, rules, rng)

    def act(self, observation, legal_actions):
        if observation.decision == "declare":
            return next(a for a in legal_actions if a.kind == "pass")
        return self.base.act(observation, legal_actions)


class Same:
    """expert, unchanged: the control."""

    def reset(self, seat, rules, rng):
        self.base = fs.bot("expert")
        self.base.reset(seat, rules, rng)

    def act(self, observation, legal_actions):
        return self.base.act(observation, legal_actions)


# %% [markdown]
# ## 2. A control first
#
# `fs.evaluate(bot, n)` plays `n` deals twice, once with our bot at seats 0/2 and once with
# the seats swapped, so the luck of the cards and of the seat cancels in each pair, and gives
# the net levels per hand our team gains over the other (with a 95% Student t interval over
# deals) and the share of hands it wins. Before trusting it on a new bot, check the harness:
# the unchanged wrapper must play exactly the hands the C expert plays, so every deal's net
# is 0.

# %%
control = fs.evaluate(Same, n=50, opponent="expert", seed=3)
print(f"{control['x']} vs {control['y']}: net per deal all 0: {not control['per_deal_net'].any()}")

# %% [markdown]
# ## 3. The evaluation
#
# 500 paired deals (1,000 hands), in about five seconds.

# %%
r = fs.evaluate(Quiet, n=500, opponent="expert", seed=3)
print(f"{r['x']} vs {r['y']}, standard, {r['deals']:,} paired deals ({2 * r['deals']:,} hands)")
print(f"  net levels per hand  {r['net']:+.3f}  95% [{r['net_lo']:+.3f}, {r['net_hi']:+.3f}]")
print(f"  hands won            {r['won']:.1%}  95% [{r['won_lo']:.1%}, {r['won_hi']:.1%}]")

# %% [markdown]
# The interval excludes 0: never calling costs the team levels. How did the estimate settle?
# The running mean of the per-deal net with its 95% interval after each number of deals (the
# interval at the right end is the one printed above; the ones before it are the same
# estimate on fewer deals, not a sequence of tests):

# %%
net = r["per_deal_net"]
ks = np.arange(20, len(net) + 1, 10)
running = [mean_t(net[:k]) for k in ks]
print(f"after {ks[-1]} deals: {running[-1].fmt()} (Student t)")
fig, ax = plt.subplots(figsize=(7, 3.2))
ax.plot(ks, [e.estimate for e in running], color="tab:blue", label="mean net levels per hand")
ax.fill_between(
    ks, [e.lo for e in running], [e.hi for e in running], alpha=0.25, label="95% interval"
)
ax.axhline(0, color="grey", lw=1, ls="--")
ax.set_xlabel("paired deals")
ax.set_ylabel("Quiet's net levels per hand")
ax.set_title("Quiet vs expert: the estimate as deals accumulate")
ax.legend()
fig.tight_layout()

# %% [markdown]
# ## 4. One hand, step by step
#
# `fs.Game` deals exactly one hand of a run (here hand 0 of seed 3 at level 2) and stops at
# every decision. Our bot plays seats 0 and 2 (we make its instances and call `reset`
# ourselves); `g.bot_action("expert")` plays seats 1 and 3, drawing exactly what the simulator
# draws. We count the calls our bot could have made and print its first plays. A decision
# with at most 64 legal plays is offered whole (`follow KS`); a lead with more is offered
# card by card (`card AS`, then `done` closes it), see docs/game.md.

# %%
g = fs.Game("standard", seed=3, hand_id=0, level="2")
ours = {}
for seat in (0, 2):
    ours[seat] = Quiet()
    ours[seat].reset(seat, g.rules, random.Random(seat))

calls_passed, plays = 0, []
while g.phase != "done":
    seat = g.to_act
    if seat in ours:
        obs, offer = g.observation(seat), g.legal_actions()
        action = ours[seat].act(obs, offer)
        if obs.decision == "declare" and len(offer) > 1:
            calls_passed += 1  # it could have called, and passed
        elif obs.decision in ("lead", "follow") and len(plays) < 6:
            plays.append(f"seat {seat} {obs.decision:<6} {len(offer):3d} legal -> {action}")
        g.apply(action)
    else:
        g.apply(g.bot_action("expert"))

print(f"our seats passed {calls_passed} chances to call trump; their first plays:")
print("\n".join(plays))
result = g.result()
print(
    f"\ndealer seat {result['dealer']}, trump {result['trump']} ({result['trump_set']}); "
    f"defenders {result['defenders_total']} points: {result['winner']} +{result['levels']}"
)

# %% [markdown]
# The hand's whole record (`g.trace()`: the deal, every call, the burial, every trick and the
# result) in card notation, as `fastsheng replay` prints a simulated hand:

# %%
trace = {
    "hand_id": 0,
    "rules": "standard",
    "level": "2",
    "bots": ["Quiet", "expert"] * 2,
    "events": g.trace(),
}
print(fs.format_trace(trace))

# %% [markdown]
# Next steps: run the bot at scale with `fastsheng sim --bots mybot:Quiet,expert` (a module of
# your own, as in `examples/mybot.py`), compare it on many metrics with `fastsheng compare`,
# or rank several bots with `fastsheng ladder` (docs/bots.md).
