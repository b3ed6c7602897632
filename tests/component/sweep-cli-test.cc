// `tusk sweep` and `tusk regress` as a user meets them (docs/sweeps.md): results exactly as
// `tusk run` writes them, sweep.csv and index.sqlite, resuming after a kill without redoing
// finished runs, failed runs recorded without stopping the sweep, bad input exit 2 with nothing
// written; a deliberately worsened policy and a planted bad baseline make `tusk regress` exit 1,
// `--update-baselines` rewrites measured entries only.

#include "cli-helpers.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <thread>
#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

namespace fs = std::filesystem;
using tusk_test::Lines;
using tusk_test::Scratch;
using tusk_test::Shell;
using tusk_test::Slurp;
using tusk_test::Tusk;
using tusk_test::Write;

namespace
{

const char* const kBase = tusk_test::kSmallScenario;

const char* kSweep = R"(name = "s"
scenario = "base.toml"
[[axis]]
key = "lb.policy"
values = ["ecmp", "spray"]
[[axis]]
key = "seed"
values = [1, 2]
)";

/** Run directories (with manifest.json) under a sweep root, and their manifests' inodes; not
 *  a run's staging folder (`ID.staging-*`, which holds a manifest just before it is renamed
 *  into place) nor a replaced one (`ID.old-*`). */
std::map<std::string, ino_t>
Finished(const fs::path& root)
{
    std::map<std::string, ino_t> out;
    if (!fs::exists(root))
    {
        return out;
    }
    for (const auto& e : fs::directory_iterator(root))
    {
        struct stat st
        {
        };
        const std::string name = e.path().filename().string();
        if (name.find(".staging-") != std::string::npos || name.find(".old-") != std::string::npos)
        {
            continue;
        }
        if (e.is_directory() && ::stat((e.path() / "manifest.json").c_str(), &st) == 0)
        {
            out[e.path().filename().string()] = st.st_ino;
        }
    }
    return out;
}

/** A sweep `s.toml` in `d` of six runs of about a second each (seeds 1 to 6 of `base.toml`). */
void
WriteSixSeedSweep(const fs::path& d)
{
    std::string base = kBase;
    base.replace(base.find("200KB"), 5, "8MB"); // runs of about a second
    Write(d / "base.toml", base);
    Write(d / "s.toml", "name = \"k\"\nscenario = \"base.toml\"\n[[axis]]\nkey = \"seed\"\n"
                        "values = [1, 2, 3, 4, 5, 6]\n");
}

/** Wait (at most 2 minutes) until a run of the sweep writing into `root` has finished. */
void
WaitForFirstRun(const fs::path& root)
{
    const auto t0 = std::chrono::steady_clock::now();
    while (Finished(root).empty() && std::chrono::steady_clock::now() - t0 < std::chrono::minutes(2))
    {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

/** The small base scenario with an htsim connection matrix `cm` (beside it) as its workload. */
std::string
HtsimBase(const std::string& cm)
{
    std::string base = kBase;
    base.replace(base.find("kind = \"permutation\""), 20, "kind = \"htsim\"\nfile = \"" + cm + "\"");
    base.replace(base.find("bytes = \"200KB\""), 15, "");
    return base;
}

int
SqliteCount(const fs::path& db, const std::string& sql)
{
    sqlite3* h = nullptr;
    REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    const int n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return n;
}

} // namespace

TEST_CASE("tusk sweep: runs as tusk run writes them, an index, and a rerun skips them",
          "[component][sweep]")
{
    auto d = Scratch("sweep-basic");
    Write(d / "base.toml", kBase);
    Write(d / "s.toml", kSweep);
    const std::string root = (d / "out").string();

    auto o = Tusk("sweep " + (d / "s.toml").string() + " --dry-run --out " + root);
    INFO(o.output);
    REQUIRE(o.status == 0);
    CHECK(o.output.find("4 runs (2 policy x 2 seed)") != std::string::npos);
    CHECK(o.output.find("policy=spray,seed=2") != std::string::npos);
    CHECK(!fs::exists(root)); // a dry run writes nothing

    o = Tusk("sweep " + (d / "s.toml").string() + " -j 2 --out " + root);
    INFO(o.output);
    REQUIRE(o.status == 0);
    CHECK(o.output.find("4 ran (4 ok") != std::string::npos);
    REQUIRE(Finished(root).size() == 4);

    // sweep.csv: one row per run, the axes as columns, every run ok.
    const auto csv = Lines(Slurp(d / "out" / "sweep.csv"));
    REQUIRE(csv.size() == 5);
    CHECK(csv[0].rfind("run_id,policy,seed,status,exit_status,message,scenario_name,", 0) == 0);
    CHECK(csv[0].find(",fct_p99_us,") != std::string::npos);
    CHECK(csv[4].rfind("\"policy=spray,seed=2\",spray,2,ok,0,,small,", 0) == 0);
    CHECK(SqliteCount(d / "out" / "index.sqlite", "SELECT count(*) FROM runs WHERE status = 'ok'") == 4);
    CHECK(SqliteCount(d / "out" / "index.sqlite", "SELECT count(*) FROM axes") == 2);

    // The same run by hand gives the same bytes.
    o = Tusk("run " + (d / "base.toml").string() +
             " --set lb.policy=spray --set seed=2 -q --out " + (d / "by-hand").string());
    REQUIRE(o.status == 0);
    for (const char* f : {"flows.csv", "links.csv", "collectives.csv", "pfc_events.csv"})
    {
        CHECK(Slurp(d / "by-hand" / f) == Slurp(d / "out" / "policy=spray,seed=2" / f));
    }

    // A rerun finds complete results for every run and starts none.
    const auto before = Finished(root);
    o = Tusk("sweep " + (d / "s.toml").string() + " -j 2 --out " + root);
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK(o.output.find("0 ran") != std::string::npos);
    CHECK(o.output.find("4 skipped") != std::string::npos);
    CHECK(Finished(root) == before);

    // Changing the base scenario changes every run's resolved scenario: all run again.
    std::string changed = kBase;
    changed.replace(changed.find("200KB"), 5, "300KB");
    Write(d / "base.toml", changed);
    o = Tusk("sweep " + (d / "s.toml").string() + " -j 2 --out " + root);
    INFO(o.output);
    CHECK(o.output.find("4 ran (4 ok") != std::string::npos);
}

TEST_CASE("tusk sweep: editing an input file the scenario reads reruns the runs that read it",
          "[component][sweep]")
{
    // The scenario names an htsim connection matrix: its text is not in the scenario, so a
    // hash of the scenario alone kept the old results after the matrix changed.
    auto d = Scratch("sweep-inputs");
    Write(d / "base.toml", HtsimBase("m.cm"));
    Write(d / "m.cm", "Nodes 4\nConnections 2\n0->3 id 1 start 0 size 200000\n1->2 id 2 start 0 size 200000\n");
    Write(d / "s.toml", "scenario = \"base.toml\"\n[[axis]]\nkey = \"seed\"\nvalues = [1, 2]\n");
    const std::string sweep = "sweep " + (d / "s.toml").string() + " -j 2 --out " + (d / "out").string();
    auto o = Tusk(sweep);
    INFO(o.output);
    REQUIRE(o.status == 0);
    CHECK(o.output.find("2 ran (2 ok") != std::string::npos);

    // The manifest names the file with the SHA-256 of its bytes.
    const auto m = nlohmann::json::parse(Slurp(d / "out" / "seed=1" / "manifest.json"));
    REQUIRE(m["inputs"].size() == 1);
    CHECK(m["inputs"][0]["key"] == "workload.file");
    CHECK(m["inputs"][0]["path"] == fs::canonical(d / "m.cm").string());
    CHECK(m["inputs"][0]["sha256"].get<std::string>().size() == 64);

    o = Tusk(sweep); // unchanged: kept
    INFO(o.output);
    CHECK(o.output.find("2 skipped") != std::string::npos);

    Write(d / "m.cm", "Nodes 4\nConnections 2\n0->3 id 1 start 0 size 50000\n1->2 id 2 start 0 size 50000\n");
    o = Tusk(sweep); // the matrix changed: both run again, with the new sizes
    INFO(o.output);
    CHECK(o.output.find("2 ran (2 ok") != std::string::npos);
    CHECK(Slurp(d / "out" / "seed=2" / "flows.csv").find(",50000,") != std::string::npos);
}

TEST_CASE("tusk sweep: a bad sweep file exits 2, names file, line and key, writes nothing",
          "[component][sweep]")
{
    auto d = Scratch("sweep-bad");
    Write(d / "base.toml", kBase);
    Write(d / "s.toml", "scenario = \"base.toml\"\n[[axis]]\nkey = \"topology.spines\"\nvalues = [2, 0]\n");
    auto o = Tusk("sweep " + (d / "s.toml").string() + " --out " + (d / "out").string());
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(o.output.find("s.toml:4: topology.spines: value 0") != std::string::npos);
    CHECK(!fs::exists(d / "out"));
    o = Tusk("sweep " + (d / "missing.toml").string());
    CHECK(o.status == 2);
    o = Tusk("sweep " + (d / "s.toml").string() + " --backend nope");
    CHECK(o.status == 2);
}

TEST_CASE("tusk sweep: --set or [set] on a key an axis sets is refused, naming the key and "
          "the axis",
          "[component][sweep]")
{
    // The axis' value was applied after the override, which was lost in every run.
    auto d = Scratch("sweep-set-axis");
    Write(d / "base.toml", kBase);
    Write(d / "s.toml", kSweep);
    auto o = Tusk("sweep " + (d / "s.toml").string() + " --set lb.policy=spray -q --out " +
                  (d / "out").string());
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(o.output.find("--set: lb.policy: the sweep's axis \"policy\" (line 3) sets "
                        "lb.policy in every run") != std::string::npos);
    CHECK(!fs::exists(d / "out"));
    o = Tusk("sweep " + (d / "s.toml").string() + " --set lb={policy=\"spray\"} --dry-run");
    CHECK(o.status == 2);
    CHECK(o.output.find("--set: lb: the sweep's axis") != std::string::npos);
    Write(d / "t.toml", std::string(kSweep) + "[set]\nseed = 7\n");
    o = Tusk("sweep " + (d / "t.toml").string() + " --dry-run");
    CHECK(o.status == 2);
    CHECK(o.output.find("t.toml:10: seed: the sweep's axis \"seed\" (line 6)") !=
          std::string::npos);
    // A key no axis sets is taken.
    o = Tusk("sweep " + (d / "s.toml").string() + " --set nic.receiver=selective-repeat --dry-run");
    CHECK(o.status == 0);
}

TEST_CASE("tusk sweep: failed runs are recorded with exit status and message, the sweep goes on",
          "[component][sweep]")
{
    auto d = Scratch("sweep-fail");
    Write(d / "base.toml", HtsimBase("good.cm"));
    // Run "short" stops before its transfers finish (exit 1, results written); run "badcm"
    // names an htsim matrix whose host is out of range (exit 2 at run time, no results).
    Write(d / "good.cm", "Nodes 4\nConnections 2\n0->3 id 1 start 0 size 200000\n1->2 id 2 start 0 size 200000\n");
    Write(d / "bad.cm", "Nodes 4\nConnections 1\n0->9 id 1 start 0 size 100\n");
    Write(d / "s.toml", R"(scenario = "base.toml"
[[axis]]
name = "case"
keys = ["stop_time_ms", "workload.file"]
values = [[100, "good.cm"], [0.005, "good.cm"], [100, "bad.cm"]]
labels = ["good", "short", "badcm"]
)");
    auto o = Tusk("sweep " + (d / "s.toml").string() + " -j 2 --out " + (d / "out").string());
    INFO(o.output);
    CHECK(o.status == 1);
    CHECK(o.output.find("1 ok, 1 failed, 1 errors") != std::string::npos);
    const auto csv = Slurp(d / "out" / "sweep.csv");
    INFO(csv);
    CHECK(csv.find("case=good,good,") != std::string::npos);
    CHECK(csv.find(",ok,0,,") != std::string::npos);
    CHECK(csv.find(",failed,1,\"") != std::string::npos);
    CHECK(csv.find("unfinished") != std::string::npos);
    CHECK(csv.find(",error,2,") != std::string::npos);
    CHECK(csv.find("host 9 out of range") != std::string::npos);
    o = Tusk("sweep " + (d / "s.toml").string() + " --status --out " + (d / "out").string());
    CHECK(o.status == 1);
    CHECK(o.output.find("error case=badcm (exit 2)") != std::string::npos);
}

TEST_CASE("tusk sweep: the runs' warnings are said once at the end and kept in their records",
          "[component][sweep]")
{
    // pfc.lossless_priorities = [5] leaves the data priority (3) lossy under PFC: each run
    // warns in its log, which nobody reads unless the sweep says so.
    auto d = Scratch("sweep-warn");
    Write(d / "base.toml", kBase);
    Write(d / "s.toml", "name = \"w\"\nscenario = \"base.toml\"\n[[axis]]\nkey = \"seed\"\n"
                        "values = [1, 2]\n");
    auto o = Tusk("sweep " + (d / "s.toml").string() +
                  " --set 'pfc.lossless_priorities=[5]' -q --out " + (d / "out").string());
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK(o.output.find("tusk sweep: warning: 2 of the 2 runs warned") != std::string::npos);
    CHECK(o.output.find("data_priority (3)") != std::string::npos);
    size_t records = 0;
    for (const auto& e : fs::directory_iterator(d / "out" / ".sweep" / "runs"))
    {
        const auto j = nlohmann::json::parse(Slurp(e.path()));
        REQUIRE(j["warnings"].is_array());
        CHECK(j["warnings"].size() >= 1);
        ++records;
    }
    CHECK(records == 2);
    // Resumed, nothing runs: the runs still warned, and the sweep still says so.
    o = Tusk("sweep " + (d / "s.toml").string() + " --set 'pfc.lossless_priorities=[5]' -q --out " +
             (d / "out").string());
    CHECK(o.status == 0);
    CHECK(o.output.find("2 skipped") != std::string::npos);
    CHECK(o.output.find("tusk sweep: warning: 2 of the 2 runs warned") != std::string::npos);
    // --status and --collect say it too.
    for (const char* flag : {" --status", " --collect"})
    {
        CAPTURE(flag);
        o = Tusk("sweep " + (d / "s.toml").string() + " --set 'pfc.lossless_priorities=[5]'" +
                 flag + " --out " + (d / "out").string());
        CHECK(o.status == 0);
        CHECK(o.output.find("tusk sweep: warning: 2 of the 2 runs warned") != std::string::npos);
    }
    // A record whose warnings are not a list of strings is read as none, not an error.
    for (const auto& e : fs::directory_iterator(d / "out" / ".sweep" / "runs"))
    {
        auto j = nlohmann::json::parse(Slurp(e.path()));
        j["warnings"] = 5;
        Write(e.path(), j.dump());
    }
    o = Tusk("sweep " + (d / "s.toml").string() + " --set 'pfc.lossless_priorities=[5]' -q --out " +
             (d / "out").string());
    CHECK(o.status == 0);
    CHECK(o.output.find("warned") == std::string::npos);
    // Without the setting, no warning.
    o = Tusk("sweep " + (d / "s.toml").string() + " -q --out " + (d / "quiet").string());
    CHECK(o.status == 0);
    CHECK(o.output.find("warned") == std::string::npos);
}

TEST_CASE("tusk sweep: a zipped axis that sets the seed gives one seed column, and the index "
          "is written",
          "[component][sweep]")
{
    // The axis's value column "seed" is the run's seed: the resolved seed's own column would
    // repeat it under the same name (sweep.csv had two, and SQLite refused the runs table:
    // "duplicate column name: seed", exit 1 with every run ok).
    auto d = Scratch("sweep-seed-column");
    Write(d / "base.toml", kBase);
    Write(d / "s.toml", R"(scenario = "base.toml"
[[axis]]
name = "placement"
keys = ["stop_time_ms", "seed"]
values = [[100, 3], [100, 4]]
labels = ["a", "b"]
)");
    auto o = Tusk("sweep " + (d / "s.toml").string() + " -j 2 --out " + (d / "out").string());
    INFO(o.output);
    CHECK(o.status == 0);
    const auto lines = Lines(Slurp(d / "out" / "sweep.csv"));
    REQUIRE(lines.size() == 3);
    const std::string& header = lines[0];
    INFO(header);
    CHECK(header.find(",seed,") != std::string::npos);
    CHECK(header.find(",seed,") == header.rfind(",seed,"));
    CHECK(lines[1].find("placement=a,a,100,3,") == 0);
    CHECK(SqliteCount(d / "out" / "index.sqlite", "SELECT COUNT(*) FROM runs WHERE seed = 4") == 1);
}

TEST_CASE("tusk sweep: a scenario file edited while the sweep runs gives errors that say so",
          "[component][sweep]")
{
    // The plan hashes each run's resolved scenario when the sweep starts; a run that starts
    // after base.toml was edited finishes (exit 0) with results of another scenario. It is not
    // counted ok, and its message says why, not "exit status 0 and no results".
    auto d = Scratch("sweep-edited");
    WriteSixSeedSweep(d);
    const fs::path root = d / "out";
    auto o = Shell(std::string(TUSK_BINARY_DIR) + "/bin/tusk sweep " + (d / "s.toml").string() +
                   " -j 1 -q --out " + root.string() + " > /dev/null 2>&1 & echo $!");
    const pid_t pid = std::stoi(o.output);
    WaitForFirstRun(root);
    std::string base = Slurp(d / "base.toml");
    base.replace(base.find("8MB"), 3, "7MB");
    Write(d / "base.toml", base);
    const auto t0 = std::chrono::steady_clock::now(); // not our child: wait until it is gone
    while (::kill(pid, 0) == 0 && std::chrono::steady_clock::now() - t0 < std::chrono::minutes(5))
    {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    REQUIRE(::kill(pid, 0) != 0);
    const auto csv = Slurp(root / "sweep.csv");
    INFO(csv);
    CHECK(csv.find(",ok,0,") != std::string::npos); // the run that finished before the edit
    CHECK(csv.find(",error,0,\"the run wrote results of another scenario than the sweep planned") !=
          std::string::npos);
    CHECK(csv.find("exit status 0 and no results") == std::string::npos);
    CHECK(csv.find("events in") == std::string::npos); // not the run's last log line
}

TEST_CASE("tusk sweep: killed halfway, it resumes without redoing finished runs",
          "[component][sweep]")
{
    auto d = Scratch("sweep-kill");
    WriteSixSeedSweep(d);
    const fs::path root = d / "out";
    // Start the sweep, wait until a run has finished, then kill it with SIGKILL: no handler
    // runs; its `tusk run` children die with it (PR_SET_PDEATHSIG) and leave no results.
    auto o = Shell(std::string(TUSK_BINARY_DIR) + "/bin/tusk sweep " + (d / "s.toml").string() +
                   " -j 2 -q --out " + root.string() + " > /dev/null 2>&1 & echo $!");
    const pid_t pid = std::stoi(o.output);
    WaitForFirstRun(root);
    ::kill(pid, SIGKILL);
    // The children's SIGTERM handling removes their staging folders; on a loaded machine that
    // can take a while, so wait for it (a folder left for good fails the check below).
    const auto staging = [&root] {
        int n = 0;
        for (const auto& e : fs::directory_iterator(root))
        {
            n += e.path().filename().string().find(".staging-") != std::string::npos;
        }
        return n;
    };
    const auto t1 = std::chrono::steady_clock::now();
    do
    {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    } while (staging() > 0 && std::chrono::steady_clock::now() - t1 < std::chrono::seconds(30));
    const auto done = Finished(root);
    INFO(done.size() << " finished before the kill");
    REQUIRE(!done.empty());
    REQUIRE(done.size() < 6);
    for (const auto& e : fs::directory_iterator(root))
    {
        CHECK(e.path().filename().string().find(".staging-") == std::string::npos);
    }

    o = Tusk("sweep " + (d / "s.toml").string() + " -j 2 --out " + root.string());
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK(o.output.find(std::to_string(done.size()) + " skipped") != std::string::npos);
    CHECK(o.output.find(std::to_string(6 - done.size()) + " ran") != std::string::npos);
    const auto after = Finished(root);
    CHECK(after.size() == 6);
    for (const auto& [id, inode] : done)
    {
        CHECK(after.at(id) == inode); // not rewritten
    }
}

TEST_CASE("tusk sweep: stopped by SIGINT or SIGTERM after a run finished, it exits 128 + the "
          "signal and keeps that run",
          "[component][sweep]")
{
    auto d = Scratch("sweep-signal");
    WriteSixSeedSweep(d);
    for (const int sig : {SIGINT, SIGTERM})
    {
        const fs::path root = d / ("out-" + std::to_string(sig));
        const std::string tusk = std::string(TUSK_BINARY_DIR) + "/bin/tusk";
        const std::string sweep = (d / "s.toml").string();
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0)
        {
            const int null = ::open("/dev/null", O_WRONLY);
            ::dup2(null, 1);
            ::dup2(null, 2);
            ::execl(tusk.c_str(), tusk.c_str(), "sweep", sweep.c_str(), "-j", "1", "-q", "--out",
                    root.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        // Signal once a run has finished: the sweep's own handler is in place by then (before
        // it, tusk's process-wide handler exits 128 + the signal as well).
        WaitForFirstRun(root);
        ::kill(pid, sig);
        int raw = 0;
        REQUIRE(::waitpid(pid, &raw, 0) == pid);
        INFO("signal " << sig);
        REQUIRE(WIFEXITED(raw));
        CHECK(WEXITSTATUS(raw) == 128 + sig);
        const auto done = Finished(root);
        CHECK(!done.empty());
        CHECK(done.size() < 6);
    }
}

TEST_CASE("tusk regress: a worsened policy regresses, main passes, JUnit XML says so",
          "[component][regress]")
{
    auto d = Scratch("regress-worse");
    const std::string suite = std::string(TUSK_SOURCE_DIR) + "/regress/policies.toml";
    const std::string only = " --only allreduce/ecmp --only allreduce/letflow -j 2 ";
    // The suite as it is: these two policies pass.
    auto o = Tusk("regress " + suite + only + "--out " + (d / "main").string());
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK(o.output.find("REGRESSED") == std::string::npos);
    // The suite's measured outliers are named after the table, whichever runs were selected
    // (host-reps on the all-to-all: 13x the other policies' median), and pass.
    CHECK(o.output.find(" outlier ") != std::string::npos);
    // (The ratio moves as policies are added to the suite: it must stay a far outlier.)
    {
        std::smatch m;
        const std::regex warn("warning: alltoall host-reps\\.cct_us: the measured baseline "
                              "1174\\.228 is ([0-9.]+)x the median");
        REQUIRE(std::regex_search(o.output, m, warn));
        CHECK(std::stod(m[1].str()) > 10.0);
    }
    // LetFlow with a 1 ns flowlet gap starts a flowlet at every packet: per-packet spraying,
    // so go-back-N receivers see reordering and retransmit; ECMP is untouched.
    o = Tusk("regress " + suite + only + "--out " + (d / "worse").string() +
             " --set 'ns3.\"ns3::LetFlowLoadBalancer::FlowletGap\"=1ns'");
    INFO(o.output);
    CHECK(o.status == 1);
    for (const auto& l : Lines(o.output))
    {
        if (l.rfind("allreduce ", 0) == 0)
        {
            CHECK((l.find(" letflow ") != std::string::npos) == (l.find("REGRESSED") != std::string::npos));
        }
    }
    const auto junit = Slurp(d / "worse" / "junit.xml");
    CHECK(junit.find("<testsuites name=\"tusk regress policies\" tests=\"8\" failures=\"3\"") !=
          std::string::npos);
    CHECK(junit.find("classname=\"policies.allreduce.letflow\" name=\"retx_packets\">\n      <failure type=\"REGRESSED\"") !=
          std::string::npos);
}

TEST_CASE("tusk regress: a planted bad baseline fails, --update-baselines rewrites measured ones only",
          "[component][regress]")
{
    auto d = Scratch("regress-planted");
    fs::copy(std::string(TUSK_SOURCE_DIR) + "/regress/scenarios", d / "scenarios");
    std::string text = Slurp(std::string(TUSK_SOURCE_DIR) + "/regress/policies.toml");
    // Plant: ECMP's permutation p99 FCT "was" 100 us (it is about 170), and a theory entry
    // that says spray retransmits nothing (it retransmits thousands of packets).
    const size_t at = text.find("ecmp.fct_p99_us = { value = ");
    REQUIRE(at != std::string::npos);
    const size_t end = text.find('\n', at);
    text.replace(at, end - at, "ecmp.fct_p99_us = { value = 100, source = \"measured: 2000-01-01, planted\" }");
    const size_t sp = text.find("spray.retx_packets = { value = ");
    text.replace(sp, text.find('\n', sp) - sp,
                 "spray.retx_packets = { value = 0, abs = 0, source = \"theory: planted\" }");
    Write(d / "suite.toml", text);
    const std::string args = "regress " + (d / "suite.toml").string() +
                             " --only permutation/ecmp --only permutation/spray -j 2 --out " +
                             (d / "out").string();
    auto o = Tusk(args);
    INFO(o.output);
    CHECK(o.status == 1);
    // The verdict, then the (empty) outlier column, then the baseline's source.
    CHECK(std::regex_search(o.output, std::regex("REGRESSED +measured: 2000-01-01, planted")));
    CHECK(std::regex_search(o.output, std::regex("REGRESSED +theory: planted")));

    // --resume keeps only this binary's results: a run whose manifest names another revision
    // is redone, the others are not touched.
    auto before = Finished(d / "out");
    REQUIRE(before.size() >= 2);
    const std::string stale = before.begin()->first;
    {
        auto m = nlohmann::json::parse(Slurp(d / "out" / stale / "manifest.json"));
        m["git_revision"] = "someone-else";
        Write(d / "out" / stale / "manifest.json", m.dump(1));
    }
    before = Finished(d / "out");
    o = Tusk(args + " --update-baselines --resume");
    INFO(o.output);
    CHECK(o.status == 1); // the theory entry still fails: it is never rewritten
    const auto after = Finished(d / "out");
    for (const auto& [id, inode] : before)
    {
        CHECK((after.at(id) != inode) == (id == stale));
    }
    CHECK(nlohmann::json::parse(Slurp(d / "out" / stale / "manifest.json"))["git_revision"] !=
          "someone-else");
    CHECK(o.output.find("- ecmp.fct_p99_us = { value = 100, source = \"measured: 2000-01-01, planted\" }") !=
          std::string::npos);
    const std::string updated = Slurp(d / "suite.toml");
    CHECK(updated.find("planted\" }") == updated.rfind("planted\" }")); // only the theory one left
    CHECK(updated.find("spray.retx_packets = { value = 0, abs = 0, source = \"theory: planted\" }") !=
          std::string::npos);
    // p99 by nearest rank (169.898592 was the interpolated one).
    CHECK(updated.find("ecmp.fct_p99_us = { value = 169.90272, source = \"measured: ") != std::string::npos);
    // Everything else in the file is as it was.
    CHECK(Lines(updated).size() == Lines(text).size());

    Write(d / "bad.toml", "policies = [\"ecmp\"]\n[[scenario]]\nname = \"a\"\nfile = \"nope.toml\"\n");
    o = Tusk("regress " + (d / "bad.toml").string());
    CHECK(o.status == 2);
    CHECK(o.output.find("bad.toml:4: scenario[0].file: no such scenario file") != std::string::npos);
}

} // namespace TUSK_TEST_FILE
