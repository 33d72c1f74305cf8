"""Shared fixtures of the test suite."""

from __future__ import annotations

import pytest

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
