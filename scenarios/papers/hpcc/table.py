#!/usr/bin/python3
"""The table of README.md from the runs of run.sh: per scenario and congestion control, the mean
over seeds (and the range) of FCT slowdown, queue length and PFC pauses.

Reads each run's flows.csv, timeseries.csv and manifest.json (docs/results-format.md) from
RESULTS/<scenario>-<cc>-s<seed>/. Python's standard library only.
"""
import csv
import json
import math
import os
import statistics
import sys


def nearest_rank(values, q):
    """The q-quantile by nearest rank (values sorted)."""
    return values[max(0, math.ceil(q * len(values)) - 1)]


def busy_queue(run):
    """Mean egress queue (bytes) of switch ports over the samples in which they were busy
    (utilisation >= 0.9): the standing queue where traffic is, not diluted by idle ports."""
    total, n = 0.0, 0
    with open(os.path.join(run, "timeseries.csv")) as f:
        for row in csv.DictReader(f):
            if float(row["util"]) >= 0.9:
                total += int(row["queue_bytes"])
                n += 1
    return total / n if n else 0.0


def port_queue(run, to):
    """Mean and max egress queue (bytes) of the switch port that feeds vertex `to`."""
    q = []
    with open(os.path.join(run, "timeseries.csv")) as f:
        for row in csv.DictReader(f):
            if row["to"] == to:
                q.append(int(row["queue_bytes"]))
    return statistics.mean(q), max(q)


def metrics(run, scenario):
    flows = list(csv.DictReader(open(os.path.join(run, "flows.csv"))))
    manifest = json.load(open(os.path.join(run, "manifest.json")))
    m = {"pauses": manifest["summary"]["pfc_pauses"]}
    if scenario == "permutation":
        sd = sorted(float(f["slowdown"]) for f in flows)
        m["sd_mean"] = statistics.mean(sd)
        m["sd_p99"] = nearest_rank(sd, 0.99)
        m["busy_queue_kb"] = busy_queue(run) / 1e3
    else:
        short = sorted(float(f["slowdown"]) for f in flows if int(f["bytes"]) < 100_000)
        big = [f for f in flows if int(f["bytes"]) >= 100_000]
        m["short_sd_median"] = statistics.median(short)
        m["short_sd_p99"] = nearest_rank(short, 0.99)
        m["incast_done_us"] = max(float(f["finish_us"]) for f in big)
        mean_q, max_q = port_queue(run, "host0")
        m["host0_queue_kb"] = mean_q / 1e3
    return m


COLUMNS = {
    "permutation": [("sd_mean", "FCT slowdown, mean", 2), ("sd_p99", "FCT slowdown, p99", 2),
                    ("busy_queue_kb", "queue at busy ports, mean (kB)", 1),
                    ("pauses", "PFC pauses", 0)],
    "incast": [("short_sd_median", "short flows: slowdown, median", 2),
               ("short_sd_p99", "short flows: slowdown, p99", 2),
               ("incast_done_us", "incast done (us)", 0),
               ("host0_queue_kb", "queue to host 0, mean (kB)", 1),
               ("pauses", "PFC pauses", 0)],
}


def main():
    results = sys.argv[1] if len(sys.argv) > 1 else "results/papers-hpcc"
    runs = sorted(d for d in os.listdir(results) if os.path.isdir(os.path.join(results, d)))
    for scenario in ("permutation", "incast"):
        print(f"{scenario} (mean over seeds, [min, max])\n")
        cols = COLUMNS[scenario]
        print("| control | " + " | ".join(c[1] for c in cols) + " |")
        print("|---|" + "---|" * len(cols))
        for cc in ("hpcc", "dcqcn", "none"):
            seeds = [d for d in runs if d.startswith(f"{scenario}-{cc}-s")]
            if not seeds:
                continue
            ms = [metrics(os.path.join(results, d), scenario) for d in seeds]
            cells = []
            for key, _, digits in cols:
                v = [m[key] for m in ms]
                fmt = f"{{:.{digits}f}}"
                cells.append(f"{fmt.format(statistics.mean(v))} [{fmt.format(min(v))}, "
                             f"{fmt.format(max(v))}]")
            print(f"| {cc} ({len(ms)} seeds) | " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main()
