// HPCC (ns3::HpccCongestionControl) and its INT records alone, no Simulator: Algorithm 1 of
// Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019, on a fake clock, and the
// INT hop record / header in the HPCC simulator's layout (int-header.h).

#include "fabric/model/int-telemetry.h"
#include "rdma/model/cc/hpcc.h"
#include "rdma/model/headers/roce-int-header.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/packet.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

constexpr uint64_t k100G = 100'000'000'000ULL;

uint8_t
Code(uint64_t rate)
{
    uint8_t c = 0;
    REQUIRE(IntHop::RateCode(rate, c));
    return c;
}

/** An INT stack of hops (time ns, tx bytes, qlen bytes) at 100 Gb/s. */
IntStack
Stack(const std::vector<std::array<uint64_t, 3>>& hops)
{
    IntStack s;
    s.present = true;
    for (const auto& h : hops)
    {
        s.Push(IntHop::Make(h[0], h[1], h[2], Code(k100G)));
    }
    return s;
}

Ptr<HpccCongestionControl>
Make(double wai = 80, uint32_t maxStage = 5)
{
    auto cc = CreateObject<HpccCongestionControl>();
    cc->SetAttribute("TargetUtilisation", DoubleValue(0.95));
    cc->SetAttribute("MaxStage", UintegerValue(maxStage));
    cc->SetAttribute("AdditiveIncreaseBytes", DoubleValue(wai));
    RdmaCcSetup s;
    s.lineRateBps = k100G;
    s.baseRtt = MicroSeconds(10); // T: BDP = 125,000 B
    s.mtuBytes = 1000;
    cc->Init(s);
    return cc;
}

RdmaCcAck
Ack(const IntStack& echo, uint64_t una, uint64_t nxt, double nowUs)
{
    RdmaCcAck a;
    a.now = NanoSeconds(static_cast<int64_t>(nowUs * 1000));
    a.sndUna = una;
    a.sndNxt = nxt;
    a.newlyAcked = 1;
    a.newlyAckedBytes = 1000;
    a.intEcho = &echo;
    return a;
}

} // namespace

TEST_CASE("INT hop record: the HPCC simulator's fields, units scaled by the hop's rate",
          "[unit][hpcc][int]")
{
    // 100 Gb/s: u = 4, bytes in units of 512 B, queue in units of 320 B.
    const IntHop h = IntHop::Make(123'456, 512 * 1000 + 100, 320 * 7 + 5, Code(k100G));
    CHECK(h.GetRateBps() == k100G);
    CHECK(h.GetTimeNs() == 123'456);
    CHECK(h.GetTxBytes() == 512 * 1000); // truncated to the unit
    CHECK(h.GetQlenBytes() == 320 * 7);
    // The field layout of the simulator's union: rate 3 bits, time 24, bytes 20, qlen 17.
    CHECK((h.word & 7) == 2);
    CHECK(((h.word >> 3) & 0xFFFFFF) == 123'456);
    CHECK(((h.word >> 27) & 0xFFFFF) == 1000);
    CHECK((h.word >> 47) == 7);
    // Deltas wrap like the counters: time modulo 2^24 ns, bytes modulo 2^20 units.
    const IntHop a = IntHop::Make((1u << 24) - 100, (uint64_t{1} << 20) * 512 - 512, 0, Code(k100G));
    const IntHop b = IntHop::Make((1u << 24) + 400, (uint64_t{1} << 20) * 512 + 1024, 0, Code(k100G));
    CHECK(b.TimeDeltaNs(a) == 500);
    CHECK(b.TxBytesDelta(a) == 3 * 512);
    // The queue saturates instead of wrapping; at 25 Gb/s the units are the simulator's.
    CHECK(IntHop::Make(0, 0, 1ULL << 40, Code(k100G)).GetQlenBytes() == ((1u << 17) - 1) * 320);
    CHECK(IntHop::Make(0, 128 * 3, 80 * 3, Code(25'000'000'000ULL)).GetTxBytes() == 384);
    uint8_t code = 0;
    CHECK_FALSE(IntHop::RateCode(33'000'000'000ULL, code)); // not a rate HPCC can stamp
}

TEST_CASE("INT header: 42 bytes, the simulator's little-endian layout, round trip",
          "[unit][hpcc][int]")
{
    RoceIntHeader h;
    h.stack = Stack({{1000, 5120, 640}, {2000, 10240, 0}, {3000, 0, 3200}});
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    REQUIRE(p->GetSize() == 42);
    std::vector<uint8_t> bytes(42);
    p->CopyData(bytes.data(), 42);
    uint64_t first = 0;
    for (int i = 7; i >= 0; --i)
    {
        first = (first << 8) | bytes[i]; // little-endian 64-bit word
    }
    CHECK(first == h.stack.hops[0].word);
    CHECK((bytes[40] | (bytes[41] << 8)) == 3); // the hop count
    RoceIntHeader back;
    p->RemoveHeader(back);
    CHECK(back.stack.present);
    CHECK(back.stack.nHops == 3);
    for (uint32_t i = 0; i < 3; ++i)
    {
        CHECK(back.stack.hops[i].word == h.stack.hops[i].word);
    }
    CHECK(back.stack.hops[3].word == 0);
}

TEST_CASE("HPCC MeasureInflight: U from queue and transmit rate of the most loaded hop",
          "[unit][hpcc]")
{
    auto cc = Make();
    // Previous echo L, then an echo 1 us later. Hop 0 sent 12,800 B (102.4 Gb/s) with queues of
    // 32,000 and 64,000 B; hop 1 sent 6,400 B (51.2 Gb/s) with no queue.
    cc->MeasureInflight(Stack({{1000, 0, 32'000}, {1000, 0, 0}}));
    CHECK(cc->GetUtilisation() == Approx(1.0)); // the first echo only records L
    const double u = cc->MeasureInflight(Stack({{2000, 12'800, 64'000}, {2000, 6'400, 0}}));
    // u0 = min(64000, 32000) x 8 / (100G x 10 us) + 102.4 / 100 = 0.256 + 1.024 = 1.28;
    // tau = 1 us: U = (1 - 0.1) x 1 + 0.1 x 1.28.
    CHECK(u == Approx(0.9 + 0.1 * 1.28));
    // tau is capped at T: 20 us later, U becomes the new sample entirely (idle hops: 0 + 0.16).
    const double v = cc->MeasureInflight(Stack({{22'000, 12'800 + 20'480, 0}, {22'000, 6'400, 0}}));
    CHECK(v == Approx(20'480 * 8 / 20e-6 / 1e11));
}

TEST_CASE("HPCC ComputeWind: multiplicative step towards eta, additive increase, maxStage",
          "[unit][hpcc]")
{
    auto cc = Make(80, 5);
    const double bdp = 125'000;
    // Above eta: W = Wc / (U / eta) + W_AI, and with updateWc the reference follows.
    CHECK(cc->ComputeWind(1.028, true) == Approx(bdp * 0.95 / 1.028 + 80));
    const double wc = cc->GetReferenceWindow();
    CHECK(wc == Approx(bdp * 0.95 / 1.028 + 80));
    CHECK(cc->GetIncStage() == 0);
    // Below eta: additive increase for maxStage updates, from Wc.
    for (uint32_t i = 1; i <= 5; ++i)
    {
        CHECK(cc->ComputeWind(0.5, true) == Approx(wc + 80.0 * i));
        CHECK(cc->GetIncStage() == i);
    }
    // Then a multiplicative step (capped at one BDP) even below eta.
    CHECK(cc->ComputeWind(0.5, true) == Approx(bdp));
    CHECK(cc->GetIncStage() == 0);
    // Without updateWc (fast reaction) the reference and the stage stay.
    const double ref = cc->GetReferenceWindow();
    CHECK(cc->ComputeWind(1.9, false) == Approx(ref * 0.5 + 80));
    CHECK(cc->GetReferenceWindow() == Approx(ref));
    // Never below MinRate x T (100 Mb/s x 10 us = 125 B).
    CHECK(cc->ComputeWind(1e6, true) == Approx(125));
}

TEST_CASE("HPCC per ACK: first echo records, the reference window moves once per RTT",
          "[unit][hpcc]")
{
    auto cc = Make();
    std::vector<double> trace;
    cc->TraceConnectWithoutContext("WindowChange",
                                   Callback<void, double, double, double>(
                                       [&](double w, double r, double) {
                                           trace.push_back(w);
                                           CHECK(r == Approx(w * 8 / 10e-6)); // R = W / T
                                       }));
    CHECK(cc->GetWindowBytes() == 125'000); // starts at line rate, one BDP
    CHECK(cc->GetRateBps() == k100G);
    // ACK 1 (snd_nxt 100): records L, lastUpdateSeq = 100.
    const IntStack e1 = Stack({{0, 0, 0}});
    cc->OnAck(Ack(e1, 1, 100, 1));
    CHECK(trace.empty());
    // ACK 2: snd_una 2 <= 100, fast reaction: W from Wc = BDP, Wc unchanged. The hop is full
    // (1 us, 12,500 B = 100 Gb/s) with a 25,000 B queue both times... first time 0: min = 0.
    const IntStack e2 = Stack({{1000, 12'800, 25'600}});
    cc->OnAck(Ack(e2, 2, 110, 2));
    const double u2 = 0.9 * 1 + 0.1 * (12'800 * 8 / 1e-6 / 1e11);
    REQUIRE(trace.size() == 1);
    CHECK(trace.back() == Approx(std::min(125'000.0, 125'000 / (u2 / 0.95) + 80)));
    CHECK(cc->GetReferenceWindow() == Approx(125'000));
    // ACK 3: snd_una 101 > 100: full update, Wc moves, lastUpdateSeq = 200.
    const IntStack e3 = Stack({{2000, 25'600, 25'600}});
    cc->OnAck(Ack(e3, 101, 200, 3));
    const double u3 = 0.9 * u2 + 0.1 * (12'800 * 8 / 1e-6 / 1e11 + 25'600 * 8 / 1e6);
    CHECK(cc->GetUtilisation() == Approx(u3));
    CHECK(cc->GetReferenceWindow() == Approx(125'000 / (u3 / 0.95) + 80));
    CHECK(cc->GetWindowBytes() == static_cast<uint64_t>(std::llround(cc->GetReferenceWindow())));
    // An echo over another number of hops (a new path) only records L.
    const double w = cc->GetWindow();
    const IntStack e4 = Stack({{3000, 0, 0}, {3000, 0, 0}});
    cc->OnAck(Ack(e4, 201, 300, 4));
    CHECK(cc->GetWindow() == w);
    // ACKs without an INT echo (trim NACKs) change nothing.
    RdmaCcAck none;
    none.sndUna = 400;
    cc->OnAck(none);
    CHECK(cc->GetWindow() == w);
}

} // namespace TUSK_TEST_FILE
