// Load-balancing oracle 9 on the packet-level fabric (docs/oracles.md). Long: run by CI under
// the ctest label "regression". Oracles 7 and 8 (ECMP collisions, QP scaling: means over 120-200
// seeds) are theory baselines of the regression suite regress/oracles.toml (`tusk regress`).

#include "run-helpers.h"

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

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
            // A reordered tail packet that go-back-N discarded, with no later packet to draw
            // a NAK, waits for the timer: 1 ms (the former default), not a deployed NIC's 67 ms.
            spec.nic.rtoPs = 1'000'000'000ULL;
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

} // namespace TUSK_TEST_FILE
