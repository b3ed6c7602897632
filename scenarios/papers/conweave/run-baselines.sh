#!/usr/bin/env bash
# The baselines table of README.md: baselines.sweep.toml (ECMP, CONGA, LetFlow, DRILL, ConWeave
# x AliCloud storage and Meta Hadoop x seeds 1-3, lossless, 1 ms of arrivals: 30 runs, about
# 2-3 minutes of wall time on the 2-core reference machine), then baselines_table.py; the table
# replaces what README.md has between its "baselines" markers (and is printed).
# Usage: run-baselines.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
set -euo pipefail
# sweeps.sh: beside this folder in a checkout, else the installed tusk's (P/share/tusk/papers).
papers_lib="$(dirname "$0")/.."
[[ -f $papers_lib/sweeps.sh ]] || papers_lib="$(dirname "$(command -v "${TUSK:-tusk}" || echo .)")/../share/tusk/papers"
[[ -f $papers_lib/sweeps.sh ]] || { echo "run-baselines.sh: no sweeps.sh: install tusk and put its bin/ on PATH" >&2; exit 2; }
source "$papers_lib/sweeps.sh"
papers_sweep baselines.sweep.toml
table="$(mktemp)"
trap 'rm -f "$table"' EXIT
/usr/bin/python3 "$papers_here/baselines_table.py" "$papers_root/papers-conweave-baselines" >"$table"
cat "$table"
papers_readme_tables "<!-- baselines: begin (run-baselines.sh) -->" "<!-- baselines: end -->" "$table"
