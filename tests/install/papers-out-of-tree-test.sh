#!/usr/bin/env bash
# A paper folder's run.sh from a copy outside the checkout, against an installed tusk
# (docs/sweeps.md, "Paper folders outside the checkout"): install this build into a scratch
# prefix, copy scenarios/papers/plb alone elsewhere, shrink its flows (a small size: 200 kB
# instead of 20 MB, so the 12 runs take seconds), put only P/bin on PATH and run run.sh: it
# finds tusk on PATH and the Python packages and sweep_table.py under P, and prints the
# tables. Then: the installed Python module and analysis package import from P; a missing
# pandas is one line naming Debian's python3-pandas, exit status 2; no tusk on PATH is one line,
# exit 2.
# Usage: papers-out-of-tree-test.sh SRC BUILD
set -euo pipefail
src=$1
build=$2
scratch=$build/test-scratch/papers-out-of-tree
rm -rf "$scratch"
mkdir -p "$scratch/elsewhere"
prefix=$scratch/prefix
fail() { echo "papers-out-of-tree-test: $*" >&2; exit 1; }
cmake --install "$build" --prefix "$prefix" > /dev/null
pydir=$prefix/lib/python3/dist-packages
test -f "$pydir/tusk_analysis/__init__.py" || fail "analysis package not installed"
test -f "$pydir/tusk_analysis/fabric_view.js" || fail "fabric_view.js not installed"
test -f "$pydir/tusk/__init__.py" || fail "python module not installed"
test -f "$prefix/share/tusk/papers/sweeps.sh" || fail "sweeps.sh not installed"

cp -r "$src/scenarios/papers/plb" "$scratch/elsewhere/"
sed -i 's/bytes = 20000000/bytes = 200000/' "$scratch/elsewhere/plb/elephants.toml"
cd "$scratch/elsewhere"
# Nothing of the checkout on the way: PATH has the prefix's bin and the system's.
export PATH="$prefix/bin:/usr/bin:/bin"
unset PYTHONPATH TUSK TUSK_ANALYSIS_DIR
bash plb/run.sh out -j 2 > table.md
grep -q '^## congestion control: dctcp' table.md || fail "no dctcp table: $(cat table.md)"
grep -q '^| `host-plb` ' table.md || fail "no host-plb row: $(cat table.md)"
test -f out/papers-plb/sweep.csv

# The installed packages, from the prefix.
PYTHONPATH=$pydir /usr/bin/python3 - "$pydir" <<'PY'
import sys
import tusk, tusk_analysis
for m in (tusk, tusk_analysis):
    assert m.__file__.startswith(sys.argv[1]), m.__file__
r = tusk_analysis.load_sweep("out/papers-plb")
assert len(r.summary) == 12, len(r.summary)
PY

# A missing pandas: one line naming the Debian package, exit 2 (the runs are done: skipped).
mkdir -p nopandas/pandas
echo 'raise ImportError("No module named pandas")' > nopandas/pandas/__init__.py
rc=0
PYTHONPATH=$PWD/nopandas bash plb/run.sh out -j 2 > /dev/null 2> err.log || rc=$?
[ "$rc" = 2 ] || fail "missing pandas: exit $rc, not 2: $(cat err.log)"
# (the sweep's own lines may come first: the message is the last line, and no traceback)
tail -n 1 err.log | grep -q "missing .*install Debian's python3-pandas" ||
    fail "missing pandas: no one-line message naming python3-pandas: $(cat err.log)"
! grep -q Traceback err.log || fail "missing pandas: a traceback: $(cat err.log)"

# No tusk on PATH: one line, exit 2.
rc=0
PATH=/usr/bin:/bin bash plb/run.sh out > /dev/null 2> err.log || rc=$?
[ "$rc" = 2 ] || fail "no tusk: exit $rc, not 2: $(cat err.log)"
grep -q "no .*tusk" err.log || fail "no tusk: $(cat err.log)"
echo "papers-out-of-tree-test: ok"
