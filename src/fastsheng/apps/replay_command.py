"""``fastsheng replay``: one hand printed move by move, from a run folder (checked against the
part that holds it), from the options of the run ``fastsheng sim`` would make, or from a hand
saved by ``fastsheng play``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from fastsheng.apps.args import parse_batch_size, parse_bots
from fastsheng.cards import parse_level
from fastsheng.sim.counts import UserError, parse_count
from fastsheng.sim.limits import MAX_N, short_number

__all__ = ["replay_text"]


def replay_text(run: Path | None, hand: str | None, *seed_options: str | None) -> str:
    """The printed hand; ``seed_options``: --seed, --rules, --bots, --level, --batch-size."""
    if run is not None and run.is_file():  # a hand saved by `fastsheng play`
        if hand is not None or any(x is not None for x in seed_options):
            raise UserError("a saved hand is replayed as it is: give the file alone")
        from fastsheng.apps.terminal import replay_saved

        return replay_saved(run)
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

    return format_trace(_trace(spec, hand_id))


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

    # an isolated run's bots replay isolated: their random streams are seeded otherwise
    common = {"bot_stream": spec.bot_stream, "isolate": spec.isolate, "bot_limits": spec.bot_limits}
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
