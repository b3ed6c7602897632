#!/usr/bin/env bash
# Two tables. (1) The ring all-reduce of ring-allreduce.toml on 1, 2 and 4 planes at equal
# total bandwidth (each plane's links at 400/N Gb/s, each NIC N ports of 400/N Gb/s):
# per-plane ECMP (a QP's entropy keeps it on one plane and one path), host spraying (every
# packet a new entropy: a new plane and a new hashed path), source-routed spraying over the
# path set (the NIC names plane and spine; switches forward by the route) and the MRC-style
# policy (the same, steering away from bad paths and failing over). (2) spine-failure.toml:
# the same all-reduce on 4 planes with one plane's leaf-spine link failing mid-step, per
# policy. Extra arguments go to every run (e.g. --seed 2). About 2 minutes of CPU on the
# 2-core reference machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
TUSK=${TUSK:-./build/bin/tusk}
POLICIES=${POLICIES:-ecmp,host-spray,source-route,mrc}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
row() { # comparison.csv, label
    python3 - "$1" "$2" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    cct = f"{float(r['cct_us']):9.1f}" if r['cct_us'] not in ('', 'nan') else f"{'-':>9}"
    print(f"{sys.argv[2]:<7} {r['policy']:<13} {cct} {float(r['fct_p99_us'] or 'nan'):11.1f} "
          f"{float(r['uplink_imbalance'] or 'nan'):8.2f} {int(r['ooo_packets']):8d} "
          f"{int(r['drops']):6d} {int(r['retx_packets']):6d} {int(r['unfinished']):5d}")
PY
}
printf '%-7s %-13s %9s %11s %8s %8s %6s %6s %5s\n' planes policy CCT_us fct_p99_us up_imb ooo \
    drops retx unfin
for n in 1 2 4; do
    "$TUSK" compare -q scenarios/multi-plane/ring-allreduce.toml --policies "$POLICIES" \
        --set topology.planes=$n --set topology.fabric_link_gbps=$((400 / n)) \
        --out "$out/p$n" "$@" >/dev/null
    row "$out/p$n/comparison.csv" "$n"
done
echo
echo "4 planes, p2.leaf1-p2.spine1 fails at 100 us (spine-failure.toml):"
"$TUSK" compare -q scenarios/multi-plane/spine-failure.toml --policies "$POLICIES" \
    --out "$out/fail" "$@" >/dev/null || true
row "$out/fail/comparison.csv" "4"
