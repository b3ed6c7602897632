"""The `.tusk-results` marker of a results folder (docs/results-format.md, "Results folders"),
as tusk/results/results-dir.cc writes and checks it: a folder tusk wrote holds a JSON marker with its
format version, the kind of results, the writing process (`owner`) and the files it committed.
`tusk report` replaces its output folder only if that folder holds such a marker and nothing
but the files it lists (and folders that are tusk results themselves)."""

import json
import os
import shutil
import socket

MARKER = ".tusk-results"
FORMAT = 1
SHOWN = 5  # foreign files named in a refusal, then "and N more"


def _text(path):
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError:
        return ""


def _start(pid):
    """Field 22 of /proc/PID/stat (the start time), "" if there is no such process."""
    stat = _text("/proc/%d/stat" % pid)
    fields = stat[stat.rfind(")") + 1:].split()
    return fields[19] if len(fields) > 19 else ""


def owner():
    """This process as the owner of a staging folder: host, boot, pid and the pid's start."""
    return {"host": socket.gethostname(),
            "boot_id": _text("/proc/sys/kernel/random/boot_id").strip(),
            "pid": os.getpid(),
            "pid_start": _start(os.getpid())}


def owner_gone(o):
    """True if the owner `o` of a staging folder is no longer running (this host only: the
    owner of another host's folder cannot be told, False)."""
    if not isinstance(o, dict) or not isinstance(o.get("pid"), int) \
            or o.get("host") != socket.gethostname():
        return False
    if o.get("boot_id") != _text("/proc/sys/kernel/random/boot_id").strip():
        return True
    start = _start(o["pid"])
    return not start or start != o.get("pid_start")


def remove_stale(parent, name):
    """Remove the staging folders of `parent/name` (`name.staging-*`) whose owner is gone, as
    tusk does for its own destinations; a live or unknown owner's folder is left alone."""
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    for e in entries:
        if e.name.startswith(name + ".staging-") and e.is_dir(follow_symlinks=False):
            m = read_marker(e.path)
            if m is not None and owner_gone(m.get("owner")):
                shutil.rmtree(e.path, ignore_errors=True)


def read_marker(folder):
    """The marker of `folder` if it has one of a known format, else None."""
    try:
        with open(os.path.join(folder, MARKER), encoding="utf-8") as fh:
            m = json.load(fh)
    except (OSError, ValueError):
        return None
    version = m.get("tusk_results") if isinstance(m, dict) else None
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= FORMAT:
        return None
    return m


def list_files(folder):
    """Files below `folder`, relative and sorted, but for its own marker."""
    out = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for f in sorted(files):
            rel = os.path.relpath(os.path.join(root, f), folder)
            if rel != MARKER:
                out.append(rel)
    return out


def write_marker(folder, kind, state, files=None):
    """Write `folder`'s marker: state "staging" (while written) or "complete" (with `files`)."""
    m = {"tusk_results": FORMAT, "kind": kind, "state": state, "owner": owner()}
    if files is not None:
        m["files"] = files
    path = os.path.join(folder, MARKER)
    with open(path + ".tmp-%d" % os.getpid(), "w", encoding="utf-8") as fh:
        json.dump(m, fh, indent=2)
        fh.write("\n")
    os.rename(path + ".tmp-%d" % os.getpid(), path)


def _foreign(top, root, folder, listed, out):
    for e in sorted(os.scandir(folder), key=lambda e: e.name):
        rel = os.path.relpath(e.path, root)
        if folder == root and e.name == MARKER:
            continue
        if e.is_dir(follow_symlinks=False):
            m = read_marker(e.path)
            if m is None:
                _foreign(top, root, e.path, listed, out)
            elif m.get("state") == "complete":
                _foreign(top, e.path, e.path, set(m.get("files", [])), out)
            # else: a staging folder of tusk's: tusk's own
        elif rel not in listed:
            out.append(os.path.relpath(e.path, top))


def foreign_files(folder):
    """Paths below `folder` (relative, sorted) that tusk did not write as its results."""
    m = read_marker(folder) or {}
    out = []
    _foreign(folder, folder, folder, set(m.get("files", [])), out)
    return out


def some_of(names):
    s = ", ".join(names[:SHOWN])
    return s + (" and %d more" % (len(names) - SHOWN) if len(names) > SHOWN else "")


def replace_refusal(folder):
    """Why `folder` may not be replaced by new results, or "" if it may (as tusk decides)."""
    if not os.path.lexists(folder):
        return ""
    if os.path.islink(folder):
        return "is a symbolic link; tusk replaces only a results folder it wrote itself"
    if not os.path.isdir(folder):
        return "exists and is not a directory; refusing to replace it"
    if not os.listdir(folder):
        return ""
    if not os.path.exists(os.path.join(folder, MARKER)):
        return ("has no %s marker: an earlier tusk's output, or not tusk's (it holds %s); tusk "
                "replaces only the folders it marked: remove it yourself (rm -r %s) or choose "
                "another --out" % (MARKER, some_of(list_files(folder)), folder))
    m = read_marker(folder)
    if m is None:
        return ("its %s marker is not one this tusk reads (format %d expected; a newer tusk?); "
                "refusing to replace it" % (MARKER, FORMAT))
    if m.get("state") != "complete":
        return "is a tusk staging folder, not results; refusing to replace it"
    foreign = foreign_files(folder)
    if foreign:
        return ("holds %d file%s tusk did not write: %s; refusing to replace it (move them "
                "elsewhere, or choose another --out)"
                % (len(foreign), "" if len(foreign) == 1 else "s", some_of(foreign)))
    return ""
