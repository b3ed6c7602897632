// DCQCN's reaction point with a Mellanox NIC's two clocks, as the HPCC simulator models them
// (alibaba-edu/High-Precision-Congestion-Control, simulation/src/point-to-point/model/rdma-hw.cc):
// alpha moves only at the ticks of its AlphaResumInterval clock (UpdateAlphaMlx: up by g if a CNP
// arrived since the last tick, else down), and the rate is cut only at the ticks of a
// RateDecreaseInterval clock started by the first CNP, 1 ns late (CheckRateDecreaseMlx: one cut
// if a CNP arrived since the last check). Each expected number below follows from those rules by
// hand; the last checks of each case run the same script with the attribute off (tusk's
// default) and pin the numbers that differ. The RP runs alone on the Simulator (no fabric).

#include "rdma/model/cc/dcqcn.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <utility>
#include <vector>

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

/** The `hpcc` preset at 100 Gb/s, then `alphaOnTimer` and `decreaseOnTimer` as given. */
Ptr<DcqcnCongestionControl>
HpccRp(bool alphaOnTimer, bool decreaseOnTimer)
{
    auto cc = CreateObject<DcqcnCongestionControl>();
    for (const auto& [name, value] : DcqcnCongestionControl::Preset("hpcc", 100'000'000'000ULL))
    {
        cc->SetAttribute(name, *value);
    }
    cc->SetAttribute("AlphaUpdateOnTimer", BooleanValue(alphaOnTimer));
    cc->SetAttribute("DecreaseOnTimer", BooleanValue(decreaseOnTimer));
    RdmaCcSetup setup;
    setup.lineRateBps = 100'000'000'000ULL;
    cc->Init(setup);
    return cc;
}

void
CnpAt(Ptr<DcqcnCongestionControl> cc, Time t)
{
    Simulator::Schedule(t, [cc]() { cc->OnCnp(Simulator::Now()); });
}

bool
PresetFlag(const std::string& preset, const std::string& attribute)
{
    for (const auto& [name, value] : DcqcnCongestionControl::Preset(preset, 100'000'000'000ULL))
    {
        if (name == attribute)
        {
            return DynamicCast<const BooleanValue>(value)->Get();
        }
    }
    FAIL("no attribute " << attribute << " in preset " << preset);
    return false;
}

} // namespace

TEST_CASE("DCQCN presets: hpcc runs alpha and the decrease on their timers, paper does not",
          "[unit][dcqcn][mellanox]")
{
    CHECK(PresetFlag("hpcc", "AlphaUpdateOnTimer"));
    CHECK(PresetFlag("hpcc", "DecreaseOnTimer"));
    CHECK_FALSE(PresetFlag("paper", "AlphaUpdateOnTimer"));
    CHECK_FALSE(PresetFlag("paper", "DecreaseOnTimer"));
}

TEST_CASE("DCQCN alpha on its timer: CNPs within one period raise alpha once, at the tick",
          "[unit][dcqcn][mellanox]")
{
    // g = 1/16, K = 55 us (rdma-hw.cc's defaults EwmaGain and AlphaResumInterval). The first
    // CNP (t = 0) starts the clock at alpha = 1 (cnp_received_mlx's first-CNP branch: alpha = 1,
    // flag cleared); ticks at 55 and 110 us without CNPs: alpha = (15/16)^2; fifty CNPs at
    // 111..160 us set the flag; the tick at 165 us: alpha = (15/16)^3 + 1/16.
    // Cuts after the first are kept out of the way (a 1 s decrease interval) so alpha alone shows.
    const double g = 1.0 / 16;
    auto run = [&](bool onTimer) {
        SimulatorGuard guard;
        auto cc = HpccRp(onTimer, false);
        cc->SetAttribute("Gain", DoubleValue(g));
        cc->SetAttribute("AlphaUpdatePeriod", TimeValue(MicroSeconds(55)));
        cc->SetAttribute("MinDecreaseInterval", TimeValue(Seconds(1)));
        CnpAt(cc, Time(0));
        for (int us = 111; us <= 160; ++us)
        {
            CnpAt(cc, MicroSeconds(us));
        }
        std::vector<double> alpha;
        for (int us : {54, 56, 111, 164, 166})
        {
            Simulator::Schedule(MicroSeconds(us),
                                [&alpha, cc]() { alpha.push_back(cc->GetAlpha()); });
        }
        Simulator::Stop(MicroSeconds(200));
        Simulator::Run();
        return alpha;
    };
    const auto mlx = run(true);
    REQUIRE(mlx.size() == 5);
    CHECK(mlx[0] == Approx(1.0));
    CHECK(mlx[1] == Approx(1 - g));
    CHECK(mlx[2] == Approx(std::pow(1 - g, 2))); // the CNP at 111 us waits for a tick
    CHECK(mlx[3] == Approx(std::pow(1 - g, 2))); // fifty CNPs, still no change
    CHECK(mlx[4] == Approx(std::pow(1 - g, 3) + g)); // one raise at 165 us
    // tusk's default raises alpha only at a cut, and with a 1 s decrease interval the CNPs
    // after the first do not cut: no raise at 165 us.
    const auto cut = run(false);
    REQUIRE(cut.size() == 5);
    CHECK(cut[4] == Approx(std::pow(1 - g, 3)));
}

TEST_CASE("DCQCN decrease on its timer: a CNP is cut at the next 4 us tick, never ignored",
          "[unit][dcqcn][mellanox]")
{
    // RATE_DECREASE_INTERVAL 4 us (the HPCC simulator's DCQCN config); g = 0 keeps alpha at 1
    // so every cut halves. CNPs at 0, 5, 6, 9.5 and 13 us. The clock starts at the first CNP:
    // checks at 4, 8, 12, 16 us (+1 ns), each flagged by a CNP of the 4 us before it, so the rate
    // halves at each: 100 G until 4 us, then 50, 25, 12.5, 6.25 G.
    auto run = [&](bool onTimer) {
        SimulatorGuard guard;
        auto cc = HpccRp(false, onTimer);
        cc->SetAttribute("Gain", DoubleValue(0.0));
        for (int64_t ns : {0, 5000, 6000, 9500, 13000})
        {
            CnpAt(cc, NanoSeconds(ns));
        }
        std::vector<double> rate;
        for (int64_t ns : {2000, 4500, 8500, 12500, 16500})
        {
            Simulator::Schedule(NanoSeconds(ns),
                                [&rate, cc]() { rate.push_back(cc->GetRateBps() / 1e9); });
        }
        Simulator::Stop(MicroSeconds(20));
        Simulator::Run();
        return std::make_pair(rate, cc->GetCnpsReacted());
    };
    const auto [mlx, mlxCuts] = run(true);
    REQUIRE(mlx.size() == 5);
    const double expected[] = {100, 50, 25, 12.5, 6.25};
    for (int k = 0; k < 5; ++k)
    {
        INFO("sample " << k);
        CHECK(mlx[k] == Approx(expected[k]));
    }
    CHECK(mlxCuts == 4);
    // tusk's default: the first CNP cuts at once (50 G at 2 us), and the one at 13 us, 3.5 us
    // after the cut at 9.5 us, is ignored (12.5 G at 16.5 us).
    const auto [cut, cutCuts] = run(false);
    REQUIRE(cut.size() == 5);
    CHECK(cut[0] == Approx(50));
    CHECK(cut[4] == Approx(12.5));
    CHECK(cutCuts == 3);
}

TEST_CASE("DCQCN: its state is GetState's words until the first CNP and no longer after it",
          "[unit][dcqcn][fast-mode]")
{
    // Fast mode's exact rule compares GetState() only (RdmaCongestionControl::StateIsComplete):
    // before any CNP the RP sends at line rate with no timer and no byte counting; after one,
    // its timers run on a clock started at that CNP and its counters move, none in GetState().
    const SimulatorGuard guard;
    for (bool onTimer : {false, true})
    {
        const Ptr<DcqcnCongestionControl> cc = HpccRp(onTimer, onTimer);
        CHECK(cc->StateIsComplete());
        cc->OnDataSent(4096, Seconds(0)); // no CNP yet: nothing counted
        CHECK(cc->StateIsComplete());
        CnpAt(cc, MicroSeconds(5));
        Simulator::Stop(MicroSeconds(10));
        Simulator::Run();
        CHECK_FALSE(cc->StateIsComplete());
        CHECK(cc->GetState().rateBps < 100e9); // the CNP was reacted to
        Simulator::Destroy();
    }
    CHECK(CreateObject<RdmaCcNone>()->StateIsComplete());
}

} // namespace TUSK_TEST_FILE
