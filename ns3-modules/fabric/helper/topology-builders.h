/*
 * tusk: topology builders. Pure functions (no ns-3 Simulator) that return a TopologyGraph,
 * plus the shortest-path equal-cost port computation used to fill switch forwarding tables.
 */
#ifndef TUSK_TOPOLOGY_BUILDERS_H
#define TUSK_TOPOLOGY_BUILDERS_H

#include "fabric/model/equal-cost-table.h"
#include "fabric/model/topology-graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Two-tier leaf-spine (folded Clos).
 *
 * Every leaf connects to every spine with `linksPerSpine` parallel links. Oversubscription at a
 * leaf is (hostsPerLeaf * hostRateBps) / (spines * linksPerSpine * fabricRateBps).
 */
struct LeafSpineParams
{
    uint32_t leaves = 4;
    uint32_t spines = 4;
    uint32_t hostsPerLeaf = 4;
    uint32_t linksPerSpine = 1;
    uint64_t hostRateBps = 400'000'000'000ULL;   //!< host-leaf link rate, bit/s
    uint64_t fabricRateBps = 400'000'000'000ULL; //!< leaf-spine link rate, bit/s
    uint64_t linkDelayPs = 1'000'000;            //!< one-way propagation delay per link, ps
    uint64_t switchLatencyPs = 0;                //!< per-switch forwarding latency, ps
    /** Planes (ReplicatePlanes, multi-plane.h): each host gets one port per plane. 1 = one
     *  fabric, today's names. */
    uint32_t planes = 1;
    /** Rate of each host port when planes > 1 or dualTor, bit/s; 0 = hostRateBps / planes
     *  (dualTor: hostRateBps / 2). */
    uint64_t planeRateBps = 0;
    /** Dual-ToR hosts (DualHomeHosts, multi-plane.h): leaves 2i and 2i+1 form a ToR pair and
     *  every host links to both ToRs of its pair (port 0 to the even one), one fabric. Needs
     *  an even number of leaves and planes = 1. */
    bool dualTor = false;
    /** In-network reduction ([topology] in_network_reduction): the scenario's builder adds an
     *  aggregation endpoint to every leaf and the root (AddAggregationEndpoints,
     *  in-network-endpoints.h); the builder here ignores it. */
    bool inNetworkReduction = false;
};

/**
 * Vertices: hosts, leaves ("leaf<i>", tier 1), spines ("spine<j>", tier 2); host h on leaf
 * h / hostsPerLeaf. Links: host links in host order, then for each leaf, each spine, the
 * linksPerSpine parallel links. With planes > 1, that fabric copied into planes
 * (ReplicatePlanes: "p<k>.leaf<i>", host port k in plane k). With dualTor, host h links to
 * leaves 2i and 2i+1, i = h / hostsPerLeaf / 2 (DualHomeHosts: each host link becomes two, at
 * planeRateBps or hostRateBps / 2).
 *
 * \throws InputError (file "", key "LeafSpineParams.<field>") on zero counts or rates, or
 * more than 2^24 hosts or 65535 ports on a switch; with dualTor, key "LeafSpineParams.leaves"
 * for an odd number of leaves and "LeafSpineParams.dualTor" with planes > 1.
 */
TopologyGraph BuildLeafSpine(const LeafSpineParams& p);

/**
 * \brief Three-tier k-ary fat tree (Al-Fares et al., SIGCOMM 2008), optionally oversubscribed
 * at the ToR: k pods, each with k/2 ToRs and k/2 aggregation switches; (k/2)^2 core switches;
 * each ToR has k/2 uplinks and k/2 * oversubscription hosts. k must be even and >= 2.
 * Hosts: k^3/4 * oversubscription.
 */
struct FatTreeParams
{
    uint32_t k = 4;
    uint32_t oversubscription = 1;            //!< hosts per ToR = k/2 * oversubscription
    uint64_t hostRateBps = 100'000'000'000ULL;   //!< host-ToR links, bit/s
    uint64_t fabricRateBps = 100'000'000'000ULL; //!< ToR-agg and agg-core links, bit/s
    uint64_t linkDelayPs = 1'000'000;
    uint64_t switchLatencyPs = 0;
    uint32_t planes = 1;       //!< as LeafSpineParams::planes
    uint64_t planeRateBps = 0; //!< as LeafSpineParams::planeRateBps
    bool inNetworkReduction = false; //!< as LeafSpineParams::inNetworkReduction
    /** As LeafSpineParams::dualTor: ToRs 2i and 2i+1 of a pod form a pair (k a multiple of 4,
     *  so a pod's k/2 ToRs pair up). */
    bool dualTor = false;
};

/**
 * Vertices: hosts (pod = h / (k^2/4 * oversubscription)), ToRs "tor<i>" (tier 1), aggregation
 * "agg<i>" (tier 2), core "core<i>" (tier 3). ToR t connects to every aggregation switch of
 * its pod; aggregation switch j of each pod connects to cores j*(k/2) .. j*(k/2)+k/2-1
 * (Al-Fares et al. 2008, sec. 3.3). With planes > 1, that fabric copied into planes
 * (ReplicatePlanes: "p<k>.tor<i>", host port k in plane k). With dualTor, every host links
 * to ToRs 2i and 2i+1 of its pod (DualHomeHosts).
 *
 * \throws InputError (file "", key "FatTreeParams.<field>") on odd or zero k, zero
 * oversubscription or rates, or more than 2^24 hosts; with dualTor, key "FatTreeParams.k" if
 * k is not a multiple of 4 and "FatTreeParams.dualTor" with planes > 1.
 */
TopologyGraph BuildFatTree(const FatTreeParams& p);

/**
 * \brief A ring of switches ("sw0".."swN-1"), each with hostsPerSwitch hosts; switch i links to
 * switch i+1 (mod N). With clockwiseRoutes, traffic between switches is routed only in the
 * direction i -> i+1 (TopoLink::oneWay), so routes form a cyclic buffer dependency: the
 * textbook PFC deadlock (Hu et al., "Deadlocks in Datacenter Networks", HotNets 2016).
 */
struct RingParams
{
    uint32_t switches = 4;
    uint32_t hostsPerSwitch = 1;
    uint64_t rateBps = 100'000'000'000ULL; //!< every link, bit/s
    uint64_t delayPs = 1'000'000;          //!< every link, ps
    bool clockwiseRoutes = true;
};

/** \throws InputError (key "RingParams.switches") for fewer than 3 switches, no hosts or a zero
 *  rate. */
TopologyGraph BuildRing(const RingParams& p);

/**
 * \brief Rail-optimised GPU fabric (as NVIDIA's DGX SuperPOD and Meta's and Alibaba's
 * training clusters wire it): servers of gpusPerServer GPUs, one NIC per GPU; servers form
 * groups of serversPerGroup ("scalable units"); in each group, GPU i of every server connects
 * to the group's rail switch i; every rail switch connects to every spine with linksPerSpine
 * parallel links. Traffic between GPUs with the same local index in one group crosses one
 * switch; everything else goes rail -> spine -> rail. The NVLink-like domain inside a server is
 * not part of the graph (workload module, ScaleUpDomain): hosts have one link, to their rail.
 */
struct RailOptimisedParams
{
    uint32_t servers = 8;
    uint32_t gpusPerServer = 8;   //!< GPUs (NICs, rails) per server
    uint32_t serversPerGroup = 0; //!< servers under one set of rail switches; 0 = all
    uint32_t spines = 4;          //!< spine switches, >= 1
    uint32_t linksPerSpine = 1;   //!< parallel links from each rail switch to each spine
    uint64_t hostRateBps = 400'000'000'000ULL;   //!< GPU NIC - rail switch links, bit/s
    uint64_t fabricRateBps = 400'000'000'000ULL; //!< rail - spine links, bit/s
    uint64_t linkDelayPs = 1'000'000;            //!< one-way propagation delay per link, ps
    uint64_t switchLatencyPs = 0;                //!< per-switch forwarding latency, ps
    uint32_t planes = 1;       //!< as LeafSpineParams::planes (each GPU NIC split into planes)
    uint64_t planeRateBps = 0; //!< as LeafSpineParams::planeRateBps
};

/**
 * Vertices: hosts numbered server by server (host = server * gpusPerServer + gpu; pod = its
 * group), rail switches "rail<g>.<i>" (tier 1, pod g) group by group, spines "spine<k>"
 * (tier 2). Links: host links in host order, then for each rail switch, each spine, the
 * parallel links. With planes > 1, that fabric copied into planes (ReplicatePlanes:
 * "p<k>.rail<g>.<i>", "p<k>.spine<j>", GPU NIC port k in plane k).
 *
 * \throws InputError (file "", key "RailOptimisedParams.<field>") on zero counts or rates,
 * servers not a multiple of serversPerGroup, more than 2^24 hosts or 65535 ports on a switch.
 */
TopologyGraph BuildRailOptimised(const RailOptimisedParams& p);

/**
 * \brief A three-tier pod Clos in the shape of Meta's 24K-GPU Llama 3 cluster (Llama 3 paper,
 * "The Llama 3 Herd of Models", 2024, sec. 3.3.1): racks of hostsPerRack GPUs under one ToR;
 * racksPerPod racks joined by clusterSwitches cluster switches with full bisection bandwidth
 * (each ToR has one uplink to every cluster switch, at hostsPerRack * hostRate /
 * clusterSwitches); pods joined by aggregationSwitches aggregation switches at
 * `oversubscription`:1 (each cluster switch has one uplink to every aggregation switch, at
 * racksPerPod * hostsPerRack * hostRate / (oversubscription * clusterSwitches *
 * aggregationSwitches), rounded to the bit/s). Llama 3: 8 pods x 192 racks x 16 GPUs =
 * 24,576 GPUs, 1:7 above the pods, so 400 / 7 = 57.1 Gb/s per GPU leaves a pod.
 */
struct PodClosParams
{
    uint32_t pods = 8;
    uint32_t racksPerPod = 192;
    uint32_t hostsPerRack = 16;
    uint32_t clusterSwitches = 16;     //!< tier-2 switches per pod
    uint32_t aggregationSwitches = 16; //!< tier-3 switches
    double oversubscription = 7.0;     //!< pod downlink capacity / pod uplink capacity, >= 1
    uint64_t hostRateBps = 400'000'000'000ULL;
    uint64_t linkDelayPs = 1'000'000;
    uint64_t switchLatencyPs = 0;
    uint32_t planes = 1;       //!< as LeafSpineParams::planes
    uint64_t planeRateBps = 0; //!< as LeafSpineParams::planeRateBps
};

/**
 * Vertices: hosts (pod = h / (racksPerPod * hostsPerRack)), ToRs "tor<i>" (tier 1), cluster
 * switches "csw<p>.<j>" (tier 2), aggregation switches "agg<k>" (tier 3, pod 0).
 * \throws InputError (file "", key "PodClosParams.<field>") on zero counts or rates,
 * oversubscription < 1, more than 2^24 hosts or 65535 ports on a switch.
 */
TopologyGraph BuildPodClos(const PodClosParams& p);

/**
 * \brief The ports of every vertex: ports[v] lists the indices into graph.links of the links
 * incident on v, in increasing link index. Port p of vertex v is the link ports[v][p].
 * A link from a vertex to itself is listed once.
 *
 * \throws InputError (file "", key "TopologyGraph.links" or "TopologyGraph.numHosts") if a
 * link names a vertex that does not exist or numHosts exceeds the vertex count.
 */
std::vector<std::vector<uint32_t>> IncidentLinks(const TopologyGraph& g);

/**
 * \brief Equal-cost forwarding: table[s - numHosts][h] = the ports of switch s (indices into
 * IncidentLinks(g)[s]), in increasing order, that lie on a minimum-hop path from s to host h.
 * Hosts never forward. Empty when h is unreachable. Cost: one breadth-first search per
 * destination group (the switch that hosts hang off, EqualCostTable), O(groups * (V + E)):
 * linear in the fabric for a one-switch star, 512 searches for htsim's 8,192-host fat tree.
 * \throws InputError (file "", key "TopologyGraph.links") if a switch has more than 65536
 * ports or a link names a vertex that does not exist.
 */
EqualCostTable ComputeEqualCostPorts(const TopologyGraph& g);

/**
 * \brief ComputeEqualCostPorts over the links marked up in `linkUp` (one flag per graph link),
 * keeping the port numbering of the full graph: what routing converges to after failures.
 */
EqualCostTable ComputeEqualCostPorts(const TopologyGraph& g, const std::vector<bool>& linkUp);

/**
 * Number of distinct minimum-hop paths from host src to host dst (0 if unreachable).
 *
 * A path is a sequence of links, so parallel links give distinct paths (leaf-spine with S
 * spines and P links per leaf-spine pair: S * P * P between hosts on different leaves).
 * Hosts other than src and dst never transit. src == dst gives 1 (the empty path).
 * Saturates at UINT64_MAX.
 *
 * \throws InputError (file "", key "TopologyGraph.host") if src or dst is not a host index.
 */
uint64_t CountShortestPaths(const TopologyGraph& g, uint32_t src, uint32_t dst);

} // namespace ns3

#endif
