#!/usr/bin/env bash
# Regenerate the table of README.md: websearch-4x4-80.sweep.toml (12 runs, about 12 minutes of
# CPU), then the table in markdown.
# Usage: run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
set -euo pipefail
# sweeps.sh: beside this folder in a checkout, else the installed tusk's (P/share/tusk/papers).
papers_lib="$(dirname "$0")/.."
[[ -f $papers_lib/sweeps.sh ]] || papers_lib="$(dirname "$(command -v "${TUSK:-tusk}" || echo .)")/../share/tusk/papers"
[[ -f $papers_lib/sweeps.sh ]] || { echo "run.sh: no sweeps.sh: install tusk and put its bin/ on PATH" >&2; exit 2; }
source "$papers_lib/sweeps.sh"
papers_sweep websearch-4x4-80.sweep.toml
exec /usr/bin/python3 "$papers_lib/sweep_table.py" "$papers_root/papers-drill" \
    --by policy --metric slowdown_mean --metric slowdown_p99 --base ecmp --order ecmp,drill,conga,ar
