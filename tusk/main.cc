// tusk: the command line. `tusk run`, `tusk compare`, `tusk report`, `tusk policies`,
// `tusk keys`, `tusk rerun`, `tusk locate`, `tusk sweep`, `tusk regress`.
//
// Exit status: 0 success; 1 the run itself failed (transfers unfinished at the stop time,
// broken packet conservation, an internal error); 2 bad input (the message names the file,
// line and key and what was expected) or a destination tusk refuses to replace or that another
// tusk is writing; 3 the results could not be written (an OS error: no space left, file too
// large); nothing is written for bad input, and the previous results stay intact on 2 and 3.

#include "comparison-table.h"
#include "git-revision.h"
#include "hpcc-config.h"
#include "kinds.h"
#include "knob-table.h"
#include "locate/locate-command.h"
#include "rerun.h"
#include "plugins.h"
#include "results-writer.h"
#include "runner.h"
#include "scenario-toml.h"
#include "stats.h"
#include "sweep-cli.h"
#include "tusk-version.h"

#include "fabric/model/input-error.h"
#include "lb-policies/policy-registry.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <cerrno>
#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <limits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace tusk;

namespace
{

constexpr int kExitRunFailed = 1;

extern "C" void
OnInterrupt(int sig)
{
    // Not strictly async-signal-safe, but the process is about to end either way and leaving
    // half a result behind is what atomic results promise not to do.
    AbandonActiveStaging();
    std::_Exit(128 + sig);
}
constexpr int kExitBadInput = 2;

struct CommonOptions
{
    std::string scenario;
    std::vector<std::string> sets;
    std::string out;
    std::string htsimTopo;
    std::string htsimCm;
    std::string hpccConfig;
    long long seed = -1;
    bool quiet = false;
};

void
AddCommon(CLI::App* cmd, CommonOptions& o, bool scenarioRequired)
{
    auto* s = cmd->add_option("scenario", o.scenario,
                              "Scenario file (TOML, see docs/scenario-format.md), or a run's manifest.json");
    if (scenarioRequired)
    {
        s->required(false); // may be replaced by --htsim-topo/--htsim-cm
    }
    cmd->add_option("--set", o.sets,
                    "Override a scenario key: --set lb.policy=spray --set workload.bytes=1GiB "
                    "(repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--seed", o.seed, "Run seed (overrides the scenario's `seed`)")
        ->check(CLI::Range(0LL, std::numeric_limits<long long>::max()));
    cmd->add_option("--out", o.out,
                    "Results directory (default results/<scenario name>/<policy>-s<seed>, or "
                    "results/<scenario name>/compare-s<seed> for compare)");
    cmd->add_option("--htsim-topo", o.htsimTopo, "htsim topology (.topo) to run on");
    cmd->add_option("--htsim-cm", o.htsimCm, "htsim connection matrix (.cm) to run");
    cmd->add_option("--hpcc-config", o.hpccConfig,
                    "HPCC simulator config.txt: apply its CC, ECN, PFC-threshold, buffer and "
                    "DCQCN keys (a warning for every key that is ignored)");
    cmd->add_flag("-q,--quiet", o.quiet, "No progress line on stderr");
}

std::string
Absolute(const std::string& p)
{
    return fs::absolute(p).lexically_normal().string();
}

ScenarioSpec LoadBase(const CommonOptions& o, const std::vector<std::string>& extraSets);

/** The scenario, then the HPCC config.txt's keys on top (--hpcc-config). */
ScenarioSpec
Load(const CommonOptions& o, const std::vector<std::string>& extraSets)
{
    ScenarioSpec spec = LoadBase(o, extraSets);
    if (!o.hpccConfig.empty())
    {
        for (const auto& w : ApplyHpccConfig(o.hpccConfig, spec))
        {
            if (!o.quiet)
            {
                std::cerr << "tusk: warning: " << w << "\n";
            }
        }
    }
    return spec;
}

ScenarioSpec
LoadBase(const CommonOptions& o, const std::vector<std::string>& extraSets)
{
    std::vector<std::string> sets;
    if (!o.htsimTopo.empty())
    {
        if (!fs::exists(o.htsimTopo))
        {
            throw ns3::InputError(o.htsimTopo, 0, "--htsim-topo", "no such file");
        }
        sets.push_back("topology.kind=htsim");
        sets.push_back("topology.file=\"" + Absolute(o.htsimTopo) + "\"");
    }
    if (!o.htsimCm.empty())
    {
        if (!fs::exists(o.htsimCm))
        {
            throw ns3::InputError(o.htsimCm, 0, "--htsim-cm", "no such file");
        }
        sets.push_back("workload.kind=htsim");
        sets.push_back("workload.file=\"" + Absolute(o.htsimCm) + "\"");
    }
    if (o.seed >= 0)
    {
        sets.push_back(fmt::format("seed={}", o.seed));
    }
    sets.insert(sets.end(), o.sets.begin(), o.sets.end());
    sets.insert(sets.end(), extraSets.begin(), extraSets.end());
    if (!o.scenario.empty())
    {
        // A run's manifest.json is a scenario too: the one that run used, resolved.
        if (fs::path(o.scenario).extension() == ".json")
        {
            LoadManifestPlugins(o.scenario); // the plugins that run loaded, as rerun does
            return LoadManifestScenario(o.scenario, sets);
        }
        return LoadScenarioFile(o.scenario, sets);
    }
    if (!o.htsimTopo.empty() || !o.htsimCm.empty())
    {
        if (o.htsimTopo.empty() || o.htsimCm.empty())
        {
            throw ns3::InputError("<command line>", 0, o.htsimTopo.empty() ? "--htsim-topo" : "--htsim-cm",
                                  "without a scenario file, give both --htsim-topo and --htsim-cm");
        }
        const std::string name = fs::path(o.htsimCm).stem().string();
        return LoadScenarioString("name = \"" + name + "\"\n", "<command line>", sets);
    }
    return LoadScenarioString(kDefaultScenarioToml, "<built-in default scenario>", sets);
}

std::string
DefaultOut(const ScenarioSpec& spec, const std::string& leaf)
{
    return (fs::path("results") / spec.name / leaf).string();
}

void
WriteIndex(const std::string& path, const std::vector<RunResult>& runs,
           const std::vector<std::string>& dirs)
{
    sqlite3* db = nullptr;
    // An OS error (no space, file too large) is a WriteError naming the file and the OS's words.
    auto check = [&](int rc, int ok) {
        if (rc != ok)
        {
            const int err = db ? sqlite3_system_errno(db) : 0;
            const std::string what = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
            sqlite3_close(db);
            throw err ? WriteError(path, err) : WriteError(path + ": " + what);
        }
    };
    check(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    const char* schema =
        "CREATE TABLE runs (run_dir TEXT, scenario TEXT, policy TEXT, seed INTEGER, status TEXT, "
        "cct_us REAL, algbw_GBps REAL, busbw_GBps REAL, slowdown_mean REAL, slowdown_p99 REAL, "
        "slowdown_max REAL, fct_p99_us REAL, fct_max_us REAL, uplink_util_max REAL, "
        "uplink_util_mean REAL, drops INTEGER, retx_packets INTEGER, ooo_packets INTEGER, "
        "unfinished INTEGER, events INTEGER, wall_time_s REAL);";
    check(sqlite3_exec(db, schema, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    check(sqlite3_prepare_v2(db,
                             "INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?);",
                             -1, &st, nullptr),
          SQLITE_OK);
    for (size_t i = 0; i < runs.size(); ++i)
    {
        const RunResult& r = runs[i];
        const RunSummary& s = r.summary;
        int k = 1;
        auto real = [&](double v) {
            if (std::isnan(v))
            {
                sqlite3_bind_null(st, k++);
            }
            else
            {
                sqlite3_bind_double(st, k++, v);
            }
        };
        sqlite3_bind_text(st, k++, dirs[i].c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, k++, r.spec.name.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, k++, s.policy.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, k++, static_cast<sqlite3_int64>(r.spec.seed));
        sqlite3_bind_text(st, k++, r.failure.empty() ? "ok" : "failed", -1, SQLITE_STATIC);
        real(s.cctUs);
        real(s.algbwGBps);
        real(s.busbwGBps);
        real(s.meanSlowdown);
        real(s.p99Slowdown);
        real(s.maxSlowdown);
        real(s.p99FctUs);
        real(s.maxFctUs);
        real(s.uplinkMaxUtil);
        real(s.uplinkMeanUtil);
        sqlite3_bind_int64(st, k++, static_cast<sqlite3_int64>(s.drops));
        sqlite3_bind_int64(st, k++, static_cast<sqlite3_int64>(s.retxPackets));
        sqlite3_bind_int64(st, k++, static_cast<sqlite3_int64>(s.oooPackets));
        sqlite3_bind_int64(st, k++, static_cast<sqlite3_int64>(s.unfinished));
        sqlite3_bind_int64(st, k++, static_cast<sqlite3_int64>(r.events));
        real(r.wallSeconds);
        const int rc = sqlite3_step(st);
        if (rc != SQLITE_DONE)
        {
            sqlite3_finalize(st);
        }
        check(rc, SQLITE_DONE);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    check(sqlite3_close(db), SQLITE_OK);
    db = nullptr;
}

/** Run `spec` and write its results into `out` atomically (RunInto). */
RunResult
RunInto(const ScenarioSpec& spec, const std::string& out, bool quiet)
{
    RunOptions ro;
    ro.progress = !quiet;
    return tusk::RunInto(spec, out, ro);
}

int
DoRun(const CommonOptions& o)
{
    ScenarioSpec spec = Load(o, {});
    if (!o.quiet)
    {
        for (const auto& w : ScenarioWarnings(spec))
        {
            std::cerr << "tusk: warning: " << w << "\n";
        }
    }
    const std::string out =
        !o.out.empty()             ? o.out
        : !spec.output.dir.empty() ? spec.output.dir
                                   : DefaultOut(spec, fmt::format("{}-s{}", spec.lb.policy, spec.seed));
    const RunResult r = RunInto(spec, out, o.quiet);
    std::cout << PathClassesLine(r);
    std::cout << SettingsLine(r.spec);
    PrintComparisonTable({r}, std::cout);
    std::cout << fmt::format("{} events in {:.2f} s wall ({:.2f} M events/s); results in {}/\n",
                             r.events, r.wallSeconds, r.events / r.wallSeconds / 1e6, out);
    if (!r.failure.empty())
    {
        std::cerr << "tusk: run failed: " << r.failure << "\n";
        return kExitRunFailed;
    }
    return 0;
}

/**
 * `tusk report DIR`: runs the Python analysis package (analysis/tusk_analysis, Debian's
 * python3-pandas and python3-matplotlib) on a run or comparison directory. The package is
 * found in the source tree (TUSK_ANALYSIS_DIR at build time) or at $TUSK_ANALYSIS_DIR; the
 * interpreter is /usr/bin/python3 or $TUSK_PYTHON. Its exit status is the command's.
 */
int
DoReport(const std::string& dir, const std::string& outDir, const std::string& quantiles)
{
    if (!fs::is_directory(dir))
    {
        std::cerr << "tusk report: " << dir << ": no such directory\n";
        return kExitBadInput;
    }
    const char* envDir = std::getenv("TUSK_ANALYSIS_DIR");
    std::string analysis = envDir && *envDir ? envDir : TUSK_ANALYSIS_DIR;
    if (!(envDir && *envDir))
    {
        // An installed tusk (cmake --install, cmake/TuskInstall.cmake): the package installed
        // beside it, P/lib/python3/dist-packages, before the source tree it was built from.
        std::error_code ec;
        const fs::path installed =
            fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path() /
            TUSK_INSTALL_PYTHONDIR;
        if (!ec && fs::is_directory(installed / "tusk_analysis", ec))
        {
            analysis = installed.string();
        }
    }
    if (!fs::is_directory(fs::path(analysis) / "tusk_analysis"))
    {
        std::cerr << "tusk report: the analysis package is not in " << analysis
                  << "/tusk_analysis; set TUSK_ANALYSIS_DIR to the repository's analysis/ "
                     "folder\n";
        return kExitRunFailed;
    }
    const char* envPython = std::getenv("TUSK_PYTHON");
    const std::string python = envPython && *envPython ? envPython : "/usr/bin/python3";
    const char* oldPath = std::getenv("PYTHONPATH");
    const std::string path = analysis + (oldPath && *oldPath ? ":" + std::string(oldPath) : "");
    ::setenv("PYTHONPATH", path.c_str(), 1);
    std::vector<std::string> args = {python, "-m", "tusk_analysis.report", dir};
    if (!outDir.empty())
    {
        args.insert(args.end(), {"--out", outDir});
    }
    args.insert(args.end(), {"--quantiles", quantiles});
    std::vector<char*> argv;
    for (auto& a : args)
    {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    std::cout.flush();
    ::execv(python.c_str(), argv.data());
    std::cerr << "tusk report: cannot run " << python << ": " << std::strerror(errno)
              << " (install python3-pandas and python3-matplotlib with "
                 "scripts/install-deps.sh, or set TUSK_PYTHON)\n";
    return kExitRunFailed;
}

int
DoCompare(const CommonOptions& o, const std::string& policiesArg)
{
    std::vector<std::string> policies;
    std::stringstream ss(policiesArg);
    for (std::string p; std::getline(ss, p, ',');)
    {
        if (!p.empty())
        {
            if (std::find(policies.begin(), policies.end(), p) != policies.end())
            {
                throw ns3::InputError("<command line>", 0, "--policies",
                                      "policy \"" + p + "\" is listed twice");
            }
            policies.push_back(p);
        }
    }
    if (policies.empty())
    {
        throw ns3::InputError("<command line>", 0, "--policies", "expected a comma-separated list");
    }
    // Load every variant first: bad input is reported before anything runs or is written.
    std::vector<ScenarioSpec> specs;
    for (const auto& p : policies)
    {
        specs.push_back(Load(o, {"lb.policy=" + p}));
        if (ns3::ResolveSwitchPolicy(specs.back().lb.policy).empty())
        {
            throw ns3::InputError("<command line>", 0, "--policies",
                                  "unknown policy \"" + p + "\"; expected one of " +
                                      ns3::PolicyNameList());
        }
    }
    if (!o.quiet)
    {
        for (const auto& w : ScenarioWarnings(specs[0]))
        {
            std::cerr << "tusk: warning: " << w << "\n";
        }
    }
    const std::string out =
        !o.out.empty()                 ? o.out
        : !specs[0].output.dir.empty() ? specs[0].output.dir
                                       : DefaultOut(specs[0], fmt::format("compare-s{}", specs[0].seed));
    StagedResults staged(out, "compare"); // removed unless committed
    const std::string& staging = staged.Path();
    std::vector<RunResult> runs;
    std::vector<std::string> dirs;
    for (const auto& spec : specs)
    {
        const std::string dir = staging + "/" + spec.lb.policy;
        if (::mkdir(dir.c_str(), 0755) != 0)
        {
            throw WriteError(dir, errno);
        }
        if (!o.quiet)
        {
            std::cerr << fmt::format("[tusk] running {} with {}\n", spec.name, spec.lb.policy);
        }
        RunOptions ro;
        ro.progress = !o.quiet;
        ro.pcapDir = dir;
        runs.push_back(RunScenario(spec, ro));
        WriteRunFiles(runs.back(), dir);
        dirs.push_back(spec.lb.policy);
    }
    WriteFileAtomic(staging + "/comparison.csv", ComparisonCsv(runs));
    WriteIndex(staging + "/index.sqlite", runs, dirs);
    staged.Commit();
    std::cout << fmt::format("{}: {} hosts, {} switches, {} transfers, seed {}\n", specs[0].name,
                             runs[0].hosts, runs[0].switches, runs[0].flows.size(), specs[0].seed);
    std::cout << PathClassesLine(runs[0]);
    std::cout << SettingsLine(runs[0].spec);
    PrintComparisonTable(runs, std::cout);
    std::cout << "results in " << out << "/ (comparison.csv, index.sqlite, one folder per policy)\n";
    std::cout << "plots and an HTML report: tusk report " << out << "\n";
    int rc = 0;
    for (const auto& r : runs)
    {
        if (!r.failure.empty())
        {
            std::cerr << "tusk: " << r.summary.policy << " run failed: " << r.failure << "\n";
            rc = kExitRunFailed;
        }
    }
    return rc;
}

/** `tusk keys [--update-doc FILE]`. */
int
DoKeys(const std::string& updateDoc)
{
    if (updateDoc.empty())
    {
        std::cout << KeyListText();
        return 0;
    }
    std::ifstream in(updateDoc);
    if (!in)
    {
        std::cerr << "tusk keys: cannot read " << updateDoc << "\n";
        return kExitBadInput;
    }
    std::ostringstream text;
    text << in.rdbuf();
    std::vector<std::string> problems;
    const std::string updated = UpdateKeyReference(text.str(), problems);
    for (const auto& p : problems)
    {
        std::cerr << "tusk keys: " << updateDoc << ": " << p << "\n";
    }
    if (!problems.empty())
    {
        return kExitBadInput;
    }
    WriteFileAtomic(updateDoc, updated);
    std::cout << (updated == text.str() ? "up to date: " : "updated: ") << updateDoc << "\n";
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    CLI::App app{"tusk " TUSK_VERSION ": packet-level simulation of load balancing for elephant "
                 "flows in AI-training fabrics (ns-3 3.37)"};
    app.require_subcommand(1);
    std::signal(SIGINT, OnInterrupt);
    std::signal(SIGTERM, OnInterrupt);
    // Past a file size limit (ulimit -f), write() fails with EFBIG (exit 3, the path and "File
    // too large") instead of the process being killed without a word.
    std::signal(SIGXFSZ, SIG_IGN);
    app.footer("Exit status: 0 success; 1 a run failed (transfers unfinished, a deadlock, "
               "broken conservation) or an internal error; 2 bad input, or a destination tusk "
               "will not replace or that another tusk is writing (nothing written); 3 results "
               "could not be written (no space left, file too large: the previous results are "
               "intact). docs/results-format.md, \"Results folders\".");
    app.set_version_flag("--version", std::string(TUSK_VERSION " (") + GitRevision() + ")");

    CommonOptions runOpts;
    auto* run = app.add_subcommand("run", "Run one scenario and write its results");
    AddCommon(run, runOpts, true);

    CommonOptions cmpOpts;
    std::string policies = "ecmp,flowlet-ar,spray";
    auto* cmp = app.add_subcommand(
        "compare",
        "Run a scenario once per policy (same topology, traffic and seed) and print one table. "
        "Without a scenario file, runs the built-in default (a ring all-reduce on a leaf-spine).");
    AddCommon(cmp, cmpOpts, false);
    cmp->add_option("--policies", policies, "Comma-separated policies (see `tusk policies`)")
        ->capture_default_str();

    auto* pol = app.add_subcommand("policies", "List the load-balancing policies");
    auto* kinds = app.add_subcommand(
        "kinds", "List every registered kind (policies, path selectors, congestion controls, "
                 "with plugins) and what each needs");

    RerunOptions rerunOpts;
    auto* rerun = AddRerunCommand(app, rerunOpts);

    std::string updateDoc;
    auto* keys = app.add_subcommand(
        "keys", "List every scenario key with its type, unit, default and the ns-3 attributes it "
                "sets (docs/scenario-format.md explains each)");
    keys->add_option("--update-doc", updateDoc,
                     "Regenerate the key tables of this copy of docs/scenario-format.md from the "
                     "knob table (between its `<!-- keys: ... -->` markers)");

    std::string reportDir;
    std::string reportOut;
    auto* rep = app.add_subcommand(
        "report",
        "Plots (PNG, SVG) and one self-contained report.html of a run, a comparison or a sweep, "
        "in RESULTS_DIR/report/ (docs/analysis.md, docs/sweeps.md)");
    rep->add_option("results_dir", reportDir,
                    "A run directory (manifest.json), a comparison directory (comparison.csv) "
                    "or a sweep results root (sweep.csv)")
        ->required();
    rep->add_option("--out", reportOut, "Report directory (default RESULTS_DIR/report)");
    std::string reportQuantiles = QuantileMethodName(QuantileMethod::NearestRank);
    rep->add_option("--quantiles", reportQuantiles,
                    "How the report's p50/p99/p99.9 are taken: nearest-rank (the observed value "
                    "of rank ceil(q n), as run/compare print them) or linear (interpolated "
                    "between order statistics, numpy's default)")
        ->check(CLI::IsMember({QuantileMethodName(QuantileMethod::NearestRank),
                               QuantileMethodName(QuantileMethod::Linear)}))
        ->capture_default_str();

    tusk::SweepCommands sweeps(app); // sweep, regress (sweep-cli.h)
    locate::CommandOptions locateOpts;
    auto* loc = locate::AddCommand(app, locateOpts);
    tusk::PluginOptions plugins(app); // --plugin on the commands that read scenarios

    try
    {
        app.parse(argc, argv);
    }
    catch (const CLI::ParseError& e)
    {
        const int rc = app.exit(e);
        return rc == 0 ? 0 : kExitBadInput;
    }

    try
    {
        plugins.Load();
        if (kinds->parsed())
        {
            std::cout << KindsText();
            return 0;
        }
        if (rep->parsed())
        {
            return DoReport(reportDir, reportOut, reportQuantiles);
        }
        if (sweeps.Parsed())
        {
            return sweeps.Run();
        }
        if (loc->parsed())
        {
            return locate::RunCommand(locateOpts, std::cout);
        }
        if (rerun->parsed())
        {
            return RunRerun(rerunOpts, std::cout);
        }
        if (keys->parsed())
        {
            return DoKeys(updateDoc);
        }
        if (pol->parsed())
        {
            size_t width = 11;
            for (const auto& p : ns3::SwitchPolicies())
            {
                width = std::max(width, p.name.size());
            }
            for (const auto& p : ns3::SwitchPolicies())
            {
                const std::string host =
                    (p.pathSelector.empty() ? "" : "host " + p.pathSelector + "; ") +
                    (p.fabric.empty() ? "" : "fabric.kind = \"" + p.fabric + "\" only; ") +
                    (p.needsReorderingReceiver ? "out-of-order receiver; " : "");
                std::cout << fmt::format("{:<{}} {:<36} {}\n{:<{}} {:<36} {}source: {}\n",
                                         p.name, width, p.typeId, p.description, "", width, "",
                                         host, p.source);
            }
            return 0;
        }
        if (run->parsed())
        {
            if (runOpts.scenario.empty() && runOpts.htsimCm.empty() && runOpts.htsimTopo.empty())
            {
                std::cerr << "tusk run: a scenario file (or --htsim-topo and --htsim-cm) is "
                             "required; `tusk compare` runs the built-in default\n";
                return kExitBadInput;
            }
            return DoRun(runOpts);
        }
        return DoCompare(cmpOpts, policies);
    }
    catch (const ns3::InputError& e)
    {
        std::cerr << "tusk: error: " << e.what() << "\n";
        return kExitBadInput;
    }
    catch (const WriteError& e)
    {
        std::cerr << "tusk: error: cannot write " << e.what()
                  << "; nothing was committed, earlier results are intact\n";
        return kExitWriteFailed;
    }
    catch (const std::exception& e)
    {
        std::cerr << "tusk: internal error: " << e.what() << "\n";
        return kExitRunFailed;
    }
}
