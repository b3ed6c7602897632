/*
 * tusk: the run's workload: transfers, collectives and jobs from the scenario (generators,
 * importers, [[jobs]], [[background]]), and the executor that runs them on the NICs.
 */
#include "run/run-stages.h"
#include "run/lazy-jobs.h"
#include "scenario/topology-kinds.h"

#include "fabric/helper/in-network-endpoints.h"
#include "workload/model/background-traffic.h"
#include "importers/model/hpcc-reader.h"
#include "importers/model/htsim-cm-reader.h"
#include "workload/model/job-model.h"
#include "importers/model/simai-workload.h"
#include "workload/model/traffic-generators.h"
#include "workload/model/workload-builder.h"

#include "ns3/data-rate.h"
#include "ns3/enum.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <fmt/format.h>

#include <algorithm>

namespace tusk
{

using namespace ns3;

namespace
{

/** Rack of every host for rack-aware placement: the vertex's pod where the topology kind
 *  says it is the rack (a rail group), else the switch the host's link goes to. */
std::vector<uint32_t>
RackOfHosts(const ScenarioSpec& spec, const TopologyGraph& g)
{
    std::vector<uint32_t> rack(g.numHosts, 0);
    const TopologyKindInfo* kind = FindTopologyKind(spec.topology.kind);
    if (kind != nullptr && kind->pod == TopologyKindInfo::POD_RACK)
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

} // namespace

/** Lower every [[jobs]] entry into `out` (placement in order: earlier jobs take hosts first). */
void
AppendJobs(const ScenarioSpec& spec,
           const TopologyGraph& g,
           WorkloadBuilder& b,
           WorkloadSpec& out,
           const LowerJob& lower)
{
    const uint32_t numHosts = g.NumRankHosts(); // aggregation endpoints hold no ranks
    std::vector<bool> used(numHosts, false);
    const AggregationTree tree = AggregationTreeOf(g);
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
        js.linkGBps = FirstHostRateBps(g) / 8e9;
        if (g.aggregationEndpoints > 0)
        {
            js.innetworkReduction = true;
            js.aggregationEndpointOf = tree.leafEndpointOf;
            js.aggregationRoot = tree.rootEndpoint;
        }
        else
        {
            for (size_t k = 0; k < je.collectives.size(); ++k)
            {
                if (je.collectives[k].algorithm == "in-network")
                {
                    fail(fmt::format("collectives[{}].algorithm", k),
                         "\"in-network\" needs switches that aggregate: set [topology] "
                         "in_network_reduction = true (leaf-spine or fat-tree)");
                }
            }
        }
        if (const TopologyKindInfo* kind = FindTopologyKind(spec.topology.kind);
            kind != nullptr && kind->pod == TopologyKindInfo::POD_SITE)
        {
            for (uint32_t h = 0; h < numHosts; ++h)
            {
                js.siteOf.push_back(g.vertices[h].pod);
            }
        }
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
            lower(b, out, js);
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
            for (uint32_t h = 0; h < g.NumRankHosts(); ++h)
            {
                r.hosts.push_back(h);
            }
        }
        for (uint32_t h : r.hosts)
        {
            if (h >= g.NumRankHosts())
            {
                throw spec.KeyError(bp + ".hosts",
                                    fmt::format("host {} does not exist: the topology has {} hosts",
                                                h, g.NumRankHosts()));
            }
        }
        r.load = be.load;
        r.hostRateBps = HostRateBps(g, r.hosts.front());
        r.startPs = be.startPs;
        r.durationPs = be.durationPs;
        r.seed = be.seed ? be.seed : spec.seed * 7919ULL + i + 1;
        r.priority = static_cast<uint8_t>(be.priority >= 0 ? be.priority : spec.nic.dataPriority);
        r.qps = be.qps;
        r.sizeRounding = be.sizeRounding == "hpcc" ? CdfSizeRounding::HpccTruncate
                                                    : CdfSizeRounding::Exact;
        try
        {
            for (const auto& f : MakePoissonBackground(r, FlowSizeCdf::Read(be.cdfFile)))
            {
                b.AddTransfer(f);
            }
        }
        catch (const InputError& e)
        {
            ThrowAsScenarioKey(spec, e, "background", bp, static_cast<int64_t>(i));
        }
    }
}

namespace
{

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
            throw spec.KeyError("workload.hosts",
                                fmt::format("host {} does not exist: the topology has {} hosts "
                                            "(0..{})",
                                            h, numHosts, numHosts - 1));
        }
    }
    return hosts;
}

/** The transfers of a ring-allreduce, permutation or incast workload. */
WorkloadSpec
GeneratePattern(const ScenarioSpec& spec, uint32_t numHosts)
{
    const auto& w = spec.workload;
    WorkloadSpec out;
    if (w.kind == "ring-allreduce")
    {
        return MakeRingAllReduce(Participants(spec, numHosts), w.bytes, w.channels, w.startPs);
    }
    if (w.kind == "permutation")
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
            throw InputError(spec.FileOf("workload.incast_dst"), spec.LineOf("workload.incast_dst"),
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
    return out;
}

void
StopSimulator()
{
    Simulator::Stop();
}

} // namespace

void
CheckWorkload(const ScenarioSpec& spec, const TopologyGraph& graph, const WorkloadSpec& out)
{
    const auto& w = spec.workload;
    const std::string where = w.kind == "htsim" || w.kind == "hpcc" ? w.file : spec.sourceFile;
    for (auto& t : out.transfers)
    {
        // Only a collective's transfers (an in-network all-reduce) reach aggregation endpoints
        // (a lazily built job's sample iterations carry no collective ids: a job's transfer).
        const bool collective = t.collective >= 0 || (w.kind == "jobs" && !t.background);
        const uint32_t reachable = collective ? graph.numHosts : graph.NumRankHosts();
        if (t.src >= reachable || t.dst >= reachable)
        {
            throw InputError(where, spec.LineOf("workload.file"), "workload",
                             fmt::format("transfer {} goes {}->{}, but the topology has {} hosts",
                                         t.externalId, t.src, t.dst, graph.NumRankHosts()));
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
}

std::optional<LazyRing>
BuildLazyRing(const ScenarioSpec& spec, const TopologyGraph& graph, uint32_t windowSteps)
{
    const auto& w = spec.workload;
    if (w.kind != "ring-allreduce" || !spec.background.empty())
    {
        return std::nullopt;
    }
    LazyRing ring;
    try
    {
        const std::vector<uint32_t> ranks = Participants(spec, graph.NumRankHosts());
        CheckRingRanks(ranks, w.bytes, w.channels);
        if (ranks.size() < 2)
        {
            return std::nullopt;
        }
        const uint64_t perStep = uint64_t(ranks.size()) * w.channels;
        constexpr uint64_t kWindowTransfers = 4096;
        const uint32_t steps = windowSteps > 0
                                   ? windowSteps
                                   : static_cast<uint32_t>(
                                         std::max<uint64_t>(1, (kWindowTransfers + perStep - 1) / perStep));
        ring.units = std::make_shared<const RingStepUnits>(ranks, w.bytes, w.channels, w.startPs,
                                                           spec.nic.dataPriority, steps);
    }
    catch (const InputError&)
    {
        return std::nullopt; // the whole build refuses it, with its message
    }
    ring.sample = ring.units->Sample();
    CheckWorkload(spec, graph, ring.sample);
    ring.rest = std::make_shared<const WorkloadSpec>(ring.units->Rest());
    return ring;
}

WorkloadSpec
BuildWorkload(const ScenarioSpec& spec, const TopologyGraph& graph)
{
    const uint32_t numHosts = graph.NumRankHosts(); // aggregation endpoints carry no workload
    const auto& w = spec.workload;
    WorkloadSpec out;
    if (w.kind == "ring-allreduce" || w.kind == "permutation" || w.kind == "incast")
    {
        try
        {
            out = GeneratePattern(spec, numHosts);
        }
        catch (const InputError& e)
        {
            ThrowAsScenarioKey(spec, e, "workload", "workload");
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
        AppendJobs(spec, graph, b, out, AppendJob);
        out.description = fmt::format("{} job(s)", spec.jobs.size());
    }
    else if (w.kind == "hpcc")
    {
        std::vector<int64_t> hostOfNode;
        if (const TopologyKindInfo* kind = FindTopologyKind(spec.topology.kind);
            kind != nullptr && kind->hostOfNode)
        {
            hostOfNode = kind->hostOfNode(spec.topology); // the node ids of the topology file
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
    else if (w.kind == "chakra")
    {
        AppendChakra(spec, graph, out);
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
        throw spec.KeyError("workload.kind",
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
    CheckWorkload(spec, graph, out);
    return out;
}

void
CheckQpBudget(const ScenarioSpec& spec,
              const RunPlan& plan,
              const TopologyGraph& graph,
              const WorkloadSpec& workload)
{
    const std::vector<uint64_t> qps = WorkloadExecutor::QpsPerHost(
        workload, graph.numHosts, plan.qpsPerConnection, spec.scaleUp.gpusPerServer);
    const auto worst = std::max_element(qps.begin(), qps.end());
    if (worst == qps.end() || *worst <= RdmaNic::kMaxQps)
    {
        return;
    }
    const auto host = static_cast<uint32_t>(worst - qps.begin());
    // The key behind the largest connection at that host.
    const TransferSpec* largest = nullptr;
    for (const auto& t : workload.transfers)
    {
        if ((t.src == host || t.dst == host) &&
            (largest == nullptr || (t.qps ? t.qps : plan.qpsPerConnection) >
                                       (largest->qps ? largest->qps : plan.qpsPerConnection)))
        {
            largest = &t;
        }
    }
    std::string key = plan.qpsPerConnection != spec.nic.qpsPerConnection ? "lb.policy"
                                                                           : "nic.qps_per_connection";
    for (size_t i = 0; largest && largest->qps > 0 && i < spec.background.size(); ++i)
    {
        if (largest->background && spec.background[i].qps == largest->qps)
        {
            key = fmt::format("background[{}].qps", i);
            break;
        }
    }
    for (size_t i = 0; largest && largest->qps > 0 && !largest->background && i < spec.jobs.size(); ++i)
    {
        if (spec.jobs[i].qpsPerConnection == largest->qps)
        {
            key = fmt::format("jobs[{}].qps_per_connection", i);
            break;
        }
    }
    throw spec.KeyError(key,
                        fmt::format("host {} would need {} QPs (each connection's QP count at both "
                                    "ends; QPs are never released), but a NIC can number at most {} "
                                    "(the BTH destination QP field is 24 bits, IBA Vol. 1 9.2, less "
                                    "QP0 and QP1); lower the QP count or the number of connections "
                                    "per host",
                                    host, *worst, RdmaNic::kMaxQps));
}

Executor
SetUpExecutor(const ScenarioSpec& spec,
              const RunPlan& plan,
              std::shared_ptr<const WorkloadSpec> workload,
              BuiltFabric& built,
              RunAttributes& attrs)
{
    Executor ex;
    Ptr<WorkloadExecutor> exec = CreateObject<WorkloadExecutor>();
    ex.exec = exec;
    attrs.Set(exec, "QpsPerConnection", UintegerValue(plan.qpsPerConnection),
              "nic.qps_per_connection (or the policy preset)");
    attrs.Set(exec, "QpScaling",
              EnumValue(plan.qpScaling == "round-robin" ? WorkloadExecutor::ROUND_ROBIN
                                                        : WorkloadExecutor::SPLIT));
    attrs.Set(exec, "QpMessageBytes", UintegerValue(spec.nic.qpMessageBytes));
    attrs.Set(exec, "QpEntropy",
              EnumValue(plan.qpEntropy == "sequential" ? WorkloadExecutor::SEQUENTIAL_PORTS
                        : plan.qpEntropy == "shared"   ? WorkloadExecutor::SHARED_PORT
                        : plan.qpEntropy == "routes"   ? WorkloadExecutor::ROUTES
                                                       : WorkloadExecutor::RANDOM_PORTS));
    exec->AssignStreams(built.nextStream++);
    // No byte can arrive sooner than a path's RTT: a watchdog below a few of the longest RTTs
    // (long-haul links of tens of ms) would call an idle-in-flight fabric stalled. The floor is
    // 4 base RTTs of the longest path class; the manifest keeps the scenario's value.
    uint64_t watchdogPs = spec.workload.watchdogPs;
    if (watchdogPs > 0)
    {
        for (const auto& c : PathClasses(spec, built, built.fabric.graph.NumRankHosts()))
        {
            watchdogPs = std::max(watchdogPs, 4 * c.baseRttPs);
        }
    }
    attrs.Set(exec, "StallTimeout", TimeValue(PicoSeconds(watchdogPs)));
    if (spec.scaleUp.gpusPerServer > 1)
    {
        ex.scaleUp = CreateObject<ScaleUpDomain>();
        attrs.Set(ex.scaleUp, "GpusPerServer", UintegerValue(spec.scaleUp.gpusPerServer));
        attrs.Set(ex.scaleUp, "Rate", DataRateValue(DataRate(spec.scaleUp.rateBps)));
        attrs.Set(ex.scaleUp, "Latency", TimeValue(PicoSeconds(spec.scaleUp.latencyPs)));
        if (built.fabric.graph.aggregationEndpoints > 0)
        {
            attrs.Set(ex.scaleUp, "RankHosts", UintegerValue(built.fabric.graph.NumRankHosts()),
                      "aggregation endpoints are on no server (topology.in_network_reduction)");
        }
        exec->SetScaleUpDomain(ex.scaleUp);
    }
    exec->Setup(std::move(workload), built.nics);
    exec->SetAllDoneCallback(MakeCallback(&StopSimulator));
    exec->SetStallCallback(MakeCallback(&StopSimulator));
    return ex;
}

} // namespace tusk
