// workload.kind = "chakra" end to end: the ASTRA-sim microbenchmark traces of data/chakra run,
// their all-reduce against the ring closed form (oracles 1 and 4, docs/oracles.md), and the
// multi-layer trace of tests/data/chakra keeps its dependencies and overlaps communication
// with compute.

#include "cli-helpers.h"
#include "run-helpers.h"

#include "workload/model/chakra-trace.h"
#include "workload/model/traffic-generators.h"

#include <map>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

const std::string kData = std::string(TUSK_SOURCE_DIR) + "/data/chakra/";

/** n hosts on one leaf of a 1x1 leaf-spine (every hop NIC -> leaf -> NIC), the trace at `path`. */
tusk::ScenarioSpec
ChakraOn(uint32_t hosts, const std::string& path, uint64_t gbps = 400)
{
    auto spec = LeafSpine(1, 1, hosts, gbps, 1000);
    spec.workload.kind = "chakra";
    spec.workload.trace = path;
    return spec;
}

/** Per rank: node id -> its row. */
std::map<uint32_t, std::map<uint64_t, tusk::ChakraNodeRow>>
ByRank(const tusk::RunResult& r)
{
    std::map<uint32_t, std::map<uint64_t, tusk::ChakraNodeRow>> out;
    for (const auto& n : r.chakraNodes)
    {
        out[n.rank][n.nodeId] = n;
    }
    return out;
}

} // namespace

TEST_CASE("chakra: the ASTRA-sim all-reduce microbenchmarks match the ring closed form",
          "[component][chakra][oracle1]")
{
    for (uint32_t n : {8u, 16u})
    {
        CAPTURE(n);
        auto r = Run(ChakraOn(n, kData + "all_reduce/" + std::to_string(n) + "npus_1MB"));
        REQUIRE(r.finished);
        REQUIRE(r.collectives.size() == 1);
        REQUIRE(r.chakraNodes.size() == n);
        const uint64_t S = 1048576; // comm_size of every file
        CHECK(r.collectives[0].bytesPerRank == S);
        CHECK(r.collectives[0].algorithm == "ring");
        // The closed form of tests/component/ring-allreduce-test.cc: 2(n-1)/n * S / B inflated
        // by the wire's overhead per 4096 B payload (62 B RoCEv2 headers, 20 B PHY, the 86 B
        // ACK sharing the uplink), plus 2(n-1) steps of one store-and-forward hop: 2 links of
        // 1 us and two 4178 B frames at 400 Gb/s. With S = 1 MiB the hops are half the time, so
        // the frame terms matter: the CCT lies between the form with the links' propagation
        // alone and the form with the frames too (measured: 66.77 us in [66.22, 68.55] for
        // n = 8, 102.67 us in [100.95, 105.95] for n = 16).
        const double bound = ns3::RingAllReduceLowerBoundSeconds(n, S, 400e9);
        const double overhead = (4096.0 + 62 + 20 + 86) / 4096.0;
        const double links = 2 * 1e-6;
        const double perStep = links + 2 * (4096 + 82) * 8 / 400e9;
        const double cct = r.collectives[0].cctPs * 1e-12;
        CHECK(cct >= bound * overhead + 2 * (n - 1) * links);
        CHECK(cct <= bound * overhead + 2 * (n - 1) * perStep);
        CHECK(r.collectives[0].startPs == 0);
        // Every rank's node starts at 0 and ends when its part of the ring is done: its last
        // input delivered and its last send acknowledged, at most an ACK's trip after the
        // collective's last delivery.
        int64_t last = 0;
        for (const auto& node : r.chakraNodes)
        {
            CHECK(node.type == "collective");
            CHECK(node.startPs == 0);
            last = std::max(last, node.endPs);
        }
        CHECK(static_cast<uint64_t>(last) >= r.collectives[0].finishPs);
        CHECK(static_cast<uint64_t>(last) <= r.collectives[0].finishPs + 3'000'000);
    }
}

TEST_CASE("chakra: every ASTRA-sim microbenchmark runs and moves its collective's bytes",
          "[component][chakra]")
{
    const uint64_t S = 1048576;
    for (const std::string kind : {"all_gather", "reduce_scatter", "all_to_all"})
    {
        CAPTURE(kind);
        auto r = Run(ChakraOn(8, kData + kind + "/8npus_1MB"));
        REQUIRE(r.finished);
        REQUIRE(r.collectives.size() == 1);
        REQUIRE(r.chakraNodes.size() == 8);
        // (n-1)/n * S leaves every rank for all three kinds (nccl-tests' sizes).
        uint64_t sent = 0;
        for (const auto& f : r.flows)
        {
            sent += f.src == 0 ? f.bytes : 0;
        }
        CHECK(sent == S - S / 8);
        CHECK(r.collectives[0].cctPs >= r.collectives[0].lowerBoundPs);
    }
}

TEST_CASE("chakra: the multi-layer trace keeps every dependency and overlaps gradients with "
          "backward compute",
          "[component][chakra]")
{
    const std::string dir = std::string(TUSK_SOURCE_DIR) + "/tests/data/chakra/multi_layer";
    auto spec = ChakraOn(4, dir, 100);
    spec.workload.commGroups = {{"1", {0, 1}}, {"2", {2, 3}}};
    auto r = Run(spec);
    REQUIRE(r.finished);
    const auto nodes = ByRank(r);
    REQUIRE(nodes.size() == 4);
    bool overlap = false;
    for (uint32_t rank = 0; rank < 4; ++rank)
    {
        CAPTURE(rank);
        const auto trace = ns3::ReadChakraTrace(dir + "/multi_layer." + std::to_string(rank) + ".et");
        const auto& mine = nodes.at(rank);
        REQUIRE(mine.size() == trace.nodes.size());
        for (const auto& n : trace.nodes)
        {
            CAPTURE(n.id);
            const auto& row = mine.at(n.id);
            REQUIRE(row.startPs >= 0);
            REQUIRE(row.endPs >= row.startPs);
            // A node starts when its last parent has ended, not before and not later.
            int64_t ready = 0;
            for (uint64_t d : n.deps)
            {
                CHECK(row.startPs >= mine.at(d).endPs);
                ready = std::max(ready, mine.at(d).endPs);
            }
            CHECK(row.startPs == ready);
            if (n.type == ns3::ChakraNode::COMP)
            {
                CHECK(row.endPs - row.startPs == static_cast<int64_t>(n.durationMicros) * 1000000);
            }
        }
        // The last layer's gradient all-reduce runs while bwd_L1 computes.
        const auto& ar = mine.at(10);
        const auto& bwd = mine.at(8);
        overlap |= ar.startPs < bwd.endPs && bwd.startPs < ar.endPs;
        // 4 MiB all-reduces take longer than the 100 us of compute they overlap: the optimizer
        // waits for the last one.
        CHECK(mine.at(13).startPs == mine.at(12).endPs);
    }
    CHECK(overlap);
    // Two all-gathers (groups 1 and 2), three all-reduces, four point-to-point sends.
    CHECK(r.collectives.size() == 5);
}

TEST_CASE("chakra: tusk run writes the node timeline and refuses an unsupported node (exit 2)",
          "[component][chakra][cli]")
{
    const auto dir = Scratch("chakra");
    Write(dir / "s.toml", std::string(R"(name = "chakra"
[topology]
kind = "leaf-spine"
leaves = 1
spines = 1
hosts_per_leaf = 8
host_link_gbps = 100
fabric_link_gbps = 100
[workload]
kind = "chakra"
trace = ")") + kData + "all_reduce/8npus_1MB\"\n");
    auto o = Tusk("run -q " + (dir / "s.toml").string() + " --out " + (dir / "out").string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    const auto lines = Lines(Slurp(dir / "out" / "chakra_nodes.csv"));
    REQUIRE(lines.size() == 9);
    CHECK(lines[0] == "rank,node_id,name,type,detail,start_us,end_us,duration_us");
    CHECK_THAT(lines[1], Catch::StartsWith("0,0,all_reduce_8npus_1MB,collective,ALL_REDUCE 1048576 B,0.000000,"));
    const auto ranks = Lines(Slurp(dir / "out" / "chakra_ranks.csv"));
    REQUIRE(ranks.size() == 9);
    CHECK(ranks[0] == "rank,nodes,finished,iteration_us");
    // A MEM_LOAD_NODE (type 2): exit 2, the file and the node named, nothing written.
    const auto bad = dir / "bad";
    std::filesystem::create_directories(bad);
    // GlobalMetadata "0.0.4"; Node id 3, type 2.
    const std::string meta = std::string("\x07\x0a\x05" "0.0.4", 8);
    const std::string node = std::string("\x04\x08\x03\x18\x02", 5);
    for (int rank = 0; rank < 8; ++rank)
    {
        std::ofstream(bad / ("m." + std::to_string(rank) + ".et"), std::ios::binary) << meta << node;
    }
    Write(dir / "bad.toml", Slurp(dir / "s.toml").replace(Slurp(dir / "s.toml").find(kData), std::string::npos, bad.string() + "\"\n"));
    o = Tusk("run -q " + (dir / "bad.toml").string() + " --out " + (dir / "bad-out").string());
    CHECK(o.status == 2);
    CHECK_THAT(o.output, Catch::Contains("m.0.et: node 3: unsupported node type MEM_LOAD_NODE"));
    CHECK_FALSE(std::filesystem::exists(dir / "bad-out"));
    // `tusk kinds` lists the collective algorithms from their table.
    o = Tusk("kinds");
    REQUIRE(o.status == 0);
    CHECK_THAT(o.output, Catch::Contains("all-reduce/double-binary-tree DoubleBinaryTreeAllReduceSchedule"));
    CHECK_THAT(o.output, Catch::Contains("all-to-all/pairwise"));
}

TEST_CASE("chakra: the shipped scenario runs all 16 ranks, with NCCL's choice in collectives.csv",
          "[component][chakra][cli]")
{
    // scenarios/chakra-allreduce.toml: ASTRA-sim's 16-rank 1 MB all-reduce with algorithm =
    // "auto". NCCL's tuning model picks the double binary tree at 1 MB on 16 ranks (the unit
    // test of the collective table derives the crossover); every rank finishes its one node.
    const auto dir = Scratch("chakra-scenario");
    auto o = Tusk("run -q " + std::string(TUSK_SOURCE_DIR) + "/scenarios/chakra-allreduce.toml --out " +
                  (dir / "out").string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    const auto coll = Lines(Slurp(dir / "out" / "collectives.csv"));
    REQUIRE(coll.size() == 2);
    CHECK_THAT(coll[1], Catch::Contains(",all-reduce,16,1048576,"));
    CHECK_THAT(coll[1], Catch::Contains(",double-binary-tree,"));
    const auto ranks = Lines(Slurp(dir / "out" / "chakra_ranks.csv"));
    REQUIRE(ranks.size() == 17);
    for (size_t i = 1; i < ranks.size(); ++i)
    {
        CHECK_THAT(ranks[i], Catch::StartsWith(std::to_string(i - 1) + ",1,1,"));
    }
}

} // namespace TUSK_TEST_FILE
