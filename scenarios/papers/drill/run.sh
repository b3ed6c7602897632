#!/usr/bin/env bash
# Regenerate the table of README.md: websearch-4x4-80.sweep.toml (12 runs, about 12 minutes of
# CPU), then the table in markdown.
# Usage: run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
set -euo pipefail
source "$(dirname "$0")/../sweeps.sh"
papers_sweep websearch-4x4-80.sweep.toml
exec /usr/bin/python3 scenarios/papers/sweep_table.py "$papers_root/papers-drill" \
    --by policy --metric slowdown_mean --metric slowdown_p99 --base ecmp --order ecmp,drill,conga,ar
