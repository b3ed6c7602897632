#!/usr/bin/env bash
# Regenerate the tables of README.md: permutation.sweep.toml and failure.sweep.toml (27 runs,
# about 3 minutes of CPU), then table.py prints both tables in markdown.
# Usage: run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
set -euo pipefail
# sweeps.sh: beside this folder in a checkout, else the installed tusk's (P/share/tusk/papers).
papers_lib="$(dirname "$0")/.."
[[ -f $papers_lib/sweeps.sh ]] || papers_lib="$(dirname "$(command -v "${TUSK:-tusk}" || echo .)")/../share/tusk/papers"
[[ -f $papers_lib/sweeps.sh ]] || { echo "run.sh: no sweeps.sh: install tusk and put its bin/ on PATH" >&2; exit 2; }
source "$papers_lib/sweeps.sh"
papers_sweep permutation.sweep.toml
papers_sweep failure.sweep.toml
exec /usr/bin/python3 "$papers_here/table.py" "$papers_root"
