/*
 * tusk: SwitchPort, one port of a SwitchNode: per-priority egress queues and a DRE.
 */
#ifndef TUSK_SWITCH_PORT_H
#define TUSK_SWITCH_PORT_H

#include "fabric-channel.h"
#include "fabric-net-device.h"
#include "ib-fecn-marking.h"

#include "ns3/random-variable-stream.h"

#include "fabric/model/kernel/pooled-fifo.h"

#include <array>

namespace ns3
{

class SwitchNode;

/**
 * \brief ECN marking probability of DCQCN's congestion point (Zhu et al., SIGCOMM 2015,
 * section 3.1, RED on the instantaneous queue): 0 at q <= kmin, rising linearly to pmax at
 * kmax, 1 above kmax. Bytes.
 */
double EcnMarkProbability(uint64_t queueBytes, uint64_t kmin, uint64_t kmax, double pmax);

/**
 * \brief A switch port: 8 per-priority FIFO egress queues sharing a byte limit, served in
 * strict priority (7 highest), and a discounting rate estimator (DRE) of egress utilisation
 * (Alizadeh et al., "CONGA", SIGCOMM 2014, section 3.3) for load-balancing policies.
 * Every frame's IPv4 TTL is decremented at enqueue; a data frame that carries an INT header
 * (FrameMeta::intStack.IsPresent()) gets this egress's IntHop when it leaves the queue (HPCC).
 * The queued frames live in a FifoPool that the ports of the switch share, and the switches of a
 * fabric share theirs (FabricHelper): memory for the most frames queued at once in the fabric.
 */
class SwitchPort : public FabricNetDevice
{
  public:
    static constexpr int kPriorities = 8;

    /** "FecnSuppressed": a frame a victim port would have marked, left unmarked because the
     *  port's Victim_Mask bit is clear: (packet, its VL, the VL's queue bytes it found). */
    typedef void (*FecnSuppressedTracedCallback)(Ptr<const Packet> packet, uint8_t vl,
                                                 uint64_t queueBytes);

    /** A frame in an egress queue. */
    struct QueuedFrame
    {
        Ptr<Packet> packet;
        FrameMeta meta;
        uint16_t ingressPort = 0;
    };
    /** Where the egress queues' frames live (SwitchNode::SetFramePool). */
    using FramePool = FifoPool<QueuedFrame>;

    static TypeId GetTypeId();
    SwitchPort();

    /** Attach to `sw` as its port `portIndex`; the queues take the switch's frame pool. */
    void SetSwitch(Ptr<SwitchNode> sw, uint16_t portIndex);
    /** Keep queued frames in `pool` (while no frame is queued). */
    void SetFramePool(Ptr<FramePool> pool);
    uint16_t GetPortIndex() const { return m_portIndex; }
    /** Bits this port's index takes in FrameMeta::path (PathHopBits of the switch's ports;
     *  set by SwitchNode::FinishPorts). */
    void SetPathHopBits(uint8_t bits) { m_pathHopBits = bits; }
    Ptr<SwitchNode> GetSwitch() const;

    /**
     * \brief Queue a frame the switch's MMU has admitted, at the egress queue of its priority;
     * CE-mark it first if ECN marking is on (RED on the instantaneous queue, see
     * EcnMarkProbability); on InfiniBand a port that is only a victim of congestion
     * (IsCongestionVictim) does not mark unless its Victim_Mask bit is set (HasVictimMaskBit,
     * IBA annex A10), and counts the frame in GetVictimMarksSuppressed instead when its queue
     * is above Kmin. During a PFC-watchdog storm on its priority the frame is dropped
     * instead (PFC_WATCHDOG), and while the link is down with FlushOnLinkDown (LINK_DOWN);
     * then false is returned and the caller releases its buffer.
     * \param ingressPort the port it arrived on (for the MMU's release at dequeue)
     */
    bool Enqueue(Ptr<Packet> packet, const FrameMeta& meta, uint16_t ingressPort);

    /** Bytes queued at this port over all priorities. */
    uint64_t GetQueueBytes() const { return m_queuedBytes; }
    /**
     * Bytes this port still has to send: its queues and the frame on the wire. This is the
     * egress occupancy a switch's load balancer sees (an ASIC frees a frame's buffer cells
     * when its last bit leaves): an idle port and a port that has just started a frame with
     * an empty queue differ by that frame.
     */
    uint64_t GetBacklogBytes() const { return m_queuedBytes + GetBytesOnWire(); }
    uint64_t GetQueueBytes(uint8_t priority) const { return m_queueBytesPerPrio[priority]; }
    uint64_t GetQueuedFrames() const override { return m_queuedFrames; }
    /** The parsed headers of the frame at the head of `priority`'s queue; nullptr if empty. */
    const FrameMeta* PeekHead(uint8_t priority) const
    {
        return m_queues[priority].empty() ? nullptr : &m_queues[priority].front().meta;
    }
    /** Whether `priority`'s queue holds a frame that arrived on `ingressPort` (a linear scan,
     *  for PFC bookkeeping only, never per forwarded frame). */
    bool HoldsFrameFrom(uint8_t priority, uint16_t ingressPort) const;

    /** DRE utilisation estimate at `now`: X / (C * tau), tau = DrePeriod / DreAlpha; X counts
     *  the bytes transmitted, or with DreAtEnqueue those that joined the queue (then above 1
     *  while the queue grows). */
    double GetUtilisation(Time now) const;
    /** Keep the DRE estimate (on by default); the switch turns it off when its policy does
     *  not read it (LoadBalancer::UsesUtilisation). */
    void SetDreEnabled(bool enabled) { m_dreEnabled = enabled; }

    /** The marking decision for a frame arriving at a queue of `queueBytes` (draws the RNG). */
    bool ShouldMarkEcn(uint64_t queueBytes);
    /**
     * \brief InfiniBand congestion control (IBA vol. 1, annex A10): whether VL `vl` of this port
     * is a victim of congestion further on rather than its root, for a frame of `arrivingBytes`
     * arriving now. A victim's queue grows for lack of credits: the credits it holds do not
     * cover the frame that would go next (the head of the VL's queue, or the arriving frame
     * when the queue is empty). A root has the credits and its queue grows because more
     * arrives than its link sends. A VL that lacked credits less than EcnVictimHoldoff ago
     * (by default one credit round trip of the link) is still a victim: the credit update
     * that let it send one more frame does not make it the root. Always false without credit
     * flow control (Ethernet).
     */
    bool IsCongestionVictim(uint8_t vl, uint32_t arrivingBytes) const;
    /** This port's Victim_Mask bit (IBA annex A10): the EcnVictimMask attribute resolved for
     *  this port (with EndNodes, set when the link's other end is not a switch port). */
    bool HasVictimMaskBit() const;
    /** Frames this port left unmarked because it was a victim without its Victim_Mask bit: an
     *  ECN-capable data frame that found its VL's queue above Kmin (EcnMarkProbability > 0;
     *  with Kmin = Kmax, every one a root would have marked). No random draw is made for them,
     *  so the count does not change the marks of other frames. */
    uint64_t GetVictimMarksSuppressed() const { return m_victimMarksSuppressed; }
    /** Configure RED-style ECN marking at this egress: the attributes EcnMarking,
     *  EcnKminBytes, EcnKmaxBytes (bytes) and EcnPmax (0..1) at once. */
    void SetEcn(bool enabled, uint64_t kminBytes, uint64_t kmaxBytes, double pmax);
    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;
    bool DoDequeue(Ptr<Packet>& packet, FrameMeta& meta) override;
    void DoReceive(Ptr<Packet> packet, const FrameMeta& meta) override;
    void DoPfcStorm(uint8_t priority) override;
    void DoLinkDown() override;

  private:
    void SetVictimHoldoff(Time holdoff);
    Time GetVictimHoldoff() const;
    /** EcnVictimHoldoff in ps, 0 resolved to the link's credit round trip. */
    int64_t VictimHoldoffPs() const;
    /** VL `vl` lacks (or until now lacked) the credits for its head frame. */
    void NoteCreditStarved(uint8_t vl);
    /** Drop every frame of `priority`'s queue for `reason`, releasing its buffer. */
    void DropQueue(uint8_t priority, DropReason reason);
    void DecayDre(uint64_t nowPs) const;
    void SetDrePeriod(Time period);
    Time GetDrePeriod() const;
    void SetDreAlpha(double alpha);
    double GetDreAlpha() const;
    /** The DRE utilisation as last decayed (callers decay it first). */
    double DreUtilisation() const;
    /** Append this egress's INT record to a data frame that carries an INT header. */
    void PushIntHop(FrameMeta& meta, uint64_t nowPs);

    // ---- Hot: what every frame through this egress reads or writes (Enqueue, DoDequeue,
    // DoReceive, the DRE and ECN marking), together after FabricNetDevice's members, so that
    // a hop touches few cache lines of the port (see FabricNetDevice's hot members).
    uint8_t m_nonEmpty = 0; //!< bit p set while m_queues[p] holds a frame
    bool m_flushOnLinkDown = true; //!< attribute FlushOnLinkDown
    bool m_ecnEnabled = false;     //!< attribute EcnMarking
    bool m_ecnAtDequeue = false;   //!< attribute EcnMarkAtDequeue
    bool m_dreEnabled = true;
    bool m_dreAtEnqueue = false; //!< DreAtEnqueue: count bytes as they join the queue
    uint8_t m_pathHopBits = 0;
    uint16_t m_portIndex = 0;
    Ptr<SwitchNode> m_switch;
    uint64_t m_queuedBytes = 0;
    uint64_t m_queuedFrames = 0;
    uint64_t m_drePeriodPs = 1; //!< m_drePeriod in ps (read per frame)
    double m_dreTauS = 1e-4;    //!< tau = DrePeriod / DreAlpha, s
    double m_dreAlpha = 0.1;
    mutable double m_dreBytes = 0;
    mutable uint64_t m_dreLastPs = 0;
    uint64_t m_ecnKmin = 0; //!< attribute EcnKminBytes
    uint64_t m_ecnKmax = 0; //!< attribute EcnKmaxBytes
    double m_ecnPmax = 0;   //!< attribute EcnPmax
    Ptr<UniformRandomVariable> m_ecnRng;
    std::array<uint64_t, kPriorities> m_queueBytesPerPrio{};
    Ptr<FramePool> m_framePool; //!< before the queues: they give their nodes back first
    std::array<PooledFifo<QueuedFrame>, kPriorities> m_queues;

    // ---- Cold: configuration and the InfiniBand and PFC paths.
    ib::VictimMask m_ecnVictimMask = ib::VICTIM_MASK_END_NODES; //!< attribute EcnVictimMask
    Time m_victimHoldoff;                 //!< attribute EcnVictimHoldoff (0: automatic)
    mutable int64_t m_victimHoldoffPs = -1; //!< VictimHoldoffPs resolved; -1: not yet
    /** Per VL: when it last lacked the credits for its head frame, ps; -1: never. */
    std::array<int64_t, kPriorities> m_starvedAtPs;
    uint64_t m_victimMarksSuppressed = 0;
    TracedCallback<Ptr<const Packet>, uint8_t, uint64_t> m_fecnSuppressedTrace;
    Time m_drePeriod;
};

} // namespace ns3

#endif
