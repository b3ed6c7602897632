/*
 * tusk: in-network (SHARP-style) all-reduce as a schedule over ranks and aggregation endpoints.
 *
 * In-network reduction (Mellanox/NVIDIA SHARP: Graham et al., "Scalable Hierarchical
 * Aggregation Protocol (SHArP)", COMHPC 2016; NCCL's CollNet algorithms) reduces in the
 * switches: every rank sends its buffer once up the aggregation tree, each switch combines what
 * its children sent, and the root's result comes back down once. Each link of the tree
 * carries S once per direction, against 2(n-1)/n * S per host link for a ring.
 *
 * Model: each aggregating switch is an aggregation endpoint, a host-like vertex attached to the
 * switch by an internal link (SHARP's ALU is in the switch ASIC). In the schedule the n ranks
 * are 0 .. n-1 and the endpoints n .. n+A-1: one per distinct leaf of the ranks (in order of
 * first appearance), then, with more than one leaf, the root (spine) endpoint. S is cut into C
 * chunks (BlockBytes(S, C, c)) so that the levels pipeline; per chunk c:
 *   up:    rank r -> its leaf endpoint (no dependency: a rank posts all its chunks at once);
 *   leaf -> root, once every rank of the leaf delivered chunk c (recv-done at the leaf);
 *   root -> leaf, once every leaf delivered chunk c (recv-done at the root);
 *   down:  leaf -> rank, once the root's chunk c arrived (with one leaf: once every rank's
 *          chunk c arrived).
 * The dependencies follow the rule of collective-schedule.h (observable at the op's source).
 * Steps: 4 with more than one leaf, 2 with one.
 *
 * Closed form on an idle fabric (every rank at B; endpoint and fabric links fast enough not to
 * limit, which takes an endpoint link of k * B for an endpoint with k children): every host
 * link carries S up and S down, in parallel. An endpoint forwards a chunk once it has all of
 * it, so each op is a store-and-forward stage of one chunk z = S / C, and with k stages (4 with
 * a root, 2 without) T = S/B + (k - 1) z / B + the path's propagation and switch latencies,
 * against the ring's 2(n-1)/n * S / B + 2(n-1) hop latencies.
 *
 * In the fabric the endpoints are host vertices attached to their switches
 * (fabric/helper/in-network-endpoints.h, `[topology] in_network_reduction`); the algorithm is
 * registered as all-reduce "in-network" (collective-registry.cc) with CollectiveRequest::leafOf
 * the endpoint host of every rank, and AppendJob maps schedule ranks n .. n+A-1 to the hosts
 * InNetworkEndpointLeaves names.
 */
#ifndef TUSK_IN_NETWORK_SCHEDULE_H
#define TUSK_IN_NETWORK_SCHEDULE_H

#include "collective-schedule.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/** An in-network all-reduce: the schedule over ranks and endpoints, and what the endpoints are. */
struct InNetworkSchedule
{
    /** kind "all-reduce", algorithm "in-network"; ranks = n + A (the endpoints included), bytes
     *  = S, busbwFactor 2(n-1)/n as any all-reduce (nccl-tests). */
    CollectiveSchedule schedule;
    uint32_t members = 0; //!< n: schedule ranks 0 .. n-1 are the collective's ranks
    /** Endpoint n + a aggregates at leaf leaves[a] (the caller's leaf ids), or, for the last
     *  endpoint when there are several leaves, at the root: kRootEndpoint. */
    std::vector<uint32_t> endpointLeaf;
    static constexpr uint32_t kRootEndpoint = UINT32_MAX;
};

/**
 * \brief The endpoints of an in-network all-reduce over ranks on leaves `leafOf`: the distinct
 * leaves in order of first appearance, then, with more than one, InNetworkSchedule::kRootEndpoint
 * (InNetworkSchedule::endpointLeaf of InNetworkAllReduceSchedule).
 */
std::vector<uint32_t> InNetworkEndpointLeaves(const std::vector<uint32_t>& leafOf);

/**
 * \brief CollectiveRequest::leafOf of ranks on `hosts`: endpointOf[h] for each (the endpoint
 * host of host h's leaf, AggregationTree::leafEndpointOf); empty when a host has none
 * (UINT32_MAX or beyond endpointOf), which the in-network builder refuses.
 */
std::vector<uint32_t> InNetworkLeafOf(const std::vector<uint32_t>& hosts,
                                      const std::vector<uint32_t>& endpointOf);

/**
 * \brief The hosts of schedule ranks n .. n+A-1 of an in-network all-reduce whose leafOf are
 * endpoint host ids: InNetworkEndpointLeaves(leafOf) with the root as `rootHost`.
 * \throws InputError "collective.algorithm" if a root is needed and rootHost is UINT32_MAX
 */
std::vector<uint32_t> InNetworkEndpointHosts(const std::vector<uint32_t>& leafOf,
                                             uint32_t rootHost);

/**
 * \brief The in-network all-reduce of S bytes over n = leafOf.size() ranks, rank r attached to
 * leaf leafOf[r] (any ids), in `chunks` chunks (see the file comment).
 * \throws InputError "collective.ranks" (n < 2), "collective.chunks" (0), "collective.bytes"
 *         (S < chunks: a chunk would be empty)
 */
InNetworkSchedule InNetworkAllReduceSchedule(const std::vector<uint32_t>& leafOf,
                                             uint64_t bytes,
                                             uint32_t chunks);

} // namespace ns3

#endif
