#!/usr/bin/env bash
# Regenerate the table of README.md: ring-allreduce.sweep.toml (18 runs, about 6 minutes of
# CPU), then the table in markdown.
# Usage: run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
set -euo pipefail
source "$(dirname "$0")/../sweeps.sh"
papers_sweep ring-allreduce.sweep.toml
exec /usr/bin/python3 scenarios/papers/sweep_table.py "$papers_root/papers-meta-roce" \
    --by config --metric busbw_GBps --metric cct_us --metric uplink_imbalance --base ecmp \
    --order ecmp,ecmp-4qp,eecmp,eecmp-qp4-rr,eecmp-qp4-rr-64k,eecmp-qp4-split
