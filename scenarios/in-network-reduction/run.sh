#!/usr/bin/env bash
# Run allreduce.toml and print one row per collective from collectives.csv: the algorithm it
# ran (for "auto", NCCL's choice), its CCT, the byte bound and the bus bandwidth. Extra
# arguments go to the run (e.g. --seed 2).
set -euo pipefail
cd "$(dirname "$0")/../.."
TUSK=${TUSK:-./build/bin/tusk}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$TUSK" run -q scenarios/in-network-reduction/allreduce.toml --out "$out/run" "$@" >/dev/null
python3 - "$out/run/collectives.csv" <<'PY'
import csv, sys
print(f"{'collective':<18} {'algorithm':<20} {'CCT_us':>9} {'bound_us':>9} {'busbw_GBps':>10}")
for r in csv.DictReader(open(sys.argv[1])):
    print(f"{r['name']:<18} {r['algorithm']:<20} {float(r['cct_us']):9.1f} "
          f"{float(r['lower_bound_us']):9.1f} {float(r['busbw_GBps']):10.2f}")
PY
