#!/usr/bin/python3
"""Markdown table of a sweep's metrics across seeds, for the READMEs of scenarios/papers/.

Usage: sweep_table.py SWEEP_DIR --by AXIS --metric NAME [--metric NAME ...] [--base LABEL]
                      [--where AXIS=LABEL ...] [--order LABEL,LABEL,...]

Reads SWEEP_DIR/sweep.csv (docs/sweeps.md), keeps the rows matching every --where, and prints
one row per value of the axis column AXIS (in --order, else as they come): for each metric
(a summary column of sweep.csv, docs/results-format.md) the mean over seeds with the two-sided
95 % Student-t half-width (tusk_analysis.stats.mean_ci, scipy) and the range over seeds; with
--base, each metric's ratio to the base row's, seed by seed (mean and range of the per-seed
ratios; "–" where the base is 0 in a seed). Exits 1 if a selected run is not `ok` or a row lacks a seed the others have.
"""
import argparse
import math
import sys
from pathlib import Path

# The analysis package: the checkout's analysis/ (this file in scenarios/papers/), else the one
# on PYTHONPATH (an installed tusk: sweeps.sh puts P/lib/python3/dist-packages there).
_checkout = Path(__file__).resolve().parent.parent.parent / "analysis"
if (_checkout / "tusk_analysis").is_dir():
    sys.path.insert(0, str(_checkout))
try:
    from tusk_analysis.stats import mean_ci  # noqa: E402  (exits 2 naming a missing package)
except ModuleNotFoundError as e:
    if e.name != "tusk_analysis":
        raise
    print("sweep_table.py: the tusk_analysis package is not on PYTHONPATH: run from a tusk "
          "checkout, or install tusk (cmake --install) and add P/lib/python3/dist-packages",
          file=sys.stderr)
    sys.exit(2)

import pandas as pd  # noqa: E402


def fmt(v):
    """Three significant digits, thousands separated above 1000."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.3g}" if abs(v) >= 1 else f"{v:.3f}"


def load(sweep_dir, where):
    path = Path(sweep_dir) / "sweep.csv"
    df = pd.read_csv(path, dtype=str)
    for cond in where:
        col, _, val = cond.partition("=")
        if col not in df.columns:
            sys.exit(f"sweep_table.py: {path}: no column {col!r} (--where {cond})")
        df = df[df[col] == val]
    if df.empty:
        sys.exit(f"sweep_table.py: {path}: no runs match {where}")
    bad = df[df["status"] != "ok"]
    if len(bad):
        sys.exit(f"sweep_table.py: {path}: runs not ok: {', '.join(bad['run_id'])}")
    return df


def table(df, by, metrics, base=None, order=None):
    """The markdown lines; df: sweep.csv rows (strings), by: the axis column."""
    labels = order or list(dict.fromkeys(df[by]))
    seeds = sorted(set(df["seed"]), key=int)
    vals = {}
    for lab in labels:
        part = df[df[by] == lab]
        if sorted(part["seed"], key=int) != seeds:
            sys.exit(f"sweep_table.py: {by}={lab}: seeds {sorted(part['seed'])}, expected {seeds}")
        vals[lab] = {m: part.set_index("seed")[m].astype(float) for m in metrics}
    head = [by] + [f"{m}: mean ± 95 % CI (min–max)" for m in metrics]
    if base:
        head += [f"{m} / {base} (min–max)" for m in metrics]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for lab in labels:
        cells = [f"`{lab}`"]
        for m in metrics:
            x = vals[lab][m]
            mu, hw = mean_ci(list(x))
            cells.append(f"{fmt(mu)} ± {fmt(hw)} ({fmt(x.min())}–{fmt(x.max())})")
        if base:
            for m in metrics:
                if (vals[base][m] == 0).any():
                    cells.append("–")  # no ratio to a zero
                    continue
                r = vals[lab][m] / vals[base][m]
                cells.append(f"{r.mean():.2f} ({r.min():.2f}–{r.max():.2f})")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sweep_dir")
    ap.add_argument("--by", required=True)
    ap.add_argument("--metric", action="append", required=True)
    ap.add_argument("--base")
    ap.add_argument("--where", action="append", default=[])
    ap.add_argument("--order")
    a = ap.parse_args()
    df = load(a.sweep_dir, a.where)
    order = a.order.split(",") if a.order else None
    print("\n".join(table(df, a.by, a.metric, a.base, order)))


if __name__ == "__main__":
    main()
