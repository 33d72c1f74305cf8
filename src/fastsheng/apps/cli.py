"""The ``fastsheng`` command: the typer app, every command's options (declared once, as
Annotated aliases shared by the commands that take them) and the entry point.

A command parses and hands over: its work lives in the command modules beside this one
(apps/sim_command.py, rules_command.py, replay_command.py, study_commands.py, args.py) or in the
layer that owns it (studies.ladder, apps.terminal). How a command ends, an exception to an exit
code and one line on stderr, is one table: apps/failures.py.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Annotated

import typer

from fastsheng.apps import (
    bots_command,
    replay_command,
    rules_command,
    sim_command,
    study_commands,
)
from fastsheng.apps.args import check_workers, parse_batch_size, parse_isolation
from fastsheng.apps.failures import EXIT_INTERRUPTED, EXITS, explain, failures
from fastsheng.apps.sim_command import default_out, short_count, summary_text
from fastsheng.sim import progress as _progress
from fastsheng.sim.counts import UserError, parse_count
from fastsheng.sim.limits import MAX_BATCH_SIZE, MAX_N

# parse_count .. failures: the names the flat layout's fastsheng.cli gave, importable from here
__all__ = [
    "app",
    "main",
    "parse_count",
    "rules_app",
    "EXIT_INTERRUPTED",
    "UserError",
    "default_out",
    "failures",
    "short_count",
]


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


#: The metavar of an on/off flag: none (typer would print `<bool>`, as if it took a value)
FLAG = ""


def _version_callback(value: bool) -> None:
    if value:
        from fastsheng._version import __version__, describe_build

        typer.echo(f"fastsheng {__version__}")
        typer.echo(describe_build())
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
            help="Print the version and how the compiled core was built.",
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
# Isolated Python bots (fastsheng.engine.isolation): the same four options on sim, compare,
# ladder and sweep
Isolate = Annotated[
    bool | None,
    typer.Option(
        "--isolate/--no-isolate",
        metavar=FLAG,
        help="Play each Python bot (module:Class) in a process of its own, which never holds "
        "the game, the deal or the seed. Default: on when the Python bots come from two or "
        "more top-level modules (authors), or a --bot-* limit is given; off otherwise, since "
        "it costs speed. Off, a Python bot is trusted code: it runs beside the game and could "
        "read every hidden card.",
    ),
]
BotTimeout = Annotated[
    str | None,
    typer.Option(
        "--bot-timeout",
        metavar="SECONDS",
        help="Seconds an isolated bot may take per decision (default 5).",
    ),
]
BotMemory = Annotated[
    str | None,
    typer.Option(
        "--bot-memory",
        metavar="MB",
        help="MB of memory of an isolated bot's process (default 2048).",
    ),
]
OnBotError = Annotated[
    str | None,
    typer.Option(
        "--on-bot-error",
        metavar="forfeit|stop",
        help="An isolated bot that is too slow, runs out of memory, crashes or answers "
        "illegally: forfeit (its team loses the hand; the default in hands mode) or stop (the "
        "run; matches mode).",
    ),
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
    isolate: Isolate = None,
    bot_timeout: BotTimeout = None,
    bot_memory: BotMemory = None,
    on_bot_error: OnBotError = None,
) -> None:
    """Play N hands (or matches) with bots and write them to a Parquet dataset."""
    from fastsheng.sim import runner

    options = sim_command.run_options(n, rules, bots, seed, batch_size)
    check_workers(workers)
    isolation = parse_isolation(isolate, bot_timeout, bot_memory, on_bot_error)
    base = sim_command.resumed_manifest(out, resume, options)
    spec = runner.RunSpec.from_options(
        mode=mode, level=level, tricks=tricks, base=base, **options, **isolation
    )
    target = sim_command.sim_target(out, spec)
    reporter = _progress.make_reporter(quiet=quiet)
    reporter.seed_drawn = seed is None and base is None
    with sim_command.reporter_closed(reporter), sim_command.resume_hints(target, scheduler):
        result = runner.run(
            spec, target, workers=workers, scheduler=scheduler, resume=resume, on_event=reporter
        )
    typer.echo(result.out if quiet else summary_text(result))


# --------------------------------------------------------------------------------------------
# rules


@rules_app.command("list")
def rules_list() -> None:
    """The rule presets: the rule document each comes from, and what sets it apart."""
    typer.echo(rules_command.presets_text())


@rules_app.command("show")
def rules_show(
    spec: Annotated[
        str, typer.Argument(metavar="NAME|FILE", help="A preset name or a .toml file.")
    ],
) -> None:
    """Every switch of a preset or rules file, its value and the passage it comes from."""
    typer.echo(rules_command.rules_text(spec))


# --------------------------------------------------------------------------------------------
# bots

BotsMarkdown = Annotated[
    bool,
    typer.Option("--markdown", metavar=FLAG, help="Print the table in Markdown (the README's)."),
]


@app.command("bots")
def bots_cmd(markdown: BotsMarkdown = False) -> None:
    """The bots: what each is for, its strength and hands/s (measured), how it plays."""
    bots_command.print_menu(markdown=markdown)


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
    typer.echo(replay_command.replay_text(run, hand, seed, rules, bots, level, batch_size))


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
    study_commands.run_report(run, out)


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
    isolate: Isolate = None,
    bot_timeout: BotTimeout = None,
    bot_memory: BotMemory = None,
    on_bot_error: OnBotError = None,
) -> None:
    """Paired comparison of two variants over the same deals (common random numbers)."""
    study_commands.run_compare(**locals())


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
    isolate: Isolate = None,
    bot_timeout: BotTimeout = None,
    bot_memory: BotMemory = None,
    on_bot_error: OnBotError = None,
) -> None:
    """Every pair of bots on paired deals (seats swapped): net levels, hands won, ratings."""
    from fastsheng.studies.ladder import ladder_command

    if n is None:
        raise UserError("missing -n: how many deals each pair plays, e.g. -n 2e4")
    check_workers(workers)
    isolation = parse_isolation(isolate, bot_timeout, bot_memory, on_bot_error)
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
        **isolation,
    )
    if code:
        raise typer.Exit(code)


# --------------------------------------------------------------------------------------------
# sweep (owned by fastsheng.studies; this block only registers it)


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
    isolate: Isolate = None,
    bot_timeout: BotTimeout = None,
    bot_memory: BotMemory = None,
    on_bot_error: OnBotError = None,
) -> None:
    """A baseline and many variants on the same deals: paired effects, adjusted intervals."""
    study_commands.run_sweep(**locals())


# --------------------------------------------------------------------------------------------
# Entry point


def _sigterm(signum, frame):  # noqa: ARG001 - signal handler signature
    raise KeyboardInterrupt


# every command's --help without a value (registered above, before the app is first built)
for _info in (*app.registered_commands, *rules_app.registered_commands):
    if _info.cls in (None, typer.core.TyperCommand):
        _info.cls = _Command


def __getattr__(name: str):
    """``click_command``: the click command the typer app becomes, built on demand (the
    documentation site's CLI reference, docs/reference/cli.md, is generated from it)."""
    if name == "click_command":
        return typer.main.get_command(app)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


def _invoke(args: list[str]) -> int:
    try:
        rv = app(args=args, prog_name="fastsheng", standalone_mode=False)
        return rv if isinstance(rv, int) else 0
    except EXITS as exc:
        return int(getattr(exc, "exit_code", getattr(exc, "code", 0)) or 0)
    except BaseException as exc:  # looked up in failures(), re-raised if not there
        explained = explain(exc)
        if explained is None:
            raise
        code, text = explained
        if text:
            typer.echo(text, err=True)
        return code


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
