#include "sweep/sweep-exec.h"

#include "results/results-writer.h"
#include "results/results-dir.h"
#include "sweep/sweep-index.h"

#include "fabric/model/input-error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tusk
{

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace
{

volatile std::sig_atomic_t g_stop = 0;

extern "C" void
OnStopSignal(int sig)
{
    g_stop = sig;
}

std::string
RecordPath(const std::string& root, const std::string& id)
{
    return SweepStateDir(root) + "/runs/" + id + ".json";
}

std::string
LogPath(const std::string& root, const std::string& id)
{
    return SweepStateDir(root) + "/logs/" + id + ".log";
}

/** Start `argv` in `dir` with stdout and stderr into `log`; the child gets SIGTERM if this
 *  process dies (PR_SET_PDEATHSIG), so no run outlives a killed sweep. */
pid_t
Spawn(const std::vector<std::string>& argv, const std::string& dir, const std::string& log)
{
    std::vector<char*> args;
    for (const auto& a : argv)
    {
        args.push_back(const_cast<char*>(a.c_str()));
    }
    args.push_back(nullptr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0)
    {
        throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    }
    if (pid == 0)
    {
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent)
        {
            ::_exit(128 + SIGTERM);
        }
        // Default dispositions: `tusk run` removes its staging directory on SIGINT/SIGTERM.
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
        const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        const int devnull = ::open("/dev/null", O_RDONLY);
        if (fd < 0 || devnull < 0 || ::chdir(dir.c_str()) != 0)
        {
            ::_exit(127);
        }
        ::dup2(devnull, 0);
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::execv(args[0], args.data());
        const std::string msg = std::string("tusk sweep: cannot run ") + args[0] + ": " +
                                std::strerror(errno) + "\n";
        (void)!::write(2, msg.data(), msg.size());
        ::_exit(127);
    }
    return pid;
}

/** The lines of a run's log that say why it failed. */
std::string
FailureMessage(const std::string& log)
{
    std::ifstream in(log);
    std::string line;
    std::string errors;
    std::string last;
    while (std::getline(in, line))
    {
        if (line.empty())
        {
            continue;
        }
        last = line;
        if (line.rfind("tusk: error:", 0) == 0 || line.rfind("tusk: run failed:", 0) == 0 ||
            line.rfind("tusk: internal error:", 0) == 0 || line.rfind("tusk sweep:", 0) == 0 ||
            line.rfind("terminate called", 0) == 0)
        {
            errors += (errors.empty() ? "" : " | ") + line;
        }
    }
    return errors.empty() ? last : errors;
}

/** The strings of `j`'s "warnings" (a manifest's or a run record's); none when it has no such
 *  list (a record from before it was kept, or one edited by hand). */
std::vector<std::string>
Warnings(const nlohmann::json& j)
{
    std::vector<std::string> out;
    if (j.is_object() && j.contains("warnings") && j["warnings"].is_array())
    {
        for (const auto& w : j["warnings"])
        {
            if (w.is_string())
            {
                out.push_back(w.get<std::string>());
            }
        }
    }
    return out;
}

void
WriteRecord(const std::string& root, const RunRecord& r)
{
    nlohmann::ordered_json j;
    j["run_id"] = r.id;
    j["hash"] = r.hash;
    j["status"] = r.status;
    j["exit_status"] = r.exitStatus;
    j["message"] = r.message;
    j["wall_time_s"] = r.wallSeconds;
    j["backend"] = r.backend;
    j["host"] = r.host;
    j["warnings"] = r.warnings;
    WriteFileAtomic(RecordPath(root, r.id), j.dump(2) + "\n");
}

/** The record of a finished attempt: exit status `raw` from waitpid. */
RunRecord
Finish(const std::string& root, const SweepRun& run, int raw, double wall, const std::string& backend)
{
    RunRecord r;
    r.id = run.id;
    r.hash = run.hash;
    r.wallSeconds = wall;
    r.backend = backend;
    r.host = HostName();
    if (WIFEXITED(raw))
    {
        r.exitStatus = WEXITSTATUS(raw);
    }
    else if (WIFSIGNALED(raw))
    {
        r.exitStatus = 128 + WTERMSIG(raw);
    }
    const std::string dir = root + "/" + run.id;
    if (HasCompleteResults(dir, run.hash))
    {
        std::ifstream in(dir + "/manifest.json");
        const auto m = nlohmann::json::parse(in, nullptr, false);
        r.status = m.is_object() && m.value("status", "") == "ok" ? "ok" : "failed";
        r.message = m.is_object() ? m.value("failure", "") : "";
        r.warnings = Warnings(m);
    }
    else
    {
        r.status = "error";
        if (WIFSIGNALED(raw))
        {
            r.message = fmt::format("killed by signal {} ({})", WTERMSIG(raw), strsignal(WTERMSIG(raw)));
        }
        else if (r.exitStatus == 0 && std::ifstream(dir + "/manifest.json"))
        {
            // The run finished and wrote results, but of another scenario than the one planned:
            // its resolved scenario does not hash to the plan's.
            r.message = "the run wrote results of another scenario than the sweep planned (the "
                        "scenario file, or a file it reads, changed after the sweep began); run "
                        "the sweep again";
        }
        else
        {
            r.message = FailureMessage(LogPath(root, run.id));
        }
        if (r.message.empty())
        {
            r.message = fmt::format("exit status {} and no results", r.exitStatus);
        }
    }
    if (r.status == "ok" && r.exitStatus != 0)
    {
        r.status = "failed"; // results written but the process said otherwise
    }
    WriteRecord(root, r);
    return r;
}

/** A progress bar with an ETA on a terminal; a line per finished run otherwise. */
class Progress
{
  public:
    Progress(size_t total, size_t skipped, size_t jobs, bool quiet)
        : m_total(total),
          m_done(skipped),
          m_jobs(jobs),
          m_quiet(quiet),
          m_tty(::isatty(2) != 0),
          m_start(Clock::now())
    {
        if (!m_quiet && skipped > 0)
        {
            Say(fmt::format("{} of {} runs have complete results already: skipped", skipped,
                            total));
        }
    }

    void Finished(const RunRecord& r, const std::vector<double>& running, const SweepTally& t)
    {
        ++m_done;
        ++m_ranHere;
        m_runSeconds += r.wallSeconds;
        m_tally = t;
        m_running = running;
        if (m_quiet)
        {
            return;
        }
        if (!m_tty || r.status != "ok")
        {
            std::string line = fmt::format("[{}/{}] {:<6} {}  {:.1f} s", m_done, m_total,
                                           r.status, r.id, r.wallSeconds);
            if (r.status != "ok")
            {
                line += " (exit " + std::to_string(r.exitStatus) + "): " + r.message;
            }
            Say(line);
        }
        Draw();
    }

    void Tick(const std::vector<double>& running, const SweepTally& t)
    {
        m_running = running;
        m_tally = t;
        const auto now = Clock::now();
        if (now - m_lastDraw > std::chrono::milliseconds(500))
        {
            Draw();
        }
    }

    void End()
    {
        if (!m_quiet && m_tty && m_drawn)
        {
            std::fputs("\r\033[K", stderr);
            std::fflush(stderr);
        }
    }

  private:
    void Say(const std::string& line)
    {
        if (m_tty && m_drawn)
        {
            std::fputs("\r\033[K", stderr);
        }
        std::fputs((line + "\n").c_str(), stderr);
        std::fflush(stderr);
        if (m_tty && m_drawn)
        {
            Draw();
        }
    }

    void Draw()
    {
        if (m_quiet || !m_tty)
        {
            return;
        }
        m_lastDraw = Clock::now();
        const double elapsed = std::chrono::duration<double>(m_lastDraw - m_start).count();
        // ETA: the runs not started take the mean time of the runs finished so far, the
        // running ones what they lack of it; all of it shared by the workers.
        std::string eta = "--";
        if (m_ranHere > 0)
        {
            const double mean = m_runSeconds / static_cast<double>(m_ranHere);
            const size_t notStarted = m_total - m_done - m_running.size();
            double work = mean * static_cast<double>(notStarted);
            for (double e : m_running)
            {
                work += std::max(0.0, mean - e);
            }
            eta = FormatDuration(work / static_cast<double>(std::max<size_t>(1, m_jobs)));
        }
        winsize ws{};
        const int cols = ::ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 100;
        std::string tail = fmt::format(" {}/{}  ok {}  failed {}  running {}  {} elapsed  ETA {}",
                                       m_done, m_total, m_tally.ok + m_tally.skipped,
                                       m_tally.failed + m_tally.errors, m_running.size(),
                                       FormatDuration(elapsed), eta);
        const int barWidth = std::max(10, std::min(40, cols - static_cast<int>(tail.size()) - 3));
        const int filled = m_total ? static_cast<int>(barWidth * m_done / m_total) : barWidth;
        std::string bar = "[" + std::string(filled, '#') + std::string(barWidth - filled, '.') + "]";
        std::string line = bar + tail;
        if (static_cast<int>(line.size()) >= cols)
        {
            line.resize(cols - 1);
        }
        std::fputs(("\r\033[K" + line).c_str(), stderr);
        std::fflush(stderr);
        m_drawn = true;
    }

    size_t m_total;
    size_t m_done;
    size_t m_ranHere = 0;
    double m_runSeconds = 0; //!< wall time of the runs finished here
    std::vector<double> m_running; //!< elapsed seconds of each running run
    size_t m_jobs;
    bool m_quiet;
    bool m_tty;
    bool m_drawn = false;
    Clock::time_point m_start;
    Clock::time_point m_lastDraw{};
    SweepTally m_tally;
};

} // namespace

StopSignalScope::StopSignalScope()
{
    g_stop = 0;
    struct sigaction sa
    {
    };
    sa.sa_handler = OnStopSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; // no SA_RESTART: sleeps and waits return early
    sigaction(SIGINT, &sa, &m_oldInt);
    sigaction(SIGTERM, &sa, &m_oldTerm);
}

StopSignalScope::~StopSignalScope()
{
    sigaction(SIGINT, &m_oldInt, nullptr);
    sigaction(SIGTERM, &m_oldTerm, nullptr);
}

int
StopSignalScope::Signal()
{
    return g_stop;
}

std::string
FormatDuration(double seconds)
{
    const long s = std::lround(std::max(0.0, seconds));
    if (s >= 3600)
    {
        return fmt::format("{}:{:02d}:{:02d}", s / 3600, (s / 60) % 60, s % 60);
    }
    return fmt::format("{}:{:02d}", s / 60, s % 60);
}

std::string
SweepStateDir(const std::string& root)
{
    return root + "/.sweep";
}

std::string
SelfExecutable()
{
    std::error_code ec;
    const fs::path p = fs::read_symlink("/proc/self/exe", ec);
    if (ec)
    {
        throw std::runtime_error("cannot find the tusk binary (/proc/self/exe): " + ec.message());
    }
    return p.string();
}

ResultsState
ResultsIn(const std::string& runDir, const std::string& hash, const std::string& revision,
          const std::string& code)
{
    std::ifstream in(runDir + "/manifest.json");
    if (!in)
    {
        return ResultsState::None;
    }
    const auto m = nlohmann::json::parse(in, nullptr, false);
    if (!m.is_object() || !m.contains("scenario") ||
        RunHash(m["scenario"], m.contains("inputs") ? m["inputs"] : nlohmann::json()) != hash)
    {
        return ResultsState::None;
    }
    const auto text = [&m](const char* key) {
        return m.contains(key) && m[key].is_string() ? m[key].get<std::string>() : std::string();
    };
    // The revision is compiled into the binary: another revision is other code too.
    if ((!revision.empty() && text("git_revision") != revision) ||
        (!code.empty() && text("code_hash") != code))
    {
        return ResultsState::OtherCode;
    }
    return ResultsState::Complete;
}

bool
HasCompleteResults(const std::string& runDir, const std::string& hash, const std::string& revision,
                   const std::string& code)
{
    return ResultsIn(runDir, hash, revision, code) == ResultsState::Complete;
}

bool
ReadRunRecord(const std::string& root, const SweepRun& run, RunRecord& r)
{
    std::ifstream in(RecordPath(root, run.id));
    if (!in)
    {
        return false;
    }
    const auto j = nlohmann::json::parse(in, nullptr, false);
    if (!j.is_object() || j.value("hash", "") != run.hash)
    {
        return false;
    }
    r.id = run.id;
    r.hash = run.hash;
    r.status = j.value("status", "");
    r.exitStatus = j.value("exit_status", -1);
    r.message = j.value("message", "");
    r.wallSeconds = j.value("wall_time_s", 0.0);
    r.backend = j.value("backend", "");
    r.host = j.value("host", "");
    r.warnings = Warnings(j);
    return true;
}

std::string
WarnedRunsLine(const SweepPlan& plan)
{
    // In the plan's order, the runs that ran now and those whose results were there already
    // (each run's record keeps its manifest's warnings).
    size_t warned = 0;
    std::string first;
    for (const auto& run : plan.runs)
    {
        RunRecord rec;
        if (ReadRunRecord(plan.root, run, rec) && !rec.warnings.empty() && warned++ == 0)
        {
            first = rec.id + ": " + rec.warnings.front();
        }
    }
    if (warned == 0)
    {
        return "";
    }
    return fmt::format("tusk sweep: warning: {} of the {} runs warned (each run's "
                       "manifest.json, \"warnings\"); the first, {}\n",
                       warned, plan.runs.size(), first);
}

std::vector<std::string>
RunCommand(const std::string& tusk, const std::string& root, const SweepRun& run,
           const std::vector<PluginRecord>& plugins)
{
    std::vector<std::string> argv = {tusk, "run", run.scenario};
    for (const auto& p : plugins)
    {
        argv.push_back("--plugin");
        argv.push_back(p.path);
    }
    for (const auto& s : run.sets)
    {
        argv.push_back("--set");
        argv.push_back(s);
    }
    argv.push_back("--out");
    argv.push_back(root + "/" + run.id);
    argv.push_back("-q");
    return argv;
}

void
WritePlan(const SweepPlan& plan)
{
    const std::string state = SweepStateDir(plan.root);
    // Nothing has run yet: a root that cannot be written is refused like bad input (exit 2).
    std::error_code ec;
    for (const char* sub : {"/runs", "/logs"})
    {
        fs::create_directories(state + sub, ec);
        if (ec)
        {
            throw ns3::InputError(plan.root, 0, "--out",
                                  "cannot create the results root's " + state + sub + ": " +
                                      ec.message());
        }
    }
    try
    {
        WriteFileAtomic(state + "/plan.json", PlanToJson(plan).dump(1) + "\n");
    }
    catch (const WriteError& e)
    {
        throw ns3::InputError(plan.root, 0, "--out", std::string("cannot write: ") + e.what());
    }
}

RunRecord
ExecuteRun(const std::string& root, const SweepRun& run, const std::string& tusk,
           const std::string& backend, bool force, const std::string& keepRevision,
           const std::string& keepCode,
           const std::vector<PluginRecord>& plugins)
{
    const std::string dir = root + "/" + run.id;
    if (!force && HasCompleteResults(dir, run.hash, keepRevision, keepCode))
    {
        RunRecord r;
        if (!ReadRunRecord(root, run, r))
        {
            std::ifstream in(dir + "/manifest.json");
            const auto m = nlohmann::json::parse(in, nullptr, false);
            r.id = run.id;
            r.hash = run.hash;
            r.status = m.value("status", "") == "ok" ? "ok" : "failed";
            r.exitStatus = r.status == "ok" ? 0 : 1;
        }
        return r;
    }
    const auto t0 = Clock::now();
    const pid_t pid = Spawn(RunCommand(tusk, root, run, plugins),
                            fs::path(run.scenario).parent_path().string(),
                            LogPath(root, run.id));
    int raw = 0;
    while (::waitpid(pid, &raw, 0) < 0 && errno == EINTR)
    {
    }
    return Finish(root, run, raw, std::chrono::duration<double>(Clock::now() - t0).count(), backend);
}

SweepTally
RunLocal(const SweepPlan& plan, const LocalOptions& options)
{
    WritePlan(plan);
    const std::string state = SweepStateDir(plan.root);
    const PathLock lock(state + "/lock", "another `tusk sweep` or `tusk regress`", plan.root, false);
    RemoveStaleStaging(plan.root); // the runs' folders whose `tusk run` is gone
    const std::string tusk = options.tusk.empty() ? SelfExecutable() : options.tusk;
    const auto t0 = Clock::now();

    SweepTally tally;
    tally.total = plan.runs.size();
    std::vector<const SweepRun*> todo;
    for (const auto& r : plan.runs)
    {
        const ResultsState state =
            options.force ? ResultsState::None
                          : ResultsIn(plan.root + "/" + r.id, r.hash, plan.keepRevision, plan.keepCode);
        if (state == ResultsState::Complete)
        {
            ++tally.skipped;
        }
        else
        {
            tally.otherCode += state == ResultsState::OtherCode ? 1 : 0;
            todo.push_back(&r);
        }
    }
    const unsigned jobs = std::max(1u, options.jobs);
    Progress progress(tally.total, tally.skipped, std::min<size_t>(jobs, todo.size()), options.quiet);
    std::map<pid_t, std::pair<const SweepRun*, Clock::time_point>> running;
    auto elapsedOfRunning = [&running]() {
        std::vector<double> e;
        const auto now = Clock::now();
        for (const auto& [pid, what] : running)
        {
            e.push_back(std::chrono::duration<double>(now - what.second).count());
        }
        return e;
    };

    StopSignalScope stopSignals;

    size_t next = 0;
    while (next < todo.size() || !running.empty())
    {
        while (!g_stop && next < todo.size() && running.size() < jobs)
        {
            const SweepRun* r = todo[next++];
            const pid_t pid = Spawn(RunCommand(tusk, plan.root, *r, plan.plugins),
                                    fs::path(r->scenario).parent_path().string(),
                                    LogPath(plan.root, r->id));
            running[pid] = {r, Clock::now()};
        }
        if (g_stop && !tally.interrupted)
        {
            tally.interrupted = true;
            tally.stopSignal = g_stop;
            for (const auto& [pid, what] : running)
            {
                ::kill(pid, SIGTERM); // `tusk run` removes its staging directory and exits
            }
            next = todo.size();
        }
        int raw = 0;
        const pid_t pid = ::waitpid(-1, &raw, WNOHANG);
        if (pid > 0 && running.count(pid))
        {
            const auto [run, start] = running[pid];
            running.erase(pid);
            const double wall = std::chrono::duration<double>(Clock::now() - start).count();
            if (tally.interrupted && !HasCompleteResults(plan.root + "/" + run->id, run->hash))
            {
                continue; // stopped by us: not a failure of the run, no record
            }
            const RunRecord rec = Finish(plan.root, *run, raw, wall, "local");
            (rec.status == "ok" ? tally.ok : rec.status == "failed" ? tally.failed : tally.errors)++;
            tally.writeFailed += rec.status == "error" && rec.exitStatus == kExitWriteFailed;
            progress.Finished(rec, elapsedOfRunning(), tally);
            continue;
        }
        progress.Tick(elapsedOfRunning(), tally);
        ::usleep(50'000);
    }
    progress.End();
    WriteSweepIndex(plan);
    tally.wallSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return tally;
}

} // namespace tusk
