"""Loading tusk results: one run, or a comparison (one folder per policy), or a folder of
several comparisons (several seeds). Reads only the result files, never logs.

Every table is one line of pandas, e.g. ``pd.read_csv("results/x/ecmp-s1/flows.csv")``;
this module adds the discovery of runs and their manifests.
"""

import csv
import io
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
    waits: pd.DataFrame = None  # waits.csv (who waited); None for runs written before it
    switch_timeseries: pd.DataFrame = None  # the MMU pools over time, with timeseries
    switches: pd.DataFrame = None  # switches.csv: buffer pools and their maxima (newer runs)
    cc_trace: pd.DataFrame = None  # None unless the run traced its CCs ([output] cc_trace)
    #: False for a run with `[output] flow_rows = "summary"`: no flows.csv nor waits.csv were
    #: written, `flows` is empty (its columns only) and `waits` None; the manifest's summary
    #: and collectives.csv are whole.
    flow_rows_written: bool = True

    @property
    def policy(self):
        return self.manifest.get("policy", os.path.basename(self.path))

    @property
    def seed(self):
        return self.manifest.get("seed")

    @property
    def scenario(self):
        return self.manifest.get("scenario_name", "")

    @property
    def summary(self):
        """The manifest's summary as a one-row DataFrame (scenario_name, policy, seed, status,
        then every summary metric; docs/results-format.md)."""
        row = {"scenario_name": self.scenario, "policy": self.policy, "seed": self.seed,
               "status": self.manifest.get("status")}
        row.update(self.manifest.get("summary", {}))
        return pd.DataFrame([row])


@dataclass
class Tables:
    """The tables of a comparison or a sweep, one DataFrame each, every run's rows stacked.

    flows, collectives, links: the runs' CSV files with the columns that tell the runs apart
    in front (comparison: policy, seed; sweep: run_id, the axes, policy, seed). summary: one
    row per run (comparison.csv or sweep.csv). For a sweep, axes lists the axis columns and
    index is the `runs` table of index.sqlite (adds hash, wall time, backend, host)."""

    path: str
    kind: str  # "comparison" | "sweep"
    summary: pd.DataFrame
    flows: pd.DataFrame
    collectives: pd.DataFrame
    links: pd.DataFrame
    axes: list = field(default_factory=list)
    index: pd.DataFrame = None
    axis_keys: dict = field(default_factory=dict)  # sweep: axis name -> the scenario key(s) it sets


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


def _check_fields(fh, where, ends_with_newline):
    """Every record of the CSV text in `fh` (read by the csv module: a quoted field may hold a
    comma or a line break, results-writer.cc, CsvField) has as many fields as its header, and
    the text ends with a line break (`ends_with_newline`; tusk writes whole lines): a row cut
    short, or run together with the next one, is a ResultsError naming the file and line,
    rather than the empty cells pandas would quietly fill in. Returns the number of data
    rows."""
    reader = csv.reader(fh)
    header = next(reader, None)
    if not header:
        return 0  # no header: pandas' EmptyDataError says so
    rows, start = 0, reader.line_num + 1
    for record in reader:
        if len(record) != len(header):
            raise ResultsError("%s: line %d has %d fields, the header has %d (a damaged or "
                               "truncated file)" % (where, start, len(record), len(header)))
        rows, start = rows + 1, reader.line_num + 1
    if not ends_with_newline:
        raise ResultsError("%s: line %d is cut short (the file does not end with a line "
                           "break; a truncated file)" % (where, reader.line_num))
    return rows


def _read_csv(path):
    """A CSV file (a path, or a file-like object holding CSV text) as a DataFrame, after
    _check_fields: ResultsError when it is missing, empty, or a row has the wrong number of
    fields."""
    where = path if isinstance(path, str) else "<CSV text>"
    try:
        if isinstance(path, str):
            with open(path, "rb") as raw:
                size = raw.seek(0, os.SEEK_END)
                raw.seek(max(size - 1, 0))
                ends = size == 0 or raw.read(1) == b"\n"
            with open(path, newline="", encoding="utf-8") as fh:
                _check_fields(fh, where, ends)
        else:
            text = path.read()
            _check_fields(io.StringIO(text, newline=""), where, not text or text.endswith("\n"))
            path = io.StringIO(text)
        # One pass over the whole file: text columns (path, paths) empty in some rows are not
        # typed chunk by chunk (pandas's DtypeWarning on a long run's flows.csv).
        return pd.read_csv(path, low_memory=False)
    except FileNotFoundError:
        raise ResultsError("%s: missing" % where) from None
    except UnicodeDecodeError as e:
        raise ResultsError("%s: not UTF-8 text (%s)" % (where, e)) from None
    except pd.errors.EmptyDataError:
        raise ResultsError("%s: empty (not even a header)" % where) from None
    except pd.errors.ParserError as e:
        raise ResultsError("%s: not a CSV table (%s)" % (where, e)) from None


# The columns every reader of a table relies on, and those of them that hold numbers. A table
# without them was not written by tusk (or was edited): a ResultsError names the file and the
# column, rather than a KeyError deep inside a plot.
# Numeric columns may be empty only where tusk writes an empty cell (an unfinished flow has
# no finish_us); the `filled` ones never are.
REQUIRED_COLUMNS = {
    "flows": (("flow_id", "src", "dst", "bytes", "start_us", "finish_us", "fct_us", "finished"),
              ("src", "dst", "bytes", "start_us", "finish_us", "fct_us", "finished"),
              # start_us is empty for a transfer that never started (a run stopped early)
              ("flow_id", "src", "dst", "bytes", "finished")),
    "collectives": (("collective_id", "kind", "start_us", "finish_us", "cct_us", "finished"),
                    ("start_us", "finish_us", "cct_us", "finished"),
                    ("collective_id", "kind", "finished")),
    "links": (("link_id", "from", "to", "tx_bytes"), ("tx_bytes",), ("link_id", "tx_bytes")),
}


def _check_columns(df, source, table):
    names, numeric, filled = REQUIRED_COLUMNS.get(table, ((), (), ()))
    where = source if isinstance(source, str) else "<%s text>" % table
    missing = [c for c in names if c not in df.columns]
    if missing:
        raise ResultsError("%s: no column %s (every tusk %s.csv has %s)"
                           % (where, ", ".join(missing), table, ", ".join(names)))
    for c in filled:
        empty = df[c].isna()
        if empty.any():
            raise ResultsError("%s: line %d, column %s: empty (tusk always writes it)"
                               % (where, int(empty.idxmax()) + 2, c))
    for c in numeric:
        values = pd.to_numeric(df[c], errors="coerce")
        bad = values.isna() & df[c].notna()
        if bad.any():
            row = int(bad.idxmax())
            raise ResultsError("%s: line %d, column %s: %r is not a number"
                               % (where, row + 2, c, df[c].iloc[row]))


def read_table(source, table):
    """One result table (flows, collectives, links, ...) from a path or a file-like object
    holding its CSV text, with the column types load_run gives it.

    Raises ResultsError when the file is missing or empty, or lacks a column every reader
    relies on (REQUIRED_COLUMNS), or holds a non-number in one of its numeric columns."""
    df = _read_csv(source)
    _check_columns(df, source, table)
    # step_end_us is a ';'-separated list: keep it text even with a single step.
    if table == "collectives" and "step_end_us" in df.columns:
        df["step_end_us"] = df["step_end_us"].astype(str)
    return df


def _check_against_manifest(flows, manifest, where):
    """flows.csv has one row per transfer: as many rows as the manifest's `transfers`, and
    `transfers - unfinished_transfers` of them finished (results-writer.cc writes both from
    the same rows). A file cut at a line break, or with rows deleted, passes _check_fields
    but not this. Manifests without the keys (older runs) are not checked."""
    transfers = manifest.get("transfers")
    if not isinstance(transfers, int) or isinstance(transfers, bool):
        return
    if len(flows) != transfers:
        raise ResultsError("%s has %d rows, the manifest says %d transfers (a damaged or "
                           "truncated file)" % (where, len(flows), transfers))
    unfinished = manifest.get("unfinished_transfers")
    if not isinstance(unfinished, int) or isinstance(unfinished, bool):
        return
    finished = int((pd.to_numeric(flows["finished"], errors="coerce") == 1).sum())
    if finished != transfers - unfinished:
        raise ResultsError("%s has %d finished transfers, the manifest says %d (%d of %d "
                           "unfinished)" % (where, finished, transfers - unfinished, unfinished,
                                            transfers))


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
    if not isinstance(manifest, dict):
        raise ResultsError("%s: expected a JSON object, found a %s"
                           % (mpath, type(manifest).__name__))
    for key, kind in (("policy", str), ("seed", int), ("summary", dict)):
        if not isinstance(manifest.get(key), kind):
            raise ResultsError("%s: key %r: expected a %s, found %r; not a tusk manifest"
                               % (mpath, key, kind.__name__, manifest.get(key)))
    rows_written = flow_rows_written(manifest)
    if rows_written or os.path.exists(os.path.join(path, "flows.csv")):
        flows = read_table(os.path.join(path, "flows.csv"), "flows")
        _check_against_manifest(flows, manifest, os.path.join(path, "flows.csv"))
        rows_written = True
    else:
        flows = pd.DataFrame({c: pd.Series(dtype="float64") for c in UNWRITTEN_FLOW_COLUMNS})
    collectives = read_table(os.path.join(path, "collectives.csv"), "collectives")
    links = read_table(os.path.join(path, "links.csv"), "links")
    def optional(name):
        p = os.path.join(path, name)
        return _read_csv(p) if os.path.exists(p) else None

    return Run(path=path, manifest=manifest, flows=flows, collectives=collectives, links=links,
               timeseries=optional("timeseries.csv"), waits=optional("waits.csv"),
               switch_timeseries=optional("switch_timeseries.csv"),
               switches=optional("switches.csv"), cc_trace=optional("cc_trace.csv"),
               flow_rows_written=rows_written)


#: The columns of the empty flows table of a run that wrote no flows.csv (flow_rows_written).
UNWRITTEN_FLOW_COLUMNS = ("flow_id", "src", "dst", "bytes", "start_us", "finish_us", "fct_us",
                          "slowdown", "fair_slowdown", "finished", "collective", "step",
                          "channel", "retx_packets", "ooo_packets")


def flow_rows_written(manifest):
    """False when the run's scenario had `[output] flow_rows = "summary"` (no flows.csv nor
    waits.csv: docs/results-format.md, "Without the per-transfer rows")."""
    output = (manifest.get("scenario") or {}).get("output") or {}
    return output.get("flow_rows", "all") != "summary"


def _stack(runs, keys, table):
    """One table of every run, the run's `keys` ({column: value}) as leading columns."""
    frames = []
    for run, k in zip(runs, keys):
        df = getattr(run, table).copy()
        for i, (col, value) in enumerate(k.items()):
            if col in df.columns:
                df = df.drop(columns=[col])
            df.insert(i, col, value)
        frames.append(df)
    if not frames:
        return pd.DataFrame(columns=list(keys[0]) if keys else [])
    return pd.concat(frames, ignore_index=True)


def load_compare(path):
    """A `tusk compare` directory (comparison.csv, one folder per policy) as Tables: flows,
    collectives, links of every policy with `policy` and `seed` in front; summary =
    comparison.csv."""
    res = load_results(path)
    if res.kind != "comparison" or res.comparison is None:
        raise ResultsError("%s: not a comparison (no comparison.csv beside the run folders)"
                           % path)
    keys = [{"policy": r.policy, "seed": r.seed} for r in res.runs]
    return Tables(path=res.path, kind="comparison", summary=res.comparison,
                  flows=_stack(res.runs, keys, "flows"),
                  collectives=_stack(res.runs, keys, "collectives"),
                  links=_stack(res.runs, keys, "links"))


def _numeric(series):
    """A column as numbers when every non-empty value is one (axis labels like 0.3)."""
    converted = pd.to_numeric(series, errors="coerce")
    if converted.notna().sum() == series.notna().sum():
        return converted
    return series


def is_sweep(path):
    return os.path.isfile(os.path.join(path, "sweep.csv"))


def load_sweep(path, tables=("flows", "collectives", "links")):
    """A `tusk sweep` (or `tusk regress`) results root as Tables, in one call:

        sw = load_sweep("results/policy-load")
        sw.summary.groupby(["policy", "load"]).fct_p99_us.mean()

    summary is sweep.csv: run_id, one column per axis (numbers where every label is one),
    policy, seed, status, exit_status, message, then every summary metric. flows, collectives
    and links stack the runs that have results, with run_id, the axes, policy and seed in front
    (pass tables=() to read only the summary)."""
    path = os.path.abspath(path)
    if not is_sweep(path):
        raise ResultsError("%s: no sweep.csv; not a sweep results root (run `tusk sweep`, or "
                           "`tusk sweep FILE --collect` to write it)" % path)
    summary = _read_csv(os.path.join(path, "sweep.csv"))
    index, axes, axis_keys = None, [], {}
    ipath = os.path.join(path, "index.sqlite")
    if os.path.exists(ipath):
        con = sqlite3.connect("file:%s?mode=ro" % ipath, uri=True)
        try:
            index = pd.read_sql_query("SELECT * FROM runs", con)
            rows = con.execute("SELECT name, keys FROM axes ORDER BY position").fetchall()
            axes = [r[0] for r in rows]
            axis_keys = {r[0]: r[1] for r in rows}
        finally:
            con.close()
    for a in axes:
        if a in summary.columns:
            summary[a] = _numeric(summary[a])
    front = ["run_id"] + [a for a in axes if a not in ("policy", "seed")] + ["policy", "seed"]
    runs, keys = [], []
    for _, row in summary.iterrows():
        if row["status"] not in ("ok", "failed"):
            continue  # no results (error) or not run yet (pending)
        run = load_run(os.path.join(path, row["run_id"])) if tables else None
        runs.append(run)
        keys.append({c: row[c] for c in front if c in summary.columns})
    empty = pd.DataFrame(columns=[c for c in front if c in summary.columns])
    out = {t: (_stack(runs, keys, t) if t in tables and runs else empty.copy())
           for t in ("flows", "collectives", "links")}
    return Tables(path=path, kind="sweep", summary=summary, axes=axes, index=index,
                  axis_keys=axis_keys, **out)


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
