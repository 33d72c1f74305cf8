#!/usr/bin/env bash
# Build the documentation site: execute the example notebooks into docs/examples/*.ipynb
# (scripts/run_notebooks.py), then `mkdocs build --strict` (mkdocs.yml) into SITE_DIR.
#
#   bash scripts/build_docs.sh [SITE_DIR]     (default: site/)
#
# Needs the docs extra (pip install '.[docs]') and an importable fastsheng (installed, or
# PYTHONPATH=src in a built tree). Fetches nothing: no remote fonts, no social or privacy plugin.
# Prints the time of each step and the number of pages of the site.
set -euo pipefail
cd "$(dirname "$0")/.."
site="${1:-site}"

if [ ! -f scripts/run_notebooks.py ]; then
    echo "error: scripts/run_notebooks.py is missing; it writes the example notebooks" \
        "docs/examples/*.ipynb the site renders, so the site cannot be built without it" >&2
    exit 1
fi

t0=$(date +%s.%N)
python scripts/run_notebooks.py
t1=$(date +%s.%N)
NO_MKDOCS_2_WARNING=1 python -m mkdocs build --strict --quiet -d "$site"
t2=$(date +%s.%N)

pages=$(find "$site" -name index.html | wc -l)  # a page is a folder with its index.html
awk -v a="$t0" -v b="$t1" -v c="$t2" -v p="$pages" -v d="$site" 'BEGIN {
    printf "docs: notebooks executed in %.1f s, mkdocs build --strict in %.1f s: %d pages in %s/\n",
        b - a, c - b, p, d
}'
