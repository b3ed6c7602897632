#!/usr/bin/env bash
# Regenerate the tables of README.md: elephants.sweep.toml (12 runs, under a minute of CPU),
# then one table per congestion control in markdown.
# Usage: run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
set -euo pipefail
source "$(dirname "$0")/../sweeps.sh"
papers_sweep elephants.sweep.toml
for cc in dctcp none; do
    printf '## congestion control: %s\n\n' "$cc"
    /usr/bin/python3 scenarios/papers/sweep_table.py "$papers_root/papers-plb" --by policy \
        --where cc=$cc --metric uplink_imbalance --metric slowdown_max --metric ooo_packets \
        --base ecmp --order ecmp,host-plb
    echo
done
