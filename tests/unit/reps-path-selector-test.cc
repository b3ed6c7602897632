// RepsPathSelector alone, no Simulator (Bonato et al., "REPS: Recycled Entropy Packet
// Spraying for Adaptive Load Balancing and Failure Mitigation", 2024): recycle the EVs of
// unmarked ACKs through an 8-entry circular buffer, explore when it is empty, freeze
// exploration after a timeout or trim. Policy preset host-reps.

#include "lb-policies/host/reps-path-selector.h"

#include "ns3/boolean.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <set>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;
using FB = PathSelector::Feedback;

TEST_CASE("REPS: recycles the EVs of unmarked ACKs in order, explores when empty",
          "[unit][path-selector][uec][reps]")
{
    auto ps = CreateObject<RepsPathSelector>();
    ps->SetBaseEntropy(49152);
    ps->AssignStreams(3);
    // Empty buffer: every packet explores a fresh EV.
    std::vector<uint16_t> sent;
    for (int i = 0; i < 10; ++i)
    {
        sent.push_back(ps->NextEntropy(Time(0)));
    }
    CHECK(ps->GetExplorations() == 10);
    CHECK(std::set<uint16_t>(sent.begin(), sent.end()).size() == 10); // 10 of 16384: distinct here
    // Acks: 0..9 GOOD except 3 (ECN) and 5 (NACK); 8 slots keep the last 8 good EVs.
    for (int i = 0; i < 10; ++i)
    {
        ps->OnFeedback(sent[i], i == 3 ? FB::ECN : i == 5 ? FB::NACK : FB::GOOD, Time(0));
    }
    CHECK(ps->GetCachedCount() == 8);
    const std::vector<uint16_t> expected = {sent[0], sent[1], sent[2], sent[4],
                                            sent[6], sent[7], sent[8], sent[9]};
    for (uint16_t e : expected)
    {
        CHECK(ps->NextEntropy(Time(0)) == e);
    }
    CHECK(ps->GetExplorations() == 10);
    // One more GOOD pushed past capacity overwrites the oldest.
    for (int i = 0; i < 9; ++i)
    {
        ps->OnFeedback(sent[i], FB::GOOD, Time(0));
    }
    CHECK(ps->GetCachedCount() == 8);
    CHECK(ps->NextEntropy(Time(0)) == sent[1]); // sent[0] was overwritten
    // Marked and NACKed EVs are never recycled: an ECN-only history keeps exploring.
    auto q = CreateObject<RepsPathSelector>();
    q->SetAttribute("FreezeOnNack", BooleanValue(false));
    q->SetBaseEntropy(49152);
    for (int i = 0; i < 20; ++i)
    {
        const uint16_t e = q->NextEntropy(Time(0));
        q->OnFeedback(e, i % 2 ? FB::ECN : FB::NACK, Time(0));
    }
    CHECK(q->GetCachedCount() == 0);
    CHECK(q->GetExplorations() == 20);
}

TEST_CASE("REPS: a timeout freezes exploration, the last good EVs are replayed",
          "[unit][path-selector][uec][reps]")
{
    auto ps = CreateObject<RepsPathSelector>();
    ps->SetAttribute("FreezeDuration", TimeValue(MicroSeconds(100)));
    ps->SetBaseEntropy(60000);
    // Three good EVs, then all of them reused: the buffer is empty.
    std::vector<uint16_t> good;
    for (int i = 0; i < 3; ++i)
    {
        good.push_back(ps->NextEntropy(Time(0)));
    }
    for (uint16_t e : good)
    {
        ps->OnFeedback(e, FB::GOOD, Time(0));
    }
    for (int i = 0; i < 3; ++i)
    {
        ps->NextEntropy(Time(0));
    }
    REQUIRE(ps->GetCachedCount() == 0);
    const uint64_t explored = ps->GetExplorations();
    // Not frozen: an empty buffer means exploration.
    ps->NextEntropy(MicroSeconds(1));
    CHECK(ps->GetExplorations() == explored + 1);
    // A timeout at 10 us freezes until 110 us: no exploration, the good EVs in turn.
    ps->OnFeedback(12345, FB::TIMEOUT, MicroSeconds(10));
    CHECK(ps->IsFrozen(MicroSeconds(50)));
    std::set<uint16_t> replayed;
    for (int i = 0; i < 30; ++i)
    {
        replayed.insert(ps->NextEntropy(MicroSeconds(20 + i)));
    }
    CHECK(ps->GetExplorations() == explored + 1);
    CHECK(replayed == std::set<uint16_t>(good.begin(), good.end()));
    // A NACK (trim or loss) freezes too (FreezeOnNack, the default).
    CHECK_FALSE(ps->IsFrozen(MicroSeconds(111)));
    ps->NextEntropy(MicroSeconds(111));
    CHECK(ps->GetExplorations() == explored + 2);
    ps->OnFeedback(12345, FB::NACK, MicroSeconds(200));
    ps->NextEntropy(MicroSeconds(250));
    CHECK(ps->GetExplorations() == explored + 2);
}

} // namespace TUSK_TEST_FILE
