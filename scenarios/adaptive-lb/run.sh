#!/usr/bin/env bash
# Regenerate the tables of README.md: the two sweeps beside this file (120 runs, about
# 15 minutes of CPU), then tables.py prints every table in markdown. Runs with complete results
# are skipped, so an interrupted run.sh resumes (after changing the simulator: --force).
# Usage: run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
# (default root: results/ of the repository; TUSK= the binary, default build/bin/tusk of the
# repository).
# Needs Debian's python3-pandas (scripts/install-deps.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
TUSK="$(realpath -m "${TUSK:-$repo/build/bin/tusk}")"
root="$repo/results"
if [[ $# -gt 0 && $1 != -* ]]; then
    root="$(realpath -m "$1")" # relative to where run.sh was called from
    shift
fi
cd "$repo"
# The sweep files' names (tables.py reads these directories); the sweeps' summaries go to stderr.
"$TUSK" sweep "$here/websearch-8x8-2to1.sweep.toml" --out "$root/adaptive-lb-8x8-2to1" -q "$@" >&2
"$TUSK" sweep "$here/websearch-4x4.sweep.toml" --out "$root/adaptive-lb-4x4" -q "$@" >&2
exec /usr/bin/python3 "$here/tables.py" "$root"
