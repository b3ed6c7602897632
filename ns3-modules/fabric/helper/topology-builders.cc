/*
 * tusk: topology builders (leaf-spine, k-ary fat tree) and the shortest-path computations
 * used to fill switch forwarding tables. Pure functions: no ns-3 Simulator, no ns-3 objects.
 */

#include "fabric/helper/topology-builders.h"

#include "fabric/helper/multi-plane.h"
#include "fabric/model/input-error.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace ns3
{

namespace
{

/**
 * Largest host count a builder accepts. Keeps every vertex index well inside uint32_t and
 * turns an absurd parameter (e.g. k = 60000) into an InputError rather than bad_alloc.
 */
constexpr uint64_t kMaxHosts = 1ULL << 24;

/**
 * Largest port count of one vertex: ComputeEqualCostPorts stores port indices as uint16_t.
 */
constexpr uint64_t kMaxPorts = std::numeric_limits<uint16_t>::max();

/** Sentinel for "not reached" in the breadth-first searches. */
constexpr uint32_t kUnreached = std::numeric_limits<uint32_t>::max();

/**
 * Throw the InputError every builder uses for a bad parameter, keyed by the parameter
 * ("LeafSpineParams.hostsPerLeaf"): a scenario layer names its own key for it.
 */
[[noreturn]] void
Fail(const std::string& param, const std::string& expected, const std::string& got)
{
    throw InputError("", 0, param, "expected " + expected + "; got " + got);
}

void
RequirePositive(const std::string& param, uint64_t value)
{
    if (value == 0)
    {
        Fail(param, "a positive value", "0");
    }
}

/** Append a vertex to g. */
void
AddVertex(TopologyGraph& g, TopoVertex::Kind kind, uint8_t tier, uint32_t pod, std::string name)
{
    TopoVertex v;
    v.kind = kind;
    v.tier = tier;
    v.pod = pod;
    v.name = std::move(name);
    g.vertices.push_back(std::move(v));
}

/** Append a link with a = lower-tier end, b = upper-tier end. */
void
AddLink(TopologyGraph& g, uint32_t lower, uint32_t upper, uint64_t rateBps, uint64_t delayPs)
{
    g.links.push_back(TopoLink{lower, upper, rateBps, delayPs});
}

/** The vertex at the other end of link l seen from v. */
inline uint32_t
Other(const TopoLink& l, uint32_t v)
{
    return l.a == v ? l.b : l.a;
}

/** Check that src is a valid host index of g. */
void
RequireHost(const TopologyGraph& g, uint32_t h, const char* which)
{
    if (h >= g.numHosts)
    {
        throw InputError("",
                         0,
                         "TopologyGraph.host",
                         std::string("expected a ") + which + " host index in [0, "
                             + std::to_string(g.numHosts) + "); got " + std::to_string(h));
    }
}

/** The one-plane fabric of `p` (its builder `build` with planes = 1) copied into p.planes
 *  planes (ReplicatePlanes), errors keyed `key`. */
template <class P>
TopologyGraph
BuildPlanes(const P& p, const std::string& key, TopologyGraph (*build)(const P&))
{
    RequirePositive(key, p.planes);
    P one = p;
    one.planes = 1;
    return ReplicatePlanes(build(one), p.planes,
                           PlanePortRateBps(p.hostRateBps, p.planes, p.planeRateBps), key);
}

/** The fabric of `p` (its builder `build` with dualTor off) with dual-ToR hosts
 *  (DualHomeHosts), errors keyed `key`; refused with planes > 1. */
template <class P>
TopologyGraph
BuildDualTor(const P& p, const std::string& key, TopologyGraph (*build)(const P&))
{
    if (p.planes != 1)
    {
        Fail(key, "planes = 1 with dual-ToR hosts (dual-ToR pairs ToRs in one fabric; "
                  "planes = 2 is the dual-plane layout)",
             "planes = " + std::to_string(p.planes));
    }
    P one = p;
    one.dualTor = false;
    return DualHomeHosts(build(one), PlanePortRateBps(p.hostRateBps, 2, p.planeRateBps), key);
}

} // namespace

TopologyGraph
BuildLeafSpine(const LeafSpineParams& p)
{
    if (p.dualTor)
    {
        if (p.leaves % 2 != 0)
        {
            Fail("LeafSpineParams.leaves",
                 "an even number of leaves with dual-ToR hosts (leaves 2i and 2i+1 form a pair)",
                 std::to_string(p.leaves));
        }
        return BuildDualTor(p, "LeafSpineParams.dualTor", &BuildLeafSpine);
    }
    if (p.planes != 1)
    {
        return BuildPlanes(p, "LeafSpineParams.planes", &BuildLeafSpine);
    }
    RequirePositive("LeafSpineParams.leaves", p.leaves);
    RequirePositive("LeafSpineParams.spines", p.spines);
    RequirePositive("LeafSpineParams.hostsPerLeaf", p.hostsPerLeaf);
    RequirePositive("LeafSpineParams.linksPerSpine", p.linksPerSpine);
    RequirePositive("LeafSpineParams.hostRateBps", p.hostRateBps);
    RequirePositive("LeafSpineParams.fabricRateBps", p.fabricRateBps);

    const uint64_t hosts = uint64_t{p.leaves} * p.hostsPerLeaf;
    if (hosts > kMaxHosts)
    {
        Fail("LeafSpineParams.hostsPerLeaf",
             "leaves * hostsPerLeaf <= " + std::to_string(kMaxHosts),
             std::to_string(p.leaves) + " * " + std::to_string(p.hostsPerLeaf) + " = "
                 + std::to_string(hosts));
    }
    // Ports of a leaf: hostsPerLeaf down, spines * linksPerSpine up.
    const uint64_t leafPorts = p.hostsPerLeaf + uint64_t{p.spines} * p.linksPerSpine;
    if (leafPorts > kMaxPorts)
    {
        Fail("LeafSpineParams.spines",
             "hostsPerLeaf + spines * linksPerSpine <= " + std::to_string(kMaxPorts)
                 + " ports per leaf",
             std::to_string(leafPorts));
    }
    // Ports of a spine: leaves * linksPerSpine.
    const uint64_t spinePorts = uint64_t{p.leaves} * p.linksPerSpine;
    if (spinePorts > kMaxPorts)
    {
        Fail("LeafSpineParams.leaves",
             "leaves * linksPerSpine <= " + std::to_string(kMaxPorts) + " ports per spine",
             std::to_string(spinePorts));
    }

    TopologyGraph g;
    g.numHosts = static_cast<uint32_t>(hosts);
    g.switchLatencyPs = p.switchLatencyPs;
    g.description = "leaf-spine " + std::to_string(p.leaves) + " leaves x "
                  + std::to_string(p.spines) + " spines (" + std::to_string(p.linksPerSpine)
                  + " links each), " + std::to_string(hosts) + " hosts";

    const uint32_t firstLeaf = g.numHosts;
    const uint32_t firstSpine = firstLeaf + p.leaves;
    g.vertices.reserve(hosts + p.leaves + p.spines);
    for (uint32_t h = 0; h < g.numHosts; ++h)
    {
        AddVertex(g, TopoVertex::HOST, 0, 0, "host" + std::to_string(h));
    }
    for (uint32_t l = 0; l < p.leaves; ++l)
    {
        AddVertex(g, TopoVertex::SWITCH, 1, 0, "leaf" + std::to_string(l));
    }
    for (uint32_t s = 0; s < p.spines; ++s)
    {
        AddVertex(g, TopoVertex::SWITCH, 2, 0, "spine" + std::to_string(s));
    }

    g.links.reserve(hosts + uint64_t{p.leaves} * p.spines * p.linksPerSpine);
    for (uint32_t h = 0; h < g.numHosts; ++h)
    {
        AddLink(g, h, firstLeaf + h / p.hostsPerLeaf, p.hostRateBps, p.linkDelayPs);
    }
    for (uint32_t l = 0; l < p.leaves; ++l)
    {
        for (uint32_t s = 0; s < p.spines; ++s)
        {
            for (uint32_t k = 0; k < p.linksPerSpine; ++k)
            {
                AddLink(g, firstLeaf + l, firstSpine + s, p.fabricRateBps, p.linkDelayPs);
            }
        }
    }
    return g;
}

TopologyGraph
BuildFatTree(const FatTreeParams& p)
{
    if (p.dualTor)
    {
        if (p.k % 4 != 0)
        {
            Fail("FatTreeParams.k",
                 "a multiple of 4 with dual-ToR hosts (a pod's k/2 ToRs form pairs)",
                 std::to_string(p.k));
        }
        return BuildDualTor(p, "FatTreeParams.dualTor", &BuildFatTree);
    }
    if (p.planes != 1)
    {
        return BuildPlanes(p, "FatTreeParams.planes", &BuildFatTree);
    }
    if (p.k < 2 || p.k % 2 != 0)
    {
        Fail("FatTreeParams.k", "an even integer >= 2", std::to_string(p.k));
    }
    RequirePositive("FatTreeParams.oversubscription", p.oversubscription);
    RequirePositive("FatTreeParams.hostRateBps", p.hostRateBps);
    RequirePositive("FatTreeParams.fabricRateBps", p.fabricRateBps);

    const uint64_t k = p.k;
    const uint64_t half = k / 2;
    // Al-Fares et al. 2008, section 3.3: k pods of k/2 edge (ToR) and k/2 aggregation
    // switches; (k/2)^2 core switches; each ToR has k/2 host ports (here times the
    // oversubscription) and k/2 uplinks, one to every aggregation switch of its pod.
    const uint64_t hostsPerTor = half * p.oversubscription;
    const uint64_t torPorts = hostsPerTor + half;
    if (torPorts > kMaxPorts)
    {
        Fail("FatTreeParams.oversubscription",
             "k/2 * (oversubscription + 1) <= " + std::to_string(kMaxPorts) + " ports per ToR",
             std::to_string(torPorts));
    }
    const uint64_t tors = k * half;
    const uint64_t hosts = tors * hostsPerTor;
    if (hosts > kMaxHosts)
    {
        Fail("FatTreeParams.k",
             "k^3/4 * oversubscription <= " + std::to_string(kMaxHosts) + " hosts",
             std::to_string(hosts));
    }
    const uint64_t aggs = k * half;
    const uint64_t cores = half * half;

    TopologyGraph g;
    g.numHosts = static_cast<uint32_t>(hosts);
    g.switchLatencyPs = p.switchLatencyPs;
    g.description = "fat tree k=" + std::to_string(k) + " (oversubscription "
                  + std::to_string(p.oversubscription) + ":1), " + std::to_string(hosts) + " hosts";

    const uint32_t firstTor = g.numHosts;
    const uint32_t firstAgg = firstTor + static_cast<uint32_t>(tors);
    const uint32_t firstCore = firstAgg + static_cast<uint32_t>(aggs);
    g.vertices.reserve(hosts + tors + aggs + cores);
    for (uint32_t h = 0; h < g.numHosts; ++h)
    {
        const uint32_t tor = static_cast<uint32_t>(h / hostsPerTor);
        AddVertex(
            g, TopoVertex::HOST, 0, static_cast<uint32_t>(tor / half), "host" + std::to_string(h));
    }
    for (uint32_t t = 0; t < tors; ++t)
    {
        AddVertex(
            g, TopoVertex::SWITCH, 1, static_cast<uint32_t>(t / half), "tor" + std::to_string(t));
    }
    for (uint32_t a = 0; a < aggs; ++a)
    {
        AddVertex(
            g, TopoVertex::SWITCH, 2, static_cast<uint32_t>(a / half), "agg" + std::to_string(a));
    }
    for (uint32_t c = 0; c < cores; ++c)
    {
        AddVertex(g, TopoVertex::SWITCH, 3, 0, "core" + std::to_string(c));
    }

    g.links.reserve(hosts + tors * half + aggs * half);
    for (uint32_t h = 0; h < g.numHosts; ++h)
    {
        AddLink(
            g, h, firstTor + static_cast<uint32_t>(h / hostsPerTor), p.hostRateBps, p.linkDelayPs);
    }
    // ToR t of pod q connects to every aggregation switch of pod q.
    for (uint32_t t = 0; t < tors; ++t)
    {
        const uint64_t pod = t / half;
        for (uint64_t j = 0; j < half; ++j)
        {
            AddLink(g,
                    firstTor + t,
                    firstAgg + static_cast<uint32_t>(pod * half + j),
                    p.fabricRateBps,
                    p.linkDelayPs);
        }
    }
    // Aggregation switch j of every pod connects to core switches j*(k/2) .. j*(k/2)+k/2-1
    // (Al-Fares et al. 2008, section 3.3: the core switches form a (k/2) x (k/2) grid and
    // core (j, i) has one port to aggregation switch j of each pod).
    for (uint32_t a = 0; a < aggs; ++a)
    {
        const uint64_t j = a % half;
        for (uint64_t i = 0; i < half; ++i)
        {
            AddLink(g,
                    firstAgg + a,
                    firstCore + static_cast<uint32_t>(j * half + i),
                    p.fabricRateBps,
                    p.linkDelayPs);
        }
    }
    return g;
}

TopologyGraph
BuildRailOptimised(const RailOptimisedParams& p)
{
    if (p.planes != 1)
    {
        return BuildPlanes(p, "RailOptimisedParams.planes", &BuildRailOptimised);
    }
    RequirePositive("RailOptimisedParams.servers", p.servers);
    RequirePositive("RailOptimisedParams.gpusPerServer", p.gpusPerServer);
    RequirePositive("RailOptimisedParams.spines", p.spines);
    RequirePositive("RailOptimisedParams.linksPerSpine", p.linksPerSpine);
    RequirePositive("RailOptimisedParams.hostRateBps", p.hostRateBps);
    RequirePositive("RailOptimisedParams.fabricRateBps", p.fabricRateBps);
    const uint32_t perGroup = p.serversPerGroup == 0 ? p.servers : p.serversPerGroup;
    if (p.servers % perGroup != 0)
    {
        Fail("RailOptimisedParams.serversPerGroup",
             "a divisor of servers (" + std::to_string(p.servers) + ")",
             std::to_string(perGroup));
    }
    const uint64_t hosts = uint64_t{p.servers} * p.gpusPerServer;
    if (hosts > kMaxHosts)
    {
        Fail("RailOptimisedParams.servers",
             "servers * gpusPerServer <= " + std::to_string(kMaxHosts), std::to_string(hosts));
    }
    const uint32_t groups = p.servers / perGroup;
    const uint64_t railPorts = perGroup + uint64_t{p.spines} * p.linksPerSpine;
    const uint64_t spinePorts = uint64_t{groups} * p.gpusPerServer * p.linksPerSpine;
    if (railPorts > kMaxPorts || spinePorts > kMaxPorts)
    {
        Fail("RailOptimisedParams.spines",
             "at most " + std::to_string(kMaxPorts) + " ports per switch",
             std::to_string(std::max(railPorts, spinePorts)));
    }
    const uint32_t G = p.gpusPerServer;
    TopologyGraph g;
    g.numHosts = static_cast<uint32_t>(hosts);
    g.switchLatencyPs = p.switchLatencyPs;
    g.description = "rail-optimised: " + std::to_string(p.servers) + " servers x " +
                    std::to_string(G) + " GPUs, " + std::to_string(groups) + " group(s) of " +
                    std::to_string(perGroup) + " servers, " + std::to_string(p.spines) +
                    " spines, " + std::to_string(hosts) + " hosts";
    const uint32_t firstRail = g.numHosts;
    const uint32_t rails = groups * G;
    const uint32_t firstSpine = firstRail + rails;
    g.vertices.reserve(hosts + rails + p.spines);
    for (uint32_t h = 0; h < g.numHosts; ++h)
    {
        AddVertex(g, TopoVertex::HOST, 0, (h / G) / perGroup, "host" + std::to_string(h));
    }
    for (uint32_t grp = 0; grp < groups; ++grp)
    {
        for (uint32_t i = 0; i < G; ++i)
        {
            AddVertex(g, TopoVertex::SWITCH, 1, grp,
                      "rail" + std::to_string(grp) + "." + std::to_string(i));
        }
    }
    for (uint32_t k = 0; k < p.spines; ++k)
    {
        AddVertex(g, TopoVertex::SWITCH, 2, 0, "spine" + std::to_string(k));
    }
    g.links.reserve(hosts + uint64_t{rails} * p.spines * p.linksPerSpine);
    for (uint32_t h = 0; h < g.numHosts; ++h)
    {
        const uint32_t server = h / G;
        AddLink(g, h, firstRail + (server / perGroup) * G + h % G, p.hostRateBps, p.linkDelayPs);
    }
    for (uint32_t r = 0; r < rails; ++r)
    {
        for (uint32_t k = 0; k < p.spines; ++k)
        {
            for (uint32_t l = 0; l < p.linksPerSpine; ++l)
            {
                AddLink(g, firstRail + r, firstSpine + k, p.fabricRateBps, p.linkDelayPs);
            }
        }
    }
    return g;
}

TopologyGraph
BuildPodClos(const PodClosParams& p)
{
    RequirePositive("PodClosParams.pods", p.pods);
    RequirePositive("PodClosParams.racksPerPod", p.racksPerPod);
    RequirePositive("PodClosParams.hostsPerRack", p.hostsPerRack);
    RequirePositive("PodClosParams.clusterSwitches", p.clusterSwitches);
    RequirePositive("PodClosParams.aggregationSwitches", p.aggregationSwitches);
    RequirePositive("PodClosParams.hostRateBps", p.hostRateBps);
    if (!(p.oversubscription >= 1.0) || !std::isfinite(p.oversubscription))
    {
        Fail("PodClosParams.oversubscription", "a ratio >= 1",
             std::to_string(p.oversubscription));
    }
    const uint64_t hostsPerPod = uint64_t{p.racksPerPod} * p.hostsPerRack;
    const uint64_t hosts = hostsPerPod * p.pods;
    if (hosts > kMaxHosts)
    {
        Fail("PodClosParams.pods",
             "pods * racksPerPod * hostsPerRack <= " + std::to_string(kMaxHosts),
             std::to_string(hosts));
    }
    const uint64_t cswPorts = uint64_t{p.racksPerPod} + p.aggregationSwitches;
    const uint64_t aggPorts = uint64_t{p.pods} * p.clusterSwitches;
    const uint64_t torPorts = uint64_t{p.hostsPerRack} + p.clusterSwitches;
    if (std::max({cswPorts, aggPorts, torPorts}) > kMaxPorts)
    {
        Fail("PodClosParams.racksPerPod",
             "at most " + std::to_string(kMaxPorts) + " ports per switch",
             std::to_string(std::max({cswPorts, aggPorts, torPorts})));
    }
    // Full bisection inside a pod: a ToR's uplinks carry what its hosts can send.
    const double torUp =
        static_cast<double>(p.hostsPerRack) * static_cast<double>(p.hostRateBps) / p.clusterSwitches;
    // Above the pods: the pod's host capacity divided by the oversubscription.
    const double podUp = static_cast<double>(hostsPerPod) * static_cast<double>(p.hostRateBps) /
                         p.oversubscription;
    const double aggLink = podUp / (double(p.clusterSwitches) * p.aggregationSwitches);
    const uint64_t torUpBps = static_cast<uint64_t>(std::llround(torUp));
    const uint64_t aggLinkBps = static_cast<uint64_t>(std::llround(aggLink));
    RequirePositive("PodClosParams.clusterSwitches", torUpBps);
    RequirePositive("PodClosParams.aggregationSwitches", aggLinkBps);

    const uint32_t tors = p.pods * p.racksPerPod;
    const uint32_t csws = p.pods * p.clusterSwitches;
    TopologyGraph g;
    g.numHosts = static_cast<uint32_t>(hosts);
    g.switchLatencyPs = p.switchLatencyPs;
    char ratio[32];
    std::snprintf(ratio, sizeof(ratio), "%g", p.oversubscription);
    g.description = "pod Clos: " + std::to_string(p.pods) + " pods x " +
                    std::to_string(p.racksPerPod) + " racks x " + std::to_string(p.hostsPerRack) +
                    " hosts = " + std::to_string(hosts) + " hosts, 1:" + ratio +
                    " above the pods";
    const uint32_t firstTor = g.numHosts;
    const uint32_t firstCsw = firstTor + tors;
    const uint32_t firstAgg = firstCsw + csws;
    g.vertices.reserve(hosts + tors + csws + p.aggregationSwitches);
    for (uint32_t h = 0; h < g.numHosts; ++h)
    {
        AddVertex(g, TopoVertex::HOST, 0, static_cast<uint32_t>(h / hostsPerPod),
                  "host" + std::to_string(h));
    }
    for (uint32_t t = 0; t < tors; ++t)
    {
        AddVertex(g, TopoVertex::SWITCH, 1, t / p.racksPerPod, "tor" + std::to_string(t));
    }
    for (uint32_t c = 0; c < csws; ++c)
    {
        AddVertex(g, TopoVertex::SWITCH, 2, c / p.clusterSwitches,
                  "csw" + std::to_string(c / p.clusterSwitches) + "." +
                      std::to_string(c % p.clusterSwitches));
    }
    for (uint32_t a = 0; a < p.aggregationSwitches; ++a)
    {
        AddVertex(g, TopoVertex::SWITCH, 3, 0, "agg" + std::to_string(a));
    }
    g.links.reserve(hosts + uint64_t{tors} * p.clusterSwitches +
                    uint64_t{csws} * p.aggregationSwitches);
    for (uint32_t h = 0; h < g.numHosts; ++h)
    {
        AddLink(g, h, firstTor + h / p.hostsPerRack, p.hostRateBps, p.linkDelayPs);
    }
    for (uint32_t t = 0; t < tors; ++t)
    {
        const uint32_t pod = t / p.racksPerPod;
        for (uint32_t j = 0; j < p.clusterSwitches; ++j)
        {
            AddLink(g, firstTor + t, firstCsw + pod * p.clusterSwitches + j, torUpBps,
                    p.linkDelayPs);
        }
    }
    for (uint32_t c = 0; c < csws; ++c)
    {
        for (uint32_t a = 0; a < p.aggregationSwitches; ++a)
        {
            AddLink(g, firstCsw + c, firstAgg + a, aggLinkBps, p.linkDelayPs);
        }
    }
    return g;
}

std::vector<std::vector<uint32_t>>
IncidentLinks(const TopologyGraph& g)
{
    const uint64_t n = g.vertices.size();
    if (g.numHosts > n)
    {
        throw InputError("",
                         0,
                         "TopologyGraph.numHosts",
                         "expected at most " + std::to_string(n) + " (the vertex count); got "
                             + std::to_string(g.numHosts));
    }
    std::vector<std::vector<uint32_t>> ports(n);
    for (uint32_t l = 0; l < g.links.size(); ++l)
    {
        const TopoLink& link = g.links[l];
        if (link.a >= n || link.b >= n)
        {
            throw InputError("",
                             0,
                             "TopologyGraph.links",
                             "expected link " + std::to_string(l) + " to join vertices in [0, "
                                 + std::to_string(n) + "); got " + std::to_string(link.a) + "-"
                                 + std::to_string(link.b));
        }
        ports[link.a].push_back(l);
        if (link.b != link.a)
        {
            ports[link.b].push_back(l);
        }
    }
    return ports;
}

EqualCostTable
ComputeEqualCostPorts(const TopologyGraph& g)
{
    return ComputeEqualCostPorts(g, std::vector<bool>(g.links.size(), true));
}

EqualCostTable
ComputeEqualCostPorts(const TopologyGraph& g, const std::vector<bool>& linkUp)
{
    const auto ports = IncidentLinks(g);
    const uint32_t n = static_cast<uint32_t>(g.vertices.size());
    const uint32_t hosts = g.numHosts;
    for (uint32_t s = hosts; s < n; ++s)
    {
        if (ports[s].size() > kMaxPorts + 1)
        {
            throw InputError("",
                             0,
                             "TopologyGraph.links",
                             "expected at most " + std::to_string(kMaxPorts + 1)
                                 + " ports on switch " + g.vertices[s].name + "; got "
                                 + std::to_string(ports[s].size()));
        }
    }

    // Destination groups: a host with one usable link to a switch e belongs to e's group.
    // Its minimum-hop distance from any vertex v != h is 1 + v's distance from e (hosts never
    // transit), so every switch but e has the same candidates towards all of e's hosts, and
    // e forwards on the host's port: one breadth-first search per group, not per host. Any
    // other host (several links, a down or one-way link, a host-to-host link) is a group of
    // its own, searched from the host as the definition says.
    EqualCostTable table;
    std::vector<uint32_t> groupOfEdge(n, kUnreached);
    std::vector<uint32_t> groupSource; // the vertex each group's search starts from
    std::vector<uint32_t> hostGroup(hosts);
    std::vector<uint32_t> hostEdge(hosts, EqualCostTable::kNoEdge);
    std::vector<uint16_t> hostPort(hosts, 0);
    for (uint32_t h = 0; h < hosts; ++h)
    {
        const auto& hp = ports[h];
        if (hp.size() == 1)
        {
            const TopoLink& l = g.links[hp[0]];
            const uint32_t e = Other(l, h);
            if (e >= hosts && linkUp[hp[0]] && (!l.oneWay || l.a == e))
            {
                if (groupOfEdge[e] == kUnreached)
                {
                    groupOfEdge[e] = static_cast<uint32_t>(groupSource.size());
                    groupSource.push_back(e);
                }
                hostGroup[h] = groupOfEdge[e];
                hostEdge[h] = e - hosts;
                // Its port at e: the position of the link in e's port list.
                const auto& ep = ports[e];
                hostPort[h] = static_cast<uint16_t>(
                    std::lower_bound(ep.begin(), ep.end(), hp[0]) - ep.begin());
                continue;
            }
        }
        hostGroup[h] = static_cast<uint32_t>(groupSource.size());
        groupSource.push_back(h);
    }
    const auto groups = static_cast<uint32_t>(groupSource.size());
    table.Reset(n - hosts, hosts, groups);
    for (uint32_t h = 0; h < hosts; ++h)
    {
        table.SetHost(h, hostGroup[h], hostEdge[h], hostPort[h]);
    }

    std::vector<uint32_t> dist(n);
    std::vector<uint32_t> queue;
    queue.reserve(n);
    std::vector<uint16_t> candidates;
    uint64_t work = 0;
    for (uint32_t grp = 0; grp < groups; ++grp)
    {
        // Breadth-first search from the group's source over the undirected graph. Hop counts
        // are symmetric, so dist[v] is the minimum hop count from v to the source. Only the
        // source and switches are expanded: hosts never transit.
        const uint32_t src = groupSource[grp];
        std::fill(dist.begin(), dist.end(), kUnreached);
        queue.clear();
        dist[src] = 0;
        queue.push_back(src);
        for (size_t head = 0; head < queue.size(); ++head)
        {
            const uint32_t v = queue[head];
            ++work;
            if (v != src && v < hosts)
            {
                continue;
            }
            for (uint32_t l : ports[v])
            {
                ++work;
                const uint32_t u = Other(g.links[l], v);
                if (!linkUp[l] || (g.links[l].oneWay && u != g.links[l].a))
                {
                    continue; // down, or traffic would flow u -> v against the link's direction
                }
                if (dist[u] == kUnreached)
                {
                    dist[u] = dist[v] + 1;
                    queue.push_back(u);
                }
            }
        }
        // A port of switch s is an equal-cost candidate when its far end is the destination
        // host itself or a switch one hop closer to it. For an edge group the destination is
        // one hop beyond the source, which shifts every distance by one: the same test.
        for (uint32_t s = hosts; s < n; ++s)
        {
            if (dist[s] == kUnreached || s == src)
            {
                continue; // unreachable; or the edge itself, which forwards on host ports
            }
            candidates.clear();
            const auto& sp = ports[s];
            for (size_t p = 0; p < sp.size(); ++p)
            {
                ++work;
                const uint32_t u = Other(g.links[sp[p]], s);
                if (!linkUp[sp[p]] || (g.links[sp[p]].oneWay && s != g.links[sp[p]].a))
                {
                    continue;
                }
                if ((u == src || u >= hosts) && dist[u] + 1 == dist[s])
                {
                    candidates.push_back(static_cast<uint16_t>(p));
                }
            }
            table.SetGroupPorts(s - hosts, grp, candidates);
        }
    }
    table.AddWork(work);
    return table;
}

uint64_t
CountShortestPaths(const TopologyGraph& g, uint32_t src, uint32_t dst)
{
    RequireHost(g, src, "source");
    RequireHost(g, dst, "destination");
    if (src == dst)
    {
        return 1; // the empty path
    }
    const auto ports = IncidentLinks(g);
    const uint32_t n = static_cast<uint32_t>(g.vertices.size());
    std::vector<uint32_t> dist(n, kUnreached);
    std::vector<uint64_t> count(n, 0);
    std::vector<uint32_t> queue;
    queue.reserve(n);
    dist[src] = 0;
    count[src] = 1;
    queue.push_back(src);
    // Breadth-first order finishes every vertex at distance d before any at d + 1, so
    // count[v] is final when v is expanded. Paths are link sequences: parallel links are
    // distinct paths. Counts saturate at UINT64_MAX.
    for (size_t head = 0; head < queue.size(); ++head)
    {
        const uint32_t v = queue[head];
        if (v != src && v < g.numHosts)
        {
            continue; // hosts never transit
        }
        for (uint32_t l : ports[v])
        {
            const uint32_t u = Other(g.links[l], v);
            if (g.links[l].oneWay && v != g.links[l].a)
            {
                continue; // routing direction a -> b only
            }
            if (dist[u] == kUnreached)
            {
                dist[u] = dist[v] + 1;
                queue.push_back(u);
            }
            if (dist[u] == dist[v] + 1)
            {
                const uint64_t sum = count[u] + count[v];
                count[u] = sum < count[u] ? std::numeric_limits<uint64_t>::max() : sum;
            }
        }
    }
    return count[dst];
}

TopologyGraph
BuildRing(const RingParams& p)
{
    if (p.switches < 3 || p.hostsPerSwitch < 1 || p.rateBps == 0)
    {
        throw InputError("", 0, "RingParams.switches",
                         "expected at least 3 switches, 1 host per switch and a rate > 0");
    }
    TopologyGraph g;
    g.numHosts = p.switches * p.hostsPerSwitch;
    g.switchLatencyPs = 0;
    g.description = "ring of " + std::to_string(p.switches) + " switches" +
                    (p.clockwiseRoutes ? ", clockwise routes" : "");
    for (uint32_t h = 0; h < g.numHosts; ++h)
    {
        g.vertices.push_back(TopoVertex{TopoVertex::HOST, 0, 0, "host" + std::to_string(h)});
    }
    for (uint32_t s = 0; s < p.switches; ++s)
    {
        g.vertices.push_back(TopoVertex{TopoVertex::SWITCH, 1, 0, "sw" + std::to_string(s)});
    }
    for (uint32_t h = 0; h < g.numHosts; ++h)
    {
        g.links.push_back(TopoLink{h, g.numHosts + h / p.hostsPerSwitch, p.rateBps, p.delayPs, false});
    }
    for (uint32_t s = 0; s < p.switches; ++s)
    {
        g.links.push_back(TopoLink{g.numHosts + s, g.numHosts + (s + 1) % p.switches, p.rateBps,
                                   p.delayPs, p.clockwiseRoutes});
    }
    return g;
}

} // namespace ns3
