// Link failures and routing convergence: a ToR-aggregation link of a k = 4 fat tree fails
// mid-run. Switches next to it skip the dead port at once; switches further away keep sending
// towards it (and lose those frames) until routing converges and every table is recomputed
// over the links that are up ([fabric] reconvergence_us).

#include "run-helpers.h"

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

tusk::ScenarioSpec
FatTreeWithFailure(uint64_t reconvergencePs)
{
    tusk::ScenarioSpec s;
    s.name = "reconvergence";
    s.topology.kind = "fat-tree";
    s.topology.fatTree.k = 4;
    s.buffer.totalBytes = 32ULL << 20;
    s.nic.rtoPs = 50'000'000; // 50 us: losses are recovered quickly
    s.workload.kind = "flows";
    s.fabric.reconvergencePs = reconvergencePs;
    s.stopTimePs = 20'000'000'000ULL;
    s.requireFinish = false;
    // Every host of pod 0 sends to a host of pod 2 and back: traffic crosses tor0-agg0 both ways.
    for (uint32_t h = 0; h < 4; ++h)
    {
        AddFlow(s, h, 8 + h, 2'000'000);
        AddFlow(s, 8 + h, h, 2'000'000);
    }
    tusk::FailureEntry f;
    f.atPs = 20'000'000; // 20 us
    f.kind = "link_down";
    f.link = "tor0-agg0";
    s.failures.push_back(f);
    return s;
}

} // namespace

TEST_CASE("a failed ToR uplink: after routing converges every flow finishes", "[component][failures]")
{
    auto r = Run(FatTreeWithFailure(500'000'000)); // converge 500 us after the failure
    CHECK(r.finished);
    uint64_t linkDownDrops = 0;
    for (const auto& l : r.links)
    {
        linkDownDrops += l.drops[static_cast<int>(ns3::DropReason::LINK_DOWN)];
    }
    INFO("link-down drops " << linkDownDrops);
    CHECK(linkDownDrops > 0); // frames were lost to the dead link before convergence
    for (const auto& f : r.flows)
    {
        CHECK(f.deliveredBytes == f.bytes);
    }
}

TEST_CASE("a failed ToR uplink without routing convergence strands the flows hashed onto it",
          "[component][failures]")
{
    auto r = Run(FatTreeWithFailure(0)); // never converge: only local pruning
    CHECK_FALSE(r.finished);
}

TEST_CASE("UEC transports default their ECN thresholds to 0.2 and 0.8 BDP", "[component][uec]")
{
    // 4:1 incast over one switch at 100G, 1 us links: BDP = 100G x (2 x 2 x 1 us + 2 x 4158 B
    // / 100G) = 58 kB, so Kmin ~ 12 kB: the incast queue crosses it and frames get marked.
    // Explicit thresholds of 10 MB leave the same run unmarked.
    auto make = [](bool explicitThresholds) {
        auto s = LeafSpine(1, 1, 5, 100, 1000);
        s.nic.transport = "uec-rud";
        s.nic.rtoPs = 100'000'000;
        s.ecn.enabled = true;
        if (explicitThresholds)
        {
            s.ecn.fallback = tusk::EcnThresholds{10'000'000, 20'000'000, 0.2};
            s.ecn.thresholdsGiven = true;
        }
        for (uint32_t h = 0; h < 4; ++h)
        {
            AddFlow(s, h, 4, 1'000'000);
        }
        return s;
    };
    auto bdp = Run(make(false));
    auto big = Run(make(true));
    REQUIRE(bdp.finished);
    REQUIRE(big.finished);
    CHECK(bdp.summary.ecnMarks > 0);
    CHECK(big.summary.ecnMarks == 0);
}

} // namespace TUSK_TEST_FILE
