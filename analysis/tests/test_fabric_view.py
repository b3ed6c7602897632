"""The fabric view (tusk_analysis/fabric_view.py): the topology and time series it is built
from, and the page in headless Chromium: it renders offline, moving the slider changes the link
colours, play advances the frames, and clicking a flow highlights exactly the links of its
paths. The Chromium part is skipped, saying so, only when chromium is not installed."""

import os
import re
import shutil
import sys
import tempfile
import unittest

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests import support  # noqa: E402
from tests.test_browser import CHROMIUM, SKIP, body_attrs, render  # noqa: E402
from tusk_analysis import fabric_view, load  # noqa: E402


def two_hop_links():
    """host0 - leaf0 - host1, 100 Gb/s, both directions (links.csv rows)."""
    rows = []
    for lid, (a, b) in enumerate((("host0", "leaf0"), ("host1", "leaf0"))):
        rows.append({"link_id": lid, "from": a, "to": b, "from_tier": 0, "to_tier": 1,
                     "rate_gbps": 100.0})
        rows.append({"link_id": lid, "from": b, "to": a, "from_tier": 1, "to_tier": 0,
                     "rate_gbps": 100.0})
    return pd.DataFrame(rows)


class BuiltFromFilesTest(unittest.TestCase):
    def test_topology_has_every_node_and_one_edge_per_link(self):
        nodes, edges, _, _ = fabric_view.topology(two_hop_links())
        self.assertEqual(sorted(n["name"] for n in nodes), ["host0", "host1", "leaf0"])
        self.assertEqual([(e["id"], e["a"], e["b"]) for e in edges],
                         [(0, "host0", "leaf0"), (1, "host1", "leaf0")])
        leaf = [n for n in nodes if n["name"] == "leaf0"][0]
        self.assertLess(leaf["y"], nodes[0]["y"])  # switches above hosts

    def test_estimate_spreads_a_flows_bytes_over_its_lifetime(self):
        # 1.25 MB from host0 to host1 over [0, 200] µs: 10 Mbit / 200 µs = 50 Gb/s, half of
        # 100 Gb/s, on both links while it runs; nothing after.
        flows = pd.DataFrame([{"flow_id": 0, "src": 0, "dst": 1, "bytes": 1_250_000,
                               "start_us": 0.0, "finish_us": 200.0, "paths": "0>1:300"}])
        times, s = fabric_view.estimated_series(flows, two_hop_links(), [0, 1], 300.0)
        during = s["util"][times <= 200.0 + 1e-9]
        after = s["util"][times > 202.0]
        self.assertTrue(np.allclose(during, 0.5), during)
        self.assertTrue(np.allclose(after, 0.0), after)

    def test_estimate_splits_by_the_frames_on_each_path(self):
        # Two parallel links from leaf0 to host1 (1 and 2): 200 of the 300 frames on link 1.
        links = pd.concat([two_hop_links(), pd.DataFrame([
            {"link_id": 2, "from": "host1", "to": "leaf0", "from_tier": 0, "to_tier": 1,
             "rate_gbps": 100.0},
            {"link_id": 2, "from": "leaf0", "to": "host1", "from_tier": 1, "to_tier": 0,
             "rate_gbps": 100.0}])], ignore_index=True)
        flows = pd.DataFrame([{"flow_id": 0, "src": 0, "dst": 1, "bytes": 1_250_000,
                               "start_us": 0.0, "finish_us": 300.0,
                               "paths": "0>1:200|0>2:100"}])
        times, s = fabric_view.estimated_series(flows, links, [0, 1, 2], 300.0)
        # 10 Mbit over 300 µs = 33.3 Gb/s: a third of link 0, 2/9 and 1/9 of links 1 and 2.
        self.assertTrue(np.allclose(s["util"], [[1 / 3, 2 / 9, 1 / 9]] * len(times)), s["util"])

    def test_measured_series_takes_the_busier_direction(self):
        ts = pd.DataFrame([
            {"time_us": 10.0, "link_id": 0, "from": "leaf0", "to": "host0", "util": 0.25,
             "queue_bytes": 100, "paused_us": 5.0},
            {"time_us": 10.0, "link_id": 1, "from": "leaf0", "to": "host1", "util": 0.75,
             "queue_bytes": 0, "paused_us": 0.0},
            {"time_us": 20.0, "link_id": 0, "from": "leaf0", "to": "host0", "util": 0.0,
             "queue_bytes": 0, "paused_us": 0.0},
            {"time_us": 20.0, "link_id": 1, "from": "leaf0", "to": "host1", "util": 1.0,
             "queue_bytes": 9000, "paused_us": 0.0}])
        times, s = fabric_view.measured_series(ts, [0, 1])
        self.assertEqual(list(times), [10.0, 20.0])
        self.assertEqual(s["util"].tolist(), [[0.25, 0.75], [0.0, 1.0]])
        self.assertEqual(s["queue"].tolist(), [[100, 0], [0, 9000]])
        self.assertEqual(s["pause"].tolist(), [[0.5, 0.0], [0.0, 0.0]])


@unittest.skipIf(CHROMIUM is None, SKIP)
class FabricPageInChromiumTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="tusk-fabric-test-")
        cls.profile = tempfile.mkdtemp(prefix="chromium-", dir=cls.tmp)
        toml = os.path.join(cls.tmp, "tiny.toml")
        with open(toml, "w") as fh:
            fh.write(support.TINY_TOML.format(seed=1))
        # Sampled (measured series) and not sampled (estimated from flows.csv, as the default
        # scenario runs).
        cls.runs = {}
        for name, extra in (("sampled", []), ("estimated", ["--set", "output.sample_us=0"])):
            out = os.path.join(cls.tmp, name)
            support.run_tusk("run", toml, "-q", "--out", out, *extra)
            cls.runs[name] = out
        # The whole report once (it writes and links fabric.html); the other page directly.
        support.run_tusk("report", cls.runs["sampled"])
        os.makedirs(os.path.join(cls.runs["estimated"], "report"))
        fabric_view.write_fabric_html(load.load_run(cls.runs["estimated"]),
                                      os.path.join(cls.runs["estimated"], "report",
                                                   "fabric.html"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check_page(self, run_dir):
        page = os.path.join(run_dir, "report", "fabric.html")
        self.assertTrue(os.path.exists(page))
        with open(page, encoding="utf-8") as fh:
            text = fh.read()
        self.assertIsNone(re.search(r"(src|href)=\"https?:", text), "fetches from the network")
        report = os.path.join(run_dir, "report", "report.html")
        if os.path.exists(report):
            with open(report, encoding="utf-8") as fh:
                self.assertIn('href="fabric.html"', fh.read())
        attrs = body_attrs(render(page + "#selftest", self.profile))
        self.assertEqual(attrs.get("data-fabric-ready"), "true")
        self.assertEqual(attrs.get("data-selftest"), "done")
        run = load.load_run(run_dir)
        self.assertEqual(int(attrs["data-links"]), run.links["link_id"].nunique())
        self.assertEqual(attrs.get("data-colours-changed"), "true")
        self.assertEqual(attrs.get("data-played"), "true")
        # The first listed flow is the slowest; its links, from flows.csv's paths.
        f = run.flows.sort_values(["slowdown", "flow_id"], ascending=[False, True]).iloc[0]
        want = sorted({int(x) for item in f["paths"].split("|")
                       for x in item.rpartition(":")[0].split(">")})
        got = sorted(int(x) for x in attrs["data-highlighted-ids"].split(","))
        self.assertEqual(got, want)

    def test_sampled_run(self):
        self.check_page(self.runs["sampled"])

    def test_run_without_samples(self):
        self.check_page(self.runs["estimated"])

    def test_a_page_that_does_not_react_is_detected(self):
        # The check can fail: a page whose slider handler is gone leaves the colours as
        # they were.
        page = os.path.join(self.runs["sampled"], "report", "fabric.html")
        with open(page, encoding="utf-8") as fh:
            text = fh.read()
        broken = text.replace('slider.addEventListener("input"', 'slider.addEventListener("x"')
        self.assertNotEqual(broken, text)
        path = os.path.join(self.tmp, "broken.html")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(broken)
        attrs = body_attrs(render(path + "#selftest", self.profile))
        self.assertEqual(attrs.get("data-colours-changed"), "false")


if __name__ == "__main__":
    unittest.main()
