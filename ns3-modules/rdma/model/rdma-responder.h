/*
 * tusk: RdmaResponder, the receiving half of an RC QP.
 */
#ifndef TUSK_RDMA_RESPONDER_H
#define TUSK_RDMA_RESPONDER_H

#include "rdma/model/headers/rdma-ack.h"
#include "rdma/model/loss-recovery/rdma-loss-recovery.h"
#include "rdma-qp-counters.h"

#include "fabric/model/frame-meta.h"
#include "fabric/model/kernel/ring-queue.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \brief The responder of an RC QP (IBA Vol. 1 9.7): the expected PSN (ePSN), in-order
 * delivery of SEND messages into posted receive requests, ACK coalescing (every
 * `AckInterval` in-order packets and always at the end of a message), duplicate detection
 * (re-ACKed), the CE echo (BTH BECN) and the notification point's CNP pacing. What happens to
 * a packet that arrives out of order, and what the NAK says, is the loss recovery's decision
 * (RdmaLossRecovery). A plain member of its RdmaQueuePair, which wires it up with Setup.
 */
class RdmaResponder
{
  public:
    /** Message delivered: (cookie from PostReceive, its counts). */
    using RecvCallback = Callback<void, uint64_t, const RecvMessageStats&>;
    /** A duplicate of a packet of a message already delivered: (that message's cookie). */
    using LateDuplicateCallback = Callback<void, uint64_t>;

    /** The QP's trace sources this half fires (owned by the QP, see RdmaQueuePair). */
    struct Traces
    {
        TracedCallback<uint64_t, uint32_t>* delivered = nullptr;
        TracedCallback<uint64_t, bool>* nakSent = nullptr;
        //! every data arrival: PSN, trimmed, path, entropy, resent
        TracedCallback<uint64_t, bool, uint64_t, uint16_t, bool>* received = nullptr;
    };

    RdmaResponder();
    ~RdmaResponder();
    RdmaResponder(const RdmaResponder&) = delete;
    RdmaResponder& operator=(const RdmaResponder&) = delete;

    void Setup(Ptr<RdmaLossRecovery> recovery,
               QpCounters* counters,
               const Traces& traces,
               uint32_t ackInterval,
               uint32_t qpn);
    void Dispose();

    // ---- receive requests ------------------------------------------------------------------
    /** Post a receive work request; completed, in order, by the next incoming message. */
    void PostReceive(uint64_t cookie) { m_recvQueue.push_back(cookie); }
    void SetRecvCallback(RecvCallback cb) { m_recvCb = cb; }
    /** Called for each duplicate that arrives after its message was delivered (its counts
     *  were reported already); duplicates of the message in progress go into its counts. */
    void SetLateDuplicateCallback(LateDuplicateCallback cb) { m_lateDupCb = cb; }
    /**
     * \brief Forget the oldest delivered messages while their cookie is in [firstCookie,
     * endCookie) (the caller has retired them: WorkloadExecutor's iteration window), so that
     * the history kept for late duplicates does not grow with every message a long run
     * delivers. A late duplicate of a forgotten message is not reported.
     */
    void ForgetDelivered(uint64_t firstCookie, uint64_t endCookie);
    size_t GetPendingReceives() const { return m_recvQueue.size(); }
    /** Cookie of the receive request the next message will complete; false if none. */
    bool PeekReceive(uint64_t& cookie) const;
    /** Counts of the message in progress (not yet delivered). */
    const RecvMessageStats& GetPartialReceiveStats() const { return m_curRx; }

    // ---- arrivals (the NIC) ----------------------------------------------------------------
    /** A data packet arrived (`ce`: it was CE-marked): what to answer. */
    RxAnswer ReceiveData(uint32_t psn24,
                         uint8_t opcode,
                         bool ackRequest,
                         uint32_t payload,
                         bool ce,
                         uint64_t path = kUnknownPath,
                         uint16_t entropy = 0,
                         bool resent = false);
    /** A trimmed data packet arrived: what to answer (a trim NACK, unless it is a copy of
     *  something already here). `path`, `entropy` and `resent` only go to the trace. */
    RxAnswer ReceiveTrimmed(uint32_t psn24,
                            uint64_t path = kUnknownPath,
                            uint16_t entropy = 0,
                            bool resent = false);
    /**
     * \brief DCQCN notification point: a CNP may be sent now if none was sent for this QP in
     * the last `interval`; if so it is counted as sent now. \param outOfOrder the CNP is for an
     * out-of-order arrival (counted apart) rather than a CE mark
     */
    bool TakeCnp(Time now, Time interval, bool outOfOrder);
    /** A CE-marked data packet arrived (counted; the NIC then asks TakeCnp). */
    void NoteCeMarked() { ++m_counters->ecnMarkedReceived; }

    // ---- receiver credits (RCCC) ------------------------------------------------------------
    /** A data packet announced the sender's cumulative demand (RoceCreditRequestHeader:
     *  kCreditUnitBytes units, modulo 2^`bits`: 32 on a data packet, 24 in the AETH MSN of a
     *  credit request). */
    void NoteCreditDemand(uint32_t demandUnits, unsigned bits = 32);
    /** RCCC: the speculative credit every sender starts with (the NIC's, both ends). */
    void EnableReceiverCredit(uint64_t initialBytes) { m_creditInitial = initialBytes; }
    /** Credit the sender needs beyond its speculative credit and what was granted, bytes. */
    uint64_t GetCreditOwed() const
    {
        const uint64_t covered = m_creditInitial + m_creditGranted;
        return m_creditDemand > covered ? m_creditDemand - covered : 0;
    }
    /** Bytes the sender may have sent under its credit that have not arrived yet: the
     *  smaller of demand and credit, less what arrived (delivered or held out of order). */
    uint64_t GetCreditOutstanding(uint64_t heldBytes) const;
    /** Grant up to `maxBytes` of what is owed (counted); returns the cumulative grant, bytes. */
    uint64_t GrantCredit(uint64_t maxBytes);

    // ---- for loss recovery -----------------------------------------------------------------
    uint64_t GetEpsn() const { return m_ePsn; }
    /** Answer with `kind` for `psn` (64-bit), echoing CE, and count it. */
    void Respond(RxAnswer& answer, RdmaAck::Kind kind, uint64_t psn);
    /** Deliver the packet at ePSN (`payload` bytes, ending a message or not); ePSN advances. */
    void DeliverInOrder(uint32_t payload, bool lastOfMessage);
    QpCounters& Counters() { return *m_counters; }

  private:
    Ptr<RdmaLossRecovery> m_recovery;
    QpCounters* m_counters = nullptr;
    Traces m_traces;
    RecvCallback m_recvCb;
    LateDuplicateCallback m_lateDupCb;
    uint32_t m_ackInterval = 1;
    uint32_t m_qpn = 0;

    RingQueue<uint64_t> m_recvQueue; //!< cookies of posted receive requests
    uint64_t m_ePsn = 0;              //!< expected PSN
    uint32_t m_unacked = 0;           //!< in-order packets since the last ACK
    RecvMessageStats m_curRx;         //!< counts of the message in progress
    uint64_t m_curFirstPsn = 0;       //!< first PSN of the message in progress
    /** Delivered messages, oldest first: (PSN after its last packet, cookie), for the
     *  attribution of late duplicates (16 bytes a message; a std::deque allocated 576 bytes
     *  per QP before its first message). */
    std::vector<std::pair<uint64_t, uint64_t>> m_delivered;
    /** PSNs below this belong to forgotten messages (ForgetDelivered). */
    uint64_t m_forgottenPsn = 0;
    bool m_ceSinceAnswer = false;     //!< a CE-marked packet arrived since the last answer
    bool m_cnpSent = false;           //!< a CNP was ever sent for this QP
    uint64_t m_creditDemand = 0;      //!< RCCC: the sender's cumulative demand, bytes
    uint64_t m_creditGranted = 0;     //!< RCCC: cumulative credit granted, bytes
    uint64_t m_creditInitial = 0;     //!< RCCC: the sender's speculative credit, bytes
    uint64_t m_creditRoundingBytes = 0; //!< RCCC: delivered messages' sizes rounded up to
                                        //!< kCreditUnitBytes, less the sizes, bytes
    Time m_lastCnp;
};

} // namespace ns3

#endif
