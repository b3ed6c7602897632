/*
 * tusk: a workload whose host pairs the fabric cannot connect, refused at load time instead
 * of a run whose frames are all dropped (no_route) and that never finishes.
 */
#include "run/run-stages.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace tusk
{

using namespace ns3;

namespace
{

/** Ordered host pairs (from, to) without a route. */
using Pairs = std::set<std::pair<uint32_t, uint32_t>>;

/** Whether host `h` has a link that is up (any of its ports: a multi-port host). */
bool
HasWorkingLink(const Fabric& fabric, const std::vector<bool>& up, uint32_t h)
{
    return std::any_of(fabric.ports[h].begin(), fabric.ports[h].end(),
                       [&](uint32_t l) { return up[l]; });
}

/**
 * Whether frames from host `src` reach host `dst`: one of src's links is up and leads to a
 * switch whose table has a port towards dst (a multi-port host: any of its ports; in a
 * multi-plane fabric the tables of plane k lead to dst only while dst's port k is up). The
 * tables hold only ports on minimum-hop paths to dst, so a switch with an entry has the rest of
 * the way too.
 */
bool
HasRoute(const Fabric& fabric,
         const EqualCostTable& routes,
         const std::vector<bool>& up,
         uint32_t src,
         uint32_t dst)
{
    const TopologyGraph& g = fabric.graph;
    if (!HasWorkingLink(fabric, up, dst))
    {
        return false;
    }
    for (uint32_t li : fabric.ports[src])
    {
        if (!up[li])
        {
            continue;
        }
        const TopoLink& l = g.links[li];
        const uint32_t edge = l.a == src ? l.b : l.a;
        if (edge == dst || (edge >= g.numHosts && !routes.Ports(edge - g.numHosts, dst).empty()))
        {
            return true;
        }
    }
    return false;
}

/**
 * The ordered host pairs of `workload`'s transfers, either direction, without a route; not
 * the transfers inside one server of a scale-up domain of `gpusPerServer` (> 1), which go over
 * its own links (ns3::ScaleUpDomain::SameServer).
 */
Pairs
MissingRoutes(const Fabric& fabric,
              const EqualCostTable& routes,
              const std::vector<bool>& up,
              const WorkloadSpec& workload,
              uint32_t gpusPerServer)
{
    Pairs missing;
    const uint32_t hosts = fabric.graph.numHosts;
    for (const auto& t : workload.transfers)
    {
        if (t.src == t.dst || t.src >= hosts || t.dst >= hosts)
        {
            continue; // refused by BuildWorkload
        }
        if (gpusPerServer > 1 && t.src / gpusPerServer == t.dst / gpusPerServer)
        {
            continue; // over the scale-up domain
        }
        if (!HasRoute(fabric, routes, up, t.src, t.dst))
        {
            missing.insert({t.src, t.dst});
        }
        if (!HasRoute(fabric, routes, up, t.dst, t.src))
        {
            missing.insert({t.dst, t.src});
        }
    }
    return missing;
}

/** "3 ordered host pairs ...: host0 -> host5, ... and 1 more", with the hosts cut off. */
std::string
Describe(const Fabric& fabric, const std::vector<bool>& up, const Pairs& missing)
{
    constexpr size_t kListed = 5;
    const TopologyGraph& g = fabric.graph;
    std::string list;
    size_t n = 0;
    std::set<uint32_t> isolated; // hosts without a (working) link
    for (const auto& [a, b] : missing)
    {
        if (n++ < kListed)
        {
            list += (list.empty() ? "" : ", ") + g.vertices[a].name + " -> " + g.vertices[b].name;
        }
        for (uint32_t h : {a, b})
        {
            if (!HasWorkingLink(fabric, up, h))
            {
                isolated.insert(h);
            }
        }
    }
    if (missing.size() > kListed)
    {
        list += fmt::format(" and {} more", missing.size() - kListed);
    }
    std::string cut;
    for (uint32_t h : isolated)
    {
        cut += (cut.empty() ? "" : ", ") + g.vertices[h].name;
    }
    return fmt::format("{} ordered host pair{} that the workload sends between (data or ACKs) "
                       "{} no route: {}{}; their frames would be dropped (drops_no_route) and "
                       "the run could not finish",
                       missing.size(), missing.size() == 1 ? "" : "s",
                       missing.size() == 1 ? "has" : "have", list,
                       isolated.empty() ? "" : " (" + cut + " without a working link)");
}

} // namespace

void
CheckRoutes(const ScenarioSpec& spec, const WorkloadSpec& workload, const Fabric& fabric)
{
    const TopologyGraph& g = fabric.graph;
    std::vector<bool> up(g.links.size(), true);
    const uint32_t gpusPerServer = spec.scaleUp.gpusPerServer;
    Pairs missing = MissingRoutes(fabric, *fabric.routes, up, workload, gpusPerServer);
    if (!missing.empty())
    {
        const std::string key = spec.topology.file.empty() ? "topology.kind" : "topology.file";
        throw spec.KeyError(key,
                            "the topology is not connected: " + Describe(fabric, up, missing));
    }
    std::vector<size_t> entries;
    up = LinksUpFromStart(spec, g, entries);
    if (entries.empty())
    {
        return;
    }
    // The tables the run reconverges to once those failures have taken their links down.
    const EqualCostTable routes = ComputeEqualCostPorts(g, up);
    missing = MissingRoutes(fabric, routes, up, workload, gpusPerServer);
    if (!missing.empty())
    {
        const FailureEntry& f = spec.failures[entries.front()];
        throw InputError(spec.sourceFile, f.line, fmt::format("failures[{}]", entries.front()),
                         fmt::format("{} at 0 us for the whole run (no until_us, no later "
                                     "*_up){}: ",
                                     f.kind,
                                     entries.size() > 1
                                         ? fmt::format(", with {} more such failures",
                                                       entries.size() - 1)
                                         : "") +
                             Describe(fabric, up, missing));
    }
}

} // namespace tusk
