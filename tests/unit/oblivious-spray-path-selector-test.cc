// ObliviousSprayPathSelector alone, no Simulator: round-robin over a pool of distinct
// entropies (htsim's UecMpOblivious, uet-htsim sim/uec_mp.h); policy preset host-spray.

#include "lb-policies/host/oblivious-spray-path-selector.h"

#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <set>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

TEST_CASE("oblivious spraying: a new entropy per packet from a pool of distinct ports",
          "[unit][path-selector][spray]")
{
    for (uint32_t pool : {1u, 7u, 256u, 16384u})
    {
        for (uint16_t base : {49152, 60000, 65535})
        {
            auto ps = CreateObject<ObliviousSprayPathSelector>();
            ps->SetAttribute("PoolSize", UintegerValue(pool));
            ps->SetBaseEntropy(base);
            std::set<uint16_t> seen;
            std::vector<uint16_t> first;
            for (uint32_t i = 0; i < pool; ++i)
            {
                const uint16_t e = ps->NextEntropy(Time(0));
                CHECK(e >= 49152); // the dynamic range (RFC 6335)
                seen.insert(e);
                first.push_back(e);
            }
            CHECK(seen.size() == pool); // no duplicates in the pool
            CHECK(first[0] == base);    // entropy 0 is the QP's own
            // Round-robin: the same sequence again.
            for (uint32_t i = 0; i < std::min(pool, 100u); ++i)
            {
                CHECK(ps->NextEntropy(Time(0)) == first[i]);
            }
        }
    }
    // Two QPs with different base entropies spray over different sequences.
    auto a = CreateObject<ObliviousSprayPathSelector>();
    auto b = CreateObject<ObliviousSprayPathSelector>();
    a->SetBaseEntropy(50000);
    b->SetBaseEntropy(50001);
    int same = 0;
    for (int i = 0; i < 256; ++i)
    {
        same += a->NextEntropy(Time(0)) == b->NextEntropy(Time(0));
    }
    CHECK(same == 0);
}

} // namespace TUSK_TEST_FILE
