"""Balance studies as a tool: ``fastsheng sweep`` (a baseline and many rule variants or line-ups
on the same deals), its multiplicity adjustment, precision planning, bot-robustness check and
deal control variates. One concept per module:

* :mod:`~fastsheng.studies.variants`: where variants come from (``--set``, a ``[grid]``, presets,
  rules files, line-ups) and their checks;
* :mod:`~fastsheng.studies.effects`: the paired effects per metric and variant;
* :mod:`~fastsheng.studies.multiplicity`: Bonferroni simultaneous intervals, Holm p-values;
* :mod:`~fastsheng.studies.controls`: deal covariates with exact means, regression adjustment;
* :mod:`~fastsheng.studies.precision`: pilot-then-fixed-n planning for a target half-width;
* :mod:`~fastsheng.studies.robustness`: holds / shrinks / grows / flips sign under another
  line-up;
* :mod:`~fastsheng.studies.figures`: forest plots and metric-against-value plots;
* :mod:`~fastsheng.studies.sweep`: the runs, the page, :func:`sweep`.
"""

from __future__ import annotations

from fastsheng.studies.sweep import paired_effects, sweep
from fastsheng.studies.variants import SweepError, Variant, build_variants

__all__ = ["sweep", "paired_effects", "SweepError", "Variant", "build_variants"]
