#!/usr/bin/env bash
# README command 2: install, build, and run the whole test suite (unit, component, regression),
# then the sanitizer job: the unit and component tests under ASan + UBSan and a bounded fuzzing
# run of every input reader (scripts/sanitize.sh, docs/testing.md). TUSK_SKIP_SANITIZE=1 skips
# that second part (for a quick local run; CI never sets it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
(cd build && ctest --output-on-failure -j "$(nproc)" --timeout 1800)
if [ "${TUSK_SKIP_SANITIZE:-0}" != 1 ]; then
  bash scripts/sanitize.sh
fi
