/*
 * Unit tests of the scenario file layer: TOML -> ScenarioSpec (units, overrides, errors with
 * file/line/key) and ScenarioSpec -> JSON.
 */
#include "fabric/model/input-error.h"
#include "input-error-helpers.h"
#include "scratch-dir.h"
#include "scenario/scenario-toml.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

namespace
{

using tusk::LoadScenarioFile;
using tusk::LoadScenarioString;
using tusk::ScenarioSpec;
using tusk::ScenarioToJson;
namespace fs = std::filesystem;

const std::string kName = "mem.toml";

using tusk_test::ExpectInputError;

/** Load `text` (named kName) and return the InputError it must raise. */
ns3::InputError
LoadError(const std::string& text, const std::vector<std::string>& overrides = {})
{
    return ExpectInputError([&] { LoadScenarioString(text, kName, overrides); });
}

/** 1-based number of the first line of `text` that contains `needle` (0 if none). */
unsigned
LineContaining(const std::string& text, const std::string& needle)
{
    std::istringstream in(text);
    std::string line;
    unsigned n = 0;
    while (std::getline(in, line))
    {
        ++n;
        if (line.find(needle) != std::string::npos)
        {
            return n;
        }
    }
    return 0;
}

bool
Contains(const std::string& haystack, const std::string& needle)
{
    return haystack.find(needle) != std::string::npos;
}

/** A TOML document with the same content as a JSON object (all tables inline). */
std::string
JsonValueToToml(const nlohmann::json& v)
{
    if (v.is_object())
    {
        std::string s = "{";
        bool first = true;
        for (const auto& [k, x] : v.items())
        {
            s += (first ? " " : ", ") + nlohmann::json(k).dump() + " = " + JsonValueToToml(x);
            first = false;
        }
        return s + (first ? "}" : " }");
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
    return v.dump(); // strings, numbers and booleans are written alike in JSON and TOML
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

/** A fresh directory under the system temp dir, removed at the end of the test. */
struct TempDir : tusk_test::ScratchDir
{
    const fs::path& path = Root();

    TempDir()
        : ScratchDir("scenario-test")
    {
    }
};

const std::string kLeafSpine = R"(name = "t"
[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 4
)";

} // namespace

TEST_CASE("default scenario loads with its documented values", "[unit][scenario]")
{
    const std::string text = tusk::kDefaultScenarioToml;
    ScenarioSpec s = LoadScenarioString(text, "");
    CHECK(s.name == "default-ring-allreduce");
    CHECK(s.seed == 1);
    CHECK(s.requireFinish);
    CHECK(s.stopTimePs == 1'000'000'000'000ULL); // 1000 ms
    CHECK(s.topology.kind == "leaf-spine");
    CHECK(s.topology.leafSpine.leaves == 4);
    CHECK(s.topology.leafSpine.spines == 4);
    CHECK(s.topology.leafSpine.hostsPerLeaf == 4);
    CHECK(s.topology.leafSpine.linksPerSpine == 1);
    CHECK(s.topology.leafSpine.hostRateBps == 400'000'000'000ULL);
    CHECK(s.topology.leafSpine.fabricRateBps == 400'000'000'000ULL);
    CHECK(s.topology.leafSpine.linkDelayPs == 1'000'000ULL); // 1 us
    CHECK(s.topology.leafSpine.switchLatencyPs == 0);
    CHECK(s.workload.kind == "ring-allreduce");
    CHECK(s.workload.bytes == 16ULL * 1024 * 1024);
    CHECK(s.workload.channels == 2);
    CHECK(s.workload.startPs == 0);
    REQUIRE(s.workload.hosts.size() == 16);
    for (uint32_t i = 0; i < 16; ++i)
    {
        // Ranks alternate leaves: rank i is host (i % 4) * 4 + i / 4.
        CHECK(s.workload.hosts[i] == (i % 4) * 4 + i / 4);
    }
    CHECK(s.lb.policy == "ecmp");
    CHECK(s.lb.attributes.empty());
    CHECK(s.buffer.totalBytes == 32ULL * 1024 * 1024);
    CHECK(s.pfc.enabled);
    CHECK(s.pfc.losslessPriorities == std::vector<uint8_t>{3});
    CHECK(s.fabric.phyOverheadBytes == 20);
    CHECK(s.nic.mtuBytes == 4096);
    CHECK(s.nic.rtoPs == 67'108'864'000ULL); // 4.096 us x 2^14
    CHECK(s.nic.congestionControl == "none");
    CHECK(s.nic.receiver == "selective-repeat"); // spraying without go-back-N
    CHECK(s.nic.dataPriority == 3);
    CHECK(s.nic.controlPriority == 7);
    CHECK(s.ns3Defaults.empty());
    CHECK(s.sourceFile.empty());

    // keyLines point at the lines the keys are on.
    CHECK(s.LineOf("workload.hosts") == LineContaining(text, "hosts = [0, 4, 8"));
    CHECK(s.LineOf("topology.hosts_per_leaf") == LineContaining(text, "hosts_per_leaf = 4"));
    CHECK(s.LineOf("name") == LineContaining(text, "name = "));
    CHECK(s.LineOf("workload") == LineContaining(text, "[workload]"));
    CHECK(s.LineOf("workload.hosts") > s.LineOf("workload"));
}

TEST_CASE("scenarios/default.toml is the built-in default", "[unit][scenario]")
{
    const std::string path = std::string(TUSK_SOURCE_DIR) + "/scenarios/default.toml";
    std::ifstream in(path);
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str() == tusk::kDefaultScenarioToml);

    ScenarioSpec fromFile = LoadScenarioFile(path);
    ScenarioSpec builtIn = LoadScenarioString(tusk::kDefaultScenarioToml, "");
    CHECK(fromFile.sourceFile == path);
    CHECK(ScenarioToJson(fromFile) == ScenarioToJson(builtIn));
}

TEST_CASE("omitted keys keep the ScenarioSpec defaults", "[unit][scenario]")
{
    ScenarioSpec s = LoadScenarioString("", kName);
    ScenarioSpec d;
    CHECK(ScenarioToJson(s) == ScenarioToJson(d));
    CHECK(s.keyLines.empty());
}

TEST_CASE("TOML units are converted to ps, bit/s and bytes", "[unit][scenario]")
{
    const std::string text = R"(stop_time_ms = 0.25
[topology]
kind = "leaf-spine"
host_link_gbps = 12.5
fabric_link_gbps = 100
link_delay_ns = 1.5
switch_latency_ns = 250
[nic]
rto_us = 2.5
[workload]
kind = "ring-allreduce"
bytes = "64MiB"
start_us = 3
)";
    ScenarioSpec s = LoadScenarioString(text, kName);
    CHECK(s.stopTimePs == 250'000'000ULL);
    CHECK(s.topology.leafSpine.hostRateBps == 12'500'000'000ULL);
    CHECK(s.topology.leafSpine.fabricRateBps == 100'000'000'000ULL);
    CHECK(s.topology.leafSpine.linkDelayPs == 1'500ULL);
    CHECK(s.topology.leafSpine.switchLatencyPs == 250'000ULL);
    CHECK(s.nic.rtoPs == 2'500'000ULL);
    CHECK(s.workload.startPs == 3'000'000ULL);
    CHECK(s.workload.bytes == 64ULL << 20);

    SECTION("fat-tree keys")
    {
        ScenarioSpec f = LoadScenarioString(R"([topology]
kind = "fat-tree"
k = 8
oversubscription = 2
host_link_gbps = 25
fabric_link_gbps = 100
link_delay_ns = 500
switch_latency_ns = 0.5
)",
                                            kName);
        CHECK(f.topology.kind == "fat-tree");
        CHECK(f.topology.fatTree.k == 8);
        CHECK(f.topology.fatTree.oversubscription == 2);
        CHECK(f.topology.fatTree.hostRateBps == 25'000'000'000ULL);
        CHECK(f.topology.fatTree.fabricRateBps == 100'000'000'000ULL);
        CHECK(f.topology.fatTree.linkDelayPs == 500'000ULL);
        CHECK(f.topology.fatTree.switchLatencyPs == 500ULL);
    }
}

TEST_CASE("size strings: SI and binary units are never mixed", "[unit][scenario]")
{
    struct Case
    {
        std::string text;
        uint64_t bytes;
    };
    const std::vector<Case> good = {
        {"4096", 4096ULL},
        {"7B", 7ULL},
        {"3kB", 3'000ULL},
        {"3KB", 3'000ULL},
        {"1KiB", 1'024ULL},
        {"2MB", 2'000'000ULL},
        {"2MiB", 2ULL * 1'048'576ULL},
        {"1GB", 1'000'000'000ULL},
        {"1GiB", 1'073'741'824ULL},
        {"1.5GiB", 1'610'612'736ULL},
        {"0.5MB", 500'000ULL},
        {"2 TB", 2'000'000'000'000ULL},
        {"1TiB", 1'099'511'627'776ULL},
    };
    for (const auto& c : good)
    {
        INFO(c.text);
        uint64_t bytes = 0;
        std::string why;
        CHECK(tusk::ParseSizeString(c.text, bytes, why));
        CHECK(bytes == c.bytes);
        // The same through the scenario loader, as a TOML string.
        ScenarioSpec s =
            LoadScenarioString("[workload]\nbytes = \"" + c.text + "\"\n", kName);
        CHECK(s.workload.bytes == c.bytes);
    }
    // An integer is bytes.
    CHECK(LoadScenarioString("[workload]\nbytes = 12345\n", kName).workload.bytes == 12345);

    // MiB and MB differ by 2^20 / 10^6.
    uint64_t mib = 0;
    uint64_t mb = 0;
    std::string why;
    REQUIRE(tusk::ParseSizeString("1MiB", mib, why));
    REQUIRE(tusk::ParseSizeString("1MB", mb, why));
    CHECK(mib - mb == 48'576ULL);
}

TEST_CASE("bad size strings name the key, line and problem", "[unit][scenario]")
{
    struct Case
    {
        std::string text;
        std::string problem;
    };
    const std::vector<Case> bad = {
        {"12XB", "unknown unit"},
        {"-1MB", "negative"},
        {"1.5.2GB", "malformed"},
        {"", "empty"},
        {"MB", "number must come first"},
        {"0.1KiB", "whole number of bytes"},
        {"1.MB", "digits must follow"},
        {"1gb", "unknown unit"},
        {"1mib", "unknown unit"},
        {"1e3MB", "unknown unit"},
        {"20000000TiB", "too large"},
    };
    for (const auto& c : bad)
    {
        INFO(c.text);
        uint64_t bytes = 0;
        std::string why;
        CHECK_FALSE(tusk::ParseSizeString(c.text, bytes, why));
        CHECK(Contains(why, c.problem));

        const std::string text = "name = \"x\"\n\n[workload]\nbytes = \"" + c.text + "\"\n";
        ns3::InputError e = LoadError(text);
        CHECK(e.File() == kName);
        CHECK(e.Line() == 4);
        CHECK(e.Key() == "workload.bytes");
        CHECK(Contains(e.Message(), c.problem));
        CHECK(Contains(e.Message(), "expected a size"));
    }
    // Zero bytes parses but is out of range.
    ns3::InputError e = LoadError("[workload]\nbytes = \"0MiB\"\n");
    CHECK(e.Key() == "workload.bytes");
    CHECK(Contains(e.Message(), "in 1..1024TiB"));
    e = LoadError("[workload]\nbytes = -5\n");
    CHECK(e.Key() == "workload.bytes");
    CHECK(Contains(e.Message(), "got -5"));
}

TEST_CASE("host lists: arrays, ranges and lists of ranges", "[unit][scenario]")
{
    ScenarioSpec s = LoadScenarioString(kLeafSpine + "[workload]\nhosts = \"0-2, 5,6-7\"\n",
                                        kName);
    CHECK(s.workload.hosts == std::vector<uint32_t>{0, 1, 2, 5, 6, 7});
    s = LoadScenarioString(kLeafSpine + "[workload]\nhosts = [7, 0, 3]\n", kName);
    CHECK(s.workload.hosts == std::vector<uint32_t>{7, 0, 3});

    // The topology has 2 x 4 = 8 hosts: ids 0..7.
    ns3::InputError e = LoadError(kLeafSpine + "[workload]\nhosts = \"0-8\"\n");
    CHECK(e.Key() == "workload.hosts");
    CHECK(e.Line() == LineContaining(kLeafSpine, "hosts_per_leaf") + 2);
    CHECK(Contains(e.Message(), "0..7"));
    CHECK(Contains(e.Message(), "got 8"));
    e = LoadError(kLeafSpine + "[workload]\nhosts = [1, 2, 1]\n");
    CHECK(Contains(e.Message(), "host 1 is listed twice"));
    e = LoadError(kLeafSpine + "[workload]\nhosts = \"5-3\"\n");
    CHECK(Contains(e.Message(), "backwards"));
    e = LoadError(kLeafSpine + "[workload]\nhosts = \"0-x\"\n");
    CHECK(e.Key() == "workload.hosts");
    e = LoadError(kLeafSpine + "[workload]\nhosts = [3]\n");
    CHECK(Contains(e.Message(), "at least 2 hosts"));
    e = LoadError(kLeafSpine + "[workload]\nkind = \"incast\"\nincast_dst = 8\n");
    CHECK(e.Key() == "workload.incast_dst");
    CHECK(Contains(e.Message(), "0..7"));
}

TEST_CASE("overrides are applied before validation", "[unit][scenario]")
{
    const std::string text = tusk::kDefaultScenarioToml;
    ScenarioSpec s = LoadScenarioString(text,
                                        kName,
                                        {"lb.policy=spray",
                                         "workload.bytes=1GiB",
                                         "topology.leaves = 8",
                                         "topology.link_delay_ns=250.5",
                                         "workload.hosts=0-3,8-11",
                                         "ns3.ns3::SelectiveRepeatRecovery::Window=4",
                                         "ns3.\"ns3::RdmaNic::Mtu\"=\"1024\"",
                                         "lb.attributes.FlowletGap=50us",
                                         "lb.attributes.Enabled=true",
                                         "name=2024",
                                         "seed=7",
                                         "seed=9"});
    CHECK(s.lb.policy == "spray");
    CHECK(s.workload.bytes == 1ULL << 30);
    CHECK(s.topology.leafSpine.leaves == 8);
    CHECK(s.topology.leafSpine.linkDelayPs == 250'500ULL);
    CHECK(s.workload.hosts == std::vector<uint32_t>{0, 1, 2, 3, 8, 9, 10, 11});
    CHECK(s.ns3Defaults.at("ns3::SelectiveRepeatRecovery::Window") == "4");
    CHECK(s.ns3Defaults.at("ns3::RdmaNic::Mtu") == "1024");
    CHECK(s.lb.attributes.at("FlowletGap") == "50us");
    CHECK(s.lb.attributes.at("Enabled") == "true");
    CHECK(s.name == "2024"); // a string key takes the text as typed
    CHECK(s.seed == 9);      // the last override wins
    // Untouched keys keep the file's values.
    CHECK(s.topology.leafSpine.spines == 4);
    CHECK(s.workload.channels == 2);

    // Overridden keys map to line 0; others keep their lines.
    CHECK(s.keyLines.at("lb.policy") == 0);
    CHECK(s.keyLines.at("workload.bytes") == 0);
    CHECK(s.keyLines.at("ns3.ns3::SelectiveRepeatRecovery::Window") == 0);
    CHECK(s.keyLines.at("workload.channels") == LineContaining(text, "channels = 2"));
    CHECK(s.keyLines.at("workload.channels") > 0);

    SECTION("a whole table as an inline TOML table")
    {
        ScenarioSpec f = LoadScenarioString(
            text,
            kName,
            {"topology={kind=\"fat-tree\", k=8, host_link_gbps=25}",
             "workload={kind=\"flows\", flows=[{src=0, dst=127, bytes=\"1KiB\"}]}"});
        CHECK(f.topology.kind == "fat-tree");
        CHECK(f.topology.fatTree.k == 8);
        CHECK(f.topology.fatTree.hostRateBps == 25'000'000'000ULL);
        REQUIRE(f.workload.flows.size() == 1);
        CHECK(f.workload.flows[0].dst == 127); // k=8: 128 hosts
        CHECK(f.workload.flows[0].bytes == 1024);
        CHECK(f.keyLines.at("topology.k") == 0);
        CHECK(f.keyLines.at("workload.flows[0].dst") == 0);

        // A nested value from --set is reported against --set too.
        ns3::InputError e = LoadError(
            text, {"workload={kind=\"flows\", flows=[{src=0, dst=16, bytes=1}]}"});
        CHECK(e.File() == "--set");
        CHECK(e.Line() == 0);
        CHECK(e.Key() == "workload.flows[0].dst");
        CHECK(Contains(e.Message(), "0..15"));
    }
}

TEST_CASE("an override may index an array of tables: failures[0].rate_divisor=8",
          "[unit][scenario]")
{
    const std::string text = std::string(tusk::kDefaultScenarioToml) +
                             "\n[[failures]]\nat_us = 0\nkind = \"degrade\"\n"
                             "link = \"leaf0-spine1\"\nrate_divisor = 4\n"
                             "\n[[failures]]\nat_us = 5\nkind = \"link_down\"\n"
                             "link = \"leaf1-spine0\"\n";
    ScenarioSpec s = LoadScenarioString(text, kName,
                                        {"failures[0].rate_divisor=8", "failures.1.at_us=7.5"});
    REQUIRE(s.failures.size() == 2);
    CHECK(s.failures[0].rateDivisor == 8u);
    CHECK(s.failures[0].link == "leaf0-spine1"); // the rest of the entry as in the file
    CHECK(s.failures[1].atPs == 7'500'000ULL);
    CHECK(s.failures[1].kind == "link_down");

    // A whole element replaced; it is then validated like the file's entries.
    s = LoadScenarioString(text, kName,
                           {"failures[1]={at_us=1, kind=\"degrade\", link=\"leaf1-spine0\", rate_gbps=100}"});
    REQUIRE(s.failures.size() == 2);
    CHECK(s.failures[1].kind == "degrade");
    CHECK(s.failures[1].rateBps == 100'000'000'000ULL);
    CHECK(s.failures[0].rateDivisor == 4u);

    ns3::InputError e = LoadError(text, {"failures[2].at_us=1"});
    CHECK(e.File() == "--set");
    CHECK(Contains(e.Message(), "index 2 is out of range: `failures` has 2 elements (0..1)"));
    e = LoadError(text, {"topology[0].leaves=2"});
    CHECK(Contains(e.Message(), "cannot index `topology`: it is a table, not an array"));
    e = LoadError(text, {"jobs[0].ranks=2"});
    CHECK(Contains(e.Message(), "cannot index `jobs`: it is not in the scenario"));
    e = LoadError(text, {"failures[x].at_us=1"});
    CHECK(Contains(e.Message(), "malformed index in `failures[x]`"));
    // Validation of an indexed value names the --set and the entry's key.
    e = LoadError(text, {"failures[0].rate_divisor=0"});
    CHECK(e.File() == "--set");
    CHECK(e.Key() == "failures[0].rate_divisor");
}

TEST_CASE("an override of a table's kind drops the file's keys of other kinds",
          "[unit][scenario]")
{
    const std::string text = tusk::kDefaultScenarioToml; // leaf-spine, ring-allreduce
    ScenarioSpec s = LoadScenarioString(text, kName, {"topology.kind=fat-tree"});
    CHECK(s.topology.kind == "fat-tree");
    CHECK(s.topology.fatTree.k == ns3::FatTreeParams().k); // default
    // Keys shared by both kinds are kept from the file (fat-tree's defaults are 100 Gb/s).
    CHECK(ns3::FatTreeParams().hostRateBps != 400'000'000'000ULL);
    CHECK(s.topology.fatTree.hostRateBps == 400'000'000'000ULL);
    CHECK(s.topology.fatTree.linkDelayPs == 1'000'000ULL);
    CHECK(s.keyLines.count("topology.leaves") == 0);
    CHECK(s.keyLines.at("topology.host_link_gbps") == LineContaining(text, "host_link_gbps"));

    TempDir dir;
    const fs::path cm = dir.Write("x.cm", "Nodes 16\n");
    s = LoadScenarioString(text, kName, {"workload.kind=htsim", "workload.file=" + cm.string()});
    CHECK(s.workload.kind == "htsim");
    CHECK(fs::equivalent(s.workload.file, cm));
    CHECK(s.keyLines.count("workload.channels") == 0);

    // A key of another kind given with --set is still an error, and so is one in a file that
    // sets its kind itself.
    ns3::InputError e =
        LoadError(text, {"topology.kind=fat-tree", "topology.spines=2"});
    CHECK(e.File() == "--set");
    CHECK(e.Key() == "topology.spines");
    CHECK(Contains(e.Message(), "valid only when topology.kind is \"leaf-spine\""));
    e = LoadError("[topology]\nkind = \"fat-tree\"\nleaves = 4\n", {"topology.kind=fat-tree"});
    CHECK(e.File() == kName);
    CHECK(e.Key() == "topology.leaves");
    // An unknown key is not dropped.
    e = LoadError("[topology]\nleavs = 4\n", {"topology.kind=fat-tree"});
    CHECK(e.Key() == "topology.leavs");
}

TEST_CASE("override errors name --set, line 0 and the key", "[unit][scenario]")
{
    const std::string text = tusk::kDefaultScenarioToml;
    SECTION("unknown key suggests the closest valid key")
    {
        ns3::InputError e = LoadError(text, {"workload.chanels=4"});
        CHECK(e.File() == "--set");
        CHECK(e.Line() == 0);
        CHECK(e.Key() == "workload.chanels");
        CHECK(Contains(e.Message(), "did you mean `channels`?"));
    }
    SECTION("unknown section")
    {
        ns3::InputError e = LoadError(text, {"topolgy.kind=fat-tree"});
        CHECK(e.File() == "--set");
        CHECK(e.Line() == 0);
        CHECK(e.Key() == "topolgy");
        CHECK(Contains(e.Message(), "did you mean `topology`?"));
    }
    SECTION("bad value")
    {
        ns3::InputError e = LoadError(text, {"nic.data_priority=9"});
        CHECK(e.File() == "--set");
        CHECK(e.Line() == 0);
        CHECK(e.Key() == "nic.data_priority");
        CHECK(Contains(e.Message(), "0..7"));
    }
    SECTION("bad syntax")
    {
        for (const std::string o : {"lb.policy", "=spray", "lb..policy=spray", "lb.=x"})
        {
            INFO(o);
            ns3::InputError e = LoadError(text, {o});
            CHECK(e.File() == "--set");
            CHECK(e.Line() == 0);
            CHECK(Contains(e.Message(), "KEY.PATH=VALUE"));
        }
        CHECK(LoadError(text, {"lb.policy"}).Key() == "lb.policy");
    }
    SECTION("setting inside a value that is not a table")
    {
        ns3::InputError e = LoadError(text, {"seed.x=1"});
        CHECK(e.File() == "--set");
        CHECK(e.Key() == "seed.x");
        CHECK(Contains(e.Message(), "not a table"));
    }
}

TEST_CASE("unknown keys name the closest valid key", "[unit][scenario]")
{
    struct Case
    {
        std::string text;
        std::string badLine; //!< text of the line the error must point at
        std::string key;
        std::string suggestion;
    };
    const std::vector<Case> cases = {
        {"[topology]\nleaves = 2\nhosts_per_lef = 4\n",
         "hosts_per_lef",
         "topology.hosts_per_lef",
         "`hosts_per_leaf`"},
        {"name = \"x\"\n[topolgy]\nkind = \"fat-tree\"\n", "[topolgy]", "topolgy", "`topology`"},
        {"seeds = 3\n", "seeds", "seeds", "`seed`"},
        {"[nic]\nmtu = 1500\n", "mtu", "nic.mtu", "`mtu_bytes`"},
        {"[buffer]\ntotal = 1\n", "total", "buffer.total", "`total_bytes`"},
        {"[workload]\nkind = \"incast\"\nincast_ds = 3\n",
         "incast_ds",
         "workload.incast_ds",
         "`incast_dst`"},
        {"[lb]\npolicyy = \"ecmp\"\n", "policyy", "lb.policyy", "`policy`"},
        {"[output]\npcaps = true\n", "pcaps", "output.pcaps", "`pcap`"},
        {"[workload]\nkind = \"flows\"\n[[workload.flows]]\nsrc = 0\ndst = 1\nbyte = 10\n",
         "byte =",
         "workload.flows[0].byte",
         "`bytes`"},
    };
    for (const auto& c : cases)
    {
        INFO(c.text);
        ns3::InputError e = LoadError(c.text);
        CHECK(e.File() == kName);
        CHECK(e.Line() == LineContaining(c.text, c.badLine));
        CHECK(e.Key() == c.key);
        CHECK(Contains(e.Message(), "did you mean " + c.suggestion + "?"));
        CHECK(Contains(std::string(e.what()),
                       kName + ":" + std::to_string(e.Line()) + ": " + c.key + ": "));
    }
}

TEST_CASE("keys of another kind are an error that says so", "[unit][scenario]")
{
    std::string text = "[topology]\nkind = \"fat-tree\"\nk = 4\nleaves = 4\n";
    ns3::InputError e = LoadError(text);
    CHECK(e.Key() == "topology.leaves");
    CHECK(e.Line() == 4);
    CHECK(Contains(e.Message(), "valid only when topology.kind is \"leaf-spine\""));
    CHECK(Contains(e.Message(), "here topology.kind is \"fat-tree\""));

    text = "[topology]\nk = 4\n"; // default kind: leaf-spine
    e = LoadError(text);
    CHECK(e.Key() == "topology.k");
    CHECK(Contains(e.Message(), "\"fat-tree\""));

    text = "[workload]\nkind = \"permutation\"\nchannels = 2\n";
    e = LoadError(text);
    CHECK(e.Key() == "workload.channels");
    CHECK(e.Line() == 3);
    CHECK(Contains(e.Message(), "valid only when workload.kind is \"ring-allreduce\""));
}

TEST_CASE("a TOML syntax error gives toml++'s line", "[unit][scenario]")
{
    const std::string text = "name = \"x\"\n[topology]\nleaves = = 4\nspines = 2\n";
    ns3::InputError e = LoadError(text);
    CHECK(e.File() == kName);
    CHECK(e.Line() == 3);
    CHECK(Contains(e.Message(), "TOML syntax error"));

    const std::string dup = "seed = 1\n\n\n\nseed = 2\n";
    e = LoadError(dup);
    CHECK(e.Line() == 5);
}

TEST_CASE("a TOML syntax error is explained in the terms of the mistake and names the key",
          "[unit][scenario]")
{
    // A bare word where a name is meant: toml++ reads `two` as a misspelt boolean.
    ns3::InputError e = LoadError("name = \"x\"\n[topology]\nkind = \"leaf-spine\"\nspines = two\n");
    CHECK(e.Line() == 4);
    CHECK(e.Key() == "topology.spines");
    CHECK(Contains(e.Message(), "`two` is not a TOML value"));
    CHECK(Contains(e.Message(), "spines = \"two\""));
    CHECK(Contains(e.Message(), "the parser said: Error while parsing boolean"));

    e = LoadError("[topology]\nkind = fat-tree # the paper's\n");
    CHECK(e.Key() == "topology.kind");
    CHECK(Contains(e.Message(), "kind = \"fat-tree\""));

    e = LoadError("[output]\npcap = True\n");
    CHECK(Contains(e.Message(), "`True` is not a TOML value: a boolean is written true or false"));
    e = LoadError("[output]\npcap = yes\n");
    CHECK(Contains(e.Message(), "`yes` is not a TOML value"));
    // The hint does not assume the key's type: an integer key gets both readings.
    e = LoadError("[topology]\nleaves = four\n");
    CHECK(Contains(e.Message(), "a number is written in digits, a name in quotes"));

    // A number with its unit written bare, in the second [[jobs]] table.
    e = LoadError("[[jobs]]\ncompute_us = 5\n[[jobs]]\ncompute_us = 10us\n");
    CHECK(e.Line() == 4);
    CHECK(e.Key() == "jobs[1].compute_us");
    CHECK(Contains(e.Message(), "`10us` is a number with a unit"));

    // Nested arrays of tables: the key as the scenario's other messages name it.
    e = LoadError("[[jobs]]\n[[jobs.collectives]]\nbytes = 1\n[[jobs]]\n[[jobs.collectives]]\n"
                  "bytes = 1MiB\n");
    CHECK(e.Line() == 6);
    CHECK(e.Key() == "jobs[1].collectives[0].bytes");
    e = LoadError("[[jobs]]\n[jobs.model]\nlayers = x1\n");
    CHECK(e.Key() == "jobs[0].model.layers");

    // Inside an inline table: the same hints, the key named down to the table's own key.
    e = LoadError("[[jobs]]\nmodel = { layers = 4, hidden = four }\n");
    CHECK(e.Key() == "jobs[0].model.hidden");
    CHECK(Contains(e.Message(), "`four` is not a TOML value"));
    CHECK(Contains(e.Message(), "hidden = \"four\""));
    e = LoadError("[topology]\nlink = { name = \"a, b\", rate = 100Gbps }\n");
    CHECK(e.Key() == "topology.link.rate");
    CHECK(Contains(e.Message(), "`100Gbps` is a number with a unit"));

    e = LoadError("[workload]\nbytes = 1,000\n");
    CHECK(Contains(e.Message(), "TOML groups digits with underscores (1_000)"));

    // A line that is not `key = value` says so; one the hints do not fit keeps the parser's words.
    e = LoadError("[topology]\nspines 2\n");
    CHECK(e.Key().empty());
    CHECK(Contains(e.Message(), "expected `key = value`, got `spines 2`"));
    // A multi-line array's continuation line is not taken for a key-value pair.
    e = LoadError("[workload]\nhosts = [\n  2, 6,\n  10 14,\n]\n");
    CHECK(e.Message().find("expected `key = value`") == std::string::npos);
    // Text that is not UTF-8 is said to be so, not reported as a syntax error.
    e = LoadError(std::string("\xFF\xFE[\0t\0", 6));
    CHECK(Contains(e.Message(), "not UTF-8 text: a UTF-16 byte-order mark"));
    e = LoadError("[topology]\nspines = [1, 2\n");
    CHECK(e.Message().rfind("TOML syntax error: Error while parsing array", 0) == 0);
}

TEST_CASE("types and ranges are checked", "[unit][scenario]")
{
    struct Case
    {
        std::string text;
        std::string key;
        std::string expected; //!< part of the message
    };
    const std::vector<Case> cases = {
        {"[topology]\nleaves = \"four\"", "topology.leaves", "expected an integer >= 1"},
        {"[topology]\nleaves = 0", "topology.leaves", "got 0"},
        {"[topology]\nleaves = 2.0", "topology.leaves", "the float 2.0"},
        {"[topology]\nspines = -1", "topology.spines", "expected an integer >= 1"},
        {"[topology]\nhost_link_gbps = 0", "topology.host_link_gbps", "a number > 0"},
        {"[topology]\nfabric_link_gbps = -100", "topology.fabric_link_gbps", "a number > 0"},
        {"[topology]\nlink_delay_ns = -1", "topology.link_delay_ns", "a number >= 0"},
        {"[topology]\nlink_delay_ns = nan", "topology.link_delay_ns", "a number >= 0"},
        {"[topology]\nhost_link_gbps = 1e-12", "topology.host_link_gbps", "0.001..100000"},
        {"[topology]\nkind = \"torus\"", "topology.kind", "\"fat-tree\", \"hpcc\", \"htsim\", \"leaf-spine\""},
        {"[topology]\nkind = \"fat-tree\"\nk = 5", "topology.k", "even"},
        {"[topology]\nkind = \"fat-tree\"\nk = 0", "topology.k", "got 0"},
        {"[topology]\nkind = \"fat-tree\"\noversubscription = 0",
         "topology.oversubscription",
         ">= 1"},
        {"[nic]\nmtu_bytes = 255", "nic.mtu_bytes", "256..9000"},
        {"[nic]\nmtu_bytes = 9001", "nic.mtu_bytes", "256..9000"},
        {"[nic]\ndata_priority = 8", "nic.data_priority", "0..7"},
        {"[nic]\ncontrol_priority = -1", "nic.control_priority", "0..7"},
        {"[nic]\nack_interval = 0", "nic.ack_interval", ">= 1"},
        {"[nic]\nqps_per_connection = 0", "nic.qps_per_connection", "integer in 1..16777214"},
        {"[nic]\nrto_us = 0", "nic.rto_us", "> 0"},
        {"[nic]\ncongestion_control = \"cubic\"", "nic.congestion_control", "\"none\""},
        {"[workload]\nchannels = 0", "workload.channels", ">= 1"},
        {"[workload]\nkind = \"alltoall\"", "workload.kind", "\"ring-allreduce\""},
        {"[workload]\nstart_us = 2000000", "workload.start_us", "before stop_time_ms"},
        {"[output]\npcap = \"yes\"", "output.pcap", "true or false"},
        {"[output]\ndir = 3", "output.dir", "expected a string"},
        // A choice given as another type names the choices, not only "a string".
        {"[simulator]\nsteady_jump = true", "simulator.steady_jump",
         "expected \"auto\", \"on\" or \"off\" (a string); got the boolean true"},
        {"[probes]\ninterval_us = -1", "probes.interval_us", ">= 0"},
        {"[probes]\nbytes = 63", "probes.bytes", "64..9216"},
        {"[probes]\ntargets = 0", "probes.targets", ">= 1"},
        {"seed = -1", "seed", ">= 0"},
        {"stop_time_ms = 0", "stop_time_ms", "> 0"},
        {"require_finish = 1", "require_finish", "true or false"},
        {"name = \"a/b\"", "name", "letters, digits"},
        {"topology = 3", "topology", "expected a table"},
        {"[lb]\npolicy = \"\"", "lb.policy", "policy name"},
        {"[lb.attributes]\nGap = [1, 2]", "lb.attributes.Gap", "string, number or boolean"},
        {"[ns3]\nAckInterval = 4", "ns3.AckInterval", "attribute path"},
        {"[ecn]\nkmin_bytes = 2000\nkmax_bytes = 1000", "ecn.kmax_bytes",
         "expected kmax_bytes >= kmin_bytes"},
    };
    for (const auto& c : cases)
    {
        INFO(c.text);
        const std::string text = "\n" + c.text + "\n"; // the bad key is on the last line
        ns3::InputError e = LoadError(text);
        CHECK(e.File() == kName);
        CHECK(e.Key() == c.key);
        const auto newlines = std::count(c.text.begin(), c.text.end(), '\n');
        CHECK(e.Line() == static_cast<unsigned>(newlines + 2));
        CHECK(Contains(e.Message(), c.expected));
    }
    // The bounds themselves are valid.
    CHECK(LoadScenarioString("[nic]\nmtu_bytes = 256\n", kName).nic.mtuBytes == 256);
    CHECK(LoadScenarioString("[nic]\nmtu_bytes = 9000\n", kName).nic.mtuBytes == 9000);
    CHECK(LoadScenarioString("[nic]\ndata_priority = 0\ncontrol_priority = 7\n", kName)
              .nic.dataPriority == 0);
    CHECK(LoadScenarioString("[topology]\nlink_delay_ns = 0\n", kName)
              .topology.leafSpine.linkDelayPs == 0);
    // Kmax = Kmin is a step threshold (InfiniBand's FECN threshold, DCTCP's K): accepted.
    const auto step = LoadScenarioString("[ecn]\nkmin_bytes = 64000\nkmax_bytes = 64000\n", kName);
    CHECK(step.ecn.fallback.kminBytes == 64'000);
    CHECK(step.ecn.fallback.kmaxBytes == 64'000);
}

TEST_CASE("[lb.attributes] and [ns3] values are kept as text", "[unit][scenario]")
{
    const std::string text = R"([lb]
policy = "ns3::DrillLoadBalancer"
[lb.attributes]
FlowletGap = "50us"
Samples = 2
Ratio = 0.25
Enabled = false
[ns3]
"ns3::SelectiveRepeatRecovery::Window" = 4
"ns3::SharedBufferMmu::EcnKmin" = "100KiB"
)";
    ScenarioSpec s = LoadScenarioString(text, kName);
    CHECK(s.lb.policy == "ns3::DrillLoadBalancer");
    CHECK(s.lb.attributes.size() == 4);
    CHECK(s.lb.attributes.at("FlowletGap") == "50us");
    CHECK(s.lb.attributes.at("Samples") == "2");
    CHECK(s.lb.attributes.at("Ratio") == "0.25");
    CHECK(s.lb.attributes.at("Enabled") == "false");
    CHECK(s.ns3Defaults.size() == 2);
    CHECK(s.ns3Defaults.at("ns3::SelectiveRepeatRecovery::Window") == "4");
    CHECK(s.ns3Defaults.at("ns3::SharedBufferMmu::EcnKmin") == "100KiB");
    CHECK(s.LineOf("lb.attributes.Ratio") == LineContaining(text, "Ratio"));
    CHECK(s.LineOf("ns3.ns3::SelectiveRepeatRecovery::Window") == LineContaining(text, "SelectiveRepeatRecovery::Window"));
}

TEST_CASE("explicit flows", "[unit][scenario]")
{
    const std::string text = kLeafSpine + R"([workload]
kind = "flows"
[[workload.flows]]
src = 0
dst = 5
bytes = "1MiB"
[[workload.flows]]
src = 3
dst = 1
bytes = 1000
start_us = 2.5
)";
    ScenarioSpec s = LoadScenarioString(text, kName);
    REQUIRE(s.workload.flows.size() == 2);
    CHECK(s.workload.flows[0].src == 0);
    CHECK(s.workload.flows[0].dst == 5);
    CHECK(s.workload.flows[0].bytes == 1ULL << 20);
    CHECK(s.workload.flows[0].startPs == 0);
    CHECK(s.workload.flows[1].src == 3);
    CHECK(s.workload.flows[1].dst == 1);
    CHECK(s.workload.flows[1].bytes == 1000);
    CHECK(s.workload.flows[1].startPs == 2'500'000ULL);
    CHECK(s.LineOf("workload.flows[1].start_us") == LineContaining(text, "start_us"));

    ns3::InputError e = LoadError(kLeafSpine + "[workload]\nkind = \"flows\"\n"
                                               "[[workload.flows]]\nsrc = 2\ndst = 2\nbytes = 1\n");
    CHECK(e.Key() == "workload.flows[0].dst");
    CHECK(Contains(e.Message(), "other than src"));
    e = LoadError(kLeafSpine + "[workload]\nkind = \"flows\"\n[[workload.flows]]\nsrc = 2\n"
                               "bytes = 1\n");
    CHECK(e.Key() == "workload.flows[0].dst");
    CHECK(Contains(e.Message(), "required"));
    e = LoadError(kLeafSpine + "[workload]\nkind = \"flows\"\n");
    CHECK(e.Key() == "workload.flows");
    e = LoadError(kLeafSpine + "[workload]\nkind = \"flows\"\n[[workload.flows]]\nsrc = 0\n"
                               "dst = 9\nbytes = 1\n");
    CHECK(e.Key() == "workload.flows[0].dst");
    CHECK(Contains(e.Message(), "0..7"));
}

TEST_CASE("relative file paths resolve against the scenario's directory", "[unit][scenario]")
{
    TempDir dir;
    const fs::path topo = dir.Write("inputs/fabric.topo", "Nodes 16\n");
    const fs::path cm = dir.Write("inputs/traffic.cm", "Nodes 16\n");
    const std::string text = R"([topology]
kind = "htsim"
file = "inputs/fabric.topo"
[workload]
kind = "htsim"
file = "../sub/../inputs/traffic.cm"
)";
    const fs::path scenario = dir.Write("sub/scenario.toml", text);
    // The topology path is relative to sub/, where inputs/ does not exist: it must fail...
    ns3::InputError e = ExpectInputError([&] { LoadScenarioFile(scenario.string()); });
    CHECK(e.File() == scenario.string());
    CHECK(e.Key() == "topology.file");
    CHECK(e.Line() == 3);
    CHECK(Contains(e.Message(), "does not exist"));
    CHECK(Contains(e.Message(), (dir.path / "sub/inputs/fabric.topo").string()));

    // ... and succeed from the directory that holds inputs/.
    const fs::path top = dir.Write("scenario.toml",
                                   R"([topology]
kind = "htsim"
file = "inputs/fabric.topo"
[workload]
kind = "htsim"
file = "sub/../inputs/traffic.cm"
)");
    ScenarioSpec s = LoadScenarioFile(top.string());
    CHECK(fs::path(s.topology.file).is_absolute());
    CHECK(fs::path(s.workload.file).is_absolute());
    CHECK(fs::equivalent(s.topology.file, topo));
    CHECK(fs::equivalent(s.workload.file, cm));
    CHECK(s.workload.file.find("..") == std::string::npos); // normalised
    CHECK(s.sourceFile == top.string());

    // The manifest records the absolute path.
    CHECK(ScenarioToJson(s)["topology"]["file"] == s.topology.file);
    CHECK(ScenarioToJson(s)["workload"]["file"] == s.workload.file);

    // A path given with --set is relative to the current directory.
    const std::string fromCwd = fs::relative(topo, fs::current_path()).string();
    REQUIRE(fs::path(fromCwd).is_relative());
    ScenarioSpec o = LoadScenarioFile(top.string(), {"topology.file=" + fromCwd});
    CHECK(fs::equivalent(o.topology.file, topo));

    // A directory is not a file.
    e = ExpectInputError(
        [&] { LoadScenarioFile(top.string(), {"topology.file=" + dir.path.string()}); });
    CHECK(e.File() == "--set");
    CHECK(Contains(e.Message(), "not a regular file"));

    // A missing required file key points at the table.
    e = LoadError("\n[topology]\nkind = \"htsim\"\n");
    CHECK(e.Key() == "topology.file");
    CHECK(e.Line() == 2);

    // A missing scenario file.
    e = ExpectInputError([&] { LoadScenarioFile((dir.path / "nope.toml").string()); });
    CHECK(e.File() == (dir.path / "nope.toml").string());
}

TEST_CASE("a scenario file with no keys is refused rather than run with every default",
          "[unit][scenario]")
{
    // Most likely truncated or not yet written; one key is enough to run.
    TempDir dir;
    for (const char* text : {"", "\n\n", "# a comment only\n"})
    {
        const fs::path empty = dir.Write("empty.toml", text);
        const ns3::InputError e = ExpectInputError([&] { LoadScenarioFile(empty.string()); });
        CHECK(e.File() == empty.string());
        CHECK(Contains(e.Message(), "no keys"));
        const fs::path one = dir.Write("one.toml", std::string(text) + "name = \"one-key\"\n");
        CHECK(LoadScenarioFile(one.string()).name == "one-key");
    }
}

TEST_CASE("ScenarioToJson writes resolved values in TOML units and round-trips",
          "[unit][scenario]")
{
    const std::string text = R"(name = "rt"
seed = 42
stop_time_ms = 2.5
require_finish = false
[topology]
kind = "fat-tree"
k = 4
oversubscription = 2
host_link_gbps = 12.5
fabric_link_gbps = 100
link_delay_ns = 1.5
switch_latency_ns = 300
[buffer]
total_bytes = "1MiB"
[fabric]
phy_overhead_bytes = 24
[nic]
mtu_bytes = 1024
ack_interval = 4
rto_us = 12.5
qps_per_connection = 8
data_priority = 2
control_priority = 6
[lb]
policy = "drill"
[lb.attributes]
Samples = 2
[workload]
kind = "incast"
bytes = "2MB"
hosts = "0-4"
incast_dst = 3
start_us = 7
[output]
dir = "out/rt"
pcap = true
[ns3]
"ns3::SelectiveRepeatRecovery::Window" = 4
)";
    ScenarioSpec s = LoadScenarioString(text, kName);
    nlohmann::json j = ScenarioToJson(s);
    CHECK(j["name"] == "rt");
    CHECK(j["seed"] == 42);
    CHECK(j["stop_time_ms"] == 2.5);
    CHECK(j["require_finish"] == false);
    CHECK(j["topology"]["kind"] == "fat-tree");
    CHECK(j["topology"]["k"] == 4);
    CHECK(j["topology"]["oversubscription"] == 2);
    CHECK(j["topology"]["host_link_gbps"] == 12.5);
    CHECK(j["topology"]["fabric_link_gbps"] == 100);
    CHECK(j["topology"]["link_delay_ns"] == 1.5);
    CHECK(j["topology"]["switch_latency_ns"] == 300);
    CHECK_FALSE(j["topology"].contains("leaves")); // only the chosen kind's keys
    CHECK(j["buffer"]["total_bytes"] == (1ULL << 20));
    CHECK(j["fabric"]["phy_overhead_bytes"] == 24);
    CHECK(j["nic"]["mtu_bytes"] == 1024);
    CHECK(j["nic"]["rto_us"] == 12.5);
    CHECK(j["nic"]["qps_per_connection"] == 8);
    CHECK(j["nic"]["data_priority"] == 2);
    CHECK(j["nic"]["control_priority"] == 6);
    CHECK(j["lb"]["policy"] == "drill");
    CHECK(j["lb"]["attributes"]["Samples"] == "2");
    CHECK(j["workload"]["kind"] == "incast");
    CHECK(j["workload"]["bytes"] == 2'000'000);
    CHECK(j["workload"]["hosts"] == nlohmann::json({0, 1, 2, 3, 4}));
    CHECK(j["workload"]["incast_dst"] == 3);
    CHECK(j["workload"]["start_us"] == 7);
    CHECK_FALSE(j["workload"].contains("channels"));
    CHECK(j["output"]["dir"] == "out/rt");
    CHECK(j["output"]["pcap"] == true);
    CHECK(j["ns3"]["ns3::SelectiveRepeatRecovery::Window"] == "4");

    // The JSON is itself a scenario: loading it back gives the same spec.
    ScenarioSpec back = LoadScenarioString(JsonToToml(j), "json.toml");
    CHECK(ScenarioToJson(back) == j);
    CHECK(back.stopTimePs == s.stopTimePs);
    CHECK(back.topology.fatTree.hostRateBps == s.topology.fatTree.hostRateBps);
    CHECK(back.topology.fatTree.linkDelayPs == s.topology.fatTree.linkDelayPs);
    CHECK(back.nic.rtoPs == s.nic.rtoPs);
    CHECK(back.workload.hosts == s.workload.hosts);
    CHECK(back.workload.startPs == s.workload.startPs);

    SECTION("flows and the default scenario round-trip too")
    {
        ScenarioSpec f = LoadScenarioString(kLeafSpine + "[workload]\nkind = \"flows\"\n"
                                                         "[[workload.flows]]\nsrc = 1\ndst = 6\n"
                                                         "bytes = 999\nstart_us = 0.001\n",
                                            kName);
        nlohmann::json fj = ScenarioToJson(f);
        CHECK(fj["workload"]["flows"][0]["start_us"] == 0.001);
        CHECK(fj["workload"]["flows"][0]["bytes"] == 999);
        ScenarioSpec fb = LoadScenarioString(JsonToToml(fj), "json.toml");
        REQUIRE(fb.workload.flows.size() == 1);
        CHECK(fb.workload.flows[0].startPs == 1'000ULL);
        CHECK(fb.workload.flows[0].dst == 6);
        CHECK(ScenarioToJson(fb) == fj);

        ScenarioSpec d = LoadScenarioString(tusk::kDefaultScenarioToml, "");
        nlohmann::json dj = ScenarioToJson(d);
        CHECK(ScenarioToJson(LoadScenarioString(JsonToToml(dj), "json.toml")) == dj);
        CHECK(dj["topology"]["link_delay_ns"] == 1000);
        CHECK(dj["topology"]["host_link_gbps"] == 400);
        CHECK(dj["workload"]["bytes"] == 16 * 1024 * 1024);
    }
}

} // namespace TUSK_TEST_FILE
