#!/usr/bin/env bash
# README command 2: install, build, and run the whole test suite (unit, component, regression).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 1800
