/*
 * tusk: RdmaNic, a RoCEv2 host NIC with RC queue pairs.
 */
#ifndef TUSK_RDMA_NIC_H
#define TUSK_RDMA_NIC_H

#include "rdma-queue-pair.h"

#include "fabric/model/fabric-net-device.h"
#include "fabric/model/kernel/ring-queue.h"

#include "ns3/ipv4-address.h"
#include "ns3/object-factory.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <functional>
#include <vector>

namespace ns3
{

class NicPlanePort;

/**
 * \brief A RoCEv2 NIC: QPs, a transmit scheduler and the wire format.
 *
 * Transmission is pulled by the port when the line is free: control frames (ACK, NAK, CNP)
 * first, then data from the QPs that have something to send, round-robin, each QP paced at
 * the rate its congestion control allows (line rate with `ns3::RdmaCcNone`). Every frame is
 * a RoCEv2 frame: Ethernet / IPv4 (DSCP = priority << 3, ECT(0) on data) / UDP (source
 * port = the packet's entropy, destination 4791) / BTH [/ AETH [/ SACK]] / payload / ICRC /
 * FCS, its fields held in the frame's FrameMeta and its size in the Packet; the receiving NIC
 * reads the FrameMeta. The bytes themselves are built (SerializeRoceFrame) only for the
 * Sniffer trace (pcap) and a receive ErrorModel.
 */
class RdmaNic : public FabricNetDevice
{
  public:
    static TypeId GetTypeId();
    RdmaNic();

    /** This NIC's host id (its IPv4 address is HostAddress(id)). */
    void SetHostId(uint32_t id) { m_hostId = id; }
    uint32_t GetHostId() const { return m_hostId; }

    /**
     * \brief Create a connected RC QP pair: one QP here (the requester) and its peer on
     * `remote`. \param entropy the UDP source port of this QP's packets (the responder's
     * ACKs use `remote`'s own choice) \return the local QP; its peer is remote->GetQp(qp->GetPeerQpn())
     */
    Ptr<RdmaQueuePair> Connect(Ptr<RdmaNic> remote, uint16_t entropy, uint8_t priority);
    Ptr<RdmaQueuePair> GetQp(uint32_t qpn) const;
    /** QPs created: their numbers are kFirstQpn .. kFirstQpn + GetNQps() - 1, in creation order. */
    uint32_t GetNQps() const { return static_cast<uint32_t>(m_qps.size()) - kFirstQpn; }
    /** QPN of the first QP a NIC creates: QP0 and QP1 are reserved (IBA Vol. 1, 3.5.1), and
     *  Wireshark decodes QP1 traffic as management datagrams. */
    static constexpr uint32_t kFirstQpn = 2;
    /** Most QPs one NIC can number: the BTH destination QP field is 24 bits (IBA Vol. 1,
     *  9.2), less the two reserved QPNs. This, not a per-connection count, is what bounds QP
     *  scaling; `nic.qps_per_connection` and the other QP-count keys accept up to it. */
    static constexpr uint32_t kMaxQps = (1u << 24) - kFirstQpn;
    /** Default RetransmitTimeout, ns: a deployed RoCE NIC's Local ACK Timeout,
     *  4.096 us x 2^n with the QP attribute `timeout` n = 14 (IBA Vol. 1, RC transport). */
    static constexpr int64_t kDeployedRtoNs = 4096LL << 14; // 67,108,864 ns
    /** First ns-3 random stream of path selectors: host h, QP n uses base + h * 2^24 + n. */
    static constexpr int64_t kPathSelectorStreamBase = int64_t{1} << 32;

    uint32_t GetMtuBytes() const { return m_mtuBytes; }
    /** The largest data frame this NIC sends: an MTU of payload with every optional header
     *  (INT, credit demand). On an InfiniBand fabric a QP's next packet goes only when its VL
     *  has credit for this much (its exact size is known once it is built). */
    uint32_t MaxDataFrameBytes() const { return MaxDataFrameBytes(m_mtuBytes); }
    /** The same for an MTU of `mtuBytes` (bytes): what an InfiniBand VL buffer must hold at
     *  least (fabric.vl_buffer_bytes), or the NIC never has credit for its next packet. */
    static uint32_t MaxDataFrameBytes(uint32_t mtuBytes);
    uint32_t GetAckInterval() const { return m_ackInterval; }
    Time GetRetransmitTimeout() const { return m_rto; }
    uint64_t GetMaxOutstandingPackets() const { return m_maxOutstanding; }
    /** The fabric's base RTT T (attribute BaseRtt; 0 = not set). */
    Time GetBaseRtt() const { return m_baseRtt; }

    /** Attribute SenderWindow: the HPCC simulator's HAS_WIN (a window of one BDP) and VAR_WIN
     *  (scaled by the congestion control's rate / line rate). */
    enum SenderWindowMode
    {
        WINDOW_NONE = 0,     //!< HAS_WIN 0
        WINDOW_FIXED = 1,    //!< HAS_WIN 1, VAR_WIN 0: line rate x BaseRtt
        WINDOW_VARIABLE = 2, //!< HAS_WIN 1, VAR_WIN 1: that x rate / line rate
    };
    /** Attribute AckRoute: the UDP source port (entropy, route) of the control frames a
     *  responder sends in answer to a data packet (ACK, NAK, trim NACK, CNP). */
    enum AckRouteMode
    {
        ACK_FIXED = 0,   //!< the responder QP's own entropy, drawn at connection: one route
        ACK_REVERSE = 1, //!< the answered data packet's, reversed under source routing
    };
    AckRouteMode GetAckRoute() const { return m_ackRoute; }
    /**
     * \brief Under AckRoute Reverse: the entropy of a reply from this host to host `src`
     * answering a data frame that src sent with entropy `entropy` and that arrived with
     * FrameMeta::path `path` (ReceivedPath). Without one, the reply carries the data frame's
     * own entropy (its EV echoed). The runner sets it under source routing
     * (SourceRouteReplies::ReplyEntropy, fabric/helper/source-routes.h): the route that
     * retraces the frame's links.
     */
    using ReplyEntropyFn = std::function<uint16_t(uint32_t src, uint16_t entropy, uint64_t path)>;
    void SetReplyEntropy(ReplyEntropyFn fn) { m_replyEntropy = std::move(fn); }

    /** The sender window every QP of this NIC gets (bdpBytes 0 = none). */
    RdmaRequester::SenderWindow GetSenderWindow() const;
    /** Attribute ReceiverCredit: UEC-style receiver credits (RCCC) on every QP. */
    bool ReceiverCreditEnabled() const { return m_receiverCredit; }
    /** Speculative credit of a new QP, bytes (InitialCreditBytes, or one BDP). */
    uint64_t GetInitialCreditBytes() const;

    /** TracedCallback signature of "QpCreated": a QP this NIC just created (both ends of a
     *  connection fire it on their NIC), set up but not yet connected to its peer's QPN. */
    typedef void (*QpTracedCallback)(Ptr<RdmaQueuePair> qp);

    /** A QP has data to send (called by the QP). */
    void Activate(Ptr<RdmaQueuePair> qp);
    /** RCCC, called by the QP's requester: a credit request to its responder announcing the
     *  cumulative demand `demandBytes` (an ACK frame with AETH syndrome
     *  RoceAethHeader::kSyndromeCreditRequest, the demand in kCreditUnitBytes units, rounded
     *  up, modulo 2^24, in its MSN field), queued ahead of data like a grant. */
    void SendCreditRequest(const RdmaQueuePair& qp, uint64_t demandBytes);

    uint64_t GetQueuedFrames() const override { return m_control.size(); }

    /** BTH destination QP of monitoring probes: the UD QP a probe agent listens on (outside
     *  the numbers RC QPs get from kFirstQpn up, and not QP1, which decoders take for
     *  management datagrams). */
    static constexpr uint32_t kProbeQpn = 0xFFFFFE;
    /**
     * \brief Send a monitoring probe (FrameKind::PROBE: a RoCEv2 UD SEND_ONLY datagram to
     * kProbeQpn) of `frameBytes` bytes on the wire (at least the 64-byte minimum frame) to host
     * `dstHost`, with UDP source port `entropy`, sequence number `seq` (FrameMeta::psn) and the
     * send time in ps (FrameMeta::sackBits). It queues ahead of data, with ACKs and CNPs, in
     * the NIC's control priority (Attribute ControlPriority), so its delay is the path's
     * propagation and serialisation plus what that class queues: R-Pingmesh's probes
     * (Liu et al., SIGCOMM 2024) measure the fabric, not the data queues.
     */
    void SendProbe(uint32_t dstHost, uint16_t entropy, uint64_t seq, uint32_t frameBytes);
    /** TracedCallback signature of "ProbeReceived": a probe addressed to this NIC arrived
     *  (its headers, FrameMeta::path included: the route it took). */
    typedef void (*ProbeTracedCallback)(const FrameMeta& probe);

    /**
     * \brief Whether QP `qpn` (either end of a connection) is idle: nothing posted and
     * unacknowledged (GetUnackedBytes 0), no data or resend to send, no receive posted, not in
     * the transmit scheduler's active list (the round-robin DequeueNext walks), and, with
     * ReceiverCredit, owed no credit and counted for none in the NIC's outstanding credit (the
     * credit window every QP's grants share). Such a QP takes no part in what the NIC does
     * until work is posted on it or a frame arrives for it; its only events are its congestion
     * control's own timers (DCQCN's), which change that state alone (fast mode's exact rule,
     * docs/fast-mode.md). False for a QPN this NIC has not created.
     */
    bool IsQpIdle(uint32_t qpn) const;

    /** Assign stream numbers to the NIC's random variables; returns streams used. */
    int64_t AssignStreams(int64_t stream);

    /**
     * \brief Multi-plane NIC (rdma-nic-planes.cc): add port `GetNPlanes()`, this NIC's link
     * into that plane; the NIC itself is port 0, the link into plane 0. One transmit scheduler
     * (control frames first, then the QPs round-robin, as with one port) feeds every port: a
     * frame goes out on port PlaneOfEntropy(UDP source port, planes) (entropy mod planes,
     * fabric/helper/multi-plane.h), so a host path selector that sprays entropies sprays
     * planes and a QP that keeps one entropy stays on one plane. A frame for a busy or paused
     * port waits in that port's staging queue; while any staging queue holds
     * kStagedFramesPerPlane frames the scheduler stops (a shared scheduler's head-of-line
     * blocking). Frames received on any port reach the NIC. Call before any QP exists.
     */
    void AddPlanePort(Ptr<NicPlanePort> port);
    /** Ports (planes): 1 + the ports AddPlanePort added. */
    uint32_t GetNPlanes() const { return 1 + static_cast<uint32_t>(m_planePorts.size()); }
    /** Port `plane` (0 = this NIC). */
    Ptr<FabricNetDevice> GetPlanePort(uint32_t plane) const;
    /** The NIC's line rate, bit/s: the sum of its ports' rates (GetRateBps() with one port).
     *  Congestion control, pacing and the sender window see this rate. */
    uint64_t GetLineRateBps() const;
    /** Frames a plane's staging queue holds before the scheduler stops. */
    static constexpr size_t kStagedFramesPerPlane = 4;

  protected:
    void DoDispose() override;
    bool DoDequeue(Ptr<Packet>& packet, FrameMeta& meta) override;
    void DoReceive(Ptr<Packet> packet, const FrameMeta& meta) override;
    /** The RoCEv2 bytes of a frame (SerializeRoceFrame), for the Sniffer trace (pcap) and the
     *  receive ErrorModel. */
    Ptr<Packet> WireFrame(Ptr<Packet> frame, const FrameMeta& meta, bool transmitted) const override;

  private:
    friend class NicPlanePort;
    /** The next frame of the transmit scheduler, for any port (control first, then data). */
    bool DequeueNext(Ptr<Packet>& packet, FrameMeta& meta);
    /** Multi-plane: the next frame for port `plane` (staged, or from the scheduler). */
    bool DequeueForPlane(uint32_t plane, Ptr<Packet>& packet, FrameMeta& meta);
    /** Multi-plane: whether port `plane` is paused for `priority`. */
    bool PlanePaused(uint32_t plane, uint8_t priority) const;
    /** TryTransmit on every port (one port: this one). */
    void TransmitAll();
    /** Frames staged for port `plane`. */
    uint64_t StagedFrames(uint32_t plane) const;
    Ptr<RdmaQueuePair> CreateQp(uint32_t peerHost, uint8_t priority, uint16_t entropy);
    /** The entropy of control frames of `qp` answering data frame `data` (AckRoute). */
    uint16_t ReplyEntropy(const RdmaQueuePair& qp, const FrameMeta& data) const;
    void SendControl(const RdmaQueuePair& qp, const RdmaAck& ack, const IntStackRef* intEcho,
                     uint16_t entropy);
    void SendCnp(const RdmaQueuePair& qp, uint16_t entropy);
    /** A frame with `meta` as its headers carrying `payloadBytes`: sets meta.ipBytes, returns
     *  a Packet of the frame's size (no header bytes; SerializeRoceFrame builds them). Frames
     *  of one size share one Packet (see m_framesBySize). */
    Ptr<Packet> NewFrame(FrameMeta& meta, uint32_t payloadBytes);
    /** FrameMeta of a control frame (ACK, NAK, CNP, credit) of `qp` to its peer, with UDP
     *  source port `entropy`. */
    FrameMeta ControlMeta(const RdmaQueuePair& qp, FrameKind kind, uint16_t entropy) const;
    /** A frame (NewFrame) with `meta` as its headers and `payloadBytes` after them, queued
     *  ahead of data. */
    void QueueControl(FrameMeta& meta, uint32_t payloadBytes);
    void SendCredit(const RdmaQueuePair& qp, uint64_t cumulativeBytes);
    /** RCCC: list `qp` (owed credit) for the grant pacer and run the pacer if it is idle. */
    void ListForCredit(RdmaQueuePair* qp);
    void UpdateCreditOutstanding(const RdmaQueuePair& qp);
    uint64_t GetCreditWindowBytes() const;
    /** Line rate x BaseRtt, bytes; aborts naming `user` if BaseRtt is not set. */
    uint64_t BdpBytes(const char* user) const;
    /** RCCC, the receiver's grant pacer: one grant to the next listed QP, then again one
     *  grant's serialisation later; it stops when no QP is listed or when the credit window
     *  is full (CreditWindowBytes outstanding over all QPs). */
    void CreditTick();
    /** RCCC: run the grant pacer now if it is stopped and some QP is listed. Called when room
     *  opens in the credit window, whichever QP's data made it: the pacer stopped on a full
     *  window has nothing else to restart it. */
    void ResumeCreditPacer();
    void Wake();

    uint32_t m_hostId = 0;
    uint32_t m_mtuBytes = 4096;
    uint32_t m_ackInterval = 1;
    uint8_t m_controlPriority = 7;
    Time m_cnpInterval;
    bool m_cnpOnOoo = false;
    AckRouteMode m_ackRoute = ACK_FIXED;
    ReplyEntropyFn m_replyEntropy;
    Time m_rto;
    uint64_t m_maxOutstanding = 0;
    uint64_t m_qpRateCapBps = 0; //!< QpRateCap: each QP's line rate, bit/s; 0 = the NIC's
    Time m_baseRtt;
    SenderWindowMode m_senderWindow = WINDOW_NONE;
    bool m_receiverCredit = false;
    uint64_t m_initialCredit = 0;
    uint64_t m_creditGrant = 0;
    uint64_t m_creditWindow = 0;
    uint64_t m_creditOutstanding = 0;        //!< RCCC: sum of m_creditOut
    std::vector<uint64_t> m_creditOut;       //!< per QPN: its outstanding credit, as last seen
    std::vector<RdmaQueuePair*> m_creditQps; //!< RCCC: responders owing credit, round-robin
    std::vector<uint8_t> m_creditListed;     //!< per QPN: listed in m_creditQps
    size_t m_creditRr = 0;
    EventId m_creditEvent;
    TypeId m_ccTypeId;
    TypeId m_pathSelectorTypeId;
    TypeId m_lossRecoveryTypeId;

    std::vector<Ptr<RdmaQueuePair>> m_qps; //!< indexed by QPN; QPN 0 and 1 unused
    std::vector<RdmaQueuePair*> m_active;  //!< QPs that may have data to send
    std::vector<uint8_t> m_isActive;       //!< per QPN: listed in m_active
    size_t m_rrNext = 0;
    struct ControlFrame
    {
        Ptr<Packet> packet;
        FrameMeta meta;
    };
    RingQueue<ControlFrame> m_control;
    /**
     * The Packets NewFrame hands out, one per frame size, most recently used first (at most
     * kFrameSizesCached). A frame's Packet only carries its size (frame-meta.h) and nobody
     * modifies it, so frames of one size can share it: no allocation of a Packet, its Buffer
     * and its metadata per frame, and no per-frame Packet held in a queue (perm-1024: 30 MB
     * of peak heap; docs/performance.md).
     */
    std::vector<Ptr<Packet>> m_framesBySize;
    static constexpr size_t kFrameSizesCached = 8;
    EventId m_wake;
    Ptr<UniformRandomVariable> m_entropyRng;
    TracedCallback<Ptr<RdmaQueuePair>> m_qpCreatedTrace;
    TracedCallback<const FrameMeta&> m_probeReceivedTrace;
    std::vector<Ptr<FabricNetDevice>> m_planePorts; //!< ports 1.. (NicPlanePort) of a multi-plane NIC
    std::vector<RingQueue<ControlFrame>> m_staged; //!< per plane: frames waiting for its port
    bool m_kickPending = false;                    //!< a TransmitAll is scheduled
};

} // namespace ns3

#endif
