# Sourced by the run.sh of scenarios/papers/*/ (bash): the command line of a run.sh is
#   run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
# In a checkout: RESULTS_ROOT defaults to results/ of the repository, TUSK to its build/bin/tusk,
# and the tables import the checkout's analysis/. A paper folder copied out of the checkout runs
# against an installed tusk (cmake --install BUILD --prefix P, docs/sweeps.md): TUSK defaults to
# the `tusk` on PATH, the Python packages come from P/lib/python3/dist-packages and this file
# and sweep_table.py from P/share/tusk/papers; RESULTS_ROOT defaults to ./results.
# papers_sweep FILE runs a sweep file of the folder into RESULTS_ROOT/<its name>; runs with
# complete results are skipped, so an interrupted run.sh resumes (after changing the simulator:
# --force). The tables need Debian's python3-pandas and python3-scipy (scripts/install-deps.sh);
# a missing one is named, exit status 2.
papers_here="$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)"
papers_lib="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)" # this file and sweep_table.py
papers_repo="$(cd "$papers_here/../../.." && pwd)"
if [[ $papers_lib == "$papers_repo/scenarios/papers" && -d $papers_repo/analysis/tusk_analysis ]]; then
    TUSK="$(realpath -m "${TUSK:-$papers_repo/build/bin/tusk}")"
    papers_python="$papers_repo/analysis"
    papers_root="$papers_repo/results"
else
    if [[ -z ${TUSK:-} ]] && ! TUSK="$(command -v tusk)"; then
        echo "run.sh: no tusk on PATH: install it (cmake --install BUILD --prefix P) and put" \
            "P/bin on PATH, or set TUSK" >&2
        exit 2
    fi
    TUSK="$(realpath -m "$TUSK")"
    papers_python="$(dirname "$(dirname "$TUSK")")/lib/python3/dist-packages"
    papers_repo="$PWD"
    papers_root="$PWD/results"
fi
export PYTHONPATH="$papers_lib:$papers_python${PYTHONPATH:+:$PYTHONPATH}"
if [[ $# -gt 0 && $1 != -* ]]; then
    papers_root="$(realpath -m "$1")" # relative to where run.sh was called from
    shift
fi
papers_sweep_args=("$@")
cd "$papers_repo"

papers_sweep() {
    local name
    name="$(sed -n 's/^name = "\(.*\)"/\1/p' "$papers_here/$1" | head -n 1)"
    "$TUSK" sweep "$papers_here/$1" --out "$papers_root/$name" -q "${papers_sweep_args[@]}" >&2
}

# papers_readme_tables BEGIN END FILE: replace what README.md of the folder has between the
# marker lines BEGIN and END with the text of FILE (a blank line on each side); no markers is
# an error naming them, exit status 1.
papers_readme_tables() {
    /usr/bin/python3 - "$papers_here/README.md" "$1" "$2" "$3" <<'PY'
import sys
readme, begin, end, tables = sys.argv[1], sys.argv[2], sys.argv[3], open(sys.argv[4]).read()
text = open(readme).read()
if begin not in text or end not in text:
    sys.exit(f"run.sh: {readme}: no table markers ({begin} ... {end})")
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(readme, "w").write(head + begin + "\n\n" + tables.rstrip("\n") + "\n\n" + end + tail)
PY
}
