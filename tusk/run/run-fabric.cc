/*
 * tusk: the run's fabric: switches with their MMU, PFC, ECN and LoadBalancer, the links, and
 * one configured RdmaNic per host. Every attribute goes through RunAttributes.
 */
#include "run/fabric-kinds.h"
#include "run/run-stages.h"
#include "scenario/topology-kinds.h"

#include "scenario/scenario-sections.h"

#include "fabric/helper/in-network-endpoints.h"
#include "fabric/helper/source-routes.h"
#include "lb-policies/host/ethereal-path-selector.h"
#include "rdma/model/nic-plane-port.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace tusk
{

using namespace ns3;

namespace
{

void
ConfigureBuffersAndPfc(const ScenarioSpec& spec, FabricHelper& helper, const TopologyGraph& graph,
                       RunAttributes& attrs)
{
    auto mmu = [&](const std::string& name, const AttributeValue& v) {
        helper.SetMmuAttribute(name, v);
        attrs.Note("ns3::SharedBufferMmu", name, v);
    };
    auto sw = [&](const std::string& name, const AttributeValue& v) {
        helper.SetSwitchAttribute(name, v);
        attrs.Note("ns3::SwitchNode", name, v);
    };
    auto port = [&](const std::string& name, const AttributeValue& v) {
        helper.SetPortAttribute(name, v);
        attrs.Note("ns3::SwitchPort", name, v);
    };
    const auto& b = spec.buffer;
    mmu("BufferBytes", UintegerValue(b.totalBytes));
    mmu("ReservedBytes", UintegerValue(b.reservedBytes));
    mmu("DynamicThreshold", BooleanValue(b.dynamicThreshold));
    mmu("Alpha", DoubleValue(b.alpha));
    mmu("EgressAlpha", DoubleValue(b.egressAlpha));
    mmu("StaticThresholdBytes", UintegerValue(b.staticThresholdBytes));
    mmu("XonOffsetBytes", UintegerValue(b.xonOffsetBytes));
    uint8_t lossless = 0;
    if (spec.pfc.enabled)
    {
        for (uint8_t p : spec.pfc.losslessPriorities)
        {
            lossless |= static_cast<uint8_t>(1u << p);
        }
    }
    mmu("LosslessPriorities", UintegerValue(lossless));
    helper.SetHeadroomBytes(b.headroomBytes);
    helper.SetLossyLongHaul(spec.pfc.longHaul.value_or("lossless") == "lossy");
    sw("PauseQuanta", UintegerValue(spec.pfc.pauseQuanta));
    sw("PauseRefresh", TimeValue(PicoSeconds(spec.pfc.refreshPs)));
    port("PfcWatchdogTime", TimeValue(PicoSeconds(spec.pfc.watchdogPs)));
    port("PfcWatchdogRecovery", TimeValue(PicoSeconds(spec.pfc.watchdogRecoveryPs)));
    port("PfcWatchdogAction",
         EnumValue(spec.pfc.watchdogAction == "forward" ? FabricNetDevice::WATCHDOG_FORWARD
                                                        : FabricNetDevice::WATCHDOG_DROP));
    if (spec.ecn.enabled)
    {
        std::map<uint64_t, FabricHelper::EcnConfig> byRate;
        for (const auto& [rate, th] : spec.ecn.byRate)
        {
            byRate[rate] = FabricHelper::EcnConfig{th.kminBytes, th.kmaxBytes, th.pmax};
        }
        const auto& f = spec.ecn.fallback;
        helper.SetEcn(byRate, FabricHelper::EcnConfig{f.kminBytes, f.kmaxBytes, f.pmax},
                      spec.ecn.fallbackGiven || spec.ecn.byRate.empty(), "ecn.by_rate");
        if (spec.ecn.markAtDequeue)
        {
            port("EcnMarkAtDequeue", BooleanValue(true)); // noted only when on
        }
    }
}

/**
 * Congestion control: DCQCN's values (its preset, ns3::DcqcnCongestionControl::Preset, then
 * the scenario's explicit ones) as the defaults of ns3::DcqcnCongestionControl, from which
 * every QP's instance is built; the keys given in the section of the control in use ([hpcc],
 * [timely], [swift], [dctcp], [nscc]) and in [rccc] with receiver credits as their attributes'
 * defaults.
 */
void
ConfigureCongestionControl(const ScenarioSpec& spec, const TopologyGraph& graph,
                           RunAttributes& attrs)
{
    DcqcnSection d = spec.dcqcn;
    ResolveDcqcnPreset(d, FirstHostRateBps(graph));
    for (const auto& [path, value] : DcqcnAttributeValues(d))
    {
        attrs.SetDefault(path, *value);
    }
    for (const auto& [path, value] : CcAttributeValues(spec))
    {
        attrs.SetDefault(path, *value);
    }
}

/**
 * TypeId of the congestion control nic.congestion_control names (its registration). The
 * registration's USES_INT must be what the model answers (RdmaCongestionControl::UsesInt):
 * the runner sizes data frames and checks link rates by the registration.
 */
TypeId
CongestionControlTypeId(const ScenarioSpec& spec)
{
    const CongestionControlInfo& cc = CongestionControlOf(spec);
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(cc.typeId, &tid) ||
        !tid.IsChildOf(RdmaCongestionControl::GetTypeId()))
    {
        throw std::runtime_error("congestion control \"" + cc.name + "\" is registered with " +
                                 cc.typeId + ", which is not an ns3::RdmaCongestionControl");
    }
    ObjectFactory factory(cc.typeId);
    if (factory.Create<RdmaCongestionControl>()->UsesInt() !=
        cc.Needs(CongestionControlInfo::USES_INT))
    {
        throw std::runtime_error("congestion control \"" + cc.name + "\": its registration " +
                                 (cc.Needs(CongestionControlInfo::USES_INT) ? "says" : "does not say") +
                                 " USES_INT, but " + cc.typeId + "::UsesInt() answers otherwise");
    }
    return tid;
}

/** The LoadBalancer of the plan, its attributes and per-switch seeds, into `helper`. */
void
ConfigureLoadBalancer(const ScenarioSpec& spec, const RunPlan& plan, const TopologyGraph& graph,
                      FabricHelper& helper, RunAttributes& attrs)
{
    const std::string& policy = plan.policyTypeId;
    try
    {
        std::map<std::string, std::string> lbAttributes = plan.lbAttributes;
        if (policy == "ns3::SourceRouteLoadBalancer")
        {
            // Source routing: the route numbering comes from the topology (source-routes.h).
            uint32_t routes = 0;
            for (auto& [name, value] : SourceRouteAttributes(graph, "topology", &routes))
            {
                lbAttributes.emplace(name, value); // [lb.attributes] wins
            }
            attrs.SetDefault("ns3::MrcPathSelector::Routes", UintegerValue(routes),
                             "the topology's routes under lb.policy source routing");
            attrs.SetDefault("ns3::EtherealPathSelector::Routes", UintegerValue(routes),
                             "the topology's routes under lb.policy source routing");
            attrs.SetDefault("ns3::WorkloadExecutor::QpRoutes", UintegerValue(routes),
                             "the topology's routes under lb.policy source routing");
        }
        helper.SetLoadBalancer(policy, lbAttributes);
        for (const auto& [name, value] : lbAttributes)
        {
            const bool own = spec.lb.attributes.count(name) > 0;
            attrs.NoteDescribed(policy, name, value,
                                own ? "[lb.attributes] " + name
                                    : "the policy preset \"" + spec.lb.policy +
                                          "\" (change it in [lb.attributes])");
        }
    }
    catch (const InputError& e)
    {
        // "LoadBalancer": the policy; "<TypeId>::<Attribute>": a preset or [lb.attributes] value.
        const auto sep = e.Key().rfind("::");
        const std::string key =
            sep == std::string::npos ? "lb.policy" : "lb.attributes." + e.Key().substr(sep + 2);
        // The key's own origin (its line, or --set alone); a value the policy preset gave has
        // none and is reported at lb.policy's (file and line together, never --set with a
        // line of the file).
        const std::string origin = spec.keyLines.count(key) ? key : "lb.policy";
        throw InputError(spec.FileOf(origin), spec.LineOf(origin), key, e.Message());
    }
    helper.SetSeed(spec.seed, spec.lb.sameSeedEverywhere);
    if (!RunAttributes::DeclaringPath(policy, "Seed").empty())
    {
        attrs.NoteDescribed(policy, "Seed",
                            spec.lb.sameSeedEverywhere
                                ? std::to_string(static_cast<uint32_t>(spec.seed))
                                : "per switch: a hash of (seed, switch id)",
                            "the run's seed (and lb.same_seed_everywhere)");
    }
}

/** A host's RdmaNic as the scenario configures it. */
Ptr<RdmaNic>
MakeNic(const ScenarioSpec& spec, const RunPlan& plan, uint32_t host, uint64_t baseRttPs,
        RunAttributes& attrs)
{
    Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
    nic->SetHostId(host);
    attrs.Set(nic, "MtuBytes", UintegerValue(spec.nic.mtuBytes));
    attrs.Set(nic, "AckInterval", UintegerValue(spec.nic.ackInterval));
    attrs.Set(nic, "RetransmitTimeout", TimeValue(PicoSeconds(spec.nic.rtoPs)));
    attrs.Set(nic, "ControlPriority", UintegerValue(spec.nic.controlPriority));
    attrs.Set(nic, "PathSelector", TypeIdValue(TypeId::LookupByName(plan.pathSelectorTypeId)),
              spec.lb.pathSelector.empty() ? "the policy (lb.policy) and nic.transport"
                                           : "lb.path_selector and nic.transport");
    // Loss recovery: the registered TypeId of nic.receiver's (RoCE) or nic.transport's own.
    attrs.Set(nic, "LossRecovery", TypeIdValue(TypeId::LookupByName(LossRecoveryOf(spec).typeId)));
    attrs.Set(nic, "CnpOnOutOfOrder", BooleanValue(spec.nic.cnpOnOutOfOrder));
    attrs.Set(nic, "CnpInterval", TimeValue(PicoSeconds(spec.dcqcn.cnpIntervalPs)));
    attrs.Set(nic, "CongestionControl", TypeIdValue(CongestionControlTypeId(spec)));
    if (baseRttPs > 0)
    {
        attrs.Set(nic, "BaseRtt", TimeValue(PicoSeconds(baseRttPs)),
                  "the fabric's longest host-to-host base RTT (nic.congestion_control, "
                  "nic.sender_window, nic.receiver_credit)");
    }
    attrs.Set(nic, "SenderWindow",
              EnumValue(spec.nic.senderWindow == "fixed"      ? RdmaNic::WINDOW_FIXED
                        : spec.nic.senderWindow == "variable" ? RdmaNic::WINDOW_VARIABLE
                                                              : RdmaNic::WINDOW_NONE));
    attrs.Set(nic, "ReceiverCredit", BooleanValue(spec.nic.receiverCredit));
    if (spec.nic.ackRoute || plan.ackRoute != RdmaNic::ACK_FIXED)
    {
        // Only when asked for (the key, or a preset that says so): runs that leave it at Fixed
        // keep their manifest.
        attrs.Set(nic, "AckRoute",
                  EnumValue(plan.ackRoute),
                  spec.nic.ackRoute ? "nic.ack_route"
                                    : "the policy preset \"" + spec.lb.policy +
                                          "\" (change it with nic.ack_route)");
    }
    if (const FabricKindInfo& fabric = FabricKindOf(spec); fabric.configureNic)
    {
        fabric.configureNic(spec, nic, attrs); // what the fabric kind needs (fabric-kinds.h)
    }
    const TypeId selector = TypeId::LookupByName(plan.pathSelectorTypeId);
    if (selector.IsChildOf(EtherealPathSelector::GetTypeId()) ||
        selector == EtherealPathSelector::GetTypeId())
    {
        EtherealPathSelector::AttachTo(nic); // the host's subflows share one route table
    }
    return nic;
}

/**
 * \brief PFC over distance, honestly (oracle 22): with a lossless priority and pfc.long_haul
 * "lossless", every long-haul port needs headroom of 2 x (delay x rate) + 2 x MTU
 * (FabricHelper::AutoHeadroomBytes, per lossless priority); refuse a run whose given headroom
 * (buffer.headroom_bytes) is smaller, or whose DCI switch cannot hold the automatic headroom
 * of its ports with shared buffer to spare.
 * \throws InputError naming the key to change and the bytes needed
 */
void
CheckLongHaulPfc(const ScenarioSpec& spec, const TopologyGraph& graph)
{
    const bool lossy = spec.pfc.longHaul.value_or("lossless") == "lossy";
    if (!spec.pfc.enabled || spec.pfc.losslessPriorities.empty() || lossy)
    {
        return;
    }
    const auto ports = IncidentLinks(graph);
    std::set<uint8_t> lossless(spec.pfc.losslessPriorities.begin(),
                               spec.pfc.losslessPriorities.end());
    for (uint32_t v = graph.numHosts; v < graph.vertices.size(); ++v)
    {
        uint64_t headroomPool = 0;
        uint64_t needed = 0;
        const TopoLink* longHaul = nullptr;
        for (uint32_t li : ports[v])
        {
            const TopoLink& l = graph.links[li];
            const uint64_t automatic = FabricHelper::AutoHeadroomBytes(l.rateBps, l.delayPs);
            headroomPool += (spec.buffer.headroomBytes > 0 ? spec.buffer.headroomBytes : automatic) *
                            lossless.size();
            if (l.longHaul)
            {
                longHaul = &l;
                needed = automatic;
            }
        }
        if (longHaul == nullptr)
        {
            continue;
        }
        const std::string what = fmt::format(
            "a lossless priority over the long-haul link of switch {} ({:g} Gb/s, {:g} ms) needs "
            "PFC headroom of 2 x (delay x rate) + 2 x MTU = {} bytes per port and lossless "
            "priority (oracle 22)",
            graph.vertices[v].name, longHaul->rateBps / 1e9, longHaul->delayPs / 1e9, needed);
        const std::string fix = "; set pfc.long_haul = \"lossy\" to run the long haul lossy "
                                "with transport recovery";
        if (spec.buffer.headroomBytes > 0 && spec.buffer.headroomBytes < needed)
        {
            throw InputError(spec.FileOf("buffer.headroom_bytes"), spec.LineOf("buffer.headroom_bytes"),
                             "buffer.headroom_bytes",
                             what + "; buffer.headroom_bytes gives " +
                                 std::to_string(spec.buffer.headroomBytes) + fix);
        }
        const uint64_t buffer =
            graph.vertices[v].bufferBytes > 0 ? graph.vertices[v].bufferBytes : spec.buffer.totalBytes;
        const uint64_t reserved = spec.buffer.reservedBytes * 8 * ports[v].size();
        if (headroomPool + reserved >= buffer)
        {
            const std::string key = graph.vertices[v].bufferBytes > 0 ? "topology.dci_buffer"
                                                                      : "buffer.total_bytes";
            throw spec.KeyError(key,
                                what + "; the headroom of its " + std::to_string(ports[v].size()) +
                                    " ports (" + std::to_string(headroomPool) + " bytes) and its "
                                    "reserved space leave nothing of its " + std::to_string(buffer) +
                                    " bytes" + fix + ", or give it a larger buffer");
        }
    }
}

/** The PFC headroom every switch port got (given, or automatic from its link), by class. */
std::vector<PortHeadroom>
HeadroomClasses(const ScenarioSpec& spec, const TopologyGraph& graph, const Fabric& fabric)
{
    std::map<std::pair<uint64_t, uint64_t>, PortHeadroom> classes;
    for (uint32_t v = graph.numHosts; v < graph.vertices.size(); ++v)
    {
        for (uint32_t li : fabric.ports[v])
        {
            const TopoLink& l = graph.links[li];
            PortHeadroom& c = classes[{l.rateBps, l.delayPs}];
            c.rateBps = l.rateBps;
            c.delayPs = l.delayPs;
            const bool lossyPort = l.longHaul && spec.pfc.longHaul.value_or("") == "lossy";
            c.headroomBytes = lossyPort                          ? 0
                              : spec.buffer.headroomBytes > 0
                                  ? spec.buffer.headroomBytes
                                  : FabricHelper::AutoHeadroomBytes(l.rateBps, l.delayPs);
            ++c.ports;
        }
    }
    std::vector<PortHeadroom> out;
    for (const auto& [key, c] : classes)
    {
        out.push_back(c);
    }
    return out;
}

} // namespace

void
SplitOverRoutes(const ScenarioSpec& spec, const TopologyGraph& graph, RunPlan& plan)
{
    if (plan.qpEntropy != "routes" || plan.policyTypeId != "ns3::SourceRouteLoadBalancer" ||
        spec.keyLines.count("nic.qps_per_connection") != 0) // in the file, or --set (line 0)
    {
        return;
    }
    uint32_t routes = 1;
    SourceRouteAttributes(graph, "topology", &routes);
    plan.qpsPerConnection = std::max<uint32_t>(1, routes);
}

BuiltFabric
BuildFabricAndNics(const ScenarioSpec& spec,
                   const RunPlan& plan,
                   const TopologyGraph& graph,
                   RunAttributes& attrs)
{
    FabricHelper helper;
    helper.SetPhyOverheadBytes(spec.fabric.phyOverheadBytes);
    attrs.Note("ns3::FabricNetDevice", "PhyOverheadBytes",
               UintegerValue(spec.fabric.phyOverheadBytes));
    helper.SetPortAttribute("FlushOnLinkDown", BooleanValue(spec.fabric.flushOnLinkDown));
    attrs.Note("ns3::SwitchPort", "FlushOnLinkDown", BooleanValue(spec.fabric.flushOnLinkDown));
    CheckLongHaulPfc(spec, graph);
    ConfigureBuffersAndPfc(spec, helper, graph, attrs);
    if (const FabricKindInfo& fabric = FabricKindOf(spec); fabric.configure)
    {
        fabric.configure(spec, helper, attrs); // its ports and switches (fabric-kinds.h)
    }
    ConfigureCongestionControl(spec, graph, attrs);
    ConfigureLoadBalancer(spec, plan, graph, helper, attrs);

    BuiltFabric built;
    built.nics.resize(graph.numHosts);
    // The fabric's base RTT T, for the congestion controls that need it and the sender window.
    const uint64_t baseRttPs = FabricBaseRttPs(spec, graph);
    // What the topology kind refuses given the graph (topology-kinds.h: the multi-site's
    // retransmission timeout against the long haul's RTT).
    if (const TopologyKindInfo* kind = FindTopologyKind(spec.topology.kind); kind && kind->check)
    {
        kind->check(spec, graph, baseRttPs);
    }
    auto makeNic = [&](uint32_t host) -> Ptr<FabricNetDevice> {
        built.nics[host] = MakeNic(spec, plan, host, baseRttPs, attrs);
        if (graph.IsAggregationEndpoint(host))
        {
            attrs.Set(built.nics[host], "QpRateCap",
                      UintegerValue(AggregationQpRateBps(graph, host)),
                      "an aggregation endpoint's streams leave through one port of its switch "
                      "(topology.in_network_reduction)");
        }
        return built.nics[host];
    };
    // A host with several links (a multi-plane fabric, or dual-ToR): port k >= 1 is a
    // NicPlanePort of the host's NIC, its link into plane k (its k-th link). In a multi-plane
    // fabric the NICs share their ports' states, so none sends to a host on a plane where
    // that host's port is down.
    const bool multiPlane = std::any_of(graph.vertices.begin(), graph.vertices.end(),
                                        [](const TopoVertex& v) { return v.plane > 0; });
    const Ptr<HostPortStates> portStates =
        multiPlane ? Create<HostPortStates>(graph.numHosts) : nullptr;
    helper.SetHostPortFactory([&](uint32_t host, uint32_t) -> Ptr<FabricNetDevice> {
        auto port = CreateObject<NicPlanePort>();
        port->SetHostPortStates(portStates);
        built.nics[host]->AddPlanePort(port);
        return port;
    });
    int64_t streams = 0;
    try
    {
        built.fabric = helper.Build(graph, makeNic, 100, &streams);
    }
    catch (const InputError& e)
    {
        if (e.Key() == "ns3::SharedBufferMmu::BufferBytes")
        {
            throw InputError(spec.FileOf("buffer.total_bytes"), spec.LineOf("buffer.total_bytes"),
                             "buffer.total_bytes",
                             e.Message() + "; raise buffer.total_bytes or lower "
                                           "buffer.headroom_bytes / buffer.reserved_bytes");
        }
        throw spec.KeyError(e.Key(), e.Message());
    }
    // Set per object by the fabric helper from the topology.
    for (const auto& l : graph.links)
    {
        attrs.Note("ns3::FabricNetDevice", "DataRate", DataRateValue(DataRate(l.rateBps)),
                   "the topology's link rates");
        attrs.Note("ns3::FabricChannel", "Delay", TimeValue(PicoSeconds(l.delayPs)),
                   "the topology's link delays");
    }
    attrs.Note("ns3::SwitchNode", "ForwardingLatency",
               TimeValue(PicoSeconds(graph.switchLatencyPs)), "the topology's switch latency");
    if (plan.ackRoute == RdmaNic::ACK_REVERSE && plan.policyTypeId == "ns3::SourceRouteLoadBalancer")
    {
        // Replies retrace the links of the data packet they answer (source-routes.h).
        auto replies =
            std::make_shared<const SourceRouteReplies>(built.fabric.graph, built.fabric.routes);
        for (auto& nic : built.nics)
        {
            const uint32_t self = nic->GetHostId();
            nic->SetReplyEntropy([replies, self](uint32_t src, uint16_t entropy, uint64_t path) {
                return replies->ReplyEntropy(src, self, entropy, path);
            });
        }
    }
    built.headroom = HeadroomClasses(spec, graph, built.fabric);
    built.nextStream = 100 + streams;
    for (auto& nic : built.nics)
    {
        built.nextStream += nic->AssignStreams(built.nextStream);
    }
    return built;
}

} // namespace tusk
