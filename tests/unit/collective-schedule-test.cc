// Unit tests of the pure collective step generators (collective-schedule.h): every collective's
// ops move exactly the bytes its definition says, per rank, in the number of steps its
// algorithm has; dependencies are observable where they are used. No Simulator.
//
// Byte formulas (z_j = block j of S cut into n blocks, indices mod n):
//   ring all-reduce   sent_i = 2S - z_{i+1} - z_{i+2}, received_i = 2S - z_i - z_{i+1}
//   ring reduce-scat. sent_i = S - z_i,     received_i = S - z_{i-1}
//   ring all-gather   sent_i = S - z_{i+1}, received_i = S - z_i
//   all-to-all        sent_i = S - z_i,     received_i = (n-1) z_i
// Each is the sum of the blocks the definition sends (a rank forwards every block but one per
// ring pass); nccl-tests doc/PERFORMANCE.md gives the n | S forms 2(n-1)/n S and (n-1)/n S.
#include "fabric/model/input-error.h"
#include "workload/model/collective-schedule.h"
#include "workload/model/traffic-generators.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

uint64_t
Z(uint64_t S, uint32_t n, int64_t j)
{
    const int64_t m = ((j % int64_t(n)) + n) % n;
    return S / n + (uint64_t(m) < S % n ? 1 : 0);
}

template <class F>
void
RequireKey(F&& f, const std::string& key)
{
    try
    {
        f();
        FAIL("expected InputError with key " << key);
    }
    catch (const InputError& e)
    {
        CHECK(e.Key() == key);
        CHECK_FALSE(e.Message().empty());
    }
}

uint32_t
Log2(uint32_t p)
{
    uint32_t m = 0;
    while ((1u << (m + 1)) <= p)
    {
        ++m;
    }
    return m;
}

const std::vector<uint32_t> kRanks = {2, 3, 4, 5, 7, 8, 12, 16};
const std::vector<uint64_t> kBytes = {64, 1000003, 64ULL << 20};

} // namespace

TEST_CASE("ring all-reduce, reduce-scatter, all-gather move the bytes of their definition",
          "[unit][collective]")
{
    for (uint32_t n : kRanks)
    {
        for (uint64_t S : kBytes)
        {
            CAPTURE(n, S);
            const auto ar = RingAllReduceSchedule(n, S);
            const auto rs = RingReduceScatterSchedule(n, S);
            const auto ag = RingAllGatherSchedule(n, S);
            ValidateSchedule(ar);
            ValidateSchedule(rs);
            ValidateSchedule(ag);
            CHECK(ar.steps == 2 * (n - 1));
            CHECK(rs.steps == n - 1);
            CHECK(ag.steps == n - 1);
            CHECK(ar.ops.size() == size_t(2) * (n - 1) * n);
            const auto bar = ScheduleRankBytes(ar);
            const auto brs = ScheduleRankBytes(rs);
            const auto bag = ScheduleRankBytes(ag);
            uint64_t total = 0;
            for (uint32_t i = 0; i < n; ++i)
            {
                CHECK(bar.sent[i] == 2 * S - Z(S, n, i + 1) - Z(S, n, i + 2));
                CHECK(bar.received[i] == 2 * S - Z(S, n, i) - Z(S, n, i + 1));
                CHECK(brs.sent[i] == S - Z(S, n, i));
                CHECK(brs.received[i] == S - Z(S, n, int64_t(i) - 1));
                CHECK(bag.sent[i] == S - Z(S, n, i + 1));
                CHECK(bag.received[i] == S - Z(S, n, i));
                total += bar.sent[i];
            }
            CHECK(total == 2ULL * (n - 1) * S);
            // Every op goes to the next rank of the ring.
            for (const auto& op : ar.ops)
            {
                CHECK(op.dst == (op.src + 1) % n);
            }
        }
    }
}

TEST_CASE("ring all-reduce schedule carries the same bytes as MakeRingAllReduce",
          "[unit][collective]")
{
    // Two independent encodings of the same NCCL ring (the existing generator and the step
    // generator) must agree op by op for one channel.
    for (uint32_t n : {2u, 5u, 8u})
    {
        const uint64_t S = 999983;
        const auto s = RingAllReduceSchedule(n, S);
        std::vector<uint32_t> ranks(n);
        for (uint32_t i = 0; i < n; ++i)
        {
            ranks[i] = i;
        }
        const auto w = MakeRingAllReduce(ranks, S, 1, 0);
        REQUIRE(w.transfers.size() == s.ops.size());
        for (size_t i = 0; i < s.ops.size(); ++i)
        {
            CHECK(w.transfers[i].src == s.ops[i].src);
            CHECK(w.transfers[i].dst == s.ops[i].dst);
            CHECK(w.transfers[i].bytes == s.ops[i].bytes);
            CHECK(uint32_t(w.transfers[i].step) == s.ops[i].step);
        }
    }
}

TEST_CASE("halving-doubling all-reduce: recursive halving then doubling, pre/post steps",
          "[unit][collective]")
{
    for (uint32_t n : {2u, 3u, 4u, 5u, 6u, 7u, 8u, 12u, 16u, 24u})
    {
        for (uint64_t S : kBytes)
        {
            CAPTURE(n, S);
            const auto s = HalvingDoublingAllReduceSchedule(n, S);
            ValidateSchedule(s);
            const uint32_t m = Log2(n);
            const uint32_t p = 1u << m;
            const uint32_t r = n - p;
            CHECK(s.steps == 2 * m + (r > 0 ? 2 : 0));
            const auto b = ScheduleRankBytes(s);
            // Ranks that sit out (even i < 2r) send their buffer once and receive the result.
            for (uint32_t i = 0; i < 2 * r; i += 2)
            {
                CHECK(b.sent[i] == S);
                CHECK(b.received[i] == S);
            }
            // Core ranks: reduce-scatter sends every block but one's own (S - z_v), the
            // all-gather receives every block but one's own (S - z_v).
            const size_t pre = r;
            std::vector<uint64_t> rsSent(p, 0);
            std::vector<uint64_t> agRecv(p, 0);
            auto coreOf = [&](uint32_t i) { return i < 2 * r ? i / 2 : i - r; };
            for (size_t o = pre; o < pre + size_t(2) * m * p; ++o)
            {
                const auto& op = s.ops[o];
                const uint32_t v = coreOf(op.src);
                const uint32_t w = coreOf(op.dst);
                // Partners differ in exactly one bit.
                CHECK(__builtin_popcount(v ^ w) == 1);
                if (o < pre + size_t(m) * p)
                {
                    rsSent[v] += op.bytes;
                }
                else
                {
                    agRecv[w] += op.bytes;
                }
            }
            for (uint32_t v = 0; v < p; ++v)
            {
                CHECK(rsSent[v] == S - Z(S, p, v));
                CHECK(agRecv[v] == S - Z(S, p, v));
            }
            if (S % p == 0 && r == 0)
            {
                for (uint32_t i = 0; i < n; ++i)
                {
                    // Bandwidth-optimal, like the ring: 2(p-1)/p * S each way.
                    CHECK(b.sent[i] == 2 * (p - 1) * (S / p));
                    CHECK(b.received[i] == 2 * (p - 1) * (S / p));
                }
            }
        }
    }
}

TEST_CASE("double binary tree: two spanning trees, mirrored or shifted, halves of S",
          "[unit][collective]")
{
    for (uint32_t n = 2; n <= 33; ++n)
    {
        CAPTURE(n);
        std::set<uint32_t> interior[2];
        for (uint32_t t = 0; t < 2; ++t)
        {
            uint32_t roots = 0;
            std::vector<uint32_t> children(n, 0);
            for (uint32_t r = 0; r < n; ++r)
            {
                const int32_t u = DoubleTreeParent(n, t, r);
                if (u < 0)
                {
                    ++roots;
                    continue;
                }
                REQUIRE(uint32_t(u) < n);
                ++children[u];
                // Every rank reaches the root: no cycles.
                uint32_t hops = 0;
                for (int32_t x = int32_t(r); x >= 0 && hops <= n; x = DoubleTreeParent(n, t, x))
                {
                    ++hops;
                }
                CHECK(hops <= n);
            }
            CHECK(roots == 1);
            for (uint32_t r = 0; r < n; ++r)
            {
                CHECK(children[r] <= 2); // binary
                if (children[r] > 0)
                {
                    interior[t].insert(r);
                }
            }
        }
        if (n % 2 == 0 && (n & (n - 1)) == 0)
        {
            // NCCL's property for power-of-two n: no rank is interior in both trees (tree 0's
            // interior ranks are even, the mirror's odd), so each rank sends and receives at
            // most ~S in total.
            for (uint32_t r : interior[0])
            {
                CHECK(interior[1].count(r) == 0);
            }
        }
        const uint64_t S = 1000001;
        const auto s = DoubleBinaryTreeAllReduceSchedule(n, S);
        ValidateSchedule(s);
        const auto b = ScheduleRankBytes(s);
        for (uint32_t r = 0; r < n; ++r)
        {
            uint64_t expectSent = 0;
            uint64_t expectRecv = 0;
            for (uint32_t t = 0; t < 2; ++t)
            {
                const uint64_t half = t == 0 ? S - S / 2 : S / 2;
                uint64_t kids = 0;
                for (uint32_t c = 0; c < n; ++c)
                {
                    kids += DoubleTreeParent(n, t, c) == int32_t(r) ? 1 : 0;
                }
                const uint64_t up = DoubleTreeParent(n, t, r) >= 0 ? 1 : 0;
                // reduce: send up once, receive from every child; broadcast: the reverse
                expectSent += half * (up + kids);
                expectRecv += half * (kids + up);
            }
            CHECK(b.sent[r] == expectSent);
            CHECK(b.received[r] == expectRecv);
        }
    }
    // n = 8, NCCL's btree: 0 -> 4; 4 -> 2, 6; 2 -> 1, 3; 6 -> 5, 7.
    const int32_t parents[8] = {-1, 2, 4, 2, 0, 6, 4, 6};
    for (uint32_t r = 0; r < 8; ++r)
    {
        CHECK(BtreeParent(8, r) == parents[r]);
        CHECK(DoubleTreeParent(8, 1, 7 - r) == (parents[r] < 0 ? -1 : 7 - parents[r]));
    }
    // Depth 3 per tree: 3 reduce levels then 3 broadcast levels.
    CHECK(DoubleBinaryTreeAllReduceSchedule(8, 1 << 20).steps == 6);
}

TEST_CASE("hierarchical ring: intra-server reduce-scatter, rail all-reduce, all-gather",
          "[unit][collective]")
{
    for (auto [m, L] : std::vector<std::pair<uint32_t, uint32_t>>{{2, 4}, {4, 8}, {3, 2}, {1, 8}, {8, 1}})
    {
        for (uint64_t S : kBytes)
        {
            const uint32_t n = m * L;
            CAPTURE(m, L, S);
            const auto s = HierarchicalRingAllReduceSchedule(n, S, L);
            ValidateSchedule(s);
            const auto b = ScheduleRankBytes(s);
            uint64_t crossServer = 0;
            for (const auto& op : s.ops)
            {
                if (op.src / L != op.dst / L)
                {
                    CHECK(op.src % L == op.dst % L); // across servers only on the same rail
                    crossServer += op.bytes;
                }
            }
            for (uint32_t g = 0; g < m; ++g)
            {
                for (uint32_t l = 0; l < L; ++l)
                {
                    const uint32_t i = g * L + l;
                    // intra: RS sends S - z_l, AG sends S - z_{l+1} (L blocks of S);
                    // inter: a ring all-reduce of block l (C = z_l) among m ranks.
                    const uint64_t C = Z(S, L, l);
                    uint64_t expect = 0;
                    if (L > 1)
                    {
                        expect += (S - Z(S, L, l)) + (S - Z(S, L, l + 1));
                    }
                    if (m > 1)
                    {
                        expect += 2 * C - Z(C, m, g + 1) - Z(C, m, g + 2);
                    }
                    CHECK(b.sent[i] == expect);
                }
            }
            if (m > 1 && S % n == 0)
            {
                // 2(m-1)/m * S/L per rank leaves the server: n * that in all.
                CHECK(crossServer == uint64_t(n) * 2 * (m - 1) * (S / L / m));
            }
            CHECK(s.steps == (L > 1 ? 2 * (L - 1) : 0) + (m > 1 ? 2 * (m - 1) : 0));
        }
    }
}

TEST_CASE("all-to-all direct and pairwise: every ordered pair once, block j to rank j",
          "[unit][collective]")
{
    for (uint32_t n : kRanks)
    {
        for (uint64_t S : kBytes)
        {
            CAPTURE(n, S);
            for (const auto& s : {DirectAllToAllSchedule(n, S), PairwiseAllToAllSchedule(n, S)})
            {
                ValidateSchedule(s);
                std::set<std::pair<uint32_t, uint32_t>> pairs;
                for (const auto& op : s.ops)
                {
                    CHECK(pairs.insert({op.src, op.dst}).second);
                    CHECK(op.bytes == Z(S, n, op.dst));
                }
                CHECK(pairs.size() == size_t(n) * (n - 1));
                const auto b = ScheduleRankBytes(s);
                for (uint32_t i = 0; i < n; ++i)
                {
                    CHECK(b.sent[i] == S - Z(S, n, i));
                    CHECK(b.received[i] == (n - 1) * Z(S, n, i));
                }
            }
            CHECK(DirectAllToAllSchedule(n, S).steps == 1);
            const auto pw = PairwiseAllToAllSchedule(n, S);
            CHECK(pw.steps == n - 1);
            for (const auto& op : pw.ops)
            {
                CHECK(op.dst == (op.src + op.step + 1) % n); // step k sends to i + k + 1
            }
        }
    }
}

TEST_CASE("broadcast, send-recv, permutation and incast", "[unit][collective]")
{
    for (uint32_t n : kRanks)
    {
        for (uint32_t root : {0u, n - 1, n / 2})
        {
            const uint64_t S = 12345;
            const auto s = ChainBroadcastSchedule(n, S, root);
            ValidateSchedule(s);
            CHECK(s.steps == n - 1);
            const auto b = ScheduleRankBytes(s);
            const uint32_t last = (root + n - 1) % n;
            for (uint32_t i = 0; i < n; ++i)
            {
                CHECK(b.sent[i] == (i == last ? 0 : S));
                CHECK(b.received[i] == (i == root ? 0 : S));
            }
            const auto inc = IncastSchedule(n, S, root);
            const auto bi = ScheduleRankBytes(inc);
            for (uint32_t i = 0; i < n; ++i)
            {
                CHECK(bi.sent[i] == (i == root ? 0 : S));
                CHECK(bi.received[i] == (i == root ? (n - 1) * S : 0));
            }
        }
        const auto perm = PermutationSchedule(n, 777, 5);
        const auto bp = ScheduleRankBytes(perm);
        for (uint32_t i = 0; i < n; ++i)
        {
            CHECK(bp.sent[i] == 777);
            CHECK(bp.received[i] == 777);
        }
        for (const auto& op : perm.ops)
        {
            CHECK(op.src != op.dst);
        }
    }
    const auto sr = SendRecvSchedule(4, 100, 1, 3);
    REQUIRE(sr.ops.size() == 1);
    CHECK(sr.ops[0].src == 1);
    CHECK(sr.ops[0].dst == 3);
    CHECK(sr.ops[0].bytes == 100);
}

TEST_CASE("busbw factors of the generated collectives are nccl-tests' (oracle 2)",
          "[unit][collective][oracle2]")
{
    for (uint32_t n : kRanks)
    {
        const double nn = n;
        CHECK(RingAllReduceSchedule(n, 1 << 20).busbwFactor == 2 * (nn - 1) / nn);
        CHECK(HalvingDoublingAllReduceSchedule(n, 1 << 20).busbwFactor == 2 * (nn - 1) / nn);
        CHECK(DoubleBinaryTreeAllReduceSchedule(n, 1 << 20).busbwFactor == 2 * (nn - 1) / nn);
        CHECK(RingAllGatherSchedule(n, 1 << 20).busbwFactor == (nn - 1) / nn);
        CHECK(RingReduceScatterSchedule(n, 1 << 20).busbwFactor == (nn - 1) / nn);
        CHECK(DirectAllToAllSchedule(n, 1 << 20).busbwFactor == (nn - 1) / nn);
        CHECK(ChainBroadcastSchedule(n, 1 << 20, 0).busbwFactor == 1.0);
        CHECK(SendRecvSchedule(n, 1 << 20, 0, 1).busbwFactor == 1.0);
    }
}

TEST_CASE("MakeCollectiveSchedule: names, algorithms and errors", "[unit][collective]")
{
    CHECK(CanonicalCollectiveKind("ALLREDUCE") == "all-reduce");
    CHECK(CanonicalCollectiveKind("all_to_all") == "all-to-all");
    CHECK(CanonicalCollectiveKind("SendRecv") == "send-recv");
    CollectiveRequest r;
    r.kind = "allreduce";
    r.ranks = 8;
    r.bytes = 1 << 20;
    CHECK(MakeCollectiveSchedule(r).algorithm == "ring");
    r.algorithm = "halving_doubling";
    CHECK(MakeCollectiveSchedule(r).algorithm == "halving-doubling");
    r.algorithm = "pairwise";
    RequireKey([&] { MakeCollectiveSchedule(r); }, "collective.algorithm");
    r.kind = "gather";
    RequireKey([&] { MakeCollectiveSchedule(r); }, "collective.kind");
    RequireKey([] { RingAllReduceSchedule(8, 7); }, "collective.bytes");
    RequireKey([] { RingAllReduceSchedule(0, 7); }, "collective.ranks");
    RequireKey([] { ChainBroadcastSchedule(4, 10, 4); }, "collective.root");
    RequireKey([] { SendRecvSchedule(4, 10, 2, 2); }, "collective.peer");
    RequireKey([] { HierarchicalRingAllReduceSchedule(12, 1000, 5); }, "collective.local_size");
    RequireKey([] { HalvingDoublingAllReduceSchedule(8, 7); }, "collective.bytes");
    // One rank: nothing to send.
    CHECK(RingAllReduceSchedule(1, 100).ops.empty());
    CHECK(RingAllReduceSchedule(1, 100).steps == 0);
}

TEST_CASE("ValidateSchedule rejects dependencies a rank cannot observe", "[unit][collective]")
{
    auto s = RingAllReduceSchedule(4, 1000);
    ValidateSchedule(s);
    // Op 5 is step 1 from rank 1; make it wait for op 2 (rank 2 -> 3), unseen by rank 1.
    s.ops[5].deps = {2};
    RequireKey([&] { ValidateSchedule(s); }, "collective.ops");
    s = RingAllReduceSchedule(4, 1000);
    s.ops[1].deps = {3}; // a later op
    RequireKey([&] { ValidateSchedule(s); }, "collective.ops");
}

} // namespace TUSK_TEST_FILE
