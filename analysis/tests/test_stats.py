"""Statistics of tusk_analysis.stats against hand-computed values."""

import math
import os
import random
import sys
import unittest

import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tusk_analysis import load, stats  # noqa: E402


LIN = stats.LINEAR
NR = stats.NEAREST_RANK


class QuantileTest(unittest.TestCase):
    def test_type7_hand_values(self):
        x = [4, 1, 3, 2]  # sorted 1 2 3 4; h = 3q
        self.assertEqual(stats.quantile(x, 0.0, LIN), 1)
        self.assertEqual(stats.quantile(x, 1.0, LIN), 4)
        self.assertAlmostEqual(stats.quantile(x, 0.5, LIN), 2.5)    # h 1.5
        self.assertAlmostEqual(stats.quantile(x, 0.25, LIN), 1.75)  # h 0.75
        self.assertAlmostEqual(stats.quantile(x, 0.99, LIN), 3.97)  # h 2.97
        self.assertAlmostEqual(stats.quantile(x, 0.999, LIN), 3.997)
        self.assertAlmostEqual(stats.quantile([3, 1, 2], 0.25, LIN), 1.5)
        self.assertEqual(stats.quantile([7.5], 0.99, LIN), 7.5)

    def test_nearest_rank_hand_values(self):
        x = [4, 1, 3, 2]  # sorted 1 2 3 4; rank ceil(4q)
        self.assertEqual(stats.quantile(x, 0.0), 1)    # rank 1 for q = 0
        self.assertEqual(stats.quantile(x, 0.25), 1)   # ceil(1.00)
        self.assertEqual(stats.quantile(x, 0.5), 2)    # ceil(2.00)
        self.assertEqual(stats.quantile(x, 0.51), 3)   # ceil(2.04)
        self.assertEqual(stats.quantile(x, 0.99), 4)   # ceil(3.96)
        self.assertEqual(stats.quantile(x, 1.0), 4)
        self.assertEqual(stats.quantile([3, 1, 2], 0.25, NR), 1)  # ceil(0.75)
        self.assertEqual(stats.quantile([7.5], 0.99), 7.5)
        # 0.07 * 100 = 7.000000000000001 and 0.29 * 100 = 28.999999999999996: ranks 7 and 29
        self.assertEqual(stats.quantile(range(1, 101), 0.07), 7)
        self.assertEqual(stats.quantile(range(1, 101), 0.29), 29)

    def test_p99_of_1_to_100(self):
        # linear: h = 99 * 0.99 = 98.01: x[98] + 0.01 (x[99] - x[98]) = 99.01
        self.assertAlmostEqual(stats.quantile(range(1, 101), 0.99, LIN), 99.01)
        self.assertAlmostEqual(stats.quantile(range(1, 101), 0.999, LIN), 99.901)
        # nearest rank: rank 99 and rank ceil(99.9) = 100, both observed values
        self.assertEqual(stats.quantile(range(1, 101), 0.99), 99)
        self.assertEqual(stats.quantile(range(1, 101), 0.999), 100)

    def test_default_is_nearest_rank(self):
        self.assertEqual(stats.DEFAULT_QUANTILE_METHOD, NR)
        x = [5, 1, 4, 2, 3]
        for q in (0.0, 0.1, 0.5, 0.9, 1.0):
            self.assertEqual(stats.quantile(x, q), stats.quantile(x, q, NR))

    def test_empty_and_nan(self):
        for m in stats.QUANTILE_METHODS:
            self.assertTrue(math.isnan(stats.quantile([], 0.5, m)))
        self.assertEqual(stats.quantile([float("nan"), 2.0, 4.0], 0.5, LIN), 3.0)
        self.assertEqual(stats.quantile([float("nan"), 2.0, 4.0], 0.5, NR), 2.0)
        with self.assertRaises(ValueError):
            stats.quantile([1, 2], 1.5)
        with self.assertRaises(ValueError):
            stats.quantile([1, 2], 0.5, "type 9")

    def test_matches_pandas(self):
        rng = random.Random(7)
        x = [rng.lognormvariate(0, 1) for _ in range(1001)]
        s = pd.Series(x)
        for q in (0.01, 0.5, 0.9, 0.99, 0.999):
            self.assertAlmostEqual(stats.quantile(x, q, LIN), s.quantile(q), places=9)
            # pandas' "higher" is x[ceil((n - 1) q)]; nearest rank is x[ceil(n q) - 1]
            k = math.ceil(len(x) * q)
            self.assertEqual(stats.quantile(x, q, NR), sorted(x)[k - 1])

    def test_mean_max(self):
        self.assertAlmostEqual(stats.mean([1, 2, 3, 4]), 2.5)
        self.assertEqual(stats.maximum([1, 5, 3]), 5)
        self.assertTrue(math.isnan(stats.mean([])))


class StudentTTest(unittest.TestCase):
    # Two-sided 95 % critical values t(0.975, df) from the standard tables (the quantile comes
    # from scipy.stats.t; this pins that the interval uses the right tail and df).
    TABLE = {1: 12.7062047, 2: 4.3026527, 3: 3.1824463, 4: 2.7764451, 5: 2.5705818,
             9: 2.2621572, 10: 2.2281389, 30: 2.0422725, 100: 1.9839715, 1000: 1.9623391}

    def test_table(self):
        for df, t in self.TABLE.items():
            self.assertAlmostEqual(stats.t_quantile(0.975, df), t, places=6, msg="df %d" % df)

    def test_other_levels(self):
        self.assertAlmostEqual(stats.t_quantile(0.95, 4), 2.1318468, places=6)
        self.assertAlmostEqual(stats.t_quantile(0.995, 10), 3.1692727, places=6)
        self.assertAlmostEqual(stats.t_quantile(0.025, 5), -2.5705818, places=6)
        self.assertAlmostEqual(stats.t_quantile(0.5, 3), 0.0, places=12)

    def test_bad_probability(self):
        with self.assertRaises(ValueError):
            stats.t_quantile(1.0, 3)


class ConfidenceIntervalTest(unittest.TestCase):
    def test_hand_value(self):
        # mean 3, s^2 = 10/4 = 2.5, se = sqrt(2.5 / 5) = 0.70711, t(0.975, 4) = 2.776445
        m, h = stats.mean_ci([1, 2, 3, 4, 5])
        self.assertAlmostEqual(m, 3.0)
        self.assertAlmostEqual(h, 2.7764451 * math.sqrt(0.5), places=6)

    def test_two_values(self):
        # n = 2: s = |a - b| / sqrt 2, se = |a - b| / 2, t(0.975, 1) = 12.706
        m, h = stats.mean_ci([10, 12])
        self.assertAlmostEqual(m, 11)
        self.assertAlmostEqual(h, 12.7062047, places=5)

    def test_degenerate(self):
        self.assertEqual(stats.mean_ci([2, 2, 2])[1], 0.0)
        m, h = stats.mean_ci([5])
        self.assertEqual(m, 5)
        self.assertTrue(math.isnan(h))

    def test_level(self):
        _, h90 = stats.mean_ci([1, 2, 3, 4, 5], level=0.90)
        self.assertAlmostEqual(h90, 2.1318468 * math.sqrt(0.5), places=6)


def _run(policy="ecmp", seed=1):
    """A hand-made run: 4 flows in a 2-step collective, 3 links (2 uplinks)."""
    flows = pd.DataFrame({
        "flow_id": [0, 1, 2, 3], "src": [0, 1, 0, 1], "dst": [1, 0, 1, 0],
        "bytes": [100] * 4, "start_us": [0.0, 0.0, 10.0, 12.0],
        "finish_us": [10.0, 12.0, 30.0, float("nan")],
        "fct_us": [10.0, 12.0, 20.0, float("nan")], "ideal_fct_us": [5.0, 6.0, 5.0, 5.0],
        "slowdown": [2.0, 2.0, 4.0, float("nan")], "finished": [1, 1, 1, 0],
        "retx_packets": [0, 3, 1, 0], "ooo_packets": [1, 0, 2, 0],
        "collective": [0, 0, 0, 0], "step": [0, 0, 1, 1], "channel": [0, 1, 0, 1],
        "policy": [policy] * 4})
    coll = pd.DataFrame({
        "collective_id": [0], "kind": ["ring-allreduce"], "ranks": [2], "bytes_per_rank": [200],
        "channels": [2], "start_us": [0.0], "finish_us": [30.0], "cct_us": [30.0],
        "lower_bound_us": [8.0], "algbw_GBps": [0.5], "busbw_GBps": [0.5],
        "busbw_factor": [1.0], "finished": [1], "step_end_us": ["12.0;30.0"],
        "policy": [policy]})
    links = pd.DataFrame({
        "link_id": [0, 1, 2], "from": ["leaf0", "leaf0", "host0"],
        "to": ["spine0", "spine1", "leaf0"], "from_tier": [1, 1, 0], "to_tier": [2, 2, 1],
        "uplink": [1, 1, 0], "tx_bytes": [300, 100, 50], "mean_util": [0.6, 0.2, 0.1],
        "paused_us": [0.0, 15.0, 45.0],
        "drops_buffer_overflow": [2, 0, 1], "drops_nic_stale": [0, 0, 9]})
    # The simulator's summary of such a run (tusk/run/run-summary.cc, nearest-rank percentiles):
    # the analysis reads it.
    summary = {"slowdown_mean": 8 / 3, "slowdown_p50": 2.0, "slowdown_p99": 4.0,
               "slowdown_p999": 4.0, "slowdown_max": 4.0, "fct_p99_us": 20.0,
               "fct_max_us": 20.0, "cct_us": 30.0, "algbw_GBps": 0.5, "busbw_GBps": 0.5,
               "lower_bound_us": 8.0, "uplink_util_max": 0.6, "uplink_util_mean": 0.4,
               "uplink_imbalance": 1.5, "uplink_jain": 0.8, "pfc_paused_fraction": 0.4,
               "drops": 3, "retx_packets": 4, "ooo_packets": 3, "unfinished": 1,
               "quantile_method": "nearest-rank"}
    manifest = {"policy": policy, "seed": seed, "sim_end_us": 50.0,
                "scenario_name": "hand", "summary": summary}
    return load.Run(path="/nonexistent", manifest=manifest, flows=flows, collectives=coll,
                    links=links)


class RunSummaryTest(unittest.TestCase):
    def test_read_from_the_manifest(self):
        # The headline numbers are the simulator's, computed once: none is recomputed here.
        r = _run()
        s = stats.run_summary(r)
        renamed = {"pfc_paused_fraction": "pause_fraction"}
        for key, value in r.manifest["summary"].items():
            if key != "quantile_method":
                self.assertEqual(s[renamed.get(key, key)], value, key)
        self.assertEqual((s["policy"], s["seed"]), ("ecmp", 1))

    def test_linear_percentiles_are_taken_from_the_flows(self):
        # Another method than the simulator's: p50/p99/p99.9 and fct p99 again from flows.csv;
        # everything else still the manifest's.
        lin = stats.run_summary(_run(), quantiles=stats.LINEAR)
        self.assertAlmostEqual(lin["slowdown_p50"], 2.0)
        self.assertAlmostEqual(lin["slowdown_p99"], 3.96)  # h = 1.98 over [2, 2, 4]
        self.assertAlmostEqual(lin["slowdown_p999"], 3.996)
        self.assertAlmostEqual(lin["fct_p99_us"], 19.84)   # h = 1.98 over [10, 12, 20]
        self.assertEqual(lin["uplink_imbalance"], 1.5)
        with self.assertRaises(ValueError):
            stats.run_summary(_run(), quantiles="type 9")

    def test_missing_and_null_values_are_nan(self):
        r = _run()
        r.manifest["summary"]["uplink_imbalance"] = None  # no uplinks: the simulator writes null
        del r.manifest["summary"]["slowdown_p999"]       # an older manifest
        s = stats.run_summary(r)
        self.assertTrue(math.isnan(s["uplink_imbalance"]))
        self.assertTrue(math.isnan(s["slowdown_p999"]))
        del r.manifest["summary"]["unfinished"]
        r.manifest["unfinished_transfers"] = 2
        self.assertEqual(stats.run_summary(r)["unfinished"], 2)

    def test_step_table(self):
        t = stats.step_table(_run())
        self.assertEqual(list(t["step"]), [0, 1])
        self.assertEqual(list(t["step_us"]), [12.0, 18.0])
        self.assertEqual(list(t["ideal_step_us"]), [4.0, 4.0])
        self.assertEqual(int(t["flow_id"][0]), 1)   # finished last in step 0 (12 us)
        self.assertEqual(int(t["flow_id"][1]), 2)   # flow 3 never finished

    def test_comparison_ci_over_seeds(self):
        a, b = _run(seed=1), _run(seed=2)
        b.manifest["summary"]["cct_us"] = 34.0
        c = stats.comparison_table([a, b])
        self.assertEqual(len(c), 1)
        row = c.iloc[0]
        self.assertEqual(row["seeds"], 2)
        self.assertAlmostEqual(row["cct_us"], 32.0)
        self.assertAlmostEqual(row["cct_us_ci"], 12.7062047 * 2.0, places=4)  # se = 2
        self.assertEqual(row["slowdown_mean_ci"], 0.0)

    def test_policy_order(self):
        self.assertEqual(stats.policy_order(["b", "a", "b", "c"]), ["b", "a", "c"])



class ScenarioTomlTest(unittest.TestCase):
    """The report prints the manifest's scenario as TOML that reads back to the same data."""

    def test_round_trip(self):
        try:
            import tomllib
        except ImportError:
            self.skipTest("tomllib needs Python 3.11")
        from tusk_analysis import report
        scenario = {"name": "x", "seed": 3, "stop_time_ms": 0.5, "require_finish": True,
                    "lb": {"policy": "ecmp", "attributes": {}},
                    "ns3": {"ns3::RdmaNic::AckInterval": "4"},
                    "workload": {"kind": "flows", "hosts": [0, 2],
                                 "flows": [{"src": 0, "dst": 1, "bytes": 10, "start_us": 0},
                                           {"src": 1, "dst": 0, "bytes": 20,
                                            "start_us": 1.5}]}}
        self.assertEqual(tomllib.loads(report.to_toml(scenario)), scenario)


if __name__ == "__main__":
    unittest.main()
