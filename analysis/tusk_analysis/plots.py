"""The report's plots. Each function takes a PlotContext and returns a Plot (a matplotlib
figure and a caption), a list of Plot and NotDrawn, or raises Skip with the reason the plot does
not apply to these results. The plots of waits, paths and congestion control are in
plots_waits.py; what they share in plot_base.py (re-exported here).

Conventions (the report's quality bar): every axis is labelled with its unit; every figure is
titled with the scenario and the policies it shows; a policy has the same colour in every plot
(policy_colors); sizes are those of a paper figure (7 in wide, 8-9 pt text).
"""

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from . import stats  # noqa: E402
from .plot_base import (  # noqa: F401 (re-exported: plots.STYLE, plots.figure_meta, ...)
    WIDTH_IN, STYLE, KNOWN, EXTRA, PALETTE, LINESTYLES,
    TITLE_CHARS, wrap_title, policy_colors, CATEGORICAL_LABELS, figure_meta, has_unit,
    meta_problems, Skip, Plot, NotDrawn, PlotContext, _fmt,
    _port, _natural_key, _share_x, _left_out)
from .plots_waits import (  # noqa: E402,F401 (re-exported)
    _failed_links, _wait_norm, cc_state, straggler_path, who_waited)

# --------------------------------------------------------------------------------------------


def fct_slowdown_cdf(ctx):
    """CDF of FCT slowdown per policy with mean, p50 and p99 marked on each curve."""
    many = len(ctx.policies) > MANY
    if many:
        fig, ax, leg_ax = _axes_with_legend_row(3.0, len(ctx.policies) + 3)
    else:
        fig, ax = plt.subplots(figsize=(WIDTH_IN, 3.0), layout="constrained")
    lo, hi, plotted = math.inf, 0.0, 0
    for p in ctx.policies:
        runs = ctx.runs_of(p)
        total = sum(len(r.flows) for r in runs)
        sd = np.sort(np.concatenate([r.flows.loc[r.flows["finished"] == 1, "slowdown"]
                                     .to_numpy(dtype=float) for r in runs]))
        if total == 0 or sd.size == 0:
            continue
        plotted += 1
        y = np.arange(1, sd.size + 1) / total
        col = ctx.colors[p]
        marks = [("mean", stats.mean(sd), "o"), ("p50", stats.quantile(sd, 0.5, ctx.quantiles), "^"),
                 ("p99", stats.quantile(sd, 0.99, ctx.quantiles), "s")]
        label = "%s: " % p + ", ".join("%s %s" % (n, _fmt(v)) for n, v, _ in marks)
        if sd.size < total:
            label += " (%d unfinished)" % (total - sd.size)
        ax.step(np.concatenate([[sd[0]], sd]), np.concatenate([[0.0], y]), where="post",
                color=col, lw=1.6, label=label)
        for _, v, m in marks:
            frac = np.searchsorted(sd, v, side="right") / total
            ax.plot([v], [frac], marker=m, color=col, mec="black", mew=0.8, ms=6.5,
                    ls="none", zorder=4)
        lo, hi = min(lo, sd[0]), max(hi, sd[-1])
    if plotted == 0:
        plt.close(fig)
        raise Skip("no finished flows")
    log = hi / max(lo, 1e-9) > 20
    if log:
        ax.set_xscale("log")
    ax.set_xlabel("FCT slowdown (FCT / ideal FCT, ratio%s)" % (", log scale" if log
                                                                      else ""))
    ax.set_ylabel("fraction of flows (CDF)")
    ax.set_ylim(0, 1.02)
    handles, labels = ax.get_legend_handles_labels()
    for n, m in (("mean", "o"), ("p50", "^"), ("p99", "s")):
        handles.append(Line2D([], [], marker=m, color="white", mec="black", mfc="#bbbbbb",
                              ms=6, ls="none"))
        labels.append(n)
    if many:
        leg_ax.legend(handles, labels, loc="upper center", ncol=2)
    else:
        ax.legend(handles, labels, loc="lower right", ncol=1)
    ax.set_title(ctx.title("CDF of FCT slowdown", width=88))
    seeds = " pooled over seeds" if len(ctx.seeds) > 1 else ""
    return Plot("fct_slowdown_cdf", "FCT slowdown CDF", fig,
                "Cumulative distribution of FCT slowdown (FCT divided by the FCT of the same "
                "flow alone on the idle fabric) over every transfer%s, one curve per policy. "
                "Markers: mean (circle), p50 (triangle), p99 (square). Unfinished flows count "
                "in the denominator, so such a curve stays below 1." % seeds)


def cct_busbw(ctx):
    """CCT and busbw per policy (bars, 95% CI over seeds) with the ideal as a line."""
    rows = [ctx.summary_row(p) for p in ctx.policies]
    if all(math.isnan(r["cct_us"]) for r in rows):
        raise Skip("no finished collective in this workload")
    n = len(rows)
    horiz = n > 6  # many policies: horizontal bars, policy names readable on the y axis
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(WIDTH_IN, 1.2 + 0.24 * n if horiz else 2.8),
                                 layout="constrained")
    x = np.arange(n)
    cols = [ctx.colors[p] for p in ctx.policies]
    # The ideal: the slowest collective's lower bound (ring all-reduce: 2(n-1)/n S/B); its
    # busbw is S x factor / bound.
    lb, ideal_bw, kind = math.nan, math.nan, ""
    run = ctx.first_run(ctx.policies[0])
    c = stats.slowest_collective(run.collectives)
    if c is not None:
        kind = c["kind"]
        if float(c["lower_bound_us"]) > 0:
            lb = float(c["lower_bound_us"])
            ideal_bw = float(c["bytes_per_rank"]) * float(c["busbw_factor"]) / lb / 1e3
    for ax, key, unit, ideal, ideal_name in (
            (a1, "cct_us", "µs", lb, "ideal (lower bound)"),
            (a2, "busbw_GBps", "GB/s", ideal_bw, "ideal (line rate)")):
        vals = np.array([r[key] for r in rows], dtype=float)
        ci = np.array([r[key + "_ci"] for r in rows], dtype=float)
        err = np.where(np.isfinite(ci), ci, 0.0)
        has_ci = bool((err > 0).any())
        top = max([0.0] + [v for v in vals + err if v == v] + ([ideal] if ideal == ideal
                                                                  else []))
        if horiz:
            ax.barh(x, vals, color=cols, height=0.65, edgecolor="black", linewidth=0.6,
                    xerr=err if has_ci else None, capsize=3)
        else:
            ax.bar(x, vals, color=cols, width=0.6, edgecolor="black", linewidth=0.6,
                   yerr=err if has_ci else None, capsize=4)
        for xi, v, e in zip(x, vals, err):
            if v == v:  # the label starts beyond the error bar, not on it
                if horiz:
                    ax.annotate(_fmt(v, 4), (v + e, xi), xytext=(3, 0),
                                textcoords="offset points", ha="left", va="center",
                                fontsize=7)
                else:
                    ax.annotate(_fmt(v, 4), (xi, v + e), xytext=(0, 2),
                                textcoords="offset points", ha="center", va="bottom",
                                fontsize=7.5 if n <= 4 else 6.5,
                                rotation=0 if n <= 4 else 90)
        if ideal == ideal:
            line = ax.axvline if horiz else ax.axhline
            line(ideal, color="black", ls="--", lw=1.1,
                 label="%s %s %s" % (ideal_name, _fmt(ideal, 4), unit))
            if horiz:
                ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), borderaxespad=0.2)
            else:
                ax.legend(loc="upper left")
        if horiz:
            ax.set_xlim(0, top * 1.3 if top > 0 else 1)
            ax.set_yticks(x)
            ax.set_yticklabels(ctx.policies if ax is a1 else [])
            ax.invert_yaxis()
            ax.grid(axis="y", visible=False)
        else:
            ax.set_ylim(0, top * (1.22 if n <= 4 else 1.6) if top > 0 else 1)
            ax.set_xticks(x)
            ax.set_xticklabels(ctx.policies, rotation=0 if n <= 4 else 45,
                               ha="center" if n <= 4 else "right")
            ax.set_xlabel("policy")
            ax.grid(axis="x", visible=False)
    if horiz:
        a1.set_xlabel("CCT (µs)")
        a2.set_xlabel("busbw (GB/s, 1e9 B/s)")
        a1.set_ylabel("policy")
        a1.set_title("collective completion time", pad=16)
        a2.set_title("bus bandwidth", pad=16)
        fig.suptitle(ctx.title("CCT and busbw"))
        return _cct_plot(ctx, fig, lb, kind)
    a1.set_ylabel("CCT (µs)")
    a2.set_ylabel("busbw (GB/s, 1e9 B/s)")
    a1.set_title("collective completion time")
    a2.set_title("bus bandwidth")
    fig.suptitle(ctx.title("CCT and busbw"))
    return _cct_plot(ctx, fig, lb, kind)


def _cct_plot(ctx, fig, lb, kind):
    ci_text = (" Error bars: 95%% Student-t confidence interval of the mean over %d seeds."
               % len(ctx.seeds)) if len(ctx.seeds) > 1 else ""
    lb_text = ("The dashed line is the ideal: the ring all-reduce lower bound 2(n−1)/n·S/B at "
               "the slowest rank's NIC, and the busbw it implies (the line rate)."
               if lb == lb else "No closed-form lower bound for a %s collective." % kind)
    return Plot("cct_busbw", "CCT and busbw", fig,
                "Collective completion time and bus bandwidth (nccl-tests definitions) of the "
                "slowest collective, per policy. " + lb_text + ci_text)


def _step_ends(a_end, f, steps, t0, col, ideal):
    """When each flow of each step finished, and when the step ended, against the ideal."""
    a_end.plot(f["step"], f["finish_us"] - t0, ls="none", marker="o", ms=2.2,
               color="#666666", alpha=0.45, label="a flow of the step finished")
    a_end.plot(steps["step"], steps["step_end_us"] - t0, color=col, lw=1.0,
               marker="*", ms=7.5, mfc=col, mec="black", mew=0.5,
               label="step end = the slowest flow finished")
    if ideal == ideal:
        a_end.plot(steps["step"], (steps["step"] + 1) * ideal, color="black", ls="--",
                   lw=1, label="ideal (lower bound × (step + 1) / steps)")
    a_end.set_ylabel("time since start (µs)")
    a_end.set_ylim(0, None)


def collective_steps(ctx, max_collectives=3):
    """Per-step time of each collective, the flow each step waited for highlighted."""
    plots = []
    run0 = ctx.first_run(ctx.policies[0])
    if run0.collectives is None or run0.collectives.empty:
        raise Skip("no collectives in this workload")
    cids = list(run0.collectives["collective_id"])[:max_collectives]
    for cid in cids:
        c0 = run0.collectives[run0.collectives["collective_id"] == cid].iloc[0]
        if len(str(c0["step_end_us"]).split(";")) <= 1:
            # One step (all-to-all "direct"): a per-step plot would be one bar; who_waited
            # draws each rank's wait instead.
            plots.append(NotDrawn("collective_steps_c%d" % cid,
                                  "collective %d (%s) has a single step" % (cid, c0["kind"])))
            continue
        n = len(ctx.policies)
        many = n > 4  # small multiples of the step times only, 3 a row (height capped)
        if many:
            nr = math.ceil(n / 3)
            fig, grid, leg_ax = _grid_with_legend(nr, 3, (WIDTH_IN, 1.0 + 1.7 * nr),
                                                  legend_h=0.5 / nr)
            step_axes = list(grid.ravel())
            for ax in step_axes[n:]:
                ax.axis("off")
            step_axes = step_axes[:n]
        else:
            fig, axes, leg_ax = _grid_with_legend(n, 2, (WIDTH_IN, 1.0 + 2.0 * n))
            step_axes = list(axes[:, 1])
        kind = ""
        ymax = {}
        for i, p in enumerate(ctx.policies):
            a_end, a_step = (None, step_axes[i]) if many else (axes[i, 0], axes[i, 1])
            run = ctx.first_run(p)
            steps = stats.step_table(run)
            steps = steps[steps["collective_id"] == cid] if not steps.empty else steps
            col = ctx.colors[p]
            c = run.collectives[run.collectives["collective_id"] == cid].iloc[0]
            kind = c["kind"]
            if a_end is not None:
                a_end.set_title("%s: when each step ended" % p, loc="left")
            a_step.set_title(p if many else "%s: step time" % p, loc="left")
            if steps.empty:
                a_step.text(0.5, 0.5, "no steps", transform=a_step.transAxes, ha="center")
                continue
            t0 = float(c["start_us"])
            f = run.flows[(run.flows["collective"] == cid) & (run.flows["finished"] == 1)]
            ideal = steps["ideal_step_us"].iloc[0]
            # Left: finish time of every flow of each step; the last one ends the step.
            if a_end is not None:
                _step_ends(a_end, f, steps, t0, col, ideal)
            # Right: step durations; the longest (up to three, apart) name their slowest flow.
            a_step.bar(steps["step"], steps["step_us"], width=0.75 if len(steps) <= 40 else 1.0,
                       color=col, edgecolor="black", linewidth=0.4 if len(steps) <= 40 else 0,
                       label="step time")
            if ideal == ideal:
                a_step.axhline(ideal, color="black", ls="--", lw=1,
                               label="ideal step %s µs" % _fmt(ideal, 3))
            labelled = []
            apart = int(0.15 * len(steps))  # a label is ~4 steps wide at 30 steps
            for _, w in steps.sort_values("step_us", ascending=False,
                                          kind="mergesort").iterrows():
                if len(labelled) == (1 if many else 3):
                    break
                if any(abs(w["step"] - x) <= apart for x in labelled):
                    continue  # keep the labels apart
                labelled.append(w["step"])
                if "src" in w and w["src"] == w["src"]:  # a step whose slowest flow is known
                    a_step.annotate("h%d→h%d" % (w["src"], w["dst"]),
                                    (w["step"], w["step_us"]), xytext=(0, 2),
                                    textcoords="offset points", va="bottom",
                                    ha=("center" if not many else "left"
                                        if w["step"] < 0.15 * len(steps) else "right"
                                        if w["step"] > 0.85 * len(steps) else "center"),
                                    fontsize=6.5)
            a_step.set_ylabel("step time (µs)")
            a_step.grid(axis="x", visible=False)
            ymax[i] = float(steps["step_us"].max())
            for ax in (a_end, a_step) if a_end is not None else (a_step,):
                ax.set_xlabel("step (index)")
                ax.set_xlim(-0.6, len(steps) - 0.4)
                ax.xaxis.set_major_locator(MaxNLocator(nbins=5 if many else "auto",
                                                       integer=True))
        # One y-scale for all policies, unless their longest steps differ by more than 10x
        # (a shared scale would flatten the faster policies' bars to nothing).
        pos = [v for v in ymax.values() if v > 0]
        shared = not pos or max(pos) <= 10 * min(pos)
        for i, ax in enumerate(step_axes):
            top = max(pos, default=0) if shared else ymax.get(i, 0)
            ax.set_ylim(0, top * 1.18 if top > 0 else 1)
        h1, l1 = ([], []) if many else axes[0, 0].get_legend_handles_labels()
        h2, l2 = step_axes[0].get_legend_handles_labels()
        keep = [(h, lbl) for h, lbl in zip(h1 + h2, l1 + l2)
                if many or not lbl.startswith("ideal step")]
        leg_ax.legend([h for h, _ in keep], [lbl for _, lbl in keep], loc="center", ncol=2)
        fig.suptitle(ctx.title("steps of collective %d (%s)%s" % (
            cid, kind, "" if shared else ", own y-scale per policy"), seeds=ctx.seeds[:1]))
        seed = "" if len(ctx.seeds) == 1 else " (first seed of each policy)"
        plots.append(Plot("collective_steps_c%d" % cid, "Per-step time, collective %d" % cid,
                          fig,
                          _steps_caption(cid, kind, seed, many, shared)))
    if not any(isinstance(p, Plot) for p in plots):
        raise Skip("; ".join(p.reason for p in plots))
    return plots


MANY = 3  # beyond this many series, a legend goes below the axes instead of inside


def _axes_with_legend_row(height, nlabels, ncol=2, line_in=0.15):
    """A figure (WIDTH_IN wide) with one axes of `height` inches and, below it, an empty
    axes holding a legend of nlabels entries in ncol columns (constrained layout in
    matplotlib 3.6 does not make room for a legend outside the axes)."""
    leg_h = 0.15 + line_in * math.ceil(nlabels / ncol)
    fig = plt.figure(figsize=(WIDTH_IN, height + leg_h), layout="constrained")
    gs = fig.add_gridspec(2, 1, height_ratios=[height, leg_h])
    ax = fig.add_subplot(gs[0, 0])
    leg_ax = fig.add_subplot(gs[1, 0])
    leg_ax.axis("off")
    return fig, ax, leg_ax


def _steps_caption(cid, kind, seed, many, shared):
    scale = ("a common scale" if shared else
             "each policy's own scale (their longest steps differ by more than 10×)")
    if many:
        return ("Steps of collective %d (%s)%s: the time of each step (end of the previous "
                "step to end of this one), one panel per policy, on %s; the dashed line is the "
                "ideal step; the longest steps (up to three, apart) name the hosts of the flow "
                "they waited for (the table below lists them). With more than four policies "
                "the per-flow finish times are not drawn (steps.csv has them)."
                % (cid, kind, seed, scale))
    return ("Steps of collective %d (%s)%s. Left: when each flow of a step finished (dots, µs "
            "since the collective started); a step ends when its slowest flow finishes "
            "(stars), the flow the step waited for; the dashed line is the ideal pace. Right: "
            "the time of each step (end of the previous step to end of this one) on %s; the "
            "longest steps (up to three, apart) name the hosts of the flow they waited for "
            "(the table below lists them)." % (cid, kind, seed, scale))


def _grid_with_legend(rows, cols, size, legend_h=0.22):
    """A constrained-layout figure of rows x cols axes and, below them, an empty full-width
    axes for a shared legend (matplotlib 3.6 has no legend placed outside the axes)."""
    fig = plt.figure(figsize=size, layout="constrained")
    gs = fig.add_gridspec(rows + 1, cols, height_ratios=[1.0] * rows + [legend_h * rows])
    axes = np.empty((rows, cols), dtype=object)
    for i in range(rows):
        for j in range(cols):
            axes[i, j] = fig.add_subplot(gs[i, j])
    leg_ax = fig.add_subplot(gs[rows, :])
    leg_ax.axis("off")
    return fig, axes, leg_ax


def _uplink_series(run):
    """Time series rows of the uplinks of a run, with a 'port' label; None if not sampled."""
    ts = run.timeseries
    if ts is None or ts.empty:
        return None
    up = stats.uplinks(run.links)[["link_id", "from", "to", "from_tier", "to_tier"]]
    return ts.merge(up, on=["link_id", "from", "to"], how="inner")


def _bin_matrix(times, values, weights, max_cols):
    """Average columns of `values` (ports x samples) into at most max_cols bins weighted by
    interval length; returns (matrix, bin edges)."""
    edges = np.concatenate([[times[0] - weights[0]], times])
    ncol = values.shape[1]
    if ncol <= max_cols:
        return values, edges
    groups = np.array_split(np.arange(ncol), max_cols)
    out = np.empty((values.shape[0], len(groups)))
    new_edges = [edges[0]]
    for j, g in enumerate(groups):
        w = weights[g]
        out[:, j] = (values[:, g] * w).sum(axis=1) / w.sum()
        new_edges.append(edges[g[-1] + 1])
    return out, np.array(new_edges)


def uplink_heatmap(ctx, max_cols=400):
    """Uplink utilisation, links x time, one panel per policy."""
    series = {p: _uplink_series(ctx.first_run(p)) for p in ctx.policies}
    if all(s is None for s in series.values()):
        raise Skip("no time series: run with `--set output.sample_us=10` (timeseries.csv)")
    if all(s is not None and s.empty for s in series.values()):
        raise Skip("the topology has no switch-to-switch uplinks")
    pols = [p for p in ctx.policies if series[p] is not None and not series[p].empty]
    n = len(pols)
    nports = max(len(series[p].groupby(["link_id", "from", "to"])) for p in pols)
    row_h = min(2.6, max(1.4, 0.11 * nports + 0.6))
    fig, axes = plt.subplots(n, 1, figsize=(WIDTH_IN, 0.7 + row_h * n), squeeze=False,
                             layout="constrained")
    im = None
    span = []
    for ax, p in zip(axes[:, 0], pols):
        s = series[p]
        ax.grid(False)
        ax.set_title("%s — %s" % (ctx.scenario, p), loc="left")
        s = s.assign(port=[_port(a, b) for a, b in zip(s["from"], s["to"])])
        piv = s.pivot_table(index="port", columns="time_us", values="util", aggfunc="sum")
        tiers = s.drop_duplicates("port").set_index("port")[["from_tier", "to_tier"]]
        order = sorted(piv.index, key=lambda q: (int(tiers.loc[q, "from_tier"]),
                                                 _natural_key(q)))
        piv = piv.reindex(order).fillna(0.0)
        times = piv.columns.to_numpy(dtype=float)
        interval = float(ctx.first_run(p).manifest.get("scenario", {})
                         .get("output", {}).get("sample_us") or 0) or \
            (times[1] - times[0] if len(times) > 1 else times[0])
        weights = np.diff(np.concatenate([[times[0] - interval], times]))
        mat, edges = _bin_matrix(times, piv.to_numpy(), weights, max_cols)
        span += [edges[0], edges[-1]]
        im = ax.imshow(mat, aspect="auto", interpolation="nearest", cmap="viridis", vmin=0,
                       vmax=1, extent=[edges[0], edges[-1], len(piv.index), 0])
        if len(piv.index) <= 32:
            ax.set_yticks(np.arange(len(piv.index)) + 0.5)
            ax.set_yticklabels(piv.index, fontsize=6 if len(piv.index) > 16 else 7)
            ax.set_ylabel("uplink")
        else:
            # Many uplinks: one tick per tier group (ToR -> agg, agg -> core, ...).
            groups = tiers.loc[piv.index].reset_index()
            ticks, labels, start = [], [], 0
            for (ft, tt), g in groups.groupby(["from_tier", "to_tier"], sort=False):
                ticks.append(start + len(g) / 2.0)
                labels.append("tier %d→%d\n(%d)" % (ft, tt, len(g)))
                start += len(g)
                if start < len(piv.index):
                    ax.axhline(start, color="white", lw=0.8)
            ax.set_yticks(ticks)
            ax.set_yticklabels(labels, fontsize=7)
            ax.set_ylabel("uplink (%d, by tier and name)" % len(piv.index))
        ax.set_xlabel("simulated time (µs)")
    if im is not None:
        cb = fig.colorbar(im, ax=axes[:, 0].tolist(), fraction=0.03, pad=0.02)
        cb.set_label("utilisation (fraction of line rate)")
    _share_x(axes[:, 0], span)
    fig.suptitle(ctx.title("uplink utilisation over time", policies=pols))
    return Plot("uplink_heatmap", "Uplink utilisation heatmap", fig,
                "Utilisation of every switch-to-switch uplink (rows) over simulated time "
                "(columns; a cell is one sampling interval, or the average of several on long "
                "runs), from timeseries.csv: wire bytes incl. PHY overhead / (rate × "
                "interval). The policies share one time axis: a run that ended earlier (its "
                "last transfer completed) leaves the rest of its row blank.%s" %
                _left_out(ctx.policies, pols, "not sampled"))


def uplink_byte_share(ctx, max_bars=32):
    """Share of all uplink bytes carried by each uplink, per policy (sum over seeds)."""
    shares = {}
    for p in ctx.policies:
        frames = [stats.uplinks(r.links)[["link_id", "from", "to", "tx_bytes"]]
                  for r in ctx.runs_of(p)]
        up = (pd.concat(frames).groupby(["link_id", "from", "to"], sort=False,
                                        as_index=False)["tx_bytes"].sum())
        up["port"] = [_port(a, b) for a, b in zip(up["from"], up["to"])]
        total = up["tx_bytes"].sum()
        up["share"] = 100.0 * up["tx_bytes"] / total if total > 0 else 0.0
        shares[p] = up
    nup = max(len(u) for u in shares.values())
    if nup == 0:
        raise Skip("the topology has no switch-to-switch uplinks")
    fair = 100.0 / nup
    many = len(ctx.policies) > MANY
    if many:
        fig, ax, leg_ax = _axes_with_legend_row(3.0, len(ctx.policies) + 1)
    else:
        fig, ax = plt.subplots(figsize=(WIDTH_IN, 3.0), layout="constrained")
    labels = {}
    for p in ctx.policies:
        row = ctx.summary_row(p)
        labels[p] = "%s (per switch: Jain %.3f, max/mean %.2f)" % (
            p, row["uplink_jain"], row["uplink_imbalance"])
    if nup <= max_bars:
        order = sorted(shares[ctx.policies[0]]["port"], key=_natural_key)
        x = np.arange(len(order))
        w = 0.8 / len(ctx.policies)
        for i, p in enumerate(ctx.policies):
            s = shares[p].set_index("port").reindex(order)["share"]
            ax.bar(x - 0.4 + w * (i + 0.5), s, width=w, color=ctx.colors[p], label=labels[p],
                   edgecolor="black", linewidth=0.3)
        froms = [q.split("→")[0] for q in order]
        for i in range(1, len(froms)):
            if froms[i] != froms[i - 1]:  # separate the switches: balance is per switch
                ax.axvline(i - 0.5, color="#999999", lw=0.6, ls=":")
        ax.set_xticks(x)
        ax.set_xticklabels(order, rotation=60, ha="right", fontsize=6.5 if nup > 16 else 7.5)
        ax.set_xlabel("uplink")
        ax.grid(axis="x", visible=False)
        ax.set_xlim(-0.6, len(order) - 0.4)
    else:
        for p in ctx.policies:
            s = np.sort(shares[p]["share"].to_numpy())[::-1]
            ax.step(np.arange(1, len(s) + 1), s, where="mid", color=ctx.colors[p], lw=1.6,
                    label=labels[p])
        ax.set_xlabel("uplink rank (sorted by share, largest first; %d uplinks)" % nup)
        ax.set_xlim(0.5, nup + 0.5)
    ax.axhline(fair, color="black", ls="--", lw=1, label="equal share %.2f %%" % fair)
    ax.set_ylabel("share of uplink bytes (%)")
    ax.set_ylim(0, None)
    if many:
        leg_ax.legend(*ax.get_legend_handles_labels(), loc="upper center", ncol=2)
    else:
        ax.legend(loc="upper right")
    ax.set_title(ctx.title("per-uplink byte share", width=88))
    return Plot("uplink_byte_share", "Per-uplink byte share", fig,
                "Share of all bytes sent on switch-to-switch uplinks carried by each uplink "
                "(links.csv tx_bytes%s). The dashed line is a perfectly balanced share; the "
                "legend gives Jain's index (1 = balanced) and max/mean of uplink bytes among "
                "the uplinks of each switch, combined over switches (the summary's "
                "definitions)." %
                (", summed over seeds" if len(ctx.seeds) > 1 else ""))


def _paused_total(ts):
    pc = stats.pause_column(ts)
    return float(ts[pc].sum()) if pc is not None and len(ts) else 0.0


def _paused_fraction(t, paused, max_points):
    """Paused fraction of each interval ending at t (µs), averaged into at most max_points
    bins: (bin end times, fraction of the bin paused, clipped to [0, 1])."""
    dt = np.diff(np.concatenate([[t[0] - (t[1] - t[0] if len(t) > 1 else t[0])], t]))
    if len(t) > max_points:
        groups = np.array_split(np.arange(len(t)), max_points)
        t = np.array([t[g[-1]] for g in groups])
        paused = np.array([paused[g].sum() for g in groups])
        dt = np.array([dt[g].sum() for g in groups])
    return t, np.clip(paused / np.maximum(dt, 1e-12), 0, 1)


NO_QUEUE_BYTES = 1500  # a queue that never held more than one Ethernet frame is "no queue"


def queue_timeline(ctx, top=4, max_points=300):
    """Queue depth of the most congested switch ports and, when PFC paused any port, the
    paused fraction over time of the most paused ports."""
    have = {p: ctx.first_run(p).timeseries for p in ctx.policies}
    if all(t is None or t.empty for t in have.values()):
        raise Skip("no time series: run with `--set output.sample_us=10` (timeseries.csv)")
    pols = [p for p in ctx.policies if have[p] is not None and not have[p].empty]
    pause = any(_paused_total(have[p]) > 0 for p in pols)
    n = len(pols)
    rows = 2 * n if pause else n
    fig, axes = plt.subplots(rows, 1, figsize=(WIDTH_IN, 0.7 + 1.75 * rows), squeeze=False,
                             layout="constrained")
    axes = axes[:, 0]
    peak = max((t["queue_bytes"].max() for t in have.values() if t is not None and len(t)),
               default=0)
    scale, unit = (2 ** 20, "MiB") if peak >= 2 ** 20 else (2 ** 10, "KiB")
    span = [0.0] + [have[p]["time_us"].max() for p in pols]
    for i, p in enumerate(pols):
        ts = have[p]
        ax = axes[2 * i if pause else i]
        ax.set_title("%s: the %d deepest switch egress queues" % (p, top), loc="left")
        ax.set_ylabel("queue (%s)" % unit)
        ax.set_xlabel("simulated time (µs)")
        ax.set_ylim(0, peak / scale * 1.08 if peak > 0 else 1)
        a2 = axes[2 * i + 1] if pause else None
        if a2 is not None:
            a2.set_title("%s: the %d most PFC-paused switch ports" % (p, top), loc="left")
            a2.set_ylabel("paused\n(fraction of interval)")
            a2.set_xlabel("simulated time (µs)")
            a2.set_ylim(0, 1.05)
        col = ctx.colors[p]
        key = ["link_id", "from", "to"]
        groups = {k: g for k, g in ts.groupby(key, sort=False)}
        peaks = ts.groupby(key, sort=False)["queue_bytes"].max()
        deepest = float(peaks.max()) if len(peaks) else 0.0
        peaks = peaks[peaks > NO_QUEUE_BYTES]
        if peaks.empty:
            ax.text(0.5, 0.5, "no queue: no switch egress queue held more than %d B\nat the "
                    "end of a sampling interval (the deepest: %d B)" % (NO_QUEUE_BYTES, deepest),
                    transform=ax.transAxes, ha="center", va="center", fontsize=8)
        for k, ((lid, frm, to), pk) in enumerate(
                peaks.sort_values(ascending=False, kind="mergesort").head(top).items()):
            s = groups[(lid, frm, to)]
            ax.plot(s["time_us"], s["queue_bytes"] / scale, color=col, ls=LINESTYLES[k % 4],
                    lw=1.2, label="%s (max %.2f %s)" % (_port(frm, to), pk / scale, unit))
        if not peaks.empty:
            ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=7)
        pc = stats.pause_column(ts)
        if a2 is not None and pc is not None:
            paused = ts.groupby(key, sort=False)[pc].sum()
            paused = paused[paused > 0].sort_values(ascending=False, kind="mergesort").head(top)
            for k, ((lid, frm, to), tot) in enumerate(paused.items()):
                s = groups[(lid, frm, to)]
                t, frac = _paused_fraction(s["time_us"].to_numpy(dtype=float),
                                           s[pc].to_numpy(dtype=float), max_points)
                a2.plot(t, frac, color=col, ls=LINESTYLES[k % 4], lw=1.2,
                        drawstyle="steps-pre",
                        label="%s (%.1f µs paused)" % (_port(frm, to), tot))
            if len(paused):
                a2.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=7)
            else:
                a2.text(0.5, 0.5, "no port was paused", transform=a2.transAxes, ha="center")
    _share_x(axes, span)
    fig.suptitle(ctx.title("queue depth%s" % (" and PFC pause" if pause else ""),
                           policies=pols))
    pause_text = ("Below each, the fraction of each interval that the transmitter of the most "
                  "paused switch ports was stopped by PFC PAUSE (paused_us / interval; summed "
                  "over priorities, so it can reach 1 per paused class)." if pause else
                  "No switch port was PFC-paused in these runs (or the results carry no "
                  "paused_us), so no pause timeline.")
    return Plot("queue_timeline", "Queue depth%s timeline" % (" and PFC pause" if pause else ""),
                fig,
                "Egress queue occupancy (all priorities, at the end of each sampling interval) "
                "of the %d switch ports with the deepest queue in each run, from "
                "timeseries.csv, on one time axis shared by the policies; a policy whose "
                "queues never held more than %d B says \"no queue\".%s %s" % (
                    top, NO_QUEUE_BYTES, _left_out(ctx.policies, pols, "not sampled"), pause_text))


def retx_ooo(ctx):
    """Retransmitted and out-of-order packets (and drops) per policy."""
    metrics = [("retx_packets", "retransmitted"), ("ooo_packets", "out of order"),
               ("drops", "dropped")]
    many = len(ctx.policies) > MANY
    if many:
        fig, ax, leg_ax = _axes_with_legend_row(2.8, len(ctx.policies), ncol=4)
    else:
        fig, ax = plt.subplots(figsize=(WIDTH_IN, 2.8), layout="constrained")
    x = np.arange(len(metrics))
    w = 0.8 / len(ctx.policies)
    allv, tops = [], []
    for i, p in enumerate(ctx.policies):
        row = ctx.summary_row(p)
        vals = np.array([row[k] for k, _ in metrics], dtype=float)
        ci = np.array([row[k + "_ci"] for k, _ in metrics], dtype=float)
        allv.extend(vals)
        xs = x - 0.4 + w * (i + 0.5)
        ax.bar(xs, np.where(vals > 0, vals, np.nan), width=w, color=ctx.colors[p],
               edgecolor="black", linewidth=0.5, label=p)
        err = np.where(np.isfinite(ci) & (vals > 0), ci, 0.0)
        tops.extend(vals + err)
        drawn = err > 0  # error bars only on drawn bars (no all-NaN error bar segments)
        if drawn.any():
            ax.errorbar(xs[drawn], vals[drawn], yerr=err[drawn], fmt="none", ecolor="black",
                        elinewidth=0.8, capsize=3)
        for xi, v, e in zip(xs, vals, err):
            ax.annotate("%d" % round(v) if v == v else "–", (xi, v + e if v > 0 else 1),
                        xytext=(0, 2), textcoords="offset points", ha="center", va="bottom",
                        fontsize=7 if not many else 6, rotation=90 if many else 0)
    pos = [v for v in allv if v > 0]
    log = bool(pos) and max(pos) / min(pos) > 50
    if log:
        ax.set_yscale("log")
        ax.set_ylim(0.8, np.nanmax(tops) * (30 if many else 6))
    else:
        ax.set_ylim(0, (np.nanmax(tops) if pos else 1) * (1.4 if many else 1.2))
    ax.set_xticks(x)
    ax.set_xlim(-0.5, len(metrics) - 0.5)
    ax.set_xticklabels([lbl for _, lbl in metrics])
    ax.set_ylabel("packets (count%s)" % (", log scale" if log else ""))
    ax.set_xlabel("data packets, summed over all flows (drops: every switch port)")
    ax.grid(axis="x", visible=False)
    if many:
        leg_ax.legend(*ax.get_legend_handles_labels(), loc="upper center", ncol=4)
    else:
        ax.legend(loc="upper right")
    ax.set_title(ctx.title("retransmissions, reordering and drops", width=88))
    return Plot("retx_ooo", "Retransmissions and reordering", fig,
                "Data packets retransmitted (go-back-N resends everything after a loss or NAK), "
                "data packets that arrived out of order, and frames dropped in the fabric, per "
                "policy%s. A bar of 0 is not drawn; its label says 0." %
                (" (mean over seeds, 95% CI)" if len(ctx.seeds) > 1 else ""))


ALL = [fct_slowdown_cdf, cct_busbw, collective_steps, who_waited, straggler_path,
       uplink_heatmap, uplink_byte_share, queue_timeline, retx_ooo, cc_state]


def make_all(results, quantiles=stats.DEFAULT_QUANTILE_METHOD):
    """Every plot that applies: returns (plots, skipped) with skipped = [(name, reason)]."""
    with plt.rc_context(STYLE):
        ctx = PlotContext(results, quantiles)
        plots, skipped = [], []
        for fn in ALL:
            try:
                out = fn(ctx)
            except Skip as e:
                skipped.append((fn.__name__, str(e)))
                continue
            for o in out if isinstance(out, list) else [out]:
                if isinstance(o, NotDrawn):
                    skipped.append((o.name, o.reason))
                else:
                    plots.append(o)
        return ctx, plots, skipped
