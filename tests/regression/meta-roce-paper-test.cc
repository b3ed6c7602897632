// scenarios/papers/meta-roce/README.md in CI: E-ECMP with QP scaling against plain ECMP on a ring
// all-reduce over a 400 Gb/s leaf-spine with as many large flows per leaf as uplinks. Gangidi et
// al. (SIGCOMM 2024, section 5.1) report up to 40 % better AllReduce performance with E-ECMP and
// QP scaling than with ECMP; the README measures 1.10-1.60x busbw (mean 1.34x) with four QPs
// split per transfer. Reduced here: 4 MiB per rank instead of 8 (seeds 1-3: 1.41, 1.15, 1.06x;
// a smaller ring step is more latency than bandwidth, so the gain shrinks).

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
RunConfig(const std::string& policy, uint32_t qps, uint64_t seed)
{
    auto spec = tusk::LoadScenarioFile(std::string(TUSK_SOURCE_DIR) +
                                           "/scenarios/papers/meta-roce/ring-allreduce.toml",
                                       {"workload.bytes=4MiB", "lb.policy=" + policy,
                                        "nic.qps_per_connection=" + std::to_string(qps)});
    spec.seed = seed;
    auto r = Run(spec);
    REQUIRE(r.finished);
    return r;
}

} // namespace

TEST_CASE("Meta RoCE paper: E-ECMP with 4 QPs beats ECMP's all-reduce busbw, 4 QPs on one UDP "
          "port under plain ECMP do not (scenarios/papers/meta-roce/README.md)",
          "[regression][meta-roce]")
{
    double ratioSum = 0;
    for (uint64_t seed = 1; seed <= 3; ++seed)
    {
        INFO("seed " << seed);
        const auto ecmp = RunConfig("ecmp", 1, seed);
        const auto split = RunConfig("qp4-split", 4, seed);
        INFO("busbw GB/s: ecmp " << ecmp.summary.busbwGBps << ", E-ECMP + 4 QPs split "
                                 << split.summary.busbwGBps);
        // Each seed: more busbw, with a 3 % margin over run-to-run noise of one hash draw (the
        // README's seeds give 1.06-1.41x here; the paper: up to 1.40x).
        CHECK(split.summary.busbwGBps > 1.03 * ecmp.summary.busbwGBps);
        ratioSum += split.summary.busbwGBps / ecmp.summary.busbwGBps;
        CHECK(split.summary.uplinkImbalance < ecmp.summary.uplinkImbalance);
        if (seed == 1)
        {
            // The control: the 5-tuple cannot tell QPs on one UDP source port apart.
            const auto ecmp4 = RunConfig("ecmp", 4, seed);
            INFO("ecmp with 4 QPs on one port: " << ecmp4.summary.busbwGBps);
            CHECK(ecmp4.summary.busbwGBps == Approx(ecmp.summary.busbwGBps).epsilon(0.03));
        }
    }
    CHECK(ratioSum / 3 > 1.15);
}

} // namespace TUSK_TEST_FILE
