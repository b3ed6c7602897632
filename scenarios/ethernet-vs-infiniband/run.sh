#!/usr/bin/env bash
# Regenerate the table of README.md: three workloads (allreduce, alltoall, permutation with
# background) on four stacks, one run at a time, then table.py prints the markdown table.
#   bash scenarios/ethernet-vs-infiniband/run.sh [OUT_DIR]   (default results/ethernet-vs-infiniband)
# TUSK= overrides the binary (default build/bin/tusk). Needs Debian's python3-pandas.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tusk="${TUSK:-$root/build/bin/tusk}"
out="${1:-$root/results/ethernet-vs-infiniband}"
mkdir -p "$out"
# stack name | --set arguments (the files' own settings: Ethernet, PFC, ECMP, go-back-N, no CC)
STACKS=(
  "roce-dcqcn-ecmp|nic.congestion_control=dcqcn ecn.enabled=true"
  "uec-rud-spray|nic.transport=uec-rud lb.policy=host-spray nic.congestion_control=nscc ecn.enabled=true"
  "ib-static|fabric.kind=infiniband lb.policy=ib-static"
  "ib-ar|fabric.kind=infiniband lb.policy=ib-ar nic.receiver=selective-repeat"
)
for wl in allreduce alltoall permutation; do
  for s in "${STACKS[@]}"; do
    name=${s%%|*}
    args=()
    for kv in ${s#*|}; do args+=(--set "$kv"); done
    echo "== $wl $name" >&2
    "$tusk" run -q "$here/$wl.toml" "${args[@]}" --out "$out/$wl-$name" > /dev/null
  done
done
exec /usr/bin/python3 "$here/table.py" "$out"
