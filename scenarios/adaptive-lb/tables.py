#!/usr/bin/env python3
"""Print the tables of README.md from the two sweeps' sweep.csv (docs/sweeps.md).

Usage: tables.py RESULTS_ROOT, the directory holding adaptive-lb-8x8-2to1/ and
adaptive-lb-4x4/ (run.sh writes them). Per policy and setup: the FCT slowdown's mean and
nearest-rank p99 of each run (the summary's `slowdown_mean`, `slowdown_p99`), averaged over
the seeds with their range, each relative to ECMP's average, and the mean retransmitted data
packets per run. Exits 1 if a run is missing or did not succeed.
"""
import sys
from pathlib import Path

import pandas as pd


def load(root, name, seeds=(1, 2, 3)):
    path = Path(root) / name / "sweep.csv"
    df = pd.read_csv(path)
    bad = df[df["status"] != "ok"]
    if len(bad):
        sys.exit(f"tables.py: {path}: runs not ok: {', '.join(bad['run_id'])}")
    if sorted(df["seed"].unique()) != list(seeds):
        sys.exit(f"tables.py: {path}: expected seeds {list(seeds)}")
    return df


def table(df, policies):
    """Markdown table of one setup (the rows of df), one row per policy in `policies` order."""
    agg = df.groupby("policy").agg(
        mean=("slowdown_mean", "mean"), mean_lo=("slowdown_mean", "min"),
        mean_hi=("slowdown_mean", "max"), p99=("slowdown_p99", "mean"),
        p99_lo=("slowdown_p99", "min"), p99_hi=("slowdown_p99", "max"),
        retx=("retx_packets", "mean"))
    base = agg.loc["ecmp"]
    lines = ["| policy | mean slowdown (min–max) | p99 slowdown (min–max) | vs ECMP mean / p99 "
             "| retransmitted packets per run |",
             "|---|---|---|---|---|"]
    for p in policies:
        r = agg.loc[p]
        lines.append(f"| `{p}` | {r['mean']:.2f} ({r.mean_lo:.2f}–{r.mean_hi:.2f}) "
                     f"| {r.p99:.1f} ({r.p99_lo:.1f}–{r.p99_hi:.1f}) "
                     f"| {r['mean'] / base['mean']:.2f} / {r.p99 / base.p99:.2f} "
                     f"| {r.retx:,.0f} |")
    return "\n".join(lines)


def ratios(df, policies):
    """{policy: 'mean / p99'} relative to ECMP, for the summary table."""
    agg = df.groupby("policy")[["slowdown_mean", "slowdown_p99"]].mean()
    b = agg.loc["ecmp"]
    return {p: f"{agg.loc[p, 'slowdown_mean'] / b.slowdown_mean:.2f} / "
               f"{agg.loc[p, 'slowdown_p99'] / b.slowdown_p99:.2f}" for p in policies}


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    root = argv[1]
    big = load(root, "adaptive-lb-8x8-2to1")
    pol8 = ["ecmp", "conga", "letflow", "drill", "ar", "flowlet-ar"]
    for recv in ["go-back-n", "selective-repeat"]:
        print(f"## 8 x 8, 2:1, DCQCN + PFC, receiver {recv}\n")
        print(table(big[big["receiver"] == recv], pol8) + "\n")
    small = load(root, "adaptive-lb-4x4")
    pol4 = ["ecmp", "ar", "drill", "spray", "flowlet-ar", "conga", "letflow"]
    cols = []
    for cc in ["pfc", "dcqcn"]:
        for load_ in [0.5, 0.8]:
            part = small[(small["cc"] == cc) & (small["load"] == load_)]
            title = "PFC only" if cc == "pfc" else "DCQCN"
            print(f"## 4 x 4, load {load_}, {title}\n")
            print(table(part, pol4) + "\n")
            cols.append((f"load {load_}, {title}", ratios(part, pol4)))
    print("## 4 x 4 relative to ECMP (mean / p99)\n")
    print("| policy | " + " | ".join(c for c, _ in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for p in pol4[1:]:
        print(f"| `{p}` | " + " | ".join(r[p] for _, r in cols) + " |")


if __name__ == "__main__":
    main(sys.argv)
