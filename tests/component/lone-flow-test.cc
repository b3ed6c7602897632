// Oracle 5 (shared/oracles.md): a single flow of any size on an idle path has FCT slowdown 1
// within 1e-6 and delivers exactly its bytes; the 5 GiB case exercises 64-bit byte counters
// (5 GiB > 2^32 B). Ideal FCT: fabric/model/ideal-fct.h.

#include "run-helpers.h"

using namespace tusk_test;

TEST_CASE("lone flow: slowdown is 1 and bytes are exact (oracle 5)", "[component][oracle5]")
{
    const uint64_t size = GENERATE(1ULL, 999ULL, 1001ULL, 4097ULL, 10'000'000ULL);
    auto spec = LeafSpine(2, 2, 2);
    AddFlow(spec, 0, 3, size); // across the spine: 4 links
    auto r = Run(spec);
    REQUIRE(r.finished);
    REQUIRE(r.flows.size() == 1);
    const auto& f = r.flows[0];
    CHECK(f.deliveredBytes == size);
    CHECK(f.retxPackets == 0);
    CHECK(f.slowdown == Approx(1.0).epsilon(1e-6));
    CHECK(f.slowdown >= 1.0 - 1e-12);
}

TEST_CASE("lone flow with switch latency and mixed rates: slowdown is 1", "[component][oracle5]")
{
    auto spec = LeafSpine(2, 2, 1, 100);
    spec.topology.leafSpine.fabricRateBps = 40'000'000'000ULL; // 40 Gb/s core: a bottleneck
    spec.topology.leafSpine.switchLatencyPs = 450'000;           // 450 ns per switch
    AddFlow(spec, 0, 1, 3'000'001);
    auto r = Run(spec);
    REQUIRE(r.finished);
    CHECK(r.flows[0].deliveredBytes == 3'000'001);
    CHECK(r.flows[0].slowdown == Approx(1.0).epsilon(1e-6));
}

TEST_CASE("lone 5 GiB flow: 64-bit counters, exact bytes, slowdown 1 (oracle 5)",
          "[component][oracle5][slow]")
{
    const uint64_t size = 5ULL << 30;
    auto spec = LeafSpine(1, 1, 2, 400);
    spec.nic.ackInterval = 64; // fewer ACK events; the last packet is always acknowledged
    AddFlow(spec, 0, 1, size);
    auto r = Run(spec);
    REQUIRE(r.finished);
    CHECK(r.flows[0].deliveredBytes == size);
    CHECK(r.flows[0].slowdown == Approx(1.0).epsilon(1e-6));
    CHECK(r.conservation.sent > (size / 4096)); // > 1.3 M frames went through
}

TEST_CASE("busiest-window utilisation never exceeds line rate, a saturated link reaches it",
          "[component][utilisation]")
{
    // 1 Gb/s links: a 4178 B frame lasts 33 us, longer than the 10 us window, so whole-frame
    // accounting would credit one window with 3.3x its capacity.
    auto spec = LeafSpine(1, 1, 2, 1, 1000);
    AddFlow(spec, 0, 1, 2'000'000);
    auto r = Run(spec);
    REQUIRE(r.finished);
    for (const auto& l : r.links)
    {
        INFO(l.from << " -> " << l.to);
        CHECK(l.maxUtilisation <= 1.0 + 1e-9);
        if (l.from == "host0")
        {
            CHECK(l.maxUtilisation > 0.999); // back-to-back frames fill whole windows
        }
    }
}

TEST_CASE("lone flow split over 7 QPs: the ideal follows the NIC's round-robin, slowdown 1",
          "[component][oracle5]")
{
    // A transfer split into 7 messages is sent as 7 interleaved packet streams whose last
    // packets are short: the ideal of one 100 kB message would be slightly larger or smaller.
    const uint64_t size = GENERATE(4097ULL, 100'000ULL, 1'000'003ULL);
    auto spec = LeafSpine(2, 2, 2);
    spec.nic.qpsPerConnection = 7;
    AddFlow(spec, 0, 3, size);
    auto r = Run(spec);
    REQUIRE(r.finished);
    CHECK(r.flows[0].qps == std::min<uint64_t>(7, size));
    CHECK(r.flows[0].deliveredBytes == size);
    CHECK(r.flows[0].slowdown == Approx(1.0).epsilon(1e-6));
}
