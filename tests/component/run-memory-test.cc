// Component tests of what a run holds per transfer: the executor's transfer records are freed
// once their result rows are built, so the collection stage does not hold two copies of every
// transfer's results (docs/performance.md, "Memory"). A [[jobs]] run builds its iterations as
// they start and frees each when it has finished; an edited workload (RunOptions::editWorkload)
// is built whole, every record held until the rows are built: the transfers held do not grow
// with the iterations, and the results are those of the whole build. Tiny leaf-spine, job of a
// few iterations, a few microseconds each.

#include "run-helpers.h"

#include "results/results-writer.h"

#include "workload/model/workload-executor.h"

#include "ns3/simulator.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <set>
#include <string>

#include <unistd.h>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

/** A ring all-reduce job over the 4 hosts of a 2x1x2 leaf-spine, `iterations` times, with
 *  `extra`: a non-blocking all-gather every 2nd iteration and compute between iterations. */
tusk::ScenarioSpec
RingJob(uint32_t iterations, bool extra = false)
{
    tusk::ScenarioSpec s = LeafSpine(2, 1, 2, 100);
    s.workload.kind = "jobs";
    tusk::JobEntry j;
    j.name = "ring";
    j.iterations = iterations;
    tusk::JobCollectiveEntry c;
    c.kind = "all-reduce";
    c.bytes = 16 * 1024;
    j.collectives.push_back(c);
    if (extra)
    {
        j.computePs = 2'000'000;
        tusk::JobCollectiveEntry g;
        g.kind = "all-gather";
        g.bytes = 8 * 1024;
        g.blocking = false;
        g.every = 2;
        g.computePs = 500'000;
        j.collectives.push_back(g);
    }
    s.jobs.push_back(j);
    return s;
}

struct Held
{
    uint64_t afterRun = 0;     //!< records held when the simulation stopped
    uint64_t afterCollect = 0; //!< records held when the results were collected
};

Held
RunAndCount(const tusk::ScenarioSpec& s, tusk::RunResult& result, bool whole)
{
    Held h;
    tusk::RunOptions o;
    if (whole)
    {
        o.editWorkload = [](ns3::WorkloadSpec&) {};
    }
    o.afterRun = [&h](ns3::Fabric&, const std::vector<ns3::Ptr<ns3::RdmaNic>>&) {
        h.afterRun = ns3::WorkloadExecutor::LiveRecords();
    };
    o.afterCollect = [&h]() { h.afterCollect = ns3::WorkloadExecutor::LiveRecords(); };
    result = Run(s, o);
    return h;
}

/** The most transfers held at once during the run, sampled every 100 ns of simulated time
 *  (an iteration of RingJob lasts microseconds). */
uint64_t
MaxLive(const tusk::ScenarioSpec& s, tusk::RunResult& r)
{
    uint64_t most = 0;
    const uint64_t before = ns3::WorkloadExecutor::LiveRecords();
    std::function<void()> sample = [&]() {
        most = std::max(most, ns3::WorkloadExecutor::LiveRecords() - before);
        ns3::Simulator::Schedule(ns3::NanoSeconds(100), sample);
    };
    tusk::RunOptions o;
    o.beforeRun = [&](ns3::Fabric&, const std::vector<ns3::Ptr<ns3::RdmaNic>>&) { sample(); };
    r = Run(s, o);
    return most;
}

} // namespace

TEST_CASE("a finished run frees every transfer record once its flow rows are built, however "
          "many iterations it ran",
          "[component][memory]")
{
    const uint64_t before = ns3::WorkloadExecutor::LiveRecords();
    for (uint32_t iterations : {2u, 8u})
    {
        for (bool whole : {true, false})
        {
            CAPTURE(iterations, whole);
            tusk::RunResult r;
            const Held h = RunAndCount(RingJob(iterations), r, whole);
            REQUIRE(r.finished);
            // Built whole: one record per transfer while the run is on (grows with the
            // iterations); built iteration by iteration: every iteration freed once finished.
            CHECK(h.afterRun == before + (whole ? r.flows.size() : 0));
            // ... none once the rows hold the results: flat in the iteration count.
            CHECK(h.afterCollect == before);
            CHECK(ns3::WorkloadExecutor::LiveRecords() == before);
        }
    }
}

TEST_CASE("an unfinished run keeps its transfer records to name what is blocked",
          "[component][memory]")
{
    tusk::ScenarioSpec s = RingJob(4);
    s.stopTimePs = 2'000'000; // 2 us: the first step has not finished
    s.requireFinish = true;
    tusk::RunResult r;
    tusk::RunOptions o;
    uint64_t held = 0;
    o.afterCollect = [&held]() { held = ns3::WorkloadExecutor::LiveRecords(); };
    o.progress = false;
    r = tusk::RunScenario(s, o);
    REQUIRE_FALSE(r.finished);
    // The unfinished iteration's records (the first of four: built iteration by iteration,
    // the later ones do not exist yet).
    CHECK(held >= r.flows.size() / 4);
    CHECK(held > 0);
    // DescribeBlocked read the records: the failure names a transfer that waits or is in flight.
    CHECK_THAT(r.failure, Catch::Contains("transfers unfinished"));
    CHECK_THAT(r.failure, Catch::Contains("transfer "));
}

TEST_CASE("a job's live transfers stay within two iterations, however many it runs",
          "[component][memory][lazy]")
{
    tusk::RunResult r10;
    tusk::RunResult r50;
    const uint64_t live10 = MaxLive(RingJob(10), r10);
    const uint64_t live50 = MaxLive(RingJob(50), r50);
    REQUIRE(r10.finished);
    REQUIRE(r50.finished);
    const uint64_t perIteration = r10.flows.size() / 10;
    REQUIRE(r50.flows.size() == 50 * perIteration);
    CAPTURE(perIteration, live10, live50);
    CHECK(live10 > 0);
    // The next iteration is built when the previous one is delivered, the previous one freed
    // once also acknowledged: at most two at once (a whole build holds all 50).
    CHECK(live50 <= 2 * perIteration);
    CHECK(live50 == live10);
}

TEST_CASE("a job's results are the same built iteration by iteration and whole",
          "[component][lazy]")
{
    const tusk::ScenarioSpec s = RingJob(6, true);
    const tusk::RunResult lazy = Run(s);
    tusk::RunOptions whole;
    whole.editWorkload = [](ns3::WorkloadSpec&) {}; // an edited workload is built whole
    const tusk::RunResult ref = Run(s, whole);
    REQUIRE(lazy.finished);
    REQUIRE(ref.finished);
    REQUIRE(lazy.flows.size() == ref.flows.size());
    for (size_t i = 0; i < ref.flows.size(); ++i)
    {
        const tusk::FlowRow& a = lazy.flows[i];
        const tusk::FlowRow& b = ref.flows[i];
        CAPTURE(i);
        CHECK(a.id == b.id);
        CHECK(a.src == b.src);
        CHECK(a.dst == b.dst);
        CHECK(a.bytes == b.bytes);
        CHECK(a.startPs == b.startPs);
        CHECK(a.finishPs == b.finishPs);
        CHECK(a.fctSenderPs == b.fctSenderPs);
        CHECK(a.idealFctPs == b.idealFctPs);
        CHECK(a.fairIdealPs == b.fairIdealPs);
        CHECK(a.entropy == b.entropy);
        CHECK(a.pktsSent == b.pktsSent);
        CHECK(a.pktsReceived == b.pktsReceived);
        CHECK(a.paths == b.paths);
        CHECK(a.collective == b.collective);
        CHECK(a.step == b.step);
    }
    REQUIRE(lazy.collectives.size() == ref.collectives.size());
    for (size_t c = 0; c < ref.collectives.size(); ++c)
    {
        CAPTURE(c);
        CHECK(lazy.collectives[c].iteration == ref.collectives[c].iteration);
        CHECK(lazy.collectives[c].startPs == ref.collectives[c].startPs);
        CHECK(lazy.collectives[c].finishPs == ref.collectives[c].finishPs);
        CHECK(lazy.collectives[c].stepEndPs == ref.collectives[c].stepEndPs);
        CHECK(lazy.collectives[c].stepSlowestFlow == ref.collectives[c].stepSlowestFlow);
        CHECK(lazy.collectives[c].criticalFlow == ref.collectives[c].criticalFlow);
    }
    REQUIRE(lazy.waits.size() == ref.waits.size());
    for (size_t w = 0; w < ref.waits.size(); ++w)
    {
        CAPTURE(w);
        CHECK(lazy.waits[w].collective == ref.waits[w].collective);
        CHECK(lazy.waits[w].readyPs == ref.waits[w].readyPs);
        CHECK(lazy.waits[w].arrivalPs == ref.waits[w].arrivalPs);
        CHECK(lazy.waits[w].lastTransfer == ref.waits[w].lastTransfer);
    }
    REQUIRE(lazy.jobs.size() == 1);
    CHECK(lazy.jobs[0].iterationEndPs == ref.jobs[0].iterationEndPs);
    CHECK(lazy.summary.p99Slowdown == ref.summary.p99Slowdown);
}

namespace
{

std::string
ReadFile(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/** A fresh folder name for a run's results (not made). */
std::filesystem::path
FreshDir()
{
    static int n = 0;
    std::filesystem::path dir =
        std::filesystem::temp_directory_path() /
        ("tusk-stream-test-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    std::filesystem::remove_all(dir);
    return dir;
}

/** `s` run by RunInto into a fresh folder with the rows streamed (RunOptions::streamRows, or
 *  kept in memory with `stream` false); the folder is returned in `dir`. */
tusk::RunResult
RunStreamed(const tusk::ScenarioSpec& s,
            std::filesystem::path& dir,
            tusk::RunOptions o = tusk::RunOptions(),
            bool stream = true)
{
    dir = FreshDir();
    o.progress = false;
    o.streamRows = stream;
    return tusk::RunInto(s, dir.string(), o);
}

/** What this process's open files that are unlinked ("PATH (deleted)") are, by fd target. */
std::vector<std::string>
DeletedOpenFiles()
{
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd"))
    {
        std::error_code ec;
        const std::string target = std::filesystem::read_symlink(e.path(), ec).string();
        const std::string deleted = " (deleted)";
        if (!ec && target.size() > deleted.size() &&
            target.compare(target.size() - deleted.size(), deleted.size(), deleted) == 0)
        {
            out.push_back(target);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

/** The scratch files of a streamed run (row-stream.h: `.rows-XXXXXX`, unlinked) among `files`. */
size_t
ScratchFiles(const std::vector<std::string>& files)
{
    return std::count_if(files.begin(), files.end(), [](const std::string& f) {
        return f.find("/.rows-") != std::string::npos;
    });
}

/** Paths of the files below `dir`, relative to it, sorted. */
std::vector<std::string>
FilesBelow(const std::filesystem::path& dir)
{
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    {
        out.push_back(e.path().lexically_relative(dir).string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

/** Two jobs that retire interleaved (job b's rows go after all of job a's) and background
 *  flows (ids after both jobs'). */
tusk::ScenarioSpec
TwoJobsAndBackground()
{
    tusk::ScenarioSpec s = RingJob(5, true);
    s.jobs[0].placement = "explicit";
    s.jobs[0].hosts = {0, 2};
    tusk::JobEntry b = RingJob(7).jobs[0];
    b.name = "b";
    b.placement = "explicit";
    b.hosts = {1, 3};
    s.jobs.push_back(b);
    tusk::BackgroundEntry bg;
    bg.cdfFile = std::string(TUSK_SOURCE_DIR) + "/data/hpcc/WebSearch_distribution.txt";
    bg.load = 0.5;
    bg.durationPs = 100'000'000; // 100 us
    s.background.push_back(bg);
    return s;
}

} // namespace

TEST_CASE("a job's rows streamed to the files as its iterations retire are the rows kept in "
          "memory, byte for byte",
          "[component][memory][lazy]")
{
    // Two jobs that retire interleaved (job b's rows go after all of job a's) and background
    // flows (ids after both jobs'): the order the files must keep. Summary percentiles and
    // means, job rows and invariants from the streamed values equal those from the rows.
    const tusk::ScenarioSpec s = TwoJobsAndBackground();
    std::filesystem::path dir;
    const tusk::RunResult streamed = RunStreamed(s, dir);
    const tusk::RunResult kept = Run(s);
    REQUIRE(kept.finished);
    REQUIRE(streamed.finished);
    REQUIRE(streamed.streamed.active);
    CHECK(streamed.flows.empty());
    CHECK(streamed.collectives.empty());
    CHECK(streamed.waits.empty());
    size_t background = 0;
    for (const auto& f : kept.flows)
    {
        background += f.background ? 1 : 0;
    }
    CHECK(background > 0);
    CHECK(streamed.streamed.flows == kept.flows.size());
    CHECK(ReadFile(dir / "flows.csv") == tusk::FlowsCsv(kept));
    CHECK(ReadFile(dir / "collectives.csv") == tusk::CollectivesCsv(kept));
    CHECK(ReadFile(dir / "waits.csv") == tusk::WaitsCsv(kept));
    CHECK(ReadFile(dir / "jobs.csv") == tusk::JobsCsv(kept));
    const tusk::RunSummary& a = streamed.summary;
    const tusk::RunSummary& k = kept.summary;
    CHECK(a.flows == k.flows);
    CHECK(a.unfinished == k.unfinished);
    CHECK(a.meanSlowdown == k.meanSlowdown);
    CHECK(a.p50Slowdown == k.p50Slowdown);
    CHECK(a.p99Slowdown == k.p99Slowdown);
    CHECK(a.p999Slowdown == k.p999Slowdown);
    CHECK(a.maxSlowdown == k.maxSlowdown);
    CHECK(a.meanFairSlowdown == k.meanFairSlowdown);
    CHECK(a.p99FairSlowdown == k.p99FairSlowdown);
    CHECK(a.p99FctUs == k.p99FctUs);
    CHECK(a.maxFctUs == k.maxFctUs);
    CHECK(a.cctUs == k.cctUs);
    CHECK(a.retxPackets == k.retxPackets);
    CHECK(a.reorderMean == k.reorderMean);
    CHECK(streamed.invariantViolations == kept.invariantViolations);
    std::filesystem::remove_all(dir);
}

TEST_CASE("a streamed job holds one iteration's rows at a time, however many it runs",
          "[component][memory][lazy]")
{
    // The property behind a 1,000-iteration job's memory staying that of a 10-iteration one
    // (docs/performance.md): with the rows streamed, the most flow rows held at once is one
    // iteration's, at 4 iterations as at 16; kept in memory, every row is held to the end.
    std::filesystem::path dir4;
    std::filesystem::path dir16;
    const tusk::RunResult r4 = RunStreamed(RingJob(4), dir4);
    const tusk::RunResult r16 = RunStreamed(RingJob(16), dir16);
    REQUIRE(r4.finished);
    REQUIRE(r16.finished);
    REQUIRE(r16.streamed.flows == 4 * r4.streamed.flows);
    const uint64_t perIteration = r4.streamed.flows / 4;
    CAPTURE(perIteration, r4.streamed.maxRowsHeld, r16.streamed.maxRowsHeld);
    CHECK(r4.streamed.maxRowsHeld == perIteration);
    CHECK(r16.streamed.maxRowsHeld == perIteration);
    CHECK(r16.streamed.collectives.size() == 16);
    std::filesystem::remove_all(dir4);
    std::filesystem::remove_all(dir16);
}

TEST_CASE("a two-job run stopped before its later iterations start writes collectives.csv and "
          "waits.csv from rows whose ids have gaps",
          "[component][memory]")
{
    // Job 0 is built iteration by iteration and its ids run 0..; job 1's ids start after all
    // of job 0's iterations. Stopped early, job 0's unstarted iterations have no rows, so a
    // transfer id is not a position in RunResult::flows: the critical flow and the last
    // transfer of a wait must be looked up by id (this read past the end before).
    tusk::ScenarioSpec s = RingJob(30);
    s.jobs[0].ranks = 2; // two hosts each: jobs take free hosts in order
    tusk::JobEntry second = s.jobs[0];
    second.name = "second";
    s.jobs.push_back(second);
    s.stopTimePs = 15'000'000; // 15 us: a few iterations of each job
    s.requireFinish = false;
    const tusk::RunResult r = Run(s);
    REQUIRE_FALSE(r.finished);
    REQUIRE(!r.flows.empty());
    // A gap: the rows are in id order and the last id is past the row count.
    CHECK(r.flows.back().id >= r.flows.size());
    const std::string collectives = tusk::CollectivesCsv(r);
    const std::string waits = tusk::WaitsCsv(r);
    uint32_t withCritical = 0;
    for (const auto& c : r.collectives)
    {
        if (c.criticalFlow < 0)
        {
            continue;
        }
        ++withCritical;
        const auto it = std::find_if(r.flows.begin(), r.flows.end(), [&](const tusk::FlowRow& f) {
            return f.id == static_cast<uint64_t>(c.criticalFlow);
        });
        REQUIRE(it != r.flows.end()); // the critical transfer has a row
    }
    CHECK(withCritical > 0);
    CHECK(static_cast<size_t>(std::count(collectives.begin(), collectives.end(), '\n')) ==
          r.collectives.size() + 1);
    // collectives.csv's critical_flow names the critical transfer's own id, row by row.
    std::istringstream lines(collectives);
    std::string line;
    std::getline(lines, line);
    size_t column = 0;
    {
        std::istringstream header(line);
        std::string name;
        for (size_t k = 0; std::getline(header, name, ','); ++k)
        {
            column = name == "critical_flow" ? k : column;
        }
    }
    REQUIRE(column > 0);
    for (const auto& c : r.collectives)
    {
        REQUIRE(std::getline(lines, line));
        std::istringstream cells(line);
        std::string cell;
        for (size_t k = 0; k <= column; ++k)
        {
            std::getline(cells, cell, ',');
        }
        CHECK(cell == (c.criticalFlow < 0 ? "" : std::to_string(c.criticalFlow)));
    }
    CHECK(static_cast<size_t>(std::count(waits.begin(), waits.end(), '\n')) ==
          r.waits.size() + 1);
}

TEST_CASE("a streamed run's scratch files are unnamed files in its staging folder, gone when it "
          "commits or is interrupted",
          "[component][memory][lazy]")
{
    // row-stream.h, "Scratch files": the parts' text (job b, the background flows) and spilled
    // values go to the results' filesystem, not the system's temporary folder (a tmpfs there is
    // memory the peak RSS does not count), and never have a name in the results: not in the
    // committed folder, not in the marker's file list. Before, they were std::tmpfile()s in
    // /tmp ("/tmp/#123 (deleted)").
    const tusk::ScenarioSpec s = TwoJobsAndBackground();
    const std::vector<std::string> before = DeletedOpenFiles();
    const auto opened = [&before]() {
        std::vector<std::string> out;
        for (const auto& f : DeletedOpenFiles())
        {
            if (!std::binary_search(before.begin(), before.end(), f))
            {
                out.push_back(f);
            }
        }
        return out;
    };
    std::filesystem::path dir;
    const auto stagingFolders = [&dir]() {
        std::vector<std::filesystem::path> out;
        for (const auto& e : std::filesystem::directory_iterator(dir.parent_path()))
        {
            if (e.path().filename().string().rfind(dir.filename().string() + ".staging-", 0) == 0)
            {
                out.push_back(e.path());
            }
        }
        return out;
    };
    std::vector<std::string> during;
    std::vector<std::string> namedDuring;
    tusk::RunOptions o;
    o.afterRun = [&](ns3::Fabric&, const std::vector<ns3::Ptr<ns3::RdmaNic>>&) {
        during = opened();
        for (const auto& staging : stagingFolders())
        {
            for (const auto& f : FilesBelow(staging))
            {
                namedDuring.push_back(f);
            }
        }
    };
    const tusk::RunResult r = RunStreamed(s, dir, o);
    REQUIRE(r.streamed.active);
    CAPTURE(during, namedDuring);
    CHECK(ScratchFiles(during) >= 2); // job b's text files, the background flows'
    for (const auto& f : during)
    {
        CHECK(f.rfind(dir.string() + ".staging-", 0) == 0); // in the staging folder only
    }
    CHECK(std::none_of(namedDuring.begin(), namedDuring.end(),
                       [](const std::string& f) { return f.rfind(".rows-", 0) == 0; }));
    const std::vector<std::string> files = FilesBelow(dir);
    CAPTURE(files);
    CHECK(std::none_of(files.begin(), files.end(),
                       [](const std::string& f) { return f.find(".rows-") != std::string::npos; }));
    const auto marker = nlohmann::json::parse(ReadFile(dir / ".tusk-results"));
    std::vector<std::string> listed = marker.at("files").get<std::vector<std::string>>();
    listed.push_back(".tusk-results");
    std::sort(listed.begin(), listed.end());
    CHECK(listed == files);
    CHECK(opened().empty()); // closed: their space is free
    std::filesystem::remove_all(dir);

    // Interrupted (RunOptions::poll, as a Ctrl-C in the Python module): the staging folder goes,
    // and the scratch files with the process's last reference to them.
    size_t scratchAtStop = 0;
    int polls = 0;
    tusk::RunOptions stop;
    stop.poll = [&]() {
        if (++polls < 3)
        {
            return true;
        }
        scratchAtStop = ScratchFiles(opened());
        return false;
    };
    CHECK_THROWS_AS(RunStreamed(s, dir, stop), tusk::RunInterrupted);
    CHECK(scratchAtStop >= 1);
    CHECK(opened().empty());
    CHECK(stagingFolders().empty());
    CHECK_FALSE(std::filesystem::exists(dir));
}

TEST_CASE("a stopped [[jobs]] run streamed writes the files of the same run kept in memory, byte "
          "for byte",
          "[component][memory][lazy]")
{
    // stop_time before the jobs end: the rows of the iterations still live are added at the
    // end (run-collect.cc), iterations not started have none (ids with gaps), flows are
    // unfinished. Every file, the manifest but its times, and the marker's file list of the
    // streamed run are those of the same run written from the rows kept in memory.
    tusk::ScenarioSpec s = TwoJobsAndBackground();
    s.jobs[0].iterations = 30;
    s.jobs[1].iterations = 30;
    s.stopTimePs = 40'000'000; // 40 us: both jobs and the background flows under way
    s.requireFinish = false;
    std::filesystem::path streamedDir;
    std::filesystem::path keptDir;
    const tusk::RunResult streamed = RunStreamed(s, streamedDir);
    const tusk::RunResult kept = RunStreamed(s, keptDir, tusk::RunOptions(), false);
    REQUIRE_FALSE(streamed.finished);
    REQUIRE(streamed.streamed.active);
    REQUIRE_FALSE(kept.streamed.active);
    REQUIRE(!kept.flows.empty());
    // What the stop leaves: unfinished flows, job iterations not started (a gap in the ids
    // before the background flows'), and jobs with retired iterations and live ones.
    CHECK(kept.summary.unfinished > 0);
    CHECK(kept.flows.back().id >= kept.flows.size());
    REQUIRE(kept.jobs.size() == 2);
    for (const auto& j : kept.jobs)
    {
        CAPTURE(j.name);
        CHECK_FALSE(j.finished);
        CHECK(j.iterationEndPs.at(0) > 0); // its first iteration finished
    }
    const std::vector<std::string> files = FilesBelow(streamedDir);
    CHECK(files == FilesBelow(keptDir));
    for (const auto& f : files)
    {
        CAPTURE(f);
        const std::string a = ReadFile(streamedDir / f);
        const std::string b = ReadFile(keptDir / f);
        if (f == "manifest.json")
        {
            auto ma = nlohmann::json::parse(a);
            auto mb = nlohmann::json::parse(b);
            for (const char* key : {"wall_time_s", "setup_time_s", "run_time_s"})
            {
                ma.erase(key);
                mb.erase(key);
            }
            CHECK(ma.dump(1) == mb.dump(1));
        }
        else if (f == ".tusk-results")
        {
            CHECK(nlohmann::json::parse(a).at("files") == nlohmann::json::parse(b).at("files"));
        }
        else
        {
            CHECK(a == b);
        }
    }
    CHECK(streamed.summary.unfinished == kept.summary.unfinished);
    CHECK(streamed.invariantViolations == kept.invariantViolations);
    CHECK(streamed.failure == kept.failure);
    std::filesystem::remove_all(streamedDir);
    std::filesystem::remove_all(keptDir);
}

TEST_CASE("late duplicates of a retired iteration do not break packet conservation",
          "[component][memory]")
{
    // Spraying over a leaf-spine with one uplink at 1/4 rate reorders enough that selective
    // repeat resends frames that were only late; some of those duplicates are still on the
    // wire when their iteration is delivered, acknowledged and retired, its rows built with
    // them in flight. They arrive later, past rows that can no longer count them: the run
    // must subtract them (Conservation::settledAfterRows), not fail its invariant (it did:
    // "the flows have 38 data frames in flight, the fabric holds only 21").
    tusk::ScenarioSpec s = LeafSpine(4, 4, 4, 400);
    s.workload.kind = "jobs";
    s.lb.policy = "spray";
    s.nic.receiver = "selective-repeat";
    tusk::JobEntry j;
    j.name = "ring";
    j.iterations = 3;
    j.channels = 2;
    j.placement = "explicit";
    j.hosts = {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};
    tusk::JobCollectiveEntry c;
    c.kind = "all-reduce";
    c.bytes = 4 * 1024 * 1024;
    j.collectives.push_back(c);
    s.jobs.push_back(j);
    tusk::FailureEntry d;
    d.kind = "degrade";
    d.link = "leaf0-spine1";
    d.rateDivisor = 4;
    s.failures.push_back(d);
    const tusk::RunResult r = Run(s);
    INFO(r.failure);
    REQUIRE(r.finished);
    CHECK(r.failure.empty());
    CHECK(r.conservation.settledAfterRows > 0); // the case this test is about happened
    uint64_t spurious = 0;
    int64_t rowsInFlight = 0;
    for (const auto& f : r.flows)
    {
        spurious += f.spuriousRetx;
        rowsInFlight += f.pktsInFlight;
    }
    CHECK(spurious > 0);
    // What the rows still count in flight, less what arrived since, is what the fabric holds.
    CHECK(rowsInFlight - static_cast<int64_t>(r.conservation.settledAfterRows) <=
          static_cast<int64_t>(r.conservation.inFlight));
}

namespace
{

/** A standalone ring all-reduce (workload.kind = "ring-allreduce") over the 48 hosts of a
 *  4x2x12 leaf-spine: 2 x 47 x 48 = 4,512 transfers, more than the 4,096 flow rows a streamed
 *  whole build writes at a time (run-collect.cc), so its rows go out in two chunks. */
tusk::ScenarioSpec
StandaloneRing()
{
    tusk::ScenarioSpec s = LeafSpine(4, 2, 12, 100);
    s.workload.kind = "ring-allreduce";
    s.workload.bytes = 48 * 1024;
    s.lb.policy = "spray"; // several paths per flow: the critical flow's paths column
    return s;
}

} // namespace

TEST_CASE("a standalone collective's rows streamed a few steps at a time are the rows kept in "
          "memory, byte for byte",
          "[component][memory]")
{
    // A whole build (not a job) whose transfers come a collective step after another:
    // flows.csv is written a chunk of whole steps at a time, collectives.csv and waits.csv at
    // the end from what they read of the flows (CollectiveFlow), the critical flow's row built
    // again. Finished, and stopped with steps under way (unfinished steps, no critical flow).
    for (const bool stopped : {false, true})
    {
        CAPTURE(stopped);
        tusk::ScenarioSpec s = StandaloneRing();
        if (stopped)
        {
            s.stopTimePs = 30'000'000; // 30 us: some steps done, most not started
            s.requireFinish = false;
        }
        std::filesystem::path dir;
        const tusk::RunResult streamed = RunStreamed(s, dir);
        const tusk::RunResult kept = Run(s);
        REQUIRE(kept.finished == !stopped);
        REQUIRE(kept.flows.size() == 2 * 47 * 48);
        REQUIRE(streamed.streamed.active);
        CHECK(streamed.flows.empty());
        CHECK(streamed.collectives.empty());
        CHECK(streamed.waits.empty());
        CHECK(streamed.streamed.flows == kept.flows.size());
        CHECK(streamed.streamed.waits == kept.waits.size());
        CHECK(ReadFile(dir / "flows.csv") == tusk::FlowsCsv(kept));
        CHECK(ReadFile(dir / "collectives.csv") == tusk::CollectivesCsv(kept));
        CHECK(ReadFile(dir / "waits.csv") == tusk::WaitsCsv(kept));
        REQUIRE(kept.collectives.size() == 1);
        CHECK((kept.collectives[0].criticalFlow >= 0) == !stopped);
        // Chunks of whole steps: at least 4,096 rows, at most 4,096 plus one step's 48.
        CAPTURE(streamed.streamed.maxRowsHeld);
        CHECK(streamed.streamed.maxRowsHeld >= 4096);
        CHECK(streamed.streamed.maxRowsHeld < 4096 + 48);
        const tusk::RunSummary& a = streamed.summary;
        const tusk::RunSummary& k = kept.summary;
        CHECK(a.flows == k.flows);
        CHECK(a.unfinished == k.unfinished);
        CHECK(a.meanSlowdown == k.meanSlowdown);
        CHECK(a.p99Slowdown == k.p99Slowdown);
        CHECK(a.maxSlowdown == k.maxSlowdown);
        CHECK(a.p99FairSlowdown == k.p99FairSlowdown);
        // (no CCT, NaN, when the collective did not finish)
        CHECK((a.cctUs == k.cctUs || (std::isnan(a.cctUs) && std::isnan(k.cctUs))));
        CHECK(std::isnan(k.cctUs) == stopped);
        CHECK(streamed.invariantViolations == kept.invariantViolations);
        std::filesystem::remove_all(dir);
    }
}

namespace
{

/** A standalone ring all-reduce over the 32 hosts of a 4x2x8 leaf-spine: 62 steps of 32
 *  transfers (1,984), 2 KiB pieces. */
tusk::ScenarioSpec
SmallRing()
{
    tusk::ScenarioSpec s = LeafSpine(4, 2, 8, 100);
    s.workload.kind = "ring-allreduce";
    s.workload.bytes = 64 * 1024;
    s.lb.policy = "spray"; // several paths per flow: the critical flow's paths column
    return s;
}

/** Every file of two results folders equal, the manifest but its times. */
void
CheckSameFiles(const std::filesystem::path& a, const std::filesystem::path& b)
{
    const std::vector<std::string> files = FilesBelow(a);
    CHECK(files == FilesBelow(b));
    for (const auto& f : files)
    {
        CAPTURE(f);
        const std::string x = ReadFile(a / f);
        const std::string y = ReadFile(b / f);
        if (f == "manifest.json")
        {
            auto mx = nlohmann::json::parse(x);
            auto my = nlohmann::json::parse(y);
            for (const char* key : {"wall_time_s", "setup_time_s", "run_time_s"})
            {
                mx.erase(key);
                my.erase(key);
            }
            CHECK(mx.dump(1) == my.dump(1));
        }
        else if (f == ".tusk-results")
        {
            CHECK(nlohmann::json::parse(x).at("files") == nlohmann::json::parse(y).at("files"));
        }
        else
        {
            CHECK(x == y);
        }
    }
}

} // namespace

TEST_CASE("a standalone ring built a window of steps at a time writes the whole build's files, "
          "byte for byte",
          "[component][memory][ring-window]")
{
    // RingStepUnits, W = 2 steps a unit (31 units): the specs of a unit exist from when the
    // unit before it posts its first transfer to when it and the earlier ones are delivered and
    // acknowledged; the records stay, and the rows are built at the end, each unit's specs
    // built again. Finished, and stopped with steps under way (units never expanded, live
    // ones, retired ones), streamed (tusk run) and kept in memory (the library).
    for (const bool stopped : {false, true})
    {
        CAPTURE(stopped);
        tusk::ScenarioSpec s = SmallRing();
        if (stopped)
        {
            s.stopTimePs = 20'000'000; // 20 us: some steps done, most not started
            s.requireFinish = true;     // the failure names what is blocked (DescribeBlocked)
        }
        tusk::RunOptions windowed;
        windowed.ringWindowSteps = 2;
        tusk::RunOptions whole;
        whole.editWorkload = [](ns3::WorkloadSpec&) {}; // an edited workload is built whole
        std::filesystem::path wDir;
        std::filesystem::path rDir;
        const tusk::RunResult w = RunStreamed(s, wDir, windowed);
        const tusk::RunResult r = RunStreamed(s, rDir, whole);
        REQUIRE(w.streamed.active);
        REQUIRE(r.streamed.active);
        CHECK(w.finished == !stopped);
        CHECK(r.finished == !stopped);
        CHECK(w.streamed.flows == 62 * 32);
        CheckSameFiles(wDir, rDir);
        CHECK(w.failure == r.failure);
        if (stopped)
        {
            CHECK_THAT(w.failure, Catch::Contains("waits for oneshot trigger"));
        }
        std::filesystem::remove_all(wDir);
        std::filesystem::remove_all(rDir);
        // Kept in memory (no stream): the same tables.
        const tusk::RunResult wk = Run(s, windowed);
        const tusk::RunResult rk = Run(s, whole);
        CHECK(tusk::FlowsCsv(wk) == tusk::FlowsCsv(rk));
        CHECK(tusk::CollectivesCsv(wk) == tusk::CollectivesCsv(rk));
        CHECK(tusk::WaitsCsv(wk) == tusk::WaitsCsv(rk));
        CHECK(wk.failure == rk.failure);
    }
}

TEST_CASE("a streamed standalone ring's collective-aware ideals, looked up a step at a time, "
          "are those of the rows kept in memory, with bytes that split evenly or not",
          "[component][memory][ring-window]")
{
    // A streamed ring's rows (WholeRows) take each step's fair-share ideals from the latest
    // steps' with the same input (FairShareCache::byGroup), and print their segments without
    // the segment cache; the rows kept in memory compute every step's afresh. 48 KiB over 32
    // ranks splits evenly (every step's input the same: one computed, the rest looked up);
    // 48 KiB + 13 bytes does not (pieces of 1,536 and 1,537 bytes, the 13 larger ones rotating
    // over the ranks step to step: inputs that differ, some seen again within the cache's 4).
    for (const uint64_t bytes : {uint64_t{48 * 1024}, uint64_t{48 * 1024 + 13}})
    {
        CAPTURE(bytes);
        tusk::ScenarioSpec s = SmallRing();
        s.workload.bytes = bytes;
        tusk::RunOptions windowed;
        windowed.ringWindowSteps = 2;
        std::filesystem::path dir;
        const tusk::RunResult streamed = RunStreamed(s, dir, windowed);
        const tusk::RunResult kept = Run(s, windowed);
        REQUIRE(streamed.streamed.active);
        REQUIRE(kept.finished);
        REQUIRE(kept.flows.size() == 62 * 32);
        // One piece size, or two rotating over the ranks (so steps' inputs differ).
        std::set<uint64_t> pieces;
        for (const tusk::FlowRow& f : kept.flows)
        {
            pieces.insert(f.bytes);
        }
        CHECK(pieces.size() == (bytes % 32 == 0 ? 1u : 2u));
        CHECK(ReadFile(dir / "flows.csv") == tusk::FlowsCsv(kept));
        CHECK(ReadFile(dir / "waits.csv") == tusk::WaitsCsv(kept));
        CHECK(ReadFile(dir / "collectives.csv") == tusk::CollectivesCsv(kept));
        CHECK(streamed.summary.p99FairSlowdown == kept.summary.p99FairSlowdown);
        std::filesystem::remove_all(dir);
    }
}

TEST_CASE("a standalone ring built a window of steps at a time holds the specs of the steps "
          "its ranks are apart, a window more on each side",
          "[component][memory][ring-window]")
{
    // Sampled every 100 ns: the transfers whose specs the executor holds (LiveRecords: a
    // unit's from its expansion to its retirement). With s_min(τ) the lowest step with a
    // transfer not yet delivered and acknowledged and s_max(τ) the highest step with a
    // transfer started, the units live are those from s_min's to the one after s_max's (unit
    // u + 1 is expanded when unit u posts its first transfer): at most
    // (⌊s_max / W⌋ − ⌊s_min / W⌋ + 2) units of W n C transfers. A whole build holds all.
    const tusk::ScenarioSpec s = SmallRing();
    constexpr uint32_t W = 2;
    constexpr uint64_t n = 32;
    constexpr uint32_t steps = 2 * (n - 1);
    std::vector<std::pair<uint64_t, uint64_t>> samples; // (time ps, transfers held)
    const uint64_t before = ns3::WorkloadExecutor::LiveRecords();
    std::function<void()> sample = [&]() {
        samples.emplace_back(ns3::Simulator::Now().GetPicoSeconds(),
                             ns3::WorkloadExecutor::LiveRecords() - before);
        ns3::Simulator::Schedule(ns3::NanoSeconds(100), sample);
    };
    tusk::RunOptions o;
    o.ringWindowSteps = W;
    o.beforeRun = [&](ns3::Fabric&, const std::vector<ns3::Ptr<ns3::RdmaNic>>&) { sample(); };
    const tusk::RunResult r = Run(s, o);
    REQUIRE(r.finished);
    REQUIRE(r.flows.size() == steps * n);
    REQUIRE(samples.size() > 10);
    uint64_t most = 0;
    for (const auto& [at, held] : samples)
    {
        uint32_t sMin = steps; // lowest step not done by `at` (done strictly before it)
        uint32_t sMax = 0;     // highest step started by `at`
        for (const tusk::FlowRow& f : r.flows)
        {
            const uint64_t done = std::max(f.finishPs, f.startPs + f.fctSenderPs);
            if (done >= at)
            {
                sMin = std::min<uint32_t>(sMin, static_cast<uint32_t>(f.step));
            }
            if (f.startPs <= at)
            {
                sMax = std::max<uint32_t>(sMax, static_cast<uint32_t>(f.step));
            }
        }
        if (sMin == steps)
        {
            continue; // all done: nothing to bound
        }
        const uint64_t units = sMax / W - std::min(sMin, sMax) / W + 2;
        CAPTURE(at, held, sMin, sMax);
        CHECK(held <= units * W * n);
        most = std::max(most, held);
    }
    // The spray fabric keeps the ranks within a few steps: far fewer than the 1,984 a whole
    // build holds, and more than one unit (the next one is built ahead).
    CAPTURE(most);
    CHECK(most > W * n);
    CHECK(most < r.flows.size() / 4);
}

TEST_CASE("a streamed standalone ring frees each unit's records when it retires without a "
          "retransmission and keeps them from the first unit with one on",
          "[component][memory][ring-window]")
{
    // WorkloadExecutor::SetFinalUnitCallback: a retired unit (W = 2 steps of 32 transfers)
    // whose transfers were each sent once and received has its rows built and its records
    // freed then; from the first unit with a frame resent, dropped or duplicated on, the
    // records stay and the rows are built at the end (flows.csv is written in id order).
    // Sampled every 100 ns: the started transfers' records held (StartedRecordsHeld). With
    // s_min(τ) the lowest step not yet delivered and acknowledged, s_max(τ) the highest one
    // started and u* the first unit with a retransmission (31 when none), the records held are
    // those of the units from min(⌊s_min / W⌋, u*) to ⌊s_max / W⌋: at most that many units of
    // W n transfers. After the run: exactly the units from u* on. Without loss, and with 20 %
    // of the frames lost on one uplink for 6 us mid-run; the files are the whole build's.
    constexpr uint32_t W = 2;
    constexpr uint64_t n = 32;
    constexpr uint32_t steps = 2 * (n - 1);
    constexpr uint32_t units = steps / W;
    for (const bool loss : {false, true})
    {
        CAPTURE(loss);
        tusk::ScenarioSpec s = SmallRing();
        if (loss)
        {
            tusk::FailureEntry f;
            f.kind = "loss";
            f.link = "leaf0-spine1";
            f.lossRate = 0.2;
            f.atPs = 30'000'000;
            f.untilPs = 36'000'000;
            s.failures.push_back(f);
        }
        std::vector<std::pair<uint64_t, uint64_t>> samples; // (time ps, records held)
        const uint64_t before = ns3::WorkloadExecutor::StartedRecordsHeld();
        uint64_t afterRun = 0;
        std::function<void()> sample = [&]() {
            samples.emplace_back(ns3::Simulator::Now().GetPicoSeconds(),
                                 ns3::WorkloadExecutor::StartedRecordsHeld() - before);
            ns3::Simulator::Schedule(ns3::NanoSeconds(100), sample);
        };
        tusk::RunOptions o;
        o.ringWindowSteps = W;
        o.beforeRun = [&](ns3::Fabric&, const std::vector<ns3::Ptr<ns3::RdmaNic>>&) { sample(); };
        o.afterRun = [&](ns3::Fabric&, const std::vector<ns3::Ptr<ns3::RdmaNic>>&) {
            afterRun = ns3::WorkloadExecutor::StartedRecordsHeld() - before;
        };
        std::filesystem::path wDir;
        std::filesystem::path rDir;
        const tusk::RunResult w = RunStreamed(s, wDir, o);
        tusk::RunOptions whole;
        whole.editWorkload = [](ns3::WorkloadSpec&) {}; // an edited workload is built whole
        std::function<void()> tick = [&]() { // as many events as the sampling (the manifest)
            ns3::Simulator::Schedule(ns3::NanoSeconds(100), tick);
        };
        whole.beforeRun = [&](ns3::Fabric&, const std::vector<ns3::Ptr<ns3::RdmaNic>>&) {
            tick();
        };
        const tusk::RunResult r = RunStreamed(s, rDir, whole);
        REQUIRE(w.streamed.active);
        REQUIRE(w.finished);
        CheckSameFiles(wDir, rDir);
        CHECK(w.failure == r.failure);
        std::filesystem::remove_all(wDir);
        std::filesystem::remove_all(rDir);
        // The whole build's rows in memory: when each step ran, and which were resent.
        const tusk::RunResult k = Run(s, whole);
        REQUIRE(k.flows.size() == steps * n);
        uint32_t firstResent = units;
        for (const tusk::FlowRow& f : k.flows)
        {
            uint64_t dropped = 0;
            for (const uint64_t d : f.pktsDropped)
            {
                dropped += d;
            }
            if (f.retxPackets > 0 || f.spuriousRetx > 0 || dropped > 0)
            {
                firstResent = std::min<uint32_t>(firstResent, static_cast<uint32_t>(f.step) / W);
            }
        }
        CAPTURE(firstResent);
        if (loss)
        {
            // Some units before the loss are freed, those from it on are kept.
            CHECK(firstResent > 0);
            CHECK(firstResent < units);
        }
        else
        {
            CHECK(firstResent == units);
        }
        CHECK(afterRun == (units - firstResent) * W * n);
        REQUIRE(samples.size() > 10);
        uint64_t most = 0;
        for (const auto& [at, held] : samples)
        {
            uint32_t sMin = steps; // lowest step not done by `at` (done strictly before it)
            uint32_t sMax = 0;     // highest step started by `at`
            bool started = false;
            for (const tusk::FlowRow& f : k.flows)
            {
                const uint64_t done = std::max(f.finishPs, f.startPs + f.fctSenderPs);
                if (done >= at)
                {
                    sMin = std::min<uint32_t>(sMin, static_cast<uint32_t>(f.step));
                }
                if (f.startPs <= at)
                {
                    sMax = std::max<uint32_t>(sMax, static_cast<uint32_t>(f.step));
                    started = true;
                }
            }
            if (!started)
            {
                CHECK(held == 0);
                continue;
            }
            const uint32_t low = std::min({sMin / W, sMax / W, firstResent});
            CAPTURE(at, held, sMin, sMax);
            CHECK(held <= (sMax / W - low + 1) * W * n);
            if (sMin < steps && sMin / W < firstResent)
            {
                most = std::max(most, held); // while units are still freed
            }
        }
        // More than a unit at times (the ranks drift apart), far fewer than all 1,984.
        CAPTURE(most);
        CHECK(most > W * n);
        CHECK(most < k.flows.size() / 4);
    }
}

TEST_CASE("a whole build's collectives.csv and waits.csv built a step at a time as its flow rows "
          "are streamed are the rows built from every transfer, byte for byte",
          "[component][memory][ring-window]")
{
    // CollectiveRowStreamer (collect-rows.h): waits.csv's rows written as each step is in,
    // collectives.csv's (its critical flow: the straggler of the path back from the transfer
    // delivered last, carried a step at a time) at the end, against AppendCollectiveRows over
    // every row kept in memory. The ring (every rank sends in every step) is followed by a
    // collective without transfers and by a gather-like one whose rank 0 only receives in
    // step 0 (it is ready at the collective's start, known only from its step 1, which starts
    // earlier) and whose step 1 sends two transfers into one rank. Finished and stopped
    // (unfinished steps: no critical flow, ranks not ready).
    const auto edit = [](ns3::WorkloadSpec& w) {
        REQUIRE(w.collectives.size() == 1);
        const std::vector<uint32_t> hosts(w.collectives[0].ranks.begin(),
                                          w.collectives[0].ranks.begin() + 8);
        ns3::CollectiveSpec empty = w.collectives[0];
        empty.kind = "all-gather";
        empty.ranks = hosts;
        empty.steps = 1;
        w.collectives.push_back(empty);
        ns3::CollectiveSpec gather = empty;
        gather.kind = "gather";
        gather.steps = 2;
        w.collectives.push_back(gather);
        const auto add = [&](uint32_t step, uint32_t src, uint32_t dst, uint64_t atPs) {
            ns3::TransferSpec t;
            // (its index, as the generated ids are: the tables kept in memory find a wait's
            // and a collective's flow row by id, RunResult's writers, FlowById)
            t.externalId = w.transfers.size();
            t.src = hosts[src];
            t.dst = hosts[dst];
            t.bytes = 8 * 1024;
            t.startPs = atPs;
            t.collective = 2;
            t.step = static_cast<int32_t>(step);
            t.channel = 0;
            w.transfers.push_back(t);
        };
        for (uint32_t r = 1; r < 8; ++r)
        {
            add(0, r, 0, 40'000'000 + r * 1'000'000); // 40 to 47 us: rank 0 sends nothing
        }
        add(1, 0, 1, 30'000'000); // step 1 starts first (30 us): the collective's start
        add(1, 0, 2, 30'000'000);
        add(1, 3, 2, 31'000'000); // rank 2 receives two
    };
    for (const bool stopped : {false, true})
    {
        CAPTURE(stopped);
        tusk::ScenarioSpec s = SmallRing();
        if (stopped)
        {
            s.stopTimePs = 43'000'000; // 43 us: the ring and the gather's step 0 under way
            s.requireFinish = false;
        }
        tusk::RunOptions o;
        o.editWorkload = edit;
        std::filesystem::path streamedDir;
        std::filesystem::path keptDir;
        const tusk::RunResult streamed = RunStreamed(s, streamedDir, o, true);
        const tusk::RunResult kept = RunStreamed(s, keptDir, o, false);
        REQUIRE(streamed.streamed.active);
        REQUIRE_FALSE(kept.streamed.active);
        CHECK(streamed.finished == !stopped);
        REQUIRE(kept.collectives.size() == 3);
        CHECK(kept.waits.size() > 62 * 32);
        CHECK(streamed.streamed.waits == kept.waits.size());
        // The case this test is about: rank 0 of the gather ready at its start (30 us), read
        // before its step 1 was.
        const auto ready0 = std::find_if(kept.waits.begin(), kept.waits.end(),
                                         [](const tusk::WaitRow& w) {
                                             return w.collective == 2 && w.step == 0 && w.rank == 0;
                                         });
        REQUIRE(ready0 != kept.waits.end());
        CHECK(ready0->ready);
        CHECK(ready0->readyPs == 30'000'000);
        CHECK((kept.collectives[0].criticalFlow >= 0) == !stopped);
        CHECK((kept.collectives[2].criticalFlow >= 0) == !stopped);
        for (const char* f : {"flows.csv", "collectives.csv", "waits.csv"})
        {
            CAPTURE(f);
            CHECK(ReadFile(streamedDir / f) == ReadFile(keptDir / f));
        }
        std::filesystem::remove_all(streamedDir);
        std::filesystem::remove_all(keptDir);
    }
}

} // namespace TUSK_TEST_FILE
