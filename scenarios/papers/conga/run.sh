#!/usr/bin/env bash
# Regenerate the tables of README.md: testbed.sweep.toml (72 runs, about 2 minutes of CPU),
# then one markdown table per workload and load (ECMP, CONGA, CONGA with DreAtEnqueue, LetFlow; ratios to ECMP).
# Usage: run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
set -euo pipefail
# sweeps.sh: beside this folder in a checkout, else the installed tusk's (P/share/tusk/papers).
papers_lib="$(dirname "$0")/.."
[[ -f $papers_lib/sweeps.sh ]] || papers_lib="$(dirname "$(command -v "${TUSK:-tusk}" || echo .)")/../share/tusk/papers"
[[ -f $papers_lib/sweeps.sh ]] || { echo "run.sh: no sweeps.sh: install tusk and put its bin/ on PATH" >&2; exit 2; }
source "$papers_lib/sweeps.sh"
papers_sweep testbed.sweep.toml
for workload in websearch hadoop; do
    for load in 0.3 0.5 0.7; do
        printf '### %s, load %s\n\n' "$workload" "$load"
        /usr/bin/python3 "$papers_lib/sweep_table.py" "$papers_root/papers-conga" \
            --by config --where workload=$workload --where load=$load \
            --metric slowdown_mean --metric slowdown_p99 --base ecmp --order ecmp,conga,conga-enq,letflow
        echo
    done
done
