#include "runner.h"

#include "stats.h"

#include "fabric/helper/fabric-helper.h"
#include "fabric/model/fabric-units.h"
#include "fabric/model/input-error.h"
#include "lb-policies/policy-registry.h"
#include "rdma/model/rdma-nic.h"
#include "rdma/model/roce-header.h"
#include "workload/model/htsim-cm-reader.h"
#include "workload/model/traffic-generators.h"
#include "workload/model/workload-executor.h"

#include "ns3/config.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-helper.h"
#include "ns3/uinteger.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <limits>

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
    throw InputError(spec.sourceFile, spec.LineOf("topology.kind"), "topology.kind",
                     "expected \"leaf-spine\", \"fat-tree\" or \"htsim\"; got \"" + t.kind + "\"");
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
BuildWorkload(const ScenarioSpec& spec, uint32_t numHosts)
{
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
        out = ReadHtsimCm(w.file);
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
    const std::string where = w.kind == "htsim" ? w.file : spec.sourceFile;
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
        t.priority = spec.nic.dataPriority;
    }
    return out;
}

void
StopSimulator()
{
    Simulator::Stop();
}

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

void
SetDefaults(const ScenarioSpec& spec)
{
    for (const auto& [path, value] : spec.ns3Defaults)
    {
        if (!Config::SetDefaultFailSafe(path, StringValue(value)))
        {
            throw InputError(spec.sourceFile, spec.LineOf("ns3." + path), "ns3." + path,
                             "no such ns-3 attribute, or '" + value + "' is not a valid value");
        }
    }
}

} // namespace

RunResult
RunScenario(const ScenarioSpec& spec, const RunOptions& options)
{
    using Clock = std::chrono::steady_clock;
    const auto wallStart = Clock::now();
    EnsurePicosecondResolution();
    RunResult result;
    result.spec = spec;

    const std::string policy = ResolveSwitchPolicy(spec.lb.policy);
    if (policy.empty())
    {
        std::string names;
        for (const auto& p : SwitchPolicies())
        {
            names += (names.empty() ? "" : ", ") + p.name;
        }
        throw InputError(spec.sourceFile, spec.LineOf("lb.policy"), "lb.policy",
                         "unknown policy \"" + spec.lb.policy + "\"; expected one of " + names +
                             " or a LoadBalancer TypeId name");
    }
    result.policyTypeId = policy;

    const TopologyGraph graph = BuildGraph(spec);
    const WorkloadSpec workload = BuildWorkload(spec, graph.numHosts);

    SetDefaults(spec);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(spec.seed);

    FabricHelper helper;
    helper.SetPortAttribute("QueueBytes", UintegerValue(spec.fabric.portQueueBytes));
    helper.SetPhyOverheadBytes(spec.fabric.phyOverheadBytes);
    try
    {
        helper.SetLoadBalancer(policy, spec.lb.attributes);
    }
    catch (const InputError& e)
    {
        throw InputError(spec.sourceFile, spec.LineOf(e.Key()), e.Key(), e.Message());
    }
    helper.SetSeed(spec.seed);

    std::vector<Ptr<RdmaNic>> nics(graph.numHosts);
    auto makeNic = [&](uint32_t host) -> Ptr<FabricNetDevice> {
        Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
        nic->SetHostId(host);
        nic->SetAttribute("MtuBytes", UintegerValue(spec.nic.mtuBytes));
        nic->SetAttribute("AckInterval", UintegerValue(spec.nic.ackInterval));
        nic->SetAttribute("RetransmitTimeout", TimeValue(PicoSeconds(spec.nic.rtoPs)));
        nic->SetAttribute("ControlPriority", UintegerValue(spec.nic.controlPriority));
        nics[host] = nic;
        return nic;
    };
    int64_t streams = 0;
    Fabric fabric = helper.Build(graph, makeNic, 100, &streams);
    int64_t stream = 100 + streams;
    for (auto& nic : nics)
    {
        stream += nic->AssignStreams(stream);
    }

    Ptr<WorkloadExecutor> exec = CreateObject<WorkloadExecutor>();
    exec->SetAttribute("QpsPerConnection", UintegerValue(spec.nic.qpsPerConnection));
    exec->AssignStreams(stream++);
    exec->Setup(workload, nics);
    exec->SetAllDoneCallback(MakeCallback(&StopSimulator));

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

    if (options.beforeRun)
    {
        options.beforeRun(fabric, nics);
    }
    exec->Start();
    Simulator::Stop(PicoSeconds(spec.stopTimePs));
    Simulator::Run();
    const uint64_t endPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
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
        const TransferRecord& r = records[t];
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
        row.oooPackets = r.oooPackets;
        row.collective = ts.collective;
        row.step = ts.step;
        row.channel = ts.channel;
        // Ideal: the transfer's bytes split over its QPs run in parallel on one NIC, which
        // serialises them: the same as one message of all its bytes at line rate.
        row.idealFctPs = fabric.IdealFctPs(ts.src, ts.dst, ts.bytes, framing);
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
    for (uint32_t c = 0; c < workload.collectives.size(); ++c)
    {
        const CollectiveSpec& cs = workload.collectives[c];
        CollectiveRow row;
        row.id = c;
        row.kind = cs.kind;
        row.ranks = static_cast<uint32_t>(cs.ranks.size());
        row.bytesPerRank = cs.bytesPerRank;
        row.channels = cs.channels;
        row.busbwFactor = cs.busbwFactor;
        row.stepEndPs.assign(cs.steps, 0);
        row.finished = true;
        row.startPs = UINT64_MAX;
        for (uint32_t t = 0; t < workload.transfers.size(); ++t)
        {
            const TransferSpec& ts = workload.transfers[t];
            if (ts.collective != static_cast<int32_t>(c))
            {
                continue;
            }
            row.startPs = std::min(row.startPs, ts.startPs);
            const TransferRecord& r = records[t];
            if (!r.recvDone)
            {
                row.finished = false;
                continue;
            }
            row.finishPs = std::max(row.finishPs, r.recvDonePs);
            if (ts.step >= 0 && static_cast<uint32_t>(ts.step) < cs.steps)
            {
                row.stepEndPs[ts.step] = std::max(row.stepEndPs[ts.step], r.recvDonePs);
            }
        }
        if (row.startPs == UINT64_MAX)
        {
            row.startPs = 0;
        }
        uint64_t slowestRate = UINT64_MAX;
        for (uint32_t h : cs.ranks)
        {
            slowestRate = std::min(slowestRate, nics[h]->GetRateBps());
        }
        if (cs.kind == "ring-allreduce" && !cs.ranks.empty())
        {
            row.lowerBoundPs = static_cast<uint64_t>(std::llround(
                RingAllReduceLowerBoundSeconds(row.ranks, cs.bytesPerRank,
                                               static_cast<double>(slowestRate)) *
                1e12));
        }
        if (row.finished && row.finishPs > row.startPs)
        {
            row.cctPs = row.finishPs - row.startPs;
            row.algbwGBps = static_cast<double>(cs.bytesPerRank) / (row.cctPs * 1e-12) / 1e9;
            row.busbwGBps = row.algbwGBps * cs.busbwFactor;
        }
        result.collectives.push_back(row);
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
    }
    s.meanSlowdown = Mean(slowdowns);
    s.p50Slowdown = Quantile(slowdowns, 0.5);
    s.p99Slowdown = Quantile(slowdowns, 0.99);
    s.maxSlowdown = Max(slowdowns);
    s.maxFctUs = Max(fcts);
    s.p99FctUs = Quantile(fcts, 0.99);
    s.cctUs = std::numeric_limits<double>::quiet_NaN();
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
    std::vector<double> upBytes;
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
            upBytes.push_back(static_cast<double>(l.txBytes));
        }
    }
    s.uplinkMaxUtil = upUtil.empty() ? 0 : Max(upUtil);
    s.uplinkMeanUtil = upUtil.empty() ? 0 : Mean(upUtil);
    s.uplinkJain = JainIndex(upBytes);

    if (!result.finished && spec.requireFinish)
    {
        result.failure = fmt::format("{} of {} transfers unfinished at {:.3f} ms (stop_time_ms = "
                                     "{:.3f})",
                                     std::count_if(records.begin(), records.end(),
                                                   [](const TransferRecord& r) {
                                                       return !(r.recvDone && r.sendDone);
                                                   }),
                                     records.size(), endPs / 1e9, spec.stopTimePs / 1e9);
    }
    if (!cons.Holds())
    {
        result.failure += fmt::format("{}packet conservation violated: sent {} != received {} + "
                                      "dropped {} + in flight {}",
                                      result.failure.empty() ? "" : "; ", cons.sent,
                                      cons.received, cons.dropped, cons.inFlight);
    }

    exec->Dispose();
    Simulator::Destroy();
    result.wallSeconds = std::chrono::duration<double>(Clock::now() - wallStart).count();
    return result;
}

} // namespace tusk
