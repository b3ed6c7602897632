"""The report opens in a browser with no network: headless Chromium (Debian's `chromium`,
installed by scripts/install-deps.sh) renders report.html, every image loads and the tables
are present. Skipped, saying so, only when chromium is not installed."""

import base64
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests import support  # noqa: E402
from tusk_analysis import plots  # noqa: E402

CHROMIUM = next((shutil.which(c) for c in ("chromium", "chromium-browser")
                 if shutil.which(c)), None)
SKIP = "chromium is not installed (scripts/install-deps.sh installs it): report not rendered"


def render(html_path, profile):
    """The DOM of html_path after load, as headless Chromium sees it (no network)."""
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--no-first-run", "--no-default-browser-check", "--disable-extensions",
           "--disable-background-networking", "--disable-sync", "--disable-component-update",
           "--user-data-dir=" + profile, "--virtual-time-budget=5000",
           # Any request that leaves the machine fails: the report must not need one.
           "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
           "--dump-dom", "file://" + html_path]
    env = dict(os.environ, HOME=profile)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=180, env=env)
    if p.returncode != 0 or "<body" not in p.stdout:
        raise AssertionError("chromium failed (%d):\n%s" % (p.returncode, p.stderr[-3000:]))
    return p.stdout


def figures(dom):
    """[(plot name, metadata dict, caption text, number of <img>)] of every <figure>."""
    out = []
    for m in re.finditer(r'<figure id="([^"]*)" data-meta="([^"]*)">(.*?)</figure>', dom, re.S):
        cap = re.search(r"<figcaption>(.*?)</figcaption>", m.group(3), re.S)
        text = re.sub(r"<[^>]+>", "", cap.group(1)) if cap else ""
        text = text.replace("SVG", "").replace("PNG", "").replace("·", "").strip()
        out.append((m.group(1), json.loads(html.unescape(m.group(2))), text,
                    len(re.findall(r"<img ", m.group(3)))))
    return out


def body_attrs(dom):
    m = re.search(r"<body([^>]*)>", dom)
    return dict(re.findall(r'(data-[a-z-]+)="([^"]*)"', m.group(1) if m else ""))


@unittest.skipIf(CHROMIUM is None, SKIP)
class ChromiumRenderTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="tusk-browser-test-")
        cls.cmp = support.tiny_comparison(cls.tmp)
        support.run_tusk("report", cls.cmp)
        cls.html = os.path.join(cls.cmp, "report", "report.html")
        cls.profile = tempfile.mkdtemp(prefix="chromium-", dir=cls.tmp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_every_image_loads_and_tables_present(self):
        dom = render(self.html, self.profile)
        attrs = body_attrs(dom)
        self.assertEqual(attrs.get("data-report-ready"), "true", "the load handler did not run")
        n = len(support.EXPECTED_PLOTS)
        self.assertEqual(attrs.get("data-images-total"), str(n))
        self.assertEqual(attrs.get("data-images-loaded"), str(n))
        self.assertGreaterEqual(int(attrs.get("data-tables", "0")), 4)
        for heading in ("Summary", "Plots", "Scenario", "Runs"):
            self.assertIn("<h2>%s</h2>" % heading, dom)

    def check_figures(self, dom, expected):
        figs = figures(dom)
        self.assertEqual([f[0] for f in figs], expected)
        self.assertEqual(dom.count("<img "), len(figs))  # every image is a captioned figure
        for name, meta, caption, imgs in figs:
            self.assertEqual(imgs, 1, name)
            self.assertEqual(plots.meta_problems(meta), [], name)  # title, labels, units
            self.assertGreater(len(meta["axes"]), 0, name)
            self.assertGreater(len(caption), 40, name)  # a sentence, not just the links

    def test_every_plot_has_title_axis_labels_and_caption(self):
        self.check_figures(render(self.html, self.profile), support.EXPECTED_PLOTS)

    def test_sweep_report_plots_have_title_axis_labels_and_caption(self):
        with open(os.path.join(self.tmp, "tiny-s1.toml"), "w") as fh:
            fh.write(support.TINY_TOML.format(seed=1))
        sweep = os.path.join(self.tmp, "sweep.toml")
        with open(sweep, "w") as fh:
            fh.write('scenario = "tiny-s1.toml"\n[set]\noutput.sample_us = 0\n'
                     '[[axis]]\nkey = "lb.policy"\nvalues = ["ecmp", "spray"]\n'
                     '[[axis]]\nkey = "seed"\nvalues = [1, 2]\n')
        root = os.path.join(self.tmp, "sweep")
        support.run_tusk("sweep", sweep, "-q", "--out", root)
        support.run_tusk("report", root)
        dom = render(os.path.join(root, "report", "report.html"), self.profile)
        names = [f[0] for f in figures(dom)]
        self.assertIn("cct_us_by_policy", names)
        self.check_figures(dom, names)

    def test_a_plot_without_labels_is_detected(self):
        # The check can fail: strip a figure's y labels from its metadata.
        dom = render(self.html, self.profile)
        name, meta, _, _ = figures(dom)[0]
        for a in meta["axes"]:
            a["ylabel"] = ""
        self.assertNotEqual(plots.meta_problems(meta), [], name)

    def test_a_broken_image_is_detected(self):
        # The check can fail: corrupt one image's data and the count drops.
        with open(self.html, encoding="utf-8") as fh:
            text = fh.read()
        bad = re.sub(r'base64,([A-Za-z0-9+/=]{40})',
                     lambda m: "base64," + base64.b64encode(b"not a png at all!!").decode()
                     + m.group(1), text, count=1)
        path = os.path.join(os.path.dirname(self.html), "broken.html")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(bad)
        attrs = body_attrs(render(path, self.profile))
        n = len(support.EXPECTED_PLOTS)
        self.assertEqual(attrs.get("data-images-total"), str(n))
        self.assertEqual(attrs.get("data-images-loaded"), str(n - 1))


if __name__ == "__main__":
    unittest.main()
