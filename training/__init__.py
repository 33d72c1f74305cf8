"""Training of the shipped models (learned-v1's MLP, the learned belief, the per-card belief):
see training/README.md for the commands that make their training data and fit them.

The three fit the same small ReLU MLP in numpy and save it the same way: training/mlp.py. Each
script runs from the repo root as ``python training/NAME.py ...``; run that way, its folder is
first on the path and the repo root is not: its first import, training/_root.py, puts the root
there so that ``training`` imports as a package, as the tests import it
(``from training import NAME``, the repo root on the path in tests/conftest.py).
"""
