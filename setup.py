"""Build the Cython core. Everything else lives in pyproject.toml.

The core is 21 extension modules. They are cythonized and compiled on every core at once, and
each compiled module is kept in build/core-cache/ under a fingerprint of what made it: its .pyx,
every .pxd/.pxi/.h of the package (the declarations any module may cimport), this file, the
compiler and its flags, and the Cython, numpy and Python versions. pip builds a local folder in
place, so the README's second command (`pip install '.[test]'` after `pip install .`) finds the
first one's modules there and copies them instead of compiling the core again; a changed .pyx
rebuilds only its own module. FASTSHENG_BUILD_CACHE=0 turns the cache off.

Environment: FASTSHENG_NATIVE=1 compiles for this machine's CPU (-march=native: faster here,
may crash elsewhere), FASTSHENG_DEBUG=1 keeps the debug information (-g) that the build drops
by default, FASTSHENG_ANNOTATE=1 writes Cython's annotated .html beside each .pyx,
FASTSHENG_BUILD_JOBS=N compiles N modules at a time (default: every core).

`fastsheng --version` prints how the installed core was built: build_ext records it in
fastsheng/_build_info.json.
"""

import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import numpy as np
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
PACKAGE = HERE / "src" / "fastsheng"
CACHE = HERE / "build" / "core-cache"

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
    "_thread_pool",
    "_vec_obs",
    "_vec_actions",
    "_vec",
]

DIRECTIVES = {
    "language_level": "3",
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
}

#: CPU seconds one module takes to cythonize and compile on this project's CI machine (about
#: 3 s of gcc per MB of generated C at -O3, 1.3 MB a module, 1.5 s of Cython, and the rest)
SECONDS_PER_MODULE = 7


def compile_flags(compiler_type: str) -> list[str]:
    """The core's own flags, after the ones Python was built with."""
    if compiler_type == "msvc":
        return ["/O2"]
    flags = ["-O3"]
    if not os.environ.get("FASTSHENG_DEBUG"):
        # Python's CFLAGS carry -g: debug information for 20 MB of generated C costs 40% of the
        # compile time and most of the wheel's size, and nobody steps through it in a debugger.
        flags.append("-g0")
    if platform.machine().lower() in ("x86_64", "amd64") and "arm64" not in os.environ.get(
        "ARCHFLAGS", ""
    ):
        # Bit counts are everywhere in the core: use the POPCNT instruction (every x86-64 CPU
        # since 2008) rather than libgcc's table-driven __popcountdi2.
        flags.append("-mpopcnt")
    if os.environ.get("FASTSHENG_NATIVE"):
        flags.append("-march=native")
    return flags


def _jobs() -> int:
    if os.environ.get("FASTSHENG_BUILD_JOBS"):
        return max(1, int(os.environ["FASTSHENG_BUILD_JOBS"]))
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def _version() -> str:
    """The version, read from _version.py without importing the package (which needs the core)."""
    text = (PACKAGE / "_version.py").read_text(encoding="utf-8")
    return re.search(r'^__version__ = "([^"]+)"', text, re.M).group(1)


def _compiler_version(command: list[str]) -> str:
    """The compiler's own first line of --version (gcc, clang), or its name."""
    if not command:
        return "msvc"
    try:
        out = subprocess.run(
            [command[0], "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    return out.splitlines()[0].strip() if out.strip() else command[0]


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}{'' if n == 1 else 's'}"


def _say(message: str, terminal: bool = False) -> None:
    """Print a line of the build's own. pip shows a build's output only with -v, so the lines
    that say how long the wait is (terminal=True) also go to the user's terminal when there is
    one (FASTSHENG_BUILD_TTY=0: not)."""
    print(f"fastsheng: {message}", flush=True)
    if not terminal or sys.stdout.isatty() or os.environ.get("FASTSHENG_BUILD_TTY") == "0":
        return
    try:
        with open("/dev/tty", "w") as tty:
            tty.write(f"\nfastsheng: {message}\n")
    except OSError:
        pass


class BuildCore(build_ext):
    """build_ext that compiles the modules in parallel and reuses the cached ones."""

    def finalize_options(self):
        if self.parallel is None:
            self.parallel = _jobs()
        super().finalize_options()

    def run(self):
        super().run()
        self._write_build_info()

    # -- what made a module ------------------------------------------------------------------

    def _flags(self) -> list[str]:
        return compile_flags(self.compiler.compiler_type)

    def _compile_command(self) -> list[str]:
        return list(getattr(self.compiler, "compiler_so", None) or [])

    def _common_fingerprint(self):
        import Cython

        h = hashlib.sha256()
        for part in (
            Path(__file__).read_bytes(),
            json.dumps(DIRECTIVES, sort_keys=True).encode(),
            " ".join(self._compile_command() + self._flags()).encode(),
            " ".join(getattr(self.compiler, "linker_so", None) or []).encode(),
            _compiler_version(self._compile_command()).encode(),
            f"{Cython.__version__} {np.__version__} {sys.version}".encode(),
            sysconfig.get_platform().encode(),
            str(sysconfig.get_config_var("EXT_SUFFIX")).encode(),
        ):
            h.update(len(part).to_bytes(8, "little") + part)
        for path in sorted(PACKAGE.rglob("*")):
            if path.suffix in (".pxd", ".pxi", ".h"):
                h.update(str(path.relative_to(PACKAGE)).encode() + b"\0" + path.read_bytes())
        return h

    def _cached_path(self, ext, common) -> Path:
        h = common.copy()
        h.update(ext.name.encode() + b"\0")
        for source in ext.sources:
            h.update(Path(source).read_bytes())
        suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
        return CACHE / f"{ext.name}.{h.hexdigest()[:20]}{suffix}"

    # -- the build ---------------------------------------------------------------------------

    def build_extensions(self):
        flags = self._flags()
        for ext in self.extensions:
            ext.extra_compile_args = flags
        # an annotated build wants Cython's .html of every module, which the cache does not keep
        annotate = bool(os.environ.get("FASTSHENG_ANNOTATE"))
        use_cache = os.environ.get("FASTSHENG_BUILD_CACHE", "1") != "0" and not annotate
        common = self._common_fingerprint()
        cached = {ext.name: self._cached_path(ext, common) for ext in self.extensions}
        todo = []
        for ext in self.extensions:
            target = Path(self.get_ext_fullpath(ext.name))
            if use_cache and cached[ext.name].exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(cached[ext.name], target)
            else:
                todo.append(ext)
        reused = len(self.extensions) - len(todo)
        if not todo:
            _say(
                f"the C core's {reused} modules are reused from {CACHE.relative_to(HERE)} "
                "(same sources, compiler and flags): nothing to compile"
            )
            return
        jobs = max(1, int(self.parallel or 1))
        workers = min(jobs, len(todo))
        seconds = len(todo) * SECONDS_PER_MODULE / workers
        minutes = round(seconds / 60)
        wait = (
            "under a minute"
            if seconds < 45
            else "about a minute"
            if minutes <= 1
            else f"about {minutes} minutes"
        )
        _say(
            f"building the C core: {_count(len(todo), 'module')} on {_count(workers, 'core')}, "
            f"{wait} on an idle machine"
            + (f" ({reused} reused from an earlier build)" if reused else ""),
            terminal=True,
        )
        start = time.monotonic()
        from Cython.Build import cythonize

        generated = cythonize(
            todo,
            nthreads=workers if workers > 1 else 0,
            force=True,
            quiet=True,
            compiler_directives=DIRECTIVES,
            annotate=annotate,
            include_path=["src"],
        )
        by_name = {m.name: m for m in generated}
        for ext in todo:
            ext.sources = by_name[ext.name].sources
            Path(self.get_ext_fullpath(ext.name)).unlink(missing_ok=True)
        took = time.monotonic() - start
        _say(f"cythonized {_count(len(todo), 'module')} in {took:.0f} s; compiling")
        self._done, self._total, self._start = 0, len(todo), time.monotonic()
        everything, self.extensions = self.extensions, todo
        try:
            super().build_extensions()
        finally:
            self.extensions = everything
        if use_cache:
            CACHE.mkdir(parents=True, exist_ok=True)
            for ext in todo:  # copy, then rename: an interrupted build leaves no half a module
                partial = cached[ext.name].with_name(cached[ext.name].name + ".partial")
                shutil.copyfile(self.get_ext_fullpath(ext.name), partial)
                os.replace(partial, cached[ext.name])
            self._prune_cache(cached)
        _say(f"built the C core in {time.monotonic() - start:.0f} s", terminal=True)

    def build_extension(self, ext):
        start = time.monotonic()
        super().build_extension(ext)
        self._done += 1  # the GIL makes this count safe across the build's threads
        _say(f"[{self._done}/{self._total}] {ext.name} ({time.monotonic() - start:.0f} s)")

    def _prune_cache(self, keep: dict) -> None:
        """Keep each module's three newest builds (another Python or set of flags may want them)."""
        for name in keep:
            builds = sorted(CACHE.glob(f"{name}.*"), key=lambda p: p.stat().st_mtime, reverse=True)
            for old in builds[3:]:
                old.unlink(missing_ok=True)

    # -- what `fastsheng --version` says -----------------------------------------------------

    def _write_build_info(self) -> None:
        import Cython

        command = self._compile_command()
        info = {
            "version": _version(),
            "compiler": _compiler_version(command),
            "compile_command": command + self._flags(),
            "fastsheng_flags": self._flags(),
            "native": bool(os.environ.get("FASTSHENG_NATIVE")),
            "debug": bool(os.environ.get("FASTSHENG_DEBUG")),
            "cython": Cython.__version__,
            "numpy": np.__version__,
            "python": f"{platform.python_implementation()} {platform.python_version()}",
            "platform": sysconfig.get_platform(),
        }
        folder = PACKAGE if self.inplace else Path(self.build_lib) / "fastsheng"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "_build_info.json").write_text(json.dumps(info, indent=1) + "\n")


extensions = [
    Extension(
        f"fastsheng.{name}",
        [f"src/fastsheng/{name.replace('.', '/')}.pyx"],
        include_dirs=[np.get_include(), "src/fastsheng"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in CORE_MODULES
]

setup(ext_modules=extensions, cmdclass={"build_ext": BuildCore})
