#include "rdma-queue-pair.h"

#include "rdma-nic.h"
#include "roce-header.h"

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
    m_sendQueue.push_back(SendWqe{cookie, bytes, m_psnEnd, packets, 0});
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

bool
RdmaQueuePair::HasDataToSend() const
{
    if (m_sndNxt >= m_psnEnd)
    {
        return false;
    }
    const uint64_t window = m_nic->GetMaxOutstandingPackets();
    return window == 0 || m_sndNxt - m_sndUna < window;
}

RdmaQueuePair::TxDescriptor
RdmaQueuePair::NextDataPacket(uint32_t mtu, Time now)
{
    const uint64_t psn = m_sndNxt;
    // The WQE holding psn: the last one whose firstPsn <= psn.
    auto it = std::upper_bound(m_sendQueue.begin(),
                               m_sendQueue.end(),
                               psn,
                               [](uint64_t p, const SendWqe& w) { return p < w.firstPsn; });
    NS_ABORT_MSG_IF(it == m_sendQueue.begin(), "RdmaQueuePair: no WQE for PSN " << psn);
    SendWqe& wqe = *(--it);
    const uint64_t index = psn - wqe.firstPsn;
    TxDescriptor d;
    d.psn = psn;
    d.payload = (index + 1 < wqe.packets) ? mtu
                                          : static_cast<uint32_t>(wqe.bytes - (wqe.packets - 1) * mtu);
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
    if (psn < m_maxSent)
    {
        ++wqe.retxPackets;
        ++m_counters.retxPackets;
    }
    ++m_counters.dataPacketsSent;
    ++m_sndNxt;
    m_maxSent = std::max(m_maxSent, m_sndNxt);
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
    m_pathSelector->OnFeedback(m_pathSelector->GetBaseEntropy(), PathSelector::TIMEOUT, now);
    m_sndNxt = m_sndUna; // go-back-N
    m_lastProgress = now;
    m_timer = Simulator::Schedule(m_rto, &RdmaQueuePair::OnTimer, this);
    m_nic->Activate(this);
}

void
RdmaQueuePair::ReceiveAck(uint32_t psn24, bool nak, Time now)
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
                m_sendCb(done.cookie, done.retxPackets);
            }
        }
    }
    if (nak)
    {
        m_pathSelector->OnFeedback(m_pathSelector->GetBaseEntropy(), PathSelector::NACK, now);
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
    else if (HasDataToSend())
    {
        m_nic->Activate(this);
    }
}

void
RdmaQueuePair::ReceiveCnp(Time now)
{
    m_cc->OnCnp(now);
}

int
RdmaQueuePair::ReceiveData(uint32_t psn24,
                           uint8_t opcode,
                           bool ackRequest,
                           uint32_t payload,
                           uint32_t ackInterval,
                           uint32_t& ackPsn24)
{
    ++m_counters.dataPacketsReceived;
    const uint64_t psn = ExtendPsn(psn24, m_ePsn);
    if (psn < m_ePsn)
    {
        // Duplicate (a go-back-N resend of what already arrived): re-acknowledge.
        ++m_counters.duplicatePackets;
        ackPsn24 = static_cast<uint32_t>((m_ePsn - 1) & (kPsnSpace - 1));
        ++m_counters.acksSent;
        return 1;
    }
    if (psn > m_ePsn)
    {
        ++m_counters.oooPackets;
        ++m_curMsgOoo;
        if (m_nakOutstanding)
        {
            return 0;
        }
        m_nakOutstanding = true;
        ackPsn24 = static_cast<uint32_t>(m_ePsn & (kPsnSpace - 1));
        ++m_counters.naksSent;
        return 2;
    }
    // In order.
    ++m_ePsn;
    m_nakOutstanding = false;
    m_curMsgBytes += payload;
    m_counters.deliveredBytes += payload;
    ++m_unacked;
    const bool lastOfMessage = (opcode == ROCE_RC_SEND_LAST || opcode == ROCE_RC_SEND_ONLY);
    if (lastOfMessage)
    {
        const uint64_t bytes = m_curMsgBytes;
        const uint64_t ooo = m_curMsgOoo;
        m_curMsgBytes = 0;
        m_curMsgOoo = 0;
        NS_ABORT_MSG_IF(m_recvQueue.empty(),
                        "RdmaQueuePair " << m_qpn << ": message arrived with no receive posted");
        const uint64_t cookie = m_recvQueue.front();
        m_recvQueue.pop_front();
        if (!m_recvCb.IsNull())
        {
            m_recvCb(cookie, bytes, ooo);
        }
    }
    if (lastOfMessage || ackRequest || m_unacked >= ackInterval)
    {
        m_unacked = 0;
        ackPsn24 = static_cast<uint32_t>(psn & (kPsnSpace - 1));
        ++m_counters.acksSent;
        return 1;
    }
    return 0;
}

} // namespace ns3
