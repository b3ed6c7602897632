// Unit tests of the NCCL-like lowering (WorkloadBuilder), jobs (process groups, placement,
// iterations, DiLoCo-style periodic synchronisation) and the never-starting-transfer check.
// No Simulator.
#include "fabric/model/input-error.h"
#include "workload/model/job-model.h"
#include "workload/model/workload-builder.h"

#include <catch2/catch.hpp>

#include <map>
#include <numeric>
#include <set>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

template <class F>
std::string
KeyOf(F&& f)
{
    try
    {
        f();
    }
    catch (const InputError& e)
    {
        return e.Key() + ": " + e.Message();
    }
    return "";
}

std::vector<uint32_t>
Iota(uint32_t n, uint32_t from = 0)
{
    std::vector<uint32_t> v(n);
    std::iota(v.begin(), v.end(), from);
    return v;
}

} // namespace

TEST_CASE("lowering splits every op exactly over channels and slices", "[unit][job]")
{
    for (uint32_t C : {1u, 3u, 4u})
    {
        for (uint64_t chunk : {0ULL, 1000ULL, 65536ULL})
        {
            CAPTURE(C, chunk);
            const auto s = RingAllReduceSchedule(5, 1'000'003);
            WorkloadSpec w;
            WorkloadBuilder b(w);
            ExecutionOptions o;
            o.channels = C;
            o.chunkBytes = chunk;
            o.maxSlices = 16;
            const uint32_t base = b.AllocateConnections(C);
            const auto hosts = std::vector<uint32_t>{10, 11, 12, 13, 14};
            StartCondition start;
            start.timePs = 5000;
            const uint32_t c = b.AddCollective(s, {hosts}, o, start, base);
            const auto& cs = w.collectives[c];
            CHECK(cs.channels == C);
            uint64_t maxOp = 0;
            for (const auto& op : s.ops)
            {
                maxOp = std::max(maxOp, op.bytes);
            }
            // K = ceil(ceil(maxOp / C) / chunk), at most maxSlices (workload-builder.h).
            const uint64_t perChannel = (maxOp + C - 1) / C;
            const uint64_t expectK =
                chunk == 0 ? 1 : std::min<uint64_t>(16, (perChannel + chunk - 1) / chunk);
            CHECK(cs.slices == expectK);
            REQUIRE(w.transfers.size() == s.ops.size() * C * cs.slices);
            // Bytes per (op) add up exactly; every piece non-empty; qpGroup per channel.
            std::map<uint64_t, uint64_t> perOp;
            for (size_t t = 0; t < w.transfers.size(); ++t)
            {
                const auto& tr = w.transfers[t];
                CHECK(tr.bytes >= 1);
                CHECK(tr.qpGroup == base + uint32_t(tr.channel));
                perOp[t / (C * cs.slices)] += tr.bytes;
                const auto& op = s.ops[t / (C * cs.slices)];
                CHECK(tr.src == hosts[op.src]);
                CHECK(tr.dst == hosts[op.dst]);
                if (op.deps.empty())
                {
                    CHECK(tr.trigger == -1);
                    CHECK(tr.startPs == 5000);
                }
                else
                {
                    // Waits on a oneshot fired by the same channel and slice of the step before.
                    REQUIRE(tr.trigger >= 0);
                    const size_t dep = (op.deps[0] * C + tr.channel) * cs.slices +
                                       (t % cs.slices);
                    const auto& on = w.transfers[dep].onRecvDone;
                    CHECK(std::find(on.begin(), on.end(), uint32_t(tr.trigger)) != on.end());
                }
            }
            for (size_t o2 = 0; o2 < s.ops.size(); ++o2)
            {
                CHECK(perOp[o2] == s.ops[o2].bytes);
            }
            CHECK(TransfersThatCannotStart(w).empty());
        }
    }
}

TEST_CASE("lowering: send-done dependencies for a rank's own previous send", "[unit][job]")
{
    // Pairwise all-to-all: step k waits for the rank's own step k-1 send (send-done) and for
    // its step k-1 input (recv-done).
    const auto s = PairwiseAllToAllSchedule(4, 4000);
    WorkloadSpec w;
    WorkloadBuilder b(w);
    b.AddCollective(s, {Iota(4)}, ExecutionOptions(), StartCondition(), b.AllocateConnections(1));
    size_t sendDeps = 0;
    size_t recvDeps = 0;
    for (const auto& t : w.transfers)
    {
        sendDeps += t.onSendDone.size();
        recvDeps += t.onRecvDone.size();
    }
    // Steps 2 and 3 of 4 ranks each wait for one send and one receive.
    CHECK(sendDeps == 8);
    CHECK(recvDeps == 8);
    CHECK(TransfersThatCannotStart(w).empty());
}

TEST_CASE("TP = 4, PP = 2 on 16 GPUs: DP groups of 2, TP groups of 4", "[unit][job]")
{
    ParallelDegrees d;
    d.tp = 4;
    d.pp = 2;
    ProcessGroups g(16, d);
    CHECK(g.Dp() == 2); // 16 / (4 * 2 * 1)
    const auto tp = g.Groups("tp");
    const auto dp = g.Groups("dp");
    const auto pp = g.Groups("pp");
    REQUIRE(tp.size() == 4);
    REQUIRE(dp.size() == 8);
    REQUIRE(pp.size() == 8);
    for (size_t i = 0; i < tp.size(); ++i)
    {
        // rank = tp + 4 * (dp + 2 * pp): TP groups are 4 consecutive ranks
        CHECK(tp[i] == Iota(4, uint32_t(4 * i)));
    }
    for (const auto& grp : dp)
    {
        REQUIRE(grp.size() == 2);
        CHECK(grp[1] - grp[0] == 4); // dp stride = TP
    }
    CHECK(dp[0] == std::vector<uint32_t>{0, 4});
    CHECK(dp[4] == std::vector<uint32_t>{8, 12});
    CHECK(pp[0] == std::vector<uint32_t>{0, 8}); // pp stride = TP * DP
    // Every rank is in exactly one group of each kind.
    for (const std::string kind : {"tp", "dp", "pp", "ep", "dpep", "world"})
    {
        std::set<uint32_t> seen;
        for (const auto& grp : g.Groups(kind))
        {
            for (uint32_t r : grp)
            {
                CHECK(seen.insert(r).second);
            }
        }
        CHECK(seen.size() == 16);
    }
    // EP: 32 ranks, TP 2, EP 4, DP 2, PP 2: EP groups of 4 with stride 2; dpep groups of 8.
    ParallelDegrees m;
    m.tp = 2;
    m.ep = 4;
    m.pp = 2;
    ProcessGroups moe(32, m);
    CHECK(moe.Dp() == 2);
    CHECK(moe.Groups("ep")[0] == std::vector<uint32_t>{0, 2, 4, 6});
    CHECK(moe.Groups("dpep")[0].size() == 8);
    CHECK(moe.Groups("dp")[0] == std::vector<uint32_t>{0, 8});
}

TEST_CASE("inconsistent parallel degrees are a clear error", "[unit][job]")
{
    ParallelDegrees d;
    d.tp = 4;
    d.pp = 2;
    d.dp = 3;
    const std::string e = KeyOf([&] { ProcessGroups(16, d); });
    CHECK(e.rfind("job.dp: ", 0) == 0);
    CHECK(e.find("4 * 2 * 3 * 1 = 24") != std::string::npos);
    CHECK(e.find("16 ranks") != std::string::npos);
    d.dp = 0;
    d.tp = 3;
    CHECK(KeyOf([&] { ProcessGroups(16, d); }).rfind("job.dp: cannot derive DP", 0) == 0);
    d.tp = 0;
    CHECK(KeyOf([&] { ProcessGroups(16, d); }).rfind("job.tp: ", 0) == 0);
    CHECK(KeyOf([&] { ProcessGroups(4, ParallelDegrees()).Groups("xp"); }).rfind("job.group", 0) == 0);
}

TEST_CASE("placement: contiguous, rack-aware, random, explicit", "[unit][job]")
{
    PlacementRequest r;
    r.ranks = 6;
    r.pool = {0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11}; // host 4 taken by another job
    // racks of 4 hosts: rack 0 = 0..3, rack 1 = 4..7, rack 2 = 8..11
    for (uint32_t h = 0; h < 12; ++h)
    {
        r.rackOf.push_back(h / 4);
    }
    r.policy = "contiguous";
    CHECK(PlaceRanks(r) == std::vector<uint32_t>{0, 1, 2, 3, 5, 6});
    r.policy = "rack-aware";
    // racks 0 and 2 have 4 free hosts, rack 1 has 3: fill rack 0, then rack 2.
    CHECK(PlaceRanks(r) == std::vector<uint32_t>{0, 1, 2, 3, 8, 9});
    r.policy = "random";
    r.seed = 7;
    const auto a = PlaceRanks(r);
    CHECK(a == PlaceRanks(r)); // deterministic for a seed
    CHECK(std::set<uint32_t>(a.begin(), a.end()).size() == 6);
    for (uint32_t h : a)
    {
        CHECK(std::find(r.pool.begin(), r.pool.end(), h) != r.pool.end());
    }
    r.seed = 8;
    CHECK(a != PlaceRanks(r));
    r.policy = "explicit";
    r.pool = {9, 3, 5, 1, 0, 2};
    CHECK(PlaceRanks(r) == r.pool);
    r.pool = {9, 3};
    CHECK(KeyOf([&] { PlaceRanks(r); }).rfind("job.ranks", 0) == 0);
    r.policy = "best";
    r.pool = Iota(12);
    CHECK(KeyOf([&] { PlaceRanks(r); }).rfind("job.placement", 0) == 0);
    r.policy = "contiguous";
    r.ranks = 13;
    CHECK(KeyOf([&] { PlaceRanks(r); }).rfind("job.ranks", 0) == 0);
}

TEST_CASE("rail-aligned rings keep server-to-server hops on one rail", "[unit][job]")
{
    // 4 servers x 4 GPUs; host = server * 4 + gpu.
    std::vector<uint32_t> serverOf;
    for (uint32_t h = 0; h < 16; ++h)
    {
        serverOf.push_back(h / 4);
    }
    const auto hosts = Iota(16);
    std::set<uint32_t> railsUsed;
    for (uint32_t c = 0; c < 4; ++c)
    {
        const auto order = RailAlignedRingOrder(hosts, serverOf, 4, c);
        CHECK(std::set<uint32_t>(order.begin(), order.end()).size() == 16);
        for (size_t x = 0; x + 1 < order.size(); ++x)
        {
            if (serverOf[order[x]] != serverOf[order[x + 1]])
            {
                CHECK(order[x] % 4 == order[x + 1] % 4); // same rail
                if (x == 3)
                {
                    railsUsed.insert(order[x] % 4);
                }
            }
        }
        // Channel c enters server 0 at GPU c.
        CHECK(order[0] == c);
    }
    CHECK(railsUsed.size() == 4); // each channel leaves server 0 on a different rail
    // Not whole servers: unchanged.
    CHECK(RailAlignedRingOrder({0, 4, 8, 12}, serverOf, 4, 1) == std::vector<uint32_t>{0, 4, 8, 12});
}

TEST_CASE("jobs: iterations, blocking chain, and DiLoCo-style periodic sync", "[unit][job]")
{
    JobSpec job;
    job.name = "j";
    job.hosts = Iota(8);
    job.degrees.tp = 2; // DP = 4
    job.iterations = 6;
    job.syncEvery = 3; // dp collectives in iterations 2 and 5 only
    job.iterationComputePs = 1'000'000;
    JobCollective tp;
    tp.kind = "all-reduce";
    tp.group = "tp";
    tp.bytes = 1 << 16;
    JobCollective dp;
    dp.kind = "all-reduce";
    dp.group = "dp";
    dp.bytes = 1 << 20;
    dp.computePs = 2'000'000;
    job.collectives = {tp, dp};
    WorkloadSpec w;
    WorkloadBuilder b(w);
    AppendJob(b, w, job);
    REQUIRE(w.jobs.size() == 1);
    CHECK(w.jobs[0].dp == 4);
    std::map<int32_t, std::map<std::string, int>> perIteration;
    for (const auto& c : w.collectives)
    {
        CHECK(c.job == 0);
        perIteration[c.iteration][c.group.substr(0, 2)]++;
    }
    for (int32_t it = 0; it < 6; ++it)
    {
        CAPTURE(it);
        CHECK(perIteration[it]["tp"] == 4); // 4 TP groups every iteration
        CHECK(perIteration[it]["dp"] == ((it + 1) % 3 == 0 ? 2 : 0)); // 2 DP groups, every 3rd
    }
    // The first iteration starts at its compute time; everything else is chained by triggers.
    for (const auto& t : w.transfers)
    {
        if (t.trigger < 0)
        {
            CHECK(w.collectives[t.collective].iteration == 0);
            CHECK(t.startPs == 1'000'000);
        }
    }
    CHECK(TransfersThatCannotStart(w).empty());
    // The DP collective waits for the TP barrier plus its 2 us compute.
    for (const auto& t : w.transfers)
    {
        if (w.collectives[t.collective].group.rfind("dp", 0) == 0 && t.step == 0)
        {
            CHECK(w.triggers[t.trigger].kind == TriggerSpec::BARRIER);
            CHECK(t.startPs == 2'000'000);
        }
    }
}

TEST_CASE("a job's transfers grow geometrically: setup linear in iterations", "[unit][job]")
{
    // Every iteration appends one collective. Each reallocation of the transfer array moves
    // every transfer built so far; with geometric growth there are O(log N) of them over N
    // iterations (amortised O(1) per transfer), with an exact-size reserve per collective one
    // per iteration (O(N^2) moves in all).
    JobSpec job;
    job.name = "j";
    job.hosts = Iota(8);
    job.iterations = 512;
    JobCollective ar;
    ar.kind = "all-reduce";
    ar.bytes = 1 << 16;
    job.collectives = {ar};
    WorkloadSpec w;
    WorkloadBuilder b(w);
    // Count reallocations by watching the array's capacity after each iteration's collective.
    size_t reallocations = 0;
    size_t capacity = w.transfers.capacity();
    for (uint32_t it = 0; it < job.iterations; ++it)
    {
        JobSpec one = job;
        one.iterations = 1;
        AppendJob(b, w, one);
        if (w.transfers.capacity() != capacity)
        {
            ++reallocations;
            capacity = w.transfers.capacity();
        }
    }
    REQUIRE(w.transfers.size() == 512 * (2 * 7 * 8)); // 2(n-1) steps x n ranks per collective
    CHECK(reallocations <= 12);                        // log2(512) + 3
}

TEST_CASE("a collective whose group can never complete is found before the run", "[unit][job]")
{
    // Ring all-reduce of 4 ranks, then a barrier that needs one activation more than exist.
    WorkloadSpec w;
    WorkloadBuilder b(w);
    const uint32_t c = b.AddCollective(RingAllReduceSchedule(4, 4000), {Iota(4)}, ExecutionOptions(),
                                       StartCondition(), b.AllocateConnections(1));
    const int32_t bar = b.AddBarrier({c});
    REQUIRE(bar >= 0);
    TransferSpec t;
    t.src = 0;
    t.dst = 1;
    t.bytes = 10;
    t.trigger = bar;
    const uint32_t ok = b.AddTransfer(t);
    CHECK(TransfersThatCannotStart(w).empty());
    w.triggers[bar].threshold += 1; // now it can never fire
    const auto dead = TransfersThatCannotStart(w);
    CHECK(dead == std::vector<uint32_t>{ok});
    // A dead transfer starves what waits on it, transitively.
    w.triggers[bar].threshold -= 1;
    w.transfers[0].trigger = static_cast<int32_t>(w.triggers.size());
    w.triggers.push_back(TriggerSpec{TriggerSpec::BARRIER, 2, 99, false, {}, 0});
    w.transfers.back().onRecvDone.push_back(static_cast<uint32_t>(w.triggers.size() - 1));
    const auto dead2 = TransfersThatCannotStart(w);
    // Transfer 0 needs 2 activations but has only the last transfer, which waits for the
    // barrier, which needs transfer 0: all of the ring's step-1 chain from rank 0 dies.
    CHECK(std::find(dead2.begin(), dead2.end(), 0u) != dead2.end());
    CHECK(std::find(dead2.begin(), dead2.end(), ok) != dead2.end());
}

TEST_CASE("algorithm \"auto\": NCCL's choice per group, servers counted from the hosts",
          "[unit][job][auto]")
{
    // 64 ranks on 8 servers of 8 at 50 GB/s: the worked example of collective-registry-test.cc
    // (NCCL src/graph/tuning.cc, Simple): ring at 64 KiB, double binary tree at 1 MiB. With the
    // same 64 hosts and no scale-up domain (N = 64 nodes) the ring's 126 network hops lose to
    // the tree at 64 KiB too: ring 8.4 + 126 * 9.6 = 1218 us (S < 64/16 * 64 KiB: no x 1.9)
    // + 2.6 us; tree 2 * 6 * 50 = 600 us + 64 KiB / 13.5 GB/s (c = 0.6) = 604.9 us.
    for (bool scaleUp : {true, false})
    {
        CAPTURE(scaleUp);
        JobSpec job;
        job.name = "j";
        job.hosts = Iota(64);
        job.linkGBps = 50;
        if (scaleUp)
        {
            for (uint32_t h = 0; h < 64; ++h)
            {
                job.serverOf.push_back(h / 8);
            }
        }
        for (uint64_t bytes : {uint64_t(64) << 10, uint64_t(1) << 20})
        {
            JobCollective c;
            c.kind = "all-reduce";
            c.algorithm = "auto";
            c.bytes = bytes;
            job.collectives.push_back(c);
        }
        WorkloadSpec w;
        WorkloadBuilder b(w);
        AppendJob(b, w, job);
        REQUIRE(w.collectives.size() == 2);
        CHECK(w.collectives[0].algorithm == (scaleUp ? "ring" : "double-binary-tree"));
        CHECK(w.collectives[1].algorithm == "double-binary-tree");
    }
}

} // namespace TUSK_TEST_FILE
