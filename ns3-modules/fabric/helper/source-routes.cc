/*
 * tusk: source-routed paths (source-routes.h).
 */
#include "fabric/helper/source-routes.h"

#include "fabric/helper/multi-plane.h"
#include "fabric/helper/topology-builders.h"
#include "fabric/model/input-error.h"

#include <algorithm>
#include <limits>

namespace ns3
{

uint32_t
SourceRouteLayout::Routes() const
{
    uint64_t n = std::max<uint32_t>(1, planes);
    for (uint32_t r : radices)
    {
        n *= std::max<uint32_t>(1, r);
        if (n > std::numeric_limits<uint32_t>::max())
        {
            return std::numeric_limits<uint32_t>::max();
        }
    }
    return static_cast<uint32_t>(n);
}

std::string
SourceRouteLayout::RadixText() const
{
    std::string s;
    for (uint32_t r : radices)
    {
        s += (s.empty() ? "" : ",") + std::to_string(r);
    }
    return s;
}

std::vector<uint32_t>
RouteDivisors(const std::vector<uint32_t>& radices)
{
    std::vector<uint32_t> d{1};
    for (uint32_t r : radices)
    {
        const uint64_t next = uint64_t{d.back()} * std::max<uint32_t>(1, r);
        d.push_back(static_cast<uint32_t>(std::min<uint64_t>(next, kMaxRoutes)));
    }
    return d;
}

namespace
{

/** Walk route `route` from src to dst; `counts` gets each switch's candidate count. */
std::vector<uint32_t>
Walk(const TopologyGraph& g, const std::vector<std::vector<uint32_t>>& ports,
     const EqualCostTable& table, uint32_t planes, const std::vector<uint32_t>& divisors,
     uint32_t src, uint32_t dst, uint32_t route, std::vector<uint32_t>* counts)
{
    std::vector<uint32_t> links;
    if (src == dst || src >= g.numHosts || dst >= g.numHosts || ports[src].empty())
    {
        return links;
    }
    const uint32_t plane = PlaneOfEntropy(EntropyOfRoute(route), planes);
    uint32_t link = ports[src][std::min<size_t>(plane, ports[src].size() - 1)];
    uint32_t at = g.links[link].a == src ? g.links[link].b : g.links[link].a;
    links.push_back(link);
    for (uint32_t hop = 0; at >= g.numHosts; ++hop)
    {
        const PortSpan cand = table.Ports(at - g.numHosts, dst);
        if (cand.empty() || hop > 64)
        {
            return {};
        }
        if (counts)
        {
            counts->push_back(cand.size());
        }
        link = ports[at][cand[RouteChoice(route, planes, divisors, hop, cand.size())]];
        at = g.links[link].a == at ? g.links[link].b : g.links[link].a;
        links.push_back(link);
    }
    return at == dst ? links : std::vector<uint32_t>{};
}

} // namespace

SourceRouteLayout
SourceRouteLayoutOf(const TopologyGraph& g, const EqualCostTable& table)
{
    SourceRouteLayout layout;
    for (uint32_t v = g.numHosts; v < g.vertices.size(); ++v)
    {
        layout.planes = std::max<uint32_t>(layout.planes, g.vertices[v].plane + 1u);
    }
    const auto ports = IncidentLinks(g);
    // The route's first digit is the host port (the NIC sends on port entropy mod ports): one
    // per plane in a multi-plane fabric, two on a dual-ToR host, which reach the same spines;
    // the switch digits follow, so a path set sprays every port and every spine evenly.
    for (uint32_t h = 0; h < g.numHosts; ++h)
    {
        layout.planes = std::max<uint32_t>(layout.planes, static_cast<uint32_t>(ports[h].size()));
    }
    if (g.numHosts < 2)
    {
        return layout;
    }
    std::vector<uint32_t> longest;
    for (uint32_t dst = 1; dst < g.numHosts; ++dst)
    {
        std::vector<uint32_t> counts;
        Walk(g, ports, table, layout.planes, {1}, 0, dst, 0, &counts);
        if (counts.size() > longest.size())
        {
            longest = counts;
        }
    }
    while (!longest.empty() && longest.back() <= 1)
    {
        longest.pop_back();
    }
    layout.radices = longest;
    return layout;
}

std::vector<uint32_t>
RouteLinks(const TopologyGraph& g, const std::vector<std::vector<uint32_t>>& ports,
           const EqualCostTable& table, const SourceRouteLayout& layout, uint32_t src,
           uint32_t dst, uint32_t route)
{
    return Walk(g, ports, table, layout.planes, RouteDivisors(layout.radices), src, dst, route,
                nullptr);
}

std::map<std::string, std::string>
SourceRouteAttributes(const TopologyGraph& g, const std::string& key, uint32_t* routes)
{
    const SourceRouteLayout layout = SourceRouteLayoutOf(g, ComputeEqualCostPorts(g));
    if (layout.Routes() > kMaxRoutes)
    {
        throw InputError("", 0, key,
                         "source routing names a path in 14 bits of the UDP source port (" +
                             std::to_string(kMaxRoutes) + " routes); this fabric has " +
                             std::to_string(layout.Routes()) + " (" +
                             std::to_string(layout.planes) + " host ports x radices " +
                             layout.RadixText() + ")");
    }
    if (routes)
    {
        *routes = layout.Routes();
    }
    return {{"Planes", std::to_string(layout.planes)}, {"HopRadices", layout.RadixText()}};
}

} // namespace ns3
