#!/usr/bin/env bash
# Regenerate the tables and the plot of README.md: Llama 3's failure arithmetic and effective
# training time against scale and checkpoint interval. Needs Debian's python3-pandas (numpy)
# and python3-matplotlib (scripts/install-deps.sh). Usage: run.sh [OUT_DIR]
# (default results/papers/llama3-failures/ of the repository).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export MPLCONFIGDIR="${MPLCONFIGDIR:-$(mktemp -d)}"
exec /usr/bin/python3 "$here/llama3_failures.py" "$@"
