"""The ``fastsheng`` command: ``sim``, ``rules list|show``, ``replay``, ``play``, ``--version``.

User mistakes (a bad count, an unknown preset or bot, a malformed rules file, an output folder
that exists, an unreachable scheduler, a corrupt part...) print one line ``error: ...`` on stderr
and exit with code 2, never a traceback. Ctrl-C exits with code 130 after keeping every finished
batch, and says how to resume.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import shlex
import signal
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from fastsheng.cards import parse_level
from fastsheng.errors import FastshengError
from fastsheng.sim import progress as _progress
from fastsheng.sim.counts import UserError, parse_count
from fastsheng.sim.limits import MAX_BATCH_SIZE, MAX_N, short_number

__all__ = ["app", "main", "parse_count"]


class _NoHelpValue:
    """--help without a value in the help (click gives the flag a `<bool>` metavar)."""

    def get_help_option(self, ctx):
        option = super().get_help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option


class _Command(_NoHelpValue, typer.core.TyperCommand):
    pass


class _Group(_NoHelpValue, typer.core.TyperGroup):
    pass


app = typer.Typer(
    cls=_Group,
    name="fastsheng",
    help="A fast simulator of 双升 (Shengji / Tractor): millions of bot-played hands into Parquet.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
rules_app = typer.Typer(cls=_Group, help="The rule presets and rules files.", no_args_is_help=True)
app.add_typer(rules_app, name="rules")

EXIT_USAGE = 2
#: The metavar of an on/off flag: none (typer would print `<bool>`, as if it took a value)
FLAG = ""
_MAX_BATCH = max(MAX_BATCH_SIZE.values())  # the mode's own maximum is checked by RunSpec
#: More local workers than this is a typo (each is a process holding a batch in memory).
MAX_WORKERS = 1024
EXIT_INTERRUPTED = 130


# --------------------------------------------------------------------------------------------
# Parsing helpers


def parse_bots(text: str) -> tuple[str, str, str, str]:
    """``"expert"`` (all four seats), ``"mine:Bot,expert"`` (the teams: seats 0/2, 1/3) or
    ``"expert,basic,expert,basic"`` (seat 0 first)."""
    from fastsheng.engine.registry import is_python_bot, split_bots
    from fastsheng.sim.runner import check_bots

    # a Python bot's module:Class keeps its case; built-in names are case-insensitive
    names = [b.strip() if is_python_bot(b.strip()) else b.strip().lower() for b in split_bots(text)]
    if len(names) not in (1, 2, 4) or not all(names):
        raise UserError(
            f"--bots takes one bot name, two (team 0 at seats 0/2, team 1 at seats 1/3) or four "
            f"(one per seat), not {text!r}"
        )
    try:
        return check_bots(names)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def short_count(n: int) -> str:
    """1000000 -> "1e6", 2500000 -> "2.5e6", 1234 -> "1234" (for folder names)."""
    if n >= 10_000:
        exp = int(math.log10(n))
        while exp > 0 and n % 10**exp:
            exp -= 1
        if exp >= 4 or (exp >= 3 and n // 10**exp < 10):
            mant = n / 10 ** int(math.log10(n))
            if mant == int(mant) or len(f"{mant:g}") <= 4:
                return f"{mant:g}e{int(math.log10(n))}"
    return str(n)


def default_out(spec) -> Path:
    """``runs/<rules>-<bots>-<n>[-matches]-s<seed>`` under the current folder. The rules name
    keeps its letters and digits in any script (规则.toml and 方案.toml are two folders)."""
    rules = re.sub(r"[^\w.-]+", "_", spec.rules_name.removesuffix(".toml")).strip("_")
    if not rules.strip("._-"):  # nothing left of it (e.g. only symbols): a name from its hash
        digest = hashlib.sha256(spec.rules_name.encode()).hexdigest()[:8]
        rules = f"rules-{digest}"
    bots = spec.bots[0] if len(set(spec.bots)) == 1 else "-".join(spec.bots)
    bots = re.sub(r"[^A-Za-z0-9_.-]+", "_", bots)  # module:Class bots
    mode = "-matches" if spec.mode == "matches" else ""
    return Path("runs") / f"{rules}-{bots}-{short_count(spec.n)}{mode}-s{spec.seed}"


def _version_callback(value: bool) -> None:
    if value:
        from fastsheng._version import __version__

        typer.echo(f"fastsheng {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            metavar=FLAG,
            callback=_version_callback,
            is_eager=True,
            help="Print the version.",
        ),
    ] = False,
) -> None:
    """fastsheng: simulate 双升 at scale. `fastsheng sim -n 1e6` is the main job."""


# --------------------------------------------------------------------------------------------
# sim

SimCount = Annotated[
    str | None,
    typer.Option(
        "-n", "--count", help="Hands to play (matches with --mode matches): 1e6, 1_000_000."
    ),
]
RulesFile = Annotated[
    str | None, typer.Option("--rules", "-r", help="A preset name or a .toml rules file.")
]
SimBots = Annotated[
    str | None,
    typer.Option(
        "--bots",
        "-b",
        help="One bot for all seats, two teams (seats 0/2, 1/3: mine:Bot,expert), or four: "
        "expert,basic,expert,basic.",
    ),
]
SimSeed = Annotated[
    str | None,
    typer.Option(
        "--seed", "-s", help="Seed of the run (default: drawn at random, printed, recorded)."
    ),
]
SimWorkers = Annotated[
    int | None,
    typer.Option(
        "--workers", "-w", help="Local worker processes (default: every core; 0 in-process)."
    ),
]
SimOut = Annotated[
    str | None,
    typer.Option("--out", "-o", help="Output folder or fsspec URL (default: ./runs/<name>)."),
]
SimMode = Annotated[str | None, typer.Option("--mode", help="hands (default) or matches.")]
SimLevel = Annotated[
    str | None,
    typer.Option("--level", help="Level of every hand, 2..A or random (hands mode)."),
]
Tricks = Annotated[
    bool, typer.Option("--tricks", metavar=FLAG, help="Also write the per-trick table.")
]
SimBatchSize = Annotated[
    str | None,
    typer.Option(
        "--batch-size",
        help="Hands (matches) per batch and part file (default 10000 / 500; 1000 / 50 when a "
        "seat is a Python bot).",
    ),
]
Resume = Annotated[bool, typer.Option("--resume", metavar=FLAG, help="Finish the run in --out.")]
Scheduler = Annotated[
    str | None, typer.Option("--scheduler", help="Run on a Dask cluster: tcp://HOST:PORT.")
]
QuietRun = Annotated[
    bool, typer.Option("--quiet", "-q", metavar=FLAG, help="No progress and no summary.")
]


@app.command()
def sim(
    n: SimCount = None,
    rules: RulesFile = None,
    bots: SimBots = None,
    seed: SimSeed = None,
    workers: SimWorkers = None,
    out: SimOut = None,
    mode: SimMode = None,
    level: SimLevel = None,
    tricks: Tricks = False,
    batch_size: SimBatchSize = None,
    resume: Resume = False,
    scheduler: Scheduler = None,
    quiet: QuietRun = False,
) -> None:
    """Play N hands (or matches) with bots and write them to a Parquet dataset."""
    from fastsheng.sim import runner

    options = _run_options(n, rules, bots, seed, batch_size)
    check_workers(workers)
    base = _resumed_manifest(out, resume, options)
    spec = runner.RunSpec.from_options(mode=mode, level=level, tricks=tricks, base=base, **options)
    target = sim_target(out, spec)
    reporter = _progress.make_reporter(quiet=quiet)
    reporter.seed_drawn = seed is None and base is None
    with reporter_closed(reporter), resume_hints(target, scheduler):
        result = runner.run(
            spec, target, workers=workers, scheduler=scheduler, resume=resume, on_event=reporter
        )
    typer.echo(result.out if quiet else summary_text(result))


def _run_options(n, rules, bots, seed, batch_size) -> dict[str, Any]:
    """sim's text options parsed (None: not given), in the order a mistake is reported."""
    from fastsheng.rules import rules_from_spec

    return {
        "n": None if n is None else parse_count(n, "-n", maximum=MAX_N),
        "rules": None if rules is None else rules_from_spec(rules),
        "bots": None if bots is None else parse_bots(bots),
        "seed": None if seed is None else parse_count(seed, "--seed", minimum=0),
        "batch_size": parse_batch_size(batch_size),
    }


def parse_batch_size(text: str | None, maximum: int = _MAX_BATCH) -> int | None:
    """``--batch-size`` (None when not given)."""
    return None if text is None else parse_count(text, "--batch-size", maximum=maximum)


def check_workers(workers: int | None) -> None:
    """UserError for a --workers count that is a typo (negative, or thousands of processes)."""
    if workers is not None and not 0 <= workers <= MAX_WORKERS:
        raise UserError(f"--workers must be 0 to {MAX_WORKERS}, not {workers}")


def _resumed_manifest(out: str | None, resume: bool, options: dict[str, Any]) -> dict | None:
    """The run.json that --resume finishes (None for a new run, or for --resume with -n and
    --seed and no --out: the run in its default folder)."""
    if not resume:
        return None
    if out is None:
        if options["seed"] is None or options["n"] is None:
            raise UserError("--resume needs --out RUN (the folder of the run to finish)")
        return None
    from fastsheng.sim.dataset import Storage, read_manifest

    storage = Storage(out)
    if not storage.exists():
        raise UserError(f"{out}: nothing to resume (no such run folder)")
    return read_manifest(storage)


def sim_target(out: str | None, spec) -> str:
    """Where the run is written: --out, or ./runs/<name>; never a memory:// folder."""
    target = str(out) if out is not None else str(default_out(spec))
    if target.lower().startswith("memory://"):
        raise UserError(
            f"--out {target}: a memory:// folder lives in this command's memory and is lost when "
            "it ends; give a folder or a lasting URL (s3://...)"
        )
    return target


@contextmanager
def reporter_closed(reporter):
    """The progress display is gone before anything else is printed (a summary, an error)."""
    try:
        yield
    finally:
        reporter.close()


@contextmanager
def resume_hints(target: str, scheduler: str | None):
    """A run that stops early tells how to finish it: each stop gets its ``finish`` clause,
    which failures() prints after the stop's own message."""
    from fastsheng.sim import runner

    try:
        yield
    except (runner.RunInterrupted, runner.SchedulerLost, runner.DiskFull) as exc:
        again = resume_command(exc.out, scheduler)
        free = "free some space, then: " if isinstance(exc, runner.DiskFull) else "finish with: "
        exc.finish = free + again
        raise
    except runner.BatchFailed as exc:
        exc.finish = f"finished batches are kept in {target} (--resume finishes the run)"
        raise


@contextmanager
def finish_hint(text: str):
    """An interrupted study (compare, sweep) says that the same command finishes it."""
    from fastsheng.sim.runner import RunInterrupted

    try:
        yield
    except RunInterrupted as exc:
        exc.finish = text
        raise


def resume_command(out: str, scheduler: str | None) -> str:
    """The command that finishes the run in ``out`` on the same backend."""
    where = f" --scheduler {shlex.quote(scheduler)}" if scheduler else ""
    return f"fastsheng sim --out {shlex.quote(out)} --resume{where}"


def level_change_text(hist: dict[str, int], total: int) -> str:
    """``dealer +3 4.1%, dealer +2 ..., take over 20.0%, defenders +1 ...``."""

    def order(key: str) -> tuple[int, int]:
        side, _, k = key.partition("+")
        return (0, -int(k)) if side == "dealer" else (1, int(k))

    parts = []
    for key in sorted(hist, key=order):
        side, _, k = key.partition("+")
        label = "take over" if key == "defenders+0" else f"{side} +{k}"
        parts.append(f"{label} {100.0 * hist[key] / total:.1f}%")
    return ", ".join(parts)


def summary_text(result) -> str:
    """The one-screen summary printed after a run."""
    from fastsheng.sim.dataset import TABLES

    m = result.manifest
    stats = result.stats
    unit = "matches" if m["mode"] == "matches" else "hands"
    rows = stats.get(unit, 0)
    lines = []
    state = "complete" if result.complete else "INCOMPLETE"
    head = (
        f"wrote {rows:,} {unit} to" if result.batches_run else f"nothing to do: {rows:,} {unit} in"
    )
    lines.append(f"{head} {result.out} ({state}, {len(m['batches'])} parts)")
    if result.rows_run:
        share = (
            100.0 * result.write_seconds / (result.sim_seconds + result.write_seconds)
            if result.sim_seconds + result.write_seconds > 0
            else 0.0
        )
        lines.append(
            f"  speed        {result.rate:,.0f} {unit}/s over {result.elapsed:.1f} s "
            f"({result.rows_run:,} {unit} this session; writing {share:.0f}% of worker time)"
        )
    hands = stats.get("hands", 0)
    if unit == "matches":
        lines.append(
            f"  hands        {hands:,} in {rows:,} matches ({hands / max(rows, 1):.1f} per match)"
        )
    if hands and "dealer_wins" in stats:
        lines.append(f"  dealer side  won {100.0 * stats['dealer_wins'] / hands:.1f}% of hands")
    if hands and "defender_points_sum" in stats:
        lines.append(f"  defenders    {stats['defender_points_sum'] / hands:.1f} points on average")
    if hands and "kitty_captures" in stats:
        rate = 100.0 * stats["kitty_captures"] / hands
        lines.append(f"  kitty        captured by the defenders in {rate:.1f}% of hands")
    hist = stats.get("level_change")
    if hands and hist:
        lines.append("  levels       " + level_change_text(hist, hands))
    if rows and unit == "matches" and stats.get("match_winner"):
        won = stats["match_winner"]
        parts = [
            f"{k} {100.0 * won[k] / rows:.1f}%" for k in ("team0", "team1", "draw") if k in won
        ]
        lines.append("  matches won  " + ", ".join(parts))
    sep = "/" if "://" in result.out else os.sep
    reads = [
        f"pandas.read_parquet({result.out.rstrip('/') + sep + t!r})"
        for t in TABLES
        if t in m.get("tables", []) and t != "tricks"
    ]
    lines.append("read it:      " + ", ".join(reads))
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# rules


@rules_app.command("list")
def rules_list() -> None:
    """The rule presets: the rule document each comes from, and what sets it apart."""
    from fastsheng import rules as rules_mod

    labels = getattr(rules_mod, "PRESET_LABELS", {})
    summaries = getattr(rules_mod, "PRESET_SUMMARIES", {})
    names = rules_mod.list_presets()
    width = max(len(n) for n in names)
    lwidth = max(_display_width(labels.get(n, "")) for n in names)
    for name in names:
        label = labels.get(name, "")
        pad = " " * (lwidth - _display_width(label))
        typer.echo(f"{name:<{width}}  {label}{pad}  {summaries.get(name, '')}".rstrip())


def _display_width(text: str) -> int:
    """Terminal columns of a text: CJK characters take two."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


@rules_app.command("show")
def rules_show(
    spec: Annotated[
        str, typer.Argument(metavar="NAME|FILE", help="A preset name or a .toml file.")
    ],
) -> None:
    """Every switch of a preset or rules file, its value and the passage it comes from."""
    from fastsheng.rules import describe_rules, rules_from_spec

    r = rules_from_spec(spec)
    rows = describe_rules(r)
    typer.echo(f"rules {r.name}")
    width = max(len(f) for f, _, _ in rows)
    vwidth = max(len(_fmt_value(v)) for _, v, _ in rows)
    for field, value, source in rows:
        typer.echo(f"  {field:<{width}}  {_fmt_value(value):<{vwidth}}  {source}")


def _fmt_value(value: Any) -> str:
    if isinstance(value, (tuple, list)):
        return ",".join(map(str, value)) or "-"
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


# --------------------------------------------------------------------------------------------
# replay

ReplayRun = Annotated[
    Path | None,
    typer.Argument(
        metavar="[RUN]", help="A run folder, or a hand saved by `fastsheng play` (.json)."
    ),
]
ReplayHand = Annotated[
    str | None, typer.Option("--hand", help="Hand id in the run (or hand K of --seed).")
]
ReplaySeed = Annotated[
    str | None, typer.Option("--seed", "-s", help="Without RUN: the seed of the run.")
]
ReplayRules = Annotated[
    str | None, typer.Option("--rules", "-r", help="Without RUN: preset or rules file.")
]
ReplayBots = Annotated[
    str | None, typer.Option("--bots", "-b", help="Without RUN: the bots (default expert).")
]
ReplayLevel = Annotated[
    str | None, typer.Option("--level", help="Without RUN: the level (default 2).")
]
ReplayBatchSize = Annotated[
    str | None,
    typer.Option("--batch-size", help="Without RUN: the batch size (default: as `sim` picks it)."),
]


@app.command()
def replay(
    run: ReplayRun = None,
    hand: ReplayHand = None,
    seed: ReplaySeed = None,
    rules: ReplayRules = None,
    bots: ReplayBots = None,
    level: ReplayLevel = None,
    batch_size: ReplayBatchSize = None,
) -> None:
    """Print one hand move by move, in card notation."""
    seed_options = (seed, rules, bots, level, batch_size)
    if run is not None and run.is_file():  # a hand saved by `fastsheng play`
        if hand is not None or any(x is not None for x in seed_options):
            raise UserError("a saved hand is replayed as it is: give the file alone")
        from fastsheng.apps.terminal import replay_saved

        typer.echo(replay_saved(run))
        return
    if hand is None:
        raise UserError("replay needs --hand ID (the hand_id column of the run)")
    hand_id = parse_count(hand, "--hand", minimum=0, maximum=2**64 - 1)
    if run is not None:
        if any(x is not None for x in seed_options):
            raise UserError("give either RUN or --seed (with --rules/--bots/...), not both")
        spec = _replayed_run(run, hand_id)
    else:
        spec = _replay_spec(hand_id, hand, *seed_options)
    from fastsheng.engine.hands import format_trace

    typer.echo(format_trace(_trace(spec, hand_id)))


def _replayed_run(run: Path, hand_id: int):
    """The spec of the run folder ``run``, which must hold hand ``hand_id``."""
    from fastsheng.sim.dataset import Storage, read_manifest
    from fastsheng.sim.runner import RunSpec

    storage = Storage(run)
    if not storage.exists():
        raise UserError(f"{run}: no such run folder")
    manifest = read_manifest(storage)
    spec = RunSpec.from_manifest(manifest)
    if spec.mode == "hands" and hand_id >= spec.n:
        raise UserError(f"--hand {hand_id} is past the end of the run ({spec.n} hands)")
    if spec.mode == "matches" and hand_id >> 16 >= spec.n:
        raise UserError(
            f"--hand {hand_id} is match {hand_id >> 16}, past the end of the run "
            f"({spec.n} matches; a hand_id is match_id * 65536 + hand_no)"
        )
    _check_replayed_batch(run, manifest, spec, hand_id)
    return spec


def _replay_spec(hand_id: int, hand: str, seed, rules, bots, level, batch_size):
    """The spec of the run ``fastsheng sim`` would make with these options (up to the hand)."""
    from fastsheng.rules import get_rules, rules_from_spec
    from fastsheng.sim.runner import RunSpec, default_batch_size

    if seed is None:
        raise UserError("replay needs a RUN folder, or --seed S with --hand K")
    if hand_id >= MAX_N:
        raise UserError(f"--hand must be below {short_number(MAX_N)}, not {hand}")
    lineup = parse_bots(bots) if bots else ("expert",) * 4
    return RunSpec(
        rules=rules_from_spec(rules) if rules else get_rules("standard"),
        bots=lineup,
        seed=parse_count(seed, "--seed", minimum=0),
        n=hand_id + 1,
        # as `fastsheng sim` picks it
        batch_size=parse_batch_size(batch_size or None) or default_batch_size(lineup),
        level=parse_level("2" if level is None else level, "--level"),
    )


def _trace(spec, hand_id: int):
    """The trace of hand ``hand_id`` of the run ``spec``, replayed from its seed."""
    from fastsheng.engine.hands import trace_hand

    common = {"bot_stream": spec.bot_stream}
    if spec.mode == "matches":  # hand_id = match_id * 65536 + hand_no
        match_id, hand_no = divmod(hand_id, 65536)
        batch, index = divmod(match_id, spec.batch_size)
        common.update(mode="matches", hand_no=hand_no)
    else:
        batch, index = divmod(hand_id, spec.batch_size)
        common.update(level=spec.level)
    return trace_hand(spec.rules, spec.bots, spec.seed, batch, index, spec.batch_size, **common)


def _check_replayed_batch(run: Path, manifest: dict[str, Any], spec: Any, hand_id: int) -> None:
    """The hand is replayed from the seed; its row in the run must be what run.json recorded
    (a corrupt part is an error naming it), and an unfinished run says so."""
    from fastsheng.sim.dataset import Storage, part_name, progress_notice, read_verified

    match_or_hand = hand_id >> 16 if spec.mode == "matches" else hand_id
    batch = match_or_hand // spec.batch_size
    entry = manifest["batches"].get(str(batch))
    notice = progress_notice(manifest)
    if entry is None:
        typer.echo(
            f"warning: {run}: {notice}; batch {batch} (this hand's) is not finished, so this "
            "replay has no row of the run to match",
            err=True,
        )
        return
    storage = Storage(run)
    for table, info in entry["parts"].items():
        read_verified(storage, f"{table}/{part_name(batch)}", info, storage.display())
    if notice:
        typer.echo(f"warning: {run}: {notice}", err=True)


# --------------------------------------------------------------------------------------------
# play (owned by fastsheng.apps.terminal; this block only registers it)

PlayBots = Annotated[
    str, typer.Option("--bots", "-b", help="The bots: one name, or four (seat 0 first).")
]
PlaySeat = Annotated[int, typer.Option("--seat", help="Your seat, 0..3.")]
PlaySeed = Annotated[
    str | None, typer.Option("--seed", "-s", help="Seed of the deal (default: drawn).")
]
PlayHand = Annotated[str, typer.Option("--hand-id", help="Which hand of the seed.")]
PlayLevel = Annotated[str, typer.Option("--level", help="Level of the hand, 2..A or random.")]
PlayOut = Annotated[
    Path | None, typer.Option("--out", "-o", help="Where to save the hand (.json).")
]


@app.command("play")
def play_cmd(
    rules: RulesFile = "standard",
    bots: PlayBots = "expert",
    seat: PlaySeat = 0,
    seed: PlaySeed = None,
    hand: PlayHand = "0",
    level: PlayLevel = "2",
    out: PlayOut = None,
) -> None:
    """Play one hand at the terminal against three bots; the hand is saved for `replay`."""
    from fastsheng.apps.terminal import play_command
    from fastsheng.rules import rules_from_spec

    code = play_command(
        rules_from_spec(rules),
        bots,
        seat,
        None if seed is None else parse_count(seed, "--seed", minimum=0),
        parse_count(hand, "--hand-id", minimum=0, maximum=MAX_N - 1),
        level,
        out,
    )
    if code:
        raise typer.Exit(code)


# --------------------------------------------------------------------------------------------
# report, compare (owned by fastsheng.studies.report; this block only registers them)


@app.command("report")
def report_cmd(
    run: Annotated[Path, typer.Argument(help="A run folder written by `fastsheng sim`.")],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Output folder (default RUN/report).")
    ] = None,
) -> None:
    """Tables, plots and intervals of one run: RUN/report/index.html + CSVs."""
    from fastsheng.studies.report import report_command

    notice = _run_notice(run)
    report_command(run, out)
    if notice:  # until the page carries it too
        typer.echo(f"warning: {run}: {notice}; the report covers those only", err=True)


def _run_notice(run: Path) -> str | None:
    """ "incomplete: k of n batches" for an unfinished run (reads only its run.json)."""
    from fastsheng.sim.dataset import Storage, progress_notice, read_manifest

    storage = Storage(run)
    if not storage.exists():
        raise UserError(f"{run}: no such run folder")
    return progress_notice(read_manifest(storage))


def check_comparable(run_a: Path, run_b: Path) -> None:
    """UserError unless two runs pair hand by hand: the same mode, and the same batch size (a
    hand's deal comes from its batch's seed, so other batch sizes deal other hands)."""
    from fastsheng.sim.dataset import Storage, read_manifest

    ma, mb = (read_manifest(Storage(r)) for r in (run_a, run_b))
    if ma.get("mode") != mb.get("mode"):
        raise UserError(
            f"{run_a} is a {ma.get('mode')} run and {run_b} a {mb.get('mode')} run; compare "
            "pairs runs of one mode"
        )
    if ma.get("batch_size") != mb.get("batch_size"):
        raise UserError(
            f"{run_a} has batches of {ma.get('batch_size')} and {run_b} of {mb.get('batch_size')}"
            "; their hands are not dealt alike, so they do not pair: make both with one "
            "--batch-size"
        )


# Options of the studies (compare, sweep): declared once for both
CompareCount = Annotated[str, typer.Option("-n", "--count", help="Hands per variant.")]
StudyBatchSize = Annotated[
    str | None, typer.Option("--batch-size", help="Batch size (default 10000).")
]
StudyLevel = Annotated[str, typer.Option("--level", help="Level of every hand.")]
StudyWorkers = Annotated[
    int | None, typer.Option("--workers", "-w", help="Local worker processes.")
]
StudyOut = Annotated[Path | None, typer.Option("--out", "-o", help="Output folder.")]
CheckN = Annotated[
    str | None, typer.Option("--check-n", help="Deals replayed by --check-bots (10000).")
]


def _study_options(n, seed, batch_size, level, precision, check_n) -> dict[str, Any]:
    """The text options compare and sweep share, parsed in the order a mistake is reported."""
    return {
        "n": parse_count(n, maximum=MAX_N),
        "seed": parse_count(seed, "--seed", minimum=0),
        "batch_size": parse_batch_size(batch_size or None),
        "level": parse_level(level, "--level"),
        "precision": parse_precision(precision),
        "check_n": parse_count(check_n, "--check-n", minimum=2) if check_n else None,
    }


CompareRuns = Annotated[
    list[Path] | None, typer.Argument(help="Two run folders made with the same seed.")
]
CompareRules = Annotated[
    list[str] | None, typer.Option("--rules", "-r", help="Twice: two rule variants.")
]
CompareBots = Annotated[
    list[str] | None,
    typer.Option("--bots", "-b", help="Twice: two bot line-ups (a name, or team0,team1)."),
]
CompareSeed = Annotated[str, typer.Option("--seed", "-s", help="Seed of both variants.")]
ComparePrecision = Annotated[
    str | None, typer.Option("--precision", help="Target half-width (dealer_won): picks n.")
]
CompareCheckBots = Annotated[
    str | None, typer.Option("--check-bots", help="Replay both --rules with this line-up.")
]


@app.command("compare")
def compare_cmd(
    runs: CompareRuns = None,
    rules: CompareRules = None,
    bots: CompareBots = None,
    n: CompareCount = "20000",
    seed: CompareSeed = "0",
    batch_size: StudyBatchSize = None,
    level: StudyLevel = "2",
    workers: StudyWorkers = None,
    out: StudyOut = None,
    precision: ComparePrecision = None,
    check_bots: CompareCheckBots = None,
    check_n: CheckN = None,
) -> None:
    """Paired comparison of two variants over the same deals (common random numbers)."""
    from fastsheng.studies.report import compare_command

    check_workers(workers)
    if runs and len(runs) == 2 and not rules and not bots:
        check_comparable(*runs)
    study = _study_options(n, seed, batch_size, level, precision, check_n)
    with finish_hint("the same compare command finishes its runs"):
        compare_command(
            runs or (),
            rules=rules or (),
            bots=bots or (),
            workers=workers,
            out=out,
            check_bots=check_bots,
            **study,
        )


# --------------------------------------------------------------------------------------------
# ladder (owned by fastsheng.studies.ladder; this block only registers it)

LadderBots = Annotated[
    str, typer.Option("--bots", "-b", help="Two or more bots: random,basic,expert.")
]
LadderCount = Annotated[str | None, typer.Option("-n", "--count", help="Deals per pair: 2e4.")]
LadderSeed = Annotated[
    str | None, typer.Option("--seed", "-s", help="Seed (default: drawn and printed).")
]
LadderLevel = Annotated[str, typer.Option("--level", help="Level of every hand, or random.")]
LadderBatchSize = Annotated[
    str | None,
    typer.Option(
        "--batch-size",
        help="Hands per batch (part of the deals' seeding; default 10000, 1000 with a Python bot).",
    ),
]
MaxDeals = Annotated[
    str | None,
    typer.Option("--max-deals", help="Slow bots: BOT=N, their pairs play the first N deals."),
]
LadderWorkers = Annotated[
    int | None, typer.Option("--workers", "-w", help="Worker processes (default: all cores).")
]
LadderOut = Annotated[
    str | None, typer.Option("--out", "-o", help="Output folder (an existing one resumes).")
]
Markdown = Annotated[
    bool, typer.Option("--markdown", metavar=FLAG, help="Print the tables in Markdown.")
]
QuietProgress = Annotated[bool, typer.Option("--quiet", "-q", metavar=FLAG, help="No progress.")]


@app.command("ladder")
def ladder_cmd(
    bots: LadderBots = "random,basic,expert",
    n: LadderCount = None,
    seed: LadderSeed = None,
    rules: RulesFile = None,
    level: LadderLevel = "2",
    batch_size: LadderBatchSize = None,
    max_deals: MaxDeals = None,
    workers: LadderWorkers = None,
    out: LadderOut = None,
    markdown: Markdown = False,
    quiet: QuietProgress = False,
) -> None:
    """Every pair of bots on paired deals (seats swapped): net levels, hands won, ratings."""
    from fastsheng.studies.ladder import ladder_command

    if n is None:
        raise UserError("missing -n: how many deals each pair plays, e.g. -n 2e4")
    check_workers(workers)
    code = ladder_command(
        bots,
        parse_count(n, "-n", maximum=MAX_N),
        seed=None if seed is None else parse_count(seed, "--seed", minimum=0),
        rules=rules,
        level=level,
        batch_size=parse_batch_size(batch_size, MAX_BATCH_SIZE["hands"]),
        max_deals=max_deals,
        workers=workers,
        out=out,
        markdown=markdown,
        quiet=quiet,
    )
    if code:
        raise typer.Exit(code)


# --------------------------------------------------------------------------------------------
# sweep (owned by fastsheng.studies; this block only registers it)


def parse_precision(text: str | None) -> float | None:
    """``--precision 0.005`` -> 0.005 (a positive half-width in the primary metric's unit)."""
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and value > 0):
        raise UserError(f"--precision must be a positive half-width such as 0.005, not {text!r}")
    return value


SweepRules = Annotated[
    str, typer.Option("--rules", "-r", help="The baseline: a preset or a .toml rules file.")
]
SweepSets = Annotated[
    list[str] | None,
    typer.Option("--set", help="A variant: switch=value (several joined by ';'). Repeat."),
]
SweepGrid = Annotated[
    Path | None, typer.Option("--grid", help="A TOML file with a \\[grid] table of values.")
]
SweepVariants = Annotated[
    list[str] | None, typer.Option("--variant", help="A preset or rules file as a variant.")
]
SweepBots = Annotated[
    list[str] | None,
    typer.Option("--bots", "-b", help="The line-up; repeated: line-ups are the variants."),
]
SweepMetrics = Annotated[
    list[str] | None,
    typer.Option("--metric", "-m", help="A report metric (repeat; the first is primary)."),
]
SweepCount = Annotated[str, typer.Option("-n", "--count", help="Hands per run (the cap).")]
SweepSeed = Annotated[str, typer.Option("--seed", "-s", help="Seed of every run.")]
SweepPrecision = Annotated[
    str | None,
    typer.Option("--precision", help="Target half-width of the primary metric: picks n."),
]
SweepCheckBots = Annotated[
    str | None,
    typer.Option("--check-bots", help="Replay every run with this line-up on a subset."),
]
SweepControls = Annotated[
    bool | None,
    typer.Option(
        "--controls/--no-controls",
        metavar=FLAG,
        help="Deal control variates (default: where they pay).",
    ),
]
SweepForce = Annotated[
    bool,
    typer.Option("--force", metavar=FLAG, help="Allow a grid of more than 1,000 variants."),
]


@app.command("sweep")
def sweep_cmd(
    rules: SweepRules = "standard",
    sets: SweepSets = None,
    grid: SweepGrid = None,
    variants: SweepVariants = None,
    bots: SweepBots = None,
    metrics: SweepMetrics = None,
    n: SweepCount = "20000",
    seed: SweepSeed = "0",
    batch_size: StudyBatchSize = None,
    level: StudyLevel = "2",
    precision: SweepPrecision = None,
    check_bots: SweepCheckBots = None,
    check_n: CheckN = None,
    controls: SweepControls = None,
    force: SweepForce = False,
    workers: StudyWorkers = None,
    scheduler: Scheduler = None,
    out: StudyOut = None,
    quiet: QuietRun = False,
) -> None:
    """A baseline and many variants on the same deals: paired effects, adjusted intervals."""
    from fastsheng.studies.sweep import sweep

    check_workers(workers)
    study = _study_options(n, seed, batch_size, level, precision, check_n)
    with finish_hint("the same sweep command resumes (finished variants are not played again)"):
        sweep(
            rules,
            set=sets or (),
            grid=grid,
            variants=variants or (),
            bots=bots or (),
            metrics=metrics or (),
            check_bots=check_bots,
            controls=controls,
            force=force,
            workers=workers,
            scheduler=scheduler,
            out=out,
            quiet=quiet,
            **study,
        )


# --------------------------------------------------------------------------------------------
# Entry point


def _sigterm(signum, frame):  # noqa: ARG001 - signal handler signature
    raise KeyboardInterrupt


# every command's --help without a value (registered above, before the app is first built)
for _info in (*app.registered_commands, *rules_app.registered_commands):
    if _info.cls in (None, typer.core.TyperCommand):
        _info.cls = _Command


def main(argv: list[str] | None = None) -> int:
    """The ``fastsheng`` console script. Returns (and exits with) the exit code."""
    args = sys.argv[1:] if argv is None else list(argv)
    # a polite kill, or the terminal closing, is a Ctrl-C: keep finished work, release the lock
    previous = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            previous[sig] = signal.signal(sig, _sigterm)
        except ValueError:  # not the main thread
            break
    try:
        code = _invoke(args)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if argv is None:
        sys.exit(code)
    return code


def _click_exceptions() -> tuple[tuple[type, ...], tuple[type, ...], tuple[type, ...]]:
    """(Exit, UsageError/ClickException, Abort) classes of click and of the copy of click that
    recent typer versions vendor (``typer._click``): catch both."""
    exits: list[type] = [typer.Exit]
    usage: list[type] = []
    aborts: list[type] = [typer.Abort]
    for modname in ("typer._click.exceptions", "click.exceptions"):
        try:
            mod = __import__(modname, fromlist=["UsageError"])
        except ImportError:
            continue
        for name, bucket in (("Exit", exits), ("ClickException", usage), ("Abort", aborts)):
            cls = getattr(mod, name, None)
            if isinstance(cls, type):
                bucket.append(cls)
    return tuple(exits), tuple(usage), tuple(aborts)


_EXITS, _USAGE_ERRORS, _ABORTS = _click_exceptions()


def _invoke(args: list[str]) -> int:
    try:
        rv = app(args=args, prog_name="fastsheng", standalone_mode=False)
        return rv if isinstance(rv, int) else 0
    except _EXITS as exc:
        return int(getattr(exc, "exit_code", getattr(exc, "code", 0)) or 0)
    except BaseException as exc:  # looked up in failures(), re-raised if not there
        for types, explain in failures():
            if isinstance(exc, types):
                code, text = explain(exc)
                if text:
                    typer.echo(text, err=True)
                return code
        raise


def _one_line(message: object) -> str:
    return "error: " + " ".join(str(message).split())


def _usage(exc) -> tuple[int, str]:
    if type(exc).__name__ == "NoArgsIsHelpError":  # the help is the message (or was shown)
        return EXIT_USAGE, exc.format_message()
    return int(getattr(exc, "exit_code", EXIT_USAGE) or EXIT_USAGE), _one_line(exc.format_message())


def _mistake(exc: BaseException) -> tuple[int, str]:
    return EXIT_USAGE, _one_line(str(exc) or type(exc).__name__)


def _interrupted(exc) -> tuple[int, str]:
    finish = getattr(exc, "finish", None)
    if finish is None:
        return EXIT_INTERRUPTED, _one_line("interrupted")
    return EXIT_INTERRUPTED, (
        f"interrupted: {exc.done} of {exc.total} batches kept in {exc.out}; {finish}"
    )


def _scheduler_lost(exc) -> tuple[int, str]:
    finish = getattr(exc, "finish", None)
    if finish is None:
        return _mistake(exc)
    return EXIT_USAGE, _one_line(
        f"{exc}; {exc.done} of {exc.total} batches kept in {exc.out}; {finish}"
    )


def _disk_full(exc) -> tuple[int, str]:
    finish = getattr(exc, "finish", None)
    return _mistake(exc) if finish is None else (EXIT_USAGE, _one_line(f"{exc}; {finish}"))


def _batch_failed(exc) -> tuple[int, str]:
    finish = getattr(exc, "finish", None)
    if finish is None:
        return _mistake(exc)
    head = exc.remote_traceback.rstrip() + "\n" if exc.remote_traceback else ""
    return 1, f"{head}error: {exc}; {finish}"


def failures() -> tuple[tuple[tuple[type, ...], Any], ...]:
    """The one table from an exception that ends a command to its exit code and the text on
    stderr, first match wins. A run's stops come first (when runner ran: never imported for
    nothing, since a missing C core is itself a failure to explain)."""
    runner = sys.modules.get("fastsheng.sim.runner")
    stops = (
        ()
        if runner is None
        else (
            ((runner.RunInterrupted,), _interrupted),
            ((runner.SchedulerLost,), _scheduler_lost),
            ((runner.DiskFull,), _disk_full),
            ((runner.BatchFailed,), _batch_failed),
        )
    )
    return (
        *stops,
        (_USAGE_ERRORS, _usage),
        ((*_ABORTS, KeyboardInterrupt), lambda exc: (EXIT_INTERRUPTED, _one_line("interrupted"))),
        # the C core is not built, or a dependency is missing
        (
            (ImportError,),
            lambda exc: (1, _one_line(f"{exc} (is fastsheng installed and built? pip install .)")),
        ),
        ((FastshengError, ValueError, OSError), _mistake),
    )


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
