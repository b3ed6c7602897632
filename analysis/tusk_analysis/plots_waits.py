"""The report's plots of who waited (waits.csv), the straggler's path (flows.csv paths on the
topology) and congestion-control state over time (cc_trace.csv); plots.py runs them with the
others (plots.ALL)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .plot_base import (  # noqa: E402
    LINESTYLES, WIDTH_IN, Plot, Skip, _fmt, _left_out, _natural_key, _share_x,
    wrap_title)

# -------------------------------------------------------------------------------------------
# Who waited (waits.csv, docs/results-format.md)


def _waited_collective(run):
    """The collective of `run` whose ranks waited longest in total (its id), or None."""
    w = run.waits
    if w is None or w.empty or w["wait_us"].isna().all():
        return None
    return int(w.groupby("collective")["wait_us"].sum().idxmax())


def who_waited(ctx, max_ranks=256, max_steps=400):
    """Per-rank wait over the steps of the collective that waited most, one panel per policy."""
    runs = {p: ctx.first_run(p) for p in ctx.policies}
    if all(r.waits is None for r in runs.values()):
        raise Skip("no waits.csv (runs written before it existed)")
    chosen = {p: _waited_collective(r) for p, r in runs.items()}
    if all(c is None for c in chosen.values()):
        raise Skip("no collective in these runs")
    pols = [p for p in ctx.policies if chosen[p] is not None]
    n = len(pols)
    fig, axes = plt.subplots(n, 1, figsize=(WIDTH_IN, 0.8 + 2.4 * n), squeeze=False,
                             layout="constrained")
    im = None
    norm = _wait_norm([runs[p].waits[runs[p].waits["collective"] == chosen[p]]["delay"]
                       for p in pols])
    cmap = matplotlib.colormaps["magma"].copy()
    cmap.set_bad("white")  # no wait at all (0) or no data: white, apart from the scale
    for ax, p in zip(axes[:, 0], pols):
        ax.grid(False)
        c = chosen[p]
        coll = runs[p].collectives
        w = runs[p].waits
        w = w[w["collective"] == c]
        row = coll[coll["collective_id"] == c].iloc[0]
        title = "%s — collective %d (%s, %d ranks): %s ranks waited > 10 %% of a step" % (
            p, c, row["kind"], row["ranks"], row.get("ranks_delayed_10pct", "?"))
        ax.set_title(wrap_title(title), loc="left")
        steps = int(w["step"].max()) + 1
        if steps == 1:
            # One step (all-to-all "direct"): each rank's wait as a line over the ranks.
            per = w.groupby("rank")["wait_us"].sum()
            ax.grid(True)
            ax.plot(per.index, per.values, color=ctx.colors[p], lw=1.2)
            ax.fill_between(per.index, 0, per.values, color=ctx.colors[p], alpha=0.25)
            ax.set_xlabel("rank (index)")
            ax.set_ylabel("wait (µs)")
            continue
        piv = w.pivot_table(index="rank", columns="step", values="delay", aggfunc="max")
        piv = piv.reindex(columns=range(steps))
        mat = piv.to_numpy(dtype=float)
        if mat.shape[1] > max_steps:  # many steps: the largest delay of each group of steps
            k = int(np.ceil(mat.shape[1] / max_steps))
            pad = (-mat.shape[1]) % k
            mat = np.pad(mat, ((0, 0), (0, pad)), constant_values=np.nan)
            mat = np.nanmax(mat.reshape(mat.shape[0], -1, k), axis=2)
        im = ax.imshow(np.ma.masked_where(~(mat > 0), mat), aspect="auto",
                       interpolation="nearest", cmap=cmap, norm=norm,
                       extent=[0, steps, mat.shape[0], 0])
        if not (mat > 0).any():
            ax.text(0.5, 0.5, "no rank waited", transform=ax.transAxes, ha="center",
                    va="center")
        ax.set_xlabel("step (index, in time order)")
        ax.set_ylabel("rank (index)")
    if im is not None:
        cb = fig.colorbar(im, ax=axes[:, 0].tolist(), fraction=0.03, pad=0.02)
        cb.set_label("wait / the step's ideal time (ratio, log scale)")
    fig.suptitle(ctx.title("who waited", policies=pols))
    return Plot("who_waited", "Who waited", fig,
                "For the collective whose ranks waited longest: each rank's wait in each step "
                "(rows: ranks, columns: steps in time order), as a multiple of the step's ideal "
                "time — the time its data arrived after the rank was ready, beyond what that "
                "data needs alone on the idle fabric (waits.csv), on one logarithmic colour "
                "scale shared by the policies from the smallest wait to the largest (nothing "
                "clipped; white: no wait). A one-step collective shows each rank's wait in µs. "
                "A slow link shows as the ranks downstream of it lighting up first, then the "
                "lateness travelling round the ring.%s" %
                _left_out(ctx.policies, pols, "no collective"))


def _wait_norm(delays):
    """A logarithmic colour scale over every positive wait in `delays` (Series of waits as a
    multiple of the ideal step time): from the smallest to the largest, so that no wait is
    clipped; the range is at most 1e4 wide (smaller waits take the lowest colour)."""
    pos = np.concatenate([d.to_numpy(dtype=float) for d in delays] + [np.array([])])
    pos = pos[np.isfinite(pos) & (pos > 0)]
    if pos.size == 0:
        return matplotlib.colors.LogNorm(vmin=0.01, vmax=1.0)
    hi = float(pos.max())
    lo = max(float(pos.min()), hi * 1e-4)
    if lo >= hi:
        lo = hi / 10.0
    return matplotlib.colors.LogNorm(vmin=lo, vmax=hi, clip=True)


def _failed_links(run):
    """(from, to), both directions, of every link a [[failures]] entry acts on (the scenario in
    the manifest, drawn failures included): a link entry's cable, every link of a failed switch,
    a failed NIC's host link(s)."""
    out = set()
    links = run.links
    ends = list(zip(links["from"], links["to"])) if links is not None else []
    for f in run.manifest.get("scenario", {}).get("failures", []) or []:
        if f.get("link"):
            a, _, b = str(f["link"]).partition("-")
            out.add((a, b))
            out.add((b, a))
            continue
        if f.get("switch"):
            node = str(f["switch"])
        elif f.get("host") is not None:
            node = "host%d" % int(f["host"])
        else:
            continue
        for a, b in ends:
            if node in (a, b):
                out.add((a, b))
                out.add((b, a))
    return out


def _layers(links):
    """Node positions by tier: hosts in a row at the bottom, each switch tier above it."""
    tier = {}
    for frm, ft, to, tt in zip(links["from"], links["from_tier"], links["to"], links["to_tier"]):
        tier[frm] = int(ft)
        tier[to] = int(tt)
    pos = {}
    for t in sorted(set(tier.values())):
        names = sorted((n for n in tier if tier[n] == t), key=_natural_key)
        for i, name in enumerate(names):
            pos[name] = ((i + 0.5) / len(names), float(t))
    return pos


MAX_SWITCH_NAMES = 24  # beyond this many switches, only those on the path are named


def straggler_path(ctx):
    """The critical flow's path(s) drawn on the topology, one panel per policy."""
    runs = {p: ctx.first_run(p) for p in ctx.policies}
    picks = {}
    for p, r in runs.items():
        c = _waited_collective(r)
        if c is None or "critical_flow" not in r.collectives.columns or "paths" not in r.flows:
            continue
        row = r.collectives[r.collectives["collective_id"] == c].iloc[0]
        if row["critical_flow"] != row["critical_flow"]:  # NaN: unfinished
            continue
        flow = r.flows[r.flows["flow_id"] == int(row["critical_flow"])].iloc[0]
        if not isinstance(flow["paths"], str) or not flow["paths"]:
            continue
        picks[p] = (c, row, flow)
    if not picks:
        raise Skip("no finished collective with a recorded path (flows.csv `paths`)")
    pols = [p for p in ctx.policies if p in picks]
    n = len(pols)
    fig, axes = plt.subplots(n, 1, figsize=(WIDTH_IN, 0.6 + 2.6 * n), squeeze=False,
                             layout="constrained")
    for ax, p in zip(axes[:, 0], pols):
        ax.grid(False)
        ax.set_xticks([])
        ax.set_yticks([])
        for side in ax.spines.values():
            side.set_visible(False)
        run = runs[p]
        c, row, flow = picks[p]
        links = run.links
        pos = _layers(links)
        names = dict(zip(zip(links["link_id"], links["from"]), links["to"]))
        failed = _failed_links(run)
        seen = set()
        for frm, to in zip(links["from"], links["to"]):
            key = tuple(sorted((frm, to)))
            if key in seen:
                continue
            seen.add(key)
            (x0, y0), (x1, y1) = pos[frm], pos[to]
            bad = (frm, to) in failed
            # A failed link is drawn above the red path, so it shows where the path crosses it.
            ax.plot([x0, x1], [y0, y1], color="#e67e22" if bad else "#cccccc",
                    lw=2.2 if bad else 0.4, ls="--" if bad else "-", zorder=5 if bad else 1)
        items = [it.rsplit(":", 1) for it in flow["paths"].split("|")]
        total = sum(int(k) for _, k in items) or 1
        on_path = set()
        for path, k in items:
            at = "host%d" % int(flow["src"])
            xs, ys = [pos[at][0]], [pos[at][1]]
            for lid in path.split(">"):
                at = names.get((int(lid), at), at)
                on_path.add(at)
                xs.append(pos[at][0])
                ys.append(pos[at][1])
            ax.plot(xs, ys, color="#c0392b", lw=0.8 + 3.5 * int(k) / total, alpha=0.85, zorder=3)
        tiers = sorted({y for _, y in pos.values()})
        for t in tiers:
            pts = [xy for xy in pos.values() if xy[1] == t]
            ax.scatter([x for x, _ in pts], [y for _, y in pts], s=6 if len(pts) > 64 else 14,
                       color="#34495e", zorder=4)
        for end in (int(flow["src"]), int(flow["dst"])):
            x, y = pos["host%d" % end]
            ax.annotate("host%d" % end, (x, y), xytext=(0, -11), textcoords="offset points",
                        ha="center", fontsize=7)
        # Switch names: every switch on a small fabric, else those the path crosses.
        switches = [nm for nm, (_, y) in pos.items() if y > min(tiers)]
        for nm in switches if len(switches) <= MAX_SWITCH_NAMES else \
                [nm for nm in switches if nm in on_path]:
            x, y = pos[nm]
            ax.annotate(nm, (x, y), xytext=(0, 5), textcoords="offset points", ha="center",
                        va="bottom", fontsize=6.5, color="#c0392b" if nm in on_path else "#34495e",
                        zorder=6)
        ax.set_ylim(min(tiers) - 0.45, max(tiers) + 0.4)
        ax.set_title(wrap_title("%s — collective %d: flow %d (host%d → host%d), slowdown %s, "
                                "%d path%s" % (p, c, int(flow["flow_id"]), int(flow["src"]),
                                                int(flow["dst"]), _fmt(flow["slowdown"]),
                                                len(items), "" if len(items) == 1 else "s")),
                     loc="left")
    fig.suptitle(ctx.title("the straggler's path", policies=pols))
    return Plot("straggler_path", "The straggler's path", fig,
                "The straggler of the critical path of the collective whose ranks waited "
                "longest (collectives.csv critical_flow: traced back from the flow that ended "
                "it, the flow most late against its ideal) drawn on the topology (hosts at the bottom, each switch tier "
                "above): red, its path or paths from flows.csv `paths`, wider for more of its "
                "packets; dashed orange, the links the scenario's [[failures]] act on (a link "
                "entry's cable, a failed switch's links, a failed NIC's host link). Switches "
                "are named (on a fabric of more than %d switches, those on the path).%s" % (
                    MAX_SWITCH_NAMES, _left_out(ctx.policies, pols,
                                                "no finished collective with a recorded path")))



def cc_state(ctx, top=4):
    """Congestion-control state over time (cc_trace.csv): the rate (and DCQCN's target rate)
    of the QPs whose state changed most often, and α or the window below."""
    traced = {p: ctx.first_run(p).cc_trace for p in ctx.policies}
    if all(t is None for t in traced.values()):
        return []  # an opt-in output ([output] cc_trace) that was not asked for: nothing to say
    have = {p: t for p, t in traced.items() if t is not None and len(t)}
    if not have:
        raise Skip("cc_trace.csv has no rows: no congestion control changed its state "
                   "(`nic.congestion_control = \"none\"`?)")
    pols = list(have)
    second = {}
    for p, t in have.items():
        second[p] = ("alpha", "α (fraction)") if t["alpha"].notna().any() else (
            ("window_bytes", "window (KiB)") if t["window_bytes"].notna().any() else None)
    rows = sum(2 if second[p] else 1 for p in pols)
    fig, axes = plt.subplots(rows, 1, figsize=(WIDTH_IN, 0.7 + 1.8 * rows), squeeze=False,
                             layout="constrained")
    axes = list(axes[:, 0])
    _share_x(axes, [0.0] + [t["time_us"].max() for t in have.values()])
    for p in pols:
        t = have[p]
        key = ["src", "dst", "qpn"]
        counts = t.groupby(key, sort=False).size().sort_values(ascending=False, kind="mergesort")
        chosen = list(counts.head(top).index)
        ax = axes.pop(0)
        a2 = axes.pop(0) if second[p] else None
        cc = t["cc"].iloc[0]
        ax.set_title("%s (%s): rate of the %d QPs with the most changes (of %d traced)" %
                     (p, cc, len(chosen), len(counts)), loc="left")
        ax.set_ylabel("rate (Gb/s)")
        ax.set_xlabel("simulated time (µs)")
        for k, (src, dst, qpn) in enumerate(chosen):
            s = t[(t["src"] == src) & (t["dst"] == dst) & (t["qpn"] == qpn)]
            label = "host%d→host%d qp %d" % (src, dst, qpn)
            line, = ax.plot(s["time_us"], s["rate_gbps"], drawstyle="steps-post", lw=1.1,
                            ls=LINESTYLES[k % 4], label=label + " Rc" * s["target_gbps"].notna().any())
            if s["target_gbps"].notna().any():
                ax.plot(s["time_us"], s["target_gbps"], drawstyle="steps-post", lw=0.8,
                        color=line.get_color(), alpha=0.45, label=label + " Rt")
            if a2 is not None:
                col, _ = second[p]
                scale = 1 if col == "alpha" else 1 / 1024
                a2.plot(s["time_us"], s[col] * scale, drawstyle="steps-post", lw=1.1,
                        color=line.get_color(), ls=LINESTYLES[k % 4], label=label)
        ax.set_ylim(bottom=0)
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=7)
        if a2 is not None:
            a2.set_ylabel(second[p][1])
            a2.set_xlabel("simulated time (µs)")
            if second[p][0] == "alpha":
                a2.set_ylim(0, 1.05)
            else:
                a2.set_ylim(bottom=0)
    fig.suptitle(ctx.title("congestion-control state", policies=pols))
    return Plot("cc_state", "Congestion-control state over time", fig,
                "From cc_trace.csv (one row per change of a QP's congestion-control state): the "
                "sending rate of the QPs whose state changed most often, as steps (DCQCN: the "
                "current rate Rc, solid, and the target rate Rt, faint: a CNP cuts Rc by α/2 "
                "and sets Rt to the old Rc; fast recovery moves Rc halfway to Rt; additive and "
                "hyper increase raise Rt), and below it α (DCQCN, DCTCP) or the window, on one "
                "time axis shared by the policies.%s" %
                _left_out(ctx.policies, pols, "no congestion-control state changed"))
