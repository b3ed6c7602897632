"""Summary statistics of tusk runs, computed in one place.

A run's headline numbers are the simulator's (the manifest's "summary", computed once by
tusk/run/run-summary.cc with tusk/run/stats.cc); this module reads them, and adds what spans runs
(confidence intervals across seeds) and the per-step tables. Its quantiles use the same
definitions as tusk/run/stats.cc: nearest rank by default (Hyndman & Fan type 1: the order
statistic of rank ceil(q n), an observed value, as FCT-slowdown papers and their simulators'
scripts report them), or linear interpolation between order statistics (type 7, numpy's and
pandas' default) on request: then the run's percentiles are taken again from its flows, the
only numbers not read from the manifest. The report and its tables use only this module. Confidence intervals across seeds are two-sided Student-t intervals of
the mean, with the t quantile from scipy.stats (Debian's python3-scipy).
"""

import math
import os

import pandas as pd
import scipy.stats

from . import load as _load

# --------------------------------------------------------------------------------------------
# Elementary statistics


def _finite(values):
    out = []
    for v in values:
        if v is None:
            continue
        f = float(v)
        if not math.isnan(f):
            out.append(f)
    return out


NEAREST_RANK = "nearest-rank"
LINEAR = "linear"
QUANTILE_METHODS = (NEAREST_RANK, LINEAR)
DEFAULT_QUANTILE_METHOD = NEAREST_RANK


def quantile(values, q, method=DEFAULT_QUANTILE_METHOD):
    """The q-quantile (0 <= q <= 1) of the finite values; NaN for an empty sample.

    nearest-rank (type 1): sorted x_1..x_n, x_k with k = ceil(q n) (k = 1 for q = 0), q n
    rounded to 1e-9 first so that 0.07 * 100 is rank 7 (as tusk/run/stats.cc).
    linear (type 7): h = (n - 1) q, x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h])
    counting from 0."""
    if not 0.0 <= q <= 1.0:
        raise ValueError("quantile: q must be in [0, 1], got %r" % (q,))
    if method not in QUANTILE_METHODS:
        raise ValueError("quantile: method must be one of %s, got %r"
                         % (", ".join(QUANTILE_METHODS), method))
    x = sorted(_finite(values))
    if not x:
        return math.nan
    if method == NEAREST_RANK:
        qn = q * len(x)
        k = math.ceil(qn - 1e-9 * max(1.0, qn))
        return x[min(max(k, 1), len(x)) - 1]
    h = (len(x) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(x) - 1)
    return x[lo] + (h - lo) * (x[hi] - x[lo])


def mean(values):
    x = _finite(values)
    return math.fsum(x) / len(x) if x else math.nan


def maximum(values):
    x = _finite(values)
    return max(x) if x else math.nan


# --------------------------------------------------------------------------------------------
# Confidence intervals across seeds (Student's t from scipy.stats)


def t_quantile(p, df):
    """Quantile of Student's t distribution with `df` degrees of freedom (scipy.stats.t.ppf)."""
    if not 0.0 < p < 1.0:
        raise ValueError("t_quantile: p must be in (0, 1)")
    return float(scipy.stats.t.ppf(p, df))


def mean_ci(values, level=0.95):
    """(mean, half-width) of the two-sided Student-t confidence interval of the mean.
    Half-width NaN with fewer than 2 values; 0 if all values are equal."""
    x = _finite(values)
    m = mean(x)
    n = len(x)
    if n < 2:
        return m, math.nan
    var = math.fsum((v - m) ** 2 for v in x) / (n - 1)
    return m, t_quantile(0.5 + level / 2.0, n - 1) * math.sqrt(var / n)


# --------------------------------------------------------------------------------------------
# Per-run and per-comparison summaries

#: Summary columns, their unit and a short description (the report's table header).
METRICS = [
    ("cct_us", "µs", "CCT of the slowest collective"),
    ("busbw_GBps", "GB/s", "bus bandwidth of that collective"),
    ("slowdown_mean", "", "FCT slowdown, mean"),
    ("slowdown_p50", "", "FCT slowdown, p50"),
    ("slowdown_p99", "", "FCT slowdown, p99"),
    ("slowdown_p999", "", "FCT slowdown, p99.9"),
    ("slowdown_max", "", "FCT slowdown, max"),
    ("fair_slowdown_mean", "", "collective-aware FCT slowdown (against the fair share), mean"),
    ("fair_slowdown_p99", "", "collective-aware FCT slowdown, p99"),
    ("fct_p99_us", "µs", "FCT p99"),
    ("uplink_util_max", "", "largest uplink mean utilisation"),
    ("uplink_util_mean", "", "mean uplink utilisation"),
    ("uplink_imbalance", "", "uplink bytes max / mean, per switch"),
    ("uplink_jain", "", "Jain's index of uplink bytes, per switch"),
    ("pause_fraction", "", "paused time / (ports × run time)"),
    ("credit_stall_fraction", "", "InfiniBand: credit-stall time / (ports × run time)"),
    ("drops", "packets", "frames dropped"),
    ("ecn_marks", "frames", "frames CE-marked by switches (ECN)"),
    ("cnps", "packets", "CNPs sent by receivers"),
    ("retx_packets", "packets", "data packets retransmitted"),
    ("ooo_packets", "packets", "data packets out of order"),
    ("unfinished", "flows", "transfers unfinished"),
]

#: Columns of links.csv / timeseries.csv that carry paused time in µs, if the run has them.
PAUSE_COLUMNS = ("paused_us", "paused_time_us", "pause_time_us", "pfc_paused_us")


def pause_column(df):
    """The paused-time column of a links or time-series table, or None."""
    if df is None:
        return None
    for c in PAUSE_COLUMNS:
        if c in df.columns:
            return c
    return None


def uplinks(links):
    """The uplink rows (switch -> higher-tier switch) of a links table."""
    return links[links["uplink"] == 1]


def slowest_collective(collectives):
    """The finished collective with the largest CCT (the one the summary reports), or None."""
    if collectives is None or collectives.empty:
        return None
    done = collectives[collectives["finished"] == 1]
    if done.empty:
        return None
    return done.loc[done["cct_us"].idxmax()]


#: run_summary key -> key of the manifest's "summary", where the names differ.
_MANIFEST_KEYS = {"pause_fraction": "pfc_paused_fraction"}

#: The percentiles, with their quantile and the flows.csv column they are of.
_PERCENTILES = {"slowdown_p50": (0.5, "slowdown"), "slowdown_p99": (0.99, "slowdown"),
                "slowdown_p999": (0.999, "slowdown"), "fct_p99_us": (0.99, "fct_us"),
                "fair_slowdown_p99": (0.99, "fair_slowdown")}


def _number(v):
    return math.nan if v is None else v


def run_summary(run, quantiles=DEFAULT_QUANTILE_METHOD):
    """Summary statistics of one run (a load.Run) as a dict of METRICS plus policy and seed.

    The simulator computes them once (tusk/run/run-summary.cc) and writes them into the
    manifest's "summary"; they are read from there, not recomputed from the tables. A value
    the run does not have (no finished collective, no uplinks) is NaN; so is a metric an
    older manifest lacks. Only when `quantiles` is not the method the simulator used (its
    "quantile_method", nearest rank) are the percentiles taken again from the finished flows."""
    m = run.manifest.get("summary") or {}
    s = {"policy": run.policy, "seed": run.seed}
    for key, _, _ in METRICS + [("fct_max_us", "", ""), ("algbw_GBps", "", ""),
                                ("lower_bound_us", "", "")]:
        s[key] = _number(m.get(_MANIFEST_KEYS.get(key, key)))
    if m.get("unfinished") is None:
        s["unfinished"] = _number(run.manifest.get("unfinished_transfers"))
    if quantiles not in QUANTILE_METHODS:
        raise ValueError("run_summary: quantiles must be one of %s, got %r"
                         % (", ".join(QUANTILE_METHODS), quantiles))
    if quantiles != m.get("quantile_method", NEAREST_RANK):
        done = run.flows[run.flows["finished"] == 1]
        for key, (q, column) in _PERCENTILES.items():
            if column in done.columns:  # (fair_slowdown: runs written before it lack it)
                s[key] = quantile(done[column].dropna().tolist(), q, quantiles)
    return s


def summary_table(runs, quantiles=DEFAULT_QUANTILE_METHOD):
    """One row per run (policy, seed, every METRIC): the tidy table behind the report."""
    rows = [run_summary(r, quantiles) for r in runs]
    return pd.DataFrame(rows)


def comparison_table(runs, level=0.95, quantiles=DEFAULT_QUANTILE_METHOD):
    """One row per policy: for each metric its mean over seeds, and where a policy has several
    seeds, `<metric>_ci` = the half-width of the `level` Student-t CI of that mean."""
    per_run = summary_table(runs, quantiles)
    out = []
    for policy in policy_order(per_run["policy"]):
        g = per_run[per_run["policy"] == policy]
        row = {"policy": policy, "seeds": len(g)}
        for key, _, _ in METRICS + [("fct_max_us", "", ""), ("algbw_GBps", "", ""),
                                    ("lower_bound_us", "", "")]:
            m, half = mean_ci(g[key].tolist(), level)
            row[key] = m
            row[key + "_ci"] = half
        out.append(row)
    return pd.DataFrame(out)


def policy_order(policies):
    """Policies in first-seen order, without repeats."""
    seen = []
    for p in policies:
        if p not in seen:
            seen.append(p)
    return seen


# --------------------------------------------------------------------------------------------
# Collective steps


def step_table(run):
    """Per collective and step: its end time, duration, the ideal step time and the flow the
    step waited for (the one whose last byte arrived last).

    Columns: collective_id, step, step_end_us, step_us, ideal_step_us, flow_id, src, dst,
    channel, fct_us, slowdown, retx_packets, ooo_packets, policy, seed."""
    rows = []
    if run.collectives is None or run.collectives.empty:
        return pd.DataFrame(rows)
    f = run.flows
    for _, c in run.collectives.iterrows():
        text = str(c["step_end_us"])
        if text in ("", "nan"):
            continue
        # An unfinished step's end is empty.
        ends = [float(x) if x not in ("", "nan") else math.nan for x in text.split(";")]
        lb = float(c["lower_bound_us"])
        ideal = lb / len(ends) if lb > 0 else math.nan
        prev = float(c["start_us"])
        cf = f[f["collective"] == c["collective_id"]]
        for step, end in enumerate(ends):
            sf = cf[(cf["step"] == step) & (cf["finished"] == 1)]
            done = end == end  # an unfinished step has no end in collectives.csv
            row = {"collective_id": int(c["collective_id"]), "step": step,
                   "step_end_us": end, "step_us": end - prev, "ideal_step_us": ideal}
            if not sf.empty:
                w = sf.loc[sf["finish_us"].idxmax()]
                row.update({"flow_id": int(w["flow_id"]), "src": int(w["src"]),
                            "dst": int(w["dst"]), "channel": int(w["channel"]),
                            "fct_us": float(w["fct_us"]), "slowdown": float(w["slowdown"]),
                            "retx_packets": int(w["retx_packets"]),
                            "ooo_packets": int(w["ooo_packets"])})
            elif not getattr(run, "flow_rows_written", True):
                # No flows.csv ([output] flow_rows = "summary"): the step's last-delivered
                # flow is still named by collectives.csv, its row is not there.
                slowest = str(c.get("step_slowest_flow", "")).split(";")
                if step < len(slowest) and slowest[step] not in ("", "nan", "-1"):
                    row["flow_id"] = int(float(slowest[step]))
            row["policy"] = run.policy
            row["seed"] = run.seed
            rows.append(row)
            prev = end if done else prev
    df = pd.DataFrame(rows)
    if not df.empty:
        for col in STEP_INT_COLUMNS + ("fct_us", "slowdown"):
            if col not in df.columns:  # no step had a flow row (no flows.csv)
                df[col] = math.nan
    return df


STEP_INT_COLUMNS = ("flow_id", "src", "dst", "channel", "retx_packets", "ooo_packets")


# --------------------------------------------------------------------------------------------
# Sweeps: per policy (and axis value), the mean over seeds with its confidence interval

#: The sweep.csv metrics a sweep report plots when present, with unit and description.
SWEEP_METRICS = [
    ("cct_us", "µs", "CCT of the slowest collective"),
    ("busbw_GBps", "GB/s", "bus bandwidth of that collective"),
    ("fct_p99_us", "µs", "FCT p99"),
    ("slowdown_p99", "ratio", "FCT slowdown p99"),
    ("slowdown_mean", "ratio", "FCT slowdown, mean"),
    ("retx_packets", "packets", "data packets retransmitted"),
    ("uplink_imbalance", "ratio", "uplink bytes max / mean"),
    ("pfc_paused_fraction", "fraction of time", "PFC paused fraction"),
    ("drops", "packets", "frames dropped"),
]
SWEEP_LEVEL = 0.95


def interval_table(summary, keys, metric, level=SWEEP_LEVEL):
    """Mean, CI bounds (lo, hi), CI half-width (ci95) and count (n) of `metric` over the rows
    of `summary` (one per run) for every combination of the `keys` columns, in order of first
    appearance; lo and hi are NaN with fewer than 2 values."""
    rows = []
    by = keys[0] if len(keys) == 1 else list(keys)  # a list of one groups by a 1-tuple
    for key, g in summary.groupby(by, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        values = pd.to_numeric(g[metric], errors="coerce").dropna().tolist()
        m, half = mean_ci(values, level) if values else (math.nan, math.nan)
        row = dict(zip(keys, key))
        row.update({"metric": metric, "mean": m, "lo": m - half, "hi": m + half,
                    "ci95": half, "n": len(values)})
        rows.append(row)
    return pd.DataFrame(rows)


def with_results(summary):
    """The sweep.csv rows of runs that have results (status ok or failed)."""
    return summary[summary["status"].isin(["ok", "failed"])]


def policy_intervals(sweep, by=None, metrics=None, level=SWEEP_LEVEL):
    """Per policy (and per value of each `by` axis) and per metric: the mean over seeds with
    its two-sided `level` Student-t confidence interval, from the runs that have results.

    sweep: a sweep results root (path), a load_sweep() Tables, or a sweep.csv DataFrame.
    by: axes to keep apart besides policy (default: every axis of the sweep but policy and
    seed; none for a DataFrame). metrics: summary columns (default: SWEEP_METRICS that the runs
    have). Returns a DataFrame with columns by..., policy, metric, unit, mean, lo, hi (the
    interval's bounds, NaN with one seed), ci95 (its half-width) and n (seeds), one row per
    policy per metric (per value of `by`), policies in the order of the sweep.
    Raises load.ResultsError if `sweep` is a path without sweep.csv."""
    axes = []
    if isinstance(sweep, (str, os.PathLike)):
        sweep = _load.load_sweep(sweep, tables=())
    if isinstance(sweep, _load.Tables):
        axes, sweep = sweep.axes, sweep.summary
    if by is None:
        by = [a for a in axes if a not in ("policy", "seed")]
    have = with_results(sweep)
    units = {m: u for m, u, _ in SWEEP_METRICS}
    if metrics is None:
        metrics = [m for m, _, _ in SWEEP_METRICS if m in have and have[m].notna().any()]
    parts = []
    for metric in metrics:
        t = interval_table(have, ["policy"] + list(by), metric, level)
        if not t.empty:
            t.insert(t.columns.get_loc("metric") + 1, "unit", units.get(metric, ""))
            parts.append(t[list(by) + [c for c in t.columns if c not in by]])
    if not parts:
        return pd.DataFrame(columns=list(by) + ["policy", "metric", "unit", "mean", "lo", "hi",
                                                "ci95", "n"])
    return pd.concat(parts, ignore_index=True)
