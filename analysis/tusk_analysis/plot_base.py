"""What the report's plot functions (plots.py, plots_waits.py) share: the style, the policies'
colours, the plot context, the Plot / NotDrawn / Skip results, small helpers, and the figure
metadata with the rule every axis label must meet (a unit).

Conventions (the report's quality bar): every axis is labelled with its unit; every figure is
titled with the scenario and the policies it shows; a policy has the same colour in every plot
(policy_colors); sizes are those of a paper figure (7 in wide, 8-9 pt text).
"""

import math
import textwrap
from dataclasses import dataclass

from . import stats

WIDTH_IN = 7.0  # a double-column paper figure

STYLE = {
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 7.5,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "figure.titlesize": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.05,
    "svg.hashsalt": "tusk",  # deterministic SVG ids
}

# A fixed colour per policy known to `tusk policies`, so a policy has the same colour in every
# plot and every report: Okabe-Ito first (distinguishable with colour-vision deficiency), then
# Paul Tol's and tab20's darker hues; all pairwise distinct.
KNOWN = {
    "ecmp": "#0072B2",               # blue
    "spray": "#E69F00",              # orange
    "eecmp": "#56B4E9",              # sky blue
    "qp4-split": "#009E73",          # bluish green
    "qp4-rr": "#117733",             # dark green
    "pinning": "#CC79A7",            # reddish purple
    "letflow": "#D55E00",            # vermillion
    "conga": "#000000",              # black
    "drill": "#882255",              # wine
    "ar": "#DDCC77",                 # sand
    "rr-spray": "#44AA99",           # teal
    "host-spray": "#8C564B",         # brown
    "host-random-spray": "#9467BD",  # purple
    "host-bitmap": "#999933",        # olive
    "host-reps": "#332288",          # indigo
    "flowlet-ar": "#AA4499",         # purple (Tol)
    "host-plb": "#88CCEE",           # cyan (Tol)
    "conweave": "#DD3377",           # magenta (Tol vibrant)
}
# For policies not in KNOWN, in order: first colours no known policy has (so they do not clash
# with a known policy in another report), then the known policies' colours unused here.
EXTRA = ["#D62728", "#7F7F7F", "#17BECF", "#BCBD22", "#E377C2", "#1F77B4", "#FF9896",
         "#AEC7E8", "#FFBB78", "#98DF8A"]
PALETTE = EXTRA + list(KNOWN.values())
LINESTYLES = ["-", "--", ":", "-."]
TITLE_CHARS = 95  # a 10 pt title line on a 7 in figure


def wrap_title(text, width=TITLE_CHARS):
    """Break a long title into lines so it does not widen the figure beyond WIDTH_IN."""
    lines = textwrap.wrap(text, width=width, break_on_hyphens=False)
    if len(lines) > 1:  # balance the lines (no one-word last line)
        even = math.ceil(len(text) / len(lines)) + 6
        balanced = textwrap.wrap(text, width=min(width, even), break_on_hyphens=False)
        if len(balanced) == len(lines):
            lines = balanced
    return "\n".join(lines) or text


def policy_colors(policies):
    """A colour per policy: known policies keep theirs in every report, the others take the
    unused palette colours in order (deterministic), then repeat them."""
    out = {p: KNOWN[p] for p in policies if p in KNOWN}
    free = [c for c in PALETTE if c not in out.values()]
    k = 0
    for p in policies:
        if p not in out:
            out[p] = free[k % len(free)] if free else PALETTE[k % len(PALETTE)]
            k += 1
    return out


#: Axis labels that name categories, not quantities: they need no unit.
CATEGORICAL_LABELS = ("policy", "uplink")


def _tick_texts(axis):
    return [t.get_text() for t in axis.get_ticklabels() if t.get_visible() and t.get_text()]


def figure_meta(fig):
    """What a reader needs to read a drawn figure (call after it is drawn, e.g. saved): its
    title (the suptitle, else the first axes' title) and, per axes that shows anything
    (axis on), its title and the x and y labels, with whether that axis has tick labels (an
    axis with tick labels needs a label). Colour bars count as axes. A dict, JSON-ready."""
    sup = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) is not None else ""
    axes = []
    for ax in fig.axes:
        if not ax.axison or not ax.get_visible():
            continue
        axes.append({"title": ax.get_title(loc="left") or ax.get_title(),
                     "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
                     "xticks": bool(_tick_texts(ax.xaxis)),
                     "yticks": bool(_tick_texts(ax.yaxis))})
    title = sup or next((a["title"] for a in axes if a["title"]), "")
    return {"title": title, "axes": axes}


def has_unit(label):
    """True if an axis label gives its unit: a parenthesised part, "(µs)", "(ratio)",
    "(fraction of line rate)", or it names categories (CATEGORICAL_LABELS)."""
    import re

    return bool(re.search(r"\([^)]+\)", label)) or \
        label.split(" (")[0].strip() in CATEGORICAL_LABELS


def meta_problems(meta):
    """What a figure's metadata (figure_meta) lacks: no title, an axis with tick labels but
    no label, a label without a unit. A list of strings, empty when the figure is fine."""
    out = []
    if not meta.get("title"):
        out.append("no title")
    for i, a in enumerate(meta.get("axes", [])):
        for ax in ("x", "y"):
            label = a.get(ax + "label", "")
            if a.get(ax + "ticks") and not label:
                out.append("axes %d (%s): %s axis has tick labels but no label"
                           % (i, a.get("title"), ax))
            elif label and not has_unit(label):
                out.append("axes %d (%s): %s label %r gives no unit"
                           % (i, a.get("title"), ax, label))
    return out


class Skip(Exception):
    """This plot does not apply to these results (the message says why)."""


@dataclass
class Plot:
    name: str
    title: str
    figure: object
    caption: str


@dataclass
class NotDrawn:
    """One of several plots a function makes does not apply (a plot function may return a
    list of Plot and NotDrawn); the report lists it under "Not drawn" with the reason."""
    name: str
    reason: str


class PlotContext:
    def __init__(self, results, quantiles=stats.DEFAULT_QUANTILE_METHOD):
        self.results = results
        self.quantiles = quantiles
        self.policies = results.policies
        self.colors = policy_colors(self.policies)
        self.scenario = results.scenario
        self.summary = stats.comparison_table(results.runs, quantiles=quantiles)
        self.seeds = results.seeds

    def runs_of(self, policy):
        return [r for r in self.results.runs if r.policy == policy]

    def first_run(self, policy):
        runs = self.runs_of(policy)
        return runs[0] if runs else None

    def title(self, what, policies=None, seeds=None, width=TITLE_CHARS):
        pols = policies if policies is not None else self.policies
        seeds = seeds if seeds is not None else self.seeds
        if len(seeds) == 1:
            seed = "seed %s" % seeds[0]
        else:
            seed = "seeds %s" % ",".join(str(s) for s in seeds)
        return wrap_title("%s: %s — %s (%s)" % (self.scenario, what, " vs ".join(pols), seed),
                          width)

    def summary_row(self, policy):
        s = self.summary
        return s[s["policy"] == policy].iloc[0]


def _fmt(v, digits=3):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if abs(v) >= 1000:
        return "%.0f" % v
    return ("%." + str(digits) + "g") % v


def _port(frm, to):
    return "%s→%s" % (frm, to)


def _natural_key(text):
    import re

    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


def _share_x(axes, values):
    """The same x limits, min to max of `values` (µs), on every axes: one time axis shared by
    the policies' panels."""
    vals = [float(v) for v in values if v == v]
    if vals and max(vals) > min(vals):
        for ax in axes:
            ax.set_xlim(min(vals), max(vals))


def _left_out(policies, drawn, why):
    """A caption sentence naming the policies without a panel, and why; "" if none."""
    rest = [p for p in policies if p not in drawn]
    return " Not drawn: %s (%s)." % (", ".join(rest), why) if rest else ""
