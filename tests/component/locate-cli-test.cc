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

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

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
    const fs::path err = fs::temp_directory_path() / "tusk-locate-test-stderr";
    const auto o = Shell("(" + std::string(TUSK_BINARY_DIR) + "/bin/tusk locate " + args + " 2> " +
                         err.string() + ")");
    return {o.status, o.output, Slurp(err)};
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
