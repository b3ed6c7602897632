#!/usr/bin/env bash
# Regenerate the tables of README.md: permutation.sweep.toml and failure.sweep.toml (27 runs,
# about 3 minutes of CPU), then table.py prints both tables in markdown.
# Usage: run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
set -euo pipefail
source "$(dirname "$0")/../sweeps.sh"
papers_sweep permutation.sweep.toml
papers_sweep failure.sweep.toml
exec /usr/bin/python3 scenarios/papers/reps/table.py "$papers_root"
