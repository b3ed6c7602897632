#!/usr/bin/env bash
# Regenerate the table of README.md: the sweep beside this file (12 runs of
# alistorage-8x8-2to1.toml), then table.py prints it in markdown. Runs with complete results
# are skipped, so an interrupted run.sh resumes (after changing the simulator: --force).
# Usage: run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
# (default root: results/ of the repository; TUSK= the binary, default build/bin/tusk of the
# repository). Needs Debian's python3-pandas (scripts/install-deps.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
TUSK="$(realpath -m "${TUSK:-$repo/build/bin/tusk}")"
root="$repo/results"
if [[ $# -gt 0 && $1 != -* ]]; then
    root="$(realpath -m "$1")" # relative to where run.sh was called from
    shift
fi
cd "$repo"
"$TUSK" sweep "$here/alistorage-8x8-2to1.sweep.toml" --out "$root/papers-conweave" -q "$@" >&2
exec /usr/bin/python3 "$here/table.py" "$root/papers-conweave"
