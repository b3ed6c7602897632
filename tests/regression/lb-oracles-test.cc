// Load-balancing oracles on the packet-level fabric, with enough seeds for +-5 %
// (shared/oracles.md 7, 8 and 9). Long: run by CI under the ctest label "regression".
//
// Setup of oracles 7 and 8: N long flows (2 MB) from N hosts of leaf A to N hosts of leaf B
// over M spines at 100 Gb/s, flow-hash ECMP with random entropy. Buffers are deep (64 MiB)
// and PFC is off, so nothing is dropped or paused: a spine link carrying L of the flows' QPs
// is the bottleneck of those flows, and the collective completes when the most loaded
// spine has drained: CCT / ideal = E[max load] / q, the balls-into-bins expectation
// (Monte Carlo: 2.597 for 8 into 8, 3.076 for 16 into 16; 16, 32, 64, 128 balls into 8,
// divided by q = 2, 4, 8, 16: 2.100, 1.762, 1.529, 1.371). PFC would add head-of-line
// blocking at the senders, a different effect.

#include "run-helpers.h"

#include "stats.h"

using namespace tusk_test;

namespace
{

tusk::ScenarioSpec
LeafToLeaf(uint32_t n, uint32_t spines, uint64_t seed)
{
    auto spec = LeafSpine(2, spines, n, 100);
    spec.seed = seed;
    spec.pfc.enabled = false;
    for (uint32_t i = 0; i < n; ++i)
    {
        AddFlow(spec, i, n + i, 2'000'000);
    }
    return spec;
}

double
CompletionOverIdeal(const tusk::RunResult& r)
{
    uint64_t last = 0;
    uint64_t ideal = 0;
    for (const auto& f : r.flows)
    {
        last = std::max(last, f.finishPs);
        ideal = std::max(ideal, f.idealFctPs);
    }
    return static_cast<double>(last) / static_cast<double>(ideal);
}

/** Mean over `seeds` seeds of CCT / ideal. */
double
MeanCompletion(uint32_t n, uint32_t spines, uint32_t qps, int seeds)
{
    std::vector<double> v;
    for (int seed = 1; seed <= seeds; ++seed)
    {
        auto spec = LeafToLeaf(n, spines, seed);
        spec.nic.qpsPerConnection = qps;
        auto r = Run(spec);
        REQUIRE(r.finished);
        REQUIRE(r.summary.drops == 0);
        REQUIRE(r.summary.oooPackets == 0);
        v.push_back(CompletionOverIdeal(r));
    }
    return tusk::Mean(v);
}

} // namespace

TEST_CASE("ECMP collisions: mean CCT / ideal 2.60 for N = M = 8, 3.08 for N = M = 16 (oracle 7)",
          "[regression][oracle7]")
{
    // sd of max load over seeds: 0.65 (8 into 8), 0.75 (16 into 16); 200 seeds give a
    // standard error of about 1.8 % of the mean, so +-5 % is 2.8 standard errors.
    const double m8 = MeanCompletion(8, 8, 1, 200);
    INFO("N = M = 8: " << m8);
    CHECK(m8 == Approx(2.60).epsilon(0.05));
    const double m16 = MeanCompletion(16, 16, 1, 200);
    INFO("N = M = 16: " << m16);
    CHECK(m16 == Approx(3.08).epsilon(0.05));
}

TEST_CASE("QP scaling (E-ECMP): 2.10, 1.76, 1.53, 1.37 for q = 2, 4, 8, 16 (oracle 8)",
          "[regression][oracle8]")
{
    // Each flow split over q QPs with distinct random entropy (Meta, SIGCOMM 2024, section
    // 5.1). The spread of max load / q shrinks with q; 120 seeds per q.
    const std::vector<std::pair<uint32_t, double>> expected = {
        {2, 2.10}, {4, 1.76}, {8, 1.53}, {16, 1.37}};
    for (const auto& [q, value] : expected)
    {
        const double m = MeanCompletion(8, 8, q, 120);
        INFO("q = " << q << ": " << m);
        CHECK(m == Approx(value).epsilon(0.05));
    }
}

TEST_CASE("random per-packet spraying with a reorder-tolerant receiver: slowdown <= 1.05, "
          "with go-back-N it NAKs and resends (oracle 9)",
          "[regression][oracle9]")
{
    // Random spraying at every switch (Dixit et al., INFOCOM 2013): each uplink gets a
    // binomial share of the packets, so the most loaded of 8 exceeds the mean by about
    // 2 sd = 2 sqrt(n 7/64) packets for n packets in all; that is 8.6 % for 8 x 2 MB but 2 %
    // for 8 x 32 MB, the flows used here. Queues then differ by tens of microseconds, so the
    // selective-repeat receiver's RACK window is set to 200 us (no spurious resends).
    for (uint64_t seed : {1, 2, 3})
    {
        INFO("seed " << seed);
        auto spec = LeafSpine(2, 8, 8, 100);
        spec.seed = seed;
        spec.lb.policy = "spray";
        spec.nic.receiver = "selective-repeat";
        spec.ns3Defaults["ns3::SelectiveRepeatRecovery::ReorderWindow"] = "200us";
        for (uint32_t i = 0; i < 8; ++i)
        {
            AddFlow(spec, i, 8 + i, 32'000'000);
        }
        auto r = Run(spec);
        REQUIRE(r.finished);
        CHECK(r.summary.maxSlowdown <= 1.05);
        CHECK(r.summary.oooPackets > 0);
        CHECK(r.summary.spuriousRetx == 0);
        if (seed == 1)
        {
            // Go-back-N on the same spraying: every reordering is a NAK and a resend.
            spec.nic.receiver = "go-back-n";
            for (auto& f : spec.workload.flows)
            {
                f.bytes = 2'000'000;
            }
            auto g = Run(spec);
            REQUIRE(g.finished);
            CHECK(g.summary.naks > 0);
            CHECK(g.summary.retxPackets > 0);
            CHECK(g.summary.maxSlowdown > 2);
        }
    }
}
