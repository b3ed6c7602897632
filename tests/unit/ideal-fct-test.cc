// The ideal FCT (docs/analysis.md) against a brute-force store-and-forward
// recurrence, and oracle 20's base-RTT convention.

#include "fabric/model/fabric-units.h"
#include "fabric/model/ideal-fct.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

/** D(k,h) = max(D(k-1,h), D(k,h-1) + d + lat) + s_k / r_h, packet by packet. */
uint64_t
BruteForce(uint64_t payload, const std::vector<PathHop>& path, const Framing& f, uint64_t lat)
{
    const uint64_t n = f.Packets(payload);
    std::vector<uint64_t> linkFree(path.size(), 0);
    uint64_t arrival = 0;
    for (uint64_t k = 0; k < n; ++k)
    {
        const uint64_t p = (k + 1 < n) ? f.mtuBytes : payload - (n - 1) * f.mtuBytes;
        uint64_t t = 0; // packet k is ready at the NIC at time 0
        for (size_t h = 0; h < path.size(); ++h)
        {
            const uint64_t start = std::max(linkFree[h], t);
            linkFree[h] = start + SerializationPs(f.WireBytes(p), path[h].rateBps);
            t = linkFree[h] + path[h].delayPs + (h + 1 < path.size() ? lat : 0);
        }
        arrival = t;
    }
    return arrival;
}

} // namespace

TEST_CASE("serialisation is exact in ps at integer Gb/s rates", "[unit][ideal]")
{
    CHECK(SerializationPs(1, 100'000'000'000ULL) == 80);       // 8 bit / 100 Gb/s = 80 ps
    CHECK(SerializationPs(4178, 400'000'000'000ULL) == 83'560); // 4178 B at 400G
    CHECK(SerializationPs(1, 3) == 2'666'666'666'667ULL);       // rounded up
}

TEST_CASE("closed-form ideal FCT equals the packet-by-packet recurrence", "[unit][ideal]")
{
    std::mt19937_64 rng(42);
    const uint64_t rates[] = {10, 25, 40, 100, 200, 400};
    for (int trial = 0; trial < 2000; ++trial)
    {
        std::vector<PathHop> path(1 + rng() % 6);
        for (auto& h : path)
        {
            h.rateBps = rates[rng() % 6] * 1'000'000'000ULL;
            h.delayPs = (rng() % 3000) * 1000;
        }
        Framing f;
        f.mtuBytes = (trial % 2) ? 4096 : 1000;
        const uint64_t payload = 1 + rng() % 300'000;
        const uint64_t lat = (rng() % 2) ? 0 : 350'000;
        INFO("trial " << trial << " payload " << payload);
        REQUIRE(IdealFctPs(payload, path, f, lat) == BruteForce(payload, path, f, lat));
    }
}

TEST_CASE("ideal FCT of a single small frame: padding to 64 B", "[unit][ideal]")
{
    Framing f;
    // 1 B payload + 62 B headers = 63 B < 64 B minimum frame, + 20 B PHY = 84 B on the wire.
    CHECK(f.WireBytes(1) == 84);
    const std::vector<PathHop> path = {{100'000'000'000ULL, 1'000'000}};
    CHECK(IdealFctPs(1, path, f, 0) == 84 * 80 + 1'000'000);
}

TEST_CASE("base RTT and BDP under the ConWeave convention (oracle 20)", "[unit][ideal][oracle20]")
{
    // Leaf-spine: 4 links host-leaf-spine-leaf-host, 1 us each, 1000 B at 100 Gb/s.
    const uint64_t leafSpine = BaseRttPs(4, 1'000'000, 1000, 100'000'000'000ULL);
    CHECK(leafSpine == 8'320'000);                             // 8,320 ns
    CHECK(leafSpine * 100 / 8 / 1000 == 104'000); // BDP = RTT x C: ps x 100 Gb/s = bits x 1000
    const uint64_t fatTree = BaseRttPs(6, 1'000'000, 1000, 100'000'000'000ULL);
    CHECK(fatTree == 12'480'000);                              // 12,480 ns
    CHECK(fatTree * 100 / 8 / 1000 == 156'000);   // 156,000 B
}

} // namespace TUSK_TEST_FILE
