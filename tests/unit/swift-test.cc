// The Swift-like window (ns3::SwiftCongestionControl) alone, no Simulator: Algorithm 1 of
// Kumar et al., "Swift: Delay is Simple and Effective for Congestion Control in the
// Datacenter", SIGCOMM 2020, on a fake clock.

#include "rdma/model/cc/swift.h"

#include "ns3/double.h"
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

Ptr<SwiftCongestionControl>
Make(double initial, Time fsRange = Time(0))
{
    auto cc = CreateObject<SwiftCongestionControl>();
    cc->SetAttribute("BaseTarget", TimeValue(MicroSeconds(5)));
    cc->SetAttribute("HopScaling", TimeValue(MicroSeconds(1)));
    cc->SetAttribute("FsRange", TimeValue(fsRange));
    cc->SetAttribute("InitialCwnd", DoubleValue(initial));
    RdmaCcSetup s;
    s.lineRateBps = 100'000'000'000ULL;
    s.baseRtt = MicroSeconds(10);
    s.mtuBytes = 4096; // one BDP = 125,000 B = 30.5 packets
    cc->Init(s);
    return cc;
}

RdmaCcAck
Ack(double nowUs, double rttUs, uint8_t hops = 3, uint64_t n = 1)
{
    RdmaCcAck a;
    a.now = NanoSeconds(static_cast<int64_t>(nowUs * 1000));
    a.rtt = NanoSeconds(static_cast<int64_t>(rttUs * 1000));
    a.newlyAcked = n;
    a.hops = hops;
    return a;
}

} // namespace

TEST_CASE("Swift: target delay = base + hops x h + flow scaling", "[unit][swift]")
{
    auto plain = Make(10);
    CHECK(plain->TargetDelay(3) == MicroSeconds(8));
    CHECK(plain->TargetDelay(5) == MicroSeconds(10));
    // fs_range 5 us, fs_min_cwnd 0.1, fs_max_cwnd 100: alpha = 5 / (1/sqrt(0.1) - 1/10) us.
    const double a = 5.0 / (1 / std::sqrt(0.1) - 0.1);
    auto one = Make(1, MicroSeconds(5));
    CHECK(one->TargetDelay(0).GetSeconds() * 1e6 == Approx(5 + a - a / 10).margin(1e-3));
    auto big = Make(30, MicroSeconds(5));
    CHECK(big->TargetDelay(0).GetSeconds() * 1e6 == Approx(5 + a / std::sqrt(30) - a / 10).margin(1e-3));
    auto tiny = Make(0.01, MicroSeconds(5));
    CHECK(tiny->TargetDelay(0) == MicroSeconds(10)); // clamped at fs_range
}

TEST_CASE("Swift: additive increase below the target, multiplicative decrease above",
          "[unit][swift]")
{
    auto cc = Make(10);
    cc->OnAck(Ack(100, 6, 3, 2)); // 6 us < 8 us: cwnd += ai / cwnd x 2
    CHECK(cc->GetCwnd() == Approx(10 + 2.0 / 10));
    double w = cc->GetCwnd();
    cc->OnAck(Ack(101, 16)); // 16 us: x max(1 - 0.8 (16 - 8) / 16, 0.5) = x 0.6
    w *= 0.6;
    CHECK(cc->GetCwnd() == Approx(w));
    cc->OnAck(Ack(110, 16)); // within an RTT (16 us) of the decrease: none
    CHECK(cc->GetCwnd() == Approx(w));
    cc->OnAck(Ack(202, 100)); // an RTT (this ACK's, 100 us) later, a huge delay: max_mdf 0.5
    w *= 0.5;
    CHECK(cc->GetCwnd() == Approx(w));
    CHECK(cc->GetWindowBytes() == static_cast<uint64_t>(w * 4096));
    CHECK(cc->GetRateBps() == 100'000'000'000ULL); // cwnd >= 1: window-limited, line rate
}

TEST_CASE("Swift: below one packet the QP is paced at cwnd x MTU / RTT", "[unit][swift]")
{
    auto cc = Make(0.5);
    cc->OnAck(Ack(100, 7)); // below target: cwnd += ai x 1 (cwnd < 1)
    CHECK(cc->GetCwnd() == Approx(1.5));
    cc->OnAck(Ack(101, 40)); // x max(1 - 0.8 x 32 / 40, 0.5) = 0.5
    CHECK(cc->GetCwnd() == Approx(0.75));
    CHECK(cc->GetWindowBytes() == 4096); // one packet outstanding at most
    CHECK(static_cast<double>(cc->GetRateBps()) == Approx(0.75 * 4096 * 8 / 40e-6).epsilon(1e-6));
}

TEST_CASE("Swift: losses and timeouts", "[unit][swift]")
{
    auto cc = Make(20);
    RdmaCcAck nak = Ack(100, 0);
    nak.nak = true;
    nak.newlyAcked = 0;
    cc->OnAck(nak); // fast recovery: x (1 - max_mdf)
    CHECK(cc->GetCwnd() == Approx(10));
    for (int i = 1; i <= 5; ++i)
    {
        cc->OnTimeout(MilliSeconds(i)); // each an RTT apart: x 0.5, the 5th resets
    }
    CHECK(cc->GetCwnd() == Approx(0.001));
    // The window never exceeds one BDP.
    auto top = Make(0);
    CHECK(top->GetCwnd() == Approx(125'000.0 / 4096));
    top->OnAck(Ack(100, 1, 3, 100));
    CHECK(top->GetCwnd() == Approx(125'000.0 / 4096));
}

} // namespace TUSK_TEST_FILE
