"""The modules of tusk_analysis import one another without a cycle: every `from . import X`
and `from .X import ...`, at module level or inside a function, is an edge of a graph that
must be acyclic (a cycle makes the import order matter and breaks `python -m` entry points)."""

import ast
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests import support  # noqa: E402

PACKAGE = os.path.join(support.ANALYSIS, "tusk_analysis")


def import_graph(package=PACKAGE):
    """{module: set of the package's modules it imports}, from the source (nothing run)."""
    modules = {f[:-3] for f in os.listdir(package) if f.endswith(".py")}
    graph = {}
    for m in modules:
        with open(os.path.join(package, m + ".py"), encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:  # from .X import a, b
                    deps.add(node.module.split(".")[0])
                else:            # from . import X, Y
                    deps.update(a.name for a in node.names)
        graph[m] = {d for d in deps if d in modules and d != m}
    return graph


def find_cycle(graph):
    """A list of modules forming a cycle, or None."""
    state = {}

    def visit(m, path):
        state[m] = 1
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                return path[path.index(d):] + [d]
            if d not in state:
                found = visit(d, path + [d])
                if found:
                    return found
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m, [m])
            if found:
                return found
    return None


class ImportCycleTest(unittest.TestCase):
    def test_no_cycle(self):
        graph = import_graph()
        self.assertIn("sweep_report", graph["report"])
        self.assertIn("report_parts", graph["sweep_report"])
        self.assertIsNone(find_cycle(graph))

    def test_a_cycle_is_found(self):
        # The check can fail: a function-level import back into report is a cycle.
        self.assertEqual(find_cycle({"report": {"sweep_report"}, "sweep_report": {"report"}}),
                         ["report", "sweep_report", "report"])


if __name__ == "__main__":
    unittest.main()
