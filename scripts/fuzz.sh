#!/usr/bin/env bash
# Run every libFuzzer target of build-asan/ (built by scripts/sanitize.sh) for a bounded
# time: `scripts/fuzz.sh [SECONDS]` (default 20 per target). Fails on any crash, uncaught
# exception other than the readers' InputError, sanitizer report, input slower than
# -timeout seconds (a hang), or allocation over -malloc_limit_mb (unbounded memory).
#
# Seeds: the project's real input files (data/, scenarios/) and every earlier finding in
# fuzz/regressions/<target>/ (each also a unit test). The corpus a run grows is kept in a
# temporary directory, not in the repository. A crashing input is left in
# build-asan/fuzz-findings/<target>/ (path printed) to be turned into a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
root="$PWD"
bin="$root/build-asan/bin"
source scripts/sanitizer/env.sh

# target -> seed files (globs, relative to the repository)
declare -A SEEDS=(
  [fuzz-scenario-toml]="scenarios/*.toml scenarios/lb-compare/*.toml"
  [fuzz-htsim-cm]="data/htsim/*.cm"
  [fuzz-htsim-topo]="data/htsim/*.topo"
  [fuzz-hpcc-topology]="data/hpcc/topology.txt"
  [fuzz-hpcc-flow]="data/hpcc/flow.txt"
  [fuzz-hpcc-config]="data/hpcc/config.txt"
  [fuzz-flow-size-cdf]="data/hpcc/*_distribution.txt"
  [fuzz-simai-workload]="data/simai/microAllReduce.txt data/simai/workload_analytical.txt"
  [fuzz-rerun-manifest]="fuzz/corpus/fuzz-rerun-manifest/*"
)

work=$(mktemp -d "${TMPDIR:-/tmp}/tusk-fuzz-run.XXXXXX")
trap 'rm -rf "$work"' EXIT

# One target: copy its seeds, fuzz for $seconds, leave "ok" or "FAILED" in $work/<target>.status.
fuzz_one() {
  local target=$1
  mkdir -p "$work/$target/corpus" "$work/$target/seeds"
  # shellcheck disable=SC2086
  cp ${SEEDS[$target]} "$work/$target/seeds/"
  if [ -d "fuzz/regressions/$target" ]; then
    cp "fuzz/regressions/$target/"* "$work/$target/seeds/"
  fi
  local findings="$root/build-asan/fuzz-findings/$target"
  mkdir -p "$findings"
  # -max_len 4096: seeds are read up to 4 KB (the 140 KB SimAI file is cut), inputs stay small.
  # -timeout 10 s per input is a hang (the readers take microseconds); -malloc_limit_mb
  # 1024: a reader that believes a count in its input and allocates for it is a finding.
  # -use_value_profile helps past numeric comparisons (counts, ids).
  if (cd "$work/$target" && TMPDIR="$work/$target" "$bin/$target" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
        -max_len=4096 -use_value_profile=1 -print_final_stats=1 \
        -artifact_prefix="$findings/" corpus seeds >"$work/$target.log" 2>&1); then
    echo ok >"$work/$target.status"
  else
    echo FAILED >"$work/$target.status"
  fi
}

targets=$(printf '%s\n' "${!SEEDS[@]}" | sort)
for target in $targets; do
  if [ ! -x "$bin/$target" ]; then
    echo "fuzz: $bin/$target is missing (build with scripts/sanitize.sh)" >&2
    exit 1
  fi
done
# As many targets at once as there are cores (each fuzzer is one process).
jobs_max=$(nproc)
for target in $targets; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  fuzz_one "$target" &
done
wait

failed=()
for target in $targets; do
  if [ "$(cat "$work/$target.status" 2>/dev/null)" = ok ]; then
    echo "fuzz: $target: ok ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$target.log" | grep -o '[0-9]*$') inputs in ${seconds}s)"
  else
    echo "fuzz: $target: FAILED; finding in $root/build-asan/fuzz-findings/$target/" >&2
    grep -v '^"\|^#' "$work/$target.log" | tail -n 60 >&2
    failed+=("$target")
  fi
done
n=$(echo "$targets" | wc -l)
echo "fuzz: $((n - ${#failed[@]})) passed, ${#failed[@]} failed"
if [ "${#failed[@]}" -gt 0 ]; then
  exit 1
fi
