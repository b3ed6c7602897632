// EtherealPathSelector alone, no Simulator (time is passed in): a subflow keeps its base
// entropy (the route the workload pinned it to) until its route loses packets (RepinLosses
// NACKs in a row, one TIMEOUT, or FailoverTime of silence when set), then moves to the least-
// loaded route of its host's table (EtherealHostPaths); after a timeout or silence the old
// route is held down for the host: its other subflows there move at their next packet. With Failover false it is
// FixedPathSelector. The numbers follow from the rule in ethereal-path-selector.h.

#include "lb-policies/host/ethereal-path-selector.h"

#include "fabric/helper/source-routes.h"

#include "ns3/boolean.h"
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

Time
Us(double us)
{
    return NanoSeconds(us * 1000);
}

Ptr<EtherealPathSelector>
Subflow(uint32_t route, Ptr<EtherealHostPaths> host = nullptr, uint32_t routes = 8)
{
    auto ps = CreateObject<EtherealPathSelector>();
    ps->SetAttribute("Routes", UintegerValue(routes));
    ps->SetBaseEntropy(EntropyOfRoute(route));
    if (host)
    {
        ps->SetHostPaths(host);
    }
    return ps;
}

uint32_t
Send(const Ptr<EtherealPathSelector>& ps, double us)
{
    return RouteOfEntropy(ps->NextEntropy(Us(us)));
}

} // namespace

TEST_CASE("ethereal selector: without failover it is the fixed selector, whatever the feedback",
          "[unit][path-selector][ethereal]")
{
    auto ps = Subflow(5);
    ps->SetAttribute("Failover", BooleanValue(false));
    for (int i = 0; i < 10; ++i)
    {
        CHECK(ps->NextEntropy(Us(i)) == EntropyOfRoute(5));
        ps->OnFeedback(EntropyOfRoute(5), i % 2 ? FB::TIMEOUT : FB::NACK, Us(i));
    }
    CHECK(ps->GetRepins() == 0);
    // A base entropy outside the route range is kept as it is (FixedPathSelector's).
    auto odd = CreateObject<EtherealPathSelector>();
    odd->SetBaseEntropy(1234);
    CHECK(odd->NextEntropy(Us(0)) == 1234);
    odd->OnFeedback(1234, FB::GOOD, Us(1));
    CHECK(odd->NextEntropy(Us(2)) == 1234);
}

TEST_CASE("ethereal selector: RepinLosses NACKs in a row move the subflow, a GOOD in between "
          "does not, one timeout moves it",
          "[unit][path-selector][ethereal]")
{
    auto host = CreateObject<EtherealHostPaths>(8, 0);
    auto ps = Subflow(2, host);
    CHECK(Send(ps, 0) == 2);
    ps->OnFeedback(EntropyOfRoute(2), FB::NACK, Us(1));
    ps->OnFeedback(EntropyOfRoute(2), FB::NACK, Us(2));
    ps->OnFeedback(EntropyOfRoute(2), FB::GOOD, Us(3)); // the run ends
    ps->OnFeedback(EntropyOfRoute(2), FB::NACK, Us(4));
    ps->OnFeedback(EntropyOfRoute(2), FB::NACK, Us(5));
    CHECK(Send(ps, 6) == 2);
    CHECK(ps->GetRepins() == 0);
    ps->OnFeedback(EntropyOfRoute(2), FB::NACK, Us(7)); // third in a row
    CHECK(ps->GetRepins() == 1);
    // Every other route carries none of the host's subflows: the scan from the cursor (0)
    // takes route 0.
    CHECK(Send(ps, 8) == 0);
    CHECK(host->Load(2) == 0);
    CHECK(host->Load(0) == 1);
    // Trims or losses move the subflow but do not mark the route failed for the host
    // (congestion is not a failure); a timeout does.
    CHECK_FALSE(host->Failed(2, Us(8).GetPicoSeconds()));
    // Late NACKs for route 2 are news of packets sent before the move: ignored.
    for (int i = 0; i < 5; ++i)
    {
        ps->OnFeedback(EntropyOfRoute(2), FB::NACK, Us(9));
    }
    CHECK(ps->GetRepins() == 1);
    // One timeout on the new route moves it again, to route 1 (the scan goes on from the
    // cursor, just past route 0), and holds route 0 down for the host.
    ps->OnFeedback(EntropyOfRoute(0), FB::TIMEOUT, Us(10));
    CHECK(ps->GetRepins() == 2);
    CHECK(Send(ps, 11) == 1);
    CHECK(host->Failed(0, Us(11).GetPicoSeconds()));
}

TEST_CASE("ethereal selector: the subflow moves to the least-loaded route of its host, and the "
          "host's other subflows leave the failed route at their next packet",
          "[unit][path-selector][ethereal]")
{
    // 4 routes; the host's subflows: a and e on route 0, b and c on route 1, d on route 2.
    // Loads 2, 2, 1, 0: a's timeout moves it to route 3, the only empty one.
    auto host = CreateObject<EtherealHostPaths>(4, 0);
    auto a = Subflow(0, host, 4);
    auto b = Subflow(1, host, 4);
    auto c = Subflow(1, host, 4);
    auto d = Subflow(2, host, 4);
    auto e = Subflow(0, host, 4);
    for (const auto& s : {a, b, c, d, e})
    {
        Send(s, 0);
    }
    CHECK(host->Load(0) == 2);
    CHECK(host->Load(1) == 2);
    a->OnFeedback(EntropyOfRoute(0), FB::TIMEOUT, Us(500));
    CHECK(Send(a, 501) == 3);
    // e has seen nothing, but its host marked route 0 failed: it moves at its next packet, to
    // the least loaded of routes 1 (2 subflows), 2 (1) and 3 (1), the first of the tie
    // scanning from the cursor (just past route 3): route 2.
    CHECK(Send(e, 502) == 2);
    CHECK(e->GetRepins() == 1);
    CHECK(host->Load(0) == 0);
    CHECK(host->Load(2) == 2);
    CHECK(host->Load(3) == 1);
    // After RouteHoldDown (1 ms by default) route 0 is no longer avoided: b's timeout at
    // 2 ms moves it there, the least-loaded route.
    b->OnFeedback(EntropyOfRoute(1), FB::TIMEOUT, Us(2000));
    CHECK(Send(b, 2001) == 0);
    // c stays on route 1 (now held down), moving only at its next packet.
    CHECK(Send(c, 2002) == 3);
}

TEST_CASE("ethereal selector: with FailoverTime set, packets without feedback for that long "
          "move the subflow, with feedback they do not",
          "[unit][path-selector][ethereal]")
{
    auto host = CreateObject<EtherealHostPaths>(8, 0);
    auto ps = Subflow(6, host);
    ps->SetAttribute("FailoverTime", TimeValue(MicroSeconds(20)));
    CHECK(Send(ps, 0) == 6);
    CHECK(Send(ps, 10) == 6);
    ps->OnFeedback(EntropyOfRoute(6), FB::GOOD, Us(15)); // the packet sent at 0
    // The oldest packet without feedback was sent at 10, the last feedback came at 15: at 34
    // it is 19 us, under 20.
    CHECK(Send(ps, 34) == 6);
    CHECK(ps->GetRepins() == 0);
    // At 35.5: 20.5 us since the last feedback, packets outstanding.
    CHECK(Send(ps, 35.5) == 0);
    CHECK(ps->GetRepins() == 1);
    // Off (the default): silence alone never moves the subflow.
    auto quiet = Subflow(6, CreateObject<EtherealHostPaths>(8, 0));
    CHECK(Send(quiet, 0) == 6);
    CHECK(Send(quiet, 1e6) == 6);
}

TEST_CASE("ethereal selector: with one route there is nowhere to go",
          "[unit][path-selector][ethereal]")
{
    auto ps = Subflow(0, nullptr, 1);
    CHECK(Send(ps, 0) == 0);
    ps->OnFeedback(EntropyOfRoute(0), FB::TIMEOUT, Us(1));
    CHECK(Send(ps, 2) == 0);
    CHECK(ps->GetRepins() == 0);
}

} // namespace TUSK_TEST_FILE
