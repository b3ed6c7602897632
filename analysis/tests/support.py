"""Shared fixtures of the analysis tests: the tusk binary and a tiny run to report on."""

import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ANALYSIS = os.path.dirname(HERE)
REPO = os.path.dirname(ANALYSIS)

#: A 4-host leaf-spine ring all-reduce, sampled every µs: every plot of the report applies.
TINY_TOML = """\
name = "tiny"
seed = {seed}

[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 2
host_link_gbps = 100
fabric_link_gbps = 100
link_delay_ns = 500

[workload]
kind = "ring-allreduce"
bytes = "256KiB"
hosts = [0, 2, 1, 3]
channels = 2

[output]
sample_us = 1
"""

#: The plots a report of the tiny comparison must contain.
EXPECTED_PLOTS = ["fct_slowdown_cdf", "cct_busbw", "collective_steps_c0", "who_waited",
                  "straggler_path", "uplink_heatmap", "uplink_byte_share", "queue_timeline",
                  "retx_ooo"]


def tusk_bin():
    """The tusk binary: $TUSK_BIN (set by ctest), else build/bin/tusk of this repository."""
    path = os.environ.get("TUSK_BIN") or os.path.join(REPO, "build", "bin", "tusk")
    if not os.access(path, os.X_OK):
        raise RuntimeError("tusk binary not found at %s (set TUSK_BIN)" % path)
    return path


def run_tusk(*args, check=True):
    env = dict(os.environ)
    env["TUSK_ANALYSIS_DIR"] = ANALYSIS
    p = subprocess.run([tusk_bin()] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, env=env, timeout=600)
    if check and p.returncode != 0:
        raise AssertionError("tusk %s exited %d:\n%s" % (" ".join(args), p.returncode,
                                                         p.stdout))
    return p


def tiny_comparison(tmp, seed=1, policies="ecmp,spray", name="cmp"):
    """Run `tusk compare` on the tiny scenario into tmp/name; returns that directory."""
    toml = os.path.join(tmp, "tiny-s%d.toml" % seed)
    with open(toml, "w") as fh:
        fh.write(TINY_TOML.format(seed=seed))
    out = os.path.join(tmp, name)
    run_tusk("compare", toml, "--policies", policies, "--out", out, "-q")
    return out
