/*
 * tusk: in-network aggregation endpoints (SHARP-style switch reduction) as host vertices.
 *
 * A switch that reduces in the network (Mellanox/NVIDIA SHARP: Graham et al., "Scalable
 * Hierarchical Aggregation Protocol (SHArP)", COMHPC 2016; NCCL's CollNet) has an ALU in its
 * ASIC that combines what its children send. tusk models that ALU as an aggregation endpoint:
 * a host vertex ("agg.<switch name>", tier 0, the switch's pod) with an RDMA NIC, attached to
 * its switch by one internal link with no propagation delay. The link runs at the sum of the
 * rates of the switch's other links (the ASIC reduces at line rate on every port at once); each
 * stream the endpoint sends is paced at the slowest of those links (RdmaNic::QpRateCap,
 * AggregationQpRateBps), so no single stream overdrives one port. The reduction itself costs no
 * time beyond the store-and-forward of each chunk (an endpoint forwards a chunk once all of it
 * arrived; in-network-schedule.h).
 *
 * Which switches: every leaf (a switch with a host link) and the root of the aggregation tree,
 * the first switch of the highest tier (a spine, a core). Endpoints are hosts
 * [NumRankHosts(), numHosts) in that order (leaves in switch order, then the root), inserted
 * after the real hosts so that host ids of ranks do not change; switch vertex indices move up
 * by the number of endpoints.
 */
#ifndef TUSK_IN_NETWORK_ENDPOINTS_H
#define TUSK_IN_NETWORK_ENDPOINTS_H

#include "fabric/model/topology-graph.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/** The aggregation tree of a graph with endpoints: which endpoint serves each rank host. */
struct AggregationTree
{
    static constexpr uint32_t kNone = UINT32_MAX;
    /** Per rank host h < NumRankHosts(): the host id of its leaf's endpoint (kNone: none). */
    std::vector<uint32_t> leafEndpointOf;
    uint32_t rootEndpoint = kNone; //!< host id of the root endpoint; kNone without one
    /** Per endpoint e (index host - NumRankHosts()): the switch vertex it is attached to. */
    std::vector<uint32_t> switchOf;
};

/**
 * \brief Add an aggregation endpoint to every leaf of `g` and to its root (see the file
 * comment). Requires a graph without endpoints where every host has exactly one link to a
 * switch (one plane).
 * \throws InputError key "topology.in_network_reduction" if a host has several links (a
 *         multi-plane fabric) or the graph has no switch with a host link
 */
void AddAggregationEndpoints(TopologyGraph& g);

/** \brief The aggregation tree of `g` (every leafEndpointOf kNone when g has no endpoints). */
AggregationTree AggregationTreeOf(const TopologyGraph& g);

/**
 * \brief The rate each stream of endpoint host `e` is paced at: the slowest link of its
 * switch other than the endpoint's own, bit/s; 0 if `e` is not an endpoint.
 */
uint64_t AggregationQpRateBps(const TopologyGraph& g, uint32_t e);

} // namespace ns3

#endif
