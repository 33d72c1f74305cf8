"""Rendering a computed :class:`~fastsheng.studies.report.model.Report`: the self-contained HTML
page, one CSV per table (full precision), ``report.json`` and the printed headline. Nothing here
computes a statistic; the formatting rules are in :mod:`fastsheng.studies.numfmt`."""

from __future__ import annotations

import base64
import html
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fastsheng.studies.numfmt import decimals_for, fmt_fixed, fmt_interval, fmt_p
from fastsheng.studies.report.model import Figure, Report, Table

__all__ = [
    "display_frame",
    "render_html",
    "write_report",
    "print_headline",
    "print_table",
    "fmt_value",
]

# columns shown as percentages in rows whose unit is "share"
_SHARE_COLUMNS = ("estimate", "diff", "mean_a", "mean_b", "mde")


def fmt_value(v: Any, digits: int | None = None, pct: bool = False) -> str:
    """One plain number: ints with thousands separators, floats with ``digits`` decimals or
    three significant digits, NaN as n/a, bools as yes/no."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        v = float(v) * (100.0 if pct else 1.0)
        if digits is None:
            digits = decimals_for(v, float("nan"), float("nan"))
        return fmt_fixed(v, digits, pct)
    return str(v)


def _is_share(df: pd.DataFrame, i: int, col: str, t: Table) -> bool:
    """Shown as a percentage: a ``percent`` column, or a share row (by the table's ``unit``
    column, also when ``unit`` itself is not shown)."""
    if col in t.percent:
        return True
    unit = t.df["unit"] if "unit" in t.df else None
    return col in _SHARE_COLUMNS and unit is not None and str(unit.iloc[i]) == "share"


def _interval_column(df: pd.DataFrame, c: str, t: Table) -> list[str]:
    lo, hi = df[f"{c}_lo"], df[f"{c}_hi"]
    return [
        fmt_interval(
            float(df[c].iloc[i]), float(lo.iloc[i]), float(hi.iloc[i]), None, _is_share(df, i, c, t)
        )
        for i in range(len(df))
    ]


def _plain_column(df: pd.DataFrame, c: str, t: Table) -> list[str]:
    if c in ("p_value", "p_holm"):
        return [fmt_p(float(v)) for v in df[c]]
    if c == "warning":
        return ["" if v is None or v == "" else str(v) for v in df[c]]
    digits = t.digits if c not in ("mde",) else None
    return [fmt_value(df[c].iloc[i], digits, _is_share(df, i, c, t)) for i in range(len(df))]


def display_frame(t: Table, columns: Sequence[str] = ()) -> pd.DataFrame:
    """The table as shown: interval triples merged into 'est [lo, hi]' strings, with decimals
    that keep each interval visible; shares as percentages."""
    df = t.df
    columns = columns or t.show
    if columns:
        df = df[[c for c in columns if c in df.columns]]
    out: dict[str, list[str]] = {}
    skip: set[str] = set()
    for c in df.columns:
        if c in skip:
            continue
        if f"{c}_lo" in df and f"{c}_hi" in df:
            skip |= {f"{c}_lo", f"{c}_hi"}
            out[f"{c} ({t.ci_labels.get(c, '95% CI')})"] = _interval_column(df, c, t)
        else:
            out[c] = _plain_column(df, c, t)
    if "warning" in out and not any(out["warning"]):
        del out["warning"]
    out.pop("bots", None)  # said once next to the table (the CSV keeps it on every row)
    return pd.DataFrame(out)


_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans',sans-serif;margin:2rem auto;
max-width:1100px;color:#222;line-height:1.4;padding:0 1rem}
h1{font-size:1.5rem;margin-bottom:.2rem}
h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
.sub{color:#555} .note{color:#555;font-size:.9rem;max-width:60rem}
.notice{background:#fff3cd;border:1px solid #e0c36a;padding:.5rem .8rem;font-weight:600}
.conventions{color:#444;font-size:.9rem;max-width:60rem}
table{border-collapse:collapse;font-size:.88rem;margin:.5rem 0} th,td{border:1px solid #ddd;
padding:.25rem .5rem;text-align:right} th{background:#f4f4f4} td:first-child,th:first-child{
text-align:left} tr:nth-child(even) td{background:#fafafa} figure{margin:1rem 0}
figcaption{color:#555;font-size:.9rem} img{max-width:100%;height:auto;border:1px solid #eee}
.bots{color:#333;font-size:.9rem;margin:.2rem 0}
nav a{margin-right:.8rem} code{background:#f4f4f4;padding:0 .2rem}
"""


def _bots_html(who: str) -> str:
    return f'<p class="bots">bots: {html.escape(who)}</p>' if who else ""


def _fig_html(f: Figure, bots: str = "") -> str:
    e = html.escape
    b64 = base64.b64encode(f.png).decode("ascii")
    who = f" (bots: {e(bots)})" if bots else ""
    return (
        f'<figure id="fig-{e(f.name)}"><img alt="{e(f.title)}" '
        f'src="data:image/png;base64,{b64}">'
        f"<figcaption>{e(f.title)}{(': ' + e(f.note)) if f.note else ''}{who}</figcaption>"
        "</figure>"
    )


def _header_html(rep: Report) -> list[str]:
    e = html.escape
    parts = [f"<h1>{e(rep.title)}</h1>", f'<p class="sub">{e(rep.subtitle)}</p>']
    if rep.bots and rep.bots not in rep.subtitle:
        parts.append(_bots_html(rep.bots))
    if rep.notice:
        parts.append(f'<p class="notice" id="notice">{e(rep.notice)}</p>')
    if rep.conventions:
        items = "".join(f"<li>{e(c)}</li>" for c in rep.conventions)
        parts.append(f'<ul class="conventions" id="conventions">{items}</ul>')
    nav = "".join(f'<a href="#{e(t.name)}">{e(t.title)}</a>' for t in rep.tables)
    return parts + [f"<nav>{nav}</nav>"]


def _table_html(t: Table, figures: list[Figure], bots: str = "") -> list[str]:
    e = html.escape
    parts = [f'<h2 id="{e(t.name)}">{e(t.title)}</h2>', _bots_html(t.bots or bots)]
    if t.note:
        parts.append(f'<p class="note">{e(t.note)}</p>')
    body = display_frame(t).to_html(index=False, border=0, escape=True, classes="results")
    if t.collapsed:
        body = f"<details><summary>{len(t.df):,} rows (show)</summary>{body}</details>"
    parts.append(body)
    parts.append(f'<p class="note">CSV: <a href="{e(t.name)}.csv">{e(t.name)}.csv</a></p>')
    parts.extend(_fig_html(f, bots) for f in figures if f.section == t.name)
    return parts


def render_html(rep: Report) -> str:
    """A self-contained HTML page: inline CSS, tables, PNGs as data: URIs, no scripts."""
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(rep.title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        *_header_html(rep),
    ]
    for t in rep.tables:
        parts += _table_html(t, rep.figures, rep.bots)
    placed = {t.name for t in rep.tables}
    rest = [f for f in rep.figures if f.section not in placed]
    if rest:
        parts.append('<h2 id="plots">Plots</h2>')
        parts.extend(_fig_html(f, rep.bots) for f in rest)
    parts.append(
        '<p class="note">Made by <code>fastsheng</code>. Intervals: see '
        "docs/analysis.md.</p></body></html>"
    )
    return "\n".join(parts)


def write_report(rep: Report, out: str | os.PathLike[str]) -> Path:
    """Write ``out/index.html``, one CSV per table (a first line ``# notice: ...`` when the
    report has a notice; read with ``pandas.read_csv(..., comment="#")``), the PNGs and
    ``report.json``; return the HTML's path."""
    outp = Path(out)
    outp.mkdir(parents=True, exist_ok=True)
    rep.name_bots()  # tables added after computing (compare's team view) get theirs too
    for t in rep.tables:
        with open(outp / f"{t.name}.csv", "w", encoding="utf-8", newline="") as fh:
            if rep.notice:
                fh.write(f"# notice: {rep.notice}\n")
            t.df.to_csv(fh, index=False)
    for f in rep.figures:
        (outp / f"{f.name}.png").write_bytes(f.png)
    meta = {**rep.meta, "notice": rep.notice, "conventions": rep.conventions}
    (outp / "report.json").write_text(json.dumps(meta, indent=1, default=str) + "\n")
    index = outp / "index.html"
    index.write_text(render_html(rep), encoding="utf-8")
    return index


def _console(console: Any) -> Any:
    from rich.console import Console

    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=140)
    return console


def print_headline(rep: Report, console: Any = None) -> None:
    console = _console(console)
    if rep.notice:
        console.print(f"notice: {rep.notice}", style="bold yellow", markup=False)
    caption = rep.subtitle
    if rep.bots and rep.bots not in caption:
        caption += f"; bots: {rep.bots}"
    print_table(rep.table(rep.headline), console, title=rep.title, caption=caption)


def print_table(t: Table, console: Any = None, *, title: str = "", caption: str = "") -> None:
    """One table on the console (its ``console`` columns), titled by its own title if none."""
    from rich.table import Table as RichTable

    console = _console(console)
    shown = display_frame(t, t.console)
    rt = RichTable(title=title or t.title, caption=caption or None, show_lines=False)
    for c in shown.columns:
        left = c in ("metric", "unit", "kind", "line-up", "team", "X vs Y")
        rt.add_column(str(c), justify="left" if left else "right")
    for _, row in shown.iterrows():
        rt.add_row(*[str(v) for v in row])
    console.print(rt)
