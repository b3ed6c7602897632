// The switch adaptive-routing telemetry at its source: LoadBalancer::EnableDecisionLog counts,
// per egress port and candidate-set size, how often the port was offered and chosen, the
// frames, bytes and the policy's reason (ar.csv; docs/results-format.md, "ar.csv"). Decisions
// on a fake clock, no Simulator.

#include "fabric/model/egress-decision-log.h"
#include "lb-policies/switch/drill-load-balancer.h"
#include "lb-policies/switch/ecmp-load-balancer.h"
#include "lb-policies/switch/least-loaded-load-balancer.h"
#include "lb-policies/switch/letflow-load-balancer.h"

#include "ns3/nstime.h"

#include "lb-test-helpers.h"

#include <catch2/catch.hpp>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;
using namespace tusk_test;

namespace
{

/** The log's row of (port, candidates); fails the test when there is none. */
EgressDecisionLog::Row
RowOf(const LoadBalancer& lb, uint16_t port, uint32_t candidates)
{
    REQUIRE(lb.GetDecisionLog() != nullptr);
    for (const auto& r : lb.GetDecisionLog()->Rows())
    {
        if (r.port == port && r.candidates == candidates)
        {
            return r;
        }
    }
    FAIL("no row for port " << port << " among " << candidates);
    return {};
}

uint64_t
ByReason(const EgressDecisionLog::Row& r, EgressReason why)
{
    return r.packetsByReason[static_cast<size_t>(why)];
}

LbContext
Frame(double us, uint32_t bytes)
{
    LbContext ctx = At(us);
    ctx.frameBytes = bytes;
    return ctx;
}

} // namespace

TEST_CASE("flowlet-ar's decision log: offered, chosen, frames, bytes and reasons", "[unit][ar]")
{
    auto lb = CreateObject<LeastLoadedLoadBalancer>();
    lb->SetAttribute("FlowletGap", TimeValue(MicroSeconds(50)));
    lb->AssignStreams(1);
    CHECK(lb->GetDecisionLog() == nullptr); // off unless asked
    lb->EnableDecisionLog(4);
    const auto f = Flow(0, 1, 7);
    // A new flowlet: the least backlog (port 2, 100 B against 900 B).
    auto c = Candidates(2, {900, 100}, 1);
    CHECK(lb->SelectEgress(Frame(0, 1000), f, c.data(), 2) == 1);
    // 10 us later the backlogs have turned, but the flowlet keeps its port.
    c = Candidates(2, {0, 800}, 1);
    CHECK(lb->SelectEgress(Frame(10, 1000), f, c.data(), 2) == 1);
    // After a 100 us gap, a new flowlet: port 1 now.
    CHECK(lb->SelectEgress(Frame(110, 500), f, c.data(), 2) == 0);
    // Every compared port tied: a random choice, reported so.
    c = Candidates(2, {0, 0}, 1);
    const auto g = Flow(2, 3, 9);
    const uint32_t tied = lb->SelectEgress(Frame(200, 64), g, c.data(), 2);
    // One candidate: not a decision, not logged.
    auto one = Candidates(1, {}, 3);
    CHECK(lb->SelectEgress(Frame(300, 64), f, one.data(), 1) == 0);

    const auto p1 = RowOf(*lb, 1, 2);
    const auto p2 = RowOf(*lb, 2, 2);
    CHECK(p1.offered == 3); // the three fresh decisions offered both ports
    CHECK(p2.offered == 3);
    CHECK(p1.decisions == 1 + (tied == 0 ? 1 : 0));
    CHECK(p2.decisions == 1 + (tied == 1 ? 1 : 0));
    CHECK(p2.packets == 2 + (tied == 1 ? 1 : 0));
    CHECK(p2.bytes == 2000 + (tied == 1 ? 64 : 0));
    CHECK(ByReason(p2, EgressReason::LEAST_BACKLOG) == 1);
    CHECK(ByReason(p2, EgressReason::FLOWLET) == 1);
    CHECK(ByReason(p1, EgressReason::LEAST_BACKLOG) == 1);
    CHECK(ByReason(tied == 0 ? p1 : p2, EgressReason::RANDOM) == 1);
    CHECK(lb->GetDecisionLog()->Rows().size() == 2); // port 3 (one candidate) has none
}

TEST_CASE("each switch policy reports its reason", "[unit][ar]")
{
    const auto f = Flow(0, 1, 7);
    auto busy = Candidates(3, {0, 900, 900});
    SECTION("ECMP: a hash")
    {
        auto lb = CreateObject<EcmpLoadBalancer>();
        lb->EnableDecisionLog(3);
        const uint32_t i = lb->SelectEgress(Frame(0, 100), f, busy.data(), 3);
        const auto r = RowOf(*lb, static_cast<uint16_t>(i), 3);
        CHECK(ByReason(r, EgressReason::HASH) == 1);
        CHECK(r.packets == 1);
        CHECK(r.decisions == 0); // the hash fixed it: not a choice among the candidates
        CHECK(r.offered == 0);
    }
    SECTION("DRILL: the least backlog of those it compared, random when they tied")
    {
        auto lb = CreateObject<DrillLoadBalancer>();
        lb->AssignStreams(5);
        lb->EnableDecisionLog(3);
        auto count = [&](EgressReason why) {
            uint64_t n = 0;
            for (const auto& r : lb->GetDecisionLog()->Rows())
            {
                n += ByReason(r, why);
            }
            return n;
        };
        for (int k = 0; k < 200; ++k)
        {
            lb->SelectEgress(Frame(k, 100), f, busy.data(), 3);
        }
        // Port 0 (empty) is remembered once chosen, so every later comparison has a busier
        // port in it; only a first sample of the two busy ports ties.
        CHECK(count(EgressReason::LEAST_BACKLOG) >= 199);
        auto idle = Candidates(3, {0, 0, 0});
        for (int k = 0; k < 100; ++k)
        {
            lb->SelectEgress(Frame(300 + k, 100), f, idle.data(), 3);
        }
        CHECK(count(EgressReason::RANDOM) >= 100);
        CHECK(count(EgressReason::LEAST_BACKLOG) + count(EgressReason::RANDOM) == 300);
        CHECK(RowOf(*lb, 0, 3).offered == 300);
    }
    SECTION("LetFlow: random per new flowlet, then the flowlet's port")
    {
        auto lb = CreateObject<LetFlowLoadBalancer>();
        lb->AssignStreams(2);
        lb->EnableDecisionLog(3);
        const uint32_t i = lb->SelectEgress(Frame(0, 100), f, busy.data(), 3);
        CHECK(lb->SelectEgress(Frame(1, 100), f, busy.data(), 3) == i);
        const auto r = RowOf(*lb, static_cast<uint16_t>(i), 3);
        CHECK(ByReason(r, EgressReason::RANDOM) == 1);
        CHECK(ByReason(r, EgressReason::FLOWLET) == 1);
        CHECK(r.decisions == 1);
        CHECK(r.packets == 2);
    }
}

TEST_CASE("reason names as ar.csv writes them", "[unit][ar]")
{
    CHECK(std::string(EgressReasonName(EgressReason::POLICY)) == "policy");
    CHECK(std::string(EgressReasonName(EgressReason::LEAST_BACKLOG)) == "least_backlog");
    CHECK(std::string(EgressReasonName(EgressReason::CONWEAVE_REROUTE)) == "conweave_reroute");
}

} // namespace TUSK_TEST_FILE
