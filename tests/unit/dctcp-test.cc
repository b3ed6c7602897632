// The DCTCP-style window (ns3::DctcpCongestionControl) alone, no Simulator: Alizadeh et al.,
// "Data Center TCP (DCTCP)", SIGCOMM 2010, section 3 (and RFC 8257), on a fake clock.

#include "rdma/model/cc/dctcp.h"

#include "ns3/double.h"

#include <catch2/catch.hpp>

#include <cmath>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

Ptr<DctcpCongestionControl>
Make()
{
    auto cc = CreateObject<DctcpCongestionControl>();
    cc->SetAttribute("Gain", DoubleValue(1.0 / 16));
    RdmaCcSetup s;
    s.lineRateBps = 100'000'000'000ULL;
    s.baseRtt = MicroSeconds(10);
    s.mtuBytes = 1000; // one BDP = 125,000 B
    cc->Init(s);
    return cc;
}

RdmaCcAck
Ack(uint64_t una, uint64_t nxt, bool ecn, uint64_t packets = 1)
{
    RdmaCcAck a;
    a.sndUna = una;
    a.sndNxt = nxt;
    a.newlyAcked = packets;
    a.newlyAckedBytes = packets * 1000;
    a.ecnEcho = ecn;
    return a;
}

} // namespace

TEST_CASE("DCTCP: W <- W (1 - alpha / 2) once per window of data", "[unit][dctcp]")
{
    auto cc = Make();
    CHECK(cc->GetWindow() == Approx(125'000));
    cc->OnAck(Ack(1, 100, true)); // alpha = 1 at first: halved
    CHECK(cc->GetWindow() == Approx(62'500));
    cc->OnAck(Ack(50, 120, true)); // still in the window of the cut (snd_una <= 100): none
    CHECK(cc->GetWindow() == Approx(62'500));
    cc->OnAck(Ack(101, 130, false)); // no ECN: + MTU x acked / W
    CHECK(cc->GetWindow() == Approx(62'500 + 1000.0 * 1000 / 62'500));
}

TEST_CASE("DCTCP: alpha folds in the marked fraction of each window", "[unit][dctcp]")
{
    auto cc = Make();
    cc->OnAck(Ack(0, 10, false, 0)); // the first alpha window ends at PSN 10
    // 10 packets acknowledged, 4 of them with ECN echo, then an ACK past PSN 10.
    for (uint64_t p = 1; p <= 10; ++p)
    {
        cc->OnAck(Ack(p, 10, p <= 4));
    }
    cc->OnAck(Ack(11, 20, false));
    // F = 4 / 11 over the 11 packets of that window (the ACK that closes it counts).
    CHECK(cc->GetAlpha() == Approx((1 - 1.0 / 16) * 1 + 1.0 / 16 * 4.0 / 11));
    // Windows without marks: alpha halves after ln(0.5) / ln(15/16) = 10.7 windows.
    double a = cc->GetAlpha();
    for (uint64_t w = 2; w <= 12; ++w)
    {
        cc->OnAck(Ack(10 * w + 1, 10 * w + 10, false));
        a *= 15.0 / 16;
        CHECK(cc->GetAlpha() == Approx(a));
    }
    CHECK(cc->GetAlpha() < 0.5 * (1 - 1.0 / 16 + 1.0 / 16 * 4.0 / 11));
}

TEST_CASE("DCTCP: the window stays within one MTU and one BDP", "[unit][dctcp]")
{
    auto cc = Make();
    for (uint64_t i = 1; i < 200; ++i)
    {
        cc->OnAck(Ack(100 * i, 100 * i + 99, true));
    }
    CHECK(cc->GetWindow() == Approx(1000));
    for (uint64_t i = 200; i < 100'000; ++i)
    {
        cc->OnAck(Ack(100 * i, 100 * i + 99, false, 10));
    }
    CHECK(cc->GetWindow() == Approx(125'000));
}

} // namespace TUSK_TEST_FILE
