// `tusk locate RESULTS_DIR` as a user meets it, on run directories written from synthetic ground
// truth (tests/support/locate-synthetic.h): the suspect it names, that it reads neither link
// counters nor time series nor the scenario's failures (its answer does not move when they are
// deleted or made to point elsewhere), the table and JSON, and bad input named by file, line and
// column with exit status 2.

#include "cli-helpers.h"
#include "input-error-helpers.h"
#include "locate-synthetic.h"
#include "locate/locate-command.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

namespace fs = std::filesystem;
using namespace tusk::locate;
using namespace tusk_test;

namespace
{

/** `tusk locate ARGS` through the binary: exit status, stdout, stderr. */
struct LocateOutcome
{
    int status;
    std::string out, err;
};

LocateOutcome
Locate(const std::string& args)
{
    // Per process: CTest runs these test cases as parallel processes (one shared file let
    // one test read another's stderr).
    const fs::path err =
        fs::temp_directory_path() / ("tusk-locate-test-stderr-" + std::to_string(::getpid()));
    const auto o = Shell("(" + std::string(TUSK_BINARY_DIR) + "/bin/tusk locate " + args + " 2> " +
                         err.string() + ")");
    LocateOutcome outcome{o.status, o.output, Slurp(err)};
    fs::remove(err); // not left behind in the temporary directory, one per test process
    return outcome;
}

/** A 32-host leaf-spine (8 leaves x 4 spines x 4 hosts), 8 permutation rounds. */
synth::Result
Synthetic(uint64_t seed, uint32_t faults, bool spray = false)
{
    const auto g = synth::LeafSpine(8, 4, 4);
    synth::Config c;
    c.seed = seed;
    c.spray = spray;
    c.faults = synth::RandomFaults(g, faults, 0.25, 0.0, seed, true);
    return synth::Generate(g, c);
}

std::string
FaultName(const synth::Result& r, size_t i = 0)
{
    const auto d = r.config.faults[i].direction;
    return r.graph.names[r.graph.From(d)] + "->" + r.graph.names[r.graph.To(d)];
}


/** Rewrite one flows.csv cell: `column` of data row `row` (0-based). */
void
SetCell(const fs::path& file, size_t row, const std::string& column, const std::string& value)
{
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);)
    {
        lines.push_back(l);
    }
    in.close();
    auto split = [](const std::string& l) {
        std::vector<std::string> f;
        std::stringstream ss(l);
        for (std::string x; std::getline(ss, x, ',');)
        {
            f.push_back(x);
        }
        if (!l.empty() && l.back() == ',')
        {
            f.push_back("");
        }
        return f;
    };
    const auto head = split(lines[0]);
    const size_t c = std::find(head.begin(), head.end(), column) - head.begin();
    REQUIRE(c < head.size());
    auto f = split(lines[row + 1]);
    f[c] = value;
    std::string joined;
    for (size_t i = 0; i < f.size(); ++i)
    {
        joined += (i ? "," : "") + f[i];
    }
    lines[row + 1] = joined;
    std::ofstream out(file);
    for (const auto& l : lines)
    {
        out << l << "\n";
    }
}

/** The InputError message RunCommand throws for `dir`. */
std::string
ErrorOf(const fs::path& dir)
{
    CommandOptions o;
    o.resultsDir = dir.string();
    std::ostringstream out;
    return ExpectInputError([&] { RunCommand(o, out); }).what();
}

} // namespace

TEST_CASE("tusk locate names the slow link and ignores link counters, time series and failures",
          "[component][locate]")
{
    for (uint64_t seed : {1, 2, 3})
    {
        const auto r = Synthetic(seed, 1);
        const fs::path dir = Scratch("locate-counters");
        synth::WriteRun(r, (dir / "run").string());
        const std::string run = (dir / "run").string();
        const LocateOutcome full = Locate(run + " --json");
        REQUIRE(full.status == 0);
        const auto doc = nlohmann::json::parse(full.out);
        REQUIRE(doc["named"].get<int>() >= 1);
        const auto& top = doc["ranking"][0];
        CHECK(top["named"].get<bool>());
        CHECK(top["links"][0]["from"].get<std::string>() + "->" +
                  top["links"][0]["to"].get<std::string>() ==
              FaultName(r));
        CHECK(top["kind"] == "slow");

        // Point every counter, the time series and the failures at another link: same answer.
        auto decoy = r;
        decoy.config.faults[0].direction = (r.config.faults[0].direction + 2) % r.graph.Directions();
        decoy.config.faults[0].lossRate = 0.05;
        synth::WriteRun(decoy, (dir / "decoy").string());
        for (const char* f : {"links.csv", "manifest.json", "timeseries.csv"})
        {
            fs::copy_file(dir / "decoy" / f, dir / "run" / f, fs::copy_options::overwrite_existing);
        }
        CHECK(Locate(run + " --json").out == full.out);

        // Delete them: links.csv keeps only link_id, from, to; no time series, no manifest.
        KeepLinkNames(dir / "run");
        fs::remove(dir / "run" / "timeseries.csv");
        fs::remove(dir / "run" / "manifest.json");
        REQUIRE(Slurp(dir / "run" / "links.csv").rfind("link_id,from,to\n", 0) == 0);
        CHECK(Locate(run + " --json").out == full.out);
        fs::remove_all(dir);
    }
}

TEST_CASE("tusk locate prints a ranked table, honours --top, and says when nothing is wrong",
          "[component][locate]")
{
    const fs::path dir = Scratch("locate-table");
    const auto two = Synthetic(4, 2);
    synth::WriteRun(two, (dir / "two").string());
    const LocateOutcome t = Locate((dir / "two").string());
    REQUIRE(t.status == 0);
    INFO(t.out);
    CHECK(t.out.find("rank  link") != std::string::npos);
    CHECK(t.out.find("   1  ") != std::string::npos);
    CHECK(t.out.find("   2  ") != std::string::npos);
    CHECK(t.out.find(FaultName(two, 0)) != std::string::npos);
    CHECK(t.out.find(FaultName(two, 1)) != std::string::npos);
    // Why completion times: the run has neither ar.csv nor paths.csv.
    const size_t second = t.out.find('\n') + 1;
    CHECK(t.out.find("why this evidence: completion times (flows.csv): ar.csv absent; "
                     "paths.csv absent\n") == second);
    const LocateOutcome js = Locate((dir / "two").string() + " --json");
    REQUIRE(js.status == 0);
    const auto doc = nlohmann::json::parse(js.out);
    CHECK(doc.at("evidence") == "flows");
    CHECK(doc.at("evidence_choice").at("rule") == "flows_no_paths");
    CHECK(doc.at("evidence_choice").at("evidence") == "flows");
    CHECK(doc.at("evidence_choice").at("numbers").at("paths_csv") == false);
    const LocateOutcome one = Locate((dir / "two").string() + " --top 1");
    CHECK(one.out.find("   2  ") == std::string::npos);
    CHECK(one.out.find("(1 more above the threshold: --top)") != std::string::npos);

    synth::WriteRun(Synthetic(5, 0), (dir / "none").string());
    const LocateOutcome none = Locate((dir / "none").string());
    CHECK(none.status == 0);
    CHECK(none.out.find("no suspect: no link reaches confidence 0.50") != std::string::npos);

    // Sprayed traffic (`paths` with packet counts): the group of uplinks that no flow set
    // separates is named, with its members listed.
    synth::WriteRun(Synthetic(6, 1, true), (dir / "spray").string());
    const LocateOutcome spray = Locate((dir / "spray").string());
    CHECK(spray.status == 0);
    CHECK(spray.out.find("(+3 alike)") != std::string::npos);
    CHECK(spray.out.find("links no flow set tells apart") != std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("tusk locate refuses bad input naming file, line and column, exit status 2",
          "[component][locate]")
{
    const fs::path dir = Scratch("locate-bad");
    const auto r = Synthetic(7, 1);
    const fs::path run = dir / "run";
    auto fresh = [&] {
        fs::remove_all(run);
        synth::WriteRun(r, run.string());
    };
    const std::string flows = (run / "flows.csv").string();

    CHECK(ErrorOf(dir / "nope") == (dir / "nope").string() +
                                       ": no such directory (expected a run's results)");
    const LocateOutcome missing = Locate((dir / "nope").string());
    CHECK(missing.status == 2);
    CHECK(missing.out.empty());
    CHECK(missing.err.find("no such directory") != std::string::npos);

    // A flows.csv as tusk writes it today, without paths.
    fresh();
    {
        std::string text = Slurp(flows);
        std::string fixed;
        std::stringstream ss(text);
        for (std::string l; std::getline(ss, l);)
        {
            fixed += l.substr(0, l.rfind(',')) + "\n";
        }
        std::ofstream(flows) << fixed;
    }
    CHECK(ErrorOf(run).rfind(flows + ":1: path: missing column: tusk locate needs each flow's "
                                     "path",
                             0) == 0);
    const LocateOutcome nopath = Locate(run.string());
    CHECK(nopath.status == 2);
    CHECK(nopath.err.find(flows + ":1: path: missing column") != std::string::npos);

    fresh();
    SetCell(run / "flows.csv", 4, "path", "999>1");
    CHECK(ErrorOf(run) == flows + ":6: path: flow 4 (host" + std::to_string(r.obs.flows[4].src) +
                              " to host" + std::to_string(r.obs.flows[4].dst) +
                              "), path 1: link_id 999 is not in links.csv");

    fresh();
    SetCell(run / "flows.csv", 0, "fct_us", "fast");
    CHECK(ErrorOf(run) == flows + ":2: fct_us: expected a non-negative number or nothing, got "
                                  "\"fast\"");

    fresh();
    KeepLinkNames(run);
    {
        std::string links = Slurp(run / "links.csv");
        links.replace(0, links.find('\n'), "link_id,source,to");
        std::ofstream(run / "links.csv") << links;
    }
    CHECK(ErrorOf(run).rfind((run / "links.csv").string() + ":1: from: missing column", 0) == 0);

    fs::remove(run / "links.csv");
    CHECK(ErrorOf(run).find("links.csv: no such file") != std::string::npos);

    // Sprayed rows: a count that is not a number.
    const auto s = Synthetic(8, 0, true);
    fs::remove_all(run);
    synth::WriteRun(s, run.string());
    SetCell(run / "flows.csv", 0, "paths", "0>1:many");
    CHECK(ErrorOf(run) == flows + ":2: paths: path 1: packet count \"many\" is not an integer");

    // A comparison directory is not a run.
    fs::create_directories(dir / "cmp");
    std::ofstream(dir / "cmp" / "comparison.csv") << "policy\n";
    CHECK(ErrorOf(dir / "cmp").find("this is a comparison; give one of its run folders") !=
          std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("tusk locate DIR DIR pools runs of one fabric and refuses another fabric, exit status 2",
          "[component][locate]")
{
    const fs::path dir = Scratch("locate-pool");
    // Two runs of one 32-host leaf-spine (other traffic: seeds 1 and 2) with the same slow
    // direction (seed 1's).
    auto a = Synthetic(1, 1);
    auto b = Synthetic(2, 1);
    b.config.faults = a.config.faults;
    b = synth::Generate(b.graph, b.config);
    synth::WriteRun(a, (dir / "a").string());
    synth::WriteRun(b, (dir / "b").string());
    const std::string runA = (dir / "a").string(), runB = (dir / "b").string();

    const LocateOutcome one = Locate(runA);
    REQUIRE(one.status == 0);
    CHECK(one.out.rfind(runA + ": ", 0) == 0); // one run: as before, no word of pooling

    const LocateOutcome both = Locate(runA + " " + runB);
    CAPTURE(both.out, both.err);
    REQUIRE(both.status == 0);
    CHECK(both.out.rfind(runA + " and 1 more run of its fabric (2 runs pooled): ", 0) == 0);
    const LocateOutcome js = Locate(runA + " " + runB + " --json");
    REQUIRE(js.status == 0);
    const auto doc = nlohmann::json::parse(js.out);
    CHECK(doc["runs"] == 2);
    CHECK(doc["results_dir"] == runA);
    CHECK(doc["results_dirs"] == nlohmann::json({runA, runB}));
    // Both runs' flows, each run's own (the flows of a run are one permutation per round).
    const auto docA = nlohmann::json::parse(Locate(runA + " --json").out);
    const auto docB = nlohmann::json::parse(Locate(runB + " --json").out);
    CHECK(doc["flows"].get<int>() == docA["flows"].get<int>() + docB["flows"].get<int>());
    REQUIRE(doc["named"].get<int>() >= 1);
    const auto& top = doc["ranking"][0];
    CHECK(top["links"][0]["from"].get<std::string>() + "->" +
              top["links"][0]["to"].get<std::string>() ==
          FaultName(a));

    // Another fabric (8 leaves x 2 spines): refused, naming the run and what differs.
    const auto g = synth::LeafSpine(8, 2, 4);
    synth::Config c;
    c.seed = 3;
    synth::WriteRun(synth::Generate(g, c), (dir / "other").string());
    const LocateOutcome other = Locate(runA + " " + (dir / "other").string());
    CHECK(other.status == 2);
    CHECK(other.out.empty());
    CHECK(other.err.find((dir / "other" / "links.csv").string() + ": a different fabric") !=
          std::string::npos);

    // A run without the evidence the others have: refused, naming it.
    std::ofstream(dir / "a" / "paths.csv") << "src\n";
    const LocateOutcome missing = Locate(runA + " " + runB);
    CHECK(missing.status == 2);
    CHECK(missing.err.find((dir / "b" / "paths.csv").string() + ": no such file, where " + runA +
                           " has one") != std::string::npos);
    fs::remove(dir / "a" / "paths.csv");

    // One run twice, as the same folder or as a copy (same scenario and seed): refused, its
    // evidence would count twice.
    const LocateOutcome twice = Locate(runA + " " + runA + "/");
    CHECK(twice.status == 2);
    CHECK(twice.err.find("the same results folder as " + runA) != std::string::npos);
    fs::copy(dir / "a", dir / "a-copy");
    const LocateOutcome copy = Locate(runA + " " + (dir / "a-copy").string());
    CHECK(copy.status == 2);
    CHECK(copy.err.find((dir / "a-copy" / "manifest.json").string() +
                        ": seed: the same scenario and seed as " + runA) != std::string::npos);

    // --what-if re-runs one run's scenario: refused with several.
    const LocateOutcome whatIf = Locate(runA + " " + runB + " --what-if");
    CHECK(whatIf.status == 2);
    CHECK(whatIf.err.find("--what-if") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "a.what-if"));
    fs::remove_all(dir);
}

namespace
{

/** Merge `patch` into DIR/manifest.json (nlohmann merge_patch: null removes a key). */
void
PatchManifest(const fs::path& dir, const nlohmann::json& patch)
{
    nlohmann::json m;
    {
        std::ifstream in(dir / "manifest.json");
        m = nlohmann::json::parse(in);
    }
    m.merge_patch(patch);
    std::ofstream(dir / "manifest.json") << m.dump(2) << "\n";
}

} // namespace

TEST_CASE("tusk locate DIR DIR refuses runs of another link rate, policy or the same flows, "
          "exit status 2",
          "[component][locate]")
{
    const fs::path dir = Scratch("locate-pool-fabric");
    auto a = Synthetic(1, 1);
    auto b = Synthetic(2, 1);
    b.config.faults = a.config.faults;
    b = synth::Generate(b.graph, b.config);
    synth::WriteRun(a, (dir / "a").string());
    synth::WriteRun(b, (dir / "b").string());
    const std::string runA = (dir / "a").string(), runB = (dir / "b").string();
    const nlohmann::json same = {
        {"policy", "ecmp"},
        {"scenario", {{"topology", {{"host_link_gbps", 100}, {"fabric_link_gbps", 100}}}}}};
    PatchManifest(dir / "a", same);
    PatchManifest(dir / "b", same);
    REQUIRE(Locate(runA + " " + runB).status == 0);

    // Fabric links at 200 Gb/s, host links alike: the lower rate is the same, the fabric is
    // not. Refused, naming both runs and the first link that differs (a leaf-spine link).
    PatchManifest(dir / "b", {{"scenario", {{"topology", {{"fabric_link_gbps", 200}}}}}});
    LocateOutcome fast = Locate(runA + " " + runB);
    CAPTURE(fast.err);
    CHECK(fast.status == 2);
    CHECK(fast.out.empty());
    CHECK(fast.err.find((dir / "b" / "manifest.json").string() +
                        ": scenario.topology.fabric_link_gbps: a different fabric: link_id ") !=
          std::string::npos);
    CHECK(fast.err.find("leaf") != std::string::npos);
    CHECK(fast.err.find("100 Gb/s in " + runA + " and 200 Gb/s in " + runB) !=
          std::string::npos);
    // Host links at 200 Gb/s, fabric links alike: the first host link is named.
    PatchManifest(dir / "b", {{"scenario",
                               {{"topology", {{"fabric_link_gbps", 100}, {"host_link_gbps", 200}}}}}});
    fast = Locate(runA + " " + runB);
    CHECK(fast.status == 2);
    CHECK(fast.err.find(": scenario.topology.host_link_gbps: a different fabric: link_id 0 "
                        "host0->leaf0 is configured at 100 Gb/s in " +
                        runA + " and 200 Gb/s in " + runB) != std::string::npos);
    // Another topology key (a link delay): refused, naming the key.
    PatchManifest(dir / "b", {{"scenario",
                               {{"topology", {{"host_link_gbps", 100}, {"link_delay_ns", 5000}}}}}});
    fast = Locate(runA + " " + runB);
    CHECK(fast.status == 2);
    CHECK(fast.err.find(": scenario.topology.link_delay_ns: a different fabric: (not given) in " +
                        runA + " and 5000 in " + runB) != std::string::npos);
    PatchManifest(dir / "b", {{"scenario", {{"topology", {{"link_delay_ns", nullptr}}}}}});
    REQUIRE(Locate(runA + " " + runB).status == 0);

    // Another policy: a fault shows differently under it; refused.
    PatchManifest(dir / "b", {{"policy", "drill"}});
    const LocateOutcome policy = Locate(runA + " " + runB);
    CHECK(policy.status == 2);
    CHECK(policy.err.find((dir / "b" / "manifest.json").string() +
                          ": policy: load-balancing policy \"ecmp\" in " + runA +
                          " and \"drill\" in " + runB) != std::string::npos);
    PatchManifest(dir / "b", {{"policy", "ecmp"}});

    // The same flows.csv under another seed or name in the manifest (a copy whose manifest
    // was edited, one seed in packet and fast mode): refused by content.
    fs::copy(dir / "a", dir / "a-renamed");
    PatchManifest(dir / "a-renamed", {{"seed", 99}, {"scenario_name", "other"}});
    const LocateOutcome dup = Locate(runA + " " + (dir / "a-renamed").string());
    CAPTURE(dup.err);
    CHECK(dup.status == 2);
    CHECK(dup.err.find((dir / "a-renamed" / "flows.csv").string() + ": byte-identical to " +
                       runA + "'s (SHA-256 ") != std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("tusk locate refuses NaN thresholds and a negative seed and unknown loss evidence, exit "
          "status 2",
          "[component][locate]")
{
    const fs::path dir = Scratch("locate-nan");
    synth::WriteRun(Synthetic(1, 1), (dir / "a").string());
    const std::string run = (dir / "a").string();
    REQUIRE(Locate(run).status == 0);
    for (const char* bad : {"--min-confidence nan", "--slow-factor nan", "--loss-floor nan",
                            "--min-confidence inf", "--slow-factor -nan", "--seed -1",
                            "--loss-evidence path"})
    {
        CAPTURE(bad);
        const LocateOutcome o = Locate(run + " " + bad);
        CHECK(o.status == 2);
        CHECK(o.out.empty());
        const std::string option = std::string(bad).substr(0, std::string(bad).find(' '));
        CHECK(o.err.find(option) != std::string::npos);
    }
    CHECK(Locate(run + " --seed 7").status == 0);
    // Loss per class (the default) says what its test named; per flow it is not run.
    const LocateOutcome perClass = Locate(run + " --evidence flows");
    const LocateOutcome perFlow = Locate(run + " --evidence flows --loss-evidence flow");
    REQUIRE(perClass.status == 0);
    REQUIRE(perFlow.status == 0);
    CHECK(perClass.out.find("loss per class: ") != std::string::npos);
    CHECK(perFlow.out.find("loss per class: ") == std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("tusk locate --min-confidence 0 names no link of a healthy run and says why",
          "[component][locate]")
{
    const fs::path dir = Scratch("locate-zero");
    synth::WriteRun(Synthetic(5, 0), (dir / "none").string());
    const LocateOutcome o = Locate((dir / "none").string() + " --min-confidence 0");
    CHECK(o.status == 0);
    CHECK(o.out.find("no suspect: no link reaches confidence 0.00 with at least 2 slow or "
                     "lossy flows across it") != std::string::npos);
    const LocateOutcome help = Locate("--help");
    CHECK(help.out.find("names every link") == std::string::npos);
    CHECK(help.out.find("0 does not name a link without such evidence") != std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("tusk locate says up front that a run failed, and still locates",
          "[component][locate]")
{
    const fs::path dir = Scratch("locate-failed");
    const auto r = Synthetic(1, 1);
    synth::WriteRun(r, (dir / "a").string());
    const std::string run = (dir / "a").string();
    const LocateOutcome ok = Locate(run);
    REQUIRE(ok.status == 0);
    CHECK(ok.out.find("the run failed") == std::string::npos);
    PatchManifest(dir / "a", {{"status", "failed"}, {"failure", "3 of 64 transfers unfinished"}});
    const LocateOutcome failed = Locate(run);
    CHECK(failed.status == 0);
    CHECK(failed.out.rfind("note: " + run + ": the run failed (manifest status \"failed\": 3 of "
                           "64 transfers unfinished); located from what it recorded until it "
                           "stopped\n",
                           0) == 0);
    // The same ranking after the note.
    CHECK(failed.out.substr(failed.out.find('\n') + 1) == ok.out);
    const auto doc = nlohmann::json::parse(Locate(run + " --json").out);
    REQUIRE(doc.contains("failed_runs"));
    CHECK(doc["failed_runs"][0]["status"] == "failed");
    CHECK(doc["failed_runs"][0]["results_dir"] == run);
    fs::remove_all(dir);
}

TEST_CASE("tusk locate lists the link directions no flow crossed and counts them per tier",
          "[component][locate]")
{
    // The 32-host leaf-spine with one more switch, spine4, cabled to leaf0 alone: no shortest
    // path between two hosts goes through it, so both directions of leaf0-spine4 carry nothing.
    auto g = synth::LeafSpine(8, 4, 4);
    const uint32_t spare = synth::AddVertex(g, "spine4", 2);
    g.links.emplace_back(static_cast<uint32_t>(std::find(g.names.begin(), g.names.end(),
                                                         "leaf0") -
                                               g.names.begin()),
                         spare);
    g.Finish();
    synth::Config c;
    c.seed = 7;
    c.faults = synth::RandomFaults(g, 1, 0.25, 0.0, c.seed, true);
    const auto r = synth::Generate(g, c);
    const fs::path dir = Scratch("locate-unobserved");
    synth::WriteRun(r, (dir / "run").string());
    const std::string run = (dir / "run").string();

    const LocateOutcome js = Locate(run + " --json");
    REQUIRE(js.status == 0);
    const auto doc = nlohmann::json::parse(js.out);
    std::set<std::string> listed;
    for (const auto& n : doc.at("unobserved_links"))
    {
        listed.insert(n.get<std::string>());
    }
    CHECK(listed.count("leaf0->spine4") == 1);
    CHECK(listed.count("spine4->leaf0") == 1);
    CHECK(doc.at("unobserved_link_directions").get<size_t>() == listed.size());
    CHECK(doc.at("unobserved_from") == "flows.csv");
    // The generator's own paths: every direction a flow crossed is absent from the list, every
    // other one present.
    std::set<std::string> crossed;
    for (const auto& f : r.flows)
    {
        for (const auto& [hops, packets] : f.paths)
        {
            for (uint32_t d : hops)
            {
                crossed.insert(g.names[g.From(d)] + "->" + g.names[g.To(d)]);
            }
        }
    }
    REQUIRE(crossed.count("host0->leaf0") == 1);
    CHECK(listed.count("host0->leaf0") == 0);
    for (uint32_t d = 0; d < g.Directions(); ++d)
    {
        const std::string name = g.names[g.From(d)] + "->" + g.names[g.To(d)];
        INFO(name);
        CHECK(listed.count(name) == 1 - crossed.count(name));
    }
    const auto& leafSpine = doc.at("unobserved_by_tier").at("leaf->spine");
    CHECK(leafSpine.at("directions") == 33);
    CHECK(leafSpine.at("unobserved").get<int>() >= 1);

    // The table: a count per tier, the names only with --list-unobserved.
    const LocateOutcome t = Locate(run);
    REQUIRE(t.status == 0);
    INFO(t.out);
    CHECK(t.out.find(fmt::format("unobserved: {} of {} link directions carried no flow's data "
                                 "frames",
                                 listed.size(), g.Directions())) != std::string::npos);
    CHECK(t.out.find(fmt::format("spine->leaf {} of 33",
                                 doc.at("unobserved_by_tier")
                                     .at("spine->leaf")
                                     .at("unobserved")
                                     .get<int>())) != std::string::npos);
    CHECK(t.out.find("spine4->leaf0") == std::string::npos);
    const LocateOutcome all = Locate(run + " --list-unobserved");
    REQUIRE(all.status == 0);
    CHECK(all.out.find("unobserved directions: ") != std::string::npos);
    CHECK(all.out.find("spine4->leaf0") != std::string::npos);
    fs::remove_all(dir);
}

} // namespace TUSK_TEST_FILE
