#!/usr/bin/env bash
# How long the README's two install commands take on a fresh machine: a fresh clone of this
# repository (its committed HEAD, or the commit given as $1) into a temporary folder, a fresh
# venv, then `pip install .` and `pip install '.[test]'` one after the other, each timed.
#
#   scripts/install_time.sh            # HEAD
#   scripts/install_time.sh 614612f    # any commit, e.g. to compare with an older build
#
# Downloads come from pip's usual cache (~/.cache/pip) when it has them, as on a developer's
# machine; a local folder is never served from pip's wheel cache, so the C core is built from
# the clone's sources. The machine's load average is printed beside the times: on a shared
# machine the same build takes twice as long when another job holds the other core.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
rev=${1:-HEAD}
python=${PYTHON:-python3}
work=$(mktemp -d /tmp/fastsheng-install.XXXXXX)
trap 'rm -rf "$work"' EXIT

git clone -q "$repo" "$work/src"
git -C "$work/src" checkout -q "$rev"
"$python" -m venv "$work/venv"
# shellcheck disable=SC1091
. "$work/venv/bin/activate"
cd "$work/src"

load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?'; }
echo "install time: $(git rev-parse --short HEAD), $(python -V), $(pip -V | cut -d' ' -f1-2)," \
    "$(nproc) cores, load average $(load) at the start"
# Each command's wall and CPU seconds (user + system, its build processes included). -v only
# fills the log, where the build's own lines say what was compiled.
TIMEFORMAT='%R %U %S'
{ time pip install -v . >"$work/first.log" 2>&1; } 2>"$work/first.time" \
    || { tail -n 80 "$work/first.log"; exit 1; }
{ time pip install -v '.[test]' >"$work/second.log" 2>&1; } 2>"$work/second.time" \
    || { tail -n 80 "$work/second.log"; exit 1; }
fastsheng --version | sed 's/^/install time: /'
grep -h '^ *fastsheng: \(building\|built\|the C core\)' "$work/first.log" "$work/second.log" \
    | sed 's/^ */install time: /' || true
read -r w1 u1 s1 <"$work/first.time"
read -r w2 u2 s2 <"$work/second.time"
awk -v w1="$w1" -v c1="$u1 + $s1" -v w2="$w2" -v c2="$u2 + $s2" -v l="$(load)" 'BEGIN {
    split(c1, a, " [+] "); split(c2, b, " [+] ")
    printf "install time: pip install . %.0f s (%.0f CPU s), then pip install '"'"'.[test]'"'"' %.0f s (%.0f CPU s): %.0f s in all, %.1f min (load average %s at the end)\n",
        w1, a[1] + a[2], w2, b[1] + b[2], w1 + w2, (w1 + w2) / 60, l }'
