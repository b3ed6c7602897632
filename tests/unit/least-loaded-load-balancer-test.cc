// Least-loaded adaptive routing (`ar`, per packet) and its flowlet mode (`flowlet-ar`, the
// flowlet mode of switch dynamic load balancing) alone: decisions on a fake clock
// (LbContext.now), no Simulator.

#include "lb-policies/switch/least-loaded-load-balancer.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include "lb-test-helpers.h"

#include <catch2/catch.hpp>

#include <array>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;
using namespace tusk_test;

namespace
{

Ptr<LeastLoadedLoadBalancer>
FlowletAr(Time gap)
{
    auto lb = CreateObject<LeastLoadedLoadBalancer>();
    lb->SetAttribute("FlowletGap", TimeValue(gap));
    lb->AssignStreams(3);
    return lb;
}

} // namespace

TEST_CASE("least-loaded AR breaks ties uniformly at random (oracle 11)", "[unit][ar][oracle11]")
{
    // Queue loads (1, 3, 1, 5): ports 0 and 2 each 50 % +- 2 % over 10^4 decisions (sd 0.5 %),
    // ports 1 and 3 never.
    auto lb = CreateObject<LeastLoadedLoadBalancer>();
    lb->AssignStreams(11);
    auto c = Candidates(4, {1, 3, 1, 5});
    std::array<int, 4> n{};
    for (int i = 0; i < 10000; ++i)
    {
        ++n[Pick(lb, At(i), Flow(0, 1, 2), c)];
    }
    CHECK(n[1] == 0);
    CHECK(n[3] == 0);
    CHECK(n[0] / 1e4 == Approx(0.5).margin(0.02));
    CHECK(n[2] / 1e4 == Approx(0.5).margin(0.02));
    // Three-way tie: 1/3 each.
    auto c3 = Candidates(4, {2, 2, 9, 2});
    std::array<int, 4> m{};
    for (int i = 0; i < 30000; ++i)
    {
        ++m[Pick(lb, At(i), Flow(0, 1, 2), c3)];
    }
    CHECK(m[2] == 0);
    for (int k : {0, 1, 3})
    {
        CHECK(m[k] / 3e4 == Approx(1.0 / 3).margin(0.015));
    }
}

TEST_CASE("least-loaded AR: pause state, utilisation weight and quantised loads",
          "[unit][ar]")
{
    auto lb = CreateObject<LeastLoadedLoadBalancer>();
    auto c = Candidates(3, {0, 500, 900});
    c[0].paused = true;
    CHECK(Pick(lb, At(0), Flow(0, 1, 2), c) == 1); // the empty port is paused
    lb->SetAttribute("PauseAware", BooleanValue(false));
    CHECK(Pick(lb, At(0), Flow(0, 1, 2), c) == 0);
    // All paused: still the least loaded.
    lb->SetAttribute("PauseAware", BooleanValue(true));
    for (auto& x : c)
    {
        x.paused = true;
    }
    CHECK(Pick(lb, At(0), Flow(0, 1, 2), c) == 0);
    // Utilisation: equal queues, different DRE utilisation.
    auto u = Candidates(2, {1000, 1000});
    u[0].utilisation = 0.9;
    u[1].utilisation = 0.1;
    lb->SetAttribute("UtilisationWeight", DoubleValue(10000));
    CHECK(Pick(lb, At(0), Flow(0, 1, 2), u) == 1);
    // Quantised: 1000 and 1500 bytes are the same level of 4 KiB: a tie.
    lb->SetAttribute("UtilisationWeight", DoubleValue(0));
    lb->SetAttribute("QuantumBytes", UintegerValue(4096));
    auto q = Candidates(2, {1000, 1500});
    std::array<int, 2> n{};
    for (int i = 0; i < 4000; ++i)
    {
        ++n[Pick(lb, At(0), Flow(0, 1, 2), q)];
    }
    CHECK(n[0] / 4e3 == Approx(0.5).margin(0.04));
}

TEST_CASE("flowlet AR: a flow keeps its port within a flowlet, re-decides after the gap, and "
          "moves only to a strictly less loaded port",
          "[unit][ar][flowlet]")
{
    auto lb = FlowletAr(MicroSeconds(50));
    const FrameMeta f = Flow(0, 9, 50000);
    auto c = Candidates(4, {4096, 0, 8192, 4096});
    // The first packet takes the least loaded port.
    REQUIRE(Pick(lb, At(0), f, c) == 1);
    // Port 1 fills up, port 3 empties: packets 1 us apart stay on port 1 (no reordering).
    c = Candidates(4, {4096, 900000, 8192, 0});
    for (int k = 1; k <= 100; ++k)
    {
        CHECK(Pick(lb, At(k), f, c) == 1);
    }
    CHECK(lb->GetFlowlets() == 1);
    // A gap of 50 us exactly is still the same flowlet ...
    CHECK(Pick(lb, At(150), f, c) == 1);
    // ... a gap of 51 us starts a new one, which goes to the least loaded port.
    CHECK(Pick(lb, At(201), f, c) == 3);
    CHECK(lb->GetFlowlets() == 2);
    CHECK(lb->GetMoves() == 1);
    // After the next gap, port 3 is as loaded as the least loaded: the flow stays.
    c = Candidates(4, {4096, 4096, 8192, 4096});
    for (int k = 1; k <= 50; ++k)
    {
        CHECK(Pick(lb, At(201 + 100 * k), f, c) == 3);
    }
    CHECK(lb->GetFlowlets() == 52);
    CHECK(lb->GetMoves() == 1);
    // Its port paused by PFC: the next flowlet leaves it.
    c[3].paused = true;
    const uint32_t next = Pick(lb, At(6000), f, c);
    CHECK((next == 0 || next == 1));
    CHECK(lb->GetMoves() == 2);
}

TEST_CASE("flowlet AR: flows that start together spread over idle ports as their first packets "
          "fill them",
          "[unit][ar][flowlet]")
{
    // Four flows start at the same instant; each first packet joins the port it chose (the
    // switch's candidates see it, queued or on the wire). Every port gets one flow, and each
    // flow keeps it: the placement an uplink-balanced permutation needs.
    auto lb = FlowletAr(MicroSeconds(50));
    auto c = Candidates(4);
    std::array<uint32_t, 4> port{};
    for (uint32_t i = 0; i < 4; ++i)
    {
        port[i] = Pick(lb, At(0), Flow(i, 8 + i, static_cast<uint16_t>(50000 + i)), c);
        c[port[i]].queueBytes += 4158;
    }
    std::array<int, 4> used{};
    for (uint32_t p : port)
    {
        ++used[p];
    }
    CHECK(used == std::array<int, 4>{1, 1, 1, 1});
    for (int k = 1; k < 20; ++k)
    {
        for (uint32_t i = 0; i < 4; ++i)
        {
            CHECK(Pick(lb, At(0.3 * k), Flow(i, 8 + i, static_cast<uint16_t>(50000 + i)), c) ==
                  port[i]);
        }
    }
}

TEST_CASE("AR with FlowletGap 0 decides every packet: the per-packet `ar` preset",
          "[unit][ar]")
{
    auto lb = CreateObject<LeastLoadedLoadBalancer>();
    lb->AssignStreams(5);
    const FrameMeta f = Flow(0, 9, 50000);
    auto c = Candidates(2, {0, 4096});
    CHECK(Pick(lb, At(0), f, c) == 0);
    c = Candidates(2, {4096, 0});
    CHECK(Pick(lb, At(0.001), f, c) == 1); // the next packet, 1 ns later, moves
    CHECK(lb->GetFlowlets() == 2);
}

} // namespace TUSK_TEST_FILE
