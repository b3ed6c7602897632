// Max-min fair rates by progressive filling and the collective-aware ideal FCT
// (docs/analysis.md, "Collective-aware slowdown"), against hand-computed fair shares.

#include "fabric/helper/fair-share-ideal.h"
#include "fabric/helper/topology-builders.h"
#include "fabric/model/fair-share.h"

#include <catch2/catch.hpp>

#include <cmath>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

TEST_CASE("max-min fair rates: the textbook cases", "[fair-share]")
{
    SECTION("two flows on one link get half each")
    {
        const auto r = MaxMinFairRates({{{0, 1.0}}, {{0, 1.0}}}, {100.0});
        CHECK(r[0] == Approx(50.0));
        CHECK(r[1] == Approx(50.0));
    }
    SECTION("a long flow and two short ones (Bertsekas & Gallager, Data Networks, 6.5.2)")
    {
        // Flow 0 crosses links 0 and 1, flow 1 only link 0, flow 2 only link 1; link 1 is
        // twice as fast: link 0 fills at 1/2 each, then flow 2 takes the rest of link 1.
        const auto r = MaxMinFairRates({{{0, 1.0}, {1, 1.0}}, {{0, 1.0}}, {{1, 1.0}}}, {1.0, 2.0});
        CHECK(r[0] == Approx(0.5));
        CHECK(r[1] == Approx(0.5));
        CHECK(r[2] == Approx(1.5));
    }
    SECTION("a flow split over two links is limited by the sum of its shares")
    {
        // Flow 0 puts half its rate on each of links 0 and 1; flow 1 is alone on link 1.
        // Level t: link 1 carries t/2 + t = 1 -> t = 2/3, then flow 0 alone on link 0 is
        // frozen with it (link 1 full): both 2/3.
        const auto r = MaxMinFairRates({{{0, 0.5}, {1, 0.5}}, {{1, 1.0}}}, {1.0, 1.0});
        CHECK(r[0] == Approx(2.0 / 3));
        CHECK(r[1] == Approx(2.0 / 3));
    }
    SECTION("bad input")
    {
        CHECK_THROWS_AS(MaxMinFairRates({{{3, 1.0}}}, {1.0}), std::invalid_argument);
        CHECK_THROWS_AS(MaxMinFairRates({{{0, 1.5}}}, {1.0}), std::invalid_argument);
        CHECK(std::isinf(MaxMinFairRates({{}}, {1.0})[0]));
    }
}

namespace
{

struct Built
{
    TopologyGraph g;
    EqualCostTable routes;
    std::vector<std::vector<uint32_t>> ports;
};

Built
LeafSpine(uint32_t leaves, uint32_t spines, uint32_t hostsPerLeaf)
{
    LeafSpineParams p;
    p.leaves = leaves;
    p.spines = spines;
    p.hostsPerLeaf = hostsPerLeaf;
    p.hostRateBps = 100'000'000'000ULL;
    p.fabricRateBps = 100'000'000'000ULL;
    Built b{BuildLeafSpine(p), {}, {}};
    b.routes = ComputeEqualCostPorts(b.g);
    b.ports = IncidentLinks(b.g);
    return b;
}

/** The rate FairShareIdealPs gave transfer t: wire bits / (fair - ideal + wire bits / alone). */
double
ExtraPs(double wireBytes, double fairBps, double aloneBps)
{
    return 8 * wireBytes * (1 / fairBps - 1 / aloneBps) * 1e12;
}

} // namespace

TEST_CASE("equal-split link shares on a leaf-spine", "[fair-share]")
{
    const Built b = LeafSpine(2, 4, 2);
    // Host 0 (leaf 0) to host 2 (leaf 1): host link, 4 uplinks at 1/4, 4 downlinks at 1/4,
    // the receiver's link.
    const auto use = EqualSplitLinkShares(b.g, b.routes, b.ports, 0, 2);
    REQUIRE(use.size() == 10);
    double total = 0;
    for (const auto& u : use)
    {
        total += u.share;
    }
    CHECK(total == Approx(4.0)); // 1 + 4 x 1/4 + 4 x 1/4 + 1
    // Same leaf: the two host links only.
    CHECK(EqualSplitLinkShares(b.g, b.routes, b.ports, 0, 1).size() == 2);
}

TEST_CASE("equal-split link shares on a 4-plane leaf-spine: a quarter per plane",
          "[fair-share][planes]")
{
    LeafSpineParams p;
    p.leaves = 2;
    p.spines = 2;
    p.hostsPerLeaf = 2;
    p.hostRateBps = 400'000'000'000ULL;
    p.fabricRateBps = 100'000'000'000ULL;
    p.planes = 4;
    const TopologyGraph g = BuildLeafSpine(p);
    const auto routes = ComputeEqualCostPorts(g);
    const auto ports = IncidentLinks(g);
    // Host 0 to host 2 (other leaf): in each of the 4 planes its host link at 1/4, 2 uplinks
    // and 2 downlinks at 1/8, the receiver's link at 1/4. Once only plane 0 carried it all.
    const auto use = EqualSplitLinkShares(g, routes, ports, 0, 2);
    REQUIRE(use.size() == 4 * 6);
    double total = 0;
    for (const auto& u : use)
    {
        total += u.share;
        CHECK(u.share <= 0.25 + 1e-12);
    }
    CHECK(total == Approx(4.0)); // 4 planes x (1/4 + 2 x 1/8 + 2 x 1/8 + 1/4)
    // Alone, the transfer gets every plane: 4 x 100 Gb/s.
    std::vector<double> capacity(2 * g.links.size());
    for (size_t l = 0; l < g.links.size(); ++l)
    {
        capacity[2 * l] = capacity[2 * l + 1] = static_cast<double>(g.links[l].rateBps);
    }
    CHECK(AloneRate(use, capacity) == Approx(400e9));
}

TEST_CASE("collective-aware ideal: two flows sharing one bottleneck run at half rate",
          "[fair-share]")
{
    const Built b = LeafSpine(2, 2, 2);
    // Hosts 0 and 1 both send to host 2: the receiver's 100 Gb/s link is the bottleneck, each
    // gets 50 Gb/s; the ideal grows by the wire bits at 50 rather than 100 Gb/s.
    std::vector<FairShareTransfer> t(3);
    t[0] = {0, 2, 7, 1'000'000, 5'000'000, true};
    t[1] = {1, 2, 7, 1'000'000, 6'000'000, true};
    t[2] = {0, 3, -1, 1'000'000, 5'000'000, true}; // in no step: no fair-share ideal
    const auto fair = FairShareIdealPs(b.g, b.routes, b.ports, t);
    const double extra = ExtraPs(1e6, 50e9, 100e9); // = 8e6 bits / 100 Gb/s = 80 µs
    CHECK(extra == Approx(80e6));
    CHECK(fair[0] == 5'000'000 + 80'000'000);
    CHECK(fair[1] == 6'000'000 + 80'000'000);
    CHECK(fair[2] == 0);
    // A flow whose FCT is the fair ideal has slowdown 1 against it.
    CHECK(static_cast<double>(85'000'000) / static_cast<double>(fair[0]) == 1.0);
    // Alone in its step: the idle-fabric ideal exactly.
    t[1].group = 8;
    const auto alone = FairShareIdealPs(b.g, b.routes, b.ports, t);
    CHECK(alone[0] == 5'000'000);
    CHECK(alone[1] == 6'000'000);
}

TEST_CASE("collective-aware ideal: all-to-all on a leaf-spine has the closed-form share",
          "[fair-share]")
{
    const double C = 100e9;
    const double wire = 1e6;
    const auto allToAll = [&](const Built& b) {
        std::vector<FairShareTransfer> t;
        for (uint32_t s = 0; s < b.g.numHosts; ++s)
        {
            for (uint32_t d = 0; d < b.g.numHosts; ++d)
            {
                if (s != d)
                {
                    t.push_back({s, d, 0, static_cast<uint64_t>(wire), 1'000'000, true});
                }
            }
        }
        return std::make_pair(t, FairShareIdealPs(b.g, b.routes, b.ports, t));
    };
    SECTION("non-blocking: every flow gets C / (n - 1) at its NIC")
    {
        // 4 leaves x 4 hosts, 4 spines: a leaf's 4 x 12 cross-leaf flows spread 1/4 on each
        // of 4 uplinks (12 t per uplink) fill them later than the NIC's 15 flows (15 t).
        const Built b = LeafSpine(4, 4, 4);
        const auto [t, fair] = allToAll(b);
        for (size_t i = 0; i < t.size(); ++i)
        {
            REQUIRE(fair[i] == 1'000'000 + static_cast<uint64_t>(std::llround(ExtraPs(wire, C / 15, C))));
        }
    }
    SECTION("4:1 oversubscribed: cross-leaf flows get C / (k (n - k)), local ones the rest")
    {
        // 4 leaves x 4 hosts, 1 spine: a leaf's one uplink carries k (n - k) = 48 cross-leaf
        // flows and fills at C / 48 before the NICs (15 flows); then each NIC has
        // C - 12 C / 48 = 3C / 4 left for its 3 same-leaf flows: C / 4 each.
        const Built b = LeafSpine(4, 1, 4);
        const auto [t, fair] = allToAll(b);
        for (size_t i = 0; i < t.size(); ++i)
        {
            const bool sameLeaf = t[i].src / 4 == t[i].dst / 4;
            const double rate = sameLeaf ? C / 4 : C / 48;
            REQUIRE(static_cast<double>(fair[i]) ==
                    Approx(1'000'000 + ExtraPs(wire, rate, C)).epsilon(1e-9));
        }
    }
}

} // namespace TUSK_TEST_FILE
