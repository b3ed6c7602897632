// BitmapPathSelector alone, no Simulator: round-robin over a pool, avoiding the EVs whose
// latest feedback was bad (UEC 1.0's bitmap load balancing); policy preset host-bitmap.

#include "lb-policies/host/bitmap-path-selector.h"

#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <set>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;
using FB = PathSelector::Feedback;

TEST_CASE("bitmap: skips EVs whose latest feedback was ECN, NACK or TIMEOUT",
          "[unit][path-selector][uec]")
{
    auto ps = CreateObject<BitmapPathSelector>();
    ps->SetAttribute("PoolSize", UintegerValue(4));
    ps->SetBaseEntropy(49152);
    std::vector<uint16_t> ev;
    for (int i = 0; i < 4; ++i)
    {
        ev.push_back(ps->NextEntropy(Time(0)));
    }
    CHECK(std::set<uint16_t>(ev.begin(), ev.end()).size() == 4);
    ps->OnFeedback(ev[1], FB::ECN, Time(0));
    ps->OnFeedback(ev[2], FB::NACK, Time(0));
    CHECK(ps->IsMarked(ev[1]));
    CHECK(ps->IsMarked(ev[2]));
    CHECK(ps->GetMarkedCount() == 2);
    for (int i = 0; i < 8; ++i)
    {
        const uint16_t e = ps->NextEntropy(Time(0));
        CHECK((e == ev[0] || e == ev[3]));
    }
    // GOOD clears a mark; a TIMEOUT sets one.
    ps->OnFeedback(ev[1], FB::GOOD, Time(0));
    ps->OnFeedback(ev[0], FB::TIMEOUT, Time(0));
    std::set<uint16_t> used;
    for (int i = 0; i < 8; ++i)
    {
        used.insert(ps->NextEntropy(Time(0)));
    }
    CHECK(used == std::set<uint16_t>{ev[1], ev[3]});
    // Feedback for an EV outside the pool is ignored.
    ps->OnFeedback(1234, FB::ECN, Time(0));
    CHECK(ps->GetMarkedCount() == 2);
    // Every EV marked: start afresh rather than stall.
    ps->OnFeedback(ev[1], FB::ECN, Time(0));
    ps->OnFeedback(ev[3], FB::ECN, Time(0));
    CHECK(ps->GetMarkedCount() == 4);
    ps->NextEntropy(Time(0));
    CHECK(ps->GetMarkedCount() == 0);
}

} // namespace TUSK_TEST_FILE
