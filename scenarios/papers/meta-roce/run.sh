#!/usr/bin/env bash
# Regenerate the table of README.md: ring-allreduce.sweep.toml (18 runs, about 6 minutes of
# CPU), then the table in markdown.
# Usage: run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
set -euo pipefail
# sweeps.sh: beside this folder in a checkout, else the installed tusk's (P/share/tusk/papers).
papers_lib="$(dirname "$0")/.."
[[ -f $papers_lib/sweeps.sh ]] || papers_lib="$(dirname "$(command -v "${TUSK:-tusk}" || echo .)")/../share/tusk/papers"
[[ -f $papers_lib/sweeps.sh ]] || { echo "run.sh: no sweeps.sh: install tusk and put its bin/ on PATH" >&2; exit 2; }
source "$papers_lib/sweeps.sh"
papers_sweep ring-allreduce.sweep.toml
exec /usr/bin/python3 "$papers_lib/sweep_table.py" "$papers_root/papers-meta-roce" \
    --by config --metric busbw_GBps --metric cct_us --metric uplink_imbalance --base ecmp \
    --order ecmp,ecmp-4qp,eecmp,eecmp-qp4-rr,eecmp-qp4-rr-64k,eecmp-qp4-split
