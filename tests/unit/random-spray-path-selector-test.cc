// RandomSprayPathSelector alone, no Simulator: a uniformly random EV per packet from a pool
// (UEC 1.0's oblivious spraying); policy preset host-random-spray.

#include "lb-policies/host/random-spray-path-selector.h"

#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <map>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

TEST_CASE("random spraying: uniform over exactly PoolSize EVs", "[unit][path-selector][uec]")
{
    for (uint32_t pool : {1u, 64u, 256u})
    {
        auto ps = CreateObject<RandomSprayPathSelector>();
        ps->SetAttribute("PoolSize", UintegerValue(pool));
        ps->SetBaseEntropy(51000);
        ps->AssignStreams(7);
        std::map<uint16_t, uint32_t> count;
        const uint32_t n = pool * 200;
        bool inOrder = true; // not round-robin in disguise
        uint16_t prev = 0;
        for (uint32_t i = 0; i < n; ++i)
        {
            const uint16_t e = ps->NextEntropy(Time(0));
            REQUIRE(PathSelector::PoolIndexOf(51000, e) < pool);
            inOrder = inOrder && (i == 0 || PathSelector::PoolIndexOf(51000, e) ==
                                                (PathSelector::PoolIndexOf(51000, prev) + 1) % pool);
            prev = e;
            count[e]++;
        }
        CHECK(count.size() == pool);
        for (const auto& [e, c] : count)
        {
            // 200 expected per EV; 5 sigma of a binomial(n, 1/pool) is ~71.
            CHECK(c > 120);
            CHECK(c < 280);
        }
        if (pool > 1)
        {
            CHECK_FALSE(inOrder);
        }
    }
}

} // namespace TUSK_TEST_FILE
