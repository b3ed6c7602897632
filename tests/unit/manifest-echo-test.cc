// Exact manifests: the "scenario" a run's manifest echoes is the resolved spec the
// run used, and it is itself a scenario that resolves to the same spec. Checked for every
// shipped scenario (scenarios/*.toml, scenarios/lb-compare/*.toml, scenarios/probes/*.toml)
// and for the derived values that used to be lost: UEC's BDP-derived ECN thresholds and the
// DCQCN presets. No simulation runs here (tests/component/cli-test.cc reruns small scenarios
// from their manifests).
#include "run/runner.h"
#include "scenario/scenario-toml.h"

#include "fabric/model/input-error.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk;
namespace fs = std::filesystem;

namespace
{

/** The echo of `spec` resolved, and the echo of that echo read back and resolved. */
std::pair<nlohmann::json, nlohmann::json>
EchoTwice(const ScenarioSpec& spec)
{
    const nlohmann::json first = ScenarioToJson(ResolveScenario(spec));
    const ScenarioSpec back = LoadScenarioJson(first, "manifest.json");
    return {first, ScenarioToJson(ResolveScenario(back))};
}

std::vector<std::string>
ShippedScenarios()
{
    std::vector<std::string> files;
    for (const char* dir : {"/scenarios", "/scenarios/lb-compare", "/scenarios/probes"})
    {
        for (const auto& e : fs::directory_iterator(std::string(TUSK_SOURCE_DIR) + dir))
        {
            if (e.path().extension() == ".toml")
            {
                files.push_back(e.path().string());
            }
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

TEST_CASE("the manifest echo of every shipped scenario reads back as the same resolved spec",
          "[unit][scenario][manifest]")
{
    const auto files = ShippedScenarios();
    REQUIRE(files.size() >= 13);
    for (const auto& file : files)
    {
        CAPTURE(file);
        const auto [first, second] = EchoTwice(LoadScenarioFile(file));
        CHECK(first == second);
    }
}

TEST_CASE("a UEC run's manifest holds the BDP-derived ECN thresholds it used, not the generic "
          "ones, and no receiver",
          "[unit][scenario][manifest]")
{
    const std::string file = std::string(TUSK_SOURCE_DIR) + "/scenarios/uec-permutation.toml";
    const ScenarioSpec spec =
        LoadScenarioFile(file, {"ecn.enabled=true", "nic.congestion_control=nscc"});
    const auto [first, second] = EchoTwice(spec);
    CHECK(first == second);
    CHECK_FALSE(first["nic"].contains("receiver")); // refused with a uec-* transport
    CHECK_FALSE(first["ecn"].contains("kmin_bytes"));
    REQUIRE(first["ecn"]["by_rate"].size() == 1);
    // 100 Gb/s, 1 us links, 6 hops between the farthest hosts (3-tier fat tree), 4 KiB MTU:
    // Kmin = 0.2 BDP, Kmax = 0.8 BDP (Ultra Ethernet 1.0; tests/component/uec-transport-test.cc).
    const auto& t = first["ecn"]["by_rate"][0];
    CHECK(t["gbps"] == 100);
    CHECK(t["kmin_bytes"].get<uint64_t>() * 4 <= t["kmax_bytes"].get<uint64_t>() + 3);
    CHECK(t["kmin_bytes"].get<uint64_t>() < 100'000); // below the generic Kmin: it matters
}

TEST_CASE("a DCQCN run's manifest holds every value of the resolved preset",
          "[unit][scenario][manifest]")
{
    const std::string file = std::string(TUSK_SOURCE_DIR) + "/scenarios/dcqcn-fairness.toml";
    const ScenarioSpec spec = LoadScenarioFile(file, {"dcqcn.preset=hpcc"});
    const auto [first, second] = EchoTwice(spec);
    CHECK(first == second);
    const auto& d = first["dcqcn"];
    CHECK(d["preset"] == "hpcc");
    CHECK(d["timer_us"] == 300);                // the preset's
    CHECK(d["rate_ai_mbps"] == 100);            // the file's
    CHECK(d["fast_recovery_stages"] == 1);      // the preset's
    CHECK(d["min_decrease_interval_us"] == 4);  // the preset's
    CHECK(d["alpha_on_timer"] == true);         // the preset's
    CHECK(d["decrease_on_timer"] == true);      // the preset's
    CHECK(d.size() == 16);
}

TEST_CASE("a manifest scenario is checked like a file", "[unit][scenario][manifest]")
{
    nlohmann::json j = ScenarioToJson(ScenarioSpec());
    j["nic"]["mtu_bytes"] = 100;
    try
    {
        LoadScenarioJson(j, "results/x/manifest.json");
        FAIL("expected an InputError");
    }
    catch (const ns3::InputError& e)
    {
        CHECK(e.File() == "results/x/manifest.json");
        CHECK(e.Key() == "nic.mtu_bytes");
    }
    j = ScenarioToJson(ScenarioSpec());
    j["nic"]["receiver"] = "go-back-n";
    j["nic"]["transport"] = "uec-rud";
    j["nic"]["rto_us"] = 100;
    CHECK_THROWS_AS(LoadScenarioJson(j, "m.json"), ns3::InputError);
}

} // namespace TUSK_TEST_FILE
