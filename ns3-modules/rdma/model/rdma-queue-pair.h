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
#include <vector>

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
    uint64_t retxBytes = 0;         //!< payload bytes of retransmitted data packets
    uint64_t lossesDetected = 0;    //!< selective repeat: packets declared lost (SACK / RACK)
    uint64_t sacksSent = 0;         //!< selective repeat: NAKs carrying a SACK PSN
    uint64_t reorderMax = 0;        //!< largest PSN - ePSN of an out-of-order arrival, packets
    uint64_t reorderSum = 0;        //!< sum of PSN - ePSN over out-of-order arrivals, packets
    uint64_t reorderBufferMaxBytes = 0; //!< selective repeat: most payload held out of order
    uint64_t beyondWindow = 0;      //!< selective repeat: arrivals beyond the receive window
    uint64_t oooCnpsSent = 0;       //!< CNPs sent because of out-of-order arrivals
    uint64_t ecnMarkedReceived = 0; //!< data packets that arrived CE-marked
    uint64_t cnpsSent = 0;          //!< CNPs this QP's NIC sent for it (notification point)
    uint64_t cnpsReceived = 0;      //!< CNPs that reached this QP (reaction point)
    uint64_t trimmedReceived = 0;   //!< data packets that arrived trimmed (receiver)
    uint64_t trimNacksReceived = 0; //!< trim NACKs that reached this QP (sender)
};

/** Receiver-side counts of one message, reported with its receive completion. */
struct RecvMessageStats
{
    uint64_t bytes = 0;            //!< payload bytes of the message
    uint64_t oooPackets = 0;       //!< arrivals with PSN > ePSN while it was in progress
    uint64_t reorderMax = 0;       //!< largest PSN - ePSN of those, packets
    uint64_t reorderSum = 0;       //!< sum of PSN - ePSN of those (mean = sum / oooPackets)
    uint64_t naksSent = 0;         //!< NAKs (go-back-N) or SACK-NAKs (selective repeat) sent
    uint64_t duplicatePackets = 0; //!< arrivals of PSNs already received: spurious resends
};

/** Sender-side counts of one message, reported with its send completion. */
struct SendMessageStats
{
    uint64_t retxPackets = 0; //!< data packets of the message sent more than once
    uint64_t retxBytes = 0;   //!< their payload bytes
};

/** What a responder answers to a data packet (filled by RdmaQueuePair::ReceiveData). */
struct RxAnswer
{
    enum Kind : uint8_t
    {
        NONE = 0,
        ACK = 1, //!< psn24 = the last PSN received in order
        NAK = 2, //!< psn24 = ePSN; with `sack`, the PSN that arrived (IRN's NACK)
    };
    Kind kind = NONE;
    uint32_t psn24 = 0;
    bool sack = false;
    uint32_t sackPsn24 = 0;
    bool sackBitmap = false; //!< UEC-style RUD: a 64-bit SACK bitmap instead of sackPsn24
    uint32_t sackBase24 = 0; //!< the bitmap's base PSN
    uint64_t sackBits = 0;   //!< bit i: PSN sackBase24 + i has arrived
    bool trim = false;       //!< NAK: a trim NACK, psn24 = the PSN that arrived trimmed
    bool ecnEcho = false;    //!< a CE-marked packet arrived since the last answer (BTH BECN)
    bool outOfOrder = false; //!< the packet arrived with PSN > ePSN
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
 *
 * Selective repeat (the NIC's RecoveryMode = SelectiveRepeat), in the style of IRN (Mittal
 * et al., "Revisiting Network Support for RDMA", SIGCOMM 2018): the responder places packets
 * that arrive out of order (within SelectiveRepeatWindow of ePSN) and answers each with a NAK
 * carrying ePSN and the PSN that arrived (a SACK); messages complete in order when the hole
 * before them fills, i.e. at the arrival of their last missing packet. The requester keeps
 * per outstanding PSN its send time, entropy and SACK state, never sends more than the window
 * ahead of the oldest unacknowledged PSN, and retransmits only what is missing: a packet is
 * declared lost when a packet sent more than ReorderWindow after it has been acknowledged
 * (the RACK rule, RFC 8985, which tolerates reordering up to ReorderWindow of path-delay
 * difference), and every unacknowledged packet on a retransmission timeout.
 * Per-packet feedback (GOOD / ECN / NACK / TIMEOUT) goes to the PathSelector in both modes.
 */
class RdmaQueuePair : public Object
{
  public:
    static TypeId GetTypeId();
    RdmaQueuePair();

    /** Message delivered at the receiver: (cookie from PostReceive, its counts). */
    using RecvCallback = Callback<void, uint64_t, const RecvMessageStats&>;
    /** Message fully acknowledged at the sender: (cookie from PostSend, its counts). */
    using SendCallback = Callback<void, uint64_t, const SendMessageStats&>;

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
    uint64_t GetPartialReceivedBytes() const { return m_curRx.bytes; }
    /** Receiver-side counts of the message in progress (not yet delivered). */
    const RecvMessageStats& GetPartialReceiveStats() const { return m_curRx; }
    /** Sender-side counts of the posted, not yet acknowledged messages with this cookie. */
    SendMessageStats GetPendingSendStats(uint64_t cookie) const
    {
        SendMessageStats sum;
        for (const auto& w : m_sendQueue)
        {
            if (w.cookie == cookie)
            {
                sum.retxPackets += w.stats.retxPackets;
                sum.retxBytes += w.stats.retxBytes;
            }
        }
        return sum;
    }
    /** Selective repeat: payload bytes held out of order now (receiver side). */
    uint64_t GetReorderBufferBytes() const { return m_rxOooBytes; }
    bool IsSelectiveRepeat() const { return m_selectiveRepeat; }

    /** A 24-bit wire PSN as the 64-bit PSN nearest to `reference` (wrap-around). */
    static uint64_t ExtendPsn(uint32_t psn24, uint64_t reference);

  private:
    friend class RdmaNic;

    struct SendWqe
    {
        uint64_t cookie;
        uint64_t bytes;
        uint64_t firstPsn;
        uint64_t packets;
        SendMessageStats stats;
    };
    /** Requester state of one outstanding PSN. */
    struct TxSlot
    {
        uint64_t sentPs = 0;   //!< last transmission
        uint16_t entropy = 0;  //!< entropy of the last transmission
        uint8_t flags = 0;     //!< kSacked | kLost | kResent
    };
    static constexpr uint8_t kSacked = 1; //!< selectively acknowledged
    static constexpr uint8_t kLost = 2;   //!< declared lost, to be resent
    static constexpr uint8_t kResent = 4; //!< resent since it was declared lost

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
    /** An ACK or NAK arrived. In selective repeat, a NAK with `sack` also SACKs sackPsn24;
     *  `ecnEcho` is the BTH BECN bit. */
    void ReceiveAck(uint32_t psn24, bool nak, Time now, bool sack = false, uint32_t sackPsn24 = 0,
                    bool ecnEcho = false, bool sackBitmap = false, uint32_t sackBase24 = 0,
                    uint64_t sackBits = 0);
    /** A trim NACK arrived: the packet with PSN psn24 was trimmed; resend it at once. */
    void ReceiveTrimNack(uint32_t psn24, Time now);
    /** A trimmed data packet arrived; fills what to answer. */
    void ReceiveTrimmed(uint32_t psn24, RxAnswer& answer);
    /** Selective repeat: the sender learns that `psn` (64-bit) has arrived. */
    void Sacked(uint64_t psn, bool ecnEcho, Time now);
    void ReceiveCnp(Time now);
    /** A data packet arrived (`ce`: it was CE-marked); fills what to answer. */
    void ReceiveData(uint32_t psn24, uint8_t opcode, bool ackRequest, uint32_t payload,
                     uint32_t ackInterval, bool ce, RxAnswer& answer);
    void ArmTimer(Time now);
    void OnTimer();
    void DoDispose() override;

    // Helpers of both recovery modes.
    TxSlot& Slot(uint64_t psn) { return m_txSlots[psn & (m_txSlots.size() - 1)]; }
    const TxSlot& Slot(uint64_t psn) const { return m_txSlots[psn & (m_txSlots.size() - 1)]; }
    /** Whether the slot waits to be resent (declared lost, not resent, not acknowledged). */
    static bool ResendPending(const TxSlot& s) { return (s.flags & (kSacked | kLost | kResent)) == kLost; }
    /** Mark a slot acknowledged (SACK or cumulative). */
    void MarkAcked(TxSlot& s);
    void GrowTxSlots(uint64_t outstanding);
    SendWqe& WqeOf(uint64_t psn);
    uint32_t PayloadOf(const SendWqe& wqe, uint64_t psn) const;
    void AckedFeedback(uint64_t psn, bool ecnEcho, Time now);
    void NoteDelivered(uint64_t psn);
    void DetectLosses(Time now);
    bool NextRetransmission(uint64_t& psn);
    uint64_t Window() const;
    void DeliverInOrder(uint32_t payload, bool lastOfMessage);

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
    std::vector<TxSlot> m_txSlots;   //!< ring over [m_sndUna, m_maxSent), size a power of two
    bool m_selectiveRepeat = false;
    bool m_sackBitmap = false;       //!< NAKs carry a 64-bit SACK bitmap (UEC-style RUD)
    uint64_t m_srWindow = 0;         //!< selective repeat window, packets
    uint64_t m_reorderWindowPs = 0;  //!< RACK reordering window, ps
    uint64_t m_rackSentPs = 0;       //!< send time of the latest-sent packet known delivered
    uint64_t m_lossScan = 0;         //!< PSNs below this have been through loss detection
    uint64_t m_retxNext = 0;         //!< next PSN to consider for retransmission
    uint64_t m_trimScanEnd = 0;      //!< one past the highest PSN declared lost by a trim NACK
    uint64_t m_resendPending = 0;    //!< slots for which ResendPending holds
    uint64_t m_nextTxPs = 0;         //!< pacing: earliest start of the next data packet
    Time m_rto;
    Time m_lastProgress;
    EventId m_timer;

    // Responder.
    std::deque<uint64_t> m_recvQueue; //!< cookies of posted receive requests
    uint64_t m_ePsn = 0;              //!< expected PSN
    uint32_t m_unacked = 0;           //!< in-order packets since the last ACK
    bool m_nakOutstanding = false;    //!< a NAK for the current ePSN was sent
    RecvMessageStats m_curRx;         //!< counts of the message in progress
    bool m_ceSinceAnswer = false;     //!< a CE-marked packet arrived since the last answer
    std::vector<uint32_t> m_rxSlots;  //!< selective repeat: payload | kRxLast per PSN, 0 = hole
    uint64_t m_rxOooBytes = 0;        //!< selective repeat: payload held out of order

    QpCounters m_counters;
    bool m_inActiveList = false; //!< listed in its NIC's set of QPs with data to send
    bool m_cnpSent = false;
    Time m_lastCnp;
};

} // namespace ns3

#endif
