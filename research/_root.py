"""The repo root on the path, for a script of research/ run as ``python research/NAME.py``.

Run that way, the script's folder is first on the path and the repo root is not; importing this
module (the script's first import, only when it runs outside its package) puts the root there,
once, after the script's folder, so that the script imports its helpers as packages
(``research.common``, ``training.train_belief``) as the tests do. Imported as part of its package
(the tests, ``python -m research.NAME``), a script does not import this module.
"""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.insert(1, ROOT)
