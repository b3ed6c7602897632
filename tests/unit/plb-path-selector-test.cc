// PLB at the host (Qureshi et al., "PLB: Congestion Signals are Simple and Effective for
// Network Load Balancing", SIGCOMM 2022): rounds, congested rounds, repaths, the idle-time
// preference and the pause after an RTO, on a fake clock (the times passed in). No Simulator.

#include "lb-policies/host/plb-path-selector.h"

#include "fabric/model/random-draws.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

constexpr uint16_t kBase = 50000;

/** RoundTime 9 us: with one feedback per microsecond, a round is exactly 10 packets. */
Ptr<PlbPathSelector>
Plb()
{
    auto p = CreateObject<PlbPathSelector>();
    p->SetAttribute("RoundTime", TimeValue(MicroSeconds(9)));
    p->SetAttribute("RtoSuspend", TimeValue(MilliSeconds(1)));
    p->SetBaseEntropy(kBase);
    p->AssignStreams(7);
    return p;
}

/**
 * A QP sending back to back: at every microsecond from `fromUs` one packet goes out and one is
 * acknowledged, the first `marked` of every 10 with ECN. Returns the last packet's entropy.
 */
uint16_t
Send(Ptr<PlbPathSelector> p, int fromUs, int us, int marked)
{
    uint16_t e = 0;
    for (int k = 0; k < us; ++k)
    {
        const Time t = MicroSeconds(fromUs + k);
        e = p->NextEntropy(t);
        p->OnFeedback(e, (k % 10) < marked ? PathSelector::ECN : PathSelector::GOOD, t);
    }
    return e;
}

} // namespace

TEST_CASE("PLB: a QP keeps its entropy while its rounds are clean", "[unit][plb]")
{
    auto p = Plb();
    CHECK(Send(p, 0, 1000, 4) == kBase); // 40 % marked: below the 50 % threshold
    CHECK(p->GetCongestedRounds() == 0);
    CHECK(p->GetCongestionRepaths() == 0);
}

TEST_CASE("PLB: repaths after 12 consecutive congested rounds, to a new pool entropy",
          "[unit][plb]")
{
    auto p = Plb();
    // Rounds [0, 9], [10, 19], ... us: the 12th ends with the feedback at 119 us.
    CHECK(Send(p, 0, 119, 10) == kBase);
    CHECK(p->GetCongestedRounds() == 11);
    const uint16_t next = Send(p, 119, 2, 10); // the packet at 120 us
    CHECK(p->GetCongestionRepaths() == 1);
    CHECK(next != kBase);
    CHECK(next >= 49152); // the dynamic port range (RFC 6335)
    CHECK(p->GetCongestedRounds() == 0); // the count restarts on the new path
    // Still congested on the new path: the next repath 12 rounds later, not before.
    CHECK(Send(p, 121, 118, 10) == next);
    CHECK(Send(p, 239, 2, 10) != next);
    CHECK(p->GetCongestionRepaths() == 2);
}

TEST_CASE("PLB: a repath is a counted random draw, a clean round none", "[unit][plb][random-draws]")
{
    // Fast mode's steady rule refuses an iteration in which a policy drew at random
    // (RandomDraws, docs/fast-mode.md).
    auto p = Plb();
    const uint64_t start = RandomDraws::Count();
    Send(p, 0, 1000, 4); // clean rounds
    CHECK(RandomDraws::Count() - start == 0);
    Send(p, 1000, 121, 10); // 12 congested rounds: one repath
    CHECK(p->GetCongestionRepaths() == 1);
    CHECK(RandomDraws::Count() - start == 1);
    // An RTO draws the pause and the repath's entropy.
    p->OnFeedback(p->NextEntropy(MicroSeconds(1200)), PathSelector::TIMEOUT, MicroSeconds(1201));
    CHECK(p->GetTimeoutRepaths() == 1);
    CHECK(RandomDraws::Count() - start == 3);
}

TEST_CASE("PLB: new entropies are uniform over the QP's pool, never the current one",
          "[unit][plb]")
{
    auto p = Plb();
    p->SetAttribute("PoolSize", UintegerValue(4));
    std::set<uint16_t> pool;
    for (uint32_t i = 0; i < 4; ++i)
    {
        pool.insert(PathSelector::PoolEntropyOf(kBase, i));
    }
    std::map<uint16_t, int> n;
    uint16_t e = p->NextEntropy(MicroSeconds(0));
    for (int k = 1; k <= 3000; ++k)
    {
        p->OnFeedback(e, PathSelector::TIMEOUT, MicroSeconds(k)); // each repaths
        const uint16_t f = p->NextEntropy(MicroSeconds(k));
        CHECK(f != e);
        CHECK(pool.count(f) == 1);
        ++n[f];
        e = f;
    }
    CHECK(p->GetTimeoutRepaths() == 3000);
    for (uint16_t x : pool)
    {
        CHECK(n[x] / 3000.0 == Approx(0.25).margin(0.03));
    }
}

TEST_CASE("PLB: one clean round resets the count, the threshold is inclusive", "[unit][plb]")
{
    auto p = Plb();
    Send(p, 0, 110, 10); // 11 congested rounds
    REQUIRE(p->GetCongestedRounds() == 11);
    Send(p, 110, 10, 1); // one clean round (10 % marked)
    CHECK(p->GetCongestedRounds() == 0);
    CHECK(Send(p, 120, 110, 10) == kBase); // 11 more congested rounds: still no repath
    CHECK(p->GetCongestionRepaths() == 0);
    // Exactly CongestedFraction counts as congested, just below does not.
    auto q = Plb();
    q->SetAttribute("CongestedFraction", DoubleValue(0.3));
    Send(q, 0, 50, 3);
    CHECK(q->GetCongestedRounds() == 5);
    q->SetAttribute("CongestedFraction", DoubleValue(0.31));
    Send(q, 50, 10, 3);
    CHECK(q->GetCongestedRounds() == 0);
}

TEST_CASE("PLB prefers to repath between bursts: after an idle round, 3 congested rounds "
          "suffice",
          "[unit][plb]")
{
    auto p = Plb();
    Send(p, 0, 30, 10); // 3 congested rounds, last packet at 29 us, then silence
    REQUIRE(p->GetCongestedRounds() == 3);
    CHECK(p->NextEntropy(MicroSeconds(35)) == kBase); // 6 us gap: not idle for a round
    const uint16_t e = p->NextEntropy(MicroSeconds(45)); // 10 us gap: idle
    CHECK(e != kBase);
    CHECK(p->GetCongestionRepaths() == 1);
    CHECK(p->NextEntropy(MicroSeconds(46)) == e);
    // With only 2 congested rounds behind it, an idle gap changes nothing.
    auto q = Plb();
    Send(q, 0, 20, 10);
    CHECK(q->NextEntropy(MicroSeconds(100)) == kBase);
}

TEST_CASE("PLB after an RTO: repath at once, then no congestion repaths for [S, 2S]",
          "[unit][plb]")
{
    auto p = Plb(); // RtoSuspend S = 1 ms
    Send(p, 0, 50, 10);
    const uint16_t before = p->NextEntropy(MicroSeconds(50));
    p->OnFeedback(before, PathSelector::TIMEOUT, MicroSeconds(60));
    CHECK(p->GetTimeoutRepaths() == 1);
    const uint16_t after = p->NextEntropy(MicroSeconds(61));
    CHECK(after != before);
    CHECK(p->IsSuspended(MicroSeconds(61)));
    CHECK(p->IsSuspended(MicroSeconds(1059)));       // at least S
    CHECK_FALSE(p->IsSuspended(MicroSeconds(2061))); // at most 2 S
    // Fully congested while suspended: no repath, however many congested rounds.
    CHECK(Send(p, 62, 900, 10) == after);
    CHECK(p->GetCongestedRounds() >= 12);
    CHECK(p->GetCongestionRepaths() == 0);
    // Once the pause is over, congestion repaths again.
    Send(p, 2100, 20, 10);
    CHECK(p->GetCongestionRepaths() == 1);
    // NACKs are not PLB's signal; RepathOnTimeout = false keeps the path on an RTO.
    auto q = Plb();
    q->SetAttribute("RepathOnTimeout", BooleanValue(false));
    const uint16_t e = q->NextEntropy(MicroSeconds(0));
    for (int k = 0; k < 100; ++k)
    {
        q->OnFeedback(e, PathSelector::NACK, MicroSeconds(k));
    }
    q->OnFeedback(e, PathSelector::TIMEOUT, MicroSeconds(100));
    CHECK(q->NextEntropy(MicroSeconds(101)) == e);
    CHECK(q->GetCongestedRounds() == 0);
    CHECK(q->GetTimeoutRepaths() == 0);
}

} // namespace TUSK_TEST_FILE
