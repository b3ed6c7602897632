// The routes of a failing link and the frames sent on them: what the failover tests of
// source-routed policies check (source-route-test.cc: MRC-style, ethereal-test.cc: Ethereal).
#ifndef TUSK_TEST_DEAD_ROUTE_WATCH_H
#define TUSK_TEST_DEAD_ROUTE_WATCH_H

#include "fabric/helper/fabric-helper.h"
#include "fabric/helper/multi-plane.h"
#include "fabric/helper/source-routes.h"
#include "rdma/model/rdma-nic.h"
#include "scenario/scenario-spec.h"

#include "ns3/callback.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tusk_test
{

/** `link` ("p2.leaf1-p2.spine1") goes down at `atPs`. */
inline void
AddLinkDown(tusk::ScenarioSpec& s, const std::string& link, uint64_t atPs)
{
    tusk::FailureEntry f;
    f.kind = "link_down";
    f.link = link;
    f.atPs = atPs;
    s.failures.push_back(f);
}

/** What the senders did on the routes that cross the failed link. */
struct DeadRouteLog
{
    std::set<uint16_t> deadEntropies; //!< routes (as entropies) of the watched pairs over the link
    uint64_t lastDeadSendPs = 0;      //!< last data frame sent on one of them
    uint64_t deadFramesAfterFailure = 0;
};

/**
 * Before a run (RunOptions::beforeRun): find the routes from each `src` to its `dst` in
 * `pairs` that cross the link between switches `a` and `b`, and trace the data frames the
 * sources send on them (every plane port's Tx), counting those sent at or after `failAtPs`.
 */
inline void
WatchDeadRoutes(DeadRouteLog& log, ns3::Fabric& fab,
                const std::vector<ns3::Ptr<ns3::RdmaNic>>& nics,
                const std::vector<std::pair<uint32_t, uint32_t>>& pairs, const std::string& a,
                const std::string& b, uint64_t failAtPs)
{
    const auto ports = ns3::IncidentLinks(fab.graph);
    const auto table = ns3::ComputeEqualCostPorts(fab.graph);
    const auto layout = ns3::SourceRouteLayoutOf(fab.graph, table);
    uint32_t failed = UINT32_MAX;
    for (uint32_t i = 0; i < fab.graph.links.size(); ++i)
    {
        const auto& l = fab.graph.links[i];
        const std::string x = fab.graph.vertices[l.a].name;
        const std::string y = fab.graph.vertices[l.b].name;
        if ((x == a && y == b) || (x == b && y == a))
        {
            failed = i;
        }
    }
    std::set<uint32_t> sources;
    for (const auto& [src, dst] : pairs)
    {
        sources.insert(src);
        for (uint32_t r = 0; r < layout.Routes(); ++r)
        {
            const auto links = ns3::RouteLinks(fab.graph, ports, table, layout, src, dst, r);
            if (std::find(links.begin(), links.end(), failed) != links.end())
            {
                log.deadEntropies.insert(ns3::EntropyOfRoute(r));
            }
        }
    }
    using FrameCallback =
        ns3::Callback<void, ns3::Ptr<const ns3::Packet>, const ns3::FrameMeta&>;
    for (uint32_t src : sources)
    {
        for (uint32_t k = 0; k < nics[src]->GetNPlanes(); ++k)
        {
            nics[src]->GetPlanePort(k)->TraceConnectWithoutContext(
                "Tx", FrameCallback([&log, failAtPs](ns3::Ptr<const ns3::Packet>,
                                                     const ns3::FrameMeta& m) {
                    if (m.kind != ns3::FrameKind::DATA || !log.deadEntropies.count(m.srcPort))
                    {
                        return;
                    }
                    const uint64_t now = ns3::Simulator::Now().GetPicoSeconds();
                    log.lastDeadSendPs = std::max(log.lastDeadSendPs, now);
                    log.deadFramesAfterFailure += now >= failAtPs;
                }));
        }
    }
}

} // namespace tusk_test

#endif
