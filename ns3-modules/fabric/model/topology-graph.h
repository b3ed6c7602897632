/*
 * tusk: a topology as a plain graph (no ns-3 objects), produced by the topology builders and
 * the htsim .topo importer and turned into nodes, ports and channels by FabricHelper.
 */
#ifndef TUSK_TOPOLOGY_GRAPH_H
#define TUSK_TOPOLOGY_GRAPH_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/** One vertex: a host (NIC) or a switch. */
struct TopoVertex
{
    enum Kind : uint8_t
    {
        HOST,
        SWITCH
    };

    Kind kind;
    /** Tier: 0 for hosts, 1 for ToR/leaf, 2 for aggregation/spine, 3 for core. */
    uint8_t tier;
    /** Pod index for fat trees (hosts, ToRs and aggregation switches), else 0. */
    uint32_t pod;
    /** Human-readable name, e.g. "host12", "tor3", "agg1.2", "spine0", "core5", "s1.leaf3". */
    std::string name;
    /** Switches only: this switch's buffer in bytes (ns3::SharedBufferMmu::BufferBytes);
     *  0 = the buffer every switch gets (the builder's default). A multi-site fabric's
     *  data-centre-interconnect switches carry deep buffers this way. */
    uint64_t bufferBytes = 0;
    /** Switches only: the plane of a multi-plane fabric this switch belongs to
     *  (ReplicatePlanes, fabric/helper/multi-plane.h); 0 in a single-plane fabric. */
    uint8_t plane = 0;
};

/** One full-duplex point-to-point link. */
struct TopoLink
{
    uint32_t a;         //!< vertex index of one end (the lower tier for tiered topologies)
    uint32_t b;         //!< vertex index of the other end
    uint64_t rateBps;   //!< line rate in bit/s, the same in both directions
    uint64_t delayPs;   //!< one-way propagation delay in picoseconds
    /** Routing only: forwarding tables send traffic over this link from a to b, never from b
     *  to a (frames still flow both ways, e.g. PFC frames and ACKs routed elsewhere). Used to
     *  build routes with a cyclic buffer dependency on purpose (BuildRing). */
    bool oneWay = false;
    /** A long-haul link between sites (BuildMultiSite): reported apart, and its ports may run
     *  lossy when PFC headroom cannot cover its bandwidth-delay product (FabricHelper). */
    bool longHaul = false;
};

/**
 * \brief A fabric as a graph. Hosts come first: vertex i is host i for i < numHosts, so a
 * host id is also its vertex index. Switches follow. The last `aggregationEndpoints` hosts
 * are not ranks but the in-network aggregation endpoints of switches that reduce
 * (AddAggregationEndpoints, fabric/helper/in-network-endpoints.h): workloads, placement and
 * per-host results enumerate hosts [0, NumRankHosts()).
 */
struct TopologyGraph
{
    std::string description;          //!< e.g. "leaf-spine 4x4, 16 hosts"
    std::vector<TopoVertex> vertices; //!< hosts [0, numHosts), then switches
    std::vector<TopoLink> links;
    uint32_t numHosts = 0;
    /** Per-switch forwarding latency in picoseconds, added to every switch hop. */
    uint64_t switchLatencyPs = 0;
    /** Hosts [numHosts - aggregationEndpoints, numHosts) are aggregation endpoints; 0 = none. */
    uint32_t aggregationEndpoints = 0;

    /** Hosts that can hold ranks and carry workload traffic (the endpoints excluded). */
    uint32_t NumRankHosts() const { return numHosts - aggregationEndpoints; }
    /** Whether vertex v is an aggregation endpoint. */
    bool IsAggregationEndpoint(uint32_t v) const { return v >= NumRankHosts() && v < numHosts; }

    uint32_t NumSwitches() const { return static_cast<uint32_t>(vertices.size()) - numHosts; }
};

} // namespace ns3

#endif
