// NSCC (ns3::NsccCongestionControl) alone, no Simulator: ACKs on a fake clock, checked
// against the UEC 1.0 NSCC rules with the reference simulator's constants (uet-htsim uec.cpp).
// The reference network: 100 Gb/s, base RTT 12 us, MTU 4096 B, so a = b = 1.

#include "rdma/model/cc/nscc.h"

#include "ns3/boolean.h"
#include "ns3/nstime.h"
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

constexpr double kMtu = 4096;
constexpr double kBdp = 150'000;         // 100 Gb/s x 12 us
constexpr double kEta = 0.15 * kMtu;     // per base RTT
constexpr double kTarget = 12e-6;        // = base RTT
constexpr double kAlpha = 4 * kMtu / kTarget;
constexpr double kFi = 5 * kMtu;

Ptr<NsccCongestionControl>
Make(uint64_t initial)
{
    auto cc = CreateObject<NsccCongestionControl>();
    cc->SetAttribute("InitialWindowBytes", UintegerValue(initial));
    RdmaCcSetup s;
    s.lineRateBps = 100'000'000'000ULL;
    s.baseRtt = MicroSeconds(12);
    s.mtuBytes = 4096;
    cc->Init(s);
    return cc;
}

RdmaCcAck
Ack(double nowUs, double rttUs, bool ecn = false, uint16_t ev = 1, uint64_t bytes = 4096)
{
    RdmaCcAck a;
    a.now = NanoSeconds(static_cast<int64_t>(nowUs * 1000));
    a.rtt = NanoSeconds(static_cast<int64_t>(rttUs * 1000));
    a.newlyAcked = 1;
    a.newlyAckedBytes = bytes;
    a.ecnEcho = ecn;
    a.entropy = ev;
    a.sndUna = 10;
    a.sndNxt = 20;
    return a;
}

} // namespace

TEST_CASE("NSCC: the window starts at 1.5 BDP and the target is the base RTT", "[unit][nscc][uec]")
{
    auto cc = Make(0);
    CHECK(cc->GetMaxWindow() == Approx(1.5 * kBdp));
    CHECK(cc->GetCwnd() == Approx(1.5 * kBdp));
    CHECK(cc->GetTarget() == MicroSeconds(12));
    // A shorter path than the fabric's longest: the base RTT and the largest window follow.
    cc->OnAck(Ack(100, 8));
    CHECK(cc->GetBaseRtt() == MicroSeconds(8));
    CHECK(cc->GetMaxWindow() == Approx(1.5 * 100e9 / 8 * 8e-6));
}

TEST_CASE("NSCC: the four ECN x delay quadrants", "[unit][nscc][uec]")
{
    // The first ACK (at 100 us, more than a base RTT after the start) fulfils at once:
    // cwnd += inc / cwnd + eta.
    SECTION("no ECN, delay below the target: proportional increase")
    {
        auto cc = Make(100'000);
        cc->OnAck(Ack(100, 12 + 6)); // queueing delay 6 us of a 12 us target
        CHECK(cc->GetCwnd() == Approx(100'000 + kAlpha * kMtu * 6e-6 / 100'000 + kEta));
    }
    SECTION("no ECN, delay above the target: fair increase")
    {
        auto cc = Make(100'000);
        cc->OnAck(Ack(100, 12 + 20));
        CHECK(cc->GetCwnd() == Approx(100'000 + kFi * kMtu / 100'000 + kEta));
    }
    SECTION("ECN, delay below the target: no change but eta")
    {
        auto cc = Make(100'000);
        cc->OnAck(Ack(100, 12 + 6, true));
        CHECK(cc->GetCwnd() == Approx(100'000 + kEta));
    }
    SECTION("ECN, delay above the target: decrease by the filtered delay, once per base RTT")
    {
        auto cc = Make(100'000);
        // The filter (gain 0.0125) passes the target after n samples of 36 us:
        // 36 (1 - 0.9875^n) > 12 from n = 33 on. Until then only eta comes in, once.
        double expected = 100'000 + kEta;
        int n = 0;
        for (; n < 32; ++n)
        {
            cc->OnAck(Ack(100 + 0.1 * n, 12 + 36, true));
        }
        CHECK(cc->GetCwnd() == Approx(expected));
        cc->OnAck(Ack(100 + 0.1 * n, 12 + 36, true));
        const double d = 36e-6 * (1 - std::pow(1 - 0.0125, 33));
        expected *= std::max(1 - 0.8 * (d - kTarget) / d, 0.5);
        CHECK(cc->GetFilteredDelay().GetSeconds() == Approx(d).margin(1e-9)); // Time: ns
        CHECK(cc->GetCwnd() == Approx(expected));
        cc->OnAck(Ack(104, 12 + 36, true)); // within a base RTT of the decrease: none
        CHECK(cc->GetCwnd() == Approx(expected));
    }
}

TEST_CASE("NSCC: fast increase after a window of ACKs at almost no delay", "[unit][nscc][uec]")
{
    auto cc = Make(40'960);
    double t = 100;
    double acked = 0;
    // ACKs at 0.5 us of queueing delay: proportional increase until more than a window of
    // bytes was acknowledged at below 1 us, then every such ACK adds a quarter of its bytes.
    int fastAt = -1;
    for (int i = 0; i < 100 && fastAt < 0; ++i)
    {
        const double before = cc->GetCwnd();
        cc->OnAck(Ack(t += 0.1, 12.5));
        acked += kMtu;
        if (cc->GetCwnd() - before >= 0.25 * kMtu - 1e-9 &&
            cc->GetCwnd() - before <= 0.25 * kMtu + 1e-9)
        {
            fastAt = i;
            CHECK(acked > before); // only after a window's worth of such ACKs
        }
    }
    REQUIRE(fastAt >= 0);
    for (int i = 0; i < 8; ++i) // the proportional increase accumulated before is fulfilled
    {
        const double before = cc->GetCwnd();
        cc->OnAck(Ack(t += 0.1, 12.5));
        CHECK(cc->GetCwnd() - before >= 0.25 * kMtu - 1e-9);
    }
    for (int i = 0; i < 5; ++i)
    {
        const double before = cc->GetCwnd();
        cc->OnAck(Ack(t += 0.1, 12.5));
        CHECK(cc->GetCwnd() - before >= 0.25 * kMtu - 1e-9);
        CHECK(cc->GetCwnd() - before <= 0.25 * kMtu + kEta + 1e-9);
    }
    // A delay above 1 us ends it.
    const double last = cc->GetCwnd();
    cc->OnAck(Ack(t += 0.1, 12 + 2));
    CHECK(cc->GetCwnd() < last + 0.25 * kMtu);
}

TEST_CASE("NSCC: quick adapt after a trim sets the window to what was delivered",
          "[unit][nscc][uec]")
{
    auto cc = Make(0);
    cc->OnAck(Ack(100, 14));       // opens the first period: it ends at 100 + 12 + 12 us
    cc->OnAck(Ack(110, 14));
    cc->OnAck(Ack(120, 14));
    RdmaCcAck trim;
    trim.now = MicroSeconds(121);
    trim.nak = true;
    trim.trimmed = true;
    trim.lostBytes = 4096;
    trim.sndUna = 10;
    trim.sndNxt = 20;
    const double before = cc->GetCwnd();
    cc->OnAck(trim);               // within the period: the window loses the trimmed bytes
    CHECK(cc->GetCwnd() == Approx(before - 4096));
    CHECK(cc->GetQuickAdapts() == 0);
    cc->OnAck(Ack(130, 14));       // the period ended: 3 packets delivered in it
    CHECK(cc->GetQuickAdapts() == 1);
    CHECK(cc->GetCwnd() == Approx(3 * 4096));
}

TEST_CASE("NSCC: per-path filtered delay decides the decrease", "[unit][nscc][uec]")
{
    auto cc = Make(100'000);
    // EV 1 is congested (48 us of queueing, ECN), EV 2 is not (1 us, no ECN).
    for (int i = 0; i < 200; ++i)
    {
        cc->OnAck(Ack(100 + 0.01 * i, 12 + 40, true, 1));
        cc->OnAck(Ack(100 + 0.01 * i + 0.005, 13, false, 2));
    }
    CHECK(cc->GetPathDelay(1) > MicroSeconds(20));
    CHECK(cc->GetPathDelay(2) < MicroSeconds(2));
    // An ECN mark above the target on EV 2 decreases by EV 2's small filtered delay: nothing.
    const double before = cc->GetCwnd();
    cc->OnAck(Ack(200, 12 + 20, true, 2));
    CHECK(cc->GetCwnd() >= before);
    // The same signal on EV 1 decreases by EV 1's.
    cc->OnAck(Ack(201, 12 + 20, true, 1));
    CHECK(cc->GetCwnd() < before);
}

TEST_CASE("NSCC: the window stays within its bounds", "[unit][nscc][uec]")
{
    auto cc = Make(4096);
    for (int i = 0; i < 1000; ++i)
    {
        cc->OnAck(Ack(100 + 20 * i, 12 + 100, true));
    }
    CHECK(cc->GetCwnd() >= 4096);
    auto big = Make(0);
    for (int i = 0; i < 100; ++i)
    {
        big->OnAck(Ack(100 + i, 12.1));
    }
    CHECK(big->GetCwnd() == Approx(1.5 * kBdp));
}

} // namespace TUSK_TEST_FILE
