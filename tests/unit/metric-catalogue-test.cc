// The metric catalogue (tusk/results/metric-catalogue.h): one row per summary metric drives the
// comparison table and comparison.csv, `tusk regress`'s metrics and directions, and the
// columns a sweep axis cannot take.

#include "results/comparison-table.h"
#include "results/metric-catalogue.h"
#include "sweep/regress.h"
#include "scratch-dir.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk;

namespace
{

/** Whether the positions a view gives its rows are 1..n, each once. */
bool
IsPermutation(std::vector<int> positions)
{
    std::sort(positions.begin(), positions.end());
    for (size_t i = 0; i < positions.size(); ++i)
    {
        if (positions[i] != static_cast<int>(i) + 1)
        {
            return false;
        }
    }
    return true;
}

} // namespace

TEST_CASE("catalogue: names are unique and each view's positions are 1..n", "[unit][metrics]")
{
    std::set<std::string> names;
    std::vector<int> csv;
    std::vector<int> table;
    for (const auto& m : MetricCatalogue())
    {
        INFO(m.name);
        CHECK(names.insert(m.name).second);
        CHECK(std::string(m.unit).size() > 0);
        CHECK(std::string(m.meaning).size() > 0);
        if (m.csvColumn > 0)
        {
            csv.push_back(m.csvColumn);
        }
        if (m.table.header != nullptr)
        {
            table.push_back(m.table.position);
            CHECK(m.table.width >= static_cast<int>(std::string(m.table.header).size()));
        }
    }
    CHECK(IsPermutation(csv));
    CHECK(IsPermutation(table));
    CHECK(FindMetric("fct_p99_us") != nullptr);
    CHECK(FindMetric("fct_p99") == nullptr);
}

TEST_CASE("catalogue: each metric reads its own RunSummary field", "[unit][metrics]")
{
    // Every field set to a different value: two rows reading one field would show up as equal
    // values (the catalogue's rows are lambdas over RunSummary's members).
    RunSummary s;
    double x = 1;
    for (double* d : {&s.cctUs, &s.algbwGBps, &s.busbwGBps, &s.lowerBoundUs, &s.meanSlowdown,
                      &s.p50Slowdown, &s.p99Slowdown, &s.p999Slowdown, &s.maxSlowdown, &s.maxFctUs,
                      &s.p99FctUs, &s.uplinkMaxUtil, &s.uplinkMeanUtil, &s.uplinkJain,
                      &s.pausedFraction, &s.creditStallFraction, &s.reorderMean, &s.uplinkImbalance,
                      &s.meanFairSlowdown, &s.p99FairSlowdown})
    {
        *d = x++ + 0.5;
    }
    uint64_t n = 100;
    for (uint64_t* c : {&s.drops, &s.pfcPauses, &s.ecnMarks, &s.cnps, &s.trimmedFrames,
                        &s.retxPackets, &s.oooPackets, &s.retxBytes, &s.retxTimeoutPackets,
                        &s.naks, &s.spuriousRetx, &s.reorderMax})
    {
        *c = n++;
    }
    s.pfcMaxDepth = static_cast<uint32_t>(n++);
    s.unfinished = n++;
    std::set<double> seen;
    for (const auto& m : MetricCatalogue())
    {
        INFO(m.name);
        const MetricValue v = m.value(s);
        CHECK(seen.insert(v.isCount ? static_cast<double>(v.count) : v.real).second);
    }
    CHECK(FindMetric("slowdown_p99")->value(s).real == s.p99Slowdown);
    CHECK(FindMetric("unfinished")->value(s).count == s.unfinished);
}

TEST_CASE("catalogue: comparison.csv's columns follow the catalogue's csv positions", "[unit][metrics]")
{
    RunResult r;
    r.summary.policy = "ecmp";
    r.summary.cctUs = std::nan("");
    r.summary.retxPackets = 7;
    const std::string csv = ComparisonCsv({r});
    std::string header = csv.substr(0, csv.find('\n'));
    std::string expected = "policy,seed,status";
    for (const MetricInfo* m : MetricsInCsvOrder())
    {
        expected += std::string(",") + m->name;
    }
    CHECK(header == expected + ",transport,receiver,congestion_control,ecn,pfc");
    // A NaN real is an empty cell; a count is an integer.
    const std::string row = csv.substr(csv.find('\n') + 1);
    CHECK(row.rfind("ecmp,1,ok,,", 0) == 0);
}

TEST_CASE("catalogue: the printed table's headers are the catalogue's", "[unit][metrics]")
{
    RunResult r;
    r.summary.policy = "ecmp";
    std::ostringstream os;
    PrintComparisonTable({r}, os);
    const std::string header = os.str().substr(0, os.str().find('\n'));
    std::string expected = "policy     ";
    for (const MetricInfo* m : MetricsInTableOrder())
    {
        if (!m->table.onlyWithCollectives) // no run here has a collective
        {
            expected += " " + std::string(m->table.width - std::string(m->table.header).size(), ' ') +
                        m->table.header;
        }
    }
    CHECK(header == expected);
}

TEST_CASE("regress: every catalogue metric can be checked, with the catalogue's direction",
          "[unit][metrics][regress]")
{
    // slowdown_p999, lower_bound_us, unfinished and credit_stall_fraction are in the manifest's
    // summary; the regression suites' own list of metrics used to leave them out.
    const std::string suite = R"(policies = ["ecmp"]
[[scenario]]
name = "a"
file = "base.toml"
metrics = ["slowdown_p999", "unfinished"]
[baseline.a]
ecmp.slowdown_p999 = { value = 1.5, rel = 0.1, source = "theory" }
ecmp.unfinished = { value = 0, abs = 0, source = "theory" }
ecmp.uplink_jain = { value = 0.9, abs = 0.05, source = "theory" }
ecmp.lower_bound_us = { value = 10, rel = 0.01, source = "theory" }
)";
    const tusk_test::ScratchDir dir("metric-catalogue");
    dir.Write("base.toml", "name = \"base\"\n");
    const RegressSuite s = ReadSuiteString(suite, dir.Path("suite.toml"));
    REQUIRE(s.baselines.size() == 4);
    std::map<std::string, std::string> better;
    for (const auto& b : s.baselines)
    {
        better[b.metric] = b.better;
    }
    CHECK(better == std::map<std::string, std::string>{{"slowdown_p999", "lower"},
                                                       {"unfinished", "lower"},
                                                       {"uplink_jain", "higher"},
                                                       {"lower_bound_us", "none"}});
}

TEST_CASE("catalogue: docs/results-format.md lists every metric with its unit and direction",
          "[unit][metrics][docs]")
{
    std::ifstream in(std::string(TUSK_SOURCE_DIR) + "/docs/results-format.md");
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    for (const auto& m : MetricCatalogue())
    {
        INFO(m.name);
        const std::string row = std::string("| `") + m.name + "` | " + m.unit + " | " +
                                BetterName(m.better) + " | " + m.meaning + " |";
        CHECK(text.str().find(row) != std::string::npos);
    }
}

} // namespace TUSK_TEST_FILE
