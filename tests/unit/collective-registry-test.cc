// The table of collective algorithms (ns3-modules/workload/model/collective-registry.h): the
// built-ins and their defaults, an algorithm registered from its own file (the example of
// docs/extending.md, "A collective algorithm"), and "auto", NCCL's all-reduce choice.

#include "input-error-helpers.h"

#include "workload/model/collective-registry.h"

#include <catch2/catch.hpp>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

// docs/extending.md's example, verbatim: a reduce to rank 0 then a broadcast, along a chain.
// [chain]
CollectiveSchedule
ChainAllReduce(const CollectiveRequest& r)
{
    CollectiveSchedule s;
    s.kind = "all-reduce";
    s.algorithm = "chain";
    s.ranks = r.ranks;
    s.bytes = r.bytes;
    s.busbwFactor = 2.0 * (r.ranks - 1) / r.ranks;
    // Reduce: rank i+1 -> i after its own input arrived; then broadcast 0 -> 1 -> ... -> n-1.
    for (uint32_t k = 0; k + 1 < r.ranks; ++k)
    {
        CollectiveOp op{r.ranks - 1 - k, r.ranks - 2 - k, r.bytes, k, {}};
        if (k > 0) { op.deps = {k - 1}; }
        s.ops.push_back(op);
    }
    for (uint32_t k = 0; k + 1 < r.ranks; ++k)
    {
        const uint32_t i = static_cast<uint32_t>(s.ops.size());
        s.ops.push_back(CollectiveOp{k, k + 1, r.bytes, i, {i - 1}});
    }
    s.steps = static_cast<uint32_t>(s.ops.size());
    ValidateSchedule(s); // the dependency rule: observable where the op starts
    return s;
}

const CollectiveAlgorithmRegistration kChain{{"", "ChainAllReduce", "all-reduce", "chain", 10,
                                              "reduce along a chain to rank 0, broadcast back",
                                              "docs/extending.md (example)", &ChainAllReduce}};
// [/chain]

AutoAlgorithmInput
Input(uint32_t n, uint64_t bytes, uint32_t perServer)
{
    AutoAlgorithmInput in;
    in.ranks = n;
    in.bytes = bytes;
    in.ranksPerServer = perServer;
    in.linkGBps = 50; // a 400 Gb/s NIC
    return in;
}

} // namespace

TEST_CASE("collective registry: built-in algorithms, defaults first, and one registered from its "
          "own file",
          "[unit][collective]")
{
    CHECK(CollectiveAlgorithms("all-reduce") ==
          std::vector<std::string>{"ring", "halving-doubling", "double-binary-tree",
                                   "hierarchical-ring", "in-network", "chain"});
    CHECK(CollectiveAlgorithms("all-to-all") == std::vector<std::string>{"direct", "pairwise"});
    CHECK(DefaultCollectiveAlgorithm("broadcast") == "chain");
    const auto* info = FindCollectiveAlgorithm("all-reduce", "double-binary-tree");
    REQUIRE(info != nullptr);
    CHECK(info->typeId == "DoubleBinaryTreeAllReduceSchedule");
    // The example runs through MakeCollectiveSchedule like a built-in.
    CollectiveRequest r;
    r.kind = "allreduce";
    r.algorithm = "chain";
    r.ranks = 4;
    r.bytes = 100;
    const auto s = MakeCollectiveSchedule(r);
    CHECK(s.algorithm == "chain");
    CHECK(s.ops.size() == 6);
    CHECK(s.steps == 6);
    // A name no kind registered is an error listing the registered ones.
    r.algorithm = "nope";
    const auto e = tusk_test::ExpectInputError([&] { MakeCollectiveSchedule(r); });
    CHECK(e.Key() == "collective.algorithm");
    CHECK_THAT(e.Message(), Catch::Contains("chain"));
}

TEST_CASE("auto: NCCL's tuning model picks ring, tree or ring again as S grows (64 ranks, 8 per "
          "server)",
          "[unit][collective]")
{
    // NCCL src/graph/tuning.cc, Simple protocol, 400 Gb/s = 50 GB/s of bus bandwidth, n = 64
    // ranks on N = 8 servers (worked by hand from the formulas of collective-registry.h):
    //   ring: algBw = 50 * 64 / 126 = 25.40 GB/s; latency 8.4 + 112 * 3.4 + 14 * 9.6 = 523.6 us,
    //         x 1.9 = 994.8 us from S >= 64/16 * 65536 B = 256 KiB;
    //   tree: algBw = 0.5 * min(0.9 * 50, 80) = 22.5 GB/s x c(S); latency 2 (7 * 28 + 3 * 50)
    //         = 692 us.
    // 64 KiB: ring 523.6 + 2.6 = 526.2 us; tree (c = 0.6) 692 + 4.9 us        -> ring
    // 1 MiB:  ring 994.8 + 41.3 = 1036.1 us; tree (c = 0.5) 692 + 93.2 = 785.2 -> tree
    // 1 GiB:  ring 994.8 + 42275 = 43270 us; tree (c = 1) 692 + 47722 us     -> ring
    const auto est = AutoAllReduceEstimates(Input(64, 1 << 20, 8));
    REQUIRE(est.size() == 2);
    CHECK(est[0].algorithm == "double-binary-tree");
    CHECK(est[0].latencyUs == Approx(692));
    CHECK(est[0].timeUs == Approx(692 + 1048576 / (1000 * 11.25)));
    CHECK(est[1].latencyUs == Approx(523.6 * 1.9));
    CHECK(est[1].algBwGBps == Approx(50.0 * 64 / 126));
    CHECK(AutoAllReduceAlgorithm(Input(64, 64 << 10, 8)) == "ring");
    CHECK(AutoAllReduceAlgorithm(Input(64, 1 << 20, 8)) == "double-binary-tree");
    CHECK(AutoAllReduceAlgorithm(Input(64, 1ULL << 30, 8)) == "ring");
    // 8 ranks on one server (N = 1): no network hop, the ring's NVLink latency 8.4 + 14 * 3.4
    // = 56 us beats the tree's 2 * 7 * 28 = 392 us at every size up to 1 GiB.
    for (uint64_t S : {uint64_t(1) << 10, uint64_t(1) << 20, uint64_t(1) << 30})
    {
        CHECK(AutoAllReduceAlgorithm(Input(8, S, 8)) == "ring");
    }
    // Through ChooseCollectiveAlgorithm: "auto" for other kinds is their default; a name the
    // kind lacks is its default too.
    CHECK(ChooseCollectiveAlgorithm("all-reduce", "auto", Input(64, 1 << 20, 8)) == "double-binary-tree");
    CHECK(ChooseCollectiveAlgorithm("all-gather", "auto", Input(64, 1 << 20, 8)) == "ring");
    CHECK(ChooseCollectiveAlgorithm("all-gather", "double-binary-tree", Input(8, 64, 1)) == "ring");
    CHECK(ChooseCollectiveAlgorithm("all-reduce", "", Input(8, 64, 1)) == "ring");
}

TEST_CASE("auto: in-network (NCCL's CollNet term) only where the switches aggregate, below the "
          "size where the ring's bandwidth wins",
          "[unit][collective][in-network]")
{
    // NCCL src/graph/tuning.cc, Simple protocol, n = 16 ranks on N = 16 servers, 50 GB/s:
    //   ring: algBw 50 * 16/30 = 26.67 GB/s, latency (8.4 + 30 * 9.6) * 1.9 = 563.16 us
    //   tree: algBw 22.5 * c(S), latency 2 * 4 * 50 = 400 us
    //   in-network: algBw 0.5 * 0.9 * 50 = 22.5 GB/s, latency 10.7 us
    // in-network = ring at 552.46 us = S (1/22.5 - 1/26.67) / 1000, S = 79.6 MB.
    auto in = Input(16, 1 << 20, 1);
    CHECK(AutoAllReduceAlgorithm(in) == "double-binary-tree"); // 400 + 93.2 < 563.2 + 39.3
    in.innetworkReduction = true;
    const auto est = AutoAllReduceEstimates(in);
    REQUIRE(est.size() == 3);
    CHECK(est[0].algorithm == "in-network");
    CHECK(est[0].latencyUs == Approx(10.7));
    CHECK(est[0].algBwGBps == Approx(22.5));
    in.bytes = 64'000'000; // 10.7 + 2844 < 563.2 + 2400
    CHECK(AutoAllReduceAlgorithm(in) == "in-network");
    in.bytes = 96'000'000; // 10.7 + 4267 > 563.2 + 3600
    CHECK(AutoAllReduceAlgorithm(in) == "ring");
    // The builder needs every rank's aggregation endpoint (CollectiveRequest::leafOf).
    CollectiveRequest r;
    r.kind = "all-reduce";
    r.algorithm = "in-network";
    r.ranks = 4;
    r.bytes = 4096;
    CHECK(tusk_test::ExpectInputError([&] { MakeCollectiveSchedule(r); }).Key() ==
          "collective.algorithm");
    r.leafOf = {10, 10, 11, 11};
    const auto s = MakeCollectiveSchedule(r);
    CHECK(s.algorithm == "in-network");
    CHECK(s.ranks == 7); // 4 ranks, endpoints 10 and 11, the root
}

} // namespace TUSK_TEST_FILE
