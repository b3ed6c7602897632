#!/usr/bin/env bash
# Regenerate the tables of README.md: websearch.sweep.toml (18 runs, about 15 minutes of CPU),
# then the symmetric and the asymmetric table in markdown.
# Usage: run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
set -euo pipefail
# sweeps.sh: beside this folder in a checkout, else the installed tusk's (P/share/tusk/papers).
papers_lib="$(dirname "$0")/.."
[[ -f $papers_lib/sweeps.sh ]] || papers_lib="$(dirname "$(command -v "${TUSK:-tusk}" || echo .)")/../share/tusk/papers"
[[ -f $papers_lib/sweeps.sh ]] || { echo "run.sh: no sweeps.sh: install tusk and put its bin/ on PATH" >&2; exit 2; }
source "$papers_lib/sweeps.sh"
papers_sweep websearch.sweep.toml
for fabric in symmetric asymmetric; do
    printf '## %s\n\n' "$fabric"
    /usr/bin/python3 "$papers_lib/sweep_table.py" "$papers_root/papers-letflow-conga" \
        --by policy --where fabric=$fabric --metric slowdown_mean --metric slowdown_p99 \
        --base conga --order ecmp,letflow,conga
    echo
done
