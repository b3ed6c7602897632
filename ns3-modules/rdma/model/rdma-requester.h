/*
 * tusk: RdmaRequester, the sending half of an RC QP.
 */
#ifndef TUSK_RDMA_REQUESTER_H
#define TUSK_RDMA_REQUESTER_H

#include "path-selector.h"
#include "rdma/model/headers/rdma-ack.h"
#include "rdma/model/cc/rdma-congestion-control.h"
#include "rdma/model/loss-recovery/rdma-loss-recovery.h"
#include "rdma-qp-counters.h"

#include "fabric/model/kernel/ring-queue.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class RdmaNic;
class RdmaQueuePair;

/**
 * \brief The requester of an RC QP (IBA Vol. 1 9.7 "Reliable service"): send work requests
 * segmented into MTU packets numbered by PSN (24 bits on the wire, 64 inside), paced at the
 * congestion control's rate, kept per outstanding PSN in a TxSlot (send time, entropy, SACK
 * state), completed in order by cumulative ACKs, resent on a retransmission timeout. Every
 * acknowledged packet is reported once to the congestion control (OnAckSample) and the path
 * selector (GOOD / ECN). What is resent after a NAK, a SACK, a trim NACK or a timeout is the
 * loss recovery's decision (RdmaLossRecovery); the public "for loss recovery" methods are what
 * it works on, as ns-3's TcpRecoveryOps works on TcpSocketState.
 * A plain member of its RdmaQueuePair, which wires it up with Setup.
 */
class RdmaRequester
{
  public:
    /** Message fully acknowledged: (cookie from PostSend, its counts). */
    using SendCallback = Callback<void, uint64_t, const SendMessageStats&>;

    /** The QP's trace sources this half fires (owned by the QP, see RdmaQueuePair). */
    struct Traces
    {
        TracedCallback<uint64_t, uint32_t, uint16_t>* sent = nullptr;
        TracedCallback<uint64_t, uint32_t, uint16_t>* retransmitted = nullptr;
        TracedCallback<uint64_t, uint16_t, bool, Time>* acked = nullptr;
        TracedCallback<uint64_t, bool>* nakReceived = nullptr;
        TracedCallback<uint64_t>* timeout = nullptr;
    };

    /** Requester state of one outstanding PSN. */
    struct TxSlot
    {
        uint64_t sentPs = 0;  //!< last transmission
        uint32_t payload = 0; //!< payload bytes
        uint16_t entropy = 0; //!< entropy of the last transmission
        uint8_t flags = 0;    //!< kSacked | kLost | kResent
    };

    /**
     * \brief The sender window of the HPCC simulator (HAS_WIN, VAR_WIN), for any congestion
     * control: at most `bdpBytes` of payload outstanding (the NIC's line rate x base RTT), or
     * with `variable` that times the congestion control's rate / line rate. 0 = none.
     */
    struct SenderWindow
    {
        uint64_t bdpBytes = 0;
        bool variable = false;
    };
    static constexpr uint8_t kSacked = 1; //!< acknowledged (by SACK or cumulatively)
    static constexpr uint8_t kLost = 2;   //!< declared lost, to be resent
    static constexpr uint8_t kResent = 4; //!< resent since it was declared lost

    /** The next data packet to put on the wire. */
    struct TxDescriptor
    {
        uint64_t psn;
        uint32_t payload;
        uint8_t opcode;
        bool ackRequest;
        uint16_t entropy;
        bool resend = false; //!< a resend of psn (the frame carries kBthRetx)
    };

    RdmaRequester();
    ~RdmaRequester();
    RdmaRequester(const RdmaRequester&) = delete;
    RdmaRequester& operator=(const RdmaRequester&) = delete;

    /**
     * \brief Wire the requester to its QP. \param maxOutstanding the NIC's per-QP packet limit
     * (0 = none), narrowed by the loss recovery.
     */
    void Setup(RdmaQueuePair* qp,
               RdmaNic* nic,
               Ptr<PathSelector> ps,
               Ptr<RdmaCongestionControl> cc,
               Ptr<RdmaLossRecovery> recovery,
               QpCounters* counters,
               const Traces& traces,
               uint32_t mtuBytes,
               Time rto,
               uint64_t maxOutstanding,
               SenderWindow senderWindow);
    /** Cancel the timer and drop the references (the QP's DoDispose). */
    void Dispose();
    /**
     * \brief Run under UEC-style receiver credits (RCCC): new data goes out only while the
     * credit balance (`initialBytes` of speculative credit + what the receiver granted - new
     * payload sent) is positive; resends need no credit. Every data packet announces the
     * demand, the payload posted so far; a message posted while the balance is not positive
     * (no data packet would carry its demand) is announced by a credit request
     * (RdmaNic::SendCreditRequest).
     */
    void EnableReceiverCredit(uint64_t initialBytes);
    bool ReceiverCreditEnabled() const { return m_creditOn; }
    /** Credit balance, bytes (RCCC): credit less payload sent, each message's payload
     *  rounded up to kCreditUnitBytes once its last packet has gone. */
    int64_t GetCreditBalance() const
    {
        return static_cast<int64_t>(m_creditInitial + m_creditGranted) -
               static_cast<int64_t>(m_newSentBytes);
    }
    /** The cumulative demand announced with every data packet (RCCC): payload posted, each
     *  message rounded up to kCreditUnitBytes, so a whole number of units. */
    uint64_t CreditDemandBytes() const { return m_creditDemand; }
    /** A credit grant: `credit24` = cumulative credit in kCreditUnitBytes units, mod 2^24. */
    void ReceiveCredit(uint32_t credit24);

    // ---- work requests --------------------------------------------------------------------
    /** Post a SEND of `bytes` (>= 1) payload bytes, completed with `cookie`. */
    void PostSend(uint64_t bytes, uint64_t cookie);
    void SetSendCallback(SendCallback cb) { m_sendCb = cb; }
    /** Posted payload bytes not yet acknowledged. */
    uint64_t GetUnackedBytes() const;
    /**
     * \brief Steady-state jump (RunClock, docs/fast-mode.md "The jump"): take up to `packets`
     * full-MTU data packets out of message `cookie`, as if they had been sent and acknowledged
     * in the time skipped. Only packets never sent are taken, never the message's last one,
     * and the PSNs after them are renumbered (the message and every later one start that many
     * PSNs earlier), so that the packets already in flight, the responder's ePSN and the loss
     * recovery are untouched; the responder completes the message at its LAST packet, shorter
     * by the bytes taken. The QP's dataPacketsSent counts the taken packets.
     * \return the packets taken: 0 when `cookie` is not the message being sent for the first
     *         time, or a resend is pending, go-back-N has rewound, or RCCC is on
     */
    uint64_t SkipUnsentPackets(uint64_t cookie, uint64_t packets);
    /** How many packets SkipUnsentPackets(cookie, ...) could take now. */
    uint64_t SkippablePackets(uint64_t cookie) const;
    /** Counts of the posted, not yet acknowledged messages with this cookie. */
    SendMessageStats GetPendingSendStats(uint64_t cookie) const;

    // ---- transmission (the NIC's scheduler) ------------------------------------------------
    bool HasDataToSend() const;
    /** Pacing: the earliest time (ps) the next data packet may start. */
    uint64_t NextTxPs() const { return m_nextTxPs; }
    /** Describe the next data packet (a resend the loss recovery asks for, or the next PSN)
     *  and record it as sent at `now`. */
    TxDescriptor NextDataPacket(Time now);
    /** The packet of `wireBytes` started at `now`: pace the next one at the CC's rate. */
    void NotePaced(uint64_t wireBytes, Time now, uint64_t lineRateBps);

    // ---- acknowledgements ------------------------------------------------------------------
    /** An ACK, NAK or trim NACK for this QP arrived. */
    void ReceiveAck(const RdmaAck& ack, Time now);
    /** A CNP for this QP arrived (DCQCN reaction point). */
    void ReceiveCnp(Time now);

    // ---- for loss recovery -----------------------------------------------------------------
    uint64_t GetSndUna() const { return m_sndUna; }
    uint64_t GetSndNxt() const { return m_sndNxt; }
    /** One past the highest PSN ever sent. */
    uint64_t GetMaxSent() const { return m_maxSent; }
    /** The slot of an outstanding PSN (in [GetSndUna(), GetMaxSent())). */
    TxSlot& Slot(uint64_t psn) { return m_txSlots[psn & (m_txSlots.size() - 1)]; }
    const TxSlot& Slot(uint64_t psn) const { return m_txSlots[psn & (m_txSlots.size() - 1)]; }
    /** Whether the slot waits to be resent (declared lost, not resent, not acknowledged). */
    static bool ResendPending(const TxSlot& s)
    {
        return (s.flags & (kSacked | kLost | kResent)) == kLost;
    }
    /** Declare the slot's packet lost: it waits to be resent (HasDataToSend holds). */
    void DeclareLost(TxSlot& s)
    {
        s.flags = static_cast<uint8_t>((s.flags & ~kResent) | kLost);
        ++m_resendPending;
    }
    /** Forget which slots wait to be resent (before declaring all over again). */
    void ClearResendPending() { m_resendPending = 0; }
    /** If `psn`'s slot waits to be resent, take it (it is being resent now) and return true. */
    bool ClaimResend(uint64_t psn)
    {
        if (!ResendPending(Slot(psn)))
        {
            return false;
        }
        --m_resendPending;
        return true;
    }
    /** Go-back-N: the next packet is `psn` (if it is not already further back); whether the
     *  send point moved back. */
    bool RewindTo(uint64_t psn)
    {
        if (m_sndNxt <= psn)
        {
            return false;
        }
        m_sndNxt = psn;
        return true;
    }
    /** Selective acknowledgement of `psn` (64-bit): report it once; false if it was already
     *  acknowledged or is not outstanding. */
    bool Sack(uint64_t psn, bool ecnEcho, Time now);
    /** Report feedback about the packet last sent in `s` to the path selector. */
    void Feedback(const TxSlot& s, PathSelector::Feedback fb, Time now)
    {
        m_ps->OnFeedback(s.entropy, fb, now);
    }
    QpCounters& Counters() { return *m_counters; }
    /** Tell the NIC this QP may have something to send. */
    void Activate();

  private:
    struct SendWqe
    {
        uint64_t cookie = 0;
        uint64_t bytes = 0;
        uint64_t firstPsn = 0;
        uint64_t packets = 0;
        SendMessageStats stats;
    };

    void ArmTimer(Time now);
    void OnTimer();
    void ReceiveTrimNack(uint32_t psn24, Time now);
    void MarkAcked(TxSlot& s);
    void AckedFeedback(uint64_t psn, bool ecnEcho, Time now);
    /** Report the ACK being processed (m_ccAck) to the congestion control and reset it. */
    void ReportToCc(Time now);
    void GrowTxSlots(uint64_t outstanding);
    SendWqe& WqeOf(uint64_t psn);
    uint32_t PayloadOf(const SendWqe& wqe, uint64_t psn) const;

    RdmaQueuePair* m_qp = nullptr;
    RdmaNic* m_nic = nullptr;
    Ptr<PathSelector> m_ps;
    Ptr<RdmaCongestionControl> m_cc;
    Ptr<RdmaLossRecovery> m_recovery;
    QpCounters* m_counters = nullptr;
    Traces m_traces;
    SendCallback m_sendCb;
    uint32_t m_mtu = 4096;
    uint64_t m_window = 0; //!< packets outstanding at most; 0 = no limit
    SenderWindow m_senderWindow;
    RdmaCcAck m_ccAck;     //!< the ACK being processed, as the congestion control will see it
    uint64_t m_ccAckNewest = 0; //!< newest PSN m_ccAck acknowledged
    Time m_rto;

    RingQueue<SendWqe> m_sendQueue; //!< posted, not fully acknowledged; ordered by PSN
    uint64_t m_psnEnd = 0;           //!< next PSN to allocate
    uint64_t m_sndNxt = 0;           //!< next PSN to send
    uint64_t m_sndUna = 0;           //!< oldest unacknowledged PSN
    uint64_t m_maxSent = 0;          //!< one past the highest PSN ever sent
    std::vector<TxSlot> m_txSlots;   //!< ring over [m_sndUna, m_maxSent), size a power of two
    uint64_t m_resendPending = 0;    //!< slots for which ResendPending holds
    bool m_afterTimeout = false;     //!< the last recovery event was a timeout, not a NAK
    uint64_t m_nextTxPs = 0;         //!< pacing: earliest start of the next data packet
    uint64_t m_postedBytes = 0;      //!< payload posted, cumulative
    uint64_t m_newSentBytes = 0;     //!< payload sent for the first time, cumulative (RCCC: each
                                     //!< finished message rounded up to a credit unit)
    bool m_creditOn = false;         //!< RCCC
    uint64_t m_creditInitial = 0;    //!< RCCC: speculative credit, bytes
    uint64_t m_creditGranted = 0;    //!< RCCC: cumulative credit granted, bytes
    uint64_t m_creditDemand = 0;     //!< RCCC: posted payload, messages rounded up to units
    Time m_lastProgress;
    EventId m_timer;
};

} // namespace ns3

#endif
