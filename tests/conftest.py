"""Shared fixtures of the test suite."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# the repo root, once, so that the scripts import as packages: from analysis import paired_bots,
# from research import read_the_play, from training import train_belief
ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

IMPLEMENTATIONS = ["reference", "core"]


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    """A factory ``make(rules, level, trump)`` -> play context, once for the plain-Python
    reference (fastsheng.reference.Context) and once for the Cython core (fastsheng.Context):
    tests written against it pin both implementations to the same answers."""
    if request.param == "reference":
        from fastsheng.reference import Context
    else:
        from fastsheng import Context

    def make(rules, level, trump):
        return Context(rules, level=level, trump=trump)

    make.name = request.param
    return make
