#include "sweep/sweep-cli.h"

#include "cli/code-identity.h"
#include "cli/git-revision.h"
#include "sweep/regress.h"
#include "results/results-dir.h"
#include "results/results-writer.h"
#include "sweep/sweep-exec.h"
#include "sweep/sweep-index.h"
#include "sweep/sweep-slurm.h"

#include "fabric/model/input-error.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

namespace tusk
{

namespace fs = std::filesystem;

namespace
{

constexpr int kExitFailed = 1;
constexpr int kExitBadInput = 2;

void
AddBatchOptions(CLI::App* cmd, BatchOptions& o, const std::string& fileHelp,
                const std::string& defaultRoot)
{
    cmd->add_option("file", o.file, fileHelp)->required();
    cmd->add_option("--backend", o.backend,
                    "Where the runs execute: local (worker processes on this machine) or slurm "
                    "(a job array, `sbatch --array`)")
        ->check(CLI::IsMember({"local", "slurm"}))
        ->capture_default_str();
    cmd->add_option("-j,--jobs", o.jobs,
                    "Local worker processes (default: the number of cores)")
        ->check(CLI::Range(1u, 4096u));
    cmd->add_option("--out", o.out, "Results root (default " + defaultRoot + ")");
    cmd->add_option("--set", o.sets,
                    "Override a scenario key in every run, after the file's own: --set "
                    "nic.receiver=selective-repeat (repeatable)")
        ->allow_extra_args(false);
    cmd->add_flag("-q,--quiet", o.quiet, "No progress output");
    cmd->add_option("--partition", o.slurm.partition, "slurm: partition (sbatch --partition)");
    cmd->add_option("--time", o.slurm.time,
                    "slurm: time limit of each array task, e.g. 00:30:00 (sbatch --time)");
    cmd->add_option("--mem", o.slurm.mem, "slurm: memory of each array task, e.g. 2G (sbatch --mem)");
    cmd->add_option("--account", o.slurm.account, "slurm: account (sbatch --account)");
    cmd->add_option("--chunk", o.slurm.chunk, "slurm: runs per array task (default 1)")
        ->check(CLI::Range(1u, 100000u))
        ->each([&o](const std::string&) { o.chunkGiven = true; });
    cmd->add_option("--max-parallel", o.slurm.maxParallel,
                    "slurm: at most this many array tasks at once (--array=...%N)")
        ->each([&o](const std::string&) { o.maxParallelGiven = true; });
    cmd->add_option("--sbatch-arg", o.slurm.sbatchArgs,
                    "slurm: a further sbatch option, verbatim (repeatable), e.g. --sbatch-arg=--qos=short");
}

unsigned
Jobs(const BatchOptions& o)
{
    return o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
}

void
PrintDuplicates(const SweepPlan& plan)
{
    for (const auto& [run, earlier] : plan.duplicates)
    {
        std::cerr << "tusk: warning: run " << run << " resolves to the same scenario as " << earlier
                  << " (an axis value that changes nothing?)\n";
    }
}

std::string
Display(const std::string& root)
{
    std::error_code ec;
    const fs::path rel = fs::relative(root, fs::current_path(), ec);
    return !ec && !rel.empty() && rel.native().rfind("..", 0) != 0 ? rel.string() : root;
}

/** Say how many runs are run again because other code made their results (if any). */
void
PrintOtherCode(size_t n)
{
    if (n > 0)
    {
        std::cout << fmt::format("{} run(s) run again because their results were made by other "
                                 "code (manifest code_hash is not this binary's)\n",
                                 n);
    }
}

/** Each run printed its warnings into its log: say once, on stderr, that runs warned, or
 *  they go unread. Nothing is written when none did: a write to std::cerr flushes std::cout
 *  (tied), which a reader of the output such as `| grep -q` may have stopped reading. */
void
PrintWarnedRuns(const SweepPlan& plan)
{
    const std::string line = WarnedRunsLine(plan);
    if (!line.empty())
    {
        std::cout.flush();
        std::cerr << line;
    }
}

/** Submit to Slurm and optionally wait; returns the exit status. */
int
RunOnSlurm(const SweepPlan& plan, bool force, bool wait, bool quiet)
{
    const SlurmSubmission sub = SubmitSlurm(plan, force);
    PrintOtherCode(sub.otherCode);
    if (sub.runs == 0)
    {
        std::cout << fmt::format("all {} runs have complete results in {}/; nothing submitted\n",
                                 plan.runs.size(), Display(plan.root));
        WriteSweepIndex(plan);
        return 0;
    }
    std::cout << fmt::format("submitted {} runs as job array {} ({} tasks, {} run(s) each); "
                             "index job {} writes sweep.csv and index.sqlite when they end\n",
                             sub.runs, sub.arrayJob, sub.tasks, std::max(1u, plan.slurm.chunk),
                             sub.indexJob);
    if (!wait)
    {
        std::cout << fmt::format("results in {}/; progress: tusk {} {} --status\n",
                                 Display(plan.root), plan.kind, plan.sourceFile);
        return 0;
    }
    if (!WaitForSlurm(plan, {sub.arrayJob, sub.indexJob}, quiet))
    {
        std::cerr << "tusk: stopped waiting; the jobs keep running (scancel " << sub.arrayJob
                  << " " << sub.indexJob << " to cancel them)\n";
        return 128 + StopSignalScope::Signal();
    }
    const IndexCounts c = WriteSweepIndex(plan);
    PrintWarnedRuns(plan);
    return c.failed + c.error + c.pending ? kExitFailed : 0;
}

/** Keep only the scenarios (SCENARIO) and policies (SCENARIO/POLICY) that `only` names. */
void
RestrictSuite(RegressSuite& suite, const std::vector<std::string>& only)
{
    for (const auto& o : only)
    {
        const std::string scen = o.substr(0, o.find('/'));
        const std::string pol = o.find('/') == std::string::npos ? "" : o.substr(o.find('/') + 1);
        auto s = std::find_if(suite.scenarios.begin(), suite.scenarios.end(),
                              [&](const SuiteScenario& x) { return x.name == scen; });
        if (s == suite.scenarios.end() ||
            (!pol.empty() && std::find(s->policies.begin(), s->policies.end(), pol) == s->policies.end()))
        {
            throw ns3::InputError("<command line>", 0, "--only",
                                  "\"" + o + "\" names no scenario (or policy of it) of " + suite.file);
        }
    }
    std::vector<SuiteScenario> kept;
    for (auto s : suite.scenarios)
    {
        std::vector<std::string> policies;
        for (const auto& p : s.policies)
        {
            for (const auto& o : only)
            {
                if (o == s.name || o == s.name + "/" + p)
                {
                    policies.push_back(p);
                    break;
                }
            }
        }
        if (!policies.empty())
        {
            s.policies = policies;
            kept.push_back(s);
        }
    }
    suite.scenarios = kept;
}

/**
 * A sweep run again into `root` with no plugin given (--plugin, TUSK_PLUGIN_PATH) loads the
 * plugins its plan.json recorded, so that its scenarios read as before; `rerunAll` (--force)
 * accepts a plugin rebuilt since.
 */
void
LoadPlanPlugins(const std::string& root, bool rerunAll)
{
    const std::string file = SweepStateDir(root) + "/plan.json";
    std::ifstream in(file);
    if (!in || !LoadedPlugins().empty())
    {
        return;
    }
    const auto j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_object())
    {
        LoadRecordedPlugins(j.value("plugins", nlohmann::json()), file, rerunAll);
    }
}

/** A regression suite's name as ReadSuite takes it (its `name`, else the file's stem), read
 *  before the suite is: "" when the file cannot be parsed (ReadSuite then says why). */
std::string
SuiteName(const std::string& file)
{
    try
    {
        const toml::table t = toml::parse_file(file);
        if (const auto name = t["name"].value<std::string>())
        {
            return *name;
        }
    }
    catch (const toml::parse_error&)
    {
        return "";
    }
    return fs::path(file).stem().string();
}

std::string
Today()
{
    const std::time_t t = std::time(nullptr);
    char buf[16];
    std::strftime(buf, sizeof(buf), "%Y-%m-%d", std::localtime(&t));
    return buf;
}

} // namespace

SlurmOptions
MergeSlurm(const SlurmOptions& file, const BatchOptions& o)
{
    SlurmOptions s = file;
    if (!o.slurm.partition.empty())
    {
        s.partition = o.slurm.partition;
    }
    if (!o.slurm.time.empty())
    {
        s.time = o.slurm.time;
    }
    if (!o.slurm.mem.empty())
    {
        s.mem = o.slurm.mem;
    }
    if (!o.slurm.account.empty())
    {
        s.account = o.slurm.account;
    }
    if (o.chunkGiven)
    {
        s.chunk = o.slurm.chunk;
    }
    if (o.maxParallelGiven)
    {
        s.maxParallel = o.slurm.maxParallel;
    }
    s.sbatchArgs.insert(s.sbatchArgs.end(), o.slurm.sbatchArgs.begin(), o.slurm.sbatchArgs.end());
    return s;
}

SweepCommands::SweepCommands(CLI::App& app)
{
    m_sweep = app.add_subcommand(
        "sweep",
        "Run a sweep: a base scenario and axes of scenario keys (docs/sweeps.md). Results in "
        "results/<sweep>/<run-id>/ as `tusk run` writes them, plus sweep.csv and index.sqlite. "
        "Runs with complete results are skipped, so an interrupted sweep resumes.");
    AddBatchOptions(m_sweep, m_sweepOpts, "Sweep file (TOML, docs/sweeps.md)", "results/<name>");
    m_sweep->add_flag("--dry-run", m_dryRun, "List the runs and their overrides; run nothing");
    m_sweep->add_flag("--force", m_force, "Rerun runs that already have complete results");
    m_sweep->add_flag("--status", m_status,
                      "Show how many runs are done, failed and pending (and the Slurm jobs)");
    m_sweep->add_flag("--collect", m_collect,
                      "Rewrite sweep.csv and index.sqlite from the results tree; run nothing");
    m_sweep->add_flag("--wait", m_wait, "slurm: wait for the jobs to end, showing progress");

    m_regress = app.add_subcommand(
        "regress",
        "Run a regression suite (scenarios x policies x seeds) and compare metrics with their "
        "baselines: exit 1 if any regressed, 0 if none, 2 on bad input (docs/sweeps.md)");
    AddBatchOptions(m_regress, m_regressOpts, "Suite file (TOML, docs/sweeps.md)",
                    "results/regress/<name>");
    m_regress->add_option("--junit", m_junit, "JUnit XML report (default <results root>/junit.xml)");
    m_regress->add_flag("--update-baselines", m_updateBaselines,
                        "Rewrite the measured baselines with the values of this run (theory and "
                        "paper ones are never touched), add missing ones, and show the diff");
    m_regress->add_option("--only", m_only,
                          "Run only this scenario, or SCENARIO/POLICY (repeatable)");
    m_regress->add_flag("--resume", m_resume,
                        "Keep runs that have complete results (same binary only: by default "
                        "every run is redone)");

    m_task = app.add_subcommand("sweep-task", "(internal) run one Slurm array task of a sweep");
    m_task->group(""); // hidden from --help
    m_task->add_option("plan", m_taskPlan, "plan.json of a submission")->required();
    m_task->add_option("--task", m_taskIndex, "array task index");
    m_task->add_flag("--collect", m_taskCollect, "write sweep.csv and index.sqlite");
    m_task->add_flag("--force", m_taskForce, "rerun runs that have complete results");
}

bool
SweepCommands::Parsed() const
{
    return m_sweep->parsed() || m_regress->parsed() || m_task->parsed();
}

int
SweepCommands::Run()
{
    try
    {
        return Dispatch();
    }
    catch (const ns3::InputError&)
    {
        throw; // exit 2, printed by main
    }
    catch (const WriteError&)
    {
        throw; // exit 3, printed by main
    }
    catch (const std::runtime_error& e)
    {
        std::cerr << "tusk " << (m_regress->parsed() ? "regress" : "sweep") << ": error: " << e.what()
                  << "\n";
        return kExitFailed;
    }
}

int
SweepCommands::Dispatch()
{
    if (m_task->parsed())
    {
        return RunTask();
    }
    if (m_sweep->parsed())
    {
        return RunSweep();
    }
    // tusk regress. Its results root's plan (an earlier regress of this suite) names the
    // plugins its runs loaded: with none given, they load before the suite is read, since its
    // policies are checked by name. By default every run is redone, so a plugin rebuilt since
    // is taken; --resume keeps results and refuses one that changed.
    const BatchOptions& o = m_regressOpts;
    LoadPlanPlugins(o.out.empty() ? (fs::path("results") / "regress" / SuiteName(o.file)).string()
                                  : o.out,
                    !m_resume);
    RegressSuite suite = ReadSuite(o.file);
    suite.slurm = MergeSlurm(suite.slurm, o);
    for (auto& sc : suite.scenarios)
    {
        for (const auto& s : o.sets)
        {
            sc.sets.push_back(CommandLineEdit(s));
        }
    }
    if (!m_only.empty())
    {
        RestrictSuite(suite, m_only);
    }
    const std::string root =
        o.out.empty() ? (fs::path("results") / "regress" / suite.name).string() : o.out;
    SweepPlan plan = SuitePlan(suite, root);
    plan.plugins = LoadedPlugins();
    plan.keepRevision = GitRevision(); // --resume keeps only this binary's results
    plan.keepCode = CodeIdentity();
    if (!o.quiet)
    {
        std::cerr << fmt::format("tusk regress {}: {} runs ({} scenarios), {} backend, results in {}/\n",
                                 suite.name, plan.runs.size(), suite.scenarios.size(), o.backend,
                                 Display(plan.root));
    }
    const bool force = !m_resume;
    if (o.backend == "slurm")
    {
        const int rc = RunOnSlurm(plan, force, true, o.quiet);
        if (rc > 128)
        {
            return rc; // interrupted: 128 + the signal
        }
    }
    else
    {
        LocalOptions lo;
        lo.jobs = Jobs(o);
        lo.force = force;
        lo.quiet = o.quiet;
        const SweepTally t = RunLocal(plan, lo);
        PrintOtherCode(t.otherCode);
        if (t.interrupted)
        {
            std::cerr << "tusk regress: interrupted\n";
            return 128 + t.stopSignal;
        }
    }
    const auto runs = ReadIndex(plan);
    auto checks = Evaluate(suite, runs);
    const auto outliers = MeasuredOutliers(suite);
    MarkOutliers(checks, outliers);
    std::cout << CheckTable(checks) << OutlierWarnings(outliers);
    const std::string junit = m_junit.empty() ? plan.root + "/junit.xml" : m_junit;
    WriteFileAtomic(junit, JUnitXml(suite, checks, runs));
    size_t failing = 0;
    size_t improved = 0;
    size_t measuredFailing = 0;
    for (const auto& c : checks)
    {
        if (c.Failing())
        {
            ++failing;
            if (c.metric.empty() == false && (c.baseline == nullptr || c.baseline->Measured()) &&
                c.verdict != "MISSING")
            {
                ++measuredFailing;
            }
        }
        improved += c.verdict == "improved";
    }
    std::cout << fmt::format("{} checks: {} failing, {} improved; JUnit XML: {}\n", checks.size(),
                             failing, improved, junit);
    if (m_updateBaselines)
    {
        std::string diff;
        const std::string text = UpdatedSuiteText(suite, checks, Today(), GitRevision(), diff);
        if (diff.empty())
        {
            std::cout << "baselines: nothing to update\n";
        }
        else
        {
            WriteFileAtomic(suite.file, text);
            std::cout << "baselines updated in " << suite.file << ":\n" << diff;
        }
        // Measured entries now equal this run; what still fails is theory, paper or missing.
        return failing - measuredFailing > 0 ? kExitFailed : 0;
    }
    return failing ? kExitFailed : 0;
}

int
SweepCommands::RunSweep()
{
    const BatchOptions& o = m_sweepOpts;
    SweepSpec spec = ReadSweepFile(o.file);
    spec.slurm = MergeSlurm(spec.slurm, o);
    for (const auto& s : o.sets)
    {
        spec.sets.push_back(CommandLineEdit(s));
    }
    const std::string root = o.out.empty() ? (fs::path("results") / spec.name).string() : o.out;
    LoadPlanPlugins(root, m_force);
    SweepPlan plan = ExpandSweep(spec, root);
    plan.keepCode = CodeIdentity(); // results of other code are run again
    plan.plugins = LoadedPlugins();
    if (!o.quiet)
    {
        PrintDuplicates(plan);
    }
    std::string shape;
    for (const auto& a : spec.axes)
    {
        shape += (shape.empty() ? "" : spec.zip ? " zip " : " x ") +
                 fmt::format("{} {}", a.values.size(), a.name);
    }

    if (m_dryRun || m_status)
    {
        const auto runs = ReadIndex(plan);
        const IndexCounts c = Count(runs);
        std::cout << fmt::format("sweep {}: {} runs{}, base scenario {}\n", plan.name,
                                 plan.runs.size(), shape.empty() ? "" : " (" + shape + ")",
                                 spec.scenario);
        std::cout << fmt::format("results in {}/: {} ok, {} failed, {} errors, {} pending\n",
                                 Display(plan.root), c.ok, c.failed, c.error, c.pending);
        if (m_status)
        {
            const auto jobs = SlurmJobs(plan.root);
            if (!jobs.empty())
            {
                std::string error;
                const auto queue = SlurmQueue(jobs, error);
                if (!error.empty())
                {
                    std::cout << "slurm: squeue: " << error << "\n";
                }
                else if (queue.empty())
                {
                    std::cout << "slurm: no job of this sweep is queued or running\n";
                }
                else
                {
                    std::cout << "slurm jobs still in the queue:\n";
                    for (const auto& l : queue)
                    {
                        std::cout << "  " << l << "\n";
                    }
                }
            }
            for (const auto& r : runs)
            {
                if (r.status == "failed" || r.status == "error")
                {
                    std::cout << fmt::format("  {} {} (exit {}): {}\n", r.status, r.run->id,
                                             r.exitStatus, r.message);
                }
            }
            PrintWarnedRuns(plan);
            return c.failed + c.error ? kExitFailed : 0;
        }
        size_t w = 6;
        for (const auto& r : plan.runs)
        {
            w = std::max(w, r.id.size());
        }
        std::cout << fmt::format("{:<{}}  {:<8} {}\n", "run id", w, "state", "overrides (--set)");
        for (const auto& r : runs)
        {
            std::string sets;
            for (const auto& s : r.run->sets)
            {
                sets += (sets.empty() ? "" : "  ") + s;
            }
            std::cout << fmt::format("{:<{}}  {:<8} {}\n", r.run->id, w, r.status, sets);
        }
        if (!plan.runs.empty())
        {
            std::string cmd;
            for (const auto& a : RunCommand("tusk", plan.root, plan.runs[0], plan.plugins))
            {
                cmd += (cmd.empty() ? "" : " ") +
                       (a.find_first_of(" \"'[]{}*?$;&|<>") == std::string::npos ? a
                                                                               : ShellQuote(a));
            }
            std::cout << "each run is `tusk run` in its scenario's directory, e.g.\n  (cd "
                      << fs::path(plan.runs[0].scenario).parent_path().string() << " && " << cmd
                      << ")\n";
        }
        return 0;
    }
    if (m_collect)
    {
        WritePlan(plan);
        const IndexCounts c = WriteSweepIndex(plan);
        std::cout << fmt::format("{}/sweep.csv and index.sqlite: {} ok, {} failed, {} errors, {} pending\n",
                                 Display(plan.root), c.ok, c.failed, c.error, c.pending);
        PrintWarnedRuns(plan);
        return 0;
    }
    if (o.backend == "slurm")
    {
        return RunOnSlurm(plan, m_force, m_wait, o.quiet);
    }
    if (m_wait)
    {
        throw ns3::InputError("<command line>", 0, "--wait", "only with --backend slurm");
    }
    LocalOptions lo;
    lo.jobs = Jobs(o);
    lo.force = m_force;
    lo.quiet = o.quiet;
    if (!o.quiet)
    {
        std::cerr << fmt::format("tusk sweep {}: {} runs{}, {} local worker(s), results in {}/\n",
                                 plan.name, plan.runs.size(), shape.empty() ? "" : " (" + shape + ")",
                                 lo.jobs, Display(plan.root));
    }
    const SweepTally t = RunLocal(plan, lo);
    std::cout << fmt::format("{} runs: {} ran ({} ok, {} failed, {} errors), {} skipped (complete "
                             "results), {} wall; {}/sweep.csv, index.sqlite\n",
                             t.total, t.ok + t.failed + t.errors, t.ok, t.failed, t.errors,
                             t.skipped, FormatDuration(t.wallSeconds), Display(plan.root));
    PrintOtherCode(t.otherCode);
    PrintWarnedRuns(plan);
    if (t.interrupted)
    {
        std::cerr << "tusk sweep: interrupted; finished runs are kept, run the same command to "
                     "resume\n";
        return 128 + t.stopSignal;
    }
    if (t.writeFailed > 0 && t.writeFailed == t.failed + t.errors)
    {
        // Every run that did not succeed could not write its results (a full disk, a file size
        // limit): the sweep's status is that of its runs, as `tusk run`'s would be.
        return kExitWriteFailed;
    }
    return t.failed + t.errors ? kExitFailed : 0;
}

int
SweepCommands::RunTask()
{
    if (m_taskCollect)
    {
        std::ifstream in(m_taskPlan);
        if (!in)
        {
            std::cerr << "tusk sweep-task: cannot read " << m_taskPlan << "\n";
            return kExitBadInput;
        }
        const SweepPlan plan = PlanFromJson(nlohmann::json::parse(in));
        const IndexCounts c = WriteSweepIndex(plan);
        std::cout << fmt::format("index written: {} ok, {} failed, {} errors, {} pending\n", c.ok,
                                 c.failed, c.error, c.pending);
        return 0;
    }
    if (m_taskIndex < 0)
    {
        std::cerr << "tusk sweep-task: give --task N or --collect\n";
        return kExitBadInput;
    }
    return RunSlurmTask(m_taskPlan, static_cast<unsigned>(m_taskIndex), m_taskForce);
}

} // namespace tusk
