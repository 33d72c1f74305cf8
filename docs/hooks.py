"""MkDocs hook of the documentation site (mkdocs.yml ``hooks:``): two generated sections.

* docs/reference/api.md holds the marker ``<!-- rules-switches -->``; it becomes a table of every
  field of ``fastsheng.Rules`` (its default, the values it allows and what it means), made from
  ``fastsheng.rules``' own tables (``FIELD_DOCS``, ``CHOICES``, ...), so the page can neither
  miss a switch nor disagree with the code.
* A Sphinx role left in a docstring (``:func:``) is dropped from the rendered page.
* docs/reference/cli.md holds ``<!-- cli-reference -->``; it becomes every command of the
  ``fastsheng`` typer app with its arguments and options, written by typer's own Markdown
  generator (what ``typer ... utils docs`` prints) from ``fastsheng.apps.cli.click_command``.
  mkdocs-click cannot read it: typer >= 0.20 builds on a click of its own, not ``click``.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re

MARKER = "<!-- rules-switches -->"
CLI_MARKER = "<!-- cli-reference -->"


def _allowed(field: str) -> str:
    """The values ``field`` accepts, as the checks of ``fastsheng.rules`` state them."""
    from fastsheng import rules as r
    from fastsheng.cards import RANKS

    def code(values):
        return ", ".join(f"`{v}`" for v in values)

    if field == "throw_penalty":
        return f"{code(r.CHOICES[field])}, or a table `{{form, points}}`"
    if field in r.CHOICES:
        return code(r.CHOICES[field])
    if field in r.TABLE_FIELDS:
        return f"a preset: {code(r.TABLE_FIELDS[field])}, or a table"
    if field in r.BOOL_FIELDS:
        return "`true`, `false`"
    if field in r.INT_FIELDS:
        lo, hi = r.INT_FIELDS[field]
        return f"an integer {lo}..{hi}"
    if field in r.OPTIONAL_INT_FIELDS:
        lo, hi = r.OPTIONAL_INT_FIELDS[field]
        return f'an integer {lo}..{hi}, or `None` (`"none"` in a rules file)'
    if field in r.RANK_FIELDS:
        return f"a rank `{RANKS[0]}`..`{RANKS[-1]}`"
    if field == "must_play":
        return f"a list of ranks (each `{RANKS[0]}`..`{RANKS[-1]}`)"
    if field == "suit_order":
        return "a permutation of `SHCD`, strongest first"
    if field == "name":
        return "a non-empty string"
    raise KeyError(f"no allowed values known for Rules.{field}")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def rules_rows() -> list[tuple[str, str, str, str]]:
    """(field, default, allowed values, meaning) for every field of ``fastsheng.Rules``, in the
    dataclass's order; the default is the ``standard`` preset's value."""
    from fastsheng.rules import FIELD_DOCS, Rules

    defaults = Rules().to_dict()
    rows = []
    for f in dataclasses.fields(Rules):
        default = json.dumps(defaults[f.name], ensure_ascii=False)
        rows.append((f.name, default, _allowed(f.name), FIELD_DOCS.get(f.name, "")))
    return rows


def rules_table() -> str:
    """The Markdown table that replaces ``MARKER``."""
    lines = ["| Field | Default | Allowed values | Meaning |", "| --- | --- | --- | --- |"]
    for field, default, allowed, doc in rules_rows():
        lines.append(f"| `{field}` | `{_cell(default)}` | {_cell(allowed)} | {_cell(doc)} |")
    return "\n".join(lines)


_LABEL = re.compile(r"^\*\*\w+\*\*:$")  # **Usage**:, **Options**: ...
_ITEM = re.compile(r"^(\* `[^`]*`)(: )?(.*)$")  # * `--opt <str>`: help


def _escape(text: str) -> str:
    """Help text as Markdown shows it: ``<name>`` stays text, ``*`` is no emphasis."""
    return html.escape(text, quote=False).replace("*", "\\*")


def cli_reference() -> str:
    """Every command of ``fastsheng`` with its options, in Markdown: the text of the commands'
    own help, as typer's generator lays it out (headings one level below the page title)."""
    import typer
    import typer.cli

    from fastsheng.apps.cli import click_command

    text = typer.cli.get_docs_for_click(
        obj=click_command, ctx=typer.Context(click_command), name="fastsheng", indent=1
    )
    out, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not (fenced or line.startswith("#") or _LABEL.match(line)):
            item = _ITEM.match(line)
            if item:
                line = item[1] + (item[2] or "") + _escape(item[3])
            else:
                line = _escape(line)
        out.append(line)
    return "\n".join(out)


# a Sphinx role left in a docstring (``:func:`play_batch` ``), rendered as text before the code
_ROLE = re.compile(r":(?:func|meth|class|attr|mod|data|obj|exc):(?=<code>)")


def on_page_content(html_text: str, page, config, files) -> str:  # noqa: ARG001 - hook signature
    return _ROLE.sub("", html_text)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 - hook signature
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, rules_table())
    if CLI_MARKER in markdown:
        markdown = markdown.replace(CLI_MARKER, cli_reference())
    return markdown
