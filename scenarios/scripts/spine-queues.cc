// A metric of one's own from trace sources (docs/scripting.md): the largest egress queue of
// each spine in every 20 µs window, from the QueueBytes trace source of the spines' ports, on a
// permutation under ECMP. The overall maximum per spine must equal the largest max_queue_bytes
// of that spine's links in the run's links table (the metrics sink reads the same trace).
//
// Usage: spine-queues
#include <tusk/api/scripting.h>

#include "ns3/simulator.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

int
main()
{
    const uint64_t windowPs = 20'000'000; // 20 µs
    try
    {
        tusk::Scenario s = tusk::Scenario::FromString(R"(
name = "spine-queues"
[topology]
kind = "leaf-spine"
leaves = 4
spines = 4
hosts_per_leaf = 4
host_link_gbps = 100
fabric_link_gbps = 100
[workload]
kind = "permutation"
bytes = "1MB"
)");
        // [trace]
        // maxQueue[spine name][window] = largest queue (bytes) of that spine's ports in it.
        std::map<std::string, std::map<uint64_t, uint64_t>> maxQueue;
        s.BeforeRun([&](ns3::Fabric& fabric, const auto&) {
            for (const ns3::FabricLink& link : fabric.links)
            {
                const ns3::TopoLink& l = fabric.graph.links[link.graphLink];
                for (auto [vertex, dev] : {std::pair{l.a, link.devA}, std::pair{l.b, link.devB}})
                {
                    const ns3::TopoVertex& v = fabric.graph.vertices[vertex];
                    if (v.kind != ns3::TopoVertex::SWITCH || v.tier != 2)
                    {
                        continue; // spines only
                    }
                    std::map<uint64_t, uint64_t>& series = maxQueue[v.name];
                    dev->TraceConnectWithoutContext(
                        "QueueBytes", ns3::Callback<void, uint64_t>([&series, windowPs](uint64_t bytes) {
                            uint64_t& m = series[ns3::Simulator::Now().GetPicoSeconds() / windowPs];
                            m = std::max(m, bytes);
                        }));
                }
            }
        });
        const tusk::RunResult r = s.Run();
        // [/trace]
        if (!r.failure.empty())
        {
            std::fprintf(stderr, "spine-queues: run failed: %s\n", r.failure.c_str());
            return 1;
        }

        uint64_t windows = 0;
        std::printf("%9s", "window_us");
        for (const auto& [spine, series] : maxQueue)
        {
            std::printf(" %10s", (spine + "_KB").c_str());
            windows = std::max(windows, series.empty() ? 0 : series.rbegin()->first + 1);
        }
        std::printf("\n");
        for (uint64_t w = 0; w < windows; ++w)
        {
            std::printf("%9llu", static_cast<unsigned long long>(w * windowPs / 1'000'000));
            for (const auto& [spine, series] : maxQueue)
            {
                const auto it = series.find(w);
                std::printf(" %10.1f", it == series.end() ? 0.0 : it->second / 1e3);
            }
            std::printf("\n");
        }

        // The metric agrees with the run's own links table.
        int mismatches = 0;
        for (const auto& [spine, series] : maxQueue)
        {
            uint64_t mine = 0, sink = 0;
            for (const auto& [w, m] : series)
            {
                mine = std::max(mine, m);
            }
            for (const tusk::LinkRow& l : r.links)
            {
                if (l.from == spine)
                {
                    sink = std::max(sink, l.maxQueueBytes);
                }
            }
            if (mine != sink)
            {
                std::fprintf(stderr, "spine-queues: %s: traced max %llu B, links table %llu B\n",
                             spine.c_str(), static_cast<unsigned long long>(mine),
                             static_cast<unsigned long long>(sink));
                ++mismatches;
            }
        }
        return mismatches == 0 && !maxQueue.empty() ? 0 : 1;
    }
    catch (const ns3::InputError& e)
    {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
}
