"""A label as a folder name: a sweep's variant (``OUT/runs/<variant>/``, its label's ``=`` kept:
``throw_penalty_points=20``) and a compare's run (``OUT/runs/<label>/``, a rules file by its
stem)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["variant_folder", "run_folder"]


def variant_folder(label: str) -> str:
    """A sweep variant's label as its folder name: every character but letters, digits and
    ``-_.=`` replaced by ``_``."""
    return "".join(ch if ch.isalnum() or ch in "-_.=" else "_" for ch in label)


def run_folder(label: str) -> str:
    """A compare label as a folder name: a rules file by its stem (``x.toml`` -> ``x``)."""
    if label.lower().endswith(".toml"):
        label = Path(label).stem
    return _safe(label)


def _safe(s: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in s)
