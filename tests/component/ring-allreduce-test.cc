// Oracles 1, 3 and 4 (docs/oracles.md) on a non-blocking fabric: ring all-reduce CCT against
// 2(n-1)/n * S / B (nccl-tests doc/PERFORMANCE.md), its bandwidth and latency sensitivity.

#include "run-helpers.h"

#include "workload/model/traffic-generators.h"

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

/** 8 ranks on one leaf of a 1x1 leaf-spine: every ring hop is NIC -> leaf -> NIC. */
tusk::ScenarioSpec
Ring8(uint64_t bytes, uint64_t gbps, uint64_t delayNs = 1000)
{
    auto spec = LeafSpine(1, 1, 8, gbps, delayNs);
    spec.workload.kind = "ring-allreduce";
    spec.workload.bytes = bytes;
    spec.workload.channels = 1;
    return spec;
}

} // namespace

TEST_CASE("ring all-reduce on a non-blocking fabric meets the bus bandwidth bound (oracle 1)",
          "[component][oracle1]")
{
    // S = 64 MiB keeps the test fast; the 1 GiB case of the oracle is a regression test.
    const uint64_t S = 64ULL << 20;
    auto r = Run(Ring8(S, 400));
    REQUIRE(r.finished);
    REQUIRE(r.collectives.size() == 1);
    const auto& c = r.collectives[0];
    const double bound = ns3::RingAllReduceLowerBoundSeconds(8, S, 400e9);
    const double cct = c.cctPs * 1e-12;
    // Never faster than the bound (oracle 3, second sentence) ...
    CHECK(cct >= bound);
    // ... and equal, within 1 %, to the bound inflated by what the wire carries besides payload
    // (62 B of RoCEv2 headers and 20 B of PHY overhead per 4096 B packet, and the 66 + 20 B ACK
    // the NIC sends for every packet it receives, sharing its uplink), plus 14 sequential steps
    // of one store-and-forward hop of latency (oracle 4): 2 links x 1 us + 2 x 4178 B at 400G.
    const double overhead = (4096.0 + 62 + 20 + (66 + 20) / 1.0) / 4096.0;
    const double perStep = 2 * 1e-6 + 2 * (4096 + 82) * 8 / 400e9;
    CHECK(cct == Approx(bound * overhead + 14 * perStep).epsilon(0.01));
    // busbw = algbw * 2(n-1)/n exactly (oracle 2).
    CHECK(c.busbwGBps == Approx(c.algbwGBps * 2.0 * 7 / 8).epsilon(1e-12));
    CHECK(c.stepEndPs.size() == 14);
}

TEST_CASE("halving every link rate doubles the ring all-reduce CCT (oracle 3)", "[component][oracle3]")
{
    const uint64_t S = 32ULL << 20;
    auto full = Run(Ring8(S, 400, 100));
    auto half = Run(Ring8(S, 200, 100));
    REQUIRE(full.finished);
    REQUIRE(half.finished);
    const double ratio =
        static_cast<double>(half.collectives[0].cctPs) / static_cast<double>(full.collectives[0].cctPs);
    CHECK(ratio == Approx(2.0).epsilon(0.05));
}

TEST_CASE("raising hop latency adds about 2(n-1) * hops * delta to the CCT (oracle 4)",
          "[component][oracle4]")
{
    const uint64_t S = 8ULL << 20;
    auto base = Run(Ring8(S, 400, 1000));
    auto slow = Run(Ring8(S, 400, 3000)); // delta = 2 us per link
    REQUIRE(base.finished);
    REQUIRE(slow.finished);
    const double added = (static_cast<double>(slow.collectives[0].cctPs) -
                          static_cast<double>(base.collectives[0].cctPs)) *
                         1e-12;
    const double expected = 2 * 7 * 2 /*links per ring hop*/ * 2e-6;
    CHECK(added == Approx(expected).epsilon(0.10));
}

} // namespace TUSK_TEST_FILE
