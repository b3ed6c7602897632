/*
 * tusk: LoadBalancer, the switch-side load-balancing seam (design.md, "Load balancing").
 */
#ifndef TUSK_LOAD_BALANCER_H
#define TUSK_LOAD_BALANCER_H

#include "frame-meta.h"

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

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
     * policy enabled the frame hooks.
     */
    void FrameDeparting(Time now, uint16_t port, double utilisation, FrameMeta& frame)
    {
        if (m_frameHooks)
        {
            DoFrameDeparting(now, port, utilisation, frame);
        }
    }
    bool HasFrameHooks() const { return m_frameHooks; }

    /** Decisions taken by the policy (count > 1). */
    uint64_t GetDecisions() const { return m_decisions; }

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
    /** Called by a policy's constructor to receive the per-frame hooks. */
    void EnableFrameHooks() { m_frameHooks = true; }

  private:
    /** The policy: return an index in [0, count), count >= 2. */
    virtual uint32_t DoSelectEgress(const LbContext& ctx,
                                    const FrameMeta& frame,
                                    const EgressCandidate* candidates,
                                    uint32_t count) = 0;
    virtual void DoFrameArrived(const LbContext& ctx, FrameMeta& frame) {}
    virtual void DoFrameLeaving(const LbContext& ctx,
                                FrameMeta& frame,
                                const EgressCandidate& chosen)
    {
    }
    virtual void DoFrameDeparting(Time now, uint16_t port, double utilisation, FrameMeta& frame)
    {
    }

    uint64_t m_decisions = 0;
    bool m_frameHooks = false;
};

} // namespace ns3

#endif
