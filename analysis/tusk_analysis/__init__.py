"""tusk_analysis: tables, statistics, plots and an HTML report for tusk results.

Reads only what a run writes (manifest.json, flows.csv, collectives.csv, links.csv,
timeseries.csv, comparison.csv, index.sqlite), never logs. Uses Debian's python3-pandas and
python3-matplotlib; run it with /usr/bin/python3 (a pyenv `python3` may lack them).

    from tusk_analysis import load, stats
    res = load.load_results("results/default-ring-allreduce/compare-s1")
    print(stats.comparison_table(res.runs))

    /usr/bin/python3 -m tusk_analysis.report RESULTS_DIR   # what `tusk report` runs
"""

__all__ = ["load", "stats", "plots", "report"]
