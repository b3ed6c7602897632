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

bool
ReverseRoute(const TopologyGraph& g, const std::vector<std::vector<uint32_t>>& ports,
             const EqualCostTable& table, const SourceRouteLayout& layout, uint32_t src,
             uint32_t dst, const std::vector<uint32_t>& links, uint32_t& route)
{
    if (links.empty() || src >= g.numHosts || dst >= g.numHosts || src == dst ||
        ports[dst].empty() || links.size() > 66)
    {
        return false;
    }
    // The vertices of the forward path: src, its switches, dst.
    std::vector<uint32_t> at{src};
    for (uint32_t li : links)
    {
        if (li >= g.links.size())
        {
            return false;
        }
        const TopoLink& l = g.links[li];
        const uint32_t v = at.back();
        if (l.a != v && l.b != v)
        {
            return false;
        }
        at.push_back(l.a == v ? l.b : l.a);
    }
    if (at.back() != dst)
    {
        return false;
    }
    const std::vector<uint32_t> back(links.rbegin(), links.rend());
    if (route < kMaxRoutes && RouteLinks(g, ports, table, layout, dst, src, route) == back)
    {
        return true; // the data frame's own route retraces it
    }
    // The port digit: dst's NIC sends on port (49152 + route) mod planes (its last one if it has
    // fewer), which must be the link the path ends on.
    const uint32_t planes = std::max<uint32_t>(1, layout.planes);
    uint32_t portDigit = planes;
    for (uint32_t p = 0; p < planes; ++p)
    {
        const uint32_t plane = PlaneOfEntropy(EntropyOfRoute(p), planes);
        if (ports[dst][std::min<size_t>(plane, ports[dst].size() - 1)] == links.back())
        {
            portDigit = p;
            break;
        }
    }
    if (portDigit == planes)
    {
        return false;
    }
    // Reverse hop h (0 = dst's switch) is forward vertex at[H - h], leaving by links[H - 1 - h]:
    // its candidate index and count towards src.
    const size_t hops = links.size() - 1;
    std::vector<uint32_t> index(hops);
    std::vector<uint32_t> count(hops);
    for (size_t h = 0; h < hops; ++h)
    {
        const uint32_t v = at[hops - h];
        const uint32_t want = links[hops - 1 - h];
        if (v < g.numHosts)
        {
            return false;
        }
        const PortSpan cand = table.Ports(v - g.numHosts, src);
        count[h] = cand.size();
        index[h] = count[h];
        for (uint32_t j = 0; j < cand.size(); ++j)
        {
            if (ports[v][cand[j]] == want)
            {
                index[h] = j;
                break;
            }
        }
        if (index[h] == count[h])
        {
            return false; // not a minimum-hop path towards src
        }
    }
    // Digits, from the last hop down: hop h < R reads (q / D[h]) mod count = (a_h + radix_h x
    // (q / D[h + 1])) mod count, a_h in [0, radix_h); hops from R on read the top value
    // q / D[R] (RouteChoice's last divisor).
    const std::vector<uint32_t>& radices = layout.radices;
    const size_t r = radices.size();
    uint64_t q = 0; // q / D[R], the smallest that every hop from R on reads right
    for (;; ++q)
    {
        if (q >= kMaxRoutes)
        {
            return false;
        }
        bool fits = true;
        for (size_t h = r; h < hops && fits; ++h)
        {
            fits = q % count[h] == index[h];
        }
        if (fits)
        {
            break;
        }
    }
    for (size_t h = std::min(r, hops); h-- > 0;)
    {
        const uint32_t radix = std::max<uint32_t>(1, radices[h]);
        uint32_t a = radix;
        for (uint32_t c = 0; c < radix; ++c)
        {
            if ((c + uint64_t{radix} * q) % count[h] == index[h])
            {
                a = c;
                break;
            }
        }
        if (a == radix)
        {
            return false;
        }
        q = a + uint64_t{radix} * q;
    }
    const uint64_t candidate = portDigit + uint64_t{planes} * q;
    if (candidate >= kMaxRoutes)
    {
        return false;
    }
    if (RouteLinks(g, ports, table, layout, dst, src, static_cast<uint32_t>(candidate)) != back)
    {
        return false;
    }
    route = static_cast<uint32_t>(candidate);
    return true;
}

SourceRouteReplies::SourceRouteReplies(TopologyGraph g, std::shared_ptr<const EqualCostTable> table)
    : m_graph(std::move(g)),
      m_table(std::move(table))
{
    if (!m_table)
    {
        m_table = std::make_shared<const EqualCostTable>(ComputeEqualCostPorts(m_graph));
    }
    m_ports = IncidentLinks(m_graph);
    m_layout = SourceRouteLayoutOf(m_graph, *m_table);
}

uint16_t
SourceRouteReplies::ReplyEntropy(uint32_t src, uint32_t dst, uint16_t entropy, uint64_t path) const
{
    if (src >= m_graph.numHosts || dst >= m_graph.numHosts || m_ports[src].empty())
    {
        return entropy;
    }
    const auto hostPorts = static_cast<uint32_t>(m_ports[src].size());
    if (!DecodeHostPortPath(m_graph, m_ports, src, PlaneOfEntropy(entropy, hostPorts), path,
                            m_links) ||
        m_links.empty())
    {
        m_links = RouteLinks(m_graph, m_ports, *m_table, m_layout, src, dst,
                             RouteOfEntropy(entropy));
    }
    uint32_t route = RouteOfEntropy(entropy);
    return ReverseRoute(m_graph, m_ports, *m_table, m_layout, src, dst, m_links, route)
               ? EntropyOfRoute(route)
               : entropy;
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
