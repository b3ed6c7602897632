#!/usr/bin/env python3
"""The README table of scenarios/one-slow-cable from the runs of run.sh (standard library only).

Per workload and policy: CCT healthy and degraded, the ranks delayed by more than 1 %, 10 %,
50 % of a step's ideal time (collectives.csv, docs/results-format.md "waits.csv"), each rank's
total wait summed over the steps (waits.csv: mean and max over ranks), and whether the flow that
ended the collective crossed the slow cable (critical_paths against links.csv).
"""
import csv
import os
import sys

SLOW = ("leaf5", "spine3")


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def run(out, name):
    d = os.path.join(out, name)
    coll = read(os.path.join(d, "collectives.csv"))[0]
    waits = read(os.path.join(d, "waits.csv"))
    per_rank = {}
    for w in waits:
        if w["wait_us"]:
            per_rank[w["rank"]] = per_rank.get(w["rank"], 0.0) + float(w["wait_us"])
    slow_ids = {r["link_id"] for r in read(os.path.join(d, "links.csv"))
                if (r["from"], r["to"]) in (SLOW, SLOW[::-1])}
    crit = coll["critical_paths"]
    crossed = any(l in slow_ids for item in crit.split("|") if item
                  for l in item.split(":")[0].split(">"))
    return {
        "cct": float(coll["cct_us"]) if coll["cct_us"] else float("nan"),
        "d1": int(coll["ranks_delayed_1pct"]), "d10": int(coll["ranks_delayed_10pct"]),
        "d50": int(coll["ranks_delayed_50pct"]), "ranks": int(coll["ranks"]),
        "wait_mean": sum(per_rank.values()) / max(len(per_rank), 1),
        "wait_max": max(per_rank.values(), default=0.0),
        "crossed": crossed, "crit_sd": float(coll["critical_slowdown"] or "nan"),
    }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "results/one-slow-cable"
    print("| workload | policy | CCT healthy µs | CCT degraded µs | × | ranks delayed > 1 % / 10 % / 50 % (healthy) | (degraded) | mean / max wait per rank µs (healthy) | (degraded) | critical flow crosses the slow cable (slowdown) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for wl in ("ring-allreduce", "all-to-all"):
        for policy in ("ecmp", "drill", "spray"):
            try:
                h = run(out, f"{wl}-{policy}-healthy")
                g = run(out, f"{wl}-{policy}-degraded")
            except (OSError, IndexError):
                continue
            print(f"| {wl} | {policy} | {h['cct']:.1f} | {g['cct']:.1f} | {g['cct'] / h['cct']:.2f} "
                  f"| {h['d1']} / {h['d10']} / {h['d50']} | {g['d1']} / {g['d10']} / {g['d50']} "
                  f"| {h['wait_mean']:.1f} / {h['wait_max']:.1f} | {g['wait_mean']:.1f} / {g['wait_max']:.1f} "
                  f"| {'yes' if g['crossed'] else 'no'} ({g['crit_sd']:.2f}) |")


if __name__ == "__main__":
    main()
