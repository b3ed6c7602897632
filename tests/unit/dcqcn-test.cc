// DCQCN reaction point (Zhu et al., SIGCOMM 2015): oracles 15 and 16. The RP's timers are ns-3
// events, so these run the Simulator on the object alone (no fabric).

#include "rdma/model/cc/dcqcn.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <cmath>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

struct SimulatorGuard
{
    ~SimulatorGuard() { Simulator::Destroy(); }
};

Ptr<DcqcnCongestionControl>
TimerOnly(Time t, uint32_t f)
{
    auto cc = CreateObject<DcqcnCongestionControl>();
    cc->SetAttribute("RateIncreaseTimer", TimeValue(t));
    cc->SetAttribute("FastRecoveryStages", UintegerValue(f));
    cc->SetAttribute("ByteCounter", UintegerValue(0)); // timer only
    cc->SetAttribute("InitialAlpha", DoubleValue(1.0));
    cc->SetAttribute("RateAi", UintegerValue(5'000'000));
    RdmaCcSetup setup;
    setup.lineRateBps = 100'000'000'000ULL;
    cc->Init(setup);
    return cc;
}

} // namespace

TEST_CASE("DCQCN fast recovery, timer only, T = 300 us, F = 1 (oracle 15)", "[unit][dcqcn][oracle15]")
{
    SimulatorGuard guard;
    auto cc = TimerOnly(MicroSeconds(300), 1);
    std::vector<double> rate;
    Simulator::Schedule(MicroSeconds(0), [&]() { cc->OnCnp(Simulator::Now()); });
    for (int k = 0; k <= 4; ++k)
    {
        // Sample just after each timer event (+1 us): 50 G, then 75, 87.5, 93.75, 96.875 G.
        Simulator::Schedule(MicroSeconds(300 * k + 1), [&]() { rate.push_back(cc->GetRateBps() / 1e9); });
    }
    Simulator::Stop(MicroSeconds(1300));
    Simulator::Run();
    REQUIRE(rate.size() == 5);
    const double expected[] = {50, 75, 87.5, 93.75, 96.875};
    for (int k = 0; k < 5; ++k)
    {
        INFO("after " << k << " timer events");
        CHECK(rate[k] == Approx(expected[k]).epsilon(0.01));
    }
    // And not before the timer: 5 us before the first event the rate is still 50 G.
}

TEST_CASE("DCQCN fast recovery, F = 5, T = 55 us: 98.44 G after five steps (oracle 15)",
          "[unit][dcqcn][oracle15]")
{
    SimulatorGuard guard;
    auto cc = TimerOnly(MicroSeconds(55), 5);
    double before = 0;
    double after = 0;
    Simulator::Schedule(MicroSeconds(0), [&]() { cc->OnCnp(Simulator::Now()); });
    Simulator::Schedule(MicroSeconds(5 * 55 - 5), [&]() { before = cc->GetRateBps() / 1e9; });
    Simulator::Schedule(MicroSeconds(5 * 55 + 5), [&]() { after = cc->GetRateBps() / 1e9; });
    Simulator::Stop(MicroSeconds(300));
    Simulator::Run();
    CHECK(before == Approx(96.875).epsilon(0.01)); // four steps
    CHECK(after == Approx(98.4375).epsilon(0.01));  // five: 100 - 50 / 2^5
}

TEST_CASE("DCQCN alpha halves after 177 updates without CNPs, g = 1/256 (oracle 16)",
          "[unit][dcqcn][oracle16]")
{
    SimulatorGuard guard;
    auto cc = TimerOnly(MicroSeconds(55), 5);
    cc->SetAttribute("Gain", DoubleValue(1.0 / 256));
    cc->SetAttribute("AlphaUpdatePeriod", TimeValue(MicroSeconds(10)));
    // One CNP at t = 0 takes alpha from 1 to (1 - g) 1 + g = 1; then one update every 10 us.
    double at176 = 0;
    double at177 = 0;
    double at178 = 0;
    Simulator::Schedule(MicroSeconds(0), [&]() { cc->OnCnp(Simulator::Now()); });
    Simulator::Schedule(MicroSeconds(1765), [&]() { at176 = cc->GetAlpha(); });
    Simulator::Schedule(MicroSeconds(1775), [&]() { at177 = cc->GetAlpha(); });
    Simulator::Schedule(MicroSeconds(1785), [&]() { at178 = cc->GetAlpha(); });
    Simulator::Stop(MicroSeconds(1800));
    Simulator::Run();
    // (1 - 1/256)^n = 1/2 at n = ln 2 / -ln(255/256) = 177.1
    CHECK(at176 > 0.5);
    CHECK(at177 > 0.5);
    CHECK(at178 < 0.5);
    CHECK(at177 == Approx(std::pow(255.0 / 256, 177)).epsilon(1e-9));
}

TEST_CASE("DCQCN cut: Rc (1 - alpha/2), min rate floor, and RateOnFirstCnp", "[unit][dcqcn]")
{
    SimulatorGuard guard;
    auto cc = TimerOnly(MicroSeconds(300), 1);
    cc->SetAttribute("MinRate", UintegerValue(30'000'000'000ULL));
    cc->OnCnp(Seconds(0));
    CHECK(cc->GetRateBps() == 50'000'000'000ULL); // alpha 1: halve
    cc->OnCnp(Seconds(0));
    CHECK(cc->GetRateBps() == 30'000'000'000ULL); // 25 G would be below the 30 G floor
    auto first = TimerOnly(MicroSeconds(300), 1);
    first->SetAttribute("RateOnFirstCnp", UintegerValue(10'000'000'000ULL));
    first->OnCnp(Seconds(0));
    CHECK(first->GetRateBps() == 10'000'000'000ULL);
}

TEST_CASE("DCQCN RateChange trace: every cut, increase and alpha decay, with Rc, Rt and alpha",
          "[unit][dcqcn][oracle15]")
{
    // Oracle 15 (timer only, T = 300 us, F = 1, alpha0 = 1, 100 Gb/s) seen through the trace:
    // the CNP at 0 cuts Rc to 50 G with Rt = 100 G and alpha = 1; the timer events at 300, 600,
    // 900 us move Rc halfway to Rt: 75, 87.5, 93.75 G (Rt stays 100 G: fast recovery, then the
    // line-rate clamp); alpha decays by (1 - g) every K = 55 us in between.
    SimulatorGuard guard;
    auto cc = TimerOnly(MicroSeconds(300), 1);
    struct Change
    {
        double tUs, rc, rt, alpha;
    };
    std::vector<Change> changes;
    REQUIRE(cc->TraceConnectWithoutContext(
        "RateChange", Callback<void, double, double, double>([&](double rc, double rt, double a) {
            changes.push_back({Simulator::Now().GetMicroSeconds() * 1.0, rc / 1e9, rt / 1e9, a});
        })));
    Simulator::Schedule(MicroSeconds(0), [&]() { cc->OnCnp(Simulator::Now()); });
    Simulator::Stop(MicroSeconds(950));
    Simulator::Run();
    REQUIRE(!changes.empty());
    CHECK(changes[0].tUs == 0);
    CHECK(changes[0].rc == Approx(50));
    CHECK(changes[0].rt == Approx(100));
    CHECK(changes[0].alpha == Approx(1.0));
    std::vector<double> increases;
    int decays = 0;
    double lastAlpha = changes[0].alpha;
    for (size_t i = 1; i < changes.size(); ++i)
    {
        if (changes[i].alpha < lastAlpha)
        {
            ++decays;
            CHECK(changes[i].alpha == Approx(lastAlpha * 255.0 / 256));
            CHECK(std::fmod(changes[i].tUs, 55.0) == 0);
        }
        else
        {
            increases.push_back(changes[i].tUs);
            CHECK(changes[i].rt == Approx(100));
        }
        lastAlpha = changes[i].alpha;
    }
    CHECK(increases == std::vector<double>{300, 600, 900});
    CHECK(decays == 17); // 55, 110, ..., 935 us
    CHECK(changes.back().rc == Approx(93.75));
    CHECK(cc->GetRateBps() / 1e9 == Approx(93.75));
}

TEST_CASE("DCQCN without a byte counter: the timer alone counts the stages, F fast recovery, one "
          "additive step, then hyper increase by R_HAI per event (HPCC simulator, Mellanox NIC)",
          "[unit][dcqcn]")
{
    // The HPCC simulator's rate increase (rdma-hw.cc, RateIncEventMlx, timer stage s from 0
    // after a cut): s < F fast recovery, s = F additive (Rt += R_AI), s > F hyper (Rt += R_HAI).
    // Two CNPs 1 us apart bring Rt to 50 G (the second clamps Rt to the rate the first left) and
    // Rc to 25 G, so increases of Rt are not hidden by the line-rate clamp. With F = 1,
    // R_AI = 5 G, R_HAI = 10 G: Rt after the timer events = 50, 55, 65, 75 G. The two-counter
    // rule with B's stage stuck at 0 gives 50, 55, 60, 65 (additive only).
    SimulatorGuard guard;
    auto cc = TimerOnly(MicroSeconds(100), 1);
    cc->SetAttribute("RateAi", UintegerValue(5'000'000'000ULL));
    cc->SetAttribute("RateHai", UintegerValue(10'000'000'000ULL));
    std::vector<double> rt;
    REQUIRE(cc->TraceConnectWithoutContext(
        "RateChange", Callback<void, double, double, double>([&](double, double t, double) {
            // Only the timer's events (every 100 us after the second CNP at 1 us) matter here.
            const int64_t us = Simulator::Now().GetMicroSeconds();
            if (us > 1 && (us - 1) % 100 == 0)
            {
                rt.push_back(t / 1e9);
            }
        })));
    Simulator::Schedule(MicroSeconds(0), [&]() { cc->OnCnp(Simulator::Now()); });
    Simulator::Schedule(MicroSeconds(1), [&]() { cc->OnCnp(Simulator::Now()); });
    Simulator::Stop(MicroSeconds(450));
    Simulator::Run();
    REQUIRE(rt.size() >= 4);
    const double expected[] = {50, 55, 65, 75};
    for (int k = 0; k < 4; ++k)
    {
        INFO("timer event " << k + 1);
        CHECK(rt[k] == Approx(expected[k]).epsilon(1e-6));
    }
}

} // namespace TUSK_TEST_FILE
