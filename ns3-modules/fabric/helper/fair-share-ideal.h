/*
 * tusk: the collective-aware ideal FCT (docs/analysis.md, "Collective-aware slowdown"): each
 * transfer of a collective step measured against its max-min fair share of that step's
 * traffic on the topology, in the fluid limit of equal-cost multipath routing.
 */
#ifndef TUSK_FAIR_SHARE_IDEAL_H
#define TUSK_FAIR_SHARE_IDEAL_H

#include "topology-builders.h"

#include "fabric/model/equal-cost-table.h"
#include "fabric/model/fair-share.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief The directed links a transfer from host `src` to host `dst` can use, and the fraction
 * of its bytes on each, in the fluid limit of equal-cost routing: the host's link carries all
 * of it, and at every switch the traffic splits equally over the equal-cost ports toward dst
 * (`routes`). Directed link index: 2 * graph link + 0 for the direction a -> b, + 1 for b -> a.
 * Empty if src == dst. O(links on the equal-cost paths x hops).
 *
 * \param ports IncidentLinks(graph)
 */
std::vector<LinkUse> EqualSplitLinkShares(const TopologyGraph& graph,
                                          const EqualCostTable& routes,
                                          const std::vector<std::vector<uint32_t>>& ports,
                                          uint32_t src,
                                          uint32_t dst);

/** One transfer as the collective-aware ideal sees it. */
struct FairShareTransfer
{
    uint32_t src = 0;
    uint32_t dst = 0;
    /** Transfers with the same group (>= 0) run concurrently and share the fabric (one
     *  collective step, or the transfers released at one instant). -1: not part of any group
     *  (no fair-share ideal). */
    int64_t group = -1;
    uint64_t wireBytes = 0; //!< bytes it puts on the wire (payload, headers, preamble and gap)
    uint64_t idealPs = 0;   //!< its idle-fabric ideal FCT (ideal-fct.h), ps
    bool onFabric = true;   //!< false: carried elsewhere (scale-up domain); its ideal is kept
};

/**
 * \brief Per transfer, its collective-aware ideal FCT in ps, 0 for a transfer with group -1.
 *
 * Within a group, the transfers on the fabric get max-min fair rates x_f (MaxMinFairRates) on
 * the directed links' capacities (line rate, bit/s) with EqualSplitLinkShares; alone, a
 * transfer would get a_f = AloneRate. Its ideal is its idle-fabric ideal with the wire bytes
 * serialised at the fair rate instead of the alone rate:
 *   fair_ideal = ideal + wire_bits x (1 / x_f - 1 / a_f), rounded to the picosecond,
 * which is at least `ideal` (x_f <= a_f) and equal to it for a transfer alone in its group.
 */
std::vector<uint64_t> FairShareIdealPs(const TopologyGraph& graph,
                                       const EqualCostTable& routes,
                                       const std::vector<std::vector<uint32_t>>& ports,
                                       const std::vector<FairShareTransfer>& transfers);

} // namespace ns3

#endif
