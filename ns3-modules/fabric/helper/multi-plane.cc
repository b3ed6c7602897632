/*
 * tusk: multi-plane fabrics (multi-plane.h).
 */
#include "fabric/helper/multi-plane.h"

#include "fabric/model/frame-meta.h"
#include "fabric/model/input-error.h"

#include <algorithm>

namespace ns3
{

namespace
{
constexpr uint32_t kNoTor = ~0u; //!< DualHomeHosts: a vertex no host links to

/** Throw InputError (key `key`) unless every host of `one` has exactly one link; `what` says
 *  what was to be done with the fabric ("copy into planes"). */
void
RequireOneLinkPerHost(const TopologyGraph& one, const std::string& key, const char* what)
{
    const uint32_t hosts = one.numHosts;
    std::vector<uint32_t> hostLinks(hosts, 0);
    for (const auto& l : one.links)
    {
        if (l.a < hosts || l.b < hosts) // a host's link (a switch-to-switch link is skipped)
        {
            ++hostLinks[l.a < hosts ? l.a : l.b];
        }
    }
    for (uint32_t h = 0; h < hosts; ++h)
    {
        if (hostLinks[h] != 1)
        {
            throw InputError("", 0, key,
                             std::string("expected every host of a fabric to ") + what +
                                 " to have one link; host " + std::to_string(h) + " has " +
                                 std::to_string(hostLinks[h]));
        }
    }
}
} // namespace

TopologyGraph
ReplicatePlanes(const TopologyGraph& one, uint32_t planes, uint64_t hostRateBps,
                const std::string& key)
{
    if (planes == 0 || planes > kMaxPlanes)
    {
        throw InputError("", 0, key,
                         "expected 1 to " + std::to_string(kMaxPlanes) + " planes; got " +
                             std::to_string(planes));
    }
    if (planes == 1)
    {
        return one;
    }
    if (hostRateBps == 0)
    {
        throw InputError("", 0, key, "expected a positive per-plane host port rate; got 0");
    }
    const uint32_t hosts = one.numHosts;
    RequireOneLinkPerHost(one, key, "copy into planes");
    const uint32_t switches = one.NumSwitches();
    TopologyGraph g;
    g.numHosts = hosts;
    g.switchLatencyPs = one.switchLatencyPs;
    g.description = one.description + ", " + std::to_string(planes) + " planes";
    g.vertices.reserve(hosts + uint64_t{switches} * planes);
    g.vertices.insert(g.vertices.end(), one.vertices.begin(), one.vertices.begin() + hosts);
    for (uint32_t k = 0; k < planes; ++k)
    {
        for (uint32_t s = 0; s < switches; ++s)
        {
            TopoVertex v = one.vertices[hosts + s];
            v.name = "p" + std::to_string(k) + "." + v.name;
            v.plane = static_cast<uint8_t>(k);
            g.vertices.push_back(std::move(v));
        }
    }
    // A vertex of plane k: hosts stay, switch s moves to hosts + k * switches + (s - hosts).
    auto in = [&](uint32_t v, uint32_t k) { return v < hosts ? v : v + k * switches; };
    g.links.reserve(one.links.size() * planes);
    for (uint32_t k = 0; k < planes; ++k)
    {
        for (const auto& l : one.links)
        {
            TopoLink c = l;
            c.a = in(l.a, k);
            c.b = in(l.b, k);
            if (l.a < hosts || l.b < hosts)
            {
                c.rateBps = hostRateBps;
            }
            g.links.push_back(c);
        }
    }
    return g;
}

TopologyGraph
DualHomeHosts(const TopologyGraph& one, uint64_t hostRateBps, const std::string& key)
{
    if (hostRateBps == 0)
    {
        throw InputError("", 0, key, "expected a positive host port rate; got 0");
    }
    const uint32_t hosts = one.numHosts;
    RequireOneLinkPerHost(one, key, "make dual-ToR");
    std::vector<uint32_t> torRank(one.vertices.size(), kNoTor);
    for (const auto& l : one.links)
    {
        if (l.a < hosts || l.b < hosts)
        {
            torRank[l.a < hosts ? l.b : l.a] = 0; // a ToR (numbered below)
        }
    }
    std::vector<uint32_t> tors; // ToR vertices in vertex order
    for (uint32_t v = hosts; v < one.vertices.size(); ++v)
    {
        if (torRank[v] != kNoTor)
        {
            torRank[v] = static_cast<uint32_t>(tors.size());
            tors.push_back(v);
        }
    }
    if (tors.size() % 2 != 0)
    {
        throw InputError("", 0, key,
                         "expected an even number of ToRs (ToRs 2i and 2i+1 form a pair); got " +
                             std::to_string(tors.size()));
    }
    for (size_t i = 0; i < tors.size(); i += 2)
    {
        if (one.vertices[tors[i]].pod != one.vertices[tors[i + 1]].pod)
        {
            throw InputError("", 0, key,
                             "expected both ToRs of a pair in one pod; " +
                                 one.vertices[tors[i]].name + " and " +
                                 one.vertices[tors[i + 1]].name + " are not");
        }
    }
    TopologyGraph g = one;
    g.description = one.description + ", dual-ToR";
    g.links.clear();
    g.links.reserve(one.links.size() + hosts);
    for (const auto& l : one.links)
    {
        if (l.a >= hosts && l.b >= hosts)
        {
            g.links.push_back(l);
            continue;
        }
        const uint32_t h = l.a < hosts ? l.a : l.b;
        const uint32_t pair = torRank[l.a < hosts ? l.b : l.a] / 2;
        for (uint32_t side = 0; side < 2; ++side)
        {
            TopoLink c = l;
            c.a = h;
            c.b = tors[2 * pair + side];
            c.rateBps = hostRateBps;
            g.links.push_back(c);
        }
    }
    return g;
}

bool
DecodeHostPortPath(const TopologyGraph& g, const std::vector<std::vector<uint32_t>>& ports,
                   uint32_t src, uint32_t hostPort, uint64_t path, std::vector<uint32_t>& links)
{
    links.clear();
    if (path == kUnknownPath || src >= g.numHosts || hostPort >= ports[src].size())
    {
        return false;
    }
    uint32_t v = src;
    uint32_t li = ports[src][hostPort];
    for (int hop = 0; hop < 64; ++hop)
    {
        links.push_back(li);
        const TopoLink& l = g.links[li];
        v = l.a == v ? l.b : l.a;
        if (g.vertices[v].kind == TopoVertex::HOST)
        {
            return true;
        }
        const auto& out = ports[v];
        const uint8_t bits = PathHopBits(static_cast<uint32_t>(out.size()));
        const uint64_t port = bits == 0 ? 0 : path & ((uint64_t{1} << bits) - 1);
        path = bits == 0 ? path : (bits >= 64 ? 0 : path >> bits);
        if (port >= out.size())
        {
            return false;
        }
        li = out[port];
    }
    return false;
}

uint64_t
PlanePortRateBps(uint64_t hostRateBps, uint32_t planes, uint64_t planeRateBps)
{
    if (planeRateBps > 0)
    {
        return planeRateBps;
    }
    return std::max<uint64_t>(1, hostRateBps / std::max<uint32_t>(1, planes));
}

} // namespace ns3
