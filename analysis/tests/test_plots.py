"""The report's plots, drawn from a real tiny comparison (and in-memory variants of it): every
figure has a title and every axis with tick labels a label with its unit (plots.meta_problems);
the policies' panels share one time axis; the who-waited colour scale holds every wait (log,
nothing clipped) with its colour bar; the straggler's path names the switches; a policy whose
queues stayed empty says "no queue"; a policy without data gets no empty panel; a one-step
collective gets no per-step plot."""

import copy
import os
import shutil
import sys
import tempfile
import unittest

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests import support  # noqa: E402
from tusk_analysis import load, plots  # noqa: E402

TMP = None
RESULTS = None

ALL_TO_ALL = support.TINY_TOML.replace("""[workload]
kind = "ring-allreduce"
bytes = "256KiB"
hosts = [0, 2, 1, 3]
channels = 2
""", """[workload]
kind = "jobs"

[[jobs]]
name = "a2a"
ranks = 4
ep = 4

[[jobs.collectives]]
kind = "all-to-all"
algorithm = "direct"
group = "ep"
bytes = "64KiB"
""")


def setUpModule():
    global TMP, RESULTS
    TMP = tempfile.mkdtemp(prefix="tusk-plots-test-")
    RESULTS = load.load_results(support.tiny_comparison(TMP, policies="ecmp,spray,drill"))


def tearDownModule():
    if TMP:
        shutil.rmtree(TMP, ignore_errors=True)


def draw(fn, results=None):
    """fn's plots (a list) on `results` (default the tiny comparison), drawn."""
    with plt.rc_context(plots.STYLE):
        ctx = plots.PlotContext(results or RESULTS)
        out = fn(ctx)
    out = out if isinstance(out, list) else [out]
    for p in out:
        if isinstance(p, plots.Plot):
            p.figure.canvas.draw()
    return out


def panels(fig):
    """The data axes of a figure (axis on, not a colour bar)."""
    return [ax for ax in fig.axes if ax.axison and not hasattr(ax, "_colorbar")]


def texts(ax):
    return [t.get_text() for t in ax.texts]


def without(policy, attr, value=None):
    """A copy of RESULTS whose `policy` run has `attr` set to `value`."""
    res = copy.copy(RESULTS)
    res.runs = [copy.copy(r) for r in RESULTS.runs]
    for r in res.runs:
        if r.policy == policy:
            setattr(r, attr, value)
    return res


class TitlesAndLabelsTest(unittest.TestCase):
    def test_every_plot_has_a_title_and_labelled_axes_with_units(self):
        with plt.rc_context(plots.STYLE):
            _, figs, skipped = plots.make_all(RESULTS)
        self.assertEqual([p.name for p in figs], support.EXPECTED_PLOTS, skipped)
        for p in figs:
            p.figure.canvas.draw()
            meta = plots.figure_meta(p.figure)
            self.assertEqual(plots.meta_problems(meta), [], p.name)
            self.assertTrue(p.caption.strip(), p.name)
            plt.close(p.figure)

    def test_the_check_can_fail(self):
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, 1])
        ax.set_xlabel("time")  # no unit, and no y label
        fig.canvas.draw()
        problems = plots.meta_problems(plots.figure_meta(fig))
        self.assertEqual(len(problems), 3, problems)  # no title, x without unit, y unlabelled
        plt.close(fig)
        self.assertTrue(plots.has_unit("simulated time (µs)"))
        self.assertTrue(plots.has_unit("policy"))
        self.assertFalse(plots.has_unit("rank"))


class SharedTimeAxisTest(unittest.TestCase):
    def test_policies_share_the_time_axis(self):
        for fn in (plots.uplink_heatmap, plots.queue_timeline):
            (p,) = draw(fn)
            limits = {tuple(round(v, 6) for v in ax.get_xlim()) for ax in panels(p.figure)}
            self.assertEqual(len(limits), 1, (fn.__name__, limits))
            ends = [r.timeseries["time_us"].max() for r in RESULTS.runs]
            self.assertGreaterEqual(limits.pop()[1], max(ends) - 1e-9)
            plt.close(p.figure)


class WhoWaitedTest(unittest.TestCase):
    def test_log_scale_holds_every_wait_with_a_colour_bar(self):
        (p,) = draw(plots.who_waited)
        images = [im for ax in panels(p.figure) for im in ax.get_images()]
        self.assertEqual(len(images), 3)
        norm = images[0].norm
        self.assertIsInstance(norm, matplotlib.colors.LogNorm)
        self.assertTrue(all(im.norm is norm for im in images))  # one shared scale
        delays = [r.waits[r.waits["delay"] > 0]["delay"] for r in RESULTS.runs]
        self.assertGreaterEqual(norm.vmax, max(d.max() for d in delays))
        self.assertLessEqual(norm.vmin, min(d.min() for d in delays))
        bars = [ax for ax in p.figure.axes if hasattr(ax, "_colorbar")]
        self.assertEqual(len(bars), 1)
        self.assertIn("log scale", bars[0].get_ylabel())
        plt.close(p.figure)

    def test_small_waits_are_not_black(self):
        # Waits a hundredth of the largest still take a colour well above the scale's bottom.
        import pandas as pd
        norm = plots._wait_norm([pd.Series([0.0, 0.02, 0.1]), pd.Series([10.0, 17.0])])
        self.assertGreater(norm(0.1), 0.2)
        self.assertEqual(norm.vmax, 17.0)
        self.assertEqual(norm.vmin, 0.02)


class StragglerPathTest(unittest.TestCase):
    def test_switches_are_named(self):
        (p,) = draw(plots.straggler_path)
        for ax in panels(p.figure):
            names = texts(ax)
            for sw in ("leaf0", "leaf1", "spine0", "spine1"):
                self.assertIn(sw, names)
        plt.close(p.figure)


class NoEmptyPanelTest(unittest.TestCase):
    def test_no_queue_says_so(self):
        spray = next(r for r in RESULTS.runs if r.policy == "spray")
        quiet = spray.timeseries.assign(queue_bytes=0)
        (p,) = draw(plots.queue_timeline, without("spray", "timeseries", quiet))
        by_title = {ax.get_title(loc="left").split(":")[0]: ax for ax in panels(p.figure)}
        self.assertTrue(any(t.startswith("no queue") for t in texts(by_title["spray"])))
        self.assertEqual(len(by_title["spray"].get_lines()), 0)  # no zero lines
        self.assertGreater(len(by_title["ecmp"].get_lines()), 0)
        plt.close(p.figure)

    def test_a_policy_without_data_has_no_panel(self):
        cases = [(plots.uplink_heatmap, "timeseries"), (plots.queue_timeline, "timeseries"),
                 (plots.who_waited, "waits")]
        for fn, attr in cases:
            (p,) = draw(fn, without("spray", attr))
            titles = " ".join(ax.get_title(loc="left") for ax in panels(p.figure))
            self.assertNotIn("spray", titles, fn.__name__)
            self.assertIn("ecmp", titles, fn.__name__)
            self.assertIn("Not drawn: spray", p.caption, fn.__name__)
            plt.close(p.figure)

    def test_cc_panels_only_for_traced_policies(self):
        # No policy traced its congestion control: no cc_state figure, no empty panel.
        self.assertEqual(draw(plots.cc_state), [])


class OneStepCollectiveTest(unittest.TestCase):
    def test_no_per_step_plot(self):
        toml = os.path.join(TMP, "a2a.toml")
        with open(toml, "w") as fh:
            fh.write(ALL_TO_ALL.format(seed=1))
        out = os.path.join(TMP, "a2a")
        support.run_tusk("compare", toml, "--policies", "ecmp,spray", "--out", out, "-q")
        res = load.load_results(out)
        with plt.rc_context(plots.STYLE):
            _, figs, skipped = plots.make_all(res)
        names = [p.name for p in figs]
        self.assertNotIn("collective_steps_c0", names)
        self.assertIn("who_waited", names)
        self.assertIn(("collective_steps", "collective 0 (all-to-all) has a single step"),
                      skipped)
        for p in figs:
            plt.close(p.figure)


if __name__ == "__main__":
    unittest.main()
