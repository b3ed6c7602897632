#include "rdma-requester.h"

#include "rdma-nic.h"
#include "rdma-queue-pair.h"
#include "rdma/model/headers/roce-credit-header.h"
#include "rdma/model/headers/roce-header.h"

#include "fabric/model/fabric-units.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaRequester");

RdmaRequester::RdmaRequester() = default;
RdmaRequester::~RdmaRequester() = default;

void
RdmaRequester::Setup(RdmaQueuePair* qp,
                     RdmaNic* nic,
                     Ptr<PathSelector> ps,
                     Ptr<RdmaCongestionControl> cc,
                     Ptr<RdmaLossRecovery> recovery,
                     QpCounters* counters,
                     const Traces& traces,
                     uint32_t mtuBytes,
                     Time rto,
                     uint64_t maxOutstanding,
                     SenderWindow senderWindow)
{
    m_qp = qp;
    m_nic = nic;
    m_ps = ps;
    m_cc = cc;
    m_recovery = recovery;
    m_counters = counters;
    m_traces = traces;
    m_mtu = mtuBytes;
    m_rto = rto;
    m_window = recovery->OutstandingLimit(maxOutstanding);
    m_senderWindow = senderWindow;
}

void
RdmaRequester::Dispose()
{
    m_timer.Cancel();
    m_qp = nullptr;
    m_nic = nullptr;
    m_ps = nullptr;
    m_cc = nullptr;
    m_recovery = nullptr;
    m_sendCb = SendCallback();
}

void
RdmaRequester::EnableReceiverCredit(uint64_t initialBytes)
{
    m_creditOn = true;
    m_creditInitial = initialBytes;
}

void
RdmaRequester::ReceiveCredit(uint32_t credit24)
{
    ++m_counters->creditsReceived;
    // Cumulative and in order; extend the 24-bit field near what was granted so far.
    const uint64_t units = ExtendPsn(credit24, m_creditGranted / kCreditUnitBytes);
    m_creditGranted = std::max(m_creditGranted, units * kCreditUnitBytes);
    if (HasDataToSend())
    {
        Activate();
    }
}

void
RdmaRequester::Activate()
{
    m_nic->Activate(m_qp);
}

void
RdmaRequester::PostSend(uint64_t bytes, uint64_t cookie)
{
    NS_ABORT_MSG_IF(bytes == 0, "RdmaQueuePair::PostSend: empty message");
    const uint64_t packets = (bytes + m_mtu - 1) / m_mtu;
    m_sendQueue.push_back(SendWqe{cookie, bytes, m_psnEnd, packets, SendMessageStats()});
    m_postedBytes += bytes;
    // RCCC accounts in whole kCreditUnitBytes units, as UET's credit fields do: a message
    // demands (and its sending spends) its size rounded up to a unit, so demand, grant and the
    // receiver's count of arrivals agree to the byte and no rounding is left over.
    m_creditDemand += CreditUnitsOf(bytes) * kCreditUnitBytes;
    m_psnEnd += packets;
    if (m_creditOn && GetCreditBalance() <= 0)
    {
        // RCCC: out of credit, so no new data packet goes out to announce this demand, and
        // the responder, which grants only what it knows is demanded, would never grant it
        // (a ring's next step posted after the speculative credit was spent): ask for it.
        // A balance above 0 lets a new data packet go, which carries the demand.
        ++m_counters->creditRequestsSent;
        m_nic->SendCreditRequest(*m_qp, m_creditDemand);
    }
    Activate();
}

uint64_t
RdmaRequester::GetUnackedBytes() const
{
    uint64_t total = 0;
    for (size_t i = 0; i < m_sendQueue.size(); ++i)
    {
        total += m_sendQueue[i].bytes;
    }
    return total;
}

uint64_t
RdmaRequester::SkippablePackets(uint64_t cookie) const
{
    if (m_creditOn || m_resendPending > 0 || m_sndNxt != m_maxSent || m_maxSent >= m_psnEnd)
    {
        return 0;
    }
    // The WQE holding m_maxSent, the next PSN to be sent for the first time.
    for (size_t i = 0; i < m_sendQueue.size(); ++i)
    {
        const SendWqe& w = m_sendQueue[i];
        if (m_maxSent >= w.firstPsn && m_maxSent < w.firstPsn + w.packets)
        {
            if (w.cookie != cookie)
            {
                return 0;
            }
            const uint64_t last = w.firstPsn + w.packets - 1; // kept: it ends the message
            return last - m_maxSent;
        }
    }
    return 0;
}

uint64_t
RdmaRequester::SkipUnsentPackets(uint64_t cookie, uint64_t packets)
{
    const uint64_t n = std::min(packets, SkippablePackets(cookie));
    if (n == 0)
    {
        return 0;
    }
    bool after = false;
    for (size_t i = 0; i < m_sendQueue.size(); ++i)
    {
        SendWqe& w = m_sendQueue[i];
        if (after)
        {
            w.firstPsn -= n;
        }
        else if (m_maxSent >= w.firstPsn && m_maxSent < w.firstPsn + w.packets)
        {
            // Only full packets are taken (the last, possibly partial, one is kept).
            w.packets -= n;
            w.bytes -= n * m_mtu;
            after = true;
        }
    }
    m_psnEnd -= n;
    m_postedBytes -= n * m_mtu;
    m_counters->dataPacketsSent += n;
    return n;
}

SendMessageStats
RdmaRequester::GetPendingSendStats(uint64_t cookie) const
{
    SendMessageStats sum;
    for (size_t i = 0; i < m_sendQueue.size(); ++i)
    {
        const SendWqe& w = m_sendQueue[i];
        if (w.cookie == cookie)
        {
            sum.retxPackets += w.stats.retxPackets;
            sum.retxBytes += w.stats.retxBytes;
            sum.timeoutRetxPackets += w.stats.timeoutRetxPackets;
        }
    }
    return sum;
}

bool
RdmaRequester::HasDataToSend() const
{
    if (m_resendPending > 0)
    {
        return true; // a packet declared lost waits to be resent
    }
    if (m_sndNxt >= m_psnEnd)
    {
        return false;
    }
    if (m_creditOn && m_sndNxt >= m_maxSent && GetCreditBalance() <= 0)
    {
        return false; // RCCC: new data waits for credit (resends do not); a grant activates
    }
    // A window of W bytes lets the QP send while less than W of payload is outstanding (the
    // HPCC simulator's IsWinBound), so ceil(W / MTU) packets, and at least one.
    uint64_t window = m_window;
    auto narrow = [&](double bytes) {
        const double packets = std::max(1.0, std::ceil(bytes / m_mtu));
        const auto p = static_cast<uint64_t>(packets);
        window = window == 0 ? p : std::min(window, p);
    };
    const uint64_t ccBytes = m_cc->GetWindowBytes();
    if (ccBytes != 0)
    {
        narrow(static_cast<double>(ccBytes)); // a window-based congestion control
    }
    if (m_senderWindow.bdpBytes != 0)
    {
        double w = static_cast<double>(m_senderWindow.bdpBytes);
        if (m_senderWindow.variable)
        {
            w *= static_cast<double>(m_cc->GetRateBps()) /
                 static_cast<double>(m_cc->GetSetup().lineRateBps);
        }
        narrow(w);
    }
    return window == 0 || m_sndNxt - m_sndUna < window;
}

void
RdmaRequester::GrowTxSlots(uint64_t outstanding)
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

RdmaRequester::SendWqe&
RdmaRequester::WqeOf(uint64_t psn)
{
    // The WQE holding psn: the last one whose firstPsn <= psn.
    // Binary search over the queue, ordered by firstPsn.
    size_t lo = 0;
    size_t hi = m_sendQueue.size();
    while (lo < hi)
    {
        const size_t mid = (lo + hi) / 2;
        if (psn < m_sendQueue[mid].firstPsn)
        {
            hi = mid;
        }
        else
        {
            lo = mid + 1;
        }
    }
    NS_ABORT_MSG_IF(lo == 0, "RdmaQueuePair: no WQE for PSN " << psn);
    return m_sendQueue[lo - 1];
}

uint32_t
RdmaRequester::PayloadOf(const SendWqe& wqe, uint64_t psn) const
{
    const uint64_t index = psn - wqe.firstPsn;
    return (index + 1 < wqe.packets) ? m_mtu
                                     : static_cast<uint32_t>(wqe.bytes - (wqe.packets - 1) * m_mtu);
}

RdmaRequester::TxDescriptor
RdmaRequester::NextDataPacket(Time now)
{
    uint64_t psn = m_sndNxt;
    bool resend = false;
    if (m_recovery->NextResend(*this, psn))
    {
        resend = true; // a packet the loss recovery declared lost
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
    d.entropy = m_ps->NextEntropy(now);
    d.resend = resend;
    if (resend)
    {
        ++wqe.stats.retxPackets;
        wqe.stats.retxBytes += d.payload;
        wqe.stats.timeoutRetxPackets += m_afterTimeout ? 1 : 0;
        ++m_counters->retxPackets;
        m_counters->retxBytes += d.payload;
        (*m_traces.retransmitted)(psn, d.payload, d.entropy);
    }
    else
    {
        (*m_traces.sent)(psn, d.payload, d.entropy);
    }
    ++m_counters->dataPacketsSent;
    if (psn >= m_maxSent)
    {
        m_newSentBytes += d.payload;
        if (m_creditOn && d.ackRequest)
        {
            // RCCC: a message's last packet spends the rest of its last credit unit
            const uint64_t bytes = WqeOf(psn).bytes;
            m_newSentBytes += CreditUnitsOf(bytes) * kCreditUnitBytes - bytes;
        }
    }
    m_maxSent = std::max(m_maxSent, psn + 1);
    GrowTxSlots(m_maxSent - m_sndUna);
    TxSlot& slot = Slot(psn);
    slot.sentPs = static_cast<uint64_t>(now.GetPicoSeconds());
    slot.payload = d.payload;
    slot.entropy = d.entropy;
    slot.flags = resend ? static_cast<uint8_t>(slot.flags | kResent) : 0;
    ArmTimer(now);
    return d;
}

void
RdmaRequester::NotePaced(uint64_t wireBytes, Time now, uint64_t lineRateBps)
{
    const uint64_t rate = m_cc->GetRateBps();
    m_cc->OnDataSent(static_cast<uint32_t>(wireBytes), now);
    if (rate < lineRateBps)
    {
        m_nextTxPs = static_cast<uint64_t>(now.GetPicoSeconds()) + SerializationPs(wireBytes, rate);
    }
}

void
RdmaRequester::ArmTimer(Time now)
{
    if (!m_timer.IsRunning())
    {
        m_lastProgress = now;
        m_timer = Simulator::Schedule(m_rto, &RdmaRequester::OnTimer, this);
    }
}

void
RdmaRequester::OnTimer()
{
    if (m_sndUna >= m_maxSent)
    {
        return; // nothing outstanding
    }
    const Time now = Simulator::Now();
    const Time deadline = m_lastProgress + m_rto;
    if (now < deadline)
    {
        m_timer = Simulator::Schedule(deadline - now, &RdmaRequester::OnTimer, this);
        return;
    }
    NS_LOG_INFO("timeout at PSN " << m_sndUna);
    ++m_counters->timeouts;
    (*m_traces.timeout)(m_sndUna);
    Feedback(Slot(m_sndUna), PathSelector::TIMEOUT, now);
    m_afterTimeout = true;
    m_cc->OnTimeout(now);
    m_recovery->OnTimeout(*this);
    m_lastProgress = now;
    m_timer = Simulator::Schedule(m_rto, &RdmaRequester::OnTimer, this);
    Activate();
}

void
RdmaRequester::AckedFeedback(uint64_t psn, bool ecnEcho, Time now)
{
    const TxSlot& s = Slot(psn);
    const Time rtt = now - PicoSeconds(s.sentPs);
    // Karn's algorithm (Karn and Partridge, SIGCOMM 1987; RFC 6298 section 3): a resent packet's
    // acknowledgement may be the first copy's, so it gives no RTT sample. (sentPs is the
    // resend's: an original acknowledged just after a spurious resend would read as an RTT of
    // well under the fabric's base RTT, and NSCC would take it as its base RTT and shrink its
    // largest window to match, for the rest of the flow.)
    const bool ambiguous = (s.flags & kResent) != 0;
    if (!ambiguous)
    {
        m_cc->OnAckSample(ecnEcho, rtt, now);
    }
    // The ACK's summary for OnAck: what it acknowledged, and the newest unambiguous RTT.
    ++m_ccAck.newlyAcked;
    m_ccAck.newlyAckedBytes += s.payload;
    if (!ambiguous && (m_ccAck.rtt.IsZero() || psn >= m_ccAckNewest))
    {
        m_ccAckNewest = psn;
        m_ccAck.rtt = rtt;
        m_ccAck.entropy = s.entropy;
    }
    Feedback(s, ecnEcho ? PathSelector::ECN : PathSelector::GOOD, now);
    (*m_traces.acked)(psn, s.entropy, ecnEcho, rtt);
}

void
RdmaRequester::MarkAcked(TxSlot& s)
{
    if (ResendPending(s))
    {
        --m_resendPending;
    }
    s.flags |= kSacked;
}

bool
RdmaRequester::Sack(uint64_t psn, bool ecnEcho, Time now)
{
    if (psn < m_sndUna || psn >= m_maxSent || (Slot(psn).flags & kSacked))
    {
        return false;
    }
    MarkAcked(Slot(psn));
    AckedFeedback(psn, ecnEcho, now);
    return true;
}

void
RdmaRequester::ReportToCc(Time now)
{
    m_ccAck.now = now;
    m_ccAck.sndUna = m_sndUna;
    m_ccAck.sndNxt = m_sndNxt;
    m_cc->OnAck(m_ccAck);
    m_ccAck = RdmaCcAck();
}

void
RdmaRequester::ReceiveAck(const RdmaAck& ack, Time now)
{
    m_ccAck = RdmaCcAck();
    m_ccAck.ecnEcho = ack.ecnEcho;
    m_ccAck.nak = ack.kind != RdmaAck::ACK;
    m_ccAck.hops = ack.hops;
    m_ccAck.intEcho = ack.intEcho;
    if (ack.kind == RdmaAck::TRIM_NAK)
    {
        ReceiveTrimNack(ack.psn24, now);
        return;
    }
    // ACK: psn is the last PSN received in order. NAK: psn is the responder's ePSN.
    const bool nak = ack.kind == RdmaAck::NAK;
    const uint64_t psn = ExtendPsn(ack.psn24, m_sndUna);
    const uint64_t newUna = nak ? psn : psn + 1;
    if (nak)
    {
        m_afterTimeout = false;
        ++m_counters->naksReceived;
        (*m_traces.nakReceived)(psn, false);
    }
    else
    {
        ++m_counters->acksReceived;
    }
    if (newUna > m_maxSent)
    {
        m_ccAck = RdmaCcAck();
        return; // stale or corrupt: acknowledges what was never sent
    }
    if (newUna > m_sndUna)
    {
        for (uint64_t p = m_sndUna; p < newUna; ++p)
        {
            TxSlot& s = Slot(p);
            if (!(s.flags & kSacked))
            {
                AckedFeedback(p, ack.ecnEcho, now);
                MarkAcked(s);
            }
        }
        m_recovery->OnCumulativeAck(*this, newUna - 1);
        m_sndUna = newUna;
        m_lastProgress = now;
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
    m_recovery->OnAck(*this, ack, now);
    if (m_sndNxt < m_sndUna)
    {
        m_sndNxt = m_sndUna;
    }
    if (m_sndUna >= m_maxSent)
    {
        m_timer.Cancel();
    }
    ReportToCc(now);
    if (HasDataToSend())
    {
        Activate();
    }
}

void
RdmaRequester::ReceiveTrimNack(uint32_t psn24, Time now)
{
    ++m_counters->trimNacksReceived;
    m_afterTimeout = false;
    const uint64_t psn = ExtendPsn(psn24, m_sndUna);
    (*m_traces.nakReceived)(psn, true);
    if (psn < m_sndUna || psn >= m_maxSent)
    {
        m_ccAck = RdmaCcAck();
        return; // already acknowledged, or stale
    }
    Feedback(Slot(psn), PathSelector::NACK, now);
    m_ccAck.trimmed = true;
    m_ccAck.lostBytes = Slot(psn).payload;
    m_ccAck.entropy = Slot(psn).entropy;
    m_recovery->OnTrimNack(*this, psn);
    m_lastProgress = now;
    ReportToCc(now);
    if (HasDataToSend())
    {
        Activate();
    }
}

void
RdmaRequester::ReceiveCnp(Time now)
{
    ++m_counters->cnpsReceived;
    m_cc->OnCnp(now);
}

} // namespace ns3
