"""tusk from Python: run scenarios in a notebook and get the results as pandas DataFrames.

    import tusk
    s = tusk.Scenario.load("scenarios/lossless-incast.toml").set("lb.policy", "drill")
    r = s.run()                  # or s.run(out="results/x"): the files of `tusk run`, byte for byte
    r.flows.fct_us.max(), r.summary["slowdown_p99"]

The C++ scripting API underneath (tusk/api/scripting.h) checks every change as `tusk run --set`
does: problems raise tusk.InputError (a ValueError) carrying the command line's
"FILE:LINE: KEY: message". Several runs in one process are independent (the simulator is reset
after each). Ctrl-C stops a run cleanly (KeyboardInterrupt; nothing written). docs/scripting.md.
"""
import io
import json

from ._tusk import InputError, RunInterrupted  # noqa: F401  (re-exported)
from . import _tusk

try:
    from tusk_analysis.load import read_table
except ImportError:  # the build tree: the analysis package of the source tree it came from
    import os
    import sys

    sys.path.append(os.environ.get("TUSK_ANALYSIS_DIR", "@TUSK_ANALYSIS_DIR@"))
    from tusk_analysis.load import read_table

__all__ = ["Scenario", "Results", "InputError", "RunInterrupted", "compare"]


class Results:
    """One run: `summary` (dict, the manifest's "summary" keys), the tables `flows`,
    `collectives`, `jobs`, `links`, `pfc_events` as DataFrames with the columns of
    docs/results-format.md (read by tusk_analysis's loader), `failure` ("" if the run
    finished), `finished`, `events`, `wall_seconds`, `warnings`."""

    def __init__(self, result):
        self._r = result
        self._tables = {}
        self.summary = result.summary
        self.failure = result.failure
        self.finished = result.finished
        self.events = result.events
        self.wall_seconds = result.wall_seconds
        self.warnings = list(result.warnings)

    def table(self, name):
        """The table `name` as a DataFrame (flows, collectives, waits, jobs, links, pfc_events,
        timeseries, switch_timeseries, switches, cc_trace), read once."""
        if name not in self._tables:
            self._tables[name] = read_table(io.StringIO(self._r.csv(name)), name)
        return self._tables[name]

    flows = property(lambda self: self.table("flows"))
    collectives = property(lambda self: self.table("collectives"))
    jobs = property(lambda self: self.table("jobs"))
    links = property(lambda self: self.table("links"))
    pfc_events = property(lambda self: self.table("pfc_events"))


class Scenario:
    """A scenario: load(path), from_dict(d), from_string(toml) or Scenario() (the built-in
    default); set(key, value) as `--set key=value`; add_flow, add_failure, add_table; run().
    The changing methods return the scenario, so calls chain."""

    def __init__(self, _impl=None):
        self._s = _impl if _impl is not None else _tusk.Scenario()

    @classmethod
    def load(cls, path):
        return cls(_tusk.Scenario.load(str(path)))

    @classmethod
    def from_string(cls, toml, name="<python>"):
        return cls(_tusk.Scenario.from_string(toml, name))

    @classmethod
    def from_dict(cls, scenario, name="<dict>"):
        """A scenario from a dict with the layout of a TOML scenario
        ({"topology": {"kind": "leaf-spine", ...}, "workload": {...}})."""
        return cls(_tusk.Scenario.from_json(json.dumps(scenario), name))

    def set(self, key, value):
        """Set one key exactly as `tusk run --set key=value` (value: bool, int, float or str;
        a str is parsed as a TOML value, else taken as text: "drill", "64MiB")."""
        self._s.set(key, value)
        return self

    def add_flow(self, src, dst, bytes, start_us=0.0):
        self._s.add_flow(src, dst, bytes, start_us)
        return self

    def add_failure(self, at_us, kind, target, rate_divisor=0):
        """One [[failures]] entry: `target` is a link "<from>-<to>" for the link kinds, a
        switch name for switch_down/switch_up, a host id for nic_down/nic_up."""
        self._s.add_failure(at_us, kind, str(target), rate_divisor)
        return self

    def add_table(self, array, body):
        self._s.add_table(array, body)
        return self

    def check(self):
        """Raise the scenario's problem, if it has one (not complete yet, or invalid)."""
        self._s.check()

    @property
    def seed(self):
        return self._s.seed

    @property
    def text(self):
        return self._s.text

    @property
    def overrides(self):
        return list(self._s.overrides)

    def run(self, out=None, progress=None):
        """Run; `out`: a results directory written as `tusk run --out` does (None: no files);
        `progress`: called with the simulated time in ms about twice a second of wall time."""
        return Results(self._s._run("" if out is None else str(out), progress))


def compare(scenario, policies, out=None):
    """Run `scenario` once per policy (lb.policy); one summary row per policy, as a DataFrame
    indexed by policy. `out`: a directory that receives one results directory per policy."""
    import os

    import pandas as pd

    rows = []
    for p in policies:
        r = scenario.set("lb.policy", p).run(None if out is None else os.path.join(str(out), p))
        rows.append(dict(r.summary, status="ok" if not r.failure else "failed"))
    return pd.DataFrame(rows).set_index("policy")
