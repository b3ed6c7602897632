/*
 * tusk: in-network all-reduce schedule. See in-network-schedule.h.
 */
#include "in-network-schedule.h"

#include "fabric/model/input-error.h"

#include <algorithm>
#include <string>

namespace ns3
{

namespace
{

[[noreturn]] void
Fail(const std::string& field, const std::string& message)
{
    throw InputError("", 0, "collective." + field, message);
}

/** Append an op depending on `deps` (earlier ops); its step is one past theirs. */
uint32_t
Add(CollectiveSchedule& s, uint32_t src, uint32_t dst, uint64_t bytes, std::vector<uint32_t> deps)
{
    CollectiveOp op;
    op.src = src;
    op.dst = dst;
    op.bytes = bytes;
    for (uint32_t d : deps)
    {
        op.step = std::max(op.step, s.ops[d].step + 1);
    }
    op.deps = std::move(deps);
    s.steps = std::max(s.steps, op.step + 1);
    s.ops.push_back(std::move(op));
    return static_cast<uint32_t>(s.ops.size() - 1);
}

} // namespace

std::vector<uint32_t>
InNetworkEndpointLeaves(const std::vector<uint32_t>& leafOf)
{
    std::vector<uint32_t> out;
    for (uint32_t l : leafOf)
    {
        if (std::find(out.begin(), out.end(), l) == out.end())
        {
            out.push_back(l);
        }
    }
    if (out.size() > 1)
    {
        out.push_back(InNetworkSchedule::kRootEndpoint);
    }
    return out;
}

std::vector<uint32_t>
InNetworkLeafOf(const std::vector<uint32_t>& hosts, const std::vector<uint32_t>& endpointOf)
{
    std::vector<uint32_t> leafOf;
    for (uint32_t h : hosts)
    {
        if (h >= endpointOf.size() || endpointOf[h] == UINT32_MAX)
        {
            return {};
        }
        leafOf.push_back(endpointOf[h]);
    }
    return leafOf;
}

std::vector<uint32_t>
InNetworkEndpointHosts(const std::vector<uint32_t>& leafOf, uint32_t rootHost)
{
    std::vector<uint32_t> out = InNetworkEndpointLeaves(leafOf);
    if (!out.empty() && out.back() == InNetworkSchedule::kRootEndpoint)
    {
        if (rootHost == UINT32_MAX)
        {
            Fail("algorithm", "in-network across leaves needs a root switch that aggregates; "
                              "the topology has none");
        }
        out.back() = rootHost;
    }
    return out;
}

InNetworkSchedule
InNetworkAllReduceSchedule(const std::vector<uint32_t>& leafOf, uint64_t bytes, uint32_t chunks)
{
    const uint32_t n = static_cast<uint32_t>(leafOf.size());
    if (n < 2)
    {
        Fail("ranks", "an in-network all-reduce needs at least 2 ranks; got " + std::to_string(n));
    }
    if (chunks == 0)
    {
        Fail("chunks", "expected at least 1 chunk; got 0");
    }
    if (bytes < chunks)
    {
        Fail("bytes", "expected at least " + std::to_string(chunks) + " bytes (one per chunk); got " +
                          std::to_string(bytes));
    }
    InNetworkSchedule out;
    out.members = n;
    out.endpointLeaf = InNetworkEndpointLeaves(leafOf);
    const bool root = out.endpointLeaf.size() > 1;
    const uint32_t leaves = static_cast<uint32_t>(out.endpointLeaf.size()) - (root ? 1 : 0);
    std::vector<uint32_t> endpointOf(n); // rank -> its leaf endpoint (schedule rank)
    for (uint32_t r = 0; r < n; ++r)
    {
        const auto it = std::find(out.endpointLeaf.begin(), out.endpointLeaf.end(), leafOf[r]);
        endpointOf[r] = n + static_cast<uint32_t>(it - out.endpointLeaf.begin());
    }
    const uint32_t rootRank = n + leaves;
    CollectiveSchedule& s = out.schedule;
    s.kind = "all-reduce";
    s.algorithm = "in-network";
    s.ranks = n + static_cast<uint32_t>(out.endpointLeaf.size());
    s.bytes = bytes;
    s.busbwFactor = 2.0 * (n - 1) / n;
    for (uint32_t c = 0; c < chunks; ++c)
    {
        const uint64_t z = BlockBytes(bytes, chunks, c);
        std::vector<std::vector<uint32_t>> upInto(leaves); // per leaf: its ranks' up ops
        for (uint32_t r = 0; r < n; ++r)
        {
            upInto[endpointOf[r] - n].push_back(Add(s, r, endpointOf[r], z, {}));
        }
        std::vector<uint32_t> resultAt(leaves); // per leaf: ops after which it holds the result
        std::vector<std::vector<uint32_t>> ready(leaves);
        if (root)
        {
            std::vector<uint32_t> intoRoot;
            for (uint32_t l = 0; l < leaves; ++l)
            {
                intoRoot.push_back(Add(s, n + l, rootRank, z, upInto[l]));
            }
            for (uint32_t l = 0; l < leaves; ++l)
            {
                ready[l] = {Add(s, rootRank, n + l, z, intoRoot)};
            }
        }
        else
        {
            ready[0] = upInto[0];
        }
        for (uint32_t r = 0; r < n; ++r)
        {
            Add(s, endpointOf[r], r, z, ready[endpointOf[r] - n]);
        }
    }
    return out;
}

} // namespace ns3
