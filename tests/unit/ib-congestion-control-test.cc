// InfiniBand congestion control (IBA vol. 1 annex A10): the CCT walk of
// ns3::IbCongestionControl with a fake clock, no Simulator.

#include "rdma/model/cc/ib-congestion-control.h"

#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

Ptr<IbCongestionControl>
Make(uint32_t increase, uint32_t limit, Time timer, Time step)
{
    auto cc = CreateObject<IbCongestionControl>();
    cc->SetAttribute("CctiIncrease", UintegerValue(increase));
    cc->SetAttribute("CctiLimit", UintegerValue(limit));
    cc->SetAttribute("CctiTimer", TimeValue(timer));
    cc->SetAttribute("CctStep", TimeValue(step));
    RdmaCcSetup setup;
    setup.lineRateBps = 100'000'000'000ULL;
    setup.mtuBytes = 4000; // 320 ns at 100 Gb/s
    cc->Init(setup);
    return cc;
}

} // namespace

TEST_CASE("IB CC: CCTI rises per BECN up to CCTI_Limit, the CCT's IPD sets the rate",
          "[unit][ib][cc]")
{
    auto cc = Make(2, 10, MicroSeconds(10), NanoSeconds(32));
    CHECK(cc->GetRateBps() == 100'000'000'000ULL); // CCTI 0: line rate
    Time t = MicroSeconds(1);
    cc->OnAckSample(true, Time(0), t);
    CHECK(cc->GetCcti(t) == 2);
    // CCT[2] = 64 ns after each 320 ns packet: 100 G x 320 / 384.
    CHECK(cc->GetRateBps() == Approx(100e9 * 320.0 / 384.0).epsilon(1e-9));
    cc->OnAckSample(false, Time(0), t); // an unmarked packet changes nothing
    CHECK(cc->GetCcti(t) == 2);
    for (int i = 0; i < 10; ++i)
    {
        cc->OnAckSample(true, Time(0), t);
    }
    CHECK(cc->GetCcti(t) == 10); // capped at CCTI_Limit
    CHECK(cc->GetRateBps() == Approx(100e9 * 320.0 / (320.0 + 320.0)).epsilon(1e-9));
    // Every echoed mark is a BECN, counted whether or not it moved the index.
    CHECK(cc->GetBecns() == 11);
    CHECK(cc->GetMaxCcti() == 10);
    CHECK(cc->GetCcti(t + MilliSeconds(1)) == 0);
    CHECK(cc->GetMaxCcti() == 10); // the peak stays
}

TEST_CASE("IB CC: the CCTI timer lowers the index one entry per period down to CCTI_Min",
          "[unit][ib][cc]")
{
    auto cc = Make(1, 127, MicroSeconds(10), NanoSeconds(20));
    Time t = MicroSeconds(100);
    for (int i = 0; i < 5; ++i)
    {
        cc->OnAckSample(true, Time(0), t); // CCTI 5, the timer period starts at 100 us
    }
    CHECK(cc->GetCcti(t) == 5);
    CHECK(cc->GetCcti(t + MicroSeconds(9)) == 5);
    CHECK(cc->GetCcti(t + MicroSeconds(10)) == 4);
    CHECK(cc->GetCcti(t + MicroSeconds(35)) == 2);
    // A BECN meanwhile: +1, and the timer keeps its phase (next step at 140 us).
    cc->OnAckSample(true, Time(0), t + MicroSeconds(36));
    CHECK(cc->GetCcti(t + MicroSeconds(39)) == 3);
    CHECK(cc->GetCcti(t + MicroSeconds(40)) == 2);
    // Recovery to line rate, never below CCTI_Min (0).
    CHECK(cc->GetCcti(t + MilliSeconds(1)) == 0);
    CHECK(cc->GetRateBps() == 100'000'000'000ULL);
    cc->OnDataSent(4000, t + MilliSeconds(2));
    CHECK(cc->GetCcti(t + MilliSeconds(2)) == 0);
}

} // namespace TUSK_TEST_FILE
