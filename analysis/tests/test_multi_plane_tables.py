"""scenarios/multi-plane: run.sh writes the README's tables, and tables.py's time to recover.

The time to recover is defined in tables.py and README.md: from the failure to the last data
frame of regular traffic lost to it (a QP's losses within 50 us of another of its losses),
MRC's probes of a retired path (a QP's isolated single losses, ProbeInterval = 100 us apart)
left out. The 16-host run (spine-failure.toml, FailoverTime = 20 us) checks it against the
mechanism: MRC leaves the dead path within FailoverTime plus about a round trip (lb-policies/
README.md), source-routed spraying without failover never does.
"""

import importlib.util
import os
import shutil
import subprocess
import tempfile
import unittest

from tests.support import tusk_bin

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FOLDER = os.path.join(REPO, "scenarios", "multi-plane")

spec = importlib.util.spec_from_file_location("mp_tables", os.path.join(FOLDER, "tables.py"))
tables = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tables)


class RecoverUsTest(unittest.TestCase):
    def test_probes_are_left_out_regular_losses_counted(self):
        a, b = ("0", "4", "5"), ("1", "4", "6")
        lost = [(100.5, a), (101.0, a), (112.0, a),  # a's burst until it retires the path
                (212.0, a), (412.0, a),              # a's probes: single, 200 us apart
                (105.0, b), (140.0, b)]              # b: two losses 35 us apart: regular
        self.assertEqual(tables.recover_us(lost, 100.0, False), 40.0)

    def test_a_single_loss_per_qp_is_no_recovery_time(self):
        self.assertEqual(tables.recover_us([(100.2, ("0", "1", "2"))], 100.0, False), 0.0)
        self.assertEqual(tables.recover_us([], 100.0, False), 0.0)

    def test_a_run_that_never_finished_never_recovered(self):
        self.assertIsNone(tables.recover_us([(101.0, ("0", "1", "2"))], 100.0, True))


class ReadmeFormatTest(unittest.TestCase):
    def test_readme_tables_have_run_sh_format(self):
        p = subprocess.run(["python3", os.path.join(FOLDER, "tables.py"), "check",
                            os.path.join(FOLDER, "README.md")], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_check_finds_a_row_in_another_format(self):
        with tempfile.TemporaryDirectory() as d:
            readme = os.path.join(d, "README.md")
            text = open(os.path.join(FOLDER, "README.md")).read()
            block = "<!-- table:planes:begin -->\n```\n"
            self.assertIn(block, text)
            lines = text.split(block, 1)
            header, rest = lines[1].split("\n", 1)
            open(readme, "w").write(lines[0] + block + header + "\n1 ecmp fast\n" + rest)
            p = subprocess.run(["python3", os.path.join(FOLDER, "tables.py"), "check", readme],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 1)
            self.assertIn("not in run.sh's format", p.stderr)


class SixteenHostRunTest(unittest.TestCase):
    """run.sh without --large (about 15 s of CPU): its tables go into a copy of the README."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="multi-plane-")
        cls.out = os.path.join(cls.tmp, "out")
        env = dict(os.environ, TUSK=tusk_bin())
        p = subprocess.run([os.path.join(FOLDER, "run.sh"), "--out", cls.out], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            raise AssertionError("run.sh failed (%d):\n%s" % (p.returncode, p.stdout))
        cls.printed = p.stdout

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_written_tables_pass_the_check(self):
        readme = os.path.join(self.tmp, "README.md")
        shutil.copy(os.path.join(FOLDER, "README.md"), readme)
        tables.render(self.out, readme)
        self.assertEqual(tables.check(readme), 0)
        text = open(readme).read()
        for name in ("planes", "failure"):
            block = text.split(f"<!-- table:{name}:begin -->")[1].split("<!-- table:")[0]
            self.assertIn(tables.table_planes(self.out)[1] if name == "planes"
                          else tables.table_failure(self.out)[1], block)

    def test_mrc_recovers_within_failover_time_and_a_round_trip(self):
        fail = os.path.join(self.out, "small", "fail")
        lost, rec = tables.recovery(os.path.join(fail, "mrc"))
        self.assertGreater(lost, 0)
        # FailoverTime 20 us + a round trip of the 4-plane 100 Gb/s fabric (~10 us) + the
        # frames already queued towards the dead link.
        self.assertLess(rec, 20.0 + 30.0)
        lost_sr, rec_sr = tables.recovery(os.path.join(fail, "source-route"))
        self.assertGreater(lost_sr, lost)
        self.assertGreater(rec_sr, 10 * rec)  # no failover: it loses until its last send


if __name__ == "__main__":
    unittest.main()
