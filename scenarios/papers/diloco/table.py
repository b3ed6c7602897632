#!/usr/bin/python3
"""The table of README.md from run.sh's two sweeps (docs/sweeps.md).

Usage: table.py RESULTS_ROOT (holding papers-diloco-sync-dp/ and papers-diloco-diloco/).

Per long-haul rate and delay, from the simulated runs (seed 1; the fabric is symmetric and the
workload has no randomness that matters here):
  - long-haul bytes: tx_bytes of links.csv summed over the long-haul links (DCI -> DCI rows,
    both directions; frame bytes: data, ACKs and any resends). Sync DP: per step = the run's
    bytes / its 2 steps. DiLoCo: per outer sync = the run's bytes (its inner steps never cross).
  - step times: jobs.csv iteration_us. Sync DP: the 2nd (steady) step. DiLoCo: the 1st step is an
    inner step; the 2nd minus the 1st is the outer sync (cross-site all-reduce + all-gather).
  - per 1,000 steps (extrapolated, H = 500): sync DP 1000 x (step, bytes per step); DiLoCo
    1000 x inner step + 1000/H x outer sync, and 1000/H x bytes per outer sync.
  - oracle 23: the measured CCT of the cross-site all-reduce (collectives.csv, the slowest of
    its groups) against its byte time (2N/W)(1 - 1/R) at the site's long-haul bandwidth W, and
    the ring's 2(R - 1) steps of one one-way delay d each: with 1 MiB chunks the steps overlap,
    so the CCT lies between bytes + d and bytes + 2(R - 1) d.
  - compute utilisation per 1,000 steps: compute time / wall-clock, measured (the extrapolated
    wall-clock above) and in closed form. The closed form adds, to the compute C of each step,
    the ring collectives' byte times inside a site of P ranks at the host rate W_s (all-reduce
    (2N/W_s)(1 - 1/P), reduce-scatter and all-gather (N/W_s)(1 - 1/P) each) and the cross-site
    all-reduce of oracle 23 with d to 2(R - 1) d of latency (the lower utilisation is the
    2(R - 1) d end): DiLoCo 1000 C / (1000 (C + AR_site) + 1000/H (AR_cross + AG_site)); sync
    DP C / (C + RS_site + AR_cross + AG_site). "oracle 23 alone" is DiLoCo's form without the
    intra-site terms, 1000 C / (1000 C + 1000/H AR_cross): the cross-site cost only.
Exits 1 if a run is missing or not ok. With --json prints the rows as JSON (for the test).
"""
import json
import sys
from pathlib import Path

# sweep_table.py: beside this folder in a checkout, else on PYTHONPATH (sweeps.sh puts an
# installed tusk's share/tusk/papers there); it finds tusk_analysis the same way.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sweep_table import load  # noqa: E402
import pandas as pd  # noqa: E402  (after sweep_table: a missing one is named)

H = 500
STEPS = 1000
MODEL_BYTES = 16 * 2 ** 20  # 16 MiB, as in sync-dp.toml and diloco.toml
SITES = 2
RANKS_PER_SITE = 4  # 8 ranks over 2 sites
SITE_GBPS = 400  # host_link_gbps of both scenarios
COMPUTE_US = 10000  # compute_us of both scenarios
GBPS = "long_haul_gbps"
DELAY = "long_haul_delay_ms"


def long_haul_bytes(run):
    links = pd.read_csv(run / "links.csv")
    lh = links[(links["from_tier"] == 3) & (links["to_tier"] == 3)]
    if lh.empty:
        sys.exit(f"table.py: {run}: no long-haul (DCI -> DCI) rows in links.csv")
    return int(lh["tx_bytes"].sum()), int(lh[[c for c in lh.columns if c.startswith("drops_")]].sum().sum())


def iterations_us(run):
    jobs = pd.read_csv(run / "jobs.csv")
    return [float(x) for x in str(jobs["iteration_us"].iloc[0]).split(";")]


def outer_cct_us(run, name):
    c = pd.read_csv(run / "collectives.csv")
    return float(c[c["name"] == name]["cct_us"].max())


def closed_form(gbps, delay_ms, cross_bytes_us):
    """Compute utilisation per 1,000 steps in closed form (module docstring), as (low, high)
    for a cross-site latency of 2(R - 1) d and of d."""
    n_bits = MODEL_BYTES * 8
    site_us = n_bits / (SITE_GBPS * 1e3) * (1 - 1 / RANKS_PER_SITE)  # RS or AG inside a site
    ar_site_us = 2 * site_us
    c = COMPUTE_US
    out = {"intra_site_allreduce_ms": ar_site_us / 1e3}
    for end, lat_us in (("low", 2 * (SITES - 1) * delay_ms * 1e3), ("high", delay_ms * 1e3)):
        cross_us = cross_bytes_us + lat_us
        out[f"diloco_util_closed_{end}"] = STEPS * c / (STEPS * (c + ar_site_us) + STEPS / H * (cross_us + site_us))
        out[f"sync_util_closed_{end}"] = c / (c + site_us + cross_us + site_us)
        out[f"diloco_util_oracle23_{end}"] = STEPS * c / (STEPS * c + STEPS / H * cross_us)
    return out


def pct_range(r, key):
    lo, hi = 100 * r[key + "_low"], 100 * r[key + "_high"]
    return f"{lo:.1f}" if f"{lo:.1f}" == f"{hi:.1f}" else f"{lo:.1f}–{hi:.1f}"


def rows(root):
    sync = load(Path(root) / "papers-diloco-sync-dp", [])
    dil = load(Path(root) / "papers-diloco-diloco", [])
    out = []
    for _, s in sync.iterrows():
        d = dil[(dil[GBPS] == s[GBPS]) & (dil[DELAY] == s[DELAY])]
        if d.empty:
            sys.exit(f"table.py: no DiLoCo run at {s[GBPS]} Gb/s, {s[DELAY]} ms")
        srun = Path(root) / "papers-diloco-sync-dp" / s["run_id"]
        drun = Path(root) / "papers-diloco-diloco" / d.iloc[0]["run_id"]
        s_it = iterations_us(srun)
        d_it = iterations_us(drun)
        s_bytes, s_drops = long_haul_bytes(srun)
        d_bytes, d_drops = long_haul_bytes(drun)
        gbps, delay_ms = float(s[GBPS]), float(s[DELAY])
        step_us = s_it[1]
        inner_us = d_it[0]
        outer_us = d_it[1] - d_it[0]
        bytes_us = (2 * MODEL_BYTES * 8 / (gbps * 1e3)) * (1 - 1 / SITES)
        r = {
            "gbps": gbps,
            "delay_ms": delay_ms,
            "sync_bytes_per_1000": STEPS * s_bytes / len(s_it),
            "diloco_bytes_per_1000": STEPS / H * d_bytes,
            "sync_step_ms": step_us / 1e3,
            "inner_step_ms": inner_us / 1e3,
            "outer_sync_ms": outer_us / 1e3,
            "outer_allreduce_ms": outer_cct_us(drun, "outer-allreduce") / 1e3,
            "oracle23_bytes_ms": bytes_us / 1e3,
            "ring_latency_ms": 2 * (SITES - 1) * delay_ms,
            "sync_s_per_1000": STEPS * step_us / 1e6,
            "diloco_s_per_1000": (STEPS * inner_us + STEPS / H * outer_us) / 1e6,
            "long_haul_drops": s_drops + d_drops,
        }
        r.update(closed_form(gbps, delay_ms, bytes_us))
        r["sync_util_measured"] = STEPS * COMPUTE_US / 1e6 / r["sync_s_per_1000"]
        r["diloco_util_measured"] = STEPS * COMPUTE_US / 1e6 / r["diloco_s_per_1000"]
        r["bytes_ratio"] = r["sync_bytes_per_1000"] / r["diloco_bytes_per_1000"]
        r["speedup"] = r["sync_s_per_1000"] / r["diloco_s_per_1000"]
        out.append(r)
    out.sort(key=lambda r: (r["gbps"], r["delay_ms"]))
    return out


def main():
    args = [a for a in sys.argv[1:] if a != "--json"]
    if len(args) != 1:
        sys.exit(__doc__)
    rs = rows(args[0])
    if "--json" in sys.argv:
        print(json.dumps(rs, indent=1))
        return
    print("| long haul | long-haul GB / 1,000 steps: sync DP | DiLoCo H=500 | ratio "
          "| cross-site all-reduce (ms): measured / oracle 23 bytes + 2(R−1)d | step: sync DP / DiLoCo inner (ms) "
          "| outer sync (ms) | wall-clock / 1,000 steps: sync DP | DiLoCo | sync / DiLoCo "
          "| compute utilisation %, sync DP: measured / closed form "
          "| DiLoCo: measured / closed form / oracle 23 alone |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rs:
        print(f"| {r['gbps']:g} Gb/s, {r['delay_ms']:g} ms "
              f"| {r['sync_bytes_per_1000'] / 1e9:.2f} | {r['diloco_bytes_per_1000'] / 1e9:.4f} "
              f"| {r['bytes_ratio']:.0f}× "
              f"| {r['outer_allreduce_ms']:.2f} / {r['oracle23_bytes_ms']:.2f} + {r['ring_latency_ms']:g} "
              f"| {r['sync_step_ms']:.2f} / {r['inner_step_ms']:.2f} | {r['outer_sync_ms']:.2f} "
              f"| {r['sync_s_per_1000']:.1f} s | {r['diloco_s_per_1000']:.1f} s "
              f"| {r['speedup']:.2f}× "
              f"| {100 * r['sync_util_measured']:.1f} / {pct_range(r, 'sync_util_closed')} "
              f"| {100 * r['diloco_util_measured']:.1f} / {pct_range(r, 'diloco_util_closed')} "
              f"/ {pct_range(r, 'diloco_util_oracle23')} |")


if __name__ == "__main__":
    main()
