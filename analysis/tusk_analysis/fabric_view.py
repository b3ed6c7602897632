"""The fabric you can watch: one self-contained HTML page (inline SVG and JavaScript, no
network) of a run's topology with its links coloured by utilisation, egress queue or PFC pause
over time, a time slider and a play button, and a flow or collective step highlighted on click.

Built from the run's files (docs/results-format.md): links.csv gives the topology (one row per
direction: nodes, tiers, link ids), timeseries.csv the per-port samples when the run sampled
(`[output] sample_us` > 0). A run without samples gets an estimate from flows.csv instead: each
flow's bytes spread evenly over its lifetime along the paths its frames took (utilisation only,
no queue or pause), and the page says so. flows.csv's `paths` give what a click highlights.
"""

import json
import math
import os
import re

import numpy as np
import pandas as pd

#: At most this many time frames on the page (longer series are binned: utilisation and pause
#: averaged, queues by their maximum), so a long run stays a small page.
MAX_FRAMES = 150
#: Flows listed for highlighting: the slowest by slowdown.
MAX_FLOWS = 60
#: Collective steps listed for highlighting.
MAX_STEPS = 60


def _natural(name):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(name))]


def _site(name):
    """The site prefix of a multi-site switch name (`s1.leaf3` -> `s1`), else ''."""
    return name.split(".", 1)[0] if "." in name else ""


def topology(links):
    """(nodes, edges) from links.csv: nodes [{name, tier, x, y}] laid out in rows by tier
    (hosts at the bottom), sites side by side; edges [{id, a, b, rate_gbps, long_haul}] one per
    link_id, a the lower tier end."""
    tiers = {}
    for _, r in links.iterrows():
        tiers[r["from"]] = int(r["from_tier"])
        tiers[r["to"]] = int(r["to_tier"])
    # Hosts belong to the site of their switch.
    host_site = {}
    for _, r in links.iterrows():
        if int(r["from_tier"]) == 0:
            host_site[r["from"]] = _site(str(r["to"]))
    site = {n: (host_site.get(n, "") if t == 0 else _site(n)) for n, t in tiers.items()}
    by_tier = {}
    for n in sorted(tiers, key=lambda n: (site[n], _natural(n))):
        by_tier.setdefault(tiers[n], []).append(n)
    width = max(900, 14 * max(len(v) for v in by_tier.values()))
    top = max(by_tier)
    nodes = []
    for t, names in sorted(by_tier.items()):
        y = 40 + (top - t) * 150
        for i, n in enumerate(names):
            nodes.append({"name": n, "tier": t, "x": round(20 + (i + 0.5) * (width - 40)
                                                         / len(names), 1), "y": y})
    edges = {}
    for _, r in links.iterrows():
        lid = int(r["link_id"])
        if lid in edges:
            continue
        a, b = (r["from"], r["to"]) if int(r["from_tier"]) <= int(r["to_tier"]) \
            else (r["to"], r["from"])
        edges[lid] = {"id": lid, "a": a, "b": b, "rate_gbps": float(r["rate_gbps"]),
                      "long_haul": int(r["from_tier"]) == 3 and int(r["to_tier"]) == 3}
    return nodes, [edges[k] for k in sorted(edges)], width, 40 + top * 150 + 40


def _bins(times, end):
    """Frame edges: the sample instants, or MAX_FRAMES equal bins when there are more."""
    if len(times) <= MAX_FRAMES:
        return np.asarray(times, dtype=float)
    return np.linspace(end / MAX_FRAMES, end, MAX_FRAMES)


def measured_series(ts, edge_ids):
    """From timeseries.csv: frame times (µs) and per metric a [frame][edge] matrix, the larger
    of the link's two directions (switch egress ports; a host's own egress is not sampled)."""
    ts = ts.copy()
    times = np.sort(ts["time_us"].unique())
    prev = np.concatenate([[0.0], times[:-1]])
    interval = dict(zip(times, times - prev))
    ts["pause"] = ts["paused_us"] / ts["time_us"].map(interval).clip(lower=1e-9)
    edges = _bins(times, float(times[-1]))
    ts["frame"] = np.searchsorted(edges, ts["time_us"].to_numpy() - 1e-9)
    ts["frame"] = ts["frame"].clip(upper=len(edges) - 1)
    col = {lid: i for i, lid in enumerate(edge_ids)}
    ts = ts[ts["link_id"].isin(col)]
    out = {}
    for metric, src, how in (("util", "util", "mean"), ("queue", "queue_bytes", "max"),
                             ("pause", "pause", "mean")):
        per_dir = ts.groupby(["frame", "link_id", "from"])[src].agg(how).reset_index()
        per_link = per_dir.groupby(["frame", "link_id"])[src].max().reset_index()
        m = np.zeros((len(edges), len(edge_ids)))
        m[per_link["frame"].to_numpy(), per_link["link_id"].map(col).to_numpy()] = \
            per_link[src].to_numpy()
        out[metric] = m
    return edges, out


def _parse_paths(field):
    """flows.csv `paths` (PATH:FRAMES|...) as [([link ids], frames)]."""
    out = []
    if not isinstance(field, str) or not field:
        return out
    for item in field.split("|"):
        path, _, frames = item.rpartition(":")
        if path:
            out.append(([int(x) for x in path.split(">")], int(frames or 0)))
    return out


def estimated_series(flows, links, edge_ids, end_us):
    """Utilisation estimated from flows.csv: each flow's wire-free payload bytes spread evenly
    over [start, finish] (finish = the run's end if unfinished) on each path in proportion to
    its frames there, per link direction; the larger direction per link."""
    edges = np.linspace(end_us / MAX_FRAMES, end_us, MAX_FRAMES) if end_us > 0 else np.array([1.0])
    starts = np.concatenate([[0.0], edges[:-1]])
    col = {lid: i for i, lid in enumerate(edge_ids)}
    rate = {}
    ends = {}  # link id -> its two end nodes
    for _, r in links.iterrows():
        rate[(int(r["link_id"]), r["from"])] = float(r["rate_gbps"]) * 1e3  # bits per µs
        ends.setdefault(int(r["link_id"]), (r["from"], r["to"]))
    bits = {}
    for _, f in flows.iterrows():
        paths = _parse_paths(f.get("paths"))
        total = sum(n for _, n in paths)
        if not total or pd.isna(f.get("start_us")):
            continue
        t0 = float(f["start_us"])
        t1 = float(f["finish_us"]) if not pd.isna(f.get("finish_us")) else end_us
        t1 = max(t1, t0 + 1e-6)
        # overlap of [t0, t1] with each frame, as a fraction of the flow's lifetime
        share = np.clip(np.minimum(edges, t1) - np.maximum(starts, t0), 0, None) / (t1 - t0)
        for path, n in paths:
            b = 8.0 * float(f["bytes"]) * n / total
            at = "host%d" % int(f["src"])
            for lid in path:  # each hop leaves from where the path has arrived
                e = ends.get(lid)
                if e is None or at not in e:
                    break
                bits[(lid, at)] = bits.get((lid, at), 0) + b * share
                at = e[1] if e[0] == at else e[0]
    util = np.zeros((len(edges), len(edge_ids)))
    width = edges - starts
    for (lid, frm), series in bits.items():
        if lid in col and (lid, frm) in rate:
            util[:, col[lid]] = np.maximum(util[:, col[lid]], series / (rate[(lid, frm)] * width))
    return edges, {"util": util}


def clickables(run):
    """The flows (slowest first) and collective steps a click can highlight."""
    f = run.flows
    out_flows, out_steps = [], []
    if f.empty or "paths" not in f.columns:
        return out_flows, out_steps
    f = f.copy()
    f["links"] = f["paths"].map(lambda p: sorted({l for path, _ in _parse_paths(p) for l in path}))
    f = f[f["links"].map(len) > 0]
    for _, r in f.sort_values(["slowdown", "flow_id"], ascending=[False, True]).head(MAX_FLOWS)\
            .iterrows():
        out_flows.append({"label": "flow %d: host%d → host%d, %s B, slowdown %s" % (
            int(r["flow_id"]), int(r["src"]), int(r["dst"]), int(r["bytes"]),
            "%.2f" % r["slowdown"] if not pd.isna(r["slowdown"]) else "unfinished"),
            "links": r["links"], "t0": _num(r.get("start_us")), "t1": _num(r.get("finish_us"))})
    if "collective" in f.columns:
        steps = f[(f["collective"] >= 0) & (f["step"] >= 0)]
        for (c, s), g in list(steps.groupby(["collective", "step"]))[:MAX_STEPS]:
            out_steps.append({"label": "collective %d step %d: %d flows" % (c, s, len(g)),
                              "links": sorted({l for ls in g["links"] for l in ls}),
                              "t0": _num(g["start_us"].min()), "t1": _num(g["finish_us"].max())})
    return out_flows, out_steps


def _num(v):
    try:
        v = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else round(v, 3)


def view_data(run):
    """Everything the page draws, as one JSON-able dict."""
    nodes, edges, width, height = topology(run.links)
    ids = [e["id"] for e in edges]
    end_us = float(run.manifest.get("sim_end_us") or 0) or float(
        pd.to_numeric(run.flows.get("finish_us"), errors="coerce").max() or 1)
    if run.timeseries is not None and not run.timeseries.empty:
        times, series = measured_series(run.timeseries, ids)
        source = ("measured: timeseries.csv, switch egress ports sampled every %s µs "
                  "(the larger of a link's two directions)" % _fmt(times[0]))
    else:
        times, series = estimated_series(run.flows, run.links, ids, end_us)
        source = ("estimated from flows.csv: each flow's bytes spread evenly over its lifetime "
                  "along its paths (this run has no timeseries.csv; run with "
                  "--set output.sample_us=10 for measured utilisation, queues and PFC pause)")
    flows, steps = clickables(run)
    scales = {"util": 1.0, "queue": float(series["queue"].max()) if "queue" in series else 0,
              "pause": 1.0}
    return {"title": "%s, policy %s, seed %s" % (run.scenario, run.policy, run.seed),
            "source": source, "width": width, "height": height, "nodes": nodes, "edges": edges,
            "times": [round(float(t), 3) for t in times],
            "series": {k: [[round(float(x), 4) for x in row] for row in v]
                       for k, v in series.items()},
            "scales": {k: v for k, v in scales.items() if k in series},
            "flows": flows, "steps": steps}


def _fmt(v):
    return ("%.3f" % v).rstrip("0").rstrip(".")


def write_fabric_html(run, path):
    """Write the page of one run (a load.Run) to `path`; returns path."""
    data = view_data(run)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "fabric_view.js"), encoding="utf-8") as fh:
        script = fh.read()
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    html = PAGE.replace("@TITLE@", _esc(data["title"])).replace("@SOURCE@", _esc(data["source"]))
    html = html.replace("@DATA@", payload).replace("@SCRIPT@", script)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(html)
    return path


def _esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


PAGE = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tusk fabric: @TITLE@</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1em;color:#222}
#controls{display:flex;gap:1em;align-items:center;flex-wrap:wrap;margin:.5em 0}
#slider{width:40em}
#fabric{border:1px solid #ccc;width:100%;height:auto;background:#fff}
line.link{stroke-linecap:round}
line.hl{stroke:#1f5fff !important;stroke-width:5 !important}
circle.host{fill:#555}rect.switch{fill:#333}
text.node{font-size:10px;fill:#222}
#lists{display:flex;gap:2em}#lists ul{max-height:18em;overflow:auto;padding-left:1.2em}
#lists li{cursor:pointer}#lists li.on{font-weight:bold;color:#1f5fff}
.note{color:#555}
</style></head><body>
<h1>tusk fabric: @TITLE@</h1>
<p class="note">Links coloured by the chosen metric at the slider's time; @SOURCE@.
Click a flow or a collective step below to highlight the links it used (again to clear).</p>
<div id="controls">
<button id="play" type="button">play</button>
<input id="slider" type="range" min="0" value="0" step="1">
<span id="time"></span>
<label>colour by <select id="metric"></select></label>
<span id="legend"></span>
</div>
<svg id="fabric" xmlns="http://www.w3.org/2000/svg"></svg>
<div id="lists"><div><h3>Flows (slowest first)</h3><ul id="flows"></ul></div>
<div><h3>Collective steps</h3><ul id="steps"></ul></div></div>
<script id="fabric-data" type="application/json">@DATA@</script>
<script>@SCRIPT@</script>
</body></html>
"""
