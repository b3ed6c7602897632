// MrcPathSelector alone, no Simulator (time is passed in): the path set sprayed in turn from a
// per-QP offset, ECN and trim steering (skipped turns), retirement after RetireLosses NACKs in
// a row or FailoverTime of silence, probing after ProbeInterval with doubling backoff, the
// floor of active paths (MRC's ev_min_active), and PathSetSprayPathSelector's plain spraying.

#include "lb-policies/host/mrc-path-selector.h"

#include "fabric/helper/source-routes.h"

#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;
using FB = PathSelector::Feedback;

namespace
{

Ptr<MrcPathSelector>
Selector(uint32_t paths, uint16_t base = 49152)
{
    auto ps = CreateObject<MrcPathSelector>();
    ps->SetAttribute("PathSetSize", UintegerValue(paths));
    ps->SetAttribute("Routes", UintegerValue(64));
    ps->SetAttribute("FailoverTime", TimeValue(MicroSeconds(20)));
    ps->SetAttribute("ProbeInterval", TimeValue(MicroSeconds(100)));
    ps->SetAttribute("RttExcessFactor", DoubleValue(0)); // off unless a test turns it on
    ps->SetBaseEntropy(base);
    return ps;
}

/** The routes of the next `n` packets at time `us`. */
std::vector<uint32_t>
Next(const Ptr<MrcPathSelector>& ps, uint32_t n, double us)
{
    std::vector<uint32_t> routes;
    for (uint32_t i = 0; i < n; ++i)
    {
        routes.push_back(RouteOfEntropy(ps->NextEntropy(NanoSeconds(us * 1000))));
    }
    return routes;
}

/** GOOD feedback at `us` for one packet on each of `routes`. */
void
Ack(const Ptr<MrcPathSelector>& ps, const std::vector<uint32_t>& routes, double us)
{
    for (uint32_t r : routes)
    {
        ps->OnFeedback(EntropyOfRoute(r), FB::GOOD, NanoSeconds(us * 1000));
    }
}

} // namespace

TEST_CASE("MRC: sprays the path set in turn from the QP's offset, and the set is min(PathSetSize, "
          "Routes)",
          "[unit][path-selector][mrc]")
{
    auto ps = Selector(4, 49152 + 6); // offset 6 mod 4 = 2
    CHECK(Next(ps, 6, 0) == std::vector<uint32_t>{2, 3, 0, 1, 2, 3});
    CHECK(ps->GetPathCount() == 4);
    auto big = Selector(1000);
    CHECK(big->GetPathCount() == 64); // the fabric has 64 routes
    CHECK(EntropyOfRoute(5) == 49157);
    auto plain = CreateObject<PathSetSprayPathSelector>();
    plain->SetAttribute("PathSetSize", UintegerValue(3));
    plain->SetAttribute("Routes", UintegerValue(64));
    plain->SetBaseEntropy(49152);
    for (uint32_t i = 0; i < 6; ++i)
    {
        plain->OnFeedback(EntropyOfRoute(0), FB::NACK, Time(0)); // ignored: no steering
        CHECK(RouteOfEntropy(plain->NextEntropy(Time(0))) == i % 3);
    }
}

TEST_CASE("MRC: ECN and trims make a path skip turns", "[unit][path-selector][mrc]")
{
    auto ps = Selector(4);
    CHECK(Next(ps, 4, 0) == std::vector<uint32_t>{0, 1, 2, 3});
    ps->OnFeedback(EntropyOfRoute(1), FB::ECN, MicroSeconds(5));  // EcnPenalty 1
    ps->OnFeedback(EntropyOfRoute(2), FB::NACK, MicroSeconds(5)); // TrimPenalty 2
    ps->OnFeedback(EntropyOfRoute(0), FB::GOOD, MicroSeconds(5));
    ps->OnFeedback(EntropyOfRoute(3), FB::GOOD, MicroSeconds(5));
    // Round 1: 1 and 2 skip; round 2: 2 skips again; round 3: all.
    CHECK(Next(ps, 7, 6) == std::vector<uint32_t>{0, 3, 0, 1, 3, 0, 1});
    CHECK(Next(ps, 2, 6) == std::vector<uint32_t>{2, 3});
    CHECK(ps->GetRetirements() == 0);
}

TEST_CASE("MRC: an RTT sample above RttExcessFactor x the smallest skips the path a turn",
          "[unit][path-selector][mrc]")
{
    auto ps = Selector(2);
    ps->SetAttribute("RttExcessFactor", DoubleValue(2.0));
    CHECK(Next(ps, 2, 0) == std::vector<uint32_t>{0, 1});
    ps->OnFeedback(EntropyOfRoute(0), FB::GOOD, MicroSeconds(10)); // RTT 10 us: the minimum
    ps->OnFeedback(EntropyOfRoute(1), FB::GOOD, MicroSeconds(25)); // 25 > 2 x 10
    CHECK(Next(ps, 3, 30) == std::vector<uint32_t>{0, 0, 1});
}

TEST_CASE("MRC: RetireLosses NACKs in a row retire a path, which is probed after ProbeInterval "
          "and reinstated by a good probe",
          "[unit][path-selector][mrc]")
{
    auto ps = Selector(4);
    ps->SetAttribute("TrimPenalty", UintegerValue(0));
    Next(ps, 12, 0); // three packets on each path
    for (int i = 0; i < 3; ++i)
    {
        ps->OnFeedback(EntropyOfRoute(1), FB::NACK, MicroSeconds(5));
        Ack(ps, {0, 2, 3}, 5);
    }
    CHECK(ps->GetState(1) == MrcPathSelector::ASSUMED_BAD);
    CHECK(ps->GetRetirements() == 1);
    CHECK(Next(ps, 6, 10) == std::vector<uint32_t>{0, 2, 3, 0, 2, 3});
    Ack(ps, {0, 2, 3, 0, 2, 3}, 11);
    // At 5 + 100 us the next turn of path 1 sends the probe; the path carries nothing else
    // until the probe is answered.
    CHECK(Next(ps, 4, 106) == std::vector<uint32_t>{0, 1, 2, 3});
    CHECK(ps->GetProbes() == 1);
    CHECK(ps->GetState(1) == MrcPathSelector::PROBING);
    Ack(ps, {0, 2, 3}, 106.5);
    CHECK(Next(ps, 3, 107) == std::vector<uint32_t>{0, 2, 3});
    Ack(ps, {0, 2, 3, 1}, 108);
    CHECK(ps->GetState(1) == MrcPathSelector::GOOD);
    CHECK(ps->GetReinstatements() == 1);
    CHECK(Next(ps, 4, 109) == std::vector<uint32_t>{0, 1, 2, 3});
}

TEST_CASE("MRC: a silent path is retired after FailoverTime, and a failed probe doubles the wait",
          "[unit][path-selector][mrc]")
{
    auto ps = Selector(4);
    CHECK(Next(ps, 4, 0) == std::vector<uint32_t>{0, 1, 2, 3});
    Ack(ps, {0, 2, 3}, 8);
    // Path 1's packet (sent at 0) is still unanswered at 19 us: usable; at 20 us: retired.
    CHECK(Next(ps, 4, 19) == std::vector<uint32_t>{0, 1, 2, 3});
    CHECK(ps->GetState(1) == MrcPathSelector::GOOD);
    Ack(ps, {0, 2, 3}, 19.5);
    CHECK(Next(ps, 3, 20) == std::vector<uint32_t>{0, 2, 3});
    CHECK(ps->GetState(1) == MrcPathSelector::ASSUMED_BAD);
    Ack(ps, {0, 2, 3}, 20.5);
    // Probe at 20 + 100 us, unanswered: retired again at its next turn 20 us later, for
    // 2 x 100 us (until 340 us).
    CHECK(Next(ps, 2, 120) == std::vector<uint32_t>{0, 1});
    Ack(ps, {0}, 121);
    CHECK(Next(ps, 4, 140) == std::vector<uint32_t>{2, 3, 0, 2});
    CHECK(ps->GetState(1) == MrcPathSelector::ASSUMED_BAD);
    CHECK(ps->GetRetirements() == 2);
    Ack(ps, {2, 3, 0, 2}, 141);
    CHECK(Next(ps, 3, 339) == std::vector<uint32_t>{3, 0, 2});
    CHECK(ps->GetProbes() == 1);
    Ack(ps, {3, 0, 2}, 339.5);
    CHECK(Next(ps, 2, 340) == std::vector<uint32_t>{3, 0});
    CHECK(Next(ps, 1, 340) == std::vector<uint32_t>{1}); // the second probe
    CHECK(ps->GetProbes() == 2);
}

TEST_CASE("MRC: at most n - max(1, n x MinActiveFraction) paths are retired at once",
          "[unit][path-selector][mrc]")
{
    auto ps = Selector(4); // floor: max(1, 4 x 0.25) = 1 path stays
    Next(ps, 4, 0);
    for (uint32_t p = 0; p < 4; ++p)
    {
        ps->OnFeedback(EntropyOfRoute(p), FB::TIMEOUT, MicroSeconds(1)); // a timeout retires
    }
    CHECK(ps->GetRetirements() == 3);
    CHECK(ps->GetState(3) == MrcPathSelector::GOOD);
    CHECK(Next(ps, 3, 2) == std::vector<uint32_t>{3, 3, 3});
}

} // namespace TUSK_TEST_FILE
