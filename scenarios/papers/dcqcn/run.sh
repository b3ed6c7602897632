#!/usr/bin/env bash
# Regenerate the tables of README.md: two-flows.sweep.toml and unfairness.sweep.toml (9 runs,
# about a minute of CPU), then table.py prints both tables in markdown.
# Usage: run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
set -euo pipefail
source "$(dirname "$0")/../sweeps.sh"
papers_sweep two-flows.sweep.toml
papers_sweep unfairness.sweep.toml
exec /usr/bin/python3 scenarios/papers/dcqcn/table.py "$papers_root"
