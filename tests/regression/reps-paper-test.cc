// scenarios/papers/reps/README.md in CI (Bonato et al., "REPS: Recycled Entropy Packet
// Spraying", arXiv 2407.21625): on a permutation REPS matches oblivious packet spraying (OPS) and
// both beat ECMP; after a link failure REPS steers away from the dead path, OPS keeps spraying
// into it. The README measures, seeds 1-3: permutation completion 0.35x ECMP's for both; after
// the failure REPS sends 2.4x fewer bytes to the dead spine than OPS and finishes in 1.01 ms
// against OPS's 1.51 and ECMP's 1.35. Both scenarios as they are, seed 1.

#include "run-helpers.h"

#include "scenario/scenario-toml.h"

#include <string>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

tusk::RunResult
RunReps(const std::string& file, const std::string& policy)
{
    auto spec = tusk::LoadScenarioFile(std::string(TUSK_SOURCE_DIR) + "/scenarios/papers/reps/" +
                                       file);
    spec.seed = 1;
    spec.lb.policy = policy;
    auto r = Run(spec);
    REQUIRE(r.finished);
    return r;
}

struct Runs
{
    tusk::RunResult ecmp, ops, reps;
};

/** The file with ECMP, oblivious packet spraying (host-spray) and REPS (host-reps), seed 1. */
Runs
RunAll(const std::string& file)
{
    return {RunReps(file, "ecmp"), RunReps(file, "host-spray"), RunReps(file, "host-reps")};
}

/** Frame bytes leaf0 sent to spine1 from the failure (100 us) to routing's reconvergence. */
double
DeadPathBytes(const tusk::RunResult& r)
{
    const auto& ts = r.timeSeries;
    REQUIRE(ts.intervalPs > 0);
    double bytes = 0;
    for (const auto& row : ts.rows)
    {
        const auto& port = ts.ports[row.port];
        const double t = row.timePs * 1e-6;
        if (port.from == "leaf0" && port.to == "spine1" && t > 100 && t <= 1100)
        {
            bytes += static_cast<double>(row.txBytes);
        }
    }
    return bytes;
}

} // namespace

TEST_CASE("REPS paper, permutation: REPS as fast as oblivious spraying, both far ahead of ECMP "
          "(scenarios/papers/reps/README.md)",
          "[regression][reps]")
{
    const auto [ecmp, ops, reps] = RunAll("permutation.toml");
    INFO("completion us: ECMP " << ecmp.summary.maxFctUs << ", OPS " << ops.summary.maxFctUs
                                << ", REPS " << reps.summary.maxFctUs);
    CHECK(reps.summary.maxFctUs == Approx(ops.summary.maxFctUs).epsilon(0.1));
    CHECK(reps.summary.maxFctUs < 0.6 * ecmp.summary.maxFctUs);
    CHECK(ops.summary.maxFctUs < 0.6 * ecmp.summary.maxFctUs);
}

TEST_CASE("REPS paper, link failure: REPS sends far less into the dead path than oblivious "
          "spraying and finishes first (scenarios/papers/reps/README.md)",
          "[regression][reps][failures]")
{
    const auto [ecmp, ops, reps] = RunAll("failure.toml");
    INFO("bytes to the dead spine: OPS " << DeadPathBytes(ops) << ", REPS " << DeadPathBytes(reps)
                                         << "; completion us: ECMP " << ecmp.summary.maxFctUs
                                         << ", OPS " << ops.summary.maxFctUs << ", REPS "
                                         << reps.summary.maxFctUs);
    CHECK(DeadPathBytes(reps) < 0.5 * DeadPathBytes(ops));
    CHECK(reps.summary.maxFctUs < 0.9 * ops.summary.maxFctUs);
    CHECK(reps.summary.maxFctUs < 0.9 * ecmp.summary.maxFctUs);
}

} // namespace TUSK_TEST_FILE
