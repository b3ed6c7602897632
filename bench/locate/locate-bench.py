#!/usr/bin/python3
"""bench/locate: how often `tusk locate` finds planted faults in real packet-level runs.

Plants faults in a k-ary fat tree (`--k`; 8: 128 hosts, 16: 1,024 hosts, at 100 Gb/s, PFC,
selective repeat) — one switch-to-switch cable at 1/2, 1/4 or 1/10 of its rate, two or three at
1/4 at once, a cable losing 1 % of its packets, or nothing — at `--placements` seeded random
places per case, under each policy (`--policies`, `tusk policies` names: ECMP, switch random
spraying, host OPS and REPS, flowlet AR, DRILL, ConWeave), for a permutation workload
(`--rounds` rounds of random permutations of `--bytes` per flow) and an all-reduce (ring
all-reduces over the data-parallel groups of one job: 64-rank rings strided over the ToRs, 32
at k = 8). Every run writes per-path and switch AR telemetry (paths.csv, ar.csv) unless
`--evidence flows`; `--path-telemetry route` writes paths.csv per route (`path_telemetry =
"route"`: one row per QP, entropy and route its frames took), and the default `auto` does so
for the policies whose switches spread a QP's frames per packet (switch spraying, DRILL) and
writes it per entropy for the others. Each
(workload, case) is one `tusk sweep` (docs/sweeps.md) over policy x placement, run under
`nice`; then `tusk locate --json --evidence E` on every run. Reports per policy and case:
top-1 (the first class holds a planted cable direction, named or not), named first (and that
class is named), all in top-3 (every planted cable among the first three classes), false
(runs that named a class holding no planted cable), each
as a count with its 95 % Wilson interval (scipy), and the evidence locate used. Runs are long
on 2 cores: keep messages small.

Dark placements (since 2026-12-06). A fault on a cable that carried none of the run's data is
invisible to any end-to-end method, so each placement is also judged from the run's own
links.csv (`tx_frames`, `tx_bytes` of both directions of every planted cable). The scorer may
read it; `tusk locate` never does (docs/locate.md). A direction carried data when its bytes
hold at least one data frame beyond what its frames would weigh as control frames: (tx_bytes
- 66 B x tx_frames) / (MTU + 62 - 66 B) >= 1 (an ACK, NAK or CNP is 66 B on the wire, a data
frame MTU + 62 B of headers; the MTU from the manifest, 4,096 B if absent; a control frame
larger than 66 B only makes a direction look less dark). A placement is dark when every
direction of every planted cable carried no data (ACKs alone, or nothing) in its run (pooled:
in every run pooled). The table adds: dark (placements), top-1 among the observable ones
(with its Wilson interval), and for the dark ones how many locate answered rightly (named
nothing and listed both directions of the cable in `unobserved_links`) and how many it named
a class in (a false name: no flow crossed the cable).

  python3 bench/locate/locate-bench.py --out results/bench-locate --k 8      # 128 hosts
  python3 bench/locate/locate-bench.py --smoke                               # k = 8, 2 runs
  python3 bench/locate/locate-bench.py --cases quarter,none --workloads permutation \\
      --placements 20 --policies ecmp,host-reps --k 8

A case whose sweep fails (a build without one of the failure kinds) is reported as not run; a
run that failed (unfinished transfers at the stop time: its results are written) is scored.
`--score-only` scores the runs already in --out again, after a change to `tusk locate`;
`--first-placement N` draws placements N.. (fresh ones, to check a change to locate on
placements it was not tuned on). `--json FILE` writes every run's outcome. `--pool K` runs
every placement with seeds 1..K (the same fabric, fault and traffic over K steps) and scores
`tusk locate` on the first N runs of each placement located together (their evidence pooled,
`tusk locate DIR DIR ...`) for each N of `--pool-sizes` (default 1 and K): one row per N.
Every placement runs its own seeds (placement i: i K + 1 .. i K + K; K = 1 without --pool),
with or without a fault: the runs of one seed draw the same random numbers (a lossy link's
FCS draws, the policies' choices) whichever cable is planted, so placements sharing a seed are
not independent samples (`--shared-seeds`: seeds 1..K for every fault placement, as the
tables measured before 2026-12-06 ran).
"""
import argparse
import csv
import json
import os
import random
import subprocess
import sys
import time

# Debian's python3 has scipy (helper rules: no pip); another python3 first on PATH (pyenv) may
# not: run under /usr/bin/python3 whatever `python3` was.
_DEBIAN_PYTHON = "/usr/bin/python3"
if (os.path.exists(_DEBIAN_PYTHON) and sys.executable
        and os.path.realpath(sys.executable) != os.path.realpath(_DEBIAN_PYTHON)
        and not os.environ.get("TUSK_LOCATE_BENCH_REEXEC")):
    os.environ["TUSK_LOCATE_BENCH_REEXEC"] = "1"
    os.execv(_DEBIAN_PYTHON, [_DEBIAN_PYTHON] + sys.argv)

from scipy.stats import binomtest  # noqa: E402

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


def probes_section(spec, spacing="periodic"):
    """The [probes] lines of --probes BYTES@INTERVAL_US[@UNTIL_US[@TARGETSxENTROPIES]]
    [+LARGE_BYTES@LARGE_INTERVAL_US], or none for ""."""
    if not spec:
        return []
    usage = ("--probes: expected BYTES@INTERVAL_US[@UNTIL_US[@TARGETSxENTROPIES]]"
             "[+LARGE_BYTES@LARGE_INTERVAL_US]; got %r" % spec)
    small, _, large = spec.partition("+")
    parts = small.split("@")
    if len(parts) not in (2, 3, 4):
        raise ValueError(usage)
    out = ["[probes]", "bytes = %d" % int(parts[0]), "interval_us = %s" % float(parts[1])]
    if len(parts) >= 3:
        out.append("until_us = %s" % float(parts[2]))
    if len(parts) == 4:
        targets, entropies = parts[3].split("x")
        out += ["targets = %d" % int(targets), "entropies = %d" % int(entropies)]
    if large:
        lparts = large.split("@")
        if len(lparts) != 2:
            raise ValueError(usage)
        out += ["large_bytes = %d" % int(lparts[0]),
                "large_interval_us = %s" % float(lparts[1])]
    if spacing != "periodic":
        out.append('spacing = "%s"' % spacing)
    return out


def base_scenario(k, workload, rounds, nbytes, seed=1, telemetry=False, path_telemetry="true",
                  probes="", probe_spacing="periodic"):
    hosts = k ** 3 // 4
    s = ['name = "bench-locate-%s"' % workload, "seed = 1", "stop_time_ms = 200",
         "[topology]", 'kind = "fat-tree"', "k = %d" % k,
         "[pfc]", "enabled = true", "lossless_priorities = [3]",
         "[nic]", 'receiver = "selective-repeat"', "[lb]", 'policy = "ecmp"']
    if telemetry:  # paths.csv and ar.csv: tusk locate ranks from them (docs/locate.md)
        s += ["[output]", "path_telemetry = %s" % path_telemetry, "ar_telemetry = true"]
    # A frame lost at a transfer's tail (the loss cases) is resent after the NIC's
    # retransmission timeout, 67 ms by default as on RoCE NICs (nic.rto_us): the watchdog
    # waits longer than that instead of stopping such a run at its default 20 ms.
    # Monitoring probes between the NICs (--probes; docs/locate.md, "From probes").
    s += probes_section(probes, probe_spacing)
    s += ["[workload]", "watchdog_ms = 100"]
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


def sweep_file(name, scenario, policies, case, placements, k, first=0, seeds=1,
               shared_seeds=False, path_telemetry=None):
    """The sweep over policy x placement; `path_telemetry`: None (the base scenario's for
    every policy) or {policy: TOML value of [output] path_telemetry}."""
    count, entry = CASES[case]
    cables = fabric_cables(k)
    lines = ['name = "%s"' % name, 'scenario = "%s"' % scenario, 'combine = "product"',
             "[[axis]]"]
    if path_telemetry is None:
        lines += ['key = "lb.policy"', "values = [%s]" % ", ".join('"%s"' % p for p in policies)]
    else:  # each policy with its own [output] path_telemetry; run ids lb=NAME (a sweep keeps
        # the axis name `policy` for an unlabelled lb.policy axis: docs/sweeps.md)
        lines += ['name = "lb"', 'keys = ["lb.policy", "output.path_telemetry"]',
                  "values = [%s]" % ", ".join('["%s", %s]' % (p, path_telemetry[p])
                                              for p in policies),
                  "labels = [%s]" % ", ".join('"%s"' % p for p in policies)]
    values, labels, planted = [], [], {}
    for i in range(first, first + placements):
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
    if own_seeds(case, shared_seeds):
        # Each placement its own run seeds (placement i: seeds i K + 1 .. i K + K for --pool
        # K; placement 0 keeps seeds 1..K). Without a fault the failure list is empty in
        # every placement, so each would be the same run; with one, the runs of one seed
        # draw the same random numbers whichever cable is planted (a 1 % lossy cable lost
        # 0.27 % of its frames in every placement of seed 1 and 1.74 % in every one of seed
        # 4, DRILL, 2026-12-06), so the placements would not be independent samples.
        zipped, zlabels = [], []
        for i, label, failures in zip(range(first, first + placements), labels, values):
            for s in range(1, seeds + 1):
                zipped.append("[%s, %d]" % ("[]" if case == "none" else failures,
                                            i * seeds + s))
                zlabels.append(none_label(label, s, seeds))
        lines += ["[[axis]]", 'name = "placement"', 'keys = ["failures", "seed"]',
                  "values = [%s]" % ", ".join(zipped),
                  "labels = [%s]" % ", ".join('"%s"' % l for l in zlabels)]
        return "\n".join(lines) + "\n", planted
    lines += ["[[axis]]", 'name = "placement"', 'key = "failures"',
              "values = [%s]" % ", ".join(values),
              "labels = [%s]" % ", ".join('"%s"' % l for l in labels)]
    if seeds > 1:  # --pool: the same fabric, fault and traffic over `seeds` steps
        lines += ["[[axis]]", 'key = "seed"',
                  "values = [%s]" % ", ".join(str(s) for s in range(1, seeds + 1))]
    return "\n".join(lines) + "\n", planted


# Policies whose switches choose an egress per packet, so that one QP's frames take several
# routes side by side: per-entropy telemetry cannot tell those routes apart (one entropy, many
# routes), per-route telemetry can (the 128-host all-reduce under switch spraying at 1/4: first
# in 1/20 placements from completion times, 20/20 from per-route RTTs; under 1 % loss, spraying
# and DRILL name no healthy link instead of 16 and 15 of 20; docs/locate.md). Per-packet
# adaptive routing (`ar`) spreads one QP the same way.
PER_PACKET_SWITCH_POLICIES = {"spray", "rr-spray", "drill", "ar"}


def per_policy_telemetry(a, policies):
    """{policy: [output] path_telemetry} for --path-telemetry auto; None otherwise (the base
    scenario's value for every policy) or when the runs write no telemetry."""
    if a.path_telemetry != "auto" or a.evidence == "flows" or \
            not PER_PACKET_SWITCH_POLICIES.intersection(policies):
        return None  # every policy the base scenario's (per entropy under auto)
    return {p: '"route"' if p in PER_PACKET_SWITCH_POLICIES else "true" for p in policies}


def own_seeds(case, shared_seeds):
    """Whether the placements of `case` run their own seeds (always without a fault)."""
    return case == "none" or not shared_seeds


def none_label(label, step, seeds):
    """The placement label of a run with its own seed per placement and step."""
    return label if seeds == 1 else "%s-s%d" % (label, step)


def run_id(pol, label, case, step, pool, shared_seeds=False):
    """The sweep's run id of policy `pol`, placement `label` and pooled step `step` (1..pool)."""
    if own_seeds(case, shared_seeds):
        return "policy=%s,placement=%s" % (pol, none_label(label, step, pool))
    return "policy=%s,placement=%s" % (pol, label) + ("" if pool == 1 else ",seed=%d" % step)


def run_dir(sweep_out, rid, lb_first):
    """A run's folder: `policy=NAME,...`, or `lb=NAME,...` where each policy had its own
    path telemetry (--path-telemetry auto with switch spraying or DRILL among the policies).
    The form these arguments write first (`lb_first`), so that a run just made is scored and
    not an older one of the other form in the same --out; the other form when only it exists
    (--score-only on an older bench)."""
    lb = os.path.join(sweep_out, "lb=" + rid[len("policy="):])
    plain = os.path.join(sweep_out, rid)
    first, second = (lb, plain) if lb_first else (plain, lb)
    return first if os.path.isdir(first) or not os.path.isdir(second) else second


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


CONTROL_FRAME_BYTES = 66  # ACK / NAK / CNP on the wire (headers + AETH; docs/results-format.md)
DATA_OVERHEAD_BYTES = 62  # a data frame's headers and trailers (ns3-modules/rdma/doc/rdma.md)


def data_frames(frames, nbytes, mtu):
    """Data frames a link direction carried, estimated from links.csv's tx_frames and tx_bytes:
    the bytes beyond `frames` control frames, in full data frames (an upper bound when some
    control frames are larger than CONTROL_FRAME_BYTES)."""
    return (nbytes - CONTROL_FRAME_BYTES * frames) / float(mtu + DATA_OVERHEAD_BYTES
                                                          - CONTROL_FRAME_BYTES)


def run_mtu(run_dir):
    """The run's NIC MTU from its manifest (scenario.nic.mtu_bytes), 4096 if absent."""
    try:
        with open(os.path.join(run_dir, "manifest.json")) as fh:
            return int(json.load(fh).get("scenario", {}).get("nic", {}).get("mtu_bytes", 4096))
    except (OSError, ValueError, AttributeError):
        return 4096


def dark_cables(run_dir, planted):
    """Whether every direction of every planted cable (a, b) carried less than one data frame
    in the run (links.csv; see the module docstring). A cable links.csv does not have is an
    error (the planted names must be the run's); a run without links.csv counts as observable."""
    want = {(a, b) for a, b in planted} | {(b, a) for a, b in planted}
    seen = {}
    mtu = run_mtu(run_dir)
    if not os.path.exists(os.path.join(run_dir, "links.csv")):
        return False
    with open(os.path.join(run_dir, "links.csv")) as fh:
        for row in csv.DictReader(fh):
            key = (row["from"], row["to"])
            if key in want:
                seen[key] = data_frames(int(row["tx_frames"]), int(row["tx_bytes"]), mtu)
    missing = want - set(seen)
    if missing:
        raise SystemExit("%s/links.csv: no row for %s" % (
            run_dir, ", ".join("%s->%s" % m for m in sorted(missing))))
    return all(n < 1 for n in seen.values())


def evaluate(tusk, run_dir, planted, evidence="auto"):
    """(top-1, all in top-3, false, the evidence locate used, the first class's link
    directions, named first: top-1 and that class named, classes named, every direction of
    the planted cables in `unobserved_links`) of one run, or of several runs located together
    (a list: `tusk locate DIR DIR ...` pools their evidence); None if locate failed."""
    dirs = run_dir if isinstance(run_dir, list) else [run_dir]
    o = subprocess.run([tusk, "locate"] + dirs + ["--json", "--top", "3", "--evidence", evidence],
                       capture_output=True, text=True)
    if o.returncode != 0:
        print("%s: tusk locate failed: %s" % (dirs[0], o.stderr.strip()), file=sys.stderr)
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
    unobserved = set(j.get("unobserved_links", []))
    listed = all("%s->%s" % (a, b) in unobserved and "%s->%s" % (b, a) in unobserved
                 for a, b in planted)
    return (top1, len(top3) == len(bad), false, j.get("evidence", "flows"),
            len(ranking[0]["links"]) if ranking else 0, top1 and ranking[0]["named"],
            int(j.get("named", 0)), listed)


def wilson(k, n):
    """The 95 % Wilson score interval of k successes in n, in percent (scipy)."""
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return 100 * ci.low, 100 * ci.high


def rate(k, n):
    """"k/n (lo–hi %)": a count with its 95 % Wilson interval."""
    lo, hi = wilson(k, n)
    return "%d/%d (%.0f–%.0f %%)" % (k, n, lo, hi)


def score(a, out, name, wl, case, pol, planted, pool, size, outcomes):
    """One table row: policy `pol` over the placements, each located from its first `size`
    runs pooled (of `pool` seeds; 1: the run alone)."""
    hit1 = hit3 = false = n = named1 = 0
    dark = dark_right = dark_named = obs_hit1 = 0
    used = set()
    for label, cables in planted.items():
        lb_first = per_policy_telemetry(a, a.policies.split(",")) is not None
        dirs = [run_dir(os.path.join(out, name), run_id(pol, label, case, s, pool,
                                                         a.shared_seeds), lb_first)
                for s in range(1, size + 1)]
        if not all(os.path.exists(os.path.join(d, "manifest.json")) for d in dirs):
            continue
        res = evaluate(a.tusk, dirs if size > 1 else dirs[0], cables, a.evidence)
        if res is None:
            continue
        n += 1
        hit1 += res[0]
        hit3 += res[1]
        false += res[2]
        named1 += res[5]
        used.add(res[3])
        is_dark = bool(cables) and all(dark_cables(d, cables) for d in dirs)
        if is_dark:
            dark += 1
            dark_right += res[6] == 0 and res[7]
            dark_named += res[6] > 0
        else:
            obs_hit1 += res[0]
        outcomes.append({"workload": wl, "hosts": a.k ** 3 // 4, "case": case,
                         "policy": pol, "placement": label, "runs_pooled": size,
                         "cables": ["%s-%s" % c for c in cables], "top1": res[0],
                         "top3": res[1], "false": res[2], "evidence": res[3],
                         "top1_class": res[4], "named_first": res[5], "named": res[6],
                         "dark": is_dark, "unobserved_listed": res[7]})
    label = pol if pool == 1 else "%s, %d run%s pooled" % (pol, size, "s" if size > 1 else "")
    return (wl, case, label, (hit1, named1, hit3, false, n, "+".join(sorted(used)),
                              dark, obs_hit1, dark_right, dark_named))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="results/bench-locate")
    ap.add_argument("--k", type=int, default=16, help="fat-tree k (16: 1,024 hosts)")
    ap.add_argument("--placements", type=int, default=20)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--policies",
                    default="ecmp,spray,host-spray,host-reps,flowlet-ar,drill,conweave")
    ap.add_argument("--workloads", default="permutation,allreduce")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--bytes", type=int, default=524288, help="bytes per flow / ring step")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="the sweep's parallel runs")
    ap.add_argument("--nice", type=int, default=10, help="run the sweeps under nice -n N")
    ap.add_argument("--first-placement", type=int, default=0,
                    help="draw placements N..N+placements-1 (fresh ones: N >= 20)")
    ap.add_argument("--json", help="write every run's outcome to this file")
    ap.add_argument("--probes", default="",
                    metavar="BYTES@INTERVAL_US[@UNTIL_US[@TARGETSxENTROPIES]][+LBYTES@LINTERVAL_US]",
                    help="every run sends monitoring probes ([probes]: BYTES on the wire, one "
                         "per host every INTERVAL_US, none from UNTIL_US on, to TARGETS hosts "
                         "over ENTROPIES UDP ports each; with +LBYTES@LINTERVAL_US also "
                         "large_bytes probes every large_interval_us), and `tusk locate` ranks "
                         "from them (probes.csv) under --evidence auto or probes")
    ap.add_argument("--probe-spacing", choices=["periodic", "poisson"], default="periodic",
                    help="[probes] spacing: one probe per interval, or exponential gaps")
    ap.add_argument("--evidence", choices=["auto", "ar", "flows", "paths", "probes"],
                    default="auto",
                    help="tusk locate --evidence; auto, ar and paths: runs write paths.csv and "
                         "ar.csv ([output] path_telemetry, ar_telemetry); flows: completion "
                         "times, neither file")
    ap.add_argument("--path-telemetry", choices=["auto", "true", "route"], default="auto",
                    help="[output] path_telemetry: true (per QP and entropy), route (per QP, "
                         "entropy and the route the switches gave its frames; docs/locate.md), "
                         "or auto: route under the policies whose switches spread one QP's "
                         "frames over several routes side by side (%s), true under the others"
                         % ", ".join(sorted(PER_PACKET_SWITCH_POLICIES)))
    ap.add_argument("--pool", type=int, default=1, metavar="K",
                    help="run every placement K times (its own K seeds: the same fabric, "
                         "fault and traffic over K steps) and score `tusk locate` on the first N of them "
                         "pooled, for each N of --pool-sizes")
    ap.add_argument("--shared-seeds", action="store_true",
                    help="every fault placement runs seeds 1..K, as the tables measured before "
                         "2026-12-06 did (default: placement i runs seeds i K + 1 .. i K + K)")
    ap.add_argument("--pool-sizes", default="",
                    help="comma-separated run counts to pool with --pool (default: 1 and K)")
    ap.add_argument("--score-only", action="store_true",
                    help="score the runs already in --out again (after a change to tusk locate); "
                         "run nothing; a run not there is left out")
    ap.add_argument("--smoke", action="store_true",
                    help="k = 8, one placement, the 1/4 case, ECMP and host REPS, permutation "
                         "(CI smoke)")
    ap.add_argument("--tusk", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                   "build", "bin", "tusk"))
    a = ap.parse_args()
    if a.smoke:
        a.k, a.placements, a.cases, a.policies, a.workloads = 8, 1, "quarter", \
            "ecmp,host-reps", "permutation"
        a.first_placement = 0
    if a.score_only and (not os.path.isdir(a.out) or not os.listdir(a.out)):
        # Nothing to score: an error, not a table of "no run" rows (and no folder made).
        print("locate-bench.py: --score-only: %s: %s (give the --out of an earlier bench)"
              % (a.out, "no such directory" if not os.path.isdir(a.out) else "empty"),
              file=sys.stderr)
        sys.exit(2)
    os.makedirs(a.out, exist_ok=True)
    out = os.path.abspath(a.out)
    policies = a.policies.split(",")
    pool = max(1, a.pool)
    sizes = sorted({int(x) for x in a.pool_sizes.split(",") if x} or {1, pool}) \
        if pool > 1 else [1]
    if any(n < 1 or n > pool for n in sizes):
        ap.error("--pool-sizes: each between 1 and --pool")
    rows, outcomes = [], []
    for wl in a.workloads.split(","):
        scen = os.path.join(out, "%s.toml" % wl)
        if not a.score_only:  # a sweep still running from --out reads it: --score-only must
            # not rewrite it (--evidence flows would drop the telemetry of its next runs)
            write_if_changed(scen, base_scenario(a.k, wl, a.rounds, a.bytes,
                                                 telemetry=a.evidence != "flows",
                                                 path_telemetry=(
                                                     '"route"' if a.path_telemetry == "route"
                                                     else "true"),
                                                 probes=a.probes,
                                                 probe_spacing=a.probe_spacing))
        for case in a.cases.split(","):
            name = "%s-%s" % (wl, case)
            text, planted = sweep_file(name, scen, policies, case, a.placements, a.k,
                                       a.first_placement, pool, a.shared_seeds,
                                       per_policy_telemetry(a, policies))
            sw = os.path.join(out, name + ".sweep.toml")
            if not a.score_only:
                write_if_changed(sw, text)
            t0 = time.monotonic()
            r = subprocess.CompletedProcess([], 0) if a.score_only else subprocess.run(
                ["nice", "-n", str(a.nice), a.tusk, "sweep", sw, "-j", str(a.jobs),
                 "--out", os.path.join(out, name)], capture_output=True, text=True)
            if not a.score_only:
                print("%s: %.0f s" % (name, time.monotonic() - t0), file=sys.stderr)
            if r.returncode == 1:  # some runs failed (results written: scored) or errored
                print("%s: some runs failed or errored (tusk sweep --status); scoring those "
                      "with results" % name, file=sys.stderr)
            elif r.returncode != 0:
                why = (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]
                print("%s: not run: %s" % (name, why), file=sys.stderr)
                rows.append((wl, case, None, why))
                continue
            for pol in policies:
                for size in sizes:
                    rows.append(score(a, out, name, wl, case, pol, planted, pool, size,
                                      outcomes))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(outcomes, fh, indent=1)
    hosts = a.k ** 3 // 4
    print("| workload | hosts | case | policy | evidence | top-1 | named first | all in top-3 "
          "| false | runs | dark | top-1 observable | dark: unobserved, none named "
          "| dark: named |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for wl, case, pol, r in rows:
        if pol is None:
            print("| %s | %d | %s | – | | not run: %s | | | | | | | | |" % (wl, hosts, case, r))
            continue
        h1, n1, h3, f, n, ev, dk, oh1, dr, dn = r
        if n == 0:
            print("| %s | %d | %s | %s | | no run | | | | 0 | | | | |" % (wl, hosts, case, pol))
            continue
        none = case == "none"
        print("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %d | %s | %s | %s | %s |" % (
            wl, hosts, case, pol, ev, "-" if none else rate(h1, n), "-" if none else rate(n1, n),
            "-" if none else rate(h3, n), rate(f, n), n, "-" if none else dk,
            "-" if none or n == dk else rate(oh1, n - dk),
            "-" if none or not dk else "%d/%d" % (dr, dk),
            "-" if none or not dk else "%d/%d" % (dn, dk)))


if __name__ == "__main__":
    main()
