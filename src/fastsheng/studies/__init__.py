"""The studies, above the simulation: statistics and their printing (stats, numfmt, and ranges:
the range a hand's value of a metric can take under the rules), the realism
panel (realism), paired bot comparisons and ratings (evaluation, ladder), report and compare
(report/), and balance studies as a tool: ``fastsheng sweep`` (a baseline and many rule variants or
line-ups on the same deals), its multiplicity adjustment, precision planning, bot-robustness check
and
deal control variates. One concept per module:

* :mod:`~fastsheng.studies.variants`: where variants come from (``--set``, a ``[grid]``, presets,
  rules files, line-ups) and their checks;
* :mod:`~fastsheng.studies.effects`: the paired effects per metric and variant;
* :mod:`~fastsheng.studies.multiplicity`: Bonferroni simultaneous intervals, Holm p-values;
* :mod:`~fastsheng.studies.controls`: deal covariates with exact means, regression adjustment;
* :mod:`~fastsheng.studies.precision`: pilot-then-fixed-n planning for a target half-width;
* :mod:`~fastsheng.studies.robustness`: holds / shrinks / grows / changes / flips sign under
  another line-up;
* :mod:`~fastsheng.studies.figures`: forest plots and metric-against-value plots;
* :mod:`~fastsheng.studies.folders`: a label as a folder name;
* :mod:`~fastsheng.studies.runplan`: the runs, on the same deals, reused or resumed;
* :mod:`~fastsheng.studies.pilot`: ``--precision``'s pilot runs on disk;
* :mod:`~fastsheng.studies.sweep_options`: the sweep's options checked before any play;
* :mod:`~fastsheng.studies.sweep_page`: the page's tables, conventions and figures;
* :mod:`~fastsheng.studies.sweep_console`: progress lines and the console summary;
* :mod:`~fastsheng.studies.sweep`: :func:`sweep`, its steps in order.
"""

from __future__ import annotations

import importlib

# `sweep` is the submodule here; the function is fs.sweep or fastsheng.studies.sweep.sweep
__all__ = ["paired_effects", "SweepError", "Variant", "build_variants"]

# Loaded on first use: `fastsheng.studies.stats` (which the report and workers import) must not
# pull in the sweep, its plots and every run module behind it.
_LAZY = {
    "paired_effects": "fastsheng.studies.sweep",
    "SweepError": "fastsheng.studies.variants",
    "Variant": "fastsheng.studies.variants",
    "build_variants": "fastsheng.studies.variants",
}


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
