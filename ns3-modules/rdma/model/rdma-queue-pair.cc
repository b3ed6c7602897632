#include "rdma-queue-pair.h"

#include "rdma-nic.h"
#include "roce-header.h"
#include "roce-sack-header.h"

#include "fabric/model/fabric-units.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaQueuePair");
NS_OBJECT_ENSURE_REGISTERED(RdmaQueuePair);

namespace
{
constexpr uint64_t kPsnSpace = 1ULL << 24;
constexpr uint64_t kPsnHalf = 1ULL << 23;
/** Selective-repeat receive slot: payload bytes, and this bit if the packet ends a message. */
constexpr uint32_t kRxLast = 1u << 31;

uint32_t
Psn24(uint64_t psn)
{
    return static_cast<uint32_t>(psn & (kPsnSpace - 1));
}
} // namespace

TypeId
RdmaQueuePair::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaQueuePair")
                            .SetParent<Object>()
                            .SetGroupName("Rdma")
                            .AddConstructor<RdmaQueuePair>();
    return tid;
}

RdmaQueuePair::RdmaQueuePair() = default;

void
RdmaQueuePair::DoDispose()
{
    m_timer.Cancel();
    m_nic = nullptr;
    m_pathSelector = nullptr;
    m_cc = nullptr;
    m_sendCb = SendCallback();
    m_recvCb = RecvCallback();
    Object::DoDispose();
}

void
RdmaQueuePair::Setup(Ptr<RdmaNic> nic,
                     uint32_t qpn,
                     uint32_t peerHost,
                     uint32_t peerQpn,
                     uint8_t priority,
                     Ptr<PathSelector> ps,
                     Ptr<RdmaCongestionControl> cc)
{
    m_nic = nic;
    m_qpn = qpn;
    m_peerHost = peerHost;
    m_peerQpn = peerQpn;
    m_priority = priority;
    m_pathSelector = ps;
    m_cc = cc;
    m_rto = nic->GetRetransmitTimeout();
    m_selectiveRepeat = nic->IsSelectiveRepeat();
    m_srWindow = nic->GetSelectiveRepeatWindow();
    m_sackBitmap = nic->IsSackBitmap();
    m_reorderWindowPs = static_cast<uint64_t>(nic->GetReorderWindow().GetPicoSeconds());
}

uint64_t
RdmaQueuePair::ExtendPsn(uint32_t psn24, uint64_t reference)
{
    uint64_t candidate = (reference & ~(kPsnSpace - 1)) | psn24;
    if (candidate + kPsnHalf < reference)
    {
        candidate += kPsnSpace;
    }
    else if (candidate > reference + kPsnHalf && candidate >= kPsnSpace)
    {
        candidate -= kPsnSpace;
    }
    return candidate;
}

void
RdmaQueuePair::PostSend(uint64_t bytes, uint64_t cookie)
{
    NS_ABORT_MSG_IF(bytes == 0, "RdmaQueuePair::PostSend: empty message");
    const uint32_t mtu = m_nic->GetMtuBytes();
    const uint64_t packets = (bytes + mtu - 1) / mtu;
    m_sendQueue.push_back(SendWqe{cookie, bytes, m_psnEnd, packets, SendMessageStats()});
    m_psnEnd += packets;
    m_nic->Activate(this);
}

void
RdmaQueuePair::PostReceive(uint64_t cookie)
{
    m_recvQueue.push_back(cookie);
}

uint64_t
RdmaQueuePair::GetUnackedBytes() const
{
    uint64_t total = 0;
    for (const auto& w : m_sendQueue)
    {
        total += w.bytes;
    }
    return total;
}

uint64_t
RdmaQueuePair::Window() const
{
    const uint64_t limit = m_nic->GetMaxOutstandingPackets();
    if (!m_selectiveRepeat)
    {
        return limit;
    }
    return limit == 0 ? m_srWindow : std::min(limit, m_srWindow);
}

bool
RdmaQueuePair::HasDataToSend() const
{
    if (m_resendPending > 0)
    {
        return true; // selective repeat: a packet declared lost waits to be resent
    }
    if (m_sndNxt >= m_psnEnd)
    {
        return false;
    }
    uint64_t window = Window();
    const uint64_t ccBytes = m_cc->GetWindowBytes();
    if (ccBytes != 0)
    {
        // A window-based congestion control (NSCC): at least one packet may be outstanding.
        const uint64_t ccPackets = std::max<uint64_t>(1, ccBytes / m_nic->GetMtuBytes());
        window = window == 0 ? ccPackets : std::min(window, ccPackets);
    }
    return window == 0 || m_sndNxt - m_sndUna < window;
}

void
RdmaQueuePair::GrowTxSlots(uint64_t outstanding)
{
    if (outstanding < m_txSlots.size())
    {
        return;
    }
    // Double (a power of two), re-homing the outstanding slots; amortised, and bounded by
    // the largest number of packets ever outstanding (the window in selective repeat).
    size_t size = std::max<size_t>(64, m_txSlots.size());
    while (size <= outstanding)
    {
        size *= 2;
    }
    std::vector<TxSlot> grown(size);
    for (uint64_t p = m_sndUna; p < m_maxSent && !m_txSlots.empty(); ++p)
    {
        grown[p & (size - 1)] = Slot(p);
    }
    m_txSlots.swap(grown);
}

RdmaQueuePair::SendWqe&
RdmaQueuePair::WqeOf(uint64_t psn)
{
    // The WQE holding psn: the last one whose firstPsn <= psn.
    auto it = std::upper_bound(m_sendQueue.begin(),
                               m_sendQueue.end(),
                               psn,
                               [](uint64_t p, const SendWqe& w) { return p < w.firstPsn; });
    NS_ABORT_MSG_IF(it == m_sendQueue.begin(), "RdmaQueuePair: no WQE for PSN " << psn);
    return *(--it);
}

uint32_t
RdmaQueuePair::PayloadOf(const SendWqe& wqe, uint64_t psn) const
{
    const uint64_t index = psn - wqe.firstPsn;
    const uint32_t mtu = m_nic->GetMtuBytes();
    return (index + 1 < wqe.packets) ? mtu
                                     : static_cast<uint32_t>(wqe.bytes - (wqe.packets - 1) * mtu);
}

bool
RdmaQueuePair::NextRetransmission(uint64_t& psn)
{
    m_retxNext = std::max(m_retxNext, m_sndUna);
    const uint64_t end = std::max(m_lossScan, m_trimScanEnd);
    while (m_retxNext < end)
    {
        if (ResendPending(Slot(m_retxNext)))
        {
            --m_resendPending;
            psn = m_retxNext++;
            return true;
        }
        ++m_retxNext;
    }
    return false;
}

RdmaQueuePair::TxDescriptor
RdmaQueuePair::NextDataPacket(uint32_t mtu, Time now)
{
    uint64_t psn = m_sndNxt;
    bool resend = false;
    if (m_selectiveRepeat && NextRetransmission(psn))
    {
        resend = true; // only what is missing, oldest first
    }
    else
    {
        resend = psn < m_maxSent; // go-back-N resends everything from its rewound snd_nxt
        ++m_sndNxt;
    }
    SendWqe& wqe = WqeOf(psn);
    const uint64_t index = psn - wqe.firstPsn;
    TxDescriptor d;
    d.psn = psn;
    d.payload = PayloadOf(wqe, psn);
    if (wqe.packets == 1)
    {
        d.opcode = ROCE_RC_SEND_ONLY;
    }
    else if (index == 0)
    {
        d.opcode = ROCE_RC_SEND_FIRST;
    }
    else if (index + 1 == wqe.packets)
    {
        d.opcode = ROCE_RC_SEND_LAST;
    }
    else
    {
        d.opcode = ROCE_RC_SEND_MIDDLE;
    }
    d.ackRequest = (index + 1 == wqe.packets);
    d.entropy = m_pathSelector->NextEntropy(now);
    if (resend)
    {
        ++wqe.stats.retxPackets;
        wqe.stats.retxBytes += d.payload;
        ++m_counters.retxPackets;
        m_counters.retxBytes += d.payload;
    }
    ++m_counters.dataPacketsSent;
    m_maxSent = std::max(m_maxSent, psn + 1);
    GrowTxSlots(m_maxSent - m_sndUna);
    TxSlot& slot = Slot(psn);
    slot.sentPs = static_cast<uint64_t>(now.GetPicoSeconds());
    slot.entropy = d.entropy;
    slot.flags = resend ? static_cast<uint8_t>(slot.flags | kResent) : 0;
    ArmTimer(now);
    return d;
}

void
RdmaQueuePair::NotePaced(uint64_t wireBytes, Time now, uint64_t lineRateBps)
{
    const uint64_t rate = m_cc->GetRateBps();
    m_cc->OnDataSent(static_cast<uint32_t>(wireBytes), now);
    if (rate < lineRateBps)
    {
        m_nextTxPs = static_cast<uint64_t>(now.GetPicoSeconds()) + SerializationPs(wireBytes, rate);
    }
}

void
RdmaQueuePair::ArmTimer(Time now)
{
    if (!m_timer.IsRunning())
    {
        m_lastProgress = now;
        m_timer = Simulator::Schedule(m_rto, &RdmaQueuePair::OnTimer, this);
    }
}

void
RdmaQueuePair::OnTimer()
{
    if (m_sndUna >= m_maxSent)
    {
        return; // nothing outstanding
    }
    const Time now = Simulator::Now();
    const Time deadline = m_lastProgress + m_rto;
    if (now < deadline)
    {
        m_timer = Simulator::Schedule(deadline - now, &RdmaQueuePair::OnTimer, this);
        return;
    }
    NS_LOG_INFO("QP " << m_qpn << " timeout at PSN " << m_sndUna);
    ++m_counters.timeouts;
    m_pathSelector->OnFeedback(Slot(m_sndUna).entropy, PathSelector::TIMEOUT, now);
    if (m_selectiveRepeat)
    {
        // Every packet not yet acknowledged is presumed lost and resent once more.
        m_resendPending = 0;
        for (uint64_t p = m_sndUna; p < m_maxSent; ++p)
        {
            TxSlot& s = Slot(p);
            if (!(s.flags & kSacked))
            {
                s.flags = kLost;
                ++m_resendPending;
            }
        }
        m_lossScan = m_maxSent;
        m_retxNext = m_sndUna;
    }
    else
    {
        m_sndNxt = m_sndUna; // go-back-N
    }
    m_lastProgress = now;
    m_timer = Simulator::Schedule(m_rto, &RdmaQueuePair::OnTimer, this);
    m_nic->Activate(this);
}

void
RdmaQueuePair::AckedFeedback(uint64_t psn, bool ecnEcho, Time now)
{
    m_cc->OnAckSample(ecnEcho, now - PicoSeconds(Slot(psn).sentPs), now);
    m_pathSelector->OnFeedback(Slot(psn).entropy,
                               ecnEcho ? PathSelector::ECN : PathSelector::GOOD,
                               now);
}

void
RdmaQueuePair::MarkAcked(TxSlot& s)
{
    if (ResendPending(s))
    {
        --m_resendPending;
    }
    s.flags |= kSacked;
}

void
RdmaQueuePair::NoteDelivered(uint64_t psn)
{
    // RACK: the send time of the most recently sent packet known to be delivered. A packet
    // resent since it was declared lost is ambiguous (which copy arrived?) and is skipped.
    const TxSlot& s = Slot(psn);
    if (!(s.flags & kResent))
    {
        m_rackSentPs = std::max(m_rackSentPs, s.sentPs);
    }
}

void
RdmaQueuePair::DetectLosses(Time now)
{
    // A packet is lost when one sent more than ReorderWindow after it has been delivered.
    // First transmissions are sent in PSN order, so the scan stops at the first packet young
    // enough to be merely reordered; amortised O(1) per acknowledgement.
    m_lossScan = std::max(m_lossScan, m_sndUna);
    while (m_lossScan < m_maxSent)
    {
        TxSlot& s = Slot(m_lossScan);
        if (!(s.flags & (kSacked | kLost)))
        {
            if (s.sentPs + m_reorderWindowPs >= m_rackSentPs)
            {
                break;
            }
            s.flags = static_cast<uint8_t>((s.flags & ~kResent) | kLost);
            ++m_resendPending;
            ++m_counters.lossesDetected;
            m_retxNext = std::min(m_retxNext, m_lossScan);
            m_pathSelector->OnFeedback(s.entropy, PathSelector::NACK, now);
        }
        ++m_lossScan;
    }
}

void
RdmaQueuePair::ReceiveAck(uint32_t psn24,
                          bool nak,
                          Time now,
                          bool sack,
                          uint32_t sackPsn24,
                          bool ecnEcho,
                          bool sackBitmap,
                          uint32_t sackBase24,
                          uint64_t sackBits)
{
    // ACK: psn is the last PSN received in order. NAK: psn is the responder's ePSN.
    const uint64_t psn = ExtendPsn(psn24, m_sndUna);
    const uint64_t newUna = nak ? psn : psn + 1;
    if (nak)
    {
        ++m_counters.naksReceived;
    }
    else
    {
        ++m_counters.acksReceived;
    }
    if (newUna > m_maxSent)
    {
        return; // stale or corrupt: acknowledges what was never sent
    }
    if (newUna > m_sndUna)
    {
        const uint64_t ackedPackets = newUna - m_sndUna;
        for (uint64_t p = m_sndUna; p < newUna; ++p)
        {
            TxSlot& s = Slot(p);
            if (!(s.flags & kSacked))
            {
                AckedFeedback(p, ecnEcho, now);
                MarkAcked(s);
            }
        }
        NoteDelivered(newUna - 1);
        m_sndUna = newUna;
        m_lastProgress = now;
        m_cc->OnAck(ackedPackets, false, now);
        while (!m_sendQueue.empty() &&
               m_sendQueue.front().firstPsn + m_sendQueue.front().packets <= m_sndUna)
        {
            const SendWqe done = m_sendQueue.front();
            m_sendQueue.pop_front();
            if (!m_sendCb.IsNull())
            {
                m_sendCb(done.cookie, done.stats);
            }
        }
    }
    if (m_selectiveRepeat)
    {
        if (sack)
        {
            Sacked(ExtendPsn(sackPsn24, m_sndUna), ecnEcho, now);
        }
        if (sackBitmap && nak)
        {
            RoceSackBitmapHeader::ForEachSacked(ExtendPsn(sackBase24, m_sndUna), sackBits,
                                                [&](uint64_t s) {
                Sacked(s, ecnEcho, now);
            });
        }
        DetectLosses(now);
    }
    else if (nak)
    {
        m_pathSelector->OnFeedback(Slot(m_sndUna).entropy, PathSelector::NACK, now);
        if (m_sndNxt > m_sndUna)
        {
            m_sndNxt = m_sndUna; // go-back-N from the responder's ePSN
            m_nic->Activate(this);
        }
    }
    if (m_sndNxt < m_sndUna)
    {
        m_sndNxt = m_sndUna;
    }
    if (m_sndUna >= m_maxSent)
    {
        m_timer.Cancel();
    }
    if (HasDataToSend())
    {
        m_nic->Activate(this);
    }
}

void
RdmaQueuePair::Sacked(uint64_t s, bool ecnEcho, Time now)
{
    if (s >= m_sndUna && s < m_maxSent && !(Slot(s).flags & kSacked))
    {
        MarkAcked(Slot(s));
        AckedFeedback(s, ecnEcho, now);
        NoteDelivered(s);
    }
}

void
RdmaQueuePair::ReceiveTrimNack(uint32_t psn24, Time now)
{
    ++m_counters.trimNacksReceived;
    const uint64_t psn = ExtendPsn(psn24, m_sndUna);
    if (psn < m_sndUna || psn >= m_maxSent)
    {
        return; // already acknowledged, or stale
    }
    TxSlot& s = Slot(psn);
    m_pathSelector->OnFeedback(s.entropy, PathSelector::NACK, now);
    if (!m_selectiveRepeat)
    {
        if (m_sndNxt > psn)
        {
            m_sndNxt = psn; // go-back-N from the trimmed packet
        }
    }
    else if (!(s.flags & kSacked) && !ResendPending(s))
    {
        s.flags = static_cast<uint8_t>((s.flags & ~kResent) | kLost);
        ++m_resendPending;
        m_retxNext = std::min(m_retxNext, psn);
        m_trimScanEnd = std::max(m_trimScanEnd, psn + 1);
    }
    m_lastProgress = now;
    if (HasDataToSend())
    {
        m_nic->Activate(this);
    }
}

void
RdmaQueuePair::ReceiveTrimmed(uint32_t psn24, RxAnswer& answer)
{
    ++m_counters.trimmedReceived;
    answer = RxAnswer();
    const uint64_t psn = ExtendPsn(psn24, m_ePsn);
    const bool held = m_selectiveRepeat && psn > m_ePsn && psn - m_ePsn < m_srWindow &&
                      !m_rxSlots.empty() && m_rxSlots[psn % m_srWindow] != 0;
    if (psn < m_ePsn || held)
    {
        return; // a trimmed copy of something already here
    }
    answer.kind = RxAnswer::NAK;
    answer.trim = true;
    answer.psn24 = psn24;
    answer.ecnEcho = m_ceSinceAnswer;
    m_ceSinceAnswer = false;
    ++m_counters.naksSent;
    ++m_curRx.naksSent;
}

void
RdmaQueuePair::ReceiveCnp(Time now)
{
    ++m_counters.cnpsReceived;
    m_cc->OnCnp(now);
}

void
RdmaQueuePair::DeliverInOrder(uint32_t payload, bool lastOfMessage)
{
    ++m_ePsn;
    m_curRx.bytes += payload;
    m_counters.deliveredBytes += payload;
    ++m_unacked;
    if (lastOfMessage)
    {
        const RecvMessageStats stats = m_curRx;
        m_curRx = RecvMessageStats();
        NS_ABORT_MSG_IF(m_recvQueue.empty(),
                        "RdmaQueuePair " << m_qpn << ": message arrived with no receive posted");
        const uint64_t cookie = m_recvQueue.front();
        m_recvQueue.pop_front();
        if (!m_recvCb.IsNull())
        {
            m_recvCb(cookie, stats);
        }
    }
}

void
RdmaQueuePair::ReceiveData(uint32_t psn24,
                           uint8_t opcode,
                           bool ackRequest,
                           uint32_t payload,
                           uint32_t ackInterval,
                           bool ce,
                           RxAnswer& answer)
{
    ++m_counters.dataPacketsReceived;
    answer = RxAnswer();
    m_ceSinceAnswer |= ce;
    const uint64_t psn = ExtendPsn(psn24, m_ePsn);
    const bool lastOfMessage = (opcode == ROCE_RC_SEND_LAST || opcode == ROCE_RC_SEND_ONLY);
    auto respond = [&](RxAnswer::Kind kind, uint64_t p) {
        answer.kind = kind;
        answer.psn24 = Psn24(p);
        answer.ecnEcho = m_ceSinceAnswer;
        m_ceSinceAnswer = false;
        if (kind == RxAnswer::ACK)
        {
            ++m_counters.acksSent;
        }
        else
        {
            ++m_counters.naksSent;
            ++m_curRx.naksSent;
        }
    };
    if (m_selectiveRepeat && m_rxSlots.empty())
    {
        m_rxSlots.assign(m_srWindow, 0); // once per responder QP that is used
    }
    const bool held = m_selectiveRepeat && psn > m_ePsn && psn - m_ePsn < m_srWindow &&
                      m_rxSlots[psn % m_srWindow] != 0;
    if (psn < m_ePsn || held)
    {
        // A duplicate: this PSN already arrived, so its sender resent it needlessly.
        ++m_counters.duplicatePackets;
        ++m_curRx.duplicatePackets;
        respond(RxAnswer::ACK, m_ePsn - 1);
        return;
    }
    if (psn > m_ePsn)
    {
        const uint64_t distance = psn - m_ePsn;
        answer.outOfOrder = true;
        ++m_counters.oooPackets;
        m_counters.reorderMax = std::max(m_counters.reorderMax, distance);
        m_counters.reorderSum += distance;
        ++m_curRx.oooPackets;
        m_curRx.reorderMax = std::max(m_curRx.reorderMax, distance);
        m_curRx.reorderSum += distance;
        if (!m_selectiveRepeat)
        {
            // Go-back-N: discard; one NAK per ePSN.
            if (!m_nakOutstanding)
            {
                m_nakOutstanding = true;
                respond(RxAnswer::NAK, m_ePsn);
            }
            return;
        }
        if (distance >= m_srWindow)
        {
            ++m_counters.beyondWindow; // the requester never sends this far ahead
            respond(RxAnswer::NAK, m_ePsn);
            return;
        }
        // Out-of-order placement; IRN's NACK: cumulative ePSN plus the PSN that arrived.
        m_rxSlots[psn % m_srWindow] = payload | (lastOfMessage ? kRxLast : 0);
        m_rxOooBytes += payload;
        m_counters.reorderBufferMaxBytes =
            std::max(m_counters.reorderBufferMaxBytes, m_rxOooBytes);
        respond(RxAnswer::NAK, m_ePsn);
        if (m_sackBitmap)
        {
            // UEC-style: the PSNs held in a 64-PSN window that starts at ePSN, or ends at the
            // new arrival when that is further ahead.
            const uint64_t base =
                distance < RoceSackBitmapHeader::kBits ? m_ePsn : psn - (RoceSackBitmapHeader::kBits - 1);
            answer.sackBitmap = true;
            answer.sackBase24 = Psn24(base);
            answer.sackBits = RoceSackBitmapHeader::Build(base, [this](uint64_t p) {
                return p > m_ePsn && p - m_ePsn < m_srWindow && m_rxSlots[p % m_srWindow] != 0;
            });
        }
        else
        {
            answer.sack = true;
            answer.sackPsn24 = Psn24(psn);
        }
        ++m_counters.sacksSent;
        return;
    }
    // In order.
    m_nakOutstanding = false;
    DeliverInOrder(payload, lastOfMessage);
    bool messageEnded = lastOfMessage;
    bool filledHole = false;
    if (m_selectiveRepeat)
    {
        // The hole is filled: deliver what was held behind it.
        while (true)
        {
            uint32_t& slot = m_rxSlots[m_ePsn % m_srWindow];
            if (slot == 0)
            {
                break;
            }
            const uint32_t bytes = slot & ~kRxLast;
            const bool last = slot & kRxLast;
            slot = 0;
            m_rxOooBytes -= bytes;
            DeliverInOrder(bytes, last);
            messageEnded |= last;
            filledHole = true;
        }
    }
    if (messageEnded || filledHole || ackRequest || m_unacked >= ackInterval)
    {
        m_unacked = 0;
        respond(RxAnswer::ACK, m_ePsn - 1);
    }
}

} // namespace ns3
