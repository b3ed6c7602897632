"""Golden test of `tusk report`: a tiny comparison's report contains the expected plots, its
tables and numbers agree with the simulator's own summary, and the HTML needs no network."""

import base64
import contextlib
import errno
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests import support  # noqa: E402
from tusk_analysis import load, marker, report, stats  # noqa: E402

TMP = None
CMP = None


def setUpModule():
    global TMP, CMP
    TMP = tempfile.mkdtemp(prefix="tusk-analysis-test-")
    CMP = support.tiny_comparison(TMP)


def tearDownModule():
    if TMP:
        shutil.rmtree(TMP, ignore_errors=True)


def images(html):
    """{data-plot name: decoded PNG bytes} of the report's inline images."""
    out = {}
    for m in re.finditer(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)" alt="[^"]*" '
                         r'data-plot="([^"]+)"', html):
        out[m.group(2)] = base64.b64decode(m.group(1))
    return out


class ComparisonReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.proc = support.run_tusk("report", CMP)
        cls.dir = os.path.join(CMP, "report")
        with open(os.path.join(cls.dir, "report.html"), encoding="utf-8") as fh:
            cls.html = fh.read()

    def test_command_output(self):
        self.assertIn("report.html", self.proc.stdout)
        for name in support.EXPECTED_PLOTS:
            self.assertIn(name, self.proc.stdout)

    def test_expected_plot_files(self):
        for name in support.EXPECTED_PLOTS:
            png = os.path.join(self.dir, name + ".png")
            svg = os.path.join(self.dir, name + ".svg")
            with open(png, "rb") as fh:
                data = fh.read()
            self.assertTrue(data.startswith(b"\x89PNG\r\n\x1a\n"), name)
            self.assertGreater(len(data), 5000, name)
            with open(svg, encoding="utf-8") as fh:
                self.assertIn("<svg", fh.read(2000), name)

    def test_a_fabric_view_per_run_is_written_and_linked(self):
        for policy in ("ecmp", "spray"):
            page = "fabric-%s-s1.html" % policy
            self.assertTrue(os.path.isfile(os.path.join(self.dir, page)), page)
            self.assertIn('href="%s"' % page, self.html)

    def test_summary_has_the_collective_aware_slowdown(self):
        self.assertIn("fair-share slowdown mean", self.html)
        s = pd.read_csv(os.path.join(self.dir, "summary.csv"))
        # Never above the idle-fabric slowdown: the fair ideal is at least the idle one.
        self.assertTrue((s["fair_slowdown_mean"] > 0).all(), s["fair_slowdown_mean"])
        self.assertTrue((s["fair_slowdown_mean"] <= s["slowdown_mean"] + 1e-9).all())

    def test_html_inlines_every_plot(self):
        imgs = images(self.html)
        self.assertEqual(sorted(imgs), sorted(support.EXPECTED_PLOTS))
        for name, data in imgs.items():
            with open(os.path.join(self.dir, name + ".png"), "rb") as fh:
                self.assertEqual(data, fh.read(), name)
        self.assertFalse("Not drawn" in self.html)

    def test_html_is_self_contained(self):
        # Nothing is fetched: no external src/href, no CSS import, no remote fonts.
        self.assertIsNone(re.search(r'(src|href)\s*=\s*"(https?:)?//', self.html))
        self.assertFalse("@import" in self.html)
        self.assertFalse("url(http" in self.html)

    def test_tables_and_metadata(self):
        self.assertGreaterEqual(self.html.count("<table"), 4)  # meta, runs, summary, steps
        for text in ("tiny", "ecmp", "spray", "seed", "ns-3", "3.37", "CCT (µs)", "p99.9",
                     "Jain", "[topology]", "leaves = 2"):
            self.assertTrue(text in self.html, "%r not in report.html" % text)

    def test_tidy_tables(self):
        summary = pd.read_csv(os.path.join(self.dir, "summary.csv"))
        self.assertEqual(list(summary["policy"]), ["ecmp", "spray"])
        steps = pd.read_csv(os.path.join(self.dir, "steps.csv"))
        # ring all-reduce over 4 ranks: 2 (n - 1) = 6 steps per run
        self.assertEqual(len(steps), 12)
        self.assertTrue((steps["step_us"] > 0).all())

    def test_summary_is_the_simulators(self):
        # tusk/run/run-summary.cc computes the summary once and writes it into the manifest; the
        # report's per-run table (summary.csv) carries exactly those numbers.
        res = load.load_results(CMP)
        self.assertEqual(res.kind, "comparison")
        table = pd.read_csv(os.path.join(CMP, "report", "summary.csv"))
        for run in res.runs:
            c = run.manifest["summary"]
            row = table[table["policy"] == run.policy].iloc[0]
            for key in ("slowdown_mean", "slowdown_p99", "slowdown_p999", "cct_us", "busbw_GBps",
                        "uplink_util_max", "uplink_imbalance", "uplink_jain"):
                self.assertAlmostEqual(row[key], c[key], places=9, msg="%s %s" % (run.policy, key))
            self.assertAlmostEqual(row["pause_fraction"], c["pfc_paused_fraction"], places=12)
            for key in ("drops", "retx_packets", "ooo_packets", "unfinished"):
                self.assertEqual(row[key], c[key], "%s %s" % (run.policy, key))

    def test_rerun_replaces_atomically(self):
        before = set(os.listdir(CMP))
        support.run_tusk("report", CMP)
        self.assertEqual(set(os.listdir(CMP)), before)  # no staging or old directory left
        self.assertTrue(os.path.isfile(os.path.join(CMP, "report", "report.html")))


class SingleRunReportTest(unittest.TestCase):
    def test_single_run(self):
        run = os.path.join(CMP, "ecmp")
        out = os.path.join(TMP, "single-report")
        support.run_tusk("report", run, "--out", out)
        with open(os.path.join(out, "report.html"), encoding="utf-8") as fh:
            html = fh.read()
        self.assertEqual(sorted(images(html)), sorted(support.EXPECTED_PLOTS))
        self.assertTrue("single run" in html)
        self.assertFalse("spray" in html)
        self.assertFalse(os.path.exists(os.path.join(run, "report")))  # --out honoured


class WithoutFlowRowsTest(unittest.TestCase):
    def test_report_of_a_run_without_flows_csv_says_the_rows_were_not_written(self):
        toml = os.path.join(TMP, "tiny-summary.toml")
        with open(toml, "w") as fh:
            fh.write(support.TINY_TOML.format(seed=1))
        run = os.path.join(TMP, "no-rows")
        support.run_tusk("run", toml, "--set", 'output.flow_rows="summary"', "--out", run, "-q")
        self.assertFalse(os.path.exists(os.path.join(run, "flows.csv")))
        self.assertFalse(os.path.exists(os.path.join(run, "waits.csv")))
        loaded = load.load_run(run)
        self.assertFalse(loaded.flow_rows_written)
        self.assertTrue(loaded.flows.empty)
        self.assertIsNone(loaded.waits)
        out = os.path.join(TMP, "no-rows-report")
        support.run_tusk("report", run, "--out", out)
        with open(os.path.join(out, "report.html"), encoding="utf-8") as fh:
            html = fh.read()
        self.assertIn("per-transfer rows", html)
        self.assertIn("not written", html)
        # The summary is the manifest's, as for a run with its rows.
        summary = pd.read_csv(os.path.join(out, "summary.csv"))
        with open(os.path.join(run, "manifest.json"), encoding="utf-8") as fh:
            m = json.load(fh)["summary"]
        self.assertAlmostEqual(summary["slowdown_mean"].iloc[0], m["slowdown_mean"], places=9)
        self.assertTrue(loaded.flow_rows_written is False and len(loaded.collectives) == 1)


class SeedsReportTest(unittest.TestCase):
    def test_confidence_intervals_across_seeds(self):
        root = os.path.join(TMP, "seeds")
        os.makedirs(root)
        shutil.copytree(CMP, os.path.join(root, "compare-s1"),
                        ignore=shutil.ignore_patterns("report"))
        support.tiny_comparison(root, seed=2, name="compare-s2")
        support.run_tusk("report", root)
        table = pd.read_csv(os.path.join(root, "report", "comparison.csv"))
        self.assertEqual(list(table["seeds"]), [2, 2])
        per_run = pd.read_csv(os.path.join(root, "report", "summary.csv"))
        for policy in ("ecmp", "spray"):
            cct = per_run[per_run["policy"] == policy]["cct_us"].tolist()
            m, half = stats.mean_ci(cct)
            row = table[table["policy"] == policy].iloc[0]
            self.assertAlmostEqual(row["cct_us"], m)
            self.assertAlmostEqual(row["cct_us_ci"], half)
            self.assertFalse(math.isnan(row["cct_us_ci"]))
        with open(os.path.join(root, "report", "report.html"), encoding="utf-8") as fh:
            html = fh.read()
        self.assertTrue("±" in html, "no confidence interval in the summary table")
        self.assertTrue("<td><b>seeds</b></td><td>1, 2</td>" in html, "seeds not listed")


class ErrorsTest(unittest.TestCase):
    def test_not_a_results_directory(self):
        empty = tempfile.mkdtemp(dir=TMP)
        p = support.run_tusk("report", empty, check=False)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("no tusk results", p.stdout)
        p = support.run_tusk("report", os.path.join(TMP, "nonexistent"), check=False)
        self.assertEqual(p.returncode, 2, p.stdout)

    def _damaged_copy(self, name, text):
        """A copy of the comparison's ecmp run with `name` replaced by `text`."""
        run = os.path.join(tempfile.mkdtemp(dir=TMP), "run")
        shutil.copytree(os.path.join(CMP, "ecmp"), run)
        with open(os.path.join(run, name), "w", encoding="utf-8") as fh:
            fh.write(text)
        return run

    def test_damaged_files_exit_2_naming_file_and_column(self):
        # Each damage once made the report end in a Python traceback (exit 1).
        with open(os.path.join(CMP, "ecmp", "flows.csv"), encoding="utf-8") as fh:
            header = fh.readline()
        cases = [
            ("manifest.json", "[1, 2]", "manifest.json: expected a JSON object"),
            ("manifest.json", '{"seed": 1}', "manifest.json: key 'policy'"),
            ("flows.csv", "a,b\n1,2\n", "flows.csv: no column flow_id"),
            ("flows.csv", header + "0,1,2" + "," * (header.count(",") - 2) + "\n",
             "flows.csv: line 2, column bytes: empty"),
            ("flows.csv", "flow_id,src,dst,bytes,start_us,finish_us,fct_us,finished\n"
                          "0,0,1,lots,0,1,1,1\n", "line 2, column bytes: 'lots' is not a number"),
            ("links.csv", "link_id,from\n", "links.csv: no column to, tx_bytes"),
        ]
        for name, text, expected in cases:
            with self.subTest(name=name, text=text[:20]):
                run = self._damaged_copy(name, text)
                p = support.run_tusk("report", run, "--out", run + "-report", check=False)
                self.assertEqual(p.returncode, 2, p.stdout)
                self.assertIn(expected, p.stdout)
                self.assertNotIn("Traceback", p.stdout)
                self.assertFalse(os.path.exists(run + "-report"))

    def test_cut_or_damaged_tables_exit_2_naming_file_and_line(self):
        # Each once drew plots from partial data with exit 0: pandas fills a short row with
        # empty cells, and a file cut at a line break, or with rows deleted, still parses.
        def original(name):
            with open(os.path.join(CMP, "ecmp", name), encoding="utf-8") as fh:
                return fh.read()

        flows = original("flows.csv").splitlines(keepends=True)
        self.assertGreater(len(flows), 8)
        short_row = flows[2].rstrip("\n").rsplit(",", 1)[0] + "\n"
        finished = flows[0].rstrip("\n").split(",").index("finished")
        row = flows[3].rstrip("\n").split(",")
        self.assertEqual(row[finished], "1")
        row[finished] = "0"
        unfinished_row = ",".join(row) + "\n"
        waits = original("waits.csv")
        cases = [
            ("flows.csv", "".join(flows[:2] + [short_row] + flows[3:]),
             "flows.csv: line 3 has %d fields, the header has %d"
             % (flows[0].count(","), flows[0].count(",") + 1)),
            ("flows.csv", "".join(flows[:4] + [flows[4].rstrip("\n") + ",7\n"] + flows[5:]),
             "flows.csv: line 5 has %d fields" % (flows[0].count(",") + 2)),
            ("flows.csv", "".join(flows)[:len(flows[0]) + 40],
             "flows.csv: line 2 has"),
            ("flows.csv", "".join(flows)[:-3],
             "flows.csv: line %d is cut short" % len(flows)),
            ("flows.csv", "".join(flows[:4] + flows[9:]),
             "flows.csv has %d rows, the manifest says %d transfers"
             % (len(flows) - 6, len(flows) - 1)),
            ("flows.csv", "".join(flows[:3] + [unfinished_row] + flows[4:]),
             "flows.csv has %d finished transfers, the manifest says %d"
             % (len(flows) - 2, len(flows) - 1)),
            ("waits.csv", waits[:len(waits) - 3], "waits.csv: line %d is cut short"
             % waits.count("\n")),
        ]
        for name, text, expected in cases:
            with self.subTest(name=name, expected=expected):
                run = self._damaged_copy(name, text)
                p = support.run_tusk("report", run, "--out", run + "-report", check=False)
                self.assertEqual(p.returncode, 2, p.stdout)
                self.assertIn(expected, p.stdout)
                self.assertNotIn("Traceback", p.stdout)
                self.assertFalse(os.path.exists(run + "-report"))
        # A field that quotes a line break (CsvField) is one record, not a damaged one.
        df = load._read_csv(io.StringIO('a,b\n1,"x\ny"\n2,z\n'))
        self.assertEqual(list(df["b"]), ["x\ny", "z"])

    def test_manifest_is_valid_json(self):
        with open(os.path.join(CMP, "ecmp", "manifest.json")) as fh:
            m = json.load(fh)
        self.assertIn("timeseries.csv", m["files"])
        self.assertEqual(m["scenario"]["output"]["sample_us"], 1)


class TimeSeriesTest(unittest.TestCase):
    def test_columns_and_consistency(self):
        ts = pd.read_csv(os.path.join(CMP, "ecmp", "timeseries.csv"))
        self.assertEqual(list(ts.columns)[:7], ["time_us", "link_id", "from", "to", "tx_bytes",
                                                "util", "queue_bytes"])
        links = pd.read_csv(os.path.join(CMP, "ecmp", "links.csv"))
        # Every switch egress port is sampled, and its tx bytes add up to links.csv's.
        sw = links[links["from"].str.startswith(("leaf", "spine"))]
        sums = ts.groupby(["link_id", "from", "to"])["tx_bytes"].sum()
        self.assertEqual(len(sums), len(sw))
        for _, l in sw.iterrows():
            self.assertEqual(sums[(l["link_id"], l["from"], l["to"])], l["tx_bytes"])
        # 1 us samples: times are multiples of 1 us except the last (the end of the run).
        times = sorted(ts["time_us"].unique())
        self.assertAlmostEqual(times[0], 1.0)
        self.assertTrue(all(abs(t - round(t)) < 1e-9 for t in times[:-1]))
        self.assertTrue((ts["util"] >= 0).all())
        self.assertTrue((ts["util"] <= 1.2).all())


class WriteErrorsTest(unittest.TestCase):
    """`tusk report` where the report cannot be written: one line naming the path and the OS's
    words, no traceback, exit 2 (3 for a full disk), nothing left behind; and an output folder
    holding files tusk did not write is never replaced."""

    def setUp(self):
        self.run = os.path.join(TMP, "report-errors-" + self._testMethodName)
        shutil.copytree(os.path.join(CMP, "ecmp"), self.run)

    def call_main(self, *argv):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = report.main(list(argv))
        return rc, err.getvalue()

    def assert_one_line(self, text):
        self.assertNotIn("Traceback", text)
        self.assertEqual(len(text.strip().splitlines()), 1, text)

    def test_read_only_results_folder(self):
        # What the OS says on a read-only folder, for any user (root writes through chmod).
        def refuse(*args, **kwargs):
            raise PermissionError(errno.EACCES, "Permission denied",
                                  os.path.join(self.run, "report.staging-x"))
        with mock.patch("tempfile.mkdtemp", refuse):
            rc, err = self.call_main(self.run)
        self.assertEqual(rc, 2)
        self.assert_one_line(err)
        self.assertIn("Permission denied", err)
        self.assertFalse(os.path.exists(os.path.join(self.run, "report")))

    def test_read_only_results_folder_chmod(self):
        if os.geteuid() == 0:
            self.skipTest("running as root: a chmod 555 folder stays writable to root; "
                          "test_read_only_results_folder checks the same path with the OS's "
                          "refusal simulated")
        os.chmod(self.run, 0o555)
        try:
            p = support.run_tusk("report", self.run, check=False)
        finally:
            os.chmod(self.run, 0o755)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assert_one_line(p.stdout)

    def test_out_below_a_file(self):
        # Cannot be written by anyone, root included.
        f = os.path.join(TMP, "report-errors-a-file")
        open(f, "w").close()
        p = support.run_tusk("report", self.run, "--out", os.path.join(f, "report"), check=False)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assert_one_line(p.stdout)
        self.assertIn(f, p.stdout)

    def test_full_disk(self):
        def full(folder, *args, **kwargs):
            raise OSError(errno.ENOSPC, "No space left on device", os.path.join(folder, "x"))
        with mock.patch.object(marker, "write_marker", full):
            rc, err = self.call_main(self.run)
        self.assertEqual(rc, 3)
        self.assert_one_line(err)
        self.assertIn("No space left on device", err)
        self.assertEqual([n for n in os.listdir(self.run) if n.startswith("report")], [])

    def test_stale_staging_folders_are_removed(self):
        # A staging folder of a killed report (its owner's pid is gone) is removed by the next
        # report; a live owner's (this process) is kept.
        def plant(suffix, pid):
            folder = os.path.join(self.run, "report.staging-" + suffix)
            os.makedirs(folder)
            o = marker.owner()
            o.update(pid=pid, pid_start=marker._start(pid))
            with open(os.path.join(folder, marker.MARKER), "w") as fh:
                json.dump({"tusk_results": 1, "kind": "report", "state": "staging", "owner": o}, fh)
            return folder
        dead_pid = int(subprocess.run(["sh", "-c", "echo $$"], stdout=subprocess.PIPE,
                                      text=True).stdout)
        dead = plant("dead00", dead_pid)
        live = plant("live00", os.getpid())
        support.run_tusk("report", self.run)
        self.assertFalse(os.path.exists(dead))
        self.assertTrue(os.path.exists(live))

    def test_never_replaces_files_tusk_did_not_write(self):
        support.run_tusk("report", self.run)
        out = os.path.join(self.run, "report")
        self.assertEqual(marker.read_marker(out)["kind"], "report")
        support.run_tusk("report", self.run)  # its own report: replaced
        notes = os.path.join(out, "notes.txt")
        with open(notes, "w") as fh:
            fh.write("mine\n")
        p = support.run_tusk("report", self.run, check=False)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("notes.txt", p.stdout)
        self.assertTrue(os.path.exists(notes))
        # A report of a tusk from before the marker: refused, saying how to proceed.
        os.remove(notes)
        os.remove(os.path.join(out, marker.MARKER))
        p = support.run_tusk("report", self.run, check=False)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("rm -r", p.stdout)


#: Three DCQCN senders into one 100 G host: CNPs, cuts and recovery to plot.
INCAST_TOML = """\
name = "cc-incast"
[topology]
kind = "leaf-spine"
leaves = 1
spines = 1
hosts_per_leaf = 4
host_link_gbps = 100
fabric_link_gbps = 100
[nic]
congestion_control = "dcqcn"
[ecn]
enabled = true
[workload]
kind = "flows"
flows = [{ src = 0, dst = 3, bytes = 2000000 }, { src = 1, dst = 3, bytes = 2000000 },
         { src = 2, dst = 3, bytes = 2000000 }]
[output]
cc_trace = true
"""


class CcTraceTest(unittest.TestCase):
    """cc_trace.csv is loaded and plotted when present, and only then."""

    def test_cc_state_plot(self):
        toml = os.path.join(TMP, "cc-incast.toml")
        with open(toml, "w") as fh:
            fh.write(INCAST_TOML)
        run = os.path.join(TMP, "cc-run")
        support.run_tusk("run", toml, "--out", run, "-q")
        r = load.load_run(run)
        self.assertIsNotNone(r.cc_trace)
        self.assertEqual(list(r.cc_trace.columns), ["time_us", "src", "dst", "qpn", "cc",
                                                    "rate_gbps", "target_gbps", "alpha",
                                                    "window_bytes"])
        self.assertEqual(set(r.cc_trace["src"]), {0, 1, 2})
        self.assertTrue(r.cc_trace["alpha"].between(0, 1).all())
        self.assertTrue(r.cc_trace["window_bytes"].isna().all())
        self.assertLess(r.cc_trace["rate_gbps"].min(), 100)  # CNPs cut the rate
        self.assertIsNotNone(r.switches)  # switches.csv is always written
        out = os.path.join(TMP, "cc-report")
        proc = support.run_tusk("report", run, "--out", out)
        self.assertIn("cc_state", proc.stdout)
        with open(os.path.join(out, "report.html"), encoding="utf-8") as fh:
            self.assertIn("cc_state", images(fh.read()))
        # The tiny comparison traced nothing (its report's plots are EXPECTED_PLOTS exactly,
        # SingleRunReportTest).
        self.assertIsNone(load.load_run(os.path.join(CMP, "ecmp")).cc_trace)



class SettingsAndCongestionColumnsTest(unittest.TestCase):
    """The comparison table `tusk compare` prints names the transport, CC, ECN and PFC settings
    and has ECN-mark and CNP columns; comparison.csv, the manifest's summary and the report
    carry the same numbers."""

    @classmethod
    def setUpClass(cls):
        toml = os.path.join(TMP, "cc-incast-cmp.toml")
        with open(toml, "w") as fh:
            fh.write(INCAST_TOML)
        cls.out = os.path.join(TMP, "cc-cmp")
        cls.proc = support.run_tusk("compare", toml, "--policies", "ecmp,spray", "--out",
                                    cls.out)
        cls.csv = pd.read_csv(os.path.join(cls.out, "comparison.csv"))

    def test_printed_settings_and_columns(self):
        lines = self.proc.stdout.splitlines()
        settings = next(x for x in lines if x.startswith("settings: "))
        self.assertEqual(settings, "settings: transport roce, go-back-n receivers; cc dcqcn; "
                                   "ECN on (Kmin 100000 B, Kmax 400000 B, Pmax 0.2); "
                                   "PFC on (lossless priorities 3)")
        header = lines[lines.index(settings) + 1].split()
        self.assertEqual(header[header.index("pauses") + 1:header.index("pauses") + 3],
                         ["ecn", "cnps"])
        for policy in ("ecmp", "spray"):
            row = next(x.split() for x in lines if x.startswith(policy + " "))
            with open(os.path.join(self.out, policy, "manifest.json"), encoding="utf-8") as fh:
                m = json.load(fh)["summary"]
            self.assertEqual(int(row[header.index("ecn")]), m["ecn_marks"])
            self.assertEqual(int(row[header.index("cnps")]), m["cnps"])
            self.assertGreater(m["ecn_marks"], 0)  # three senders into one host: marks, CNPs
            self.assertGreater(m["cnps"], 0)
            c = self.csv[self.csv.policy == policy].iloc[0]
            self.assertEqual((c["ecn_marks"], c["cnps"]), (m["ecn_marks"], m["cnps"]))

    def test_csv_settings_columns(self):
        self.assertEqual(list(self.csv.columns[-9:]), ["ecn_marks", "cnps", "fair_slowdown_mean",
                                                       "fair_slowdown_p99", "transport",
                                                       "receiver", "congestion_control", "ecn",
                                                       "pfc"])
        self.assertEqual(set(self.csv["congestion_control"]), {"dcqcn"})
        self.assertEqual(set(self.csv["pfc"]), {"on (lossless priorities 3)"})

    def test_report_shows_them(self):
        support.run_tusk("report", self.out)
        with open(os.path.join(self.out, "report", "report.html"), encoding="utf-8") as fh:
            html = fh.read()
        self.assertIn("<th>ECN marks</th>", html)
        self.assertIn("<th>CNPs</th>", html)
        self.assertIn("transport roce, go-back-n receivers; cc dcqcn; ECN on", html)
        table = pd.read_csv(os.path.join(self.out, "report", "comparison.csv"))
        self.assertEqual(list(table["cnps"]), list(self.csv["cnps"].astype(float)))

if __name__ == "__main__":
    unittest.main()
