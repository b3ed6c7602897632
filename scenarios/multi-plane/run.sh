#!/usr/bin/env bash
# The tables of README.md.
#
#   scenarios/multi-plane/run.sh                 the 16-host tables (~15 s of CPU)
#   scenarios/multi-plane/run.sh --large         also the 512-rank tables (~15-20 min of CPU)
#   scenarios/multi-plane/run.sh --write ...     also put the tables into README.md
#   scenarios/multi-plane/run.sh --check         check README.md's tables have run.sh's format
#   scenarios/multi-plane/run.sh --out DIR ...   keep the results in DIR (else a temporary one)
#
# Other arguments go to every tusk run (e.g. --seed 2).
#
# 16 hosts (ring-allreduce.toml, spine-failure.toml): the ring all-reduce on 1, 2 and 4 planes
# at equal total bandwidth (each plane's links at 400/N Gb/s, each NIC N ports of 400/N Gb/s)
# under per-plane ECMP (a QP's entropy keeps it on one plane and one path), host spraying
# (every packet a new entropy: a new plane and a new hashed path), source-routed spraying over
# the path set (the NIC names plane and spine; switches forward by the route), the MRC-style
# policy (the same, steering away from bad paths and failing over) and Ethereal-style
# application-split subflows (each transfer split into one QP per route, each QP pinned to its
# route); then, on 4 planes, one plane's leaf-spine link failing mid-step.
#
# 512 ranks (--large; ring-allreduce-512.toml, moe-all-to-all-512.toml): the ring all-reduce
# and the MoE all-to-all on 1, 2, 4 and 8 planes under ecmp, host-spray, mrc and ethereal
# (one subflow per plane: jobs[0].qps_per_connection = planes); then, on 4 planes, plane 1's
# link between leaf 1 and spine 3 failing (link_down) 100 us into the step, and for the ring
# also plane 1's spine 3 failing (switch_down). 44 runs of about 10-40 s of CPU each;
# WORKLOADS="ring" or "moe" runs one of the two, SMALL=0 skips the 16-host runs (so two run.sh
# can share one --out: WORKLOADS=ring SMALL=0 and WORKLOADS=moe).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
TUSK=${TUSK:-./build/bin/tusk}
VARIANT_POLICIES=ecmp,host-spray,source-route,mrc,ethereal
large=0 write=0 out=""
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --large) large=1 ;;
        --write) write=1 ;;
        --check) exec python3 "$here/tables.py" check "$here/README.md" ;;
        --out) out=$2; shift ;;
        *) args+=("$1") ;;
    esac
    shift
done
if [ -z "$out" ]; then
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out/small" "$out/ring" "$out/moe"
compare() { # scenario, destination, policies, tusk options...
    local scenario=$1 dest=$2 policies=$3
    shift 3
    # A run that does not finish (a dead path never left) exits 1; its results are the point.
    "$TUSK" compare -q "$scenario" --policies "$policies" --out "$dest" "$@" \
        ${args[@]+"${args[@]}"} >/dev/null || [ $? -eq 1 ]
}

for n in $([ "${SMALL:-1}" = 1 ] && echo 1 2 4); do
    compare scenarios/multi-plane/ring-allreduce.toml "$out/small/p$n" \
        ecmp,host-spray,source-route,mrc,ethereal \
        --set topology.planes=$n --set topology.fabric_link_gbps=$((400 / n))
done
if [ "${SMALL:-1}" = 1 ]; then
    compare scenarios/multi-plane/spine-failure.toml "$out/small/fail" \
        ecmp,host-spray,source-route,mrc,ethereal --set output.drop_log=true 2>/dev/null
    # Variants: dual-ToR hosts (dual-tor.toml) and the rail-optimised MoE all-to-all of
    # scenarios/moe-all-to-all.toml on 1 and 4 planes.
    compare scenarios/multi-plane/dual-tor.toml "$out/small/dualtor" "$VARIANT_POLICIES"
    for n in 1 4; do
        compare scenarios/moe-all-to-all.toml "$out/small/rail$n" "$VARIANT_POLICIES" \
            --set topology.planes=$n --set topology.fabric_link_gbps=$((400 / n))
    done
fi

if [ "$large" = 1 ]; then
    for wl in ${WORKLOADS:-ring moe}; do
        case $wl in
            ring) scenario=scenarios/multi-plane/ring-allreduce-512.toml ;;
            moe) scenario=scenarios/multi-plane/moe-all-to-all-512.toml ;;
        esac
        for n in 1 2 4 8; do
            plane=(--set topology.planes=$n --set topology.fabric_link_gbps=$((400 / n)))
            compare "$scenario" "$out/$wl/p$n" ecmp,host-spray,mrc "${plane[@]}"
            compare "$scenario" "$out/$wl/p$n-ethereal" ethereal "${plane[@]}" \
                --set "jobs[0].qps_per_connection=$n"
        done
        plane=(--set topology.planes=4 --set topology.fabric_link_gbps=100
               --set output.drop_log=true)
        spine='failures=[{at_us=100, kind="switch_down", switch="p1.spine3"}]'
        link='failures=[{at_us=100, kind="link_down", link="p1.leaf1-p1.spine3"}]'
        kinds="link"
        if [ $wl = ring ]; then kinds="spine link"; fi
        for kind in $kinds; do
            compare "$scenario" "$out/$wl/fail-$kind" ecmp,host-spray,mrc "${plane[@]}" \
                --set "${!kind}" 2>/dev/null
            compare "$scenario" "$out/$wl/fail-$kind-ethereal" ethereal "${plane[@]}" \
                --set "${!kind}" --set "jobs[0].qps_per_connection=4" 2>/dev/null
        done
    done
fi

if [ "$write" = 1 ]; then
    python3 "$here/tables.py" render "$out" --write "$here/README.md"
else
    python3 "$here/tables.py" render "$out"
fi
