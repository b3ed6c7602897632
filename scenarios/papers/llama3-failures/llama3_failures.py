"""Llama 3's failure arithmetic, and how effective training time changes with scale and
checkpoint interval (README.md beside this file). Run by run.sh:

    /usr/bin/python3 llama3_failures.py OUT_DIR

writes OUT_DIR/summary.csv (the paper's numbers against ours), OUT_DIR/ettr_scale.csv (the
grid: GPUs x checkpoint interval, exact and Monte Carlo) and OUT_DIR/ettr_scale.png/.svg, and
prints both tables. Deterministic (seeded Monte Carlo).
"""

import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(REPO, "analysis"))

from tusk_analysis import effective_time as et  # noqa: E402

DATA = os.path.join(REPO, "data", "failures", "llama3_54day_interruptions.csv")

#: The observation window of the table (Llama 3 paper, section 3.3.4 and table 5).
OBSERVED_GPUS = 16384
OBSERVED_DAYS = 54
PLANNED = 47  # planned interruptions in the same 54 days (automated maintenance)

#: Our assumptions (the paper gives none of these numbers): see README.md.
STATE_BYTES = 405e9 * 16  # 405B parameters: bf16 weights and gradients, fp32 master and Adam m, v
STORAGE_BPS = 2e12  # Tectonic's sustained 2 TB/s (paper, section 3.1.2)
CHECKPOINT_COST_S = STATE_BYTES / STORAGE_BPS  # 3.24 s, every GPU writing its shard at once
DETECTION_S = 3 * 60
RESTART_S = 7 * 60

GPUS = [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072]
INTERVALS_MIN = [None, 10, 30, 60]  # None = the best interval for each scale
REPLICATES = 100
SEED = 1


def table():
    return et.read_interruptions(DATA, OBSERVED_GPUS, OBSERVED_DAYS)


def rates(t, gpus):
    """(unexpected, planned) interruptions per second of running time for `gpus` GPUs."""
    unexpected = t.rate_per_gpu_hour() * gpus / et.HOUR
    planned = PLANNED / (OBSERVED_DAYS * et.DAY) * gpus / OBSERVED_GPUS
    return unexpected, planned


def practice(interval_s=1.0):
    return et.Practice(interval_s, CHECKPOINT_COST_S, DETECTION_S, RESTART_S,
                       planned_restart_s=RESTART_S)


def at(t, gpus, interval_min, replicates=REPLICATES):
    """One grid point: exact ETTR, Monte Carlo ETTR and its 95 % half-width."""
    lam, mu = rates(t, gpus)
    p = practice()
    p.checkpoint_interval_s = (interval_min * 60 if interval_min is not None
                               else et.best_interval(lam, p, mu))
    e = et.ettr(lam, p, mu)
    mc, half = et.monte_carlo(lam, p, mu, replicates=replicates, seed=SEED)
    return p, e, mc, half


def summary(t):
    """The paper's numbers and ours, as rows (quantity, paper, ours, note)."""
    lam, mu = rates(t, OBSERVED_GPUS)
    p, e, mc, half = at(t, OBSERVED_GPUS, None, replicates=400)
    down90 = et.max_downtime_for(0.90, lam, practice(), mu)
    rows = [
        ("unexpected interruptions in 54 days", "419", "%d" % t.total, "counts of table 5"),
        ("mean time between interruptions (h)", "about 3 (one every ~3.1 h)",
         "%.2f" % t.mtbi_hours(), "54 x 24 h / 419"),
        ("share attributed to hardware", "about 78 %",
         "%.1f %%" % (100 * t.share(et.HARDWARE_COMPONENTS)),
         "components GPU, Host, Network of the table"),
        ("share incl. unplanned host maintenance", "-",
         "%.1f %%" % (100 * t.share(et.HARDWARE_COMPONENTS + ("Unplanned maintenance",))),
         "the paper counts it as suspected hardware"),
        ("effective training time", "> 90 %", "%.2f %%" % (100 * e.ettr),
         "exact model, assumptions of README.md"),
        ("effective training time, Monte Carlo", "-", "%.2f ± %.2f %%" % (100 * mc, 100 * half),
         "400 jobs of 54 days, seed %d" % SEED),
        ("best checkpoint interval (min)", "-", "%.1f" % (p.checkpoint_interval_s / 60),
         "Daly's estimate %.1f" % (et.daly_interval(lam, CHECKPOINT_COST_S) / 60)),
        ("largest downtime per interruption for > 90 % (min)", "-", "%.1f" % (down90 / 60),
         "detection + restart, best interval"),
    ]
    return rows


def grid(t):
    rows = []
    for gpus in GPUS:
        for interval in INTERVALS_MIN:
            p, e, mc, half = at(t, gpus, interval)
            rows.append({
                "gpus": gpus,
                "interval": "best" if interval is None else "%d min" % interval,
                "checkpoint_interval_min": p.checkpoint_interval_s / 60,
                "mtbi_h": e.mtbi_s / et.HOUR,
                "ettr": e.ettr,
                "ettr_monte_carlo": mc,
                "ettr_monte_carlo_ci95": half,
                "lost_checkpointing": e.checkpointing,
                "lost_work": e.lost_work,
                "lost_downtime": e.downtime,
                "lost_planned": e.planned,
            })
    return rows


def plot(t, rows, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6))
    ax = axes[0]
    for interval in INTERVALS_MIN:
        label = "best interval" if interval is None else "every %d min" % interval
        pts = [r for r in rows if r["interval"] == ("best" if interval is None else
                                                      "%d min" % interval)]
        line, = ax.plot([r["gpus"] for r in pts], [100 * r["ettr"] for r in pts], label=label)
        ax.errorbar([r["gpus"] for r in pts], [100 * r["ettr_monte_carlo"] for r in pts],
                    yerr=[100 * r["ettr_monte_carlo_ci95"] for r in pts], fmt="o", ms=3,
                    color=line.get_color())
    ax.axhline(90, color="grey", lw=0.8, ls="--")
    ax.axvline(OBSERVED_GPUS, color="grey", lw=0.8, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("GPUs (failure rates of Llama 3 scaled per GPU)")
    ax.set_ylabel("effective training time (%)")
    ax.set_title("By scale: lines exact, dots Monte Carlo (95 % CI)", fontsize=10)
    ax.legend(fontsize=8, loc="lower left")

    ax = axes[1]
    import numpy as np

    taus = np.geomspace(0.5, 240, 80)
    for gpus in (4096, 16384, 65536):
        lam, mu = rates(t, gpus)
        y = [100 * et.ettr(lam, practice(x * 60), mu).ettr for x in taus]
        line, = ax.plot(taus, y, label="%d GPUs" % gpus)
        best = et.best_interval(lam, practice(), mu) / 60
        ax.plot([best], [100 * et.ettr(lam, practice(best * 60), mu).ettr], "o",
                color=line.get_color(), ms=4)
    ax.axhline(90, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_xlabel("compute between checkpoints (min)")
    ax.set_ylabel("effective training time (%)")
    ax.set_title("By checkpoint interval (dot: best)", fontsize=10)
    ax.legend(fontsize=8)

    ax = axes[2]
    gpus_fine = [2 ** k for k in range(10, 18)]
    for target in (0.95, 0.90, 0.80):
        ys = []
        for g in gpus_fine:
            lam, mu = rates(t, g)
            d = et.max_downtime_for(target, lam, practice(), mu)
            ys.append(np.nan if d is None else d / 60)
        ax.plot(gpus_fine, ys, marker="o", ms=3, label="%d %% effective" % round(100 * target))
    ax.axhline((DETECTION_S + RESTART_S) / 60, color="grey", lw=0.8, ls="--")
    ax.axvline(OBSERVED_GPUS, color="grey", lw=0.8, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("GPUs")
    ax.set_ylabel("largest detection + restart (min)")
    ax.set_title("How fast recovery must be (dashed: assumed 10 min)", fontsize=10)
    ax.legend(fontsize=8)
    from matplotlib.ticker import FuncFormatter, NullFormatter

    for ax in (axes[0], axes[2]):
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: "%dk" % round(x / 1024)))
        ax.xaxis.set_minor_formatter(NullFormatter())
    fig.suptitle("Llama 3 failure rates (419 interruptions, 54 days, 16,384 GPUs), checkpoint "
                 "%.2f s, detection %d + restart %d min" % (CHECKPOINT_COST_S, DETECTION_S / 60,
                                                            RESTART_S / 60), fontsize=11)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, "ettr_scale." + ext), dpi=110)
    plt.close(fig)


def write_csv(path, rows, fields):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(fields)
        for r in rows:
            w.writerow([r[k] if isinstance(r, dict) else r[i] for i, k in enumerate(fields)])
    os.replace(tmp, path)


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.join(REPO, "results", "papers", "llama3-failures")
    os.makedirs(out, exist_ok=True)
    t = table()
    rows = summary(t)
    write_csv(os.path.join(out, "summary.csv"), rows, ["quantity", "paper", "ours", "note"])
    print("| quantity | Llama 3 paper | this model | note |\n|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %s |" % r)
    g = grid(t)
    write_csv(os.path.join(out, "ettr_scale.csv"), g, list(g[0].keys()))
    print("\n| GPUs | MTBI h | best interval min | ETTR best | every 10 min | every 30 min | "
          "every 60 min | Monte Carlo (best) |\n|---|---|---|---|---|---|---|---|")
    for gpus in GPUS:
        r = {x["interval"]: x for x in g if x["gpus"] == gpus}
        print("| %d | %.2f | %.1f | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f ± %.1f %% |" % (
            gpus, r["best"]["mtbi_h"], r["best"]["checkpoint_interval_min"],
            100 * r["best"]["ettr"], 100 * r["10 min"]["ettr"], 100 * r["30 min"]["ettr"],
            100 * r["60 min"]["ettr"], 100 * r["best"]["ettr_monte_carlo"],
            100 * r["best"]["ettr_monte_carlo_ci95"]))
    plot(t, g, out)
    print("\nwritten: %s/summary.csv, ettr_scale.csv, ettr_scale.png, ettr_scale.svg" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
