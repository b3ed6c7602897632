// Unit tests of the pure traffic generators (permutation, incast, ring all-reduce) and of the
// nccl-tests bandwidth definitions. No Simulator.
#include "fabric/model/input-error.h"
#include "workload/model/ring-steps.h"
#include "workload/model/traffic-generators.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

std::vector<uint32_t>
Destinations(const WorkloadSpec& w)
{
    std::vector<uint32_t> d;
    for (const auto& t : w.transfers)
    {
        d.push_back(t.dst);
    }
    return d;
}

template <class F>
void
RequireInputError(F&& f, const std::string& key)
{
    try
    {
        f();
        FAIL("expected InputError with key " << key);
    }
    catch (const InputError& e)
    {
        CHECK(e.Key() == key);
        CHECK(e.Line() == 0u);
        CHECK_FALSE(e.Message().empty());
    }
}

} // namespace

TEST_CASE("permutation is a derangement: one send and one receive per host, none to itself",
          "[unit][workload]")
{
    for (uint32_t hosts : {2u, 3u, 5u, 32u, 128u, 1000u})
    {
        for (uint64_t seed : {0ull, 1ull, 42ull, 0x8000000000000005ull})
        {
            CAPTURE(hosts, seed);
            const WorkloadSpec w = MakePermutation(hosts, 2000000, seed);
            REQUIRE(w.transfers.size() == hosts);
            CHECK(w.triggers.empty());
            CHECK(w.collectives.empty());
            std::vector<uint32_t> received(hosts, 0);
            for (uint32_t i = 0; i < hosts; ++i)
            {
                const TransferSpec& t = w.transfers[i];
                CHECK(t.src == i); // host i sends exactly transfer i
                REQUIRE(t.dst < hosts);
                CHECK(t.dst != t.src);
                CHECK(t.bytes == 2000000u);
                CHECK(t.startPs == 0u);
                CHECK(t.trigger == -1);
                CHECK(t.qpGroup == i);
                CHECK(t.externalId == i);
                CHECK(t.collective == -1);
                ++received[t.dst];
            }
            for (uint32_t h = 0; h < hosts; ++h)
            {
                CHECK(received[h] == 1u);
            }
        }
    }
}

TEST_CASE("permutation is deterministic for a seed and differs across seeds", "[unit][workload]")
{
    CHECK(Destinations(MakePermutation(128, 1, 7)) == Destinations(MakePermutation(128, 1, 7)));
    // 32 hosts have ~4.5e34 derangements: ten seeds giving two equal ones would mean the seed
    // is ignored, not bad luck.
    std::set<std::vector<uint32_t>> distinct;
    for (uint64_t seed = 1; seed <= 10; ++seed)
    {
        distinct.insert(Destinations(MakePermutation(32, 1, seed)));
    }
    CHECK(distinct.size() == 10u);
}

TEST_CASE("permutation is uniform over derangements", "[unit][workload]")
{
    // 4 hosts have D(4) = 9 derangements. Over N seeds each should appear N/9 times; the count
    // is binomial with sigma = sqrt(N * 1/9 * 8/9). Accept 5 sigma (fixed seeds: deterministic).
    const int n = 9000;
    std::map<std::vector<uint32_t>, int> counts;
    for (int seed = 0; seed < n; ++seed)
    {
        ++counts[Destinations(MakePermutation(4, 1, static_cast<uint64_t>(seed)))];
    }
    REQUIRE(counts.size() == 9u);
    const double mean = n / 9.0;
    const double sigma = std::sqrt(n * (1.0 / 9.0) * (8.0 / 9.0));
    for (const auto& kv : counts)
    {
        CHECK(std::abs(kv.second - mean) < 5 * sigma);
    }
}

TEST_CASE("permutation rejects too few hosts and empty flows", "[unit][workload]")
{
    RequireInputError([] { MakePermutation(0, 1, 1); }, "hosts");
    RequireInputError([] { MakePermutation(1, 1, 1); }, "hosts");
    RequireInputError([] { MakePermutation(4, 0, 1); }, "bytes");
}

TEST_CASE("incast sends from every sender to the one destination", "[unit][workload]")
{
    const std::vector<uint32_t> senders{5, 1, 9, 3};
    const WorkloadSpec w = MakeIncast(senders, 0, 1048576);
    REQUIRE(w.transfers.size() == senders.size());
    for (size_t i = 0; i < senders.size(); ++i)
    {
        CHECK(w.transfers[i].src == senders[i]);
        CHECK(w.transfers[i].dst == 0u);
        CHECK(w.transfers[i].bytes == 1048576u);
        CHECK(w.transfers[i].startPs == 0u);
        CHECK(w.transfers[i].trigger == -1);
        CHECK(w.transfers[i].qpGroup == i);
    }
    RequireInputError([] { MakeIncast({}, 0, 1); }, "senders");
    RequireInputError([] { MakeIncast({1, 0}, 0, 1); }, "senders");
    RequireInputError([] { MakeIncast({1, 2, 1}, 0, 1); }, "senders");
    RequireInputError([] { MakeIncast({1}, 0, 0); }, "bytes");
}

TEST_CASE("ring all-reduce moves exactly the bytes of its definition", "[unit][workload]")
{
    // Awkward sizes: S = 1000003 is prime, so neither n = 7 nor C = 3 divides any split evenly.
    const uint64_t S = 1000003;
    const std::vector<uint32_t> ranks{5, 9, 2, 14, 7, 3, 11}; // host ids, deliberately unordered
    const uint32_t n = static_cast<uint32_t>(ranks.size());
    const uint32_t C = 3;
    const WorkloadSpec w = MakeRingAllReduce(ranks, S, C, 0);

    REQUIRE(w.transfers.size() == size_t(2 * (n - 1)) * n * C);
    std::map<uint32_t, uint32_t> rankOf;
    for (uint32_t i = 0; i < n; ++i)
    {
        rankOf[ranks[i]] = i;
    }

    // Chunk sizes by definition: S split into n chunks, the first S mod n one byte larger.
    std::vector<uint64_t> z(n);
    uint64_t sumZ = 0;
    for (uint32_t j = 0; j < n; ++j)
    {
        z[j] = S / n + (j < S % n ? 1 : 0);
        sumZ += z[j];
    }
    REQUIRE(sumZ == S);

    // Per (rank, step): the C channel pieces sum to one chunk and differ by at most one byte.
    std::map<std::pair<uint32_t, int32_t>, std::vector<uint64_t>> pieces;
    std::vector<uint64_t> sent(n, 0);
    std::vector<uint64_t> received(n, 0);
    uint64_t total = 0;
    for (const TransferSpec& t : w.transfers)
    {
        REQUIRE(rankOf.count(t.src) == 1);
        REQUIRE(rankOf.count(t.dst) == 1);
        const uint32_t i = rankOf[t.src];
        CHECK(rankOf[t.dst] == (i + 1) % n); // always to the next rank on the ring
        CHECK(t.bytes >= 1u);
        sent[i] += t.bytes;
        received[rankOf[t.dst]] += t.bytes;
        total += t.bytes;
        pieces[{i, t.step}].push_back(t.bytes);
    }
    for (const auto& kv : pieces)
    {
        REQUIRE(kv.second.size() == C);
        uint64_t sum = 0;
        uint64_t lo = UINT64_MAX;
        uint64_t hi = 0;
        for (uint64_t b : kv.second)
        {
            sum += b;
            lo = std::min(lo, b);
            hi = std::max(hi, b);
        }
        const uint32_t i = kv.first.first;
        const uint32_t k = static_cast<uint32_t>(kv.first.second);
        // In step k rank i sends chunk (i - k) mod n (reduce-scatter then all-gather).
        CHECK(sum == z[(i + 2 * n - k % n) % n]);
        CHECK(hi - lo <= 1u);
    }
    // Rank i sends 2(n-1) chunks: chunks (i-k) mod n for k = 0..2n-3, i.e. every chunk twice
    // except chunks i+1 and i+2, once each. It receives what rank i-1 sends.
    for (uint32_t i = 0; i < n; ++i)
    {
        CAPTURE(i);
        CHECK(sent[i] == 2 * S - z[(i + 1) % n] - z[(i + 2) % n]);
        CHECK(received[i] == 2 * S - z[i] - z[(i + 1) % n]);
        // ... which is 2(n-1)/n * S up to the integer split (each z_j within 1 of S/n).
        CHECK(std::abs(double(sent[i]) - 2.0 * (n - 1) / n * double(S)) <= 2.0);
        CHECK(std::abs(double(received[i]) - 2.0 * (n - 1) / n * double(S)) <= 2.0);
    }
    CHECK(total == uint64_t(2 * (n - 1)) * S);
}

TEST_CASE("ring all-reduce: bytes divide evenly when n*C divides S", "[unit][workload]")
{
    // S = 1 GiB, n = 8, C = 4: every piece is S/(n C) and each rank sends 2(n-1)/n S.
    const uint64_t S = uint64_t(1) << 30;
    std::vector<uint32_t> ranks(8);
    for (uint32_t i = 0; i < 8; ++i)
    {
        ranks[i] = i;
    }
    const WorkloadSpec w = MakeRingAllReduce(ranks, S, 4, 0);
    std::vector<uint64_t> sent(8, 0);
    for (const TransferSpec& t : w.transfers)
    {
        CHECK(t.bytes == S / 32);
        sent[t.src] += t.bytes;
    }
    for (uint64_t s : sent)
    {
        CHECK(s == S / 8 * 14); // 2(n-1)/n S = 14/8 S
    }
    // Oracle 1 ties in: sending these bytes at 400 Gb/s takes exactly the lower bound.
    CHECK(double(sent[0]) * 8.0 / 400e9 == Approx(RingAllReduceLowerBoundSeconds(8, S, 400e9)));
}

TEST_CASE("ring all-reduce step dependencies", "[unit][workload]")
{
    const std::vector<uint32_t> ranks{4, 0, 6, 2, 1};
    const uint32_t n = 5;
    const uint32_t C = 2;
    const uint64_t startPs = 123456;
    const WorkloadSpec w = MakeRingAllReduce(ranks, 1000003, C, startPs);

    REQUIRE(w.collectives.size() == 1u);
    const CollectiveSpec& coll = w.collectives[0];
    CHECK(coll.kind == "ring-allreduce");
    CHECK(coll.ranks == ranks);
    CHECK(coll.bytesPerRank == 1000003u);
    CHECK(coll.channels == C);
    CHECK(coll.steps == 2 * (n - 1));
    CHECK(coll.busbwFactor == Approx(2.0 * (n - 1) / n).epsilon(1e-15));

    // Which transfers activate each trigger on recv-done / send-done.
    std::vector<std::vector<size_t>> recvActivators(w.triggers.size());
    std::vector<size_t> waiters(w.triggers.size(), 0);
    for (size_t x = 0; x < w.transfers.size(); ++x)
    {
        const TransferSpec& t = w.transfers[x];
        CHECK(t.onSendDone.empty());
        for (uint32_t j : t.onRecvDone)
        {
            REQUIRE(j < w.triggers.size());
            recvActivators[j].push_back(x);
        }
        if (t.trigger >= 0)
        {
            REQUIRE(size_t(t.trigger) < w.triggers.size());
            ++waiters[size_t(t.trigger)];
        }
    }

    std::set<int32_t> steps;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, int32_t> lastStepOnQp;
    for (const TransferSpec& t : w.transfers)
    {
        CHECK(t.collective == 0);
        REQUIRE(t.step >= 0);
        REQUIRE(t.channel >= 0);
        CHECK(t.step < int32_t(2 * (n - 1)));
        CHECK(t.channel < int32_t(C));
        CHECK(t.qpGroup == uint32_t(t.channel));
        steps.insert(t.step);
        // Post order on each connection (src, dst, qpGroup) follows the steps.
        auto key = std::make_tuple(t.src, t.dst, t.qpGroup);
        auto it = lastStepOnQp.find(key);
        if (it != lastStepOnQp.end())
        {
            CHECK(t.step == it->second + 1);
        }
        lastStepOnQp[key] = t.step;

        if (t.step == 0)
        {
            CHECK(t.trigger == -1);
            CHECK(t.startPs == startPs);
            continue;
        }
        // Step k > 0 waits on a oneshot trigger of its own ...
        REQUIRE(t.trigger >= 0);
        CHECK(t.startPs == 0u);
        const TriggerSpec& trig = w.triggers[size_t(t.trigger)];
        CHECK(trig.kind == TriggerSpec::ONESHOT);
        CHECK(trig.threshold == 1u);
        CHECK(waiters[size_t(t.trigger)] == 1u);
        // ... activated by exactly one transfer: the delivery of step k-1, same channel,
        // from the previous rank into this one (the data this step forwards).
        REQUIRE(recvActivators[size_t(t.trigger)].size() == 1u);
        const TransferSpec& pred = w.transfers[recvActivators[size_t(t.trigger)][0]];
        CHECK(pred.step == t.step - 1);
        CHECK(pred.channel == t.channel);
        CHECK(pred.dst == t.src);
        // Forwarding: the piece sent in step k is the one received in step k-1.
        CHECK(pred.bytes == t.bytes);
    }
    CHECK(steps.size() == 2 * (n - 1));
    CHECK(*steps.rbegin() == int32_t(2 * (n - 1) - 1));
    CHECK(w.triggers.size() == size_t(2 * (n - 1) - 1) * n * C);
}

TEST_CASE("ring all-reduce edge cases and invalid arguments", "[unit][workload]")
{
    // n = 1: nothing to exchange.
    const WorkloadSpec one = MakeRingAllReduce({3}, 100, 2, 0);
    CHECK(one.transfers.empty());
    CHECK(one.triggers.empty());
    REQUIRE(one.collectives.size() == 1u);
    CHECK(one.collectives[0].steps == 0u);
    CHECK(one.collectives[0].busbwFactor == 0.0);

    // n = 2, S = 10, C = 1: two steps of one 5-byte chunk each way; 2(n-1)/n S = S.
    const WorkloadSpec two = MakeRingAllReduce({0, 1}, 10, 1, 0);
    REQUIRE(two.transfers.size() == 4u);
    uint64_t sent0 = 0;
    for (const auto& t : two.transfers)
    {
        CHECK(t.bytes == 5u);
        sent0 += t.src == 0 ? t.bytes : 0;
    }
    CHECK(sent0 == 10u);

    // The smallest valid buffer: one byte per piece.
    const WorkloadSpec tight = MakeRingAllReduce({0, 1, 2}, 3 * 4, 4, 0);
    for (const auto& t : tight.transfers)
    {
        CHECK(t.bytes == 1u);
    }

    RequireInputError([] { MakeRingAllReduce({}, 100, 1, 0); }, "ranks");
    RequireInputError([] { MakeRingAllReduce({1, 2, 1}, 100, 1, 0); }, "ranks");
    RequireInputError([] { MakeRingAllReduce({1, 2}, 100, 0, 0); }, "channels");
    RequireInputError([] { MakeRingAllReduce({0, 1, 2}, 3 * 4 - 1, 4, 0); }, "bytesPerRank");
    RequireInputError([] { MakeRingAllReduce({0}, 0, 1, 0); }, "bytesPerRank");
    // 2(n-1) n C transfers beyond 1e9 are refused before allocating anything.
    RequireInputError(
        [] {
            std::vector<uint32_t> many(30000);
            for (uint32_t i = 0; i < many.size(); ++i)
            {
                many[i] = i;
            }
            MakeRingAllReduce(many, uint64_t(1) << 40, 8, 0);
        },
        "ranks");
}

TEST_CASE("busbw factors are nccl-tests' (oracle 2)", "[unit][workload]")
{
    // nccl-tests doc/PERFORMANCE.md: all-reduce 2(n-1)/n; all-gather, reduce-scatter,
    // all-to-all (n-1)/n; broadcast and reduce 1. Exact up to floating-point rounding.
    for (uint32_t n : {1u, 2u, 3u, 7u, 8u, 16u, 1024u})
    {
        CAPTURE(n);
        const double ar = 2.0 * (n - 1) / n;
        const double ag = double(n - 1) / n;
        for (const char* k : {"all-reduce", "allreduce", "ring-allreduce", "tree-allreduce",
                              "halving-doubling-allreduce", "all_reduce", "AllReduce"})
        {
            CHECK(BusBwFactor(k, n) == Approx(ar).epsilon(1e-15).margin(1e-15));
        }
        for (const char* k : {"all-gather", "all_gather", "reduce-scatter", "reduce_scatter",
                              "all-to-all", "alltoall"})
        {
            CHECK(BusBwFactor(k, n) == Approx(ag).epsilon(1e-15).margin(1e-15));
        }
        CHECK(BusBwFactor("broadcast", n) == 1.0);
        CHECK(BusBwFactor("reduce", n) == 1.0);
    }
    CHECK(BusBwFactor("all-reduce", 8) == 1.75); // exactly representable
    CHECK(BusBwFactor("all-gather", 8) == 0.875);
    RequireInputError([] { BusBwFactor("all-reduse", 8); }, "collective.kind");
    RequireInputError([] { BusBwFactor("all-reduce", 0); }, "collective.ranks");
}

TEST_CASE("ring all-reduce lower bound reproduces oracle 1 and 3", "[unit][workload]")
{
    // Oracle 1 (nccl-tests PERFORMANCE.md): n = 8, S = 1 GiB, B = 400 Gb/s:
    // CCT = 2(n-1)/n * S * 8 / B = 1.75 * 2^33 / 4e11 s = 37.58 ms.
    const uint64_t S = uint64_t(1) << 30;
    const double B = 400e9;
    const double cct = RingAllReduceLowerBoundSeconds(8, S, B);
    CHECK(cct == Approx(1.75 * 8589934592.0 / 4e11).epsilon(1e-15));
    CHECK(cct * 1e3 == Approx(37.58).margin(0.005)); // the oracle's 4 digits
    // algbw = S / CCT (GB = 1e9 B) = 28.57 GB/s; busbw = algbw * 2(n-1)/n = 50.0 GB/s
    // (= B/8 exactly: the NIC rate in bytes).
    const double algbwGBps = double(S) / cct / 1e9;
    const double busbwGBps = algbwGBps * BusBwFactor("all-reduce", 8);
    CHECK(algbwGBps == Approx(28.57).margin(0.005));
    CHECK(busbwGBps == Approx(50.0).margin(1e-9));
    CHECK(busbwGBps == Approx(B / 8 / 1e9).epsilon(1e-12));
    // Oracle 3: half the rate doubles the bound.
    CHECK(RingAllReduceLowerBoundSeconds(8, S, B / 2) / cct == Approx(2.0).epsilon(1e-15));
    // One rank moves nothing.
    CHECK(RingAllReduceLowerBoundSeconds(1, S, B) == 0.0);
    RequireInputError([] { RingAllReduceLowerBoundSeconds(0, 1, 1e9); }, "collective.ranks");
    RequireInputError([] { RingAllReduceLowerBoundSeconds(8, 1, 0.0); }, "bitsPerSecond");
    RequireInputError([] { RingAllReduceLowerBoundSeconds(8, 1, -1.0); }, "bitsPerSecond");
}

TEST_CASE("RingStepUnits expands each window of steps exactly as MakeRingAllReduce has it",
          "[unit][workload]")
{
    // Every field of every transfer and trigger of unit u against the whole build's slice,
    // for windows that divide the steps and one that does not, two channels, unordered hosts.
    const std::vector<uint32_t> ranks{4, 0, 6, 2, 1};
    const uint32_t C = 2;
    const uint64_t S = 1000003;
    const uint64_t startPs = 123456;
    const WorkloadSpec whole = MakeRingAllReduce(ranks, S, C, startPs);
    const uint32_t steps = 2 * (5 - 1);
    for (const uint32_t W : {1u, 2u, 3u, 8u, 20u})
    {
        CAPTURE(W);
        const RingStepUnits units(ranks, S, C, startPs, 3, W);
        CHECK(units.Count() == (steps + W - 1) / W);
        CHECK(units.BasesOf(units.Count()).transfer == whole.transfers.size());
        CHECK(units.BasesOf(units.Count()).trigger == whole.triggers.size());
        const WorkloadSpec rest = units.Rest();
        CHECK(rest.description == whole.description);
        REQUIRE(rest.collectives.size() == 1);
        CHECK(rest.collectives[0].ranks == whole.collectives[0].ranks);
        CHECK(rest.collectives[0].steps == whole.collectives[0].steps);
        CHECK(rest.collectives[0].busbwFactor == whole.collectives[0].busbwFactor);
        for (uint32_t u = 0; u < units.Count(); ++u)
        {
            CAPTURE(u);
            const auto first = units.BasesOf(u);
            const auto end = units.BasesOf(u + 1);
            const WorkloadSpec f = units.Expand(u);
            REQUIRE(f.transfers.size() == end.transfer - first.transfer);
            REQUIRE(f.triggers.size() == end.trigger - first.trigger);
            for (size_t k = 0; k < f.transfers.size(); ++k)
            {
                const TransferSpec& a = f.transfers[k];
                const TransferSpec& b = whole.transfers[first.transfer + k];
                CHECK(std::tie(a.externalId, a.src, a.dst, a.bytes, a.startPs, a.trigger,
                               a.onSendDone, a.onRecvDone, a.qpGroup, a.collective, a.step,
                               a.channel) == std::tie(b.externalId, b.src, b.dst, b.bytes,
                                                      b.startPs, b.trigger, b.onSendDone,
                                                      b.onRecvDone, b.qpGroup, b.collective,
                                                      b.step, b.channel));
                CHECK(a.priority == 3);
            }
            for (size_t k = 0; k < f.triggers.size(); ++k)
            {
                const TriggerSpec& a = f.triggers[k];
                const TriggerSpec& b = whole.triggers[first.trigger + k];
                CHECK(std::tie(a.kind, a.threshold, a.externalId, a.atStart, a.onFire) ==
                      std::tie(b.kind, b.threshold, b.externalId, b.atStart, b.onFire));
            }
            // Units 0 and 1 start with the run; unit u >= 2 on any trigger of unit u - 1.
            CHECK(units.StartsOn(u, -1) == (u <= 1));
            if (u >= 2)
            {
                const auto prev = units.BasesOf(u - 1);
                CHECK(units.StartsOn(u, static_cast<int64_t>(prev.trigger)));
                CHECK(units.StartsOn(u, static_cast<int64_t>(first.trigger) - 1));
                CHECK_FALSE(units.StartsOn(u, static_cast<int64_t>(first.trigger)));
            }
        }
    }
}

} // namespace TUSK_TEST_FILE
