#!/usr/bin/env bash
# Run every libFuzzer target of build-asan/ (built by scripts/sanitize.sh): `scripts/fuzz.sh
# [SECONDS]` (default 20 per target). Fails on any crash, uncaught exception other than the
# readers' InputError, sanitizer report, input slower than -timeout seconds (a hang), or
# allocation over -malloc_limit_mb (unbounded memory).
#
# Targets are the fuzz/fuzz-*.cc files. Each runs in two steps:
#  1. replay: the target over its kept corpus, fuzz/corpus/<target>/, and every earlier
#     finding, fuzz/regressions/<target>/, each input once, no mutation (-runs=0): a change
#     that breaks a reader on an input known to reach deep fails here, whatever the fuzzing
#     then finds;
#  2. fuzz for SECONDS from those inputs. What it grows is kept in a temporary directory, not
#     in the repository (fuzz/corpus/ is refreshed by hand with -merge=1, docs/testing.md).
# As many targets at once as there are cores. A failing input is left in
# build-asan/fuzz-findings/<target>/ (path printed) to be turned into a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
root="$PWD"
bin="$root/build-asan/bin"
source scripts/sanitizer/env.sh

targets=$(for f in fuzz/fuzz-*.cc; do basename "$f" .cc; done | sort)
for target in $targets; do
  if [ ! -x "$bin/$target" ]; then
    echo "fuzz: $bin/$target is missing (build with scripts/sanitize.sh)" >&2
    exit 1
  fi
done

# Targets fuzzed for at most this many seconds, whatever SECONDS says (CI's budget: each
# further target costs its fuzzing time over the cores). fuzz-chakra-trace: a small protobuf
# reader whose kept corpus already reaches every node type and attribute.
declare -A max_seconds=([fuzz-chakra-trace]=10)

work=$(mktemp -d "${TMPDIR:-/tmp}/tusk-fuzz-run.XXXXXX")
trap 'rm -rf "$work"' EXIT

# One target: replay, then fuzz; leave "ok" or "FAILED" in $work/<target>.status.
fuzz_one() {
  local target=$1
  local secs=$seconds
  if [ -n "${max_seconds[$target]:-}" ] && [ "${max_seconds[$target]}" -lt "$secs" ]; then
    secs=${max_seconds[$target]}
  fi
  local inputs=()
  for d in "fuzz/corpus/$target" "fuzz/regressions/$target"; do
    if [ -d "$d" ]; then inputs+=("$root/$d"); fi
  done
  mkdir -p "$work/$target/corpus"
  local findings="$root/build-asan/fuzz-findings/$target"
  mkdir -p "$findings"
  # -timeout 10 s per input is a hang (the readers take microseconds to milliseconds);
  # -malloc_limit_mb 1024: a reader that believes a count in its input and allocates for it
  # is a finding. The replay reads the inputs whole (no -max_len).
  local common=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024
                -artifact_prefix="$findings/")
  local status=ok
  if [ "${#inputs[@]}" -gt 0 ]; then find "${inputs[@]}" -type f | wc -l; else echo 0; fi \
    >"$work/$target.replayed"
  # TMPDIR: the private directory the targets write their files to (fuzz-input.h).
  if [ "${#inputs[@]}" -gt 0 ] &&
     ! (cd "$work/$target" && TMPDIR="$work/$target" "$bin/$target" "${common[@]}" -runs=0 \
          "${inputs[@]}" >"$work/$target.replay.log" 2>&1); then
    echo "replay" >"$work/$target.failed-step"
    status=FAILED
  fi
  # -max_len 4096: inputs stay small. -use_value_profile helps past numeric comparisons.
  # The first directory (empty) receives what the run finds; the others are read only.
  if [ "$status" = ok ] &&
     ! (cd "$work/$target" && TMPDIR="$work/$target" "$bin/$target" "${common[@]}" \
          -max_total_time="$secs" -max_len=4096 -use_value_profile=1 -print_final_stats=1 \
          corpus "${inputs[@]}" >"$work/$target.log" 2>&1); then
    echo "fuzz" >"$work/$target.failed-step"
    status=FAILED
  fi
  echo "$status" >"$work/$target.status"
}

start=$(date +%s)
jobs_max=$(nproc)
for target in $targets; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  fuzz_one "$target" &
done
wait

failed=()
for target in $targets; do
  if [ "$(cat "$work/$target.status" 2>/dev/null)" = ok ]; then
    echo "fuzz: $target: ok (replayed $(cat "$work/$target.replayed") kept inputs;" \
         "$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$target.log" |
            grep -o '[0-9]*$') inputs in ${seconds}s)"
  else
    step=$(cat "$work/$target.failed-step" 2>/dev/null || echo fuzz)
    echo "fuzz: $target: FAILED in the $step step; finding in $root/build-asan/fuzz-findings/$target/" >&2
    log="$work/$target.log"
    if [ "$step" = replay ]; then log="$work/$target.replay.log"; fi
    grep -v '^"\|^#' "$log" | tail -n 60 >&2
    failed+=("$target")
  fi
done
n=$(echo "$targets" | wc -l)
echo "fuzz: $((n - ${#failed[@]})) passed, ${#failed[@]} failed, $(( $(date +%s) - start )) s in all"
if [ "${#failed[@]}" -gt 0 ]; then
  exit 1
fi
