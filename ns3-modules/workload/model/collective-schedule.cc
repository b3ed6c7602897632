/*
 * tusk: collectives as pure step generators. See collective-schedule.h.
 */
#include "collective-schedule.h"

#include "traffic-generators.h"

#include "fabric/model/input-error.h"

#include <algorithm>
#include <cctype>

namespace ns3
{

namespace
{

[[noreturn]] void
Fail(const std::string& field, const std::string& message)
{
    throw InputError("", 0, "collective." + field, message);
}

void
RequireRanks(uint32_t n, uint32_t atLeast = 1)
{
    if (n < atLeast)
    {
        Fail("ranks",
             "expected at least " + std::to_string(atLeast) + " rank" + (atLeast > 1 ? "s" : "") +
                 "; got " + std::to_string(n));
    }
}

void
RequireBytes(uint64_t bytes, uint64_t atLeast, const std::string& why)
{
    if (bytes < atLeast)
    {
        Fail("bytes",
             "expected at least " + std::to_string(atLeast) + " bytes (" + why + "); got " +
                 std::to_string(bytes));
    }
}

/** Append an op; deps must be earlier ops. Returns its index. */
uint32_t
AddOp(CollectiveSchedule& s,
      uint32_t src,
      uint32_t dst,
      uint64_t bytes,
      std::vector<uint32_t> deps = {})
{
    CollectiveOp op;
    op.src = src;
    op.dst = dst;
    op.bytes = bytes;
    op.deps = std::move(deps);
    uint32_t step = 0;
    for (uint32_t d : op.deps)
    {
        step = std::max(step, s.ops[d].step + 1);
    }
    op.step = step;
    s.steps = std::max(s.steps, step + 1);
    s.ops.push_back(std::move(op));
    return static_cast<uint32_t>(s.ops.size() - 1);
}

CollectiveSchedule
Start(const std::string& kind, const std::string& algorithm, uint32_t n, uint64_t bytes)
{
    CollectiveSchedule s;
    s.kind = kind;
    s.algorithm = algorithm;
    s.ranks = n;
    s.bytes = bytes;
    s.busbwFactor = BusBwFactor(kind, n);
    return s;
}


inline uint32_t
Mod(int64_t a, uint32_t n)
{
    const int64_t m = a % static_cast<int64_t>(n);
    return static_cast<uint32_t>(m < 0 ? m + n : m);
}

/** Ring over ranks 0..n-1 with `steps` steps, chunk of rank i in step k given by chunkOf. */
template <typename ChunkOf>
void
AppendRing(CollectiveSchedule& s, uint32_t n, uint32_t steps, ChunkOf chunkOf)
{
    const uint32_t base = static_cast<uint32_t>(s.ops.size());
    for (uint32_t k = 0; k < steps; ++k)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            std::vector<uint32_t> deps;
            if (k > 0)
            {
                deps.push_back(base + (k - 1) * n + Mod(int64_t(i) - 1, n));
            }
            AddOp(s, i, (i + 1) % n, chunkOf(k, i), std::move(deps));
        }
    }
}

} // namespace

std::string
SquashCollectiveName(const std::string& s)
{
    std::string out;
    for (char c : s)
    {
        if (c != '-' && c != '_' && c != ' ')
        {
            out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        }
    }
    return out;
}

const std::vector<std::string>&
CollectiveKinds()
{
    static const std::vector<std::string> kinds = {"all-reduce",
                                                   "all-gather",
                                                   "reduce-scatter",
                                                   "all-to-all",
                                                   "broadcast",
                                                   "send-recv",
                                                   "permutation",
                                                   "incast"};
    return kinds;
}

std::string
CanonicalCollectiveKind(const std::string& kind)
{
    const std::string k = SquashCollectiveName(kind);
    for (const auto& c : CollectiveKinds())
    {
        if (k == SquashCollectiveName(c))
        {
            return c;
        }
    }
    std::string list;
    for (const auto& c : CollectiveKinds())
    {
        list += (list.empty() ? "" : ", ") + c;
    }
    Fail("kind", "unknown collective kind \"" + kind + "\"; expected one of " + list);
}

uint64_t
BlockBytes(uint64_t bytes, uint32_t n, uint32_t j)
{
    if (n == 0 || j >= n)
    {
        Fail("ranks", "block " + std::to_string(j) + " of " + std::to_string(n) + " blocks");
    }
    return bytes / n + (j < bytes % n ? 1 : 0);
}

CollectiveSchedule
RingAllReduceSchedule(uint32_t n, uint64_t bytes)
{
    RequireRanks(n);
    CollectiveSchedule s = Start("all-reduce", "ring", n, bytes);
    if (n == 1)
    {
        return s;
    }
    RequireBytes(bytes, n, "one byte per block of a " + std::to_string(n) + "-rank ring");
    AppendRing(s, n, 2 * (n - 1), [&](uint32_t k, uint32_t i) {
        return BlockBytes(bytes, n, Mod(int64_t(i) - (k % n), n));
    });
    return s;
}

CollectiveSchedule
RingReduceScatterSchedule(uint32_t n, uint64_t bytes)
{
    RequireRanks(n);
    CollectiveSchedule s = Start("reduce-scatter", "ring", n, bytes);
    if (n == 1)
    {
        return s;
    }
    RequireBytes(bytes, n, "one byte per block of a " + std::to_string(n) + "-rank ring");
    AppendRing(s, n, n - 1, [&](uint32_t k, uint32_t i) {
        return BlockBytes(bytes, n, Mod(int64_t(i) - k - 1, n));
    });
    return s;
}

CollectiveSchedule
RingAllGatherSchedule(uint32_t n, uint64_t bytes)
{
    RequireRanks(n);
    CollectiveSchedule s = Start("all-gather", "ring", n, bytes);
    if (n == 1)
    {
        return s;
    }
    RequireBytes(bytes, n, "one byte per block of a " + std::to_string(n) + "-rank ring");
    AppendRing(s, n, n - 1, [&](uint32_t k, uint32_t i) {
        return BlockBytes(bytes, n, Mod(int64_t(i) - k, n));
    });
    return s;
}

CollectiveSchedule
HalvingDoublingAllReduceSchedule(uint32_t n, uint64_t bytes)
{
    RequireRanks(n);
    CollectiveSchedule s = Start("all-reduce", "halving-doubling", n, bytes);
    if (n == 1)
    {
        return s;
    }
    uint32_t m = 0;
    while ((uint64_t(1) << (m + 1)) <= n)
    {
        ++m;
    }
    const uint32_t p = 1u << m;
    const uint32_t r = n - p;
    RequireBytes(bytes, p, "one byte per block of the " + std::to_string(p) + "-rank core");
    auto oldRank = [r](uint32_t v) { return v < r ? 2 * v + 1 : v + r; };
    auto blockSum = [&](auto member) {
        uint64_t sum = 0;
        for (uint32_t j = 0; j < p; ++j)
        {
            if (member(j))
            {
                sum += BlockBytes(bytes, p, j);
            }
        }
        return sum;
    };

    // Pre-step: even ranks i < 2r hand their buffer to i+1. Op index = i/2 = the new rank.
    for (uint32_t i = 0; i < 2 * r; i += 2)
    {
        AddOp(s, i, i + 1, bytes);
    }
    // lastIn[v]: the op whose arrival at new rank v was the latest so far (-1: none).
    std::vector<int64_t> lastIn(p, -1);
    for (uint32_t v = 0; v < r; ++v)
    {
        lastIn[v] = v;
    }
    auto step = [&](uint32_t partnerBit, auto sendSet) {
        std::vector<int64_t> in(p, -1);
        for (uint32_t v = 0; v < p; ++v)
        {
            const uint32_t w = v ^ partnerBit;
            std::vector<uint32_t> deps;
            if (lastIn[v] >= 0)
            {
                deps.push_back(static_cast<uint32_t>(lastIn[v]));
            }
            in[w] = AddOp(s, oldRank(v), oldRank(w), blockSum([&](uint32_t j) {
                              return sendSet(v, w, j);
                          }),
                          std::move(deps));
        }
        lastIn = in;
    };
    // Reduce-scatter by recursive halving: in step k the range is the blocks agreeing with v
    // on the top k bits; v keeps the half agreeing on bit m-1-k and sends the partner's half.
    for (uint32_t k = 0; k < m; ++k)
    {
        const uint32_t bit = 1u << (m - 1 - k);
        step(bit, [&](uint32_t v, uint32_t w, uint32_t j) {
            return (j >> (m - k)) == (v >> (m - k)) && (j & bit) == (w & bit);
        });
    }
    // All-gather by recursive doubling: in step k v holds the blocks agreeing with it above
    // bit k - 1 and sends all of them.
    for (uint32_t k = 0; k < m; ++k)
    {
        step(1u << k, [&](uint32_t v, uint32_t, uint32_t j) { return (j >> k) == (v >> k); });
    }
    // Post-step: the result goes back to the ranks that sat out.
    for (uint32_t v = 0; v < r; ++v)
    {
        AddOp(s, 2 * v + 1, 2 * v, bytes, {static_cast<uint32_t>(lastIn[v])});
    }
    return s;
}

int32_t
BtreeParent(uint32_t n, uint32_t r)
{
    if (r == 0 || r >= n)
    {
        return -1;
    }
    const uint32_t bit = r & (~r + 1); // lowest set bit
    uint64_t up = (uint64_t(r) ^ bit) | (uint64_t(bit) << 1);
    if (up >= n)
    {
        up = r ^ bit;
    }
    return static_cast<int32_t>(up);
}

int32_t
DoubleTreeParent(uint32_t n, uint32_t tree, uint32_t r)
{
    if (tree == 0)
    {
        return BtreeParent(n, r);
    }
    if (n % 2 == 1)
    {
        // shift by one: rank r plays rank r-1 of the btree
        const int32_t u = BtreeParent(n, (r + n - 1) % n);
        return u < 0 ? -1 : static_cast<int32_t>((uint32_t(u) + 1) % n);
    }
    // mirror: rank r plays rank n-1-r of the btree
    const int32_t u = BtreeParent(n, n - 1 - r);
    return u < 0 ? -1 : static_cast<int32_t>(n - 1 - uint32_t(u));
}

CollectiveSchedule
DoubleBinaryTreeAllReduceSchedule(uint32_t n, uint64_t bytes)
{
    RequireRanks(n);
    CollectiveSchedule s = Start("all-reduce", "double-binary-tree", n, bytes);
    if (n == 1)
    {
        return s;
    }
    RequireBytes(bytes, 2, "one byte per tree");
    for (uint32_t t = 0; t < 2; ++t)
    {
        const uint64_t half = t == 0 ? bytes - bytes / 2 : bytes / 2;
        std::vector<int32_t> parent(n);
        std::vector<std::vector<uint32_t>> children(n);
        int32_t root = -1;
        for (uint32_t r = 0; r < n; ++r)
        {
            parent[r] = DoubleTreeParent(n, t, r);
            if (parent[r] < 0)
            {
                root = static_cast<int32_t>(r);
            }
            else
            {
                children[parent[r]].push_back(r);
            }
        }
        // Depth of every rank; order ranks by depth (ties by rank) for a topological order.
        std::vector<uint32_t> depth(n, 0);
        for (uint32_t r = 0; r < n; ++r)
        {
            for (int32_t u = parent[r]; u >= 0; u = parent[u])
            {
                ++depth[r];
            }
        }
        std::vector<uint32_t> order(n);
        for (uint32_t r = 0; r < n; ++r)
        {
            order[r] = r;
        }
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            return depth[a] < depth[b];
        });
        // Reduce, deepest first: r -> parent once every child's contribution arrived.
        std::vector<uint32_t> upOp(n, 0);
        for (auto it = order.rbegin(); it != order.rend(); ++it)
        {
            const uint32_t r = *it;
            if (parent[r] < 0)
            {
                continue;
            }
            std::vector<uint32_t> deps;
            for (uint32_t c : children[r])
            {
                deps.push_back(upOp[c]);
            }
            upOp[r] = AddOp(s, r, static_cast<uint32_t>(parent[r]), half, std::move(deps));
        }
        // Broadcast, shallowest first.
        std::vector<uint32_t> downOp(n, 0);
        for (uint32_t r : order)
        {
            std::vector<uint32_t> deps;
            if (static_cast<int32_t>(r) == root)
            {
                for (uint32_t c : children[r])
                {
                    deps.push_back(upOp[c]);
                }
            }
            else
            {
                deps.push_back(downOp[r]);
            }
            for (uint32_t c : children[r])
            {
                downOp[c] = AddOp(s, r, c, half, deps);
            }
        }
    }
    return s;
}

CollectiveSchedule
HierarchicalRingAllReduceSchedule(uint32_t n, uint64_t bytes, uint32_t localSize)
{
    RequireRanks(n);
    if (localSize == 0 || n % localSize != 0)
    {
        Fail("local_size",
             "expected a number of ranks per server that divides " + std::to_string(n) +
                 "; got " + std::to_string(localSize));
    }
    CollectiveSchedule s = Start("all-reduce", "hierarchical-ring", n, bytes);
    if (n == 1)
    {
        return s;
    }
    RequireBytes(bytes, n, "one byte per block of a " + std::to_string(n) + "-rank ring");
    const uint32_t L = localSize;
    const uint32_t m = n / L;
    std::vector<int64_t> lastIn(n, -1); // latest op that arrived at each rank
    auto depOn = [&](uint32_t rank) {
        std::vector<uint32_t> d;
        if (lastIn[rank] >= 0)
        {
            d.push_back(static_cast<uint32_t>(lastIn[rank]));
        }
        return d;
    };
    // Ring of `size` members with member(x) = rank, `steps` steps, chunk(k, x) bytes.
    auto ring = [&](uint32_t size, uint32_t steps, auto member, auto chunk) {
        std::vector<int64_t> prev(size, -1);
        for (uint32_t k = 0; k < steps; ++k)
        {
            std::vector<int64_t> cur(size, -1);
            for (uint32_t x = 0; x < size; ++x)
            {
                const uint32_t from = member(x);
                const uint32_t to = member((x + 1) % size);
                std::vector<uint32_t> deps =
                    k == 0 ? depOn(from)
                           : std::vector<uint32_t>{static_cast<uint32_t>(prev[Mod(int64_t(x) - 1, size)])};
                cur[x] = AddOp(s, from, to, chunk(k, x), std::move(deps));
            }
            for (uint32_t x = 0; x < size; ++x)
            {
                lastIn[member((x + 1) % size)] = cur[x];
            }
            prev = cur;
        }
    };
    // Phase 1: reduce-scatter inside every server (local rank l ends with block l).
    if (L > 1)
    {
        for (uint32_t g = 0; g < m; ++g)
        {
            ring(L, L - 1, [&](uint32_t l) { return g * L + l; }, [&](uint32_t k, uint32_t l) {
                return BlockBytes(bytes, L, Mod(int64_t(l) - k - 1, L));
            });
        }
    }
    // Phase 2: all-reduce of block l across servers, among the ranks with local index l.
    if (m > 1)
    {
        for (uint32_t l = 0; l < L; ++l)
        {
            const uint64_t blk = BlockBytes(bytes, L, l);
            ring(m, 2 * (m - 1), [&](uint32_t g) { return g * L + l; }, [&](uint32_t k, uint32_t g) {
                return BlockBytes(blk, m, Mod(int64_t(g) - (k % m), m));
            });
        }
    }
    // Phase 3: all-gather inside every server.
    if (L > 1)
    {
        for (uint32_t g = 0; g < m; ++g)
        {
            ring(L, L - 1, [&](uint32_t l) { return g * L + l; }, [&](uint32_t k, uint32_t l) {
                return BlockBytes(bytes, L, Mod(int64_t(l) - k, L));
            });
        }
    }
    return s;
}

CollectiveSchedule
DirectAllToAllSchedule(uint32_t n, uint64_t bytes)
{
    RequireRanks(n);
    CollectiveSchedule s = Start("all-to-all", "direct", n, bytes);
    if (n == 1)
    {
        return s;
    }
    RequireBytes(bytes, n, "one byte per peer block");
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t k = 1; k < n; ++k)
        {
            const uint32_t j = (i + k) % n;
            AddOp(s, i, j, BlockBytes(bytes, n, j));
        }
    }
    return s;
}

CollectiveSchedule
PairwiseAllToAllSchedule(uint32_t n, uint64_t bytes)
{
    RequireRanks(n);
    CollectiveSchedule s = Start("all-to-all", "pairwise", n, bytes);
    if (n == 1)
    {
        return s;
    }
    RequireBytes(bytes, n, "one byte per peer block");
    for (uint32_t k = 1; k < n; ++k)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            const uint32_t j = (i + k) % n;
            std::vector<uint32_t> deps;
            if (k > 1)
            {
                const uint32_t prevBase = (k - 2) * n;
                deps.push_back(prevBase + i);                           // my previous send
                deps.push_back(prevBase + Mod(int64_t(i) - (k - 1), n)); // my previous input
            }
            AddOp(s, i, j, BlockBytes(bytes, n, j), std::move(deps));
        }
    }
    return s;
}

CollectiveSchedule
ChainBroadcastSchedule(uint32_t n, uint64_t bytes, uint32_t root)
{
    RequireRanks(n);
    if (root >= n)
    {
        Fail("root", "expected a rank in 0.." + std::to_string(n - 1) + "; got " +
                         std::to_string(root));
    }
    RequireBytes(bytes, 1, "a non-empty buffer");
    CollectiveSchedule s = Start("broadcast", "chain", n, bytes);
    for (uint32_t p = 0; p + 1 < n; ++p)
    {
        std::vector<uint32_t> deps;
        if (p > 0)
        {
            deps.push_back(p - 1);
        }
        AddOp(s, (root + p) % n, (root + p + 1) % n, bytes, std::move(deps));
    }
    return s;
}

CollectiveSchedule
SendRecvSchedule(uint32_t n, uint64_t bytes, uint32_t src, uint32_t dst)
{
    RequireRanks(n, 2);
    if (src >= n)
    {
        Fail("root", "expected a sending rank in 0.." + std::to_string(n - 1) + "; got " +
                         std::to_string(src));
    }
    if (dst >= n || dst == src)
    {
        Fail("peer", "expected a receiving rank in 0.." + std::to_string(n - 1) +
                         " other than the sender " + std::to_string(src) + "; got " +
                         std::to_string(dst));
    }
    RequireBytes(bytes, 1, "a non-empty message");
    CollectiveSchedule s = Start("send-recv", "p2p", n, bytes);
    AddOp(s, src, dst, bytes);
    return s;
}

CollectiveSchedule
PermutationSchedule(uint32_t n, uint64_t bytes, uint64_t seed)
{
    RequireRanks(n, 2);
    RequireBytes(bytes, 1, "a non-empty message");
    CollectiveSchedule s = Start("permutation", "p2p", n, bytes);
    const WorkloadSpec perm = MakePermutation(n, bytes, seed);
    for (const auto& t : perm.transfers)
    {
        AddOp(s, t.src, t.dst, bytes);
    }
    return s;
}

CollectiveSchedule
IncastSchedule(uint32_t n, uint64_t bytes, uint32_t root)
{
    RequireRanks(n, 2);
    if (root >= n)
    {
        Fail("root", "expected a rank in 0.." + std::to_string(n - 1) + "; got " +
                         std::to_string(root));
    }
    RequireBytes(bytes, 1, "a non-empty message");
    CollectiveSchedule s = Start("incast", "p2p", n, bytes);
    for (uint32_t i = 0; i < n; ++i)
    {
        if (i != root)
        {
            AddOp(s, i, root, bytes);
        }
    }
    return s;
}

RankBytes
ScheduleRankBytes(const CollectiveSchedule& s)
{
    RankBytes b;
    b.sent.assign(s.ranks, 0);
    b.received.assign(s.ranks, 0);
    for (const auto& op : s.ops)
    {
        b.sent.at(op.src) += op.bytes;
        b.received.at(op.dst) += op.bytes;
    }
    return b;
}

void
ValidateSchedule(const CollectiveSchedule& s)
{
    uint32_t steps = 0;
    for (uint32_t o = 0; o < s.ops.size(); ++o)
    {
        const CollectiveOp& op = s.ops[o];
        auto bad = [&](const std::string& why) {
            throw InputError("", 0, "collective.ops",
                             s.kind + " (" + s.algorithm + ") op " + std::to_string(o) + " " +
                                 std::to_string(op.src) + "->" + std::to_string(op.dst) + ": " +
                                 why);
        };
        if (op.src >= s.ranks || op.dst >= s.ranks)
        {
            bad("rank out of range 0.." + std::to_string(s.ranks - 1));
        }
        if (op.src == op.dst)
        {
            bad("sends to itself");
        }
        if (op.bytes == 0)
        {
            bad("carries no bytes");
        }
        uint32_t level = 0;
        for (uint32_t d : op.deps)
        {
            if (d >= o)
            {
                bad("depends on a later op " + std::to_string(d));
            }
            const CollectiveOp& dep = s.ops[d];
            if (dep.dst != op.src && dep.src != op.src)
            {
                bad("depends on op " + std::to_string(d) + " " + std::to_string(dep.src) + "->" +
                    std::to_string(dep.dst) + ", which rank " + std::to_string(op.src) +
                    " cannot observe");
            }
            level = std::max(level, dep.step + 1);
        }
        if (op.step != level)
        {
            bad("step " + std::to_string(op.step) + " but dependency level " +
                std::to_string(level));
        }
        steps = std::max(steps, level + 1);
    }
    if (steps != s.steps)
    {
        throw InputError("", 0, "collective.ops",
                         "schedule says " + std::to_string(s.steps) + " steps; its ops have " +
                             std::to_string(steps));
    }
}

} // namespace ns3
