"""``fastsheng ladder``: every pair of bots on paired deals, and a Bradley–Terry rating.

Method. For each pair (X, Y) of the listed bots, the same ``n`` deals (same seed, batch size and
level: the cards' random stream does not depend on the bots) are played twice: X at seats 0/2
against Y at 1/3, then with the seats swapped. Each seating is an ordinary run folder written by
:func:`fastsheng.sim.runner.run` (every core, Ctrl-C keeps finished batches, re-running the same
command finishes an interrupted ladder) under ``OUT/runs/``. Per deal:

* X's net levels = (levels X's team gains − levels Y's team gains), averaged over the two
  seatings: the luck of the cards and the seat (dealer or defender) cancel, so a bot against
  itself scores exactly 0 on every deal;
* X's hands won (0, 1 or 2): hands in which X's team goes up (as the dealer side) or takes the
  deal (as defenders).

The mean net levels over deals gets a 95% Student t interval
(:func:`fastsheng.studies.stats.mean_t`; the deal is the independent unit, the two hands of a deal
are not independent), the share of hands won the Wilson interval at the deals' effective size
(:func:`fastsheng.studies.stats.wilson_clustered`: it stays inside [0, 1]); fewer than 2 deals give
no interval (n/a). Every pair plays the same deals, so the Bradley–Terry rating (``choix``,
maximum likelihood on hands won, centred on 0, in log-odds) gets its interval from a bootstrap
that resamples deals jointly for all pairs. ``elo`` is the same rating on the Elo scale
(400 / ln 10 per log-odds unit). The rating is a summary: :func:`bt_fit` tests it against the
pair shares (a chi-square of measured against fitted shares, each in units of its standard
error over deals), and the pair table stays the measurement. A bot that never lost (or never
won) a hand has no finite rating: the ratings are then n/a, and the text says why.

Bots are kept as given (``mymod:MyBot`` is a module path, not lowercased; bot objects pass
through to the runner); names that resolve to one bot (``expert`` and ``expert-v4``) are rated
once, under the first name, and the output says so.
"""

from fastsheng.studies.ladder.command import ladder_command
from fastsheng.studies.ladder.outcomes import PairOutcome, pair_outcome, pair_row, seating_outcome
from fastsheng.studies.ladder.output import ladder_markdown, ladder_text, write_ladder
from fastsheng.studies.ladder.pairs import Ladder, play_ladder, run_path
from fastsheng.studies.ladder.ratings import BTFit, bradley_terry, bt_fit, bt_ratings, finite_mle
from fastsheng.studies.ladder.spec import LadderError, LadderSpec, bot_label, resolve_bot_name

__all__ = [
    "LadderError",
    "LadderSpec",
    "PairOutcome",
    "Ladder",
    "BTFit",
    "resolve_bot_name",
    "seating_outcome",
    "pair_outcome",
    "pair_row",
    "bradley_terry",
    "finite_mle",
    "bt_ratings",
    "bt_fit",
    "bot_label",
    "run_path",
    "play_ladder",
    "write_ladder",
    "ladder_text",
    "ladder_markdown",
    "ladder_command",
]
