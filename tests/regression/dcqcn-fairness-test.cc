// DCQCN fairness (oracle 17, docs/oracles.md) as it holds: two long flows into one 100 Gb/s
// port with scenarios/dcqcn-fairness.toml's parameters share it fairly on average over 300 ms
// (each 50 +- 10 Gb/s of payload, Jain's index >= 0.97, together >= 95 Gb/s), although their
// split keeps wandering over shorter windows. Measured over seeds 1-10 (2026-12-03): whole-run
// rates 41.4-55.9 Gb/s, Jain 0.978-0.9996, together 97.3-97.8 Gb/s. Run here on seeds 2 and 3,
// the two whose first 10 ms are furthest from 50/50 (28/71 and 83/15 Gb/s).

#include "run-helpers.h"

#include "scenario/scenario-toml.h"

#include <string>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

TEST_CASE("DCQCN: two long flows share a 100G port fairly on average over 300 ms (oracle 17)",
          "[regression][dcqcn][oracle17]")
{
    for (const char* seed : {"2", "3"})
    {
        auto spec = tusk::LoadScenarioFile(
            std::string(TUSK_SOURCE_DIR) + "/scenarios/dcqcn-fairness.toml",
            {"seed=" + std::string(seed), "stop_time_ms=300",
             "workload.flows=[{src=0,dst=2,bytes=5000000000},{src=1,dst=2,bytes=5000000000}]"});
        const auto r = Run(spec);
        REQUIRE(r.flows.size() == 2);
        const double a = static_cast<double>(r.flows[0].deliveredBytes) * 8 / 0.3 / 1e9;
        const double b = static_cast<double>(r.flows[1].deliveredBytes) * 8 / 0.3 / 1e9;
        const double jain = (a + b) * (a + b) / (2 * (a * a + b * b));
        INFO("seed " << seed << ": " << a << " and " << b << " Gb/s, Jain " << jain);
        CHECK(a == Approx(50).margin(10));
        CHECK(b == Approx(50).margin(10));
        CHECK(jain >= 0.97);
        CHECK(a + b >= 95);
    }
}

} // namespace TUSK_TEST_FILE
