#!/usr/bin/env python3
"""A tusk sweep in pandas, in one call: copy these lines into a notebook.

    /usr/bin/python3 analysis/examples/sweep_in_pandas.py results/policy-load [METRIC]

Prints, for every policy and every value of the sweep's first axis besides policy and seed, the
mean of METRIC (default fct_p99_us) over seeds with its 95 % confidence interval, then the
99th-percentile FCT slowdown of the flows pooled over seeds, from the stacked flows table.
Needs Debian's python3-pandas and python3-scipy (/usr/bin/python3).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from tusk_analysis import load_sweep, stats  # noqa: E402


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    metric = argv[2] if len(argv) > 2 else "fct_p99_us"
    sw = load_sweep(argv[1])                     # summary, flows, collectives, links
    runs = sw.summary[sw.summary.status == "ok"]  # one row per run, the axes as columns
    x = next((a for a in sw.axes if a not in ("policy", "seed")), None)
    keys = ["policy"] + ([x] if x else [])
    print("%s: %d runs, axes %s; %s over seeds (mean, 95 %% CI half-width, n)"
          % (argv[1], len(sw.summary), ", ".join(sw.axes), metric))
    for key, values in runs.groupby(keys)[metric]:
        mean, half = stats.mean_ci(values.tolist())
        print("  %-28s %12.3f  ± %-10.3f n=%d" % (key, mean, half, values.count()))

    flows = sw.flows[sw.flows.finished == 1]      # every run's flows.csv, axes in front
    p99 = flows.groupby(keys).slowdown.quantile(0.99)
    print("FCT slowdown p99 of the pooled flows:")
    print(p99.to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
