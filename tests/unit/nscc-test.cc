// The simplified NSCC (ns3::NsccCongestionControl) alone, no Simulator: one ACK at a time,
// each of the four ECN x delay quadrants (UEC 1.0 NSCC's decision table, simplified).

#include "rdma/model/nscc.h"

#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

using namespace ns3;

namespace
{

Ptr<NsccCongestionControl>
Make(uint64_t initial)
{
    auto cc = CreateObject<NsccCongestionControl>();
    cc->SetAttribute("MtuBytes", UintegerValue(4000));
    cc->SetAttribute("InitialWindowBytes", UintegerValue(initial));
    cc->SetAttribute("MinWindowBytes", UintegerValue(4000));
    cc->SetAttribute("MaxWindowBytes", UintegerValue(400'000));
    cc->SetAttribute("TargetDelay", TimeValue(MicroSeconds(10)));
    cc->SetAttribute("Alpha", DoubleValue(1.0));
    cc->SetAttribute("FairIncrease", DoubleValue(0.1));
    cc->SetAttribute("Beta", DoubleValue(0.5));
    cc->Init(100'000'000'000ULL);
    return cc;
}

} // namespace

TEST_CASE("NSCC: the four ECN x delay quadrants", "[unit][nscc][uec]")
{
    SECTION("no ECN, RTT below target: proportional increase")
    {
        auto cc = Make(40'000);
        // rtt 5 us of a 10 us target: += 1 * 4000 * 0.5 * 4000 / 40000 = 200 bytes
        cc->OnAckSample(false, MicroSeconds(5), MicroSeconds(100));
        CHECK(cc->GetCwnd() == Approx(40'200));
        CHECK(cc->GetWindowBytes() == 40'200);
    }
    SECTION("no ECN, RTT above target: fair increase")
    {
        auto cc = Make(40'000);
        cc->OnAckSample(false, MicroSeconds(20), MicroSeconds(100));
        CHECK(cc->GetCwnd() == Approx(40'040)); // 0.1 * 4000 * 4000 / 40000
    }
    SECTION("ECN, RTT below target: no change")
    {
        auto cc = Make(40'000);
        cc->OnAckSample(true, MicroSeconds(5), MicroSeconds(100));
        CHECK(cc->GetCwnd() == Approx(40'000));
    }
    SECTION("ECN, RTT above target: multiplicative decrease, once per RTT")
    {
        auto cc = Make(40'000);
        cc->OnAckSample(true, MicroSeconds(20), MicroSeconds(100));
        CHECK(cc->GetCwnd() == Approx(30'000)); // *= 1 - 0.5 * (20 - 10) / 20
        cc->OnAckSample(true, MicroSeconds(20), MicroSeconds(110)); // within one RTT: ignored
        CHECK(cc->GetCwnd() == Approx(30'000));
        cc->OnAckSample(true, MicroSeconds(20), MicroSeconds(121)); // a RTT later
        CHECK(cc->GetCwnd() == Approx(22'500));
    }
    SECTION("the window stays within [MinWindowBytes, MaxWindowBytes]")
    {
        auto cc = Make(4'000);
        for (int i = 0; i < 100; ++i)
        {
            cc->OnAckSample(true, MicroSeconds(1000), MicroSeconds(10'000 * (i + 1)));
        }
        CHECK(cc->GetCwnd() == Approx(4'000));
        auto big = Make(0); // 0 = start at the maximum
        CHECK(big->GetCwnd() == Approx(400'000));
        big->OnAckSample(false, MicroSeconds(1), MicroSeconds(1));
        CHECK(big->GetCwnd() == Approx(400'000));
    }
}
