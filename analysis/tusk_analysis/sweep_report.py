"""`tusk report SWEEP_ROOT`: each summary metric of a sweep per policy, the mean over seeds with
its two-sided 95 % Student-t confidence interval (scipy.stats.t), as PNG + SVG plots,
sweep_summary.csv and one self-contained report.html in SWEEP_ROOT/report/.

A sweep of policies and seeds only (the commonest) gets one plot per metric: a point per
policy with its interval. A sweep with further axes gets each metric against each of them, one
line per policy; the axes other than the plotted one and the seed split the figure into panels
(one per combination of their values, at most MAX_PANELS). Runs without results (status error
or pending) are left out and counted in the report.

From Python, `tusk_analysis.policy_intervals(sweep)` (stats.py) gives the table behind the
plots.
"""

import datetime
import json
import math
import os
import sys

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd

from . import load, plots, stats
from .report_parts import CSS, esc, fmt_ci, fmt_num, save_figure, staged

MAX_PANELS = 6
#: The interval table's headers in the HTML (sweep_summary.csv keeps the column names).
HEADERS = {"lo": "95 % CI low", "hi": "95 % CI high", "ci95": "± half-width",
           "n": "seeds"}
LEVEL = stats.SWEEP_LEVEL
METRICS = stats.SWEEP_METRICS


def summarise(summary, x, group, metric, level=LEVEL):
    """stats.interval_table of `metric` for every (group..., x); x may be None."""
    return stats.interval_table(summary, group + ([x] if x is not None else []), metric, level)


def axis_label(metric, unit):
    return metric + (" (%s)" % unit if unit else "")


def policy_figure(rows, metric, unit, what, colors, seeds, name=""):
    """One figure: `metric` per policy, each the mean over seeds (a point) with its 95 %
    interval (an error bar), from policy_intervals rows of that metric (one per policy)."""
    n = len(rows)
    fig, ax = plt.subplots(figsize=(plots.WIDTH_IN, 2.8), layout="constrained")
    x = list(range(n))
    for i, r in enumerate(rows.itertuples(index=False)):
        half = r.ci95 if r.ci95 == r.ci95 else 0.0
        ax.errorbar([i], [r.mean], yerr=[[half], [half]], color=colors.get(r.policy),
                    marker="o", ms=6, capsize=5, lw=1.6, mec="black", mew=0.5,
                    label=r.policy)
    ax.set_xticks(x)
    ax.set_xticklabels(list(rows["policy"]), rotation=0 if n <= 6 else 45,
                       ha="center" if n <= 6 else "right")
    ax.set_xlim(-0.6, n - 0.4)
    ax.set_xlabel("policy")
    ax.set_ylabel(axis_label(metric, unit))
    ax.grid(axis="x", visible=False)
    lows = rows["lo"].where(rows["lo"].notna(), rows["mean"])
    if lows.min() >= 0:
        ax.set_ylim(bottom=0)
    ci = ("mean ± 95 %% CI over %d seeds" % seeds) if seeds > 1 else "one seed: no CI"
    ax.set_title(plots.wrap_title("%s%s (%s) per policy (%s)" % (
        name + ": " if name else "", what, metric, ci)))
    return fig


def _x_positions(values):
    """Numeric axis values as they are; labels at 0, 1, 2, ... in order of appearance."""
    if pd.api.types.is_numeric_dtype(values):
        return None
    order = list(dict.fromkeys(values))
    return {v: i for i, v in enumerate(order)}


def metric_figure(summary, metric, unit, x, panels_by, colors, seeds, x_key="", name=""):
    """One figure: `metric` against axis `x`, a line per policy, a panel per combination of
    the `panels_by` axes. Returns (figure, table) or (None, reason)."""
    data = summary[summary[metric].notna()] if metric in summary else summary.iloc[0:0]
    if data.empty:
        return None, "no run has %s" % metric
    panel_keys = [()] if not panels_by else list(
        dict.fromkeys(tuple(r) for r in data[panels_by].itertuples(index=False)))
    if len(panel_keys) > MAX_PANELS:
        return None, "%d panels (more than %d combinations of %s)" % (
            len(panel_keys), MAX_PANELS, ", ".join(panels_by))
    table = summarise(data, x, ["policy"] + panels_by, metric)
    ncol = min(3, len(panel_keys))
    nrow = math.ceil(len(panel_keys) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(plots.WIDTH_IN, 2.6 * nrow + 0.6),
                             squeeze=False, sharey=True)
    positions = _x_positions(data[x])
    for i, pk in enumerate(panel_keys):
        ax = axes[i // ncol][i % ncol]
        sel = table
        for col, v in zip(panels_by, pk):
            sel = sel[sel[col] == v]
        groups = list(sel.groupby("policy", sort=False))
        xs_all = pd.Series(list(positions.values())) if positions else data[x]
        span = float(xs_all.max() - xs_all.min()) or 1.0
        for j, (policy, g) in enumerate(groups):
            # Dodge the policies a little so that equal means do not hide each other's bars.
            dodge = (j - (len(groups) - 1) / 2) * 0.012 * span
            xs = (g[x].map(positions) if positions else g[x]) + dodge
            ax.errorbar(xs, g["mean"], yerr=g["ci95"].fillna(0), label=policy,
                        color=colors.get(policy), marker="o", ms=3.5, capsize=3, lw=1.2,
                        ls=plots.LINESTYLES[j // 10 % len(plots.LINESTYLES)])
        if positions:
            ax.set_xticks(list(positions.values()))
            ax.set_xticklabels([str(k) for k in positions])
        # The axis's unit is its scenario key's (`tusk keys`); the label names that key.
        ax.set_xlabel("%s (sweep axis%s)" % (x, ": " + x_key if x_key and x_key != x else ""))
        ax.set_ylabel(axis_label(metric, unit))
        if panels_by:
            ax.set_title(", ".join("%s=%s" % (c, v) for c, v in zip(panels_by, pk)), fontsize=8)
        ax.grid(True, alpha=0.3)
    for k in range(len(panel_keys), nrow * ncol):
        axes[k // ncol][k % ncol].set_visible(False)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(5, len(labels)), fontsize=7,
               frameon=False)
    ci = ("mean ± 95 %% CI over %d seeds" % seeds) if seeds > 1 else "one seed: no CI"
    fig.suptitle(plots.wrap_title("%s%s against %s, per policy (%s)" % (
        name + ": " if name else "", metric, x, ci)),
                 fontsize=9)
    fig.tight_layout(rect=(0, 0.08 + 0.03 * math.ceil(len(labels) / 5), 1, 0.95))
    return fig, table


def write_sweep_report(root, out_dir=None):
    """Write the report of a sweep results root. Returns (report.html, plot names, skipped)."""
    sw = load.load_sweep(root, tables=())
    summary = sw.summary
    have = stats.with_results(summary).copy()
    if have.empty:
        raise load.ResultsError("%s: no run of this sweep has results yet" % root)
    seeds = have["seed"].nunique()
    xaxes = [a for a in sw.axes if a not in ("policy", "seed")]
    colors = plots.policy_colors(list(dict.fromkeys(have["policy"])))
    out_dir = os.path.abspath(out_dir or os.path.join(sw.path, "report"))
    rendered, skipped, tables = [], [], []

    def keep(fig, name, title, caption, stem_dir):
        stem = os.path.join(stem_dir, name)
        save_figure(fig, stem)
        meta = plots.figure_meta(fig)
        plt.close(fig)
        with open(stem + ".png", "rb") as fh:
            rendered.append((name, title, caption, fh.read(), meta))

    ci_text = ("Each point is the mean over the %d seeds; the error bar is the two-sided "
               "95 %% Student-t confidence interval of that mean." % seeds if seeds > 1 else
               "One seed: each point is that run's value, without an interval.")
    with staged(out_dir) as staging:
        with matplotlib.pyplot.rc_context(plots.STYLE):
            for metric, unit, what in METRICS:
                if metric not in have or have[metric].isna().all():
                    continue
                if (pd.to_numeric(have[metric], errors="coerce").fillna(0) == 0).all():
                    skipped.append((metric, "0 in every run"))
                    continue
                if not xaxes:
                    rows = stats.policy_intervals(have, by=[], metrics=[metric])
                    name = "%s_by_policy" % metric
                    keep(policy_figure(rows, metric, unit, what, colors, seeds,
                                       os.path.basename(sw.path)), name,
                         "%s (%s) per policy" % (what, metric),
                         "%s (%s) of each policy. %s Numbers: the table below and "
                         "sweep_summary.csv (mean, lo, hi per policy)." % (
                             what, axis_label(metric, unit), ci_text), staging)
                    tables.append(rows.drop(columns="unit").assign(axis="policy"))
                for x in xaxes:
                    others = [a for a in xaxes if a != x]
                    name = "%s_vs_%s" % (metric, x)
                    fig, table = metric_figure(have, metric, unit, x, others, colors, seeds,
                                               sw.axis_keys.get(x, ""),
                                               os.path.basename(sw.path))
                    if fig is None:
                        skipped.append((name, table))
                        continue
                    tables.append(table.assign(axis=x))
                    keep(fig, name, "%s (%s) against %s" % (what, metric, x),
                         "%s (%s) against the sweep axis %s, one line per policy%s. %s" % (
                             what, axis_label(metric, unit), x,
                             (", a panel per value of %s" % ", ".join(others)) if others
                             else "", ci_text), staging)
        table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()
        table.to_csv(os.path.join(staging, "sweep_summary.csv"), index=False)
        text = build_html(sw, summary, have, rendered, skipped, table, seeds)
        with open(os.path.join(staging, "report.html"), "w", encoding="utf-8") as fh:
            fh.write(text)
    return os.path.join(out_dir, "report.html"), [r[0] for r in rendered], skipped


def build_html(sw, summary, have, rendered, skipped, table, seeds):
    import base64

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    name = os.path.basename(sw.path)
    counts = summary["status"].value_counts().to_dict()
    h = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
         "<title>tusk sweep report: %s</title>" % esc(name),
         "<style>%s</style>" % CSS, "</head><body>",
         "<h1>tusk sweep report: %s</h1>" % esc(name),
         '<p class="note">%s · %d runs (%s) · axes: %s · %d seed(s) · generated %s · pandas %s, '
         'matplotlib %s, Python %s</p>' % (
             esc(sw.path), len(summary),
             ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items())),
             esc(", ".join(sw.axes)), seeds, now, pd.__version__, matplotlib.__version__,
             sys.version.split()[0])]
    if len(have) < len(summary):
        missing = summary[~summary["status"].isin(["ok", "failed"])]
        h.append('<p class="note">Left out (no results): %s</p>' % esc(", ".join(
            "%s (%s)" % (r.run_id, r.status) for r in missing.itertuples())))
    h.append("<p>Each point is the mean over seeds; error bars are two-sided %d %% Student-t "
             "confidence intervals of the mean (scipy.stats.t), absent with one seed.</p>"
             % round(LEVEL * 100))
    for pname, title, caption, png, meta in rendered:
        h.append('<figure id="%s" data-meta="%s"><h2>%s</h2>' % (
            esc(pname), esc(json.dumps(meta, ensure_ascii=False)), esc(title)))
        h.append('<img src="data:image/png;base64,%s" alt="%s" data-plot="%s">' % (
            base64.b64encode(png).decode("ascii"), esc(title), esc(pname)))
        h.append('<figcaption>%s <a href="%s.svg">SVG</a> · <a href="%s.png">PNG</a>'
                 "</figcaption></figure>" % (esc(caption), esc(pname), esc(pname)))
    for pname, why in skipped:
        h.append('<p class="note">not drawn: %s: %s</p>' % (esc(pname), esc(why)))
    if not table.empty:
        h.append("<h2>Means and 95 % confidence intervals</h2>")
        stat_cols = ["mean", "lo", "hi", "ci95", "n"]
        cols = [c for c in table.columns if c not in stat_cols] + stat_cols
        h.append('<table class="data"><thead><tr>%s</tr></thead><tbody>' % "".join(
            "<th>%s</th>" % esc(HEADERS.get(c, c)) for c in cols))
        for _, r in table[cols].iterrows():
            cells = []
            for c in cols:
                v = r[c]
                if c == "ci95":
                    cells.append("±" + fmt_ci(v) if not pd.isna(v) else "–")
                elif c in ("mean", "lo", "hi"):
                    cells.append(fmt_num(v))
                else:
                    cells.append(esc(v))
            h.append("<tr>%s</tr>" % "".join("<td>%s</td>" % c for c in cells))
        h.append("</tbody></table>")
    h.append("</body></html>\n")
    return "\n".join(h)


