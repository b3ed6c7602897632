#!/usr/bin/python3
"""Which flows of a DCQCN permutation run fell below 2 Gb/s, by how many flows shared their
busiest fabric link (ns3-modules/rdma/doc/dcqcn-hpcc-simulator.md, "Fat-tree permutation").

    scenarios/papers/hpcc/collisions.py RUN_DIR...      # runs with [output] cc_trace = true
    scenarios/papers/hpcc/collisions.py --random-ecmp   # the same count for ideal random ECMP

For each flow of a run: the directed fabric links of its path (flows.csv `path`, walked over
links.csv from host<src>; the host's own uplink and the receiver's downlink left out: in a
permutation neither is shared), the largest number of flows on any of them ("share"), and its
QP's smallest DCQCN rate in cc_trace.csv. A flow alone on every fabric link it crosses is never
marked. `--random-ecmp` draws 2,000 random derangements of a k = 8 fat tree's 128 hosts and a
uniformly random up-path per flow (what any per-flow ECMP hash gives on average, independent of
tusk) and prints how many flows share no fabric link.
"""
import argparse
import collections
import random
import statistics
import sys

import pandas as pd


def read(run, name, columns):
    """RUN/NAME as a DataFrame; a ValueError naming the file when a column is missing."""
    frame = pd.read_csv(f"{run}/{name}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{name} has no column {', '.join(missing)}")
    return frame


def directed_paths(run):
    flows = read(run, "flows.csv", ["flow_id", "src", "path"])
    links = read(run, "links.csv", ["link_id", "from", "to"])
    if flows.src.duplicated().any():
        raise ValueError(f"flows.csv: host {flows.src[flows.src.duplicated()].iloc[0]} sends "
                         "more than one flow (collisions.py reads permutations: one flow a host)")
    unrouted = flows.path.isna() | (flows.path.astype(str).str.strip() == "")
    if unrouted.any():
        raise ValueError(f"flows.csv: flow {flows.flow_id[unrouted].iloc[0]} has no single "
                         "`path` (a spraying policy or several QPs a flow; collisions.py reads "
                         "per-flow ECMP runs)")
    ends = collections.defaultdict(dict)
    for lid, a, b in zip(links.link_id, links["from"], links["to"]):
        ends[int(lid)][a] = b
    paths = {}
    for src, path in zip(flows.src, flows.path):
        at, hops = f"host{src}", []
        for lid in str(path).split(">"):
            nxt = ends[int(lid)][at]
            hops.append((at, nxt))
            at = nxt
        paths[int(src)] = hops[1:-1]
    return paths


def table(run):
    paths = directed_paths(run)
    load = collections.Counter(h for hops in paths.values() for h in hops)
    trace = read(run, "cc_trace.csv", ["src", "rate_gbps"])
    lowest = trace.groupby("src").rate_gbps.min()
    rows = collections.defaultdict(lambda: [0, 0])
    for src, hops in paths.items():
        share = max((load[h] for h in hops), default=1)
        rows[share][0] += 1
        rows[share][1] += bool(lowest.get(src, float("inf")) < 2.0)
    return rows


def random_ecmp(k=8, draws=2000, seed=1):
    rnd = random.Random(seed)
    hosts, per_edge, half = k ** 3 // 4, k // 2, k // 2
    alone = []
    for _ in range(draws):
        while True:
            dst = list(range(hosts))
            rnd.shuffle(dst)
            if all(d != s for s, d in enumerate(dst)):
                break
        load, paths = collections.Counter(), []
        for s, d in enumerate(dst):
            es, ed = s // per_edge, d // per_edge
            ps, pd_ = es // half, ed // half
            hops = []
            if es != ed:
                agg = rnd.randrange(half)
                hops.append(("edge-up", es, agg))
                if ps != pd_:
                    core = rnd.randrange(half)
                    hops += [("agg-up", ps, agg, core), ("core-down", agg, core, pd_)]
                hops.append(("agg-down", pd_, agg, ed))
            paths.append(hops)
            load.update(hops)
        alone.append(sum(all(load[h] == 1 for h in hops) for hops in paths))
    alone.sort()
    return statistics.mean(alone), alone[len(alone) // 20], alone[len(alone) * 19 // 20], alone[-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="*", help="results folders of DCQCN runs with cc_trace.csv")
    ap.add_argument("--random-ecmp", action="store_true",
                    help="flows of a k = 8 permutation alone on their fabric links, random ECMP")
    a = ap.parse_args()
    if not a.runs and not a.random_ecmp:
        ap.error("give results folders, or --random-ecmp")
    if a.random_ecmp:
        mean, p5, p95, top = random_ecmp()
        print(f"random ECMP, k = 8, 2000 permutations: flows alone on every fabric link: "
              f"mean {mean:.1f}, 5-95 % {p5}-{p95}, max {top} (of 128)")
    for run in a.runs:
        try:
            rows = table(run)
        except (OSError, KeyError, ValueError) as e:
            print(f"collisions.py: {run}: {e} (a results folder of a permutation run with "
                  "[output] cc_trace = true?)", file=sys.stderr)
            sys.exit(2)
        cells = ", ".join(f"{s}: {n[1]}/{n[0]}" for s, n in sorted(rows.items()))
        total = sum(n[1] for n in rows.values())
        print(f"{run}: below 2 Gb/s by flows on the busiest fabric link: {cells}; "
              f"{total} of {sum(n[0] for n in rows.values())}")


if __name__ == "__main__":
    main()
