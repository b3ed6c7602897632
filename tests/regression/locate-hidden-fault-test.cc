// A slow link that REPS spraying hides from completion times, found from per-path telemetry
// (`[output] path_telemetry = true`, paths.csv; docs/locate.md, "From per-path telemetry").
// scenarios/uec-permutation.toml (htsim's 128-host fat tree and its 2 MB permutation, UEC-style
// RUD transport) under host REPS with one aggregation-to-core cable at 1/4 of its rate: REPS
// moves the traffic off it, so no flow is slower than 1.3x its ideal and `tusk locate` from
// completion times names nothing; from paths.csv it names that cable first, after link
// counters, time series, PFC events and the manifest's failure list are removed. On the
// healthy fabric it names nothing. About 3 s of CPU per run.

#include "cli-helpers.h"
#include "locate-helpers.h"
#include "run-helpers.h"

#include "locate/locate-command.h"
#include "results/paths-writer.h"
#include "results/results-writer.h"
#include "scenario/scenario-toml.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

namespace fs = std::filesystem;
using namespace tusk_test;

namespace
{

const std::string kScenarioFile = std::string(TUSK_SOURCE_DIR) + "/scenarios/uec-permutation.toml";
const std::vector<std::string> kSets = {"lb.policy=\"host-reps\"", "output.path_telemetry=true"};
const std::string kFault =
    "failures=[{at_us=0, kind=\"degrade\", link=\"agg0-core0\", rate_divisor=4}]";

/** Run the scenario, write its results into a scratch folder, strip what locate must not
 *  read (StripToLocateInputs: links.csv keeps link_id, from, to; no drops, PFC events or time
 *  series; the manifest keeps only the NIC MTU). */
std::pair<tusk::RunResult, fs::path>
RunAndStrip(bool fault, const std::string& name)
{
    auto sets = kSets;
    sets.push_back(fault ? kFault : "failures=[]");
    const auto spec = tusk::LoadScenarioFile(kScenarioFile, sets);
    auto r = Run(spec);
    const fs::path dir = Scratch(name);
    tusk::WriteRunFiles(r, dir.string());
    StripToLocateInputs(dir);
    return {std::move(r), dir};
}

double
MaxSlowdown(const tusk::RunResult& r)
{
    double worst = 0;
    for (const auto& f : r.flows)
    {
        REQUIRE(f.finished);
        worst = std::max(worst, double(f.fctPs) / double(f.idealFctPs));
    }
    return worst;
}

} // namespace

TEST_CASE("tusk locate finds a slow link REPS hides, from per-path telemetry", "[regression][locate]")
{
    auto [r, dir] = RunAndStrip(true, "locate-paths-fault");
    REQUIRE(r.finished);
    // Masked: no flow slower than 1.3x its ideal, and completion times name nothing.
    CHECK(MaxSlowdown(r) < 1.3);
    const auto flows = LocateJson(dir, "flows");
    CHECK(flows["evidence"] == "flows");
    CHECK(flows["named"].get<int>() == 0);

    // paths.csv: one row per sending QP and entropy, with RTTs and the links taken.
    REQUIRE(fs::exists(dir / "paths.csv"));
    REQUIRE(!r.pathTelemetry.empty());
    for (const auto& p : r.pathTelemetry)
    {
        CHECK(p.rttMinUs <= p.rttMedianUs * 1.0101); // the sketch's median: 1 % relative error
        CHECK(p.rttMedianUs <= p.rttP99Us);
    }

    const auto doc = LocateJson(dir, "auto");
    CHECK(doc["evidence"] == "paths");
    REQUIRE(doc["named"].get<int>() >= 1);
    const auto& top = doc["ranking"][0];
    CAPTURE(doc.dump(1).substr(0, 3000));
    REQUIRE(top["links"].size() == 1);
    const std::string a = top["links"][0]["from"], b = top["links"][0]["to"];
    CHECK(((a == "agg0" && b == "core0") || (a == "core0" && b == "agg0")));
    // Capacity lost: a quarter of the rate is left, so about 3/4 lost.
    CHECK(top["capacity_lost"].get<double>() > 0.4);
    CHECK(top["capacity_lost"].get<double>() < 0.9);
    fs::remove_all(dir);
}

TEST_CASE("tusk locate from per-path telemetry names nothing on a healthy fabric",
          "[regression][locate]")
{
    auto [r, dir] = RunAndStrip(false, "locate-paths-healthy");
    REQUIRE(r.finished);
    const auto doc = LocateJson(dir, "auto");
    CHECK(doc["evidence"] == "paths");
    CAPTURE(doc.dump(1).substr(0, 2000));
    CHECK(doc["named"].get<int>() == 0);
    fs::remove_all(dir);
}

TEST_CASE("path_telemetry off writes no paths.csv and collects nothing", "[regression][locate]")
{
    const auto spec = tusk::LoadScenarioFile(
        kScenarioFile, {"lb.policy=\"host-reps\"", "workload={kind=\"permutation\", bytes=65536}"});
    const auto r = Run(spec);
    CHECK(r.pathTelemetry.empty());
    const fs::path dir = Scratch("locate-paths-off");
    tusk::WriteRunFiles(r, dir.string());
    CHECK(!fs::exists(dir / "paths.csv"));
    CHECK(Slurp(dir / "manifest.json").find("path_telemetry") == std::string::npos);
    fs::remove_all(dir);
}

} // namespace TUSK_TEST_FILE
