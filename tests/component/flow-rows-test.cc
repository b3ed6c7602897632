// [output] flow_rows = "summary" (docs/results-format.md, "Without the per-transfer rows"):
// no flows.csv nor waits.csv, and every other result the same as with "all": the manifest
// (its summary's flow statistics, counts, conservation), collectives.csv, jobs.csv, links.csv,
// in packet and in fast mode, for rows streamed (a standalone ring, a job's iterations, a
// replayed iteration's rows shifted) and kept in memory.

#include "cli-helpers.h"
#include "run-helpers.h"

#include "results/fast-compare.h"
#include "results/results-writer.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <unistd.h>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

/** The manifest without what differs between two runs of one scenario besides flow_rows: the
 *  wall times, the file list and the key itself in the scenario's echo. */
nlohmann::json
ComparableManifest(const std::filesystem::path& dir)
{
    nlohmann::json m = nlohmann::json::parse(std::ifstream(dir / "manifest.json"));
    for (const char* k : {"wall_time_s", "setup_time_s", "run_time_s", "files"})
    {
        m.erase(k);
    }
    if (m["scenario"].contains("output"))
    {
        m["scenario"]["output"].erase("flow_rows");
    }
    return m;
}

/** A one-channel ring all-reduce over the 16 hosts of a 4 x 4 leaf-spine (30 steps, 4 MiB). */
tusk::ScenarioSpec
Ring(const std::string& mode)
{
    tusk::ScenarioSpec s = LeafSpine(4, 4, 4, 100);
    s.workload.kind = "ring-allreduce";
    s.workload.bytes = 4 << 20;
    s.workload.channels = 1;
    s.simulator.mode = mode;
    // 16 transfers a step: a pool of K = 4 steps a window, so that fast mode replays some.
    s.ns3Defaults["ns3::RingStepMemo::SampleTransfers"] = "0";
    return s;
}

/** A ring all-reduce job over the 4 hosts of a 2 x 2 leaf-spine, 30 iterations with 20 us of
 *  compute before each: fast mode replays most exactly (rows shifted from a kept iteration's). */
tusk::ScenarioSpec
Job(const std::string& mode)
{
    tusk::ScenarioSpec s = LeafSpine(2, 2, 2, 100);
    s.workload.kind = "jobs";
    s.simulator.mode = mode;
    tusk::JobEntry j;
    j.name = "ring";
    j.iterations = 30;
    j.computePs = 20'000'000;
    tusk::JobCollectiveEntry c;
    c.kind = "all-reduce";
    c.bytes = 64 * 1024;
    j.collectives.push_back(c);
    s.jobs.push_back(j);
    return s;
}

} // namespace

TEST_CASE("output.flow_rows = summary writes no flows.csv nor waits.csv and the same manifest "
          "and collectives.csv as all: rings and a job in packet and fast mode",
          "[component][flow-rows]")
{
    struct Case
    {
        std::string name;
        tusk::ScenarioSpec spec;
        bool stream;
    };
    const std::vector<Case> cases = {
        {"ring-packet", Ring("packet"), true},
        {"ring-fast", Ring("fast"), true},
        {"ring-packet-in-memory", Ring("packet"), false},
        {"job-fast", Job("fast"), true},
        {"job-packet-in-memory", Job("packet"), false},
    };
    for (const Case& c : cases)
    {
        CAPTURE(c.name);
        const std::filesystem::path base =
            std::filesystem::temp_directory_path() /
            ("tusk-flow-rows-test-" + std::to_string(::getpid()) + "-" + c.name);
        std::filesystem::remove_all(base);
        tusk::RunResult runs[2];
        for (const bool summary : {false, true})
        {
            tusk::ScenarioSpec s = c.spec;
            s.output.flowRows = summary ? "summary" : "all";
            tusk::RunOptions o;
            o.progress = false;
            o.streamRows = c.stream;
            runs[summary] = tusk::RunInto(s, (base / (summary ? "summary" : "all")).string(), o);
            REQUIRE(runs[summary].finished);
            REQUIRE(runs[summary].streamed.active == c.stream);
            REQUIRE(runs[summary].conservation.Holds());
        }
        const std::filesystem::path all = base / "all";
        const std::filesystem::path summary = base / "summary";
        // The rows are there with "all", and only with it.
        CHECK(std::filesystem::file_size(all / "flows.csv") > 1000);
        CHECK(std::filesystem::file_size(all / "waits.csv") > 1000);
        CHECK_FALSE(std::filesystem::exists(summary / "flows.csv"));
        CHECK_FALSE(std::filesystem::exists(summary / "waits.csv"));
        if (c.name.rfind("ring", 0) == 0)
        {
            // The critical flow's paths (the last column) are there: with "summary" only the
            // critical-flow candidates' paths are decoded (WholeRows::Add), and these must be.
            const std::string rows = tusk_test::Slurp(summary / "collectives.csv");
            const std::string row = rows.substr(rows.find('\n') + 1);
            const std::string paths = row.substr(row.rfind(',') + 1);
            CHECK(paths.find(':') != std::string::npos);
        }
        for (const char* f : {"collectives.csv", "jobs.csv", "links.csv", "switches.csv",
                              "pfc_events.csv"})
        {
            CAPTURE(f);
            const std::string a = tusk_test::Slurp(all / f);
            CHECK(!a.empty());
            CHECK(a == tusk_test::Slurp(summary / f));
        }
        // The manifest: every value but the wall times, the file list and the key's echo,
        // its summary's flow statistics (computed from each transfer's row) included.
        const nlohmann::json ma = ComparableManifest(all);
        const nlohmann::json ms = ComparableManifest(summary);
        CHECK(ma["summary"]["slowdown_mean"].is_number());
        CHECK(ma["summary"]["fct_p99_us"].is_number());
        CHECK(ma["summary"].dump() == ms["summary"].dump());
        CHECK(ma.dump() == ms.dump());
        const nlohmann::json files =
            nlohmann::json::parse(std::ifstream(summary / "manifest.json"))["files"];
        CHECK(std::find(files.begin(), files.end(), "flows.csv") == files.end());
        CHECK(std::find(files.begin(), files.end(), "waits.csv") == files.end());
        CHECK(std::find(files.begin(), files.end(), "collectives.csv") != files.end());
        if (c.spec.simulator.mode == "fast")
        {
            CHECK(runs[1].fast.Replayed() + runs[1].fast.ringStepsReplayed > 0);
        }
        std::filesystem::remove_all(base);
    }
}

TEST_CASE("output.flow_rows = summary: validate-fast's metrics are those of the rows kept",
          "[component][flow-rows]")
{
    // validate-fast runs with the rows in memory (its FCT statistics read them), so the key
    // changes only what is written.
    tusk::ScenarioSpec p = Ring("packet");
    tusk::ScenarioSpec f = Ring("fast");
    const tusk::RunResult pa = Run(p);
    const tusk::RunResult fa = Run(f);
    p.output.flowRows = "summary";
    f.output.flowRows = "summary";
    const auto a = tusk::CompareFastMetrics(pa, fa);
    const auto b = tusk::CompareFastMetrics(Run(p), Run(f));
    REQUIRE(a.size() == b.size());
    REQUIRE(!a.empty());
    for (size_t k = 0; k < a.size(); ++k)
    {
        CAPTURE(a[k].metric);
        CHECK(a[k].packet == b[k].packet);
        CHECK(a[k].fast == b[k].fast);
    }
}

} // namespace TUSK_TEST_FILE
