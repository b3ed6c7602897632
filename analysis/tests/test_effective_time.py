"""The effective-training-time model (tusk_analysis.effective_time) against hand-computed
values, Young's and Daly's formulas, and its own Monte Carlo."""

import io
import json
import math
import os
import sys
import shutil
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tusk_analysis import effective_time as et  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LLAMA3 = os.path.join(REPO, "data", "failures", "llama3_54day_interruptions.csv")


class ExactModelTest(unittest.TestCase):
    def test_hand_value(self):
        # lambda = 1/h, tau = 10 min, C = 1 min, D = 1 min, R = 4 min:
        # E[T] = (3600 + 300) (exp(660 / 3600) - 1), ETTR = 600 / E[T].
        p = et.Practice(600, 60, 60, 240)
        t_seg = 3900 * math.expm1(660 / 3600)
        e = et.ettr(1 / 3600, p)
        self.assertAlmostEqual(e.ettr, 600 / t_seg, places=12)
        self.assertAlmostEqual(e.checkpointing, 60 / t_seg, places=12)
        self.assertAlmostEqual(e.downtime, 300 * math.expm1(660 / 3600) / t_seg, places=12)
        self.assertAlmostEqual(e.ettr + e.checkpointing + e.lost_work + e.downtime + e.planned,
                               1.0, places=12)

    def test_no_failures_leaves_only_checkpoints(self):
        e = et.ettr(0.0, et.Practice(600, 60, 60, 240))
        self.assertAlmostEqual(e.ettr, 600 / 660)
        self.assertEqual(e.lost_work, 0.0)

    def test_planned_restarts_cost_their_share_of_running_time(self):
        # One planned interruption per running hour at 5 min: with no failures and no
        # checkpoint cost, 60 min of work take 65 min.
        e = et.ettr(0.0, et.Practice(600, 0, 0, 0, planned_restart_s=300), 1 / 3600)
        self.assertAlmostEqual(e.ettr, 60 / 65)

    def test_young_is_the_first_order_and_its_optimum(self):
        # Young drops the terms of second order in C / tau and lambda (tau + D + R): with both
        # halved, the gap shrinks about 4x.
        gaps = []
        for scale in (1, 0.5):
            p = et.Practice(600, 6 * scale, 60, 240)
            lam = 1e-5 * scale
            gaps.append(abs(et.ettr(lam, p).ettr - et.young_ettr(lam, p)))
        self.assertLess(gaps[0], 2e-4)
        self.assertAlmostEqual(gaps[0] / gaps[1], 4.0, delta=0.5)
        self.assertAlmostEqual(et.young_interval(1 / 3600, 8), math.sqrt(2 * 8 * 3600))
        # Daly (2006) eq. 37 by hand: C = 8 s, M = 3600 s.
        x = 8 / 7200
        self.assertAlmostEqual(et.daly_interval(1 / 3600, 8),
                               math.sqrt(57600) * (1 + math.sqrt(x) / 3 + x / 9) - 8)
        self.assertEqual(et.daly_interval(1 / 3600, 8000), 3600)

    def test_best_interval_is_a_maximum_near_daly(self):
        lam = 419 / (54 * 86400)
        p = et.Practice(1, 3.24, 180, 420)
        best = et.best_interval(lam, p)
        self.assertAlmostEqual(best / et.daly_interval(lam, 3.24), 1.0, delta=0.02)
        f = lambda tau: et.ettr(lam, et.Practice(tau, 3.24, 180, 420)).ettr  # noqa: E731
        self.assertGreater(f(best), f(best * 0.8))
        self.assertGreater(f(best), f(best * 1.25))

    def test_max_downtime_meets_the_target_exactly(self):
        lam = 419 / (54 * 86400)
        p = et.Practice(1, 3.24, 0, 0)
        d = et.max_downtime_for(0.9, lam, p)
        q = et.Practice(1, 3.24, 0, d)
        q.checkpoint_interval_s = et.best_interval(lam, q)
        self.assertAlmostEqual(et.ettr(lam, q).ettr, 0.9, places=6)
        self.assertIsNone(et.max_downtime_for(0.9999, lam, p))

    def test_bad_practice_is_refused(self):
        with self.assertRaises(et.InputError):
            et.ettr(1e-4, et.Practice(0, 1, 1, 1))
        with self.assertRaises(et.InputError):
            et.ettr(1e-4, et.Practice(10, -1, 1, 1))


class MonteCarloTest(unittest.TestCase):
    def test_agrees_with_the_exact_model(self):
        lam, mu = 419 / (54 * 86400), 47 / (54 * 86400)
        for tau, c, d, r in ((265, 3.24, 180, 420), (1800, 30, 600, 1200), (7200, 120, 60, 60)):
            p = et.Practice(tau, c, d, r, planned_restart_s=r)
            exact = et.ettr(lam, p, mu).ettr
            mc, half = et.monte_carlo(lam, p, mu, replicates=200, seed=7)
            self.assertLess(abs(mc - exact), 3 * half, (tau, mc, exact, half))
            self.assertLess(half, 0.005)

    def test_is_seeded(self):
        p = et.Practice(600, 10, 60, 240)
        self.assertEqual(et.monte_carlo(1e-4, p, replicates=20, seed=3),
                         et.monte_carlo(1e-4, p, replicates=20, seed=3))


class InputTest(unittest.TestCase):
    def test_llama3_table(self):
        t = et.read_interruptions(LLAMA3, 16384, 54)
        self.assertEqual(t.total, 419)
        self.assertAlmostEqual(t.mtbi_hours(), 54 * 24 / 419)
        self.assertAlmostEqual(t.mtbi_hours(16384 * 2), 54 * 24 / 419 / 2)
        self.assertEqual(sum(c for name, _, c in t.categories if name == "Faulty GPU"), 148)

    def _csv(self, text):
        f = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False)
        f.write(text)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_bad_tables_name_file_line_and_column(self):
        path = self._csv("# comment\ncategory,component,count\nA,GPU,3\n")
        with self.assertRaisesRegex(et.InputError, r":2: interruptions: missing column"):
            et.read_interruptions(path, 8, 1)
        path = self._csv("category,component,interruptions\nA,GPU,3\nB,Host,x\n")
        with self.assertRaisesRegex(et.InputError,
                                    r":3: interruptions: expected a non-negative integer, got 'x'"):
            et.read_interruptions(path, 8, 1)
        with self.assertRaisesRegex(et.InputError, "no such file"):
            et.read_interruptions("/nonexistent.csv", 8, 1)

    def test_iteration_time_from_jobs_csv(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d, ignore_errors=True)
        with open(os.path.join(d, "jobs.csv"), "w") as f:
            f.write("job_id,name,iteration_us\n0,a,100.0;300.0;200.0\n1,b,5;7\n")
        self.assertAlmostEqual(et.iteration_seconds(d), 200e-6)
        self.assertAlmostEqual(et.iteration_seconds(d, "1"), 6e-6)
        with self.assertRaisesRegex(et.InputError, "no job with job_id 9"):
            et.iteration_seconds(d, "9")
        with open(os.path.join(d, "jobs.csv"), "w") as f:
            f.write("job_id,name,iteration_us\n0,a,1;x\n")
        with self.assertRaisesRegex(et.InputError, r"jobs.csv:2: iteration_us"):
            et.iteration_seconds(d)


class CommandTest(unittest.TestCase):
    def run_main(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            rc = et.main(list(argv))
        return rc, out.getvalue(), err.getvalue()

    def test_json_and_iterations(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d, ignore_errors=True)
        with open(os.path.join(d, "jobs.csv"), "w") as f:
            f.write("job_id,iteration_us\n0,2000000;2000000\n")
        rc, out, _ = self.run_main("--run", d, "--checkpoint-iterations", "150", "--json",
                                   "--replicates", "20")
        self.assertEqual(rc, 0)
        r = json.loads(out)
        self.assertAlmostEqual(r["mtbi_h"], 54 * 24 / 419)
        self.assertAlmostEqual(r["checkpoint_interval_min"], 5.0)  # 150 x 2 s
        self.assertAlmostEqual(r["effective_iterations_per_day"], r["ettr"] * 86400 / 2)

    def test_bad_input_exits_2(self):
        rc, out, err = self.run_main("--interruptions", "/nonexistent.csv")
        self.assertEqual((rc, out), (2, ""))
        self.assertIn("/nonexistent.csv: no such file", err)
        rc, _, err = self.run_main("--checkpoint-iterations", "10")
        self.assertEqual(rc, 2)
        self.assertIn("--checkpoint-iterations needs --iteration-s or --run", err)


if __name__ == "__main__":
    unittest.main()
