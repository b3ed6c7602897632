"""The Python module `tusk` (python/, docs/scripting.md) against the `tusk` command of the same
build: the same bytes, the same error messages, repeated runs, a clean stop on Ctrl-C."""
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import unittest

import pandas as pd

import tusk
from tusk_analysis.load import load_run

TUSK_BIN = os.environ["TUSK_BIN"]
SCRATCH = os.environ["TUSK_SCRATCH"]

sys.path.insert(0, os.path.join(os.environ["TUSK_SOURCE_DIR"], "analysis", "tests"))
from support import TINY_TOML  # noqa: E402  (a 4-host ring all-reduce)

SMALL = TINY_TOML.format(seed=1)


def scratch(name):
    d = os.path.join(SCRATCH, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


class TestTuskModule(unittest.TestCase):
    def test_same_bytes_as_tusk_run_and_repeated_runs(self):
        d = scratch("bytes")
        path = os.path.join(d, "small.toml")
        with open(path, "w") as f:
            f.write(SMALL)
        cli = subprocess.run([TUSK_BIN, "run", path, "--set", "lb.policy=spray", "--seed", "3",
                              "-q", "--out", os.path.join(d, "cli")], capture_output=True, text=True)
        self.assertEqual(cli.returncode, 0, cli.stderr)
        s = tusk.Scenario.load(path).set("lb.policy", "spray").set("seed", 3)
        first = s.run(out=os.path.join(d, "py"))
        second = s.run()
        for f in ("flows.csv", "links.csv", "collectives.csv"):
            with open(os.path.join(d, "cli", f), "rb") as a, open(os.path.join(d, "py", f), "rb") as b:
                self.assertEqual(a.read(), b.read(), f)
        # The DataFrames are those of the analysis loader on the CLI's files.
        cli_run = load_run(os.path.join(d, "cli"))
        pd.testing.assert_frame_equal(first.flows, cli_run.flows)
        pd.testing.assert_frame_equal(first.links, cli_run.links)
        pd.testing.assert_frame_equal(second.flows, first.flows)
        self.assertEqual(len(first.flows), len(cli_run.flows))
        self.assertGreater(len(first.flows), 0)
        pd.testing.assert_frame_equal(first.collectives, cli_run.collectives)
        self.assertEqual(first.summary["policy"], "spray")
        self.assertEqual(first.failure, "")

    def test_errors_carry_the_cli_message(self):
        d = scratch("errors")
        path = os.path.join(d, "small.toml")
        with open(path, "w") as f:
            f.write(SMALL)
        s = tusk.Scenario.load(path)
        with self.assertRaises(tusk.InputError) as e:
            s.set("topology.leaves", 0)
        message = str(e.exception)
        self.assertTrue(message.startswith("--set: topology.leaves: "), message)
        cli = subprocess.run([TUSK_BIN, "run", path, "--set", "topology.leaves=0", "-q", "--out",
                              os.path.join(d, "never")], capture_output=True, text=True)
        self.assertEqual(cli.returncode, 2)
        self.assertIn(message, cli.stderr)
        self.assertEqual(s.overrides, [])  # the bad change was undone
        with self.assertRaises(ValueError):  # InputError is a ValueError
            tusk.Scenario.from_dict({"topology": {"kind": "no-such-kind"}}).run()

    def test_from_dict_and_flows_in_code(self):
        s = tusk.Scenario.from_dict({
            "topology": {"kind": "leaf-spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2},
            "workload": {"kind": "flows"},
        })
        r = s.add_flow(0, 3, 100_000).add_flow(1, 2, 50_000, start_us=10).run()
        self.assertTrue(r.finished)
        self.assertEqual(list(r.flows.bytes), [100_000, 50_000])
        self.assertAlmostEqual(r.flows.start_us.iloc[1], 10.0)
        table = tusk.compare(s, ["ecmp", "spray"])
        self.assertEqual(list(table.index), ["ecmp", "spray"])
        self.assertTrue((table.status == "ok").all())

    def test_summary_has_the_manifest_summary_keys(self):
        # One metric catalogue (tusk/metric-catalogue.h) writes both: the same keys, in order.
        d = scratch("summary-keys")
        r = tusk.Scenario.from_string(SMALL).run(out=os.path.join(d, "run"))
        with open(os.path.join(d, "run", "manifest.json")) as f:
            manifest = json.load(f)["summary"]
        keys = [k for k in manifest if k != "drops_by_reason"]
        self.assertEqual([k for k in r.summary if k not in ("policy", "flows")], keys)
        for k in keys:
            if manifest[k] is None:
                self.assertTrue(math.isnan(r.summary[k]), k)
            elif k != "quantile_method":
                self.assertAlmostEqual(r.summary[k], manifest[k], msg=k)
        names = [m["name"] for m in tusk.metrics()]
        self.assertEqual(names[:len(keys) - 1], keys[:-1])  # all but quantile_method
        self.assertEqual({m["better"] for m in tusk.metrics()}, {"lower", "higher", "none"})

    def test_a_plugin_policy_and_congestion_control_by_name(self):
        # The plugin of scenarios/scripts/own-policy: min-queue and constant-rate.
        lib = os.path.normpath(os.path.join(os.path.dirname(TUSK_BIN), "..", "lib",
                                            "libtusk-min-queue-plugin.so"))
        d = scratch("plugin")
        s = tusk.Scenario.from_string(SMALL)
        with self.assertRaises(tusk.InputError):  # unknown before the plugin is loaded
            tusk.Scenario.from_string(SMALL).set("lb.policy", "min-queue").run()
        loaded = tusk.load_plugin(lib)
        self.assertEqual(loaded["path"], lib)
        self.assertEqual(len(loaded["sha256"]), 64)
        self.assertIn(loaded, tusk.plugins())
        s.set("lb.policy", "min-queue").set("nic.congestion_control", "constant-rate")
        r = s.run(out=os.path.join(d, "run"))
        self.assertEqual(r.failure, "")
        self.assertEqual(r.summary["policy"], "min-queue")
        with open(os.path.join(d, "run", "manifest.json")) as f:
            manifest = json.load(f)
        self.assertEqual(manifest["plugins"], [loaded])
        self.assertEqual(manifest["scenario"]["nic"]["congestion_control"], "constant-rate")
        # TUSK_PLUGIN_PATH loads with the package, as for the command line.
        env = dict(os.environ, TUSK_PLUGIN_PATH=lib)
        out = subprocess.run([sys.executable, "-c", "import tusk; print(tusk.plugins())"],
                             env=env, capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn(lib, out.stdout)
        env["TUSK_PLUGIN_PATH"] = os.path.join(d, "no-such.so")
        out = subprocess.run([sys.executable, "-c", "import tusk"], env=env, capture_output=True,
                             text=True)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("TUSK_PLUGIN_PATH", out.stderr)

    def test_ctrl_c_stops_the_run_cleanly(self):
        d = scratch("interrupt")
        # A run of many seconds (a 1 GiB all-reduce); Ctrl-C after it started; then a small run.
        child = subprocess.Popen([sys.executable, "-c", f"""
import sys, tusk
s = tusk.Scenario.from_string('''{SMALL}''').set("workload.bytes", "1GiB").set("stop_time_ms", 10000)
print("running", flush=True)
try:
    s.run(out={os.path.join(d, "out")!r})
except KeyboardInterrupt:
    print("interrupted", flush=True)
r = tusk.Scenario.from_string('''{SMALL}''').run()
print("then ran", len(r.flows), "flows", flush=True)
"""], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(child.stdout.readline().strip(), "running")
        import time
        time.sleep(1.5)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
        self.assertEqual(child.returncode, 0, err)
        self.assertEqual(out.split("\n")[:2], ["interrupted", "then ran 48 flows"])
        self.assertFalse(os.path.exists(os.path.join(d, "out")))  # nothing written
        self.assertEqual([n for n in os.listdir(d) if n.startswith(".")], [])  # no staging left


if __name__ == "__main__":
    unittest.main()
