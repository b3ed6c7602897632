// The scenario keys of the load-balancing issue ([lb] path_selector, same_seed_everywhere;
// [nic] qp_scaling, qp_message_bytes, qp_entropy, receiver, cnp_on_ooo) and the comparison
// scenarios in scenarios/lb-compare/.

#include "fabric/model/input-error.h"
#include "lb-policies/policy-registry.h"
#include "rdma/model/rdma-nic.h"
#include "scenario/scenario-toml.h"

#include <catch2/catch.hpp>

#include <filesystem>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using tusk::LoadScenarioFile;
using tusk::LoadScenarioString;

namespace
{

ns3::InputError
LoadError(const std::string& text)
{
    try
    {
        LoadScenarioString(text, "lb.toml");
    }
    catch (const ns3::InputError& e)
    {
        return e;
    }
    FAIL("expected an ns3::InputError");
    throw std::logic_error("unreachable");
}

} // namespace

TEST_CASE("load-balancing keys: defaults, values, echo", "[unit][scenario][lb]")
{
    const auto d = LoadScenarioString("", "lb.toml");
    CHECK(d.nic.qpScaling == "split");
    CHECK(d.nic.qpMessageBytes == 512 * 1024);
    CHECK(d.nic.qpEntropy == "random");
    CHECK(d.nic.receiver == "go-back-n");
    CHECK_FALSE(d.nic.cnpOnOutOfOrder);
    CHECK(d.lb.pathSelector.empty());
    CHECK_FALSE(d.lb.sameSeedEverywhere);

    const auto s = LoadScenarioString(R"([nic]
qps_per_connection = 4
qp_scaling = "round-robin"
qp_message_bytes = "64KiB"
qp_entropy = "sequential"
receiver = "selective-repeat"
cnp_on_ooo = true
[lb]
policy = "host-spray"
path_selector = "oblivious-spray"
same_seed_everywhere = true
)",
                                      "lb.toml");
    CHECK(s.nic.qpScaling == "round-robin");
    CHECK(s.nic.qpMessageBytes == 65536);
    CHECK(s.nic.qpEntropy == "sequential");
    CHECK(s.nic.receiver == "selective-repeat");
    CHECK(s.nic.cnpOnOutOfOrder);
    CHECK(s.lb.pathSelector == "oblivious-spray");
    CHECK(s.lb.sameSeedEverywhere);
    const auto j = tusk::ScenarioToJson(s);
    CHECK(j["nic"]["qp_scaling"] == "round-robin");
    CHECK(j["nic"]["qp_message_bytes"] == 65536);
    CHECK(j["nic"]["qp_entropy"] == "sequential");
    CHECK(j["nic"]["receiver"] == "selective-repeat");
    CHECK(j["nic"]["cnp_on_ooo"] == true);
    CHECK(j["lb"]["path_selector"] == "oblivious-spray");
    CHECK(j["lb"]["same_seed_everywhere"] == true);
    // Overrides reach them like any key.
    const auto o = LoadScenarioString("", "lb.toml",
                                      {"nic.receiver=selective-repeat",
                                       "lb.same_seed_everywhere=true"});
    CHECK(o.nic.receiver == "selective-repeat");
    CHECK(o.lb.sameSeedEverywhere);
}

TEST_CASE("load-balancing keys: bad values name key and line", "[unit][scenario][lb]")
{
    struct Case
    {
        std::string text;
        std::string key;
        std::string expected;
    };
    const std::vector<Case> cases = {
        {"[nic]\nqp_scaling = \"spread\"", "nic.qp_scaling", "\"split\" or \"round-robin\""},
        {"[nic]\nqp_message_bytes = 0", "nic.qp_message_bytes", "in 1..1024TiB"},
        {"[nic]\nqp_entropy = \"same\"", "nic.qp_entropy", "\"shared\""},
        {"[nic]\nreceiver = \"irn\"", "nic.receiver", "\"selective-repeat\""},
        {"[nic]\ncnp_on_ooo = 1", "nic.cnp_on_ooo", "true or false"},
        {"[lb]\npath_selector = \"a b\"", "lb.path_selector", "oblivious-spray"},
        {"[lb]\nsame_seed_everywhere = \"yes\"", "lb.same_seed_everywhere", "true or false"},
    };
    for (const auto& c : cases)
    {
        INFO(c.text);
        const auto e = LoadError("\n" + c.text + "\n");
        CHECK(e.Key() == c.key);
        CHECK(e.Line() == 3);
        CHECK(e.Message().find(c.expected) != std::string::npos);
    }
    // A misspelt key points at the right one.
    const auto e = LoadError("[nic]\nreciever = \"go-back-n\"\n");
    CHECK(e.Message().find("receiver") != std::string::npos);
}

TEST_CASE("QP counts are bounded by the 24-bit QPN space, not by 1024",
          "[unit][scenario][lb]")
{
    // 2^24 QPNs less the reserved QP0 and QP1 (BTH destination QP is 24 bits).
    CHECK(ns3::RdmaNic::kMaxQps == 16777214u);
    const auto s = LoadScenarioString("[nic]\nqps_per_connection = 4096\n", "qps.toml");
    CHECK(s.nic.qpsPerConnection == 4096u);
    CHECK(LoadScenarioString("[nic]\nqps_per_connection = 16777214\n", "qps.toml")
              .nic.qpsPerConnection == 16777214u);
    const auto e = LoadError("\n[nic]\nqps_per_connection = 16777215\n");
    CHECK(e.Key() == "nic.qps_per_connection");
    CHECK(e.Line() == 3);
    CHECK(e.Message().find("1..16777214") != std::string::npos);
}

TEST_CASE("the comparison scenarios load and name existing policies", "[unit][scenario][lb]")
{
    const std::filesystem::path dir = std::filesystem::path(TUSK_SOURCE_DIR) / "scenarios" /
                                      "lb-compare";
    for (const char* name : {"ring-allreduce.toml", "all-to-all.toml"})
    {
        INFO(name);
        const auto s = LoadScenarioFile((dir / name).string());
        CHECK(s.topology.kind == "leaf-spine");
        CHECK(s.topology.leafSpine.leaves * s.topology.leafSpine.hostsPerLeaf == 64);
        CHECK(s.topology.leafSpine.hostRateBps == 400'000'000'000ULL);
        CHECK(s.topology.leafSpine.fabricRateBps == 400'000'000'000ULL);
        CHECK(s.pfc.enabled);
        CHECK(s.nic.receiver == "selective-repeat");
        if (s.workload.kind == "htsim")
        {
            CHECK(std::filesystem::is_regular_file(s.workload.file));
        }
        else
        {
            CHECK(s.workload.kind == "ring-allreduce");
            CHECK(s.workload.hosts.size() == 64);
        }
    }
    // Every policy run.sh compares is a preset.
    for (const char* p : {"ecmp", "eecmp", "qp4-split", "qp4-rr", "pinning", "letflow", "conga",
                          "drill", "ar", "spray", "rr-spray", "host-spray"})
    {
        CHECK(ns3::FindPolicy(p) != nullptr);
    }
}

TEST_CASE("nic.ack_route: unset by default (the policy decides), fixed or reverse, anything else "
          "refused naming the key",
          "[unit][scenario][lb]")
{
    CHECK_FALSE(LoadScenarioString("", "lb.toml").nic.ackRoute.has_value());
    const auto s = LoadScenarioString("[nic]\nack_route = \"reverse\"\n", "lb.toml");
    REQUIRE(s.nic.ackRoute.has_value());
    CHECK(*s.nic.ackRoute == ns3::RdmaNic::ACK_REVERSE); // converted where it is read
    CHECK(*LoadScenarioString("[nic]\nack_route = \"fixed\"\n", "lb.toml").nic.ackRoute ==
          ns3::RdmaNic::ACK_FIXED);
    const auto bad = LoadError("[nic]\nack_route = \"sideways\"\n");
    CHECK(bad.Key() == "nic.ack_route");
    CHECK(bad.Line() == 2);
    CHECK(bad.File() == "lb.toml");
    CHECK(std::string(bad.what()).find("expected \"fixed\" or \"reverse\"; got \"sideways\"") !=
          std::string::npos);
    // The presets that answer on the reverse route: the source-routed sprayers only.
    for (const auto& p : ns3::SwitchPolicies())
    {
        INFO(p.name);
        CHECK(p.ackRoute == ((p.name == "mrc" || p.name == "source-route") ? "reverse" : ""));
    }
}

} // namespace TUSK_TEST_FILE
