// Oracle 5 (docs/oracles.md): a single flow of any size on an idle path has FCT slowdown 1
// within 1e-6 and delivers exactly its bytes; the 5 GiB case exercises 64-bit byte counters
// (5 GiB > 2^32 B). Ideal FCT: fabric/model/ideal-fct.h.

#include "run-helpers.h"

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

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

// htsim and the HPCC simulator stop a flow's clock when the last ACK reaches
// the sender; tusk's fct_us stops at the last byte at the receiver. fct_sender_us is the
// former: for a lone flow across the spine (4 links of 1 µs) it is fct_us plus the ACK's
// one-way trip: 4 x (1 µs + an 86 B wire frame at 100 Gb/s = 6.88 ns), no queueing.
TEST_CASE("lone flow: fct_sender is fct plus the last ACK's one-way trip", "[component][fct]")
{
    auto spec = LeafSpine(2, 2, 2);
    AddFlow(spec, 0, 3, 1'000'000);
    auto r = Run(spec);
    REQUIRE(r.finished);
    const auto& f = r.flows[0];
    REQUIRE(f.acknowledged);
    const double ackTripNs = 4 * (1000 + (62 + 4 + 20) * 8 / 100.0); // BTH+AETH frame + PHY
    CHECK((f.fctSenderPs - f.fctPs) / 1000.0 == Approx(ackTripNs).margin(1.0));
    CHECK(r.simEndPs == f.startPs + f.fctSenderPs); // the run ends at the last ACK
}

// The base RTT and BDP of each path class, the numbers FCT-slowdown papers
// normalise by, by hand for a 2 x 2 leaf-spine of 100 Gb/s, 1 µs links: an MTU packet is a
// 4178 B wire frame (4096 + 62 header + 20 PHY) = 334.24 ns per hop, its ACK 86 B = 6.88 ns.
TEST_CASE("path classes: base RTT and BDP by hand on a leaf-spine", "[component][fct]")
{
    auto spec = LeafSpine(2, 2, 2);
    AddFlow(spec, 0, 3, 1000);
    auto r = Run(spec);
    REQUIRE(r.pathClasses.size() == 2);
    const auto& leaf = r.pathClasses[0]; // host 0 -> host 1 through its leaf
    CHECK(leaf.links == 2);
    CHECK(leaf.dst == 1);
    CHECK(leaf.pairs == 1);
    CHECK(leaf.baseRttPs == 2 * (334'240 + 1'000'000) + 2 * (6'880 + 1'000'000));
    CHECK(leaf.bdpBytes == 58'528); // 4682.24 ns x 100 Gb/s / 8
    const auto& spine = r.pathClasses[1]; // across a spine
    CHECK(spine.links == 4);
    CHECK(spine.dst == 2);
    CHECK(spine.pairs == 2);
    CHECK(spine.baseRttPs == 4 * (334'240 + 1'000'000) + 4 * (6'880 + 1'000'000));
    CHECK(spine.bdpBytes == 117'056);
    // The lone flow's own ideal FCT is consistent: its one packet's one-way time.
    CHECK(r.flows[0].idealFctPs < spine.baseRttPs);
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

} // namespace TUSK_TEST_FILE
