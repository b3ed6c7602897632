#!/usr/bin/env python3
"""The tables of scenarios/multi-plane/README.md, from the results run.sh writes.

Usage:
  tables.py render OUT [--write README]   print every table OUT has results for; with --write,
                                          also put each one into README between its markers
  tables.py check README                  check that every table block of README has the
                                          format `render` writes (no simulation)

OUT is run.sh's results folder: small/p{1,2,4}, small/fail, small/dualtor and small/rail{1,4}
(the 16-host and variant tables), and with
--large ring/ and moe/, each with p{1,2,4,8}, p{1,2,4,8}-ethereal, fail-{spine,link} and
fail-{spine,link}-ethereal: `tusk compare` folders (comparison.csv, one run folder per policy).
A table block in README is

    <!-- table:NAME:begin -->
    ```
    header
    rows
    ```
    <!-- table:NAME:end -->

**Time to recover** (`recover_us`, docs in README.md): from the failure (the scenario's
`failures[0].at_us`) to the last frame of regular traffic lost to it, from drops.csv (`[output]
drop_log`). Lost to it: a frame (data or acknowledgement) dropped with reason `link_down` or
`no_route` at or after the failure. Regular: its QP (src, dst, dst_qp) lost another frame to
the failure within PROBE_GAP_US before or after it. A QP's isolated single losses are probes of
a retired path (MRC probes one with one packet, ProbeInterval = 100 us apart, doubling), which
an MRC sender keeps sending by design; they are counted in `lost`, not in the recovery. 0 when
nothing regular was lost; `-` when a transfer was never delivered or never acknowledged (the
run never recovered). `unfin` counts those transfers, and the CCT of a failure run is `-` with
any.
"""
import csv
import json
import math
import re
import sys
from collections import defaultdict
from pathlib import Path

PROBE_GAP_US = 50.0
LOST_REASONS = ("link_down", "no_route")
MIB = 1024 * 1024

SMALL_POLICIES = ["ecmp", "host-spray", "source-route", "mrc", "ethereal"]
LARGE_POLICIES = ["ecmp", "host-spray", "mrc", "ethereal"]
FAILURES = {"spine": "p1.spine3 fails (switch_down)",
            "link": "p1.leaf1-p1.spine3 fails (link_down)"}
WORKLOADS = {"ring": "ring all-reduce", "moe": "MoE all-to-all"}


def fmt_num(v, width, decimals=1):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return f"{'-':>{width}}"
    return f"{v:{width}.{decimals}f}"


def num(s):
    return float(s) if s not in ("", "nan", None) else float("nan")


def compare_rows(folder):
    """{policy: comparison.csv row} of one `tusk compare` folder ({} if it is missing)."""
    path = Path(folder) / "comparison.csv"
    if not path.exists():
        return {}
    return {r["policy"]: r for r in csv.DictReader(open(path))}


def manifest(run_dir):
    return json.load(open(Path(run_dir) / "manifest.json"))


def unfinished(run_dir):
    """Transfers not delivered, or delivered and never acknowledged (flows.csv: the sender's
    completion, which a collective library waits for, never came)."""
    with open(Path(run_dir) / "flows.csv") as f:
        return sum(1 for r in csv.DictReader(f)
                   if r["finished"] != "1" or r["fct_sender_us"] == "")


def recovery(run_dir):
    """(frames lost to the failure, time to recover in us or None) of one run folder."""
    m = manifest(run_dir)
    failures = m["scenario"].get("failures", [])
    if not failures:
        return 0, 0.0
    at = float(failures[0]["at_us"])
    lost = []  # (time, qp): data frames and the acknowledgements coming back alike
    with open(Path(run_dir) / "drops.csv") as f:
        for r in csv.DictReader(f):
            t = float(r["time_us"])
            if r["reason"] in LOST_REASONS and t >= at:
                lost.append((t, (r["src"], r["dst"], r["dst_qp"])))
    return len(lost), recover_us(lost, at, unfinished(run_dir) > 0)


def recover_us(lost, at, unfinished):
    """The recovery time of a list of (time_us, qp) losses after a failure at `at` us."""
    if unfinished:
        return None
    by_qp = defaultdict(list)
    for t, qp in lost:
        by_qp[qp].append(t)
    last = at
    for times in by_qp.values():
        times.sort()
        for i, t in enumerate(times):
            near = (i > 0 and t - times[i - 1] <= PROBE_GAP_US) or \
                   (i + 1 < len(times) and times[i + 1] - t <= PROBE_GAP_US)
            if near:
                last = max(last, t)
    return last - at


# ---- the 16-host tables (run.sh without --large) -------------------------------------------

SMALL_HEADER = (f"{'planes':<7} {'policy':<13} {'CCT_us':>9} {'fct_p99_us':>11} {'up_imb':>8} "
                f"{'ooo':>8} {'drops':>6} {'retx':>6} {'unfin':>5}")
FAIL_HEADER = SMALL_HEADER + f" {'resent_MiB':>10} {'recover_us':>10}"


def small_row(label, r, unfin=None):
    unfin = int(r["unfinished"]) if unfin is None else unfin
    cct = num(r["cct_us"]) if unfin == 0 else float("nan")
    return (f"{label:<7} {r['policy']:<13} {fmt_num(cct, 9)} "
            f"{fmt_num(num(r['fct_p99_us']), 11)} {fmt_num(num(r['uplink_imbalance']), 8, 2)} "
            f"{int(r['ooo_packets']):8d} {int(r['drops']):6d} {int(r['retx_packets']):6d} "
            f"{unfin:5d}")


def table_planes(out):
    lines = [SMALL_HEADER]
    for n in (1, 2, 4):
        rows = compare_rows(Path(out) / "small" / f"p{n}")
        if not rows:
            return None
        lines += [small_row(str(n), rows[p]) for p in SMALL_POLICIES if p in rows]
    return lines


def table_failure(out):
    folder = Path(out) / "small" / "fail"
    rows = compare_rows(folder)
    if not rows:
        return None
    lines = [FAIL_HEADER]
    for p in SMALL_POLICIES:
        if p in rows:
            _, rec = recovery(folder / p)
            lines.append(small_row("4", rows[p], unfinished(folder / p)) +
                         f" {num(rows[p]['retx_bytes']) / MIB:10.2f} {fmt_num(rec, 10)}")
    return lines


def table_variants(out):
    lines = [SMALL_HEADER]
    for label in ("dualtor", "rail1", "rail4"):
        rows = compare_rows(Path(out) / "small" / label)
        if not rows:
            return None
        lines += [small_row(label, rows[p]) for p in SMALL_POLICIES if p in rows]
    return lines


# ---- the 512-rank tables (run.sh --large) ---------------------------------------------------

LARGE_HEADER = (f"{'planes':<7} {'policy':<11} {'CCT_us':>8} {'x_bound':>7} {'fct_p99_us':>10} "
                f"{'up_imb':>6} {'ooo':>8} {'trims':>7} {'resent_MiB':>10} {'unfin':>5}")
LFAIL_HEADER = (f"{'failure':<7} {'policy':<11} {'CCT_us':>8} {'+CCT_%':>7} {'fct_p99_us':>10} "
                f"{'lost':>6} {'resent_MiB':>10} {'recover_us':>10} {'unfin':>5}")


def policy_rows(folder):
    """{policy: (comparison row, run folder)} of a compare folder and its -ethereal twin."""
    out = {}
    for f in (Path(folder), Path(str(folder) + "-ethereal")):
        for p, r in compare_rows(f).items():
            out[p] = (r, f / p)
    return out


def large_row(label, r, run_dir, bound):
    s = manifest(run_dir)["summary"]
    cct = num(r["cct_us"])
    ratio = cct / bound if bound else float("nan")
    return (f"{label:<7} {r['policy']:<11} {fmt_num(cct, 8)} {fmt_num(ratio, 7, 2)} "
            f"{fmt_num(num(r['fct_p99_us']), 10)} {fmt_num(num(r['uplink_imbalance']), 6, 2)} "
            f"{int(r['ooo_packets']):8d} {int(s.get('trimmed_frames', 0)):7d} "
            f"{num(r['retx_bytes']) / MIB:10.2f} {unfinished(run_dir):5d}")


def table_large(out, wl):
    lines = [LARGE_HEADER]
    bound = None
    for n in (1, 2, 4, 8):
        rows = policy_rows(Path(out) / wl / f"p{n}")
        if not rows:
            return None
        if bound is None:  # the byte bound at the NIC's whole 400 Gb/s (one plane's runs)
            bound = manifest(next(iter(rows.values()))[1])["summary"]["lower_bound_us"]
        lines += [large_row(str(n), *rows[p], bound) for p in LARGE_POLICIES if p in rows]
    return lines


def table_large_failures(out, wl):
    base = policy_rows(Path(out) / wl / "p4")
    if not any((Path(out) / wl / f"fail-{kind}").exists() for kind in FAILURES):
        return None
    lines = [LFAIL_HEADER]
    for kind in FAILURES:
        rows = policy_rows(Path(out) / wl / f"fail-{kind}")
        for p in LARGE_POLICIES:
            if p not in rows:
                continue
            r, run_dir = rows[p]
            lost, rec = recovery(run_dir)
            unfin = unfinished(run_dir)
            cct = num(r["cct_us"]) if unfin == 0 else float("nan")
            b = num(base[p][0]["cct_us"]) if p in base else float("nan")
            lines.append(f"{kind:<7} {p:<11} {fmt_num(cct, 8)} "
                         f"{fmt_num(100 * (cct / b - 1), 7)} {fmt_num(num(r['fct_p99_us']), 10)} "
                         f"{lost:6d} {num(r['retx_bytes']) / MIB:10.2f} {fmt_num(rec, 10)} "
                         f"{unfin:5d}")
    return lines


TABLES = {
    "planes": (SMALL_HEADER, table_planes),
    "failure": (FAIL_HEADER, table_failure),
    "variants": (SMALL_HEADER, table_variants),
    "ring-512": (LARGE_HEADER, lambda out: table_large(out, "ring")),
    "moe-512": (LARGE_HEADER, lambda out: table_large(out, "moe")),
    "ring-512-failures": (LFAIL_HEADER, lambda out: table_large_failures(out, "ring")),
    "moe-512-failures": (LFAIL_HEADER, lambda out: table_large_failures(out, "moe")),
}

BLOCK = re.compile(r"<!-- table:(?P<name>[a-z0-9-]+):begin -->\n```\n(?P<body>.*?)```\n"
                   r"<!-- table:(?P=name):end -->", re.S)
CELL = r"(-?[0-9]+(\.[0-9]+)?|-)"


def row_pattern(header):
    """A regular expression for a row under `header`: the label and policy columns, then one
    number (or -) per remaining column."""
    n = len(header.split()) - 2
    return re.compile(r"^\S+ +[a-z-]+" + (r" +" + CELL) * n + r"$")


def check(readme):
    text = open(readme).read()
    found = {m["name"]: m["body"] for m in BLOCK.finditer(text)}
    errors = []
    for name, (header, _) in TABLES.items():
        if name not in found:
            errors.append(f"{readme}: no block <!-- table:{name}:begin --> ... end")
            continue
        lines = found[name].rstrip("\n").split("\n")
        if lines[0] != header:
            errors.append(f"{readme}: table {name}: header {lines[0]!r}, run.sh writes {header!r}")
        pat = row_pattern(header)
        for ln in lines[1:]:
            if not pat.match(ln):
                errors.append(f"{readme}: table {name}: row not in run.sh's format: {ln!r}")
        if len(lines) < 2:
            errors.append(f"{readme}: table {name}: no rows")
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


def render(out, readme=None):
    text = open(readme).read() if readme else None
    for name, (_, build) in TABLES.items():
        lines = build(out)
        if lines is None:
            continue
        print(f"{name}:\n" + "\n".join(lines) + "\n")
        if text is not None:
            new = f"<!-- table:{name}:begin -->\n```\n" + "\n".join(lines) + \
                  f"\n```\n<!-- table:{name}:end -->"
            text, count = BLOCK.subn(lambda m: new if m["name"] == name else m.group(0), text)
            if f"<!-- table:{name}:begin -->" not in text:
                sys.exit(f"tables.py: {readme} has no block for table {name}")
    if readme:
        open(readme, "w").write(text)


def main(argv):
    if len(argv) >= 3 and argv[1] == "check":
        return check(argv[2])
    if len(argv) == 3 and argv[1] == "render":
        render(argv[2])
        return 0
    if len(argv) == 5 and argv[1] == "render" and argv[3] == "--write":
        render(argv[2], argv[4])
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
