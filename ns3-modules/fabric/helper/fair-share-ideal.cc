#include "fair-share-ideal.h"

#include <cmath>
#include <map>

namespace ns3
{

std::vector<LinkUse>
EqualSplitLinkShares(const TopologyGraph& graph,
                     const EqualCostTable& routes,
                     const std::vector<std::vector<uint32_t>>& ports,
                     uint32_t src,
                     uint32_t dst)
{
    std::map<uint32_t, double> share; // directed link -> fraction (ordered: deterministic)
    if (src == dst || ports[src].empty())
    {
        return {};
    }
    const auto directed = [&](uint32_t link, uint32_t from) {
        return 2 * link + (graph.links[link].a == from ? 0u : 1u);
    };
    // A host with several ports (one per plane of a multi-plane fabric) spreads its traffic
    // over them equally, as it does over a switch's equal-cost ports.
    std::map<uint32_t, double> frontier;
    const double perPort = 1.0 / static_cast<double>(ports[src].size());
    for (uint32_t hostLink : ports[src])
    {
        share[directed(hostLink, src)] += perPort;
        const TopoLink& first = graph.links[hostLink];
        frontier[first.a == src ? first.b : first.a] += perPort;
    }
    for (int hop = 0; hop < 64 && !frontier.empty(); ++hop)
    {
        std::map<uint32_t, double> next;
        for (const auto& [v, fraction] : frontier)
        {
            if (graph.vertices[v].kind != TopoVertex::SWITCH)
            {
                continue; // reached a host (dst: the routes lead nowhere else)
            }
            const PortSpan cands = routes.Ports(v - graph.numHosts, dst);
            if (cands.size() == 0)
            {
                continue;
            }
            const double each = fraction / static_cast<double>(cands.size());
            for (uint16_t p : cands)
            {
                const uint32_t li = ports[v][p];
                const TopoLink& l = graph.links[li];
                share[directed(li, v)] += each;
                next[l.a == v ? l.b : l.a] += each;
            }
        }
        frontier = std::move(next);
    }
    std::vector<LinkUse> out;
    out.reserve(share.size());
    for (const auto& [link, s] : share)
    {
        out.push_back(LinkUse{link, std::min(1.0, s)});
    }
    return out;
}

std::vector<uint64_t>
FairShareIdealPs(const TopologyGraph& graph,
                 const EqualCostTable& routes,
                 const std::vector<std::vector<uint32_t>>& ports,
                 const std::vector<FairShareTransfer>& transfers)
{
    std::vector<double> capacity(2 * graph.links.size());
    for (size_t l = 0; l < graph.links.size(); ++l)
    {
        capacity[2 * l] = capacity[2 * l + 1] = static_cast<double>(graph.links[l].rateBps);
    }
    std::map<int64_t, std::vector<uint32_t>> groups;
    std::vector<uint64_t> out(transfers.size(), 0);
    for (uint32_t t = 0; t < transfers.size(); ++t)
    {
        if (transfers[t].group >= 0)
        {
            out[t] = transfers[t].idealPs;
            if (transfers[t].onFabric)
            {
                groups[transfers[t].group].push_back(t);
            }
        }
    }
    std::map<std::pair<uint32_t, uint32_t>, std::vector<LinkUse>> cache;
    for (const auto& [g, members] : groups)
    {
        std::vector<std::vector<LinkUse>> uses;
        uses.reserve(members.size());
        for (uint32_t t : members)
        {
            const auto key = std::make_pair(transfers[t].src, transfers[t].dst);
            auto it = cache.find(key);
            if (it == cache.end())
            {
                it = cache.emplace(key, EqualSplitLinkShares(graph, routes, ports, key.first,
                                                             key.second)).first;
            }
            uses.push_back(it->second);
        }
        const std::vector<double> rate = MaxMinFairRates(uses, capacity);
        for (size_t i = 0; i < members.size(); ++i)
        {
            const FairShareTransfer& tr = transfers[members[i]];
            const double alone = AloneRate(uses[i], capacity);
            if (!std::isfinite(rate[i]) || !std::isfinite(alone))
            {
                continue;
            }
            const double bits = 8.0 * static_cast<double>(tr.wireBytes);
            const double extraPs = bits * (1.0 / rate[i] - 1.0 / alone) * 1e12;
            out[members[i]] = tr.idealPs + static_cast<uint64_t>(std::llround(std::max(0.0, extraPs)));
        }
    }
    return out;
}

} // namespace ns3
