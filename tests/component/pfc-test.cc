// Lossless RoCEv2: PFC (IEEE 802.1Qbb) with the shared-buffer MMU. Oracles 12 and 13 of
// docs/oracles.md.

#include "run-helpers.h"

#include "fabric/helper/fabric-helper.h"
#include "fabric/model/switch-node.h"
#include "rdma/model/rdma-nic.h"

#include "ns3/packet.h"
#include "ns3/simulator.h"

#include <map>
#include <random>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;
using namespace ns3;

namespace
{

/** n hosts on one switch; hosts 0..n-2 send `bytes` each to host n-1. */
tusk::ScenarioSpec
Incast(uint32_t n, uint64_t bytes, uint64_t gbps = 100)
{
    auto spec = LeafSpine(1, 1, n, gbps);
    spec.buffer.totalBytes = 32ULL << 20;
    for (uint32_t h = 0; h + 1 < n; ++h)
    {
        AddFlow(spec, h, n - 1, bytes);
    }
    return spec;
}

uint64_t
LastFinish(const tusk::RunResult& r)
{
    uint64_t t = 0;
    for (const auto& f : r.flows)
    {
        t = std::max(t, f.finishPs);
    }
    return t;
}

/** Every switch's MMU: invariants hold and its total equals the bytes its ports hold. */
bool
BuffersConsistent(const Fabric& f)
{
    for (const auto& sw : f.switches)
    {
        uint64_t queued = 0;
        for (uint16_t p = 0; p < sw->GetNPorts(); ++p)
        {
            queued += sw->GetPort(p)->GetQueueBytes();
        }
        if (!sw->GetMmu()->CheckInvariants() || sw->GetMmu()->GetTotalUsed() != queued)
        {
            return false;
        }
    }
    return true;
}

} // namespace

TEST_CASE("lossless 16:1 incast: no drops, PAUSEs sent, done at 16 MiB / 100G (oracle 12)",
          "[component][pfc][oracle12]")
{
    auto spec = Incast(17, 1ULL << 20);
    // A 4 MiB switch buffer: each ingress may hold alpha x free = 1/8 of the free shared
    // buffer (~0.4 MB at first), less than the ~1 MiB each sender pushes: PFC must act.
    spec.buffer.totalBytes = 4ULL << 20;
    bool consistent = true;
    int checks = 0;
    tusk::RunOptions o;
    o.beforeRun = [&](Fabric& f, const std::vector<Ptr<RdmaNic>>&) {
        for (int i = 1; i <= 130; ++i)
        {
            Simulator::Schedule(MicroSeconds(10 * i), [&f, &consistent, &checks]() {
                consistent = consistent && BuffersConsistent(f);
                ++checks;
            });
        }
    };
    auto r = Run(spec, o);
    REQUIRE(r.finished);
    CHECK(r.summary.drops == 0);
    CHECK(r.summary.pfcPauses > 0);
    CHECK(checks == 130);
    CHECK(consistent);
    // 16 MiB at 100 Gb/s = 1.342 ms of payload (oracle 12); the wire also carries 82 B of
    // headers and PHY overhead per 4096 B packet (+2 %), within the oracle's 5 %.
    const double t = LastFinish(r) * 1e-12;
    CHECK(t == Approx(16.0 * (1 << 20) * 8 / 100e9).epsilon(0.05));
    // Every sender was paused at some time: each host link carried PAUSE frames.
    int pausedSenders = 0;
    for (const auto& l : r.links)
    {
        if (l.from == "leaf0" && l.to != "host16" && l.pfcPauseTx > 0)
        {
            ++pausedSenders;
        }
    }
    CHECK(pausedSenders == 16);
}

TEST_CASE("127:1 incast on a 128-port switch: lossless, every congested ingress pauses, and the "
          "result does not depend on the port count",
          "[component][pfc]")
{
    for (uint32_t n : {32u, 128u})
    {
        // 1 MB per sender into a 16 MiB switch: the dynamic threshold settles near
        // alpha x pool / (1 + (n - 1) alpha) (83 kB for 128 ports), far below 1 MB.
        auto spec = Incast(n, 1'000'000);
        spec.buffer.totalBytes = 16ULL << 20;
        auto r = Run(spec);
        INFO(n << " ports");
        REQUIRE(r.finished);
        CHECK(r.summary.drops == 0);
        int paused = 0;
        for (const auto& l : r.links)
        {
            paused += (l.from == "leaf0" && l.pfcPauseTx > 0) ? 1 : 0;
        }
        CHECK(paused == static_cast<int>(n) - 1);
        // The receiver's link is the bottleneck: completion = all bytes at line rate.
        const double ideal = (n - 1) * 1'000'000 * (4096.0 + 82) / 4096 * 8 / 100e9;
        CHECK(LastFinish(r) * 1e-12 == Approx(ideal).epsilon(0.05));
    }
}

TEST_CASE("PAUSE timing: XON resumes within one MTU time, an unrefreshed PAUSE expires after "
          "quanta x 512 bit times (oracle 13)",
          "[component][pfc][oracle13]")
{
    auto spec = LeafSpine(1, 1, 2, 100, 100);
    AddFlow(spec, 0, 1, 20'000'000);
    std::vector<double> txUs;
    std::vector<std::pair<double, uint16_t>> pfcRxUs;
    tusk::RunOptions o;
    o.beforeRun = [&](Fabric& f, const std::vector<Ptr<RdmaNic>>& nics) {
        nics[0]->TraceConnectWithoutContext(
            "Tx", Callback<void, Ptr<const Packet>, const FrameMeta&>(
                      [&](Ptr<const Packet>, const FrameMeta& m) {
                          if (m.kind == FrameKind::DATA)
                          {
                              txUs.push_back(Simulator::Now().GetSeconds() * 1e6);
                          }
                      }));
        nics[0]->TraceConnectWithoutContext(
            "Pfc", Callback<void, const PfcEvent&>([&](const PfcEvent& e) {
                if (!e.sent)
                {
                    pfcRxUs.emplace_back(e.timePs * 1e-6, e.quanta);
                }
            }));
        Ptr<SwitchPort> toHost0 = f.switches[0]->GetPort(0);
        Simulator::Schedule(MicroSeconds(100), [toHost0]() { toHost0->SendPfc(3, 65535, 1); });
        Simulator::Schedule(MicroSeconds(101), [toHost0]() { toHost0->SendPfc(3, 0, 0); });
        // 1000 quanta = 512,000 bit times = 5.12 us at 100 Gb/s; never refreshed, no XON.
        Simulator::Schedule(MicroSeconds(300), [toHost0]() { toHost0->SendPfc(3, 1000, 1); });
    };
    auto r = Run(spec, o);
    REQUIRE(r.finished);
    REQUIRE(pfcRxUs.size() == 3);
    const double mtuUs = (4096 + 82) * 8 / 100e9 * 1e6; // one full frame: 0.334 us
    auto gapAfter = [&](double t) {
        // last data transmission start before t, first one at or after t
        double before = 0, after = 1e18;
        for (double x : txUs)
        {
            if (x < t)
            {
                before = std::max(before, x);
            }
            else
            {
                after = std::min(after, x);
            }
        }
        return std::make_pair(before, after);
    };
    // PAUSE at pfcRxUs[0]: at most the frame in flight finishes; XON at pfcRxUs[1].
    const double pauseAt = pfcRxUs[0].first;
    const double xonAt = pfcRxUs[1].first;
    CHECK(pfcRxUs[1].second == 0);
    for (double x : txUs)
    {
        CHECK_FALSE((x > pauseAt + 1e-9 && x < xonAt - 1e-9)); // nothing starts while paused
    }
    const auto [lastBefore, firstAfter] = gapAfter(xonAt - 1e-9);
    CHECK(lastBefore <= pauseAt + 1e-9);
    CHECK(firstAfter - xonAt <= mtuUs + 1e-6);
    // The unrefreshed PAUSE: resumes 5.12 us after it arrived (+ at most the frame in flight).
    const double expiryAt = pfcRxUs[2].first + 5.12;
    const auto [b2, a2] = gapAfter(pfcRxUs[2].first + 1e-6);
    CHECK(a2 >= expiryAt - 1e-6);
    CHECK(a2 <= expiryAt + mtuUs + 1e-6);
}

TEST_CASE("PFC pauses a priority, not a QP: a pause of priority 2 leaves a priority-3 QP (QPN 2) "
          "sending, a pause of priority 3 stops it",
          "[component][pfc]")
{
    auto spec = LeafSpine(1, 1, 2, 100, 100);
    spec.nic.dataPriority = 3;
    AddFlow(spec, 0, 1, 10'000'000);
    std::vector<double> txUs;
    tusk::RunOptions o;
    o.beforeRun = [&](Fabric& f, const std::vector<Ptr<RdmaNic>>& nics) {
        nics[0]->TraceConnectWithoutContext(
            "Tx", Callback<void, Ptr<const Packet>, const FrameMeta&>(
                      [&](Ptr<const Packet>, const FrameMeta& m) {
                          if (m.kind == FrameKind::DATA)
                          {
                              txUs.push_back(Simulator::Now().GetSeconds() * 1e6);
                          }
                      }));
        Ptr<SwitchPort> toHost0 = f.switches[0]->GetPort(0);
        // Priority 2 == the QP's number: a NIC that indexed QPs by priority would stop here.
        static_assert(RdmaNic::kFirstQpn == 2, "the test pauses the priority equal to the QPN");
        Simulator::Schedule(MicroSeconds(50), [toHost0]() { toHost0->SendPfc(2, 65535, 1); });
        Simulator::Schedule(MicroSeconds(300), [toHost0]() { toHost0->SendPfc(3, 65535, 1); });
        Simulator::Schedule(MicroSeconds(400), [toHost0]() { toHost0->SendPfc(3, 0, 0); });
    };
    auto r = Run(spec, o);
    REQUIRE(r.finished);
    int in1 = 0, in3 = 0;
    for (double x : txUs)
    {
        in1 += (x > 60 && x < 290) ? 1 : 0;
        in3 += (x > 302 && x < 399) ? 1 : 0;
    }
    CHECK(in1 > 600); // ~ 230 us at 0.334 us per frame: never paused
    CHECK(in3 == 0);  // paused on its own priority
}

TEST_CASE("XON one MTU below XOFF under an 8:1 incast: no re-entrant transmit, no port above "
          "line rate in any 10 us window",
          "[component][pfc]")
{
    auto spec = Incast(9, 2'000'000);
    spec.buffer.dynamicThreshold = false;
    spec.buffer.staticThresholdBytes = 64 * 1024;
    spec.buffer.xonOffsetBytes = 4096 + 62; // one MTU frame below XOFF
    std::map<const void*, std::vector<std::pair<uint64_t, uint32_t>>> tx; // per device
    tusk::RunOptions o;
    o.beforeRun = [&](Fabric& f, const std::vector<Ptr<RdmaNic>>&) {
        for (const auto& l : f.links)
        {
            for (Ptr<FabricNetDevice> d : {l.devA, l.devB})
            {
                const void* key = PeekPointer(d);
                d->TraceConnectWithoutContext(
                    "Tx", Callback<void, Ptr<const Packet>, const FrameMeta&>(
                              [&tx, key](Ptr<const Packet> p, const FrameMeta&) {
                                  tx[key].emplace_back(Simulator::Now().GetPicoSeconds(),
                                                       p->GetSize() + 20);
                              }));
            }
        }
    };
    auto r = Run(spec, o);
    REQUIRE(r.finished);
    CHECK(r.summary.drops == 0);
    CHECK(r.summary.pfcPauses > 10); // thresholds crossed again and again
    const uint64_t windowPs = 10'000'000;
    const uint64_t capacity = 100'000'000'000ULL / 8 * windowPs / 1'000'000'000'000ULL; // bytes
    for (auto& [dev, v] : tx)
    {
        // Transmissions never overlap: each starts after the previous one's serialisation.
        for (size_t i = 1; i < v.size(); ++i)
        {
            REQUIRE(v[i].first >= v[i - 1].first + v[i - 1].second * 80);
        }
        size_t lo = 0;
        uint64_t bytes = 0;
        for (size_t hi = 0; hi < v.size(); ++hi)
        {
            bytes += v[hi].second;
            while (v[hi].first - v[lo].first >= windowPs)
            {
                bytes -= v[lo].second;
                ++lo;
            }
            REQUIRE(bytes <= capacity + 4096 + 82);
        }
    }
}

TEST_CASE("PAUSE arriving while frames are being sent, jittered, on 10,000 packets: every "
          "packet received once, in order",
          "[component][pfc]")
{
    auto spec = LeafSpine(1, 1, 2, 100, 100);
    const uint64_t packets = 10'000;
    AddFlow(spec, 0, 1, packets * 4096);
    tusk::RunOptions o;
    o.beforeRun = [&](Fabric& f, const std::vector<Ptr<RdmaNic>>& nics) {
        std::mt19937_64 rng(5);
        Ptr<SwitchPort> toHost0 = f.switches[0]->GetPort(0);
        Ptr<RdmaNic> rx = nics[1];
        for (int i = 0; i < 300; ++i)
        {
            // Pause the sender NIC and the switch's egress towards the receiver at random
            // picosecond offsets, so that PAUSEs land in the middle of frames.
            const uint64_t t = 1'000'000 + rng() % 3'000'000'000ULL;
            const uint64_t len = 100'000 + rng() % 3'000'000;
            Simulator::Schedule(PicoSeconds(t), [toHost0]() { toHost0->SendPfc(3, 65535, 1); });
            Simulator::Schedule(PicoSeconds(t + len), [toHost0]() { toHost0->SendPfc(3, 0, 0); });
            const uint64_t t2 = 1'000'000 + rng() % 3'000'000'000ULL;
            Simulator::Schedule(PicoSeconds(t2), [rx]() { rx->SendPfc(3, 200, 1); });
        }
    };
    auto r = Run(spec, o);
    REQUIRE(r.finished);
    const auto& f = r.flows[0];
    CHECK(f.deliveredBytes == packets * 4096);
    CHECK(f.oooPackets == 0);
    CHECK(f.retxPackets == 0);
    CHECK(r.summary.drops == 0);
}

TEST_CASE("ACK coalescing every 4 packets: ACKs ~ packets / 4, every flow completes",
          "[component][pfc]")
{
    auto spec = LeafSpine(1, 1, 4, 100);
    spec.nic.ackInterval = 4;
    AddFlow(spec, 0, 1, 4096 * 1000);
    AddFlow(spec, 2, 3, 4096 * 1001); // 1001 packets: the last ACK covers one packet
    auto r = Run(spec);
    REQUIRE(r.finished);
    // Frames sent by the receivers are the ACKs: 1000 / 4 = 250 and ceil(1001 / 4) = 251.
    uint64_t acks1 = 0, acks3 = 0;
    for (const auto& l : r.links)
    {
        acks1 += l.from == "host1" ? l.txFrames : 0;
        acks3 += l.from == "host3" ? l.txFrames : 0;
    }
    CHECK(acks1 == 250);
    CHECK(acks3 == 251);
}

} // namespace TUSK_TEST_FILE
