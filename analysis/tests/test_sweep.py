"""The pandas loaders (load_run, load_compare, load_sweep), `tusk report` on a sweep (metric
against an axis per policy, 95 % Student-t intervals across seeds) and the example script, on a
tiny sweep made by `tusk sweep`."""

import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import unittest
from html import unescape

import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests import support  # noqa: E402
from tusk_analysis import plots, report_parts  # noqa: E402
from tusk_analysis import load_compare, load_run, load_sweep, policy_intervals  # noqa: E402

TMP = None
ROOT = None

POLICIES = ["ecmp", "spray", "drill", "letflow"]


def sweep_toml(name, policies, *middle):
    """A sweep of the tiny scenario: policies x the `middle` axis tables x seeds 1-3."""
    return ('name = "%s"\nscenario = "tiny-s1.toml"\n[set]\noutput.sample_us = 0\n'
            '[[axis]]\nkey = "lb.policy"\nvalues = %s\n%s'
            '[[axis]]\nkey = "seed"\nvalues = [1, 2, 3]\n'
            % (name, json.dumps(policies), "".join(middle)))


SWEEP = sweep_toml("tiny-sweep", ["ecmp", "spray"],
                   '[[axis]]\nname = "size"\nkey = "workload.bytes"\nvalues = [65536, 262144]\n')
#: The commonest sweep: policies x seeds, no other axis (a few tens of µs simulated per run).
POLICY_SEED_SWEEP = sweep_toml("tiny-policies", POLICIES)

#: t(0.975, 2) from the standard tables (7 digits): the 95 % interval over 3 seeds.
T_975_2 = 4.3026527


def setUpModule():
    global TMP, ROOT
    TMP = tempfile.mkdtemp(prefix="tusk-sweep-analysis-test-")
    with open(os.path.join(TMP, "tiny-s1.toml"), "w") as fh:
        fh.write(support.TINY_TOML.format(seed=1))
    with open(os.path.join(TMP, "sweep.toml"), "w") as fh:
        fh.write(SWEEP)
    ROOT = os.path.join(TMP, "out")
    support.run_tusk("sweep", os.path.join(TMP, "sweep.toml"), "-q", "--out", ROOT)


def tearDownModule():
    if TMP:
        shutil.rmtree(TMP, ignore_errors=True)


class LoadSweepTest(unittest.TestCase):
    def test_summary_has_the_axes_as_columns(self):
        sw = load_sweep(ROOT)
        self.assertEqual(sw.axes, ["policy", "size", "seed"])
        self.assertEqual(len(sw.summary), 12)
        self.assertTrue(pd.api.types.is_integer_dtype(sw.summary["size"]))
        self.assertEqual(sorted(sw.summary["size"].unique()), [65536, 262144])
        self.assertEqual(set(sw.summary["status"]), {"ok"})
        self.assertEqual(len(sw.index), 12)
        self.assertEqual(set(sw.index["backend"]), {"local"})

    def test_tables_stack_every_run_with_its_axes(self):
        sw = load_sweep(ROOT)
        self.assertEqual(list(sw.flows.columns[:4]), ["run_id", "size", "policy", "seed"])
        for run_id, g in sw.flows.groupby("run_id"):
            run = load_run(os.path.join(ROOT, run_id))
            self.assertEqual(len(g), len(run.flows))
            self.assertEqual(g["fct_us"].sum(), run.flows["fct_us"].sum())
            row = sw.summary[sw.summary.run_id == run_id].iloc[0]
            self.assertEqual(g["size"].iloc[0], row["size"])
            # The manifest's numbers and sweep.csv's agree.
            self.assertAlmostEqual(run.summary["fct_p99_us"].iloc[0], row["fct_p99_us"], places=9)
        self.assertEqual(sw.collectives.groupby("run_id").size().min(), 1)
        self.assertGreater(len(sw.links), 0)
        # The collective's bytes per rank follow the size axis.
        self.assertTrue((sw.collectives["bytes_per_rank"] == sw.collectives["size"]).all())

    def test_not_a_sweep(self):
        with self.assertRaises(Exception) as cm:
            load_sweep(TMP)
        self.assertIn("no sweep.csv", str(cm.exception))


class LoadCompareTest(unittest.TestCase):
    def test_compare_tables(self):
        cmp_dir = support.tiny_comparison(TMP, name="cmp")
        c = load_compare(cmp_dir)
        self.assertEqual(list(c.summary["policy"]), ["ecmp", "spray"])
        self.assertEqual(list(c.flows.columns[:2]), ["policy", "seed"])
        self.assertEqual(set(c.flows["policy"]), {"ecmp", "spray"})
        self.assertEqual(len(c.flows), sum(len(load_run(os.path.join(cmp_dir, p)).flows)
                                           for p in ("ecmp", "spray")))


class SweepReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.proc = support.run_tusk("report", ROOT)
        cls.dir = os.path.join(ROOT, "report")

    def test_plots_and_html(self):
        self.assertIn("report.html", self.proc.stdout)
        for name in ("cct_us_vs_size", "fct_p99_us_vs_size", "retx_packets_vs_size"):
            for ext in (".png", ".svg"):
                self.assertTrue(os.path.isfile(os.path.join(self.dir, name + ext)), name + ext)
        with open(os.path.join(self.dir, "report.html"), encoding="utf-8") as fh:
            html = fh.read()
        self.assertIn('data-plot="cct_us_vs_size"', html)
        self.assertNotIn("http://", html)
        self.assertNotIn("https://", html)
        # Every figure: a title, labelled axes with units (the axis names its scenario key),
        # a caption.
        figs = re.findall(r'<figure id="([^"]*)" data-meta="([^"]*)">.*?<figcaption>([^<]+)',
                          html, re.S)
        self.assertEqual(len(figs), html.count("<img "))
        for name, meta, caption in figs:
            meta = json.loads(unescape(meta))
            self.assertEqual(plots.meta_problems(meta), [], name)
            self.assertGreater(len(caption.strip()), 40, name)
        meta = json.loads(unescape(dict((n, m) for n, m, _ in figs)["cct_us_vs_size"]))
        self.assertEqual(meta["axes"][0]["xlabel"], "size (sweep axis: workload.bytes)")

    def test_confidence_intervals_across_seeds(self):
        table = pd.read_csv(os.path.join(self.dir, "sweep_summary.csv"))
        sw = load_sweep(ROOT).summary
        rows = table[table.metric == "cct_us"]
        self.assertEqual(len(rows), 4)  # 2 policies x 2 sizes
        for _, r in rows.iterrows():
            v = sw[(sw.policy == r["policy"]) & (sw["size"] == r["size"])]["cct_us"].tolist()
            self.assertEqual(len(v), 3)
            self.assertAlmostEqual(r["mean"], statistics.fmean(v), places=9)
            half = T_975_2 * statistics.stdev(v) / math.sqrt(3)
            self.assertAlmostEqual(r["ci95"] / half, 1.0, places=6)
            self.assertEqual(r["n"], 3)


class PolicySeedSweepReportTest(unittest.TestCase):
    """`tusk report` on a sweep of policies x seeds only: per metric, a point per policy with
    its 95 % interval over seeds, the table behind it (mean, lo, hi per policy) in
    sweep_summary.csv and in the HTML, and the same table from Python."""

    @classmethod
    def setUpClass(cls):
        with open(os.path.join(TMP, "policies.toml"), "w") as fh:
            fh.write(POLICY_SEED_SWEEP)
        cls.root = os.path.join(TMP, "policies")
        support.run_tusk("sweep", os.path.join(TMP, "policies.toml"), "-q", "--out", cls.root)
        cls.proc = support.run_tusk("report", cls.root, check=False)
        cls.dir = os.path.join(cls.root, "report")

    def test_reported(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stdout)
        for name in ("cct_us_by_policy", "fct_p99_us_by_policy", "slowdown_p99_by_policy"):
            for ext in (".png", ".svg"):
                self.assertTrue(os.path.isfile(os.path.join(self.dir, name + ext)), name + ext)

    def test_interval_per_policy(self):
        table = pd.read_csv(os.path.join(self.dir, "sweep_summary.csv"))
        sw = load_sweep(self.root).summary
        for metric in ("cct_us", "fct_p99_us"):
            rows = table[table.metric == metric]
            self.assertEqual(list(rows["policy"]), POLICIES)
            for _, r in rows.iterrows():
                v = sw[sw.policy == r["policy"]][metric].tolist()
                self.assertEqual(len(v), 3)
                half = T_975_2 * statistics.stdev(v) / math.sqrt(3)
                self.assertAlmostEqual(r["mean"], statistics.fmean(v), places=9)
                self.assertAlmostEqual(r["lo"], statistics.fmean(v) - half, places=6)
                self.assertAlmostEqual(r["hi"], statistics.fmean(v) + half, places=6)
                self.assertEqual(r["n"], 3)
        # At least one policy's seeds differ, so some interval has a width.
        self.assertTrue((table["hi"] > table["lo"]).any())

    def test_html_names_the_intervals(self):
        with open(os.path.join(self.dir, "report.html"), encoding="utf-8") as fh:
            html = fh.read()
        self.assertIn('data-plot="cct_us_by_policy"', html)
        self.assertIn("95 % CI low", html)
        self.assertIn("95 % CI high", html)
        table = pd.read_csv(os.path.join(self.dir, "sweep_summary.csv"))
        cct = table[table.metric == "cct_us"]
        for _, r in cct.iterrows():
            row = re.search(r"<tr><td>%s</td><td>cct_us</td>.*?</tr>" % r["policy"], html)
            self.assertIsNotNone(row, r["policy"])
            cells = re.findall(r"<td>([^<]*)</td>", row.group(0))
            self.assertEqual(cells[4:6], [report_parts.fmt_num(r["lo"]), report_parts.fmt_num(r["hi"])])

    def test_policy_intervals_from_python(self):
        t = policy_intervals(self.root)
        csv = pd.read_csv(os.path.join(self.dir, "sweep_summary.csv"))
        for metric in ("cct_us", "slowdown_p99"):
            a = t[t.metric == metric].reset_index(drop=True)
            b = csv[csv.metric == metric].reset_index(drop=True)
            self.assertEqual(list(a["policy"]), list(b["policy"]))
            for col in ("mean", "lo", "hi", "ci95", "n"):
                self.assertEqual(a[col].round(9).tolist(), b[col].round(9).tolist(), col)
        self.assertEqual(set(t[t.metric == "cct_us"]["unit"]), {"µs"})
        # A sweep with another axis keeps its values apart.
        by_size = policy_intervals(ROOT)
        self.assertEqual(list(by_size.columns[:3]), ["size", "policy", "metric"])
        self.assertEqual(len(by_size[by_size.metric == "cct_us"]), 4)


class ExampleScriptTest(unittest.TestCase):
    def test_example_runs(self):
        script = os.path.join(support.ANALYSIS, "examples", "sweep_in_pandas.py")
        p = subprocess.run([sys.executable, script, ROOT, "cct_us"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn("12 runs, axes policy, size, seed", p.stdout)
        self.assertIn("('spray', 262144)", p.stdout)
        self.assertIn("FCT slowdown p99 of the pooled flows", p.stdout)


if __name__ == "__main__":
    unittest.main()
