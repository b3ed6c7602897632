/*
 * tusk: [[failures]]: links taken down, brought up or degraded at given times.
 */
#include "run-stages.h"

#include "rdma/model/roce-int-header.h"

#include "ns3/data-rate.h"
#include "ns3/simulator.h"

#include <fmt/format.h>

namespace tusk
{

using namespace ns3;

namespace
{

/** The graph links named by failure `f` ("<from>-<to>", either order; parallel links all). */
std::vector<uint32_t>
FailureLinks(const FailureEntry& f, const TopologyGraph& graph)
{
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < graph.links.size(); ++i)
    {
        const std::string& a = graph.vertices[graph.links[i].a].name;
        const std::string& b = graph.vertices[graph.links[i].b].name;
        if (f.link == a + "-" + b || f.link == b + "-" + a)
        {
            out.push_back(i);
        }
    }
    return out;
}

} // namespace

void
CheckIntRates(const ScenarioSpec& spec, const TopologyGraph& graph)
{
    if (spec.nic.congestionControl != "hpcc")
    {
        return;
    }
    auto check = [&](uint64_t rate, unsigned line, const std::string& key, const std::string& what) {
        uint8_t code = 0;
        if (!IntHop::RateCode(rate, code))
        {
            throw InputError(spec.sourceFile, line, key,
                             fmt::format("nic.congestion_control = \"hpcc\" stamps INT records, "
                                         "which encode a port rate as 10, 25, 40, 50, 100, 200, "
                                         "400 or 800 Gb/s; {} is {} Gb/s",
                                         what, rate / 1e9));
        }
    };
    for (const auto& l : graph.links)
    {
        check(l.rateBps, spec.LineOf("nic.congestion_control"), "nic.congestion_control",
              "link " + graph.vertices[l.a].name + "-" + graph.vertices[l.b].name);
    }
    for (size_t i = 0; i < spec.failures.size(); ++i)
    {
        const FailureEntry& f = spec.failures[i];
        if (f.kind != "degrade")
        {
            continue;
        }
        for (uint32_t l : FailureLinks(f, graph))
        {
            check(graph.links[l].rateBps / f.rateDivisor, f.line,
                  fmt::format("failures[{}].rate_divisor", i), "the degraded link " + f.link);
        }
    }
}

void
CheckFailures(const ScenarioSpec& spec, const TopologyGraph& graph)
{
    for (size_t i = 0; i < spec.failures.size(); ++i)
    {
        const FailureEntry& f = spec.failures[i];
        const std::vector<uint32_t> links = FailureLinks(f, graph);
        if (links.empty())
        {
            throw InputError(spec.sourceFile, f.line, fmt::format("failures[{}].link", i),
                             "no link \"" + f.link +
                                 "\" in the topology; expected \"<from>-<to>\" with vertex "
                                 "names as in links.csv (e.g. \"leaf0-spine1\")");
        }
        for (uint32_t l : links)
        {
            if (f.kind == "degrade" && graph.links[l].rateBps / f.rateDivisor == 0)
            {
                throw InputError(spec.sourceFile, f.line,
                                 fmt::format("failures[{}].rate_divisor", i),
                                 "the degraded rate would be 0 bit/s");
            }
        }
    }
}

// link_down / link_up take both devices of every link between the two named vertices down or
// up; degrade sets both devices' rate to the link's configured rate / rate_divisor; after a
// link goes down or up, every switch's equal-cost table is recomputed reconvergence_us later.
void
ScheduleFailures(const ScenarioSpec& spec, const TopologyGraph& graph, const Fabric& fabric)
{
    std::vector<const FabricLink*> byGraphLink(graph.links.size(), nullptr);
    for (const auto& l : fabric.links)
    {
        byGraphLink[l.graphLink] = &l;
    }
    for (const FailureEntry& f : spec.failures)
    {
        for (uint32_t gl : FailureLinks(f, graph))
        {
            const FabricLink* l = byGraphLink[gl];
            if (l == nullptr)
            {
                continue;
            }
            Ptr<FabricNetDevice> a = l->devA;
            Ptr<FabricNetDevice> b = l->devB;
            const Time at = PicoSeconds(f.atPs);
            if (f.kind == "degrade")
            {
                const uint64_t bps = graph.links[gl].rateBps / f.rateDivisor;
                Simulator::Schedule(at, [a, b, bps]() {
                    a->SetDataRate(DataRate(bps));
                    b->SetDataRate(DataRate(bps));
                });
            }
            else
            {
                const bool up = f.kind == "link_up";
                Simulator::Schedule(at, [a, b, up]() {
                    a->SetLinkUp(up);
                    b->SetLinkUp(up);
                });
            }
        }
        if ((f.kind == "link_down" || f.kind == "link_up") && spec.fabric.reconvergencePs > 0)
        {
            // Routing converges: every switch's equal-cost table is recomputed over the links
            // that are up then (until then a switch only skips its own dead ports).
            Simulator::Schedule(PicoSeconds(f.atPs + spec.fabric.reconvergencePs), [&fabric, &graph]() {
                std::vector<bool> up(graph.links.size(), true);
                for (const auto& l : fabric.links)
                {
                    up[l.graphLink] = l.devA->IsLinkUp() && l.devB->IsLinkUp();
                }
                auto routes =
                    std::make_shared<const EqualCostTable>(ComputeEqualCostPorts(graph, up));
                for (uint32_t s = 0; s < fabric.switches.size(); ++s)
                {
                    fabric.switches[s]->SetForwardingTable(routes, s);
                }
            });
        }
    }
}

} // namespace tusk
