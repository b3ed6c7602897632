#!/usr/bin/env python3
"""Print the baselines table of README.md from baselines.sweep.toml's sweep.csv.

Usage: baselines_table.py SWEEP_DIR (run-baselines.sh writes RESULTS_ROOT/papers-conweave-baselines).
Per workload (AliCloud storage, Meta Hadoop) and policy, in the order the ConWeave paper plots
them: the FCT slowdown's mean and nearest-rank p99 of each run (the summary's `slowdown_mean`,
`slowdown_p99`) averaged over the seeds with their range, each as a ratio to ECMP's of the same
seed (mean over seeds), and per run (mean over seeds) the packets that arrived out of order, the
packets resent, those resent by the retransmission timer, ECN marks and the uplink imbalance
(most loaded uplink's bytes / the mean's). Exits 1 if a run did not succeed or a policy lacks a seed ECMP has (or the reverse).
"""
import sys
from pathlib import Path

import pandas as pd

POLICIES = ["ecmp", "conga", "letflow", "drill", "conweave"]
WORKLOADS = {"alistorage": "AliCloud storage (AliStorage2019)",
             "hadoop": "Meta Hadoop (FbHdp)"}


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    path = Path(argv[1]) / "sweep.csv"
    df = pd.read_csv(path)
    bad = df[df["status"] != "ok"]
    if len(bad):
        sys.exit(f"baselines_table.py: {path}: runs not ok: {', '.join(bad['run_id'])}")
    print("| workload | policy | mean slowdown (min–max) | / ECMP | p99 slowdown (min–max) "
          "| / ECMP | out-of-order packets | resent (by timer) | ECN marks | uplink imbalance |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for cdf, label in WORKLOADS.items():
        part = df[df["cdf"] == cdf]
        ecmp = part[part["policy"] == "ecmp"].set_index("seed")
        for policy in POLICIES:
            r = part[part["policy"] == policy].set_index("seed")
            if r.empty or ecmp.empty or sorted(r.index) != sorted(ecmp.index):
                sys.exit(f"baselines_table.py: {path}: {policy} and ecmp on {cdf} do not have "
                         f"the same seeds ({sorted(r.index)} against {sorted(ecmp.index)})")
            m, p = r["slowdown_mean"], r["slowdown_p99"]
            rm = (m / ecmp["slowdown_mean"]).mean()
            rp = (p / ecmp["slowdown_p99"]).mean()
            print(f"| {label} | `{policy}` | {m.mean():.2f} ({m.min():.2f}–{m.max():.2f}) "
                  f"| {rm:.2f} | {p.mean():.1f} ({p.min():.1f}–{p.max():.1f}) | {rp:.2f} "
                  f"| {r['ooo_packets'].mean():,.0f} | {r['retx_packets'].mean():,.0f} "
                  f"({r['retx_timeout_packets'].mean():,.0f}) | {r['ecn_marks'].mean():,.0f} "
                  f"| {r['uplink_imbalance'].mean():.2f} |")


if __name__ == "__main__":
    main(sys.argv)
