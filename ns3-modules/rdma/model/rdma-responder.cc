#include "rdma-responder.h"

#include "rdma/model/headers/roce-credit-header.h"
#include "rdma/model/headers/roce-header.h"

#include "ns3/abort.h"

#include <algorithm>

namespace ns3
{

RdmaResponder::RdmaResponder() = default;
RdmaResponder::~RdmaResponder() = default;

void
RdmaResponder::Setup(Ptr<RdmaLossRecovery> recovery,
                     QpCounters* counters,
                     const Traces& traces,
                     uint32_t ackInterval,
                     uint32_t qpn)
{
    m_recovery = recovery;
    m_counters = counters;
    m_traces = traces;
    m_ackInterval = ackInterval;
    m_qpn = qpn;
}

void
RdmaResponder::Dispose()
{
    m_recovery = nullptr;
    m_recvCb = RecvCallback();
    m_lateDupCb = LateDuplicateCallback();
}

bool
RdmaResponder::PeekReceive(uint64_t& cookie) const
{
    if (m_recvQueue.empty())
    {
        return false;
    }
    cookie = m_recvQueue.front();
    return true;
}

bool
RdmaResponder::TakeCnp(Time now, Time interval, bool outOfOrder)
{
    if (m_cnpSent && now - m_lastCnp < interval)
    {
        return false;
    }
    m_cnpSent = true;
    m_lastCnp = now;
    ++(outOfOrder ? m_counters->oooCnpsSent : m_counters->cnpsSent);
    return true;
}

void
RdmaResponder::NoteCreditDemand(uint32_t demandUnits, unsigned bits)
{
    // Extend the `bits`-bit unit count to the value nearest to what is known (a late, older
    // announcement from another path is smaller and changes nothing).
    const uint64_t wrap = uint64_t{1} << bits;
    demandUnits = static_cast<uint32_t>(demandUnits & (wrap - 1));
    const uint64_t known = m_creditDemand / kCreditUnitBytes;
    uint64_t units = (known & ~(wrap - 1)) | demandUnits;
    if (units + wrap / 2 < known)
    {
        units += wrap;
    }
    else if (units > known + wrap / 2 && units >= wrap)
    {
        units -= wrap;
    }
    m_creditDemand = std::max(m_creditDemand, units * kCreditUnitBytes);
}

uint64_t
RdmaResponder::GetCreditOutstanding(uint64_t heldBytes) const
{
    const uint64_t expected = std::min(m_creditDemand, m_creditInitial + m_creditGranted);
    // The sender spends each message's payload rounded up to a credit unit (the demand it
    // announced): count the rounding of delivered messages as arrived, or it would stay
    // outstanding for ever and fill the credit window.
    const uint64_t arrived = m_counters->deliveredBytes + m_creditRoundingBytes + heldBytes;
    return expected > arrived ? expected - arrived : 0;
}

uint64_t
RdmaResponder::GrantCredit(uint64_t maxBytes)
{
    // Grants are whole credit units (the wire carries units; a fraction would be floored
    // away, leaving the sender short of its last bytes): round up, so that once the owed
    // credit is granted the sender holds at least its demand.
    const uint64_t grant = CreditUnitsOf(std::min(maxBytes, GetCreditOwed())) * kCreditUnitBytes;
    if (grant > 0)
    {
        m_creditGranted += grant;
        ++m_counters->creditsSent;
    }
    return m_creditGranted;
}

void
RdmaResponder::Respond(RxAnswer& answer, RdmaAck::Kind kind, uint64_t psn)
{
    answer.send = true;
    answer.ack.kind = kind;
    answer.ack.psn24 = Psn24(psn);
    answer.ack.ecnEcho = m_ceSinceAnswer;
    m_ceSinceAnswer = false;
    if (kind == RdmaAck::ACK)
    {
        ++m_counters->acksSent;
        return;
    }
    ++m_counters->naksSent;
    ++m_curRx.naksSent;
    (*m_traces.nakSent)(psn, kind == RdmaAck::TRIM_NAK);
}

void
RdmaResponder::ForgetDelivered(uint64_t firstCookie, uint64_t endCookie)
{
    auto end = m_delivered.begin();
    while (end != m_delivered.end() && end->second >= firstCookie && end->second < endCookie)
    {
        m_forgottenPsn = end->first; // the PSN after the forgotten message's last packet
        ++end;
    }
    m_delivered.erase(m_delivered.begin(), end);
}

void
RdmaResponder::DeliverInOrder(uint32_t payload, bool lastOfMessage)
{
    (*m_traces.delivered)(m_ePsn, payload);
    ++m_ePsn;
    m_curRx.bytes += payload;
    m_counters->deliveredBytes += payload;
    ++m_unacked;
    if (lastOfMessage)
    {
        m_creditRoundingBytes += CreditUnitsOf(m_curRx.bytes) * kCreditUnitBytes - m_curRx.bytes;
        const RecvMessageStats stats = m_curRx;
        m_curRx = RecvMessageStats();
        NS_ABORT_MSG_IF(m_recvQueue.empty(),
                        "RdmaQueuePair " << m_qpn << ": message arrived with no receive posted");
        const uint64_t cookie = m_recvQueue.front();
        m_recvQueue.pop_front();
        m_delivered.emplace_back(m_ePsn, cookie);
        m_curFirstPsn = m_ePsn;
        if (!m_recvCb.IsNull())
        {
            m_recvCb(cookie, stats);
        }
    }
}

RxAnswer
RdmaResponder::ReceiveTrimmed(uint32_t psn24, uint64_t path, uint16_t entropy, bool resent)
{
    ++m_counters->trimmedReceived;
    RxAnswer answer;
    const uint64_t psn = ExtendPsn(psn24, m_ePsn);
    if (m_traces.received)
    {
        (*m_traces.received)(psn, true, path, entropy, resent);
    }
    if (psn < m_ePsn || m_recovery->IsHeld(*this, psn))
    {
        return answer; // a trimmed copy of something already here
    }
    Respond(answer, RdmaAck::TRIM_NAK, psn);
    return answer;
}

RxAnswer
RdmaResponder::ReceiveData(uint32_t psn24,
                           uint8_t opcode,
                           bool ackRequest,
                           uint32_t payload,
                           bool ce,
                           uint64_t path,
                           uint16_t entropy,
                           bool resent)
{
    ++m_counters->dataPacketsReceived;
    RxAnswer answer;
    m_ceSinceAnswer |= ce;
    const uint64_t psn = ExtendPsn(psn24, m_ePsn);
    if (m_traces.received)
    {
        (*m_traces.received)(psn, false, path, entropy, resent);
    }
    const bool lastOfMessage = (opcode == ROCE_RC_SEND_LAST || opcode == ROCE_RC_SEND_ONLY);
    if (psn < m_ePsn || m_recovery->IsHeld(*this, psn))
    {
        // A duplicate: this PSN already arrived, so its sender resent it needlessly. It counts
        // for the message it belongs to, also when that one was delivered already.
        ++m_counters->duplicatePackets;
        if (psn >= m_curFirstPsn)
        {
            ++m_curRx.duplicatePackets;
        }
        else if (psn >= m_forgottenPsn)
        {
            const auto it = std::upper_bound(
                m_delivered.begin(), m_delivered.end(), psn,
                [](uint64_t p, const std::pair<uint64_t, uint64_t>& m) { return p < m.first; });
            if (it != m_delivered.end() && !m_lateDupCb.IsNull())
            {
                m_lateDupCb(it->second);
            }
        }
        Respond(answer, RdmaAck::ACK, m_ePsn - 1);
        return answer;
    }
    if (psn > m_ePsn)
    {
        const uint64_t distance = psn - m_ePsn;
        answer.outOfOrder = true;
        ++m_counters->oooPackets;
        m_counters->reorderMax = std::max(m_counters->reorderMax, distance);
        m_counters->reorderSum += distance;
        ++m_curRx.oooPackets;
        m_curRx.reorderMax = std::max(m_curRx.reorderMax, distance);
        m_curRx.reorderSum += distance;
        m_recovery->OnOutOfOrder(*this, psn, payload, lastOfMessage, answer);
        return answer;
    }
    // In order: deliver it, and what it releases.
    DeliverInOrder(payload, lastOfMessage);
    bool messageEnded = lastOfMessage;
    const bool filledHole = m_recovery->OnInOrder(*this, messageEnded);
    if (messageEnded || filledHole || ackRequest || m_unacked >= m_ackInterval)
    {
        m_unacked = 0;
        Respond(answer, RdmaAck::ACK, m_ePsn - 1);
    }
    return answer;
}

} // namespace ns3
