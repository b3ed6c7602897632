// tusk never loses a user's data (docs/results-format.md, "Results folders"): `--out` replaces
// only a folder tusk marked as its results and that holds nothing else; two writers of one
// destination are refused; staging folders of killed runs are cleaned by the next writer, a
// live owner's never; a full disk or a file size limit exits 3 with the OS's words and the
// previous results intact; sweeps and regress refuse a root they cannot write or that another
// sweep holds with exit 2.

#include "cli-helpers.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <tuple>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <unistd.h>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

namespace fs = std::filesystem;
using tusk_test::Outcome;
using tusk_test::Scratch;
using tusk_test::Shell;
using tusk_test::Slurp;
using tusk_test::Tusk;
using tusk_test::Write;

namespace
{

const std::string kTusk = std::string(TUSK_BINARY_DIR) + "/bin/tusk";

/** `tusk run` of the small scenario in `d` into `out`, with extra arguments. */
Outcome
RunSmall(const fs::path& d, const fs::path& out, const std::string& extra = "")
{
    if (!fs::exists(d / "s.toml"))
    {
        Write(d / "s.toml", tusk_test::kSmallScenario);
    }
    return Tusk("run " + (d / "s.toml").string() + " --out " + out.string() + " -q " + extra);
}

/** Names in `dir` that begin with `prefix`, sorted. */
std::vector<std::string>
Named(const fs::path& dir, const std::string& prefix)
{
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
    {
        const std::string n = e.path().filename().string();
        if (n.rfind(prefix, 0) == 0)
        {
            out.push_back(n);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

/** Wait (up to a minute) until `dir` holds a name beginning with `prefix`. */
bool
WaitFor(const fs::path& dir, const std::string& prefix)
{
    const auto t0 = std::chrono::steady_clock::now();
    while (Named(dir, prefix).empty())
    {
        if (std::chrono::steady_clock::now() - t0 > std::chrono::minutes(1))
        {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

/**
 * A long `tusk run` (4 GB permutation) into `out`, in the background: its pid (the shell
 * exec's tusk, so $$ is tusk's pid) once its staging folder exists.
 */
struct LongRun
{
    Outcome outcome{0, ""};
    std::thread thread;
    long pid = 0;

    LongRun(const fs::path& d, const fs::path& out, const std::string& bytes)
    {
        Write(d / "s.toml", tusk_test::kSmallScenario);
        const fs::path pidFile = d / ("pid-of-" + out.filename().string());
        thread = std::thread([=] {
            outcome = Shell("echo $$ > " + pidFile.string() + "; exec " + kTusk + " run " +
                            (d / "s.toml").string() + " --out " + out.string() +
                            " -q --set workload.bytes=" + bytes + " --set seed=7");
        });
        if (!WaitFor(out.parent_path(), out.filename().string() + ".staging-"))
        {
            thread.join();
            FAIL("no staging folder appeared: " << outcome.output);
        }
        // Then its owner record (a few seconds at most: the run is simulating by then).
        const fs::path staging =
            out.parent_path() / Named(out.parent_path(), out.filename().string() + ".staging-")[0];
        for (int i = 0; i < 250 && !fs::exists(staging / ".tusk-results"); ++i)
        {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        std::ifstream(pidFile) >> pid;
    }

    void Wait()
    {
        if (thread.joinable())
        {
            thread.join();
        }
    }

    ~LongRun() { Wait(); }
};

std::string
ProcStart(long pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::istringstream rest(stat.substr(stat.rfind(')') + 1));
    std::string f;
    for (int i = 0; i < 20 && rest >> f; ++i)
    {
    }
    return f;
}

/** A staging folder of `dest` whose marker names `pid` (this host, this boot) as its owner. */
fs::path
PlantStaging(const fs::path& dest, const std::string& suffix, long pid)
{
    const fs::path p = dest.string() + ".staging-" + suffix;
    fs::create_directories(p);
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    std::string boot = Slurp("/proc/sys/kernel/random/boot_id");
    boot.erase(boot.find_last_not_of('\n') + 1);
    nlohmann::json m = {{"tusk_results", 1},
                        {"kind", "run"},
                        {"state", "staging"},
                        {"owner", {{"host", host}, {"boot_id", boot}, {"pid", pid},
                                   {"pid_start", ProcStart(pid)}}}};
    Write(p / ".tusk-results", m.dump());
    Write(p / "flows.csv", "half a run\n");
    return p;
}

/** The pid of a process that has exited. */
long
DeadPid()
{
    const Outcome o = Shell("sh -c 'echo $$'");
    return std::stol(o.output);
}

} // namespace

TEST_CASE("tusk run --out: a folder holding anything tusk did not write is never replaced",
          "[component][cli][results-safety]")
{
    const auto d = Scratch("safety-foreign");

    // A file named manifest.json does not make a results folder: exit 2, nothing touched.
    fs::create_directories(d / "thesis");
    Write(d / "thesis" / "manifest.json", "{\"name\": \"my web app\"}\n");
    Write(d / "thesis" / "thesis.tex", "three years of work\n");
    fs::create_directories(d / "thesis" / "chapters");
    Write(d / "thesis" / "chapters" / "ch1.tex", "one\n");
    auto o = RunSmall(d, d / "thesis");
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(o.output.find("thesis.tex") != std::string::npos);
    // What it holds is said one level deep (a home directory is not walked to say it).
    CHECK(o.output.find("chapters/") != std::string::npos);
    CHECK(o.output.find("ch1.tex") == std::string::npos);
    CHECK(Slurp(d / "thesis" / "thesis.tex") == "three years of work\n");
    CHECK(Slurp(d / "thesis" / "manifest.json") == "{\"name\": \"my web app\"}\n");
    CHECK(Named(d, "thesis.").empty()); // no staging folder, no lock left

    // Neither does comparison.csv, through [output] dir; many files: a few, then "and N more".
    fs::create_directories(d / "data");
    Write(d / "data" / "comparison.csv", "policy\n");
    for (int i = 0; i < 8; ++i)
    {
        Write(d / "data" / ("sample" + std::to_string(i) + ".dat"), "x\n");
    }
    o = Tusk("run " + (d / "s.toml").string() + " -q --set 'output.dir=\"" + (d / "data").string() +
             "\"'");
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(o.output.find("and 4 more") != std::string::npos);
    CHECK(fs::exists(d / "data" / "sample7.dat"));

    // A run tusk wrote is replaced, and holds the marker, listing its files.
    o = RunSmall(d, d / "out");
    REQUIRE(o.status == 0);
    const auto marker = nlohmann::json::parse(Slurp(d / "out" / ".tusk-results"));
    CHECK(marker["tusk_results"] == 1);
    CHECK(marker["kind"] == "run");
    CHECK(marker["state"] == "complete");
    CHECK(marker["files"].size() >= 8);
    // ... also with results folders of tusk's inside it (a rerun, a report).
    fs::copy(d / "out", d / "copy", fs::copy_options::recursive);
    fs::rename(d / "copy", d / "out" / "report");
    o = RunSmall(d, d / "out");
    CHECK(o.status == 0);
    CHECK(!fs::exists(d / "out" / "report"));

    // One file of the user's in it, at any depth: refused, named, kept.
    fs::copy(d / "out", d / "copy", fs::copy_options::recursive);
    fs::rename(d / "copy", d / "out" / "report");
    Write(d / "out" / "report" / "notes.txt", "mine\n");
    o = RunSmall(d, d / "out");
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(o.output.find("report/notes.txt") != std::string::npos);
    CHECK(Slurp(d / "out" / "report" / "notes.txt") == "mine\n");

    // Results of a tusk from before the marker: refused, saying how to proceed.
    fs::remove_all(d / "out" / "report");
    fs::remove(d / "out" / ".tusk-results");
    o = RunSmall(d, d / "out");
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(o.output.find("rm -r") != std::string::npos);
    CHECK(fs::exists(d / "out" / "manifest.json"));

    // A comparison: marked, replaced by the next comparison, refused with a file of the user's.
    o = Tusk("compare " + (d / "s.toml").string() + " --policies ecmp,spray -q --out " +
             (d / "cmp").string());
    REQUIRE(o.status == 0);
    CHECK(nlohmann::json::parse(Slurp(d / "cmp" / ".tusk-results"))["kind"] == "compare");
    o = Tusk("compare " + (d / "s.toml").string() + " --policies ecmp,spray -q --out " +
             (d / "cmp").string());
    CHECK(o.status == 0);
    Write(d / "cmp" / "ecmp" / "plot.py", "import this\n");
    o = Tusk("compare " + (d / "s.toml").string() + " --policies ecmp -q --out " +
             (d / "cmp").string());
    CHECK(o.status == 2);
    CHECK(o.output.find("ecmp/plot.py") != std::string::npos);
    CHECK(fs::exists(d / "cmp" / "spray" / "flows.csv"));
}

TEST_CASE("tusk run: a second writer of the same --out is refused with the holder's pid",
          "[component][cli][results-safety]")
{
    const auto d = Scratch("safety-lock");
    // The first run is stopped (SIGSTOP) while it holds the lock, so the second meets a live
    // holder however slow the machine (or a sanitizer build) is, and then continued; its
    // workload only needs to outlast the owner record's appearance by the time it takes to stop it.
    LongRun first(d, d / "out", "200MB");
    REQUIRE(::kill(static_cast<pid_t>(first.pid), SIGSTOP) == 0);
    Outcome o{0, ""};
    try
    {
        o = RunSmall(d, d / "out");
    }
    catch (...)
    {
        ::kill(static_cast<pid_t>(first.pid), SIGCONT);
        throw;
    }
    REQUIRE(::kill(static_cast<pid_t>(first.pid), SIGCONT) == 0);
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(o.output.find("pid " + std::to_string(first.pid)) != std::string::npos);
    first.Wait();
    INFO(first.outcome.output);
    CHECK(first.outcome.status == 0);
    // The first run's results are there, whole; no lock file or staging folder is left.
    CHECK(nlohmann::json::parse(Slurp(d / "out" / "manifest.json"))["seed"] == 7);
    CHECK(Named(d, "out.").empty());
}

TEST_CASE("tusk run: staging folders of killed runs are removed by the next run to that "
          "destination, a live owner's never",
          "[component][cli][results-safety]")
{
    const auto d = Scratch("safety-stale");
    {
        LongRun killed(d, d / "out", "4GB");
        REQUIRE(::kill(static_cast<pid_t>(killed.pid), SIGKILL) == 0);
    }
    REQUIRE(Named(d, "out.staging-").size() == 1);
    const fs::path live = PlantStaging(d / "out", "live00", ::getpid());
    const fs::path dead = PlantStaging(d / "out", "dead00", DeadPid());
    const fs::path other = PlantStaging(d / "other", "dead00", DeadPid()); // another destination
    fs::create_directories(d / ("out.old-" + std::to_string(DeadPid())));
    // Killed before it wrote its owner record: removed once a minute old, kept while it may
    // still be starting.
    const fs::path bareOld = d / "out.staging-bare00";
    const fs::path bareNew = d / "out.staging-bare01";
    fs::create_directories(bareOld);
    fs::create_directories(bareNew);
    fs::last_write_time(bareOld, fs::file_time_type::clock::now() - std::chrono::minutes(5));

    auto o = RunSmall(d, d / "out");
    INFO(o.output);
    REQUIRE(o.status == 0);
    CHECK(Named(d, "out.staging-") ==
          std::vector<std::string>{bareNew.filename().string(), live.filename().string()});
    CHECK(Named(d, "out.old-").empty());
    CHECK(!fs::exists(d / "out.lock"));
    CHECK(fs::exists(live / "flows.csv"));
    CHECK(fs::exists(other / "flows.csv"));
    CHECK(!fs::exists(dead));

    // A sweep cleans the stale staging folders of its whole tree.
    fs::remove_all(live);
    fs::remove_all(bareNew);
    Write(d / "base.toml", tusk_test::kSmallScenario);
    Write(d / "sw.toml", "name = \"sw\"\nscenario = \"base.toml\"\n[[axis]]\nkey = \"seed\"\n"
                         "values = [1]\n");
    fs::create_directories(d / "root");
    const fs::path staleRun = PlantStaging(d / "root" / "old-run", "dead00", DeadPid());
    o = Tusk("sweep " + (d / "sw.toml").string() + " -q -j 1 --out " + (d / "root").string());
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK(!fs::exists(staleRun));
}

TEST_CASE("tusk run: a file size limit or a full disk exits 3 with the OS's words and the "
          "path, and the previous results stay intact",
          "[component][cli][results-safety]")
{
    const auto d = Scratch("safety-full");
    REQUIRE(RunSmall(d, d / "out", "--set seed=1").status == 0);
    const std::string before = Slurp(d / "out" / "manifest.json");

    // ulimit -f 1: no file beyond 1 KiB (flows.csv is larger). Not killed by SIGXFSZ.
    auto o = Shell("ulimit -f 1; exec " + kTusk + " run " + (d / "s.toml").string() + " --out " +
                   (d / "out").string() + " -q --set seed=2");
    INFO(o.output);
    CHECK(o.status == 3);
    CHECK(o.output.find("File too large") != std::string::npos);
    CHECK(o.output.find(".csv") != std::string::npos);
    CHECK(Slurp(d / "out" / "manifest.json") == before);
    CHECK(Named(d, "out.").empty());

    // A full filesystem: a 1 MiB tmpfs, filled. Needs root (mount).
    const fs::path mnt = d / "tmpfs";
    fs::create_directories(mnt);
    if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=1m") != 0)
    {
        WARN("cannot mount a tmpfs (not root?): the full-disk case is not checked");
        return;
    }
    REQUIRE(RunSmall(d, mnt / "out", "--set seed=1").status == 0);
    const std::string onTmpfs = Slurp(mnt / "out" / "manifest.json");
    Shell("dd if=/dev/zero of=" + (mnt / "fill").string() + " bs=4k >/dev/null");
    o = RunSmall(d, mnt / "out", "--set seed=2");
    const std::string after = Slurp(mnt / "out" / "manifest.json");
    const auto left = Named(mnt, "out.");
    ::umount2(mnt.c_str(), MNT_DETACH); // before the checks: a failed REQUIRE must not leave it
    INFO(o.output);
    CHECK(o.status == 3);
    CHECK(o.output.find("No space left on device") != std::string::npos);
    CHECK(after == onTmpfs);
    CHECK(left.empty());
}

TEST_CASE("tusk sweep and regress: a root that cannot be written or that another sweep holds "
          "is refused with exit 2",
          "[component][cli][results-safety]")
{
    const auto d = Scratch("safety-sweep");
    Write(d / "base.toml", tusk_test::kSmallScenario);
    Write(d / "sw.toml", "name = \"sw\"\nscenario = \"base.toml\"\n[[axis]]\nkey = \"seed\"\n"
                         "values = [1]\n");
    Write(d / "suite.toml", "name = \"su\"\npolicies = [\"ecmp\"]\n[[scenario]]\nname = \"a\"\n"
                            "file = \"base.toml\"\nmetrics = [\"fct_p99_us\"]\n");

    // A root below a regular file cannot be created, even by root.
    Write(d / "file", "");
    auto o = Tusk("sweep " + (d / "sw.toml").string() + " -q --out " + (d / "file" / "root").string());
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(o.output.find("Not a directory") != std::string::npos);
    if (::geteuid() != 0)
    {
        fs::create_directories(d / "ro");
        fs::permissions(d / "ro", fs::perms::owner_read | fs::perms::owner_exec);
        o = Tusk("sweep " + (d / "sw.toml").string() + " -q --out " + (d / "ro" / "root").string());
        fs::permissions(d / "ro", fs::perms::owner_all);
        CHECK(o.status == 2);
    }
    else
    {
        WARN("running as root: a chmod read-only root would still be writable; checked with a "
             "root below a regular file only");
    }

    // The lock of a sweep tree, held here: sweep and regress are refused, naming this pid.
    const std::vector<std::tuple<std::string, std::string, fs::path>> trees = {
        {"sweep", "sw.toml", d / "root"}, {"regress", "suite.toml", d / "rroot"}};
    for (const auto& [cmd, file, root] : trees)
    {
        fs::create_directories(root / ".sweep");
        const int fd = ::open((root / ".sweep" / "lock").c_str(), O_RDWR | O_CREAT, 0644);
        REQUIRE(fd >= 0);
        REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
        const std::string pid = std::to_string(::getpid());
        REQUIRE(::write(fd, pid.data(), pid.size()) == static_cast<ssize_t>(pid.size()));
        o = Tusk(cmd + " " + (d / file).string() + " -q -j 1 --out " + root.string());
        ::close(fd);
        INFO(o.output);
        CHECK(o.status == 2);
        CHECK(o.output.find("pid " + pid) != std::string::npos);
    }
}

TEST_CASE("tusk run: a user's folder or file named like tusk's own (NAME.old-N, NAME.lock) is "
          "never removed, moved or written",
          "[component][cli][results-safety]")
{
    const fs::path d = Scratch("results-safety-lookalikes");
    REQUIRE(RunSmall(d, d / "res").status == 0);
    // Folders named as a commit's `.old-PID` would be, with a pid no process has: the user's
    // (no marker), so they stay, with their files, and are never put in place of `other`.
    fs::create_directories(d / "res.old-2023");
    fs::create_directories(d / "other.old-777");
    Write(d / "res.old-2023" / "thesis.csv", "x\n");
    Write(d / "other.old-777" / "f", "y\n");
    fs::create_directories(d / "res.old-99999999999999999999");
    const Outcome again = RunSmall(d, d / "res");
    CHECK(again.status == 0);
    CHECK(again.output.find("internal error") == std::string::npos);
    CHECK(Slurp(d / "res.old-2023" / "thesis.csv") == "x\n");
    CHECK(fs::is_directory(d / "res.old-99999999999999999999"));
    REQUIRE(RunSmall(d, d / "other").status == 0);
    CHECK(Slurp(d / "other.old-777" / "f") == "y\n");
    CHECK(!fs::exists(d / "other" / "f"));

    // A symlink where the lock goes is never followed (its target would be truncated), and a
    // file of the user's there is neither used nor removed: exit 2, both untouched.
    Write(d / "important.txt", "keep me\n");
    fs::create_symlink(d / "important.txt", d / "res.lock");
    const Outcome link = RunSmall(d, d / "res");
    CHECK(link.status == 2);
    CHECK(Slurp(d / "important.txt") == "keep me\n");
    CHECK(fs::is_symlink(fs::symlink_status(d / "res.lock")));
    fs::remove(d / "res.lock");
    Write(d / "res.lock", "my notes\n");
    const Outcome notes = RunSmall(d, d / "res");
    CHECK(notes.status == 2);
    CHECK(notes.output.find("not a lock file tusk wrote") != std::string::npos);
    CHECK(Slurp(d / "res.lock") == "my notes\n");
}

TEST_CASE("tusk run: --out with a trailing slash or '.' locks and stages beside the folder, "
          "never in it",
          "[component][cli][results-safety]")
{
    const fs::path d = Scratch("results-safety-slash");
    REQUIRE(RunSmall(d, d / "new1/").status == 0); // RunSmall joins: ".../new1/"
    CHECK(fs::exists(d / "new1" / "flows.csv"));
    CHECK(!fs::exists(d / "new1" / ".lock"));
    CHECK(Named(d / "new1", ".staging").empty());
    // Again onto the results it wrote: replaced, as any tusk results folder is.
    CHECK(RunSmall(d, d / "new1/").status == 0);
    CHECK(Named(d, "new1.").empty()); // no lock or staging folder left beside it
    const Outcome root = Tusk("run " + (d / "s.toml").string() + " --out / -q");
    CHECK(root.status == 2);
    CHECK(root.output.find("root folder") != std::string::npos);
}

TEST_CASE("tusk rerun and tusk report never write over the results they read",
          "[component][cli][results-safety][rerun]")
{
    const fs::path d = Scratch("results-safety-self");
    Write(d / "s.toml", tusk_test::kSmallScenario);
    REQUIRE(Tusk("compare " + (d / "s.toml").string() + " --policies ecmp,spray -q --out " +
                 (d / "cmp").string())
                .status == 0);
    // --out at the comparison holding the run: the commit would replace the comparison.
    const Outcome parent = Tusk("rerun " + (d / "cmp" / "ecmp").string() + " -q --out " +
                                (d / "cmp").string());
    CHECK(parent.status == 2);
    CHECK(fs::exists(d / "cmp" / "comparison.csv"));
    CHECK(fs::exists(d / "cmp" / "spray" / "flows.csv"));
    // A trailing slash names the run folder, not a hidden `.rerun` inside it.
    REQUIRE(Tusk("rerun " + (d / "cmp" / "ecmp").string() + "/ -q").status == 0);
    CHECK(fs::exists(d / "cmp" / "ecmp.rerun" / "flows.csv"));
    CHECK(!fs::exists(d / "cmp" / "ecmp" / ".rerun"));
    // The report's --out at the results it reads, or at a folder holding them.
    for (const fs::path& out : {d / "cmp" / "ecmp", d / "cmp"})
    {
        const Outcome r = Tusk("report " + (d / "cmp" / "ecmp").string() + " --out " + out.string());
        CHECK(r.status == 2);
        CHECK(fs::exists(d / "cmp" / "ecmp" / "flows.csv"));
        CHECK(fs::exists(d / "cmp" / "comparison.csv"));
    }
}

TEST_CASE("tusk sweep: runs or an index the disk refuses exit 3, and leave no half index",
          "[component][sweep][results-safety]")
{
    const auto d = Scratch("safety-sweep-full");
    // Each run samples its queues every 0.1 µs: a timeseries.csv of a few hundred KiB, far
    // above the 64 KiB limit, while the two-run index fits under it.
    Write(d / "s.toml", std::string(tusk_test::kSmallScenario) + "[output]\nsample_us = 0.1\n");
    Write(d / "sw.toml", "name = \"full\"\nscenario = \"s.toml\"\n[[axis]]\nkey = \"seed\"\n"
                         "values = [1, 2]\n");
    auto o = Shell("ulimit -f 64; exec " + kTusk + " sweep " + (d / "sw.toml").string() +
                   " -q --out " + (d / "a").string());
    INFO(o.output);
    CHECK(o.status == 3); // was 1: every run failed to write, as `tusk run` says with 3
    CHECK(o.output.find("2 errors") != std::string::npos);
    CHECK(fs::exists(d / "a" / "index.sqlite"));

    // ulimit -f 8: the runs fail and so does index.sqlite (about 24 KiB): exit 3 naming it,
    // and no index.sqlite.tmp-* left behind.
    o = Shell("ulimit -f 8; exec " + kTusk + " sweep " + (d / "sw.toml").string() + " -q --out " +
              (d / "b").string());
    INFO(o.output);
    CHECK(o.status == 3);
    CHECK(o.output.find("index.sqlite") != std::string::npos);
    CHECK(Named(d / "b", "index.sqlite").empty());
}

} // namespace TUSK_TEST_FILE
