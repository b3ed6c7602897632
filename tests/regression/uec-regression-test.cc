// The UEC-style transport on htsim's 128-node permutation (scenarios/uec-permutation.toml and
// its degraded twin with 4 of 128 ToR uplinks at half rate): ECMP (one EV per QP), oblivious
// random spraying and REPS over RUD. Bands around the values measured at seed 1 (max FCT:
// 990 / 214 / 190 us intact; 990 / 422 / 244 us degraded), wide enough for model refinements,
// tight enough that a selector that stops adapting (REPS no better than oblivious) fails.

#include "run-helpers.h"

#include "scenario/scenario-toml.h"

#include <map>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

std::map<std::string, tusk::RunResult>
RunPolicies(const std::string& file)
{
    std::map<std::string, tusk::RunResult> out;
    for (const std::string policy : {"ecmp", "host-random-spray", "host-reps"})
    {
        auto spec =
            tusk::LoadScenarioFile(std::string(TUSK_SOURCE_DIR) + "/scenarios/" + file);
        spec.lb.policy = policy;
        out[policy] = Run(spec);
        REQUIRE(out[policy].finished);
    }
    return out;
}

} // namespace

TEST_CASE("uec-permutation: spraying over RUD beats ECMP, REPS beats oblivious spraying",
          "[regression][uec]")
{
    auto r = RunPolicies("uec-permutation.toml");
    const double ecmp = MaxFctUs(r["ecmp"]);
    const double obl = MaxFctUs(r["host-random-spray"]);
    const double reps = MaxFctUs(r["host-reps"]);
    INFO("max FCT us: ecmp " << ecmp << ", oblivious " << obl << ", REPS " << reps);
    CHECK(r["ecmp"].summary.oooPackets == 0);
    CHECK(r["host-reps"].summary.oooPackets > 0);
    CHECK(ecmp > 3 * obl);
    CHECK(reps < obl);
    CHECK(reps < 1.2 * 171); // within 20 % of the 2 MB flow's ideal FCT (171 us)
    CHECK(r["host-reps"].summary.retxPackets == 0);
}

TEST_CASE("uec-permutation-degraded: REPS avoids the slow uplinks, oblivious spraying does not",
          "[regression][uec][failures]")
{
    auto r = RunPolicies("uec-permutation-degraded.toml");
    const double ecmp = MaxFctUs(r["ecmp"]);
    const double obl = MaxFctUs(r["host-random-spray"]);
    const double reps = MaxFctUs(r["host-reps"]);
    INFO("max FCT us: ecmp " << ecmp << ", oblivious " << obl << ", REPS " << reps);
    CHECK(reps < 0.7 * obl);
    CHECK(obl < ecmp);
    CHECK(r["host-reps"].summary.retxPackets < r["host-random-spray"].summary.retxPackets);
}

} // namespace TUSK_TEST_FILE
