"""The import paths of the flat layout, kept for users' code: `import fastsheng.hands` (and
`from fastsheng.runner import RunSpec`, `fastsheng.env`, ...) gives the very module that now lives
in its layer's subpackage, loaded on first use. One table; a meta-path finder serves it."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["MOVED", "attribute", "install"]

#: old path -> the module it is now (issue 18: layers as subpackages)
MOVED = {
    "fastsheng.agents": "fastsheng.engine.agents",
    "fastsheng.hands": "fastsheng.engine.hands",
    "fastsheng.pyplay": "fastsheng.engine.pybatch",
    "fastsheng.game": "fastsheng.engine.game",
    "fastsheng.observation": "fastsheng.engine.observation",
    "fastsheng.worldcheck": "fastsheng.engine.worldcheck",
    "fastsheng.runner": "fastsheng.sim.runner",
    "fastsheng.limits": "fastsheng.sim.limits",
    "fastsheng.dataset": "fastsheng.sim.dataset",
    "fastsheng.runlock": "fastsheng.sim.lock",
    "fastsheng.progress": "fastsheng.sim.progress",
    "fastsheng.cliargs": "fastsheng.sim.counts",
    "fastsheng.stats": "fastsheng.studies.stats",
    "fastsheng.numfmt": "fastsheng.studies.numfmt",
    "fastsheng.realism": "fastsheng.studies.realism",
    "fastsheng.evaluation": "fastsheng.studies.evaluation",
    "fastsheng.ladder": "fastsheng.studies.ladder",
    "fastsheng.report": "fastsheng.studies.report",
    "fastsheng.cli": "fastsheng.apps.cli",
    "fastsheng.play": "fastsheng.apps.terminal",
    "fastsheng.env": "fastsheng.apps.env",
    "fastsheng.reference.play": "fastsheng.reference.tricks",
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path (or a module below one, e.g. fastsheng.report.metrics) and loads it as
    the module of its new path: one module object under both names, so a patch of one is seen
    through the other."""

    @staticmethod
    def _target(fullname: str) -> str | None:
        for old, new in MOVED.items():
            if fullname == old or fullname.startswith(old + "."):
                return new + fullname[len(old) :]
        return None

    def find_spec(self, fullname, path=None, target=None):
        new = self._target(fullname)
        if new is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        module = importlib.import_module(self._target(spec.name))
        spec.loader_state = module.__spec__  # the import system overwrites __spec__ next
        return module

    def exec_module(self, module):
        # the new path's import ran it; give back its own spec, so it keeps its one name
        module.__spec__ = module.__spec__.loader_state


def install() -> None:
    """Put the finder on sys.meta_path once (fastsheng/__init__ calls it first)."""
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.insert(0, _Alias())


def attribute(package: str, name: str):
    """The package attribute of an old module name (``fastsheng.hands``), imported on first use."""
    if f"{package}.{name}" in MOVED:
        return importlib.import_module(f"{package}.{name}")
    raise AttributeError(f"module {package!r} has no attribute {name!r}")
