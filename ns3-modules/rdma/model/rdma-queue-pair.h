/*
 * tusk: RdmaQueuePair, one end of a RoCEv2 reliable-connected (RC) QP.
 */
#ifndef TUSK_RDMA_QUEUE_PAIR_H
#define TUSK_RDMA_QUEUE_PAIR_H

#include "path-selector.h"
#include "rdma-congestion-control.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <deque>

namespace ns3
{

class RdmaNic;

/** Counters of one QP (both directions), 64-bit. */
struct QpCounters
{
    uint64_t dataPacketsSent = 0;   //!< including retransmissions
    uint64_t retxPackets = 0;       //!< data packets sent with a PSN sent before
    uint64_t timeouts = 0;
    uint64_t naksReceived = 0;
    uint64_t acksReceived = 0;
    uint64_t dataPacketsReceived = 0; //!< all arrivals, in order or not
    uint64_t oooPackets = 0;        //!< arrivals with PSN > ePSN (discarded under go-back-N)
    uint64_t duplicatePackets = 0;  //!< arrivals with PSN < ePSN
    uint64_t naksSent = 0;
    uint64_t acksSent = 0;
    uint64_t deliveredBytes = 0;    //!< payload delivered in order to the receiver
};

/**
 * \brief A QP of the RC transport: sender (requester) and receiver (responder) state.
 *
 * Sender: messages posted with PostSend are segmented into MTU packets numbered by PSN
 * (24 bits on the wire, 64 bits inside); go-back-N on a NAK (PSN sequence error) and on a
 * retransmission timeout; cumulative ACKs complete messages in order.
 * Receiver: accepts only PSN == ePSN; the first out-of-order arrival for an ePSN is answered
 * with one NAK, later ones are discarded silently; duplicates are re-ACKed; ACKs are
 * coalesced every AckInterval packets and sent at the end of every message.
 * (IBA Vol. 1 9.7 "Reliable service"; go-back-N as in ConnectX NICs without selective repeat.)
 */
class RdmaQueuePair : public Object
{
  public:
    static TypeId GetTypeId();
    RdmaQueuePair();

    /** Message delivered at the receiver: (cookie from PostReceive, bytes, packets that
     *  arrived out of order while it was being received). */
    using RecvCallback = Callback<void, uint64_t, uint64_t, uint64_t>;
    /** Message fully acknowledged at the sender: (cookie from PostSend, retransmitted packets). */
    using SendCallback = Callback<void, uint64_t, uint64_t>;

    /**
     * \brief Post a SEND of `bytes` (>= 1) payload bytes. `cookie` identifies it in the send
     * completion. The peer must have a matching PostReceive.
     */
    void PostSend(uint64_t bytes, uint64_t cookie);
    /** Post a receive work request; completed, in order, by the next incoming message. */
    void PostReceive(uint64_t cookie);

    void SetSendCallback(SendCallback cb) { m_sendCb = cb; }
    void SetRecvCallback(RecvCallback cb) { m_recvCb = cb; }

    uint32_t GetQpn() const { return m_qpn; }
    uint32_t GetPeerQpn() const { return m_peerQpn; }
    uint32_t GetPeerHost() const { return m_peerHost; }
    uint8_t GetPriority() const { return m_priority; }
    Ptr<PathSelector> GetPathSelector() const { return m_pathSelector; }
    Ptr<RdmaCongestionControl> GetCongestionControl() const { return m_cc; }
    const QpCounters& GetCounters() const { return m_counters; }
    /** Posted payload bytes not yet acknowledged (sender side). */
    uint64_t GetUnackedBytes() const;
    /** Receive requests posted and not yet completed. */
    size_t GetPendingReceives() const { return m_recvQueue.size(); }
    /** Cookie of the receive request the next message will complete; false if none. */
    bool PeekReceive(uint64_t& cookie) const
    {
        if (m_recvQueue.empty())
        {
            return false;
        }
        cookie = m_recvQueue.front();
        return true;
    }
    /** Payload bytes received so far of the message in progress (receiver side). */
    uint64_t GetPartialReceivedBytes() const { return m_curMsgBytes; }

  private:
    friend class RdmaNic;

    struct SendWqe
    {
        uint64_t cookie;
        uint64_t bytes;
        uint64_t firstPsn;
        uint64_t packets;
        uint64_t retxPackets;
    };

    // Used by RdmaNic.
    void Setup(Ptr<RdmaNic> nic, uint32_t qpn, uint32_t peerHost, uint32_t peerQpn, uint8_t priority,
               Ptr<PathSelector> ps, Ptr<RdmaCongestionControl> cc);
    bool HasDataToSend() const;
    uint64_t NextTxPs() const { return m_nextTxPs; }
    /** Describe the next data packet and advance snd_nxt. */
    struct TxDescriptor
    {
        uint64_t psn;
        uint32_t payload;
        uint8_t opcode;
        bool ackRequest;
        uint16_t entropy;
    };
    TxDescriptor NextDataPacket(uint32_t mtu, Time now);
    void NotePaced(uint64_t wireBytes, Time now, uint64_t lineRateBps);
    void ReceiveAck(uint32_t psn24, bool nak, Time now);
    void ReceiveCnp(Time now);
    /** \return what to answer: 0 none, 1 ACK, 2 NAK; `ackPsn24` the PSN to put in it. */
    int ReceiveData(uint32_t psn24, uint8_t opcode, bool ackRequest, uint32_t payload,
                    uint32_t ackInterval, uint32_t& ackPsn24);
    void ArmTimer(Time now);
    void OnTimer();
    void DoDispose() override;

    static uint64_t ExtendPsn(uint32_t psn24, uint64_t reference);

    Ptr<RdmaNic> m_nic;
    uint32_t m_qpn = 0;
    uint32_t m_peerHost = 0;
    uint32_t m_peerQpn = 0;
    uint8_t m_priority = 3;
    Ptr<PathSelector> m_pathSelector;
    Ptr<RdmaCongestionControl> m_cc;
    SendCallback m_sendCb;
    RecvCallback m_recvCb;

    // Requester.
    std::deque<SendWqe> m_sendQueue; //!< posted, not fully acknowledged; ordered by PSN
    uint64_t m_psnEnd = 0;           //!< next PSN to allocate
    uint64_t m_sndNxt = 0;           //!< next PSN to send
    uint64_t m_sndUna = 0;           //!< oldest unacknowledged PSN
    uint64_t m_maxSent = 0;          //!< one past the highest PSN ever sent
    uint64_t m_nextTxPs = 0;         //!< pacing: earliest start of the next data packet
    Time m_rto;
    Time m_lastProgress;
    EventId m_timer;

    // Responder.
    std::deque<uint64_t> m_recvQueue; //!< cookies of posted receive requests
    uint64_t m_ePsn = 0;              //!< expected PSN
    uint32_t m_unacked = 0;           //!< in-order packets since the last ACK
    bool m_nakOutstanding = false;    //!< a NAK for the current ePSN was sent
    uint64_t m_curMsgBytes = 0;
    uint64_t m_curMsgOoo = 0;

    QpCounters m_counters;
};

} // namespace ns3

#endif
