#!/usr/bin/env python3
"""Run `tusk validate-fast` on every shipped scenario whose jobs repeat iterations, on the
same scenarios at training length, and across policies; write the tables into docs/fast-mode.md
(between the "validate-fast ... table" markers).

    scripts/validate-fast-all.py [--tables shipped,long,ranking] [--seeds 1,2] [--timeout 600]
                                 [--no-doc] [SCENARIO ...]

shipped: every scenarios/**/*.toml and bench/*.toml with a [[jobs]] entry of `iterations` > 1
(read with tomllib), as shipped, or the SCENARIO arguments. Shipped scenarios run 2 to 10
iterations, mostly too few to replay anything.
long: the variants in LONG below, the same files run for hundreds of iterations (--set), where
fast mode replays most of them: the table that says whether replay keeps the results.
ranking: the scenarios in RANKING, once per policy; the policies ordered by mean iteration time
in each mode must be the same order (a pair may swap only when packet mode puts them within
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
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARK = {"shipped": "validate-fast table", "long": "validate-fast long table",
        "ranking": "validate-fast ranking table"}

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

# Policy comparisons: (scenario, overrides, policies) ranked by mean iteration time.
RANKING = [
    ("bench/iterations.toml", ["jobs[0].iterations=60", "jobs[0].collectives[0].bytes=4MiB"],
     ["ecmp", "eecmp", "pinning", "spray", "drill", "flowlet-ar", "letflow", "conweave",
      "conga", "host-spray", "host-reps", "host-plb", "qp4-rr"]),
]
ROW = re.compile(r"^(\w+)\s+(\S+)\s+([-\d.]+)\s+([-\d.]+)\s+([-+\d.]+)")
REPLAYED = re.compile(
    r"iterations replayed (\d+) of (\d+) \((\d+) exact, (\d+) steady, (\d+) sampled\)")
FALLBACK = re.compile(r"^  simulated because (\w+): (\d+)", re.M)
WALL = re.compile(r"wall time: packet ([\d.]+) s, fast ([\d.]+) s, speedup ([\d.]+)x")


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


def run(tusk, scenario, seed, timeout, sets=()):
    """One validate-fast: (status, rows, replayed, wall) or (status, None, ...) on failure."""
    cmd = [tusk, "validate-fast", str(scenario), "--seed", str(seed), "-q"]
    for kv in sets:
        cmd += ["--set", kv]
    try:
        out = subprocess.run(cmd,
                             capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return "timed out", [], None, None
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
    return status, rows, (rep.groups() + (why,)) if rep else None, wall.groups() if wall else None


def replayed(rep):
    """ "N (exact / steady / sampled) of M" from a REPLAYED match's groups."""
    return f"{rep[0]} ({rep[2]} / {rep[3]} / {rep[4]}) of {rep[1]}" if rep else "-"


def table(results):
    lines = ["| scenario | seed | status | replayed (exact / steady / sampled) of iterations | "
             "simulated because | packet s | fast s | speedup | largest difference |",
             "|---|---|---|---|---|---|---|---|---|"]
    for scenario, seed, (status, rows, rep, wall) in results:
        worst = max(rows, key=lambda r: abs(r[4])) if rows else None
        lines.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
            scenario.replace("|", "\\|"), seed, status,
            replayed(rep),
            rep[5] if rep else "-",
            wall[0] if wall else "-", wall[1] if wall else "-",
            f"{wall[2]}x" if wall else "-",
            f"{worst[0]} {worst[1]}: {worst[4]:+.3f} %" if worst else "-"))
    return "\n".join(lines)


def metric(rows, name):
    """(packet, fast) of the first row of metric `name` (the job's or, with several, "all")."""
    for r in rows:
        if r[0] == name:
            return r[2], r[3]
    return None


def ranking(tusk, seed, timeout, tolerance=0.05):
    """Per RANKING scenario: one validate-fast per policy; rows and whether the order holds."""
    out = []
    for scenario, sets, policies in RANKING:
        res = {}
        for p in policies:
            print(f"validate-fast {scenario} lb.policy={p} seed {seed} ...", file=sys.stderr,
                  flush=True)
            res[p] = run(tusk, ROOT / scenario, seed, timeout, list(sets) + [f"lb.policy={p}"])
        it = {p: metric(r[1], "iteration_mean_us") for p, r in res.items()}
        ok = [p for p in policies if it[p]]
        by_packet = sorted(ok, key=lambda p: it[p][0])
        by_fast = sorted(ok, key=lambda p: it[p][1])
        # A swapped pair is a broken ranking unless packet mode has them within the tolerance.
        swaps = [(a, b) for i, a in enumerate(by_packet) for b in by_packet[i + 1:]
                 if it[a][1] > it[b][1]]
        real = [(a, b) for a, b in swaps if it[b][0] > it[a][0] * (1 + tolerance)]
        out.append((f"{scenario}` seed {seed}, `{' '.join(sets)}", policies, res, it, by_packet,
                    by_fast, swaps, real))
    return out


def ranking_table(results):
    lines = []
    for label, policies, res, it, by_packet, by_fast, swaps, real in results:
        lines.append(f"`{label}`, by mean iteration time (µs):")
        lines.append("")
        lines.append("| policy | status | replayed (exact / steady / sampled) of iterations | "
                     "simulated because | packet | fast | diff % | rank packet | rank fast | "
                     "largest difference |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|")
        for p in by_packet + [q for q in policies if q not in by_packet]:
            status, rows, rep, wall = res[p]
            worst = max(rows, key=lambda r: abs(r[4])) if rows else None
            m = it[p]
            lines.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
                p, status, replayed(rep), rep[5] if rep else "-",
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
                    help="which tables to run and write (shipped, long, ranking)")
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--no-doc", action="store_true", help="print the tables, do not edit the doc")
    a = ap.parse_args()
    tables = [t for t in a.tables.split(",") if t]
    bad = [t for t in tables if t not in MARK]
    if bad:
        ap.error(f"--tables: unknown {', '.join(bad)} (expected shipped, long, ranking)")
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
    if "ranking" in tables:
        res = []
        for seed in seeds:
            res += ranking(tusk, seed, a.timeout)
        text = ranking_table(res)
        print(text)
        ok &= all(r[2][p][0] == "ok" for r in res for p in r[1]) and not any(r[7] for r in res)
        if not a.no_doc:
            write_block("ranking", text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
