#!/usr/bin/env bash
# Regenerate the tables of README.md: the two sweeps beside this file (120 runs, about
# 15 minutes of CPU), then tables.py prints every table in markdown. Runs with complete results
# are skipped, so an interrupted run.sh resumes (after changing the simulator: --force).
# Usage: run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
# (default root: results/ of the repository; TUSK= the binary, default ./build/bin/tusk).
# Needs Debian's python3-pandas (scripts/install-deps.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
TUSK=${TUSK:-./build/bin/tusk}
root=${1:-results}
shift || true
for sweep in websearch-8x8-2to1 websearch-4x4; do
    name=$(sed -n 's/^name = "\(.*\)"/\1/p' "$here/$sweep.sweep.toml")
    "$TUSK" sweep "$here/$sweep.sweep.toml" --out "$root/$name" -q "$@"
done
exec /usr/bin/python3 "$here/tables.py" "$root"
