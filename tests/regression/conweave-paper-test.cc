// ConWeave against ECMP on the paper's leaf-spine (scenarios/papers/conweave/README.md: the
// setup, the table over seeds 1-3 with 2 ms of arrivals, and the command that regenerates it).
// Song et al., "Network Load Balancing with In-network Reordering Support for RDMA",
// SIGCOMM 2023, report up to 42.3 % lower average and 66.8 % lower p99 FCT than ECMP. CI runs
// a shorter variant (the first 0.5 ms of arrivals, about 4,600 flows per run, seeds 1-3,
// lossless); the README gives its numbers beside the full runs'.

#include "run-helpers.h"

#include "scenario/scenario-toml.h"

#include <string>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

TEST_CASE("papers/conweave: ConWeave's mean and p99 FCT slowdown are below ECMP's on the 2:1 "
          "leaf-spine with AliStorage2019 flows",
          "[regression][conweave]")
{
    auto spec = tusk::LoadScenarioFile(std::string(TUSK_SOURCE_DIR) +
                                       "/scenarios/papers/conweave/alistorage-8x8-2to1.toml");
    REQUIRE(spec.background.size() == 1);
    spec.background[0].durationPs = 500'000'000; // 0.5 ms of arrivals (the README: 2 ms)
    double ecmpMean = 0;
    double ecmpP99 = 0;
    double cwMean = 0;
    double cwP99 = 0;
    for (uint64_t seed = 1; seed <= 3; ++seed)
    {
        INFO("seed " << seed);
        spec.seed = seed;
        spec.lb.policy = "ecmp";
        const auto e = Run(spec);
        spec.lb.policy = "conweave";
        const auto c = Run(spec);
        REQUIRE(e.finished);
        REQUIRE(c.finished);
        INFO("ECMP " << e.summary.meanSlowdown << " / " << e.summary.p99Slowdown << ", ConWeave "
                     << c.summary.meanSlowdown << " / " << c.summary.p99Slowdown);
        CHECK(c.summary.meanSlowdown < e.summary.meanSlowdown);
        CHECK(c.summary.p99Slowdown < e.summary.p99Slowdown);
        ecmpMean += e.summary.meanSlowdown / 3;
        ecmpP99 += e.summary.p99Slowdown / 3;
        cwMean += c.summary.meanSlowdown / 3;
        cwP99 += c.summary.p99Slowdown / 3;
    }
    INFO("over the seeds: ECMP " << ecmpMean << " / " << ecmpP99 << ", ConWeave " << cwMean
                                 << " / " << cwP99);
    // Measured (this variant, seeds 1-3): mean 0.875-0.912x ECMP's (0.894x over the seeds),
    // p99 0.644-0.798x (0.700x); the full 2 ms runs: mean 0.80x, p99 0.59x (README).
    CHECK(cwMean < 0.95 * ecmpMean);
    CHECK(cwP99 < 0.8 * ecmpP99);
    CHECK(cwMean > 0.5 * ecmpMean); // not more than the paper's best case, 42.3 % lower
}

TEST_CASE("papers/conweave: every baseline the paper plots, on its Meta Hadoop workload: "
          "ConWeave and CONGA below ECMP, LetFlow near it, DRILL far above from reordering",
          "[regression][conweave][conga][drill]")
{
    // The README's baselines table (run-baselines.sh: 1 ms of arrivals, seeds 1-3, both
    // workloads); here the first 0.5 ms of Hadoop arrivals, seeds 1-2, with the table's 500 us
    // retransmission timer (the artifact's NAK-again interval).
    auto spec = tusk::LoadScenarioFile(std::string(TUSK_SOURCE_DIR) +
                                       "/scenarios/papers/conweave/alistorage-8x8-2to1.toml");
    REQUIRE(spec.background.size() == 1);
    spec.background[0].durationPs = 500'000'000;
    spec.background[0].cdfFile =
        std::string(TUSK_SOURCE_DIR) + "/data/hpcc/FbHdp_distribution.txt";
    spec.nic.rtoPs = 500'000'000;
    for (uint64_t seed = 1; seed <= 2; ++seed)
    {
        INFO("seed " << seed);
        spec.seed = seed;
        auto run = [&](const char* policy) {
            spec.lb.policy = policy;
            auto r = Run(spec);
            REQUIRE(r.finished);
            return r.summary;
        };
        const auto e = run("ecmp");
        const auto conga = run("conga");
        const auto letflow = run("letflow");
        const auto drill = run("drill");
        const auto cw = run("conweave");
        INFO("mean / p99 slowdown: ECMP " << e.meanSlowdown << " / " << e.p99Slowdown
                                          << ", CONGA " << conga.meanSlowdown << " / "
                                          << conga.p99Slowdown << ", LetFlow "
                                          << letflow.meanSlowdown << " / " << letflow.p99Slowdown
                                          << ", DRILL " << drill.meanSlowdown << " / "
                                          << drill.p99Slowdown << ", ConWeave "
                                          << cw.meanSlowdown << " / " << cw.p99Slowdown);
        // Measured over 1 ms, seeds 1-3 (README): p99 / ECMP's 0.68 (ConWeave), 0.81 (CONGA),
        // 0.96 (LetFlow), 5.6 (DRILL).
        CHECK(cw.p99Slowdown < 0.9 * e.p99Slowdown);
        CHECK(conga.p99Slowdown < e.p99Slowdown);
        CHECK(cw.p99Slowdown <= 1.05 * conga.p99Slowdown);
        CHECK(letflow.meanSlowdown < 1.1 * e.meanSlowdown);
        // DRILL sprays per packet; go-back-N discards what arrives out of order and resends.
        CHECK(drill.meanSlowdown > 2 * e.meanSlowdown);
        CHECK(drill.oooPackets > 100 * (e.oooPackets + 1));
        CHECK(drill.retxPackets > drill.oooPackets / 2);
    }
}

} // namespace TUSK_TEST_FILE
