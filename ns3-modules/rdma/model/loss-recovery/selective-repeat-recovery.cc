#include "selective-repeat-recovery.h"

#include "rdma/model/rdma-requester.h"
#include "rdma/model/rdma-responder.h"
#include "rdma/model/headers/roce-sack-header.h"
#include "rdma/model/loss-recovery/loss-recovery-registry.h"

#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(SelectiveRepeatRecovery);

namespace
{
const LossRecoveryRegistration kRegistration{
    {"selective-repeat", "ns3::SelectiveRepeatRecovery",
     "IRN-style selective repeat: out-of-order placement, SACK, only the missing is resent"},
    "Mittal et al., Revisiting Network Support for RDMA (IRN), SIGCOMM 2018"};
/** Receive slot: payload bytes, and this bit if the packet ends a message. */
constexpr uint32_t kRxLast = 1u << 31;
} // namespace

TypeId
SelectiveRepeatRecovery::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SelectiveRepeatRecovery")
            .SetParent<RdmaLossRecovery>()
            .SetGroupName("Rdma")
            .AddConstructor<SelectiveRepeatRecovery>()
            .AddAttribute("Window",
                          "Packets a requester may have outstanding and a responder holds out "
                          "of order (packets).",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&SelectiveRepeatRecovery::m_window),
                          MakeUintegerChecker<uint64_t>(1, 1u << 22))
            .AddAttribute("ReorderWindow",
                          "A packet is declared lost when one sent after it was acknowledged and "
                          "it has been out for the RTT of that one plus this (RACK reordering "
                          "window, RFC 8985, Time).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&SelectiveRepeatRecovery::m_reorderWindow),
                          MakeTimeChecker(Time(0)));
    return tid;
}

SelectiveRepeatRecovery::~SelectiveRepeatRecovery()
{
    m_rackTimer.Cancel();
}

void
SelectiveRepeatRecovery::DoDispose()
{
    m_rackTimer.Cancel();
    RdmaLossRecovery::DoDispose();
}

uint64_t
SelectiveRepeatRecovery::OutstandingLimit(uint64_t nicLimit) const
{
    return nicLimit == 0 ? m_window : std::min(nicLimit, m_window);
}

bool
SelectiveRepeatRecovery::NextResend(RdmaRequester& req, uint64_t& psn)
{
    // Only what is missing, oldest first.
    m_retxNext = std::max(m_retxNext, req.GetSndUna());
    const uint64_t end = std::max(m_lossScan, m_trimScanEnd);
    while (m_retxNext < end)
    {
        if (req.ClaimResend(m_retxNext))
        {
            psn = m_retxNext++;
            return true;
        }
        ++m_retxNext;
    }
    return false;
}

void
SelectiveRepeatRecovery::NoteDelivered(const RdmaRequester& req, uint64_t psn)
{
    // A packet resent since it was declared lost is ambiguous (which copy arrived?): skipped.
    const RdmaRequester::TxSlot& s = req.Slot(psn);
    if (!(s.flags & RdmaRequester::kResent) && s.sentPs >= m_rackSentPs)
    {
        m_rackSentPs = s.sentPs;
        m_rackRttPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds()) - s.sentPs;
    }
}

void
SelectiveRepeatRecovery::OnCumulativeAck(RdmaRequester& req, uint64_t psn)
{
    NoteDelivered(req, psn);
}

void
SelectiveRepeatRecovery::OnAck(RdmaRequester& req, const RdmaAck& ack, Time now)
{
    if (ack.sack == RdmaAck::SACK_PSN)
    {
        const uint64_t s = ExtendPsn(ack.sackPsn24, req.GetSndUna());
        if (req.Sack(s, ack.ecnEcho, now))
        {
            NoteDelivered(req, s);
        }
    }
    else if (ack.sack == RdmaAck::SACK_BITMAP && ack.kind == RdmaAck::NAK)
    {
        RoceSackBitmapHeader::ForEachSacked(ExtendPsn(ack.sackBase24, req.GetSndUna()),
                                            ack.sackBits,
                                            [&](uint64_t s) {
                                                if (req.Sack(s, ack.ecnEcho, now))
                                                {
                                                    NoteDelivered(req, s);
                                                }
                                            });
    }
    DetectLosses(req, now);
}

void
SelectiveRepeatRecovery::DetectLosses(RdmaRequester& req, Time now)
{
    // RACK (RFC 8985 section 6.2): a packet is lost when one sent after it has been delivered
    // and it has been out for longer than RACK.rtt + ReorderWindow. First transmissions are
    // sent in PSN order, so the scan stops at the first packet that is not lost yet; if only
    // its age is missing, the reordering timer re-checks at its deadline (section 6.3), since
    // no acknowledgement may come while lost packets fill the window. Amortised O(1) per ACK.
    const auto nowPs = static_cast<uint64_t>(now.GetPicoSeconds());
    const uint64_t waitPs = m_rackRttPs + static_cast<uint64_t>(m_reorderWindow.GetPicoSeconds());
    m_lossScan = std::max(m_lossScan, req.GetSndUna());
    while (m_lossScan < req.GetMaxSent())
    {
        RdmaRequester::TxSlot& s = req.Slot(m_lossScan);
        if (!(s.flags & (RdmaRequester::kSacked | RdmaRequester::kLost)))
        {
            if (s.sentPs >= m_rackSentPs)
            {
                break; // nothing sent after it is known delivered
            }
            if (s.sentPs + waitPs > nowPs)
            {
                m_rackTimer.Cancel();
                m_rackTimer = Simulator::Schedule(PicoSeconds(s.sentPs + waitPs - nowPs),
                                                  &SelectiveRepeatRecovery::OnRackTimer,
                                                  this,
                                                  &req);
                break;
            }
            req.DeclareLost(s);
            ++req.Counters().lossesDetected;
            m_retxNext = std::min(m_retxNext, m_lossScan);
            req.Feedback(s, PathSelector::NACK, now);
        }
        ++m_lossScan;
    }
}

void
SelectiveRepeatRecovery::OnRackTimer(RdmaRequester* req)
{
    DetectLosses(*req, Simulator::Now());
    if (req->HasDataToSend())
    {
        req->Activate();
    }
}

void
SelectiveRepeatRecovery::OnTrimNack(RdmaRequester& req, uint64_t psn)
{
    RdmaRequester::TxSlot& s = req.Slot(psn);
    if (!(s.flags & RdmaRequester::kSacked) && !RdmaRequester::ResendPending(s))
    {
        req.DeclareLost(s); // resend it at once
        m_retxNext = std::min(m_retxNext, psn);
        m_trimScanEnd = std::max(m_trimScanEnd, psn + 1);
    }
}

void
SelectiveRepeatRecovery::OnTimeout(RdmaRequester& req)
{
    // Every packet not yet acknowledged is presumed lost and resent once more.
    m_rackTimer.Cancel();
    req.ClearResendPending();
    for (uint64_t p = req.GetSndUna(); p < req.GetMaxSent(); ++p)
    {
        RdmaRequester::TxSlot& s = req.Slot(p);
        if (!(s.flags & RdmaRequester::kSacked))
        {
            req.DeclareLost(s);
        }
    }
    m_lossScan = req.GetMaxSent();
    m_retxNext = req.GetSndUna();
}

bool
SelectiveRepeatRecovery::IsHeld(const RdmaResponder& resp, uint64_t psn) const
{
    const uint64_t ePsn = resp.GetEpsn();
    return psn > ePsn && psn - ePsn < m_window && !m_rxSlots.empty() &&
           m_rxSlots[psn % m_window] != 0;
}

void
SelectiveRepeatRecovery::OnOutOfOrder(RdmaResponder& resp,
                                      uint64_t psn,
                                      uint32_t payload,
                                      bool lastOfMessage,
                                      RxAnswer& answer)
{
    if (m_rxSlots.empty())
    {
        m_rxSlots.assign(m_window, 0); // once per responder QP that sees reordering
    }
    const uint64_t ePsn = resp.GetEpsn();
    if (psn - ePsn >= m_window)
    {
        ++resp.Counters().beyondWindow; // the requester never sends this far ahead
        resp.Respond(answer, RdmaAck::NAK, ePsn);
        return;
    }
    // Out-of-order placement; IRN's NACK: cumulative ePSN plus a SACK of what arrived.
    m_rxSlots[psn % m_window] = payload | (lastOfMessage ? kRxLast : 0);
    m_rxOooBytes += payload;
    QpCounters& c = resp.Counters();
    c.reorderBufferMaxBytes = std::max(c.reorderBufferMaxBytes, m_rxOooBytes);
    resp.Respond(answer, RdmaAck::NAK, ePsn);
    FillSack(resp, psn, answer.ack);
    ++c.sacksSent;
}

void
SelectiveRepeatRecovery::FillSack(const RdmaResponder& resp, uint64_t psn, RdmaAck& ack) const
{
    ack.sack = RdmaAck::SACK_PSN;
    ack.sackPsn24 = Psn24(psn);
}

bool
SelectiveRepeatRecovery::OnInOrder(RdmaResponder& resp, bool& messageEnded)
{
    if (m_rxSlots.empty())
    {
        return false; // nothing ever arrived out of order
    }
    // The hole is filled: deliver what was held behind it.
    bool filledHole = false;
    while (true)
    {
        uint32_t& slot = m_rxSlots[resp.GetEpsn() % m_window];
        if (slot == 0)
        {
            break;
        }
        const uint32_t bytes = slot & ~kRxLast;
        const bool last = slot & kRxLast;
        slot = 0;
        m_rxOooBytes -= bytes;
        resp.DeliverInOrder(bytes, last);
        messageEnded |= last;
        filledHole = true;
    }
    return filledHole;
}

} // namespace ns3
