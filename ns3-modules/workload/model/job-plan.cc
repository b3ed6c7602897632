/*
 * tusk: JobPlan. See job-plan.h.
 */
#include "job-plan.h"
#include "collective-registry.h"
#include "in-network-schedule.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace ns3
{

namespace
{

/** True when `hosts` are whole servers: blocks of G consecutive hosts, each on one server. */
bool
ServerBlocked(const std::vector<uint32_t>& hosts, const std::vector<uint32_t>& serverOf, uint32_t G)
{
    if (serverOf.empty() || G < 1 || hosts.size() % G != 0)
    {
        return false;
    }
    for (size_t b = 0; b < hosts.size(); b += G)
    {
        for (size_t j = 0; j < G; ++j)
        {
            if (hosts[b + j] >= serverOf.size() || serverOf[hosts[b + j]] != serverOf[hosts[b]])
            {
                return false;
            }
        }
    }
    return true;
}

bool
UsesRing(const CollectiveSchedule& s)
{
    return s.algorithm == "ring" &&
           (s.kind == "all-reduce" || s.kind == "all-gather" || s.kind == "reduce-scatter");
}

/** What NCCL's tuner knows of one communicator: its ranks, its size, the ranks per server
 *  (n over the distinct servers of its hosts; 1 without a scale-up domain), the NIC rate. */
AutoAlgorithmInput
AutoInput(const JobSpec& job, const std::vector<uint32_t>& hosts, uint64_t bytes)
{
    AutoAlgorithmInput in;
    in.ranks = static_cast<uint32_t>(hosts.size());
    in.bytes = bytes;
    in.linkGBps = job.linkGBps;
    in.innetworkReduction = job.innetworkReduction;
    if (!job.serverOf.empty())
    {
        std::set<uint32_t> servers;
        for (uint32_t h : hosts)
        {
            servers.insert(h < job.serverOf.size() ? job.serverOf[h] : h);
        }
        in.ranksPerServer = std::max<uint32_t>(in.ranks / std::max<size_t>(servers.size(), 1), 1);
    }
    return in;
}


/** Marks, in a fragment being expanded, the transfers that wait for the iteration's start
 *  trigger (a global index, set when the fragment's ids are made global). */
constexpr int32_t kStartTrigger = std::numeric_limits<int32_t>::max();

} // namespace

JobPlan::JobPlan(WorkloadBuilder& b, const WorkloadSpec& spec, const JobSpec& jobIn)
    : m_job(jobIn),
      m_jobIndex(static_cast<int32_t>(spec.jobs.size()))
{
    Init(b, Bases{spec.transfers.size(), spec.triggers.size(), spec.collectives.size()});
}

JobPlan::JobPlan(WorkloadBuilder& b, const JobSpec& jobIn, int32_t jobIndex, const Bases& start)
    : m_job(jobIn),
      m_jobIndex(jobIndex)
{
    Init(b, start);
}

void
JobPlan::Init(WorkloadBuilder& b, const Bases& start)
{
    const JobSpec& job = m_job;
    const uint32_t n = static_cast<uint32_t>(job.hosts.size());
    const ProcessGroups groups(n, job.degrees);
    m_tp = groups.Tp();
    m_pp = groups.Pp();
    m_dp = groups.Dp();
    m_ep = groups.Ep();
    uint32_t serverSize = 0;
    if (!job.serverOf.empty() && !job.hosts.empty() && job.hosts[0] < job.serverOf.size())
    {
        serverSize = static_cast<uint32_t>(
            std::count(job.serverOf.begin(), job.serverOf.end(), job.serverOf[job.hosts[0]]));
    }
    m_instances.resize(job.collectives.size());
    m_every.resize(job.collectives.size(), 1);
    for (size_t e = 0; e < job.collectives.size(); ++e)
    {
        const JobCollective& jc = job.collectives[e];
        m_every[e] = std::max<uint32_t>(jc.every, 1);
        if (jc.group == "dp" || jc.group == "dpep" || jc.group == "cross-site")
        {
            m_every[e] = std::max(m_every[e], std::max<uint32_t>(job.syncEvery, 1));
        }
    }

    // Schedules and connections per (collective entry, group), built once and reused by
    // every iteration: NCCL communicators (and their QPs) persist across iterations.
    std::map<std::pair<std::string, size_t>, uint32_t> commBase;
    for (size_t e = 0; e < job.collectives.size(); ++e)
    {
        const JobCollective& jc = job.collectives[e];
        if (jc.bytes == 0)
        {
            continue;
        }
        const auto members = jc.group == "site" || jc.group == "cross-site"
                                 ? SiteGroups(job.hosts, job.siteOf, jc.group)
                                 : groups.Groups(jc.group);
        for (size_t g = 0; g < members.size(); ++g)
        {
            const auto& ranks = members[g];
            const uint32_t size = static_cast<uint32_t>(ranks.size());
            std::vector<uint32_t> hosts;
            for (uint32_t r : ranks)
            {
                hosts.push_back(job.hosts[r]);
            }
            Instance inst;
            inst.group = jc.group + std::to_string(g);
            const std::string kind = CanonicalCollectiveKind(jc.kind);
            if (size < 2)
            {
                continue; // a group of one rank communicates nothing
            }
            if (kind == "send-recv" && jc.shift)
            {
                // Pipeline shift: every member r sends to r + 1 at once.
                CollectiveSchedule s;
                s.kind = "send-recv";
                s.algorithm = "p2p";
                s.ranks = size;
                s.bytes = jc.bytes;
                s.busbwFactor = 1.0;
                s.steps = 1;
                for (uint32_t r = 0; r + 1 < size; ++r)
                {
                    CollectiveOp op;
                    op.src = r;
                    op.dst = r + 1;
                    op.bytes = jc.bytes;
                    s.ops.push_back(op);
                }
                inst.schedule = s;
            }
            else
            {
                CollectiveRequest req;
                req.kind = kind;
                req.algorithm = jc.algorithm;
                if (jc.algorithm == "auto")
                {
                    req.algorithm = ChooseCollectiveAlgorithm(kind, "auto", AutoInput(job, hosts, jc.bytes));
                }
                req.ranks = size;
                req.bytes = jc.bytes;
                req.root = jc.root;
                req.peer = jc.peer;
                req.seed = job.seed + e * 7919 + g;
                uint32_t local = jc.localSize;
                if (local == 0)
                {
                    // The server size when the group is made of whole servers, else no
                    // hierarchy (a flat ring).
                    local = ServerBlocked(hosts, job.serverOf, serverSize) ? serverSize : 1;
                }
                req.localSize = local;
                if (req.algorithm == "in-network")
                {
                    req.leafOf = InNetworkLeafOf(hosts, job.aggregationEndpointOf);
                }
                inst.schedule = MakeCollectiveSchedule(req);
                if (inst.schedule.algorithm == "in-network")
                {
                    // Schedule ranks n .. n+A-1 are the aggregation endpoints.
                    const auto endpoints = InNetworkEndpointHosts(req.leafOf, job.aggregationRoot);
                    hosts.insert(hosts.end(), endpoints.begin(), endpoints.end());
                }
            }
            if (inst.schedule.ops.empty())
            {
                continue;
            }
            if (job.railAlignedRings && UsesRing(inst.schedule))
            {
                for (uint32_t c = 0; c < job.exec.channels; ++c)
                {
                    inst.hostsPerChannel.push_back(
                        RailAlignedRingOrder(hosts, job.serverOf, serverSize, c));
                }
            }
            else
            {
                inst.hostsPerChannel.push_back(hosts);
            }
            auto key = std::make_pair(jc.group, g);
            auto it = commBase.find(key);
            if (it == commBase.end())
            {
                it = commBase.emplace(key, b.AllocateConnections(job.exec.channels)).first;
            }
            inst.qpGroupBase = it->second;
            m_instances[e].push_back(std::move(inst));
        }
    }


    // What one lowering of each instance appends, counted on a scratch spec.
    for (auto& entry : m_instances)
    {
        for (Instance& inst : entry)
        {
            WorkloadSpec scratch;
            WorkloadBuilder sb(scratch);
            sb.AddCollective(inst.schedule, inst.hostsPerChannel, job.exec, StartCondition(),
                             inst.qpGroupBase);
            inst.transfers = scratch.transfers.size();
            inst.triggers = scratch.triggers.size();
            for (const auto& t : scratch.transfers)
            {
                inst.qpGroupsEnd = std::max(inst.qpGroupsEnd, t.qpGroup + 1);
            }
        }
    }
    for (size_t e = 0; e < m_instances.size(); ++e)
    {
        if (m_every[e] > job.iterations)
        {
            continue; // never runs: its connections carry nothing
        }
        for (const Instance& inst : m_instances[e])
        {
            m_qpGroupsEnd = std::max(m_qpGroupsEnd, inst.qpGroupsEnd);
        }
    }

    // The ids and start condition of every iteration: the whole build's loop, counting.
    Iteration cur;
    cur.bases = start;
    cur.startTrigger = -1;
    cur.carriedPs = job.startPs; // absolute while the trigger is -1, else a delay after it
    m_iterations.reserve(job.iterations + 1);
    for (uint32_t it = 0; it < job.iterations; ++it)
    {
        m_iterations.push_back(cur);
        uint64_t offset = cur.carriedPs + job.iterationComputePs;
        int32_t trigger = cur.startTrigger;
        bool nonBlocking = false;
        bool any = false;
        for (size_t e = 0; e < job.collectives.size(); ++e)
        {
            offset += job.collectives[e].computePs;
            if (!Runs(e, it))
            {
                continue;
            }
            for (const Instance& inst : m_instances[e])
            {
                cur.bases.transfer += inst.transfers;
                cur.bases.trigger += inst.triggers;
                cur.bases.collective += 1;
            }
            any = true; // an instance always has transfers (empty schedules are not kept)
            if (job.collectives[e].blocking)
            {
                trigger = static_cast<int32_t>(cur.bases.trigger);
                cur.bases.trigger += 1;
                offset = 0;
            }
            else
            {
                nonBlocking = true;
            }
        }
        if (nonBlocking && any)
        {
            trigger = static_cast<int32_t>(cur.bases.trigger);
            cur.bases.trigger += 1;
            offset = 0;
        }
        cur.startTrigger = trigger;
        cur.carriedPs = offset;
    }
    m_iterations.push_back(cur);
}

std::vector<uint32_t>
JobPlan::RepresentativeIterations() const
{
    std::set<std::vector<bool>> seen;
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < m_job.iterations; ++i)
    {
        std::vector<bool> pattern(m_instances.size());
        for (size_t e = 0; e < m_instances.size(); ++e)
        {
            pattern[e] = Runs(e, i);
        }
        if (seen.insert(pattern).second)
        {
            out.push_back(i);
        }
    }
    return out;
}

std::vector<uint32_t>
JobPlan::RepresentativeOfEach() const
{
    std::map<std::vector<bool>, uint32_t> first;
    std::vector<uint32_t> out(m_job.iterations);
    for (uint32_t i = 0; i < m_job.iterations; ++i)
    {
        std::vector<bool> pattern(m_instances.size());
        for (size_t e = 0; e < m_instances.size(); ++e)
        {
            pattern[e] = Runs(e, i);
        }
        out[i] = first.emplace(std::move(pattern), i).first->second;
    }
    return out;
}

bool
JobPlan::Runs(size_t e, uint32_t i) const
{
    return (i + 1) % m_every[e] == 0 && !m_instances[e].empty();
}

JobPlan::Bases
JobPlan::BasesOf(uint32_t i) const
{
    return m_iterations.at(i).bases;
}

uint64_t
JobPlan::TransfersIn(uint32_t i) const
{
    return m_iterations.at(i + 1).bases.transfer - m_iterations.at(i).bases.transfer;
}

void
JobPlan::Emit(WorkloadBuilder& b, uint32_t it, int32_t trigger, uint64_t carried) const
{
    const JobSpec& job = m_job;
    uint64_t offset = carried + job.iterationComputePs;
    std::vector<uint32_t> iteration;
    bool nonBlocking = false;
    for (size_t e = 0; e < job.collectives.size(); ++e)
    {
        const JobCollective& jc = job.collectives[e];
        offset += jc.computePs;
        if (!Runs(e, it))
        {
            continue;
        }
        std::vector<uint32_t> phase;
        for (const Instance& inst : m_instances[e])
        {
            CollectiveSpec info;
            info.job = m_jobIndex;
            info.iteration = static_cast<int32_t>(it);
            info.name = jc.name.empty() ? CanonicalCollectiveKind(jc.kind) : jc.name;
            info.group = inst.group;
            StartCondition start;
            start.trigger = trigger;
            start.timePs = offset;
            phase.push_back(b.AddCollective(inst.schedule, inst.hostsPerChannel, job.exec, start,
                                            inst.qpGroupBase, info));
        }
        iteration.insert(iteration.end(), phase.begin(), phase.end());
        if (jc.blocking)
        {
            const int32_t t = b.AddBarrier(phase);
            if (t >= 0)
            {
                trigger = t;
                offset = 0;
            }
        }
        else
        {
            nonBlocking = true;
        }
    }
    if (nonBlocking)
    {
        b.AddBarrier(iteration);
    }
}

void
JobPlan::Append(WorkloadBuilder& b, uint32_t i) const
{
    Emit(b, i, StartTrigger(i), CarriedPs(i));
}

WorkloadSpec
JobPlan::Expand(uint32_t i) const
{
    const Bases base = BasesOf(i);
    const int32_t start = StartTrigger(i);
    WorkloadSpec f;
    WorkloadBuilder b(f);
    Emit(b, i, start < 0 ? -1 : kStartTrigger, CarriedPs(i));
    const auto g = [&](uint32_t local) { return static_cast<uint32_t>(local + base.trigger); };
    for (auto& t : f.transfers)
    {
        t.externalId += base.transfer;
        if (t.trigger == kStartTrigger)
        {
            t.trigger = start;
        }
        else if (t.trigger >= 0)
        {
            t.trigger = static_cast<int32_t>(g(static_cast<uint32_t>(t.trigger)));
        }
        for (auto& x : t.onRecvDone)
        {
            x = g(x);
        }
        for (auto& x : t.onSendDone)
        {
            x = g(x);
        }
        if (t.collective >= 0)
        {
            t.collective += static_cast<int32_t>(base.collective);
        }
    }
    for (auto& tr : f.triggers)
    {
        tr.externalId += base.trigger;
    }
    return f;
}

JobInfo
JobPlan::Info() const
{
    JobInfo info;
    info.name = m_job.name;
    info.hosts = m_job.hosts;
    info.tp = m_tp;
    info.pp = m_pp;
    info.dp = m_dp;
    info.ep = m_ep;
    info.iterations = m_job.iterations;
    info.startPs = m_job.startPs;
    info.placement = m_job.placement;
    info.source = m_job.source;
    info.note = m_job.note;
    return info;
}

} // namespace ns3
