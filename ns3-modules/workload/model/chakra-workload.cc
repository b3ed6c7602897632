/*
 * tusk: a Chakra execution trace lowered into a transfer graph. See chakra-workload.h.
 */
#include "chakra-workload.h"
#include "in-network-schedule.h"

#include "collective-registry.h"

#include "fabric/model/input-error.h"

#include <algorithm>
#include <deque>
#include <set>
#include <tuple>
#include <unordered_map>

namespace ns3
{

namespace
{

std::string
NodeKey(uint64_t id)
{
    return "node " + std::to_string(id);
}

/** Canonical tusk kind of a Chakra CollectiveCommType; "" if tusk does not run it. */
std::string
KindOf(int64_t commType)
{
    switch (commType)
    {
    case 0: return "all-reduce";
    case 2: return "all-gather";
    case 5: return "broadcast";
    case 6: return "all-to-all";
    case 7: return "reduce-scatter";
    default: return "";
    }
}

/** One node placed in the graph. */
struct Placed
{
    uint32_t start = 0; //!< trigger
    uint32_t end = 0;   //!< trigger
};

/** A collective node of one rank, waiting to be matched with the other members'. */
struct CollEntry
{
    uint32_t rank = 0;
    size_t node = 0; //!< index in that rank's nodes
};

} // namespace

void
AppendChakraWorkload(WorkloadBuilder& builder,
                     WorkloadSpec& spec,
                     const std::vector<ChakraRankTrace>& ranks,
                     const ChakraWorkloadOptions& o)
{
    const uint32_t n = static_cast<uint32_t>(ranks.size());
    if (o.hosts.size() != n)
    {
        throw InputError("", 0, "workload.hosts",
                         "the trace has " + std::to_string(n) + " ranks (files) but " +
                             std::to_string(o.hosts.size()) + " hosts are given");
    }
    std::vector<uint32_t> world(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        world[r] = r;
    }
    std::vector<std::vector<Placed>> placed(n);
    // Communicator group -> k -> the k-th collective node of each member.
    std::map<std::string, std::vector<std::vector<CollEntry>>> colls;
    // (src, dst, tag) -> the sends and the receives, in file order of their rank.
    std::map<std::tuple<uint32_t, uint32_t, int64_t>, std::pair<std::deque<CollEntry>, std::deque<CollEntry>>> p2p;

    for (uint32_t r = 0; r < n; ++r)
    {
        const ChakraRankTrace& tr = ranks[r];
        const auto& nodes = tr.nodes;
        std::unordered_map<uint64_t, size_t> index;
        for (size_t i = 0; i < nodes.size(); ++i)
        {
            index[nodes[i].id] = i;
        }
        // Types, dependencies, and a cycle check (Kahn's algorithm).
        std::vector<uint32_t> indegree(nodes.size(), 0);
        std::vector<std::vector<size_t>> children(nodes.size());
        for (size_t i = 0; i < nodes.size(); ++i)
        {
            const ChakraNode& c = nodes[i];
            switch (c.type)
            {
            case ChakraNode::COMP:
            case ChakraNode::METADATA:
            case ChakraNode::INVALID:
            case ChakraNode::COMM_SEND:
            case ChakraNode::COMM_RECV:
            case ChakraNode::COMM_COLL:
                break;
            default:
                throw InputError(tr.file, 0, NodeKey(c.id),
                                 "unsupported node type " + ChakraNodeTypeName(c.type) +
                                     " (\"" + c.name +
                                     "\"); tusk runs COMP_NODE, COMM_COLL_NODE, COMM_SEND_NODE, "
                                     "COMM_RECV_NODE, METADATA_NODE and INVALID_NODE");
            }
            for (uint64_t d : c.deps)
            {
                const auto it = index.find(d);
                if (it == index.end())
                {
                    throw InputError(tr.file, 0, NodeKey(c.id),
                                     "depends on node " + std::to_string(d) +
                                         ", which is not in the file");
                }
                if (it->second == i)
                {
                    throw InputError(tr.file, 0, NodeKey(c.id), "depends on itself");
                }
                ++indegree[i];
                children[it->second].push_back(i);
            }
        }
        {
            std::vector<uint32_t> left = indegree;
            std::vector<size_t> ready;
            for (size_t i = 0; i < nodes.size(); ++i)
            {
                if (left[i] == 0)
                {
                    ready.push_back(i);
                }
            }
            size_t done = 0;
            while (!ready.empty())
            {
                const size_t i = ready.back();
                ready.pop_back();
                ++done;
                for (size_t ch : children[i])
                {
                    if (--left[ch] == 0)
                    {
                        ready.push_back(ch);
                    }
                }
            }
            if (done != nodes.size())
            {
                size_t first = 0;
                while (left[first] == 0)
                {
                    ++first;
                }
                throw InputError(tr.file, 0, NodeKey(nodes[first].id),
                                 "is on a dependency cycle (or depends on one)");
            }
        }
        // Start and end triggers; dependency edges.
        placed[r].resize(nodes.size());
        for (size_t i = 0; i < nodes.size(); ++i)
        {
            const uint32_t deps = indegree[i];
            Placed& p = placed[r][i];
            p.start = builder.AddTrigger(deps > 1 ? TriggerSpec::BARRIER : TriggerSpec::ONESHOT,
                                 std::max<uint32_t>(deps, 1));
            spec.triggers[p.start].atStart = deps == 0;
            p.end = builder.AddTrigger(TriggerSpec::BARRIER, 1);
        }
        for (size_t i = 0; i < nodes.size(); ++i)
        {
            for (size_t ch : children[i])
            {
                spec.triggers[placed[r][i].end].onFire.push_back(placed[r][ch].start);
            }
        }
        // Per type: what happens between start and end.
        for (size_t i = 0; i < nodes.size(); ++i)
        {
            const ChakraNode& c = nodes[i];
            const Placed& p = placed[r][i];
            TimelineNodeSpec tl;
            tl.rank = r;
            tl.nodeId = c.id;
            tl.name = c.name;
            tl.startTrigger = p.start;
            tl.endTrigger = p.end;
            auto need = [&](int64_t v, const char* attr) {
                if (v < 0)
                {
                    throw InputError(tr.file, 0, NodeKey(c.id),
                                     std::string("a ") + ChakraNodeTypeName(c.type) +
                                         " needs the attribute " + attr);
                }
                return v;
            };
            if (c.type == ChakraNode::COMP || c.type == ChakraNode::METADATA ||
                c.type == ChakraNode::INVALID)
            {
                tl.type = c.type == ChakraNode::COMP       ? "compute"
                          : c.type == ChakraNode::METADATA ? "metadata"
                                                           : "invalid";
                const uint64_t us = c.type == ChakraNode::COMP ? c.durationMicros : 0;
                if (us > UINT64_MAX / 1000000)
                {
                    throw InputError(tr.file, 0, NodeKey(c.id), "duration_micros is too large");
                }
                spec.triggers[p.start].delayPs = us * 1000000;
                spec.triggers[p.start].onFire.push_back(p.end);
                tl.detail = std::to_string(us) + " us";
            }
            else if (c.type == ChakraNode::COMM_COLL)
            {
                tl.type = "collective";
                const int64_t type = need(c.commType, "comm_type");
                need(c.commSize, "comm_size");
                if (KindOf(type).empty())
                {
                    throw InputError(tr.file, 0, NodeKey(c.id),
                                     "unsupported collective " + ChakraCollectiveName(type) +
                                         "; tusk runs ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, "
                                         "ALL_TO_ALL and BROADCAST");
                }
                const std::string group = c.pgName == "0" ? "" : c.pgName;
                const std::vector<uint32_t>* members = &world;
                if (!group.empty())
                {
                    const auto it = o.commGroups.find(group);
                    if (it == o.commGroups.end())
                    {
                        throw InputError(tr.file, 0, NodeKey(c.id),
                                         "communicator group pg_name \"" + group +
                                             "\" is not listed in workload.comm_groups");
                    }
                    members = &it->second;
                }
                if (std::find(members->begin(), members->end(), r) == members->end())
                {
                    throw InputError(tr.file, 0, NodeKey(c.id),
                                     "rank " + std::to_string(r) +
                                         " is not a member of communicator group \"" + group +
                                         "\"");
                }
                auto& list = colls[group];
                size_t k = 0;
                while (k < list.size() &&
                       std::any_of(list[k].begin(), list[k].end(),
                                   [&](const CollEntry& e) { return e.rank == r; }))
                {
                    ++k;
                }
                if (k == list.size())
                {
                    list.emplace_back();
                }
                list[k].push_back({r, i});
                tl.detail = ChakraCollectiveName(type) + " " + std::to_string(c.commSize) + " B" +
                            (group.empty() ? "" : " on " + group);
            }
            else
            {
                const bool send = c.type == ChakraNode::COMM_SEND;
                tl.type = send ? "send" : "recv";
                const int64_t size = need(c.commSize, "comm_size");
                const int64_t src = send ? (c.commSrc < 0 ? r : c.commSrc) : need(c.commSrc, "comm_src");
                const int64_t dst = send ? need(c.commDst, "comm_dst") : (c.commDst < 0 ? r : c.commDst);
                if ((send ? src : dst) != r || src >= n || dst >= n || src == dst)
                {
                    throw InputError(tr.file, 0, NodeKey(c.id),
                                     "comm_src " + std::to_string(src) + " and comm_dst " +
                                         std::to_string(dst) + ": expected two different ranks "
                                         "below " + std::to_string(n) + ", the " +
                                         (send ? "source" : "destination") + " being this file's "
                                         "rank " + std::to_string(r));
                }
                auto& q = p2p[{static_cast<uint32_t>(src), static_cast<uint32_t>(dst), c.commTag}];
                (send ? q.first : q.second).push_back({r, i});
                tl.detail = (send ? "to rank " + std::to_string(dst) : "from rank " + std::to_string(src)) +
                            ", " + std::to_string(size) + " B, tag " + std::to_string(c.commTag);
            }
            spec.timeline.push_back(std::move(tl));
        }
    }

    // Collectives: the k-th of every member of a group.
    std::map<std::string, uint32_t> connections; // group -> qpGroup base of its channels
    for (const auto& [group, list] : colls)
    {
        const std::vector<uint32_t>& members = group.empty() ? world : o.commGroups.at(group);
        for (size_t k = 0; k < list.size(); ++k)
        {
            const auto& entries = list[k];
            const CollEntry& first = entries.front();
            const ChakraNode& c0 = ranks[first.rank].nodes[first.node];
            for (uint32_t m : members)
            {
                const auto it = std::find_if(entries.begin(), entries.end(),
                                             [&](const CollEntry& e) { return e.rank == m; });
                if (it == entries.end())
                {
                    throw InputError(ranks[first.rank].file, 0, NodeKey(c0.id),
                                     "collective number " + std::to_string(k + 1) +
                                         " of communicator group \"" + (group.empty() ? "0" : group) +
                                         "\" has no match in rank " + std::to_string(m) + " (" +
                                         ranks[m].file + ")");
                }
                const ChakraNode& c = ranks[m].nodes[it->node];
                if (c.commType != c0.commType || c.commSize != c0.commSize)
                {
                    throw InputError(ranks[m].file, 0, NodeKey(c.id),
                                     ChakraCollectiveName(c.commType) + " of " +
                                         std::to_string(c.commSize) + " B, but its match in " +
                                         ranks[first.rank].file + " (node " + std::to_string(c0.id) +
                                         ") is " + ChakraCollectiveName(c0.commType) + " of " +
                                         std::to_string(c0.commSize) + " B");
                }
            }
            const uint32_t size = static_cast<uint32_t>(members.size());
            const uint64_t bytes = static_cast<uint64_t>(c0.commSize);
            const uint32_t startBarrier = builder.AddTrigger(TriggerSpec::BARRIER, size);
            for (const auto& e : entries)
            {
                spec.triggers[placed[e.rank][e.node].start].onFire.push_back(startBarrier);
                spec.triggers[placed[e.rank][e.node].start].onFire.push_back(placed[e.rank][e.node].end);
            }
            if (bytes == 0 || size < 2)
            {
                // Nothing to move: every member's node ends as it starts. The barrier has
                // no waiters.
                continue;
            }
            CollectiveRequest req;
            req.kind = KindOf(c0.commType);
            req.ranks = size;
            req.bytes = bytes;
            if (req.kind == "broadcast" && c0.commSrc >= 0)
            {
                const auto it = std::find(members.begin(), members.end(), c0.commSrc);
                if (it == members.end())
                {
                    throw InputError(ranks[first.rank].file, 0, NodeKey(c0.id),
                                     "broadcast root comm_src " + std::to_string(c0.commSrc) +
                                         " is not a member of its group");
                }
                req.root = static_cast<uint32_t>(it - members.begin());
            }
            std::vector<uint32_t> hosts;
            for (uint32_t m : members)
            {
                hosts.push_back(o.hosts[m]);
            }
            CollectiveSchedule schedule;
            try
            {
                AutoAlgorithmInput in;
                in.ranks = size;
                in.bytes = bytes;
                in.ranksPerServer = o.ranksPerServer;
                in.linkGBps = o.linkGBps;
                in.innetworkReduction = o.innetworkReduction;
                req.algorithm = ChooseCollectiveAlgorithm(req.kind, o.algorithm, in);
                if (req.algorithm == "in-network")
                {
                    req.leafOf = InNetworkLeafOf(hosts, o.aggregationEndpointOf);
                }
                schedule = MakeCollectiveSchedule(req);
                if (schedule.algorithm == "in-network")
                {
                    // Schedule ranks n .. n+A-1 are the aggregation endpoints.
                    const auto endpoints = InNetworkEndpointHosts(req.leafOf, o.aggregationRoot);
                    hosts.insert(hosts.end(), endpoints.begin(), endpoints.end());
                }
            }
            catch (const InputError& e)
            {
                throw InputError(ranks[first.rank].file, 0, NodeKey(c0.id), e.Message());
            }
            auto conn = connections.find(group);
            if (conn == connections.end())
            {
                conn = connections.emplace(group, builder.AllocateConnections(o.exec.channels)).first;
            }
            CollectiveSpec info;
            info.name = c0.name;
            info.group = group.empty() ? "world" : group;
            StartCondition start;
            start.trigger = static_cast<int32_t>(startBarrier);
            const uint32_t ci =
                builder.AddCollective(schedule, {hosts}, o.exec, start, conn->second, info);
            const auto range = builder.TransfersOf(ci);
            for (const auto& e : entries)
            {
                const uint32_t h = o.hosts[e.rank];
                const uint32_t end = placed[e.rank][e.node].end;
                uint32_t count = 1; // the node's own start
                for (size_t t = range.first; t < range.second; ++t)
                {
                    TransferSpec& ts = spec.transfers[t];
                    if (ts.src == h)
                    {
                        ts.onSendDone.push_back(end);
                        ++count;
                    }
                    if (ts.dst == h)
                    {
                        ts.onRecvDone.push_back(end);
                        ++count;
                    }
                }
                spec.triggers[end].threshold = count;
            }
        }
    }

    // Point-to-point: the k-th send meets the k-th receive of the same (src, dst, tag).
    for (auto& [key, q] : p2p)
    {
        auto& [sends, recvs] = q;
        if (sends.size() != recvs.size())
        {
            const bool moreSends = sends.size() > recvs.size();
            const CollEntry& e = moreSends ? sends[recvs.size()] : recvs[sends.size()];
            throw InputError(ranks[e.rank].file, 0, NodeKey(ranks[e.rank].nodes[e.node].id),
                             std::string(moreSends ? "a send" : "a receive") + " with no matching " +
                                 (moreSends ? "receive" : "send") + " (comm_src " +
                                 std::to_string(std::get<0>(key)) + ", comm_dst " +
                                 std::to_string(std::get<1>(key)) + ", comm_tag " +
                                 std::to_string(std::get<2>(key)) + ")");
        }
        for (size_t k = 0; k < sends.size(); ++k)
        {
            const CollEntry& s = sends[k];
            const CollEntry& d = recvs[k];
            const ChakraNode& sn = ranks[s.rank].nodes[s.node];
            const ChakraNode& dn = ranks[d.rank].nodes[d.node];
            if (sn.commSize != dn.commSize)
            {
                throw InputError(ranks[d.rank].file, 0, NodeKey(dn.id),
                                 "receives " + std::to_string(dn.commSize) + " B, but its send (" +
                                     ranks[s.rank].file + ", node " + std::to_string(sn.id) +
                                     ") sends " + std::to_string(sn.commSize) + " B");
            }
            const Placed& ps = placed[s.rank][s.node];
            const Placed& pd = placed[d.rank][d.node];
            spec.triggers[ps.end].threshold = 1;
            spec.triggers[pd.end].threshold = 1;
            spec.triggers[ps.start].onFire.push_back(ps.end);
            spec.triggers[pd.start].onFire.push_back(pd.end);
            if (sn.commSize == 0)
            {
                continue; // nothing to move: both end as they start
            }
            const uint32_t meet = builder.AddTrigger(TriggerSpec::BARRIER, 2);
            spec.triggers[ps.start].onFire.push_back(meet);
            spec.triggers[pd.start].onFire.push_back(meet);
            TransferSpec t;
            t.src = o.hosts[s.rank];
            t.dst = o.hosts[d.rank];
            t.bytes = static_cast<uint64_t>(sn.commSize);
            t.trigger = static_cast<int32_t>(meet);
            t.priority = o.exec.priority;
            t.qps = o.exec.qps;
            t.onSendDone.push_back(ps.end);
            t.onRecvDone.push_back(pd.end);
            spec.triggers[ps.end].threshold = 2;
            spec.triggers[pd.end].threshold = 2;
            builder.AddTransfer(t);
        }
    }
}

} // namespace ns3
