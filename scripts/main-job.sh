#!/usr/bin/env bash
# README command 1: install, build, and run the main job: `tusk compare` on the built-in
# default scenario (a 16-rank ring all-reduce on a 4x4 leaf-spine at 400 Gb/s, ECMP vs spray).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
./build/bin/tusk compare "$@"
