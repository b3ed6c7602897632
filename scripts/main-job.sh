#!/usr/bin/env bash
# README command 1: install, build, and run the main job: `tusk compare` on the built-in
# default scenario (a 16-rank ring all-reduce on a 4x4 leaf-spine at 400 Gb/s: ECMP, flowlet
# adaptive routing and spraying, over selective-repeat receivers; README.md has the go-back-N
# comparison as a second command),
# sampling every switch port every 10 us, then `tusk report` on its results (plots and one
# self-contained report.html; docs/analysis.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
./build/bin/tusk compare --set output.sample_us=10 "$@" | tee "$log"
rc=${PIPESTATUS[0]}
set -e
dir=$(sed -n 's/^plots and an HTML report: tusk report //p' "$log")
if [ -n "$dir" ]; then
  ./build/bin/tusk report "$dir"
fi
exit "$rc"
