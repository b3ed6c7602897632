#!/usr/bin/env bash
# Every load-balancing policy of `tusk policies` on a ring all-reduce and on an all-to-all over
# a 64-host leaf-spine at 400 Gb/s: two `tusk compare` tables, one per workload, one row per
# policy. Extra arguments go to both (e.g. --set nic.receiver=go-back-n, --seed 2).
# About a minute of CPU on the 2-core reference machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
TUSK=${TUSK:-./build/bin/tusk}
POLICIES=${POLICIES:-ecmp,eecmp,qp4-split,qp4-rr,pinning,letflow,conga,drill,ar,flowlet-ar,spray,rr-spray,host-spray}
for scenario in ring-allreduce all-to-all; do
    "$TUSK" compare -q "scenarios/lb-compare/$scenario.toml" --policies "$POLICIES" "$@"
    echo
done
