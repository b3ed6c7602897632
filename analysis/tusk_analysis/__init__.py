"""tusk_analysis: tables, statistics, plots and an HTML report for tusk results.

Reads only what a run writes (manifest.json, flows.csv, collectives.csv, links.csv,
timeseries.csv, comparison.csv, index.sqlite), never logs. Uses Debian's python3-pandas and
python3-matplotlib; run it with /usr/bin/python3 (a pyenv `python3` may lack them).

    from tusk_analysis import load_run, load_compare, load_sweep
    sw = load_sweep("results/policy-load")          # a `tusk sweep` results root
    sw.summary.groupby(["policy", "load"]).fct_p99_us.mean()
    sw.flows                                        # every run's flows.csv, axes in front
    policy_intervals("results/policy-load")         # per policy (and axis value), per metric:
                                                    # mean, lo, hi (95 % CI over seeds), n
    cmp = load_compare("results/default-ring-allreduce/compare-s1")
    run = load_run("results/default-ring-allreduce/ecmp-s1")   # .flows, .links, .summary

    /usr/bin/python3 -m tusk_analysis.report RESULTS_DIR   # what `tusk report` runs
"""

from .deps import require as _require

_require("numpy", "pandas", "scipy", who="tusk_analysis")

from .load import ResultsError, load_compare, load_run, load_sweep  # noqa: E402
from .stats import policy_intervals  # noqa: E402

__all__ = ["load", "stats", "plots", "report", "load_run", "load_compare", "load_sweep",
           "policy_intervals", "ResultsError"]
