"""What the run report (report.py) and the sweep report (sweep_report.py) share: HTML
escaping and number formats, a table writer, the style sheet, figure saving and the staging
directory a report is written through. Imports neither report, so both import it."""

import contextlib
import html
import math
import os
import shutil
import tempfile

from . import load, marker


def esc(x):
    return html.escape(str(x), quote=True)


def fmt_num(v, digits=4):
    if v is None:
        return "–"
    if isinstance(v, (int,)) and not isinstance(v, bool):
        return "{:,}".format(v).replace(",", "\u2009")
    try:
        f = float(v)
    except (TypeError, ValueError):
        return esc(v)
    if math.isnan(f):
        return "–"
    if f == int(f) and abs(f) < 1e15 and digits >= 0 and abs(f) >= 1000:
        return "{:,}".format(int(f)).replace(",", "\u2009")
    if abs(f) >= 1000:
        return "%.0f" % f
    return ("%." + str(digits) + "g") % f


def fmt_ci(v):
    """A confidence half-width: 2 significant digits, never in exponent notation."""
    f = abs(float(v))
    if f >= 10:
        return "%.0f" % f
    if f == 0:
        return "0"
    return "%.2g" % f


def table(df, columns, classes="data"):
    """An HTML table of `df`; columns = [(key, header, formatter)]."""
    out = ['<table class="%s"><thead><tr>' % classes]
    out += ["<th>%s</th>" % h for _, h, _ in columns]
    out.append("</tr></thead><tbody>")
    for _, row in df.iterrows():
        out.append("<tr>")
        for key, _, f in columns:
            v = row.get(key)
            out.append("<td>%s</td>" % (f(v, row) if f else esc(v)))
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


CSS = """
body { font-family: "DejaVu Sans", Arial, Helvetica, sans-serif; margin: 1.5em auto;
       max-width: 1150px; color: #222; line-height: 1.4; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; } h2 { font-size: 1.2em; margin-top: 1.6em;
border-bottom: 1px solid #ccc; } h3 { font-size: 1.02em; }
table.data { border-collapse: collapse; font-size: 0.82em; margin: 0.6em 0; }
table.data th, table.data td { border: 1px solid #ccc; padding: 0.2em 0.45em; text-align: right; }
table.data td { white-space: nowrap; }
table.data th { background: #f2f2f2; } table.data td:first-child, table.data th:first-child
{ text-align: left; }
table.meta td { padding: 0.1em 0.8em 0.1em 0; font-size: 0.9em; vertical-align: top; }
figure { margin: 1em 0 1.8em 0; } figure img { max-width: 100%; height: auto;
border: 1px solid #eee; } figcaption { font-size: 0.86em; color: #444; max-width: 60em; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; vertical-align: -0.1em;
margin-right: 0.3em; border: 1px solid #555; }
pre { background: #f7f7f7; padding: 0.6em; font-size: 0.8em; overflow-x: auto; }
.note { color: #666; font-size: 0.88em; } .failed { color: #b00; font-weight: bold; }
"""


def save_figure(fig, stem):
    fig.savefig(stem + ".png", dpi=150, metadata={"Software": None})
    fig.savefig(stem + ".svg", metadata={"Date": None, "Creator": None})



@contextlib.contextmanager
def staged(out_dir, kind="report"):
    """A staging directory beside `out_dir` to write a report into, marked (marker.py) with its
    owner while it is written; marked complete with the files it holds and renamed into place
    (replacing an earlier report) when the block ends, removed if it raises. A report never
    replaces a results directory of another kind of tusk's, a report of a tusk from before the
    marker, or anything that holds files tusk did not write (docs/results-format.md, "Results
    folders")."""
    refusal = marker.replace_refusal(out_dir)
    if refusal:
        raise load.ResultsError("%s: --out: %s" % (out_dir, refusal))
    parent = os.path.dirname(out_dir)
    os.makedirs(parent, exist_ok=True)
    marker.remove_stale(parent, os.path.basename(out_dir))  # left by a killed report
    staging = tempfile.mkdtemp(prefix=os.path.basename(out_dir) + ".staging-", dir=parent)
    try:
        marker.write_marker(staging, kind, "staging")
        yield staging
        marker.write_marker(staging, kind, "complete", marker.list_files(staging))
        os.chmod(staging, 0o755)
        if os.path.exists(out_dir):
            old = out_dir + ".old-%d" % os.getpid()
            os.rename(out_dir, old)
            os.rename(staging, out_dir)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
