/*
 * tusk: ConWeave, RDMA load balancing with in-network reordering (Song et al., "Network Load
 * Balancing with In-network Reordering Support for RDMA", SIGCOMM 2023).
 */
#ifndef TUSK_CONWEAVE_LOAD_BALANCER_H
#define TUSK_CONWEAVE_LOAD_BALANCER_H

#include "fabric/model/load-balancer.h"
#include "fabric/model/kernel/ring-queue.h"

#include "ns3/event-id.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \brief ConWeave's header (paper, section 3 and table 2), carried in FrameMeta's policy tag
 * area (GetLbTag<ConWeaveTag>); every field zero = no tag. Data frames between the source
 * and destination ToR carry DATA, RTT_REQUEST or TAIL; control frames (FrameKind::LB_CONTROL)
 * from the destination ToR back to the source ToR carry RTT_REPLY, CLEAR or NOTIFY.
 */
struct ConWeaveTag
{
    enum Type : uint8_t
    {
        NONE = 0,
        DATA = 1,        //!< an ordinary data frame of the current epoch and phase
        RTT_REQUEST = 2, //!< first frame of an epoch: the destination ToR answers RTT_REPLY
        TAIL = 3,        //!< last frame on the old path after a reroute: answered by CLEAR
        RTT_REPLY = 4,   //!< control: the epoch's RTT_REQUEST arrived
        CLEAR = 5,       //!< control: the TAIL arrived, the reordering of this epoch is over
        NOTIFY = 6,      //!< control: a CE-marked frame arrived on `path`
    };
    static constexpr uint8_t kPhase1 = 1; //!< bits: phase 1 (after the epoch's reroute), else 0
    /** bits: the destination ToR asks its egress hook to put the frame in the flow's reorder
     *  queue (internal to the destination ToR, cleared before the frame leaves it). */
    static constexpr uint8_t kHold = 2;
    /** bits: the destination ToR releases the flow's reorder queue behind this TAIL. */
    static constexpr uint8_t kFlushBehind = 4;

    uint8_t type;     //!< Type
    uint8_t epoch;    //!< the flow's epoch at the source ToR (modulo 256)
    uint8_t bits;     //!< kPhase1 | kHold | kFlushBehind
    uint8_t path;     //!< the source ToR's uplink (port index) the data frame took
    uint32_t stampNs; //!< phase 0: the source ToR's send time; phase 1: the TAIL's (ns mod 2^32)

    uint8_t Phase() const { return bits & kPhase1; }
};

/**
 * \brief ConWeave at the ToRs (Song et al., SIGCOMM 2023, section 3), hashing elsewhere.
 *
 * Source ToR, per flow (5-tuple and destination QP), for data frames to another ToR:
 * - Epochs. The first frame of an epoch is an RTT_REQUEST; the destination ToR answers it
 *   with an RTT_REPLY. An epoch starts when the flow was inactive for `InactiveTime`
 *   (θ_inactive) or when the previous epoch is stable (a timely RTT_REPLY, or the CLEAR
 *   that ends a reroute).
 * - Rerouting. A frame sent after the reply deadline θ_reply = `BaseRtt` + `ReplyMargin`
 *   with no RTT_REPLY is the TAIL: the last frame on the old path. The following frames
 *   (phase 1) take a new uplink: two uplinks other than the current one are sampled at
 *   random and the first not marked busy is taken (ConWeave's path-aware choice); if both
 *   are busy the flow stays. At most one reroute per epoch: after a TAIL the flow waits for
 *   the CLEAR (or `InactiveTime` of silence) before it probes again.
 * - Busy paths. Every CE-marked data frame makes the destination ToR send a NOTIFY for its
 *   path; the source marks that uplink busy towards that ToR for `PathBusyTime` (θ_path_busy).
 *
 * Destination ToR, per flow: frames of phase 1 that arrive before the epoch's TAIL are held
 * in the flow's reorder queue (in ConWeave, a paused egress queue of the port to the host);
 * the TAIL releases them behind itself, in arrival order. If the TAIL is late, the queue is
 * released at the predicted TAIL arrival + `ResumeMargin` (θ_resume): the phase-0 arrival
 * time plus the TAIL's send-time gap at the source, or `DefaultResumeTime` after the first
 * held frame when no phase-0 frame of the epoch was seen. Held frames stay charged to the
 * switch's shared buffer (they count towards PFC and drop thresholds) until they leave the
 * egress queue; GetHeldBytes, GetPeakHeldBytes, GetHeldFrames, GetFlushes* and
 * GetLateOldPathFrames expose the reorder queues.
 *
 * Control frames (RTT_REPLY, CLEAR, NOTIFY) are `ControlFrameBytes` frames of FrameKind::
 * LB_CONTROL on `ControlPriority`, routed back towards the flow's source host (hashed, as the
 * artifact forwards them with ECMP) and consumed by its ToR.
 *
 * Paths are the source ToR's uplinks: in a two-tier leaf-spine that is the whole path; above
 * the leaves (3-tier fat trees) frames hash. Defaults are those of the authors' simulator
 * (conweave-ns3, run.py) for their 2-tier leaf-spine runs: reply margin 4 us, path pause
 * 16 us, inactive (Tx expiry) 300 us, VOQ flush margin 16 us, default VOQ wait 200 us (its
 * program's built-in values, 8 us, 1 ms, 32 us and 500 us, are overridden by run.py).
 * State: one entry per active flow at each ToR (created by a flow's first frame, aged after
 * `InactiveTime` without frames), the busy time per (destination ToR, uplink), and the
 * held frames. Tests: tests/unit/conweave-load-balancer-test.cc (the state machines without
 * a Simulator), tests/component/conweave-test.cc.
 */
class ConWeaveLoadBalancer : public LoadBalancer
{
  public:
    /** "Held": a frame was put in a reorder queue. */
    typedef void (*HeldTracedCallback)(const FrameMeta& meta);
    /** "Released": a held frame left its queue; byTimeout = before its TAIL arrived. */
    typedef void (*ReleasedTracedCallback)(const FrameMeta& meta, bool byTimeout);
    /** "Control": the destination ToR sent an RTT_REPLY, CLEAR or NOTIFY (its meta). */
    typedef void (*ControlTracedCallback)(const FrameMeta& meta);
    /** "Reroute": the source ToR moved a flow from oldPort to newPort. */
    typedef void (*RerouteTracedCallback)(const FrameMeta& meta, uint16_t oldPort,
                                          uint16_t newPort);

    static TypeId GetTypeId();
    /** Only the candidates' ports: ConWeave's signals are its probes and NOTIFYs. */
    uint8_t GetCandidateFields() const override { return 0; }
    ConWeaveLoadBalancer();
    ~ConWeaveLoadBalancer() override;
    int64_t AssignStreams(int64_t stream) override;

    /**
     * Release every reorder queue whose deadline is at or before `now` (what the flush
     * timers do in a simulation; unit tests call it with a fake clock). \return frames released
     */
    uint64_t FlushDue(Time now);

    // Source ToR statistics
    uint64_t GetRttRequests() const { return m_rttRequests; }
    uint64_t GetReroutes() const { return m_reroutes; }
    uint64_t GetTails() const { return m_tails; }
    uint64_t GetRepliesInTime() const { return m_repliesInTime; }
    uint64_t GetClears() const { return m_clearsReceived; }
    uint64_t GetNotifies() const { return m_notifiesReceived; }
    /** Whether the uplink `port` towards ToR `dstEdge` is marked busy at `now`. */
    bool IsPathBusy(uint32_t dstEdge, uint16_t port, Time now) const;
    /** IsPathBusy with the time in ps, as the per-frame path choice has it. */
    bool IsPathBusyPs(uint32_t dstEdge, uint16_t port, uint64_t nowPs) const;

    // Destination ToR statistics
    uint64_t GetHeldFrames() const { return m_heldFrames; }      //!< frames ever held
    uint64_t GetHeldBytes() const { return m_heldBytes; }        //!< bytes held now
    uint64_t GetPeakHeldBytes() const { return m_peakHeldBytes; } //!< largest held at once
    uint64_t GetActiveQueues() const { return m_activeQueues; }  //!< flows reordering now
    uint64_t GetPeakQueues() const { return m_peakQueues; }
    uint64_t GetFlushesByTail() const { return m_flushByTail; }
    uint64_t GetFlushesByTimeout() const { return m_flushByTimeout; }
    /** Frames released by a timeout (before their TAIL: they may reach the host out of order). */
    uint64_t GetTimeoutReleasedFrames() const { return m_timeoutReleased; }
    /** Old-path (phase 0) frames that arrived after their epoch's queue was released by a
     *  timeout: they overtake nothing but arrive behind newer frames, out of order. */
    uint64_t GetLateOldPathFrames() const { return m_lateOldPath; }
    uint64_t GetControlFramesSent() const { return m_controlSent; }

  private:
    struct FlowKey
    {
        uint32_t srcHost;
        uint32_t dstHost;
        uint32_t dstQp;
        uint16_t srcPort;
        bool operator==(const FlowKey& o) const
        {
            return srcHost == o.srcHost && dstHost == o.dstHost && dstQp == o.dstQp &&
                   srcPort == o.srcPort;
        }
    };
    struct FlowKeyHash
    {
        size_t operator()(const FlowKey& k) const;
    };
    static constexpr uint64_t kNone = UINT64_MAX;
    struct TxFlow
    {
        uint64_t lastPs = 0;
        uint64_t replyDeadlinePs = kNone; //!< RTT_REPLY expected before; kNone = not waiting
        uint64_t tailPs = 0;              //!< send time of this epoch's TAIL (0 = none)
        uint16_t port = 0;                //!< current uplink
        uint8_t epoch = 0;
        uint8_t phase = 0;
        bool stable = false; //!< a timely RTT_REPLY or the CLEAR arrived: next frame starts an epoch
        bool moved = false;  //!< a reply timeout rerouted it; its next frame is the first there
    };
    struct Held
    {
        Ptr<Packet> packet;
        FrameMeta meta;
        uint16_t inPort;
        uint16_t outPort;
    };
    struct RxFlow
    {
        uint64_t lastPs = 0;
        uint64_t phase0RxPs = 0; //!< arrival of the epoch's last phase-0 frame
        uint64_t deadlinePs = 0; //!< release the reorder queue then (when reordering)
        uint32_t phase0TxNs = 0; //!< its send time at the source ToR
        uint32_t tailTxNs = 0;   //!< the TAIL's send time (from TAIL and phase-1 frames)
        uint8_t epoch = 0;
        uint8_t phase = 0;
        bool phase0Seen = false; //!< a phase-0 frame of this epoch arrived
        bool reordering = false; //!< phase-1 frames are held
        bool timedOut = false;   //!< this epoch's queue was released by the timeout
        RingQueue<Held> queue; //!< allocates nothing until the first held frame
        EventId timer;
    };

    uint32_t DoSelectEgress(const LbContext& ctx,
                            const FrameMeta& frame,
                            const EgressCandidate* candidates,
                            uint32_t count) override;
    void DoFrameArrived(const LbContext& ctx, FrameMeta& frame) override;
    void DoFrameLeaving(const LbContext& ctx,
                        FrameMeta& frame,
                        const EgressCandidate& chosen) override;
    bool DoConsumeFrame(const LbContext& ctx, const FrameMeta& frame) override;
    bool DoHoldFrame(Time now, uint16_t inPort, uint16_t outPort, Ptr<Packet> packet,
                     FrameMeta& frame) override;
    void DoDispose() override;

    uint32_t SourceToR(const LbContext& ctx, const FrameMeta& frame,
                       const EgressCandidate* candidates, uint32_t count);
    void DestinationToR(const LbContext& ctx, FrameMeta& frame);
    /** Sample two candidates other than `current` (index, -1 = none) and return the first
     *  not busy towards `dstEdge`, or -1. */
    int PickGoodPath(uint32_t dstEdge, int current, const EgressCandidate* candidates,
                     uint32_t count, uint64_t nowPs);
    void SendControl(const LbContext& ctx, const FrameMeta& data, ConWeaveTag::Type type,
                     uint8_t epoch, uint8_t phase, uint8_t path);
    void Arm(const FlowKey& key, RxFlow& f, uint64_t deadlinePs, uint64_t nowPs);
    /** Release f's queue in order. \param byTimeout counted as a timeout release */
    uint64_t Release(RxFlow& f, bool byTimeout);
    void OnTimer(FlowKey key);
    template <typename Map>
    void Age(Map& map, uint64_t nowPs, uint64_t& sweepAt);

    // Attributes
    Time m_baseRtt;
    Time m_replyMargin;
    Time m_pathBusy;
    Time m_inactive;
    Time m_resumeMargin;
    Time m_defaultResume;
    uint32_t m_controlBytes = 64;
    uint8_t m_controlPriority = 7;
    uint32_t m_seed = 0;

    std::unordered_map<FlowKey, TxFlow, FlowKeyHash> m_tx;
    std::unordered_map<FlowKey, RxFlow, FlowKeyHash> m_rx;
    uint64_t m_txSweepAt = 1024;
    uint64_t m_rxSweepAt = 1024;
    std::vector<std::vector<uint64_t>> m_busyUntilPs; //!< [destination ToR][uplink port]
    Ptr<UniformRandomVariable> m_rng;
    /** The control frames' Packet (frames carry only their size; one Packet is shared). */
    Ptr<Packet> m_controlPacket;
    /** What SelectEgress decided for the frame FrameLeaving tags next (the same frame). */
    ConWeaveTag m_pending{};
    bool m_pendingValid = false;

    uint64_t m_rttRequests = 0;
    uint64_t m_reroutes = 0;
    uint64_t m_tails = 0;
    uint64_t m_repliesInTime = 0;
    uint64_t m_clearsReceived = 0;
    uint64_t m_notifiesReceived = 0;
    uint64_t m_heldFrames = 0;
    uint64_t m_heldBytes = 0;
    uint64_t m_peakHeldBytes = 0;
    uint64_t m_activeQueues = 0;
    uint64_t m_peakQueues = 0;
    uint64_t m_flushByTail = 0;
    uint64_t m_flushByTimeout = 0;
    uint64_t m_timeoutReleased = 0;
    uint64_t m_lateOldPath = 0;
    uint64_t m_controlSent = 0;

    /** A held frame left its reorder queue for the egress queue: (meta, by timeout). */
    TracedCallback<const FrameMeta&, bool> m_releasedTrace;
    /** A frame was put in a reorder queue. */
    TracedCallback<const FrameMeta&> m_heldTrace;
    /** The destination ToR sent a control frame (RTT_REPLY, CLEAR, NOTIFY). */
    TracedCallback<const FrameMeta&> m_controlTrace;
    /** The source ToR moved a flow: (meta of the TAIL, old port, new port). */
    TracedCallback<const FrameMeta&, uint16_t, uint16_t> m_rerouteTrace;
};

} // namespace ns3

#endif
