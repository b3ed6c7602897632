/*
 * tusk: WorkloadBuilder. See workload-builder.h.
 */
#include "workload-builder.h"

#include "fabric/model/input-error.h"

#include <algorithm>
#include <limits>
#include <set>

namespace ns3
{

WorkloadBuilder::WorkloadBuilder(WorkloadSpec& spec)
    : m_spec(spec)
{
    for (const auto& t : spec.transfers)
    {
        m_nextQpGroup = std::max<uint32_t>(m_nextQpGroup, t.qpGroup + 1);
    }
    // Collectives already in the spec: the range from their first to their last transfer (a
    // builder and MakeRingAllReduce both keep a collective's transfers contiguous). One pass.
    m_ranges.assign(spec.collectives.size(), {0, 0});
    std::vector<bool> seen(spec.collectives.size(), false);
    for (size_t t = 0; t < spec.transfers.size(); ++t)
    {
        const int32_t c = spec.transfers[t].collective;
        if (c < 0 || static_cast<size_t>(c) >= spec.collectives.size())
        {
            continue;
        }
        if (!seen[c])
        {
            seen[c] = true;
            m_ranges[c].first = t;
        }
        m_ranges[c].second = t + 1;
    }
}

uint32_t
WorkloadBuilder::AllocateConnections(uint32_t count)
{
    const uint32_t base = m_nextQpGroup;
    if (uint64_t(base) + count > std::numeric_limits<uint32_t>::max())
    {
        throw InputError("", 0, "workload.transfers", "too many connections");
    }
    m_nextQpGroup += std::max<uint32_t>(count, 1);
    return base;
}

void
WorkloadBuilder::CheckRoom(size_t more) const
{
    if (m_spec.transfers.size() + more > kMaxTransfers)
    {
        throw InputError("",
                         0,
                         "workload.transfers",
                         "the workload would have " +
                             std::to_string(m_spec.transfers.size() + more) +
                             " transfers; at most " + std::to_string(kMaxTransfers) +
                             " fit in memory (fewer channels, a larger chunk_bytes, fewer "
                             "iterations or fewer ranks)");
    }
}

uint32_t
WorkloadBuilder::AddTrigger(TriggerSpec::Kind kind, uint32_t threshold)
{
    TriggerSpec ts;
    ts.kind = kind;
    ts.threshold = threshold;
    ts.externalId = m_spec.triggers.size();
    m_spec.triggers.push_back(ts);
    return static_cast<uint32_t>(m_spec.triggers.size() - 1);
}

uint32_t
WorkloadBuilder::AddTransfer(TransferSpec t)
{
    CheckRoom(1);
    t.externalId = m_spec.transfers.size();
    t.qpGroup = AllocateConnections(1);
    m_spec.transfers.push_back(t);
    return static_cast<uint32_t>(m_spec.transfers.size() - 1);
}

uint32_t
WorkloadBuilder::AddCollective(const CollectiveSchedule& s,
                               const std::vector<std::vector<uint32_t>>& hostsPerChannel,
                               const ExecutionOptions& o,
                               const StartCondition& start,
                               uint32_t qpGroupBase,
                               const CollectiveSpec& info)
{
    if (o.channels == 0)
    {
        throw InputError("", 0, "workload.channels", "expected at least 1 channel; got 0");
    }
    if (hostsPerChannel.empty() ||
        (hostsPerChannel.size() != 1 && hostsPerChannel.size() != o.channels))
    {
        throw InputError("", 0, "workload.hosts",
                         "expected one host list, or one per channel (" +
                             std::to_string(o.channels) + "); got " +
                             std::to_string(hostsPerChannel.size()));
    }
    for (const auto& hosts : hostsPerChannel)
    {
        if (hosts.size() != s.ranks)
        {
            throw InputError("", 0, "workload.hosts",
                             "a " + std::to_string(s.ranks) + "-rank " + s.kind + " needs " +
                                 std::to_string(s.ranks) + " hosts; got " +
                                 std::to_string(hosts.size()));
        }
        std::set<uint32_t> seen(hosts.begin(), hosts.end());
        if (seen.size() != hosts.size())
        {
            throw InputError("", 0, "workload.hosts",
                             "a host appears twice among the ranks of a " + s.kind);
        }
    }

    uint64_t minOp = std::numeric_limits<uint64_t>::max();
    uint64_t maxOp = 0;
    for (const auto& op : s.ops)
    {
        minOp = std::min(minOp, op.bytes);
        maxOp = std::max(maxOp, op.bytes);
    }
    const uint32_t C = s.ops.empty()
                           ? o.channels
                           : static_cast<uint32_t>(std::min<uint64_t>(o.channels, minOp));
    uint64_t K = 1;
    if (!s.ops.empty() && o.chunkBytes > 0)
    {
        const uint64_t perChannel = (maxOp + C - 1) / C;
        K = (perChannel + o.chunkBytes - 1) / o.chunkBytes;
        K = std::min<uint64_t>(K, std::max<uint32_t>(o.maxSlices, 1));
        K = std::max<uint64_t>(1, std::min<uint64_t>(K, minOp / C));
    }

    CollectiveSpec cs = info;
    cs.kind = s.kind;
    cs.algorithm = s.algorithm;
    cs.ranks = hostsPerChannel.front();
    cs.bytesPerRank = s.bytes;
    cs.busbwFactor = s.busbwFactor;
    cs.channels = C;
    cs.steps = s.steps;
    cs.slices = static_cast<uint32_t>(K);
    const uint32_t index = static_cast<uint32_t>(m_spec.collectives.size());
    m_spec.collectives.push_back(cs);

    const size_t pieces = s.ops.size() * C * K;
    CheckRoom(pieces);
    const size_t first = m_spec.transfers.size();
    m_ranges.emplace_back(first, first + pieces);
    auto at = [&](size_t op, uint32_t c, uint64_t k) { return first + (op * C + c) * K + k; };
    // Room for this collective, growing geometrically: an exact-size reserve per collective
    // would reallocate (and move) every transfer so far on each call, quadratic in the
    // number of collectives of a job.
    if (m_spec.transfers.capacity() < first + pieces)
    {
        m_spec.transfers.reserve(std::max(first + pieces, 2 * m_spec.transfers.capacity()));
    }
    for (size_t oi = 0; oi < s.ops.size(); ++oi)
    {
        const CollectiveOp& op = s.ops[oi];
        for (uint32_t c = 0; c < C; ++c)
        {
            const auto& hosts = hostsPerChannel.size() == 1 ? hostsPerChannel[0] : hostsPerChannel[c];
            const uint64_t bc = op.bytes / C + (c < op.bytes % C ? 1 : 0);
            for (uint64_t k = 0; k < K; ++k)
            {
                TransferSpec t;
                t.externalId = m_spec.transfers.size();
                t.src = hosts[op.src];
                t.dst = hosts[op.dst];
                t.bytes = bc / K + (k < bc % K ? 1 : 0);
                t.qpGroup = qpGroupBase + c;
                t.priority = o.priority;
                t.collective = static_cast<int32_t>(index);
                t.step = static_cast<int32_t>(op.step);
                t.channel = static_cast<int32_t>(c);
                t.qps = o.qps;
                if (op.deps.empty())
                {
                    t.trigger = start.trigger;
                    t.startPs = start.timePs;
                }
                else
                {
                    const uint32_t trig =
                        op.deps.size() == 1
                            ? AddTrigger(TriggerSpec::ONESHOT, 1)
                            : AddTrigger(TriggerSpec::BARRIER, static_cast<uint32_t>(op.deps.size()));
                    t.trigger = static_cast<int32_t>(trig);
                    t.startPs = 0;
                    for (uint32_t d : op.deps)
                    {
                        TransferSpec& dep = m_spec.transfers[at(d, c, k)];
                        // Observable at op.src: its input arrived, or its own send completed.
                        if (s.ops[d].dst == op.src)
                        {
                            if (dep.onRecvDone.empty())
                            {
                                // Room for the iteration barrier's trigger too (AddBarrier):
                                // one allocation, not two.
                                dep.onRecvDone.reserve(2);
                            }
                            dep.onRecvDone.push_back(trig);
                        }
                        else
                        {
                            dep.onSendDone.push_back(trig);
                        }
                    }
                }
                m_spec.transfers.push_back(std::move(t));
            }
        }
    }
    return index;
}

int32_t
WorkloadBuilder::AddBarrier(const std::vector<uint32_t>& collectives)
{
    size_t count = 0;
    for (uint32_t c : collectives)
    {
        const auto& r = m_ranges.at(c);
        count += r.second - r.first;
    }
    if (count == 0)
    {
        return -1;
    }
    if (count > std::numeric_limits<uint32_t>::max())
    {
        throw InputError("", 0, "workload.transfers", "a barrier over too many transfers");
    }
    const uint32_t trig = AddTrigger(TriggerSpec::BARRIER, static_cast<uint32_t>(count));
    for (uint32_t c : collectives)
    {
        const auto& r = m_ranges.at(c);
        for (size_t t = r.first; t < r.second; ++t)
        {
            m_spec.transfers[t].onRecvDone.push_back(trig);
        }
    }
    return static_cast<int32_t>(trig);
}

std::vector<uint32_t>
TransfersThatCannotStart(const WorkloadSpec& spec)
{
    const size_t nt = spec.transfers.size();
    const size_t ng = spec.triggers.size();
    std::vector<bool> dead(nt, false);
    std::vector<std::vector<uint32_t>> waiters(ng);
    std::vector<std::vector<uint32_t>> activators(ng); // one entry per (transfer, reference)
    for (uint32_t t = 0; t < nt; ++t)
    {
        const TransferSpec& ts = spec.transfers[t];
        if (ts.trigger >= 0 && static_cast<size_t>(ts.trigger) < ng)
        {
            waiters[ts.trigger].push_back(t);
        }
        else if (ts.trigger >= 0)
        {
            dead[t] = true; // names a trigger that does not exist
        }
        for (uint32_t g : ts.onSendDone)
        {
            if (g < ng)
            {
                activators[g].push_back(t);
            }
        }
        for (uint32_t g : ts.onRecvDone)
        {
            if (g < ng)
            {
                activators[g].push_back(t);
            }
        }
    }
    // Worklist: a transfer found dead lowers the live count of every trigger it activates;
    // a trigger whose count fell re-checks its waiters.
    std::vector<size_t> live(ng, 0);
    for (size_t g = 0; g < ng; ++g)
    {
        live[g] += activators[g].size();
        for (uint32_t h : spec.triggers[g].onFire) // a trigger activating a trigger
        {
            if (h < ng)
            {
                ++live[h];
            }
        }
    }
    std::vector<uint32_t> starvedWork; // triggers found starved: their onFire loses a source
    std::vector<uint32_t> work;
    for (uint32_t t = 0; t < nt; ++t)
    {
        if (dead[t])
        {
            work.push_back(t);
        }
    }
    std::vector<bool> starved(ng, false); // every waiter already dead
    auto check = [&](size_t g) {
        const TriggerSpec& tr = spec.triggers[g];
        if (starved[g])
        {
            return;
        }
        if (tr.atStart && tr.kind != TriggerSpec::MULTISHOT)
        {
            return; // fires without activations
        }
        if (tr.kind != TriggerSpec::MULTISHOT && live[g] < std::max<uint32_t>(tr.threshold, 1))
        {
            starved[g] = true;
            starvedWork.push_back(static_cast<uint32_t>(g));
        }
        for (size_t w = 0; w < waiters[g].size(); ++w)
        {
            const uint32_t t = waiters[g][w];
            const bool starves = tr.kind == TriggerSpec::MULTISHOT
                                     ? live[g] < w + 1
                                     : live[g] < std::max<uint32_t>(tr.threshold, 1);
            if (starves && !dead[t])
            {
                dead[t] = true;
                work.push_back(t);
            }
        }
    };
    for (size_t g = 0; g < ng; ++g)
    {
        check(g);
    }
    while (!work.empty() || !starvedWork.empty())
    {
        if (!starvedWork.empty())
        {
            const uint32_t g = starvedWork.back();
            starvedWork.pop_back();
            for (uint32_t h : spec.triggers[g].onFire)
            {
                if (h < ng)
                {
                    --live[h];
                    check(h);
                }
            }
            continue;
        }
        const uint32_t t = work.back();
        work.pop_back();
        const TransferSpec& ts = spec.transfers[t];
        for (const auto* list : {&ts.onSendDone, &ts.onRecvDone})
        {
            for (uint32_t g : *list)
            {
                if (g < ng)
                {
                    --live[g];
                    check(g);
                }
            }
        }
    }
    std::vector<uint32_t> out;
    for (uint32_t t = 0; t < nt; ++t)
    {
        if (dead[t])
        {
            out.push_back(t);
        }
    }
    return out;
}

} // namespace ns3
