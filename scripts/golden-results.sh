#!/usr/bin/env bash
# Golden results of every shipped scenario, for refactorings that must not change results.
#
#   scripts/golden-results.sh record DIR      run every case below, keep its result files in DIR
#   scripts/golden-results.sh compare A B     byte-compare two recorded directories (exit 1 if
#                                             any file differs; lists the files that do)
#
# Each case runs `tusk run -q` at full size (every shipped scenario takes < 15 s on the
# 2-core reference machine; about 3 minutes in all) and keeps flows.csv, collectives.csv, waits.csv,
# jobs.csv, links.csv, pfc_events.csv, timeseries.csv (when written) and manifest.json without
# the keys that change from run to run or commit to commit (wall_time_s, setup_time_s,
# run_time_s, git_revision, code_hash). The variants exercise knobs the shipped files leave at their
# defaults (policies, presets, receivers, the PFC watchdog). Not run in CI: it is a developer's before/after check.
# TUSK=path/to/tusk overrides the binary (default build/bin/tusk).
set -euo pipefail
cd "$(dirname "$0")/.."
TUSK=${TUSK:-./build/bin/tusk}

# scenario|extra arguments
CASES=(
    "scenarios/default.toml|"
    "scenarios/default.toml|--set lb.policy=spray --set nic.receiver=selective-repeat"
    "scenarios/background-mix.toml|"
    "scenarios/congestion-spreading.toml|"
    "scenarios/dcqcn-fairness.toml|"
    "scenarios/dcqcn-fairness.toml|--set dcqcn.preset=hpcc --set output.sample_us=500"
    "scenarios/llama3-8b-dp-allreduce.toml|"
    "scenarios/lossless-incast.toml|"
    "scenarios/lossless-incast.toml|--set pfc.enabled=false"
    "scenarios/moe-all-to-all.toml|"
    "scenarios/pfc-deadlock.toml|"
    "scenarios/pfc-deadlock.toml|--set pfc.watchdog_us=200 --set pfc.watchdog_action=forward"
    "scenarios/simai-micro-allreduce.toml|"
    "scenarios/chakra-allreduce.toml|"
    "scenarios/uec-permutation.toml|"
    "scenarios/uec-permutation.toml|--set lb.policy=host-reps"
    "scenarios/uec-permutation-degraded.toml|--set lb.policy=host-random-spray"
    "scenarios/lb-compare/ring-allreduce.toml|"
    "scenarios/lb-compare/all-to-all.toml|"
    "scenarios/lb-compare/all-to-all.toml|--set lb.policy=qp4-rr"
    "scenarios/lb-compare/all-to-all.toml|--set lb.policy=conga"
    "scenarios/lb-compare/all-to-all.toml|--set lb.policy=drill"
    "scenarios/lb-compare/all-to-all.toml|--set lb.policy=letflow --set nic.receiver=selective-repeat"
    "scenarios/lb-compare/all-to-all.toml|--set lb.policy=host-spray --set nic.receiver=selective-repeat"
)

record() {
    local out=$1
    mkdir -p "$out"
    local tmp
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    for c in "${CASES[@]}"; do
        local scenario=${c%%|*}
        local args=${c#*|}
        local name
        name=$(echo "${scenario#scenarios/} $args" | sed -e 's/\.toml//' -e 's/--set //g' \
            -e 's/[^A-Za-z0-9_.=-]\+/_/g' -e 's/_$//')
        local start=$SECONDS
        local rc=0
        # shellcheck disable=SC2086
        "$TUSK" run -q "$scenario" $args --out "$tmp/$name" >/dev/null 2>"$tmp/$name.stderr" || rc=$?
        mkdir -p "$out/$name"
        echo "$rc" > "$out/$name/exit_status"
        for f in flows.csv collectives.csv waits.csv jobs.csv links.csv pfc_events.csv timeseries.csv; do
            if [[ -f "$tmp/$name/$f" ]]; then cp "$tmp/$name/$f" "$out/$name/"; fi
        done
        if [[ -f "$tmp/$name/manifest.json" ]]; then
            jq 'del(.wall_time_s, .setup_time_s, .run_time_s, .git_revision, .code_hash)' "$tmp/$name/manifest.json" > "$out/$name/manifest.json"
        else
            cp "$tmp/$name.stderr" "$out/$name/stderr"
        fi
        printf '%-70s exit %d  %3d s\n' "$name" "$rc" $((SECONDS - start))
    done
}

compare() {
    local a=$1 b=$2 rc=0
    while IFS= read -r f; do
        rel=${f#"$a"/}
        if [[ ! -f "$b/$rel" ]]; then
            echo "only in $a: $rel"; rc=1
        elif ! cmp -s "$f" "$b/$rel"; then
            echo "differs: $rel"; rc=1
        fi
    done < <(find "$a" -type f | sort)
    while IFS= read -r f; do
        rel=${f#"$b"/}
        [[ -f "$a/$rel" ]] || { echo "only in $b: $rel"; rc=1; }
    done < <(find "$b" -type f | sort)
    [[ $rc == 0 ]] && echo "identical: $a $b"
    return $rc
}

case "${1:-}" in
    record) record "${2:?output directory}" ;;
    compare) compare "${2:?first directory}" "${3:?second directory}" ;;
    *) sed -n '2,14p' "$0"; exit 2 ;;
esac
