#!/usr/bin/env bash
# The baselines table of README.md: baselines.sweep.toml (ECMP, CONGA, LetFlow, DRILL, ConWeave
# x AliCloud storage and Meta Hadoop x seeds 1-3, lossless, 1 ms of arrivals: 30 runs, about
# 2-3 minutes of wall time on the 2-core reference machine), then baselines_table.py; the table
# replaces what README.md has between its "baselines" markers. Runs with complete results are
# skipped, so an interrupted run resumes (after changing the simulator: --force).
# Usage: run-baselines.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
# (default root: results/ of the repository; TUSK= the binary, default build/bin/tusk).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
TUSK="$(realpath -m "${TUSK:-$repo/build/bin/tusk}")"
root="$repo/results"
if [[ $# -gt 0 && $1 != -* ]]; then
    root="$(realpath -m "$1")" # relative to where the script was called from
    shift
fi
cd "$repo"
"$TUSK" sweep "$here/baselines.sweep.toml" --out "$root/papers-conweave-baselines" -q "$@" >&2
table="$(/usr/bin/python3 "$here/baselines_table.py" "$root/papers-conweave-baselines")"
printf '%s\n' "$table"
/usr/bin/python3 - "$here/README.md" "$table" <<'PY'
import sys
readme, table = sys.argv[1], sys.argv[2]
begin, end = "<!-- baselines: begin (run-baselines.sh) -->", "<!-- baselines: end -->"
text = open(readme).read()
if begin not in text or end not in text:
    sys.exit(f"run-baselines.sh: {readme}: no table markers ({begin} ... {end})")
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(readme, "w").write(head + begin + "\n\n" + table.rstrip("\n") + "\n\n" + end + tail)
PY
