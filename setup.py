"""Build the Cython core. Everything else lives in pyproject.toml."""

import os
import platform

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

# Modules of the core, one concept each (see docs/design.md).
CORE_MODULES = [
    "_core",
    "_declare",
    "bots._heuristic",
    "_game",
    "_worlds",
    "_state",
    "bots._search",
    "bots._features",
    "bots._labels",
    "bots._learned",
    "bots._card_belief",
    "bots._infer",
    "bots._guided_search",
    "bots._bury_search",
    "bots._call_search",
    "bots._lineup",
    "bots._reading",
    "_vec",
]

extra = ["-O3"]
if platform.machine().lower() in ("x86_64", "amd64"):
    # Bit counts are everywhere in the core: use the POPCNT instruction (every x86-64 CPU since
    # 2008) rather than libgcc's table-driven __popcountdi2.
    extra.append("-mpopcnt")
if os.environ.get("FASTSHENG_NATIVE"):
    extra.append("-march=native")

extensions = [
    Extension(
        f"fastsheng.{name}",
        [f"src/fastsheng/{name.replace('.', '/')}.pyx"],
        include_dirs=[np.get_include(), "src/fastsheng"],
        extra_compile_args=extra,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in CORE_MODULES
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={
            "language_level": "3",
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
        annotate=bool(os.environ.get("FASTSHENG_ANNOTATE")),
        include_path=["src"],
    ),
)
