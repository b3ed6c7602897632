"""scenarios/papers/llama3-failures: its one command regenerates the tables and the plot, and
they reproduce the Llama 3 paper's failure arithmetic (oracle 25: 419 unexpected interruptions
in 54 days on 16,384 GPUs, one every 3.09 h, about 78 % hardware; Grattafiori et al. 2024,
table 5) and its "> 90 % effective training time" under the assumptions of the README."""

import csv
import os
import shutil
import subprocess
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(REPO, "scenarios", "papers", "llama3-failures", "run.sh")


class Llama3FailuresTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(prefix="llama3-failures-")
        cls.addClassCleanup(shutil.rmtree, cls.out, ignore_errors=True)
        p = subprocess.run([RUN, cls.out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        cls.printed = p.stdout
        if p.returncode != 0:
            raise AssertionError("run.sh failed (%d):\n%s" % (p.returncode, p.stdout))
        with open(os.path.join(cls.out, "summary.csv")) as f:
            cls.summary = {r["quantity"]: r for r in csv.DictReader(f)}
        with open(os.path.join(cls.out, "ettr_scale.csv")) as f:
            cls.grid = list(csv.DictReader(f))

    def value(self, quantity):
        return self.summary[quantity]["ours"]

    def test_oracle_25_interruption_arithmetic(self):
        self.assertEqual(self.value("unexpected interruptions in 54 days"), "419")
        # 54 x 24 h / 419 = 3.093 h: "one every 3.09 h".
        self.assertEqual(self.value("mean time between interruptions (h)"), "3.09")
        hw = float(self.value("share attributed to hardware").rstrip(" %"))
        self.assertAlmostEqual(hw, 78.0, delta=1.0)  # 324 / 419 = 77.3 %: "about 78 %"

    def test_above_90_percent_with_the_stated_restart_practice(self):
        ettr = float(self.value("effective training time").rstrip(" %"))
        mc, half = self.value("effective training time, Monte Carlo").rstrip(" %").split(" ± ")
        self.assertGreater(ettr, 90.0)
        self.assertGreater(float(mc) - float(half), 90.0)
        self.assertLess(abs(float(mc) - ettr), 3 * float(half) + 0.01)
        # The direction holds only with recovery faster than about a quarter of an hour.
        down = float(self.value("largest downtime per interruption for > 90 % (min)"))
        self.assertGreater(down, 10.0)  # the assumed 3 + 7 min
        self.assertLess(down, 20.0)

    def test_effective_time_falls_with_scale_and_long_intervals(self):
        by = {(int(r["gpus"]), r["interval"]): r for r in self.grid}
        gpus = sorted({g for g, _ in by})
        for interval in ("best", "10 min", "30 min", "60 min"):
            series = [float(by[(g, interval)]["ettr"]) for g in gpus]
            self.assertEqual(series, sorted(series, reverse=True), interval)
        for g in gpus:
            best = float(by[(g, "best")]["ettr"])
            for interval in ("10 min", "30 min", "60 min"):
                self.assertGreaterEqual(best + 1e-12, float(by[(g, interval)]["ettr"]))
            mc, half = float(by[(g, "best")]["ettr_monte_carlo"]), \
                float(by[(g, "best")]["ettr_monte_carlo_ci95"])
            self.assertLess(abs(mc - best), 3 * half + 1e-4, g)
        # Twice the GPUs, half the mean time between interruptions.
        self.assertAlmostEqual(float(by[(32768, "best")]["mtbi_h"]) * 2,
                               float(by[(16384, "best")]["mtbi_h"]), places=9)
        # At 16,384 GPUs a checkpoint every hour falls well below 90 %.
        self.assertLess(float(by[(16384, "60 min")]["ettr"]), 0.85)

    def test_plot_written(self):
        for ext in ("png", "svg"):
            path = os.path.join(self.out, "ettr_scale." + ext)
            self.assertGreater(os.path.getsize(path), 10000, path)


if __name__ == "__main__":
    unittest.main()
