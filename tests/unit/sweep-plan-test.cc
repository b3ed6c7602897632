/*
 * Unit tests of sweep files and regression suites (no Simulator): expansion of axes into runs,
 * the `--set` arguments they become (arrays of tables included), content hashes of resolved
 * scenarios, errors that name file, line and key, baseline verdicts, and the rewriting of
 * measured baselines (docs/sweeps.md).
 */
#include "fabric/model/input-error.h"
#include "input-error-helpers.h"
#include "scratch-dir.h"
#include "sweep/regress.h"
#include "run/runner.h"
#include "scenario/scenario-toml.h"
#include "scenario/scenario-inputs.h"
#include "sweep/sweep-plan.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

namespace
{

namespace fs = std::filesystem;

/** A scratch directory holding a base scenario with two [[background]] entries. */
struct Dir : tusk_test::ScratchDir
{
    const fs::path& path = Root();

    explicit Dir(const std::string& name)
        : ScratchDir("sweep-unit-" + name)
    {
        Write("cdf.txt", "1000 0\n10000 100\n");
        Write("base.toml", R"(name = "base"
seed = 1
[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 2
[workload]
kind = "permutation"
bytes = "100KB"
[[background]]
cdf_file = "cdf.txt"
load = 0.2
duration_us = 100
[[background]]
cdf_file = "cdf.txt"
load = 0.1
duration_us = 100
hosts = [0, 1]
)");
    }
};

using tusk_test::ExpectInputError;

tusk::ScenarioSpec
Resolve(const tusk::SweepRun& run)
{
    const auto old = fs::current_path();
    fs::current_path(fs::path(run.scenario).parent_path());
    auto spec = tusk::LoadScenarioFile(run.scenario, run.sets);
    fs::current_path(old);
    return spec;
}

} // namespace

TEST_CASE("sweep: a product of axes gives every combination, ids from the labels", "[unit][sweep]")
{
    Dir d("product");
    const auto file = d.Write("s.toml", R"(name = "s"
scenario = "base.toml"
[[axis]]
key = "lb.policy"
values = ["ecmp", "spray"]
[[axis]]
name = "size"
key = "workload.bytes"
values = ["100KB", "1MB", "2MB"]
labels = ["small", "mid", "large"]
)");
    const auto spec = tusk::ReadSweepFile(file);
    REQUIRE(spec.axes.size() == 2);
    CHECK(spec.axes[0].name == "policy"); // default: the key's last segment
    const auto plan = tusk::ExpandSweep(spec, (d.path / "out").string());
    REQUIRE(plan.runs.size() == 6);
    CHECK(plan.runs[0].id == "policy=ecmp,size=small");
    CHECK(plan.runs[5].id == "policy=spray,size=large");
    CHECK(plan.valueColumns == std::vector<std::string>{"workload.bytes"}); // labelled axis
    const auto s = Resolve(plan.runs[4]);
    CHECK(s.lb.policy == "spray");
    CHECK(plan.runs[4].policy == "spray");
    CHECK(plan.runs[4].values[0].second == "1MB");
    // Every run resolves to a different scenario: six different hashes.
    std::set<std::string> hashes;
    for (const auto& r : plan.runs)
    {
        hashes.insert(r.hash);
        CHECK(r.hash.size() == 64);
    }
    CHECK(hashes.size() == 6);
    CHECK(plan.duplicates.empty());
}

TEST_CASE("sweep: zipped axes and multi-key axes pair values up", "[unit][sweep]")
{
    Dir d("zip");
    const auto file = d.Write("s.toml", R"(scenario = "base.toml"
combine = "zip"
[[axis]]
name = "rate"
keys = ["topology.host_link_gbps", "topology.fabric_link_gbps"]
values = [[100, 100], [400, 200]]
[[axis]]
key = "seed"
values = [3, 4]
)");
    const auto plan = tusk::ExpandSweep(tusk::ReadSweepFile(file), "out");
    REQUIRE(plan.runs.size() == 2);
    CHECK(plan.runs[1].id == "rate=400-200,seed=4");
    CHECK(plan.valueColumns ==
          std::vector<std::string>{"topology.host_link_gbps", "topology.fabric_link_gbps"});
    CHECK(plan.runs[1].seed == 4);
    const auto s = Resolve(plan.runs[1]);
    CHECK(s.topology.leafSpine.hostRateBps == 400'000'000'000ULL);
    CHECK(s.topology.leafSpine.fabricRateBps == 200'000'000'000ULL);
}

TEST_CASE("sweep: a key through an array of tables sets every entry, or entry N", "[unit][sweep]")
{
    Dir d("array");
    const auto file = d.Write("s.toml", R"(scenario = "base.toml"
[[axis]]
key = "background.load"
values = [0.5]
[[axis]]
name = "second"
key = "background.1.duration_us"
values = [250]
)");
    const auto plan = tusk::ExpandSweep(tusk::ReadSweepFile(file), "out");
    REQUIRE(plan.runs.size() == 1);
    // Both edits of the array become one --set of the whole array.
    REQUIRE(plan.runs[0].sets.size() == 1);
    CHECK(plan.runs[0].sets[0].rfind("background=[", 0) == 0);
    const auto s = Resolve(plan.runs[0]);
    REQUIRE(s.background.size() == 2);
    CHECK(s.background[0].load == 0.5);
    CHECK(s.background[1].load == 0.5);
    CHECK(s.background[0].durationPs == 100'000'000);
    CHECK(s.background[1].durationPs == 250'000'000);
    CHECK(s.background[1].hosts == std::vector<uint32_t>{0, 1}); // the rest of the entry kept
    // The relative cdf_file resolves against the base scenario's directory, as in the file.
    CHECK(s.background[0].cdfFile == (d.path / "cdf.txt").string());
}

TEST_CASE("sweep: the hash is that of the resolved scenario, however it is given", "[unit][sweep]")
{
    Dir d("hash");
    // seed 1 is the base's own seed: the run resolves to the base scenario itself, as its
    // manifest will echo it (derived values explicit).
    const auto a = d.Write("a.toml", "scenario = \"base.toml\"\n[[axis]]\nkey = \"seed\"\nvalues = [1, 2]\n");
    const auto plan = tusk::ExpandSweep(tusk::ReadSweepFile(a), "out");
    const auto base = tusk::LoadScenarioFile((d.path / "base.toml").string());
    const auto resolved = tusk::ResolveScenario(base);
    const auto inputs = tusk::InputsJson(resolved);
    CHECK(plan.runs[0].hash == tusk::RunHash(tusk::ScenarioToJson(resolved), inputs));
    // The base reads a flow-size CDF (twice): the hash covers its bytes too. Without files it
    // is the scenario's alone, so results written before manifests had `inputs` still match.
    REQUIRE(inputs.size() == 2);
    CHECK(inputs[0]["key"] == "background[0].cdf_file");
    CHECK(inputs[1]["key"] == "background[1].cdf_file");
    CHECK(inputs[1]["sha256"] == tusk::Sha256Hex("1000 0\n10000 100\n"));
    CHECK(plan.runs[0].hash != tusk::Sha256Hex(tusk::ScenarioToJson(resolved).dump()));
    CHECK(tusk::RunHash(tusk::ScenarioToJson(resolved), nlohmann::json::array()) ==
          tusk::Sha256Hex(tusk::ScenarioToJson(resolved).dump()));
    CHECK(plan.runs[1].hash != plan.runs[0].hash);
    // A [set] that restates a default changes nothing: same hash, reported as a duplicate.
    const auto b = d.Write("b.toml", "scenario = \"base.toml\"\n[[axis]]\nkey = \"nic.mtu_bytes\"\n"
                                     "values = [4096, 1024, \"4KiB\"]\nlabels = [\"a\", \"b\", \"c\"]\n");
    const auto p2 = tusk::ExpandSweep(tusk::ReadSweepFile(b), "out");
    CHECK(p2.runs[0].hash == plan.runs[0].hash);
    CHECK(p2.runs[1].hash != plan.runs[0].hash);
    CHECK(p2.runs[2].hash == plan.runs[0].hash); // "4KiB" is 4096 bytes
    REQUIRE(p2.duplicates.size() == 1);
    CHECK(p2.duplicates[0] == std::make_pair(std::string("mtu_bytes=c"), std::string("mtu_bytes=a")));
    // SHA-256 itself: the FIPS 180-2 example "abc".
    CHECK(tusk::Sha256Hex("abc") ==
          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("sweep: values are passed as TOML text that reads back exactly", "[unit][sweep]")
{
    auto text = [](const std::string& v) {
        auto t = toml::parse("v = " + v);
        return tusk::TomlValueText(*t.get("v"));
    };
    CHECK(text("0.1") == "0.1");
    CHECK(text("2.0") == "2.0");
    CHECK(text("1e-7") == "1e-07");
    CHECK(text("42") == "42");
    CHECK(text("\"a \\\"b\\\"\"") == "\"a \\\"b\\\"\"");
    CHECK(text("[1, 2.5]") == "[1, 2.5]");
    CHECK(text("{ b = 1, a = \"x\" }") == "{ a = \"x\", b = 1 }");
    CHECK(tusk::SplitKeyPath("ns3.\"ns3::X::Y\"") == std::vector<std::string>{"ns3", "ns3::X::Y"});
    CHECK(tusk::SplitKeyPath("a..b").empty());
    // failures[1] (as --set and the loader's errors write it) is failures.1
    CHECK(tusk::SplitKeyPath("failures[1].at_us") ==
          std::vector<std::string>{"failures", "1", "at_us"});
    CHECK(tusk::SplitKeyPath("failures[x].at_us").empty());
    CHECK(tusk::SplitKeyPath("[1].at_us").empty());
}

TEST_CASE("sweep: errors name the sweep file, line and key", "[unit][sweep]")
{
    Dir d("errors");
    auto error = [&](const std::string& text) {
        const auto f = d.Write("bad.toml", text);
        return ExpectInputError([&] { tusk::ExpandSweep(tusk::ReadSweepFile(f), "out"); });
    };
    auto e = error("scenario = \"base.toml\"\n[[axis]]\nkey = \"lb.policy\"\nvalues = [\"ecmp\", \"nope\"]\n");
    CHECK(e.Line() == 4);
    CHECK(e.Key() == "lb.policy");
    CHECK_THAT(e.Message(), Catch::Contains("unknown policy \"nope\""));
    e = error("scenario = \"base.toml\"\n[[axis]]\nkey = \"topology.spines\"\nvalues = [\n  2,\n  0,\n]\n");
    CHECK(e.Line() == 6); // the line of the bad value, not of the axis
    CHECK(e.Key() == "topology.spines");
    e = error("scenario = \"base.toml\"\nbogus = 1\n");
    CHECK(e.Line() == 2);
    CHECK(e.Key() == "bogus");
    e = error("scenario = \"nothere.toml\"\n");
    CHECK(e.Line() == 1);
    CHECK_THAT(e.Message(), Catch::Contains("no such scenario file"));
    e = error("scenario = \"base.toml\"\n[[axis]]\nkey = \"seed\"\nvalues = [1, 1]\n");
    CHECK_THAT(e.Message(), Catch::Contains("appears twice"));
    e = error("scenario = \"base.toml\"\ncombine = \"zip\"\n[[axis]]\nkey = \"seed\"\nvalues = [1]\n"
              "[[axis]]\nkey = \"lb.policy\"\nvalues = [\"ecmp\", \"spray\"]\n");
    CHECK(e.Line() == 6);
    CHECK_THAT(e.Message(), Catch::Contains("equal length"));
    e = error("scenario = \"base.toml\"\n[[axis]]\nkey = \"background.5.load\"\nvalues = [0.1]\n");
    CHECK(e.Line() == 4);
    CHECK_THAT(e.Message(), Catch::Contains("index 5 is out of range"));
    // The loader names background[1].load; the error points at the axis value all the same.
    e = error("scenario = \"base.toml\"\n[[axis]]\nkey = \"background.load\"\nvalues = [0.5,\n 1.5]\n");
    CHECK(e.Line() == 5);
    CHECK(e.Key() == "background.load");
    CHECK_THAT(e.Message(), Catch::Contains("background[0].load"));
    e = error("scenario = \"base.toml\"\n[[axis]]\nname = \"cct_us\"\nkey = \"seed\"\nvalues = [1]\n");
    CHECK_THAT(e.Message(), Catch::Contains("column of sweep.csv"));
    e = error("scenario = \"base.toml\"\n[slurm]\nchunk = 0\n");
    CHECK(e.Key() == "slurm.chunk");
    // A command-line --set that the loader refuses names "--set".
    const auto ok = d.Write("ok.toml", "scenario = \"base.toml\"\n");
    auto spec = tusk::ReadSweepFile(ok);
    spec.sets.push_back(tusk::CommandLineEdit("nic.mtu_bytes=10"));
    e = ExpectInputError([&] { tusk::ExpandSweep(spec, "out"); });
    CHECK(e.File() == "--set");
}

namespace
{

/** A suite with one scenario and four baselines, and index rows made by hand. */
struct SuiteFixture
{
    Dir dir{"suite"};
    std::string file;
    tusk::RegressSuite suite;
    tusk::SweepPlan plan;
    std::vector<tusk::IndexedRun> runs;

    SuiteFixture()
    {
        file = dir.Write("suite.toml", R"(# comment kept
name = "t"
policies = ["ecmp", "spray"]
seeds = [1, 2]
[bands]
fct_p99_us = { rel = 0.10 }

[[scenario]]
name = "perm"
file = "base.toml"
metrics = ["fct_p99_us", "retx_packets"]

[baseline.perm]
ecmp.fct_p99_us = { value = 100.0, source = "measured: 2020-01-01, abc" }  # note
ecmp.retx_packets = { value = 0, abs = 0, source = "theory: one path, lossless" }
spray.fct_p99_us = { value = 50, rel = 0.05, source = "paper: X et al. 2020, fig. 3" }
spray.retx_packets = { value = 10, abs = 2, source = "measured: 2020-01-01, abc" }
)");
        suite = tusk::ReadSuite(file);
        plan = tusk::SuitePlan(suite, (dir.path / "out").string());
    }

    /** Index rows: fct and retx per (policy, seed). */
    void Set(double ecmpFct1, double ecmpFct2, double ecmpRetx, double sprayFct, double sprayRetx)
    {
        runs.clear();
        for (const auto& r : plan.runs)
        {
            tusk::IndexedRun x;
            x.run = &r;
            x.status = "ok";
            x.exitStatus = 0;
            const bool ecmp = r.policy == "ecmp";
            x.summary = {{"fct_p99_us", ecmp ? (r.seed == 1 ? ecmpFct1 : ecmpFct2) : sprayFct},
                         {"retx_packets", ecmp ? ecmpRetx : sprayRetx}};
            runs.push_back(x);
        }
    }

    std::string Verdict(const std::vector<tusk::Check>& checks, const std::string& policy,
                        const std::string& metric)
    {
        for (const auto& c : checks)
        {
            if (c.policy == policy && c.metric == metric)
            {
                return c.verdict;
            }
        }
        return "?";
    }
};

} // namespace

TEST_CASE("regress: verdicts against value and band, mean over seeds", "[unit][regress]")
{
    SuiteFixture f;
    REQUIRE(f.plan.runs.size() == 4); // 2 policies x 2 seeds
    CHECK(f.plan.runs[0].id == "scenario=perm,policy=ecmp,seed=1");
    REQUIRE(f.suite.baselines.size() == 4);
    CHECK(f.suite.baselines[0].band.rel == 0.10); // the [bands] default

    f.Set(105, 113, 0, 51, 11); // ecmp mean 109 (<= 110), spray 51 (<= 52.5), retx 11 (<= 12)
    auto checks = tusk::Evaluate(f.suite, f.runs);
    CHECK(f.Verdict(checks, "ecmp", "fct_p99_us") == "pass");
    CHECK(f.Verdict(checks, "ecmp", "retx_packets") == "pass");
    CHECK(f.Verdict(checks, "spray", "fct_p99_us") == "pass");
    CHECK(f.Verdict(checks, "spray", "retx_packets") == "pass");

    f.Set(105, 117, 1, 40, 7); // ecmp mean 111 > 110; one retransmission against theory's 0
    checks = tusk::Evaluate(f.suite, f.runs);
    CHECK(f.Verdict(checks, "ecmp", "fct_p99_us") == "REGRESSED");
    CHECK(f.Verdict(checks, "ecmp", "retx_packets") == "REGRESSED");
    CHECK(f.Verdict(checks, "spray", "fct_p99_us") == "improved"); // lower is better
    CHECK(f.Verdict(checks, "spray", "retx_packets") == "improved");
    CHECK(std::count_if(checks.begin(), checks.end(), [](const auto& c) { return c.Failing(); }) == 2);

    // A run without results: its metrics are missing and the run check fails.
    f.Set(100, 100, 0, 50, 10);
    f.runs[1].status = "error";
    f.runs[1].summary = nullptr;
    checks = tusk::Evaluate(f.suite, f.runs);
    CHECK(f.Verdict(checks, "ecmp", "fct_p99_us") == "MISSING");
    CHECK(f.Verdict(checks, "ecmp", "") == "FAILED");
}

TEST_CASE("regress: --update-baselines rewrites measured entries only, in place", "[unit][regress]")
{
    SuiteFixture f;
    f.Set(120, 120, 3, 70, 30);
    const auto checks = tusk::Evaluate(f.suite, f.runs);
    std::string diff;
    const std::string text = tusk::UpdatedSuiteText(f.suite, checks, "2030-02-03", "def", diff);
    // Measured: new value and source, the rest of the line (comment) kept.
    CHECK_THAT(text, Catch::Contains(
        "ecmp.fct_p99_us = { value = 120.0, source = \"measured: 2030-02-03, def\" }  # note"));
    CHECK_THAT(text, Catch::Contains(
        "spray.retx_packets = { value = 30, abs = 2, source = \"measured: 2030-02-03, def\" }"));
    // Theory and paper entries untouched although they now fail.
    CHECK_THAT(text, Catch::Contains(
        "ecmp.retx_packets = { value = 0, abs = 0, source = \"theory: one path, lossless\" }"));
    CHECK_THAT(text, Catch::Contains(
        "spray.fct_p99_us = { value = 50, rel = 0.05, source = \"paper: X et al. 2020, fig. 3\" }"));
    CHECK_THAT(text, Catch::StartsWith("# comment kept\n"));
    CHECK_THAT(diff, Catch::Contains("- ecmp.fct_p99_us = { value = 100.0"));
    CHECK_THAT(diff, Catch::Contains("+ ecmp.fct_p99_us = { value = 120.0"));
    CHECK_THAT(diff, !Catch::Contains("theory"));
    // The rewritten suite reads back with the new values.
    const auto again = f.dir.Write("suite2.toml", text);
    const auto s2 = tusk::ReadSuite(again);
    CHECK(s2.baselines[0].value == 120.0);
    CHECK(s2.baselines[3].value == 30.0);
}

TEST_CASE("regress: a missing baseline fails and --update-baselines adds it", "[unit][regress]")
{
    Dir d("missing");
    const auto file = d.Write("suite.toml", R"(policies = ["ecmp"]
[bands]
cct_us = { rel = 0.05 }
[[scenario]]
name = "a"
file = "base.toml"
metrics = ["fct_p99_us"]
)");
    auto suite = tusk::ReadSuite(file);
    auto plan = tusk::SuitePlan(suite, "out");
    tusk::IndexedRun r;
    r.run = &plan.runs[0];
    r.status = "ok";
    r.summary = {{"fct_p99_us", 12.5}};
    const auto checks = tusk::Evaluate(suite, {r});
    REQUIRE(checks.size() == 2);
    CHECK(checks[1].verdict == "NO BASELINE");
    CHECK(checks[1].Failing());
    std::string diff;
    const std::string text = tusk::UpdatedSuiteText(suite, checks, "2030-01-01", "r1", diff);
    CHECK_THAT(text, Catch::EndsWith(
        "[baseline.a]\necmp.fct_p99_us = { value = 12.5, source = \"measured: 2030-01-01, r1\" }\n"));
    // A suite file with that entry but no band for fct_p99_us is refused.
    const auto again = d.Write("suite2.toml", text);
    const auto e = ExpectInputError([&] { tusk::ReadSuite(again); });
    CHECK(e.Line() == 10);
    CHECK_THAT(e.Message(), Catch::Contains("no band"));
}

TEST_CASE("regress: the `set` line of docs/sweeps.md's suite example resolves, a quoted dotted "
          "key being a key path",
          "[unit][regress]")
{
    // The line as the documentation shows it (docs/sweeps.md, "Regression suites").
    std::ifstream doc(std::string(TUSK_SOURCE_DIR) + "/docs/sweeps.md");
    std::string setLine;
    for (std::string l; std::getline(doc, l);)
    {
        if (l.rfind("set = {", 0) == 0)
        {
            setLine = l.substr(0, l.find('#'));
        }
    }
    REQUIRE_THAT(setLine, Catch::Contains("nic.receiver"));
    Dir d("doc-set");
    const auto file = d.Write("suite.toml", "policies = [\"ecmp\"]\n[[scenario]]\nname = \"a\"\n"
                                            "file = \"base.toml\"\nmetrics = [\"fct_p99_us\"]\n" +
                                                setLine + "\n");
    const auto plan = tusk::SuitePlan(tusk::ReadSuite(file), "out"); // every run resolved
    REQUIRE(plan.runs.size() == 1);
    const auto& sets = plan.runs[0].sets;
    CHECK(std::find(sets.begin(), sets.end(), "nic.receiver=\"go-back-n\"") != sets.end());
    // Unquoted (a TOML dotted key) it is the same edit.
    const auto dotted = d.Write("suite2.toml", "policies = [\"ecmp\"]\n[[scenario]]\nname = \"a\"\n"
                                               "file = \"base.toml\"\nmetrics = [\"fct_p99_us\"]\n"
                                               "set = { nic.receiver = \"go-back-n\" }\n");
    CHECK(tusk::SuitePlan(tusk::ReadSuite(dotted), "out").runs[0].sets == plan.runs[0].sets);
}

TEST_CASE("regress: seeds = N runs seeds 1..N, per scenario", "[unit][regress]")
{
    Dir d("seeds");
    const auto file = d.Write("suite.toml", R"(policies = ["ecmp", "drill"]
seeds = 3
[[scenario]]
name = "a"
file = "base.toml"
metrics = ["fct_p99_us"]
[[scenario]]
name = "b"
file = "base.toml"
seeds = [7]
policies = ["spray"]
metrics = ["fct_p99_us"]
)");
    const auto plan = tusk::SuitePlan(tusk::ReadSuite(file), "out");
    REQUIRE(plan.runs.size() == 7); // 2 policies x 3 seeds + 1 x 1
    CHECK(plan.runs[2].id == "scenario=a,policy=ecmp,seed=3");
    CHECK(plan.runs[2].seed == 3);
    CHECK(plan.runs[6].id == "scenario=b,policy=spray,seed=7");
    CHECK(plan.runs[6].policy == "spray");
}

TEST_CASE("regress: suite errors name the suite file, line and key", "[unit][regress]")
{
    Dir d("suite-errors");
    auto error = [&](const std::string& text) {
        const auto f = d.Write("bad.toml", text);
        return ExpectInputError([&] { tusk::ReadSuite(f); });
    };
    const std::string head = "policies = [\"ecmp\"]\n[[scenario]]\nname = \"a\"\nfile = \"base.toml\"\n"
                             "metrics = [\"fct_p99_us\"]\n";
    auto e = error(head + "[baseline.a]\necmp.fct_p99_us = { value = 1, rel = 0.1, source = \"guess\" }\n");
    CHECK(e.Line() == 7);
    CHECK(e.Key() == "baseline.a.ecmp.fct_p99_us.source");
    e = error(head + "[baseline.a]\nspray.fct_p99_us = { value = 1, rel = 0.1, source = \"theory\" }\n");
    CHECK_THAT(e.Message(), Catch::Contains("does not run policy"));
    e = error(head + "[baseline.b]\necmp.fct_p99_us = { value = 1, rel = 0.1, source = \"theory\" }\n");
    CHECK_THAT(e.Message(), Catch::Contains("no [[scenario]] is named"));
    e = error("policies = [\"nope\"]\n");
    CHECK(e.Line() == 1);
    e = error(head + "[baseline.a]\necmp.fct_p99 = { value = 1, rel = 0.1, source = \"theory\" }\n");
    CHECK_THAT(e.Message(), Catch::Contains("unknown metric"));
}

TEST_CASE("regress: a measured baseline far from the other policies' median is flagged, theory "
          "and two-sided ones are not",
          "[unit][regress]")
{
    Dir d("outliers");
    const std::string suitePath = (d.path / "suite.toml").string();
    const std::string suiteText = R"(policies = ["ecmp", "spray", "conga", "host-reps"]
[bands]
cct_us = { rel = 0.05 }
retx_packets = { rel = 0.1, abs = 50 }
busbw_GBps = { rel = 0.05 }
[[scenario]]
name = "a2a"
file = "base.toml"
metrics = ["cct_us", "retx_packets", "busbw_GBps"]
[baseline.a2a]
ecmp.cct_us = { value = 97.8, source = "measured: 2026-12-01, x" }
spray.cct_us = { value = 88.8, source = "measured: 2026-12-01, x" }
conga.cct_us = { value = 98.8, source = "measured: 2026-12-01, x" }
host-reps.cct_us = { value = 1174.2, source = "measured: 2026-12-01, x" }
ecmp.retx_packets = { value = 0, abs = 0, source = "theory: one path" }
spray.retx_packets = { value = 500, source = "measured: 2026-12-01, x" }
conga.retx_packets = { value = 0, source = "measured: 2026-12-01, x" }
host-reps.retx_packets = { value = 5000, source = "measured: 2026-12-01, x" }
ecmp.busbw_GBps = { value = 10, source = "measured: 2026-12-01, x" }
spray.busbw_GBps = { value = 11, source = "measured: 2026-12-01, x" }
conga.busbw_GBps = { value = 10.5, source = "measured: 2026-12-01, x" }
host-reps.busbw_GBps = { value = 0.5, source = "measured: 2026-12-01, x" }
)";
    auto suite = tusk::ReadSuiteString(suiteText, suitePath);
    CHECK(suite.outlierFactor == tusk::RegressSuite::kDefaultOutlierFactor);
    const auto outliers = tusk::MeasuredOutliers(suite);
    // cct_us: 1174.2 against the median 97.8 of the others, 12x (lower is better);
    // busbw_GBps: 0.5 against 10.5, under a tenth (higher is better). retx_packets: the
    // others' median is 0 (no ratio), so nothing is judged there.
    REQUIRE(outliers.size() == 2);
    CHECK(outliers[0].baseline->metric == "busbw_GBps");
    CHECK(outliers[0].baseline->policy == "host-reps");
    CHECK(outliers[1].baseline->metric == "cct_us");
    CHECK(outliers[1].baseline->policy == "host-reps");
    CHECK(outliers[1].median == Approx(97.8));
    CHECK(outliers[1].ratio == Approx(1174.2 / 97.8));
    const std::string warnings = tusk::OutlierWarnings(outliers);
    CHECK_THAT(warnings, Catch::Contains("warning: a2a host-reps.cct_us: the measured baseline "
                                         "1174.2 is 12x the median of the other policies (97.8)"));
    // A factor of 15 keeps cct_us (12x) inside; the busbw ratio 0.5 / 10.5 is under 1/15 too.
    auto lenient = tusk::ReadSuiteString("outlier_factor = 15\n" + suiteText, suitePath);
    const auto fewer = tusk::MeasuredOutliers(lenient);
    REQUIRE(fewer.size() == 1);
    CHECK(fewer[0].baseline->metric == "busbw_GBps");
    // The table marks the outlier's row in its own column.
    std::vector<tusk::Check> checks(1);
    checks[0].scenario = "a2a";
    checks[0].policy = "host-reps";
    checks[0].metric = "cct_us";
    checks[0].baseline = outliers[1].baseline;
    checks[0].verdict = "pass";
    checks[0].now = 1174.2;
    tusk::MarkOutliers(checks, outliers);
    CHECK(checks[0].outlierRatio == Approx(12.0).epsilon(0.01));
    const std::string table = tusk::CheckTable(checks);
    CHECK_THAT(table, Catch::Contains("outlier"));
    CHECK_THAT(table, Catch::Contains("12x"));
    // A factor of 1 or less is refused, naming the key.
    CHECK_THROWS_WITH(tusk::ReadSuiteString("outlier_factor = 1\n" + suiteText, suitePath),
                      Catch::Contains("outlier_factor"));
}

} // namespace TUSK_TEST_FILE
