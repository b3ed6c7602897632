#!/usr/bin/env bash
# Regenerate the tables of README.md: websearch.sweep.toml (18 runs, about 15 minutes of CPU),
# then the symmetric and the asymmetric table in markdown.
# Usage: run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
set -euo pipefail
source "$(dirname "$0")/../sweeps.sh"
papers_sweep websearch.sweep.toml
for fabric in symmetric asymmetric; do
    printf '## %s\n\n' "$fabric"
    /usr/bin/python3 scenarios/papers/sweep_table.py "$papers_root/papers-letflow-conga" \
        --by policy --where fabric=$fabric --metric slowdown_mean --metric slowdown_p99 \
        --base conga --order ecmp,letflow,conga
    echo
done
