// scenarios/papers/plb/README.md in CI (Qureshi et al., "PLB: Congestion Signals are Simple and
// Effective for Network Load Balancing", SIGCOMM 2022: the median utilisation imbalance of busy
// switches fell by 60 % in Google's fleet). On 8 elephants over 8 spines with ECN marking and no
// end-host congestion control, the README measures PLB's uplink imbalance at 0.32-0.70x ECMP's
// (mean 0.56x) over seeds 1-3. The scenario as it is (it takes a second per run).

#include "run-helpers.h"

#include "scenario/scenario-toml.h"

#include <string>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

TEST_CASE("PLB paper: repathing on ECN cuts the uplink imbalance of colliding elephants "
          "(scenarios/papers/plb/README.md)",
          "[regression][plb]")
{
    auto spec = tusk::LoadScenarioFile(std::string(TUSK_SOURCE_DIR) +
                                           "/scenarios/papers/plb/elephants.toml",
                                       {"nic.congestion_control=none"});
    double ecmpSum = 0;
    double plbSum = 0;
    for (uint64_t seed = 1; seed <= 3; ++seed)
    {
        INFO("seed " << seed);
        spec.seed = seed;
        spec.lb.policy = "ecmp";
        const auto e = Run(spec);
        spec.lb.policy = "host-plb";
        const auto p = Run(spec);
        REQUIRE(e.finished);
        REQUIRE(p.finished);
        INFO("uplink imbalance: ECMP " << e.summary.uplinkImbalance << ", PLB "
                                       << p.summary.uplinkImbalance);
        CHECK(p.summary.uplinkImbalance < 0.8 * e.summary.uplinkImbalance);
        CHECK(p.summary.oooPackets > 0); // it did repath mid-flow
        ecmpSum += e.summary.uplinkImbalance;
        plbSum += p.summary.uplinkImbalance;
    }
    CHECK(plbSum < 0.6 * ecmpSum);
}

} // namespace TUSK_TEST_FILE
