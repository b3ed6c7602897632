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
 *   and CE = the uplink's quantised DRE, and carries one piggybacked feedback entry
 *   (FB_LBTag, FB_Metric) from this leaf's Congestion-From-Leaf table for the destination
 *   leaf, round-robin, entries that changed first.
 * - Every hop: CE = max(CE, quantised DRE of the egress port).
 * - Destination leaf: records CE in Congestion-From-Leaf[source leaf][LBTag], stores the
 *   piggybacked feedback in Congestion-To-Leaf[source leaf][FB_LBTag], and strips the
 *   overlay fields before the frame reaches the host.
 * DRE: the egress port's (SwitchPort DrePeriod, DreAlpha), quantised to QuantizationBits.
 * Remote metrics older than MetricAgeing count as 0 (CONGA ages them out). Switches that are
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

    struct RemoteMetric
    {
        uint64_t updatedPs = 0;
        uint8_t metric = 0;
        bool valid = false;
    };
    struct FromLeafRow
    {
        std::vector<uint8_t> metric;
        std::vector<uint8_t> changed;
        uint8_t next = 0; //!< round-robin pointer of the feedback
    };

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
};

} // namespace ns3

#endif
