"""The links the report draws as failed (plots._failed_links): every [[failures]] kind, not only
the link kinds (a switch or NIC failure is drawn on the straggler's path too)."""
import os
import sys
import types
import unittest

import pandas as pd

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tusk_analysis import plots  # noqa: E402


def run_with(failures):
    # Two leaves, two spines, one host per leaf: links.csv's rows, one per direction.
    pairs = [("host0", "leaf0"), ("host1", "leaf1"), ("leaf0", "spine0"), ("leaf0", "spine1"),
             ("leaf1", "spine0"), ("leaf1", "spine1")]
    rows = pairs + [(b, a) for a, b in pairs]
    links = pd.DataFrame({"from": [a for a, _ in rows], "to": [b for _, b in rows]})
    return types.SimpleNamespace(manifest={"scenario": {"failures": failures}}, links=links)


class FailedLinksTest(unittest.TestCase):
    def test_link_entry_names_its_cable_both_ways(self):
        got = plots._failed_links(run_with([{"kind": "degrade", "link": "leaf0-spine1"}]))
        self.assertEqual(got, {("leaf0", "spine1"), ("spine1", "leaf0")})

    def test_switch_down_is_every_link_of_the_switch(self):
        got = plots._failed_links(run_with([{"kind": "switch_down", "switch": "spine0"}]))
        self.assertEqual(got, {("leaf0", "spine0"), ("spine0", "leaf0"),
                               ("leaf1", "spine0"), ("spine0", "leaf1")})

    def test_nic_down_is_the_host_link(self):
        got = plots._failed_links(run_with([{"kind": "nic_down", "host": 1}]))
        self.assertEqual(got, {("host1", "leaf1"), ("leaf1", "host1")})

    def test_no_failures(self):
        self.assertEqual(plots._failed_links(run_with([])), set())


if __name__ == "__main__":
    unittest.main()
