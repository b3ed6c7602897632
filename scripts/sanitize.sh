#!/usr/bin/env bash
# The sanitizer job of CI (called by scripts/test.sh; docs/testing.md):
#  1. build tusk with AddressSanitizer + UndefinedBehaviorSanitizer into build-asan/, with
#     clang-14: libFuzzer needs clang, so one instrumented build serves both the tests and
#     the fuzz targets (a second, gcc, build would double the CI time for no extra check);
#     the regression test binary, which this job does not run, is left out of its default
#     build (tests/CMakeLists.txt);
#  2. run the unit and component tests there, less the Python analysis tests and the
#     browser test of the fabric view (they test Python and JavaScript, and run in the main
#     build), and four long runs of code that shorter component tests also cover (ECMP vs
#     spray with go-back-N; the same all-reduce ten times, a determinism check; the
#     multi-plane folder's run.sh, 216 of the 833 test seconds left in the clean-clone run of
#     2026-12-05; fast mode's steady rule on CONGA's slower cycle, 60 iterations of the bench
#     job, 172 s of 503 on 2026-12-06, whose rule JudgePhase's unit tests and the shorter
#     steady-rule component tests exercise), and bench/locate's three runs through `tusk
#     sweep` (60 to 66 s each here on 2026-12-07; `tusk locate` and the sweep have component
#     tests of their own), kept within the CI budget;
#  3. replay every fuzz target's kept corpus and regressions, then fuzz each for a bounded time
#     (scripts/fuzz.sh; about 2 minutes in all on 2 cores).
# Any sanitizer report fails the job: UBSan findings abort (-fno-sanitize-recover), ASan and
# LeakSanitizer findings abort by default. ns-3 itself (Debian's libns3) is not instrumented;
# scripts/sanitizer/lsan.supp lists the only suppressions, each with its reason.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++-14 -DTUSK_SANITIZE=ON -DTUSK_FUZZ=ON "${launcher[@]}" >/dev/null
cmake --build build-asan -j "$(nproc)"

source scripts/sanitizer/env.sh
cd build-asan
# The unit tests in one process: through CTest each of ~160 cases would pay the sanitizer
# runtime's start and LeakSanitizer's exit scan (several times the tests' own time).
./bin/tusk-unit-tests
ctest --output-on-failure -j "$(nproc)" --timeout 900 -L component \
  -E 'analysis|in chromium|ECMP collides, spraying does not|issued 10 times on an idle fabric|scenarios/multi-plane: run.sh|agree inside a slower cycle|bench/locate (smoke|judges|writes)'
cd ..
bash scripts/fuzz.sh "${TUSK_FUZZ_SECONDS:-10}"
