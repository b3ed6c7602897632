"""The report opens in a browser with no network: headless Chromium (Debian's `chromium`,
installed by scripts/install-deps.sh) renders report.html, every image loads and the tables
are present. Skipped, saying so, only when chromium is not installed."""

import base64
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests import support  # noqa: E402

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
