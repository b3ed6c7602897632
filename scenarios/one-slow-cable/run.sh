#!/usr/bin/env bash
# Regenerate the table of README.md: both workloads, ECMP / DRILL / random spraying, healthy
# (no [[failures]]) and with the one slow cable, one run at a time (about 15 min on 2 cores).
#   bash scenarios/one-slow-cable/run.sh [OUT_DIR]    (default results/one-slow-cable)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tusk="${TUSK:-$root/build/bin/tusk}"
out="${1:-results/one-slow-cable}"
mkdir -p "$out"
for wl in ring-allreduce all-to-all; do
  for policy in ecmp drill spray; do
    for state in healthy degraded; do
      extra=()
      [ "$state" = healthy ] && extra=(--set 'failures=[]')
      echo "== $wl $policy $state" >&2
      "$tusk" run "$here/$wl.toml" --set "lb.policy=$policy" "${extra[@]}" \
        --out "$out/$wl-$policy-$state" > "$out/$wl-$policy-$state.log"
    done
  done
done
python3 "$here/table.py" "$out"
