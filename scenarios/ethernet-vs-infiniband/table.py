#!/usr/bin/env python3
"""The README table of scenarios/ethernet-vs-infiniband from the runs of run.sh (standard
library only).

Per workload and stack: the collective's CCT (collectives.csv; for the permutation, the time
its last flow finished), the 99th-percentile and largest slowdown of the workload's flows
(flows.csv, background flows apart), the background flows' p99 slowdown, fabric drops (links.csv,
every drops_* column but nic_stale), PFC pauses sent (pfc_pause_tx) and the time ports waited
for InfiniBand credit (credit_stall_us), both summed over links.
"""
import csv
import math
import os
import sys

WORKLOADS = ("allreduce", "alltoall", "permutation")
STACKS = ("roce-dcqcn-ecmp", "uec-rud-spray", "ib-static", "ib-ar")


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def p99(values):
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, math.ceil(0.99 * len(v)) - 1)]


def summarise(out, name):
    d = os.path.join(out, name)
    flows = read(os.path.join(d, "flows.csv"))
    links = read(os.path.join(d, "links.csv"))
    main = [f for f in flows if f["background"] == "0"]
    bg = [f for f in flows if f["background"] == "1"]
    coll = read(os.path.join(d, "collectives.csv")) if os.path.exists(
        os.path.join(d, "collectives.csv")) else []
    if coll and coll[0]["cct_us"]:
        cct = float(coll[0]["cct_us"])
    else:
        cct = max(float(f["finish_us"]) for f in main) - min(float(f["start_us"]) for f in main)
    drops = sum(int(v) for l in links for k, v in l.items()
                if k.startswith("drops_") and k != "drops_nic_stale")
    return {
        "cct": cct,
        "p99": p99([float(f["slowdown"]) for f in main]),
        "max": max(float(f["slowdown"]) for f in main),
        "bg": p99([float(f["slowdown"]) for f in bg]),
        "drops": drops,
        "pauses": sum(int(l["pfc_pause_tx"]) for l in links),
        "stall": sum(float(l.get("credit_stall_us") or 0) for l in links),
        "ib": "credit_stall_us" in links[0],
    }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "results/ethernet-vs-infiniband"
    print("| workload | stack | CCT µs | slowdown p99 / max | background p99 slowdown | drops | PFC pauses | credit stall µs (all ports) |")
    print("|---|---|---|---|---|---|---|---|")
    for wl in WORKLOADS:
        for stack in STACKS:
            try:
                s = summarise(out, f"{wl}-{stack}")
            except (OSError, IndexError, ValueError):
                continue
            bg = "" if math.isnan(s["bg"]) else f"{s['bg']:.2f}"
            stall = f"{s['stall']:.0f}" if s["ib"] else "—"
            pauses = "—" if s["ib"] else str(s["pauses"])
            print(f"| {wl} | {stack} | {s['cct']:.1f} | {s['p99']:.2f} / {s['max']:.2f} | {bg} "
                  f"| {s['drops']} | {pauses} | {stall} |")


if __name__ == "__main__":
    main()
