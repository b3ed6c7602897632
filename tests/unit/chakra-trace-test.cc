// The Chakra execution-trace reader and its lowering into a transfer graph
// (ns3-modules/workload/model/chakra-trace.h, chakra-workload.h): the ASTRA-sim microbenchmark
// files of data/chakra parse as their bytes say, and every malformed or unsupported input is an
// InputError naming the file and the node.

#include "input-error-helpers.h"

#include "workload/model/chakra-trace.h"
#include "workload/model/chakra-workload.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;
using tusk_test::ExpectInputError;

namespace
{

const std::string kData = std::string(TUSK_SOURCE_DIR) + "/data/chakra";

// Hand encoding of the protobuf wire format (varints, length-delimited fields), so that the
// tests write traces without the generated classes.
std::string
Varint(uint64_t v)
{
    std::string s;
    do
    {
        uint8_t b = v & 0x7f;
        v >>= 7;
        s.push_back(static_cast<char>(b | (v ? 0x80 : 0)));
    } while (v);
    return s;
}

std::string
VarintField(uint32_t field, uint64_t v)
{
    return Varint(field << 3) + Varint(v);
}

std::string
BytesField(uint32_t field, const std::string& bytes)
{
    return Varint((field << 3) | 2) + Varint(bytes.size()) + bytes;
}

std::string
IntAttr(const std::string& name, int64_t v)
{
    return BytesField(10, BytesField(1, name) + VarintField(9, static_cast<uint64_t>(v)));
}

std::string
StringAttr(const std::string& name, const std::string& v)
{
    return BytesField(10, BytesField(1, name) + BytesField(29, v));
}

struct N
{
    N(uint64_t i, int32_t t, std::vector<uint64_t> d = {}, uint64_t u = 0, std::string a = "")
        : id(i),
          type(t),
          deps(std::move(d)),
          us(u),
          attrs(std::move(a))
    {
    }

    uint64_t id;
    int32_t type;
    std::vector<uint64_t> deps;
    uint64_t us;
    std::string attrs;
};

std::string
Trace(const std::vector<N>& nodes)
{
    std::string s;
    const std::string meta = BytesField(1, "0.0.4");
    s += Varint(meta.size()) + meta;
    for (const auto& n : nodes)
    {
        std::string m = VarintField(1, n.id) + BytesField(2, "n" + std::to_string(n.id)) +
                        VarintField(3, static_cast<uint64_t>(n.type));
        for (uint64_t d : n.deps)
        {
            m += VarintField(5, d);
        }
        m += VarintField(7, n.us) + n.attrs;
        s += Varint(m.size()) + m;
    }
    return s;
}

std::vector<ChakraRankTrace>
Ranks(const std::vector<std::vector<N>>& perRank)
{
    std::vector<ChakraRankTrace> out;
    for (size_t r = 0; r < perRank.size(); ++r)
    {
        out.push_back(ParseChakraTrace(Trace(perRank[r]), "t." + std::to_string(r) + ".et"));
    }
    return out;
}

WorkloadSpec
Lower(const std::vector<ChakraRankTrace>& ranks,
      const std::map<std::string, std::vector<uint32_t>>& groups = {})
{
    WorkloadSpec spec;
    WorkloadBuilder b(spec);
    ChakraWorkloadOptions o;
    for (uint32_t r = 0; r < ranks.size(); ++r)
    {
        o.hosts.push_back(r);
    }
    o.commGroups = groups;
    AppendChakraWorkload(b, spec, ranks, o);
    return spec;
}

N
AllReduce(uint64_t id, uint64_t bytes, std::vector<uint64_t> deps = {}, const std::string& pg = "")
{
    return N{id, ChakraNode::COMM_COLL, std::move(deps), 0,
             IntAttr("comm_type", 0) + IntAttr("comm_size", static_cast<int64_t>(bytes)) +
                 (pg.empty() ? "" : StringAttr("pg_name", pg))};
}

} // namespace

TEST_CASE("chakra: the ASTRA-sim all-reduce microbenchmark parses as its bytes say", "[unit][chakra]")
{
    const auto files = ChakraTraceFiles(kData + "/all_reduce/8npus_1MB");
    REQUIRE(files.size() == 8);
    for (size_t r = 0; r < files.size(); ++r)
    {
        CHECK(std::filesystem::path(files[r]).filename() == "all_reduce." + std::to_string(r) + ".et");
        const auto t = ReadChakraTrace(files[r]);
        CHECK(t.version == "0.0.4");
        REQUIRE(t.nodes.size() == 1);
        const ChakraNode& n = t.nodes[0];
        CHECK(n.id == r); // rank r's node has id r (rank 0's id 0 is proto3's default, absent)
        CHECK(n.name == "all_reduce_8npus_1MB");
        CHECK(n.type == ChakraNode::COMM_COLL);
        CHECK(n.commType == 0); // ALL_REDUCE
        CHECK(n.commSize == 1048576);
        CHECK(n.deps.empty());
        CHECK(n.pgName.empty());
    }
    // A pattern with %d finds the same files; the 16-rank set has 16 (rank 10 after rank 9).
    CHECK(ChakraTraceFiles(kData + "/all_reduce/8npus_1MB/all_reduce.%d.et") == files);
    const auto sixteen = ChakraTraceFiles(kData + "/all_reduce/16npus_1MB");
    REQUIRE(sixteen.size() == 16);
    CHECK(std::filesystem::path(sixteen[10]).filename() == "all_reduce.10.et");
}

TEST_CASE("chakra: a world all-reduce becomes one ring collective that starts when every rank "
          "issued it",
          "[unit][chakra]")
{
    const auto spec = Lower(Ranks({{AllReduce(1, 4096)}, {AllReduce(1, 4096)}, {AllReduce(1, 4096)}, {AllReduce(1, 4096)}}));
    REQUIRE(spec.collectives.size() == 1);
    CHECK(spec.collectives[0].kind == "all-reduce");
    CHECK(spec.collectives[0].algorithm == "ring");
    CHECK(spec.collectives[0].ranks == std::vector<uint32_t>{0, 1, 2, 3});
    CHECK(spec.transfers.size() == 2 * 3 * 4); // 2(n-1) steps of n sends
    REQUIRE(spec.timeline.size() == 4);
    // The first step's transfers wait for a barrier of all four nodes' starts.
    const auto& t0 = spec.transfers[0];
    REQUIRE(t0.trigger >= 0);
    CHECK(spec.triggers[t0.trigger].threshold == 4);
    for (const auto& n : spec.timeline)
    {
        CHECK(spec.triggers[n.startTrigger].atStart);
        // A rank's node ends after all 6 sends out of it and 6 receives into it, and its start.
        CHECK(spec.triggers[n.endTrigger].threshold == 1 + 6 + 6);
    }
    CHECK(TransfersThatCannotStart(spec).empty());
}

TEST_CASE("chakra: unsupported node types and collectives name the file and the node", "[unit][chakra]")
{
    auto e = ExpectInputError([] { Lower(Ranks({{N{1, ChakraNode::COMP, {}, 5}, N{7, ChakraNode::MEM_LOAD, {1}}}})); });
    CHECK(e.File() == "t.0.et");
    CHECK(e.Key() == "node 7");
    CHECK_THAT(e.Message(), Catch::Contains("MEM_LOAD_NODE"));
    e = ExpectInputError([] {
        Lower(Ranks({{N{3, ChakraNode::COMM_COLL, {}, 0, IntAttr("comm_type", 9) + IntAttr("comm_size", 8)}}}));
    });
    CHECK(e.Key() == "node 3");
    CHECK_THAT(e.Message(), Catch::Contains("BARRIER"));
    e = ExpectInputError([] { Lower(Ranks({{N{4, ChakraNode::COMM_COLL, {}, 0, IntAttr("comm_type", 0)}}})); });
    CHECK_THAT(e.Message(), Catch::Contains("comm_size"));
}

TEST_CASE("chakra: broken dependencies, groups and pairings are input errors", "[unit][chakra]")
{
    using T = ChakraNode;
    // A dependency on a node that is not there, and a cycle.
    auto e = ExpectInputError([] { Lower(Ranks({{N{1, T::COMP, {9}}}})); });
    CHECK(e.Key() == "node 1");
    CHECK_THAT(e.Message(), Catch::Contains("node 9"));
    e = ExpectInputError([] { Lower(Ranks({{N{1, T::COMP, {2}}, N{2, T::COMP, {1}}, N{3, T::COMP, {}}}})); });
    CHECK_THAT(e.Message(), Catch::Contains("cycle"));
    // A group the scenario does not list; a rank outside its group.
    e = ExpectInputError([] { Lower(Ranks({{AllReduce(1, 64, {}, "5")}, {AllReduce(1, 64, {}, "5")}})); });
    CHECK_THAT(e.Message(), Catch::Contains("\"5\""));
    e = ExpectInputError([] {
        Lower(Ranks({{AllReduce(1, 64, {}, "1")}, {AllReduce(1, 64, {}, "1")}}), {{"1", {0}}});
    });
    CHECK(e.File() == "t.1.et");
    // Collectives that do not match across ranks (size), or are missing on a member.
    e = ExpectInputError([] { Lower(Ranks({{AllReduce(1, 64)}, {AllReduce(1, 128)}})); });
    CHECK(e.Key() == "node 1");
    CHECK_THAT(e.Message(), Catch::Contains("64 B"));
    e = ExpectInputError([] { Lower(Ranks({{AllReduce(1, 64), AllReduce(2, 64, {1})}, {AllReduce(1, 64)}})); });
    CHECK_THAT(e.Message(), Catch::Contains("no match in rank 1"));
    // A send without its receive.
    e = ExpectInputError([] {
        Lower(Ranks({{N{1, T::COMM_SEND, {}, 0, IntAttr("comm_dst", 1) + IntAttr("comm_size", 10)}}, {}}));
    });
    CHECK(e.File() == "t.0.et");
    CHECK_THAT(e.Message(), Catch::Contains("no matching receive"));
}

TEST_CASE("chakra: malformed files and trace sets are input errors", "[unit][chakra]")
{
    auto e = ExpectInputError([] { ParseChakraTrace("", "empty.et"); });
    CHECK(e.File() == "empty.et");
    CHECK(e.Key() == "file");
    std::string t = Trace({N{1, ChakraNode::COMP, {}, 3}});
    e = ExpectInputError([&] { ParseChakraTrace(t.substr(0, t.size() - 2), "cut.et"); });
    CHECK(e.Key() == "file");
    e = ExpectInputError([] { ParseChakraTrace(Trace({N{1, ChakraNode::COMP}, N{1, ChakraNode::COMP}}), "twice.et"); });
    CHECK(e.Key() == "node 1");
    // A folder with a rank missing.
    const auto dir = std::filesystem::path(TUSK_BINARY_DIR) / "test-scratch" / "chakra-missing-rank";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "x.0.et") << Trace({});
    std::ofstream(dir / "x.2.et") << Trace({});
    e = ExpectInputError([&] { ChakraTraceFiles(dir.string()); });
    CHECK_THAT(e.Message(), Catch::Contains("rank 1"));
    e = ExpectInputError([&] { ChakraTraceFiles((dir / "y.%d.et").string()); });
    CHECK(e.Key() == "workload.trace");
}

TEST_CASE("chakra: compute nodes delay their children, and sends meet their receives", "[unit][chakra]")
{
    using T = ChakraNode;
    // Rank 0: compute 7 us, then a send of 100 B to rank 1; rank 1: a receive, then compute 2 us.
    const auto spec = Lower(Ranks({{N{1, T::COMP, {}, 7}, N{2, T::COMM_SEND, {1}, 0, IntAttr("comm_dst", 1) + IntAttr("comm_size", 100)}},
                                   {N{1, T::COMM_RECV, {}, 0, IntAttr("comm_src", 0) + IntAttr("comm_size", 100)},
                                    N{2, T::COMP, {1}, 2}}}));
    REQUIRE(spec.transfers.size() == 1);
    const auto& t = spec.transfers[0];
    CHECK(t.src == 0);
    CHECK(t.dst == 1);
    CHECK(t.bytes == 100);
    CHECK(spec.triggers[t.trigger].threshold == 2); // both sides issued
    // The compute node's start fires its end 7 us later.
    const auto& comp = spec.timeline[0];
    CHECK(spec.triggers[comp.startTrigger].delayPs == 7'000'000);
    CHECK(spec.triggers[comp.startTrigger].onFire == std::vector<uint32_t>{comp.endTrigger});
    CHECK(TransfersThatCannotStart(spec).empty());
}

} // namespace TUSK_TEST_FILE
