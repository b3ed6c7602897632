// A slow link that switch adaptive routing hides from completion times, found from the
// switches' own decision counts (`[output] ar_telemetry = true`, ar.csv; docs/locate.md, "From
// switch AR telemetry"), and what it costs (`tusk locate --what-if`; "What a hidden fault
// costs").
//
// A k = 4 fat tree (16 hosts, 100 Gb/s, PFC, selective-repeat receivers) under DRILL, one
// aggregation-to-core cable (agg0-core0) at 1/4 of its rate. The workload sends 1 MiB from
// every host of pod 0 to other pods and among pods 1-3, so the slow cable's downward direction
// carries only ACKs: DRILL steers pod 0's upward packets around it at agg0, no flow is slow
// enough for completion times to name anything, and ar.csv names agg0->core0 first. With the
// link counters, time series, PFC events, paths.csv and the manifest (failure list included)
// removed, the answer does not change. On the healthy fabric it names nothing. About 0.5 s of
// CPU per run.

#include "cli-helpers.h"
#include "input-error-helpers.h"
#include "run-helpers.h"

#include "locate/locate-command.h"
#include "results/results-writer.h"
#include "results/what-if.h"
#include "scenario/scenario-toml.h"

#include <catch2/catch.hpp>

#include <fmt/format.h>
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

const char* const kFault =
    "failures=[{at_us=0, kind=\"degrade\", link=\"agg0-core0\", rate_divisor=4}]";

/** The scenario: pod 0 (hosts 0-3) sends out; pods 1-3 send to each other. */
std::string
ScenarioText()
{
    std::string s = R"(name = "ar-hidden-fault"
seed = 1
stop_time_ms = 50
[topology]
kind = "fat-tree"
k = 4
host_link_gbps = 100
fabric_link_gbps = 100
[buffer]
total_bytes = "32MiB"
[pfc]
enabled = true
lossless_priorities = [3]
[nic]
receiver = "selective-repeat"
mtu_bytes = 4096
congestion_control = "none"
[lb]
policy = "drill"
[output]
ar_telemetry = true
path_telemetry = true
[workload]
kind = "flows"
)";
    std::vector<std::pair<int, int>> flows = {{0, 4}, {1, 8}, {2, 12}, {3, 13}};
    for (int h = 4; h < 16; ++h)
    {
        flows.emplace_back(h, 4 + (h - 4 + 4) % 12);
    }
    for (const auto& [src, dst] : flows)
    {
        s += fmt::format("[[workload.flows]]\nsrc = {}\ndst = {}\nbytes = 1048576\n", src, dst);
    }
    return s;
}

tusk::RunResult
RunInto(const std::vector<std::string>& sets, const fs::path& dir)
{
    const auto spec = tusk::LoadScenarioString(ScenarioText(), "ar-hidden-fault.toml", sets);
    auto r = Run(spec);
    tusk::WriteRunFiles(r, dir.string());
    return r;
}

nlohmann::json
LocateJson(const fs::path& dir, const std::string& evidence, bool whatIf = false)
{
    tusk::locate::CommandOptions o;
    o.resultsDir = dir.string();
    o.json = true;
    o.evidence = evidence;
    o.whatIf = whatIf;
    o.whatIfRunner = tusk::RunWhatIf;
    std::ostringstream out;
    REQUIRE(tusk::locate::RunCommand(o, out) == 0);
    return nlohmann::json::parse(out.str());
}

/** Strip what locate must not read: link counters, time series, PFC events, the failures
 *  (the whole manifest but the MTU), and paths.csv (ar evidence alone). */
void
Strip(const fs::path& dir)
{
    KeepLinkNames(dir);
    for (const char* f : {"pfc_events.csv", "timeseries.csv", "switch_timeseries.csv", "paths.csv"})
    {
        fs::remove(dir / f);
    }
    nlohmann::json m = nlohmann::json::parse(Slurp(dir / "manifest.json"));
    nlohmann::json kept;
    kept["scenario"]["nic"]["mtu_bytes"] = m["scenario"]["nic"]["mtu_bytes"];
    std::ofstream(dir / "manifest.json") << kept.dump();
}

/** links.csv tx_bytes per direction "from->to" (the switch ports' own counters). */
std::map<std::string, double>
TxBytes(const fs::path& dir)
{
    const auto lines = Lines(Slurp(dir / "links.csv"));
    auto split = [](const std::string& l) {
        std::vector<std::string> f;
        std::stringstream ss(l);
        for (std::string x; std::getline(ss, x, ',');)
        {
            f.push_back(x);
        }
        return f;
    };
    const auto head = split(lines.at(0));
    const size_t tx = std::find(head.begin(), head.end(), "tx_bytes") - head.begin();
    REQUIRE(tx < head.size());
    std::map<std::string, double> out;
    for (size_t i = 1; i < lines.size(); ++i)
    {
        const auto f = split(lines[i]);
        out[f[1] + "->" + f[2]] = std::stod(f[tx]);
    }
    return out;
}

} // namespace

TEST_CASE("tusk locate finds a slow link switch AR hides, from ar.csv alone", "[regression][locate]")
{
    const fs::path dir = Scratch("locate-ar-fault");
    const auto r = RunInto({kFault}, dir);
    REQUIRE(r.finished);
    REQUIRE(!r.arTelemetry.empty());
    // Masked: completion times name nothing.
    const auto flows = LocateJson(dir, "flows");
    CHECK(flows["slow_flows"].get<int>() == 0);
    CHECK(flows["named"].get<int>() == 0);

    const auto doc = LocateJson(dir, "auto");
    CAPTURE(doc.dump(1).substr(0, 3000));
    CHECK(doc["evidence"] == "ar");
    REQUIRE(doc["named"].get<int>() >= 1);
    const auto& top = doc["ranking"][0];
    CHECK(top["links"][0]["from"] == "agg0");
    CHECK(top["links"][0]["to"] == "core0");
    // A quarter of the rate is left; DRILL at this load steers only part of the way, so the
    // capacity it shows lost is a lower bound of 3/4.
    CHECK(top["capacity_lost"].get<double>() > 0.3);
    CHECK(top["capacity_lost"].get<double>() < 0.8);

    // The answer does not depend on what locate must not read.
    Strip(dir);
    REQUIRE(Slurp(dir / "links.csv").rfind("link_id,from,to\n", 0) == 0);
    // Asked for ar.csv: the same answer; only why differs (auto chose it because the switches
    // steered and enough egresses could be judged).
    CHECK(doc["evidence_choice"]["rule"] == "ar_steered");
    CHECK(doc["evidence_choice"]["numbers"]["ar_judged_share"].get<double>() >= 0.5);
    auto asked = LocateJson(dir, "ar");
    CHECK(asked["evidence_choice"]["rule"] == "asked");
    asked.erase("evidence_choice");
    auto chosen = doc;
    chosen.erase("evidence_choice");
    CHECK(asked == chosen);
    fs::remove_all(dir);
}

TEST_CASE("tusk locate from ar.csv names nothing on a healthy fabric", "[regression][locate]")
{
    const fs::path dir = Scratch("locate-ar-healthy");
    const auto r = RunInto({}, dir);
    REQUIRE(r.finished);
    const auto doc = LocateJson(dir, "ar");
    CAPTURE(doc.dump(1).substr(0, 2000));
    CHECK(doc["named"].get<int>() == 0);
    fs::remove_all(dir);
}

TEST_CASE("ar_telemetry off writes no ar.csv and leaves the results unchanged",
          "[regression][locate]")
{
    const fs::path on = Scratch("locate-ar-on");
    const fs::path off = Scratch("locate-ar-off");
    RunInto({}, on);
    const auto r = RunInto({"output.ar_telemetry=false", "output.path_telemetry=false"}, off);
    CHECK(r.arTelemetry.empty());
    CHECK(!fs::exists(off / "ar.csv"));
    CHECK(Slurp(off / "manifest.json").find("ar_telemetry") == std::string::npos);
    for (const char* f : {"flows.csv", "links.csv", "switches.csv"})
    {
        CHECK(Slurp(on / f) == Slurp(off / f));
    }
    fs::remove_all(on);
    fs::remove_all(off);
}

TEST_CASE("tusk locate --what-if: the traffic a masked slow link moved and the next failure's "
          "cost",
          "[regression][locate]")
{
    const fs::path dir = Scratch("locate-whatif");
    RunInto({kFault}, dir);
    const fs::path derived = dir.string() + ".what-if";
    fs::remove_all(derived);

    // Bad input: named, and nothing run or written.
    auto errorOf = [&](const std::string& link, const std::string& down) {
        tusk::locate::CommandOptions o;
        o.resultsDir = dir.string();
        o.whatIf = true;
        o.whatIfRunner = tusk::RunWhatIf;
        o.whatIfLink = link;
        o.whatIfDown = down;
        std::ostringstream out;
        return std::string(ExpectInputError([&] { tusk::locate::RunCommand(o, out); }).what());
    };
    CHECK_THAT(errorOf("agg0->nowhere", ""), Catch::Contains("--what-if-link"));
    CHECK_THAT(errorOf("", "agg0-core9"), Catch::Contains("--what-if-down"));
    CHECK(!fs::exists(derived));

    const auto doc = LocateJson(dir, "auto", true);
    CAPTURE(doc["what_if"].dump(1).substr(0, 4000));
    const auto& w = doc["what_if"];
    REQUIRE(w.is_object());
    CHECK(w["link"]["from"] == "agg0");
    CHECK(w["link"]["to"] == "core0");
    const auto& b = w["bytes"];

    // The oracle: the switch ports' own transmit counters (links.csv tx_bytes, which locate does
    // not read). agg0's two core uplinks carried what agg0 sent up; an even split gives each
    // half; the slow one's shortfall is what the other carried above its half.
    const auto tx = TxBytes(dir);
    const double slow = tx.at("agg0->core0"), other = tx.at("agg0->core1");
    const double even = (slow + other) / 2;
    CHECK(b["avoided_bytes"].get<double>() == Approx(even - slow).epsilon(0.05));
    CHECK(b["siblings_extra_bytes"].get<double>() == Approx(other - even).epsilon(0.05));
    CHECK(b["avoided_bytes"].get<double>() > 0.2 * even); // a real shift, not noise

    // Against the no-fault re-run: what the slow link lost, its sibling gained (the traffic
    // agg0 sends up is the workload's, whatever the fault), within 5 %.
    const auto& h = b["healthy"];
    REQUIRE(h.is_object());
    CHECK(h["siblings_gained_bytes"].get<double>() ==
          Approx(h["suspect_lost_bytes"].get<double>()).epsilon(0.05));
    const auto txHealthy = TxBytes(derived / "no-fault");
    CHECK(h["carried_bytes"].get<double>() ==
          Approx(txHealthy.at("agg0->core0")).epsilon(0.05));

    // Queueing on the paths that avoid it: RTT never below the idle fabric's base RTT.
    const auto& q = w["queueing"];
    REQUIRE(q.contains("paths"));
    CHECK(q["paths"].get<int>() > 0);
    CHECK(q["queue_median_us"].get<double>() >= -0.05);
    CHECK(q["healthy"]["queue_median_us"].get<double>() >= -0.05);
    CHECK(q["queue_p99_us"].get<double>() >= q["queue_median_us"].get<double>());

    // The derived runs: the no-fault run is no slower than the run, and taking agg0's other core
    // uplink down as well (all of agg0's upward traffic on the slow cable) is slower than both.
    const auto& runs = w["runs"];
    REQUIRE(runs.size() == 3);
    CHECK(runs[2]["name"] == "as found + agg0-core1 down");
    for (const auto& run : runs)
    {
        CHECK(run["finished"].get<bool>());
    }
    const double asRun = runs[0]["fct_max_us"], healthy = runs[1]["fct_max_us"],
                 worse = runs[2]["fct_max_us"];
    CHECK(healthy <= asRun);
    CHECK(worse > asRun);
    // The derived run degraded the cable to the estimated rate: 100 Gb/s x rate_factor.
    const auto m = nlohmann::json::parse(Slurp(runs[2]["dir"].get<std::string>() + "/manifest.json"));
    const auto& failures = m["scenario"]["failures"];
    REQUIRE(failures.size() == 2);
    CHECK(failures[0]["kind"] == "degrade");
    CHECK(failures[0]["rate_gbps"].get<double>() ==
          Approx(100 * w["rate_factor"].get<double>()).epsilon(0.01));
    CHECK(failures[1]["kind"] == "link_down");
    fs::remove_all(dir);
    fs::remove_all(derived);
}

TEST_CASE("tusk locate --what-if: a suspect named for its losses is costed losing them",
          "[regression][locate]")
{
    // A k = 4 fat tree under host REPS with per-path telemetry, agg0-core0 losing 2 % of its
    // frames in both directions (a "loss" failure). paths.csv names a direction of that cable
    // for losses alone (rate 1): the derived "as found" run must lose the estimated fraction on
    // it, not carry it as a healthy cable (before, it did: only a rate below 1 was applied).
    const fs::path dir = Scratch("locate-whatif-loss");
    const auto spec = tusk::LoadScenarioString(R"(name = "whatif-loss"
seed = 1
stop_time_ms = 200
[topology]
kind = "fat-tree"
k = 4
host_link_gbps = 100
fabric_link_gbps = 100
[nic]
receiver = "selective-repeat"
mtu_bytes = 4096
rto_us = 500
[lb]
policy = "host-reps"
[output]
path_telemetry = true
[workload]
kind = "permutation"
bytes = 4000000
[[failures]]
at_us = 0
kind = "loss"
link = "agg0-core0"
loss_rate = 0.02
)",
                                               "whatif-loss.toml", {});
    const auto r = Run(spec);
    REQUIRE(r.finished);
    tusk::WriteRunFiles(r, dir.string());
    const fs::path derived = dir.string() + ".what-if";
    fs::remove_all(derived);

    const auto doc = LocateJson(dir, "auto", true);
    CAPTURE(doc["what_if"].dump(1).substr(0, 3000));
    REQUIRE(doc["evidence"] == "paths");
    const auto& w = doc["what_if"];
    REQUIRE(w.is_object());
    const std::string cable = w["link"]["from"].get<std::string>() + "-" +
                              w["link"]["to"].get<std::string>();
    CHECK((cable == "agg0-core0" || cable == "core0-agg0"));
    CHECK(w["rate_factor"].get<double>() == 1.0); // named for losses alone
    // The estimate: within a factor 2 of the planted 2 % (tens of lost frames).
    CHECK(w["loss_rate"].get<double>() > 0.01);
    CHECK(w["loss_rate"].get<double>() < 0.04);

    const auto& runs = w["runs"];
    REQUIRE(runs.size() == 3);
    const std::string plus = runs[2]["dir"].get<std::string>();
    const auto m = nlohmann::json::parse(Slurp(plus + "/manifest.json"));
    const auto& failures = m["scenario"]["failures"];
    REQUIRE(failures.size() == 2);
    CHECK(failures[0]["kind"] == "loss");
    CHECK(failures[0]["link"] == cable);
    CHECK(failures[0]["loss_rate"].get<double>() == Approx(w["loss_rate"].get<double>()));
    CHECK(failures[1]["kind"] == "link_down");
    // The derived run did lose frames at the FCS check on that cable; the no-fault run did not.
    CHECK(m["summary"]["drops_by_reason"]["fcs"].get<uint64_t>() > 0);
    const auto healthy = nlohmann::json::parse(Slurp(runs[1]["dir"].get<std::string>() + "/manifest.json"));
    CHECK(healthy["summary"]["drops_by_reason"]["fcs"].get<uint64_t>() == 0);
    fs::remove_all(dir);
    fs::remove_all(derived);
}

} // namespace TUSK_TEST_FILE
