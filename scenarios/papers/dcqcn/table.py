#!/usr/bin/python3
"""The tables of README.md from run.sh's two sweeps (docs/sweeps.md).

Usage: table.py RESULTS_ROOT (holding papers-dcqcn-two-flows/ and papers-dcqcn-unfairness/).

Two flows (two-flows.toml, per seed, then the mean with the 95 % Student-t half-width):
  - the short flow's throughput: 60 MB / its FCT (Gb/s of payload; its fair share while both
    run is half the port);
  - recovery: from the short flow's last byte until the first 500 us sample in which the
    receiver's port (leaf0 -> host2) is at least 95 % busy again, i.e. the long flow alone at
    line rate (timeseries.csv `util`, wire bytes);
  - the long flow alone: the port's frame bytes (headers included) in the samples after the
    short flow's end over the time from the first of them to the long flow's finish_us.
Unfairness (pfc-unfairness.toml, DCQCN and PFC only): Jain's index of the five flows'
throughputs (bytes / FCT), the local flow's throughput over the remote flows' mean, and the
port's utilisation: all bytes over the last finish at 100 Gb/s of payload.
Exits 1 if a run is missing or not ok.
"""
import sys
from pathlib import Path

# sweep_table.py: beside this folder in a checkout, else on PYTHONPATH (sweeps.sh puts an
# installed tusk's share/tusk/papers there); it finds tusk_analysis the same way.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sweep_table import fmt, load  # noqa: E402
from tusk_analysis.stats import mean_ci  # noqa: E402
import pandas as pd  # noqa: E402  (after sweep_table: a missing one is named)


def cell(values, digits=None):
    m, hw = mean_ci(values)
    if digits is not None:
        return f"{m:.{digits}f} ± {hw:.{digits}f} ({min(values):.{digits}f}–{max(values):.{digits}f})"
    return f"{fmt(m)} ± {fmt(hw)} ({fmt(min(values))}–{fmt(max(values))})"


def two_flows(run):
    f = pd.read_csv(run / "flows.csv")
    short = f[f["bytes"] == f["bytes"].min()].iloc[0]
    long_ = f[f["bytes"] == f["bytes"].max()].iloc[0]
    short_gbps = short["bytes"] * 8 / (short["fct_us"] * 1e3)
    ts = pd.read_csv(run / "timeseries.csv")
    port = ts[(ts["from"] == "leaf0") & (ts["to"] == "host2")]
    after = port[(port["time_us"] - 500 >= short["finish_us"]) & (port["util"] >= 0.95)]
    recovery_ms = (after["time_us"].iloc[0] - short["finish_us"]) / 1e3 if len(after) else float("nan")
    # The long flow is alone on the port from the short one's end: the port's frame bytes in the
    # samples that start after it, over the time from the first of them to the long flow's end.
    alone = port[port["time_us"] - 500 >= short["finish_us"]]
    alone_us = long_["finish_us"] - (alone["time_us"].iloc[0] - 500)
    long_gbps = alone["tx_bytes"].sum() * 8 / (alone_us * 1e3)
    return short_gbps, recovery_ms, long_gbps


def unfairness(run):
    f = pd.read_csv(run / "flows.csv")
    tput = f["bytes"] * 8 / (f["fct_us"] * 1e3)
    jain = tput.sum() ** 2 / (len(tput) * (tput ** 2).sum())
    local = tput[f["src"] == 4].iloc[0]
    remote = tput[f["src"] != 4].mean()
    util = f["bytes"].sum() * 8 / (f["finish_us"].max() * 1e3) / 100.0
    return jain, local / remote, util


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    root = Path(argv[1])
    sweep = root / "papers-dcqcn-two-flows"
    df = load(sweep, [])
    rows = [two_flows(sweep / rid) for rid in df["run_id"]]
    print("## Two flows (two-flows.toml), seeds 1-3: mean ± 95 % CI (min–max)\n")
    print("| short flow's throughput (Gb/s) | recovery after it ends (ms) | long flow alone (Gb/s on the wire) |")
    print("|---|---|---|")
    print("| " + " | ".join(cell([r[i] for r in rows]) for i in range(3)) + " |")
    sweep = root / "papers-dcqcn-unfairness"
    df = load(sweep, [])
    print("\n## PFC unfairness (pfc-unfairness.toml), seeds 1-3: mean ± 95 % CI (min–max)\n")
    print("| control | Jain's index | local / remote flow throughput | port utilisation |")
    print("|---|---|---|---|")
    for cc in ["dcqcn", "pfc-only"]:
        rows = [unfairness(sweep / rid) for rid in df[df["cc"] == cc]["run_id"]]
        print(f"| `{cc}` | " + " | ".join(cell([r[i] for r in rows], 3) for i in range(3)) + " |")


if __name__ == "__main__":
    main(sys.argv)
