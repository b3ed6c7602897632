#!/usr/bin/env python3
"""Run `tusk validate-fast` on every shipped scenario whose jobs repeat iterations, on the
same scenarios at training length, and across policies; write the tables into docs/fast-mode.md
(between the "validate-fast ... table" markers).

    scripts/validate-fast-all.py [--tables shipped,long,ranking,every] [--seeds 1,2] [--timeout 600]
                                 [--no-doc] [SCENARIO ...]

shipped: every scenarios/**/*.toml and bench/*.toml with a [[jobs]] entry of `iterations` > 1
(read with tomllib), as shipped, or the SCENARIO arguments (which `every` takes too). Shipped scenarios run 2 to 10
iterations, mostly too few to replay anything.
long: the variants in LONG below, the same files run for hundreds of iterations (--set), where
fast mode replays most of them: the table that says whether replay keeps the results.
every: every other shipped scenario and bench file (no job of more than one iteration; sweep
files left out), seed 1 only: fast mode replays a standalone ring's steps there and nothing
else, so the table also says whether each run's CSV files equal packet mode's byte for byte.
ranking: the comparisons in RANKING, once per configuration (policy); the configurations
ordered by the entry's metric (mean iteration time, or CCT for a ring) in each mode must be in
the same order (a pair may swap only when packet mode puts them within
the tolerance of each other, which the table says).
Each (scenario, seed) runs both modes once; a run longer than --timeout seconds is listed as
timed out. TUSK=path overrides build/bin/tusk. Exit status: 0 every metric of every run within
5 % and every ranking kept; 1 otherwise (or a run failed).
"""
import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARK = {"shipped": "validate-fast table", "long": "validate-fast long table",
        "ranking": "validate-fast ranking table", "every": "validate-fast every table"}

# Training length: (scenario, what it stands for, --set overrides). Packet mode's time is the
# bound: each runs in packet mode within a few minutes on one core.
LONG = [
    ("scenarios/papers/diloco/diloco.toml", "DiLoCo, 1,000 steps, H = 500",
     ["jobs[0].iterations=1000", "jobs[0].sync_every=500", "stop_time_ms=100000"]),
    ("scenarios/papers/diloco/sync-dp.toml", "sync DP, 200 steps",
     ["jobs[0].iterations=200", "stop_time_ms=100000"]),
    ("bench/iterations.toml", "default collective (16 MiB), 200 iterations",
     ["jobs[0].iterations=200", "jobs[0].collectives[0].bytes=16MiB"]),
    ("bench/iterations.toml", "256 KiB, 1,000 iterations", ["jobs[0].iterations=1000"]),
    ("scenarios/moe-all-to-all.toml", "MoE all-to-all, 50 iterations",
     ["jobs[0].iterations=50", "stop_time_ms=100000"]),
    ("scenarios/background-mix.toml", "background mix, 40 iterations",
     ["jobs[0].iterations=40", "stop_time_ms=100000"]),
]


def policies(*names):
    """Configurations that differ in lb.policy alone: (label, --set list) per policy."""
    return [(n, [f"lb.policy={n}"]) for n in names]


# Comparisons: (scenario, overrides, configurations, metric), the configurations ranked by the
# metric (validate-fast's, of the job or "run"). The first is a job repeated at length; the
# others are the shipped comparisons whose workload is a standalone ring, the other kind fast
# mode replays (the rest of the shipped comparisons run the same simulation in both modes: the
# `every` table).
RANKING = [
    ("bench/iterations.toml", ["jobs[0].iterations=60", "jobs[0].collectives[0].bytes=4MiB"],
     policies("ecmp", "eecmp", "pinning", "spray", "drill", "flowlet-ar", "letflow", "conweave",
              "conga", "host-spray", "host-reps", "host-plb", "qp4-rr"), "iteration_mean_us"),
    # scenarios/lb-compare/run.sh: every policy of its POLICIES on the ring all-reduce.
    ("scenarios/lb-compare/ring-allreduce.toml", [],
     policies("ecmp", "eecmp", "qp4-split", "qp4-rr", "pinning", "letflow", "conga", "drill",
              "ar", "flowlet-ar", "spray", "rr-spray", "host-spray"), "cct_mean_us"),
    # scenarios/one-slow-cable/run.sh's ring rows: degraded (as shipped) and healthy.
    ("scenarios/one-slow-cable/ring-allreduce.toml", [],
     policies("ecmp", "drill", "spray") +
     [(f"{p}, healthy", [f"lb.policy={p}", "failures=[]"]) for p in ("ecmp", "drill", "spray")],
     "cct_mean_us"),
    # scenarios/papers/meta-roce/ring-allreduce.sweep.toml's configurations.
    ("scenarios/papers/meta-roce/ring-allreduce.toml", [],
     [(label, [f"lb.policy={p}", f"nic.qps_per_connection={q}", f"nic.qp_scaling={m}",
               f"nic.qp_message_bytes={b}"])
      for label, p, q, m, b in [("ecmp", "ecmp", 1, "split", 524288),
                                ("ecmp-4qp", "ecmp", 4, "split", 524288),
                                ("eecmp", "eecmp", 1, "split", 524288),
                                ("eecmp-qp4-rr", "qp4-rr", 4, "round-robin", 524288),
                                ("eecmp-qp4-rr-64k", "qp4-rr", 4, "round-robin", 65536),
                                ("eecmp-qp4-split", "qp4-split", 4, "split", 524288)]],
     "cct_mean_us"),
    # scenarios/papers/ethereal/allreduce.sweep.toml: four policies, with and without the failure.
    ("scenarios/papers/ethereal/allreduce.toml", [],
     policies("ecmp", "host-spray", "host-reps", "ethereal") +
     [(f"{p}, spine1-leaf1 down", [f"lb.policy={p}",
                                   'failures=[{ at_us = 100, kind = "link_down", '
                                   'link = "spine1-leaf1" }]'])
      for p in ("ecmp", "host-spray", "host-reps", "ethereal")],
     "cct_mean_us"),
]
ROW = re.compile(r"^(\w+)\s+(\S+)\s+([-\d.]+)\s+([-\d.]+)\s+([-+\d.]+)")
REPLAYED = re.compile(
    r"iterations replayed (\d+) of (\d+) \((\d+) exact, (\d+) steady, (\d+) sampled\)")
FALLBACK = re.compile(r"^  simulated because (\w+): (\d+)", re.M)
FAILED = re.compile(r"the (packet|fast) run failed: (.*)")
RING = re.compile(r"ring steps replayed (\d+) of (\d+)")
WALL = re.compile(r"wall time: packet ([\d.]+) s, fast ([\d.]+) s, speedup ([\d.]+)x")
JUMPS = re.compile(r"steady jumps \(at most \d+ spans\): (\d+) jump\(s\) skipped [\d.]+ µs "
                   r"\(([\d.]+) % of the time")


def repeated_jobs(path):
    """Whether the scenario has a job of more than one iteration."""
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except (tomllib.TOMLDecodeError, OSError):
        return False
    return any(int(j.get("iterations", 1)) > 1 for j in doc.get("jobs", []))


def candidates():
    files = sorted(ROOT.glob("scenarios/**/*.toml")) + sorted(ROOT.glob("bench/*.toml"))
    return [p for p in files if repeated_jobs(p)]


def is_sweep(path):
    """Whether the file is a sweep (`[[axis]]` entries), not a scenario."""
    try:
        with open(path, "rb") as f:
            return "axis" in tomllib.load(f)
    except (tomllib.TOMLDecodeError, OSError):
        return False


def probes(path):
    """Whether the scenario sends monitoring probes ([probes] interval_us > 0): packet mode
    only (fast mode refuses it, exit 2), so there is nothing to compare."""
    try:
        with open(path, "rb") as f:
            return float(tomllib.load(f).get("probes", {}).get("interval_us", 0)) > 0
    except (tomllib.TOMLDecodeError, OSError, ValueError, AttributeError):
        return False


def others():
    """Shipped scenarios and bench files without a job of more than one iteration (no sweeps,
    none that sends probes)."""
    files = sorted(ROOT.glob("scenarios/**/*.toml")) + sorted(ROOT.glob("bench/*.toml"))
    return [p for p in files if not is_sweep(p) and not repeated_jobs(p) and not probes(p)]


def same_files(out_dir):
    """ "all N equal" or "K of N differ: names": the CSV files of packet/ against fast/."""
    packet, fast = Path(out_dir) / "packet", Path(out_dir) / "fast"
    names = sorted({p.name for p in packet.glob("*.csv")} | {p.name for p in fast.glob("*.csv")})
    if not names:
        return "-"
    differ = [n for n in names if not (packet / n).is_file() or not (fast / n).is_file()
              or (packet / n).read_bytes() != (fast / n).read_bytes()]
    return f"all {len(names)} equal" if not differ else \
        f"{len(differ)} of {len(names)} differ: {', '.join(differ)}"


def run(tusk, scenario, seed, timeout, sets=(), out_dir=None):
    """One validate-fast: (status, rows, replayed, wall) or (status, None, ...) on failure;
    with `out_dir`, both runs' results are written there and (..., same_files) is returned."""
    cmd = [tusk, "validate-fast", str(scenario), "--seed", str(seed), "-q"]
    for kv in sets:
        cmd += ["--set", kv]
    if out_dir:
        cmd += ["--out", str(out_dir)]
    try:
        out = subprocess.run(cmd,
                             capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return "timed out", [], None, None, {}
    rows = []
    for line in out.stdout.splitlines():
        m = ROW.match(line)
        if m and m.group(1) != "metric":
            rows.append((m.group(1), m.group(2), float(m.group(3)), float(m.group(4)),
                         float(m.group(5))))
    rep = REPLAYED.search(out.stdout)
    wall = WALL.search(out.stdout)
    status = {0: "ok", 1: "beyond 5 %" if rows else "run failed"}.get(out.returncode,
                                                                       f"exit {out.returncode}")
    if out.returncode == 1 and "run failed" in out.stderr:
        status = "run failed"
    why = ", ".join(f"{r} {n}" for r, n in FALLBACK.findall(out.stdout))
    ring = RING.search(out.stdout)
    jumps = JUMPS.search(out.stdout)
    extra = {"ring": f"{ring.group(1)} of {ring.group(2)}" if ring else "-",
             "jumps": f"{jumps.group(1)}, {jumps.group(2)} %" if jumps and jumps.group(1) != "0"
             else "-",
             "files": same_files(out_dir) if out_dir else "-"}
    failed = FAILED.search(out.stderr)
    if status == "run failed" and failed:
        status = f"{failed.group(1)} run failed: {failed.group(2)[:60]}"
        # validate-fast names the first run that failed; equal files say the other failed alike.
        if extra["files"].startswith("all "):
            status = f"failed alike ({failed.group(2)[:60]}...)"
    return (status, rows, (rep.groups() + (why,)) if rep else None,
            wall.groups() if wall else None, extra)


def replayed(rep):
    """ "N (exact / steady / sampled) of M" from a REPLAYED match's groups."""
    return f"{rep[0]} ({rep[2]} / {rep[3]} / {rep[4]}) of {rep[1]}" if rep else "-"


def table(results):
    lines = ["| scenario | seed | status | replayed (exact / steady / sampled) of iterations | "
             "simulated because | steady jumps, time skipped | packet s | fast s | speedup | "
             "largest difference |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for scenario, seed, (status, rows, rep, wall, extra) in results:
        worst = max(rows, key=lambda r: abs(r[4])) if rows else None
        lines.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
            scenario.replace("|", "\\|"), seed, status,
            replayed(rep),
            rep[5] if rep else "-", extra.get("jumps", "-"),
            wall[0] if wall else "-", wall[1] if wall else "-",
            f"{wall[2]}x" if wall else "-",
            f"{worst[0]} {worst[1]}: {worst[4]:+.3f} %" if worst else "-"))
    return "\n".join(lines)


def every_table(results):
    lines = ["| scenario | status | ring steps replayed | simulated because | steady jumps, time "
             "skipped | packet s | fast s | speedup | largest difference | CSV files, fast against "
             "packet |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for scenario, (status, rows, rep, wall, extra) in results:
        worst = max(rows, key=lambda r: abs(r[4])) if rows else None
        lines.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
            scenario, status, extra.get("ring", "-"), (rep[5] or "-") if rep else "-",
            extra.get("jumps", "-"),
            wall[0] if wall else "-", wall[1] if wall else "-",
            f"{wall[2]}x" if wall else "-",
            f"{worst[0]} {worst[1]}: {worst[4]:+.3f} %" if worst else "-",
            extra.get("files", "-")))
    return "\n".join(lines)


def metric(rows, name):
    """(packet, fast) of the first row of metric `name` (the job's or, with several, "all")."""
    for r in rows:
        if r[0] == name:
            return r[2], r[3]
    return None


def ranking(tusk, seed, timeout, tolerance=0.05):
    """Per RANKING entry: one validate-fast per configuration; rows and whether the order holds."""
    out = []
    for scenario, sets, configs, by in RANKING:
        res = {}
        policies = [label for label, _ in configs]
        for label, extra in configs:
            print(f"validate-fast {scenario} {label} seed {seed} ...", file=sys.stderr,
                  flush=True)
            res[label] = run(tusk, ROOT / scenario, seed, timeout, list(sets) + extra)
        it = {p: metric(r[1], by) for p, r in res.items()}
        ok = [p for p in policies if it[p]]
        by_packet = sorted(ok, key=lambda p: it[p][0])
        by_fast = sorted(ok, key=lambda p: it[p][1])
        # A swapped pair is a broken ranking unless packet mode has them within the tolerance.
        swaps = [(a, b) for i, a in enumerate(by_packet) for b in by_packet[i + 1:]
                 if it[a][1] > it[b][1]]
        real = [(a, b) for a, b in swaps if it[b][0] > it[a][0] * (1 + tolerance)]
        label = f"{scenario}` seed {seed}" + (f", `{' '.join(sets)}`" if sets else "")
        out.append((label, by, policies, res, it, by_packet, by_fast, swaps, real))
    return out


def ranking_table(results):
    lines = []
    for label, by, policies, res, it, by_packet, by_fast, swaps, real in results:
        lines.append(f"`{label}, by {by} (µs):")
        lines.append("")
        lines.append("| configuration | status | replayed (exact / steady / sampled) of iterations, "
                     "or ring steps replayed | "
                     "simulated because | packet | fast | diff % | rank packet | rank fast | "
                     "largest difference |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|")
        for p in by_packet + [q for q in policies if q not in by_packet]:
            status, rows, rep, wall, extra = res[p]
            worst = max(rows, key=lambda r: abs(r[4])) if rows else None
            m = it[p]
            lines.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
                p, status,
                f"ring steps {extra['ring']}" if extra.get("ring", "-") != "-" and rep
                and rep[1] == "0" else replayed(rep),
                rep[5] if rep else "-",
                f"{m[0]:.3f}" if m else "-", f"{m[1]:.3f}" if m else "-",
                f"{(m[1] / m[0] - 1) * 100:+.3f}" if m and m[0] else "-",
                by_packet.index(p) + 1 if p in by_packet else "-",
                by_fast.index(p) + 1 if p in by_fast else "-",
                f"{worst[0]}: {worst[4]:+.3f} %" if worst else "-"))
        lines.append("")
        if not swaps:
            lines.append("Ranking: the same order in both modes.")
        else:
            lines.append("Ranking: swapped pairs {}; {}.".format(
                ", ".join(f"{a}/{b}" for a, b in swaps),
                "each within 5 % in packet mode (a tie)" if not real else
                "beyond the tolerance: " + ", ".join(f"{a}/{b}" for a, b in real)))
    return "\n".join(lines)


def write_block(which, text):
    doc = ROOT / "docs/fast-mode.md"
    body = doc.read_text()
    begin = f"<!-- {MARK[which]}: begin (scripts/validate-fast-all.py) -->"
    end = f"<!-- {MARK[which]}: end -->"
    stamp = "Generated {} on {} ({}).".format(datetime.date.today().isoformat(),
                                              platform.node() or "this machine",
                                              platform.processor() or platform.machine())
    block = f"{begin}\n{stamp}\n\n{text}\n{end}"
    if begin in body and end in body:
        body = body[:body.index(begin)] + block + body[body.index(end) + len(end):]
    else:
        body = body.rstrip("\n") + "\n\n" + block + "\n"
    tmp = doc.with_suffix(".md.tmp")
    tmp.write_text(body)
    os.replace(tmp, doc)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenarios", nargs="*")
    ap.add_argument("--tables", default="shipped,long,ranking",
                    help="which tables to run and write (shipped, long, ranking, every)")
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--no-doc", action="store_true", help="print the tables, do not edit the doc")
    a = ap.parse_args()
    tables = [t for t in a.tables.split(",") if t]
    bad = [t for t in tables if t not in MARK]
    if bad:
        ap.error(f"--tables: unknown {', '.join(bad)} (expected shipped, long, ranking, every)")
    tusk = os.environ.get("TUSK", str(ROOT / "build/bin/tusk"))
    seeds = [int(x) for x in a.seeds.split(",")]
    ok = True

    def emit(which, results):
        """Print a table of (scenario, seed, run) results, write it unless --no-doc; all ok?"""
        text = table(results)
        print(text)
        if not a.no_doc:
            write_block(which, text)
        return all(r[2][0] == "ok" for r in results)

    if "shipped" in tables:
        scenarios = [Path(s).resolve() for s in a.scenarios] or candidates()
        results = []
        for s in scenarios:
            for seed in seeds:
                rel = os.path.relpath(s, ROOT)
                print(f"validate-fast {rel} seed {seed} ...", file=sys.stderr, flush=True)
                results.append((rel, seed, run(tusk, s, seed, a.timeout)))
        ok &= emit("shipped", results)
    if "long" in tables:
        results = []
        for scenario, what, sets in LONG:
            for seed in seeds:
                print(f"validate-fast {scenario} ({what}) seed {seed} ...", file=sys.stderr,
                      flush=True)
                results.append((f"{scenario}: {what} (`{' '.join(sets)}`)", seed,
                                run(tusk, ROOT / scenario, seed, a.timeout, sets)))
        ok &= emit("long", results)
    if "every" in tables:
        results = []
        for s in [Path(x).resolve() for x in a.scenarios] or others():
            rel = os.path.relpath(s, ROOT)
            print(f"validate-fast {rel} seed 1 ...", file=sys.stderr, flush=True)
            with tempfile.TemporaryDirectory(prefix="validate-fast-") as tmp:
                results.append((rel, run(tusk, s, 1, a.timeout, out_dir=Path(tmp) / "out")))
        text = every_table(results)
        print(text)
        if not a.no_doc:
            write_block("every", text)
        ok &= all(r[1][0] == "ok" or r[1][0].startswith("failed alike") for r in results)
    if "ranking" in tables:
        res = []
        for seed in seeds:
            res += ranking(tusk, seed, a.timeout)
        text = ranking_table(res)
        print(text)
        ok &= all(r[3][p][0] == "ok" for r in res for p in r[2]) and not any(r[8] for r in res)
        if not a.no_doc:
            write_block("ranking", text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
