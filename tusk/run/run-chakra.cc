/*
 * tusk: workload.kind = "chakra": the trace set read and lowered (run-stages.h), and the
 * per-rank node timeline of a finished run (chakra_nodes.csv, chakra_ranks.csv).
 */
#include "run/run-stages.h"

#include "fabric/helper/in-network-endpoints.h"
#include "workload/model/chakra-workload.h"

#include <fmt/format.h>

namespace tusk
{

using namespace ns3;

void
AppendChakra(const ScenarioSpec& spec, const TopologyGraph& graph, WorkloadSpec& out)
{
    const auto& w = spec.workload;
    std::vector<ChakraRankTrace> ranks;
    for (const auto& f : ChakraTraceFiles(w.trace))
    {
        ranks.push_back(ReadChakraTrace(f));
    }
    ChakraWorkloadOptions o;
    o.hosts = w.hosts;
    if (o.hosts.empty())
    {
        if (ranks.size() > graph.NumRankHosts())
        {
            throw spec.KeyError("workload.trace",
                                fmt::format("the trace has {} ranks but the topology {} hosts",
                                            ranks.size(), graph.NumRankHosts()));
        }
        for (uint32_t r = 0; r < ranks.size(); ++r)
        {
            o.hosts.push_back(r);
        }
    }
    else if (o.hosts.size() != ranks.size())
    {
        throw spec.KeyError("workload.hosts",
                            fmt::format("the trace has {} ranks (files) but {} hosts are listed",
                                        ranks.size(), o.hosts.size()));
    }
    for (const auto& [name, members] : w.commGroups)
    {
        for (uint32_t m : members)
        {
            if (m >= ranks.size())
            {
                throw InputError(spec.FileOf("workload.comm_groups"), spec.LineOf("workload.comm_groups"),
                                 "workload.comm_groups." + name,
                                 fmt::format("rank {} is beyond the trace's {} ranks", m,
                                             ranks.size()));
            }
        }
    }
    o.commGroups = w.commGroups;
    o.algorithm = w.algorithm;
    o.exec.channels = w.channels;
    o.exec.priority = spec.nic.dataPriority;
    o.ranksPerServer = std::max<uint32_t>(spec.scaleUp.gpusPerServer, 1);
    o.linkGBps = FirstHostRateBps(graph) / 8e9;
    if (graph.aggregationEndpoints > 0)
    {
        const AggregationTree tree = AggregationTreeOf(graph);
        o.innetworkReduction = true;
        o.aggregationEndpointOf = tree.leafEndpointOf;
        o.aggregationRoot = tree.rootEndpoint;
    }
    else if (w.algorithm == "in-network")
    {
        throw spec.KeyError("workload.algorithm",
                            "\"in-network\" needs switches that aggregate: set [topology] "
                            "in_network_reduction = true (leaf-spine or fat-tree)");
    }
    WorkloadBuilder b(out);
    AppendChakraWorkload(b, out, ranks, o);
    out.description = fmt::format("Chakra trace {} ({} ranks)", w.trace, ranks.size());
}

std::vector<ChakraNodeRow>
CollectChakraNodes(const WorkloadExecutor& exec)
{
    std::vector<ChakraNodeRow> rows;
    for (const auto& n : exec.GetSpec().timeline)
    {
        ChakraNodeRow row;
        row.rank = n.rank;
        row.nodeId = n.nodeId;
        row.name = n.name;
        row.type = n.type;
        row.detail = n.detail;
        row.startPs = exec.GetTriggerFiredPs(n.startTrigger);
        row.endPs = exec.GetTriggerFiredPs(n.endTrigger);
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace tusk
