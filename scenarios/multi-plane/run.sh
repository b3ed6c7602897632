#!/usr/bin/env bash
# The ring all-reduce of ring-allreduce.toml on 1, 2 and 4 planes at equal total bandwidth
# (each plane's links at 400/N Gb/s, each NIC N ports of 400/N Gb/s), per-plane ECMP (a QP's
# entropy keeps it on one plane and one path) against host spraying (every packet a new
# entropy: a new plane and a new path). One `tusk compare` per plane count, then one table.
# Extra arguments go to every run (e.g. --seed 2). About 40 s of CPU on the 2-core
# reference machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
TUSK=${TUSK:-./build/bin/tusk}
POLICIES=${POLICIES:-ecmp,host-spray}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-7s %-11s %9s %11s %11s %8s %8s\n' planes policy CCT_us fct_p99_us fct_max_us up_imb ooo
for n in 1 2 4; do
    "$TUSK" compare -q scenarios/multi-plane/ring-allreduce.toml --policies "$POLICIES" \
        --set topology.planes=$n --set topology.fabric_link_gbps=$((400 / n)) \
        --out "$out/p$n" "$@" >/dev/null
    python3 - "$out/p$n/comparison.csv" "$n" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(f"{sys.argv[2]:<7} {r['policy']:<11} {float(r['cct_us']):9.1f} {float(r['fct_p99_us']):11.1f} "
          f"{float(r['fct_max_us']):11.1f} {float(r['uplink_imbalance']):8.2f} {int(r['ooo_packets']):8d}")
PY
done
