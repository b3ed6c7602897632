// `tusk rerun` does not trust the manifest it reruns (tusk/results/rerun.h): what it compares is every
// file of the original folder and of the rerun's, so an emptied `files` list cannot make a
// changed scenario "reproduced"; `files` entries outside the results folder, a non-string
// `status` or `files` entry are bad input (exit 2, naming the key); a symlink or an extra file
// in the original folder is a difference; a folder inside (a report) is named, not compared.

#include "cli-helpers.h"
#include "results/rerun.h"

#include "fabric/model/input-error.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

namespace fs = std::filesystem;
using tusk_test::Scratch;
using tusk_test::Slurp;
using tusk_test::Tusk;
using tusk_test::Write;

namespace
{

/** A fresh run of the small scenario in d/name. */
fs::path
SmallRun(const fs::path& d, const std::string& name)
{
    Write(d / "base.toml", tusk_test::kSmallScenario);
    const auto o = Tusk("run -q " + (d / "base.toml").string() + " --out " + (d / name).string());
    REQUIRE(o.status == 0);
    return d / name;
}

/** Edit the run's manifest.json with `edit`. */
template <typename F>
void
EditManifest(const fs::path& run, F edit)
{
    auto m = nlohmann::json::parse(Slurp(run / "manifest.json"));
    edit(m);
    Write(run / "manifest.json", m.dump(2));
}

} // namespace

TEST_CASE("tusk rerun: compares every file of both folders and says which",
          "[component][cli][rerun]")
{
    auto d = Scratch("rerun-files");
    const fs::path a = SmallRun(d, "a");
    auto o = Tusk("rerun -q " + a.string());
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK(o.output.find("comparing " + a.string() + "/ with " + a.string() + ".rerun/") !=
          std::string::npos);
    CHECK(o.output.find("not the .tusk-results marker") != std::string::npos);
    for (const char* f : {"flows.csv", "links.csv", "collectives.csv", "pfc_events.csv",
                          "switches.csv", "waits.csv", "jobs.csv"})
    {
        CHECK(o.output.find(std::string(f) + std::string(24 - std::string(f).size(), ' ') +
                            " identical") != std::string::npos);
    }
    CHECK(o.output.find("manifest.json            status ok before, ok now\n") != std::string::npos);
    CHECK(o.output.find("reproduced: ") != std::string::npos);
    // The manifest's own path names the same run (what `tusk run RUN/manifest.json` accepts).
    o = Tusk("rerun -q " + (a / "manifest.json").string() + " --out " + (d / "m").string());
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK(o.output.find("comparing " + a.string() + "/ with ") != std::string::npos);
    CHECK(fs::exists(d / "m" / "flows.csv"));

    // An emptied `files` list and a changed scenario: the files still differ, and say so.
    EditManifest(a, [](nlohmann::json& m) {
        m["files"] = nlohmann::json::array();
        m["scenario"]["workload"]["bytes"] = 300000;
    });
    o = Tusk("rerun -q " + a.string());
    INFO(o.output);
    CHECK(o.status == 1);
    CHECK(o.output.find("flows.csv                DIFFERS") != std::string::npos);
    CHECK(o.output.find("NOT reproduced: ") != std::string::npos);

    // A file only in the original, a symlink (not followed), a report folder (not compared).
    auto b = SmallRun(d, "b");
    fs::create_directories(b / "report");
    Write(b / "report" / "report.html", "<html></html>");
    o = Tusk("rerun -q " + b.string());
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK(o.output.find("report/                  a folder, not compared") != std::string::npos);
    Write(b / "notes.txt", "mine");
    fs::create_symlink("/etc/passwd", b / "evil.csv");
    o = Tusk("rerun -q " + b.string());
    INFO(o.output);
    CHECK(o.status == 1);
    CHECK(o.output.find("notes.txt                DIFFERS: only in the original") != std::string::npos);
    CHECK(o.output.find("evil.csv                 DIFFERS: only in the original") != std::string::npos);
    CHECK(o.output.find("root:") == std::string::npos);
    // A listed file that neither folder holds.
    fs::remove(b / "notes.txt");
    fs::remove(b / "evil.csv");
    EditManifest(b, [](nlohmann::json& m) { m["files"].push_back("gone.csv"); });
    o = Tusk("rerun -q " + b.string());
    INFO(o.output);
    CHECK(o.status == 1);
    CHECK(o.output.find("gone.csv                 DIFFERS: listed in the manifest, in neither folder") !=
          std::string::npos);
}

TEST_CASE("tusk rerun: a malformed manifest is bad input naming the key, nothing written",
          "[component][cli][rerun]")
{
    auto d = Scratch("rerun-malformed");
    const fs::path a = SmallRun(d, "a");
    const std::string pristine = Slurp(a / "manifest.json");
    struct Case
    {
        std::function<void(nlohmann::json&)> edit;
        std::string expect;
    };
    const std::vector<Case> cases = {
        {[](nlohmann::json& m) { m["files"] = {"/etc/passwd"}; }, "manifest.json: files[0]: expected the name of a file in the results folder (no '/', not \".\" or \"..\"); got \"/etc/passwd\""},
        {[](nlohmann::json& m) { m["files"] = {"flows.csv", "."}; }, "manifest.json: files[1]: "},
        {[](nlohmann::json& m) { m["files"] = {"../a/flows.csv"}; }, "manifest.json: files[0]: "},
        {[](nlohmann::json& m) { m["files"] = {1}; }, "manifest.json: files[0]: expected the name of a file in the results folder (no '/', not \".\" or \"..\"); got number \"1\""},
        {[](nlohmann::json& m) { m["files"] = "flows.csv"; }, "manifest.json: files: expected an array"},
        {[](nlohmann::json& m) { m.erase("files"); }, "manifest.json: files: expected an array of the result files' names; missing"},
        {[](nlohmann::json& m) { m["status"] = 5; }, "manifest.json: status: expected \"ok\" or \"failed\"; got number \"5\""},
        {[](nlohmann::json& m) { m["status"] = "fine"; }, "manifest.json: status: "},
        {[](nlohmann::json& m) { m = nlohmann::json::array(); }, "manifest.json: expected a JSON object"},
    };
    for (const auto& c : cases)
    {
        Write(a / "manifest.json", pristine);
        EditManifest(a, c.edit);
        const auto o = Tusk("rerun -q " + a.string() + " --out " + (d / "out").string());
        INFO(o.output);
        CHECK(o.status == 2);
        CHECK(o.output.find("tusk: error: " + (a / "manifest.json").string()) != std::string::npos);
        CHECK(o.output.find(c.expect) != std::string::npos);
        CHECK(o.output.find("internal error") == std::string::npos);
        CHECK(!fs::exists(d / "out"));
    }
    // --out naming the folder being rerun would replace it.
    Write(a / "manifest.json", pristine);
    const auto o = Tusk("rerun -q " + a.string() + " --out " + a.string() + "/.");
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(o.output.find("--out: is the results folder being rerun") != std::string::npos);
    CHECK(Slurp(a / "manifest.json") == pristine);
}

TEST_CASE("ReadRerunManifest: the fuzz seeds (trimmed real manifests) read, their edits do not",
          "[component][rerun]")
{
    const fs::path seeds = fs::path(TUSK_SOURCE_DIR) / "fuzz" / "corpus" / "fuzz-rerun-manifest";
    auto d = Scratch("rerun-seeds");
    int n = 0;
    for (const auto& e : fs::directory_iterator(seeds))
    {
        CAPTURE(e.path());
        const tusk::RerunManifest m = tusk::ReadRerunManifest(e.path().string());
        CHECK((m.status == "ok" || m.status == "failed"));
        CHECK(m.files.size() >= 7);
        ++n;
        // The same manifest with a path in `files` names the key.
        auto j = nlohmann::json::parse(Slurp(e.path()));
        j["files"].push_back("../../etc/passwd");
        Write(d / "manifest.json", j.dump());
        try
        {
            tusk::ReadRerunManifest((d / "manifest.json").string());
            FAIL("accepted a path outside the results folder");
        }
        catch (const ns3::InputError& x)
        {
            CHECK(x.Key() == "files[" + std::to_string(m.files.size()) + "]");
        }
    }
    CHECK(n >= 3);
}

} // namespace TUSK_TEST_FILE
