// TIMELY (ns3::TimelyCongestionControl) alone, no Simulator: Algorithm 1 of Mittal et al.,
// "TIMELY: RTT-based Congestion Control for the Datacenter", SIGCOMM 2015, with the paper's
// parameters (alpha 0.875, beta 0.8, Tlow 50 us, Thigh 500 us, minRTT 20 us, delta 10 Mb/s).

#include "rdma/model/cc/timely.h"

#include <catch2/catch.hpp>

#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

Ptr<TimelyCongestionControl>
Make()
{
    auto cc = CreateObject<TimelyCongestionControl>();
    RdmaCcSetup s;
    s.lineRateBps = 100'000'000'000ULL;
    cc->Init(s);
    return cc;
}

} // namespace

TEST_CASE("TIMELY: Thigh, gradient increase and decrease, by hand", "[unit][timely]")
{
    auto cc = Make();
    std::vector<double> rates;
    cc->TraceConnectWithoutContext("RateChange", Callback<void, double, double>(
                                                     [&](double r, double) { rates.push_back(r); }));
    cc->Update(MicroSeconds(30)); // the first sample only sets prev_rtt
    CHECK(cc->GetRateBps() == 100'000'000'000ULL);
    // 600 us > Thigh: R (1 - 0.8 (1 - 500 / 600)).
    cc->Update(MicroSeconds(600));
    double r = 100e9 * (1 - 0.8 * (1 - 500.0 / 600));
    CHECK(cc->GetRateBps() == Approx(r).epsilon(1e-9));
    CHECK(cc->GetRttDiffNs() == Approx(0.875 * 570'000));
    // 300 us: rtt_diff = 0.125 x 498,750 + 0.875 x (-300,000) = -200,156.25 ns: gradient < 0,
    // between Tlow and Thigh: + delta.
    cc->Update(MicroSeconds(300));
    CHECK(cc->GetRttDiffNs() == Approx(-200'156.25));
    r += 10e6;
    CHECK(cc->GetRateBps() == Approx(r).epsilon(1e-9));
    // 400 us: rtt_diff = 0.125 x (-200,156.25) + 0.875 x 100,000 = 62,480.47 ns;
    // gradient = 3.124 > 0: R (1 - 0.8 gradient) < 0 -> MinRate.
    cc->Update(MicroSeconds(400));
    CHECK(cc->GetGradient() == Approx(62'480.46875 / 20'000));
    CHECK(cc->GetRateBps() == 100'000'000);
    CHECK(rates.size() == 3);
}

TEST_CASE("TIMELY: a small positive gradient decreases by beta x gradient", "[unit][timely]")
{
    auto cc = Make();
    cc->Update(MicroSeconds(100));
    cc->Update(MicroSeconds(102)); // rtt_diff = 0.875 x 2000 = 1750 ns, gradient 0.0875
    CHECK(cc->GetRateBps() == Approx(100e9 * (1 - 0.8 * 0.0875)).epsilon(1e-9));
}

TEST_CASE("TIMELY: below Tlow always + delta, HAI after five non-positive gradients",
          "[unit][timely]")
{
    auto cc = Make();
    cc->Update(MicroSeconds(600));
    cc->Update(MicroSeconds(1200)); // well above Thigh: R (1 - 0.8 (1 - 500 / 1200))
    const double r0 = 100e9 * (1 - 0.8 * (1 - 500.0 / 1200));
    REQUIRE(cc->GetRateBps() == Approx(r0).epsilon(1e-9));
    // Falling RTTs between Tlow and Thigh: gradients <= 0 in a row; the 5th and later add
    // 5 delta (50 Mb/s) instead of delta.
    double expected = r0;
    const int rtts[] = {450, 400, 350, 300, 250, 200};
    for (int i = 0; i < 6; ++i)
    {
        cc->Update(MicroSeconds(rtts[i]));
        REQUIRE(cc->GetGradient() <= 0);
        expected += (i + 1 >= 5 ? 50e6 : 10e6);
        CHECK(cc->GetRateBps() == Approx(expected).epsilon(1e-9));
    }
    // Below Tlow, + delta (not HAI) whatever the gradient.
    cc->Update(MicroSeconds(40));
    cc->Update(MicroSeconds(45));
    expected += 2 * 10e6;
    CHECK(cc->GetRateBps() == Approx(expected).epsilon(1e-9));
}

TEST_CASE("TIMELY: one update per RTT of ACKs", "[unit][timely]")
{
    auto cc = Make();
    auto ack = [&](uint64_t una, uint64_t nxt, double rttUs) {
        RdmaCcAck a;
        a.sndUna = una;
        a.sndNxt = nxt;
        a.newlyAcked = 1;
        a.rtt = NanoSeconds(static_cast<int64_t>(rttUs * 1000));
        cc->OnAck(a);
    };
    ack(1, 50, 100);  // first sample, lastUpdateSeq = 50
    ack(2, 51, 900);  // snd_una 2 <= 50: same RTT, ignored
    CHECK(cc->GetRateBps() == 100'000'000'000ULL);
    ack(51, 90, 900); // next RTT: 900 > Thigh
    CHECK(cc->GetRateBps() == Approx(100e9 * (1 - 0.8 * (1 - 500.0 / 900))).epsilon(1e-9));
}

} // namespace TUSK_TEST_FILE
