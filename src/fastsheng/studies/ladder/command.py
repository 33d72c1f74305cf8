"""``fastsheng ladder``: its options checked, the ladder played, printed and written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastsheng.studies.ladder.output import ladder_markdown, ladder_text, write_ladder
from fastsheng.studies.ladder.pairs import play_ladder, safe_name
from fastsheng.studies.ladder.spec import LadderError, LadderSpec

__all__ = ["ladder_command"]


def _parse_max_deals(text: str) -> tuple[tuple[str, int], ...]:
    """``"search=2000,expert=5e4"`` -> ``(("search", 2000), ("expert", 50000))``."""
    from fastsheng.sim.counts import parse_count

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
    batch_size: int | None = None,
    max_deals: str | None = None,
    workers: int | None = None,
    out: str | None = None,
    markdown: bool = False,
    quiet: bool = False,
    isolate: bool | None = None,
    bot_limits: Any = None,
) -> int:
    """``fastsheng ladder``: play, print the tables, write them to ``out``; the exit code.
    ``isolate``, ``bot_limits``: LadderSpec's (None: isolated when the Python bots come from
    two or more authors)."""
    import secrets
    import sys

    from fastsheng.bots.names import split_bots
    from fastsheng.cards import parse_level
    from fastsheng.rules import get_rules, rules_from_spec
    from fastsheng.sim import progress, runner

    names = [b.strip() for b in split_bots(bots)]  # as given: module paths keep their case
    if not all(names):
        raise LadderError(f"--bots takes a comma-separated list of bot names, not {bots!r}")
    try:
        level = parse_level(level, "--level")
    except ValueError as exc:
        raise LadderError(str(exc)) from None
    drawn = seed is None
    seed = secrets.randbelow(2**32) if seed is None else seed
    the_rules = rules_from_spec(rules) if rules else get_rules("standard")
    caps = _parse_max_deals(max_deals) if max_deals else ()
    if batch_size is None:  # sim's choice: smaller batches when a seat is a (slow) Python bot
        batch_size = _default_batch_size(names)
    spec = LadderSpec(
        tuple(names), n, seed, the_rules, level, batch_size, caps,
        isolate=isolate, bot_limits=bot_limits,
    )  # fmt: skip
    where = Path(out) if out else Path("runs") / f"ladder-{safe_name(the_rules.name)}-{n}-s{seed}"
    command = (
        f"fastsheng ladder --bots {','.join(spec.labels)} -n {n} --seed {seed} "
        f"--rules {rules or 'standard'} --level {level}"
        + (f" --batch-size {batch_size}" if batch_size != _default_batch_size(names) else "")
        + (f" --max-deals {max_deals}" if max_deals else "")
        + _isolation_options(isolate, bot_limits)
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


def _isolation_options(isolate: bool | None, limits: Any) -> str:
    """The isolation options as given, for the command that finishes the ladder."""
    out = "" if isolate is None else (" --isolate" if isolate else " --no-isolate")
    if limits is not None:
        out += f" --bot-timeout {limits.timeout:g} --bot-memory {limits.memory_mb}"
        out += f" --on-bot-error {limits.on_error}" if limits.on_error else ""
    return out


def _default_batch_size(names: Any) -> int:
    """The batch size ``fastsheng sim`` gives a line-up holding any of these bots."""
    from fastsheng.bots.names import is_python_bot, resolve_bot
    from fastsheng.sim.runner import DEFAULT_BATCH_SIZE, PYTHON_BATCH_SIZE

    python = any(is_python_bot(resolve_bot(b)) for b in names)
    return (PYTHON_BATCH_SIZE if python else DEFAULT_BATCH_SIZE)["hands"]
