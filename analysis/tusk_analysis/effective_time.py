"""Effective training time under failures: what fraction of wall-clock time a synchronous
training job spends on useful work, given how often it is interrupted and what each
interruption and each checkpoint costs.

Model (all times in seconds). A synchronous job stops at any component failure (one GPU, host,
NIC or cable stops every rank). It runs in segments of `checkpoint_interval_s` of compute
followed by a checkpoint that stalls it for `checkpoint_cost_s`. Unexpected interruptions arrive
as a Poisson process of rate lambda = gpus * (sum of per-GPU component rates) while the job runs
(not while it is down); each loses the work since the last completed checkpoint and costs
`detection_s` (the job hangs until the failure is noticed) plus `restart_s` (reschedule, rebuild
communicators, load the checkpoint). Planned interruptions (maintenance) arrive at rate mu per
second of running time, are applied at a checkpoint and cost `planned_restart_s` each, losing
nothing.

Exact expected wall time of one segment of work w = tau + C (renewal argument, as in Daly 2006
eq. 6 with the failure clock stopped while down):

    E[T] = (1/lambda + D + R) (exp(lambda w) - 1)

so the effective training time ratio (ETTR) is

    ETTR = tau / (E[T] + mu R_p (E[T] - (D + R)(exp(lambda w) - 1)))

the last term being planned restarts per unit of running time. Young's first-order form
1 - C/tau - (tau/2 + D + R) lambda and his optimum tau* = sqrt(2 C / lambda) (Young 1974), and
Daly's higher-order optimum (Daly 2006, eq. 37), are given for comparison. `monte_carlo`
simulates the same process event by event (seeded) and agrees with the exact form within its
confidence interval.

Failure rates come from a table of interruptions observed over a window (category, component,
count), e.g. data/failures/llama3_54day_interruptions.csv (419 unexpected interruptions of a
16,384-GPU job in 54 days, Llama 3 paper table 5), scaled per GPU-hour: every category is
assumed to scale linearly with the number of GPUs (hosts, NICs and cables grow with them).

Command line (`/usr/bin/python3 -m tusk_analysis.effective_time --help`): one setting, printed
as a table or JSON; the iteration time may come from a run's jobs.csv (`--run DIR`). Exit
status 0, or 2 for bad input (the message names the file, line and column).
"""

import argparse
import csv
import json
import math
import os
import sys
from dataclasses import asdict, dataclass

HOUR = 3600.0
DAY = 86400.0

#: Components whose interruptions count as hardware: GPUs (incl. their memories, SDC),
#: host parts and the network (switches, cables). Software bugs, dependencies, unplanned host
#: maintenance and NCCL watchdog timeouts of unknown cause do not.
HARDWARE_COMPONENTS = ("GPU", "Host", "Network")


class InputError(Exception):
    """Bad input: the message names the file, line and column."""


# --------------------------------------------------------------------------------------------
# Failure rates


@dataclass
class Interruptions:
    """Interruptions observed over a window: per category, its component and count."""

    source: str
    gpus: int
    hours: float
    categories: list  # (category, component, count)

    @property
    def total(self):
        return sum(c for _, _, c in self.categories)

    def rate_per_gpu_hour(self, components=None):
        """Interruptions per GPU-hour (of the given components, or all)."""
        n = sum(c for _, comp, c in self.categories if components is None or comp in components)
        return n / (self.gpus * self.hours)

    def mtbi_hours(self, gpus=None):
        """Mean time between interruptions of a job on `gpus` GPUs (default: the observed)."""
        return 1.0 / (self.rate_per_gpu_hour() * (gpus or self.gpus))

    def share(self, components):
        """Fraction of the interruptions attributed to `components`."""
        return sum(c for _, comp, c in self.categories if comp in components) / self.total


def read_interruptions(path, gpus, days):
    """Read a `category,component,interruptions[,...]` CSV (lines starting with '#' are
    comments). `gpus` and `days` describe the observation window."""
    if not os.path.isfile(path):
        raise InputError("%s: no such file" % path)
    if gpus <= 0 or days <= 0:
        raise InputError("%s: the observation window needs gpus > 0 and days > 0" % path)
    cats = []
    with open(path, newline="") as f:
        lines = [(i + 1, l) for i, l in enumerate(f) if l.strip() and not l.startswith("#")]
    if not lines:
        raise InputError("%s: no header line" % path)
    header_line, header = lines[0]
    cols = next(csv.reader([header]))
    for need in ("category", "component", "interruptions"):
        if need not in cols:
            raise InputError("%s:%d: %s: missing column (expected category, component, "
                             "interruptions)" % (path, header_line, need))
    for line, text in lines[1:]:
        row = next(csv.reader([text]))
        if len(row) != len(cols):
            raise InputError("%s:%d: %d fields, but the header has %d columns"
                             % (path, line, len(row), len(cols)))
        rec = dict(zip(cols, row))
        try:
            n = int(rec["interruptions"])
            if n < 0:
                raise ValueError
        except ValueError:
            raise InputError("%s:%d: interruptions: expected a non-negative integer, got %r"
                             % (path, line, rec["interruptions"]))
        cats.append((rec["category"], rec["component"], n))
    return Interruptions(path, gpus, days * 24.0, cats)


# --------------------------------------------------------------------------------------------
# The model


@dataclass
class Practice:
    """How the job checkpoints and recovers. Seconds."""

    checkpoint_interval_s: float  # compute between checkpoints (tau)
    checkpoint_cost_s: float  # time a checkpoint stalls training (C)
    detection_s: float  # failure to the job noticing (D)
    restart_s: float  # noticing to training again: reschedule, init, load (R)
    planned_restart_s: float = 0.0  # cost of a planned interruption (at a checkpoint: no loss)

    def check(self):
        if self.checkpoint_interval_s <= 0:
            raise InputError("checkpoint interval: expected > 0 s, got %r"
                             % self.checkpoint_interval_s)
        for name in ("checkpoint_cost_s", "detection_s", "restart_s", "planned_restart_s"):
            if getattr(self, name) < 0:
                raise InputError("%s: expected >= 0, got %r" % (name, getattr(self, name)))


@dataclass
class Ettr:
    """Effective training time ratio and where the rest goes (fractions of wall time)."""

    ettr: float
    checkpointing: float  # writing checkpoints
    lost_work: float  # compute redone after interruptions
    downtime: float  # detection + restart of unexpected interruptions
    planned: float  # planned restarts
    mtbi_s: float
    interruptions_per_day: float  # unexpected, per wall-clock day


def ettr(rate_per_s, p, planned_rate_per_s=0.0):
    """Exact expected ETTR (module docstring) for unexpected interruptions at `rate_per_s`
    (of running time) and planned ones at `planned_rate_per_s`."""
    p.check()
    tau, c, down = p.checkpoint_interval_s, p.checkpoint_cost_s, p.detection_s + p.restart_s
    w = tau + c
    if rate_per_s <= 0:
        failures, lost, t_seg = 0.0, 0.0, w
    else:
        failures = math.expm1(rate_per_s * w)  # expected failures per segment
        t_seg = (1.0 / rate_per_s + down) * failures
        lost = t_seg - w - down * failures  # running time not committed
    running = t_seg - down * failures
    planned = planned_rate_per_s * running * p.planned_restart_s
    total = t_seg + planned
    return Ettr(ettr=tau / total, checkpointing=c / total, lost_work=lost / total,
                downtime=down * failures / total, planned=planned / total,
                mtbi_s=1.0 / rate_per_s if rate_per_s > 0 else math.inf,
                interruptions_per_day=failures / total * DAY)


def young_ettr(rate_per_s, p):
    """Young's first-order estimate 1 - C/tau - (tau/2 + D + R) lambda (no planned ones)."""
    return (1.0 - p.checkpoint_cost_s / p.checkpoint_interval_s
            - (p.checkpoint_interval_s / 2 + p.detection_s + p.restart_s) * rate_per_s)


def young_interval(rate_per_s, cost_s):
    """Young (1974): tau* = sqrt(2 C M), M = 1 / lambda."""
    return math.sqrt(2.0 * cost_s / rate_per_s)


def daly_interval(rate_per_s, cost_s):
    """Daly (2006), eq. 37: sqrt(2CM) [1 + sqrt(C/2M)/3 + (C/2M)/9] - C for C < 2M, else M."""
    m = 1.0 / rate_per_s
    if cost_s >= 2 * m:
        return m
    x = cost_s / (2 * m)
    return math.sqrt(2 * cost_s * m) * (1 + math.sqrt(x) / 3 + x / 9) - cost_s


def best_interval(rate_per_s, p, planned_rate_per_s=0.0):
    """The checkpoint interval that maximises the exact ETTR (golden-section search around
    Daly's optimum; the ETTR is unimodal in tau)."""
    lo = max(1e-3, daly_interval(rate_per_s, max(p.checkpoint_cost_s, 1e-9)) / 20)
    hi = lo * 400

    def f(tau):
        q = Practice(**{**asdict(p), "checkpoint_interval_s": tau})
        return -ettr(rate_per_s, q, planned_rate_per_s).ettr

    g = (math.sqrt(5) - 1) / 2
    a, b = math.log(lo), math.log(hi)
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(math.exp(c)), f(math.exp(d))
    for _ in range(100):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(math.exp(c))
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(math.exp(d))
    return math.exp((a + b) / 2)


def max_downtime_for(target, rate_per_s, p, planned_rate_per_s=0.0):
    """The largest detection + restart time per unexpected interruption for which the ETTR, at
    its best checkpoint interval, still reaches `target` (bisection; planned restarts keep
    their cost). None if even zero downtime misses it."""

    def best(down):
        q = Practice(**{**asdict(p), "detection_s": 0.0, "restart_s": down})
        q.checkpoint_interval_s = best_interval(rate_per_s, q, planned_rate_per_s)
        return ettr(rate_per_s, q, planned_rate_per_s).ettr

    if best(0.0) < target:
        return None
    lo, hi = 0.0, 1.0 / rate_per_s
    for _ in range(60):
        mid = (lo + hi) / 2
        if best(mid) >= target:
            lo = mid
        else:
            hi = mid
    return lo


def monte_carlo(rate_per_s, p, planned_rate_per_s=0.0, horizon_s=54 * DAY, replicates=200,
                seed=1):
    """Simulate `replicates` jobs for at least `horizon_s` of wall time each, interruption by
    interruption: the running time to the next one is exponential (rate `rate_per_s`), the
    segments completed before it are committed, the rest is lost, then detection + restart;
    planned interruptions over that running time (Poisson, `planned_rate_per_s`) add their
    restart. Returns (ETTR, half-width of its 95 % confidence interval across replicates):
    committed compute / wall time, pooled over replicates (a renewal-reward estimate)."""
    import numpy as np

    p.check()
    rng = np.random.default_rng(seed)
    tau, w = p.checkpoint_interval_s, p.checkpoint_interval_s + p.checkpoint_cost_s
    down = p.detection_s + p.restart_s
    if rate_per_s <= 0:
        segments = math.ceil(horizon_s / w)
        t = segments * w * (1 + planned_rate_per_s * p.planned_restart_s)
        return segments * tau / t, 0.0
    batch = int(horizon_s * rate_per_s * 1.2) + 16
    ratios, useful_all, wall_all = [], 0.0, 0.0
    for _ in range(replicates):
        useful = wall = 0.0
        while wall < horizon_s:
            run = rng.exponential(1.0 / rate_per_s, size=batch)
            planned = rng.poisson(planned_rate_per_s * run) if planned_rate_per_s > 0 else 0
            epoch = run + down + planned * p.planned_restart_s
            done = np.floor(run / w) * tau
            ends = wall + np.cumsum(epoch)
            k = int(np.searchsorted(ends, horizon_s)) + 1  # epochs up to the one crossing it
            k = min(k, batch)
            useful += float(done[:k].sum())
            wall = float(ends[k - 1])
        ratios.append(useful / wall)
        useful_all += useful
        wall_all += wall
    ratios = np.asarray(ratios)
    half = 1.96 * ratios.std(ddof=1) / math.sqrt(replicates) if replicates > 1 else math.nan
    return useful_all / wall_all, half


# --------------------------------------------------------------------------------------------
# Iteration time from a run


def iteration_seconds(run_dir, job=None):
    """The median iteration time (s) of a job in RUN_DIR/jobs.csv (`iteration_us`,
    ';'-separated); the first job unless `job` (its job_id) is given."""
    path = os.path.join(run_dir, "jobs.csv")
    if not os.path.isfile(path):
        raise InputError("%s: no such file (a run with [[jobs]] writes it)" % path)
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
        header = rows[0].keys() if rows else []
    for need in ("job_id", "iteration_us"):
        if rows and need not in header:
            raise InputError("%s:1: %s: missing column" % (path, need))
    for i, r in enumerate(rows):
        if job is not None and r["job_id"] != str(job):
            continue
        try:
            times = sorted(float(x) for x in r["iteration_us"].split(";") if x != "")
        except ValueError:
            raise InputError("%s:%d: iteration_us: expected ';'-separated numbers, got %r"
                             % (path, i + 2, r["iteration_us"]))
        if not times:
            raise InputError("%s:%d: iteration_us: the job completed no iteration"
                             % (path, i + 2))
        n = len(times)
        med = times[n // 2] if n % 2 else (times[n // 2 - 1] + times[n // 2]) / 2
        return med / 1e6
    raise InputError("%s: no job%s" % (path, "" if job is None else " with job_id %s" % job))


# --------------------------------------------------------------------------------------------
# Command line


def _parser():
    here = os.path.dirname(os.path.abspath(__file__))
    default_csv = os.path.join(os.path.dirname(os.path.dirname(here)), "data", "failures",
                               "llama3_54day_interruptions.csv")
    ap = argparse.ArgumentParser(
        prog="python3 -m tusk_analysis.effective_time",
        description="Effective training time of a synchronous job under failures: exact "
                    "(renewal) model, Young's first order, and a seeded Monte Carlo.")
    ap.add_argument("--interruptions", default=default_csv,
                    help="CSV of observed interruptions: category,component,interruptions "
                         "(default: the Llama 3 54-day table)")
    ap.add_argument("--observed-gpus", type=int, default=16384,
                    help="GPUs of the job the table was observed on (default 16384)")
    ap.add_argument("--observed-days", type=float, default=54,
                    help="length of the observation window, days (default 54)")
    ap.add_argument("--rate-per-gpu-hour", type=float,
                    help="unexpected interruptions per GPU-hour instead of the table")
    ap.add_argument("--gpus", type=int, default=16384, help="GPUs of the job modelled (default 16384)")
    ap.add_argument("--checkpoint-min", type=float,
                    help="compute between checkpoints, minutes (default: the best interval)")
    ap.add_argument("--checkpoint-iterations", type=int,
                    help="checkpoint every this many iterations (needs --iteration-s or --run)")
    ap.add_argument("--checkpoint-cost-s", type=float, default=3.24,
                    help="stall per checkpoint, s (default 3.24: 6.48 TB of 405B-parameter "
                         "model and optimizer state at the 2 TB/s of Llama 3's storage)")
    ap.add_argument("--detect-min", type=float, default=3.0, help="failure to detection, min (default 3)")
    ap.add_argument("--restart-min", type=float, default=7.0,
                    help="detection to training again: reschedule, init, load the checkpoint; min "
                         "(default 7)")
    ap.add_argument("--planned-per-day", type=float, default=47 / 54,
                    help="planned interruptions per day at the observed scale (default 47 in "
                         "54 days), scaled with GPUs")
    ap.add_argument("--iteration-s", type=float, help="iteration (step) time, s")
    ap.add_argument("--run", help="a tusk run directory: the iteration time is the median of "
                                  "its jobs.csv iteration_us")
    ap.add_argument("--job", help="job_id in jobs.csv (default the first)")
    ap.add_argument("--replicates", type=int, default=200,
                    help="Monte Carlo replicates, 54 days each (default 200)")
    ap.add_argument("--seed", type=int, default=1, help="Monte Carlo seed (default 1)")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    return ap


def evaluate(args):
    """The dictionary the command prints."""
    if args.gpus <= 0:
        raise InputError("--gpus: expected > 0, got %d" % args.gpus)
    if args.replicates < 2:
        raise InputError("--replicates: expected >= 2 (a confidence interval), got %d"
                         % args.replicates)
    if args.rate_per_gpu_hour is not None:
        if args.rate_per_gpu_hour <= 0:
            raise InputError("--rate-per-gpu-hour: expected > 0")
        per_gpu_hour, source, hw = args.rate_per_gpu_hour, "--rate-per-gpu-hour", None
    else:
        table = read_interruptions(args.interruptions, args.observed_gpus, args.observed_days)
        per_gpu_hour, source = table.rate_per_gpu_hour(), table.source
        hw = table.share(HARDWARE_COMPONENTS)
    rate = per_gpu_hour * args.gpus / HOUR
    planned = args.planned_per_day / DAY / args.observed_gpus * args.gpus
    it = None
    if args.run:
        it = iteration_seconds(args.run, args.job)
    elif args.iteration_s is not None:
        if args.iteration_s <= 0:
            raise InputError("--iteration-s: expected > 0")
        it = args.iteration_s
    down = (args.detect_min + args.restart_min) * 60
    if min(args.checkpoint_cost_s, args.detect_min, args.restart_min, args.planned_per_day) < 0:
        raise InputError("--checkpoint-cost-s, --detect-min, --restart-min, --planned-per-day: "
                         "expected >= 0")
    p = Practice(1.0, args.checkpoint_cost_s, args.detect_min * 60, args.restart_min * 60,
                 planned_restart_s=args.restart_min * 60)
    if args.checkpoint_iterations is not None:
        if it is None:
            raise InputError("--checkpoint-iterations needs --iteration-s or --run")
        p.checkpoint_interval_s = args.checkpoint_iterations * it
    elif args.checkpoint_min is not None:
        p.checkpoint_interval_s = args.checkpoint_min * 60
    else:
        p.checkpoint_interval_s = best_interval(rate, p, planned)
    if it is not None and args.checkpoint_iterations is None:
        p.checkpoint_interval_s = max(1, round(p.checkpoint_interval_s / it)) * it
    e = ettr(rate, p, planned)
    mc, half = monte_carlo(rate, p, planned, replicates=args.replicates, seed=args.seed)
    out = {
        "source": source,
        "gpus": args.gpus,
        "mtbi_h": e.mtbi_s / HOUR,
        "hardware_share": hw,
        "checkpoint_interval_min": p.checkpoint_interval_s / 60,
        "young_interval_min": young_interval(rate, p.checkpoint_cost_s) / 60,
        "daly_interval_min": daly_interval(rate, p.checkpoint_cost_s) / 60,
        "checkpoint_cost_s": p.checkpoint_cost_s,
        "downtime_min": down / 60,
        "planned_per_day": planned * DAY,
        "ettr": e.ettr,
        "ettr_young_first_order": young_ettr(rate, p),
        "ettr_monte_carlo": mc,
        "ettr_monte_carlo_ci95": half,
        "lost": {"checkpointing": e.checkpointing, "lost_work": e.lost_work,
                 "downtime": e.downtime, "planned": e.planned},
        "interruptions_per_day": e.interruptions_per_day,
        "iteration_s": it,
        "effective_iterations_per_day": e.ettr * DAY / it if it else None,
    }
    return out


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        r = evaluate(args)
    except InputError as e:
        print("effective_time: error: %s" % e, file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    print("%d GPUs, failure rates from %s" % (r["gpus"], r["source"]))
    print("mean time between unexpected interruptions  %8.2f h (%.1f a day)"
          % (r["mtbi_h"], r["interruptions_per_day"]))
    if r["hardware_share"] is not None:
        print("attributed to hardware (GPU, host, network) %7.1f %%" % (100 * r["hardware_share"]))
    print("checkpoint every %.1f min (Young %.1f, Daly %.1f), %.2f s each; downtime %.1f min "
          "per interruption; %.2f planned a day"
          % (r["checkpoint_interval_min"], r["young_interval_min"], r["daly_interval_min"],
             r["checkpoint_cost_s"], r["downtime_min"], r["planned_per_day"]))
    print("effective training time   %6.2f %%  (Young first order %.2f %%, Monte Carlo %.2f "
          "± %.2f %%)" % (100 * r["ettr"], 100 * r["ettr_young_first_order"],
                          100 * r["ettr_monte_carlo"], 100 * r["ettr_monte_carlo_ci95"]))
    lost = r["lost"]
    print("lost to: checkpoints %.2f %%, redone work %.2f %%, detection + restart %.2f %%, "
          "planned restarts %.2f %%" % (100 * lost["checkpointing"], 100 * lost["lost_work"],
                                        100 * lost["downtime"], 100 * lost["planned"]))
    if r["iteration_s"]:
        print("iteration %.6g s: %.0f effective iterations a day"
              % (r["iteration_s"], r["effective_iterations_per_day"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
