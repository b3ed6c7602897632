/*
 * tusk: in-network aggregation endpoints. See in-network-endpoints.h.
 */
#include "in-network-endpoints.h"

#include "fabric/model/input-error.h"

#include <algorithm>
#include <limits>
#include <string>

namespace ns3
{

namespace
{

const char* const kKey = "topology.in_network_reduction";

/** The other end of link l from v. */
uint32_t
Other(const TopoLink& l, uint32_t v)
{
    return l.a == v ? l.b : l.a;
}

} // namespace

void
AddAggregationEndpoints(TopologyGraph& g)
{
    if (g.aggregationEndpoints != 0)
    {
        throw InputError("", 0, kKey, "the topology already has aggregation endpoints");
    }
    const uint32_t hosts = g.numHosts;
    std::vector<uint32_t> linksOf(hosts, 0);
    std::vector<bool> isLeaf(g.vertices.size(), false);
    for (const auto& l : g.links)
    {
        for (uint32_t v : {l.a, l.b})
        {
            if (v < hosts)
            {
                ++linksOf[v];
                const uint32_t w = Other(l, v);
                if (w >= hosts)
                {
                    isLeaf[w] = true;
                }
            }
        }
    }
    for (uint32_t h = 0; h < hosts; ++h)
    {
        if (linksOf[h] != 1)
        {
            throw InputError("", 0, kKey,
                             "in-network reduction needs every host on one switch port; host " +
                                 std::to_string(h) + " has " + std::to_string(linksOf[h]) +
                                 " links (a multi-plane or dual-ToR fabric: set planes = 1 and "
                                 "dual_tor = false)");
        }
    }
    std::vector<uint32_t> at; // switch vertex of every endpoint, in endpoint order
    uint8_t top = 0;
    for (uint32_t v = hosts; v < g.vertices.size(); ++v)
    {
        if (isLeaf[v])
        {
            at.push_back(v);
        }
        top = std::max(top, g.vertices[v].tier);
    }
    if (at.empty())
    {
        throw InputError("", 0, kKey, "the topology has no switch with a host link to aggregate at");
    }
    for (uint32_t v = hosts; v < g.vertices.size(); ++v)
    {
        if (g.vertices[v].tier == top && !isLeaf[v])
        {
            at.push_back(v); // the root: the first switch of the highest tier
            break;
        }
    }
    const auto A = static_cast<uint32_t>(at.size());
    std::vector<uint64_t> aggregateBps(A, 0);
    for (uint32_t e = 0; e < A; ++e)
    {
        for (const auto& l : g.links)
        {
            if (l.a == at[e] || l.b == at[e])
            {
                aggregateBps[e] += l.rateBps;
            }
        }
    }
    for (auto& l : g.links)
    {
        l.a += l.a >= hosts ? A : 0;
        l.b += l.b >= hosts ? A : 0;
    }
    std::vector<TopoVertex> endpoints;
    for (uint32_t e = 0; e < A; ++e)
    {
        const TopoVertex& sw = g.vertices[at[e]];
        TopoVertex v{TopoVertex::HOST, 0, sw.pod, "agg." + sw.name};
        endpoints.push_back(v);
        g.links.push_back(TopoLink{hosts + e, at[e] + A, aggregateBps[e], 0, false, false});
    }
    g.vertices.insert(g.vertices.begin() + hosts, endpoints.begin(), endpoints.end());
    g.numHosts += A;
    g.aggregationEndpoints = A;
    g.description += ", " + std::to_string(A) + " aggregation endpoints";
}

AggregationTree
AggregationTreeOf(const TopologyGraph& g)
{
    AggregationTree t;
    const uint32_t ranks = g.NumRankHosts();
    t.leafEndpointOf.assign(ranks, AggregationTree::kNone);
    t.switchOf.assign(g.aggregationEndpoints, 0);
    std::vector<uint32_t> endpointAt(g.vertices.size(), AggregationTree::kNone);
    for (const auto& l : g.links)
    {
        for (uint32_t v : {l.a, l.b})
        {
            if (g.IsAggregationEndpoint(v))
            {
                const uint32_t sw = Other(l, v);
                t.switchOf[v - ranks] = sw;
                endpointAt[sw] = v;
                if (g.vertices[sw].tier > 1)
                {
                    t.rootEndpoint = v;
                }
            }
        }
    }
    for (const auto& l : g.links)
    {
        for (uint32_t v : {l.a, l.b})
        {
            if (v < ranks)
            {
                t.leafEndpointOf[v] = endpointAt[Other(l, v)];
            }
        }
    }
    return t;
}

uint64_t
AggregationQpRateBps(const TopologyGraph& g, uint32_t e)
{
    if (!g.IsAggregationEndpoint(e))
    {
        return 0;
    }
    uint32_t sw = AggregationTree::kNone;
    for (const auto& l : g.links)
    {
        if (l.a == e || l.b == e)
        {
            sw = Other(l, e);
        }
    }
    uint64_t slowest = std::numeric_limits<uint64_t>::max();
    for (const auto& l : g.links)
    {
        if ((l.a == sw || l.b == sw) && l.a != e && l.b != e)
        {
            slowest = std::min(slowest, l.rateBps);
        }
    }
    return slowest == std::numeric_limits<uint64_t>::max() ? 0 : slowest;
}

} // namespace ns3
