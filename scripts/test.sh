#!/usr/bin/env bash
# README command 2: install, build, and run the whole test suite (unit, component, regression),
# then the sanitizer job: the unit and component tests under ASan + UBSan and a bounded fuzzing
# run of every input reader (scripts/sanitize.sh, docs/testing.md). TUSK_SKIP_SANITIZE=1 skips
# that second part (for a quick local run; CI never sets it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
# The Slurm backend test needs a Slurm cluster: start the single-node test cluster (root only;
# it installs slurm-wlm and munge when missing) and stop it when the tests are done. Where it
# cannot start, the test says so and is skipped.
if bash scripts/slurm-test-cluster.sh start; then
  eval "$(bash scripts/slurm-test-cluster.sh env)"
  export SLURM_CONF
  trap "bash '$PWD/scripts/slurm-test-cluster.sh' stop" EXIT
else
  echo "test.sh: no Slurm test cluster (see above): the Slurm backend test will be skipped"
fi
(cd build && ctest --output-on-failure -j "$(nproc)" --timeout 1800)
if [ "${TUSK_SKIP_SANITIZE:-0}" != 1 ]; then
  bash scripts/sanitize.sh
fi
