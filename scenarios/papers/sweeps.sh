# Sourced by the run.sh of scenarios/papers/*/ (bash): the command line of a run.sh is
#   run.sh [RESULTS_ROOT] [tusk sweep options, e.g. -j 1 or --force]
# (default root: results/ of the repository; TUSK= the binary, default build/bin/tusk).
# papers_sweep FILE runs a sweep file of the folder into RESULTS_ROOT/<its name>; runs with
# complete results are skipped, so an interrupted run.sh resumes (after changing the simulator:
# --force). The tables need Debian's python3-pandas and python3-scipy (scripts/install-deps.sh).
papers_here="$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)"
papers_repo="$(cd "$papers_here/../../.." && pwd)"
TUSK="$(realpath -m "${TUSK:-$papers_repo/build/bin/tusk}")"
papers_root="$papers_repo/results"
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
