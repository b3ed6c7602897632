#!/usr/bin/env bash
# Benchmarks: wall time, simulated events/s, packet-hops/s and peak RSS of `tusk run` on
#   perm-128:       htsim perm_128n_128c_2MB.cm on fat_tree_128_1os.topo (shipped in data/htsim)
#   perm-1024:      htsim perm_1024n_1024c_0u_2000000b.cm on fat_tree_1024.topo (data/htsim)
#   perm-8192:      htsim perm_8192n_8192c_2MB.cm on fat_tree_8192_1os.topo ($TUSK_HTSIM_DATA: the 8192-host htsim files, not in the repository)
#   perm-8192-ls:   the same permutation on leaf_spine_8192_400g.topo ($TUSK_HTSIM_DATA: the 8192-host htsim files, not in the repository)
#   setup:          setup time of a one-switch star of 1k..16k hosts (bench/star-setup.toml)
#   iterations:     setup time and peak RSS of a ring all-reduce job of 10, 100, 300 and 1,000
#                   iterations (bench/iterations.toml), each run to the end
#   ring-128:       fast mode's ring step replay: a 64 MiB ring all-reduce on the 128-host fat
#                   tree, flow_rows = "summary" (bench/ring-128.toml): CPU s, peak RSS and
#                   replayed transfers; with --callgrind, instructions per replayed transfer
#   ring-8192:      the 1 GiB ring all-reduce on the 8,192-host fat tree in fast mode, to the end
#                   (bench/ring-8192.toml: 134 M transfers, 15 to 25 min, about 0.5 GB)
# Usage: bench/run.sh [CASE|all] [--callgrind|--cachesim] [--set key=value ...]
#   all = perm-128 and perm-1024 (the 8,192-host cases take minutes and GBs: name them; the
#   ring cases are named too).
#   --callgrind: run the case under valgrind's callgrind, counting instructions inside
#   ns3::Simulator::Run only (--toggle-collect; setup and result writing excluded), and print
#   instructions and events per packet-hop. Instruction counts do not depend on machine load.
#   --cachesim (perm cases): the same under callgrind's cache simulator, with a fixed cache
#   (L1d 48 KiB 12-way, L1i 32 KiB 8-way, last level 32 MiB 16-way, 64 B lines: the
#   development VM's AMD EPYC), and print per packet-hop the instructions, the L1 data misses
#   and the last-level data misses. A model of the caches, not the hardware (no prefetcher, no
#   L2, one core), but deterministic: where the machine's load spreads CPU time by 10 to 20 %,
#   it shows whether a change to the memory layout moves fewer lines. About 100 times slower
#   than a plain run: for perm-8192 stop early, e.g. --set stop_time_ms=0.05.
#   TUSK_CACHESIM_LL=BYTES sets the last level's size (a power of two times 16 x 64 B; e.g.
#   1048576, one core's L2 here: a VM's share of a shared L3 is less than its nominal size).
# "CPU s (process)" is user + system time: on a shared machine it moves less than wall time.
# Needs a built tree (scripts/build.sh). Results go to build/bench/<case>/; figures to stdout
# as a Markdown row.
set -euo pipefail
cd "$(dirname "$0")/.."
which="${1:-all}"
shift || true
callgrind=0
cachesim=0
if [ "${1:-}" = "--callgrind" ]; then
  callgrind=1
  shift
elif [ "${1:-}" = "--cachesim" ]; then
  cachesim=1
  shift
fi
if [ "$cachesim" = 1 ]; then
  case "$which" in
    perm-128|perm-1024|perm-8192|perm-8192-ls|all) ;;
    setup|iterations|ring-128|ring-8192)
      echo "bench: --cachesim is for the perm cases, not '$which'" >&2; exit 2 ;;
    *) echo "bench: unknown case '$which' (perm-128, perm-1024, perm-8192, perm-8192-ls, setup, iterations, ring-128, ring-8192, all)" >&2; exit 2 ;;
  esac
  # valgrind's last level: 16-way, 64 B lines, a power-of-two number of sets.
  ll=${TUSK_CACHESIM_LL:-33554432}
  if ! [[ "$ll" =~ ^[0-9]+$ ]] || [ "$ll" -lt 1024 ] || [ $((ll % 1024)) -ne 0 ] ||
     [ $(( (ll / 1024) & (ll / 1024 - 1) )) -ne 0 ]; then
    echo "bench: TUSK_CACHESIM_LL: expected bytes, a power of two of at least 1024 (16 ways x 64 B lines); got '$ll'" >&2
    exit 2
  fi
fi
TUSK=${TUSK:-./build/bin/tusk} # TUSK=... benchmarks another build
# The 8192-host htsim files are not in the repository: TUSK_HTSIM_DATA names their folder.
SHARED=${TUSK_HTSIM_DATA:-data/htsim}

run_case() {
  local name=$1 topo=$2 cm=$3
  shift 3
  if [ ! -f "$topo" ] || [ ! -f "$cm" ]; then
    echo "bench: $name: input files missing ($topo, $cm); skipped" >&2
    return 0
  fi
  local out=build/bench/$name
  if [ "$cachesim" = 1 ]; then
    command -v valgrind >/dev/null || { echo "bench: --cachesim needs valgrind" >&2; exit 2; }
    # A run stopped early (stop_time_ms) exits 1 with its transfers unfinished and its results
    # written: the figures are per packet-hop of what it simulated.
    local rc=0
    # Nothing of an earlier run may stand in for this one's figures.
    rm -rf "$out" build/bench-$name.cachesim build/bench-$name.valgrind
    valgrind --tool=callgrind --cache-sim=yes --D1=49152,12,64 --I1=32768,8,64 \
      --LL="$ll",16,64 --toggle-collect='ns3::Simulator::Run()' \
      --callgrind-out-file=build/bench-$name.cachesim --log-file=build/bench-$name.valgrind \
      "$TUSK" run --quiet --htsim-topo "$topo" --htsim-cm "$cm" --out "$out" "$@" >/dev/null || rc=$?
    if [ "$rc" -gt 1 ] || [ ! -f "$out/manifest.json" ] || [ ! -s build/bench-$name.cachesim ]; then
      echo "bench: $name: the run under valgrind failed (exit $rc): see build/bench-$name.valgrind" \
        "(valgrind's log) and the lines above (tusk's)" >&2
      exit 1
    fi
    /usr/bin/python3 - "$name" "$out/manifest.json" "build/bench-$name.cachesim" <<'PY'
import json, sys
name, manifest, profile = sys.argv[1:4]
m = json.load(open(manifest))
events = totals = None
for line in open(profile):
    if line.startswith("events:"):
        events = line.split()[1:]
    elif line.startswith("totals:") or line.startswith("summary:"):
        totals = [int(x) for x in line.split()[1:]]
c = dict(zip(events, totals))
hops = m["packet_hops"]
d1 = c["D1mr"] + c["D1mw"]
ll = c["DLmr"] + c["DLmw"]
print(f"| {name} | {m['sim_end_us']:.1f} | {hops} | {c['Ir'] / hops:.0f} | {d1 / hops:.1f} | "
      f"{ll / hops:.2f} | {ll / max(d1, 1):.3f} |")
PY
    return 0
  fi
  if [ "$callgrind" = 1 ]; then
    command -v valgrind >/dev/null || { echo "bench: --callgrind needs valgrind" >&2; exit 2; }
    valgrind --tool=callgrind --toggle-collect='ns3::Simulator::Run()' \
      --callgrind-out-file=build/bench-$name.callgrind --log-file=build/bench-$name.valgrind \
      "$TUSK" run --quiet --htsim-topo "$topo" --htsim-cm "$cm" --out "$out" "$@" >/dev/null
    local ir
    ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' build/bench-$name.valgrind)
    /usr/bin/python3 - "$name" "$out/manifest.json" "$ir" <<'PY'
import json, sys
name, manifest, ir = sys.argv[1], sys.argv[2], int(sys.argv[3])
m = json.load(open(manifest))
hops, events = m["packet_hops"], m["events"]
print(f"| {name} | {hops} | {events} | {ir} | {ir / hops:.0f} | {events / hops:.2f} |")
PY
    return 0
  fi
  /usr/bin/time -f "%e %M %U %S" -o build/bench-$name.time \
    "$TUSK" run --quiet --htsim-topo "$topo" --htsim-cm "$cm" --out "$out" "$@" >/dev/null
  read -r wall rss_kb user sys < build/bench-$name.time
  /usr/bin/python3 - "$name" "$out/manifest.json" "$wall" "$rss_kb" "$user" "$sys" <<'PY'
import json, sys
name, manifest, wall, rss_kb = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
cpu = float(sys.argv[5]) + float(sys.argv[6])
m = json.load(open(manifest))
sim_wall = m["wall_time_s"]
setup = m.get("setup_time_s")
setup = f"{setup:.2f}" if setup is not None else "-"
print(f"| {name} | {m['hosts']} | {m['transfers']} | {wall:.2f} | {cpu:.2f} | {setup} | {sim_wall:.2f} | "
      f"{m['events']/sim_wall/1e6:.2f} | {m['packet_hops']/sim_wall/1e6:.2f} | "
      f"{m['packet_hops']/1e6:.1f} | {rss_kb/1024:.0f} | {m['sim_end_us']:.1f} | "
      f"{m['summary']['fct_max_us']:.1f} |")
PY
}

# A standalone ring in fast mode (bench/NAME.toml), run to the end: its replayed transfers
# (the manifest's fast_mode.ring_steps_replayed x hosts x channels of one step) and, under
# --callgrind, the whole run's instructions and RunReplayBatch's (inclusive: the replayed
# transfers' starts, deliveries and acknowledgements, the triggers they fire and the rows of
# the steps that retire then) per replayed transfer (at 128 hosts the simulated steps are
# most of the run); else CPU s (user + system), peak RSS and the CCT.
ring_case() {
  local name=$1
  shift
  local out=build/bench/$name
  if [ "$callgrind" = 1 ]; then
    command -v valgrind >/dev/null || { echo "bench: --callgrind needs valgrind" >&2; exit 2; }
    valgrind --tool=callgrind --callgrind-out-file=build/bench-$name.callgrind \
      --log-file=build/bench-$name.valgrind \
      "$TUSK" run --quiet "bench/$name.toml" --out "$out" "$@" >/dev/null
    local ir replay
    ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' build/bench-$name.valgrind)
    # The replay's own share: RunReplayBatch inclusive (every replayed transfer's start,
    # delivery and acknowledgement, the triggers they fire and the rows of the steps retired).
    replay=$(callgrind_annotate --inclusive=yes --threshold=100 build/bench-$name.callgrind |
      sed -n 's/^ *\([0-9,]*\) .*WorkloadExecutor::RunReplayBatch(unsigned int) \[.*/\1/p' |
      head -1 | tr -d ,)
    ir="$ir ${replay:-0}"
  else
    /usr/bin/time -f "%U %S %M %e" -o build/bench-$name.time \
      "$TUSK" run --quiet "bench/$name.toml" --out "$out" "$@" >/dev/null
    local ir="0 0"
  fi
  /usr/bin/python3 - "$name" "$out/manifest.json" $ir build/bench-$name.time <<'PY'
import json, sys
name, m = sys.argv[1], json.load(open(sys.argv[2]))
ir, replay = int(sys.argv[3]), int(sys.argv[4])
f = m["fast_mode"]
per_step = m["transfers"] // f["ring_steps"]
replayed = f["ring_steps_replayed"] * per_step
if ir:
    print(f"| {name} | {m['transfers']} | {replayed} | {ir} | {replay} | {replay / replayed:.0f} |")
else:
    user, sys_s, rss_kb, wall = open(sys.argv[5]).read().split()
    cpu = float(user) + float(sys_s)
    print(f"| {name} | {m['transfers']} | {replayed} | {wall} | {cpu:.1f} | {m['transfers'] / cpu:.0f} | "
          f"{int(rss_kb) / 1024:.0f} | {m['summary']['cct_us']} |")
PY
}

# Setup time (topology, forwarding tables, NICs, QPs: the manifest's setup_time_s) against
# fabric size; CPU s is the whole process's user + system time (less load-dependent).
setup_table() {
  echo "| hosts | setup s (wall) | process CPU s | peak RSS MB |"
  echo "|---|---|---|---|"
  local n out
  for n in 1024 2048 4096 8192 16384; do
    out=build/bench/setup-$n
    /usr/bin/time -f "%U %S %M" -o build/bench-setup.time \
      "$TUSK" run --quiet bench/star-setup.toml --set topology.hosts_per_leaf=$n --out "$out" "$@" \
      >/dev/null
    read -r user sys rss_kb < build/bench-setup.time
    /usr/bin/python3 - "$out/manifest.json" "$user" "$sys" "$rss_kb" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
cpu = float(sys.argv[2]) + float(sys.argv[3])
print(f"| {m['hosts']} | {m['setup_time_s']:.2f} | {cpu:.2f} | {int(sys.argv[4]) / 1024:.0f} |")
PY
  done
}

# Setup time and peak memory against a job's iterations (bench/iterations.toml): a job's
# setup should be linear in its iterations and its memory flat.
iterations_table() {
  echo "| iterations | transfers | setup s (wall) | process CPU s | wall s (simulation) | peak RSS MB | simulated µs |"
  echo "|---|---|---|---|---|---|---|"
  local n out
  for n in 10 100 300 1000; do
    out=build/bench/iterations-$n
    /usr/bin/time -f "%U %S %M" -o build/bench-iterations.time \
      "$TUSK" run --quiet bench/iterations.toml --set "jobs[0].iterations=$n" --out "$out" "$@" \
      >/dev/null
    read -r user sys rss_kb < build/bench-iterations.time
    /usr/bin/python3 - "$n" "$out/manifest.json" "$user" "$sys" "$rss_kb" <<'PY'
import json, sys
n, m = sys.argv[1], json.load(open(sys.argv[2]))
cpu = float(sys.argv[3]) + float(sys.argv[4])
print(f"| {n} | {m['transfers']} | {m['setup_time_s']:.2f} | {cpu:.2f} | {m['wall_time_s']:.2f} | "
      f"{int(sys.argv[5]) / 1024:.0f} | {m['sim_end_us']:.1f} |")
PY
  done
}

mkdir -p build/bench
if [ "$which" = ring-128 ] || [ "$which" = ring-8192 ]; then
  if [ "$callgrind" = 1 ]; then
    echo "| case | transfers | replayed transfers | instructions (whole run) | RunReplayBatch inclusive | of it per replayed transfer |"
    echo "|---|---|---|---|---|---|"
  else
    echo "| case | transfers | replayed transfers | wall s | CPU s (process) | transfers / CPU s (whole run) | peak RSS MB | CCT µs |"
    echo "|---|---|---|---|---|---|---|---|"
  fi
  ring_case "$which" "$@"
  exit 0
fi
if [ "$which" = iterations ]; then
  iterations_table "$@"
  exit 0
fi
if [ "$which" = setup ]; then
  setup_table "$@"
  exit 0
fi
if [ "$callgrind" = 1 ]; then
  echo "| case | packet-hops | events | instructions in Simulator::Run | instructions / packet-hop | events / packet-hop |"
  echo "|---|---|---|---|---|---|"
elif [ "$cachesim" = 1 ]; then
  echo "| case | simulated µs | packet-hops | instructions / packet-hop | L1d misses / packet-hop | last-level misses / packet-hop | of the L1d misses |"
  echo "|---|---|---|---|---|---|---|"
else
  echo "| case | hosts | flows | wall s (process) | CPU s (process) | setup s | wall s (simulation) | M events/s | M packet-hops/s | M packet-hops | peak RSS MB | simulated µs | max FCT µs |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
fi
case "$which" in
  perm-128|perm-1024|perm-8192|perm-8192-ls|all) ;;
  *) echo "bench: unknown case '$which' (perm-128, perm-1024, perm-8192, perm-8192-ls, setup, iterations, ring-128, ring-8192, all)" >&2; exit 2 ;;
esac
if [ "$which" = perm-128 ] || [ "$which" = all ]; then
  run_case perm-128 data/htsim/fat_tree_128_1os.topo data/htsim/perm_128n_128c_2MB.cm "$@"
fi
if [ "$which" = perm-1024 ] || [ "$which" = all ]; then
  run_case perm-1024 data/htsim/fat_tree_1024.topo data/htsim/perm_1024n_1024c_0u_2000000b.cm "$@"
fi
if [ "$which" = perm-8192 ]; then
  run_case perm-8192 $SHARED/fat_tree_8192_1os.topo $SHARED/perm_8192n_8192c_2MB.cm "$@"
fi
if [ "$which" = perm-8192-ls ]; then
  run_case perm-8192-ls $SHARED/leaf_spine_8192_400g.topo $SHARED/perm_8192n_8192c_2MB.cm "$@"
fi
