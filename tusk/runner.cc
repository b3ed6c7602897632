#include "runner.h"

#include "stats.h"
#include "time-series.h"

#include "fabric/helper/attribute-text.h"
#include "fabric/helper/fabric-helper.h"
#include "fabric/model/fabric-units.h"
#include "fabric/model/input-error.h"
#include "lb-policies/policy-registry.h"
#include "rdma/model/rdma-nic.h"
#include "rdma/model/roce-header.h"
#include "workload/model/background-traffic.h"
#include "workload/model/hpcc-reader.h"
#include "workload/model/htsim-cm-reader.h"
#include "workload/model/job-model.h"
#include "workload/model/scale-up-domain.h"
#include "workload/model/simai-workload.h"
#include "workload/model/traffic-generators.h"
#include "workload/model/workload-builder.h"
#include "workload/model/workload-executor.h"

#include "fabric/model/pfc-deadlock-detector.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/enum.h"
#include "ns3/double.h"
#include "ns3/data-rate.h"
#include "ns3/object-factory.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-helper.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <map>

namespace tusk
{

using namespace ns3;

namespace
{

TopologyGraph
BuildGraph(const ScenarioSpec& spec)
{
    const auto& t = spec.topology;
    if (t.kind == "leaf-spine")
    {
        return BuildLeafSpine(t.leafSpine);
    }
    if (t.kind == "fat-tree")
    {
        return BuildFatTree(t.fatTree);
    }
    if (t.kind == "htsim")
    {
        return ReadHtsimTopo(t.file);
    }
    if (t.kind == "ring")
    {
        return BuildRing(t.ring);
    }
    if (t.kind == "rail-optimised")
    {
        return BuildRailOptimised(t.rail);
    }
    if (t.kind == "pod-clos")
    {
        return BuildPodClos(t.podClos);
    }
    if (t.kind == "hpcc")
    {
        return ReadHpccTopology(t.file).graph;
    }
    throw InputError(spec.sourceFile, spec.LineOf("topology.kind"), "topology.kind",
                     "expected \"leaf-spine\", \"fat-tree\", \"htsim\", \"ring\", \"rail-optimised\", "
                     "\"pod-clos\" or \"hpcc\"; got \"" + t.kind + "\"");
}

/** Rack of every host for rack-aware placement: the rail group on a rail-optimised fabric,
 *  else the switch the host's link goes to. */
std::vector<uint32_t>
RackOfHosts(const ScenarioSpec& spec, const TopologyGraph& g)
{
    std::vector<uint32_t> rack(g.numHosts, 0);
    if (spec.topology.kind == "rail-optimised")
    {
        for (uint32_t h = 0; h < g.numHosts; ++h)
        {
            rack[h] = g.vertices[h].pod;
        }
        return rack;
    }
    for (const auto& l : g.links)
    {
        if (l.a < g.numHosts)
        {
            rack[l.a] = l.b;
        }
        if (l.b < g.numHosts)
        {
            rack[l.b] = l.a;
        }
    }
    return rack;
}

/** The link rate of host h, bit/s. */
uint64_t
HostRateBps(const TopologyGraph& g, uint32_t h)
{
    for (const auto& l : g.links)
    {
        if (l.a == h || l.b == h)
        {
            return l.rateBps;
        }
    }
    return 0;
}

/** Lower every [[jobs]] entry into `out` (placement in order: earlier jobs take hosts first). */
void
AppendJobs(const ScenarioSpec& spec, const TopologyGraph& g, WorkloadBuilder& b, WorkloadSpec& out)
{
    const uint32_t numHosts = g.numHosts;
    std::vector<bool> used(numHosts, false);
    const auto rackOf = RackOfHosts(spec, g);
    std::vector<uint32_t> serverOf;
    if (spec.scaleUp.gpusPerServer > 1)
    {
        for (uint32_t h = 0; h < numHosts; ++h)
        {
            serverOf.push_back(h / spec.scaleUp.gpusPerServer);
        }
    }
    for (size_t i = 0; i < spec.jobs.size(); ++i)
    {
        const JobEntry& je = spec.jobs[i];
        const std::string jp = fmt::format("jobs[{}]", i);
        auto fail = [&](const std::string& key, const std::string& message) {
            const unsigned line = spec.LineOf(jp + "." + key);
            throw InputError(spec.sourceFile, line ? line : spec.LineOf(jp), jp + "." + key,
                             message);
        };
        std::vector<uint32_t> pool;
        if (!je.hosts.empty())
        {
            for (uint32_t h : je.hosts)
            {
                if (h >= numHosts)
                {
                    fail("hosts", fmt::format("host {} does not exist: the topology has {} hosts",
                                              h, numHosts));
                }
                if (used[h])
                {
                    fail("hosts", fmt::format("host {} is already used by an earlier job", h));
                }
                pool.push_back(h);
            }
        }
        else
        {
            for (uint32_t h = 0; h < numHosts; ++h)
            {
                if (!used[h])
                {
                    pool.push_back(h);
                }
            }
        }
        JobSpec js;
        js.name = je.name;
        js.iterations = je.iterations;
        js.startPs = je.startPs;
        js.iterationComputePs = je.computePs;
        js.syncEvery = je.syncEvery;
        js.exec.channels = je.channels;
        js.exec.chunkBytes = je.chunkBytes;
        js.exec.maxSlices = je.maxSlices;
        js.exec.qps = je.qpsPerConnection;
        js.exec.priority = spec.nic.dataPriority;
        js.railAlignedRings = je.ringOrder == "rail-aligned";
        js.serverOf = serverOf;
        js.seed = spec.seed * 1000003ULL + i;
        js.placement = je.placement;
        uint32_t ranks = je.ranks;
        SimAiWorkload simai;
        if (!je.file.empty())
        {
            simai = ReadSimAiWorkload(je.file);
            ranks = ranks ? ranks : simai.allGpus;
        }
        ranks = ranks ? ranks : static_cast<uint32_t>(pool.size());
        PlacementRequest req;
        req.policy = je.placement;
        req.ranks = ranks;
        req.pool = pool;
        req.rackOf = rackOf;
        req.seed = js.seed;
        try
        {
            js.hosts = PlaceRanks(req);
        }
        catch (const InputError& e)
        {
            fail(e.Key() == "job.placement" ? "placement" : "ranks", e.Message());
        }
        for (uint32_t h : js.hosts)
        {
            used[h] = true;
        }
        try
        {
            if (!je.file.empty())
            {
                js.degrees = SimAiDegrees(simai, ranks, &js.note);
                js.collectives = SimAiIteration(simai);
                js.source = je.file;
            }
            else
            {
                js.degrees.tp = je.tp;
                js.degrees.pp = je.pp;
                js.degrees.dp = je.dp;
                js.degrees.ep = je.ep;
                for (const auto& c : je.collectives)
                {
                    JobCollective jc;
                    jc.name = c.name;
                    jc.kind = c.kind;
                    jc.algorithm = c.algorithm;
                    jc.group = c.group;
                    jc.bytes = c.bytes;
                    jc.computePs = c.computePs;
                    jc.blocking = c.blocking;
                    jc.every = c.every;
                    jc.root = c.root;
                    jc.peer = c.peer;
                    jc.shift = c.shift;
                    jc.localSize = c.localSize;
                    js.collectives.push_back(jc);
                }
            }
            AppendJob(b, out, js);
        }
        catch (const InputError& e)
        {
            // "job.dp" -> "jobs[i].dp"; "collective.bytes" -> "jobs[i].collectives"
            const std::string key = e.Key().rfind("job.", 0) == 0 ? e.Key().substr(4)
                                    : e.Key() == "ranks"         ? "ranks"
                                                                 : "collectives";
            fail(key, e.Message());
        }
    }
}

/** Append [[background]] flows. */
void
AppendBackground(const ScenarioSpec& spec, const TopologyGraph& g, WorkloadBuilder& b)
{
    for (size_t i = 0; i < spec.background.size(); ++i)
    {
        const BackgroundEntry& be = spec.background[i];
        const std::string bp = fmt::format("background[{}]", i);
        BackgroundRequest r;
        r.hosts = be.hosts;
        if (r.hosts.empty())
        {
            for (uint32_t h = 0; h < g.numHosts; ++h)
            {
                r.hosts.push_back(h);
            }
        }
        for (uint32_t h : r.hosts)
        {
            if (h >= g.numHosts)
            {
                throw InputError(spec.sourceFile, spec.LineOf(bp + ".hosts"), bp + ".hosts",
                                 fmt::format("host {} does not exist: the topology has {} hosts",
                                             h, g.numHosts));
            }
        }
        r.load = be.load;
        r.hostRateBps = HostRateBps(g, r.hosts.front());
        r.startPs = be.startPs;
        r.durationPs = be.durationPs;
        r.seed = be.seed ? be.seed : spec.seed * 7919ULL + i + 1;
        r.priority = static_cast<uint8_t>(be.priority >= 0 ? be.priority : spec.nic.dataPriority);
        r.qps = be.qps;
        try
        {
            for (const auto& f : MakePoissonBackground(r, FlowSizeCdf::Read(be.cdfFile)))
            {
                b.AddTransfer(f);
            }
        }
        catch (const InputError& e)
        {
            if (!e.File().empty())
            {
                throw;
            }
            throw InputError(spec.sourceFile, spec.LineOf(bp), bp, e.Message());
        }
    }
}

std::vector<uint32_t>
Participants(const ScenarioSpec& spec, uint32_t numHosts)
{
    const auto& w = spec.workload;
    std::vector<uint32_t> hosts = w.hosts;
    if (hosts.empty())
    {
        for (uint32_t h = 0; h < numHosts; ++h)
        {
            hosts.push_back(h);
        }
    }
    for (uint32_t h : hosts)
    {
        if (h >= numHosts)
        {
            throw InputError(spec.sourceFile, spec.LineOf("workload.hosts"), "workload.hosts",
                             fmt::format("host {} does not exist: the topology has {} hosts "
                                         "(0..{})",
                                         h, numHosts, numHosts - 1));
        }
    }
    return hosts;
}

WorkloadSpec
BuildWorkload(const ScenarioSpec& spec, const TopologyGraph& graph)
{
    const uint32_t numHosts = graph.numHosts;
    const auto& w = spec.workload;
    WorkloadSpec out;
    if (w.kind == "ring-allreduce")
    {
        out = MakeRingAllReduce(Participants(spec, numHosts), w.bytes, w.channels, w.startPs);
    }
    else if (w.kind == "permutation")
    {
        const auto hosts = Participants(spec, numHosts);
        out = MakePermutation(static_cast<uint32_t>(hosts.size()), w.bytes, spec.seed);
        for (auto& t : out.transfers)
        {
            t.src = hosts[t.src];
            t.dst = hosts[t.dst];
            t.startPs = w.startPs;
        }
    }
    else if (w.kind == "incast")
    {
        if (w.incastDst >= numHosts)
        {
            throw InputError(spec.sourceFile, spec.LineOf("workload.incast_dst"),
                             "workload.incast_dst",
                             fmt::format("host {} does not exist: the topology has {} hosts",
                                         w.incastDst, numHosts));
        }
        std::vector<uint32_t> senders;
        for (uint32_t h : Participants(spec, numHosts))
        {
            if (h != w.incastDst)
            {
                senders.push_back(h);
            }
        }
        out = MakeIncast(senders, w.incastDst, w.bytes);
        for (auto& t : out.transfers)
        {
            t.startPs = w.startPs;
        }
    }
    else if (w.kind == "htsim")
    {
        HtsimConnectionMatrix cm = ReadHtsimConnectionMatrix(w.file);
        if (cm.nodes != numHosts)
        {
            throw InputError(w.file, 1, "Nodes",
                             fmt::format("the connection matrix is for {} nodes, but the topology "
                                         "has {} hosts",
                                         cm.nodes, numHosts));
        }
        out = std::move(cm.workload);
    }
    else if (w.kind == "jobs")
    {
        WorkloadBuilder b(out);
        AppendJobs(spec, graph, b, out);
        out.description = fmt::format("{} job(s)", spec.jobs.size());
    }
    else if (w.kind == "hpcc")
    {
        std::vector<int64_t> hostOfNode;
        if (spec.topology.kind == "hpcc")
        {
            hostOfNode = ReadHpccTopology(spec.topology.file).hostOfNode;
        }
        out.transfers = ReadHpccFlows(w.file, hostOfNode);
        // HPCC starts flows after seconds of warm-up: keep the offsets, first at start_us.
        uint64_t first = UINT64_MAX;
        for (const auto& t : out.transfers)
        {
            first = std::min(first, t.startPs);
        }
        for (auto& t : out.transfers)
        {
            t.startPs = t.startPs - first + w.startPs;
        }
        out.description = fmt::format("HPCC flows {}", w.file);
    }
    else if (w.kind == "flows")
    {
        uint64_t id = 0;
        for (const auto& f : w.flows)
        {
            TransferSpec t;
            t.externalId = id;
            t.src = f.src;
            t.dst = f.dst;
            t.bytes = f.bytes;
            t.startPs = f.startPs;
            t.qpGroup = static_cast<uint32_t>(id);
            out.transfers.push_back(t);
            ++id;
        }
    }
    else
    {
        throw InputError(spec.sourceFile, spec.LineOf("workload.kind"), "workload.kind",
                         "unknown workload kind \"" + w.kind + "\"");
    }
    if (w.kind != "jobs" && w.kind != "hpcc")
    {
        for (auto& t : out.transfers)
        {
            t.priority = spec.nic.dataPriority;
        }
    }
    if (!spec.background.empty())
    {
        WorkloadBuilder b(out);
        AppendBackground(spec, graph, b);
    }
    const std::string where = w.kind == "htsim" || w.kind == "hpcc" ? w.file : spec.sourceFile;
    for (auto& t : out.transfers)
    {
        if (t.src >= numHosts || t.dst >= numHosts)
        {
            throw InputError(where, spec.LineOf("workload.file"), "workload",
                             fmt::format("transfer {} goes {}->{}, but the topology has {} hosts",
                                         t.externalId, t.src, t.dst, numHosts));
        }
        if (t.src == t.dst)
        {
            throw InputError(where, 0, "workload",
                             fmt::format("transfer {} sends from host {} to itself",
                                         t.externalId, t.src));
        }
    }
    // A transfer waiting for a trigger that can never fire would hang its collective: refuse
    // the workload and name it (the runtime watchdog covers what only the run can show).
    const auto dead = TransfersThatCannotStart(out);
    if (!dead.empty())
    {
        const TransferSpec& t = out.transfers[dead.front()];
        std::string what = fmt::format("transfer {} ({} -> {})", t.externalId, t.src, t.dst);
        if (t.collective >= 0)
        {
            const CollectiveSpec& c = out.collectives[t.collective];
            what = fmt::format("collective {} ({}{}{}) can never complete: {}", t.collective,
                               c.kind, c.name.empty() ? "" : ", " + c.name,
                               c.group.empty() ? "" : ", group " + c.group, what);
        }
        throw InputError(where, 0, "workload",
                         fmt::format("{} of {} transfers can never start; {} waits for trigger "
                                     "{}, which cannot collect the activations it needs",
                                     dead.size(), out.transfers.size(), what,
                                     t.trigger >= 0 ? out.triggers[t.trigger].externalId : 0));
    }
    return out;
}

void
StopSimulator()
{
    Simulator::Stop();
}

/** Per host: payload bytes sent and received through the NIC and through the scale-up port. */
struct HostBytes
{
    uint64_t netSent = 0;
    uint64_t netRecv = 0;
    uint64_t suSent = 0;
    uint64_t suRecv = 0;
};

void
PcapSink(Ptr<PcapFileWrapper> file, Ptr<const Packet> packet)
{
    file->Write(Simulator::Now(), packet);
}

double
PsToUs(uint64_t ps)
{
    return static_cast<double>(ps) / 1e6;
}

/** ns-3 attributes that a scenario key sets: an [ns3] default for them would be overridden. */
const std::map<std::string, std::string>&
ShadowedAttributes()
{
    static const std::map<std::string, std::string> m = {
        {"ns3::RdmaNic::MtuBytes", "nic.mtu_bytes"},
        {"ns3::RdmaNic::AckInterval", "nic.ack_interval"},
        {"ns3::RdmaNic::RetransmitTimeout", "nic.rto_us"},
        {"ns3::RdmaNic::ControlPriority", "nic.control_priority"},
        {"ns3::RdmaNic::CongestionControl", "nic.congestion_control"},
        {"ns3::RdmaNic::CnpInterval", "dcqcn.cnp_interval_us"},
        {"ns3::FabricNetDevice::DataRate", "the topology's link rates"},
        {"ns3::FabricNetDevice::PhyOverheadBytes", "fabric.phy_overhead_bytes"},
        {"ns3::FabricNetDevice::PfcWatchdogTime", "pfc.watchdog_us"},
        {"ns3::FabricNetDevice::PfcWatchdogRecovery", "pfc.watchdog_recovery_us"},
        {"ns3::FabricNetDevice::PfcWatchdogAction", "pfc.watchdog_action"},
        {"ns3::FabricChannel::Delay", "the topology's link delays"},
        {"ns3::SwitchNode::ForwardingLatency", "topology.switch_latency_ns"},
        {"ns3::SwitchNode::PauseQuanta", "pfc.pause_quanta"},
        {"ns3::SwitchNode::PauseRefresh", "pfc.refresh_us"},
        {"ns3::SharedBufferMmu::BufferBytes", "buffer.total_bytes"},
        {"ns3::SharedBufferMmu::ReservedBytes", "buffer.reserved_bytes"},
        {"ns3::SharedBufferMmu::DynamicThreshold", "buffer.threshold"},
        {"ns3::SharedBufferMmu::Alpha", "buffer.alpha"},
        {"ns3::SharedBufferMmu::EgressAlpha", "buffer.egress_alpha"},
        {"ns3::SharedBufferMmu::StaticThresholdBytes", "buffer.static_threshold_bytes"},
        {"ns3::SharedBufferMmu::XonOffsetBytes", "buffer.xon_offset_bytes"},
        {"ns3::SharedBufferMmu::LosslessPriorities", "pfc.lossless_priorities"},
        {"ns3::WorkloadExecutor::QpsPerConnection", "nic.qps_per_connection"},
    };
    return m;
}

/** Apply [ns3] defaults, validating each against its attribute's checker first (a bad value
 *  is an input error, never an ns-3 abort). */
/** [ns3] defaults this run changed, with the values to restore when it ends (ns-3 keeps
 *  defaults for the whole process; a later run in the same process must not inherit them). */
using SavedDefaults = std::vector<std::pair<std::string, Ptr<const AttributeValue>>>;

SavedDefaults
SetDefaults(const ScenarioSpec& spec)
{
    SavedDefaults saved;
    for (const auto& [path, value] : spec.ns3Defaults)
    {
        const std::string key = "ns3." + path;
        auto fail = [&](const std::string& why) {
            throw InputError(spec.sourceFile, spec.LineOf(key), key, why);
        };
        const auto shadow = ShadowedAttributes().find(path);
        if (shadow != ShadowedAttributes().end())
        {
            fail("this attribute is set by the scenario key " + shadow->second + "; use that key");
        }
        const auto sep = path.rfind("::");
        TypeId tid;
        if (sep == std::string::npos || sep == 0 ||
            !TypeId::LookupByNameFailSafe(path.substr(0, sep), &tid))
        {
            fail("expected \"ns3::TypeName::Attribute\"; there is no TypeId \"" +
                 (sep == std::string::npos ? path : path.substr(0, sep)) + "\"");
        }
        TypeId::AttributeInformation info;
        const std::string attr = path.substr(sep + 2);
        if (!tid.LookupAttributeByName(attr, &info))
        {
            fail(tid.GetName() + " has no attribute \"" + attr + "\"");
        }
        // ns-3 sets a default only on the TypeId that declares the attribute.
        bool own = false;
        for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            own = own || tid.GetAttribute(i).name == attr;
        }
        if (!own)
        {
            TypeId declaring = tid.GetParent();
            while (declaring != TypeId())
            {
                bool found = false;
                for (std::size_t i = 0; i < declaring.GetAttributeN(); ++i)
                {
                    found = found || declaring.GetAttribute(i).name == attr;
                }
                if (found)
                {
                    break;
                }
                declaring = declaring.GetParent();
            }
            fail(attr + " is declared by " + declaring.GetName() + "; write \"" +
                 declaring.GetName() + "::" + attr + "\" (it applies to every " +
                 declaring.GetName() + ")");
        }
        std::string why;
        Ptr<AttributeValue> v = ParseAttributeText(info, value, why);
        if (!v)
        {
            fail(why);
        }
        saved.emplace_back(path, info.initialValue);
        Config::SetDefault(path, *v);
    }
    return saved;
}

void
RestoreDefaults(const SavedDefaults& saved)
{
    for (auto it = saved.rbegin(); it != saved.rend(); ++it)
    {
        Config::SetDefault(it->first, *it->second);
    }
}

/**
 * UEC-style transports without explicit ECN thresholds: Kmin = 0.2 BDP and Kmax = 0.8 BDP
 * (Ultra Ethernet 1.0's recommendation) for every port rate of the fabric, with BDP = rate x the
 * base RTT of the longest host-to-host path (ConWeave's convention, oracle 20:
 * 2 x hops x delay + hops x MTU frame / rate).
 */
std::map<uint64_t, EcnThresholds>
BdpEcnThresholds(const ScenarioSpec& spec, const TopologyGraph& graph)
{
    uint32_t hops = 0;
    uint64_t delayPs = 0;
    for (const auto& l : graph.links)
    {
        delayPs = std::max(delayPs, l.delayPs);
    }
    const EqualCostTable routes = ComputeEqualCostPorts(graph);
    const auto ports = IncidentLinks(graph);
    // The longest minimum-hop host-to-host path: host 0 to the farthest host.
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

void
ConfigureBuffersAndPfc(const ScenarioSpec& spec, FabricHelper& helper, const TopologyGraph& graph)
{
    const auto& b = spec.buffer;
    helper.SetMmuAttribute("BufferBytes", UintegerValue(b.totalBytes));
    helper.SetMmuAttribute("ReservedBytes", UintegerValue(b.reservedBytes));
    helper.SetMmuAttribute("DynamicThreshold", BooleanValue(b.dynamicThreshold));
    helper.SetMmuAttribute("Alpha", DoubleValue(b.alpha));
    helper.SetMmuAttribute("EgressAlpha", DoubleValue(b.egressAlpha));
    helper.SetMmuAttribute("StaticThresholdBytes", UintegerValue(b.staticThresholdBytes));
    helper.SetMmuAttribute("XonOffsetBytes", UintegerValue(b.xonOffsetBytes));
    uint8_t lossless = 0;
    if (spec.pfc.enabled)
    {
        for (uint8_t p : spec.pfc.losslessPriorities)
        {
            lossless |= static_cast<uint8_t>(1u << p);
        }
    }
    helper.SetMmuAttribute("LosslessPriorities", UintegerValue(lossless));
    helper.SetHeadroomBytes(b.headroomBytes);
    helper.SetSwitchAttribute("PauseQuanta", UintegerValue(spec.pfc.pauseQuanta));
    helper.SetSwitchAttribute("PauseRefresh", TimeValue(PicoSeconds(spec.pfc.refreshPs)));
    helper.SetPortAttribute("PfcWatchdogTime", TimeValue(PicoSeconds(spec.pfc.watchdogPs)));
    helper.SetPortAttribute("PfcWatchdogRecovery",
                            TimeValue(PicoSeconds(spec.pfc.watchdogRecoveryPs)));
    helper.SetPortAttribute("PfcWatchdogAction",
                            StringValue(spec.pfc.watchdogAction == "forward" ? "Forward" : "Drop"));
    if (spec.ecn.enabled)
    {
        std::map<uint64_t, FabricHelper::EcnConfig> byRate;
        const bool uec = spec.nic.transport.rfind("uec", 0) == 0;
        const auto table = (uec && !spec.ecn.thresholdsGiven) ? BdpEcnThresholds(spec, graph)
                                                               : spec.ecn.byRate;
        for (const auto& [rate, th] : table)
        {
            byRate[rate] = FabricHelper::EcnConfig{th.kminBytes, th.kmaxBytes, th.pmax};
        }
        const auto& f = spec.ecn.fallback;
        helper.SetEcn(byRate, FabricHelper::EcnConfig{f.kminBytes, f.kmaxBytes, f.pmax},
                      spec.ecn.fallbackGiven || spec.ecn.byRate.empty(), "ecn.by_rate");
    }
}

/**
 * DCQCN: the preset's values, then the scenario's explicit ones, as the defaults of
 * ns3::DcqcnCongestionControl (each QP's instance is built from them). Presets:
 * "paper" (Zhu et al. 2015) and "hpcc" (the HPCC simulator's NIC-default style, with R_AI and
 * R_HAI scaled from 5 and 50 Mb/s per 25 Gb/s of host line rate).
 */
void
ConfigureCongestionControl(const ScenarioSpec& spec, const TopologyGraph& graph)
{
    const auto& d = spec.dcqcn;
    uint64_t hostRate = 100'000'000'000ULL;
    for (const auto& l : graph.links)
    {
        if (l.a < graph.numHosts || l.b < graph.numHosts)
        {
            hostRate = l.rateBps;
            break;
        }
    }
    if (spec.ns3Defaults.count("ns3::NsccCongestionControl::MtuBytes") == 0)
    {
        Config::SetDefault("ns3::NsccCongestionControl::MtuBytes",
                           UintegerValue(spec.nic.mtuBytes));
    }
    const std::string P = "ns3::DcqcnCongestionControl::";
    auto set = [&](const std::string& name, const AttributeValue& v) {
        Config::SetDefault(P + name, v);
    };
    if (d.preset == "hpcc")
    {
        const uint64_t per25g = std::max<uint64_t>(1, hostRate / 25'000'000'000ULL);
        set("Gain", DoubleValue(1.0 / 256));
        set("InitialAlpha", DoubleValue(1.0));
        set("AlphaUpdatePeriod", TimeValue(MicroSeconds(55)));
        set("RateIncreaseTimer", TimeValue(MicroSeconds(300)));
        set("ByteCounter", UintegerValue(0));
        set("FastRecoveryStages", UintegerValue(1));
        set("RateAi", UintegerValue(5'000'000 * per25g));
        set("RateHai", UintegerValue(50'000'000 * per25g));
        set("MinRate", UintegerValue(100'000'000));
        set("RateOnFirstCnp", UintegerValue(0));
        set("ClampTargetRate", BooleanValue(false));
        set("MinDecreaseInterval", TimeValue(MicroSeconds(4)));
    }
    else
    {
        set("Gain", DoubleValue(1.0 / 256));
        set("InitialAlpha", DoubleValue(1.0));
        set("AlphaUpdatePeriod", TimeValue(MicroSeconds(55)));
        set("RateIncreaseTimer", TimeValue(MicroSeconds(55)));
        set("ByteCounter", UintegerValue(10'000'000));
        set("FastRecoveryStages", UintegerValue(5));
        set("RateAi", UintegerValue(40'000'000));
        set("RateHai", UintegerValue(200'000'000));
        set("MinRate", UintegerValue(100'000'000));
        set("RateOnFirstCnp", UintegerValue(0));
        set("ClampTargetRate", BooleanValue(true));
        set("MinDecreaseInterval", TimeValue(Time(0)));
    }
    if (d.g) set("Gain", DoubleValue(*d.g));
    if (d.initialAlpha) set("InitialAlpha", DoubleValue(*d.initialAlpha));
    if (d.alphaUpdatePs) set("AlphaUpdatePeriod", TimeValue(PicoSeconds(*d.alphaUpdatePs)));
    if (d.timerPs) set("RateIncreaseTimer", TimeValue(PicoSeconds(*d.timerPs)));
    if (d.byteCounterBytes) set("ByteCounter", UintegerValue(*d.byteCounterBytes));
    if (d.fastRecoveryStages) set("FastRecoveryStages", UintegerValue(*d.fastRecoveryStages));
    if (d.rateAiBps) set("RateAi", UintegerValue(*d.rateAiBps));
    if (d.rateHaiBps) set("RateHai", UintegerValue(*d.rateHaiBps));
    if (d.minRateBps) set("MinRate", UintegerValue(*d.minRateBps));
    if (d.rateOnFirstCnpBps) set("RateOnFirstCnp", UintegerValue(*d.rateOnFirstCnpBps));
    if (d.clampTargetRate) set("ClampTargetRate", BooleanValue(*d.clampTargetRate));
    if (d.minDecreaseIntervalPs) set("MinDecreaseInterval", TimeValue(PicoSeconds(*d.minDecreaseIntervalPs)));
}

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

/** Input errors of [[failures]] (unknown link, a rate divided to 0), before anything is built. */
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

/**
 * \brief Schedule the [[failures]] of `spec` (checked by CheckFailures) on the built fabric:
 * link_down / link_up take both devices of every link between the two named vertices down or
 * up; degrade sets both devices' rate to the link's configured rate / rate_divisor.
 */
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

} // namespace

std::vector<std::string>
ScenarioWarnings(const ScenarioSpec& spec)
{
    std::vector<std::string> w;
    const auto& lossless = spec.pfc.losslessPriorities;
    if (spec.pfc.enabled &&
        std::find(lossless.begin(), lossless.end(), spec.nic.dataPriority) == lossless.end())
    {
        w.push_back(fmt::format("pfc.lossless_priorities does not include nic.data_priority ({}): "
                                "data is lossy and dropped at the egress threshold while PFC "
                                "protects other classes",
                                spec.nic.dataPriority));
    }
    for (size_t i = 0; i < lossless.size(); ++i)
    {
        if (std::find(lossless.begin() + i + 1, lossless.end(), lossless[i]) != lossless.end())
        {
            w.push_back(fmt::format("pfc.lossless_priorities lists priority {} twice", lossless[i]));
        }
    }
    // A pause lasts quanta x 512 bit times; at 400 Gb/s (the fastest common port) that is the
    // shortest, so a refresh slower than it lets pauses expire between refreshes.
    const double pauseUsAt400G = spec.pfc.pauseQuanta * 512.0 / 400e9 * 1e6;
    if (spec.pfc.enabled && spec.pfc.refreshPs > 0 && spec.pfc.refreshPs / 1e6 >= pauseUsAt400G)
    {
        w.push_back(fmt::format("pfc.refresh_us ({:.3f} us) is not shorter than a {}-quanta pause "
                                "at 400 Gb/s ({:.3f} us): pauses can expire before they are "
                                "refreshed",
                                spec.pfc.refreshPs / 1e6, spec.pfc.pauseQuanta, pauseUsAt400G));
    }
    return w;
}

RunResult
RunScenario(const ScenarioSpec& spec, const RunOptions& options)
{
    using Clock = std::chrono::steady_clock;
    const auto wallStart = Clock::now();
    EnsurePicosecondResolution();
    RunResult result;
    result.spec = spec;
    result.warnings = ScenarioWarnings(spec);

    const std::string policy = ResolveSwitchPolicy(spec.lb.policy);
    if (policy.empty())
    {
        throw InputError(spec.sourceFile, spec.LineOf("lb.policy"), "lb.policy",
                         "unknown policy \"" + spec.lb.policy + "\"; expected one of " +
                             PolicyNameList() + " or a LoadBalancer TypeId name");
    }
    result.policyTypeId = policy;
    // A policy preset may bring LoadBalancer attributes, a host path selector and QP scaling;
    // the scenario's own [lb.attributes] and lb.path_selector take precedence.
    const PolicyInfo* preset = FindPolicy(spec.lb.policy);
    std::map<std::string, std::string> lbAttributes;
    if (preset)
    {
        lbAttributes = preset->attributes;
    }
    for (const auto& [k, v] : spec.lb.attributes)
    {
        lbAttributes[k] = v;
    }
    result.pathSelectorTypeId = preset && !preset->pathSelector.empty()
                                    ? preset->pathSelector
                                    : std::string("ns3::FixedPathSelector");
    if (!spec.lb.pathSelector.empty())
    {
        result.pathSelectorTypeId = ResolvePathSelector(spec.lb.pathSelector);
        if (result.pathSelectorTypeId.empty())
        {
            throw InputError(spec.sourceFile, spec.LineOf("lb.path_selector"), "lb.path_selector",
                             "unknown path selector \"" + spec.lb.pathSelector +
                                 "\"; expected one of " + PathSelectorNameList() +
                                 " or a PathSelector TypeId name");
        }
    }
    // UEC-style transports (ns3-modules/rdma/doc/rdma.md): ROD pins one EV per connection
    // whatever the selector; RUD takes the EV of every packet from the selector of the
    // scenario or the policy (fixed for switch-only policies such as ecmp).
    if (spec.nic.transport == "uec-rod")
    {
        result.pathSelectorTypeId = "ns3::FixedPathSelector";
    }
    if (spec.nic.transport != "roce" && spec.nic.rtoPs < kUecMinRtoPs)
    {
        throw InputError(spec.sourceFile, spec.LineOf("nic.rto_us"), "nic.rto_us",
                         fmt::format("the UEC-style transports need a retransmission timeout "
                                     "of at least {} us; got {} us",
                                     kUecMinRtoPs / 1'000'000, spec.nic.rtoPs / 1e6));
    }
    result.qpsPerConnection = preset && preset->qps > 0 ? preset->qps : spec.nic.qpsPerConnection;
    result.qpScaling =
        preset && !preset->qpScaling.empty() ? preset->qpScaling : spec.nic.qpScaling;

    if ((spec.nic.congestionControl == "dcqcn" || spec.nic.congestionControl == "nscc") &&
        !spec.ecn.enabled)
    {
        throw InputError(spec.sourceFile, spec.LineOf("nic.congestion_control"),
                         "nic.congestion_control",
                         "\"" + spec.nic.congestionControl + "\" reacts to ECN marks; it needs "
                         "[ecn] enabled = true (without marks it never slows down)");
    }
    const TopologyGraph graph = BuildGraph(spec);
    CheckFailures(spec, graph);
    WorkloadSpec workload = BuildWorkload(spec, graph);
    if (options.editWorkload)
    {
        options.editWorkload(workload);
    }

    const SavedDefaults savedDefaults = SetDefaults(spec);
    struct Restore
    {
        const SavedDefaults& saved;
        ~Restore() { RestoreDefaults(saved); }
    } restore{savedDefaults}; // also when building throws
    {
        // After SetDefaults, so that [ns3] reaches the scheduler's attributes.
        ObjectFactory scheduler;
        scheduler.SetTypeId(SchedulerTypeId(spec.simulator.scheduler));
        Simulator::SetScheduler(scheduler);
    }
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(spec.seed);

    FabricHelper helper;
    helper.SetPhyOverheadBytes(spec.fabric.phyOverheadBytes);
    ConfigureBuffersAndPfc(spec, helper, graph);
    ConfigureCongestionControl(spec, graph);
    try
    {
        helper.SetLoadBalancer(policy, lbAttributes);
    }
    catch (const InputError& e)
    {
        throw InputError(spec.sourceFile, spec.LineOf(e.Key()), e.Key(), e.Message());
    }
    helper.SetSeed(spec.seed, spec.lb.sameSeedEverywhere);

    std::vector<Ptr<RdmaNic>> nics(graph.numHosts);
    auto makeNic = [&](uint32_t host) -> Ptr<FabricNetDevice> {
        Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
        nic->SetHostId(host);
        nic->SetAttribute("MtuBytes", UintegerValue(spec.nic.mtuBytes));
        nic->SetAttribute("AckInterval", UintegerValue(spec.nic.ackInterval));
        nic->SetAttribute("RetransmitTimeout", TimeValue(PicoSeconds(spec.nic.rtoPs)));
        nic->SetAttribute("ControlPriority", UintegerValue(spec.nic.controlPriority));
        nic->SetAttribute("PathSelector",
                          TypeIdValue(TypeId::LookupByName(result.pathSelectorTypeId)));
        // Loss recovery: RoCEv2 go-back-N or IRN-style selective repeat (nic.receiver); UEC
        // ROD is go-back-N, UEC RUD selective repeat with SACK bitmaps.
        const char* recovery =
            spec.nic.transport == "uec-rud" ? "ns3::UecRudRecovery"
            : (spec.nic.transport == "roce" && spec.nic.receiver == "selective-repeat")
                ? "ns3::SelectiveRepeatRecovery"
                : "ns3::GoBackNRecovery";
        nic->SetAttribute("LossRecovery", TypeIdValue(TypeId::LookupByName(recovery)));
        nic->SetAttribute("CnpOnOutOfOrder", BooleanValue(spec.nic.cnpOnOutOfOrder));
        nic->SetAttribute("CnpInterval", TimeValue(PicoSeconds(spec.dcqcn.cnpIntervalPs)));
        nic->SetAttribute("CongestionControl",
                          TypeIdValue(TypeId::LookupByName(
                              spec.nic.congestionControl == "dcqcn"  ? "ns3::DcqcnCongestionControl"
                              : spec.nic.congestionControl == "nscc" ? "ns3::NsccCongestionControl"
                                                                     : "ns3::RdmaCcNone")));
        nics[host] = nic;
        return nic;
    };
    int64_t streams = 0;
    Fabric fabric = [&]() {
        try
        {
            return helper.Build(graph, makeNic, 100, &streams);
        }
        catch (const InputError& e)
        {
            throw InputError(spec.sourceFile, spec.LineOf(e.Key()), e.Key(), e.Message());
        }
    }();
    int64_t stream = 100 + streams;
    for (auto& nic : nics)
    {
        stream += nic->AssignStreams(stream);
    }
    ScheduleFailures(spec, graph, fabric);

    Ptr<WorkloadExecutor> exec = CreateObject<WorkloadExecutor>();
    exec->SetAttribute("QpsPerConnection", UintegerValue(result.qpsPerConnection));
    exec->SetAttribute("QpScaling",
                       EnumValue(result.qpScaling == "round-robin" ? WorkloadExecutor::ROUND_ROBIN
                                                                   : WorkloadExecutor::SPLIT));
    exec->SetAttribute("QpMessageBytes", UintegerValue(spec.nic.qpMessageBytes));
    exec->SetAttribute("QpEntropy",
                       EnumValue(spec.nic.qpEntropy == "sequential" ? WorkloadExecutor::SEQUENTIAL_PORTS
                                 : spec.nic.qpEntropy == "shared"   ? WorkloadExecutor::SHARED_PORT
                                                                    : WorkloadExecutor::RANDOM_PORTS));
    exec->AssignStreams(stream++);
    exec->SetAttribute("StallTimeout", TimeValue(PicoSeconds(spec.workload.watchdogPs)));
    Ptr<ScaleUpDomain> scaleUp;
    if (spec.scaleUp.gpusPerServer > 1)
    {
        scaleUp = CreateObject<ScaleUpDomain>();
        scaleUp->SetAttribute("GpusPerServer", UintegerValue(spec.scaleUp.gpusPerServer));
        scaleUp->SetAttribute("Rate", DataRateValue(DataRate(spec.scaleUp.rateBps)));
        scaleUp->SetAttribute("Latency", TimeValue(PicoSeconds(spec.scaleUp.latencyPs)));
        exec->SetScaleUpDomain(scaleUp);
    }
    exec->Setup(workload, nics);
    exec->SetAllDoneCallback(MakeCallback(&StopSimulator));
    exec->SetStallCallback(MakeCallback(&StopSimulator));

    if (spec.output.pcap && !options.pcapDir.empty())
    {
        PcapHelper pcap;
        for (uint32_t h = 0; h < nics.size(); ++h)
        {
            Ptr<PcapFileWrapper> file = pcap.CreateFile(
                fmt::format("{}/host{}.pcap", options.pcapDir, h), std::ios::out,
                PcapHelper::DLT_EN10MB);
            nics[h]->TraceConnectWithoutContext("Sniffer",
                                                MakeBoundCallback(&PcapSink, file));
        }
    }

    // Progress: a light periodic event that prints only when a few seconds of wall time passed.
    auto lastPrint = Clock::now();
    const Time tick = MicroSeconds(20);
    std::function<void()> progress = [&]() {
        const auto now = Clock::now();
        if (options.progress && now - lastPrint > std::chrono::seconds(3))
        {
            const double wall = std::chrono::duration<double>(now - wallStart).count();
            size_t done = 0;
            for (const auto& r : exec->GetRecords())
            {
                done += (r.recvDone && r.sendDone) ? 1 : 0;
            }
            std::cerr << fmt::format("[tusk] {}: sim {:.3f} ms, {:.2f} M events/s, {}/{} "
                                     "transfers done\n",
                                     spec.name, Simulator::Now().GetSeconds() * 1e3,
                                     Simulator::GetEventCount() / wall / 1e6, done,
                                     exec->GetRecords().size());
            lastPrint = now;
        }
        if (!exec->AllDone())
        {
            Simulator::Schedule(tick, progress);
        }
    };
    Simulator::Schedule(tick, progress);

    TimeSeriesSampler sampler; // timeseries.csv: a periodic event, off the forwarding path
    if (spec.output.samplePs > 0)
    {
        sampler.AddSwitchPorts(fabric);
        sampler.Start(PicoSeconds(spec.output.samplePs));
    }

    // PFC observability: the pause event table, and deadlock detection.
    std::vector<PfcEventRow>& pfcEvents = result.pfcEvents;
    for (const auto& l : fabric.links)
    {
        const TopoLink& tl = graph.links[l.graphLink];
        for (int dir = 0; dir < 2; ++dir)
        {
            Ptr<FabricNetDevice> dev = dir == 0 ? l.devA : l.devB;
            const std::string at = graph.vertices[dir == 0 ? tl.a : tl.b].name;
            const std::string peer = graph.vertices[dir == 0 ? tl.b : tl.a].name;
            dev->TraceConnectWithoutContext(
                "Pfc",
                Callback<void, const PfcEvent&>([&pfcEvents, at, peer](const PfcEvent& e) {
                    pfcEvents.push_back(PfcEventRow{e, at, peer});
                }));
        }
    }
    Ptr<PfcDeadlockDetector> detector;
    std::string deadlock;
    if (spec.pfc.enabled && spec.pfc.deadlockDetectPs > 0)
    {
        detector = CreateObject<PfcDeadlockDetector>();
        detector->SetAttribute("Threshold", TimeValue(PicoSeconds(spec.pfc.deadlockDetectPs)));
        std::vector<std::string> names;
        for (uint32_t s = 0; s < graph.NumSwitches(); ++s)
        {
            names.push_back(graph.vertices[graph.numHosts + s].name);
        }
        detector->Install(fabric.switches, names);
        detector->SetDeadlockCallback(Callback<void, std::string>([&deadlock](std::string c) {
            deadlock = c;
            Simulator::Stop();
        }));
        detector->Start();
    }

    if (options.beforeRun)
    {
        options.beforeRun(fabric, nics);
    }
    exec->Start();
    Simulator::Stop(PicoSeconds(spec.stopTimePs));
    const auto runStart = Clock::now();
    result.setupSeconds = std::chrono::duration<double>(runStart - wallStart).count();
    Simulator::Run();
    result.runSeconds = std::chrono::duration<double>(Clock::now() - runStart).count();
    if (options.afterRun)
    {
        options.afterRun(fabric, nics);
    }
    const uint64_t endPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    sampler.Finish(Simulator::Now());
    result.timeSeries = sampler.Take();
    result.events = Simulator::GetEventCount();
    result.finished = exec->AllDone();
    result.hosts = graph.numHosts;
    result.switches = graph.NumSwitches();

    // ---- flows ------------------------------------------------------------------------
    Framing framing;
    framing.mtuBytes = spec.nic.mtuBytes;
    framing.headerBytes = kRoceDataOverheadBytes;
    framing.phyOverheadBytes = spec.fabric.phyOverheadBytes;
    const auto& records = exec->GetRecords();
    uint64_t lastCompletion = 0;
    for (uint32_t t = 0; t < workload.transfers.size(); ++t)
    {
        const TransferSpec& ts = workload.transfers[t];
        // Counts of messages still in progress included: an unfinished transfer's
        // retransmissions are what explains it.
        const TransferRecord r = exec->RecordWithPending(t);
        FlowRow row;
        row.id = ts.externalId;
        row.src = ts.src;
        row.dst = ts.dst;
        row.bytes = ts.bytes;
        row.started = r.started;
        row.finished = r.recvDone;
        row.startPs = r.startPs;
        row.deliveredBytes = exec->DeliveredBytes(t);
        row.qps = r.qps;
        row.entropy = r.entropy;
        row.retxPackets = r.retxPackets;
        row.retxBytes = r.retxBytes;
        row.oooPackets = r.oooPackets;
        row.reorderMax = r.reorderMax;
        row.reorderMean =
            r.oooPackets ? static_cast<double>(r.reorderSum) / static_cast<double>(r.oooPackets) : 0;
        row.naks = r.naks;
        row.spuriousRetx = r.duplicates;
        row.collective = ts.collective;
        row.step = ts.step;
        row.channel = ts.channel;
        row.job = ts.collective >= 0 ? workload.collectives[ts.collective].job : -1;
        row.background = ts.background;
        row.scaleUp = scaleUp && scaleUp->SameServer(ts.src, ts.dst);
        // Ideal: the transfer alone on its best path. Posted as one message: the closed form.
        // Split over several messages (QP scaling): the NIC interleaves their packets
        // round-robin, so the ideal is that packet sequence through the path's recurrence.
        // Inside a server: the scale-up domain's latency plus the bytes at its rate.
        if (row.scaleUp)
        {
            row.idealFctPs = scaleUp->IdealFctPs(ts.bytes);
        }
        else if (r.messages.size() > 1)
        {
            row.idealFctPs = fabric.IdealFctPsOfPackets(
                ts.src, ts.dst, RoundRobinPackets(r.messages, spec.nic.mtuBytes), framing);
        }
        else
        {
            row.idealFctPs = fabric.IdealFctPs(ts.src, ts.dst, ts.bytes, framing);
        }
        if (r.recvDone)
        {
            row.finishPs = r.recvDonePs;
            row.fctPs = r.recvDonePs - r.startPs;
            row.slowdown = static_cast<double>(row.fctPs) / static_cast<double>(row.idealFctPs);
            lastCompletion = std::max(lastCompletion, r.recvDonePs);
        }
        if (r.sendDone)
        {
            lastCompletion = std::max(lastCompletion, r.sendDonePs);
        }
        result.flows.push_back(row);
    }
    result.simEndPs = result.finished ? lastCompletion : endPs;

    // ---- collectives -------------------------------------------------------------------
    std::vector<std::vector<uint32_t>> transfersOf(workload.collectives.size());
    for (uint32_t t = 0; t < workload.transfers.size(); ++t)
    {
        const int32_t c = workload.transfers[t].collective;
        if (c >= 0 && static_cast<size_t>(c) < transfersOf.size())
        {
            transfersOf[c].push_back(t);
        }
    }
    for (uint32_t c = 0; c < workload.collectives.size(); ++c)
    {
        const CollectiveSpec& cs = workload.collectives[c];
        CollectiveRow row;
        row.id = c;
        row.kind = cs.kind;
        row.algorithm = cs.algorithm;
        row.job = cs.job;
        row.iteration = cs.iteration;
        row.name = cs.name;
        row.group = cs.group;
        row.slices = cs.slices;
        row.ranks = static_cast<uint32_t>(cs.ranks.size());
        row.bytesPerRank = cs.bytesPerRank;
        row.channels = cs.channels;
        row.busbwFactor = cs.busbwFactor;
        row.stepEndPs.assign(cs.steps, 0);
        row.stepSlowestRank.assign(cs.steps, -1);
        row.stepSlowestFlow.assign(cs.steps, -1);
        row.finished = true;
        row.startPs = UINT64_MAX;
        std::map<uint32_t, HostBytes> bytes;
        for (uint32_t t : transfersOf[c])
        {
            const TransferSpec& ts = workload.transfers[t];
            const TransferRecord& r = records[t];
            const bool su = scaleUp && scaleUp->SameServer(ts.src, ts.dst);
            (su ? bytes[ts.src].suSent : bytes[ts.src].netSent) += ts.bytes;
            (su ? bytes[ts.dst].suRecv : bytes[ts.dst].netRecv) += ts.bytes;
            if (r.started)
            {
                // Dependency-free transfers start with the collective.
                row.startPs = std::min(row.startPs, r.startPs);
            }
            if (!r.recvDone)
            {
                row.finished = false;
                continue;
            }
            row.finishPs = std::max(row.finishPs, r.recvDonePs);
            if (ts.step >= 0 && static_cast<uint32_t>(ts.step) < cs.steps &&
                r.recvDonePs > row.stepEndPs[ts.step])
            {
                row.stepEndPs[ts.step] = r.recvDonePs;
                row.stepSlowestFlow[ts.step] = static_cast<int64_t>(ts.externalId);
                const auto it = std::find(cs.ranks.begin(), cs.ranks.end(), ts.src);
                row.stepSlowestRank[ts.step] =
                    it == cs.ranks.end() ? -1 : static_cast<int64_t>(it - cs.ranks.begin());
            }
        }
        if (row.startPs == UINT64_MAX)
        {
            row.startPs = 0;
        }
        // A step is complete only if every transfer of it was delivered: no end time (and no
        // slowest rank or flow) for a step still running.
        std::vector<bool> stepUnfinished(cs.steps, false);
        for (uint32_t t : transfersOf[c])
        {
            const TransferSpec& ts = workload.transfers[t];
            if (!records[t].recvDone && ts.step >= 0 && static_cast<uint32_t>(ts.step) < cs.steps)
            {
                stepUnfinished[ts.step] = true;
            }
        }
        for (uint32_t k = 0; k < cs.steps; ++k)
        {
            if (stepUnfinished[k] || row.stepSlowestFlow[k] < 0)
            {
                row.stepEndPs[k] = kNoTime;
                row.stepSlowestRank[k] = -1;
                row.stepSlowestFlow[k] = -1;
            }
        }
        // Byte bound: no rank can move its bytes faster than the port they use.
        double bound = 0;
        for (const auto& [h, b] : bytes)
        {
            const double nic = static_cast<double>(nics[h]->GetRateBps());
            bound = std::max(bound, static_cast<double>(std::max(b.netSent, b.netRecv)) * 8 / nic);
            if (scaleUp)
            {
                const double su = static_cast<double>(scaleUp->GetRateBps());
                bound = std::max(bound, static_cast<double>(std::max(b.suSent, b.suRecv)) * 8 / su);
            }
        }
        row.lowerBoundPs = static_cast<uint64_t>(std::llround(bound * 1e12));
        if (row.finished && row.finishPs > row.startPs)
        {
            row.cctPs = row.finishPs - row.startPs;
            row.algbwGBps = static_cast<double>(cs.bytesPerRank) / (row.cctPs * 1e-12) / 1e9;
            row.busbwGBps = row.algbwGBps * cs.busbwFactor;
        }
        result.collectives.push_back(row);
    }

    // ---- jobs --------------------------------------------------------------------------
    for (uint32_t j = 0; j < workload.jobs.size(); ++j)
    {
        const JobInfo& ji = workload.jobs[j];
        JobRow row;
        row.id = j;
        row.name = ji.name;
        row.hosts = ji.hosts;
        row.tp = ji.tp;
        row.pp = ji.pp;
        row.dp = ji.dp;
        row.ep = ji.ep;
        row.placement = ji.placement;
        row.source = ji.source;
        row.note = ji.note;
        row.iterations = ji.iterations;
        row.startPs = ji.startPs;
        row.iterationEndPs.assign(ji.iterations, 0);
        row.finished = true;
        std::vector<bool> iterationDone(ji.iterations, true);
        for (const auto& c : result.collectives)
        {
            if (c.job != static_cast<int32_t>(j))
            {
                continue;
            }
            ++row.collectives;
            const bool inRange = c.iteration >= 0 && static_cast<uint32_t>(c.iteration) < ji.iterations;
            if (!c.finished)
            {
                row.finished = false;
                if (inRange)
                {
                    iterationDone[c.iteration] = false;
                }
                continue;
            }
            row.finishPs = std::max(row.finishPs, c.finishPs);
            if (inRange)
            {
                row.iterationEndPs[c.iteration] =
                    std::max(row.iterationEndPs[c.iteration], c.finishPs);
            }
        }
        for (uint32_t i = 0; i < ji.iterations; ++i)
        {
            if (!iterationDone[i])
            {
                row.iterationEndPs[i] = 0;
            }
        }
        if (!row.finished)
        {
            row.finishPs = 0;
        }
        result.jobs.push_back(row);
    }

    // ---- links and conservation --------------------------------------------------------
    const double durationS = std::max<uint64_t>(result.simEndPs, 1) * 1e-12;
    Conservation& cons = result.conservation;
    for (const auto& nic : nics)
    {
        cons.sent += nic->GetCounters().txFrames;
        cons.received += nic->GetCounters().rxFrames;
    }
    for (const auto& l : fabric.links)
    {
        const TopoLink& tl = graph.links[l.graphLink];
        cons.inFlight += l.channel->GetFramesInFlight();
        for (int dir = 0; dir < 2; ++dir)
        {
            Ptr<FabricNetDevice> dev = dir == 0 ? l.devA : l.devB;
            const uint32_t from = dir == 0 ? tl.a : tl.b;
            const uint32_t to = dir == 0 ? tl.b : tl.a;
            dev->FlushUtilisation(Simulator::Now());
            const PortCounters& pc = dev->GetCounters();
            LinkRow row;
            row.link = l.graphLink;
            row.from = graph.vertices[from].name;
            row.to = graph.vertices[to].name;
            row.fromTier = graph.vertices[from].tier;
            row.toTier = graph.vertices[to].tier;
            row.uplink = graph.vertices[from].kind == TopoVertex::SWITCH &&
                         graph.vertices[to].kind == TopoVertex::SWITCH && row.toTier > row.fromTier;
            row.rateBps = dev->GetRateBps();
            row.txFrames = pc.txFrames;
            row.txBytes = pc.txBytes;
            row.meanUtilisation = pc.txWireBytes * 8.0 / (row.rateBps * durationS);
            row.maxUtilisation = pc.maxWindowUtilisation;
            row.maxQueueBytes = pc.maxQueueBytes;
            row.pfcPauseTx = pc.pfcXoffTx;
            row.pfcFramesTx = pc.pfcTx;
            row.pfcFramesRx = pc.pfcRx;
            row.ecnMarks = pc.ecnMarks;
            row.watchdogTriggers = pc.watchdogTriggers;
            for (uint8_t p = 0; p < 8; ++p)
            {
                row.pausedPs += dev->GetPausedPs(p, Simulator::Now());
            }
            for (int k = 0; k < kDropReasons; ++k)
            {
                row.drops[k] = pc.drops[k];
                if (static_cast<DropReason>(k) != DropReason::NIC_STALE)
                {
                    cons.dropped += pc.drops[k];
                }
            }
            result.packetHops += pc.txFrames;
            result.links.push_back(row);
        }
    }
    // Byte share of each uplink among the uplinks of its switch.
    {
        std::map<std::string, uint64_t> upTotal;
        for (const auto& l : result.links)
        {
            if (l.uplink)
            {
                upTotal[l.from] += l.txBytes;
            }
        }
        for (auto& l : result.links)
        {
            if (l.uplink)
            {
                const uint64_t total = upTotal[l.from];
                l.byteShare = total ? static_cast<double>(l.txBytes) / static_cast<double>(total) : 0;
            }
        }
    }
    for (const auto& sw : fabric.switches)
    {
        cons.inFlight += sw->GetFramesInPipeline();
        for (uint16_t p = 0; p < sw->GetNPorts(); ++p)
        {
            cons.inFlight += sw->GetPort(p)->GetQueuedFrames();
        }
    }

    // ---- summary ------------------------------------------------------------------------
    RunSummary& s = result.summary;
    s.policy = spec.lb.policy;
    s.flows = result.flows.size();
    std::vector<double> slowdowns;
    std::vector<double> fcts;
    for (const auto& f : result.flows)
    {
        if (f.finished)
        {
            slowdowns.push_back(f.slowdown);
            fcts.push_back(PsToUs(f.fctPs));
        }
        else
        {
            ++s.unfinished;
        }
        s.retxPackets += f.retxPackets;
        s.oooPackets += f.oooPackets;
        s.retxBytes += f.retxBytes;
        s.naks += f.naks;
        s.spuriousRetx += f.spuriousRetx;
        s.reorderMax = std::max(s.reorderMax, f.reorderMax);
        s.reorderMean += f.reorderMean * static_cast<double>(f.oooPackets);
    }
    s.reorderMean = s.oooPackets ? s.reorderMean / static_cast<double>(s.oooPackets) : 0;
    s.meanSlowdown = Mean(slowdowns);
    s.p50Slowdown = Quantile(slowdowns, 0.5);
    s.p99Slowdown = Quantile(slowdowns, 0.99);
    s.maxSlowdown = Max(slowdowns);
    s.maxFctUs = Max(fcts);
    s.p99FctUs = Quantile(fcts, 0.99);
    s.cctUs = std::numeric_limits<double>::quiet_NaN();
    s.algbwGBps = std::numeric_limits<double>::quiet_NaN(); // no finished collective: no value
    s.busbwGBps = std::numeric_limits<double>::quiet_NaN();
    for (const auto& c : result.collectives)
    {
        if (c.finished && (std::isnan(s.cctUs) || PsToUs(c.cctPs) > s.cctUs))
        {
            s.cctUs = PsToUs(c.cctPs);
            s.algbwGBps = c.algbwGBps;
            s.busbwGBps = c.busbwGBps;
        }
    }
    std::vector<double> upUtil;
    for (const auto& l : result.links)
    {
        for (int k = 0; k < kDropReasons; ++k)
        {
            if (static_cast<DropReason>(k) != DropReason::NIC_STALE)
            {
                s.drops += l.drops[k];
            }
        }
        if (l.uplink)
        {
            upUtil.push_back(l.meanUtilisation);
        }
    }
    // No switch-to-switch uplinks (one switch, a ring), or none that carried anything: there is
    // no balance to report, so the values are empty rather than a perfect-looking 1.
    const double none = std::numeric_limits<double>::quiet_NaN();
    s.uplinkMaxUtil = upUtil.empty() ? none : Max(upUtil);
    s.uplinkMeanUtil = upUtil.empty() ? none : Mean(upUtil);
    // Balance is judged among the uplinks of one switch (the choices one policy instance
    // has), then combined over switches weighted by their uplink bytes, so a switch that only
    // sends ACKs up does not count as much as one that sends the data.
    {
        std::map<std::string, std::vector<double>> bySwitch;
        for (const auto& l : result.links)
        {
            if (l.uplink)
            {
                bySwitch[l.from].push_back(static_cast<double>(l.txBytes));
            }
        }
        double sumMax = 0;
        double sumMean = 0;
        double jainWeighted = 0;
        double total = 0;
        for (const auto& [from, bytes] : bySwitch)
        {
            const double mean = Mean(bytes);
            sumMax += Max(bytes);
            sumMean += mean;
            jainWeighted += JainIndex(bytes) * mean * bytes.size();
            total += mean * bytes.size();
        }
        s.uplinkImbalance = sumMean > 0 ? sumMax / sumMean : none;
        s.uplinkJain = total > 0 ? jainWeighted / total : none;
    }
    double pausedSum = 0;
    for (const auto& l : result.links)
    {
        s.pfcPauses += l.pfcPauseTx;
        s.ecnMarks += l.ecnMarks;
        pausedSum += static_cast<double>(l.pausedPs) / std::max<uint64_t>(result.simEndPs, 1);
    }
    for (const auto& sw : fabric.switches)
    {
        s.trimmedFrames += sw->GetTrimmedFrames();
    }
    s.pausedFraction = result.links.empty() ? 0 : pausedSum / result.links.size();
    for (const auto& e : result.pfcEvents)
    {
        if (e.event.sent && e.event.quanta > 0)
        {
            s.pfcMaxDepth = std::max<uint32_t>(s.pfcMaxDepth, e.event.depth);
        }
    }

    if (!deadlock.empty())
    {
        result.failure = deadlock;
    }
    else if (exec->IsStalled())
    {
        // The watchdog stopped a run that could not progress: always a failure, and named.
        result.failure = fmt::format("watchdog: no progress for {:.3f} ms at {:.3f} ms",
                                     spec.workload.watchdogPs / 1e9, exec->GetStallPs() / 1e9);
        for (const auto& line : exec->DescribeBlocked())
        {
            result.failure += "; " + line;
        }
    }
    else if (!result.finished && spec.requireFinish)
    {
        // The same count as flows.csv (finished = every byte delivered) and the manifest.
        result.failure = fmt::format("{} of {} transfers unfinished at {:.3f} ms (stop_time_ms = "
                                     "{:.3f})",
                                     std::count_if(records.begin(), records.end(),
                                                   [](const TransferRecord& r) {
                                                       return !r.recvDone;
                                                   }),
                                     records.size(), endPs / 1e9, spec.stopTimePs / 1e9);
        for (const auto& line : exec->DescribeBlocked(4))
        {
            result.failure += "; " + line;
        }
    }
    if (!cons.Holds())
    {
        result.failure += fmt::format("{}packet conservation violated: sent {} != received {} + "
                                      "dropped {} + in flight {}",
                                      result.failure.empty() ? "" : "; ", cons.sent,
                                      cons.received, cons.dropped, cons.inFlight);
    }

    exec->Dispose();
    if (detector)
    {
        detector->Dispose();
    }
    Simulator::Destroy();
    result.wallSeconds = std::chrono::duration<double>(Clock::now() - wallStart).count();
    return result;
}

} // namespace tusk
