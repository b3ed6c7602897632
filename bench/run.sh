#!/usr/bin/env bash
# Benchmarks: wall time, simulated events/s, packet-hops/s and peak RSS of `tusk run` on
#   perm-128:  htsim perm_128n_128c_2MB.cm on fat_tree_128_1os.topo (shipped in data/htsim)
#   perm-1024: htsim perm_1024n_1024c_0u_2000000b.cm on fat_tree_1024.topo (from ../shared/data)
# Usage: bench/run.sh [perm-128|perm-1024|all] [--set key=value ...]. Needs a built tree
# (scripts/build.sh). Results go to build/bench/<case>/; figures to stdout as a Markdown row.
set -euo pipefail
cd "$(dirname "$0")/.."
which="${1:-all}"
shift || true
TUSK=./build/bin/tusk
SHARED=../shared/data/htsim

run_case() {
  local name=$1 topo=$2 cm=$3
  shift 3
  if [ ! -f "$topo" ] || [ ! -f "$cm" ]; then
    echo "bench: $name: input files missing ($topo, $cm); skipped" >&2
    return 0
  fi
  local out=build/bench/$name
  /usr/bin/time -f "%e %M" -o build/bench-$name.time \
    "$TUSK" run --quiet --htsim-topo "$topo" --htsim-cm "$cm" --out "$out" "$@" >/dev/null
  read -r wall rss_kb < build/bench-$name.time
  /usr/bin/python3 - "$name" "$out/manifest.json" "$wall" "$rss_kb" <<'PY'
import json, sys
name, manifest, wall, rss_kb = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
m = json.load(open(manifest))
sim_wall = m["wall_time_s"]
print(f"| {name} | {m['hosts']} | {m['transfers']} | {wall:.2f} | {sim_wall:.2f} | "
      f"{m['events']/sim_wall/1e6:.2f} | {m['packet_hops']/sim_wall/1e6:.2f} | "
      f"{rss_kb/1024:.0f} | {m['sim_end_us']:.1f} | {m['summary']['fct_max_us']:.1f} |")
PY
}

mkdir -p build/bench
echo "| case | hosts | flows | wall s (process) | wall s (simulation) | M events/s | M packet-hops/s | peak RSS MB | simulated µs | max FCT µs |"
echo "|---|---|---|---|---|---|---|---|---|---|"
if [ "$which" = perm-128 ] || [ "$which" = all ]; then
  run_case perm-128 data/htsim/fat_tree_128_1os.topo data/htsim/perm_128n_128c_2MB.cm "$@"
fi
if [ "$which" = perm-1024 ] || [ "$which" = all ]; then
  run_case perm-1024 $SHARED/fat_tree_1024.topo $SHARED/perm_1024n_1024c_0u_2000000b.cm "$@"
fi
