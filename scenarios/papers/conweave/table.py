#!/usr/bin/env python3
"""Print the table of README.md from the sweep's sweep.csv (docs/sweeps.md).

Usage: table.py SWEEP_DIR (run.sh writes RESULTS_ROOT/papers-conweave). Per fabric (lossless,
lossy) and policy: the FCT slowdown's mean and nearest-rank p99 of each run (the summary's
`slowdown_mean`, `slowdown_p99`), averaged over the seeds with their range; ConWeave's
reduction against ECMP per seed (1 - ConWeave / ECMP, the paper's "x % lower"), with its range;
out-of-order arrivals, retransmitted packets, drops and PFC pauses per run. Exits 1 if a run is
missing or did not succeed.
"""
import sys
from pathlib import Path

import pandas as pd


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    path = Path(argv[1]) / "sweep.csv"
    df = pd.read_csv(path)
    bad = df[df["status"] != "ok"]
    if len(bad):
        sys.exit(f"table.py: {path}: runs not ok: {', '.join(bad['run_id'])}")
    print("| fabric | policy | mean slowdown (min–max) | p99 slowdown (min–max) "
          "| out-of-order packets | retransmitted packets | drops | PFC pauses |")
    print("|---|---|---|---|---|---|---|---|")
    red = []
    for fabric in ["lossless", "lossy"]:
        part = df[df["fabric"] == fabric]
        for policy in ["ecmp", "conweave"]:
            r = part[part["policy"] == policy]
            if r.empty:
                sys.exit(f"table.py: {path}: no {policy} runs on the {fabric} fabric")
            m, p = r["slowdown_mean"], r["slowdown_p99"]
            print(f"| {fabric} | `{policy}` | {m.mean():.2f} ({m.min():.2f}–{m.max():.2f}) "
                  f"| {p.mean():.1f} ({p.min():.1f}–{p.max():.1f}) "
                  f"| {r['ooo_packets'].mean():,.0f} | {r['retx_packets'].mean():,.0f} "
                  f"| {r['drops'].mean():,.0f} | {r['pfc_pauses'].mean():,.0f} |")
        e = part[part["policy"] == "ecmp"].set_index("seed")
        c = part[part["policy"] == "conweave"].set_index("seed")
        for col, name in [("slowdown_mean", "mean"), ("slowdown_p99", "p99")]:
            x = 1 - c[col] / e[col]
            red.append(f"| {fabric} | {name} | {100 * x.mean():.1f} % "
                       f"({100 * x.min():.1f} to {100 * x.max():.1f} %) | {len(x)} |")
    print("\nConWeave's FCT slowdown lower than ECMP's by (1 - ConWeave / ECMP, per seed):\n")
    print("| fabric | slowdown | mean over seeds (min to max) | seeds |")
    print("|---|---|---|---|")
    print("\n".join(red))


if __name__ == "__main__":
    main(sys.argv)
