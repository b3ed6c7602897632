/*
 * tusk: LoadBalancer, the switch-side load-balancing seam (docs/architecture.md).
 */
#ifndef TUSK_LOAD_BALANCER_H
#define TUSK_LOAD_BALANCER_H

#include "frame-meta.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"

#include <cstdint>
#include <memory>

namespace ns3
{

class EgressDecisionLog; // egress-decision-log.h

/**
 * Why a policy sent a frame to the egress it chose, as the policy reports it (SetReason) for
 * the switch adaptive-routing telemetry (ar.csv). A policy that does not say is POLICY.
 */
enum class EgressReason : uint8_t
{
    POLICY = 0,       //!< "policy": the policy did not say
    HASH,             //!< "hash": a flow hash (ECMP; CONGA and ConWeave away from the source ToR)
    RANDOM,           //!< "random": a uniform draw (LetFlow, spraying, every compared port tied)
    LEAST_BACKLOG,    //!< "least_backlog": the compared port with the least egress backlog
    FLOWLET,          //!< "flowlet": the flow or flowlet kept its port (not a new decision)
    CONGA_METRIC,     //!< "conga_metric": CONGA's least congested path, max(local, remote)
    CONWEAVE_REROUTE, //!< "conweave_reroute": ConWeave moved the flow to a path not marked busy
};
/** Number of EgressReason values. */
constexpr int kEgressReasons = 7;
/** The lower-case name of a reason, as ar.csv writes it ("least_backlog"). */
const char* EgressReasonName(EgressReason r);

/** What a policy may know about one equal-cost egress port. */
struct EgressCandidate
{
    uint16_t port = 0;        //!< port index on the switch
    uint64_t queueBytes = 0;  //!< bytes that egress port still has to send: queued + on the wire
    double utilisation = 0;   //!< recent egress utilisation (DRE estimate, 0..1+)
    bool paused = false;      //!< PFC-paused for the packet's priority
    bool linkUp = true;
};

/** Where and when a decision is taken. Time is passed in, so policies need no Simulator. */
struct LbContext
{
    /** Value of srcEdge / dstEdge when the edge switch of a host is not known. */
    static constexpr uint32_t kNoEdge = 0xFFFFFFFFu;

    Time now;
    uint32_t switchId = 0;    //!< the switch's index in the fabric (not the ns-3 node id)
    uint16_t ingressPort = 0;
    uint32_t frameBytes = 0;
    bool fromHost = false;    //!< the frame entered this switch from a host (first hop)
    uint32_t srcEdge = kNoEdge; //!< switch id of the source host's edge (ToR / leaf) switch
    uint32_t dstEdge = kNoEdge; //!< switch id of the destination host's edge switch
};

/**
 * \brief Chooses one of several equal-cost egress ports for a frame.
 *
 * Non-virtual interface in the style of ns-3's QueueDisc: SelectEgress validates and counts
 * (the switch's bookkeeping cannot be skipped), then calls the policy's private
 * DoSelectEgress, which only chooses. Candidates in, index out; a policy keeps whatever state
 * it needs (flowlet tables) itself, bounded. One instance per switch, created by the fabric
 * builder from a TypeId, so per-switch seeds and state are natural.
 */
class LoadBalancer : public Object
{
  public:
    static TypeId GetTypeId();
    LoadBalancer();
    ~LoadBalancer() override;

    /**
     * \param ctx switch, time and frame size
     * \param frame the frame's parsed header fields (5-tuple, QP, priority)
     * \param candidates `count` >= 1 equal-cost ports; count == 1 is answered without asking
     *        the policy
     * \return an index into candidates, in [0, count)
     */
    uint32_t SelectEgress(const LbContext& ctx,
                          const FrameMeta& frame,
                          const EgressCandidate* candidates,
                          uint32_t count);

    /**
     * \brief The egress a probe with `frame`'s headers would take, as a traceroute learns it
     * (007, Arzani et al., NSDI 2018): the policy's choice when it is a function of the
     * headers, the candidate set and the switch's configuration alone (ECMP's hash, a source
     * route, a static table). Changes nothing: no decision is counted or logged, no state is
     * kept. \param index set to the chosen index in [0, count) when the answer is true
     * \return false when the policy cannot say: its choice depends on queues, time, random
     * draws or state a probe would change (adaptive routing, DRILL, ConWeave, flowlets,
     * spraying), or it rewrites frames (frame hooks). count == 1 is answered without asking.
     */
    bool ProbeEgress(const LbContext& ctx,
                     const FrameMeta& frame,
                     const EgressCandidate* candidates,
                     uint32_t count,
                     uint32_t& index) const;

    /**
     * \brief Per-frame hooks for policies that read or write fabric-internal header fields
     * (CONGA's overlay tags and feedback). The switch calls FrameArrived for every frame it
     * forwards, before the route lookup, and FrameLeaving once the egress port is chosen
     * (also when there was only one candidate). No-ops unless the policy asked for them with
     * EnableFrameHooks, so other policies pay one branch per frame.
     */
    void FrameArrived(const LbContext& ctx, FrameMeta& frame)
    {
        if (m_frameHooks)
        {
            DoFrameArrived(ctx, frame);
        }
    }
    /** \copydoc FrameArrived \param chosen the egress candidate the frame was sent to */
    void FrameLeaving(const LbContext& ctx, FrameMeta& frame, const EgressCandidate& chosen)
    {
        if (m_frameHooks)
        {
            DoFrameLeaving(ctx, frame, chosen);
        }
    }
    /**
     * \brief Egress-pipeline hook: the frame leaves the queue of `port` and starts
     * transmission at `now`; `utilisation` is that port's DRE estimate at that instant. This
     * is where an ASIC rewrites a header field that reports the egress state the frame met
     * (CONGA's CE): a value written at enqueue (FrameLeaving) is as old as the queueing delay
     * when it reaches the next hop. Called by the port for every frame of a switch whose
     * policy enabled the departure hook (EnableDepartureHook): the ports then keep DRE
     * estimates and read the clock per frame, which other hooked policies do not pay for.
     */
    void FrameDeparting(Time now, uint16_t port, double utilisation, FrameMeta& frame)
    {
        if (m_departureHook)
        {
            DoFrameDeparting(now, port, utilisation, frame);
        }
    }
    /**
     * \brief Whether the policy takes this frame out of the switch's forwarding: a control
     * frame of the policy's own protocol addressed to this switch (ConWeave's RTT_REPLY,
     * CLEAR and NOTIFY at the source ToR). Called after FrameArrived; a consumed frame goes no
     * further and is counted by the switch (SwitchNode::GetFramesConsumed).
     */
    bool ConsumeFrame(const LbContext& ctx, const FrameMeta& frame)
    {
        return m_frameHooks && DoConsumeFrame(ctx, frame);
    }
    /**
     * \brief Egress hold (ConWeave's reorder queues at the destination ToR): called once the
     * switch's buffer (MMU) has admitted the frame for `outPort` and before it joins that
     * port's queue. Returning true hands the frame to the policy, which keeps it, still
     * charged to the switch buffer (it may trigger PFC as any queued frame), until it gives it
     * back with ReleaseHeld, in the order it chooses.
     */
    bool HoldFrame(Time now, uint16_t inPort, uint16_t outPort, Ptr<Packet> packet,
                   FrameMeta& frame)
    {
        return m_frameHooks && DoHoldFrame(now, inPort, outPort, packet, frame);
    }
    bool HasFrameHooks() const { return m_frameHooks; }
    /** Whether the policy asked for FrameDeparting (EnableDepartureHook). */
    bool HasDepartureHook() const { return m_departureHook; }

    /** (inPort, packet, meta): forward a frame the policy generated as if it arrived on inPort. */
    typedef Callback<void, uint16_t, Ptr<Packet>, const FrameMeta&> InjectCallback;
    /** (inPort, outPort, packet, meta): a held frame joins the queue of outPort now. */
    typedef Callback<void, uint16_t, uint16_t, Ptr<Packet>, const FrameMeta&> ReleaseCallback;
    /** Set by the switch that owns the policy (SwitchNode::SetLoadBalancer). */
    void SetSwitchCallbacks(InjectCallback inject, ReleaseCallback release)
    {
        m_inject = inject;
        m_release = release;
    }

    /** Decisions taken by the policy (count > 1). */
    uint64_t GetDecisions() const { return m_decisions; }

    /**
     * \brief Record every decision from now on (count > 1): per egress port and candidate-set
     * size, how often it was offered and chosen, the frames and bytes sent, the frames by
     * EgressReason (egress-decision-log.h). Off by default: SelectEgress then pays one pointer
     * test. \param ports the switch's port count
     */
    void EnableDecisionLog(uint32_t ports);
    /** The log EnableDecisionLog started, or nullptr. */
    const EgressDecisionLog* GetDecisionLog() const { return m_log.get(); }

    /**
     * Assign a fixed random-variable stream number to the policy's random variables.
     * \return the number of streams used
     */
    virtual int64_t AssignStreams(int64_t stream);

    /** EgressCandidate fields beyond `port` and `linkUp` a policy can read. */
    enum CandidateField : uint8_t
    {
        QUEUE_BYTES = 1, //!< EgressCandidate::queueBytes
        UTILISATION = 2, //!< EgressCandidate::utilisation (the ports then keep DRE estimates)
        PAUSED = 4,      //!< EgressCandidate::paused
        ALL_FIELDS = 7,
    };

    /**
     * The EgressCandidate fields the policy reads (CandidateField bits). The switch fills
     * only these (the others stay at their defaults) and its ports keep DRE estimates only
     * for a policy that reads UTILISATION: ECMP reads none, which saves per frame a DRE
     * update and per candidate three port look-ups. The default is all, so a new policy sees
     * everything.
     */
    virtual uint8_t GetCandidateFields() const { return ALL_FIELDS; }

  protected:
    /** Called by DoSelectEgress to say why it chose (POLICY when it does not). */
    void SetReason(EgressReason r) { m_reason = r; }
    /** Called by a policy's constructor to receive the per-frame hooks. */
    void EnableFrameHooks() { m_frameHooks = true; }
    /** Called by a policy's constructor to receive FrameDeparting for every frame. */
    void EnableDepartureHook() { m_departureHook = true; }
    /**
     * Send a frame the policy generated (a control frame, FrameKind::LB_CONTROL) through the
     * switch as if it had arrived on `inPort` (buffer accounting is charged to that ingress).
     * Only from DoFrameArrived or an event of the policy's own, never from DoSelectEgress.
     * No-op without a switch (unit tests): returns false.
     */
    bool InjectFrame(uint16_t inPort, Ptr<Packet> packet, const FrameMeta& meta)
    {
        if (m_inject.IsNull())
        {
            return false;
        }
        m_inject(inPort, packet, meta);
        return true;
    }
    /** Whether the policy runs in a switch (InjectFrame and ReleaseHeld reach one). */
    bool HasSwitch() const { return !m_release.IsNull(); }
    /** Give a frame kept by DoHoldFrame back to the switch: it joins outPort's queue now. */
    void ReleaseHeld(uint16_t inPort, uint16_t outPort, Ptr<Packet> packet, const FrameMeta& meta)
    {
        if (!m_release.IsNull())
        {
            m_release(inPort, outPort, packet, meta);
        }
    }

  private:
    /** The policy: return an index in [0, count), count >= 2. */
    virtual uint32_t DoSelectEgress(const LbContext& ctx,
                                    const FrameMeta& frame,
                                    const EgressCandidate* candidates,
                                    uint32_t count) = 0;
    /** ProbeEgress's answer, count >= 2: true and `index` when the choice is a pure
     *  function of the arguments and the policy's configuration; the default, false. */
    virtual bool DoProbeEgress(const LbContext& ctx,
                               const FrameMeta& frame,
                               const EgressCandidate* candidates,
                               uint32_t count,
                               uint32_t& index) const
    {
        return false;
    }
    virtual void DoFrameArrived(const LbContext& ctx, FrameMeta& frame) {}
    virtual void DoFrameLeaving(const LbContext& ctx,
                                FrameMeta& frame,
                                const EgressCandidate& chosen)
    {
    }
    virtual void DoFrameDeparting(Time now, uint16_t port, double utilisation, FrameMeta& frame)
    {
    }

    virtual bool DoConsumeFrame(const LbContext& ctx, const FrameMeta& frame) { return false; }
    virtual bool DoHoldFrame(Time now, uint16_t inPort, uint16_t outPort, Ptr<Packet> packet,
                             FrameMeta& frame)
    {
        return false;
    }

    uint64_t m_decisions = 0;
    EgressReason m_reason = EgressReason::POLICY;
    std::unique_ptr<EgressDecisionLog> m_log; //!< EnableDecisionLog; null when off
    bool m_frameHooks = false;
    bool m_departureHook = false;
    InjectCallback m_inject;
    ReleaseCallback m_release;
};

} // namespace ns3

#endif
