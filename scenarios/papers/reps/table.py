#!/usr/bin/python3
"""The tables of README.md from run.sh's two sweeps (docs/sweeps.md).

Usage: table.py RESULTS_ROOT (holding papers-reps-permutation/ and papers-reps-failure/).

Permutation: FCT slowdown p99 and max and the permutation's completion (fct_max_us) per policy,
mean over seeds with the 95 % Student-t half-width and range (../sweep_table.py).
Failure: per policy and retransmission timeout, from each run's timeseries.csv (10 us samples of
every switch egress port) and summary:
  - recovery (us): leaf0's traffic on its three surviving uplinks first falls below 90 % of
    their capacity (3 x 800 Gb/s x 10 us = 3 MB per sample) after the failure; recovery is from
    the failure to the first sample after that dip back at 90 % or more; not counted if that
    does not happen before routing reconverges (failure + reconvergence_us);
  - surviving uplinks used: leaf0's bytes on them from the failure to reconvergence over their
    capacity in that time;
  - bytes to the dead path: what leaf0 sent to spine1 (all of it bound for leaf1, dropped there)
    from the failure to reconvergence;
  - the flows' completion (fct_max_us) and the packets dropped at the dead link.
Exits 1 if a run is missing or not ok.
"""
import math
import sys
from pathlib import Path

# sweep_table.py: beside this folder in a checkout, else on PYTHONPATH (sweeps.sh puts an
# installed tusk's share/tusk/papers there); it finds tusk_analysis the same way.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sweep_table import fmt, load, table  # noqa: E402
from tusk_analysis.stats import mean_ci  # noqa: E402
import pandas as pd  # noqa: E402  (after sweep_table: a missing one is named)

FAIL_US = 100.0       # failure.toml's [[failures]] at_us
RECONVERGE_US = 1000.0  # tusk's default routing.reconvergence_us
SURVIVING_BYTES = 3 * 800e9 / 8 * 10e-6  # three 800 Gb/s uplinks, one 10 us sample


def failure_metrics(run_dir):
    ts = pd.read_csv(Path(run_dir) / "timeseries.csv")
    ts = ts[(ts["from"] == "leaf0") & ts["to"].str.startswith("spine")]
    per = ts.pivot_table(index="time_us", columns="to", values="tx_bytes", aggfunc="sum")
    after = per[(per.index > FAIL_US) & (per.index <= FAIL_US + RECONVERGE_US)]
    good = after.drop(columns="spine1").sum(axis=1)
    low = good[good < 0.9 * SURVIVING_BYTES]
    recovery = math.nan
    if len(low):
        ok = good[(good.index > low.index[0]) & (good >= 0.9 * SURVIVING_BYTES)]
        recovery = float(ok.index[0] - FAIL_US) if len(ok) else math.nan
    use = float(good.sum()) / (SURVIVING_BYTES * len(good))
    links = pd.read_csv(Path(run_dir) / "links.csv")
    return recovery, use, float(after["spine1"].sum()), int(links["drops_link_down"].sum())


def failure_table(root):
    sweep = Path(root) / "papers-reps-failure"
    df = load(sweep, [])
    rows = ["| policy | RTO (µs) | recovery (µs), mean (min–max) | runs recovered | "
            "surviving uplinks used | "
            "bytes to the dead path (MB) | completion fct_max_us | packets dropped at the dead link |",
            "|---|---|---|---|---|---|---|---|"]
    for rto in ["100", "50"]:
        for pol in ["ecmp", "host-spray", "host-reps"]:
            part = df[(df["policy"] == pol) & (df["rto_us"] == rto)]
            rec, use, dead, drops = [], [], [], []
            for rid in part["run_id"]:
                r, u, d, n = failure_metrics(sweep / rid)
                rec.append(r)
                use.append(u)
                dead.append(d / 1e6)
                drops.append(n)
            got = [r for r in rec if not math.isnan(r)]
            rec_s = (f"{fmt(sum(got) / len(got))} ({fmt(min(got))}–{fmt(max(got))})"
                     if got else "never")
            fct = part["fct_max_us"].astype(float)
            m, hw = mean_ci(list(fct))
            rows.append(f"| `{pol}` | {rto} | {rec_s} | {len(got)} of {len(rec)} "
                        f"| {sum(use) / len(use):.2f} ({min(use):.2f}–{max(use):.2f}) "
                        f"| {fmt(sum(dead) / len(dead))} ({fmt(min(dead))}–{fmt(max(dead))}) "
                        f"| {fmt(m)} ± {fmt(hw)} ({fmt(fct.min())}–{fmt(fct.max())}) "
                        f"| {fmt(sum(drops) / len(drops))} ({fmt(min(drops))}–{fmt(max(drops))}) |")
    return rows


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    root = argv[1]
    perm = load(Path(root) / "papers-reps-permutation", [])
    print("## Permutation (permutation.toml), seeds 1-3\n")
    print("\n".join(table(perm, "policy", ["slowdown_p99", "slowdown_max", "fct_max_us"],
                          base="ecmp", order=["ecmp", "host-spray", "host-reps"])))
    print("\n## Link failure (failure.toml), seeds 1-3\n")
    print("\n".join(failure_table(root)))


if __name__ == "__main__":
    main(sys.argv)
