#!/usr/bin/env bash
# The Slurm backend of `tusk sweep` for real (docs/sweeps.md): a sweep of 8 runs submitted to a
# Slurm cluster as a job array (2 runs per array task) must give results byte-identical to the
# local backend's: every CSV file of every run, sweep.csv, and manifest.json but for its
# wall_time_s, setup_time_s and run_time_s lines. The test cluster is
# scripts/slurm-test-cluster.sh (scripts/test.sh starts it as root and stops it afterwards);
# without a reachable cluster the test is skipped, saying why.
set -euo pipefail
TUSK=${TUSK_BIN:?set TUSK_BIN to the tusk binary}

if [ -z "${SLURM_CONF:-}" ] || ! command -v sinfo >/dev/null 2>&1 || ! sinfo -h >/dev/null 2>&1; then
  echo "SKIPPED: no Slurm cluster reachable (SLURM_CONF=${SLURM_CONF:-unset}); as root," \
       "scripts/slurm-test-cluster.sh start, then eval \$(scripts/slurm-test-cluster.sh env)"
  exit 77
fi

tmp=$(mktemp -d /tmp/tusk-slurm-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/base.toml" <<'TOML'
name = "slurm-vs-local"
[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 2
host_link_gbps = 100
fabric_link_gbps = 100
[workload]
kind = "permutation"
bytes = "300KB"
TOML
cat > "$tmp/sweep.toml" <<'TOML'
name = "slurm-vs-local"
scenario = "base.toml"
[[axis]]
key = "lb.policy"
values = ["ecmp", "drill"]
[[axis]]
name = "size"
key = "workload.bytes"
values = ["300KB", "1MB"]
[[axis]]
key = "seed"
values = [1, 2]
[slurm]
chunk = 2
time = "00:10:00"
mem = "512M"
TOML

# The results root has a `%j` in its name: sbatch must not expand it in the log paths.
S="$tmp/slurm%j"
"$TUSK" sweep "$tmp/sweep.toml" --backend slurm --wait -q --out "$S"
"$TUSK" sweep "$tmp/sweep.toml" -j 2 -q --out "$tmp/local" >/dev/null

fail=0
cmp "$tmp/local/sweep.csv" "$S/sweep.csv" || { echo "sweep.csv differs"; fail=1; }
runs=0
for d in "$tmp"/local/*=*; do
  id=$(basename "$d")
  runs=$((runs + 1))
  for f in "$d"/*.csv; do
    cmp "$f" "$S/$id/$(basename "$f")" || { echo "$id/$(basename "$f") differs"; fail=1; }
  done
  timing='"(wall|setup|run)_time_s"'
  if ! diff <(grep -Ev "$timing" "$d/manifest.json") \
            <(grep -Ev "$timing" "$S/$id/manifest.json"); then
    echo "$id/manifest.json differs beyond wall_time_s, setup_time_s and run_time_s"; fail=1
  fi
done
[ "$runs" -eq 8 ] || { echo "expected 8 local runs, found $runs"; fail=1; }
# Four array tasks ran (2 runs each), and the index job wrote the index.
tasks=$(ls "$S"/.sweep/slurm/task-*.out | wc -l)
[ "$tasks" -eq 4 ] || { echo "expected 4 array task logs, found $tasks"; fail=1; }
grep -q "slurm" <(sqlite3 "$S/index.sqlite" "SELECT DISTINCT backend FROM runs" 2>/dev/null ||
                  /usr/bin/python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT DISTINCT backend FROM runs').fetchall())" "$S/index.sqlite") \
  || { echo "index.sqlite does not say the runs ran on slurm"; fail=1; }
"$TUSK" sweep "$tmp/sweep.toml" --status --out "$S" | grep -q "8 ok" || { echo "--status"; fail=1; }
if [ "$fail" -ne 0 ]; then
  echo "FAILED: the Slurm backend's results differ from the local backend's"
  exit 1
fi
echo "slurm backend: $runs runs in $tasks array tasks, byte-identical to the local backend"
