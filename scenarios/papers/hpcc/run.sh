#!/usr/bin/env bash
# HPCC, DCQCN and no congestion control (PFC only) side by side on the permutation and the
# incast of this directory, each with the HPCC simulator's own configuration for that control
# (data/hpcc/config_fat_flow_*.txt, --hpcc-config), seeds 1-3; then the table of README.md.
# Extra arguments go to every run (e.g. --set hpcc.target_utilisation=0.99).
# About 8 minutes of CPU on the 2-core reference machine; SEEDS="1" for a quick look.
set -euo pipefail
cd "$(dirname "$0")/../../.."
TUSK=${TUSK:-./build/bin/tusk}
OUT=${OUT:-results/papers-hpcc}
SEEDS=${SEEDS:-1 2 3}
declare -A CONFIG=(
    [hpcc]=data/hpcc/config_fat_flow_hp95.txt
    [dcqcn]=data/hpcc/config_fat_flow_dcqcn.txt
    [none]=scenarios/papers/hpcc/config-pfc-only.txt
)
for scenario in permutation incast; do
    for cc in hpcc dcqcn none; do
        for seed in $SEEDS; do
            echo "$scenario, $cc, seed $seed" >&2
            "$TUSK" run -q "scenarios/papers/hpcc/$scenario.toml" --hpcc-config "${CONFIG[$cc]}" \
                --seed "$seed" --out "$OUT/$scenario-$cc-s$seed" "$@" > /dev/null
        done
    done
done
/usr/bin/python3 scenarios/papers/hpcc/table.py "$OUT"
