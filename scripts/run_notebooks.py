"""Execute the example notebooks and write them for the documentation site.

Each ``examples/notebooks/<name>.py`` (jupytext percent format, kept as .py so its diffs read)
is converted with jupytext, executed with nbclient in a python3 kernel of *this* interpreter
(so the notebook imports the same fastsheng as the script), and written with its outputs to
``docs/examples/<name>.ipynb`` (generated, git-ignored; mkdocs-jupyter renders it without
executing it again). Each notebook runs in a temporary working folder, so nothing it writes
lands in the repository.

    python scripts/run_notebooks.py                  # every notebook
    python scripts/run_notebooks.py designer         # some of them, by name
    python scripts/run_notebooks.py --out /tmp/nbs   # write elsewhere

Prints each notebook's wall time and the total. A failing cell prints its traceback on
stderr, then one line ``error: examples/notebooks/<name>.py, cell N (lines A-B): ...``, and the
exit code is 1; a missing package or an unknown notebook name is one ``error:`` line, exit 2.
Needs the ``docs`` extra: ``pip install '.[docs]'`` (jupytext, nbclient, ipykernel).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "examples" / "notebooks"
OUT = ROOT / "docs" / "examples"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class Failure(Exception):
    """A notebook cell failed: the one-line message, and the traceback to show above it."""

    def __init__(self, line: str, detail: str = "") -> None:
        super().__init__(line)
        self.detail = detail


def _imports():
    try:
        import jupytext
        import nbclient
        import nbformat
        from ipykernel.kernelspec import write_kernel_spec
    except ImportError as e:
        print(f"error: {e.name} is not installed; install the docs extra: pip install '.[docs]'",
              file=sys.stderr)  # fmt: skip
        raise SystemExit(2) from None
    return jupytext, nbclient, nbformat, write_kernel_spec


def kernel_manager_class(spec_dir: Path):
    """A kernel manager class whose python3 kernel is this interpreter (sys.executable),
    whatever kernels the machine has registered: the notebook imports what this script
    imports. nbclient makes the manager from it, so it also shuts the kernel down."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager

    _, _, _, write_kernel_spec = _imports()
    write_kernel_spec(str(spec_dir / "python3"), overrides={"display_name": "Python 3"})

    class ThisInterpreter(AsyncKernelManager):
        def _kernel_spec_manager_default(self):
            return KernelSpecManager(kernel_dirs=[str(spec_dir)], ensure_native_kernel=False)

    return ThisInterpreter


def cell_lines(text: str, n_cells: int, index: int, source: str) -> str:
    """Where code cell ``index`` lies in the .py file: ``lines 8-9`` (empty if not found). In
    the percent format every cell starts at a ``# %%`` line, so cell i follows the i-th."""
    lines = text.splitlines()
    markers = [i for i, ln in enumerate(lines) if ln.startswith("# %%")]
    first = next((ln for ln in source.splitlines() if ln.strip()), None)
    if first is None:
        return ""
    after = markers[index] if len(markers) == n_cells else 0
    for i in range(after, len(lines)):
        if lines[i] == first:
            end = i + len(source.strip("\n").splitlines())
            return f"lines {i + 1}-{end}" if end > i + 1 else f"line {i + 1}"
    return ""


def execute_cells(client, nb, text: str, rel: Path, timeout: int) -> None:
    """Run the code cells in order; a failing cell is a Failure naming it."""
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        try:
            client.execute_cell(cell, index)
        except (CellExecutionError, CellTimeoutError, DeadKernelError) as e:
            lines = cell_lines(text, len(nb.cells), index, cell.source)
            where = f"{rel}, cell {index + 1}" + (f" ({lines})" if lines else "")
            if isinstance(e, CellTimeoutError):
                raise Failure(f"{where}: took longer than {timeout} s") from None
            if isinstance(e, DeadKernelError):
                raise Failure(f"{where}: the kernel died") from None
            why = ANSI.sub("", f"{e.ename}: {e.evalue}").splitlines()[0]
            raise Failure(f"{where}: {why}", ANSI.sub("", e.traceback)) from None


def run_one(path: Path, out_dir: Path, timeout: int) -> float:
    """Execute one notebook and write it; the wall time in seconds."""
    jupytext, nbclient, nbformat, _ = _imports()
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    text = path.read_text(encoding="utf-8")
    nb = jupytext.reads(text, fmt="py:percent")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="fastsheng-nb-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        client = nbclient.NotebookClient(
            nb,
            kernel_name="python3",
            kernel_manager_class=kernel_manager_class(Path(tmp) / "kernels"),
            timeout=timeout,
            resources={"metadata": {"path": str(work)}},
            # the kernel's own log: without this, every notebook prints that the kernel talks
            # over local TCP unencrypted (ipykernel >= 7)
            extra_arguments=["--IPKernelApp.log_level=ERROR"],
        )
        with client.setup_kernel():
            # as nbclient's own execute() does: the language, for the site's highlighting
            info = client.wait_for_reply(client.kc.kernel_info())
            nb.metadata["language_info"] = info["content"]["language_info"]
            execute_cells(client, nb, text, rel, timeout)
    seconds = time.perf_counter() - start
    out_dir.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out_dir / f"{path.stem}.ipynb")
    return seconds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="notebooks to run, by name (default: all)")
    ap.add_argument("--out", type=Path, default=OUT, help=f"output folder (default: {OUT})")
    ap.add_argument("--timeout", type=int, default=300, help="seconds a cell may take")
    ap.add_argument("--notebooks", type=Path, default=NOTEBOOKS, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    _imports()
    found = {p.stem: p for p in sorted(args.notebooks.glob("*.py"))}
    if not found:
        print(f"error: no notebooks in {args.notebooks}", file=sys.stderr)
        return 2
    unknown = [n for n in args.names if n not in found]
    if unknown:
        print(f"error: no notebook {unknown[0]!r}; the notebooks: {', '.join(found)}",
              file=sys.stderr)  # fmt: skip
        return 2
    total = 0.0
    for name in args.names or list(found):
        try:
            seconds = run_one(found[name], args.out, args.timeout)
        except Failure as f:
            if f.detail:
                print(f.detail, file=sys.stderr)
            print(f"error: {f}", file=sys.stderr)
            return 1
        total += seconds
        print(f"{name:<16} {seconds:6.1f} s  -> {args.out / (name + '.ipynb')}", flush=True)
    print(f"{'total':<16} {total:6.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
