// RoCEv2 RC go-back-N recovery (IBA Vol. 1 9.7.5): one lost data packet is recovered through a
// NAK (PSN sequence error); one lost ACK is covered by the next cumulative ACK, or, for the
// last ACK of a message, by the retransmission timeout. Every byte is delivered exactly once.

#include "run-helpers.h"

#include "fabric/helper/fabric-helper.h"
#include "rdma/model/rdma-nic.h"

#include "ns3/error-model.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"

#include <algorithm>
#include <functional>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;
using namespace ns3;

namespace
{

/** Drops the n-th frames (1-based) whose size is in [minBytes, maxBytes]. */
class NthFrameErrorModel : public ErrorModel
{
  public:
    NthFrameErrorModel(uint32_t n, uint32_t minBytes, uint32_t maxBytes)
        : NthFrameErrorModel(std::vector<uint32_t>{n}, minBytes, maxBytes)
    {
    }

    NthFrameErrorModel(std::vector<uint32_t> ns, uint32_t minBytes, uint32_t maxBytes)
        : m_ns(std::move(ns)), m_min(minBytes), m_max(maxBytes)
    {
    }

    uint32_t dropped = 0;

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        if (p->GetSize() < m_min || p->GetSize() > m_max)
        {
            return false;
        }
        ++m_seen;
        if (std::find(m_ns.begin(), m_ns.end(), m_seen) != m_ns.end())
        {
            ++dropped;
            return true;
        }
        return false;
    }

    void DoReset() override {}

    std::vector<uint32_t> m_ns;
    uint32_t m_min;
    uint32_t m_max;
    uint32_t m_seen = 0;
};

/** Host 0 -> host 1 through one switch; the error model sits on the port that receives. */
tusk::RunResult
RunWithLoss(uint64_t bytes, Ptr<NthFrameErrorModel> em, bool onDataPath, uint32_t ackInterval,
            uint64_t rtoUs,
            std::function<void(const std::vector<Ptr<RdmaNic>>&)> afterRun = {})
{
    auto spec = LeafSpine(1, 1, 2, 100);
    spec.nic.ackInterval = ackInterval;
    spec.nic.rtoPs = rtoUs * 1'000'000;
    AddFlow(spec, 0, 1, bytes);
    tusk::RunOptions o;
    o.beforeRun = [&](Fabric& f, const std::vector<Ptr<RdmaNic>>& nics) {
        // Data arrives at host 1's NIC; ACKs arrive at host 0's NIC.
        nics[onDataPath ? 1 : 0]->SetAttribute("ReceiveErrorModel", PointerValue(em));
    };
    o.afterRun = [&](Fabric&, const std::vector<Ptr<RdmaNic>>& nics) {
        if (afterRun)
        {
            afterRun(nics);
        }
    };
    return Run(spec, o);
}

} // namespace

TEST_CASE("go-back-N: one dropped data packet is recovered by NAK", "[component][gbn]")
{
    const uint64_t bytes = 400 * 4096 + 123; // 401 packets
    auto em = Create<NthFrameErrorModel>(100, 1000, 100000); // the 100th data frame
    auto r = RunWithLoss(bytes, em, true, 1, 1000);
    REQUIRE(em->dropped == 1);
    REQUIRE(r.finished);
    const auto& f = r.flows[0];
    CHECK(f.deliveredBytes == bytes);
    // Go-back-N resends the lost packet and every packet sent after it before the NAK
    // arrived: at least 1, at most one BDP worth (RTT 4 us at 100G ~ 12 packets) plus slack.
    CHECK(f.retxPackets >= 1);
    CHECK(f.retxPackets <= 40);
    CHECK(f.retxTimeoutPackets == 0); // NAK-driven resends
    CHECK(f.oooPackets >= 1); // the packets behind the hole arrived out of order
    // No timeout needed: recovery within a few RTTs, far below the 1 ms RTO.
    const double extraUs = (f.fctPs - f.idealFctPs) * 1e-6;
    CHECK(extraUs < 3 * 4.5 + f.retxPackets * 0.35);
    CHECK(r.summary.drops == 1);
}

TEST_CASE("go-back-N: a gap just before the last packet is NAKed when the last packet arrives: "
          "about one RTT late, not a retransmission timeout",
          "[component][gbn]")
{
    // 16 packets; the 15th data frame never arrives, so the last one reaches the responder
    // before it, as in a tail reorder. IBA Vol. 1 9.7.5 (and the Linux soft-RoCE responder's
    // PSN check): the first packet beyond ePSN answers a PSN sequence error NAK, so the
    // requester goes back at once. With the deployed 67 ms timer (the default), a wait for the
    // timer would show as 67,000 us.
    const uint64_t bytes = 16 * 4096;
    auto em = Create<NthFrameErrorModel>(15, 1000, 100000);
    auto r = RunWithLoss(bytes, em, true, 1, 67'109); // 67.1 ms, rdma.md's deployed default
    REQUIRE(em->dropped == 1);
    REQUIRE(r.finished);
    const auto& f = r.flows[0];
    CHECK(f.deliveredBytes == bytes);
    CHECK(f.retxTimeoutPackets == 0);
    CHECK(f.retxPackets == 2); // the hole and the last packet, once each
    CHECK(f.naks == 1);
    // One round trip (about 4.5 us on this 2-hop path: 4 x 1 us of links and the frames'
    // serialisation) plus the two resends' 0.35 us each.
    const double extraUs = (f.fctPs - f.idealFctPs) * 1e-6;
    INFO("FCT above ideal: " << extraUs << " us");
    CHECK(extraUs < 4.5 + 2 * 0.35 + 1.0);
}

TEST_CASE("go-back-N: a resent last packet that reaches the responder while its NAK for an "
          "earlier ePSN is out draws no second NAK, and the tail waits for the timer",
          "[component][gbn]")
{
    // 4 packets. Data frames at the responder: 1 = PSN 0, 2 = PSN 1, 3 = PSN 2 (dropped),
    // 4 = PSN 3: the first arrival beyond ePSN 2, NAK(2). The requester goes back to 2 and
    // resends 2 (frame 5, dropped) and 3 (frame 6). Frame 6 reaches a responder that has
    // already NAKed ePSN 2: the IBA responder rule (vol. 1 9.7.5, out-of-sequence request:
    // one PSN sequence error NAK, then later new requests are ignored until ePSN arrives; the
    // Linux soft-RoCE responder's `sent_psn_nak`) discards it silently. Nothing else is in
    // flight, so only the requester's retransmission timer resends 2 and 3. The responder
    // cannot tell the lost resend of 2 from a late one, so this is also the state of a
    // sprayed or re-routed resend of 2 that the resent last packet overtakes: once 2 arrives,
    // ePSN is 3 and nothing more comes. A responder that NAKed every out-of-order arrival
    // would finish about one round trip after frame 6 instead (about 10 us, not 1 ms).
    const uint64_t bytes = 4 * 4096;
    const uint64_t rtoUs = 1000;
    auto em = Create<NthFrameErrorModel>(std::vector<uint32_t>{3, 5}, 1000, 100000);
    auto r = RunWithLoss(bytes, em, true, 1, rtoUs);
    REQUIRE(em->dropped == 2);
    REQUIRE(r.finished);
    const auto& f = r.flows[0];
    CHECK(f.deliveredBytes == bytes);
    CHECK(f.naks == 1);               // NAK(2) only: the resent PSN 3 drew none
    CHECK(f.retxTimeoutPackets == 2); // the timer resent 2 and 3
    CHECK(f.retxPackets == 4);        // 2 and 3 after the NAK, 2 and 3 after the timeout
    // The timer runs from the last progress (the ACK of PSN 1, a few us in), so the message
    // ends one RTO and a few round trips after its start.
    const double fctUs = f.fctPs * 1e-6;
    INFO("FCT " << fctUs << " us, RTO " << rtoUs << " us");
    CHECK(fctUs > rtoUs);
    CHECK(fctUs < rtoUs + 4 * 4.5);
}

TEST_CASE("go-back-N: one dropped ACK mid-flow is covered by the next cumulative ACK",
          "[component][gbn]")
{
    const uint64_t bytes = 200 * 4096;
    auto em = Create<NthFrameErrorModel>(50, 60, 200); // the 50th ACK
    auto r = RunWithLoss(bytes, em, false, 1, 1000);
    REQUIRE(em->dropped == 1);
    REQUIRE(r.finished);
    CHECK(r.flows[0].deliveredBytes == bytes);
    CHECK(r.flows[0].retxPackets == 0);
    CHECK(r.flows[0].slowdown == Approx(1.0).epsilon(1e-6)); // delivery never waited for ACKs
}

TEST_CASE("go-back-N: the lost last ACK is recovered by the retransmission timeout",
          "[component][gbn]")
{
    const uint64_t bytes = 64 * 4096;
    // ACK every 64 packets: the only ACK is the one for the last packet; drop it.
    auto em = Create<NthFrameErrorModel>(1, 60, 200);
    const uint64_t rtoUs = 50;
    uint64_t receiverDuplicates = 0;
    auto r = RunWithLoss(bytes, em, false, 64, rtoUs, [&](const std::vector<Ptr<RdmaNic>>& nics) {
        for (uint32_t q = 0; q < nics[1]->GetNQps(); ++q)
        {
            receiverDuplicates +=
                nics[1]->GetQp(RdmaNic::kFirstQpn + q)->GetCounters().duplicatePackets;
        }
    });
    REQUIRE(em->dropped == 1);
    REQUIRE(r.finished);
    const auto& f = r.flows[0];
    CHECK(f.deliveredBytes == bytes); // delivered exactly once: duplicates are not re-delivered
    CHECK(f.retxPackets >= 1);        // the timeout resent from the oldest unacknowledged PSN
    // Every resend reached a receiver that had finished the message: each one is spurious and
    // counts for this flow (they were once counted for no flow, spurious_retx 0),
    // as many as the receiving QP counted (resends still on the wire at the end are neither).
    CHECK(f.spuriousRetx >= 1);
    CHECK(f.spuriousRetx <= f.retxPackets);
    CHECK(f.spuriousRetx == receiverDuplicates);
    // Every resend followed the timeout: counted apart from NAK resends.
    CHECK(f.retxTimeoutPackets == f.retxPackets);
    CHECK(r.summary.retxTimeoutPackets == f.retxTimeoutPackets); // and in the summary
    // The receiver had everything at the ideal time; the sender learns it within
    // one RTO + the resend of the window + an RTT.
    CHECK(f.slowdown == Approx(1.0).epsilon(1e-6));
    REQUIRE(r.flows.size() == 1);
    const double sendDoneUs = r.simEndPs * 1e-6;
    const double idealUs = f.idealFctPs * 1e-6;
    CHECK(sendDoneUs <= idealUs + rtoUs + 64 * 0.35 + 3 * 4.5);
}

TEST_CASE("RTO: a QP whose packets wait in a PFC-paused queue for more than 1 ms is not "
          "timed out with the default RTO (a deployed NIC's), and is with 1 ms",
          "[component][go-back-n][rto]")
{
    // 32:1 incast of 256 KiB flows into a host whose link runs at 1 Gb/s (degraded from 100 at
    // t = 0), a 4 MiB switch buffer: each ingress may hold ~1/40 of the shared pool (~70 kB),
    // less than a flow, so PFC pauses the senders; and a QP's next packet waits behind one
    // packet of each of the other 31 QPs, 32 x 4178 B x 8 / 1 Gb/s = 1.07 ms between two ACKs
    // of one QP. Nothing is lost.
    auto spec = LeafSpine(1, 1, 33, 100);
    spec.buffer.totalBytes = 4ULL << 20;
    for (uint32_t h = 0; h < 32; ++h)
    {
        AddFlow(spec, h, 32, 256 * 1024);
    }
    tusk::FailureEntry slow;
    slow.kind = "degrade";
    slow.link = "leaf0-host32";
    slow.rateDivisor = 100;
    spec.failures.push_back(slow);
    spec.stopTimePs = 300'000'000'000ULL;
    spec.requireFinish = false;

    // The default is a deployed RoCE NIC's Local ACK Timeout, 4.096 us x 2^14 = 67.1 ms (with
    // the former default of 1 ms, this run had timeout resends and no drop): no resend.
    CHECK(spec.nic.rtoPs == 67'108'864'000ULL);
    auto deployed = Run(spec);
    REQUIRE(deployed.finished);
    CHECK(deployed.summary.drops == 0);
    CHECK(deployed.summary.pfcPauses > 0);
    CHECK(deployed.summary.retxPackets == 0);
    CHECK(deployed.summary.retxTimeoutPackets == 0);

    // A 1 ms RTO (tusk's default before) times out QPs whose packets were only queued: resends with
    // no drop, every one of them after a timeout (go-back-N on one path sees no reordering,
    // so no NAK), and a later finish if any.
    spec.nic.rtoPs = 1'000'000'000ULL;
    auto oneMs = Run(spec);
    INFO("1 ms RTO: " << oneMs.summary.retxTimeoutPackets << " timeout resends");
    CHECK(oneMs.summary.drops == 0);
    CHECK(oneMs.summary.retxTimeoutPackets > 0);
    CHECK(oneMs.summary.retxTimeoutPackets == oneMs.summary.retxPackets);
    CHECK((!oneMs.finished || oneMs.simEndPs > deployed.simEndPs));
}

} // namespace TUSK_TEST_FILE
