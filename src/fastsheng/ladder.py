"""``fastsheng ladder``: every pair of bots on paired deals, and a Bradley–Terry rating.

Method. For each pair (X, Y) of the listed bots, the same ``n`` deals (same seed, batch size and
level: the cards' random stream does not depend on the bots) are played twice: X at seats 0/2
against Y at 1/3, then with the seats swapped. Each seating is an ordinary run folder written by
:func:`fastsheng.runner.run` (every core, Ctrl-C keeps finished batches, re-running the same
command finishes an interrupted ladder) under ``OUT/runs/``. Per deal:

* X's net levels = (levels X's team gains − levels Y's team gains), averaged over the two
  seatings: the luck of the cards and the seat (dealer or defender) cancel, so a bot against
  itself scores exactly 0 on every deal;
* X's hands won (0, 1 or 2): hands in which X's team goes up (as the dealer side) or takes the
  deal (as defenders).

The mean over deals gets a 95% Student t interval (:func:`fastsheng.stats.mean_t`; the deal is
the independent unit, the two hands of a deal are not independent). Every pair plays the
same deals, so the Bradley–Terry rating (``choix``, maximum likelihood on hands won, centred
on 0, in log-odds) gets its interval from a bootstrap that resamples deals jointly for all
pairs. ``elo`` is the same rating on the Elo scale (400 / ln 10 per log-odds unit).
"""

from __future__ import annotations

import itertools
import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fastsheng import stats
from fastsheng.errors import FastshengError

__all__ = [
    "LadderError",
    "LadderSpec",
    "PairOutcome",
    "Ladder",
    "resolve_bot_name",
    "seating_outcome",
    "pair_outcome",
    "pair_row",
    "bradley_terry",
    "bt_ratings",
    "play_ladder",
    "write_ladder",
    "ladder_text",
    "ladder_markdown",
]

CONF = 0.95
N_BOOT = 1000  # bootstrap replicates of the Bradley–Terry rating
ELO_PER_LOGIT = 400.0 / math.log(10.0)
# columns that depend on the deal only: both seatings of a deal must agree on them
_DEAL_COLUMNS = ("dealer", "kitty_points_dealt", *(f"points_{s}" for s in range(4)))
_OUTCOME_COLUMNS = ("hand_id", "winner", "levels", *_DEAL_COLUMNS)


class LadderError(FastshengError):
    """A ladder that cannot be played or read back as asked."""


def resolve_bot_name(name: str) -> str:
    """The name a bot plays as (``"expert"`` -> its current version); ValueError if unknown."""
    from fastsheng.bots import resolve_bot

    return resolve_bot(name)


def _names(key: str, bot: str) -> bool:
    """Whether a --max-deals key names a listed bot: the same name, or its base name."""
    return key == bot or key == bot.partition(":")[0]


@dataclass(frozen=True)
class LadderSpec:
    """Everything a ladder's figures depend on (with the bots' code)."""

    bots: tuple[str, ...]
    n: int
    seed: int
    rules: Any  # fastsheng.rules.Rules
    level: str = "2"
    batch_size: int = 10_000
    # (bot, deals): the pairs of a slow bot play only the first `deals` of the n deals; the bot
    # is named as listed, or by its base name before ":" (`search` caps `search:k=8` too)
    max_deals: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        bots = tuple(b.strip().lower() for b in self.bots)
        if len(bots) < 2:
            raise LadderError(f"a ladder needs at least two bots, not {len(bots)}")
        dup = sorted({b for b in bots if bots.count(b) > 1})
        if dup:
            raise LadderError(f"bot {dup[0]!r} is listed twice")
        for b in bots:
            resolve_bot_name(b)  # raises ValueError naming the known bots
        caps = tuple((b.strip().lower(), int(k)) for b, k in self.max_deals)
        for b, k in caps:
            if not any(_names(b, x) for x in bots):
                raise LadderError(f"--max-deals names {b!r}, which is not in --bots")
            if k < 1:
                raise LadderError(f"--max-deals {b}={k}: need at least 1 deal")
        object.__setattr__(self, "bots", bots)
        object.__setattr__(self, "max_deals", caps)

    def deals(self, x: str, y: str) -> int:
        """Deals the pair (x, y) plays: n, or fewer for a bot with a cap (the first ones)."""
        return min([self.n, *(k for b, k in self.max_deals if _names(b, x) or _names(b, y))])

    @property
    def pairs(self) -> list[tuple[str, str]]:
        """Every unordered pair, in the order the bots are listed."""
        return list(itertools.combinations(self.bots, 2))

    def run_spec(self, team0: str, team1: str):
        """The run with ``team0`` at seats 0/2 and ``team1`` at seats 1/3."""
        from fastsheng.runner import RunSpec

        return RunSpec(
            rules=self.rules,
            bots=(team0, team1, team0, team1),
            seed=self.seed,
            n=self.deals(team0, team1),
            batch_size=self.batch_size,
            level=self.level,
        )

    def config(self) -> dict[str, Any]:
        return {
            "bots": list(self.bots),
            "resolved": [resolve_bot_name(b) for b in self.bots],
            "n": self.n,
            "seed": self.seed,
            "rules_name": self.rules.name,
            "rules": self.rules.to_dict(),
            "level": self.level,
            "batch_size": self.batch_size,
            "max_deals": dict(self.max_deals),
        }


# --------------------------------------------------------------------------------------------
# Outcomes


def seating_outcome(hands: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per hand (rows in hand order): levels team 0 (seats 0/2) gains minus levels team 1 gains,
    and whether team 0 won the hand (went up as the dealer side, or took the deal)."""
    dealer_won = hands["winner"].astype(str).to_numpy() == "dealer"
    team0_deals = hands["dealer"].to_numpy(np.int64) % 2 == 0
    won0 = dealer_won == team0_deals
    levels = hands["levels"].to_numpy(np.int64)
    return np.where(won0, levels, -levels), won0


@dataclass
class PairOutcome:
    """Per deal, from X's side: net levels per hand (both seatings averaged), hands won (0..2)."""

    x: str
    y: str
    net: np.ndarray
    wins: np.ndarray

    @property
    def deals(self) -> int:
        return int(self.net.size)

    def swapped(self) -> PairOutcome:
        """The same deals seen from Y's side."""
        return PairOutcome(self.y, self.x, -self.net, (2 - self.wins).astype(np.int8))


def pair_outcome(x: str, y: str, x_first: pd.DataFrame, y_first: pd.DataFrame) -> PairOutcome:
    """``x_first``: the hands with X at seats 0/2; ``y_first``: the same deals with the seats
    swapped. Raises LadderError if the two seatings were not dealt the same cards."""
    a = x_first.sort_values("hand_id", kind="stable").reset_index(drop=True)
    b = y_first.sort_values("hand_id", kind="stable").reset_index(drop=True)
    if len(a) != len(b) or not np.array_equal(a["hand_id"].to_numpy(), b["hand_id"].to_numpy()):
        raise LadderError(f"{x} vs {y}: the two seatings did not play the same hands")
    for col in _DEAL_COLUMNS:
        if col in a and col in b and not np.array_equal(a[col].to_numpy(), b[col].to_numpy()):
            raise LadderError(f"{x} vs {y}: the two seatings were dealt different cards ({col})")
    net_a, won_a = seating_outcome(a)  # X is team 0
    net_b, won_b = seating_outcome(b)  # X is team 1
    net = (net_a - net_b) / 2.0
    wins = won_a.astype(np.int8) + (~won_b).astype(np.int8)
    return PairOutcome(x, y, net, wins)


def _mean(x: np.ndarray) -> stats.Estimate:
    """Mean over deals with the Student t interval; a sample with one value (a bot against
    itself) has that value and no width, whatever its sign."""
    if x.size and np.all(x == x[0]):
        v = float(x[0])
        return stats.Estimate(v, v, v, int(x.size), CONF, "t", "no variation in the sample")
    return stats.mean_t(x, CONF)


def pair_row(p: PairOutcome) -> dict[str, Any]:
    """X's net levels per hand and share of hands won, with 95% t intervals over deals (the
    deal is the unit: its two hands are not independent)."""
    net = _mean(p.net)
    won = _mean(p.wins / 2.0)
    return {
        "x": p.x,
        "y": p.y,
        "deals": p.deals,
        "net": net.estimate,
        "net_lo": net.lo,
        "net_hi": net.hi,
        "won": won.estimate,
        "won_lo": won.lo,
        "won_hi": won.hi,
        "warning": "; ".join(w for w in (net.warning, won.warning) if w),
    }


# --------------------------------------------------------------------------------------------
# Bradley–Terry


def bradley_terry(wins: np.ndarray) -> tuple[np.ndarray, bool]:
    """Maximum-likelihood Bradley–Terry ratings (log-odds, mean 0) of a square matrix
    ``wins[i, j]`` = times i beat j, and whether a small prior had to be added (a bot that never
    beat anyone, or was never beaten, has an infinite MLE)."""
    import choix

    w = np.asarray(wins, dtype=np.float64)
    try:
        theta = choix.ilsr_pairwise_dense(w)
        regularized = False
        if not np.all(np.isfinite(theta)):
            raise ValueError("no finite maximum")
    except ValueError:  # choix: "stationary distribution could not be computed"
        theta = choix.ilsr_pairwise_dense(w, alpha=0.01)
        regularized = True
    return theta - theta.mean(), regularized


def bt_ratings(
    bots: Sequence[str], outcomes: Sequence[PairOutcome], *, n_boot: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """One row per bot: the Bradley–Terry rating on hands won with its 95% percentile-bootstrap
    interval. Every pair plays the same deals (a pair with a capped bot: the first ones), so the
    bootstrap resamples deals jointly for every pair; a capped pair counts the resampled deals
    that fall in its prefix."""
    index = {b: i for i, b in enumerate(bots)}
    k = len(bots)
    n = max(o.deals for o in outcomes)
    # deals x (X's wins of each pair | whether the pair played the deal), zero past a prefix
    data = np.zeros((n, 2 * len(outcomes)), np.float32)
    for p, o in enumerate(outcomes):
        data[: o.deals, p] = o.wins
        data[: o.deals, len(outcomes) + p] = 1.0
    ij = [(index[o.x], index[o.y]) for o in outcomes]

    def matrix(sums: np.ndarray) -> np.ndarray:
        w = np.zeros((k, k))
        for p, (i, j) in enumerate(ij):
            a, played = sums[p], sums[len(ij) + p]
            w[i, j] += a
            w[j, i] += 2.0 * played - a
        return w

    theta, regularized = bradley_terry(matrix(data.sum(axis=0)))
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0,)))
    reps = np.empty((n_boot, k))
    chunk = max(1, min(n_boot, int(2e7 // max(n, 1))))
    for start in range(0, n_boot, chunk):
        stop = min(n_boot, start + chunk)
        counts = np.stack(
            [np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(start, stop)]
        ).astype(np.float32)
        for r, sums in enumerate(counts @ data):
            reps[start + r] = bradley_terry(matrix(sums))[0]
    lo, hi = np.quantile(reps, [(1 - CONF) / 2, (1 + CONF) / 2], axis=0)
    out = pd.DataFrame(
        {
            "bot": list(bots),
            "rating": theta,
            "rating_lo": lo,
            "rating_hi": hi,
            "elo": theta * ELO_PER_LOGIT,
            "elo_lo": lo * ELO_PER_LOGIT,
            "elo_hi": hi * ELO_PER_LOGIT,
            "regularized": regularized,
        }
    )
    return out.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)


# --------------------------------------------------------------------------------------------
# Playing


@dataclass
class Ladder:
    """A played ladder: its spec, the pair table, the ratings, and where its runs are."""

    spec: LadderSpec
    pairs: pd.DataFrame
    ratings: pd.DataFrame
    out: Path
    outcomes: list[PairOutcome] = field(default_factory=list, repr=False)
    elapsed: float = 0.0


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


def run_path(out: Path, team0: str, team1: str) -> Path:
    """The run folder of one seating: ``OUT/runs/<team0>_vs_<team1>`` (team0 at seats 0/2)."""
    return Path(out) / "runs" / f"{_safe(team0)}_vs_{_safe(team1)}"


def _read_outcome_columns(path: Path) -> pd.DataFrame:
    """The outcome columns of a finished pair run: only the parts run.json records, each
    verified against its checksum (a corrupt part stops the ladder in one line)."""
    from fastsheng.dataset import read_run

    hands = read_run(path, tables=("hands",)).tables["hands"]
    return hands.select(list(_OUTCOME_COLUMNS)).to_pandas()


class _OneBar:
    """The runner reports run by run; this shows one progress over all the ladder's runs."""

    def __init__(self, reporter: Any, total: int):
        self.reporter = reporter
        self.total = total
        self.started = False

    def __call__(self, kind: str, info: Mapping[str, Any]) -> None:
        r = self.reporter
        if kind == "start":
            if not self.started:
                r.unit, r.total, r.done = "hands", self.total, 0
                r.t0 = r.last = time.perf_counter()
                r.begin()
                self.started = True
            # hands finished by an earlier, interrupted ladder count as done, not as speed
            r.done += info["done_rows"]
            r.done_at_start += info["done_rows"]
            if hasattr(r, "progress"):
                r.progress.update(r.task, completed=r.done)
        elif kind in ("batch", "worker_died", "note"):
            r(kind, info)


def play_ladder(
    spec: LadderSpec,
    out: str | Path,
    *,
    workers: int | None = None,
    reporter: Any = None,
    batch_fn: Callable | None = None,
    n_boot: int = N_BOOT,
) -> Ladder:
    """Play (or finish) every pair of ``spec`` into ``out`` and compute the tables."""
    from fastsheng import runner

    out = Path(out)
    t0 = time.perf_counter()
    total = sum(2 * spec.deals(x, y) for x, y in spec.pairs)
    on_event = _OneBar(reporter, total) if reporter is not None else None
    outcomes = []
    for x, y in spec.pairs:
        paths = []
        for team0, team1 in ((x, y), (y, x)):
            p = run_path(out, team0, team1)
            runner.run(
                spec.run_spec(team0, team1),
                str(p),
                workers=workers,
                resume=(p / "run.json").is_file(),
                on_event=on_event,
                batch_fn=batch_fn,
            )
            paths.append(p)
        outcomes.append(pair_outcome(x, y, *map(_read_outcome_columns, paths)))
    ratings = bt_ratings(spec.bots, outcomes, n_boot=n_boot, seed=spec.seed)
    rank = {b: i for i, b in enumerate(ratings["bot"])}
    # the table reads best with the higher-rated bot as X, strongest pairs first
    outcomes = sorted(
        (o if rank[o.x] < rank[o.y] else o.swapped() for o in outcomes),
        key=lambda o: (rank[o.x], rank[o.y]),
    )
    pairs = pd.DataFrame([pair_row(o) for o in outcomes])
    return Ladder(spec, pairs, ratings, out, outcomes, time.perf_counter() - t0)


# --------------------------------------------------------------------------------------------
# Output


def _interval(v: float, lo: float, hi: float, fmt: str) -> str:
    return f"{v:{fmt}} [{lo:{fmt}}, {hi:{fmt}}]"


def _pair_display(pairs: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "X vs Y": [f"{x} vs {y}" for x, y in zip(pairs["x"], pairs["y"], strict=True)],
            "deals": [f"{d:,}" for d in pairs["deals"]],
            "X net levels / hand [95%]": [
                _interval(*r, "+.3f")
                for r in zip(pairs["net"], pairs["net_lo"], pairs["net_hi"], strict=True)
            ],
            "hands X's team wins [95%]": [
                f"{100 * v:.1f}% [{100 * lo:.1f}%, {100 * hi:.1f}%]"
                for v, lo, hi in zip(pairs["won"], pairs["won_lo"], pairs["won_hi"], strict=True)
            ],
        }
    )


def _rating_display(ratings: pd.DataFrame, resolved: Mapping[str, str]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "bot": [
                b if resolved.get(b, b) == b else f"{b} (= {resolved[b]})" for b in ratings["bot"]
            ],
            "rating, log-odds [95%]": [
                _interval(*r, "+.3f")
                for r in zip(
                    ratings["rating"], ratings["rating_lo"], ratings["rating_hi"], strict=True
                )
            ],
            "Elo scale [95%]": [
                _interval(*r, "+.0f")
                for r in zip(ratings["elo"], ratings["elo_lo"], ratings["elo_hi"], strict=True)
            ],
        }
    )


def _setup_line(lad: Ladder) -> str:
    s = lad.spec
    caps = "".join(f", {b}'s pairs the first {k:,}" for b, k in s.max_deals)
    return (
        f"{s.n:,} deals per pair{caps}, each played twice with the seats swapped; rules "
        f"{s.rules.name}, level {s.level}, seed {s.seed}, batch size {s.batch_size:,}"
    )


def ladder_text(lad: Ladder) -> str:
    """The printed tables."""
    resolved = dict(zip(lad.spec.bots, lad.spec.config()["resolved"], strict=True))
    note = " (a small prior was added: some bot never won or never lost)"
    reg = note if bool(lad.ratings["regularized"].any()) else ""
    return "\n".join(
        [
            f"ladder: {_setup_line(lad)}",
            "",
            _text(_pair_display(lad.pairs)),
            "",
            f"Bradley–Terry rating on hands won, mean 0, bootstrap over deals{reg}:",
            _text(_rating_display(lad.ratings, resolved)),
        ]
    )


def _text(df: pd.DataFrame) -> str:
    """A plain table, text left-aligned (pandas right-aligns strings)."""
    cols = [df[c].astype(str).tolist() for c in df.columns]
    widths = [max(len(c), *(len(v) for v in vs)) for c, vs in zip(df.columns, cols, strict=True)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(df.columns, widths, strict=True))]
    for row in zip(*cols, strict=True):
        lines.append("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)))
    return "\n".join(line.rstrip() for line in lines)


def _markdown(df: pd.DataFrame) -> str:
    head = "| " + " | ".join(df.columns) + " |"
    rule = "|" + "---|" * len(df.columns)
    rows = ["| " + " | ".join(str(v) for v in r) + " |" for r in df.itertuples(index=False)]
    return "\n".join([head, rule, *rows])


def ladder_markdown(lad: Ladder, command: str = "") -> str:
    """The two tables in Markdown, for the README and docs/bots.md."""
    resolved = dict(zip(lad.spec.bots, lad.spec.config()["resolved"], strict=True))
    text = [
        _markdown(_pair_display(lad.pairs)),
        "",
        _markdown(_rating_display(lad.ratings, resolved)),
        "",
        f"({_setup_line(lad)}{'; `' + command + '`' if command else ''})",
    ]
    return "\n".join(text)


def write_ladder(lad: Ladder, command: str = "") -> list[Path]:
    """``OUT/pairs.csv``, ``OUT/ratings.csv``, ``OUT/ladder.md`` and ``OUT/ladder.json``."""
    out = lad.out
    out.mkdir(parents=True, exist_ok=True)
    files = [out / "pairs.csv", out / "ratings.csv", out / "ladder.md", out / "ladder.json"]
    lad.pairs.to_csv(files[0], index=False)
    lad.ratings.to_csv(files[1], index=False)
    files[2].write_text(ladder_markdown(lad, command) + "\n")
    meta = {**lad.spec.config(), "command": command, "elapsed_seconds": round(lad.elapsed, 3)}
    files[3].write_text(json.dumps(meta, indent=1) + "\n")
    return files


# --------------------------------------------------------------------------------------------
# The command


def _parse_max_deals(text: str) -> tuple[tuple[str, int], ...]:
    """``"search=2000,expert=5e4"`` -> ``(("search", 2000), ("expert", 50000))``."""
    from fastsheng.cli import parse_count

    out = []
    for item in text.split(","):
        bot, sep, count = item.rpartition("=")
        if not sep or not bot.strip():
            raise LadderError(f"--max-deals takes BOT=N[,BOT=N...], not {text!r}")
        out.append((bot.strip(), parse_count(count, f"--max-deals {bot.strip()}")))
    return tuple(out)


def ladder_command(
    bots: str,
    n: int,
    *,
    seed: int | None = None,
    rules: str | None = None,
    level: str = "2",
    batch_size: int = 10_000,
    max_deals: str | None = None,
    workers: int | None = None,
    out: str | None = None,
    markdown: bool = False,
    quiet: bool = False,
) -> int:
    """``fastsheng ladder``: play, print the tables, write them to ``out``; the exit code."""
    import secrets
    import sys

    from fastsheng import progress, runner
    from fastsheng.bots import split_bots
    from fastsheng.rules import get_rules, rules_from_spec

    names = [b.strip() for b in split_bots(bots)]
    if not all(names):
        raise LadderError(f"--bots takes a comma-separated list of bot names, not {bots!r}")
    if level.lower() != "random" and level.upper() not in runner.LEVELS:
        raise LadderError(f"unknown --level {level!r}; levels: 2..10, J, Q, K, A or random")
    level = level.lower() if level.lower() == "random" else level.upper()
    drawn = seed is None
    seed = secrets.randbelow(2**32) if seed is None else seed
    the_rules = rules_from_spec(rules) if rules else get_rules("standard")
    caps = _parse_max_deals(max_deals) if max_deals else ()
    spec = LadderSpec(tuple(names), n, seed, the_rules, level, batch_size, caps)
    where = Path(out) if out else Path("runs") / f"ladder-{_safe(the_rules.name)}-{n}-s{seed}"
    command = (
        f"fastsheng ladder --bots {','.join(spec.bots)} -n {n} --seed {seed} "
        f"--rules {rules or 'standard'} --level {level}"
        + (f" --batch-size {batch_size}" if batch_size != 10_000 else "")
        + (f" --max-deals {max_deals}" if max_deals else "")
    )
    reporter = progress.make_reporter(quiet=quiet)
    if not quiet:
        reporter.write(
            f"ladder: {len(spec.bots)} bots, {len(spec.pairs)} pairs, {n:,} deals each played "
            f"twice, seed {seed}{' (drawn at random)' if drawn else ''} -> {where}"
        )
    try:
        lad = play_ladder(spec, where, workers=workers, reporter=reporter)
    except runner.RunInterrupted:
        reporter.close()
        print(
            f"interrupted; run the same command to finish: {command} --out {where}", file=sys.stderr
        )
        return 130
    finally:
        reporter.close()
    files = write_ladder(lad, command)
    print(ladder_markdown(lad, command) if markdown else ladder_text(lad))
    if not quiet:
        print(f"wrote {', '.join(str(f) for f in files)}")
    return 0
