#!/usr/bin/env bash
# Regenerate the tables of README.md: elephants.sweep.toml (12 runs, under a minute of CPU),
# then one table per congestion control in markdown.
# Usage: run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
set -euo pipefail
# sweeps.sh: beside this folder in a checkout, else the installed tusk's (P/share/tusk/papers).
papers_lib="$(dirname "$0")/.."
[[ -f $papers_lib/sweeps.sh ]] || papers_lib="$(dirname "$(command -v "${TUSK:-tusk}" || echo .)")/../share/tusk/papers"
[[ -f $papers_lib/sweeps.sh ]] || { echo "run.sh: no sweeps.sh: install tusk and put its bin/ on PATH" >&2; exit 2; }
source "$papers_lib/sweeps.sh"
papers_sweep elephants.sweep.toml
for cc in dctcp none; do
    printf '## congestion control: %s\n\n' "$cc"
    /usr/bin/python3 "$papers_lib/sweep_table.py" "$papers_root/papers-plb" --by policy \
        --where cc=$cc --metric uplink_imbalance --metric slowdown_max --metric ooo_packets \
        --base ecmp --order ecmp,host-plb
    echo
done
