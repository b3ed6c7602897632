// Counting helpers for tests of topology graphs (the builders and the htsim .topo importer).
#ifndef TUSK_TEST_TOPOLOGY_HELPERS_H
#define TUSK_TEST_TOPOLOGY_HELPERS_H

#include "fabric/helper/topology-builders.h"

#include <catch2/catch.hpp>

#include <cstdint>

namespace tusktest
{

/** Number of switch vertices of tier `tier` (1 ToR/leaf, 2 aggregation/spine, 3 core). */
inline uint32_t
CountTier(const ns3::TopologyGraph& g, uint8_t tier)
{
    uint32_t n = 0;
    for (const auto& v : g.vertices)
    {
        if (v.kind == ns3::TopoVertex::SWITCH && v.tier == tier)
        {
            ++n;
        }
    }
    return n;
}

/** Number of links joining vertex tiers lo and hi. */
inline uint32_t
CountLinksBetweenTiers(const ns3::TopologyGraph& g, uint8_t lo, uint8_t hi)
{
    uint32_t n = 0;
    for (const auto& l : g.links)
    {
        if (g.vertices[l.a].tier == lo && g.vertices[l.b].tier == hi)
        {
            ++n;
        }
    }
    return n;
}

/** Every link goes from a lower tier (a) to a higher tier (b). */
inline bool
LinksPointUp(const ns3::TopologyGraph& g)
{
    for (const auto& l : g.links)
    {
        if (g.vertices[l.a].tier >= g.vertices[l.b].tier)
        {
            return false;
        }
    }
    return true;
}

/** The switch vertex a host attaches to (its only link). */
inline uint32_t
TorOf(const ns3::TopologyGraph& g, uint32_t host)
{
    const auto ports = ns3::IncidentLinks(g);
    REQUIRE(ports[host].size() == 1);
    const auto& l = g.links[ports[host][0]];
    return l.a == host ? l.b : l.a;
}

} // namespace tusktest

#endif // TUSK_TEST_TOPOLOGY_HELPERS_H
