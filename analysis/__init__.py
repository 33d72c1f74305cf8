"""User studies: short scripts that answer one question each with fastsheng's public API
(kitty odds, score distribution, bot strength, variant balance, interval coverage...).

Each runs from the repo root as ``python analysis/NAME.py ...`` (its docstring says how) and
imports nothing but fastsheng and its dependencies, so it can be copied out of the repo as it is.
The tests import them as ``from analysis import NAME`` (the repo root on the path,
tests/conftest.py). The research logs behind docs/bots.md are in research/, the training of the
shipped models in training/.
"""
