/*
 * tusk: RdmaQueuePair, one end of a RoCEv2 reliable-connected (RC) QP.
 */
#ifndef TUSK_RDMA_QUEUE_PAIR_H
#define TUSK_RDMA_QUEUE_PAIR_H

#include "path-selector.h"
#include "rdma/model/headers/rdma-ack.h"
#include "rdma/model/cc/rdma-congestion-control.h"
#include "rdma/model/loss-recovery/rdma-loss-recovery.h"
#include "rdma-qp-counters.h"
#include "rdma-requester.h"
#include "rdma-responder.h"

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>

namespace ns3
{

class RdmaNic;

/**
 * \brief One end of a QP of the RC transport: its requester (RdmaRequester, the sending half)
 * and its responder (RdmaResponder, the receiving half), with the three per-QP objects the NIC
 * builds from its TypeId attributes: the loss recovery (RdmaLossRecovery: GoBackNRecovery,
 * SelectiveRepeatRecovery, UecRudRecovery), the congestion control (RdmaCongestionControl) and
 * the path selector (PathSelector).
 *
 * Sender: messages posted with PostSend are segmented into MTU packets numbered by PSN;
 * cumulative ACKs complete messages in order; NAKs, SACKs, trim NACKs and the retransmission
 * timer drive the loss recovery. Receiver: in-order delivery into posted receives, ACK
 * coalescing every AckInterval packets and at the end of every message; out-of-order arrivals
 * are the loss recovery's (IBA Vol. 1 9.7 "Reliable service").
 * Per-packet feedback (GOOD / ECN / NACK / TIMEOUT) goes to the PathSelector in every mode.
 *
 * The methods under "NIC" are how the owning RdmaNic drives the QP; applications use the rest.
 * The trace sources (PacketSent, PacketRetransmitted, PacketAcked, NakReceived, Timeout,
 * PacketDelivered, NakSent) cost one empty-list check per event when nothing is connected.
 */
class RdmaQueuePair : public Object
{
  public:
    static TypeId GetTypeId();
    RdmaQueuePair();
    ~RdmaQueuePair() override;

    /** Message delivered at the receiver: (cookie from PostReceive, its counts). */
    using RecvCallback = RdmaResponder::RecvCallback;
    /** Message fully acknowledged at the sender: (cookie from PostSend, its counts). */
    using SendCallback = RdmaRequester::SendCallback;
    /** The next data packet to put on the wire (RdmaNic's scheduler). */
    using TxDescriptor = RdmaRequester::TxDescriptor;

    /** "PacketSent", "PacketRetransmitted": a data packet handed to the NIC, first
     *  transmission or resend of `psn` (64-bit), `bytes` of payload, with `entropy`. */
    typedef void (*DataPacketTracedCallback)(uint64_t psn, uint32_t bytes, uint16_t entropy);
    /** "PacketAcked": data packet `psn`, last sent with `entropy`, acknowledged for the first
     *  time (cumulatively or by SACK), its ECN echo and its RTT (last transmission to now). */
    typedef void (*AckedTracedCallback)(uint64_t psn, uint16_t entropy, bool ecnEcho, Time rtt);
    /** "NakReceived", "NakSent": a NAK naming `psn` (the responder's ePSN), or with
     *  `trimmed` a trim NACK naming the trimmed PSN. */
    typedef void (*NakTracedCallback)(uint64_t psn, bool trimmed);
    /** "PacketReceived": data frame `psn` reached the responder, `trimmed` if a switch cut its
     *  payload, along `path` (FrameMeta::path: the switches' egress ports; kUnknownPath if it
     *  did not fit or is not known), with UDP source port `entropy`, `resent` if the sender
     *  marked it a resend (kBthRetx, UEC's pds.flags.retx). */
    typedef void (*ReceivedTracedCallback)(uint64_t psn, bool trimmed, uint64_t path,
                                           uint16_t entropy, bool resent);
    /** "Timeout": the retransmission timer fired, `psn` being the oldest outstanding. */
    typedef void (*TimeoutTracedCallback)(uint64_t psn);
    /** "PacketDelivered": data packet `psn` with `bytes` of payload delivered in order. */
    typedef void (*DeliveredTracedCallback)(uint64_t psn, uint32_t bytes);

    // ---- application ----------------------------------------------------------------------
    /**
     * \brief Post a SEND of `bytes` (>= 1) payload bytes. `cookie` identifies it in the send
     * completion. The peer must have a matching PostReceive.
     */
    void PostSend(uint64_t bytes, uint64_t cookie) { m_requester.PostSend(bytes, cookie); }
    /** Post a receive work request; completed, in order, by the next incoming message. */
    void PostReceive(uint64_t cookie) { m_responder.PostReceive(cookie); }

    void SetSendCallback(SendCallback cb) { m_requester.SetSendCallback(cb); }
    void SetRecvCallback(RecvCallback cb) { m_responder.SetRecvCallback(cb); }
    /** See RdmaResponder::SetLateDuplicateCallback. */
    void SetLateDuplicateCallback(RdmaResponder::LateDuplicateCallback cb)
    {
        m_responder.SetLateDuplicateCallback(cb);
    }
    /** See RdmaResponder::ForgetDelivered. */
    void ForgetDelivered(uint64_t firstCookie, uint64_t endCookie)
    {
        m_responder.ForgetDelivered(firstCookie, endCookie);
    }

    uint32_t GetQpn() const { return m_qpn; }
    /** The NIC that created this QP. */
    Ptr<RdmaNic> GetNic() const { return m_nic; }
    uint32_t GetPeerQpn() const { return m_peerQpn; }
    uint32_t GetPeerHost() const { return m_peerHost; }
    uint8_t GetPriority() const { return m_priority; }
    Ptr<PathSelector> GetPathSelector() const { return m_pathSelector; }
    Ptr<RdmaCongestionControl> GetCongestionControl() const { return m_cc; }
    Ptr<RdmaLossRecovery> GetLossRecovery() const { return m_recovery; }
    const QpCounters& GetCounters() const { return m_counters; }
    /** Steady-state jump, sender side: see RdmaRequester::SkipUnsentPackets. */
    uint64_t SkipUnsentPackets(uint64_t cookie, uint64_t packets)
    {
        return m_requester.SkipUnsentPackets(cookie, packets);
    }
    /** See RdmaRequester::SkippablePackets. */
    uint64_t SkippablePackets(uint64_t cookie) const
    {
        return m_requester.SkippablePackets(cookie);
    }
    /** Steady-state jump, receiver side: count `packets` data packets of `bytes` payload as
     *  received and delivered in order (QpCounters), the ones the sender's
     *  SkipUnsentPackets took. */
    void CreditSkippedReceive(uint64_t packets, uint64_t bytes)
    {
        m_counters.dataPacketsReceived += packets;
        m_counters.deliveredBytes += bytes;
    }
    /** Posted payload bytes not yet acknowledged (sender side). */
    uint64_t GetUnackedBytes() const { return m_requester.GetUnackedBytes(); }
    /** Receive requests posted and not yet completed. */
    size_t GetPendingReceives() const { return m_responder.GetPendingReceives(); }
    /** Cookie of the receive request the next message will complete; false if none. */
    bool PeekReceive(uint64_t& cookie) const { return m_responder.PeekReceive(cookie); }
    /** Payload bytes received so far of the message in progress (receiver side). */
    uint64_t GetPartialReceivedBytes() const { return GetPartialReceiveStats().bytes; }
    /** Receiver-side counts of the message in progress (not yet delivered). */
    const RecvMessageStats& GetPartialReceiveStats() const
    {
        return m_responder.GetPartialReceiveStats();
    }
    /** Sender-side counts of the posted, not yet acknowledged messages with this cookie. */
    SendMessageStats GetPendingSendStats(uint64_t cookie) const
    {
        return m_requester.GetPendingSendStats(cookie);
    }
    /** Payload bytes held out of order now (receiver side; selective repeat only). */
    uint64_t GetReorderBufferBytes() const { return m_recovery->GetReorderBufferBytes(); }

    // ---- NIC --------------------------------------------------------------------------------
    /** Set up a QP the NIC `nic` just created (RdmaNic::Connect). */
    void Setup(Ptr<RdmaNic> nic,
               uint32_t qpn,
               uint32_t peerHost,
               uint8_t priority,
               Ptr<PathSelector> ps,
               Ptr<RdmaCongestionControl> cc,
               Ptr<RdmaLossRecovery> recovery);
    void SetPeerQpn(uint32_t qpn) { m_peerQpn = qpn; }
    bool HasDataToSend() const { return m_requester.HasDataToSend(); }
    /** Pacing: the earliest time (ps) the next data packet may start. */
    uint64_t NextTxPs() const { return m_requester.NextTxPs(); }
    /** Describe the next data packet and record it as sent at `now`. */
    TxDescriptor NextDataPacket(Time now) { return m_requester.NextDataPacket(now); }
    /** The data packet of `wireBytes` started at `now`: pace the next one. */
    void NotePaced(uint64_t wireBytes, Time now, uint64_t lineRateBps)
    {
        m_requester.NotePaced(wireBytes, now, lineRateBps);
    }
    /** An ACK, NAK or trim NACK for this QP arrived. */
    void ReceiveAck(const RdmaAck& ack, Time now) { m_requester.ReceiveAck(ack, now); }
    /** A CNP for this QP arrived (reaction point). */
    void ReceiveCnp(Time now) { m_requester.ReceiveCnp(now); }
    /** A data packet arrived (`ce`: CE-marked): what to answer. */
    RxAnswer ReceiveData(uint32_t psn24,
                         uint8_t opcode,
                         bool ackRequest,
                         uint32_t payload,
                         bool ce,
                         uint64_t path = kUnknownPath,
                         uint16_t entropy = 0,
                         bool resent = false)
    {
        return m_responder.ReceiveData(psn24, opcode, ackRequest, payload, ce, path, entropy,
                                       resent);
    }
    /** A trimmed data packet arrived: what to answer. */
    RxAnswer ReceiveTrimmed(uint32_t psn24,
                            uint64_t path = kUnknownPath,
                            uint16_t entropy = 0,
                            bool resent = false)
    {
        return m_responder.ReceiveTrimmed(psn24, path, entropy, resent);
    }
    /** RCCC, sender: the cumulative demand to announce with the packet just described. */
    uint64_t CreditDemandBytes() { return m_requester.CreditDemandBytes(); }
    /** RCCC, sender: a credit grant arrived. */
    void ReceiveCredit(uint32_t credit24) { m_requester.ReceiveCredit(credit24); }
    /** RCCC, receiver: the demand a data packet announced. */
    void NoteCreditDemand(uint32_t units) { m_responder.NoteCreditDemand(units); }
    /** RCCC, receiver: a credit request announced the demand (24-bit units, counted). */
    void NoteCreditRequest(uint32_t units24)
    {
        ++m_counters.creditRequestsReceived;
        m_responder.NoteCreditDemand(units24, 24);
    }
    /** RCCC, receiver: credit owed to the sender, bytes. */
    uint64_t GetCreditOwed() const { return m_responder.GetCreditOwed(); }
    /** RCCC, receiver: credit granted (or speculative) whose data has not arrived, bytes. */
    uint64_t GetCreditOutstanding() const
    {
        return m_responder.GetCreditOutstanding(m_recovery->GetReorderBufferBytes());
    }
    /** RCCC, receiver: grant up to `maxBytes`; the cumulative grant, bytes. */
    uint64_t GrantCredit(uint64_t maxBytes) { return m_responder.GrantCredit(maxBytes); }
    /** RCCC, sender: credit balance, payload bytes. */
    int64_t GetCreditBalance() const { return m_requester.GetCreditBalance(); }
    /** Notification point: a CE-marked data packet arrived (counted). */
    void NoteCeMarked() { m_responder.NoteCeMarked(); }
    /** Notification point: whether a CNP for this QP may be sent now (at most one per
     *  `interval`); counted as sent if so. */
    bool TakeCnp(Time now, Time interval, bool outOfOrder)
    {
        return m_responder.TakeCnp(now, interval, outOfOrder);
    }

  private:
    void DoDispose() override;

    Ptr<RdmaNic> m_nic;
    uint32_t m_qpn = 0;
    uint32_t m_peerHost = 0;
    uint32_t m_peerQpn = 0;
    uint8_t m_priority = 3;
    Ptr<PathSelector> m_pathSelector;
    Ptr<RdmaCongestionControl> m_cc;
    Ptr<RdmaLossRecovery> m_recovery;
    QpCounters m_counters;
    RdmaRequester m_requester;
    RdmaResponder m_responder;

    TracedCallback<uint64_t, uint32_t, uint16_t> m_sentTrace;
    TracedCallback<uint64_t, uint32_t, uint16_t> m_retransmittedTrace;
    TracedCallback<uint64_t, uint16_t, bool, Time> m_ackedTrace;
    TracedCallback<uint64_t, bool> m_nakReceivedTrace;
    TracedCallback<uint64_t> m_timeoutTrace;
    TracedCallback<uint64_t, uint32_t> m_deliveredTrace;
    TracedCallback<uint64_t, bool> m_nakSentTrace;
    //! "PacketReceived": PSN, trimmed, path, entropy, resent
    TracedCallback<uint64_t, bool, uint64_t, uint16_t, bool> m_receivedTrace;
};

} // namespace ns3

#endif
