#include "sweep/sweep-slurm.h"

#include "results/results-writer.h"
#include "sweep/sweep-exec.h"
#include "sweep/sweep-index.h"

#include "fabric/model/input-error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace tusk
{

namespace fs = std::filesystem;

namespace
{

std::string
SlurmDir(const std::string& root)
{
    return SweepStateDir(root) + "/slurm";
}

std::string
SubmissionsFile(const std::string& root)
{
    return SlurmDir(root) + "/submissions.json";
}

nlohmann::json
ReadSubmissions(const std::string& root)
{
    std::ifstream in(SubmissionsFile(root));
    if (!in)
    {
        return nlohmann::json::array();
    }
    auto j = nlohmann::json::parse(in, nullptr, false);
    return j.is_array() ? j : nlohmann::json::array();
}

std::string
Trim(std::string s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    {
        s.pop_back();
    }
    size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
    {
        ++i;
    }
    return s.substr(i);
}

/** `text` inside an sbatch filename pattern, as itself: sbatch replaces `%j`, `%A`, ... in
 *  --output, so a results root named `100%` or `run%j` must double its `%` (sbatch(1),
 *  "filename pattern": `%%` is the character `%`). */
std::string
SlurmPatternLiteral(const std::string& text)
{
    std::string out;
    for (char c : text)
    {
        out += c == '%' ? "%%" : std::string(1, c);
    }
    return out;
}

/** The job id of `sbatch --parsable` output ("12" or "12;cluster"). */
std::string
JobId(const ProgramOutput& o)
{
    std::string id = Trim(o.out);
    id = id.substr(0, id.find(';'));
    if (o.exitStatus != 0 || id.empty() ||
        !std::all_of(id.begin(), id.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    {
        throw std::runtime_error("sbatch refused the job (exit " + std::to_string(o.exitStatus) +
                                 "): " + Trim(o.err + " " + o.out));
    }
    return id;
}

std::string
NowIso()
{
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S%z", std::localtime(&t));
    return buf;
}

/**
 * Refuse `value` (a path or name that goes into a generated shell script or an sbatch --wrap
 * command) if it holds a control character: a newline would end the quoted word or the
 * comment it is in, and the rest would run as a command on the compute node.
 * \throws ns3::InputError naming `key`
 */
void
CheckScriptText(const std::string& value, const std::string& key)
{
    for (size_t i = 0; i < value.size(); ++i)
    {
        const auto c = static_cast<unsigned char>(value[i]);
        if (c < 0x20 || c == 0x7f)
        {
            throw ns3::InputError("<command line>", 0, key,
                                  fmt::format("{} contains a control character (byte 0x{:02x} at "
                                              "offset {}); the Slurm backend writes it into a "
                                              "shell script, so it must be printable",
                                              ShellQuote(value.substr(0, i)) + "...", c, i));
        }
    }
}

} // namespace

std::string
ShellQuote(const std::string& s)
{
    std::string q = "'";
    for (char c : s)
    {
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return q + "'";
}

ProgramOutput
RunProgram(const std::vector<std::string>& argv)
{
    ProgramOutput o;
    int out[2];
    int err[2];
    if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
    {
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    std::vector<char*> args;
    for (const auto& a : argv)
    {
        args.push_back(const_cast<char*>(a.c_str()));
    }
    args.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(out[1]);
    ::close(err[1]);
    if (rc != 0)
    {
        ::close(out[0]);
        ::close(err[0]);
        o.exitStatus = 127;
        o.err = argv[0] + ": " + std::strerror(rc);
        return o;
    }
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    std::string* sinks[2] = {&o.out, &o.err};
    int open = 2;
    char buf[4096];
    while (open > 0)
    {
        if (::poll(fds, 2, -1) < 0)
        {
            if (errno == EINTR)
            {
                continue;
            }
            break;
        }
        for (int i = 0; i < 2; ++i)
        {
            if (fds[i].fd >= 0 && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
            {
                const ssize_t n = ::read(fds[i].fd, buf, sizeof(buf));
                if (n > 0)
                {
                    sinks[i]->append(buf, static_cast<size_t>(n));
                }
                else if (n == 0 || errno != EINTR)
                {
                    ::close(fds[i].fd);
                    fds[i].fd = -1;
                    --open;
                }
            }
        }
    }
    int raw = 0;
    while (::waitpid(pid, &raw, 0) < 0 && errno == EINTR)
    {
    }
    o.exitStatus = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    return o;
}

SlurmSubmission
SubmitSlurm(const SweepPlan& plan, bool force)
{
    // Everything the array script and the index job's --wrap command contain, checked before
    // anything is written: every value in them is also single-quoted (ShellQuote).
    const std::string tusk = SelfExecutable();
    CheckScriptText(plan.root, "--out (the results root)");
    CheckScriptText(plan.name, "name");
    CheckScriptText(tusk, "the tusk binary's path");
    WritePlan(plan);
    const std::string dir = SlurmDir(plan.root);
    fs::create_directories(dir);
    SweepPlan todo = plan;
    todo.runs.clear();
    SlurmSubmission sub;
    for (const auto& r : plan.runs)
    {
        const ResultsState state =
            force ? ResultsState::None
                  : ResultsIn(plan.root + "/" + r.id, r.hash, plan.keepRevision, plan.keepCode);
        if (state != ResultsState::Complete)
        {
            todo.runs.push_back(r);
            sub.otherCode += state == ResultsState::OtherCode ? 1 : 0;
        }
    }
    sub.runs = todo.runs.size();
    if (todo.runs.empty())
    {
        return sub;
    }
    const SlurmOptions& o = plan.slurm;
    const uint32_t chunk = std::max<uint32_t>(1, o.chunk);
    sub.tasks = (todo.runs.size() + chunk - 1) / chunk;
    nlohmann::json submissions = ReadSubmissions(plan.root);
    const size_t n = submissions.size() + 1;
    const std::string planFile = fmt::format("{}/plan-{}.json", dir, n);
    WriteFileAtomic(planFile, PlanToJson(todo).dump(1) + "\n");

    std::string plugins; // the compute node loads them too (and passes them to its runs)
    for (const auto& p : plan.plugins)
    {
        plugins += " --plugin " + ShellQuote(p.path);
    }
    const std::string script = fmt::format("{}/array-{}.sh", dir, n);
    WriteFileAtomic(script,
                    fmt::format("#!/bin/sh\n"
                                "# tusk sweep {}: array task i runs runs [i*{}, (i+1)*{}) of {}\n"
                                "exec {} sweep-task {} --task \"$SLURM_ARRAY_TASK_ID\"{}{}\n",
                                ShellQuote(plan.name), chunk, chunk, ShellQuote(planFile),
                                ShellQuote(tusk), ShellQuote(planFile), force ? " --force" : "",
                                plugins));
    std::vector<std::string> common = {"--parsable", "--chdir=" + plan.root};
    if (!o.partition.empty())
    {
        common.push_back("--partition=" + o.partition);
    }
    if (!o.account.empty())
    {
        common.push_back("--account=" + o.account);
    }
    std::vector<std::string> array = {"sbatch"};
    array.insert(array.end(), common.begin(), common.end());
    array.push_back("--job-name=tusk-" + plan.name);
    array.push_back(fmt::format("--array=0-{}{}", sub.tasks - 1,
                                o.maxParallel ? fmt::format("%{}", o.maxParallel) : ""));
    array.push_back("--output=" + SlurmPatternLiteral(dir) + "/task-%A_%a.out");
    array.push_back("--cpus-per-task=1"); // a run is one single-threaded process
    if (!o.time.empty())
    {
        array.push_back("--time=" + o.time);
    }
    if (!o.mem.empty())
    {
        array.push_back("--mem=" + o.mem);
    }
    array.insert(array.end(), o.sbatchArgs.begin(), o.sbatchArgs.end());
    array.push_back(script);
    sub.arrayJob = JobId(RunProgram(array));

    std::vector<std::string> index = {"sbatch"};
    index.insert(index.end(), common.begin(), common.end());
    index.push_back("--job-name=tusk-" + plan.name + "-index");
    index.push_back("--dependency=afterany:" + sub.arrayJob);
    index.push_back("--output=" + SlurmPatternLiteral(dir) + "/index-%j.out");
    index.push_back("--cpus-per-task=1");
    if (!o.time.empty())
    {
        index.push_back("--time=" + o.time);
    }
    if (!o.mem.empty())
    {
        index.push_back("--mem=" + o.mem);
    }
    index.insert(index.end(), o.sbatchArgs.begin(), o.sbatchArgs.end());
    index.push_back("--wrap=exec " + ShellQuote(tusk) + " sweep-task " +
                    ShellQuote(SweepStateDir(plan.root) + "/plan.json") + " --collect");
    try
    {
        sub.indexJob = JobId(RunProgram(index));
    }
    catch (const std::exception& e)
    {
        RunProgram({"scancel", sub.arrayJob});
        throw;
    }
    submissions.push_back({{"array_job", sub.arrayJob},
                           {"index_job", sub.indexJob},
                           {"plan", planFile},
                           {"runs", sub.runs},
                           {"tasks", sub.tasks},
                           {"chunk", chunk},
                           {"submitted", NowIso()}});
    WriteFileAtomic(SubmissionsFile(plan.root), submissions.dump(1) + "\n");
    return sub;
}

std::vector<std::string>
SlurmJobs(const std::string& root)
{
    std::vector<std::string> jobs;
    for (const auto& s : ReadSubmissions(root))
    {
        jobs.push_back(s.value("array_job", ""));
        jobs.push_back(s.value("index_job", ""));
    }
    jobs.erase(std::remove(jobs.begin(), jobs.end(), ""), jobs.end());
    return jobs;
}

std::vector<std::string>
SlurmQueue(const std::vector<std::string>& jobs, std::string& error)
{
    std::vector<std::string> lines;
    if (jobs.empty())
    {
        return lines;
    }
    std::string list;
    for (const auto& j : jobs)
    {
        list += (list.empty() ? "" : ",") + j;
    }
    const ProgramOutput o = RunProgram({"squeue", "-h", "-r", "-j", list, "-o", "%i %T %r"});
    if (o.exitStatus != 0)
    {
        // squeue exits 1 with "Invalid job id specified" once every job has left the queue.
        if (o.err.find("Invalid job id") == std::string::npos)
        {
            error = Trim(o.err.empty() ? o.out : o.err);
        }
        return lines;
    }
    std::istringstream in(o.out);
    for (std::string line; std::getline(in, line);)
    {
        if (!Trim(line).empty())
        {
            lines.push_back(Trim(line));
        }
    }
    return lines;
}

bool
WaitForSlurm(const SweepPlan& plan, const std::vector<std::string>& jobs, bool quiet)
{
    StopSignalScope stopSignals;
    const bool tty = ::isatty(2) != 0;
    const auto t0 = std::chrono::steady_clock::now();
    std::string last;
    bool done = false;
    while (!StopSignalScope::Signal())
    {
        std::string error;
        const auto queue = SlurmQueue(jobs, error);
        if (!error.empty())
        {
            std::cerr << "tusk sweep: squeue: " << error << "\n";
        }
        size_t running = 0;
        size_t queued = 0;
        for (const auto& l : queue)
        {
            (l.find(" RUNNING") != std::string::npos ? running : queued)++;
        }
        const IndexCounts c = Count(ReadIndex(plan));
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const std::string line = fmt::format(
            "[slurm] {}/{} runs with results ({} failed, {} errors), jobs: {} running, {} queued",
            c.ok + c.failed, plan.runs.size(), c.failed, c.error, running, queued);
        if (!quiet && (tty || line != last))
        {
            std::cerr << (tty ? "\r\033[K" : "") << line << "  " << FormatDuration(elapsed)
                      << (tty ? "" : "\n") << std::flush;
            last = line;
        }
        if (queue.empty() && error.empty())
        {
            done = true;
            break;
        }
        for (int i = 0; i < 20 && !StopSignalScope::Signal(); ++i)
        {
            ::usleep(100'000);
        }
    }
    if (!quiet && tty)
    {
        std::cerr << "\n";
    }
    return done;
}

int
RunSlurmTask(const std::string& planFile, unsigned task, bool force)
{
    std::ifstream in(planFile);
    if (!in)
    {
        std::cerr << "tusk sweep-task: cannot read " << planFile << "\n";
        return 2;
    }
    const SweepPlan plan = PlanFromJson(nlohmann::json::parse(in));
    const uint32_t chunk = std::max<uint32_t>(1, plan.slurm.chunk);
    const size_t begin = static_cast<size_t>(task) * chunk;
    if (begin >= plan.runs.size())
    {
        std::cerr << "tusk sweep-task: task " << task << " has no runs (" << plan.runs.size()
                  << " runs, " << chunk << " per task)\n";
        return 2;
    }
    StopSignalScope stopSignals; // time limit, scancel: record the run in progress, then end
    const std::string tusk = SelfExecutable();
    int rc = 0;
    for (size_t i = begin; i < std::min(plan.runs.size(), begin + chunk) && !StopSignalScope::Signal(); ++i)
    {
        const SweepRun& run = plan.runs[i];
        const RunRecord r = ExecuteRun(plan.root, run, tusk, "slurm", force, plan.keepRevision,
                                       plan.keepCode, plan.plugins);
        std::cout << fmt::format("{} {} exit {} {:.1f} s{}\n", r.status, run.id, r.exitStatus,
                                 r.wallSeconds, r.message.empty() ? "" : ": " + r.message)
                  << std::flush;
        if (r.status != "ok")
        {
            rc = 1;
        }
    }
    return StopSignalScope::Signal() ? 128 + StopSignalScope::Signal() : rc;
}

} // namespace tusk
