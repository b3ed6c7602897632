#!/usr/bin/env bash
# Regenerate the tables of README.md: allreduce.sweep.toml and alltoall.sweep.toml (48 runs,
# about 20 s of CPU), then one table per workload and failure, written into README.md between
# its table markers (and printed).
# Usage: run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
set -euo pipefail
# sweeps.sh: beside this folder in a checkout, else the installed tusk's (P/share/tusk/papers).
papers_lib="$(dirname "$0")/.."
[[ -f $papers_lib/sweeps.sh ]] || papers_lib="$(dirname "$(command -v "${TUSK:-tusk}" || echo .)")/../share/tusk/papers"
[[ -f $papers_lib/sweeps.sh ]] || { echo "run.sh: no sweeps.sh: install tusk and put its bin/ on PATH" >&2; exit 2; }
source "$papers_lib/sweeps.sh"
papers_sweep allreduce.sweep.toml
papers_sweep alltoall.sweep.toml
tables="$(mktemp)"
trap 'rm -f "$tables"' EXIT
for workload in allreduce alltoall; do
    for failure in none spine1-leaf1; do
        printf '%s, failure %s:\n\n' "$workload" "$failure"
        /usr/bin/python3 "$papers_lib/sweep_table.py" "$papers_root/papers-ethereal-$workload" \
            --by policy --where failure=$failure --metric cct_us --metric retx_packets \
            --metric drops --base ethereal --order ecmp,host-spray,host-reps,ethereal
        echo
    done
done >"$tables"
cat "$tables"
# The README's tables: everything between the two marker lines is replaced.
papers_readme_tables "<!-- tables: begin (run.sh) -->" "<!-- tables: end -->" "$tables"
