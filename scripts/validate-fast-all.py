#!/usr/bin/env python3
"""Run `tusk validate-fast` on every shipped scenario whose jobs repeat iterations and write
the table into docs/fast-mode.md (between the "validate-fast table" markers).

    scripts/validate-fast-all.py [--seeds 1,2] [--timeout 600] [--no-doc] [SCENARIO ...]

Without SCENARIO arguments: every scenarios/**/*.toml and bench/*.toml with a [[jobs]] entry
of `iterations` > 1 (read with tomllib). Each (scenario, seed) runs both modes once; a run
longer than --timeout seconds is listed as timed out. TUSK=path overrides build/bin/tusk.
Exit status: 0 every metric of every run within 5 %; 1 otherwise (or a run failed).
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
BEGIN = "<!-- validate-fast table: begin (scripts/validate-fast-all.py) -->"
END = "<!-- validate-fast table: end -->"
ROW = re.compile(r"^(\w+)\s+(\S+)\s+([-\d.]+)\s+([-\d.]+)\s+([-+\d.]+)")
REPLAYED = re.compile(r"iterations replayed (\d+) of (\d+) \((\d+) exact, (\d+) steady\)")
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


def run(tusk, scenario, seed, timeout):
    """One validate-fast: (status, rows, replayed, wall) or (status, None, ...) on failure."""
    try:
        out = subprocess.run([tusk, "validate-fast", str(scenario), "--seed", str(seed), "-q"],
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


def table(results):
    lines = ["| scenario | seed | status | replayed (exact / steady) of iterations | "
             "simulated because | packet s | fast s | speedup | largest difference |",
             "|---|---|---|---|---|---|---|---|---|"]
    for scenario, seed, (status, rows, rep, wall) in results:
        worst = max(rows, key=lambda r: abs(r[4])) if rows else None
        lines.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
            scenario, seed, status,
            f"{rep[0]} ({rep[2]} / {rep[3]}) of {rep[1]}" if rep else "-",
            rep[4] if rep else "-",
            wall[0] if wall else "-", wall[1] if wall else "-",
            f"{wall[2]}x" if wall else "-",
            f"{worst[0]} {worst[1]}: {worst[4]:+.3f} %" if worst else "-"))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenarios", nargs="*")
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--no-doc", action="store_true", help="print the table, do not edit the doc")
    a = ap.parse_args()
    tusk = os.environ.get("TUSK", str(ROOT / "build/bin/tusk"))
    scenarios = [Path(s).resolve() for s in a.scenarios] or candidates()
    results = []
    for s in scenarios:
        for seed in [int(x) for x in a.seeds.split(",")]:
            rel = os.path.relpath(s, ROOT)
            print(f"validate-fast {rel} seed {seed} ...", file=sys.stderr, flush=True)
            results.append((rel, seed, run(tusk, s, seed, a.timeout)))
    text = table(results)
    print(text)
    if not a.no_doc:
        doc = ROOT / "docs/fast-mode.md"
        body = doc.read_text()
        stamp = "Generated {} on {} ({}).".format(datetime.date.today().isoformat(),
                                                  platform.node() or "this machine",
                                                  platform.processor() or platform.machine())
        block = f"{BEGIN}\n{stamp}\n\n{text}\n{END}"
        if BEGIN in body and END in body:
            body = body[:body.index(BEGIN)] + block + body[body.index(END) + len(END):]
        else:
            body = body.rstrip("\n") + "\n\n" + block + "\n"
        doc.write_text(body)
    return 0 if all(r[2][0] == "ok" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
