#!/usr/bin/env python3
"""An incast study from Python, notebook style (docs/scripting.md): copy these cells into a
notebook. Sweeps the incast degree over ECMP and DRILL in a Python loop with the `tusk` module,
builds one DataFrame of the runs, and plots the slowest flow's FCT against the degree with the
ideal (degree x bytes / line rate). The receiver's link is the bottleneck: no load balancer
can help (both policies give about the same FCTs), and PFC pauses grow with the degree.

    PYTHONPATH=build/python /usr/bin/python3 analysis/examples/incast_sweep_in_python.py [PLOT.png]

Needs the module built (bash scripts/build.sh, with Debian's pybind11-dev), python3-pandas and
python3-matplotlib.
"""
import os
import sys

# [sweep]
import matplotlib

matplotlib.use("Agg")  # files only; drop this line in a notebook
import matplotlib.pyplot as plt
import pandas as pd

import tusk

scenario = tusk.Scenario.from_dict({
    "name": "incast-sweep",
    "topology": {"kind": "leaf-spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 8,
                 "host_link_gbps": 100, "fabric_link_gbps": 100},
    "buffer": {"total_bytes": "1MiB"},
    "pfc": {"enabled": True, "lossless_priorities": [3]},
    "workload": {"kind": "incast", "bytes": "256KiB", "incast_dst": 0},
})
rows = []
for policy in ["ecmp", "drill"]:
    for degree in [2, 4, 6, 8]:
        # Senders on the other leaf: hosts 8 .. 8 + degree - 1 into host 0.
        scenario.set("lb.policy", policy).set("workload.hosts", f"0,8-{7 + degree}")
        r = scenario.run()
        rows.append({"policy": policy, "degree": degree, "failure": r.failure,
                     "fct_max_us": r.flows.fct_us.max(),
                     "slowdown_p99": r.summary["slowdown_p99"],
                     "pfc_pauses": r.summary["pfc_pauses"]})
runs = pd.DataFrame(rows)
runs["ideal_us"] = runs.degree * 256 * 1024 * 8 / 100e9 * 1e6
print(runs.to_string(index=False))

fig, ax = plt.subplots(figsize=(5, 3.5))
for policy, g in runs.groupby("policy"):
    ax.plot(g.degree, g.fct_max_us, marker="o", label=policy)
ideal = runs.drop_duplicates("degree")
ax.plot(ideal.degree, ideal.ideal_us, "k--", label="ideal (degree x S / B)")
ax.set_xlabel("incast degree (senders)")
ax.set_ylabel("slowest flow's FCT (µs)")
ax.legend()
fig.tight_layout()
# [/sweep]
out = sys.argv[1] if len(sys.argv) > 1 else "incast_sweep.png"
fig.savefig(out, dpi=120)
print("plot:", os.path.abspath(out))
# Every run finished, and no flow beat the bottleneck's bound (a broken model would).
sys.exit(0 if (runs.failure == "").all() and (runs.fct_max_us >= runs.ideal_us * 0.999).all() else 1)
