"""The package's version, at the bottom of the layers: run.json records it (sim/).

This file is the one place the version is written: setuptools reads the literal below without
importing anything (pyproject.toml, [tool.setuptools.dynamic]). It imports only the standard
library, so it also loads before the compiled core exists.
"""

import json
from pathlib import Path

__version__ = "0.4.0"

#: How the compiled core was built, written by setup.py's build_ext next to this file
BUILD_INFO = Path(__file__).with_name("_build_info.json")


def build_info() -> dict | None:
    """The build's record (compiler, flags, FASTSHENG_NATIVE, Cython and numpy versions), or
    None for a core built without one (an older setup.py, or `cythonize` by hand)."""
    try:
        return json.loads(BUILD_INFO.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def describe_build() -> str:
    """The lines `fastsheng --version` prints under the version."""
    info = build_info()
    if info is None:
        return "core: built without a build record (not by this package's setup.py)"
    native = (
        "FASTSHENG_NATIVE set: -march=native, for the CPU that built it only"
        if info.get("native")
        else "FASTSHENG_NATIVE not set: for any CPU of its platform, not only the one that built it"
    )
    return "\n".join(
        [
            f"core: {info.get('python')} {info.get('platform')}, compiled by "
            f"{info.get('compiler')} with Cython {info.get('cython')} "
            f"and numpy {info.get('numpy')}",
            f"  flags: {' '.join(info.get('compile_command') or info.get('fastsheng_flags', []))}",
            f"  {native}",
        ]
    )
