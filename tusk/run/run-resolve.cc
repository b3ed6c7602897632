/*
 * tusk: the run's topology graph, and the spec with every derived value made explicit (what
 * the manifest echoes).
 */
#include "run/run-stages.h"

#include "scenario/scenario-sections.h"
#include "scenario/topology-kinds.h"

#include "fabric/model/fabric-units.h"
#include "fabric/model/ideal-fct.h"
#include "rdma/model/headers/roce-header.h"
#include "rdma/model/headers/roce-int-header.h"
#include "importers/model/hpcc-reader.h"
#include "importers/model/htsim-topo-reader.h"

#include <algorithm>

namespace tusk
{

using namespace ns3;

namespace
{

TopologyGraph
BuildGraphOf(const ScenarioSpec& spec)
{
    const TopologyKindInfo* kind = FindTopologyKind(spec.topology.kind);
    if (kind == nullptr)
    {
        throw spec.KeyError("topology.kind",
                            "unknown topology kind \"" + spec.topology.kind + "\"; expected one of " +
                                OneOf(TopologyKindNames()) + " (`tusk kinds`)");
    }
    return kind->build(spec);
}

/** Links on the longest minimum-hop host-to-host path (from host 0 to the farthest host). */
uint32_t
LongestPathLinks(const TopologyGraph& graph)
{
    uint32_t hops = 0;
    const EqualCostTable routes = ComputeEqualCostPorts(graph);
    const auto ports = IncidentLinks(graph);
    for (uint32_t h = 1; h < graph.numHosts; ++h)
    {
        uint32_t n = 1;
        uint32_t v = graph.links[ports[0][0]].a == 0 ? graph.links[ports[0][0]].b
                                                       : graph.links[ports[0][0]].a;
        while (v >= graph.numHosts && n < 64)
        {
            const PortSpan cand = routes.Ports(v - graph.numHosts, h);
            if (cand.empty())
            {
                break;
            }
            const TopoLink& l = graph.links[ports[v][cand[0]]];
            v = l.a == v ? l.b : l.a;
            ++n;
        }
        hops = std::max(hops, n);
    }
    return hops;
}

uint64_t
MaxLinkDelayPs(const TopologyGraph& graph)
{
    uint64_t delayPs = 0;
    for (const auto& l : graph.links)
    {
        delayPs = std::max(delayPs, l.delayPs);
    }
    return delayPs;
}

/**
 * Loss recoveries that ask for it (ECN_FROM_BDP: the UEC-style transports) without explicit ECN
 * thresholds: Kmin = 0.2 BDP and Kmax = 0.8 BDP
 * (Ultra Ethernet 1.0's recommendation) for every port rate of the fabric, with BDP = rate x the
 * base RTT of the longest host-to-host path (ConWeave's convention, oracle 20:
 * 2 x hops x delay + hops x MTU frame / rate).
 */
std::map<uint64_t, EcnThresholds>
BdpEcnThresholds(const ScenarioSpec& spec, const TopologyGraph& graph)
{
    const uint32_t hops = LongestPathLinks(graph);
    const uint64_t delayPs = MaxLinkDelayPs(graph);
    std::map<uint64_t, EcnThresholds> out;
    for (const auto& l : graph.links)
    {
        if (out.count(l.rateBps))
        {
            continue;
        }
        const uint64_t rtt = BaseRttPs(hops, delayPs, spec.nic.mtuBytes + kRoceDataOverheadBytes,
                                       l.rateBps);
        const double bdp = static_cast<double>(l.rateBps) * rtt * 1e-12 / 8;
        EcnThresholds t;
        t.kminBytes = static_cast<uint64_t>(0.2 * bdp);
        t.kmaxBytes = std::max<uint64_t>(t.kminBytes + 1, static_cast<uint64_t>(0.8 * bdp));
        t.pmax = spec.ecn.fallback.pmax;
        out[l.rateBps] = t;
    }
    return out;
}

} // namespace

const ns3::CongestionControlInfo&
CongestionControlOf(const ScenarioSpec& spec)
{
    const ns3::CongestionControlInfo* cc = ns3::FindCongestionControl(spec.nic.congestionControl);
    if (cc == nullptr)
    {
        const std::string key = "nic.congestion_control";
        throw spec.KeyError(key,
                            "unknown congestion control \"" + spec.nic.congestionControl +
                                "\"; expected one of " + ns3::CongestionControlNameList() +
                                " (`tusk kinds`; a plugin's needs --plugin)");
    }
    return *cc;
}

const ns3::LossRecoveryInfo&
LossRecoveryOf(const ScenarioSpec& spec)
{
    const ns3::LossRecoveryInfo* r = ns3::LossRecoveryOf(spec.nic.transport, spec.nic.receiver);
    if (r == nullptr)
    {
        const bool roce = spec.nic.transport == ns3::kRoceTransport;
        const std::string key = roce ? "nic.receiver" : "nic.transport";
        const auto names = ns3::LossRecoveryNames(roce ? ns3::LossRecoveryInfo::RECEIVER
                                                       : ns3::LossRecoveryInfo::TRANSPORT);
        std::string list = roce ? "" : "\"roce\"";
        for (const auto& n : names)
        {
            list += (list.empty() ? "\"" : ", \"") + n + "\"";
        }
        throw spec.KeyError(key,
                            "unknown loss recovery \"" +
                                (roce ? spec.nic.receiver : spec.nic.transport) +
                                "\"; expected one of " + list + " (`tusk kinds`)");
    }
    return *r;
}

uint32_t
DataHeaderBytes(const ScenarioSpec& spec)
{
    const bool usesInt = CongestionControlOf(spec).Needs(ns3::CongestionControlInfo::USES_INT);
    return kRoceDataOverheadBytes + (usesInt ? kIntHeaderBytes : 0) +
           (spec.nic.receiverCredit ? 4 : 0); // RoceCreditRequestHeader
}

uint64_t
FabricBaseRttPs(const ScenarioSpec& spec, const TopologyGraph& graph)
{
    if (!CongestionControlOf(spec).Needs(ns3::CongestionControlInfo::NEEDS_BASE_RTT) &&
        spec.nic.senderWindow == "none" && !spec.nic.receiverCredit)
    {
        return 0;
    }
    uint64_t hostRate = 0;
    for (const auto& l : graph.links)
    {
        if (l.a < graph.NumRankHosts() || l.b < graph.NumRankHosts()) // not an endpoint's
        {
            hostRate = std::max(hostRate, l.rateBps);
        }
    }
    return BaseRttPs(LongestPathLinks(graph), MaxLinkDelayPs(graph),
                     spec.nic.mtuBytes + DataHeaderBytes(spec), hostRate);
}

uint64_t
FirstHostRateBps(const TopologyGraph& graph)
{
    for (const auto& l : graph.links)
    {
        if (l.a < graph.NumRankHosts() || l.b < graph.NumRankHosts())
        {
            return l.rateBps;
        }
    }
    return 100'000'000'000ULL;
}


TopologyGraph
BuildGraph(const ScenarioSpec& spec)
{
    try
    {
        return BuildGraphOf(spec);
    }
    catch (const InputError& e)
    {
        ThrowAsScenarioKey(spec, e, "topology." + spec.topology.kind, "topology");
    }
}

ScenarioSpec
ResolveScenario(const ScenarioSpec& spec, const TopologyGraph& graph)
{
    ScenarioSpec r = spec;
    const bool bdpEcn = LossRecoveryOf(spec).Needs(ns3::LossRecoveryInfo::ECN_FROM_BDP);
    if (bdpEcn && spec.ecn.enabled && !spec.ecn.thresholdsGiven)
    {
        r.ecn.byRate = BdpEcnThresholds(spec, graph);
        r.ecn.fallbackGiven = false;
        r.ecn.thresholdsGiven = true;
    }
    ResolveDcqcnPreset(r.dcqcn, FirstHostRateBps(graph));
    r.failures = WithDrawnFailures(spec, graph);
    return r;
}

} // namespace tusk
