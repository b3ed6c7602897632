"""Loading tusk results: one run, or a comparison (one folder per policy), or a folder of
several comparisons (several seeds). Reads only the result files, never logs.

Every table is one line of pandas, e.g. ``pd.read_csv("results/x/ecmp-s1/flows.csv")``;
this module adds the discovery of runs and their manifests.
"""

import json
import os
import sqlite3
from dataclasses import dataclass, field

import pandas as pd

RUN_FILES = ("flows.csv", "collectives.csv", "links.csv")
SKIP_DIRS = ("report",)


class ResultsError(Exception):
    """The directory holds no tusk results, or a result file is missing or unreadable."""


@dataclass
class Run:
    """One run's result files."""

    path: str
    manifest: dict
    flows: pd.DataFrame
    collectives: pd.DataFrame
    links: pd.DataFrame
    timeseries: pd.DataFrame = None  # None unless the run sampled ([output] sample_us > 0)

    @property
    def policy(self):
        return self.manifest.get("policy", os.path.basename(self.path))

    @property
    def seed(self):
        return self.manifest.get("seed")

    @property
    def scenario(self):
        return self.manifest.get("scenario_name", "")


@dataclass
class Results:
    """What a results directory holds."""

    path: str
    kind: str  # "run" | "comparison"
    runs: list = field(default_factory=list)
    comparison: pd.DataFrame = None  # comparison.csv rows of every comparison found
    index: pd.DataFrame = None  # index.sqlite `runs` rows of every comparison found

    @property
    def scenario(self):
        names = sorted({r.scenario for r in self.runs})
        return ", ".join(names)

    @property
    def policies(self):
        out = []
        for r in self.runs:
            if r.policy not in out:
                out.append(r.policy)
        return out

    @property
    def seeds(self):
        return sorted({r.seed for r in self.runs})


def _read_csv(path):
    try:
        return pd.read_csv(path)
    except FileNotFoundError:
        raise ResultsError("%s: missing" % path) from None
    except pd.errors.EmptyDataError:
        raise ResultsError("%s: empty (not even a header)" % path) from None


def load_run(path):
    """Load one run directory (it has manifest.json)."""
    mpath = os.path.join(path, "manifest.json")
    try:
        with open(mpath, encoding="utf-8") as fh:
            manifest = json.load(fh)
    except FileNotFoundError:
        raise ResultsError("%s: no manifest.json; not a tusk run directory" % path) from None
    except json.JSONDecodeError as e:
        raise ResultsError("%s: not valid JSON (%s)" % (mpath, e)) from None
    flows = _read_csv(os.path.join(path, "flows.csv"))
    collectives = _read_csv(os.path.join(path, "collectives.csv"))
    # step_end_us is a ';'-separated list: keep it text even with a single step.
    if "step_end_us" in collectives.columns:
        collectives["step_end_us"] = collectives["step_end_us"].astype(str)
    links = _read_csv(os.path.join(path, "links.csv"))
    ts_path = os.path.join(path, "timeseries.csv")
    ts = _read_csv(ts_path) if os.path.exists(ts_path) else None
    return Run(path=path, manifest=manifest, flows=flows, collectives=collectives, links=links,
               timeseries=ts)


def find_run_dirs(path, depth=3):
    """Run directories (holding manifest.json) at or below `path`, sorted by path."""
    if os.path.isfile(os.path.join(path, "manifest.json")):
        return [path]
    found = []
    if depth == 0:
        return found
    try:
        entries = sorted(os.scandir(path), key=lambda e: e.name)
    except FileNotFoundError:
        raise ResultsError("%s: no such directory" % path) from None
    for e in entries:
        if e.is_dir() and e.name not in SKIP_DIRS and ".staging-" not in e.name \
                and ".old-" not in e.name:
            found.extend(find_run_dirs(e.path, depth - 1))
    return found


def _read_index(path):
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        return pd.read_sql_query("SELECT * FROM runs", con)
    finally:
        con.close()


def load_results(path):
    """Load a run directory or a comparison directory (comparison.csv + one folder per policy;
    also a folder holding several comparisons, e.g. one per seed)."""
    path = os.path.abspath(path)
    if not os.path.isdir(path):
        raise ResultsError("%s: no such directory" % path)
    dirs = find_run_dirs(path)
    if not dirs:
        raise ResultsError("%s: no tusk results here (no manifest.json at or below it)" % path)
    runs = [load_run(d) for d in dirs]
    names = sorted({r.scenario for r in runs})
    if len(names) > 1:
        raise ResultsError("%s holds results of %d scenarios (%s); report one scenario's run or "
                           "comparison directory at a time" % (path, len(names),
                                                               ", ".join(names)))
    if dirs == [path]:
        return Results(path=path, kind="run", runs=runs)
    comparisons, indexes = [], []
    for root in sorted({os.path.dirname(d) for d in dirs}):
        cpath = os.path.join(root, "comparison.csv")
        if os.path.exists(cpath):
            comparisons.append(_read_csv(cpath))
        ipath = os.path.join(root, "index.sqlite")
        if os.path.exists(ipath):
            idx = _read_index(ipath)
            idx["run_dir"] = [os.path.join(root, d) for d in idx["run_dir"]]
            indexes.append(idx)
    # Policies in the order of the comparison (comparison.csv), then by path.
    order = []
    for c in comparisons:
        for p in c["policy"]:
            if p not in order:
                order.append(p)
    runs.sort(key=lambda r: (order.index(r.policy) if r.policy in order else len(order),
                             r.policy, r.seed if r.seed is not None else 0))
    return Results(path=path, kind="comparison", runs=runs,
                   comparison=pd.concat(comparisons, ignore_index=True) if comparisons else None,
                   index=pd.concat(indexes, ignore_index=True) if indexes else None)
