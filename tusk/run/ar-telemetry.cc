/*
 * tusk: ar.csv's rows from the switches' load-balancer decision logs (ar-telemetry.h).
 */
#include "run/ar-telemetry.h"

#include "fabric/helper/fabric-helper.h"
#include "fabric/model/egress-decision-log.h"

namespace tusk
{

using namespace ns3;

void
EnableArTelemetry(const Fabric& fabric)
{
    for (const auto& sw : fabric.switches)
    {
        if (sw && sw->GetLoadBalancer())
        {
            sw->GetLoadBalancer()->EnableDecisionLog(sw->GetNPorts());
        }
    }
}

std::vector<ArTelemetryRow>
CollectArTelemetry(const Fabric& fabric)
{
    std::vector<ArTelemetryRow> rows;
    const auto& g = fabric.graph;
    for (uint32_t s = 0; s < fabric.switches.size(); ++s)
    {
        const auto& sw = fabric.switches[s];
        const EgressDecisionLog* log =
            sw && sw->GetLoadBalancer() ? sw->GetLoadBalancer()->GetDecisionLog() : nullptr;
        if (log == nullptr)
        {
            continue;
        }
        const uint32_t v = g.numHosts + s;
        for (const auto& c : log->Rows())
        {
            if (c.port >= fabric.ports[v].size())
            {
                continue; // not a port of the graph (cannot happen on a built fabric)
            }
            ArTelemetryRow r;
            r.switchName = g.vertices[v].name;
            r.port = c.port;
            r.link = fabric.ports[v][c.port];
            const TopoLink& l = g.links[r.link];
            r.to = g.vertices[l.a == v ? l.b : l.a].name;
            r.candidates = c.candidates;
            r.offered = c.offered;
            r.decisions = c.decisions;
            r.packets = c.packets;
            r.bytes = c.bytes;
            r.packetsByReason = c.packetsByReason;
            rows.push_back(std::move(r));
        }
    }
    return rows;
}

} // namespace tusk
