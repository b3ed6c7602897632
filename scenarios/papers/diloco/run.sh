#!/usr/bin/env bash
# Regenerate the table of README.md: sync-dp.sweep.toml and diloco.sweep.toml (8 runs, about
# a minute of CPU), then table.py prints the table in markdown.
# Usage: run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
set -euo pipefail
source "$(dirname "$0")/../sweeps.sh"
papers_sweep sync-dp.sweep.toml
papers_sweep diloco.sweep.toml
exec /usr/bin/python3 scenarios/papers/diloco/table.py "$papers_root"
