"""Smoke test of an installed fastsheng (a wheel or an sdist), run outside the source tree.

    python scripts/smoke.py

It checks what a user's first minutes touch, and prints one line per check:

- `fastsheng --version` names the version and how the core was built;
- the packaged data is there: the bots' model files (bots/models/*.npz) and the measured
  strength-speed frontier (bots/frontier.json) that `fastsheng bots` prints;
- `fastsheng sim -n 1e4` into a temporary folder, then `fastsheng report` on it;
- a `fastsheng.Game` played to the end with `bot_action("expert")` at every seat gives the
  same hand as `simulate_hands` (the step API and the batch loop are one state machine);
- `learned-v1` (a model file) and `search-v3:k=8` (a search) play two hands against each other;
- a digest of 200 hands of four bots and 300 steps of a threaded `VecEnv`: scripts/check_dist.sh
  checks that the wheel (compiled by zig's clang) and the sdist (by the system compiler) print
  the same one, so the two builds play identical hands.

It also says whether a C compiler was reachable: the wheel's smoke test in .ci/run runs with
none, to show the wheel needs none. About 30 s on 2 cores. Exit code 1 on the first failure.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _fastsheng_command() -> list[str]:
    """The installed console script: beside this Python (a venv's bin/ or Scripts/), else PATH."""
    here = Path(sys.executable).parent
    for name in ("fastsheng", "fastsheng.exe"):
        if (here / name).exists():
            return [str(here / name)]
    found = shutil.which("fastsheng")
    if found is None:
        sys.exit("smoke: FAILED: no `fastsheng` command installed beside this Python or on PATH")
    return [found]


FASTSHENG = _fastsheng_command()


def run(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        [*FASTSHENG, *args], cwd=cwd, capture_output=True, text=True, encoding="utf-8"
    )
    if done.returncode != 0:
        print(done.stdout, done.stderr, sep="\n", file=sys.stderr)
        sys.exit(f"smoke: FAILED: `fastsheng {' '.join(args)}` exited with {done.returncode}")
    return done.stdout


def check(what: str):
    """Decorator: run the check, time it, print one line."""

    def wrap(fn):
        start = time.monotonic()
        detail = fn()
        seconds = time.monotonic() - start
        print(f"smoke: ok   {what} ({seconds:.1f} s)" + (f": {detail}" if detail else ""))
        return fn

    return wrap


def main() -> None:
    start = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="fastsheng-smoke-"))
    try:
        _checks(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"smoke: all checks passed in {time.monotonic() - start:.0f} s")


def _checks(work: Path) -> None:
    os.chdir(work)  # nothing of a source tree can shadow the installed package
    compilers = [c for c in ("cc", "gcc", "clang", "cl") if shutil.which(c)]
    cc = os.environ.get("CC")
    print(
        f"smoke: Python {sys.version.split()[0]} at {sys.executable}; C compiler reachable: "
        + (", ".join(compilers) if compilers else "none")
        + (f"; CC={cc}" if cc else "")
    )

    import fastsheng as fs

    @check(f"import fastsheng {fs.__version__} from {Path(fs.__file__).parent}")
    def _():
        if "site-packages" not in fs.__file__ and "dist-packages" not in fs.__file__:
            sys.exit(f"smoke: FAILED: fastsheng imported from {fs.__file__}, not an installation")

    @check("fastsheng --version")
    def _():
        out = run("--version", cwd=work).splitlines()
        if out[0] != f"fastsheng {fs.__version__}" or not out[1].startswith("core: "):
            sys.exit(f"smoke: FAILED: --version printed {out}")
        if "without a build record" in out[1]:
            sys.exit("smoke: FAILED: the installed core has no build record (_build_info.json)")
        return out[1].removeprefix("core: ")

    @check("packaged data: bots/models/*.npz, bots/frontier.json, `fastsheng bots`")
    def _():
        bots_dir = Path(fs.__file__).parent / "bots"
        models = sorted(p.name for p in (bots_dir / "models").glob("*.npz"))
        if "learned-v1.npz" not in models or not (bots_dir / "frontier.json").is_file():
            sys.exit(f"smoke: FAILED: packaged data missing: models {models}")
        menu = run("bots", cwd=work)
        if "search-v4" not in menu:
            sys.exit("smoke: FAILED: `fastsheng bots` does not list search-v4")
        return ", ".join(models)

    run_dir = work / "run"

    @check("fastsheng sim -n 1e4")
    def _():
        run("sim", "-n", "1e4", "--seed", "7", "--out", str(run_dir), "--quiet", cwd=work)
        parts = list((run_dir / "hands").glob("part-*.parquet"))
        if not parts or not (run_dir / "run.json").is_file():
            sys.exit(f"smoke: FAILED: sim wrote no hands into {run_dir}")
        import pyarrow.parquet as pq

        rows = sum(pq.read_metadata(p).num_rows for p in parts)
        if rows != 10_000:
            sys.exit(f"smoke: FAILED: sim wrote {rows} hands, not 10,000")
        return f"{rows:,} hands in {len(parts)} part(s)"

    @check("fastsheng report on it")
    def _():
        run("report", str(run_dir), cwd=work)
        page = run_dir / "report" / "index.html"
        if not page.is_file():
            sys.exit(f"smoke: FAILED: report wrote no {page}")
        tables = len(list((run_dir / "report").glob("*.csv")))
        return f"index.html ({page.stat().st_size:,} bytes) and {tables} CSV tables"

    @check("fastsheng.Game to the end with bot_action('expert') = simulate_hands' row")
    def _():
        g = fs.Game("standard", seed=7, hand_id=0, level="6")
        steps = 0
        while g.phase != "done":
            g.apply(g.bot_action("expert"))
            steps += 1
        row = fs.simulate_hands("standard", "expert", seed=7, n=1, level="6").to_pylist()[0]
        total = g.result()["defenders_total"]
        if total != row["defenders_total"]:
            sys.exit(f"smoke: FAILED: Game gave {total}, simulate_hands {row['defenders_total']}")
        return f"{steps} decisions, the defenders make {total}"

    @check("learned-v1 vs search-v3:k=8, two hands")
    def _():
        hands = fs.simulate_hands("standard", ["learned-v1", "search-v3:k=8"], seed=1, n=2)
        if hands.num_rows != 2:
            sys.exit(f"smoke: FAILED: {hands.num_rows} hands, not 2")
        totals = hands.column("defenders_total").to_pylist()
        return f"the defenders make {totals}"

    @check("the hands' digest")
    def _():
        import hashlib
        import json

        import numpy as np

        h = hashlib.sha256()
        for preset in ("standard", "super"):
            bots = ["expert", "learned-v1", "search-v3:k=8", "basic"]
            hands = fs.simulate_hands(preset, bots, seed=1, n=100, level="random")
            h.update(json.dumps(hands.to_pylist(), sort_keys=True, default=str).encode())
        env = fs.VecEnv(8, "standard", (None, "expert"), seed=1, level="random", threads=2)
        step = env.reset()
        for _ in range(300):
            step = env.step(step.mask.argmax(axis=1))
            h.update(step.obs.tobytes() + step.mask.tobytes() + step.reward.tobytes())
        h.update(np.asarray(step.seat).tobytes())
        return f"hands digest {h.hexdigest()[:16]}"


if __name__ == "__main__":
    main()
