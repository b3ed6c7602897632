// Switch adaptive routing per packet (`ar`) against its flowlet mode (`flowlet-ar`) over
// go-back-N RoCE on a k = 4 fat tree: a permutation of 2 MB flows between all 16 hosts.

#include "run-helpers.h"

using namespace tusk_test;

TEST_CASE("flowlet-mode AR places flows without reordering, per-packet AR collapses under "
          "go-back-N",
          "[component][ar][flowlet]")
{
    // Measured, seeds 1-3: ar 90-140 k retransmitted packets and mean slowdown 12-19;
    // flowlet-ar 0 retransmissions, mean slowdown 1.4-1.9, its ToR uplinks within 15 % of
    // each other (ECMP: up to 1.7x the mean, slowdown 1.6-1.9).
    tusk::ScenarioSpec s = FatTree(4);
    s.workload.kind = "permutation";
    s.workload.bytes = 2'000'000;
    s.nic.receiver = "go-back-n";
    for (uint64_t seed = 1; seed <= 3; ++seed)
    {
        INFO("seed " << seed);
        s.seed = seed;
        s.lb.policy = "ar";
        const auto ar = Run(s);
        s.lb.policy = "flowlet-ar";
        const auto fl = Run(s);
        REQUIRE(ar.finished);
        REQUIRE(fl.finished);
        CHECK(ar.summary.retxPackets > 50'000);
        CHECK(fl.summary.retxPackets == 0);
        CHECK(fl.summary.oooPackets == 0);
        CHECK(fl.summary.meanSlowdown < 0.2 * ar.summary.meanSlowdown);
        CHECK(fl.summary.uplinkImbalance < 1.25);
    }
}
