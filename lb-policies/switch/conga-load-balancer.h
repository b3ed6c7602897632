/*
 * tusk: CONGA-style congestion-aware flowlet load balancing (Alizadeh et al., "CONGA:
 * Distributed Congestion-Aware Load Balancing for Datacenters", SIGCOMM 2014).
 */
#ifndef TUSK_CONGA_LOAD_BALANCER_H
#define TUSK_CONGA_LOAD_BALANCER_H

#include "flowlet-table.h"

#include "fabric/model/load-balancer.h"

#include "ns3/random-variable-stream.h"

#include <vector>

namespace ns3
{

/**
 * \brief CONGA's overlay header (Alizadeh et al., SIGCOMM 2014, section 3.2), carried in
 * FrameMeta's policy tag area (GetLbTag<CongaTag> / SetLbTag); every field zero = no tag.
 */
struct CongaTag
{
    static constexpr uint8_t kHasLbTag = 1;    //!< flags: lbTag (and ce) are set
    static constexpr uint8_t kHasFeedback = 2; //!< flags: fbTag and fbMetric are set

    uint8_t flags;    //!< kHasLbTag | kHasFeedback
    uint8_t lbTag;    //!< LBTag: the source leaf's uplink (port index) the frame took
    uint8_t ce;       //!< CE: largest quantised DRE congestion on the path so far
    uint8_t fbTag;    //!< FB_LBTag: uplink of the reverse direction this feedback is for
    uint8_t fbMetric; //!< FB_Metric: the congestion measured on that uplink's path

    bool HasLbTag() const { return flags & kHasLbTag; }
    bool HasFeedback() const { return flags & kHasFeedback; }
};

/**
 * \brief CONGA at the leaves, congestion marking everywhere.
 *
 * - Source leaf (a frame from a host to another leaf): a new flowlet (FlowletTable, gap
 *   FlowletGap) takes the uplink that minimises max(local DRE of the uplink, the remote
 *   metric the destination leaf fed back for that uplink); ties prefer the flowlet's previous
 *   uplink, then are broken uniformly at random. The frame is tagged with its uplink (LBTag)
 *   and carries one piggybacked feedback entry
 *   (FB_LBTag, FB_Metric) from this leaf's Congestion-From-Leaf table for the destination
 *   leaf, round-robin, entries that changed first.
 * - Every hop, the source leaf's uplink included: CE = max(CE, quantised DRE of the egress
 *   port) when the frame leaves the egress queue (DoFrameDeparting), not when it joins it.
 * - Destination leaf: records CE in Congestion-From-Leaf[source leaf][LBTag], stores the
 *   piggybacked feedback in Congestion-To-Leaf[source leaf][FB_LBTag], and strips the
 *   overlay fields before the frame reaches the host.
 * DRE: the egress port's (SwitchPort DrePeriod, DreAlpha), quantised to QuantizationBits.
 * Metrics age (MetricAgeing): a Congestion-To-Leaf entry not refreshed for that long counts
 * as 0, and a Congestion-From-Leaf entry whose CE was measured longer ago is no longer fed
 * back, so a path that the source stopped using is forgotten rather than kept congested
 * forever by re-sent old measurements (the From-Leaf ageing of the ConWeave artifact's CONGA;
 * the paper ages metrics so that stale congestion is not acted on). Switches that are
 * not a frame's source leaf and have several candidates (aggregation tiers of a 3-tier fat
 * tree) hash the flow, as CONGA's fabric does below the leaves.
 * State: the flowlet table (TableSize) and two tables of (leaves x uplinks) one-byte metrics,
 * grown on first sight of a leaf or port (bounded by the fabric's size). LBTags are port
 * indices below 255; larger ports are not tagged. The overlay fields travel in FrameMeta's
 * policy tag area as a CongaTag.
 */
class CongaLoadBalancer : public LoadBalancer
{
  public:
    static TypeId GetTypeId();
    /** Reads the candidates' DRE utilisation only. */
    uint8_t GetCandidateFields() const override { return UTILISATION; }
    CongaLoadBalancer();
    int64_t AssignStreams(int64_t stream) override;

    /** Quantise a DRE utilisation (0..1+) to a metric in [0, 2^QuantizationBits - 1]. */
    uint8_t Quantise(double utilisation) const;
    /** Congestion-To-Leaf metric for (leaf, uplink port) at `now` (0 if unknown or aged). */
    uint8_t GetRemoteMetric(uint32_t leaf, uint16_t port, Time now) const;
    /** Congestion-From-Leaf metric recorded for (source leaf, LBTag); 0 if none. */
    uint8_t GetFromLeafMetric(uint32_t leaf, uint8_t tag) const;
    /** Feedback entries piggybacked so far (frames that carried an FB_LBTag). */
    uint64_t GetFeedbackSent() const { return m_feedbackSent; }
    uint64_t GetFlowlets() const { return m_flowlets; }

  private:
    uint32_t DoSelectEgress(const LbContext& ctx,
                            const FrameMeta& frame,
                            const EgressCandidate* candidates,
                            uint32_t count) override;
    void DoFrameArrived(const LbContext& ctx, FrameMeta& frame) override;
    void DoFrameLeaving(const LbContext& ctx,
                        FrameMeta& frame,
                        const EgressCandidate& chosen) override;
    void DoFrameDeparting(Time now, uint16_t port, double utilisation, FrameMeta& frame) override;

    struct RemoteMetric
    {
        uint64_t updatedPs = 0;
        uint8_t metric = 0;
        bool valid = false;
    };
    /** One Congestion-From-Leaf entry: the CE last measured on a path into this leaf. */
    struct FromLeafEntry
    {
        uint64_t measuredPs = 0; //!< arrival of the frame that carried the CE
        uint8_t metric = 0;
        bool valid = false;   //!< measured at least once (tags of host ports never are)
        bool changed = false; //!< differs from what was last fed back
    };
    struct FromLeafRow
    {
        std::vector<FromLeafEntry> entries; //!< [LBTag]
        uint8_t next = 0;                   //!< round-robin pointer of the feedback
    };

    /** Is an entry measured at `measuredPs` still fresh at `nowPs` (within MetricAgeing)? */
    bool Fresh(uint64_t measuredPs, uint64_t nowPs) const
    {
        return nowPs - measuredPs <= static_cast<uint64_t>(m_ageing.GetPicoSeconds());
    }

    Time m_gap;
    uint32_t m_tableSize = 65536;
    uint32_t m_seed = 0;
    uint32_t m_bits = 3;
    Time m_ageing;
    FlowletTable m_table;
    std::vector<std::vector<RemoteMetric>> m_toLeaf; //!< [destination leaf][uplink port]
    std::vector<FromLeafRow> m_fromLeaf;             //!< [source leaf][LBTag]
    Ptr<UniformRandomVariable> m_rng;
    uint64_t m_flowlets = 0;
    uint64_t m_feedbackSent = 0;
};

} // namespace ns3

#endif
