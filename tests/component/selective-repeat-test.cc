// Receivers and reordering: the IRN-style selective-repeat mode of the RC QP against
// go-back-N, per-entropy feedback reaching the PathSelector, CNPs on out-of-order arrival,
// and spraying with a reorder-tolerant receiver (oracle 9).

#include "run-helpers.h"

#include "run/stats.h"

#include "fabric/helper/fabric-helper.h"
#include "rdma/model/path-selector.h"
#include "rdma/model/rdma-nic.h"

#include "ns3/error-model.h"
#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/udp-header.h"

#include <functional>
#include <map>
#include <numeric>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;
using namespace ns3;

namespace
{

/** UDP source port (the entropy) of a serialised RoCEv2 frame. */
uint16_t
EntropyOf(Ptr<const Packet> p)
{
    Ptr<Packet> c = p->Copy();
    EthernetHeader eth(false);
    c->RemoveHeader(eth);
    Ipv4Header ip;
    c->RemoveHeader(ip);
    UdpHeader udp;
    c->RemoveHeader(udp);
    return udp.GetSourcePort();
}

/** Drops the n-th data frame (larger than 1000 bytes) to arrive; remembers its entropy. */
class NthDataFrameLoss : public ErrorModel
{
  public:
    explicit NthDataFrameLoss(uint32_t n)
        : m_n(n)
    {
    }

    uint32_t dropped = 0;
    uint16_t droppedEntropy = 0;

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        if (p->GetSize() < 1000 || ++m_seen != m_n)
        {
            return false;
        }
        ++dropped;
        droppedEntropy = EntropyOf(p);
        return true;
    }

    void DoReset() override {}

    uint32_t m_n;
    uint32_t m_seen = 0;
};

/** Feedback the recording selector received: (entropy, kind). */
std::vector<std::pair<uint16_t, PathSelector::Feedback>> g_feedback;

/**
 * A test path selector: sprays over 8 consecutive entropies and records every feedback,
 * as REPS (the next issue) will consume it.
 */
class RecordingPathSelector : public PathSelector
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RecordingPathSelector")
                                .SetParent<PathSelector>()
                                .SetGroupName("Tests")
                                .AddConstructor<RecordingPathSelector>();
        return tid;
    }

  private:
    uint16_t DoNextEntropy(Time) override
    {
        return static_cast<uint16_t>(m_base + (m_next++ % 8));
    }

    void DoFeedback(uint16_t entropy, Feedback fb, Time) override
    {
        g_feedback.emplace_back(entropy, fb);
    }

    uint32_t m_next = 0;
};

NS_OBJECT_ENSURE_REGISTERED(RecordingPathSelector);

size_t
CountFeedback(PathSelector::Feedback kind)
{
    return std::count_if(g_feedback.begin(), g_feedback.end(),
                         [&](const auto& f) { return f.second == kind; });
}

/** Host 0 -> host 1 through one switch, one flow of `packets` full packets; the n-th data
 *  frame arriving at host 1 is lost. */
tusk::RunResult
RunOneLoss(const std::string& receiver, uint32_t packets, uint32_t n, Ptr<NthDataFrameLoss> em,
           const std::string& pathSelector = "",
           std::function<void(const std::vector<Ptr<RdmaNic>>&)> attach = nullptr,
           std::function<void(const std::vector<Ptr<RdmaNic>>&)> afterRun = nullptr)
{
    auto spec = LeafSpine(1, 1, 2, 100);
    spec.nic.receiver = receiver;
    spec.nic.rtoPs = 200'000'000; // 200 us
    spec.lb.pathSelector = pathSelector;
    AddFlow(spec, 0, 1, packets * 4096ULL);
    tusk::RunOptions o;
    o.beforeRun = [&](Fabric&, const std::vector<Ptr<RdmaNic>>& nics) {
        nics[1]->SetAttribute("ReceiveErrorModel", PointerValue(em));
        if (attach)
        {
            attach(nics);
        }
    };
    if (afterRun)
    {
        o.afterRun = [&](Fabric&, const std::vector<Ptr<RdmaNic>>& nics) { afterRun(nics); };
    }
    g_feedback.clear();
    return Run(spec, o);
}

} // namespace

TEST_CASE("selective repeat resends only the lost packet, go-back-N resends everything behind it",
          "[component][selective-repeat][gbn]")
{
    // 401 packets at 100 Gb/s, the 100th lost. IRN (Mittal et al., SIGCOMM 2018): the
    // responder keeps the packets after the hole and SACKs them; the requester resends the one
    // packet missing. Go-back-N (IBA 9.7.5) resends from the hole to what was in flight.
    auto sr = CreateObject<NthDataFrameLoss>(100);
    auto r = RunOneLoss("selective-repeat", 401, 100, sr);
    REQUIRE(sr->dropped == 1);
    REQUIRE(r.finished);
    const auto& f = r.flows[0];
    CHECK(f.deliveredBytes == f.bytes);
    CHECK(f.retxPackets == 1);
    CHECK(f.retxTimeoutPackets == 0); // resent on the SACK-NAK, not the timer
    CHECK(f.retxBytes == 4096);
    CHECK(f.spuriousRetx == 0);
    CHECK(f.oooPackets > 0);  // the packets behind the hole, placed out of order
    CHECK(f.naks == f.oooPackets); // one SACK-NAK per out-of-order arrival (IRN)
    CHECK(f.reorderMax >= 1);

    auto gbn = CreateObject<NthDataFrameLoss>(100);
    auto g = RunOneLoss("go-back-n", 401, 100, gbn);
    REQUIRE(g.finished);
    const auto& gf = g.flows[0];
    CHECK(gf.deliveredBytes == gf.bytes);
    CHECK(gf.retxPackets > 1); // the lost one and everything sent after it
    CHECK(gf.naks == 1);
    // Everything go-back-N resent beyond the lost packet had arrived and been discarded.
    CHECK(gf.retxPackets == 1 + gf.oooPackets);
    CHECK(gf.spuriousRetx == 0);
}

TEST_CASE("selective repeat: a lost last packet is recovered by the timeout, alone",
          "[component][selective-repeat]")
{
    auto em = CreateObject<NthDataFrameLoss>(64);
    auto r = RunOneLoss("selective-repeat", 64, 64, em);
    REQUIRE(em->dropped == 1);
    REQUIRE(r.finished);
    CHECK(r.flows[0].deliveredBytes == 64 * 4096);
    CHECK(r.flows[0].retxPackets == 1);
    CHECK(r.flows[0].retxTimeoutPackets == 1); // a timeout resend
    CHECK(r.flows[0].fctPs > 200'000'000); // waited for the 200 us timeout
}

TEST_CASE("per-entropy feedback GOOD / NACK / TIMEOUT reaches the path selector",
          "[component][path-selector][feedback]")
{
    SECTION("selective repeat: every packet acknowledged once, the lost one NACKed")
    {
        auto em = CreateObject<NthDataFrameLoss>(100);
        auto r = RunOneLoss("selective-repeat", 401, 100, em, "ns3::RecordingPathSelector");
        REQUIRE(r.finished);
        CHECK(CountFeedback(PathSelector::GOOD) == 401);
        CHECK(CountFeedback(PathSelector::TIMEOUT) == 0);
        REQUIRE(CountFeedback(PathSelector::NACK) == 1);
        const auto nack = *std::find_if(g_feedback.begin(), g_feedback.end(), [](const auto& f) {
            return f.second == PathSelector::NACK;
        });
        CHECK(nack.first == em->droppedEntropy);
        // The sprayed entropies each got their share of GOOD.
        std::map<uint16_t, int> good;
        for (const auto& [e, kind] : g_feedback)
        {
            good[e] += kind == PathSelector::GOOD;
        }
        CHECK(good.size() == 8);
    }
    SECTION("go-back-N: the NAK names the entropy of the missing packet")
    {
        auto em = CreateObject<NthDataFrameLoss>(100);
        auto r = RunOneLoss("go-back-n", 401, 100, em, "ns3::RecordingPathSelector");
        REQUIRE(r.finished);
        REQUIRE(CountFeedback(PathSelector::NACK) == 1);
        CHECK(std::find_if(g_feedback.begin(), g_feedback.end(), [](const auto& f) {
                  return f.second == PathSelector::NACK;
              })->first == em->droppedEntropy);
        CHECK(CountFeedback(PathSelector::GOOD) == 401);
    }
    SECTION("a timeout names the entropy of the oldest outstanding packet")
    {
        auto em = CreateObject<NthDataFrameLoss>(64);
        auto r = RunOneLoss("selective-repeat", 64, 64, em, "ns3::RecordingPathSelector");
        REQUIRE(r.finished);
        REQUIRE(CountFeedback(PathSelector::TIMEOUT) == 1);
        CHECK(std::find_if(g_feedback.begin(), g_feedback.end(), [](const auto& f) {
                  return f.second == PathSelector::TIMEOUT;
              })->first == em->droppedEntropy);
    }
}

TEST_CASE("per-entropy ECN feedback: CE marks are echoed (BTH BECN) to the path selector",
          "[component][path-selector][feedback]")
{
    // Two senders into one 100 Gb/s port with ECN marking from a few KB of queue: the
    // responders echo CE in their ACKs and the requesters report ECN for those packets.
    auto spec = LeafSpine(1, 1, 3, 100);
    spec.ecn.enabled = true;
    spec.ecn.fallback.kminBytes = 5000;
    spec.ecn.fallback.kmaxBytes = 20000;
    spec.ecn.fallback.pmax = 1.0;
    spec.lb.pathSelector = "ns3::RecordingPathSelector";
    AddFlow(spec, 0, 2, 256 * 4096);
    AddFlow(spec, 1, 2, 256 * 4096);
    g_feedback.clear();
    auto r = Run(spec);
    REQUIRE(r.finished);
    CHECK(CountFeedback(PathSelector::ECN) > 0);
    CHECK(CountFeedback(PathSelector::GOOD) > 0);
    CHECK(CountFeedback(PathSelector::ECN) + CountFeedback(PathSelector::GOOD) == 2 * 256);
}

TEST_CASE("CNP on out-of-order arrival", "[component][selective-repeat][cnp]")
{
    // Random spraying over 4 spines reorders; with nic.cnp_on_ooo the responder NIC also sends
    // CNPs (at most one per QP per CnpInterval) to the requester. Without it, none: congestion
    // control is off and nothing else is marked.
    for (bool on : {false, true})
    {
        auto spec = LeafSpine(2, 4, 1, 100);
        spec.lb.policy = "spray";
        spec.nic.receiver = "selective-repeat";
        spec.nic.cnpOnOutOfOrder = on;
        AddFlow(spec, 0, 1, 2'000'000);
        uint64_t cnps = 0;
        uint64_t received = 0;
        tusk::RunOptions o;
        o.afterRun = [&](Fabric&, const std::vector<Ptr<RdmaNic>>& nics) {
            cnps = nics[1]->GetQp(RdmaNic::kFirstQpn)->GetCounters().oooCnpsSent;
            received = nics[0]->GetQp(RdmaNic::kFirstQpn)->GetCounters().cnpsReceived;
        };
        auto r = Run(spec, o);
        REQUIRE(r.finished);
        REQUIRE(r.summary.oooPackets > 0);
        if (on)
        {
            CHECK(cnps > 0);
            CHECK(received == cnps);
            // The interval bounds them: one per 50 us of a run of about 170 us.
            CHECK(cnps <= r.simEndPs / 50'000'000 + 1);
        }
        else
        {
            CHECK(cnps == 0);
            CHECK(received == 0);
        }
    }
}

TEST_CASE("balanced per-packet spraying with a reorder-tolerant receiver: slowdown <= 1.05 "
          "(oracle 9)",
          "[component][oracle9][selective-repeat]")
{
    // N = M = 8 flows of 2 MB from leaf A to leaf B over 8 spines at 100 Gb/s. Per-packet
    // load balancing that keeps the uplinks' queues even (round-robin spraying; DRILL(2,1),
    // which also reorders) with a selective-repeat receiver completes within 5 % of the
    // ideal. The same DRILL with go-back-N RoCE pays for every reordering with NAKs and
    // resends: reported, not hidden. (Random spraying needs longer flows; see the regression.)
    auto spec = LeafSpine(2, 8, 8, 100);
    for (uint32_t i = 0; i < 8; ++i)
    {
        AddFlow(spec, i, 8 + i, 2'000'000);
    }
    for (const std::string policy : {"rr-spray", "drill", "ar"})
    {
        INFO(policy);
        spec.lb.policy = policy;
        spec.nic.receiver = "selective-repeat";
        auto r = Run(spec);
        REQUIRE(r.finished);
        CHECK(r.summary.maxSlowdown <= 1.05);
        CHECK(r.summary.spuriousRetx == 0);
        if (policy == "drill")
        {
            CHECK(r.summary.oooPackets > 0); // reordered, and the receiver did not mind
            spec.nic.receiver = "go-back-n";
            auto g = Run(spec);
            REQUIRE(g.finished);
            CHECK(g.summary.naks > 0);
            CHECK(g.summary.retxPackets > 0);
            CHECK(g.summary.maxSlowdown > 1.5);
        }
    }
}

namespace
{

/** What the trace sources of the QPs on hosts 0 (sender) and 1 (receiver) reported. */
struct QpTraceLog
{
    std::vector<uint64_t> sent, retransmitted, acked, delivered, timeouts;
    uint64_t deliveredBytes = 0;
    uint64_t naksReceived = 0, naksSent = 0;
    QpCounters tx, rx; //!< the QPs' own counters, read after the run

    /** Connect to every QP the NICs create ("QpCreated"), before the workload starts. */
    void Attach(const std::vector<Ptr<RdmaNic>>& nics)
    {
        nics[0]->TraceConnectWithoutContext(
            "QpCreated", Callback<void, Ptr<RdmaQueuePair>>([this](Ptr<RdmaQueuePair> qp) {
                qp->TraceConnectWithoutContext(
                    "PacketSent", Callback<void, uint64_t, uint32_t, uint16_t>(
                                      [this](uint64_t psn, uint32_t, uint16_t) { sent.push_back(psn); }));
                qp->TraceConnectWithoutContext(
                    "PacketRetransmitted",
                    Callback<void, uint64_t, uint32_t, uint16_t>(
                        [this](uint64_t psn, uint32_t, uint16_t) { retransmitted.push_back(psn); }));
                qp->TraceConnectWithoutContext(
                    "PacketAcked", Callback<void, uint64_t, uint16_t, bool, Time>(
                                       [this](uint64_t psn, uint16_t, bool, Time rtt) {
                                           CHECK(rtt.IsStrictlyPositive());
                                           acked.push_back(psn);
                                       }));
                qp->TraceConnectWithoutContext(
                    "NakReceived",
                    Callback<void, uint64_t, bool>([this](uint64_t, bool) { ++naksReceived; }));
                qp->TraceConnectWithoutContext(
                    "Timeout",
                    Callback<void, uint64_t>([this](uint64_t psn) { timeouts.push_back(psn); }));
            }));
        nics[1]->TraceConnectWithoutContext(
            "QpCreated", Callback<void, Ptr<RdmaQueuePair>>([this](Ptr<RdmaQueuePair> qp) {
                qp->TraceConnectWithoutContext(
                    "PacketDelivered",
                    Callback<void, uint64_t, uint32_t>([this](uint64_t psn, uint32_t bytes) {
                        delivered.push_back(psn);
                        deliveredBytes += bytes;
                    }));
                qp->TraceConnectWithoutContext(
                    "NakSent", Callback<void, uint64_t, bool>([this](uint64_t, bool) { ++naksSent; }));
            }));
    }

    void Read(const std::vector<Ptr<RdmaNic>>& nics)
    {
        tx = nics[0]->GetQp(RdmaNic::kFirstQpn)->GetCounters();
        rx = nics[1]->GetQp(RdmaNic::kFirstQpn)->GetCounters();
    }

    /** The traces agree with the counters, and every PSN 0..n-1 was sent, acknowledged and
     *  delivered exactly once, in order at the receiver. */
    void CheckConsistent(uint64_t n) const
    {
        std::vector<uint64_t> all(n);
        std::iota(all.begin(), all.end(), 0);
        CHECK(sent == all);
        CHECK(delivered == all);
        std::vector<uint64_t> a = acked;
        std::sort(a.begin(), a.end());
        CHECK(a == all);
        CHECK(deliveredBytes == rx.deliveredBytes);
        CHECK(retransmitted.size() == tx.retxPackets);
        CHECK(sent.size() + retransmitted.size() == tx.dataPacketsSent);
        CHECK(naksReceived == tx.naksReceived + tx.trimNacksReceived);
        CHECK(naksSent == rx.naksSent);
        CHECK(timeouts.size() == tx.timeouts);
    }
};

} // namespace

TEST_CASE("QP trace sources: sent, retransmitted, acked, delivered, NAK and timeout agree "
          "with the counters",
          "[component][selective-repeat][gbn][traces]")
{
    SECTION("go-back-N, the 100th of 401 packets lost")
    {
        QpTraceLog log;
        auto em = CreateObject<NthDataFrameLoss>(100);
        auto r = RunOneLoss("go-back-n", 401, 100, em, "",
                            [&](const auto& nics) { log.Attach(nics); },
                            [&](const auto& nics) { log.Read(nics); });
        REQUIRE(r.finished);
        log.CheckConsistent(401);
        CHECK(log.naksReceived == 1);
        CHECK(log.retransmitted.front() == 99); // go back to the lost packet, PSN 99
        CHECK(log.retransmitted.size() > 1);    // and resend everything behind it
    }
    SECTION("selective repeat, the last of 64 packets lost: one timeout, one resend")
    {
        QpTraceLog log;
        auto em = CreateObject<NthDataFrameLoss>(64);
        auto r = RunOneLoss("selective-repeat", 64, 64, em, "",
                            [&](const auto& nics) { log.Attach(nics); },
                            [&](const auto& nics) { log.Read(nics); });
        REQUIRE(r.finished);
        log.CheckConsistent(64);
        CHECK(log.timeouts == std::vector<uint64_t>{63});
        CHECK(log.retransmitted == std::vector<uint64_t>{63});
    }
}

} // namespace TUSK_TEST_FILE
