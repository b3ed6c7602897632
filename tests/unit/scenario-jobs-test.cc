// Scenario keys of training jobs: [[jobs]], [[jobs.collectives]], [[background]], [scale_up], the
// rail-optimised / pod-clos / hpcc topologies, workload kinds "jobs" and "hpcc": values,
// errors with file, line and key (exit 2 in the CLI), and the manifest echo round trip.
#include "fabric/model/input-error.h"
#include "run/run-stages.h"
#include "scenario/scenario-toml.h"
#include "scratch-dir.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk;
namespace fs = std::filesystem;

namespace
{

const std::string kDir = std::string(TUSK_SOURCE_DIR) + "/scenarios/";
const std::string kName = kDir + "jobs-test.toml"; // relative paths resolve against scenarios/

const std::string kRail = R"(name = "rail"
[topology]
kind = "rail-optimised"
servers = 4
gpus_per_server = 4
servers_per_group = 2
spines = 2
[scale_up]
gpus_per_server = 4
link_gbps = 1800
latency_ns = 700
[workload]
kind = "jobs"
watchdog_ms = 5
)";

ns3::InputError
ErrorOf(const std::string& text)
{
    try
    {
        LoadScenarioString(text, kName);
    }
    catch (const ns3::InputError& e)
    {
        return e;
    }
    FAIL("expected an InputError for:\n" << text);
    return ns3::InputError("", 0, "", "");
}

std::string
JsonValueToToml(const nlohmann::json& v)
{
    if (v.is_object())
    {
        std::string s = "{";
        bool first = true;
        for (const auto& [k, x] : v.items())
        {
            s += (first ? "" : ", ") + nlohmann::json(k).dump() + " = " + JsonValueToToml(x);
            first = false;
        }
        return s + "}";
    }
    if (v.is_array())
    {
        std::string s = "[";
        for (size_t i = 0; i < v.size(); ++i)
        {
            s += (i ? ", " : "") + JsonValueToToml(v[i]);
        }
        return s + "]";
    }
    if (v.is_number_float())
    {
        std::string f = v.dump();
        return f.find_first_of(".e") == std::string::npos ? f + ".0" : f;
    }
    return v.dump();
}

std::string
JsonToToml(const nlohmann::json& j)
{
    std::string s;
    for (const auto& [k, v] : j.items())
    {
        s += nlohmann::json(k).dump() + " = " + JsonValueToToml(v) + "\n";
    }
    return s;
}

} // namespace

TEST_CASE("[[jobs]], [[jobs.collectives]], [[background]] and [scale_up] are read with their "
          "units",
          "[unit][scenario][jobs]")
{
    const std::string text = kRail + R"(
[[jobs]]
name = "train"
ranks = 8
placement = "rack-aware"
tp = 2
pp = 2
iterations = 3
start_us = 5
compute_us = 1.5
sync_every = 2
channels = 4
chunk_bytes = "512KiB"
qps_per_connection = 2
ring_order = "rail-aligned"

[[jobs.collectives]]
name = "grads"
kind = "ALL_REDUCE"
algorithm = "halving-doubling"
group = "dp"
bytes = "64MiB"
compute_us = 10
blocking = false

[[jobs.collectives]]
kind = "send-recv"
group = "pp"
bytes = 4096
shift = false
root = 1
peer = 0

[[jobs]]
name = "sim"
file = "../data/simai/microAllReduce.txt"
placement = "explicit"
hosts = "8-15"

[[background]]
cdf_file = "../data/hpcc/WebSearch_distribution.txt"
load = 0.25
hosts = "0-3"
duration_us = 100
priority = 1
)";
    const ScenarioSpec s = LoadScenarioString(text, kName);
    CHECK(s.topology.rail.servers == 4);
    CHECK(s.topology.rail.serversPerGroup == 2);
    CHECK(s.scaleUp.gpusPerServer == 4);
    CHECK(s.scaleUp.rateBps == 1'800'000'000'000ULL);
    CHECK(s.scaleUp.latencyPs == 700'000ULL);
    CHECK(s.workload.watchdogPs == 5'000'000'000ULL);
    REQUIRE(s.jobs.size() == 2);
    const auto& j = s.jobs[0];
    CHECK(j.ranks == 8);
    CHECK(j.placement == "rack-aware");
    CHECK(j.tp == 2);
    CHECK(j.pp == 2);
    CHECK(j.dp == 0); // derived: 8 / (2 * 2)
    CHECK(j.iterations == 3);
    CHECK(j.startPs == 5'000'000ULL);
    CHECK(j.computePs == 1'500'000ULL);
    CHECK(j.syncEvery == 2);
    CHECK(j.channels == 4);
    CHECK(j.chunkBytes == 512 * 1024);
    CHECK(j.qpsPerConnection == 2);
    CHECK(j.ringOrder == "rail-aligned");
    REQUIRE(j.collectives.size() == 2);
    CHECK(j.collectives[0].kind == "all-reduce");
    CHECK(j.collectives[0].algorithm == "halving-doubling");
    CHECK(j.collectives[0].bytes == 64ULL << 20);
    CHECK(j.collectives[0].computePs == 10'000'000ULL);
    CHECK_FALSE(j.collectives[0].blocking);
    CHECK(j.collectives[1].kind == "send-recv");
    CHECK_FALSE(j.collectives[1].shift);
    CHECK(j.collectives[1].root == 1);
    const auto& sim = s.jobs[1];
    CHECK(sim.ranks == 8); // the explicit hosts
    CHECK(sim.file == fs::weakly_canonical(kDir + "../data/simai/microAllReduce.txt").string());
    REQUIRE(s.background.size() == 1);
    CHECK(s.background[0].load == 0.25);
    CHECK(s.background[0].hosts == std::vector<uint32_t>{0, 1, 2, 3});
    CHECK(s.background[0].durationPs == 100'000'000ULL);
    CHECK(s.background[0].priority == 1);
    CHECK(s.LineOf("jobs[0].collectives[0].kind") == 33);

    // The manifest echo is itself a scenario that loads back to the same spec.
    const nlohmann::json echo = ScenarioToJson(s);
    CHECK(echo["jobs"][0]["collectives"][0]["kind"] == "all-reduce");
    CHECK(echo["jobs"][1]["file"] == sim.file);
    const ScenarioSpec back = LoadScenarioString(JsonToToml(echo), "json.toml");
    CHECK(ScenarioToJson(back) == echo);
}

TEST_CASE("[[jobs.collectives]] algorithm = \"auto\" is read for any kind", "[unit][scenario][jobs]")
{
    const ScenarioSpec s = LoadScenarioString(
        kRail + "[[jobs]]\n[[jobs.collectives]]\nkind = \"all-reduce\"\nalgorithm = \"auto\"\n"
                "bytes = 1024\n[[jobs.collectives]]\nkind = \"all-to-all\"\nalgorithm = \"auto\"\n"
                "bytes = 1024\n",
        kName);
    REQUIRE(s.jobs.size() == 1);
    REQUIRE(s.jobs[0].collectives.size() == 2);
    CHECK(s.jobs[0].collectives[0].algorithm == "auto");
    CHECK(s.jobs[0].collectives[1].algorithm == "auto");
}

TEST_CASE("TP * PP * DP * EP must equal the ranks: a clear error at the key's line",
          "[unit][scenario][jobs]")
{
    auto e = ErrorOf(kRail + "[[jobs]]\nranks = 16\ntp = 4\npp = 2\ndp = 3\n"
                             "[[jobs.collectives]]\nkind = \"all-reduce\"\nbytes = 1024\n");
    CHECK(e.File() == kName);
    CHECK(e.Key() == "jobs[0].dp");
    CHECK(e.Line() == 19); // the `dp = 3` line (kRail has 14 lines)
    CHECK(e.Message().find("TP * PP * DP * EP = 4 * 2 * 3 * 1 = 24") != std::string::npos);
    CHECK(e.Message().find("16 ranks") != std::string::npos);
}

TEST_CASE("job and collective keys are checked", "[unit][scenario][jobs]")
{
    struct Case
    {
        std::string text;
        std::string key;
        std::string expected;
    };
    const std::string c = "\n[[jobs.collectives]]\nkind = \"all-reduce\"\nbytes = 1024\n";
    for (const Case& x : std::vector<Case>{
             {"[[jobs]]\nranks = 16\ntp = 3" + c, "jobs[0].dp", "cannot derive DP"},
             {"[[jobs]]\nplacement = \"best\"" + c, "jobs[0].placement", "\"rack-aware\""},
             {"[[jobs]]\nplacement = \"explicit\"" + c, "jobs[0].hosts", "required"},
             {"[[jobs]]\nranks = 99" + c, "jobs[0].ranks", "16 hosts"},
             {"[[jobs]]\nring_order = \"snake\"" + c, "jobs[0].ring_order", "\"rail-aligned\""},
             {"[[jobs]]\nchanels = 2" + c, "jobs[0].chanels", "`channels`"},
             {"[[jobs]]\n", "jobs[0].collectives", "[[jobs[0].collectives]]"},
             {"[[jobs]]\n[[jobs.collectives]]\nkind = \"gather\"\nbytes = 1\n",
              "jobs[0].collectives[0].kind",
              "unknown collective kind"},
             {"[[jobs]]\n[[jobs.collectives]]\nkind = \"all-gather\"\nalgorithm = \"tree\"\n"
              "bytes = 1\n",
              "jobs[0].collectives[0].algorithm",
              "\"ring\" or \"auto\" for all-gather"},
             {"[[jobs]]\n[[jobs.collectives]]\nkind = \"all-reduce\"\ngroup = \"cp\"\nbytes = 1\n",
              "jobs[0].collectives[0].group",
              "\"dpep\""},
             {"[[jobs]]\n[[jobs.collectives]]\nkind = \"all-reduce\"\n",
              "jobs[0].collectives[0].bytes",
              "required"},
             {"[[jobs]]\nfile = \"../data/simai/microAllReduce.txt\"\ntp = 2" + c,
              "jobs[0].collectives",
              "not both"},
             {"[[jobs]]\nfile = \"../data/simai/microAllReduce.txt\"\ntp = 2\n", "jobs[0].tp",
              "header"},
             {"[[jobs]]\nfile = \"../data/simai/microAllReduce.txt\"\nranks = 12\n",
              "jobs[0].ranks",
              "multiple of TP * PP * EP = 8 * 1 * 1 = 8"},
             {"[[jobs]]" + c + "[[background]]\nload = 0.5\n", "background[0].cdf_file",
              "required"},
             {"[[jobs]]" + c + "[[background]]\ncdf_file = \"../data/hpcc/WebSearch_distribution.txt\"\n"
              "load = 1.5\n",
              "background[0].load",
              "(0, 1]"},
         })
    {
        CAPTURE(x.text);
        const auto e = ErrorOf(kRail + x.text);
        CHECK(e.Key() == x.key);
        CHECK(e.Message().find(x.expected) != std::string::npos);
        CHECK(e.Line() > 0);
    }
    // [[jobs]] need workload.kind = "jobs", and that kind needs jobs.
    CHECK(ErrorOf("[workload]\nkind = \"jobs\"\n").Key() == "jobs");
    CHECK(ErrorOf("[[jobs]]\n[[jobs.collectives]]\nkind = \"all-reduce\"\nbytes = 1\n").Key() ==
          "jobs");
    // The scale-up domain must match the rail-optimised servers.
    const auto su = ErrorOf("[topology]\nkind = \"rail-optimised\"\ngpus_per_server = 8\n"
                            "[scale_up]\ngpus_per_server = 4\n");
    CHECK(su.Key() == "scale_up.gpus_per_server");
    CHECK(su.Line() == 5);
    // A SimAI file with an inconsistent header is an error naming that file and line 1.
    const tusk_test::ScratchDir dir("scenario-jobs");
    const std::string bad = dir.Path("bad-simai.txt");
    std::ofstream(bad) << "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 3 ep: 1 pp: "
                          "1 all_gpus: 8\n0\n";
    const auto se = ErrorOf(kRail + "[[jobs]]\nfile = \"" + bad + "\"\n");
    CHECK(se.File() == bad);
    CHECK(se.Line() == 1);
    CHECK(se.Message().find("inconsistent parallelism") != std::string::npos);
}

TEST_CASE("pod-clos and hpcc topologies and the hpcc workload", "[unit][scenario][jobs]")
{
    const auto p = LoadScenarioString("[topology]\nkind = \"pod-clos\"\npods = 2\n"
                                      "racks_per_pod = 4\nhosts_per_rack = 4\n"
                                      "oversubscription = 3.5\n",
                                      kName);
    CHECK(p.topology.podClos.pods == 2);
    CHECK(p.topology.podClos.oversubscription == 3.5);
    CHECK(ErrorOf("[topology]\nkind = \"pod-clos\"\noversubscription = 0.5\n").Key() ==
          "topology.oversubscription");
    const auto h = LoadScenarioString("[topology]\nkind = \"hpcc\"\n"
                                      "file = \"../data/hpcc/topology.txt\"\n"
                                      "[workload]\nkind = \"hpcc\"\n"
                                      "file = \"../data/hpcc/flow.txt\"\nstart_us = 3\n",
                                      kName);
    CHECK(h.topology.kind == "hpcc");
    CHECK(h.workload.kind == "hpcc");
    CHECK(h.workload.startPs == 3'000'000ULL);
    const nlohmann::json echo = ScenarioToJson(h);
    CHECK(ScenarioToJson(LoadScenarioString(JsonToToml(echo), "json.toml")) == echo);
}

TEST_CASE("the training-job scenarios load", "[unit][scenario][jobs]")
{
    for (const char* name : {"llama3-8b-dp-allreduce.toml", "moe-all-to-all.toml",
                             "simai-micro-allreduce.toml", "background-mix.toml"})
    {
        CAPTURE(name);
        const ScenarioSpec s = LoadScenarioFile(kDir + name);
        CHECK(s.workload.kind == "jobs");
        CHECK_FALSE(s.jobs.empty());
        const nlohmann::json echo = ScenarioToJson(s);
        CHECK(ScenarioToJson(LoadScenarioString(JsonToToml(echo), "json.toml")) == echo);
    }
}

// The flow-size CDF's rounding to whole bytes is a scenario key. "up" (the
// default) gives exact sizes; "hpcc" truncates as HPCC's traffic_gen.py, so that every size
// not already whole is one byte shorter, with the same arrivals and destinations.
TEST_CASE("background[i].size_rounding selects exact sizes (up, default) or HPCC's truncation",
          "[unit][scenario][background]")
{
    const std::string base = R"(name = "bg-rounding"
seed = 3
[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 2
[workload]
kind = "permutation"
bytes = "1KB"
[[background]]
cdf_file = "../data/hpcc/WebSearch_distribution.txt"
load = 0.5
duration_us = 2000
)";
    const auto flows = [&](const std::string& extra) {
        const ScenarioSpec s = LoadScenarioString(base + extra, kName);
        const ns3::TopologyGraph g = BuildGraph(s);
        return BuildWorkload(ResolveScenario(s, g), g).transfers;
    };
    const auto byDefault = flows("");
    const auto up = flows("size_rounding = \"up\"\n");
    const auto hpcc = flows("size_rounding = \"hpcc\"\n");
    REQUIRE(up.size() >= 20);
    REQUIRE(hpcc.size() == up.size());
    REQUIRE(byDefault.size() == up.size());
    size_t shorter = 0;
    for (size_t i = 0; i < up.size(); ++i)
    {
        CHECK(byDefault[i].bytes == up[i].bytes);
        CHECK(hpcc[i].src == up[i].src);
        CHECK(hpcc[i].dst == up[i].dst);
        CHECK(hpcc[i].startPs == up[i].startPs);
        // ceil vs floor of the same interpolated size: equal when whole, else one byte apart
        CHECK((hpcc[i].bytes == up[i].bytes || hpcc[i].bytes + 1 == up[i].bytes));
        shorter += hpcc[i].bytes + 1 == up[i].bytes ? 1 : 0;
    }
    CHECK(shorter > up.size() / 2); // a continuous CDF hits whole bytes rarely

    const ns3::InputError e = ErrorOf(base + "size_rounding = \"down\"\n");
    CHECK(e.Key() == "background[0].size_rounding");
    CHECK(e.Line() == 15);
    CHECK(ScenarioToJson(LoadScenarioString(base + "size_rounding = \"hpcc\"\n", kName))
              ["background"][0]["size_rounding"] == "hpcc");
}

TEST_CASE("background traffic alone: [[background]] without flows or jobs is a valid scenario",
          "[unit][scenario][background]")
{
    const std::string bg = "[[background]]\ncdf_file = \"../data/hpcc/WebSearch_distribution.txt\"\n"
                           "load = 0.25\n";
    // Paper reproductions (ConWeave, LetFlow, DRILL) run Poisson traffic and nothing else.
    for (const std::string workload :
         {"[workload]\nkind = \"flows\"\n", "[workload]\nkind = \"flows\"\nflows = []\n",
          "[workload]\nkind = \"jobs\"\n"})
    {
        CAPTURE(workload);
        const ScenarioSpec s = LoadScenarioString(workload + bg, kName);
        CHECK(s.workload.flows.empty());
        CHECK(s.jobs.empty());
        REQUIRE(s.background.size() == 1);
        CHECK(s.background[0].load == 0.25);
        const nlohmann::json echo = ScenarioToJson(s);
        CHECK(ScenarioToJson(LoadScenarioString(JsonToToml(echo), "json.toml")) == echo);
    }
    // Without [[background]] an empty foreground is still refused, and says what would do.
    const auto flows = ErrorOf("[workload]\nkind = \"flows\"\n");
    CHECK(flows.Key() == "workload.flows");
    CHECK(flows.Message().find("[[background]]") != std::string::npos);
    CHECK(ErrorOf("[workload]\nkind = \"flows\"\nflows = []\n").Key() == "workload.flows");
    const auto jobs = ErrorOf("[workload]\nkind = \"jobs\"\n");
    CHECK(jobs.Key() == "jobs");
    CHECK(jobs.Message().find("[[background]]") != std::string::npos);
}

} // namespace TUSK_TEST_FILE
