"""Every count README.md and docs/ state about the code, checked against the code, so that a
changed count fails here until the text follows: the number of policies (`tusk policies`),
the checks and runs of regress/policies.toml, the plots of the tiny report, the runs of
scenarios/sweeps/policy-load.toml, the paper folders in scenarios/papers/README.md's
table, the runs each paper folder's run.sh and sweep files state, and the fuzz targets CI runs.
test_every_stated_number_is_checked changes each stated number in turn and requires its check
to fail."""

import functools
import glob
import os
import re
import sys
import tomllib
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests import support  # noqa: E402

REPO = support.REPO
WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen", "twenty"]
TENS = {"twenty": 20, "thirty": 30}


def number(text):
    """'17', 'seventeen', 'twenty-one' as an int."""
    t = text.lower().replace("\u2009", "").replace(",", "")
    if t.isdigit():
        return int(t)
    if t in WORDS:
        return WORDS.index(t)
    tens, _, unit = t.partition("-")
    return TENS[tens] + (WORDS.index(unit) if unit else 0)


NUMBER = r"(\d[\d,\u2009]*|[a-z]+(?:-[a-z]+)?)"


#: rel path -> text that read() returns instead of the file's (the mutation test).
OVERRIDE = {}


def read(rel):
    if rel in OVERRIDE:
        return OVERRIDE[rel]
    with open(os.path.join(REPO, rel), encoding="utf-8") as fh:
        return fh.read()


def stated(rel, pattern, groups=1):
    """Every match of `pattern` (NUMBER in it is a count) in the file, as ints; at least one."""
    found = re.findall(pattern.replace("NUMBER", NUMBER), read(rel), re.S)
    if not found:
        raise AssertionError("%s: no match for %r: the sentence changed; update this test"
                             % (rel, pattern))
    return [tuple(number(x) for x in (m if isinstance(m, tuple) else (m,))) for m in found]


@functools.lru_cache(maxsize=None)
def policies():
    """`tusk policies`: [(name, fabric-specific)]: a name per entry, a continuation line saying
    `fabric.kind = ... only` for a policy that runs only on that fabric."""
    out = support.run_tusk("policies").stdout.splitlines()
    entries = []
    for line in out:
        if line and not line.startswith(" "):
            entries.append([line.split()[0], False])
        elif entries and "fabric.kind = " in line and " only" in line:
            entries[-1][1] = True
    return tuple(tuple(e) for e in entries)


def sweep_runs(rel):
    """Runs of a sweep file: the product of its axes' value counts (papers use no other
    combination; a file that does fails here)."""
    sweep = tomllib.loads(read(rel))
    if sweep.get("combine", "product") != "product" or "run" in sweep:
        raise AssertionError("%s: not a plain product of axes; count its runs here" % rel)
    total = 1
    for a in sweep.get("axis", []):
        total *= len(a["values"])
    return total


def paper_sweeps(run_sh):
    """The sweep files a paper folder's run.sh runs (papers_sweep FILE, or tusk sweep FILE)."""
    folder = os.path.dirname(run_sh)
    text = read(run_sh)
    names = re.findall(r"papers_sweep (\S+\.sweep\.toml)", text)
    names += re.findall(r"sweep \"\$here/(\S+\.sweep\.toml)\"", text)
    return [os.path.join(folder, n) for n in names]


def paper_run_scripts():
    return sorted(os.path.relpath(p, REPO) for p in glob.glob(
        os.path.join(REPO, "scenarios", "papers", "*", "run.sh")))


class StatedCountsTest(unittest.TestCase):
    def test_policy_count_in_readme(self):
        n = len(policies())
        self.assertGreater(n, 10)
        for (count,) in stated("README.md", r"\*\*Load balancing\*\*: NUMBER policies"):
            self.assertEqual(count, n, "README.md: the policy count (`tusk policies` lists %d)"
                             % n)

    def test_regress_suite_checks_and_runs(self):
        suite = tomllib.loads(read("regress/policies.toml"))
        self.assertEqual(suite["policies"], "all")
        n = sum(1 for _, fabric_only in policies() if not fabric_only)  # what "all" runs
        seeds = len(suite.get("seeds", [1]))
        scenarios = suite["scenario"]
        runs = len(scenarios) * n * seeds
        checks = sum(n * (1 + len(s["metrics"])) for s in scenarios)  # a run check + metrics
        for c, r in stated("docs/sweeps.md", r"NUMBER checks\s+over NUMBER runs"):
            self.assertEqual((c, r), (checks, runs), "docs/sweeps.md: regress/policies.toml")
        for (count,) in stated("docs/sweeps.md", r"`policies = \"all\"`: the NUMBER of "
                                                 r"`tusk policies` that run on Ethernet"):
            self.assertEqual(count, n, "docs/sweeps.md: the policies \"all\" runs")

    def test_plots_of_the_tiny_report(self):
        for (count,) in stated("docs/analysis.md", r"report must contain the NUMBER plots"):
            self.assertEqual(count, len(support.EXPECTED_PLOTS), "docs/analysis.md")

    def test_policy_load_sweep_runs(self):
        sweep = tomllib.loads(read("scenarios/sweeps/policy-load.toml"))
        sizes = [len(a["values"]) for a in sweep["axis"]]
        total = 1
        for s in sizes:
            total *= s
        self.assertEqual(sweep.get("combine", "product"), "product")
        for p, loads, seeds in stated("README.md", r"NUMBER policies x NUMBER loads x "
                                                   r"NUMBER seeds"):
            self.assertEqual([p, loads, seeds], sizes, "README.md")
        for p, loads, seeds, runs in stated(
                "docs/sweeps.md", r"NUMBER policies \([^)]*\) × NUMBER background\s+loads "
                                  r"\([^)]*\) × NUMBER seeds = NUMBER runs"):
            self.assertEqual([p, loads, seeds, runs], sizes + [total], "docs/sweeps.md")
        for (runs,) in stated("docs/sweeps.md", r"the NUMBER runs and their overrides"):
            self.assertEqual(runs, total, "docs/sweeps.md")

    def test_papers_table_lists_every_folder(self):
        root = os.path.join(REPO, "scenarios", "papers")
        folders = sorted(d for d in os.listdir(root)
                         if os.path.isfile(os.path.join(root, d, "README.md")))
        table = re.findall(r"^\| \[([a-z0-9-]+)\]\(\1/README\.md\) \|", read(
            "scenarios/papers/README.md"), re.M)
        self.assertEqual(sorted(table), folders)

    def test_paper_runs_stated_in_run_sh_and_sweep_files(self):
        checked = 0
        for run_sh in paper_run_scripts():
            sweeps = paper_sweeps(run_sh)
            if not sweeps:
                continue  # runs its scenarios itself (hpcc) or runs none (llama3-failures)
            total = sum(sweep_runs(f) for f in sweeps)
            for (count,) in stated(run_sh, r"\(NUMBER runs"):
                self.assertEqual(count, total, "%s: runs of %s" % (run_sh, ", ".join(sweeps)))
            for f in sweeps:
                for (count,) in stated(f, r"[\s(]NUMBER runs"):
                    self.assertEqual(count, sweep_runs(f), f)
            checked += 1
        self.assertGreaterEqual(checked, 8)

    def test_fuzz_targets_in_testing_md(self):
        n = len(glob.glob(os.path.join(REPO, "fuzz", "fuzz-*.cc")))
        self.assertGreater(n, 5)
        for (count,) in stated("docs/testing.md", r"In CI that is NUMBER targets"):
            self.assertEqual(count, n, "docs/testing.md: fuzz/fuzz-*.cc")

    def test_every_stated_number_is_checked(self):
        # Each stated number, changed by one in the text, makes its check fail.
        cases = [("test_policy_count_in_readme", "README.md",
                  r"\*\*Load balancing\*\*: (NUMBER) policies"),
                 ("test_regress_suite_checks_and_runs", "docs/sweeps.md",
                  r"(NUMBER) checks\s+over NUMBER runs"),
                 ("test_regress_suite_checks_and_runs", "docs/sweeps.md",
                  r"NUMBER checks\s+over (NUMBER) runs"),
                 ("test_regress_suite_checks_and_runs", "docs/sweeps.md",
                  r"`policies = \"all\"`: the (NUMBER) of"),
                 ("test_plots_of_the_tiny_report", "docs/analysis.md",
                  r"report must contain the (NUMBER) plots"),
                 ("test_policy_load_sweep_runs", "README.md", r"(NUMBER) policies x NUMBER loads"),
                 ("test_policy_load_sweep_runs", "docs/sweeps.md",
                  r"× NUMBER seeds = (NUMBER) runs"),
                 ("test_policy_load_sweep_runs", "docs/sweeps.md",
                  r"the (NUMBER) runs and their overrides"),
                 ("test_fuzz_targets_in_testing_md", "docs/testing.md",
                  r"In CI that is (NUMBER) targets")]
        for run_sh in paper_run_scripts():
            if paper_sweeps(run_sh):
                cases.append(("test_paper_runs_stated_in_run_sh_and_sweep_files", run_sh,
                              r"\((NUMBER) runs"))
                cases += [("test_paper_runs_stated_in_run_sh_and_sweep_files", f,
                           r"[\s(](NUMBER) runs") for f in paper_sweeps(run_sh)]
        for method, rel, pattern in cases:
            text = read(rel)
            m = re.search(pattern.replace("NUMBER", NUMBER), text, re.S)
            self.assertIsNotNone(m, "%s: %r" % (rel, pattern))
            changed = text[:m.start(1)] + str(number(m.group(1)) + 1) + text[m.end(1):]
            OVERRIDE[rel] = changed
            try:
                with self.assertRaises(AssertionError, msg="%s: %s" % (rel, pattern)):
                    getattr(StatedCountsTest(method), method)()
            finally:
                OVERRIDE.pop(rel)
        # The papers table: a folder left out of it.
        text = read("scenarios/papers/README.md")
        m = re.search(r"^\| \[([a-z0-9-]+)\]\(\1/README\.md\) \|.*\n", text, re.M)
        OVERRIDE["scenarios/papers/README.md"] = text[:m.start()] + text[m.end():]
        try:
            with self.assertRaises(AssertionError):
                StatedCountsTest("test_papers_table_lists_every_folder")\
                    .test_papers_table_lists_every_folder()
        finally:
            OVERRIDE.clear()

    def test_the_check_can_fail(self):
        self.assertEqual(number("seventeen"), 17)
        self.assertEqual(number("twenty-one"), 21)
        self.assertEqual(number("1\u2009024"), 1024)
        with self.assertRaises(AssertionError):
            stated("README.md", r"NUMBER unicorns")


if __name__ == "__main__":
    unittest.main()
