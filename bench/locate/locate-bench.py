#!/usr/bin/env python3
"""bench/locate: how often `tusk locate` finds planted faults in real packet-level runs.

Plants faults in a k-ary fat tree (k = 16: 1,024 hosts at 100 Gb/s) — one switch-to-switch
cable at 1/2, 1/4 or 1/10 of its rate, two or three at 1/4 at once, a cable losing 1 % of its
packets, or nothing — at `--placements` seeded random places per case, under each policy
(ECMP and random spraying over selective repeat), for a permutation workload (`--rounds`
rounds of random permutations of `--bytes` per flow) and an all-reduce (ring all-reduces over
the data-parallel groups of one job: 64-rank rings strided over the ToRs). Each (workload,
case) is one `tusk sweep` (docs/sweeps.md) over policy x placement; then `tusk locate --json`
on every run. Reports per case: top-1 (the first class holds a planted cable direction), all in
top-3 (every planted cable among the first three classes), false (runs that named a class
holding no planted cable). Runs are long on 2 cores: keep messages small.

  python3 bench/locate/locate-bench.py --out results/bench-locate            # everything
  python3 bench/locate/locate-bench.py --smoke                               # k = 8, 2 runs
  python3 bench/locate/locate-bench.py --cases quarter,none --workloads permutation \\
      --placements 20 --policies ecmp,spray
  python3 bench/locate/locate-bench.py --evidence paths --policies host-reps,flowlet-ar \\
      --k 8 --cases quarter,none --workloads permutation --placements 20   # per-path telemetry

A case whose sweep fails (a build without one of the failure kinds) is reported as not run.
`--score-only` scores the runs already in --out again, after a change to `tusk locate`.
"""
import argparse
import json
import os
import random
import subprocess
import sys

CASES = {  # name: (number of cables, failure entry without link)
    "none": (0, None),
    "half": (1, {"kind": "degrade", "rate_divisor": 2}),
    "quarter": (1, {"kind": "degrade", "rate_divisor": 4}),
    "tenth": (1, {"kind": "degrade", "rate_divisor": 10}),
    "two-quarter": (2, {"kind": "degrade", "rate_divisor": 4}),
    "three-quarter": (3, {"kind": "degrade", "rate_divisor": 4}),
    "loss-1pct": (1, {"kind": "loss", "loss_rate": 0.01}),
}


def fabric_cables(k):
    """Every switch-to-switch cable of tusk's k-ary fat tree, as (a, b) vertex names."""
    half = k // 2
    out = []
    for pod in range(k):
        for t in range(half):
            for j in range(half):
                out.append(("tor%d" % (pod * half + t), "agg%d" % (pod * half + j)))
        for j in range(half):
            for m in range(half):
                out.append(("agg%d" % (pod * half + j), "core%d" % (j * half + m)))
    return out


def base_scenario(k, workload, rounds, nbytes, seed=1, telemetry=False):
    hosts = k ** 3 // 4
    s = ['name = "bench-locate-%s"' % workload, "seed = 1", "stop_time_ms = 200",
         "[topology]", 'kind = "fat-tree"', "k = %d" % k,
         "[pfc]", "enabled = true", "lossless_priorities = [3]",
         "[nic]", 'receiver = "selective-repeat"', "[lb]", 'policy = "ecmp"']
    if telemetry:  # paths.csv: tusk locate ranks from per-path telemetry (docs/locate.md)
        s += ["[output]", "path_telemetry = true"]
    s += ["[workload]"]
    if workload == "permutation":
        rng = random.Random(seed)
        s.append('kind = "flows"')
        for r in range(rounds):
            while True:
                p = list(range(hosts))
                rng.shuffle(p)
                if all(p[i] != i for i in range(hosts)):
                    break
            for i in range(hosts):
                s += ["[[workload.flows]]", "src = %d" % i, "dst = %d" % p[i],
                      "bytes = %d" % nbytes, "start_us = %.3f" % (r * 40 + rng.uniform(0, 5))]
    else:
        ring = min(64, hosts // (k // 2))
        s += ['kind = "jobs"', "[[jobs]]", 'name = "dp"', "ranks = %d" % hosts,
              "tp = %d" % (hosts // ring), "[[jobs.collectives]]", 'kind = "all-reduce"',
              'group = "dp"', "bytes = %d" % (nbytes * ring)]
    return "\n".join(s) + "\n"


def toml_value(v):
    if isinstance(v, str):
        return '"%s"' % v
    return repr(v)


def sweep_file(name, scenario, policies, case, placements, k):
    count, entry = CASES[case]
    cables = fabric_cables(k)
    lines = ['name = "%s"' % name, 'scenario = "%s"' % scenario, 'combine = "product"',
             "[[axis]]", 'key = "lb.policy"',
             "values = [%s]" % ", ".join('"%s"' % p for p in policies)]
    values, labels, planted = [], [], {}
    for i in range(placements):
        rng = random.Random(1000 * (list(CASES).index(case) + 1) + i)
        chosen = rng.sample(cables, count)
        entries = []
        for a, b in chosen:
            e = dict(entry, at_us=0, link="%s-%s" % (a, b))
            entries.append("{%s}" % ", ".join("%s = %s" % (kk, toml_value(vv))
                                               for kk, vv in e.items()))
        values.append("[%s]" % ", ".join(entries))
        labels.append("p%02d" % i)
        planted["p%02d" % i] = chosen
    lines += ["[[axis]]", 'name = "placement"', 'key = "failures"',
              "values = [%s]" % ", ".join(values),
              "labels = [%s]" % ", ".join('"%s"' % l for l in labels)]
    return "\n".join(lines) + "\n", planted


def write_if_changed(path, text):
    """Write `text` to `path` atomically, and not at all when it is there already: a sweep
    still running from the same --out reads these files."""
    try:
        with open(path) as fh:
            if fh.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(path + ".tmp", "w") as fh:
        fh.write(text)
    os.replace(path + ".tmp", path)


def evaluate(tusk, run_dir, planted, evidence="auto"):
    o = subprocess.run([tusk, "locate", run_dir, "--json", "--top", "3", "--evidence", evidence],
                       capture_output=True, text=True)
    if o.returncode != 0:
        return None
    j = json.loads(o.stdout)
    bad = {frozenset(c) for c in planted}
    ranking = j["ranking"]

    def cables(cls):
        return {frozenset((l["from"], l["to"])) for l in cls["links"]}

    top1 = bool(ranking) and bool(cables(ranking[0]) & bad)
    top3 = set()
    for cls in ranking[:3]:
        top3 |= cables(cls) & bad
    false = any(cls["named"] and not (cables(cls) & bad) for cls in ranking)
    return top1, len(top3) == len(bad), false


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="results/bench-locate")
    ap.add_argument("--k", type=int, default=16, help="fat-tree k (16: 1,024 hosts)")
    ap.add_argument("--placements", type=int, default=20)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--policies", default="ecmp,spray")
    ap.add_argument("--workloads", default="permutation,allreduce")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--bytes", type=int, default=65536, help="bytes per flow / ring step")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--evidence", choices=["flows", "paths"], default="flows",
                    help="paths: runs write paths.csv ([output] path_telemetry) and tusk locate "
                         "ranks from it (for adaptive policies: --policies host-reps,flowlet-ar); "
                         "flows: completion times")
    ap.add_argument("--score-only", action="store_true",
                    help="score the runs already in --out again (after a change to tusk locate); "
                         "run nothing; a run not there is left out")
    ap.add_argument("--smoke", action="store_true",
                    help="k = 8, one placement, the 1/4 case, ECMP, permutation (CI smoke)")
    ap.add_argument("--tusk", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                   "build", "bin", "tusk"))
    a = ap.parse_args()
    if a.smoke:
        a.k, a.placements, a.cases, a.policies, a.workloads = 8, 1, "quarter", "ecmp", \
            "permutation"
    os.makedirs(a.out, exist_ok=True)
    out = os.path.abspath(a.out)
    policies = a.policies.split(",")
    rows = []
    for wl in a.workloads.split(","):
        scen = os.path.join(out, "%s.toml" % wl)
        write_if_changed(scen, base_scenario(a.k, wl, a.rounds, a.bytes,
                                                 telemetry=a.evidence == "paths"))
        for case in a.cases.split(","):
            name = "%s-%s" % (wl, case)
            text, planted = sweep_file(name, scen, policies, case, a.placements, a.k)
            sw = os.path.join(out, name + ".sweep.toml")
            write_if_changed(sw, text)
            r = subprocess.CompletedProcess([], 0) if a.score_only else subprocess.run(
                [a.tusk, "sweep", sw, "-j", str(a.jobs), "--out", os.path.join(out, name)],
                capture_output=True, text=True)
            if r.returncode != 0:
                why = (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]
                print("%s: not run: %s" % (name, why), file=sys.stderr)
                rows.append((wl, case, None, why))
                continue
            for pol in policies:
                hit1 = hit3 = false = n = 0
                for label, cables in planted.items():
                    run_dir = os.path.join(out, name, "policy=%s,placement=%s" % (pol, label))
                    if not os.path.exists(os.path.join(run_dir, "manifest.json")):
                        continue
                    res = evaluate(a.tusk, run_dir, cables, a.evidence)
                    if res is None:
                        continue
                    n += 1
                    hit1 += res[0]
                    hit3 += res[1]
                    false += res[2]
                rows.append((wl, case, pol, (hit1, hit3, false, n)))
    print("| workload | case | policy | top-1 | all in top-3 | false | runs |")
    print("|---|---|---|---|---|---|---|")
    for wl, case, pol, r in rows:
        if pol is None:
            print("| %s | %s | – | not run: %s | | | |" % (wl, case, r))
            continue
        h1, h3, f, n = r
        print("| %s | %s | %s | %s | %d | %d | %d |" % (
            wl, case, pol, "-" if case == "none" else h1, h3, f, n))


if __name__ == "__main__":
    main()
