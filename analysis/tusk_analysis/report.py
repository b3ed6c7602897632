"""`tusk report RESULTS_DIR`: plots (PNG + SVG), tidy tables and one self-contained
report.html in RESULTS_DIR/report/, written through a staging directory renamed into place.

    /usr/bin/python3 -m tusk_analysis.report RESULTS_DIR [--out DIR]

RESULTS_DIR is one run (it has manifest.json) or a comparison (comparison.csv and one folder
per policy), or a folder of comparisons (e.g. one per seed: confidence intervals across seeds),
or a sweep (sweep.csv: each metric against each axis, per policy, with 95 % confidence
intervals across seeds; sweep_report.py).
The HTML needs no network: plots are inlined as base64 PNG data URIs, no script or style is
fetched.
"""

import argparse
import base64
import datetime
import errno
import json
import os
import sys

from .deps import require  # noqa: E402

require("matplotlib", "pandas", who="tusk report")

import matplotlib  # noqa: E402
import pandas as pd  # noqa: E402

from . import fabric_view, load, plots, stats, sweep_report  # noqa: E402
from .report_parts import CSS, esc, fmt_ci, fmt_num, save_figure, staged, table  # noqa: E402,F401


def to_toml(obj, prefix=""):
    """The manifest's scenario (a JSON object in TOML layout) as TOML text."""
    def val(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return json.dumps(v, ensure_ascii=False)
        if isinstance(v, list):
            return "[" + ", ".join(val(x) for x in v) + "]"
        return json.dumps(v)

    def key(k):
        ok = all(c.isalnum() or c in "_-" for c in k) and k
        return k if ok else json.dumps(k)

    lines, tables, arrays = [], [], []
    for k, v in obj.items():
        if isinstance(v, dict):
            tables.append((k, v))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            arrays.append((k, v))
        else:
            lines.append("%s = %s" % (key(k), val(v)))
    for k, v in tables:
        name = prefix + key(k)
        lines.append("")
        if not v:
            lines.append("[%s]" % name)
            continue
        if any(not isinstance(x, dict) for x in v.values()):
            lines.append("[%s]" % name)
        lines.append(to_toml(v, name + ".").strip("\n"))
    for k, v in arrays:
        for item in v:
            lines.append("")
            lines.append("[[%s]]" % (prefix + key(k)))
            lines.append(to_toml(item, prefix + key(k) + ".").rstrip("\n"))
    return "\n".join(line for line in lines if line is not None) + "\n"


# --------------------------------------------------------------------------------------------

# Sets data attributes on <body> once every image has loaded (or failed), for headless checks.
LOAD_SCRIPT = """
window.addEventListener('load', function () {
  var imgs = document.images, ok = 0;
  for (var i = 0; i < imgs.length; i++) {
    if (imgs[i].complete && imgs[i].naturalWidth > 0) { ok++; }
  }
  document.body.setAttribute('data-images-total', String(imgs.length));
  document.body.setAttribute('data-images-loaded', String(ok));
  document.body.setAttribute('data-tables', String(document.getElementsByTagName('table').length));
  document.body.setAttribute('data-report-ready', 'true');
});
"""


def summary_columns(cmp, multi_seed, has_pause, has_cct, has_stall=False):
    def num(key, digits=4):
        def f(v, row):
            s = fmt_num(v, digits)
            ci = row.get(key + "_ci")
            if multi_seed and ci is not None and ci == ci:
                s += " ± " + fmt_ci(ci)
            return s
        return f

    def pol(v, row):
        return '<span class="swatch" style="background:%s"></span>%s' % (
            esc(cmp.attrs["colors"].get(v, "#777")), esc(v))

    cols = [("policy", "policy", pol)]
    if multi_seed:
        cols.append(("seeds", "seeds", lambda v, r: fmt_num(int(v))))
    if has_cct:
        cols += [("cct_us", "CCT (µs)", num("cct_us", 5)),
                 ("busbw_GBps", "busbw (GB/s)", num("busbw_GBps")),
                 ("lower_bound_us", "ideal CCT (µs)", num("lower_bound_us", 5)),
                 ("fair_slowdown_mean", "fair-share slowdown mean", num("fair_slowdown_mean")),
                 ("fair_slowdown_p99", "fair-share p99", num("fair_slowdown_p99"))]
    cols += [("slowdown_mean", "slowdown mean", num("slowdown_mean")),
             ("slowdown_p50", "p50", num("slowdown_p50")),
             ("slowdown_p99", "p99", num("slowdown_p99")),
             ("slowdown_p999", "p99.9", num("slowdown_p999")),
             ("slowdown_max", "max", num("slowdown_max")),
             ("fct_p99_us", "FCT p99 (µs)", num("fct_p99_us", 5)),
             ("uplink_util_max", "uplink util max", num("uplink_util_max", 3)),
             ("uplink_util_mean", "uplink util mean", num("uplink_util_mean", 3)),
             ("uplink_imbalance", "uplink bytes max/mean", num("uplink_imbalance", 3)),
             ("uplink_jain", "Jain (uplink bytes)", num("uplink_jain", 3))]
    if has_pause:
        cols.append(("pause_fraction", "pause fraction", num("pause_fraction", 3)))
    if has_stall:
        cols.append(("credit_stall_fraction", "credit-stall fraction",
                     num("credit_stall_fraction", 3)))
    cols += [("drops", "drops", num("drops", 6)),
             ("ecn_marks", "ECN marks", num("ecn_marks", 7)),
             ("cnps", "CNPs", num("cnps", 7)),
             ("retx_packets", "retx pkts", num("retx_packets", 7)),
             ("ooo_packets", "ooo pkts", num("ooo_packets", 7)),
             ("unfinished", "unfinished", num("unfinished", 6))]
    return cols


def settings_text(manifest):
    """The transport, receivers, congestion control, ECN and PFC of a run's scenario, as the
    settings line `tusk compare` prints (tusk/results/comparison-table.cc)."""
    sc = manifest.get("scenario", {})
    nic, ecn, pfc = sc.get("nic", {}), sc.get("ecn", {}), sc.get("pfc", {})
    if not ecn.get("enabled"):
        ecn_text = "off"
    elif ecn.get("by_rate"):
        ecn_text = "on (thresholds per port rate)"
    else:
        ecn_text = "on (Kmin %s B, Kmax %s B, Pmax %s)" % (
            ecn.get("kmin_bytes"), ecn.get("kmax_bytes"), ecn.get("pmax"))
    if (sc.get("fabric", {}) or {}).get("kind") == "infiniband":
        pfc_text = "none (InfiniBand credits)"
    elif not pfc.get("enabled", True):
        pfc_text = "off"
    else:
        pfc_text = "on (lossless priorities %s)" % (
            ",".join(str(p) for p in pfc.get("lossless_priorities", [])) or "none")
    return "transport %s, %s receivers; cc %s; ECN %s; PFC %s" % (
        nic.get("transport", "roce"), nic.get("receiver", "go-back-n"),
        nic.get("congestion_control", "none"), ecn_text, pfc_text)


def sites_text(manifest):
    """", N sites" for a multi-site fabric (its scenario's topology), else ""."""
    topo = manifest.get("scenario", {}).get("topology", {})
    return ", %s sites" % topo.get("sites") if topo.get("kind") == "multi-site" else ""


def long_haul_rows(runs):
    """The long-haul rows of every run's links.csv (tier 3 -> tier 3 on a multi-site fabric),
    with policy, seed and the drops summed; None when no run is multi-site."""
    parts = []
    for r in runs:
        if not sites_text(r.manifest) or r.links is None:
            continue
        lh = r.links[(r.links["from_tier"] == 3) & (r.links["to_tier"] == 3)].copy()
        lh["drops"] = lh[[c for c in lh.columns if c.startswith("drops_")]].sum(axis=1)
        lh.insert(0, "seed", r.seed)
        lh.insert(0, "policy", r.policy)
        parts.append(lh)
    return pd.concat(parts, ignore_index=True) if parts else None


def build_html(results, ctx, figs, skipped, per_run, steps, fabric_pages=()):
    runs = results.runs
    m0 = runs[0].manifest
    multi_seed = len(results.seeds) > 1
    cmp = ctx.summary.copy()
    cmp.attrs["colors"] = ctx.colors
    # InfiniBand runs have credit stalls, not PFC pauses (the manifest's fabric kind).
    fabrics = sorted({(r.manifest.get("scenario", {}).get("fabric", {}) or {})
                      .get("kind", "ethernet") for r in runs})
    has_stall = "credit_stall_fraction" in per_run and \
        per_run["credit_stall_fraction"].notna().any()
    has_pause = per_run["pause_fraction"].notna().any() and "ethernet" in fabrics
    has_cct = per_run["cct_us"].notna().any()
    kind = "comparison of %d policies" % len(results.policies) if results.kind == "comparison" \
        else "single run"
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")

    h = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
         '<meta name="viewport" content="width=device-width, initial-scale=1">',
         "<title>tusk report: %s</title>" % esc(results.scenario),
         "<style>%s</style>" % CSS,
         "<script>%s</script>" % LOAD_SCRIPT, "</head><body>"]
    h.append("<h1>tusk report: %s</h1>" % esc(results.scenario))
    h.append('<p class="note">%s · %s</p>' % (esc(kind), esc(results.path)))

    meta = [("scenario", results.scenario),
            ("policies", ", ".join(results.policies)),
            ("seeds", ", ".join(str(s) for s in results.seeds)),
            ("topology", "%s hosts, %s switches%s" % (
                m0.get("hosts"), m0.get("switches"), sites_text(m0))),
            ("fabric", ", ".join(fabrics)),
            ("settings", " | ".join(dict.fromkeys(settings_text(r.manifest) for r in runs))),
            ("workload", "%s transfers (%s)" % (m0.get("transfers"),
                                               m0.get("scenario", {}).get("workload", {})
                                               .get("kind", "?"))),
            ("scenario file", m0.get("scenario_file") or "built-in"),
            ("tusk", "%s (git %s)" % (m0.get("tusk_version"), m0.get("git_revision"))),
            ("ns-3", m0.get("ns3_version")),
            ("analysis", "tusk_analysis, pandas %s, matplotlib %s, Python %s" % (
                pd.__version__, matplotlib.__version__, sys.version.split()[0])),
            ("generated", now)]
    if not all(r.flow_rows_written for r in runs):
        # [output] flow_rows = "summary": the summary and collectives.csv are whole, the
        # figures and tables read from flows.csv and waits.csv are not drawn.
        meta.insert(meta.index(next(x for x in meta if x[0] == "workload")) + 1,
                    ("per-transfer rows", "not written ([output] flow_rows = \"summary\"): no "
                     "flows.csv nor waits.csv; the summary and collectives.csv are whole, the "
                     "figures of single flows and waits are left out"))
    h.append('<table class="meta">')
    for k, v in meta:
        h.append("<tr><td><b>%s</b></td><td>%s</td></tr>" % (esc(k), esc(v)))
    h.append("</table>")

    # Runs: status, wall time
    h.append("<h2>Runs</h2>")
    run_rows = pd.DataFrame([{
        "policy": r.policy, "seed": r.seed, "status": r.manifest.get("status"),
        "failure": r.manifest.get("failure", ""), "sim_end_us": r.manifest.get("sim_end_us"),
        "events": r.manifest.get("events"), "wall_time_s": r.manifest.get("wall_time_s"),
        "dir": os.path.relpath(r.path, results.path) if r.path != results.path else ".",
        "ts": "yes" if r.timeseries is not None else "no"} for r in runs])

    def status(v, row):
        if v == "ok":
            return "ok"
        return '<span class="failed">%s</span> %s' % (esc(v), esc(row.get("failure", "")))

    h.append(table(run_rows, [
        ("policy", "policy", None), ("seed", "seed", None), ("status", "status", status),
        ("sim_end_us", "simulated (µs)", lambda v, r: fmt_num(v, 6)),
        ("events", "events", lambda v, r: fmt_num(int(v)) if v == v else "–"),
        ("wall_time_s", "wall (s)", lambda v, r: fmt_num(v, 3)),
        ("ts", "time series", None), ("dir", "directory", None)]))

    h.append("<h2>Summary</h2>")
    h.append("<p class=\"note\">FCT slowdown = FCT / ideal FCT (same flow alone on the idle "
             "fabric); fair-share slowdown = FCT / the flow's ideal at its max-min fair share "
             "of its collective step's traffic (docs/analysis.md); percentiles %s. CCT and busbw of the "
             "slowest collective (nccl-tests definitions, GB = 1e9 B). Uplinks: switch → "
             "higher-tier switch; utilisation = wire bytes / (rate × run time); balance "
             "(max/mean, Jain's index; 1 = balanced) of uplink bytes among each switch's "
             "uplinks, combined over switches weighted by bytes. ECN marks: frames switches "
             "CE-marked; CNPs: congestion notifications receivers sent (DCQCN).%s%s Tables: "
             "<code>summary.csv</code> (per run) and <code>comparison.csv</code> (per "
             "policy) next to this file.</p>" % (
                 QUANTILE_TEXT[ctx.quantiles],
                 (" Pause fraction = PFC paused time / (ports × run time)." if has_pause
                  else "") +
                 (" Credit-stall fraction = time ports waited for InfiniBand credit / (ports × "
                  "run time)." if has_stall else ""),
                 " With several seeds: mean ± half-width of the 95 % Student-t confidence "
                 "interval." if multi_seed else ""))
    h.append(table(cmp, summary_columns(cmp, multi_seed, has_pause, has_cct, has_stall)))

    long_haul = long_haul_rows(runs)
    if long_haul is not None:
        h.append("<h2>Long-haul links</h2>")
        h.append("<p class=\"note\">Multi-site fabric: the links between the sites' DCI "
                 "switches (links.csv rows from tier 3 to tier 3; switch names carry their "
                 "site, <code>s1.dci0</code>). Drops: every reason summed (a lossy long haul "
                 "drops at the egress threshold, <code>pfc.long_haul</code>).</p>")
        h.append(table(long_haul, [
            ("policy", "policy", None), ("seed", "seed", None), ("from", "from", None),
            ("to", "to", None), ("rate_gbps", "Gb/s", lambda v, r: fmt_num(v, 4)),
            ("tx_bytes", "bytes", lambda v, r: fmt_num(int(v))),
            ("mean_util", "mean util", lambda v, r: fmt_num(v, 3)),
            ("max_queue_bytes", "max queue (B)", lambda v, r: fmt_num(int(v))),
            ("drops", "drops", lambda v, r: fmt_num(int(v)))]))

    if fabric_pages:
        h.append("<h2>Fabric view</h2>")
        h.append("<p class=\"note\">The topology with its links coloured by utilisation, "
                 "egress queue or PFC pause over time: a time slider, a play button, and the "
                 "links of a flow or collective step highlighted on click. One self-contained "
                 "page per run, next to this file (no network).</p><ul>")
        for (policy, seed), page in fabric_pages:
            h.append('<li><a class="fabric-link" href="%s">%s</a> (policy %s, seed %s)</li>' % (
                esc(page), esc(page), esc(policy), esc(seed)))
        h.append("</ul>")

    h.append("<h2>Plots</h2>")
    h.append("<p class=\"note\">Colours: %s. Each plot is also in this folder as PNG and SVG."
             "</p>" % ", ".join('<span class="swatch" style="background:%s"></span>%s' % (
                 esc(c), esc(p)) for p, c in ctx.colors.items()))
    for name, title, caption, png, meta in figs:
        data = base64.b64encode(png).decode("ascii")
        # data-meta: the figure's title and axis labels (plots.figure_meta), for checks.
        h.append('<figure id="%s" data-meta="%s"><h3>%s</h3>' % (
            esc(name), esc(json.dumps(meta, ensure_ascii=False)), esc(title)))
        h.append('<img src="data:image/png;base64,%s" alt="%s" data-plot="%s">' % (
            data, esc(title), esc(name)))
        h.append('<figcaption>%s <a href="%s.svg">SVG</a> · <a href="%s.png">PNG</a>'
                 "</figcaption></figure>" % (esc(caption), esc(name), esc(name)))
    if skipped:
        h.append("<h3>Not drawn</h3><ul>")
        for name, why in skipped:
            h.append("<li><code>%s</code>: %s</li>" % (esc(name), esc(why)))
        h.append("</ul>")

    if steps is not None and not steps.empty:
        h.append("<h2>Slowest steps and the flows they waited for</h2>")
        h.append("<p class=\"note\">The five longest steps of each collective per run, with the "
                 "flow whose last byte arrived last. All steps: <code>steps.csv</code>.</p>")
        worst = (steps.sort_values(["policy", "seed", "collective_id", "step_us"],
                                   ascending=[True, True, True, False])
                 .groupby(["policy", "seed", "collective_id"], sort=False).head(5))
        order = {p: i for i, p in enumerate(results.policies)}
        worst = worst.sort_values(["policy", "seed", "collective_id", "step_us"],
                                  key=lambda s: s.map(order) if s.name == "policy" else s,
                                  ascending=[True, True, True, False])
        h.append(table(worst, [
            ("policy", "policy", None), ("seed", "seed", None),
            ("collective_id", "collective", None), ("step", "step", None),
            ("step_us", "step time (µs)", lambda v, r: fmt_num(v, 5)),
            ("ideal_step_us", "ideal (µs)", lambda v, r: fmt_num(v, 4)),
            ("flow_id", "slowest flow", lambda v, r: fmt_num(int(v)) if v == v else "–"),
            ("src", "hosts", lambda v, r: "%d → %d" % (r["src"], r["dst"]) if v == v else "–"),
            ("channel", "channel", lambda v, r: fmt_num(int(v)) if v == v else "–"),
            ("fct_us", "its FCT (µs)", lambda v, r: fmt_num(v, 5)),
            ("slowdown", "its slowdown", lambda v, r: fmt_num(v, 4)),
            ("retx_packets", "its retx", lambda v, r: fmt_num(int(v)) if v == v else "–"),
            ("ooo_packets", "its ooo", lambda v, r: fmt_num(int(v)) if v == v else "–")]))

    h.append("<h2>Scenario</h2>")
    h.append("<p class=\"note\">The resolved scenario of the first run (from its manifest.json)"
             "%s; a file that reproduces it with <code>tusk run</code>.</p>" % (
                 "; the runs differ only in <code>lb.policy</code>" +
                 (" and <code>seed</code>" if multi_seed else "")
                 if results.kind == "comparison" else ""))
    h.append("<pre>%s</pre>" % esc(to_toml(m0.get("scenario", {}))))
    h.append('<p class="note">Generated by <code>tusk report</code> from the result files only '
             "(CSV, manifest.json, index.sqlite).</p>")
    h.append("</body></html>\n")
    return "\n".join(h)


QUANTILE_TEXT = {
    stats.NEAREST_RANK: "by nearest rank (the observed value of rank ⌈q·n⌉, as FCT-slowdown "
                        "papers report them; <code>--quantiles linear</code> interpolates)",
    stats.LINEAR: "by linear interpolation between order statistics (Hyndman &amp; Fan type 7, "
                  "numpy's default; <code>--quantiles nearest-rank</code> is tusk's default)",
}


#: errno values of a destination that cannot be written at all (refused like bad input, exit 2);
#: any other OS error while writing (no space, file too large) exits 3, as `tusk run` does.
UNWRITABLE = (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOTDIR, errno.ENOENT, errno.EEXIST)


def write_report(results_dir, out_dir=None, quantiles=stats.DEFAULT_QUANTILE_METHOD):
    """Write the report of `results_dir` into `out_dir` (default results_dir/report), its
    percentiles by the `quantiles` method (stats.QUANTILE_METHODS). Returns the path of
    report.html."""
    results = load.load_results(results_dir)
    out_dir = os.path.abspath(out_dir or os.path.join(results.path, "report"))
    with staged(out_dir) as staging:
        with matplotlib.pyplot.rc_context(plots.STYLE):
            ctx, figs, skipped = plots.make_all(results, quantiles)
            rendered = []
            for p in figs:
                stem = os.path.join(staging, p.name)
                save_figure(p.figure, stem)
                meta = plots.figure_meta(p.figure)
                matplotlib.pyplot.close(p.figure)
                with open(stem + ".png", "rb") as fh:
                    rendered.append((p.name, p.title, p.caption, fh.read(), meta))
        per_run = stats.summary_table(results.runs, quantiles)
        per_run.to_csv(os.path.join(staging, "summary.csv"), index=False)
        ctx.summary.to_csv(os.path.join(staging, "comparison.csv"), index=False)
        steps = pd.concat([stats.step_table(r) for r in results.runs], ignore_index=True)
        if not steps.empty:
            out = steps.copy()
            for col in stats.STEP_INT_COLUMNS:  # integers, empty where a step has no flow
                if col in out.columns:
                    out[col] = out[col].astype("Int64")
            out.to_csv(os.path.join(staging, "steps.csv"), index=False)
        fabric_pages = []
        for r in results.runs:
            page = "fabric.html" if len(results.runs) == 1 else \
                "fabric-%s-s%s.html" % (r.policy, r.seed)
            fabric_view.write_fabric_html(r, os.path.join(staging, page))
            fabric_pages.append(((r.policy, r.seed), page))
        text = build_html(results, ctx, rendered, skipped, per_run, steps, fabric_pages)
        with open(os.path.join(staging, "report.html"), "w", encoding="utf-8") as fh:
            fh.write(text)
    return os.path.join(out_dir, "report.html"), [p[0] for p in rendered], skipped


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tusk report", description=__doc__.split("\n\n")[0])
    ap.add_argument("results_dir", help="a run directory or a comparison directory")
    ap.add_argument("--out", help="report directory (default RESULTS_DIR/report)")
    ap.add_argument("--quantiles", choices=stats.QUANTILE_METHODS,
                    default=stats.DEFAULT_QUANTILE_METHOD,
                    help="how p50/p99/p99.9 are taken: nearest-rank (the observed value of "
                         "rank ceil(q n); default) or linear (interpolated, numpy's default)")
    args = ap.parse_args(argv)
    if args.out is not None:
        # The report is committed by replacing --out: never the results it reads, nor a folder
        # that holds them.
        out = os.path.realpath(args.out)
        src = os.path.realpath(args.results_dir)
        if src == out or src.startswith(out.rstrip(os.sep) + os.sep):
            print("tusk report: error: --out %s is the results folder or holds it; give a folder "
                  "beside it (default RESULTS_DIR/report)" % args.out, file=sys.stderr)
            return 2
    try:
        if load.is_sweep(args.results_dir):
            path, names, skipped = sweep_report.write_sweep_report(args.results_dir, args.out)
        else:
            path, names, skipped = write_report(args.results_dir, args.out, args.quantiles)
    except load.ResultsError as e:
        print("tusk report: error: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        where = e.filename or args.out or args.results_dir
        print("tusk report: error: cannot write the report: %s: %s; earlier results are intact"
              % (where, e.strerror or e), file=sys.stderr)
        return 2 if e.errno in UNWRITABLE else 3
    print("report: %s (%d plots: %s)" % (path, len(names), ", ".join(names)))
    for name, why in skipped:
        print("  not drawn: %s: %s" % (name, why))
    print("open it with: xdg-open %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
