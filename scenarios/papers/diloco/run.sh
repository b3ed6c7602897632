#!/usr/bin/env bash
# Regenerate the table of README.md: sync-dp.sweep.toml and diloco.sweep.toml (8 runs, about
# a minute of CPU), then table.py prints the table in markdown.
# Usage: run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
set -euo pipefail
# sweeps.sh: beside this folder in a checkout, else the installed tusk's (P/share/tusk/papers).
papers_lib="$(dirname "$0")/.."
[[ -f $papers_lib/sweeps.sh ]] || papers_lib="$(dirname "$(command -v "${TUSK:-tusk}" || echo .)")/../share/tusk/papers"
[[ -f $papers_lib/sweeps.sh ]] || { echo "run.sh: no sweeps.sh: install tusk and put its bin/ on PATH" >&2; exit 2; }
source "$papers_lib/sweeps.sh"
papers_sweep sync-dp.sweep.toml
papers_sweep diloco.sweep.toml
exec /usr/bin/python3 "$papers_here/table.py" "$papers_root"
