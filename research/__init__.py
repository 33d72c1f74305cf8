"""Research logs: the measurements behind docs/bots.md (the search bots' strength and cost, the
screens of their settings, the burial and calls searched, reading the play).

Each runs from the repo root as ``python research/NAME.py ...`` (its docstring says how);
helpers more than one of them uses are in research/common.py. Run that way, a script's folder is
first on the path and the repo root is not: its first import, research/_root.py, puts the root
there so that ``research``, ``training`` and ``analysis`` import as packages, as the tests
import them (``from research import NAME``, the repo root on the path in tests/conftest.py).
"""
