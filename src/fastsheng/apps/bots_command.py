"""``fastsheng bots``: the menu of bots (fastsheng.bots.menu) as a table, one row per public bot:
its name, what to use it for, its strength over expert-v1 [95%], its hands/s and how it plays.
A rich table on the console; ``--markdown`` prints the README's "Bots" table, the same rows."""

from __future__ import annotations

from typing import Any

__all__ = ["COLUMNS", "CAPTION", "menu_markdown", "menu_rows", "print_menu"]

COLUMNS = ("bot", "use", "strength [95%]", "hands/s", "how it plays")
CAPTION = (
    "strength: net levels per hand over expert-v1 on paired, seat-swapped deals, 95% interval; "
    "hands/s: one core, the bot at all four seats; standard rules, random levels; from the "
    "stored frontier (analysis/frontier.py, docs/bots.md)"
)
# wide enough that no row wraps when the output is not a terminal (a pipe, a file): one line
# per bot for grep
_PIPE_WIDTH = 240


def menu_rows() -> list[tuple[str, str, str, str, str]]:
    """The table's rows, every figure formatted as printed (fastsheng.bots.menu)."""
    from fastsheng.bots.menu import format_speed, format_strength, list_bots

    return [(b.name, b.use, format_strength(b), format_speed(b), b.how) for b in list_bots()]


def menu_markdown() -> str:
    """The rows as a Markdown table (the README's "Bots" table)."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in menu_rows()]
    return "\n".join(lines)


def print_menu(markdown: bool = False, console: Any = None) -> None:
    """Print the menu: a rich table (or, with ``markdown``, the Markdown table)."""
    import typer
    from rich.console import Console
    from rich.table import Table

    rows = menu_rows()  # read first: a broken frontier is an error before any output
    if markdown:
        typer.echo(menu_markdown())
        return
    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=_PIPE_WIDTH)
    table = Table(title="fastsheng bots", caption=CAPTION)
    for name in COLUMNS:
        figure = name in ("strength [95%]", "hands/s")
        # the name and the figures never wrap (a broken interval misreads); the words do
        table.add_column(
            name, justify="right" if figure else "left", no_wrap=figure or name == "bot"
        )
    for row in rows:
        table.add_row(*row)
    console.print(table, markup=False, highlight=False)
